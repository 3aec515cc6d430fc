/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit top — live sampling, system-wide (one event per online CPU) or of
 * one process (-p: one event per thread), shown as a table of the hottest
 * functions of the last -d seconds: a full-screen ncurses view, or plain
 * text blocks with --stdio (also when stdout is not a terminal).
 *
 * How: events opened and drained with capture/capture.h (freq sampling of
 * IP|TID|TIME|PERIOD, mmap/comm/task side-band, kernel samples dropped to
 * user space only when not permitted); existing processes are described
 * by the side-band perf record synthesizes from /proc (MMAP2, a COMM per
 * thread).  One session (session/session.h) lives as long as top: every
 * -d seconds the records drained since the last refresh are fed to it
 * (session_feed) and resolved with the symbol cache it keeps, so top
 * names functions exactly as perfkit report does, loads each DSO's
 * symbols once, and writes no file; exited threads are dropped from it
 * after each refresh (session_trim).  A window's samples aggregate in a
 * fresh model (profile/profile.h): the window's rows and, with -g, its
 * call graphs are derived from it, and it is freed before session_trim
 * (its frames name the session's DSOs and symbols; the table and the
 * graphs keep copies of the names).
 * History decays as in perf top: at each refresh every function's period
 * is multiplied by 7/8 (perf's hists__decay_entries()) before the new
 * window's samples are added, and a function whose period reaches 0 is
 * dropped; -z (--zero) shows only the last window instead.
 * Keys (the full-screen view: report's browser, src/lib/tui, live): z, f,
 * d, a, s, e as perf top's, '?' lists them, q quits.  SIGINT/SIGTERM end it cleanly; -p ends
 * when the process exits; -n N ends after N refreshes.
 */
#include "cmd/cmds.h"

#include "base/error.h"
#include "base/parse.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "capture/capture.h"
#include "event/event.h"
#include "perfdata/perfdata.h"
#include "session/session.h"
#include "callgraph/callgraph.h"
#include "annotate/annotate.h"
#include "base/arena.h"
#include "profile/profile.h"
#include "symbol/inline.h"
#include "tui/tui.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>


#define TOP_RING_PAGES 128

struct top_row {
	const char *dso, *sym;   /* interned, escaped for the terminal (shown) */
	const char *kdso, *ksym; /* interned, as the session gave them (the row's key) */
	bool kernel;
	uint64_t start;          /* the symbol's address: overloads stay apart */
	uint64_t period;
};

/* A row's key: DSO, kernel flag, symbol name and start, as report keys
 * rows by symbol. */
static size_t row_key(char *key, size_t size, const char *dso, bool kernel, const char *sym,
		      uint64_t start)
{
	int n = snprintf(key, size, "%s%c%c%" PRIx64 "%c%s", dso, 0, kernel ? 'k' : '.', start, 0, sym);

	return n < 0 || (size_t)n >= size ? size - 1 : (size_t)n;
}

struct top {
	struct perf_event_attr attr;
	const char *event;
	unsigned freq;
	pid_t pid;
	double delay;
	bool stdio;
	long iterations;
	struct cap_events ce;
	pid_t *tids;
	int *cpus;
	struct session *session;   /* lives as long as top */
	struct strbuf pend;        /* records drained since the last refresh */
	uint64_t lost;
	/* the table: decayed history, or the last window only with -z */
	bool zero;
	bool user_only;         /* perf_event_paranoid > 1: user space only */
	struct hashmap strings, keys;   /* key → row index + 1 */
	struct top_row *rows;           /* first seen first */
	size_t nr_rows, alloc_rows;
	size_t *order;                  /* rows by period, for display */
	uint64_t nr_samples, total;     /* this window's samples; the table's period */
	double last_build;              /* CLOCK_MONOTONIC s of the last refresh, 0: none */
	double win_s;                   /* this window's length (s): the time since the
					   last refresh, which can exceed the delay */
	bool no_color;          /* --no-color (the browser) */
	bool graph;             /* -g: call chains sampled, a call graph per row */
	struct cg_forest *cg;   /* -g: the last window's stacks (tags: rows) */
	uint32_t *trees;        /* -g: per row, its tree of the last window (0: none) */
	uint64_t win_period;    /* -g: the last window's period (the graphs' 100 %) */
	struct prof *win;       /* the window's samples, while it is fed (profile.h) */
	/* the browser's annotation: the last window's samples by function */
	struct ann_builder *annb;       /* while a window is fed */
	struct ann_profile **ann;       /* the last window's, per event */
	size_t nr_ann;
	bool want_ann;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int top_browse(struct top *t, bool color);

static void usage(FILE *fp)
{
	fprintf(fp, "usage: perfkit top [-F HZ] [-p PID] [-e EVENT] [-d SECS] [--stdio] [-n COUNT]\n"
		    "  -F, --freq HZ        samples per second per CPU (default 4000)\n"
		    "  -p, --pid PID        only this process (default: system-wide)\n"
		    "  -e, --event EVENT    event to sample (default cpu-clock)\n"
		    "  -d, --delay SECS     refresh period; the table covers the last SECS (default 2)\n"
		    "      --stdio          plain text, one table per refresh (default when stdout is no terminal)\n"
		    "  -n, --iterations N   stop after N refreshes\n"
		    "  -z, --zero           show the last window only (default: history decaying by 7/8 per refresh)\n"
		    "  -g, --call-graph     sample call chains: each row's call graph (the last window's) in the\n"
		    "                       full-screen view (Enter, e)\n"
		    "      --no-color       no colours in the full-screen view (also when NO_COLOR is set)\n"
		    "  Keys (full-screen view, the browser of perfkit report): z zero the history, f freeze,\n"
		    "  d DSO filter, a annotate, s sort keys, e expand call graphs, / search, ? help, q quit.\n");
}

/* ---- capture ---- */

static int keep_record(void *arg, const struct perf_event_header *h)
{
	struct top *t = arg;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		sb_add(&t->pend, h, h->size);
		break;
	case PERF_RECORD_LOST:
		if (h->size >= 24) {
			uint64_t v;

			memcpy(&v, (const uint8_t *)h + 16, 8);
			t->lost += v;
		}
		break;
	default:
		break;
	}
	return 0;
}

static int open_events(struct top *t)
{
	static const pid_t any_thread = -1;
	size_t nr_cpus = 1, nr_tids = 1;
	int err;

	if (t->pid) {
		err = cap_list_threads(t->pid, &t->tids, &nr_tids);
		if (err)
			return pk_error(ESRCH, "no process %d", (int)t->pid);
	}
	/* -p too: each thread's event on every CPU, one ring a CPU (as
	 * record -p).  Events of several threads on "any CPU" cannot share
	 * a ring (the kernel refuses PERF_EVENT_IOC_SET_OUTPUT between task
	 * contexts: EINVAL for every multithreaded process) */
	cap_online_cpus(&t->cpus, &nr_cpus);
	t->ce.attrs = &t->attr;
	t->ce.nr_ev = 1;
	t->ce.tids = t->pid ? t->tids : &any_thread;
	t->ce.nr_tids = nr_tids;
	t->ce.cpus = t->cpus;
	t->ce.nr_cpus = nr_cpus;
	t->ce.pages = TOP_RING_PAGES;
	t->ce.skip_gone = true;
	err = cap_events_open(&t->ce);
	t->user_only = t->ce.user_only;   /* said on the header line */
	if (t->ce.cpu_clock_fallback)     /* cycles without a PMU, as perf top */
		t->event = "cpu-clock";
	if (!err || !t->ce.failed_open)
		return err;
	int pmu = ev_pmu_error(&t->attr, t->event, -err);
	if (pmu)
		return pmu;
	if (t->pid)
		return pk_error(-err, "cannot sample thread %d of %d: %s", (int)t->tids[t->ce.fail_tid],
				(int)t->pid, strerror(-err));
	return pk_error(-err, "cannot sample %s on CPU %d: %s", t->event, t->cpus[t->ce.fail_cpu],
			strerror(-err));
}

/* ---- the table ---- */

static const char *dso_short(const char *dso)
{
	const char *slash = dso && dso[0] == '/' ? strrchr(dso, '/') : NULL;

	return slash ? slash + 1 : dso ? dso : "[unknown]";
}

/* A window's sample goes to its model (the leaf only without -g; one
 * thread: top's rows and graphs do not key by thread). */
static int on_sample(const struct pk_sample *s, void *arg)
{
	struct top *t = arg;

	t->nr_samples++;
	t->total += s->period;
	if (t->annb)
		ann_builder_add(t->annb, s);
	if (!s->nr_frames)
		return 0;
	prof_add(t->win, "", 0, 0, s->frames, t->graph ? s->nr_frames : 1, s->period);
	if (t->graph)
		t->win_period += s->period;
	return 0;
}

/* PROF_SRCLINE's value: an unknown frame's address (top shows one row per
 * address), nothing for a symbol. */
static const void *unknown_ip(void *arg, const struct pk_frame *fr)
{
	(void)arg;
	return fr->sym ? NULL : (const void *)(uintptr_t)fr->ip;
}

/* The row of a model's frame in the table (made if new): its index. */
static size_t table_row(struct top *t, const struct pk_frame *fr)
{
	char key[1024], addr[32];
	const char *sym = fr->sym;
	uint64_t start = pk_frame_sym_start(fr);
	struct hm_entry *e;
	int created;

	if (!sym) {
		snprintf(addr, sizeof(addr), "%#.16" PRIx64, fr->ip);
		sym = addr;
	}
	e = hm_upsert(&t->keys, key, row_key(key, sizeof(key), dso_short(fr->dso), fr->kernel, sym, start),
		      &created);
	if (created) {
		struct top_row *r;

		if (t->nr_rows == t->alloc_rows) {
			t->alloc_rows = t->alloc_rows ? t->alloc_rows * 2 : 256;
			t->rows = xrealloc(t->rows, t->alloc_rows * sizeof(*t->rows));
		}
		r = &t->rows[t->nr_rows];
		r->kdso = hm_intern(&t->strings, dso_short(fr->dso), strlen(dso_short(fr->dso)));
		r->ksym = hm_intern(&t->strings, sym, strlen(sym));
		/* shown escaped: a name must not break the row or drive the terminal */
		struct strbuf esc = STRBUF_INIT;
		sb_add_term(&esc, dso_short(fr->dso), strlen(dso_short(fr->dso)));
		r->dso = hm_intern(&t->strings, esc.buf, esc.len);
		sb_reset(&esc);
		sb_add_term(&esc, sym, strlen(sym));
		r->sym = hm_intern(&t->strings, esc.buf, esc.len);
		sb_release(&esc);
		r->kernel = fr->kernel;
		r->start = start;
		r->period = 0;
		e->val.u = ++t->nr_rows;
	}
	return e->val.u - 1;
}

/* The window's model into the table: its rows (DSO, symbol; an unknown
 * frame per address: finer than or as fine as the table's key, which
 * merges the rest) add their Self to the table's rows; with -g, its stacks
 * into t->cg, each tagged with its table row where samples end there, the
 * frames' names copied to t->strings (the session's may go with
 * session_trim after the window). */
/* A call-graph frame's names copied into top's strings: the forest
 * outlives the window's model and the session's trimmed names. */
static void copy_names(void *arg, struct cg_frame *cf)
{
	struct top *t = arg;

	cf->sym = cf->sym ? hm_intern(&t->strings, cf->sym, strlen(cf->sym)) : NULL;
	cf->dso = hm_intern(&t->strings, cf->dso, strlen(cf->dso));
}

static void window_to_table(struct top *t)
{
	static const enum prof_key keys[] = { PROF_DSO, PROF_SYM, PROF_SRCLINE };
	struct prof_rows pr;
	uint32_t *top_of;

	prof_rows_make(t->win, keys, 3, false, unknown_ip, NULL, &pr);
	top_of = xmalloc((pr.nr + 1) * sizeof(*top_of));
	for (size_t i = 0; i < pr.nr; i++) {
		top_of[i] = (uint32_t)table_row(t, prof_frame(t->win, pr.v[i].frame));
		t->rows[top_of[i]].period += pr.v[i].self;
	}
	if (t->graph)   /* the stacks, tagged with top's rows */
		prof_cg_load_with(t->win, &pr, top_of, copy_names, t, t->cg);
	free(top_of);
	prof_rows_free(&pr);
}

static const struct top_row *sort_rows;

static int cmp_rows(const void *a, const void *b)
{
	const struct top_row *x = &sort_rows[*(const size_t *)a], *y = &sort_rows[*(const size_t *)b];

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return strcmp(x->sym, y->sym);
}

/* Start a refresh: with -z forget everything; else decay every row by 7/8
 * and drop those that reach 0 (the key map is rebuilt over the survivors). */
static void decay_rows(struct top *t)
{
	size_t n = 0;

	t->nr_samples = 0;
	t->total = 0;
	hm_release(&t->keys);
	hm_init(&t->keys);
	if (t->zero) {
		t->nr_rows = 0;
		return;
	}
	for (size_t i = 0; i < t->nr_rows; i++) {
		struct top_row r = t->rows[i];
		char key[1024];

		r.period = r.period * 7 / 8;
		if (!r.period)
			continue;
		/* the raw names, as table_row keys them (an escaped name differs:
		 * its row came again as a new one each refresh) */
		hm_upsert(&t->keys, key, row_key(key, sizeof(key), r.kdso, r.kernel, r.ksym, r.start),
			  NULL)->val.u = n + 1;
		t->total += r.period;
		t->rows[n++] = r;
	}
	t->nr_rows = n;
	/* names of rows long decayed (addresses of short-lived processes)
	 * would pile up: keep only the live rows' names */
	if (t->strings.nr > 4 * n + 1024) {
		struct hashmap live;

		hm_init(&live);
		for (size_t i = 0; i < n; i++) {
			t->rows[i].dso = hm_intern(&live, t->rows[i].dso, strlen(t->rows[i].dso));
			t->rows[i].sym = hm_intern(&live, t->rows[i].sym, strlen(t->rows[i].sym));
			t->rows[i].kdso = hm_intern(&live, t->rows[i].kdso, strlen(t->rows[i].kdso));
			t->rows[i].ksym = hm_intern(&live, t->rows[i].ksym, strlen(t->rows[i].ksym));
		}
		hm_release(&t->strings);
		t->strings = live;
	}
}

static void free_ann(struct top *t)
{
	for (size_t i = 0; i < t->nr_ann; i++)
		ann_profile_free(t->ann[i]);
	free(t->ann);
	t->ann = NULL;
	t->nr_ann = 0;
}

static int skip_sample(const struct pk_sample *s, void *arg)
{
	(void)s;
	(void)arg;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Resolve the records drained since the last refresh in top's session. */
static int build_table(struct top *t)
{
	double now = now_s();
	int err;

	t->win_s = t->last_build > 0 ? now - t->last_build : t->delay;
	t->last_build = now;
	decay_rows(t);
	if (t->want_ann) {
		static const struct ann_filter none = { 0 };   /* the builder keeps the pointer */

		t->annb = ann_builder_new(&none);
	}
	if (t->graph) {   /* the window's call graphs (the frames' names live in t->strings) */
		cg_forest_free(t->cg);
		t->cg = cg_forest_new();
		t->win_period = 0;
	}
	t->win = prof_new(0);
	err = session_feed(t->session, t->pend.buf, t->pend.len, true, on_sample, t);
	if (err >= 0)
		window_to_table(t);
	prof_free(t->win);   /* before session_trim: its frames name the session's */
	t->win = NULL;
	if (t->graph && err >= 0) {   /* each row's tree: the stacks whose leaf it is, callee first */
		free(t->trees);
		t->trees = xcalloc(t->nr_rows + 1, sizeof(*t->trees));
		for (size_t i = 0; i < t->nr_rows; i++)
			t->trees[i] = cg_tree_new(t->cg);
		cg_trees_from_stacks(t->cg, t->trees, t->nr_rows, CG_CALLEE, false, 0);
	}
	sb_reset(&t->pend);
	if (t->annb) {
		free_ann(t);
		if (ann_builder_finish(t->annb, session_pd_file(t->session), &t->ann, &t->nr_ann) < 0) {
			t->ann = NULL;
			t->nr_ann = 0;
		}
		t->annb = NULL;
	}
	session_trim(t->session);
	(void)pk_warnings_take();
	if (err < 0)
		return err;
	t->order = xrealloc(t->order, (t->nr_rows ? t->nr_rows : 1) * sizeof(*t->order));
	for (size_t i = 0; i < t->nr_rows; i++)
		t->order[i] = i;
	sort_rows = t->rows;
	qsort(t->order, t->nr_rows, sizeof(*t->order), cmp_rows);
	return 0;
}

static void show_stdio(struct top *t, size_t max_rows)
{
	printf("# perfkit top: %" PRIu64 " samples of %s in the last %.1f s%s, %s", t->nr_samples, t->event,
	       t->win_s, t->zero ? "" : " (history decaying by 7/8 per refresh)", t->pid ? "process " : "system-wide");
	if (t->pid)
		printf("%d", (int)t->pid);
	if (t->lost)
		printf(", %" PRIu64 " lost", t->lost);
	if (t->user_only)
		printf(", user space only (perf_event_paranoid)");
	/* the Shared Object column as wide as its widest shown name (at
	 * least 20), so that the Symbol column stays aligned, as perf top's */
	int w = 20;
	for (size_t i = 0; i < t->nr_rows && i < max_rows; i++) {
		size_t len = strlen(t->rows[t->order[i]].dso);
		if (len > (size_t)w && len < 4096)
			w = (int)len;
	}
	printf("\n# Overhead  %-*s  Symbol\n", w, "Shared Object");
	for (size_t i = 0; i < t->nr_rows && i < max_rows; i++) {
		const struct top_row *r = &t->rows[t->order[i]];

		printf("%9.2f%%  %-*s  [%c] %s\n", t->total ? 100.0 * (double)r->period / (double)t->total : 0.0,
		       w, r->dso, r->kernel ? 'k' : '.', r->sym);
	}
	printf("\n");
	fflush(stdout);
}

static int parse_args(struct top *t, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "freq", required_argument, NULL, 'F' },
		{ "pid", required_argument, NULL, 'p' },
		{ "event", required_argument, NULL, 'e' },
		{ "delay", required_argument, NULL, 'd' },
		{ "stdio", no_argument, NULL, 'S' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "zero", no_argument, NULL, 'z' },
		{ "no-color", no_argument, NULL, 'K' },
		{ "call-graph", no_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool freq_given = false;
	int64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "F:p:e:d:n:zgh", opts, NULL)) != -1) {
		switch (c) {
		case 'F':
			if (pk_parse_i64("-F", optarg, 1, 1000000, &v)) {
				fprintf(stderr, "perfkit top: %s\n", pk_errmsg());
				return 2;
			}
			t->freq = (unsigned)v;
			freq_given = true;
			break;
		case 'p':
			if (pk_parse_i64("-p", optarg, 1, INT_MAX, &v)) {
				fprintf(stderr, "perfkit top: %s\n", pk_errmsg());
				return 2;
			}
			t->pid = (pid_t)v;
			break;
		case 'e': t->event = optarg; break;
		case 'd':
			if (pk_parse_double("-d", optarg, 0.1, 3600, &t->delay)) {
				fprintf(stderr, "perfkit top: %s\n", pk_errmsg());
				return 2;
			}
			break;
		case 'S': t->stdio = true; break;
		case 'z': t->zero = true; break;
		case 'K': t->no_color = true; break;
		case 'g': t->graph = true; break;
		case 'n':
			if (pk_parse_i64("-n", optarg, 1, INT64_MAX, &v)) {
				fprintf(stderr, "perfkit top: %s\n", pk_errmsg());
				return 2;
			}
			t->iterations = (long)v;
			break;
		case 'h': usage(stdout); return -1;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "perfkit top: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (ev_parse(t->event, &t->attr)) {
		fprintf(stderr, "perfkit top: %s\n", pk_errmsg());   /* with a "did you mean" */
		return 2;
	}
	/* as perf top (record_opts__config_freq): above the kernel's maximum,
	 * the frequency is lowered to it, with perf's warning for a given -F */
	unsigned max;
	if (ev_max_sample_rate(&max) == 0 && t->freq > max) {
		if (freq_given)
			fprintf(stderr, "perfkit top: warning: Maximum frequency rate (%u Hz) exceeded, throttling from %u Hz to %u Hz.\n"
				"         The limit can be raised via /proc/sys/kernel/perf_event_max_sample_rate.\n"
				"         The kernel will lower it when perf's interrupts take too long.\n",
				max, t->freq, max);
		else
			fprintf(stderr, "perfkit top: Lowering default frequency rate from %u to %u.\n"
				"Please consider tweaking /proc/sys/kernel/perf_event_max_sample_rate.\n",
				t->freq, max);
		t->freq = max;
	}
	return 0;
}

static void top_release(struct top *t)
{
	cap_events_close(&t->ce);
	free(t->tids);
	free(t->cpus);
	session_close(t->session);
	sb_release(&t->pend);
	hm_release(&t->keys);
	hm_release(&t->strings);
	free(t->rows);
	free(t->order);
	free(t->trees);
	cg_forest_free(t->cg);
	free_ann(t);
}

int cmd_top(int argc, char **argv)
{
	struct top t = { .event = "cpu-clock", .freq = 4000, .delay = 2.0 };
	struct sigaction sa;
	double next;
	long shown = 0;
	int err = 0, rc;

	rc = parse_args(&t, argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	t.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			     (t.graph ? PERF_SAMPLE_CALLCHAIN : 0);
	t.attr.freq = 1;
	t.attr.sample_freq = t.freq;
	t.attr.sample_id_all = 1;
	t.attr.mmap = 1;
	t.attr.comm = 1;
	t.attr.task = 1;
	t.attr.wakeup_events = 1;
	sb_init(&t.pend, 1 << 16);
	hm_init(&t.strings);
	hm_init(&t.keys);
	pk_error_clear();
	err = open_events(&t);
	if (!err)
		err = session_open_attrs(&t.session, "top", &t.attr, &t.event, 1, NULL);
	if (err) {
		fprintf(stderr, "perfkit top: %s\n", pk_errmsg());
		top_release(&t);
		return 1;
	}
	struct cap_synth sy = { t.attr.sample_type, 0, keep_record, &t };
	if (t.pid)
		cap_synth_process(&sy, t.pid);
	else
		cap_synth_all(&sy);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);    /* a closed pipe ends top cleanly */
	if (!t.stdio && !isatty(STDOUT_FILENO))
		t.stdio = true;
	if (!t.stdio) {   /* the browser (src/lib/tui), else text */
		const char *nc = getenv("NO_COLOR");

		err = top_browse(&t, !t.no_color && !(nc && *nc));
		if (err != 1) {
			if (err)
				fprintf(stderr, "perfkit top: %s\n", pk_errmsg());
			top_release(&t);
			return err ? 1 : 0;
		}
		err = 0;
		t.stdio = true;
	}
	next = now_s() + t.delay;
	bool ended = false;
	while (!stop) {
		ended = t.pid && kill(t.pid, 0) < 0 && errno == ESRCH;

		poll(NULL, 0, 100);
		cap_drain(&t.ce, keep_record, &t, NULL);
		if (now_s() < next && !ended)
			continue;
		next += t.delay;
		err = build_table(&t);
		if (err)
			break;
		show_stdio(&t, 25);
		if (ferror(stdout))
			break;
		if (ended || (t.iterations && ++shown >= t.iterations))
			break;
	}
	if (err)
		fprintf(stderr, "perfkit top: %s\n", pk_errmsg());
	else if (ended)
		fprintf(stderr, "perfkit top: process %d exited\n", (int)t.pid);
	top_release(&t);
	return err ? 1 : 0;
}

/* ---- on a terminal: the browser (src/lib/tui), live ----
 * Every tick drains the rings; every -d seconds the table is rebuilt
 * (build_table) and handed to the browser.  Keys of perf top: z zeroes
 * the history (toggle), f freezes the view; the browser's own: d DSO
 * filter, a annotate (the last window's samples), s sort keys (dso,sym,
 * sym or dso), e expand every call graph (top samples no call chains:
 * rows have none), / search, P, ?. */
struct top_tui {
	struct top *t;
	double next;
	long shown;
	bool frozen, ended;
	int err;
	int group;                    /* 0: dso,sym  1: sym  2: dso */
	struct tui_table tab;
	struct tui_row *rows;
	size_t *ridx;                 /* table row -> t->rows index (SIZE_MAX: merged) */
	struct pk_arena texts;
	char title[512], sort[32], status[128];
};

static void tt_fill(struct top_tui *tt)
{
	struct top *t = tt->t;
	size_t n = 0;

	pk_arena_release(&tt->texts);
	tt->rows = xrealloc(tt->rows, (t->nr_rows + 1) * sizeof(*tt->rows));
	tt->ridx = xrealloc(tt->ridx, (t->nr_rows + 1) * sizeof(*tt->ridx));
	for (size_t i = 0; i < t->nr_rows; i++) {
		const struct top_row *r = &t->rows[t->order[i]];
		struct tui_row *m = NULL;

		if (tt->group == 2)   /* one row per DSO */
			for (size_t j = 0; j < n && !m; j++)
				if (!strcmp(tt->rows[j].dso, r->dso))
					m = &tt->rows[j];
		if (m) {
			m->self += r->period;
			tt->ridx[m - tt->rows] = SIZE_MAX;
			continue;
		}
		tt->ridx[n] = t->order[i];
		m = &tt->rows[n++];
		*m = (struct tui_row){ .self = r->period, .dso = r->dso, .sym = tt->group == 2 ? NULL : r->sym,
				       .has_graph = t->trees && tt->group != 2 && t->trees[t->order[i]] };
		size_t len = strlen(r->sym) + 5;
		char *s = pk_arena_alloc(&tt->texts, len);

		snprintf(s, len, "[%c] %s", r->kernel ? 'k' : '.', r->sym);
		m->text[0] = tt->group == 1 ? s : r->dso;
		m->text[1] = s;
	}
	tt->tab = (struct tui_table){ .title = tt->title, .sort = tt->sort, .nr_keys = tt->group ? 1 : 2,
				      .total = t->total, .rows = tt->rows, .nr_rows = n, .no_threads = true };
	tt->tab.headers[0] = tt->group == 1 ? "Symbol" : "Shared Object";
	tt->tab.headers[1] = "Symbol";
	tt->tab.kind[0] = tt->group == 1 ? 's' : 'd';   /* a DSO zoom hides its column, and stays after 's' */
	tt->tab.kind[1] = 's';
	snprintf(tt->title, sizeof(tt->title), "perfkit top: %" PRIu64 " samples of %s in the last %.1f s%s, %s%.0d%s%s",
		 t->nr_samples, t->event, t->win_s, t->zero ? "" : " (decaying)", t->pid ? "process " : "system-wide",
		 (int)t->pid, t->lost ? ", samples lost" : "", t->user_only ? ", user space only (perf_event_paranoid)" : "");
}

static int tt_graph(void *ctx, size_t i, bool children, FILE *fp)
{
	struct top_tui *tt = ctx;
	struct top *t = tt->t;
	static const struct cg_params p = { .mode = CG_GRAPH, .order = CG_CALLEE, .threshold = 0.5 };

	(void)children;
	if (i < tt->tab.nr_rows && tt->ridx[i] != SIZE_MAX && t->trees && t->trees[tt->ridx[i]])
		cg_tree_print(fp, t->cg, t->trees[tt->ridx[i]], &p, t->win_period, t->win_period);
	return 0;
}

static int tt_tick(void *ctx)
{
	struct top_tui *tt = ctx;
	struct top *t = tt->t;

	if (stop)
		return -1;
	tt->ended = t->pid && kill(t->pid, 0) < 0 && errno == ESRCH;
	cap_drain(&t->ce, keep_record, t, NULL);
	if (now_s() < tt->next && !tt->ended)
		return 0;
	tt->next += t->delay;
	if (tt->frozen) {   /* the view holds still; the window's samples go, its side-band stays */
		session_feed(t->session, t->pend.buf, t->pend.len, true, skip_sample, NULL);
		sb_reset(&t->pend);
		session_trim(t->session);
		(void)pk_warnings_take();
		return tt->ended ? -1 : 0;
	}
	tt->err = build_table(t);
	if (tt->err)
		return -1;
	tt_fill(tt);
	if (tt->ended || (t->iterations && ++tt->shown >= t->iterations))
		return -1;
	return 1;
}

static int tt_key(void *ctx, int key, size_t sel)
{
	struct top_tui *tt = ctx;

	(void)sel;
	if (key == 'z')
		tt->t->zero = !tt->t->zero;
	else if (key == 'f')
		tt->frozen = !tt->frozen;
	else
		return 0;
	return 1;
}

static const char *tt_status(void *ctx)
{
	struct top_tui *tt = ctx;

	snprintf(tt->status, sizeof(tt->status), "%s%s", tt->frozen ? "[frozen: f]  " : "",
		 tt->t->zero ? "[last window only: z]" : "[history decaying: z]");
	return tt->status;
}

static int tt_regroup(void *ctx, const char *keys, bool children)
{
	struct top_tui *tt = ctx;
	int g = !strcmp(keys, "dso,sym") ? 0 : !strcmp(keys, "sym") ? 1 : !strcmp(keys, "dso") ? 2 : -1;

	if (children)   /* '+': rows of the samples' own functions only */
		return pk_error(-EINVAL, "top has no Children view (its rows are Self only)");
	if (g < 0)
		return pk_error(-EINVAL, "top's sort keys: dso,sym, sym or dso (not '%s')", keys);
	tt->group = g;
	snprintf(tt->sort, sizeof(tt->sort), "%s", keys);
	tt_fill(tt);
	return 0;
}

/* The last window's samples of row i's function (kept by the refresh
 * that built the table: t->ann). */
static int tt_annotate(void *ctx, size_t i, FILE *fp)
{
	struct top_tui *tt = ctx;
	struct top *t = tt->t;
	const struct tui_row *row = &tt->tab.rows[i];
	const struct ann_profile *p = t->nr_ann ? t->ann[0] : NULL;
	const struct ann_func *f = NULL;
	struct strbuf sb = STRBUF_INIT;
	int err;

	for (size_t k = 0; p && k < p->nr_funcs && !f; k++) {
		const struct ann_func *a = p->funcs[k];

		sb_reset(&sb);
		if (a->sym)
			sb_add_term(&sb, a->sym, strlen(a->sym));
		if (a->sym && !strcmp(sb.buf, row->sym) && !strcmp(dso_short(a->dso), row->dso))
			f = a;
	}
	sb_release(&sb);
	const char *file = !f ? NULL : f->kernel ? "/proc/kcore" : session_dso_file(t->session, f->dso);

	if (!f)
		err = pk_error(-ENOENT, "no samples of %s in the last window", row->sym);
	else if (!file)
		err = pk_error(-ENOENT, "%s: no file to read", row->dso);
	else {
		struct inline_resolver *inl = inline_resolver_new();

		err = tui_annotate_text(fp, p, f, file, inl);   /* with source lines */
		inline_resolver_free(inl);
	}
	return err;
}

/* 1: no browser here (--stdio instead); else 0 or -errno. */
static int top_browse(struct top *t, bool color)
{
	static const struct tui_ops ops = { .graph = tt_graph, .annotate = tt_annotate, .regroup = tt_regroup, .tick = tt_tick,
					    .key = tt_key, .status = tt_status };
	struct top_tui tt = { .t = t, .next = now_s() + t->delay, .texts = PK_ARENA_INIT };
	struct tui_opts o = { .color = color, .tick_ms = 100, .sort_keys = "dso,sym, sym or dso",
			      .help_extra = "perf top's keys\n\n"
					    "  z                zero the history: show the last window only (toggle)\n"
					    "  f                freeze the view (toggle); sampling goes on\n"
					    "  d                DSO filter: the selected row's DSO (again: all)\n"
					    "  e                expand every call graph (with -g; toggle)\n"
					    "  a                annotate the selected symbol (the last window's samples)\n"
					    "  s                sort keys: dso,sym, sym or dso\n" };
	int err;

	if (!tui_usable())
		return 1;
	t->want_ann = true;
	snprintf(tt.sort, sizeof(tt.sort), "dso,sym");
	tt_fill(&tt);
	err = tui_browse(&tt.tab, &ops, &tt, &o);
	free(tt.rows);
	free(tt.ridx);
	pk_arena_release(&tt.texts);
	if (err == -ENOTTY || err == -EOPNOTSUPP)
		return 1;
	if (tt.err)
		return tt.err;
	if (!err && tt.ended)
		fprintf(stderr, "perfkit top: process %d exited\n", (int)t->pid);
	return err;
}
