/* SPDX-License-Identifier: GPL-2.0-or-later */
/* biolatency.h — types shared by biolatency.bpf.c and src/cmd/biolatency.c. */
#ifndef PERFKIT_BPF_BIOLATENCY_H
#define PERFKIT_BPF_BIOLATENCY_H

#include "log2.h"

struct bio_hist_key {
	__u32 dev;                 /* (major << 20) | first_minor with -D, else 0 */
};

struct bio_hist {
	__u64 slots[LOG2_SLOTS];   /* log2 buckets of the latency (usecs, or msecs with -m) */
};

#define BIO_MAJOR(dev) ((dev) >> 20)
#define BIO_MINOR(dev) ((dev) & ((1u << 20) - 1))

#endif
