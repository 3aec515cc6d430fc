/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit tcplife — one line per TCP session when it closes: process,
 * addresses, ports, bytes sent and received and its life span, like bcc's
 * tcplife (tracepoint sock/inet_sock_set_state; kernel half:
 * src/bpf/tcplife.bpf.c).
 *
 *   tcplife [-p PID] [-L PORTS] [-D PORTS] [-T] [-t] [-w] [-B] [-d SECS]
 * Columns: [TIME] [TIME(s)] PID COMM LADDR LPORT RADDR RPORT TX_KB RX_KB MS
 * (-B: TX_B RX_B, exact byte counts).  TX counts data bytes sent and
 * acknowledged (tcp_sock.bytes_acked without the SYN and FIN it includes),
 * RX data bytes received (tcp_sock.bytes_received without the peer's FIN);
 * see tcplife.bpf.c.  PID/COMM are the process that connected or
 * first closed the socket; for a passively opened socket closed by the
 * peer first, the process that closed it at LAST_ACK.
 */
#include "cmd/cmds.h"

#ifndef PERFKIT_NO_BPF   /* else perfkit.c says why the tool is missing */

#include <arpa/inet.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "base/strbuf.h"
#include "base/error.h"
#include "base/parse.h"
#include "bpf/tcplife.h"
#include "bpfutil/opts.h"
#include "bpfutil/setup.h"
#include "tcplife.skel.h"

struct tcplife_opts {
	long pid;
	__u16 lports[TCPLIFE_MAX_PORTS], dports[TCPLIFE_MAX_PORTS];
	int n_lports, n_dports;
	bool time, timestamp, wide, bytes;
	double duration;
	int verbose;
	unsigned long long start_us;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit tcplife [-p PID] [-L PORTS] [-D PORTS] [-T] [-t] [-w] [-B] [-d SECS] [-v]\n"
		"  -p, --pid PID          only this process (filtered in the kernel)\n"
		"  -L, --localport PORTS  only these local ports (comma-separated, up to %d)\n"
		"  -D, --remoteport PORTS only these remote ports\n"
		"  -T, --time             print the time of day (HH:MM:SS)\n"
		"  -t, --timestamp        print seconds since tracing started\n"
		"  -w, --wide             wide address columns (IPv6)\n"
		"  -B, --bytes            print exact bytes (TX_B RX_B) instead of KB\n"
		"  -d, --duration SECS    trace for SECS seconds (default: until Ctrl-C)\n"
		"  -v, --verbose          show libbpf's messages\n", TCPLIFE_MAX_PORTS);
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct tcplife_opts *o = ctx;
	const struct tcplife_event *e = data;
	char saddr[INET6_ADDRSTRLEN], daddr[INET6_ADDRSTRLEN], comm[TCPLIFE_TASK_COMM_LEN + 1];
	int af = e->family == AF_INET6 ? AF_INET6 : AF_INET;
	int aw = o->wide ? 39 : 15;

	if (size < sizeof(*e))
		return 0;
	if (!inet_ntop(af, e->saddr, saddr, sizeof(saddr)))
		snprintf(saddr, sizeof(saddr), "?");
	if (!inet_ntop(af, e->daddr, daddr, sizeof(daddr)))
		snprintf(daddr, sizeof(daddr), "?");
	memcpy(comm, e->comm, TCPLIFE_TASK_COMM_LEN);
	comm[TCPLIFE_TASK_COMM_LEN] = '\0';
	char ecomm[4 * TCPLIFE_TASK_COMM_LEN + 1];   /* escaped: one line an event */
	snprintf(ecomm, sizeof(ecomm), "%s", comm);
	str_term_escape_buf(ecomm, 13);   /* the COMM column: never cut in an escape */
	if (o->time) {
		char buf[16];

		printf("%-8s ", bpfk_clock(buf, sizeof(buf)));
	}
	if (o->timestamp)
		printf("%-9.3f ", (double)(e->ts_us - o->start_us) / 1e6);
	printf("%-7u %-12.12s %-*s %-5u %-*s %-5u ", e->pid, ecomm, aw, saddr, e->lport, aw, daddr,
	       e->dport);
	if (o->bytes)
		printf("%10llu %10llu ", (unsigned long long)e->tx_b, (unsigned long long)e->rx_b);
	else
		printf("%5llu %5llu ", (unsigned long long)e->tx_b / 1024, (unsigned long long)e->rx_b / 1024);
	printf("%.2f\n", (double)e->span_us / 1000.0);
	return 0;
}

