/* SPDX-License-Identifier: GPL-2.0-or-later */
/* funclatency.bpf.c — latency of a user function through a uprobe and a
 * uretprobe: each entry pushes a timestamp and its stack pointer on the
 * thread's own stack and each return pops the entry whose frame it leaves
 * (by the stack pointer), so nested and recursive calls are each measured
 * from their own entry, and calls left by longjmp or an exception are
 * dropped instead of blocking the thread's measurements (see funclatency.h).  The latency, in the display unit, is counted in
 * a log2 histogram or, with hist_mode FUNC_HIST_LINEAR, in a linear one of
 * lin_step-wide buckets (see funclatency.h). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "funclatency.h"
#include "maputil.h"

const volatile __u32 targ_tgid = 0;
const volatile int units = FUNC_NSEC;
const volatile int hist_mode = FUNC_HIST_LOG2;
const volatile __u64 lin_step = 1;   /* 1..FUNC_LIN_STEP_MAX, set before load */

/* results, read by user space through the skeleton's mmapped .bss */
__u64 hist[LOG2_SLOTS];
__u64 lin_hist[FUNC_LIN_SLOTS + 1];   /* the last slot: >= FUNC_LIN_SLOTS * lin_step */
__u64 count;          /* measured calls */
__u64 total_ns;       /* their summed latency */
__u64 too_deep;       /* calls nested deeper than FUNC_MAX_DEPTH (not measured) */
__u64 unmatched;      /* returns without a recorded entry (started before tracing) */
__u64 abandoned;      /* entries whose frame was left without a return (longjmp, exceptions) */

static const struct func_stack empty_stack;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, struct func_stack);
} stacks SEC(".maps");

SEC("uprobe")
int BPF_KPROBE(func_entry)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u64 sp = PT_REGS_SP(ctx);
	__u32 tid = (__u32)id;
	struct func_stack *s;
	__u32 d;

	if (targ_tgid && (id >> 32) != targ_tgid)
		return 0;
	s = map_lookup_or_init(&stacks, &tid, &empty_stack);
	if (!s)
		return 0;
	/* open entries at this sp or above it cannot be running any more:
	 * their frames were left without a return (longjmp, an exception) */
	for (int i = 0; i < FUNC_MAX_DEPTH; i++) {
		d = s->depth;
		if (d == 0 || d > FUNC_MAX_DEPTH || s->sp[(d - 1) & (FUNC_MAX_DEPTH - 1)] > sp)
			break;
		s->depth = d - 1;
		__sync_fetch_and_add(&abandoned, 1);
	}
	d = s->depth;
	if (d < FUNC_MAX_DEPTH) {
		s->ts[d & (FUNC_MAX_DEPTH - 1)] = bpf_ktime_get_ns();
		s->sp[d & (FUNC_MAX_DEPTH - 1)] = sp;
	} else {
		__sync_fetch_and_add(&too_deep, 1);
	}
	s->depth = d + 1;
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(func_exit)
{
	__u64 now = bpf_ktime_get_ns();
	__u64 id = bpf_get_current_pid_tgid();
	__u64 entry_sp = PT_REGS_SP(ctx) - 8;   /* the return address is popped */
	__u32 tid = (__u32)id;
	struct func_stack *s;
	__u64 delta, v;
	__u32 d;

	if (targ_tgid && (id >> 32) != targ_tgid)
		return 0;
	s = bpf_map_lookup_elem(&stacks, &tid);
	if (!s || s->depth == 0) {
		__sync_fetch_and_add(&unmatched, 1);
		return 0;
	}
	/* deeper entries (lower sp) than the frame returning: left without
	 * a return; drop them */
	for (int i = 0; i < FUNC_MAX_DEPTH; i++) {
		d = s->depth;
		if (d == 0 || d > FUNC_MAX_DEPTH || s->sp[(d - 1) & (FUNC_MAX_DEPTH - 1)] >= entry_sp)
			break;
		s->depth = d - 1;
		__sync_fetch_and_add(&abandoned, 1);
	}
	d = s->depth;
	if (d == 0) {
		__sync_fetch_and_add(&unmatched, 1);
		bpf_map_delete_elem(&stacks, &tid);
		return 0;
	}
	d = --s->depth;
	if (d >= FUNC_MAX_DEPTH)
		return 0;   /* a call deeper than the stack holds: not measured */
	if (s->sp[d & (FUNC_MAX_DEPTH - 1)] != entry_sp) {
		/* an outer call's entry: this return's entry was never seen */
		s->depth = d + 1;
		__sync_fetch_and_add(&unmatched, 1);
		return 0;
	}
	delta = now - s->ts[d & (FUNC_MAX_DEPTH - 1)];
	if (d == 0)
		bpf_map_delete_elem(&stacks, &tid);
	v = units == FUNC_MSEC ? delta / 1000000 : units == FUNC_USEC ? delta / 1000 : delta;
	if (hist_mode == FUNC_HIST_LINEAR) {
		__u64 k = v / lin_step;

		if (k > FUNC_LIN_SLOTS)
			k = FUNC_LIN_SLOTS;
		__sync_fetch_and_add(&lin_hist[k], 1);
	} else {
		__sync_fetch_and_add(&hist[log2_slot(v) & (LOG2_SLOTS - 1)], 1);
	}
	__sync_fetch_and_add(&count, 1);
	__sync_fetch_and_add(&total_ns, delta);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
