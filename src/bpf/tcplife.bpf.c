/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcplife.bpf.c — TCP sessions from the sock/inet_sock_set_state
 * tracepoint: birth time when the socket enters SYN_SENT/SYN_RECV/
 * ESTABLISHED, the owning process when it is known in process context
 * (connect: SYN_SENT; close: FIN_WAIT1 or LAST_ACK), an event with the
 * byte counts of tcp_sock when it reaches CLOSE.  Both ends of a loopback
 * connection are reported, whichever closes first. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "tcplife.h"
#include "wakeup.h"

#define AF_INET  2
#define AF_INET6 10
#define IPPROTO_TCP 6

const volatile __u32 targ_tgid = 0;
const volatile __u16 lports[TCPLIFE_MAX_PORTS] = {};
const volatile __u16 dports[TCPLIFE_MAX_PORTS] = {};
const volatile int n_lports = 0;
const volatile int n_dports = 0;

__u64 lost_events;

struct ident {
	__u32 pid;
	char comm[TCPLIFE_TASK_COMM_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, const void *);
	__type(value, __u64);
} birth SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, const void *);
	__type(value, struct ident);
} idents SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

static __always_inline bool port_listed(const volatile __u16 *ports, int n, __u16 port)
{
	for (int i = 0; i < TCPLIFE_MAX_PORTS; i++)
		if (i < n && ports[i] == port)
			return true;
	return false;
}

SEC("tracepoint/sock/inet_sock_set_state")
int inet_sock_set_state(struct trace_event_raw_inet_sock_set_state *args)
{
	const void *sk = args->skaddr;
	__u16 lport = args->sport, dport = args->dport;
	int newstate = args->newstate;
	struct tcplife_event *e;
	struct ident *idp, id = {};
	__u64 *start, ts;

	if (args->protocol != IPPROTO_TCP)
		return 0;
	if (n_lports && !port_listed(lports, n_lports, lport))
		return 0;
	if (n_dports && !port_listed(dports, n_dports, dport))
		return 0;

	if (newstate < TCP_FIN_WAIT1) {
		ts = bpf_ktime_get_ns();
		bpf_map_update_elem(&birth, &sk, &ts, BPF_ANY);
	}
	if (newstate == TCP_SYN_SENT || newstate == TCP_FIN_WAIT1 || newstate == TCP_LAST_ACK) {
		id.pid = bpf_get_current_pid_tgid() >> 32;
		bpf_get_current_comm(&id.comm, sizeof(id.comm));
		/* the first process-context owner wins (connect, then close) */
		bpf_map_update_elem(&idents, &sk, &id, newstate == TCP_SYN_SENT ? BPF_ANY : BPF_NOEXIST);
	}
	if (newstate != TCP_CLOSE)
		return 0;

	start = bpf_map_lookup_elem(&birth, &sk);
	if (!start)
		goto cleanup;
	ts = bpf_ktime_get_ns();
	idp = bpf_map_lookup_elem(&idents, &sk);
	__u32 pid = idp ? idp->pid : bpf_get_current_pid_tgid() >> 32;
	if (targ_tgid && pid != targ_tgid)
		goto cleanup;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&lost_events, 1);
		goto cleanup;
	}
	e->ts_us = ts / 1000;
	e->span_us = (ts - *start) / 1000;
	e->pid = pid;
	if (idp)
		__builtin_memcpy(e->comm, idp->comm, sizeof(e->comm));
	else
		bpf_get_current_comm(&e->comm, sizeof(e->comm));
	e->lport = lport;
	e->dport = dport;
	e->family = args->family;
	if (args->family == AF_INET) {
		__builtin_memset(e->saddr, 0, sizeof(e->saddr));
		__builtin_memset(e->daddr, 0, sizeof(e->daddr));
		bpf_probe_read_kernel(e->saddr, 4, args->saddr);
		bpf_probe_read_kernel(e->daddr, 4, args->daddr);
	} else {
		/* ctx arrays: copied with a helper (the verifier refuses
		 * loads through a moved ctx pointer) */
		bpf_probe_read_kernel(e->saddr, 16, args->saddr_v6);
		bpf_probe_read_kernel(e->daddr, 16, args->daddr_v6);
	}
	/* Data bytes only.  bytes_received also counts the peer's FIN
	 * (rcv_nxt moves past it); tcp_fin() marks that with SOCK_DONE.
	 * bytes_acked also counts our SYN (active open) and FIN once acked,
	 * so it is bounded by the data bytes sent (bytes_sent counts the
	 * payload of every transmission, bytes_retrans the repeated ones). */
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	__u64 rx = BPF_CORE_READ(tp, bytes_received);
	__u64 acked = BPF_CORE_READ(tp, bytes_acked);
	__u64 sent = BPF_CORE_READ(tp, bytes_sent) - BPF_CORE_READ(tp, bytes_retrans);
	unsigned long flags = BPF_CORE_READ((struct sock *)sk, __sk_common.skc_flags);
	if (rx && (flags & (1UL << SOCK_DONE)))
		rx--;
	e->rx_b = rx;
	e->tx_b = acked < sent ? acked : sent;
	bpf_ringbuf_submit(e, rb_wakeup_flags(&events));
cleanup:
	bpf_map_delete_elem(&birth, &sk);
	bpf_map_delete_elem(&idents, &sk);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
