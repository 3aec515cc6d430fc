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
#include <unistd.h>

#include "base/error.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "bpf/profile.h"
#include "bpfutil/procmaps.h"
#include "bpfutil/setup.h"
#include "capture/capture.h"
#include "symbol/perfmap.h"
#include "symbol/symbol.h"
#include "profile.skel.h"

struct profile_opts {
	long freq;
	long pid;
	bool folded, user_only, kernel_only, idle;
	double duration;
	int verbose;
};

struct stack_line {
	char *text;
	unsigned long long count;
};

/* Symbolization state: one symcache, /proc/PID/maps per pid, the JIT
 * maps (/tmp/perf-PID.map) made on first use. */
struct resolver {
	struct symcache *syms;
	struct perfmap_cache *jit;
	int *pids;
	struct procmaps *maps;
	int *maps_err;
	size_t nr, alloc;
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

static const struct procmaps *maps_of(struct resolver *r, int pid)
{
	for (size_t i = 0; i < r->nr; i++)
		if (r->pids[i] == pid)
			return r->maps_err[i] ? NULL : &r->maps[i];
	if (r->nr == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 16;
		r->pids = xrealloc(r->pids, r->alloc * sizeof(*r->pids));
		r->maps = xrealloc(r->maps, r->alloc * sizeof(*r->maps));
		r->maps_err = xrealloc(r->maps_err, r->alloc * sizeof(*r->maps_err));
	}
	size_t i = r->nr++;
	r->pids[i] = pid;
	r->maps_err[i] = procmaps_load(&r->maps[i], pid);
	return r->maps_err[i] ? NULL : &r->maps[i];
}

static void add_user_frame(struct strbuf *sb, struct resolver *r, int pid, uint64_t ip, bool leaf)
{
	const struct procmaps *pm = maps_of(r, pid);
	const struct procmap *m = pm ? procmaps_find(pm, leaf ? ip : ip - 1) : NULL;
	const char *name = NULL;
	uint64_t a = leaf ? ip : ip - 1;

	if (!m || !m->path[0] || !strncmp(m->path, "//anon", 6) || !strncmp(m->path, "[anon", 5)) {
		/* JIT code: anonymous memory, or no mapping (gone, or never
		 * seen), named by the process's perf map */
		if (!r->jit)
			r->jit = perfmap_cache_new(NULL);
		name = perfmap_lookup(r->jit, (uint32_t)pid, a, false, NULL, NULL);
		if (name && strchr(name, ';')) {   /* JVM names: "Lcom/Foo;::bar" */
			size_t at = sb->len;
			sb_addstr(sb, name);
			for (size_t i = at; i < sb->len; i++)
				if (sb->buf[i] == ';')
					sb->buf[i] = ':';
			return;
		}
	} else if (m->path[0] == '/')
		name = symcache_resolve(r->syms, m->path, (leaf ? ip : ip - 1) - m->start + m->pgoff,
					NULL, NULL);
	else if (!strcmp(m->path, "[vdso]"))
		name = symcache_resolve(r->syms, "[vdso]", (leaf ? ip : ip - 1) - m->start + m->pgoff,
					NULL, NULL);
	if (name)
		sb_addstr(sb, name);
	else
		sb_addstr(sb, "[unknown]");
}

static void add_kernel_frame(struct strbuf *sb, struct resolver *r, uint64_t ip)
{
	const char *name = symcache_resolve_kernel(r->syms, ip, NULL);

	if (name)
		sb_addstr(sb, name);
	else
		sb_addf(sb, "0x%llx", (unsigned long long)ip);
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

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct stack_line *)a)->text, ((const struct stack_line *)b)->text);
}

static int cmp_count(const void *a, const void *b)
{
	const struct stack_line *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	return strcmp(x->text, y->text);
}

/* One text per key: folded ("comm;u_outer;...;k_leaf_[k]") or bcc's
 * multi-line layout (without the count). */
