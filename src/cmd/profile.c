/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit profile — sample stacks on every CPU at a fixed rate with a BPF
 * perf_event program (cpu-clock timer, so it works without a hardware
 * PMU), counting them in the kernel, as bcc's profile does (kernel half:
 * src/bpf/profile.bpf.c).
 *
 *   profile [-F HZ | -c COUNT] [-p PID | -L TID] [-C CPU] [-f [-d]] [-U|-K] [-I]
 *           [--stack-storage-size N] [duration]
 * Default output: each distinct stack, kernel frames then user frames,
 * leaf first, with its comm, pid and count (least frequent first).
 * -f: folded stacks, one line each: `comm;outer;...;leaf COUNT` (user frames
 * then kernel frames; -a: kernel ones suffixed "_[k]", in either layout, as
 * bcc's; -d: a "-" frame between the parts), which `perfkit flamegraph` draws.
 * Options may follow the duration, as bcc's argparse allows.  A part that
 * could not be collected appears as a frame, bcc's "[Missed User Stack:
 * ERR]" / "[Missed Kernel Stack: ERR]" (with the reason), and is
 * counted in the summary on stderr; samples lost because the count map was
 * full are reported there too.  Nothing is merged silently.
 * User frames are symbolized when sampling ends, through /proc/PID/maps and
 * the ELF files (symbol.h); addresses in anonymous memory or in no mapping
 * (JIT code) through the process's /tmp/perf-PID.map (symbol/perfmap.h,
 * perf's and bcc's rule); a process gone by then shows "[unknown]" frames
 * (its perf map, a file, still names JIT frames).  Kernel frames resolve
 * through /proc/kallsyms.
 * Aggregation goes through the model (profile/profile.h): each key of the
 * count map becomes typed frames (kernel ones flagged; a missing part a
 * marker frame) added with its count as period, so stacks whose ids differ
 * but whose frames are equal merge in the trie; both text layouts are
 * rendered by walking it (profile/walk.h), then sorted as bcc does
 * (ustack_lines_print, which still merges texts that coincide for
 * different frames, e.g. one name in two DSOs).  --continuous feeds a
 * model per interval too (frames per address, PROF_BY_IP, as pprof's
 * locations are) and writes its stacks with export_add_n().
 */
#include "cmd/cmds.h"

#ifndef PERFKIT_NO_BPF   /* else perfkit.c says why the tool is missing */

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/hashmap.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "bpf/profile.h"
#include "bpfutil/opts.h"
#include "bpfutil/setup.h"
#include "bpfutil/stackmap.h"
#include "bpfutil/ustack.h"
#include "bpfutil/ustack_prof.h"
#include "export/export.h"
#include "profile/profile.h"
#include "profile/walk.h"
#include "capture/capture.h"
#include "symbol/perfmap.h"
#include "symbol/symbol.h"
#include "profile.skel.h"

struct profile_opts {
	long freq;
	long count;                    /* -c: sample period, cpu-clock ns (0: -F) */
	long pid, tid;                 /* -p, -L */
	long cpu;                      /* -C: only this CPU (-1: all) */
	bool folded, delimited, annotate, user_only, kernel_only, idle;
	double duration;
	int verbose;
	long stack_storage;            /* stack map entries (--stack-storage-size) */
	bool freq_set;
	/* --continuous */
	bool continuous;
	double interval;
	const char *outdir;
	long max_files;
};

