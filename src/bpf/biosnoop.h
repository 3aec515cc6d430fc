/* SPDX-License-Identifier: GPL-2.0-or-later */
/* biosnoop.h — types shared by biosnoop.bpf.c and src/cmd/biosnoop.c. */
#ifndef PERFKIT_BPF_BIOSNOOP_H
#define PERFKIT_BPF_BIOSNOOP_H

#define BIOSNOOP_TASK_COMM_LEN 16

struct biosnoop_event {
	__u64 ts_ns;                  /* completion, bpf_ktime_get_ns() */
	__u64 sector;
	__u64 lat_ns;                 /* issue -> completion */
	__u64 queue_ns;               /* insert -> issue (-Q; 0 when never inserted) */
	__u32 pid;                    /* the submitter of the request's first bio */
	__u32 bytes;
	__u32 dev;                    /* (major << 20) | first_minor of the disk, 0 unknown */
	char rwbs[8];                 /* blktrace's: R/W/D/F/N, then F(ua) A(head) S(ync) M(eta) */
	char comm[BIOSNOOP_TASK_COMM_LEN];
};

#define BIOSNOOP_MAJOR(dev) ((dev) >> 20)
#define BIOSNOOP_MINOR(dev) ((dev) & ((1u << 20) - 1))

#endif
