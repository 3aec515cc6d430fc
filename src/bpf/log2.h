/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log2.h — the log2 histogram bucket of a value, shared by the BPF programs
 * (which count into buckets) and the user side (which prints them), so both
 * agree by construction.  Plain C with no includes: it builds for
 * -target bpf and for the host alike.
 *
 * Buckets follow bcc: bucket 0 holds 0 and 1, bucket i >= 1 holds
 * [2^i, 2^(i+1) - 1]; bucket 63 holds [2^63, 2^64 - 1], so every 64-bit value
 * has a bucket and nothing is dropped.  LOG2_SLOTS is the number of buckets.
 */
#ifndef PERFKIT_BPF_LOG2_H
#define PERFKIT_BPF_LOG2_H

#define LOG2_SLOTS 64

/* floor(log2(v)) for v > 0, 0 for v == 0 (branch-free, verifier friendly). */
static inline unsigned int log2_u32(unsigned int v)
{
	unsigned int r, shift;

	r = (v > 0xFFFF) << 4; v >>= r;
	shift = (v > 0xFF) << 3; v >>= shift; r |= shift;
	shift = (v > 0xF) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3) << 1; v >>= shift; r |= shift;
	r |= (v >> 1);
	return r;
}

static inline unsigned int log2_slot(unsigned long long v)
{
	unsigned int hi = (unsigned int)(v >> 32);

	return hi ? log2_u32(hi) + 32 : log2_u32((unsigned int)v);
}

#endif