static int parse_opts(struct tcplife_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "localport", required_argument, NULL, 'L' },
		{ "remoteport", required_argument, NULL, 'D' },
		{ "time", no_argument, NULL, 'T' },
		{ "timestamp", no_argument, NULL, 't' },
		{ "wide", no_argument, NULL, 'w' },
		{ "bytes", no_argument, NULL, 'B' },
		{ "duration", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+p:L:D:TtwBd:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			{
				if (bpfk_opt_pid("-p", optarg, &o->pid)) {
					fprintf(stderr, "perfkit tcplife: %s\n", pk_errmsg());
					return 2;
				}
			}
			break;
		case 'L':
		case 'D':
			if (bpfk_opt_ports(c == 'L' ? "-L" : "-D", optarg, c == 'L' ? o->lports : o->dports,
					   c == 'L' ? &o->n_lports : &o->n_dports, TCPLIFE_MAX_PORTS)) {
				fprintf(stderr, "perfkit tcplife: %s\n", pk_errmsg());
				return 2;
			}
			break;
		case 'T': o->time = true; break;
		case 't': o->timestamp = true; break;
		case 'w': o->wide = true; break;
		case 'B': o->bytes = true; break;
		case 'v': o->verbose = 1; break;
		case 'd':
			if (bpfk_opt_secs("-d", optarg, &o->duration)) {
				fprintf(stderr, "perfkit tcplife: %s\n", pk_errmsg());
				return 2;
			}
			break;
		case 'h': usage(stdout); return -1;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "perfkit tcplife: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	return 0;
}

int cmd_tcplife(int argc, char **argv)
{
	struct tcplife_opts o = { 0 };
	struct tcplife_bpf *skel = NULL;
	struct ring_buffer *rb = NULL;
	int err, ret = 1;

	err = parse_opts(&o, argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	if (bpfk_check_pid(o.pid) || bpfk_start(o.verbose, "sock", "inet_sock_set_state",
		       " (added in Linux 4.16, needs CONFIG_NET and CONFIG_TRACEPOINTS)"))
		goto fail;

	skel = tcplife_bpf__open();
	if (!skel) {
		bpfk_error(errno, "opening BPF skeleton");
		goto fail;
	}
	skel->rodata->targ_tgid = (__u32)o.pid;
	skel->rodata->n_lports = o.n_lports;
	skel->rodata->n_dports = o.n_dports;
	for (int i = 0; i < TCPLIFE_MAX_PORTS; i++) {
		skel->rodata->lports[i] = o.lports[i];
		skel->rodata->dports[i] = o.dports[i];
	}
	if (bpfk_load_attach(skel->skeleton, "tracepoint sock/inet_sock_set_state") ||
	    !(rb = bpfk_ring_new(skel->maps.events, handle_event, &o)))
		goto fail;

	bpfk_stop_on_signals();
	o.start_us = bpfk_now_ns() / 1000;
	int aw = o.wide ? 39 : 15;
	if (o.time)
		printf("%-8s ", "TIME");
	if (o.timestamp)
		printf("%-9s ", "TIME(s)");
	printf("%-7s %-12s %-*s %-5s %-*s %-5s ", "PID", "COMM", aw, "LADDR", "LPORT", aw, "RADDR", "RPORT");
	if (o.bytes)
		printf("%10s %10s ", "TX_B", "RX_B");
	else
		printf("%5s %5s ", "TX_KB", "RX_KB");
	printf("MS\n");
	fflush(stdout);
	fprintf(stderr, "Tracing TCP sessions... Hit Ctrl-C to end.\n");

	if (bpfk_poll_ring(rb, o.duration))
		goto fail;
	if (skel->bss->lost_events)
		fprintf(stderr, "perfkit tcplife: %llu events lost (ring buffer full)\n",
			(unsigned long long)skel->bss->lost_events);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "perfkit tcplife: %s\n", pk_errmsg());
out:
	ring_buffer__free(rb);
	tcplife_bpf__destroy(skel);
	return ret;
}
#endif /* PERFKIT_NO_BPF */
