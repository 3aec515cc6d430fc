/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcplife.h — types shared by tcplife.bpf.c and src/cmd/tcplife.c. */
#ifndef PERFKIT_BPF_TCPLIFE_H
#define PERFKIT_BPF_TCPLIFE_H

#define TCPLIFE_TASK_COMM_LEN 16
#define TCPLIFE_MAX_PORTS     8       /* -L / -D ports each */

struct tcplife_event {
	__u8 saddr[16];               /* local address (IPv4: first 4 bytes) */
	__u8 daddr[16];               /* remote address */
	__u64 ts_us;                  /* bpf_ktime_get_ns() / 1000 at close */
	__u64 span_us;                /* from the first state before FIN_WAIT1 to CLOSE */
	__u64 rx_b, tx_b;             /* data bytes received; data bytes sent and acked */
	__u32 pid;                    /* the process that opened or closed it */
	__u16 lport, dport;           /* host byte order */
	__u16 family;                 /* AF_INET or AF_INET6 */
	char comm[TCPLIFE_TASK_COMM_LEN];
};

#endif
