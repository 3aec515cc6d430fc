/* SPDX-License-Identifier: GPL-2.0-or-later */
/* opensnoop.h — types shared by opensnoop.bpf.c and src/cmd/opensnoop.c. */
#ifndef PERFKIT_BPF_OPENSNOOP_H
#define PERFKIT_BPF_OPENSNOOP_H

#define OPEN_TASK_COMM_LEN 16
#define OPEN_NAME_MAX      256     /* bytes kept of the path, NUL included */

enum open_call { OPEN_OPEN = 0, OPEN_OPENAT = 1, OPEN_OPENAT2 = 2 };

struct open_event {
	__u64 ts_ns;                   /* bpf_ktime_get_ns() at the syscall's exit */
	__u32 pid, tid, uid;
	__s32 ret;                     /* fd or -errno */
	__s32 dfd;                     /* the directory fd (AT_FDCWD = -100 for open()) */
	__u32 call;                    /* enum open_call */
	__u64 flags;                   /* open flags */
	char comm[OPEN_TASK_COMM_LEN];
	char fname[OPEN_NAME_MAX];
};

#endif
