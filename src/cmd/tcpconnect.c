/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit tcpconnect / tcpaccept — one line per active (connect) or
 * passive (accept) TCP open, like bcc's tools of those names, from the
 * sock/inet_sock_set_state tracepoint (kernel half:
 * src/bpf/tcpconnect.bpf.c; no kprobes).
 *
 *   tcpconnect [-t] [-T] [-U] [-u UID] [-p PID] [-P PORTS] [-L] [-4|-6] [-c] [-d SECS]
 *   tcpaccept  [-t] [-T] [-U] [-u UID] [-p PID] [-P PORTS] [-4|-6] [-c] [-d SECS]
 * Columns, bcc's: tcpconnect: [TIME] [TIME(s)] [UID] PID COMM IP SADDR
 * [LPORT] DADDR DPORT (-L adds the local port); tcpaccept: [TIME]
 * [TIME(s)] [UID] PID COMM IP RADDR RPORT LADDR LPORT.  -P filters on the
 * remote port (tcpconnect) or the local port (tcpaccept), in the kernel.
 * -c counts instead: at the end one line per (local address, remote
 * address:port) with the number of connections, most first.
 * A connect is reported when the socket leaves SYN_SENT (established, or
 * refused/failed), so both ports are known; an accept when accept()
 * returns the socket (the accepting process).  Comms are escaped.
 */
#include "cmd/cmds.h"

#ifndef PERFKIT_NO_BPF   /* else perfkit.c says why the tool is missing */

#include <arpa/inet.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "bpf/tcpconnect.h"
#include "bpfutil/opts.h"
#include "bpfutil/setup.h"
#include "tcpconnect.skel.h"

struct conn_count {
	char laddr[INET6_ADDRSTRLEN], raddr[INET6_ADDRSTRLEN];
	unsigned port;                /* tcpconnect's remote, tcpaccept's local */
	unsigned long long n;
};

struct tcpconn_opts {
	const char *tool;
	bool accept;
	long pid;
	uint32_t uid;                 /* (uint32_t)-1: any */
	uint16_t ports[TCPCONN_MAX_PORTS];
	int n_ports;
	int family;                   /* 0, AF_INET or AF_INET6 */
	bool time, timestamp, print_uid, lport, count;
	double duration;
	int verbose;
	unsigned long long start_us;
	struct conn_count *counts;
	size_t nr_counts, alloc_counts;
};

static void usage(FILE *f, bool accept)
{
	fprintf(f,
		"usage: perfkit %s [-t] [-T] [-U] [-u UID] [-p PID] [-P PORTS]%s [-4|-6] [-c] [-d SECS] [-v]\n"
		"  -t, --timestamp      print seconds since tracing started (TIME(s))\n"
		"  -T, --time           print the time of day (HH:MM:SS)\n"
		"  -U, --print-uid      print the UID column\n"
		"  -u, --uid UID        only this user\n"
		"  -p, --pid PID        only this process (filtered in the kernel)\n"
		"  -P, --port PORTS     only these %s ports (comma-separated, up to %d)\n"
		"%s"
		"  -4, --ipv4           IPv4 only\n"
		"  -6, --ipv6           IPv6 only\n"
		"  -c, --count          count connections per address pair, print at the end\n"
		"  -d, --duration SECS  trace for SECS seconds (default: until Ctrl-C)\n"
		"  -v, --verbose        show libbpf's messages\n",
		accept ? "tcpaccept" : "tcpconnect", accept ? "" : " [-L]",
		accept ? "local" : "remote", TCPCONN_MAX_PORTS,
		accept ? "" : "  -L, --lport          print the local port (LPORT)\n");
}

static void addr_text(const struct tcpconn_event *e, const __u8 *a, char *buf, size_t size)
{
	if (!inet_ntop(e->family == AF_INET6 ? AF_INET6 : AF_INET, a, buf, (socklen_t)size))
		snprintf(buf, size, "?");
}

static void count_event(struct tcpconn_opts *o, const char *l, const char *r, unsigned port)
{
	for (size_t i = 0; i < o->nr_counts; i++)
		if (o->counts[i].port == port && !strcmp(o->counts[i].laddr, l) && !strcmp(o->counts[i].raddr, r)) {
			o->counts[i].n++;
			return;
		}
	if (o->nr_counts == o->alloc_counts) {
		o->alloc_counts = o->alloc_counts ? 2 * o->alloc_counts : 64;
		o->counts = xrealloc(o->counts, o->alloc_counts * sizeof(*o->counts));
	}
	struct conn_count *c = &o->counts[o->nr_counts++];
	snprintf(c->laddr, sizeof(c->laddr), "%s", l);
	snprintf(c->raddr, sizeof(c->raddr), "%s", r);
	c->port = port;
	c->n = 1;
}