static char *render_key(const struct prof_key *k, int stack_fd, struct resolver *r, bool folded)
{
	static __u64 uips[PROF_MAX_STACK], kips[PROF_MAX_STACK];
	struct strbuf sb = STRBUF_INIT;
	char comm[PROF_TASK_COMM_LEN + 1];
	int nu = read_stack(stack_fd, k->user_stack_id, uips);
	int nk = read_stack(stack_fd, k->kern_stack_id, kips);
	bool ulost = k->user_stack_id < 0 && k->user_stack_id != PROF_NO_STACK;
	bool klost = k->kern_stack_id < 0 && k->kern_stack_id != PROF_NO_STACK;
	bool umiss = k->user_stack_id >= 0 && !nu, kmiss = k->kern_stack_id >= 0 && !nk;

	memcpy(comm, k->comm, PROF_TASK_COMM_LEN);
	comm[PROF_TASK_COMM_LEN] = '\0';
	if (folded) {
		for (char *c = comm; *c; c++)
			if (*c == ';' || *c == ' ')
				*c = '_';
		sb_add_term(&sb, comm, strlen(comm));   /* a newline would split the line */
		if (ulost || umiss)
			sb_addf(&sb, ";[missing user stack: %s]", ulost ? errname(k->user_stack_id) : "evicted");
		for (int i = nu - 1; i >= 0; i--) {
			sb_addch(&sb, ';');
			add_user_frame(&sb, r, (int)k->pid, uips[i], i == 0);
		}
		if (klost || kmiss)
			sb_addf(&sb, ";[missing kernel stack: %s]", klost ? errname(k->kern_stack_id) : "evicted");
		for (int i = nk - 1; i >= 0; i--) {
			sb_addch(&sb, ';');
			add_kernel_frame(&sb, r, kips[i]);
			sb_addstr(&sb, "_[k]");
		}
		sb_term_escape_from(&sb, 0);   /* symbol names too: one stack, one line */
		return sb_detach(&sb, NULL);
	}
	for (int i = 0; i < nk; i++) {
		sb_addstr(&sb, "    ");
		size_t at = sb.len;
		add_kernel_frame(&sb, r, kips[i]);
		sb_term_escape_from(&sb, at);
		sb_addch(&sb, '\n');
	}
	if (klost || kmiss)
		sb_addf(&sb, "    [Missed Kernel Stack: %s]\n", klost ? errname(k->kern_stack_id) : "evicted");
	if ((nk || klost || kmiss) && (nu || ulost || umiss))
		sb_addstr(&sb, "    --\n");
	for (int i = 0; i < nu; i++) {
		sb_addstr(&sb, "    ");
		size_t at = sb.len;
		add_user_frame(&sb, r, (int)k->pid, uips[i], i == 0);
		sb_term_escape_from(&sb, at);
		sb_addch(&sb, '\n');
	}
	if (ulost || umiss)
		sb_addf(&sb, "    [Missed User Stack: %s]\n", ulost ? errname(k->user_stack_id) : "evicted");
	sb_addstr(&sb, "    -                ");
	sb_add_term(&sb, comm, strlen(comm));
	sb_addf(&sb, " (%u)\n", k->pid);
	return sb_detach(&sb, NULL);
}

static int print_stacks(struct profile_bpf *skel, const struct profile_opts *o)
{
	int counts_fd = bpf_map__fd(skel->maps.counts), stack_fd = bpf_map__fd(skel->maps.stackmap);
	struct resolver r = { .syms = symcache_new() };
	struct stack_line *lines = NULL;
	size_t nr = 0, alloc = 0;
	struct prof_key key, next, *prev = NULL;
	__u64 count;

	while (bpf_map_get_next_key(counts_fd, prev, &next) == 0) {
		if (bpf_map_lookup_elem(counts_fd, &next, &count) == 0) {
			if (nr == alloc) {
				alloc = alloc ? 2 * alloc : 256;
				lines = xrealloc(lines, alloc * sizeof(*lines));
			}
			lines[nr].text = render_key(&next, stack_fd, &r, o->folded);
			lines[nr++].count = count;
		}
		key = next;
		prev = &key;
	}
	/* different stack ids can symbolize alike: merge equal texts */
	if (nr)   /* no samples (an idle -p process): lines is NULL */
		qsort(lines, nr, sizeof(*lines), cmp_line);
	size_t w = 0;
	for (size_t i = 0; i < nr; i++) {
		if (w && !strcmp(lines[w - 1].text, lines[i].text)) {
			lines[w - 1].count += lines[i].count;
			free(lines[i].text);
		} else {
			lines[w++] = lines[i];
		}
	}
	nr = w;
	if (!o->folded && nr)
		qsort(lines, nr, sizeof(*lines), cmp_count);
	for (size_t i = 0; i < nr; i++) {
		if (o->folded)
			printf("%s %llu\n", lines[i].text, lines[i].count);
		else
			printf("%s        %llu\n\n", lines[i].text, lines[i].count);
		free(lines[i].text);
	}
	free(lines);
	for (size_t i = 0; i < r.nr; i++)
		if (!r.maps_err[i])
			procmaps_release(&r.maps[i]);
	free(r.pids);
	free(r.maps);
	free(r.maps_err);
	symcache_free(r.syms);
	perfmap_cache_free(r.jit);
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
	if (bpfk_load_attach(skel->skeleton, NULL))   /* attached by hand: perf events */
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
		fds[cpu] = cap_perf_event_open(&attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fds[cpu] < 0) {
			int oerr = -fds[cpu];

			fds[cpu] = -1;
			if (oerr == ENODEV)   /* offline CPU */
				continue;
			bpfk_error(oerr, "opening cpu-clock perf event (needs CONFIG_PERF_EVENTS=y)");
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
	while (!bpfk_stopped() && (!end || bpfk_now_ns() < end))
		poll(NULL, 0, 20);

	/* stop sampling before reading, so counts and stacks agree */
	for (int cpu = 0; cpu < ncpu; cpu++) {
		bpf_link__destroy(links[cpu]);
		links[cpu] = NULL;
	}
	print_stacks(skel, &o);
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
	profile_bpf__destroy(skel);
	return ret;
}
#endif /* PERFKIT_NO_BPF */
