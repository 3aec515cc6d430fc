/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runqlat.bpf.c — run queue latency: from the moment a task becomes
 * runnable (woken: sched_wakeup, sched_wakeup_new; or preempted while
 * running: sched_switch with prev still TASK_RUNNING) to the moment it runs
 * (sched_switch to it), into log2 histograms, as bcc's runqlat.  BTF
 * tracepoints (task pointers, no tracefs). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "runqlat.h"
#include "maputil.h"

#define TASK_RUNNING 0

const volatile bool targ_per_process = false;
const volatile bool targ_per_thread = false;
const volatile bool targ_per_pidns = false;
const volatile bool targ_ms = false;
const volatile __u32 targ_tgid = 0;

__u64 missed_starts;

static const struct runq_hist zero_hist;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, __u64);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, struct runq_hist);
} hists SEC(".maps");

/* kernels before 5.14 call the field state */
struct task_struct___o {
	volatile long int state;
} __attribute__((preserve_access_index));

static __always_inline long task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___o *)t, state);
}

static __always_inline void enqueue(__u32 tgid, __u32 tid)
{
	__u64 ts;

	if (!tid || (targ_tgid && tgid != targ_tgid))
		return;
	ts = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&start, &tid, &ts, BPF_ANY))
		__sync_fetch_and_add(&missed_starts, 1);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(sched_wakeup, struct task_struct *p)
{
	enqueue(BPF_CORE_READ(p, tgid), BPF_CORE_READ(p, pid));
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(sched_wakeup_new, struct task_struct *p)
{
	enqueue(BPF_CORE_READ(p, tgid), BPF_CORE_READ(p, pid));
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 tid = BPF_CORE_READ(next, pid), key = (__u32)-1;
	struct runq_hist *h;
	__u64 delta;

	if (task_state(prev) == TASK_RUNNING)
		enqueue(BPF_CORE_READ(prev, tgid), BPF_CORE_READ(prev, pid));

	if (!start_elapsed(&start, &tid, targ_ms, &delta))
		return 0;

	if (targ_per_process)
		key = BPF_CORE_READ(next, tgid);
	else if (targ_per_thread)
		key = tid;
	else if (targ_per_pidns)
		key = BPF_CORE_READ(next, nsproxy, pid_ns_for_children, ns.inum);
	h = map_lookup_or_init(&hists, &key, &zero_hist);
	if (!h)
		return 0;
	if (targ_per_process || targ_per_thread)   /* its latest name (after exec, not bash's) */
		BPF_CORE_READ_STR_INTO(&h->comm, next, comm);
	__sync_fetch_and_add(&h->slots[log2_slot(delta) & (LOG2_SLOTS - 1)], 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