static int cmp_count(const void *a, const void *b)
{
	const struct conn_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	int c = strcmp(x->laddr, y->laddr);
	if (!c)
		c = strcmp(x->raddr, y->raddr);
	return c ? c : (x->port > y->port) - (x->port < y->port);
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct tcpconn_opts *o = ctx;
	const struct tcpconn_event *e = data;
	char saddr[INET6_ADDRSTRLEN], daddr[INET6_ADDRSTRLEN];
	char ecomm[4 * TCPCONN_TASK_COMM_LEN + 1];

	if (size < sizeof(*e))
		return 0;
	addr_text(e, e->saddr, saddr, sizeof(saddr));
	addr_text(e, e->daddr, daddr, sizeof(daddr));
	if (o->count) {   /* per address pair and port (bcc's: the remote one) */
		count_event(o, saddr, daddr, o->accept ? e->lport : e->dport);
		return 0;
	}
	snprintf(ecomm, sizeof(ecomm), "%.*s", TCPCONN_TASK_COMM_LEN, e->comm);
	str_term_escape_buf(ecomm, 13);   /* the COMM column: never cut in an escape */
	if (o->time) {
		char buf[16];

		printf("%-9s", bpfk_clock(buf, sizeof(buf)));
	}
	if (o->timestamp)
		printf("%-9.3f", (double)(e->ts_us - o->start_us) / 1e6);
	if (o->print_uid)
		printf("%-6u", e->uid);
	int ip = e->family == AF_INET6 ? 6 : 4;
	if (o->accept)
		printf("%-7u %-12.12s %-2d %-16s %-5u %-16s %-5u\n", e->pid, ecomm, ip, daddr, e->dport,
		       saddr, e->lport);
	else if (o->lport)
		printf("%-7u %-12.12s %-2d %-16s %-6u %-16s %-5u\n", e->pid, ecomm, ip, saddr, e->lport,
		       daddr, e->dport);
	else
		printf("%-7u %-12.12s %-2d %-16s %-16s %-4u\n", e->pid, ecomm, ip, saddr, daddr, e->dport);
	return 0;
}

static int parse_opts(struct tcpconn_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "timestamp", no_argument, NULL, 't' },
		{ "time", no_argument, NULL, 'T' },
		{ "print-uid", no_argument, NULL, 'U' },
		{ "uid", required_argument, NULL, 'u' },
		{ "pid", required_argument, NULL, 'p' },
		{ "port", required_argument, NULL, 'P' },
		{ "lport", no_argument, NULL, 'L' },
		{ "ipv4", no_argument, NULL, '4' },
		{ "ipv6", no_argument, NULL, '6' },
		{ "count", no_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, err = 0;

	while ((c = getopt_long(argc, argv, o->accept ? "+tTUu:p:P:46cd:vh" : "+tTUu:p:P:L46cd:vh",
				longopts, NULL)) != -1) {
		switch (c) {
		case 't': o->timestamp = true; break;
		case 'T': o->time = true; break;
		case 'U': o->print_uid = true; break;
		case 'u': err = bpfk_opt_uid("-u", optarg, &o->uid); break;
		case 'p': err = bpfk_opt_pid("-p", optarg, &o->pid); break;
		case 'P': err = bpfk_opt_ports("-P", optarg, o->ports, &o->n_ports, TCPCONN_MAX_PORTS); break;
		case 'L':
			if (o->accept)
				goto bad;
			o->lport = true;
			break;
		case '4': o->family = o->family == AF_INET6 ? -1 : AF_INET; break;
		case '6': o->family = o->family == AF_INET ? -1 : AF_INET6; break;
		case 'c': o->count = true; break;
		case 'd': err = bpfk_opt_secs("-d", optarg, &o->duration); break;
		case 'v': o->verbose = 1; break;
		case 'h': usage(stdout, o->accept); return -1;
		default: goto bad;
		}
		if (err) {
			fprintf(stderr, "perfkit %s: %s\n", o->tool, pk_errmsg());
			return 2;
		}
	}
	if (o->family < 0) {
		fprintf(stderr, "perfkit %s: -4 and -6 exclude each other\n", o->tool);
		return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "perfkit %s: unexpected argument '%s'\n", o->tool, argv[optind]);
		goto bad;
	}
	return 0;
