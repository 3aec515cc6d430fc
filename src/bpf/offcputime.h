/* SPDX-License-Identifier: GPL-2.0-or-later */
/* offcputime.h — types shared by offcputime.bpf.c and src/cmd/offcputime.c. */
#ifndef PERFKIT_BPF_OFFCPUTIME_H
#define PERFKIT_BPF_OFFCPUTIME_H

#define OFFCPU_TASK_COMM_LEN 16
#define OFFCPU_MAX_STACK     127
#define OFFCPU_NO_STACK      (-0x7fff)   /* part not asked for, or none (kernel thread) */

struct offcpu_key {
	__u32 tgid;
	__u32 tid;
	__s32 user_stack_id;            /* >= 0 (STACKID_SPILL: stackid.h), OFFCPU_NO_STACK or -errno */
	__s32 kern_stack_id;
	char comm[OFFCPU_TASK_COMM_LEN];
};

#endif
