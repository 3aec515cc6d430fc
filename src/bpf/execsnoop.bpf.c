/* SPDX-License-Identifier: GPL-2.0-or-later */
/* execsnoop.bpf.c — every execve(): argv captured at entry (per thread),
 * completed with the return code at exit and sent through a ring buffer.
 *
 * At sys_enter_execve the argv strings are in the caller's memory, where a
 * page not yet faulted in (string literals of a program that has not
 * touched its .rodata yet) cannot be read: bpf_probe_read_user() does not
 * fault.  When a read failed there or found nothing, a successful exec
 * takes its argv from the new process at sys_exit_execve instead: the
 * kernel has just copied the strings onto the new stack, between
 * mm->arg_start and mm->arg_end, so they are resident.  Failed execs keep
 * what was read at entry. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "execsnoop.h"
#include "wakeup.h"

const volatile int max_args = 20;
const volatile __u32 targ_uid = (__u32)-1;
const volatile bool ignore_failed = true;
const volatile bool filter_cg = false;     /* -c: only tasks under cgroup_map[0] */

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 1);
} cgroup_map SEC(".maps");

__u64 lost_events;                   /* ring buffer or in-flight map full */

static const struct exec_event empty_event = {};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);     /* execs in flight; 7.7 KB each, preallocated */
	__type(key, __u32);
	__type(value, struct exec_event);
} execs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} events SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_execve")
int tp_sys_enter_execve(struct trace_event_raw_sys_enter *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	__u32 uid = (__u32)bpf_get_current_uid_gid();
	struct task_struct *task;
	const char **argv = (const char **)ctx->args[1];
	const char *argp;
	struct exec_event *e;
	int i, ret;

	if (targ_uid != (__u32)-1 && targ_uid != uid)
		return 0;
	if (filter_cg && bpf_current_task_under_cgroup(&cgroup_map, 0) != 1)
		return 0;
	/* BPF_ANY: a stale entry of this tid (an exec whose exit was never
	 * seen) is replaced; failure means the map is full */
	if (bpf_map_update_elem(&execs, &tid, &empty_event, BPF_ANY)) {
		__sync_fetch_and_add(&lost_events, 1);
		return 0;
	}
	e = bpf_map_lookup_elem(&execs, &tid);
	if (!e)
		return 0;
	task = (struct task_struct *)bpf_get_current_task();
	e->pid = id >> 32;
	e->uid = uid;
	e->ppid = BPF_CORE_READ(task, real_parent, tgid);

	for (i = 0; i < EXEC_MAX_ARGS; i++) {
		if (i >= max_args) {
			argp = 0;
			bpf_probe_read_user(&argp, sizeof(argp), &argv[i]);
			if (argp)
				e->flags |= EXEC_F_MORE_ARGS;
			break;
		}
		argp = 0;
		if (bpf_probe_read_user(&argp, sizeof(argp), &argv[i])) {
			e->flags |= EXEC_F_ENTER_FAULT;
			break;
		}
		if (!argp)
			break;
		if (e->args_size > EXEC_LAST_ARG)
			break;
		ret = bpf_probe_read_user_str(&e->args[e->args_size], EXEC_ARGSIZE, argp);
		if (ret < 0 || ret > EXEC_ARGSIZE) {
			e->flags |= EXEC_F_ENTER_FAULT;
			break;
		}
		if (ret == EXEC_ARGSIZE) {
			char c = 0;
			/* the string filled the slot: cut only if more bytes follow */
			bpf_probe_read_user(&c, 1, argp + EXEC_ARGSIZE - 1);
			if (c)
				e->flags |= EXEC_F_ARG_CUT;
		}
		e->args_count++;
		e->args_size += ret;
	}
	return 0;
}

/* The argv block of the current (just exec'd) process, raw: see
 * EXEC_F_FROM_MM.  Keeps the entry-time argv when it cannot be read. */
static __always_inline void read_new_argv(struct exec_event *e)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	unsigned long start = BPF_CORE_READ(task, mm, arg_start);
	unsigned long end = BPF_CORE_READ(task, mm, arg_end);
	__u32 flags = EXEC_F_FROM_MM;
	__u64 n;

	if (!start || end <= start)
		return;
	n = end - start;
	if (n > EXEC_ARGS_BUF) {
		n = EXEC_ARGS_BUF;
		flags |= EXEC_F_MM_CUT;
	}
	if (bpf_probe_read_user(e->args, n, (const void *)start))
		return;
	e->args_size = (__u32)n;
	e->args_count = 0;
	e->flags = (e->flags & EXEC_F_ENTER_FAULT) | flags;
}

SEC("tracepoint/syscalls/sys_exit_execve")
int tp_sys_exit_execve(struct trace_event_raw_sys_exit *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct exec_event *e;
	__u64 len;
	int ret = (int)ctx->ret;

	e = bpf_map_lookup_elem(&execs, &tid);
	if (!e)
		return 0;
	if (ignore_failed && ret < 0)
		goto cleanup;
	if (ret == 0 && (!e->args_count || (e->flags & EXEC_F_ENTER_FAULT)))
		read_new_argv(e);
	e->flags &= ~EXEC_F_ENTER_FAULT;
	e->retval = ret;
	e->ts_ns = bpf_ktime_get_ns();
	bpf_get_current_comm(&e->comm, sizeof(e->comm));
	len = EXEC_EVENT_BASE + e->args_size;
	if (len > sizeof(*e))
		len = sizeof(*e);
	if (bpf_ringbuf_output(&events, e, len, rb_wakeup_flags(&events)))
		__sync_fetch_and_add(&lost_events, 1);
cleanup:
	bpf_map_delete_elem(&execs, &tid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
