/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit offcputime — where threads wait: time spent off-CPU (blocked,
 * sleeping, preempted), summed by stack, as bcc's offcputime, from the
 * sched/sched_switch tracepoint (kernel half: src/bpf/offcputime.bpf.c).
 *
 *   offcputime [-p PID | -t TID] [-u|-k] [-U|-K] [-m MIN_US] [-M MAX_US]
 *              [--state N] [--stack-storage-size N] [-f [-d]] [duration]
 * Output, bcc's: each stack (kernel frames, with -d "--", user frames, leaf first),
 * "-  comm (tid)" and its total off-CPU time in microseconds, least first;
 * -f: folded "comm;user outer..leaf;kernel outer..leaf US" (bcc's: kernel
 * frames bare) for
 * `perfkit flamegraph --colors=io --countname=us` (-d: a "-" frame between
 * the user and kernel parts, as bcc's -df).  Options may follow the
 * duration, as bcc's argparse allows.  User frames are named
 * from a snapshot of the process taken while it runs (bpfutil/ustack.h), so
 * processes that have exited by the time the tool prints keep their names.
 */
#include "cmd/cmds.h"

#ifndef PERFKIT_NO_BPF   /* else perfkit.c says why the tool is missing */

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "bpf/offcputime.h"
#include "bpfutil/opts.h"
#include "bpfutil/setup.h"
#include "bpfutil/stackmap.h"
#include "bpfutil/ustack.h"
#include "bpfutil/ustack_prof.h"
#include "base/hashmap.h"
#include "profile/walk.h"
#include "offcputime.skel.h"

struct offcpu_opts {
	long pid, tid;
	bool user_threads, kernel_threads, user_stacks, kernel_stacks, folded, delimited;
	uint64_t min_us, max_us;
	long state;
	long stack_storage;            /* stack map entries (--stack-storage-size) */
	double duration;
	int verbose;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit offcputime [-p PID | -t TID] [-u|-k] [-U|-K] [-m MIN_US] [-M MAX_US]\n"
		"                          [--state N] [--stack-storage-size N] [-f [-d]] [-v] [duration]\n"
		"  -p, --pid PID                only this process (filtered in the kernel)\n"
		"  -t, --tid TID                only this thread\n"
		"  -u, --user-threads-only      user threads only (no kernel threads)\n"
		"  -k, --kernel-threads-only    kernel threads only\n"
		"  -U, --user-stacks-only       no kernel frames\n"
		"  -K, --kernel-stacks-only     no user frames\n"
		"  -m, --min-block-time US      only blocks of at least US microseconds (default 1)\n"
		"  -M, --max-block-time US      only blocks of at most US microseconds\n"
		"      --state N                only threads leaving the CPU in state N (0 running/\n"
		"                               preempted, 1 interruptible, 2 uninterruptible)\n"
		"      --stack-storage-size N   stack map size, rounded up to a power of two (default\n"
		"                               16384), and a spill map a quarter that size\n"
		"  -f, --folded                 folded stacks for `perfkit flamegraph --colors=io --countname=us`\n"
		"  -d, --delimited              a \"-\" frame (with -f) or a \"--\" line between the\n"
		"                               user and kernel parts\n"
		"  -v, --verbose                show libbpf's messages\n"
		"  duration                     seconds to trace (default: until Ctrl-C)\n");
}

struct offcpu_agg {
	struct prof *p;
	struct hashmap names;          /* interned comms, DSO paths, symbol names */
	struct ustack_lines lines;
	unsigned how;                  /* ustack.h's USTACK_FOLDED, USTACK_DELIMITED */
};

/* One stack of the model as text, with its count (microseconds). */
static int render_stack(void *arg, uint32_t thread, const uint32_t *ids, size_t n, const struct prof_node *end)
{
	struct offcpu_agg *a = arg;

	ustack_lines_add(&a->lines, ustack_prof_render(a->p, thread, ids, n, a->how), end->period);
	return 0;
}

/* The counts into the aggregation model as typed frames (as profile's),
 * each key's time rounded to microseconds; then its stacks as text. */