/* The cpu-clock sample period, ns: -c's, else that of -F's frequency. */
static unsigned long long period_ns(const struct profile_opts *o)
{
	return o->count ? (unsigned long long)o->count : 1000000000ULL / (unsigned long long)o->freq;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit profile [-F HZ | -c COUNT] [-p PID | -L TID] [-C CPU] [-f [-d]] [-U|-K] [-I]\n"
		"                       [--stack-storage-size N] [-v] [duration]\n"
		"       perfkit profile --continuous --output-dir DIR [--interval SECS] [--max-files N]\n"
		"                       [-F HZ] [-p PID] [-U|-K] [-I] [--stack-storage-size N]\n"
		"  -F, --frequency HZ   samples per second on each CPU (default 49; 19 with --continuous)\n"
		"  -c, --count COUNT    a sample every COUNT events instead (cpu-clock: nanoseconds)\n"
		"  -p, --pid PID        only this process (filtered in the kernel)\n"
		"  -L, --tid TID        only this thread\n"
		"  -C, --cpu CPU        only this CPU\n"
		"  -f, --folded         folded stacks for `perfkit flamegraph`\n"
		"  -d, --delimited      a \"-\" frame (with -f) or a \"--\" line between the user\n"
		"                       and kernel parts\n"
		"  -a, --annotations    kernel frames end in _[k]\n"
		"  -U, --user-stacks-only    no kernel frames\n"
		"  -K, --kernel-stacks-only  no user frames\n"
		"  -I, --include-idle   count the idle task's samples too\n"
		"      --stack-storage-size N  stack map size, rounded up to a power of two (default\n"
		"                       16384), and a spill map a quarter that size\n"
		"      --continuous     always-on: one pprof file per interval in --output-dir,\n"
		"                       labels host, pid, comm; ends cleanly at Ctrl-C\n"
		"      --interval SECS  length of each file's interval (default 60)\n"
		"      --output-dir DIR where the files go (made if missing)\n"
		"      --max-files N    keep the newest N files this run wrote (default 60; 0: all)\n"
		"  -v, --verbose        show libbpf's messages\n"
		"  duration             seconds to sample (default: until Ctrl-C)\n");
}

struct agg {
	struct prof *p;
	struct hashmap names;          /* interned comms, DSO paths, symbol names */
	struct ustack_cache *c;
	struct ustack_lines lines;
	unsigned how;                  /* ustack.h's USTACK_FOLDED, USTACK_DELIMITED */
	struct pk_export *x;           /* --continuous: the interval's export */
	unsigned long long period;     /* a sample's, ns */
};

static const char *agg_intern(struct agg *a, const char *s)
{
	return s ? hm_intern(&a->names, s, strlen(s)) : NULL;
}

/* Frames of a stack id (ips leaf first) appended at fr[*n], named, the
 * names interned in a (the model's identities are pointers); each user
 * mapping's build-id given to a->x once a file. */
static void key_frames(struct agg *a, int pid, const uint64_t *ips, int n_ips, bool kernel, struct pk_frame *fr,
		       size_t *n, struct hashmap *bid_done)
{
	for (int i = 0; i < n_ips; i++) {
		const char *file = NULL;
		struct pk_frame *f = &fr[(*n)++];

		ustack_prof_frame(a->c, &a->names, pid, ips[i], i == 0, kernel, f, &file);
		if (!kernel && file) {   /* the mapping's build-id, read once a file */
			int created;

			hm_upsert(bid_done, f->dso, strlen(f->dso), &created);
			if (created) {
				uint8_t id[20];
				int len = sym_read_build_id(file, id, sizeof(id));

				if (len > 0)
					export_set_build_id(a->x, f->dso, id, (size_t)len);
			}
		}
	}
}

/* One key of the count map into the model: its frames leaf first (kernel
 * leaf..outer, the kernel part's marker, user leaf..outer, the user
 * part's marker), the count as period. */
static void add_key(struct agg *a, const struct prof_bpf_key *k, int stack_fd, int spill_fd, __u64 count)
{
	static uint64_t uips[PROF_MAX_STACK], kips[PROF_MAX_STACK];
	struct ustack_trace t = { .pid = (int)k->pid, .comm = k->comm, .uips = uips, .kips = kips };

	t.nu = bpfk_stack_part(stack_fd, spill_fd, k->user_stack_id, PROF_NO_STACK, uips, PROF_MAX_STACK,
			       &t.umissing);
	t.nk = bpfk_stack_part(stack_fd, spill_fd, k->kern_stack_id, PROF_NO_STACK, kips, PROF_MAX_STACK,
			       &t.kmissing);

	ustack_prof_add(a->p, &a->names, a->c, &t, k->pid, k->pid, count);
}

