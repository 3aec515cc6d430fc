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

#endif
