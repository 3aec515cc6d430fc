/* SPDX-License-Identifier: GPL-2.0-or-later */
/* biosnoop.bpf.c — one event per block I/O request, as bcc's biosnoop,
 * from BTF tracepoints (no kprobes): block_bio_queue keeps the submitting
 * process per bio (in its context), block_rq_insert (with -Q) and
 * block_rq_issue time the request and take the submitter of its first bio,
 * block_rq_complete sends the event.  A request whose first bio was not
 * seen queued (issued from a plug flush of another task, or started before
 * tracing) is charged to the task that issued it, as bcc does. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "biosnoop.h"
#include "wakeup.h"

const volatile bool targ_queued = false;
const volatile __u32 targ_dev = 0;            /* 0: every disk */

__u64 lost_events;

struct who {
	__u32 pid;
	char comm[BIOSNOOP_TASK_COMM_LEN];
};

struct stage {
	__u64 insert_ns, issue_ns;
	struct who who;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);      /* bios merged away are never looked up */
	__uint(max_entries, 16384);
	__type(key, struct bio *);
	__type(value, struct who);
} bios SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, struct request *);
	__type(value, struct stage);
} stages SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

static __always_inline __u32 rq_dev(struct request *rq)
{
	struct gendisk *disk = BPF_CORE_READ(rq, q, disk);

	if (!disk)
		return 0;
	return ((__u32)BPF_CORE_READ(disk, major) << 20) | (__u32)BPF_CORE_READ(disk, first_minor);
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(block_bio_queue, struct bio *bio)
{
	struct who w = {};

	w.pid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(&w.comm, sizeof(w.comm));
	bpf_map_update_elem(&bios, &bio, &w, BPF_ANY);
	return 0;
}

static __always_inline int stage_rq(struct request *rq, bool insert)
{
	struct stage *s, fresh = {};
	__u64 now = bpf_ktime_get_ns();

	if (targ_dev && rq_dev(rq) != targ_dev)
		return 0;
	s = bpf_map_lookup_elem(&stages, &rq);
	if (!s) {
		struct bio *bio = BPF_CORE_READ(rq, bio);
		struct who *w = bio ? bpf_map_lookup_elem(&bios, &bio) : NULL;

		if (w) {
			fresh.who = *w;
			bpf_map_delete_elem(&bios, &bio);
		} else {
			fresh.who.pid = bpf_get_current_pid_tgid() >> 32;
			bpf_get_current_comm(&fresh.who.comm, sizeof(fresh.who.comm));
		}
		bpf_map_update_elem(&stages, &rq, &fresh, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&stages, &rq);
		if (!s)
			return 0;
	}
	if (insert)
		s->insert_ns = now;
	else
		s->issue_ns = now;
	return 0;
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(block_rq_insert, struct request *rq)
{
	return stage_rq(rq, true);
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_rq_issue, struct request *rq)
{
	return stage_rq(rq, false);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	struct stage *s = bpf_map_lookup_elem(&stages, &rq);
	struct biosnoop_event *e;
	__u64 now = bpf_ktime_get_ns();

	if (!s)
		return 0;
	if (!s->issue_ns)   /* completed without an issue seen: not measurable */
		goto out;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&lost_events, 1);
		goto out;
	}
	e->ts_ns = now;
	e->lat_ns = now - s->issue_ns;
	e->queue_ns = s->insert_ns && s->insert_ns <= s->issue_ns ? s->issue_ns - s->insert_ns : 0;
	e->sector = BPF_CORE_READ(rq, __sector);
	e->bytes = nr_bytes;
	e->dev = rq_dev(rq);
	e->pid = s->who.pid;
	__builtin_memcpy(e->comm, s->who.comm, sizeof(e->comm));

	__u32 flags = BPF_CORE_READ(rq, cmd_flags), op = flags & 0xff;
	int i = 0;
	__builtin_memset(e->rwbs, 0, sizeof(e->rwbs));
	if (op == bpf_core_enum_value(enum req_op, REQ_OP_WRITE) ||
	    op == bpf_core_enum_value(enum req_op, REQ_OP_WRITE_ZEROES))
		e->rwbs[i++] = 'W';
	else if (op == bpf_core_enum_value(enum req_op, REQ_OP_DISCARD) ||
		 op == bpf_core_enum_value(enum req_op, REQ_OP_SECURE_ERASE))
		e->rwbs[i++] = 'D';
	else if (op == bpf_core_enum_value(enum req_op, REQ_OP_FLUSH))
		e->rwbs[i++] = 'F';
	else if (op == bpf_core_enum_value(enum req_op, REQ_OP_READ))
		e->rwbs[i++] = 'R';
	else
		e->rwbs[i++] = 'N';
	if (flags & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_FUA)))
		e->rwbs[i++] = 'F';
	if (flags & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_RAHEAD)))
		e->rwbs[i++] = 'A';
	if (flags & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_SYNC)))
		e->rwbs[i++] = 'S';
	if (flags & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_META)))
		e->rwbs[i++] = 'M';
	bpf_ringbuf_submit(e, rb_wakeup_flags(&events));
out:
	bpf_map_delete_elem(&stages, &rq);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