/* One stack of the model as text, with its count (the period). */
static int render_stack(void *arg, uint32_t thread, const uint32_t *ids, size_t n, const struct prof_node *end)
{
	struct agg *a = arg;

	/* equal stacks met once here; ustack_lines still merges texts
	 * that coincide for different frames (a name in two DSOs, comms
	 * equal once made printable) */
	ustack_lines_add(&a->lines, ustack_prof_render(a->p, thread, ids, n, a->how), end->period);
	return 0;
}

static int print_stacks(struct profile_bpf *skel, const struct profile_opts *o, struct ustack_cache *c)
{
	int counts_fd = bpf_map__fd(skel->maps.counts), stack_fd = bpf_map__fd(skel->maps.stackmap);
	int spill_fd = bpf_map__fd(skel->maps.stackmap_spill);
	struct agg a = { .p = prof_new(0), .c = c,
			 .how = (o->folded ? USTACK_FOLDED : 0) | (o->delimited ? USTACK_DELIMITED : 0) |
				(o->annotate ? USTACK_ANNOTATE : 0) };
	struct prof_bpf_key key, next, *prev = NULL;
	__u64 count;

	hm_init(&a.names);
	while (bpf_map_get_next_key(counts_fd, prev, &next) == 0) {
		if (bpf_map_lookup_elem(counts_fd, &next, &count) == 0)
			add_key(&a, &next, stack_fd, spill_fd, count);
		key = next;
		prev = &key;
	}
	prof_walk_stacks(a.p, render_stack, &a);
	ustack_lines_print(&a.lines, o->folded);
	prof_free(a.p);
	hm_release(&a.names);
	return 0;
}

/* A process the BPF side saw: read its mappings while it lives. */
static int on_pid_seen(void *ctx, void *data, size_t size)
{
	struct ustack_cache **cache = ctx;   /* the current one: --continuous renews it */

	if (size >= sizeof(__u32))
		ustack_snapshot(*cache, (int)*(const __u32 *)data);   /* gone already: looked up later */
	return 0;
}

static bool load_pending(void *ctx)
{
	struct ustack_cache **cache = ctx;

	return ustack_load_pending(*cache);
}

/* --continuous: state across intervals */
struct cont {
	char host[256];
	char **files;                  /* written by this run, oldest first */
	size_t nr_files;
	unsigned long long nr_written, seq;
};

static void clear_map(int fd, size_t key_size)
{
	unsigned char key[64], next[64];
	void *prev = NULL;

	if (key_size > sizeof(key))
		return;
	while (bpf_map_get_next_key(fd, prev, next) == 0) {
		memcpy(key, next, key_size);
		bpf_map_delete_elem(fd, key);
		prev = NULL;   /* restart: the key just deleted cannot lead on */
	}
}

/* --continuous: one stack of the model as a pprof sample standing for
 * its count (frames leaf first again; a key without frames, none). */
static int export_stack(void *arg, uint32_t thread, const uint32_t *ids, size_t n, const struct prof_node *end)
{
	static struct pk_frame fr[2 * PROF_MAX_STACK + 1];
	struct agg *a = arg;
	const struct prof_thread *t = prof_thread(a->p, thread);
	size_t nf = 0;

	if (!end->period)
		return 0;
	for (size_t i = n; i-- > 0 && nf < sizeof(fr) / sizeof(fr[0]);) {
		const struct pk_frame *f = prof_frame(a->p, ids[i]);

		if (!ustack_is_marker(f, USTACK_NO_FRAMES))
			fr[nf++] = *f;
	}
	struct pk_sample smp = {
		.event = "cpu-clock", .comm = t->comm, .pid = t->pid, .tid = t->tid,
		.period = a->period * end->period,   /* the model's period: samples */
		.nr_frames = nf, .frames = fr,
	};
	export_add_n(a->x, &smp, end->period);
	return 0;
}

/* Read and empty map set `set`, write it as one pprof file in o->outdir,
 * drop the oldest files past --max-files.  0 or -errno with a message. */
