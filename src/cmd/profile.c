/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit profile — sample stacks on every CPU at a fixed rate with a BPF
 * perf_event program (cpu-clock timer, so it works without a hardware
 * PMU), counting them in the kernel, as bcc's profile does (kernel half:
 * src/bpf/profile.bpf.c).
 *
 *   profile [-F HZ] [-p PID] [-f] [-U|-K] [-I] [duration]
 * Default output: each distinct stack, kernel frames then user frames,
 * leaf first, with its comm, pid and count (least frequent first).
 * -f: folded stacks, one line each: `comm;outer;...;leaf COUNT` (user frames
 * then kernel frames, kernel ones suffixed "_[k]"), which `perfkit
 * flamegraph` draws.  A part that could not be collected appears as a frame
 * "[missing user stack: ERR]" / "[missing kernel stack: ERR]" and is
 * counted in the summary on stderr; samples lost because the count map was
 * full are reported there too.  Nothing is merged silently.
 * User frames are symbolized when sampling ends, through /proc/PID/maps and
 * the ELF files (symbol.h); addresses in anonymous memory or in no mapping
 * (JIT code) through the process's /tmp/perf-PID.map (symbol/perfmap.h,
 * perf's and bcc's rule); a process gone by then shows "[unknown]" frames
 * (its perf map, a file, still names JIT frames).  Kernel frames resolve
 * through /proc/kallsyms.
 */
#include "cmd/cmds.h"

#ifndef PERFKIT_NO_BPF   /* else perfkit.c says why the tool is missing */

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/error.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "bpf/profile.h"
#include "bpfutil/setup.h"
#include "bpfutil/ustack.h"
#include "profile.skel.h"

struct profile_opts {
	long freq;
	long pid;
	bool folded, user_only, kernel_only, idle;
	double duration;
	int verbose;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit profile [-F HZ] [-p PID] [-f] [-U|-K] [-I] [-v] [duration]\n"
		"  -F, --frequency HZ   samples per second on each CPU (default 49)\n"
		"  -p, --pid PID        only this process (filtered in the kernel)\n"
		"  -f, --folded         folded stacks for `perfkit flamegraph`\n"
		"  -U, --user-stacks-only    no kernel frames\n"
		"  -K, --kernel-stacks-only  no user frames\n"
		"  -I, --include-idle   count the idle task's samples too\n"
		"  -v, --verbose        show libbpf's messages\n"
		"  duration             seconds to sample (default: until Ctrl-C)\n");
}

static const char *errname(int id)
{
	switch (-id) {
	case EFAULT: return "EFAULT";
	case EEXIST: return "EEXIST";
	case ENOMEM: return "ENOMEM";
	case EINVAL: return "EINVAL";
	default: return "error";
	}
}

/* Frames of a stack id, leaf first; returns the number (0 on error). */
static int read_stack(int fd, int id, __u64 *ips)
{
	int n = 0;

	if (id < 0 || bpf_map_lookup_elem(fd, &id, ips))
		return 0;
	while (n < PROF_MAX_STACK && ips[n])
		n++;
	return n;
}

/* One text per key: folded or bcc's multi-line layout (without the count). */
static char *render_key(const struct prof_key *k, int stack_fd, struct ustack_cache *c, bool folded)
{
	static __u64 uips[PROF_MAX_STACK], kips[PROF_MAX_STACK];
	int nu = read_stack(stack_fd, k->user_stack_id, uips);
	int nk = read_stack(stack_fd, k->kern_stack_id, kips);
	bool ulost = k->user_stack_id < 0 && k->user_stack_id != PROF_NO_STACK;
	bool klost = k->kern_stack_id < 0 && k->kern_stack_id != PROF_NO_STACK;
	struct ustack_trace t = {
		.pid = (int)k->pid, .comm = k->comm,
		.uips = (const uint64_t *)uips, .nu = nu,
		.umissing = ulost ? errname(k->user_stack_id) : k->user_stack_id >= 0 && !nu ? "evicted" : NULL,
		.kips = (const uint64_t *)kips, .nk = nk,
		.kmissing = klost ? errname(k->kern_stack_id) : k->kern_stack_id >= 0 && !nk ? "evicted" : NULL,
	};

	return ustack_render(c, &t, folded);
}

static int print_stacks(struct profile_bpf *skel, const struct profile_opts *o, struct ustack_cache *c)
{
	int counts_fd = bpf_map__fd(skel->maps.counts), stack_fd = bpf_map__fd(skel->maps.stackmap);
	struct ustack_lines lines = { 0 };
	struct prof_key key, next, *prev = NULL;
	__u64 count;

	while (bpf_map_get_next_key(counts_fd, prev, &next) == 0) {
		if (bpf_map_lookup_elem(counts_fd, &next, &count) == 0)
			ustack_lines_add(&lines, render_key(&next, stack_fd, c, o->folded), count);
		key = next;
		prev = &key;
	}
	ustack_lines_print(&lines, o->folded);
	return 0;
}

/* A process the BPF side saw: read its mappings while it lives. */
static int on_pid_seen(void *ctx, void *data, size_t size)
{
	if (size >= sizeof(__u32))
		ustack_snapshot(ctx, (int)*(const __u32 *)data);   /* gone already: looked up later */
	return 0;
}

