/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcpconnect.h — types shared by tcpconnect.bpf.c and src/cmd/tcpconnect.c
 * (perfkit tcpconnect and tcpaccept: one BPF object, two modes). */
#ifndef PERFKIT_BPF_TCPCONNECT_H
#define PERFKIT_BPF_TCPCONNECT_H

#define TCPCONN_TASK_COMM_LEN 16
#define TCPCONN_MAX_PORTS     8       /* -P ports */

struct tcpconn_event {
	__u8 saddr[16];               /* local address (IPv4: first 4 bytes) */
	__u8 daddr[16];               /* remote address */
	__u64 ts_us;                  /* bpf_ktime_get_ns() / 1000 at the event */
	__u32 pid;                    /* connect: the process that called connect();
				       * accept: the one whose accept() returned it */
	__u32 uid;
	__u16 lport, dport;           /* local and remote port, host byte order */
	__u16 family;                 /* AF_INET or AF_INET6 */
	__u16 pad;
	char comm[TCPCONN_TASK_COMM_LEN];
};

#endif
