/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcpconnect.bpf.c — active and passive TCP opens from the
 * sock/inet_sock_set_state tracepoint (no kprobes), for perfkit tcpconnect
 * (accept_mode false) and tcpaccept (accept_mode true).
 *
 * connect: the process is known when the socket enters SYN_SENT (connect()
 * sets that state in process context), but the local port is only chosen
 * right after (inet_hash_connect), so the process is kept per socket and the
 * event is sent when the socket leaves SYN_SENT (ESTABLISHED, or CLOSE for a
 * refused or failed connect), with both ports.
 *
 * accept: a passively opened socket goes SYN_RECV -> ESTABLISHED in softirq
 * context, where the current task is any process; its addresses are kept
 * per socket, and the event is sent when accept()/accept4() returns that
 * socket's fd (syscalls/sys_exit_accept{,4}: fd -> file -> socket -> sock),
 * with the accepting process.  A socket closed before it is accepted is
 * forgotten. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "tcpconnect.h"
#include "wakeup.h"

#define AF_INET  2
#define AF_INET6 10
#define IPPROTO_TCP 6

const volatile bool accept_mode = false;
const volatile __u32 targ_tgid = 0;
const volatile __u32 targ_uid = (__u32)-1;
const volatile __u16 targ_family = 0;          /* 0: both */
const volatile __u16 ports[TCPCONN_MAX_PORTS] = {};  /* remote (connect) or local (accept) */
const volatile int n_ports = 0;

__u64 lost_events;
__u64 table_full;

struct ident {
	__u32 pid, uid;
	char comm[TCPCONN_TASK_COMM_LEN];
};

/* connect: socket -> the process that connected it */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, const void *);
	__type(value, struct ident);
} connecting SEC(".maps");

/* accept: socket -> its addresses, until accept() returns it */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, const void *);
	__type(value, struct tcpconn_event);
} established SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

static __always_inline bool port_listed(__u16 port)
{
	if (!n_ports)
		return true;
	for (int i = 0; i < TCPCONN_MAX_PORTS; i++)
		if (i < n_ports && ports[i] == port)
			return true;
	return false;
}

static __always_inline void fill_addrs(struct tcpconn_event *e,
				       struct trace_event_raw_inet_sock_set_state *args)
{
	e->lport = args->sport;
	e->dport = args->dport;
	e->family = args->family;
	__builtin_memset(e->saddr, 0, sizeof(e->saddr));
	__builtin_memset(e->daddr, 0, sizeof(e->daddr));
	if (args->family == AF_INET) {
		bpf_probe_read_kernel(e->saddr, 4, args->saddr);
		bpf_probe_read_kernel(e->daddr, 4, args->daddr);
	} else {
		bpf_probe_read_kernel(e->saddr, 16, args->saddr_v6);
		bpf_probe_read_kernel(e->daddr, 16, args->daddr_v6);
	}
}

SEC("tracepoint/sock/inet_sock_set_state")
int inet_sock_set_state(struct trace_event_raw_inet_sock_set_state *args)
{
	const void *sk = args->skaddr;
	int oldstate = args->oldstate, newstate = args->newstate;
	__u16 family = args->family;

	if (args->protocol != IPPROTO_TCP)
		return 0;
	if (targ_family && family != targ_family)
		return 0;

	if (accept_mode) {
		if (oldstate == TCP_SYN_RECV && newstate == TCP_ESTABLISHED) {
			struct tcpconn_event e = {};

			if (!port_listed(args->sport))
				return 0;
			fill_addrs(&e, args);
			if (bpf_map_update_elem(&established, &sk, &e, BPF_ANY))
				__sync_fetch_and_add(&table_full, 1);
		} else if (newstate == TCP_CLOSE) {
			bpf_map_delete_elem(&established, &sk);
		}
		return 0;
	}

	if (newstate == TCP_SYN_SENT) {
		__u64 id = bpf_get_current_pid_tgid();
		struct ident ident = {};

		if (targ_tgid && (id >> 32) != targ_tgid)
			return 0;
		ident.uid = (__u32)bpf_get_current_uid_gid();
		if (targ_uid != (__u32)-1 && ident.uid != targ_uid)
			return 0;
		if (!port_listed(args->dport))
			return 0;
		ident.pid = id >> 32;
		bpf_get_current_comm(&ident.comm, sizeof(ident.comm));
		if (bpf_map_update_elem(&connecting, &sk, &ident, BPF_ANY))
			__sync_fetch_and_add(&table_full, 1);
		return 0;
	}
	if (oldstate != TCP_SYN_SENT)
		return 0;
	struct ident *idp = bpf_map_lookup_elem(&connecting, &sk);
	if (!idp)
		return 0;
	struct tcpconn_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (e) {
		fill_addrs(e, args);
		e->ts_us = bpf_ktime_get_ns() / 1000;
		e->pid = idp->pid;
		e->uid = idp->uid;
		e->pad = 0;
		__builtin_memcpy(e->comm, idp->comm, sizeof(e->comm));
		bpf_ringbuf_submit(e, rb_wakeup_flags(&events));
	} else {
		__sync_fetch_and_add(&lost_events, 1);
	}
	bpf_map_delete_elem(&connecting, &sk);
	return 0;
}

/* The struct sock behind file descriptor fd of the current process. */
static __always_inline const void *sock_of_fd(long fd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct file **fds = BPF_CORE_READ(task, files, fdt, fd);
	unsigned int max = BPF_CORE_READ(task, files, fdt, max_fds);
	struct file *f = NULL;

	if (fd < 0 || fd >= max)
		return NULL;
	if (bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]) || !f)
		return NULL;
	struct socket *sock = (struct socket *)BPF_CORE_READ(f, private_data);
	if (!sock)
		return NULL;
	return BPF_CORE_READ(sock, sk);
}

static __always_inline int accepted(long ret)
{
	if (!accept_mode || ret < 0)
		return 0;
	__u64 id = bpf_get_current_pid_tgid();
	if (targ_tgid && (id >> 32) != targ_tgid)
		return 0;
	__u32 uid = (__u32)bpf_get_current_uid_gid();
	if (targ_uid != (__u32)-1 && uid != targ_uid)
		return 0;
	const void *sk = sock_of_fd(ret);
	if (!sk)
		return 0;
	struct tcpconn_event *kept = bpf_map_lookup_elem(&established, &sk);
	if (!kept)
		return 0;
	struct tcpconn_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (e) {
		__builtin_memcpy(e, kept, sizeof(*e));
		e->ts_us = bpf_ktime_get_ns() / 1000;
		e->pid = id >> 32;
		e->uid = uid;
		bpf_get_current_comm(&e->comm, sizeof(e->comm));
		bpf_ringbuf_submit(e, rb_wakeup_flags(&events));
	} else {
		__sync_fetch_and_add(&lost_events, 1);
	}
	bpf_map_delete_elem(&established, &sk);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_accept4")
int sys_exit_accept4(struct trace_event_raw_sys_exit *args)
{
	return accepted(args->ret);
}

SEC("tracepoint/syscalls/sys_exit_accept")
int sys_exit_accept(struct trace_event_raw_sys_exit *args)
{
	return accepted(args->ret);
}

char LICENSE[] SEC("license") = "GPL";