static int write_interval(struct profile_bpf *skel, const struct profile_opts *o, int set,
			  struct ustack_cache *c, struct cont *cs, int64_t start_unix_ns, int64_t dur_ns)
{
	static uint64_t uips[PROF_MAX_STACK], kips[PROF_MAX_STACK];
	static struct pk_frame frames[2 * PROF_MAX_STACK + 1];
	int counts_fd = bpf_map__fd(set ? skel->maps.counts1 : skel->maps.counts);
	int stack_fd = bpf_map__fd(set ? skel->maps.stackmap1 : skel->maps.stackmap);
	int spill_fd = bpf_map__fd(set ? skel->maps.stackmap1_spill : skel->maps.stackmap_spill);
	struct pk_export *x = export_new();
	struct agg a = { .p = prof_new(PROF_BY_IP), .c = c, .x = x,
			 .period = period_ns(o) };
	struct hashmap bid_done;
	struct prof_bpf_key key, next, *prev = NULL;
	struct prof_bpf_key *keys = NULL;
	size_t nr = 0, alloc = 0;
	__u64 count;
	int err;

	hm_init(&bid_done);
	hm_init(&a.names);
	export_set_labels(x, cs->host);
	export_set_time(x, start_unix_ns, dur_ns);
	while (bpf_map_get_next_key(counts_fd, prev, &next) == 0) {
		if (nr == alloc) {
			alloc = alloc ? 2 * alloc : 256;
			keys = xrealloc(keys, alloc * sizeof(*keys));
		}
		keys[nr++] = next;
		key = next;
		prev = &key;
	}
	for (size_t i = 0; i < nr; i++) {
		const struct prof_bpf_key *k = &keys[i];
		char comm[PROF_TASK_COMM_LEN + 1];
		struct strbuf ec = STRBUF_INIT;
		size_t nf = 0;

		if (bpf_map_lookup_elem(counts_fd, k, &count))
			continue;
		key_frames(&a, (int)k->pid, kips,
			   bpfk_stack_read(stack_fd, spill_fd, k->kern_stack_id, kips, PROF_MAX_STACK), true,
			   frames, &nf, &bid_done);
		key_frames(&a, (int)k->pid, uips,
			   bpfk_stack_read(stack_fd, spill_fd, k->user_stack_id, uips, PROF_MAX_STACK), false,
			   frames, &nf, &bid_done);
		snprintf(comm, sizeof(comm), "%.*s", PROF_TASK_COMM_LEN, k->comm);
		sb_add_term(&ec, comm, strlen(comm));
		if (!nf)
			ustack_marker(&frames[nf++], USTACK_NO_FRAMES, NULL);
		prof_add(a.p, agg_intern(&a, ec.buf), k->pid, k->pid, frames, nf, count);
		sb_release(&ec);
	}
	prof_walk_stacks(a.p, export_stack, &a);
	prof_free(a.p);
	for (size_t i = 0; i < nr; i++)
		bpf_map_delete_elem(counts_fd, &keys[i]);
	clear_map(stack_fd, sizeof(__u32));
	clear_map(spill_fd, sizeof(__u32));
	free(keys);

	/* profile-YYYYmmddTHHMMSS.mmmZ.pb.gz, the interval's start in UTC */
	struct strbuf path = STRBUF_INIT;
	time_t t = (time_t)(start_unix_ns / 1000000000);
	struct tm tm;
	char stamp[32];
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	sb_addf(&path, "%s/profile-%s.%03dZ-%llu.pb.gz", o->outdir, stamp,
		(int)(start_unix_ns / 1000000 % 1000), ++cs->seq);
	err = export_write_pprof(x, path.buf);
	export_free(x);
	hm_release(&a.names);   /* the names the export held */
	hm_release(&bid_done);
	if (err) {
		sb_release(&path);
		return err;
	}
	cs->files = xrealloc(cs->files, (cs->nr_files + 1) * sizeof(*cs->files));
	cs->files[cs->nr_files++] = sb_detach(&path, NULL);
	cs->nr_written++;
	while (o->max_files && cs->nr_files > (size_t)o->max_files) {
		unlink(cs->files[0]);
		free(cs->files[0]);
		memmove(cs->files, cs->files + 1, --cs->nr_files * sizeof(*cs->files));
	}
	return 0;
}

