/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile.bpf.c — stack sampling from a perf_event (cpu-clock) program:
 * each sample counts (pid, user stack, kernel stack, comm).  A sample taken
 * in user mode has no kernel part (PROF_NO_STACK, not an error).
 * Two sets of maps: samples go to set `active` (0: counts and stackmap,
 * 1: counts1 and stackmap1; each stack map with its spill map, stackid.h),
 * so profile --continuous can switch sets and read and empty the other one
 * while sampling goes on. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "profile.h"
#include "pidseen.h"
#include "stackid.h"
#include "maputil.h"

const volatile __u32 targ_tgid = 0;
const volatile __u32 targ_tid = 0;    /* -L */
const volatile bool user_only = false;
const volatile bool kernel_only = false;
const volatile bool include_idle = false;

__u64 samples;          /* samples counted (after the pid/idle filters) */
__u64 dropped;          /* samples lost: counts map full */
__u64 user_errors;      /* user parts not collected (id < 0 recorded in the key) */
__u64 kern_errors;      /* kernel parts not collected */
__u32 active;           /* the map set samples go to (user space flips it) */

STACK_MAP(stackmap, PROF_MAX_STACK, 16384);

/* stacks whose bucket in stackmap holds another (stackid.h); user space
 * sizes it to a quarter of stackmap */
STACK_MAP(stackmap_spill, PROF_MAX_STACK, 4096);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct prof_bpf_key);
	__type(value, __u64);
} counts SEC(".maps");

/* the second set (profile --continuous; 1 entry otherwise) */
STACK_MAP(stackmap1, PROF_MAX_STACK, 16384);

STACK_MAP(stackmap1_spill, PROF_MAX_STACK, 4096);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct prof_bpf_key);
	__type(value, __u64);
} counts1 SEC(".maps");

/* User mode iff the interrupted ip is in the lower half of the address
 * space (x86-64 and arm64 kernels live in the upper half).  The context
 * only allows 8-byte loads of pt_regs fields, so ip rather than the 2-byte
 * cs of x86. */
static __always_inline bool sample_in_user_mode(struct bpf_perf_event_data *ctx)
{
	return PT_REGS_IP(&ctx->regs) < 0x8000000000000000ULL;
}

SEC("perf_event")
int do_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct prof_bpf_key key = {};
	struct task_struct *task;
	bool in_user, alt = active & 1;
	void *cmap = alt ? (void *)&counts1 : (void *)&counts;

	if (!include_idle && tid == 0)
		return 0;
	if (targ_tgid && tgid != targ_tgid)
		return 0;
	if (targ_tid && tid != targ_tid)
		return 0;
	__sync_fetch_and_add(&samples, 1);

	key.pid = tgid;
	bpf_get_current_comm(&key.comm, sizeof(key.comm));
	in_user = sample_in_user_mode(ctx);
	key.kern_stack_id = PROF_NO_STACK;
	key.user_stack_id = PROF_NO_STACK;
	if (!user_only && !in_user) {
		key.kern_stack_id = alt ? stackid_get(ctx, &stackmap1, &stackmap1_spill, 0)
					: stackid_get(ctx, &stackmap, &stackmap_spill, 0);
		if (key.kern_stack_id < 0)
			__sync_fetch_and_add(&kern_errors, 1);
	}
	task = (struct task_struct *)bpf_get_current_task();
	if (!kernel_only && BPF_CORE_READ(task, mm)) {
		key.user_stack_id = alt ? stackid_get(ctx, &stackmap1, &stackmap1_spill, BPF_F_USER_STACK)
					: stackid_get(ctx, &stackmap, &stackmap_spill, BPF_F_USER_STACK);
		if (key.user_stack_id < 0)
			__sync_fetch_and_add(&user_errors, 1);
		else
			pid_seen_note(tgid);   /* its mappings read while it lives */
	}

	map_add(cmap, &key, 1, &dropped);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
