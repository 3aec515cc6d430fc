/* SPDX-License-Identifier: GPL-2.0-or-later */
/* offcputime.bpf.c — time threads spend blocked, by stack, from
 * sched/sched_switch alone: when a thread is switched out (it is still
 * current, so its stacks are the ones collected) its key and the time are
 * kept per thread; when it is switched in again the time since is added to
 * its key (nanoseconds), if within [min_ns, max_ns].  As bcc's offcputime,
 * preemption counts too unless a state is asked for (--state). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "offcputime.h"
#include "pidseen.h"
#include "stackid.h"
#include "maputil.h"

#define PF_KTHREAD 0x00200000

const volatile __u32 targ_tgid = 0;
const volatile __u32 targ_tid = 0;
const volatile bool user_threads_only = false;
const volatile bool kernel_threads_only = false;
const volatile bool user_stacks_only = false;
const volatile bool kernel_stacks_only = false;
const volatile long targ_state = -1;          /* -1: any prev_state */
const volatile __u64 min_ns = 1;
const volatile __u64 max_ns = (__u64)-1;

__u64 dropped;          /* blocks lost: a map full */
__u64 user_errors, kern_errors;

struct start {
	__u64 ts;
	struct offcpu_key key;
};

/* LRU: a thread that exits while switched out never comes back for its entry */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, struct start);
} starts SEC(".maps");

STACK_MAP(stackmap, OFFCPU_MAX_STACK, 16384);

/* stacks whose bucket in stackmap holds another (stackid.h); user space
 * sizes it to a quarter of stackmap */
STACK_MAP(stackmap_spill, OFFCPU_MAX_STACK, 4096);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct offcpu_key);
	__type(value, __u64);
} counts SEC(".maps");

/* a zeroed start, so the map value is built without a big stack frame */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct start);
} scratch SEC(".maps");

static __always_inline bool wanted(struct task_struct *task, __u32 tgid, __u32 tid, long state)
{
	if (tid == 0)                         /* the idle task */
		return false;
	if (targ_tgid && tgid != targ_tgid)
		return false;
	if (targ_tid && tid != targ_tid)
		return false;
	if (targ_state != -1 && state != targ_state)
		return false;
	if (user_threads_only || kernel_threads_only) {
		bool kthread = BPF_CORE_READ(task, flags) & PF_KTHREAD;
		if (user_threads_only ? kthread : !kthread)
			return false;
	}
	return true;
}

SEC("tracepoint/sched/sched_switch")
int sched_switch(struct trace_event_raw_sched_switch *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	__u32 tgid = id >> 32, tid = (__u32)id, next = (__u32)ctx->next_pid, zero = 0;
	struct start *s;

	/* the thread leaving: remember when and where */
	if (wanted(task, tgid, tid, ctx->prev_state) && (s = bpf_map_lookup_elem(&scratch, &zero))) {
		s->ts = now;
		s->key.tgid = tgid;
		s->key.tid = tid;
		bpf_get_current_comm(&s->key.comm, sizeof(s->key.comm));
		s->key.user_stack_id = OFFCPU_NO_STACK;
		s->key.kern_stack_id = OFFCPU_NO_STACK;
		if (!user_stacks_only) {
			s->key.kern_stack_id = stackid_get(ctx, &stackmap, &stackmap_spill, 0);
			if (s->key.kern_stack_id < 0)
				__sync_fetch_and_add(&kern_errors, 1);
		}
		if (!kernel_stacks_only && BPF_CORE_READ(task, mm)) {
			s->key.user_stack_id = stackid_get(ctx, &stackmap, &stackmap_spill, BPF_F_USER_STACK);
			if (s->key.user_stack_id < 0)
				__sync_fetch_and_add(&user_errors, 1);
			else
				pid_seen_note(tgid);
		}
		if (bpf_map_update_elem(&starts, &tid, s, BPF_ANY))
			__sync_fetch_and_add(&dropped, 1);
	}

	/* the thread arriving: add the time it was away */
	s = bpf_map_lookup_elem(&starts, &next);
	if (!s)
		return 0;
	__u64 delta = now - s->ts;
	if (delta >= min_ns && delta <= max_ns)
		map_add(&counts, &s->key, delta, &dropped);
	bpf_map_delete_elem(&starts, &next);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
