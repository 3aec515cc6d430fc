/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runqlat.h — types shared by runqlat.bpf.c and src/cmd/runqlat.c. */
#ifndef PERFKIT_BPF_RUNQLAT_H
#define PERFKIT_BPF_RUNQLAT_H

#include "log2.h"

#define RUNQ_TASK_COMM_LEN 16

struct runq_hist {
	__u64 slots[LOG2_SLOTS];   /* log2 buckets of the wait (usecs, or msecs with -m) */
	char comm[RUNQ_TASK_COMM_LEN];   /* -P/-L: the task's comm at its latest switch-in */
};

#endif
