/* SPDX-License-Identifier: GPL-2.0-or-later */
/* biolatency.bpf.c — block I/O latency into log2 histograms: issue (or,
 * with -Q, insert) to completion, from BTF tracepoints, which need no
 * tracefs.  A request is keyed by its address until it completes. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "biolatency.h"
#include "maputil.h"

const volatile bool targ_per_disk = false;
const volatile bool targ_queued = false;
const volatile bool targ_ms = false;

__u64 missed_starts;             /* start map full: an I/O not measured */

static const struct bio_hist zero_hist;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, struct request *);
	__type(value, __u64);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct bio_hist_key);
	__type(value, struct bio_hist);
} hists SEC(".maps");

static __always_inline int trace_start(struct request *rq, bool insert)
{
	__u64 ts = bpf_ktime_get_ns();

	/* -Q: the insert time wins; requests never inserted start at issue */
	if (bpf_map_update_elem(&start, &rq, &ts, insert || !targ_queued ? BPF_ANY : BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&start, &rq))
		__sync_fetch_and_add(&missed_starts, 1);
	return 0;
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(block_rq_insert, struct request *rq)
{
	if (!targ_queued)
		return 0;
	return trace_start(rq, true);
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_rq_issue, struct request *rq)
{
	return trace_start(rq, false);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	struct bio_hist_key key = {};
	struct bio_hist *h;
	__u64 delta;

	if (!start_elapsed(&start, &rq, targ_ms, &delta))
		return 0;

	if (targ_per_disk) {
		struct gendisk *disk = BPF_CORE_READ(rq, q, disk);
		if (disk)
			key.dev = ((__u32)BPF_CORE_READ(disk, major) << 20) |
				  (__u32)BPF_CORE_READ(disk, first_minor);
	}
	h = map_lookup_or_init(&hists, &key, &zero_hist);
	if (!h)
		return 0;
	__sync_fetch_and_add(&h->slots[log2_slot(delta) & (LOG2_SLOTS - 1)], 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