static void print_stacks(struct offcputime_bpf *skel, const struct offcpu_opts *o, struct ustack_cache *c)
{
	static uint64_t uips[OFFCPU_MAX_STACK], kips[OFFCPU_MAX_STACK];
	int counts_fd = bpf_map__fd(skel->maps.counts), stack_fd = bpf_map__fd(skel->maps.stackmap);
	int spill_fd = bpf_map__fd(skel->maps.stackmap_spill);
	struct offcpu_agg a = { .p = prof_new(0),
				.how = (o->folded ? USTACK_FOLDED : 0) | (o->delimited ? USTACK_DELIMITED : 0) };
	struct offcpu_key key, next, *prev = NULL;
	__u64 ns;

	hm_init(&a.names);
	while (bpf_map_get_next_key(counts_fd, prev, &next) == 0) {
		if (bpf_map_lookup_elem(counts_fd, &next, &ns) == 0) {
			struct ustack_trace t = { .pid = (int)next.tgid, .comm = next.comm, .uips = uips, .kips = kips };

			t.nu = bpfk_stack_part(stack_fd, spill_fd, next.user_stack_id, OFFCPU_NO_STACK, uips,
					       OFFCPU_MAX_STACK, &t.umissing);
			t.nk = bpfk_stack_part(stack_fd, spill_fd, next.kern_stack_id, OFFCPU_NO_STACK, kips,
					       OFFCPU_MAX_STACK, &t.kmissing);

			/* bcc shows the thread id: "-  comm (tid)" */
			ustack_prof_add(a.p, &a.names, c, &t, next.tid, next.tid, (ns + 500) / 1000);
		}
		key = next;
		prev = &key;
	}
	prof_walk_stacks(a.p, render_stack, &a);
	ustack_lines_print(&a.lines, o->folded);
	prof_free(a.p);
	hm_release(&a.names);
}

static int on_pid_seen(void *ctx, void *data, size_t size)
{
	if (size >= sizeof(__u32))
		ustack_snapshot(ctx, (int)*(const __u32 *)data);
	return 0;
}

static bool load_pending(void *ctx)
{
	return ustack_load_pending(ctx);
}

