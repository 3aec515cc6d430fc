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
 * after each refresh (session_trim).
 * History decays as in perf top: at each refresh every function's period
 * is multiplied by 7/8 (perf's hists__decay_entries()) before the new
 * window's samples are added, and a function whose period reaches 0 is
 * dropped; -z (--zero) shows only the last window instead.
 * Keys (ncurses view): q quits.  SIGINT/SIGTERM end it cleanly; -p ends
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

#ifndef PERFKIT_NO_NCURSES
#include <curses.h>
#endif

#define TOP_RING_PAGES 128

struct top_row {
	const char *dso, *sym;   /* interned */
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
	bool curses;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

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
		    "  Keys (full-screen view): q quits.\n");
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
	static const int any_cpu = -1;
	static const pid_t any_thread = -1;
	size_t nr_cpus = 1, nr_tids = 1;
	int err;

	if (t->pid) {
		err = cap_list_threads(t->pid, &t->tids, &nr_tids);
		if (err)
			return pk_error(ESRCH, "no process %d", (int)t->pid);
	} else {
		cap_online_cpus(&t->cpus, &nr_cpus);
	}
	t->ce.attrs = &t->attr;
	t->ce.nr_ev = 1;
	t->ce.tids = t->pid ? t->tids : &any_thread;
	t->ce.nr_tids = nr_tids;
	t->ce.cpus = t->pid ? &any_cpu : t->cpus;
	t->ce.nr_cpus = nr_cpus;
	t->ce.pages = TOP_RING_PAGES;
	t->ce.skip_gone = true;
	err = cap_events_open(&t->ce);
	t->user_only = t->ce.user_only;   /* said on the header line */
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

static int on_sample(const struct pk_sample *s, void *arg)
{
	struct top *t = arg;
	const struct pk_frame *fr;
	char key[1024], addr[32];
	const char *sym;
	struct hm_entry *e;
	int created;
	uint64_t start;

	t->nr_samples++;
	t->total += s->period;
	if (!s->nr_frames)
		return 0;
	fr = &s->frames[0];
	sym = fr->sym;
	if (!sym) {
		snprintf(addr, sizeof(addr), "%#.16" PRIx64, fr->ip);
		sym = addr;
	}
	start = pk_frame_sym_start(fr);
	e = hm_upsert(&t->keys, key, row_key(key, sizeof(key), dso_short(fr->dso), fr->kernel, sym, start),
		      &created);
	if (created) {
		struct top_row *r;

		if (t->nr_rows == t->alloc_rows) {
			t->alloc_rows = t->alloc_rows ? t->alloc_rows * 2 : 256;
			t->rows = xrealloc(t->rows, t->alloc_rows * sizeof(*t->rows));
		}
		r = &t->rows[t->nr_rows];
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
	t->rows[e->val.u - 1].period += s->period;
	return 0;
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
		hm_upsert(&t->keys, key, row_key(key, sizeof(key), r.dso, r.kernel, r.sym, r.start),
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
		}
		hm_release(&t->strings);
		t->strings = live;
	}
}

/* Resolve the records drained since the last refresh in top's session. */
static int build_table(struct top *t)
{
	int err;

	decay_rows(t);
	err = session_feed(t->session, t->pend.buf, t->pend.len, true, on_sample, t);
	sb_reset(&t->pend);
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
	       t->delay, t->zero ? "" : " (history decaying by 7/8 per refresh)", t->pid ? "process " : "system-wide");
	if (t->pid)
		printf("%d", (int)t->pid);
	if (t->lost)
		printf(", %" PRIu64 " lost", t->lost);
	if (t->user_only)
		printf(", user space only (perf_event_paranoid)");
	printf("\n# Overhead  Shared Object         Symbol\n");
	for (size_t i = 0; i < t->nr_rows && i < max_rows; i++) {
		const struct top_row *r = &t->rows[t->order[i]];

		printf("%9.2f%%  %-20s  [%c] %s\n", t->total ? 100.0 * (double)r->period / (double)t->total : 0.0,
		       r->dso, r->kernel ? 'k' : '.', r->sym);
	}
	printf("\n");
	fflush(stdout);
}

#ifndef PERFKIT_NO_NCURSES
static void show_curses(struct top *t)
{
	int rows = LINES, cols = COLS;
	char line[512];

	erase();
	snprintf(line, sizeof(line), "perfkit top: %" PRIu64 " samples of %s in the last %.1f s, %s%.0d%s%s   (q quits)",
		 t->nr_samples, t->event, t->delay, t->pid ? "process " : "system-wide", (int)t->pid,
		 t->lost ? ", samples lost" : "",
		 t->user_only ? ", user space only (perf_event_paranoid)" : "");
	mvaddnstr(0, 0, line, cols);
	attron(A_REVERSE);
	snprintf(line, sizeof(line), "%-*s", cols > 0 && cols < (int)sizeof(line) ? cols : 80,
		 "  Overhead  Shared Object         Symbol");
	mvaddnstr(2, 0, line, cols);
	attroff(A_REVERSE);
	for (size_t i = 0; i < t->nr_rows && (int)i + 3 < rows; i++) {
		const struct top_row *r = &t->rows[t->order[i]];

		snprintf(line, sizeof(line), "%9.2f%%  %-20s  [%c] %s",
			 t->total ? 100.0 * (double)r->period / (double)t->total : 0.0, r->dso,
			 r->kernel ? 'k' : '.', r->sym);
		mvaddnstr((int)i + 3, 0, line, cols);
	}
	refresh();
}
#endif

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool freq_given = false;
	int64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "F:p:e:d:n:zh", opts, NULL)) != -1) {
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
	t.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
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
#ifdef PERFKIT_NO_NCURSES
	if (!t.stdio) {
		fprintf(stderr, "perfkit top: full-screen view not built (%s); using --stdio\n", PERFKIT_NO_NCURSES);
		t.stdio = true;
	}
#else
	if (!t.stdio) {
		initscr();
		cbreak();
		noecho();
		curs_set(0);
		timeout(100);
		t.curses = true;
		mvaddstr(0, 0, "perfkit top: sampling...");
		refresh();
	}
#endif
	next = now_s() + t.delay;
	bool ended = false;
	while (!stop) {
		ended = t.pid && kill(t.pid, 0) < 0 && errno == ESRCH;

#ifndef PERFKIT_NO_NCURSES
		if (t.curses) {
			int ch = getch();

			if (ch == 'q' || ch == 'Q')
				break;
		} else
#endif
			poll(NULL, 0, 100);
		cap_drain(&t.ce, keep_record, &t, NULL);
		if (now_s() < next && !ended)
			continue;
		next += t.delay;
		err = build_table(&t);
		if (err)
			break;
#ifndef PERFKIT_NO_NCURSES
		if (t.curses)
			show_curses(&t);
		else
#endif
			show_stdio(&t, 25);
		if (ferror(stdout))
			break;
		if (ended || (t.iterations && ++shown >= t.iterations))
			break;
	}
#ifndef PERFKIT_NO_NCURSES
	if (t.curses)
		endwin();
#endif
	if (err)
		fprintf(stderr, "perfkit top: %s\n", pk_errmsg());
	else if (ended)
		fprintf(stderr, "perfkit top: process %d exited\n", (int)t.pid);
	top_release(&t);
	return err ? 1 : 0;
}