static int parse_opts(struct profile_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "frequency", required_argument, NULL, 'F' },
		{ "pid", required_argument, NULL, 'p' },
		{ "folded", no_argument, NULL, 'f' },
		{ "user-stacks-only", no_argument, NULL, 'U' },
		{ "kernel-stacks-only", no_argument, NULL, 'K' },
		{ "include-idle", no_argument, NULL, 'I' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+F:p:fUKIvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			{
				int64_t v;
				if (pk_parse_i64("-F", optarg, 1, 100000, &v)) {
					fprintf(stderr, "perfkit profile: %s\n", pk_errmsg());
					return 2;
				}
				o->freq = (long)v;
			}
			break;
		case 'p':
			{
				int64_t v;
				if (pk_parse_i64("-p", optarg, 1, INT_MAX, &v)) {
					fprintf(stderr, "perfkit profile: %s\n", pk_errmsg());
					return 2;
				}
				o->pid = (long)v;
			}
			break;
		case 'f': o->folded = true; break;
		case 'U': o->user_only = true; break;
		case 'K': o->kernel_only = true; break;
		case 'I': o->idle = true; break;
		case 'v': o->verbose = 1; break;
		case 'h': usage(stdout); return -1;
		default: usage(stderr); return 2;
		}
	}
	if (o->user_only && o->kernel_only) {
		fprintf(stderr, "perfkit profile: -U and -K exclude each other\n");
		return 2;
	}
	if (optind < argc) {
		if (pk_parse_double("the duration", argv[optind], 0.001, 1e7, &o->duration)) {
			fprintf(stderr, "perfkit profile: %s\n", pk_errmsg());
			return 2;
		}
		optind++;
	}
	if (optind < argc) {
		fprintf(stderr, "perfkit profile: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	return 0;
}

int cmd_profile(int argc, char **argv)
{
	struct profile_opts o = { .freq = 49 };
	struct profile_bpf *skel = NULL;
	struct bpf_link **links = NULL;
	int *fds = NULL, ncpu = 0, err, ret = 1;
	struct ustack_cache *cache = ustack_cache_new();
	struct ring_buffer *pid_rb = NULL;

	err = parse_opts(&o, argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	if (bpfk_check_pid(o.pid) || bpfk_start(o.verbose, NULL, NULL, NULL))
		goto fail;

	skel = profile_bpf__open();
	if (!skel) {
		bpfk_error(errno, "opening BPF skeleton");
		goto fail;
	}
	skel->rodata->targ_tgid = (__u32)o.pid;
	skel->rodata->user_only = o.user_only;
	skel->rodata->kernel_only = o.kernel_only;
	skel->rodata->include_idle = o.idle;
	if (bpfk_load_attach(skel->skeleton, NULL) ||   /* attached by hand: perf events */
	    !(pid_rb = bpfk_ring_new(skel->maps.pid_events, on_pid_seen, cache)))
		goto fail;

	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		bpfk_error(ncpu, "counting CPUs");
		goto fail;
	}
	fds = xcalloc((size_t)ncpu, sizeof(*fds));
	links = xcalloc((size_t)ncpu, sizeof(*links));
	int attached = 0;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct perf_event_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		attr.sample_period = 1000000000ULL / (unsigned long long)o.freq;  /* ns */
		fds[cpu] = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fds[cpu] < 0) {
			if (errno == ENODEV)   /* offline CPU */
				continue;
			bpfk_error(errno, "opening cpu-clock perf event (needs CONFIG_PERF_EVENTS=y)");
			goto fail;
		}
		links[cpu] = bpf_program__attach_perf_event(skel->progs.do_sample, fds[cpu]);
		if (!links[cpu]) {
			bpfk_error(errno, "attaching BPF program to perf event");
			goto fail;
		}
		attached++;
	}

	bpfk_stop_on_signals();
	fprintf(stderr, "Sampling at %ld Hertz of %s by %s stack%s... Hit Ctrl-C to end.\n", o.freq,
		o.pid ? "one process" : "all threads",
		o.user_only ? "user" : o.kernel_only ? "kernel" : "user + kernel",
		o.duration > 0 ? " for the given duration" : "");
	unsigned long long end = o.duration > 0 ? bpfk_now_ns() + (unsigned long long)(o.duration * 1e9) : 0;
	while (!bpfk_stopped() && (!end || bpfk_now_ns() < end)) {
		int n = ring_buffer__poll(pid_rb, 20);   /* processes seen: snapshot them */
		if (n < 0 && n != -EINTR) {
			bpfk_error(n, "polling ring buffer");
			goto fail;
		}
	}

	/* stop sampling before reading, so counts and stacks agree */
	for (int cpu = 0; cpu < ncpu; cpu++) {
		bpf_link__destroy(links[cpu]);
		links[cpu] = NULL;
	}
	ring_buffer__consume(pid_rb);
	print_stacks(skel, &o, cache);
	if (fflush(stdout))
		goto out;

	unsigned long long s = skel->bss->samples, d = skel->bss->dropped;
	unsigned long long ue = skel->bss->user_errors, ke = skel->bss->kern_errors;
	fprintf(stderr, "perfkit profile: %llu samples on %d CPUs", s, attached);
	if (d || ue || ke)
		fprintf(stderr, "; %llu dropped (count map full), %llu user and %llu kernel stacks "
			"not collected (shown as [missing ... stack] frames)", d, ue, ke);
	fprintf(stderr, "\n");
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "perfkit profile: %s\n", pk_errmsg());
out:
	for (int cpu = 0; links && cpu < ncpu; cpu++)
		bpf_link__destroy(links[cpu]);
	for (int cpu = 0; fds && cpu < ncpu; cpu++)
		if (fds[cpu] > 0)
			close(fds[cpu]);
	free(links);
	free(fds);
	ring_buffer__free(pid_rb);
	profile_bpf__destroy(skel);
	ustack_cache_free(cache);
	return ret;
}
#endif /* PERFKIT_NO_BPF */