bad:
	usage(stderr, o->accept);
	return 2;
}

static int run(bool accept, int argc, char **argv)
{
	struct tcpconn_opts o = { .tool = accept ? "tcpaccept" : "tcpconnect", .accept = accept,
				  .uid = (uint32_t)-1 };
	struct tcpconnect_bpf *skel = NULL;
	struct ring_buffer *rb = NULL;
	int err, ret = 1;

	err = parse_opts(&o, argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	if (bpfk_check_pid(o.pid) || bpfk_start(o.verbose, "sock", "inet_sock_set_state",
		       " (added in Linux 4.16, needs CONFIG_NET and CONFIG_TRACEPOINTS)"))
		goto fail;

	skel = tcpconnect_bpf__open();
	if (!skel) {
		bpfk_error(errno, "opening BPF skeleton");
		goto fail;
	}
	skel->rodata->accept_mode = accept;
	skel->rodata->targ_tgid = (__u32)o.pid;
	skel->rodata->targ_uid = o.uid;
	skel->rodata->targ_family = (__u16)o.family;
	skel->rodata->n_ports = o.n_ports;
	for (int i = 0; i < TCPCONN_MAX_PORTS; i++)
		skel->rodata->ports[i] = o.ports[i];
	if (!accept) {
		bpf_program__set_autoload(skel->progs.sys_exit_accept, false);
		bpf_program__set_autoload(skel->progs.sys_exit_accept4, false);
	}
	if (bpfk_load_attach(skel->skeleton, accept ?
			     "tracepoints sock/inet_sock_set_state, syscalls/sys_exit_accept{,4}" :
			     "tracepoint sock/inet_sock_set_state") ||
	    !(rb = bpfk_ring_new(skel->maps.events, handle_event, &o)))
		goto fail;

	bpfk_stop_on_signals();
	o.start_us = bpfk_now_ns() / 1000;
	if (!o.count) {
		if (o.time)
			printf("%-9s", "TIME");
		if (o.timestamp)
			printf("%-9s", "TIME(s)");
		if (o.print_uid)
			printf("%-6s", "UID");
		if (accept)
			printf("%-7s %-12s %-2s %-16s %-5s %-16s %-5s\n", "PID", "COMM", "IP", "RADDR",
			       "RPORT", "LADDR", "LPORT");
		else if (o.lport)
			printf("%-7s %-12s %-2s %-16s %-6s %-16s %-5s\n", "PID", "COMM", "IP", "SADDR",
			       "LPORT", "DADDR", "DPORT");
		else
			printf("%-7s %-12s %-2s %-16s %-16s %-4s\n", "PID", "COMM", "IP", "SADDR", "DADDR",
			       "DPORT");
		fflush(stdout);
		fprintf(stderr, "Tracing %s... Hit Ctrl-C to end.\n",
			accept ? "TCP accepts" : "connect");
	} else {
		fprintf(stderr, "Tracing %s ... Hit Ctrl-C to end.\n",
			accept ? "accepts" : "connect");
	}

	if (bpfk_poll_ring(rb, o.duration))
		goto fail;
	if (o.count) {
		if (o.nr_counts)
			qsort(o.counts, o.nr_counts, sizeof(*o.counts), cmp_count);
		/* bcc's and libbpf-tools' tcpconnect -c layout (tcpaccept's
		 * port column is the local port) */
		printf("\n%-25s %-25s %-20s %-10s\n", "LADDR", "RADDR", accept ? "LPORT" : "RPORT", "CONNECTS");
		for (size_t i = 0; i < o.nr_counts; i++)
			printf("%-25s %-25s %-20u %-10llu\n", o.counts[i].laddr, o.counts[i].raddr,
			       o.counts[i].port, o.counts[i].n);
	}
	if (fflush(stdout))
		goto out;
	if (skel->bss->lost_events || skel->bss->table_full)
		fprintf(stderr, "perfkit %s: %llu events lost (ring buffer full), %llu sockets not "
			"followed (table full)\n", o.tool, (unsigned long long)skel->bss->lost_events,
			(unsigned long long)skel->bss->table_full);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "perfkit %s: %s\n", o.tool, pk_errmsg());
out:
	free(o.counts);
	ring_buffer__free(rb);
	tcpconnect_bpf__destroy(skel);
	return ret;
}

int cmd_tcpconnect(int argc, char **argv)
{
	return run(false, argc, argv);
}

int cmd_tcpaccept(int argc, char **argv)
{
	return run(true, argc, argv);
}
#endif /* PERFKIT_NO_BPF */