static int parse_opts(struct offcpu_opts *o, int argc, char **argv)
{
	enum { OPT_STACKS = 256 };
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "user-threads-only", no_argument, NULL, 'u' },
		{ "kernel-threads-only", no_argument, NULL, 'k' },
		{ "user-stacks-only", no_argument, NULL, 'U' },
		{ "kernel-stacks-only", no_argument, NULL, 'K' },
		{ "min-block-time", required_argument, NULL, 'm' },
		{ "max-block-time", required_argument, NULL, 'M' },
		{ "state", required_argument, NULL, 'S' },
		{ "stack-storage-size", required_argument, NULL, OPT_STACKS },
		{ "folded", no_argument, NULL, 'f' },
		{ "delimited", no_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, err = 0;
	int64_t v;

	while ((c = getopt_long(argc, argv, "p:t:ukUKm:M:fdvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': err = bpfk_opt_pid("-p", optarg, &o->pid); break;
		case 't': err = bpfk_opt_pid("-t", optarg, &o->tid); break;
		case 'u': o->user_threads = true; break;
		case 'k': o->kernel_threads = true; break;
		case 'U': o->user_stacks = true; break;
		case 'K': o->kernel_stacks = true; break;
		case 'm': err = bpfk_opt_us("-m", optarg, &o->min_us); break;
		case 'M':   /* as bcc's: at least 1 (0 keeps no block) */
			err = pk_parse_u64("-M", optarg, 1, INT64_MAX, &o->max_us);
			break;
		case 'S':
			err = pk_parse_i64("--state", optarg, 0, LONG_MAX, &v);
			if (!err)
				o->state = (long)v;
			break;
		case OPT_STACKS:
			err = pk_parse_i64("--stack-storage-size", optarg, 1, 1 << 24, &v);
			if (!err)
				o->stack_storage = (long)v;
			break;
		case 'f': o->folded = true; break;
		case 'd': o->delimited = true; break;
		case 'v': o->verbose = 1; break;
		case 'h': usage(stdout); return -1;
		default: usage(stderr); return 2;
		}
		if (err) {
			fprintf(stderr, "perfkit offcputime: %s\n", pk_errmsg());
			return 2;
		}
	}
	const char *clash = o->user_threads && o->kernel_threads ? "-u and -k"
		: o->user_stacks && o->kernel_stacks ? "-U and -K"
		: o->pid && o->tid ? "-p and -t" : NULL;
	if (clash) {
		fprintf(stderr, "perfkit offcputime: %s exclude each other\n", clash);
		return 2;
	}
	if (o->max_us && o->min_us > o->max_us) {
		fprintf(stderr, "perfkit offcputime: -m (%" PRIu64 " us) is above -M (%" PRIu64 " us): no block "
			"can be kept\n", o->min_us, o->max_us);
		return 2;
	}
	c = bpfk_opt_args(argc, argv, optind, "the duration", &o->duration, NULL);
	if (c) {
		fprintf(stderr, "perfkit offcputime: %s\n", pk_errmsg());
		if (c == -E2BIG)
			usage(stderr);
		return 2;
	}
	return 0;
}

int cmd_offcputime(int argc, char **argv)
{
	struct offcpu_opts o = { .state = -1 };
	struct offcputime_bpf *skel = NULL;
	struct ring_buffer *pid_rb = NULL;
	struct ustack_cache *cache = NULL;
	int err, ret = 1;

	err = parse_opts(&o, argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	if (bpfk_check_tid(o.tid) || bpfk_check_pid(o.pid) || bpfk_start(o.verbose, "sched", "sched_switch",
		       " (needs CONFIG_TRACEPOINTS)"))
		goto fail;

	skel = offcputime_bpf__open();
	if (!skel) {
		bpfk_error(errno, "opening BPF skeleton");
		goto fail;
	}
	skel->rodata->targ_tgid = (__u32)o.pid;
	skel->rodata->targ_tid = (__u32)o.tid;
	skel->rodata->user_threads_only = o.user_threads;
	skel->rodata->kernel_threads_only = o.kernel_threads;
	skel->rodata->user_stacks_only = o.user_stacks;
	skel->rodata->kernel_stacks_only = o.kernel_stacks;
	skel->rodata->targ_state = o.state;
	skel->rodata->min_ns = o.min_us ? o.min_us * 1000 : 1;
	skel->rodata->max_ns = o.max_us ? o.max_us * 1000 : (__u64)-1;
	if (o.stack_storage) {
		uint32_t n = bpfk_stack_buckets((uint32_t)o.stack_storage);

		bpf_map__set_max_entries(skel->maps.stackmap, n);
		bpf_map__set_max_entries(skel->maps.stackmap_spill, bpfk_stack_spill_size(n));
	}
	cache = ustack_cache_new();
	if (bpfk_load_attach(skel->skeleton, "tracepoint sched/sched_switch") ||
	    !(pid_rb = bpfk_ring_new(skel->maps.pid_events, on_pid_seen, cache)))
		goto fail;

	bpfk_stop_on_signals();
	/* bcc's line: "... stack for 3 secs." with a duration, else "... Hit Ctrl-C to end." */
	fprintf(stderr, "Tracing off-CPU time (us) of %s by %s stack",
		o.pid ? "one process" : o.tid ? "one thread" : o.user_threads ? "user threads"
		: o.kernel_threads ? "kernel threads" : "all threads",
		o.user_stacks ? "user" : o.kernel_stacks ? "kernel" : "user + kernel");
	if (o.duration > 0)
		fprintf(stderr, " for %g secs.\n", o.duration);
	else
		fprintf(stderr, "... Hit Ctrl-C to end.\n");
	if (bpfk_poll_ring_work(pid_rb, o.duration, load_pending, cache))
		goto fail;
	offcputime_bpf__detach(skel);   /* stop before reading, so counts and stacks agree */
	print_stacks(skel, &o, cache);
	if (fflush(stdout))
		goto out;
	if (skel->bss->dropped || skel->bss->user_errors || skel->bss->kern_errors)
		fprintf(stderr, "perfkit offcputime: %llu blocks dropped (map full), %llu user and %llu "
			"kernel stacks not collected (shown as [Missed ... Stack] frames; for EEXIST, try a "
			"bigger --stack-storage-size)\n",
			(unsigned long long)skel->bss->dropped, (unsigned long long)skel->bss->user_errors,
			(unsigned long long)skel->bss->kern_errors);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "perfkit offcputime: %s\n", pk_errmsg());
out:
	ring_buffer__free(pid_rb);
	offcputime_bpf__destroy(skel);
	ustack_cache_free(cache);
	return ret;
}
#endif /* PERFKIT_NO_BPF */
