/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit runqlat — run queue (scheduler) latency as a log2 histogram: how
 * long runnable tasks waited for a CPU, as bcc's runqlat prints it (BTF
 * tracepoints sched_wakeup, sched_wakeup_new, sched_switch; kernel half:
 * src/bpf/runqlat.bpf.c).
 *
 *   runqlat [-T] [-m] [-P | -L | --pidnss] [-p PID] [interval [count]]
 * Without interval it prints once, at Ctrl-C; with it, every interval
 * seconds (count times), each histogram covering that interval only.
 * -P: one histogram per process ("pid = N comm"), -L per thread
 * ("tid = N comm"), --pidnss per PID namespace ("pidns = N"), in
 * ascending id order; comms are escaped.
 */
#include "cmd/cmds.h"

#ifndef PERFKIT_NO_BPF   /* else perfkit.c says why the tool is missing */

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "bpf/runqlat.h"
#include "bpfutil/hist.h"
#include "bpfutil/opts.h"
#include "bpfutil/setup.h"
#include "runqlat.skel.h"

struct runqlat_opts {
	bool time, ms, per_process, per_thread, per_pidns;
	long pid;
	double interval;
	long count;
	int verbose;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit runqlat [-T] [-m] [-P | -L | --pidnss] [-p PID] [-v] [interval [count]]\n"
		"  -T, --timestamp      print the time of day with each output\n"
		"  -m, --milliseconds   histogram in milliseconds (default microseconds)\n"
		"  -P, --pids           one histogram per process\n"
		"  -L, --tids           one histogram per thread\n"
		"      --pidnss         one histogram per PID namespace\n"
		"  -p, --pid PID        only this process (filtered in the kernel)\n"
		"  -v, --verbose        show libbpf's messages\n"
		"  interval [count]     print every interval seconds, count times\n");
}

struct entry {
	__u32 key;
	struct runq_hist h;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* Print every histogram in the map, in key order, and empty it. */
static int print_and_clear(int fd, const struct runqlat_opts *o)
{
	struct strbuf sb = STRBUF_INIT;
	struct entry *v = NULL;
	size_t nr = 0, alloc = 0;
	__u32 key, next, *prev = NULL;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		if (nr == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		if (bpf_map_lookup_elem(fd, &next, &v[nr].h) == 0)
			v[nr++].key = next;
		key = next;
		prev = &key;
	}
	for (size_t i = 0; i < nr; i++)
		bpf_map_delete_elem(fd, &v[i].key);
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_entry);
	for (size_t i = 0; i < nr; i++) {
		if (o->per_process || o->per_thread) {
			char comm[RUNQ_TASK_COMM_LEN + 1];
			snprintf(comm, sizeof(comm), "%.*s", RUNQ_TASK_COMM_LEN, v[i].h.comm);
			sb_addf(&sb, "\n%s = %u ", o->per_process ? "pid" : "tid", v[i].key);
			sb_add_term(&sb, comm, strlen(comm));
			sb_addch(&sb, '\n');
		} else if (o->per_pidns) {
			sb_addf(&sb, "\npidns = %u\n", v[i].key);
		}
		uint64_t slots[LOG2_SLOTS];
		for (int k = 0; k < LOG2_SLOTS; k++)
			slots[k] = v[i].h.slots[k];
		hist_render(&sb, slots, LOG2_SLOTS, o->ms ? "msecs" : "usecs");
	}
	fwrite(sb.buf, 1, sb.len, stdout);
	sb_release(&sb);
	free(v);
	return 0;
}

static int parse_opts(struct runqlat_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "timestamp", no_argument, NULL, 'T' },
		{ "milliseconds", no_argument, NULL, 'm' },
		{ "pids", no_argument, NULL, 'P' },
		{ "tids", no_argument, NULL, 'L' },
		{ "pidnss", no_argument, NULL, 'N' },
		{ "pid", required_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, err = 0;

	while ((c = getopt_long(argc, argv, "+TmPLp:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'T': o->time = true; break;
		case 'm': o->ms = true; break;
		case 'P': o->per_process = true; break;
		case 'L': o->per_thread = true; break;
		case 'N': o->per_pidns = true; break;
		case 'p': err = bpfk_opt_pid("-p", optarg, &o->pid); break;
		case 'v': o->verbose = 1; break;
		case 'h': usage(stdout); return -1;
		default: usage(stderr); return 2;
		}
		if (err) {
			fprintf(stderr, "perfkit runqlat: %s\n", pk_errmsg());
			return 2;
		}
	}
	if (o->per_process + o->per_thread + o->per_pidns > 1) {
		fprintf(stderr, "perfkit runqlat: -P, -L and --pidnss exclude each other\n");
		return 2;
	}
	c = bpfk_opt_args(argc, argv, optind, "the interval", &o->interval, &o->count);
	if (c) {
		fprintf(stderr, "perfkit runqlat: %s\n", pk_errmsg());
		if (c == -E2BIG)
			usage(stderr);
		return 2;
	}
	return 0;
}

int cmd_runqlat(int argc, char **argv)
{
	struct runqlat_opts o = { 0 };
	struct runqlat_bpf *skel = NULL;
	int err, ret = 1;

	err = parse_opts(&o, argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	if (bpfk_check_pid(o.pid) || bpfk_start(o.verbose, NULL, NULL, NULL))
		goto fail;

	skel = runqlat_bpf__open();
	if (!skel) {
		bpfk_error(errno, "opening BPF skeleton");
		goto fail;
	}
	skel->rodata->targ_per_process = o.per_process;
	skel->rodata->targ_per_thread = o.per_thread;
	skel->rodata->targ_per_pidns = o.per_pidns;
	skel->rodata->targ_ms = o.ms;
	skel->rodata->targ_tgid = (__u32)o.pid;
	if (bpfk_load_attach(skel->skeleton, "BTF tracepoints sched_wakeup, sched_wakeup_new, sched_switch "
			     "(tp_btf needs CONFIG_DEBUG_INFO_BTF=y, Linux 5.5+)"))
		goto fail;

	bpfk_stop_on_signals();
	fprintf(stderr, "Tracing run queue latency... Hit Ctrl-C to end.\n");
	int fd = bpf_map__fd(skel->maps.hists);
	for (long n = 0;;) {
		bpfk_wait_interval(o.interval, 0);
		printf("\n");
		if (o.time) {
			char buf[16];

			printf("%-8s\n", bpfk_clock(buf, sizeof(buf)));
		}
		if (print_and_clear(fd, &o))
			goto fail;
		fflush(stdout);
		if (bpfk_interval_last(o.interval, o.count, &n))
			break;
	}
	if (skel->bss->missed_starts)
		fprintf(stderr, "perfkit runqlat: %llu wakeups not measured (start map full)\n",
			(unsigned long long)skel->bss->missed_starts);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "perfkit runqlat: %s\n", pk_errmsg());
out:
	runqlat_bpf__destroy(skel);
	return ret;
}
#endif /* PERFKIT_NO_BPF */
