/* SPDX-License-Identifier: GPL-2.0-or-later */
/* opensnoop.bpf.c — open(), openat() and openat2(): arguments saved per
 * thread at entry, the path read and the result added at exit; with -F
 * (full_path) also the directory a relative path is relative to, walked up
 * from its dentry at exit (see opensnoop.h). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "opensnoop.h"
#include "wakeup.h"

#define AT_FDCWD -100

const volatile __u32 targ_tgid = 0;
const volatile __u32 targ_tid = 0;        /* -t: this thread only */
const volatile __u64 flag_mask = 0;       /* -f: opens with any of these flags */
const volatile __u32 targ_uid = (__u32)-1;
const volatile bool failed_only = false;
const volatile bool full_path = false;

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
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);   /* the event being built (too big for the stack) */
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct open_event);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} events SEC(".maps");

static __always_inline bool trace_allowed(__u32 tgid, __u32 tid)
{
	if (targ_tgid && targ_tgid != tgid)
		return false;
	if (targ_tid && targ_tid != tid)
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

	if (!trace_allowed(id >> 32, tid) || (flag_mask && !(flags & flag_mask)))
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

static __always_inline struct mount *real_mount(struct vfsmount *m)
{
	return (struct mount *)((char *)m - bpf_core_field_offset(struct mount, mnt));
}

struct walk_ctx {
	struct open_event *e;
	struct dentry *d;
	struct vfsmount *vmnt;
	__u32 off, depth;
};

/* One step up from ctx->d: record its name, or cross to the mount point
 * it is mounted on; 1 (stop) at the root, or when the walk cannot go on. */
static int walk_step(__u32 i, void *arg)
{
	struct walk_ctx *w = arg;
	struct open_event *e = w->e;
	struct dentry *d = w->d;
	struct vfsmount *vmnt = w->vmnt;
	struct mount *mnt = real_mount(vmnt), *up;
	struct dentry *parent = BPF_CORE_READ(d, d_parent);
	__u32 off = w->off;
	int n;

	if (d == BPF_CORE_READ(vmnt, mnt_root)) {
		up = BPF_CORE_READ(mnt, mnt_parent);
		if (up == mnt) {                        /* the root of everything */
			e->dir_state = OPEN_DIR_DONE;
			return 1;
		}
		w->d = BPF_CORE_READ(mnt, mnt_mountpoint);
		w->vmnt = &up->mnt;
		return 0;
	}
	if (d == parent || off >= OPEN_DIR_BUF)    /* unreachable, or too long */
		return 1;
	n = bpf_probe_read_kernel_str(&e->dir[off & (OPEN_DIR_BUF - 1)], OPEN_DIR_SLOT,
				      BPF_CORE_READ(d, d_name.name));
	if (n <= 0)
		return 1;
	w->off = off + n;
	w->depth++;
	w->d = parent;
	return 0;
}

/* The directory dfd stands for in the current task (its cwd for AT_FDCWD)
 * into e->dir, components leaf first, crossing mount points up to the
 * root of the mount namespace (bpf_loop: one verification of the step). */
static __always_inline void capture_dir(struct open_event *e, int dfd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct walk_ctx w = { .e = e };
	struct path p;

	e->dir_state = OPEN_DIR_PARTIAL;
	if (dfd == AT_FDCWD) {
		p = BPF_CORE_READ(task, fs, pwd);
	} else {
		struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
		struct file **fds = BPF_CORE_READ(fdt, fd);
		struct file *f = NULL;

		if (dfd < 0 || (unsigned)dfd >= BPF_CORE_READ(fdt, max_fds))
			return;
		bpf_core_read(&f, sizeof(f), &fds[dfd]);
		if (!f)
			return;
		p = BPF_CORE_READ(f, f_path);
	}
	w.d = p.dentry;
	w.vmnt = p.mnt;
	if (!w.d || !w.vmnt)
		return;
	bpf_loop(OPEN_DIR_STEPS, walk_step, &w, 0);
	e->dir_size = w.off;
	e->dir_depth = w.depth;
}

static __always_inline int leave(struct trace_event_raw_sys_exit *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, zero = 0;
	struct args_t *a;
	struct open_event *e;
	int ret = (int)ctx->ret;
	__u64 len;

	a = bpf_map_lookup_elem(&start, &tid);
	if (!a)
		return 0;
	if (failed_only && ret >= 0)
		goto cleanup;
	e = bpf_map_lookup_elem(&scratch, &zero);
	if (!e)
		goto cleanup;
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = id >> 32;
	e->tid = tid;
	e->uid = (__u32)bpf_get_current_uid_gid();
	e->ret = ret;
	e->dfd = a->dfd;
	e->call = a->call;
	e->flags = a->flags;
	e->dir_state = OPEN_DIR_NONE;
	e->dir_depth = 0;
	e->dir_size = 0;
	bpf_get_current_comm(&e->comm, sizeof(e->comm));
	if (bpf_probe_read_user_str(&e->fname, sizeof(e->fname), a->fname) < 0)
		e->fname[0] = '\0';
	if (full_path && e->fname[0] && e->fname[0] != '/') {
		/* the file opened, as the kernel resolved the path; else
		 * (failed, or not reachable) the directory it is relative to */
		if (ret >= 0)
			capture_dir(e, ret);
		if (e->dir_state == OPEN_DIR_DONE) {
			e->dir_state = OPEN_DIR_FILE;
		} else {
			e->dir_depth = 0;
			e->dir_size = 0;
			capture_dir(e, a->dfd);
		}
	}
	len = OPEN_EVENT_BASE + e->dir_size;
	if (len > sizeof(*e))
		len = sizeof(*e);
	if (bpf_ringbuf_output(&events, e, len, rb_wakeup_flags(&events)))
		__sync_fetch_and_add(&lost_events, 1);
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