/* --continuous: past this resident size after an interval's file, the
 * symbol tables are dropped too (and reloaded as processes are seen). */
#define CONT_RSS_BUDGET (64ull << 20)

static unsigned long long rss_bytes(void)
{
	unsigned long long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (f) {
		if (fscanf(f, "%llu %llu", &size, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return resident * (unsigned long long)sysconf(_SC_PAGESIZE);
}

static int64_t unix_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* --continuous: sample on, one file per interval, until Ctrl-C (the last,
 * partial interval written too) or the duration. */
static int run_continuous(struct profile_bpf *skel, const struct profile_opts *o,
			  struct ring_buffer *pid_rb, struct ustack_cache **cache)
{
	struct cont cs = { .host = "" };
	unsigned long long end = o->duration > 0 ? bpfk_now_ns() + (unsigned long long)(o->duration * 1e9) : 0;
	int err = 0, seen_fd = bpf_map__fd(skel->maps.pid_seen);
	double renew = 0;

	if (gethostname(cs.host, sizeof(cs.host) - 1))
		snprintf(cs.host, sizeof(cs.host), "unknown");
	for (bool last = false; !last;) {
		int64_t start = unix_ns();
		unsigned long long until = bpfk_now_ns() + (unsigned long long)(o->interval * 1e9);

		while (!bpfk_stopped() && bpfk_now_ns() < until && (!end || bpfk_now_ns() < end)) {
			int n = ring_buffer__poll(pid_rb, 100);
			if (n < 0 && n != -EINTR) {
				err = bpfk_error(n, "polling ring buffer");
				goto out;
			}
			while (!bpfk_stopped() && load_pending(cache))
				ring_buffer__consume(pid_rb);
		}
		last = bpfk_stopped() || (end && bpfk_now_ns() >= end);
		/* samples go to the other set from now on; the programs that
		 * read the old value finish within microseconds */
		int set = skel->bss->active & 1;
		__atomic_store_n(&skel->bss->active, set ^ 1, __ATOMIC_SEQ_CST);
		poll(NULL, 0, 5);
		ring_buffer__consume(pid_rb);
		err = write_interval(skel, o, set, *cache, &cs, start, unix_ns() - start);
		if (err)
			goto out;
		/* the snapshots go after each interval (memory stays bounded),
		 * the symbols every 10 minutes or once the process holds more
		 * than CONT_RSS_BUDGET (ustack.h); every process is announced
		 * again, so the live ones get new snapshots */
		renew += o->interval;
		bool drop = renew >= 600 || rss_bytes() > CONT_RSS_BUDGET;
		ustack_forget_processes(*cache, drop);   /* symbols too: every 10 min, or past the budget */
		if (drop) {
			renew = 0;
			malloc_trim(0);   /* give the freed symbol tables back */
		}
		clear_map(seen_fd, sizeof(__u32));
	}
	fprintf(stderr, "perfkit profile: %llu files written to %s (%zu kept)\n", cs.nr_written,
		o->outdir, cs.nr_files);
out:
	for (size_t i = 0; i < cs.nr_files; i++)
		free(cs.files[i]);
	free(cs.files);
	return err;
}

static int parse_opts(struct profile_opts *o, int argc, char **argv)
{
	enum { OPT_STACKS = 256, OPT_CONT, OPT_INTERVAL, OPT_OUTDIR, OPT_MAXFILES };
	static const struct option longopts[] = {
		{ "frequency", required_argument, NULL, 'F' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 'L' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "count", required_argument, NULL, 'c' },
		{ "folded", no_argument, NULL, 'f' },
		{ "delimited", no_argument, NULL, 'd' },
		{ "annotations", no_argument, NULL, 'a' },
		{ "user-stacks-only", no_argument, NULL, 'U' },
		{ "kernel-stacks-only", no_argument, NULL, 'K' },
		{ "include-idle", no_argument, NULL, 'I' },
		{ "stack-storage-size", required_argument, NULL, OPT_STACKS },
		{ "continuous", no_argument, NULL, OPT_CONT },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "output-dir", required_argument, NULL, OPT_OUTDIR },
		{ "max-files", required_argument, NULL, OPT_MAXFILES },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_interval = false, have_max = false;
	int c, err = 0;
	int64_t v;

	while ((c = getopt_long(argc, argv, "F:p:L:C:c:fdaUKIvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			err = pk_parse_i64("-F", optarg, 1, 100000, &v);
			o->freq = err ? o->freq : (long)v;
			o->freq_set = true;
			break;
		case 'p': err = bpfk_opt_pid("-p", optarg, &o->pid); break;
		case 'L': err = bpfk_opt_pid("-L", optarg, &o->tid); break;
		case 'C':
			err = pk_parse_i64("-C", optarg, 0, 65535, &v);
			o->cpu = err ? o->cpu : (long)v;
			break;
		case 'c':
			err = pk_parse_i64("-c", optarg, 1000, 1000000000000LL, &v);   /* 1 us .. 1000 s */
			o->count = err ? o->count : (long)v;
			break;
		case 'f': o->folded = true; break;
		case 'd': o->delimited = true; break;
		case 'a': o->annotate = true; break;
		case 'U': o->user_only = true; break;
		case 'K': o->kernel_only = true; break;
		case 'I': o->idle = true; break;
		case OPT_STACKS:
			err = pk_parse_i64("--stack-storage-size", optarg, 1, 1 << 24, &v);
			o->stack_storage = err ? o->stack_storage : (long)v;
			break;
		case OPT_CONT: o->continuous = true; break;
		case OPT_INTERVAL:
			err = bpfk_opt_secs("--interval", optarg, &o->interval);
			have_interval = true;
			break;
		case OPT_OUTDIR: o->outdir = optarg; break;
		case OPT_MAXFILES:
			err = pk_parse_i64("--max-files", optarg, 0, 1000000, &v);
			o->max_files = err ? o->max_files : (long)v;
			have_max = true;
			break;
		case 'v': o->verbose = 1; break;
		case 'h': usage(stdout); return -1;
		default: usage(stderr); return 2;
		}
		if (err) {
			fprintf(stderr, "perfkit profile: %s\n", pk_errmsg());
			return 2;
		}
	}
	const char *bad = o->user_only && o->kernel_only ? "-U and -K exclude each other"
		: o->pid && o->tid ? "-p and -L exclude each other"
		: o->count && o->freq_set ? "-F and -c exclude each other"
		: o->continuous && !o->outdir ? "--continuous needs --output-dir DIR"
		: o->continuous && o->folded ? "--continuous writes pprof files: no -f"
		: !o->continuous && (o->outdir || have_interval || have_max)
			? "--output-dir, --interval and --max-files go with --continuous" : NULL;
	if (bad) {
		fprintf(stderr, "perfkit profile: %s\n", bad);
		return 2;
	}
	if (o->continuous && !o->freq_set)
		o->freq = 19;
	c = bpfk_opt_args(argc, argv, optind, "the duration", &o->duration, NULL);
	if (c) {
		fprintf(stderr, "perfkit profile: %s\n", pk_errmsg());
		if (c == -E2BIG)
			usage(stderr);
		return 2;
	}
	return 0;
}

int cmd_profile(int argc, char **argv)
{
	struct profile_opts o = { .freq = 49, .cpu = -1, .interval = 60, .max_files = 60 };
	struct profile_bpf *skel = NULL;
	struct bpf_link **links = NULL;
	int *fds = NULL, ncpu = 0, err, ret = 1;
	struct ustack_cache *cache = NULL;
	struct ring_buffer *pid_rb = NULL;

	err = parse_opts(&o, argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	cache = ustack_cache_new();
	if (o.continuous && mkdir(o.outdir, 0755) && errno != EEXIST) {
		pk_error(errno, "--output-dir '%s': %s", o.outdir, strerror(errno));
		goto fail;
	}
	if (bpfk_check_tid(o.tid) || bpfk_check_pid(o.pid) || bpfk_start(o.verbose, NULL, NULL, NULL))
		goto fail;

	skel = profile_bpf__open();
	if (!skel) {
		bpfk_error(errno, "opening BPF skeleton");
		goto fail;
	}
	skel->rodata->targ_tgid = (__u32)o.pid;
	skel->rodata->targ_tid = (__u32)o.tid;
	skel->rodata->user_only = o.user_only;
	skel->rodata->kernel_only = o.kernel_only;
	skel->rodata->include_idle = o.idle;
	if (o.stack_storage) {
		uint32_t n = bpfk_stack_buckets((uint32_t)o.stack_storage);
		uint32_t spill = bpfk_stack_spill_size(n);

		bpf_map__set_max_entries(skel->maps.stackmap, n);
		bpf_map__set_max_entries(skel->maps.stackmap1, n);
		bpf_map__set_max_entries(skel->maps.stackmap_spill, spill);
		bpf_map__set_max_entries(skel->maps.stackmap1_spill, spill);
	}
	if (!o.continuous) {   /* one map set is all it uses */
		bpf_map__set_max_entries(skel->maps.stackmap1, 1);
		bpf_map__set_max_entries(skel->maps.stackmap1_spill, 1);
		bpf_map__set_max_entries(skel->maps.counts1, 1);
	}
	if (bpfk_load_attach(skel->skeleton, NULL) ||   /* attached by hand: perf events */
	    !(pid_rb = bpfk_ring_new(skel->maps.pid_events, on_pid_seen, &cache)))
		goto fail;

	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		bpfk_error(ncpu, "counting CPUs");
		goto fail;
	}
	if (o.cpu >= ncpu) {
		pk_error(EINVAL, "-C %ld: this machine's CPUs are 0 to %d", o.cpu, ncpu - 1);
		goto fail;
	}
	fds = xcalloc((size_t)ncpu, sizeof(*fds));
	links = xcalloc((size_t)ncpu, sizeof(*links));
	int attached = 0;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct perf_event_attr attr;

		fds[cpu] = -1;
		if (o.cpu >= 0 && cpu != o.cpu)
			continue;
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		attr.sample_period = period_ns(&o);
		fds[cpu] = cap_perf_event_open(&attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fds[cpu] < 0) {
			int oerr = -fds[cpu];

			fds[cpu] = -1;
			if (oerr == ENODEV && o.cpu < 0)   /* offline CPU */
				continue;
			if (oerr == ENODEV) {
				pk_error(ENODEV, "-C %ld: that CPU is offline", o.cpu);
				goto fail;
			}
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
	/* bcc's line: "... stack for 3 secs." with a duration, else "... Hit Ctrl-C to end." */
	if (o.count)
		fprintf(stderr, "Sampling every %ld cpu-clock ns", o.count);
	else
		fprintf(stderr, "Sampling at %ld Hertz", o.freq);
	fprintf(stderr, " of %s by %s stack", o.pid ? "one process" : o.tid ? "one thread" : "all threads",
		o.user_only ? "user" : o.kernel_only ? "kernel" : "user + kernel");
	if (o.cpu >= 0)
		fprintf(stderr, " on CPU#%ld", o.cpu);
	if (o.continuous)
		fprintf(stderr, ", one pprof file an interval... Hit Ctrl-C to end.\n");
	else if (o.duration > 0)
		fprintf(stderr, " for %g secs.\n", o.duration);
	else
		fprintf(stderr, "... Hit Ctrl-C to end.\n");
	if (o.continuous) {
		if (run_continuous(skel, &o, pid_rb, &cache))
			goto fail;
		ret = 0;
		goto out;
	}
	/* processes seen: snapshot them, load their files' symbols between batches */
	if (bpfk_poll_ring_work(pid_rb, o.duration, load_pending, &cache))
		goto fail;

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
			"not collected (shown as [Missed ... Stack] frames; for EEXIST, try a bigger "
			"--stack-storage-size)", d, ue, ke);
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
