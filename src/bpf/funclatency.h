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

/* Histogram kinds (rodata hist_mode): log2 buckets (src/bpf/log2.h) into
 * hist[], or linear ones (-L STEP, as bpftrace's lhist()) into lin_hist[]:
 * lin_hist[k] for k < FUNC_LIN_SLOTS counts latencies of [k*STEP,
 * (k+1)*STEP) display units, lin_hist[FUNC_LIN_SLOTS] those >=
 * FUNC_LIN_SLOTS*STEP.  FUNC_LIN_STEP_MAX keeps FUNC_LIN_SLOTS*STEP well
 * inside 64 bits. */
enum func_hist_mode { FUNC_HIST_LOG2 = 0, FUNC_HIST_LINEAR = 1 };
#define FUNC_LIN_SLOTS 1000
#define FUNC_LIN_STEP_MAX 1000000000000000ULL   /* 10^15 */

/* Per-thread stack of open calls: ts[0..depth) their entry times, sp[]
 * the stack pointer at each entry (pointing at the return address).  The
 * stack grows down, so a deeper call has a lower sp; a return happens with
 * sp = its entry's sp + 8 (the return address popped).  An entry whose
 * frame is gone without a return (longjmp, an exception unwinding through
 * it) is recognised by its sp and dropped: by a return to an outer frame
 * or by a new call at the same or a higher sp. */
struct func_stack {
	__u32 depth;
	__u32 pad;
	__u64 ts[FUNC_MAX_DEPTH];
	__u64 sp[FUNC_MAX_DEPTH];
};

#endif
