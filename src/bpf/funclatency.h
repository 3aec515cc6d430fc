/* SPDX-License-Identifier: GPL-2.0-or-later */
/* funclatency.h — types shared by funclatency.bpf.c and src/cmd/funclatency.c. */
#ifndef PERFKIT_BPF_FUNCLATENCY_H
#define PERFKIT_BPF_FUNCLATENCY_H

#include "log2.h"

/* Nested/recursive calls kept per thread; deeper calls are counted in
 * `too_deep` and not measured (the kernel itself stops return probes at
 * 64 nested calls of one task). */
#define FUNC_MAX_DEPTH 32

enum func_units { FUNC_NSEC = 0, FUNC_USEC = 1, FUNC_MSEC = 2 };

/* Per-thread stack of entry times: ts[0..depth) are open calls. */
struct func_stack {
	__u32 depth;
	__u32 pad;
	__u64 ts[FUNC_MAX_DEPTH];
};

#endif
