/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hist.h — log2 histograms printed in bcc's layout (print_log2_hist):
 *
 *      usecs               : count    distribution
 *          0 -> 1          : 3        |****                                    |
 *          2 -> 3          : 29       |****************************************|
 *
 * Buckets are those of src/bpf/log2.h (shared with the BPF programs):
 * bucket 0 = [0, 1], bucket i = [2^i, 2^(i+1) - 1], bucket 63 = [2^63,
 * 2^64 - 1]; a histogram has LOG2_SLOTS (64) counters.  Rows are printed
 * from bucket 0 up to the highest non-empty bucket; the stars column is 40
 * wide (20 with 20-digit columns once a bucket above 32 is used) and scaled
 * to the largest count (bucket count * width / largest, rounded down).  An all-zero
 * histogram renders as nothing.  Rendering appends to a strbuf; no I/O.
 *
 * Linear histograms (hist_render_linear) bucket as bpftrace's lhist() does,
 * in the same table shape:
 *
 *      msecs               : count    distribution
 *         10 -> 19         : 5        |****************************************|
 *         20 -> 29         : 0        |                                        |
 *         30 -> 39         : 5        |****************************************|
 *            >= 40         : 1        |********                                |
 *
 * (step 10 with 5 counters: [0, 10) to [30, 40) and the overflow; the empty
 * [0, 10) row is trimmed).
 */
#ifndef PERFKIT_BPFUTIL_HIST_H
#define PERFKIT_BPFUTIL_HIST_H

#include <stdint.h>

#include "base/strbuf.h"

#define HIST_SLOTS 64

/* The bucket of value v (0..63). */
unsigned int hist_slot(uint64_t v);

/* Lowest and highest value of bucket i (0..63). */
uint64_t hist_low(unsigned int i);
uint64_t hist_high(unsigned int i);

/* Append the histogram of slots[0..nslots) (nslots <= HIST_SLOTS) with the
 * unit name val_type ("usecs", "msecs", "nsecs") to sb. */
void hist_render(struct strbuf *sb, const uint64_t *slots, unsigned int nslots,
		 const char *val_type);

/* Append a linear histogram to sb.  slots has nslots counters: slots[k]
 * for k < nslots - 1 counts the values in [k*step, (k+1)*step) and is
 * printed as "k*step -> (k+1)*step - 1"; the last one, slots[nslots - 1],
 * counts the overflow (values >= (nslots - 1)*step), printed as
 * ">= (nslots - 1)*step".  Rows go from the first to the last non-empty
 * counter (empty counters between them are printed, those outside are not);
 * an all-zero histogram, or nslots == 0, renders as nothing.  Header, row
 * and stars layout as hist_render's: 10-digit value columns and 40 stars,
 * or 20 and 20 when a printed bound needs more than 10 digits.
 * Returns 0, or -EINVAL (message via pk_error, nothing appended) when step
 * is 0 or (nslots - 1)*step does not fit in 64 bits. */
int hist_render_linear(struct strbuf *sb, const uint64_t *slots, unsigned int nslots,
		       uint64_t step, const char *val_type);

#endif
