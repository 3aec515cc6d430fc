/* SPDX-License-Identifier: GPL-2.0-or-later */
/* opensnoop.bpf.c — open(), openat() and openat2(): arguments saved per
 * thread at entry, the path read and the result added at exit. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "opensnoop.h"
#include "wakeup.h"

#define AT_FDCWD -100

const volatile __u32 targ_tgid = 0;
const volatile __u32 targ_uid = (__u32)-1;
const volatile bool failed_only = false;

__u64 lost_events;

struct args_t {
	const char *fname;
	__u64 flags;
	__s32 dfd;
	__u32 call;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, struct args_t);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} events SEC(".maps");

static __always_inline bool trace_allowed(__u32 tgid)
{
	if (targ_tgid && targ_tgid != tgid)
		return false;
	if (targ_uid != (__u32)-1 && (__u32)bpf_get_current_uid_gid() != targ_uid)
		return false;
	return true;
}

static __always_inline int enter(const char *fname, __u64 flags, int dfd, __u32 call)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct args_t a = { .fname = fname, .flags = flags, .dfd = dfd, .call = call };

	if (!trace_allowed(id >> 32))
		return 0;
	bpf_map_update_elem(&start, &tid, &a, BPF_ANY);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_open")
int tp_enter_open(struct trace_event_raw_sys_enter *ctx)
{
	return enter((const char *)ctx->args[0], ctx->args[1], AT_FDCWD, OPEN_OPEN);
}

SEC("tracepoint/syscalls/sys_enter_openat")
int tp_enter_openat(struct trace_event_raw_sys_enter *ctx)
{
	return enter((const char *)ctx->args[1], ctx->args[2], (int)ctx->args[0], OPEN_OPENAT);
}

SEC("tracepoint/syscalls/sys_enter_openat2")
int tp_enter_openat2(struct trace_event_raw_sys_enter *ctx)
{
	struct open_how how = {};

	bpf_probe_read_user(&how, sizeof(how), (void *)ctx->args[2]);
	return enter((const char *)ctx->args[1], how.flags, (int)ctx->args[0], OPEN_OPENAT2);
}

static __always_inline int leave(struct trace_event_raw_sys_exit *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct args_t *a;
	struct open_event *e;
	int ret = (int)ctx->ret;

	a = bpf_map_lookup_elem(&start, &tid);
	if (!a)
		return 0;
	if (failed_only && ret >= 0)
		goto cleanup;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&lost_events, 1);
		goto cleanup;
	}
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = id >> 32;
	e->tid = tid;
	e->uid = (__u32)bpf_get_current_uid_gid();
	e->ret = ret;
	e->dfd = a->dfd;
	e->call = a->call;
	e->flags = a->flags;
	bpf_get_current_comm(&e->comm, sizeof(e->comm));
	if (bpf_probe_read_user_str(&e->fname, sizeof(e->fname), a->fname) < 0)
		e->fname[0] = '\0';
	bpf_ringbuf_submit(e, rb_wakeup_flags(&events));
cleanup:
	bpf_map_delete_elem(&start, &tid);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_open")
int tp_exit_open(struct trace_event_raw_sys_exit *ctx) { return leave(ctx); }

SEC("tracepoint/syscalls/sys_exit_openat")
int tp_exit_openat(struct trace_event_raw_sys_exit *ctx) { return leave(ctx); }

SEC("tracepoint/syscalls/sys_exit_openat2")
int tp_exit_openat2(struct trace_event_raw_sys_exit *ctx) { return leave(ctx); }

char LICENSE[] SEC("license") = "GPL";
