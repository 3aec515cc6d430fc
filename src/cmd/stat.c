/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit stat — run a command (or watch a process / all CPUs) and count
 * events with perf_event_open, printed in `perf stat`'s layout, followed by a
 * plain-language reading (counter/metrics.h).  Output goes to stderr (or -o
 * FILE) so the command's own stdout stays clean; the exit status is the
 * command's.
 */
#include "cmd/cmds.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/child.h"
#include "base/error.h"
#include "base/outfile.h"
#include "base/parse.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "cachesim/cpimodel.h"
#include "cachesim/simcount.h"
#include "capture/capture.h"
#include "counter/counter.h"
#include "counter/metrics.h"
#include "event/event.h"
#include "stats/stats.h"

#define STAT_MAX_PIDS 1024

struct stat_opts {
	const char *events;   /* joined -e lists, or NULL for the defaults */
	int runs;
	bool forever;         /* -r 0: one run after another, each printed, until Ctrl-C (perf's) */
	const char *sep;      /* -x */
	int json;
	const char *output;
	pid_t pid;            /* the first of pids (-p, -t), else 0 */
	pid_t pids[STAT_MAX_PIDS];   /* -p PID,... or -t TID,...: existing tasks */
	int npids;
	const char *pid_arg;  /* as given (the header names it) */
	int by_tid;           /* -t: thread ids */
	int all_cpus;         /* -a, or -C (cpus) */
	int cpus[STAT_MAX_PIDS];   /* -C LIST: these CPUs only */
	int ncpus;
	const char *cpu_arg;  /* -C as given (the header names it) */
	int no_aggr;          /* -A: each CPU's counts apart */
	int per;              /* --per-socket, -die, -core, -node (PER_*): CPUs' counts summed by
				 those; --per-thread (PER_THREAD): -p/-t's threads apart */
	bool big_num;         /* -B (perf's default): counts in the text table
				 with the locale's thousands separator
				 ("1,888.08 msec", "107,097"), as perf prints
				 them; false in the C locale, with -x, -j or
				 --no-big-num */
	int interval_ms;
	int interval_count;   /* --interval-count: stop after that many */
	int timeout_ms;       /* --timeout: stop the command after it */
	int null_run;         /* -n: no counters, the times only */
	unsigned delay_ms;    /* -D: the counters start this long after the command */
	int no_reading;       /* --no-reading: perf's text alone, no " Reading:" block */
	int all_user, all_kernel; /* --all-user, --all-kernel: every event's
				 counting limited to user or kernel space
				 (perf's: the names as given) */
	int no_inherit;       /* -i: the command's children not counted */
	int quiet;            /* --quiet: nothing printed */
	int sync;             /* -S: sync(2) before each run */
	int append;           /* --append: -o FILE appended to */
	const char *pre_cmd, *post_cmd;   /* --pre, --post: sh -c around each run */
	char **argv;          /* the command, NULL-terminated */
	int argc;
	int simulate;         /* --simulate */
	int detailed;         /* -d, -dd, -ddd: perf stat's detailed events
				 (builtin-stat.c's detailed_attrs,
				 very_detailed_attrs,
				 very_very_detailed_attrs), after those asked */
	struct simcount_opts so;
};

/* The native events of --simulate: software ones, and the hardware ones
 * the simulation stands in for (counted too where a PMU exists). */
#define SIM_NATIVE_EVENTS "task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions," \
	"branches,branch-misses,L1-dcache-loads,L1-dcache-load-misses,L1-icache-load-misses,LLC-loads," \
	"LLC-load-misses,dTLB-load-misses"

/* Per-event samples over the runs. */
struct ev_samples {
	double *val;          /* scaled values of counted runs */
	size_t n;
	double enabled, running;   /* sums over runs */
	int not_supported, not_counted;
	int open_errno;
};

enum { PER_NONE, PER_SOCKET, PER_DIE, PER_CORE, PER_NODE, PER_THREAD };

static volatile sig_atomic_t interrupted;


static void on_sigint(int sig)
{
	interrupted = sig;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit stat [-e EVENTS] [-r N] [-x SEP | -j] [-o FILE] [-p PID | -t TID | -a] [-I MS] [--] CMD [ARGS...]\n"
		"       perfkit stat --simulate [--I1/--D1/--L2/--LL=SIZE,ASSOC,LINE] [-r N] [-x SEP | -j] [-o FILE] [--] CMD [ARGS...]\n"
		"  -e, --event EVENTS        events to count (perf's names: software, hardware, cache events\n"
		"                            such as L1-dcache-load-misses, SUBSYS:NAME tracepoints;\n"
		"                            comma-separated, {a,b} groups)\n"
		"  -r, --repeat N            run the command N times; print means and ( +- relative SE );\n"
		"                            0: again and again, each run's table, until Ctrl-C\n"
		"  -x, --field-separator S   CSV output in perf's field order\n"
		"  -j, --json-output         one JSON object per counter\n"
		"  -o, --output FILE         write the counts to FILE instead of stderr\n"
		"  -p, --pid PID[,PID...]    count existing processes (until they exit, Ctrl-C or CMD ends)\n"
		"  -t, --tid TID[,TID...]    count existing threads\n"
		"  -a, --all-cpus            count on every CPU (until Ctrl-C or CMD ends)\n"
		"  -C, --cpu LIST            count on these CPUs only (0,2-3), system-wide\n"
		"  -A, --no-aggr             with -a or -C: each CPU's counts on lines of their own\n"
		"  --per-socket, --per-die, --per-core, --per-node  with -a or -C: the CPUs' counts\n"
		"                            summed by socket, die, core or NUMA node (sysfs topology)\n"
		"  --per-thread              with -p or -t: each thread's counts on lines of their own (with -I too)\n"
		"  -d, --detailed            also L1-dcache and LLC loads and misses (perf's -d); -dd adds\n"
		"                            L1-icache, dTLB and iTLB, -ddd L1-dcache prefetches\n"
		"  -I, --interval-print MS   print the counts every MS milliseconds\n"
		"      --interval-count N    with -I: stop (the command too) after N intervals\n"
		"      --timeout MS          stop the command after MS milliseconds (>= 10) and print the counts\n"
		"  -n, --null                count nothing: the times only\n"
		"      --all-user, --all-kernel  every event counts in user (kernel) space only\n"
		"  -D, --delay MSECS         start counting (and the clock) MSECS after the command\n"
		"      --no-reading          no \" Reading:\" block after the counts (perf's text alone)\n"
		"  -i, --no-inherit          the command's children are not counted\n"
		"  -S, --sync                sync(2) before each run\n"
		"      --pre CMD, --post CMD run sh -c CMD before / after each run (stop if it fails)\n"
		"      --append              with -o: add to FILE instead of replacing it\n"
		"      --quiet               print nothing (the exit status is the command's)\n"
		"      --simulate            also run CMD under perfkit's Valgrind tool (modern model, host cache\n"
		"                            geometry): simulated instructions, branches, cache and TLB misses, and\n"
		"                            estimated cycles and IPC (native task-clock x frequency, and the CPI\n"
		"                            model calibrated by `perfkit calibrate`)\n"
		"      --I1/--D1/--L2/--LL=SIZE,ASSOC,LINE   pin the simulated geometry (with --simulate)\n");
}

/* o's events (-e, else the defaults), then its detailed ones */
static int add_events(struct cnt_set *s, const struct stat_opts *o)
{
	static const char *const level[3] = {
		"L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses",
		"L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,iTLB-loads,iTLB-load-misses",
		"L1-dcache-prefetches,L1-dcache-prefetch-misses",
	};
	if (o->null_run && !o->events)   /* -n: no default events (-d neither); -e's still, as perf */
		return 0;
	int err = o->events ? cnt_set_add_list(s, o->events) : cnt_set_add_defaults(s, o->all_cpus);

	for (int k = 0; !err && k < o->detailed && k < 3; k++)
		err = cnt_set_add_list(s, level[k]);
	for (size_t i = 0; !err && (o->all_user || o->all_kernel) && i < s->nr; i++) {
		/* perf stat's create_perf_stat_counter: over any modifier */
		s->ev[i].attr.exclude_kernel = o->all_user;
		s->ev[i].attr.exclude_user = o->all_kernel;
	}
	return err;
}

/* Open one set per CPU (-a) or one for the target. */
struct targets {
	struct cnt_set *sets;
	int nr;
	pid_t *tids;          /* -p, -t: each set's thread */
	char (*comms)[16];    /* and its name when opened (comm) */
};

/* The threads of process pid now (capture's cap_list_threads: its
 * /proc/PID/task), appended to *tids; none listed (a process gone): pid
 * itself, whose counter's open then says so. */
static void list_threads(pid_t pid, pid_t **tids, int *n, int *alloc)
{
	pid_t *got = NULL;
	size_t nr = 0;

	if (cap_list_threads(pid, &got, &nr) != 0) {
		pk_error_clear();
		free(got);
		got = xmalloc(sizeof(*got));
		got[0] = pid;
		nr = 1;
	}
	for (size_t i = 0; i < nr; i++) {
		if (*n == *alloc)
			*tids = xrealloc(*tids, (size_t)(*alloc = *alloc ? *alloc * 2 : 16) * sizeof(**tids));
		(*tids)[(*n)++] = got[i];
	}
	free(got);
}

/* One set per CPU (-a), per thread of -p's processes (each thread its own
 * counter, as perf stat -p: a counter on a process id counts only its
 * first thread), per thread of -t, or one for pid (the command).  A
 * thread of -p that ended before its counter was opened is left out. */
static int open_targets(struct targets *t, const struct stat_opts *o, pid_t pid, int all, unsigned flags)
{
	int n, alloc = 0;

	t->tids = NULL;
	t->comms = NULL;
	if (all) {
		n = o->ncpus ? o->ncpus : (int)sysconf(_SC_NPROCESSORS_ONLN);
	} else if (o->pid > 0) {
		n = 0;
		for (int i = 0; i < o->npids; i++) {
			if (o->by_tid) {
				if (n == alloc)
					t->tids = xrealloc(t->tids, (size_t)(alloc = alloc ? alloc * 2 : 16) * sizeof(*t->tids));
				t->tids[n++] = o->pids[i];
			} else {
				list_threads(o->pids[i], &t->tids, &n, &alloc);
			}
		}
		t->comms = xcalloc((size_t)n, sizeof(*t->comms));
	} else {
		n = 1;
	}
	if (n < 1)
		n = 1;
	t->sets = xcalloc((size_t)n, sizeof(*t->sets));
	t->nr = 0;
	for (int i = 0; i < n; i++) {
		struct cnt_set *cs = &t->sets[t->nr];
		int err = add_events(cs, o);
		if (err) {
			t->nr++;
			return err;
		}
		if (t->tids) {
			char path[64];

			snprintf(path, sizeof(path), "/proc/%d/comm", (int)t->tids[i]);   /* a thread's too */
			if (pk_read_line(path, t->comms[t->nr], sizeof(t->comms[0])) != 0)
				snprintf(t->comms[t->nr], sizeof(t->comms[0]), "?");
			t->tids[t->nr] = t->tids[i];
		}
		if (!cs->nr) {   /* -n */
			t->nr++;
			continue;
		}
		if (i == 0)   /* an fd per event and CPU or thread */
			cap_raise_nofile((size_t)n * cs->nr);
		err = cnt_set_open(cs, all ? -1 : t->tids ? t->tids[i] : pid, all ? (o->ncpus ? o->cpus[i] : i) : -1, flags);
		if (err == -ESRCH && t->tids && !o->by_tid && (t->nr > 0 || i + 1 < n)) {
			cnt_set_release(cs);   /* a thread that has ended: perf leaves it out too */
			*cs = (struct cnt_set)CNT_SET_INIT;
			pk_error_clear();
			continue;
		}
		t->nr++;
		if (err)
			return err;
	}
	return 0;
}

/* "1,2,3" into o->pids (a list of -p or -t); -EINVAL with a message */
static int parse_pids(struct stat_opts *o, const char *opt, const char *arg)
{
	int err = pk_parse_id_list(opt, arg, o->pids, STAT_MAX_PIDS, &o->npids);

	if (err)
		o->npids = 0;
	o->pid = o->npids ? o->pids[0] : 0;
	o->pid_arg = arg;
	return err;
}

/* -C "0,2-3" into o->cpus (each a CPU this machine has); -EINVAL with a
 * message */
static int parse_cpus(struct stat_opts *o, const char *arg)
{
	int err = pk_parse_cpu_list("-C", arg, o->cpus, STAT_MAX_PIDS, &o->ncpus);

	if (err)
		o->ncpus = 0;
	o->cpu_arg = arg;
	return err;
}

/* --pre / --post: sh -c CMD; -ECHILD with a message when it fails */
static int run_hook(const char *opt, const char *cmd)
{
	int st;

	if (!cmd)
		return 0;
	fflush(NULL);
	st = system(cmd);
	if (st == -1)
		return pk_error(errno, "%s: cannot run '%s': %s", opt, cmd, strerror(errno));
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFSIGNALED(st))
		return pk_error(ECHILD, "%s command '%s' was killed by signal %d", opt, cmd, WTERMSIG(st));
	return pk_error(ECHILD, "%s command '%s' failed (exit status %d)", opt, cmd, WEXITSTATUS(st));
}

static void close_targets(struct targets *t)
{
	for (int i = 0; i < t->nr; i++)
		cnt_set_release(&t->sets[i]);
	free(t->sets);
	free(t->tids);
	free(t->comms);
	t->sets = NULL;
	t->tids = NULL;
	t->comms = NULL;
	t->nr = 0;
}

/* Start every set opened disabled (not enable_on_exec); 0 or -errno. */
static int enable_targets(struct targets *t)
{
	int err = 0;

	for (int i = 0; i < t->nr && !err; i++)
		err = cnt_set_enable(&t->sets[i]);
	return err;
}

/* Read all sets and sum them into t->sets[0] (a copy is kept in sum). */
static int read_targets(struct targets *t, struct cnt_set *sum)
{
	for (int i = 0; i < t->nr; i++) {
		int err = cnt_set_read(&t->sets[i]);
		if (err)
			return err;
	}
	for (size_t k = 0; k < sum->nr; k++) {
		struct cnt_event *e = &sum->ev[k], *s0 = &t->sets[0].ev[k];
		e->raw = e->enabled = e->running = 0;
		e->state = s0->state;
		e->open_errno = s0->open_errno;
		e->attr = s0->attr;
	}
	for (int i = 0; i < t->nr; i++)
		cnt_set_accumulate(sum, &t->sets[i]);
	for (size_t k = 0; k < sum->nr; k++)
		if (t->sets[0].ev[k].state == CNT_NOT_SUPPORTED)
			sum->ev[k].state = CNT_NOT_SUPPORTED;
	return 0;
}

/* ---- output ---- */

static bool is_msec(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_TASK_CLOCK || a->config == PERF_COUNT_SW_CPU_CLOCK);
}

/* The unit column perf prints for an event: "msec" for the clocks, "ns"
 * for duration_time. */
static const char *unit_of(const struct cnt_event *e)
{
	return e->duration ? "ns" : is_msec(&e->attr) ? "msec" : "";
}

static int precision_of(double num)
{
	if (num > 1 || !(num > 0))
		return 0;
	return (int)lround(ceil(-log10(num)));
}

struct report {
	const struct stat_opts *o;
	const struct cnt_set *set;
	struct ev_samples *smp;
	double *elapsed;         /* seconds per run */
	size_t nruns;
	size_t nruns_total;      /* -r 0: the runs shown before this one */
	double user_s, sys_s;
	double cpu_s_sum;        /* the command's user + sys, all runs (rusage) */
	double vcsw_sum, ivcsw_sum; /* its voluntary, involuntary context switches */
	struct cnt_summary sum;
};

static double ev_mean(const struct ev_samples *s)
{
	return st_mean(s->val, s->n);
}

/* A count's mean as the table prints it: whole counts rounded, so a metric
 * derived from it agrees with the number shown (a "0" count has a 0 rate). */
static double shown_count(const struct cnt_event *e, double mean)
{
	return is_msec(&e->attr) ? mean : round(mean);
}

static void build_summary(struct report *r)
{
	memset(&r->sum, 0, sizeof(r->sum));
	r->sum.elapsed_ns = st_mean(r->elapsed, r->nruns) * 1e9;
	r->sum.system_wide = r->o->all_cpus;
	r->sum.children_uncounted = r->o->no_inherit;
	if (r->o->pid <= 0 && !r->o->all_cpus && r->nruns)   /* rusage is the command's */
	{
		r->sum.cpu_ns = r->cpu_s_sum / (double)r->nruns * 1e9;
		r->sum.have_csw = true;
		r->sum.vcsw = r->vcsw_sum / (double)r->nruns;
		r->sum.ivcsw = r->ivcsw_sum / (double)r->nruns;
	}
	for (size_t i = 0; i < r->set->nr; i++) {
		int k = cnt_kind_of(&r->set->ev[i].attr);
		if (k < 0 && r->smp[i].not_supported && ev_needs_pmu(&r->set->ev[i].attr))
			r->sum.other_hw_unsupported = true;
		if (k < 0 || r->sum.have[k])
			continue;
		if (r->smp[i].not_supported)
			r->sum.unsupported[k] = true;
		else if (r->smp[i].n) {
			r->sum.have[k] = true;
			r->sum.v[k] = shown_count(&r->set->ev[i], ev_mean(&r->smp[i]));
		}
	}
}

static void print_times(struct report *r, struct strbuf *sb);
static void print_reading(struct report *r, struct strbuf *sb);

static void print_event_line(struct report *r, struct strbuf *sb, size_t i)
{
	const struct stat_opts *o = r->o;
	const struct cnt_event *e = &r->set->ev[i];
	const struct ev_samples *s = &r->smp[i];
	size_t start = sb->len;

	if (s->not_supported || !s->n) {
		/* perf's unit column stays ("msec" of task-clock) */
		sb_addf(sb, "%18s %-4s %-32s", s->not_supported ? "<not supported>" : "<not counted>",
			unit_of(e), e->name);
		while (sb->len - start < 84)
			sb_addch(sb, ' ');
		sb_addch(sb, '\n');
		return;
	}
	double v = shown_count(e, ev_mean(s));
	if (is_msec(&e->attr))
		sb_addf(sb, o->big_num ? "%'18.2f msec %-32s" : "%18.2f msec %-32s", v / 1e6, e->name);
	else if (e->duration)
		sb_addf(sb, o->big_num ? "%'18.0f ns   %-32s" : "%18.0f ns   %-32s", v, e->name);
	else
		sb_addf(sb, o->big_num ? "%'18.0f      %-32s" : "%18.0f      %-32s", v, e->name);
	struct cnt_metric m;
	if (cnt_metric(&e->attr, v, &r->sum, &m)) {
		if (m.percent)
			sb_addf(sb, " # %7.2f%% %-23s", m.value, m.unit);
		else
			sb_addf(sb, " # %8.3f %-23s", m.value, m.unit);
	} else {
		sb_addf(sb, "%35s", "");
	}
	/* perf prints no spread when it is 0 (a zero mean included): a "0" count
	 * (its mean rounds to 0) gets none either */
	double spread = v != 0 ? st_rel_stderr_pct(s->val, s->n) : 0;
	if (o->runs > 1 && spread != 0)
		sb_addf(sb, "  ( +-%6.2f%% )", spread);
	if (s->running < s->enabled && s->enabled > 0)
		sb_addf(sb, "  (%.2f%%)", 100.0 * s->running / s->enabled);
	sb_addch(sb, '\n');
}

static void print_header(struct report *r, struct strbuf *sb)
{
	const struct stat_opts *o = r->o;

	sb_addstr(sb, "\n Performance counter stats for ");
	if (o->ncpus)
		sb_addf(sb, "'CPU(s) %s'", o->cpu_arg);
	else if (o->all_cpus)
		sb_addstr(sb, "'system wide'");
	else if (o->pid > 0)
		sb_addf(sb, "%s id '%s'", o->by_tid ? "thread" : "process", o->pid_arg);
	else {
		sb_addch(sb, '\'');
		for (int i = 0; i < o->argc; i++)
			sb_addf(sb, "%s%s", i ? " " : "", o->argv[i]);
		sb_addch(sb, '\'');
	}
	if (o->runs > 1)
		sb_addf(sb, " (%d runs)", o->runs);
	sb_addstr(sb, ":\n\n");
}

static void print_std(struct report *r, struct strbuf *sb)
{
	print_header(r, sb);
	for (size_t i = 0; i < r->set->nr; i++)
		print_event_line(r, sb, i);
	if (r->set->nr)   /* -n: the times right after the header, as perf */
		sb_addch(sb, '\n');
	print_times(r, sb);
	print_reading(r, sb);
}

static void print_times(struct report *r, struct strbuf *sb)
{
	const struct stat_opts *o = r->o;
	double avg = st_mean(r->elapsed, r->nruns);
	if (r->nruns <= 1) {
		sb_addf(sb, " %17.9f seconds time elapsed\n\n", avg);
		if (o->pid <= 0 && !o->all_cpus && !o->forever)   /* perf: not with -r 0 */
			sb_addf(sb, " %17.9f seconds user\n %17.9f seconds sys\n\n", r->user_s, r->sys_s);
	} else {
		double sd = st_stderr(r->elapsed, r->nruns);
		int prec = precision_of(sd) + 2;
		sb_addf(sb, " %17.*f +- %.*f seconds time elapsed", prec, avg, prec, sd);
		sb_addf(sb, "  ( +-%6.2f%% )\n", st_rel_stderr_pct(r->elapsed, r->nruns));
	}
}

/* " Reading:" and the lines of rd, indented. */
static void add_reading(struct strbuf *sb, const struct strbuf *rd)
{
	if (rd->len) {
		sb_addstr(sb, "\n Reading:\n");
		for (const char *p = rd->buf; *p;) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			sb_addf(sb, "   %.*s\n", (int)len, p);
			p += len + (nl ? 1 : 0);
		}
	}
	sb_addch(sb, '\n');
}

static void print_reading(struct report *r, struct strbuf *sb)
{
	struct strbuf rd = STRBUF_INIT;

	if (!r->o->no_reading)
		cnt_reading(&r->sum, &rd);
	/* perf ends a command's table with one more blank line than a
	 * system-wide or -p one's */
	if (rd.len || (r->o->pid <= 0 && !r->o->all_cpus))
		add_reading(sb, &rd);
	sb_release(&rd);
}

static void print_csv_line(struct report *r, struct strbuf *sb, size_t i)
{
	const char *x = r->o->sep;

	{
		const struct cnt_event *e = &r->set->ev[i];
		const struct ev_samples *s = &r->smp[i];
		double runtime = r->nruns ? s->running / (double)r->nruns : 0;
		double pct = s->enabled > 0 ? 100.0 * s->running / s->enabled : 100.0;
		if (s->not_supported || !s->n) {
			sb_addf(sb, "%s%s%s%s%s", s->not_supported ? "<not supported>" : "<not counted>", x,
				unit_of(e), x, e->name);
			if (r->o->runs > 1)
				sb_addf(sb, "%s0.00%%", x);
			sb_addf(sb, "%s%.0f%s%.2f%s%s\n", x, s->not_supported ? 0.0 : runtime, x,
				s->not_supported ? 100.0 : pct, x, x);
			return;
		}
		double v = shown_count(e, ev_mean(s));
		if (is_msec(&e->attr))
			sb_addf(sb, "%.2f%smsec%s%s", v / 1e6, x, x, e->name);
		else
			sb_addf(sb, "%.0f%s%s%s%s", v, x, unit_of(e), x, e->name);
		if (r->o->runs > 1)
			sb_addf(sb, "%s%.2f%%", x, st_rel_stderr_pct(s->val, s->n));
		sb_addf(sb, "%s%.0f%s%.2f", x, runtime, x, pct);
		struct cnt_metric m;
		if (cnt_metric(&e->attr, v, &r->sum, &m))
			sb_addf(sb, "%s%.3f%s%s\n", x, m.value, x, m.unit);
		else
			sb_addf(sb, "%s%s\n", x, x);
	}
}

static void print_csv(struct report *r, struct strbuf *sb)
{
	for (size_t i = 0; i < r->set->nr; i++)
		print_csv_line(r, sb, i);
}

/* One event's JSON object; pre: members that come first (-A's "cpu",
 * --per-core's "core" and "aggregate-number"), or NULL. */
static void print_json_line(struct report *r, struct strbuf *sb, size_t i, const char *pre)
{
	{
		const struct cnt_event *e = &r->set->ev[i];
		const struct ev_samples *s = &r->smp[i];
		double runtime = r->nruns ? s->running / (double)r->nruns : 0;
		double pct = s->enabled > 0 ? 100.0 * s->running / s->enabled : 100.0;
		bool counted = !s->not_supported && s->n;
		double v = counted ? ev_mean(s) : 0;
		sb_addf(sb, "{%s\"counter-value\" : \"", pre ? pre : "");
		if (!counted)
			sb_addstr(sb, s->not_supported ? "<not supported>" : "<not counted>");
		else
			sb_addf(sb, "%f", is_msec(&e->attr) ? v / 1e6 : v);
		sb_addf(sb, "\", \"unit\" : \"%s\", \"event\" : \"", unit_of(e));
		sb_add_json(sb, e->name, strlen(e->name));
		sb_addstr(sb, "\"");
		if (r->o->runs > 1)
			sb_addf(sb, ", \"variance\" : %.2f", counted ? st_rel_stderr_pct(s->val, s->n) : 0.0);
		sb_addf(sb, ", \"event-runtime\" : %.0f, \"pcnt-running\" : %.2f",
			counted ? runtime : 0.0, s->not_supported ? 100.0 : pct);
		struct cnt_metric m;
		if (counted && cnt_metric(&e->attr, v, &r->sum, &m))
			sb_addf(sb, ", \"metric-value\" : %f, \"metric-unit\" : \"%s\"}\n", m.value, m.unit);
		else
			sb_addstr(sb, ", \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n");
	}
}

static void print_json(struct report *r, struct strbuf *sb)
{
	for (size_t i = 0; i < r->set->nr; i++)
		print_json_line(r, sb, i, NULL);
}

/* The run's table in the layout asked (-j, -x, else perf's text). */
static void print_table(struct report *r, struct strbuf *sb)
{
	if (r->o->json)
		print_json(r, sb);
	else if (r->o->sep)
		print_csv(r, sb);
	else
		print_std(r, sb);
}

/* One line's head of -A or --per-*: perf's label in each layout. */
struct aggr_label {
	char std[64], csv[64], json[128];
};

/* the rows of event sort_event by their count, largest first (perf's
 * --per-thread order: sort_aggr_thread), equal ones as they came */
static const struct report *sort_pc;
static size_t sort_event;

static int cmp_rows(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;
	const struct ev_samples *x = &sort_pc[a].smp[sort_event], *y = &sort_pc[b].smp[sort_event];
	double vx = x->n ? ev_mean(x) : 0, vy = y->n ? ev_mean(y) : 0;

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* -A: every event's line once per CPU, each with the CPU first ("CPU0"
 * padded to 11 columns, "CPU0," in CSV, "cpu" in JSON), event by event;
 * --per-*: each group's lines together (event_major false), headed "S0"
 * "S0-D0", "S0-D0-C0" or "N0" and the number of CPUs summed, as perf stat's
 * aggr_printout.  pc[g]: the CPU's or group's counts; labels[g], or with
 * lab_nev (--per-*: the CPU count may differ by event) labels[g * lab_nev
 * + event].  Then the times and the reading of the sums (r). */
static void print_aggr(struct report *r, struct report *pc, const struct aggr_label *labels, size_t lab_nev,
		       int n, bool event_major, bool by_count, struct strbuf *sb)
{
	const struct stat_opts *o = r->o;
	size_t nev = r->set->nr;
	int *order = xcalloc((size_t)n + 1, sizeof(*order));

	if (!o->sep && !o->json)
		print_header(r, sb);
	for (size_t k = 0; k < nev * (size_t)n; k++) {
		size_t i = event_major ? k / (size_t)n : k % nev;
		int c = (int)(event_major ? k % (size_t)n : k / nev);

		if (event_major && by_count) {   /* --per-thread: each event's rows by count */
			if (c == 0) {
				for (int j = 0; j < n; j++)
					order[j] = j;
				sort_pc = pc;
				sort_event = i;
				qsort(order, (size_t)n, sizeof(*order), cmp_rows);
			}
			c = order[c];
		}

		const struct aggr_label *lab = lab_nev ? &labels[(size_t)c * lab_nev + i] : &labels[c];

		if (!o->per && c > 0 && r->set->ev[i].duration)   /* -A: perf's tool event on the first CPU only */
			continue;

		if (o->json) {
			print_json_line(&pc[c], sb, i, lab->json);
		} else if (o->sep) {
			sb_addstr(sb, lab->csv);
			print_csv_line(&pc[c], sb, i);
		} else {
			sb_addstr(sb, lab->std);
			print_event_line(&pc[c], sb, i);
		}
	}
	free(order);
	if (!o->sep && !o->json) {
		sb_addch(sb, '\n');
		print_times(r, sb);
		print_reading(r, sb);
	}
}

/* The group key of a CPU's topology for --per-*: socket, die, core or node
 * (the others -1), so that equal keys are one group and keys sort as perf's. */
static struct cnt_cpu_topo per_key(int per, const struct cnt_cpu_topo *t)
{
	struct cnt_cpu_topo k = { -1, -1, -1, -1 };

	if (per == PER_NODE) {
		k.node = t->node;
		return k;
	}
	k.socket = t->socket;
	if (per >= PER_DIE)
		k.die = t->die;
	if (per == PER_CORE)
		k.core = t->core;
	return k;
}

static int cmp_topo(const struct cnt_cpu_topo *a, const struct cnt_cpu_topo *b)
{
	int x[4] = { a->socket, a->die, a->core, a->node }, y[4] = { b->socket, b->die, b->core, b->node };

	for (int i = 0; i < 4; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

static void per_label(struct aggr_label *l, int per, const struct cnt_cpu_topo *k, int ncpu, const char *x)
{
	switch (per) {
	case PER_SOCKET:
		snprintf(l->std, sizeof(l->std), "S%-5d %4d ", k->socket, ncpu);
		snprintf(l->csv, sizeof(l->csv), "S%d%s%d%s", k->socket, x, ncpu, x);
		snprintf(l->json, sizeof(l->json), "\"socket\" : \"S%d\", \"aggregate-number\" : %d, ", k->socket, ncpu);
		break;
	case PER_DIE:
		snprintf(l->std, sizeof(l->std), "S%d-D%-8d %4d ", k->socket, k->die, ncpu);
		snprintf(l->csv, sizeof(l->csv), "S%d-D%d%s%d%s", k->socket, k->die, x, ncpu, x);
		snprintf(l->json, sizeof(l->json), "\"die\" : \"S%d-D%d\", \"aggregate-number\" : %d, ",
			 k->socket, k->die, ncpu);
		break;
	case PER_CORE:
		snprintf(l->std, sizeof(l->std), "S%d-D%d-C%-8d %4d ", k->socket, k->die, k->core, ncpu);
		snprintf(l->csv, sizeof(l->csv), "S%d-D%d-C%d%s%d%s", k->socket, k->die, k->core, x, ncpu, x);
		snprintf(l->json, sizeof(l->json), "\"core\" : \"S%d-D%d-C%d\", \"aggregate-number\" : %d, ",
			 k->socket, k->die, k->core, ncpu);
		break;
	default:
		snprintf(l->std, sizeof(l->std), "N%-5d %4d ", k->node, ncpu);
		snprintf(l->csv, sizeof(l->csv), "N%d%s%d%s", k->node, x, ncpu, x);
		snprintf(l->json, sizeof(l->json), "\"node\" : \"N%d\", \"aggregate-number\" : %d, ", k->node, ncpu);
		break;
	}
}

/* -A's labels: "CPU0" for each CPU counted (o->cpus[c], or c). */
static struct aggr_label *cpu_labels(int n, const struct stat_opts *o)
{
	struct aggr_label *lab = xcalloc((size_t)n + 1, sizeof(*lab));

	for (int c = 0; c < n; c++) {
		int cpu = o->ncpus ? o->cpus[c] : c;

		snprintf(lab[c].std, sizeof(lab[c].std), "CPU%-8d", cpu);
		snprintf(lab[c].csv, sizeof(lab[c].csv), "CPU%d%s", cpu, o->sep ? o->sep : "");
		snprintf(lab[c].json, sizeof(lab[c].json), "\"cpu\" : \"%d\", ", cpu);
	}
	return lab;
}

/* --per-thread's labels: perf's "comm-TID" (tids[c], comms[c]; the comm
 * escaped in JSON). */
static struct aggr_label *thread_labels(int n, const pid_t *tids, char (*comms)[16], const struct stat_opts *o)
{
	struct aggr_label *lab = xcalloc((size_t)n + 1, sizeof(*lab));

	for (int c = 0; c < n; c++) {
		const char *comm = comms ? comms[c] : "?";
		int tid = tids ? (int)tids[c] : 0;
		struct strbuf js = STRBUF_INIT;

		snprintf(lab[c].std, sizeof(lab[c].std), "%16s-%-8d ", comm, tid);
		snprintf(lab[c].csv, sizeof(lab[c].csv), "%s-%d%s", comm, tid, o->sep ? o->sep : "");
		sb_add_json(&js, comm, strlen(comm));
		snprintf(lab[c].json, sizeof(lab[c].json), "\"thread\" : \"%s-%d\", ", js.buf ? js.buf : "", tid);
		sb_release(&js);
	}
	return lab;
}

/* --per-*: the CPUs' counts (percpu[c], nev events, over ns of wall time)
 * summed by their topology's key (per_key), the groups in key order, into
 * *sets, and their labels (a group's per event: its CPU count may differ)
 * into *lab.  Each event is summed as perf's aggr_cb: the group's CPUs in
 * order, until the first one that did not count it (then the event is not
 * counted in the group, and that CPU the last of its count).  Returns the
 * number of groups, or -1 (message set, *sets and *lab NULL) when a CPU's
 * topology cannot be read. */
static int per_groups(const struct stat_opts *o, const struct cnt_set *percpu, int npercpu, size_t nev, uint64_t ns,
		      struct cnt_set **sets_out, struct aggr_label **lab_out)
{
	struct cnt_cpu_topo *cpukey = xcalloc((size_t)npercpu + 1, sizeof(*cpukey));
	struct cnt_cpu_topo *keys = xcalloc((size_t)npercpu + 1, sizeof(*keys));
	struct cnt_set *sets;
	struct aggr_label *lab;
	int n = 0;

	*sets_out = NULL;
	*lab_out = NULL;
	for (int cp = 0; cp < npercpu; cp++) {   /* the groups, in key order */
		struct cnt_cpu_topo t;
		int g = 0;

		if (cnt_cpu_topo(o->ncpus ? o->cpus[cp] : cp, &t)) {
			free(cpukey);
			free(keys);
			return -1;
		}
		cpukey[cp] = per_key(o->per, &t);
		while (g < n && cmp_topo(&keys[g], &cpukey[cp]))
			g++;
		if (g == n) {
			for (g = n; g > 0 && cmp_topo(&keys[g - 1], &cpukey[cp]) > 0; g--)
				keys[g] = keys[g - 1];
			keys[g] = cpukey[cp];
			n++;
		}
	}
	sets = xcalloc((size_t)n + 1, sizeof(*sets));
	lab = xcalloc((size_t)(n ? n : 1) * (nev ? nev : 1), sizeof(*lab));
	for (int g = 0; g < n; g++) {
		/* perf's tool event (duration_time) is counted once, on the
		 * first CPU: in its group, "<not counted>" in the others */
		bool first = npercpu && !cmp_topo(&cpukey[0], &keys[g]);

		add_events(&sets[g], o);
		for (size_t k = 0; k < sets[g].nr; k++) {
			struct cnt_event *d = &sets[g].ev[k];
			int nr = d->duration ? first : 0;

			d->raw = d->enabled = d->running = 0;
			d->state = CNT_OK;
			for (int cp = 0; cp < npercpu && !d->duration; cp++) {
				const struct cnt_event *e = &percpu[cp].ev[k];

				if (cmp_topo(&cpukey[cp], &keys[g]))
					continue;
				nr++;
				if (e->state != CNT_OK || !e->enabled || !e->running) {
					d->state = e->state == CNT_NOT_SUPPORTED ? CNT_NOT_SUPPORTED : CNT_NOT_COUNTED;
					d->open_errno = e->open_errno;
					d->raw = d->enabled = d->running = 0;
					break;
				}
				d->raw += e->raw;
				d->enabled += e->enabled;
				d->running += e->running;
			}
			if (d->state == CNT_OK && !d->duration)
				d->value = cnt_scale(d->raw, d->enabled, d->running, &d->state);
			per_label(&lab[(size_t)g * nev + k], o->per, &keys[g], nr, o->sep ? o->sep : "");
		}
		if (first)
			cnt_set_duration(&sets[g], ns);
		else
			for (size_t k = 0; k < sets[g].nr; k++)
				if (sets[g].ev[k].duration)
					sets[g].ev[k].state = CNT_NOT_COUNTED;
	}
	free(cpukey);
	free(keys);
	*sets_out = sets;
	*lab_out = lab;
	return n;
}

/* ---- --simulate ---- */

/* What the simulation and the CPI model give, beside the native runs. */
struct sim_result {
	struct cgfile *cg;
	struct cpi_counts cc;
	struct cpi_params par;
	char par_path[4096];
	char par_note[4200];          /* why the defaults are used, when they are */
	struct cpi_breakdown bd;
	double model_cycles;
	double mhz;                   /* 0: unknown */
	const char *mhz_src;
	double tc_ns, tc_rel;         /* native task-clock mean (ns), relative SE % */
};

/* One simulated line: the event as perf names it and its value. */
struct sim_line {
	const char *name;
	double v;
	bool have;
	double denom;                 /* for the metric; 0: none */
	const char *unit;
};

enum { SL_INSN, SL_BR, SL_BRM, SL_L1DL, SL_L1DM, SL_L1IM, SL_LLCL, SL_LLCM, SL_DTLBM, SL_DTLBW, SL_N };

static bool sim_has(const struct cgfile *cg, const char *ev)
{
	return cgfile_event(cg, ev) >= 0;
}

/* perf's hardware and cache events from the tool's events (see README):
 * branches count conditional, indirect and return branches (Bc + Bi + Br);
 * LLC-loads are the data reads that reach the last level (L2 read misses
 * with an L2, else D1 read misses); dTLB-load-misses the first-level
 * dTLB's read misses (DTmr, perf's generic meaning: loads that missed the
 * L1 dTLB), and dTLB-walks the page walks (STmr, the second-level TLB's
 * read misses), on their own line where the model has an STLB. */
static void sim_lines(const struct cgfile *cg, struct sim_line *l)
{
	double ir = (double)simcount_ev(cg, "Ir"), dr = (double)simcount_ev(cg, "Dr");
	double br = (double)(simcount_ev(cg, "Bc") + simcount_ev(cg, "Bi") + simcount_ev(cg, "Br"));
	bool l2 = sim_has(cg, "D2mr");
	double llcl = (double)simcount_ev(cg, l2 ? "D2mr" : "D1mr");

	l[SL_INSN] = (struct sim_line){ "instructions", ir, true, 0, NULL };
	l[SL_BR] = (struct sim_line){ "branches", br, sim_has(cg, "Bc"), 0, NULL };
	l[SL_BRM] = (struct sim_line){ "branch-misses", (double)(simcount_ev(cg, "Bcm") + simcount_ev(cg, "Bim") + simcount_ev(cg, "Brm")),
				       sim_has(cg, "Bcm"), br, "of all branches" };
	l[SL_L1DL] = (struct sim_line){ "L1-dcache-loads", dr, sim_has(cg, "Dr"), 0, NULL };
	l[SL_L1DM] = (struct sim_line){ "L1-dcache-load-misses", (double)simcount_ev(cg, "D1mr"),
					sim_has(cg, "D1mr"), dr, "of all L1-dcache accesses" };
	l[SL_L1IM] = (struct sim_line){ "L1-icache-load-misses", (double)simcount_ev(cg, "I1mr"),
					sim_has(cg, "I1mr"), ir, "of all L1-icache accesses" };
	l[SL_LLCL] = (struct sim_line){ "LLC-loads", llcl, sim_has(cg, l2 ? "D2mr" : "D1mr"), 0, NULL };
	l[SL_LLCM] = (struct sim_line){ "LLC-load-misses", (double)simcount_ev(cg, "DLmr"), sim_has(cg, "DLmr"),
					llcl, "of all LL-cache accesses" };
	double dtm = (double)simcount_ev(cg, "DTmr");
	l[SL_DTLBM] = (struct sim_line){ "dTLB-load-misses", dtm, sim_has(cg, "DTmr"), dr,
					 "of all dTLB cache accesses" };
	l[SL_DTLBW] = (struct sim_line){ "dTLB-walks", (double)simcount_ev(cg, "STmr"),
					 sim_has(cg, "DTmr") && sim_has(cg, "STmr"), dtm, "of all dTLB-load-misses" };
}

/* Events the lines above do not show (they still flow out, named as the
 * tool names them). */
static bool sim_ev_shown(const char *ev)
{
	static const char *const shown[] = { "Ir", "Dr", "Bc", "Bi", "Br", "Bcm", "Bim", "Brm", "D1mr", "I1mr",
					     "D2mr", "DLmr", "DTmr", "STmr" };

	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
		if (!strcmp(ev, shown[i]))
			return true;
	return false;
}

/* The native run's count of a hardware event, where the PMU counted it. */
static bool native_count(const struct report *r, const char *name, double *v)
{
	for (size_t i = 0; i < r->set->nr; i++)
		if (!strcmp(r->set->ev[i].name, name) && !r->smp[i].not_supported && r->smp[i].n) {
			*v = ev_mean(&r->smp[i]);
			return true;
		}
	return false;
}

static double native_cycles(const struct sim_result *sr)
{
	return sr->mhz > 0 && sr->tc_ns > 0 ? sr->tc_ns * sr->mhz / 1000.0 : 0;
}

/* Run the simulation and the model; 0, or 1 after one line on stderr
 * (status then holds the exit status to return). */
static int sim_run(struct report *r, const struct vgrun *vr, int signaled, int *status,
		   struct sim_result *sr)
{
	const struct stat_opts *o = r->o;
	int st = 0, err;

	if (signaled) {
		fprintf(stderr, "perfkit stat: '%s' was killed by signal %d (%s): nothing simulated\n", o->argv[0],
			signaled, strsignal(signaled));
		return 1;
	}
	if (interrupted) {
		fprintf(stderr, "perfkit stat: interrupted: nothing simulated\n");
		*status = 130;
		return 1;
	}
	fflush(NULL);
	err = simcount_run(vr, &o->so, o->argv, &sr->cg, &st);
	if (err) {
		fprintf(stderr, "perfkit stat: --simulate: %s\n", pk_errmsg());
		return 1;
	}
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "perfkit stat: '%s' was killed by signal %d (%s) under the simulator\n", o->argv[0],
			WTERMSIG(st), strsignal(WTERMSIG(st)));
		*status = 128 + WTERMSIG(st);
		return 1;
	}
	if (cpi_counts_from_events((const char *const *)sr->cg->ev, sr->cg->totals, sr->cg->nev, &sr->cc)) {
		fprintf(stderr, "perfkit stat: --simulate: %s\n", pk_errmsg());
		return 1;
	}
	cpi_params_default(&sr->par);
	if (cpi_params_path(sr->par_path, sizeof(sr->par_path))) {
		snprintf(sr->par_note, sizeof(sr->par_note), "no calibration file (no HOME or XDG_CACHE_HOME)");
	} else {
		err = cpi_params_read(sr->par_path, &sr->par);
		if (err == -ENOENT)
			snprintf(sr->par_note, sizeof(sr->par_note), "no calibration in %s", sr->par_path);
		else if (err) {
			snprintf(sr->par_note, sizeof(sr->par_note), "calibration not used: %s", pk_errmsg());
			cpi_params_default(&sr->par);
		}
	}
	sr->model_cycles = cpi_predict(&sr->par, &sr->cc, &sr->bd);
	if (cpi_host_mhz(NULL, &sr->mhz, &sr->mhz_src))
		sr->mhz = 0;
	for (size_t i = 0; i < r->set->nr; i++)
		if (cnt_kind_of(&r->set->ev[i].attr) == CNT_K_TASK_CLOCK && r->smp[i].n) {
			sr->tc_ns = ev_mean(&r->smp[i]);
			sr->tc_rel = st_rel_stderr_pct(r->smp[i].val, r->smp[i].n);
			break;
		}
	return 0;
}

static const char *par_label(const struct sim_result *sr)
{
	return sr->par.calibrated ? "calibrated" : "built-in defaults";
}

/* IPC as the reading prints it, read back, so the words agree with it. */
static double ipc_shown(double ipc)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.2f", ipc);
	return strtod(buf, NULL);
}

static int ipc_band(double ipc)
{
	return ipc < CNT_IPC_LOW ? 0 : ipc > CNT_IPC_HIGH ? 2 : 1;
}

/* Under --simulate the model's breakdown gives the verdict; the IPC words
 * only place the number (they name no cause the breakdown could contradict). */
static const char *ipc_words(double ipc)
{
	static const char *const w[] = { "below 1.0, the core mostly stalls (the line above says on what)",
					 "between 1.0 and 2.0, some stalls (the line above says on what)",
					 "above 2.0, the core mostly computes" };
	return w[ipc_band(ipc)];
}

static const char *ipc_band_name(double ipc)
{
	static const char *const w[] = { "below 1.0", "between 1.0 and 2.0", "above 2.0" };
	return w[ipc_band(ipc)];
}

/* The threads the simulated process ran (its "desc: threads:" line); 1 when
 * it says none. */
static int sim_threads(const struct cgfile *cg)
{
	for (size_t i = 0; i < cg->ndesc; i++) {
		const char *d = cg->desc[i];
		if (!strncmp(d, "threads:", 8))
			return atoi(d + 8) > 1 ? atoi(d + 8) : 1;
	}
	return 1;
}

static void print_sim_std(struct report *r, const struct sim_result *sr, struct strbuf *sb)
{
	const struct stat_opts *o = r->o;
	struct sim_line l[SL_N];
	double real, est_nat = native_cycles(sr), est_ipc;
	bool pmu_cycles = native_count(r, "cycles", &real);
	int hw_missing = 0;

	print_header(r, sb);
	for (size_t i = 0; i < r->set->nr; i++) {
		if (r->set->ev[i].attr.type != PERF_TYPE_SOFTWARE && r->smp[i].not_supported) {
			hw_missing++;
			continue;
		}
		print_event_line(r, sb, i);
	}
	if (hw_missing)
		sb_addf(sb, "%18s      %d hardware events not supported here (no PMU): the lines marked (simulated) stand in for them\n",
			"<not supported>", hw_missing);

	sim_lines(sr->cg, l);
	est_ipc = est_nat > 0 ? l[SL_INSN].v / est_nat : (sr->model_cycles > 0 ? l[SL_INSN].v / sr->model_cycles : 0);
	sb_addf(sb, "\n Simulated by perfkit's Valgrind tool (%s, one run of the command):\n\n",
		sim_has(sr->cg, "D2mr") ? "modern model" : "cachegrind model");
	for (int k = 0; k < SL_N; k++) {
		if (!l[k].have)
			continue;
		sb_addf(sb, "%18.0f      %-32s", l[k].v, l[k].name);
		if (k == SL_INSN && est_ipc > 0)
			sb_addf(sb, " # %8.2f %-23s", est_ipc, "insn per cycle (est.)");
		else if (l[k].unit && l[k].denom > 0)
			sb_addf(sb, " # %7.2f%% %-23s", 100 * l[k].v / l[k].denom, l[k].unit);
		else
			sb_addf(sb, "%35s", "");
		sb_addstr(sb, k == SL_INSN ? "  (simulated, exact)" : "  (simulated)");
		if (native_count(r, l[k].name, &real))
			sb_addf(sb, "  [counted: %.0f]", real);
		sb_addch(sb, '\n');
	}
	/* every other event of the tool, under its own name (perfkit cache's) */
	size_t col = 0;
	for (size_t i = 0; i < sr->cg->nev; i++) {
		if (sim_ev_shown(sr->cg->ev[i]))
			continue;
		char item[96];
		int n = snprintf(item, sizeof(item), "  %s %llu", sr->cg->ev[i], (unsigned long long)sr->cg->totals[i]);
		if (!col || col + (size_t)n > 96) {
			sb_addstr(sb, col ? "\n" : "\n   other simulated events (perfkit cache's names; simulated):\n");
			sb_addstr(sb, "   ");
			col = 3;
		}
		sb_addstr(sb, item);
		col += (size_t)n;
	}
	if (col)
		sb_addch(sb, '\n');
	sb_addstr(sb, "\n   simulated caches:\n");
	for (size_t i = 0; i < sr->cg->ndesc; i++)
		sb_addf(sb, "     %s\n", sr->cg->desc[i]);

	/* cycles and IPC */
	sb_addf(sb, "\n Estimated cycles and IPC (%s):\n\n",
		pmu_cycles ? "beside the cycles the PMU counted" : "this machine counts no cycles");
	if (pmu_cycles)
		sb_addf(sb, "%18.0f      %-32s # %8.2f %-23s  (counted)\n", real, "cycles", l[SL_INSN].v / real,
			"insn per cycle");
	if (est_nat > 0) {
		sb_addf(sb, "%18.0f      %-32s # %8.2f %-23s", est_nat, "cycles (native time)", l[SL_INSN].v / est_nat,
			"insn per cycle");
		if (o->runs > 1)
			sb_addf(sb, "  ( +-%6.2f%% )", sr->tc_rel);
		sb_addf(sb, "  (estimated: task-clock %.2f msec x %.0f MHz, %s)\n", sr->tc_ns / 1e6, sr->mhz,
			sr->mhz_src);
	} else {
		sb_addf(sb, "%18s      %-32s%35s  (the core's frequency is unknown: no cpu MHz, no cpufreq)\n",
			"<not estimated>", "cycles (native time)", "");
	}
	sb_addf(sb, "%18.0f      %-32s # %8.2f %-23s  (estimated: CPI model, %s)\n", sr->model_cycles,
		"cycles (model)", sr->model_cycles > 0 ? l[SL_INSN].v / sr->model_cycles : 0.0, "insn per cycle",
		par_label(sr));

	/* where they go */
	sb_addf(sb, "\n Where the cycles go (CPI model, %s", par_label(sr));
	if (sr->par.calibrated && sr->par.date[0])
		sb_addf(sb, " %s", sr->par.date);
	if (sr->par_note[0])
		sb_addf(sb, "; %s: run `perfkit calibrate` to measure them here", sr->par_note);
	sb_addstr(sb, "):\n\n");
	double tot = sr->bd.total > 0 ? sr->bd.total : 1;
	sb_addf(sb, "   %-14s %18.0f  %6.1f%%   %8.3f cycles x %.0f instructions\n", "compute", sr->bd.compute,
		100 * sr->bd.compute / tot, sr->par.base_cpi, sr->cc.instr);
	for (int k = 0; k < CPI_NCLASS; k++) {
		if (!sr->cc.have[k])
			continue;
		sb_addf(sb, "   %-14s %18.0f  %6.1f%%   %8.3f cycles x %.0f\n", cpi_class_label[k], sr->bd.part[k],
			100 * sr->bd.part[k] / tot, sr->par.pen[k], sr->cc.n[k]);
	}
	sb_addf(sb, "   %-14s %18.0f  %6.1f%%\n", "total", sr->bd.total, 100.0);
	sb_addch(sb, '\n');
	print_times(r, sb);

	/* One verdict, the model's breakdown; the IPC words only where the two
	 * estimates agree (the native one is task-clock x nominal MHz, off on
	 * a loaded or virtual machine). */
	struct strbuf rd = STRBUF_INIT;
	double ipc_n = est_nat > 0 ? l[SL_INSN].v / est_nat : 0, ipc_m = sr->model_cycles > 0 ? l[SL_INSN].v / sr->model_cycles : 0;
	cpi_reading(&sr->bd, &rd);
	if (pmu_cycles) {
		double ipc = ipc_shown(l[SL_INSN].v / real);
		sb_addf(&rd, "IPC %.2f (counted): %s\n", ipc, ipc_words(ipc));
	} else if (ipc_n > 0 && ipc_m > 0) {
		double in = ipc_shown(ipc_n), im = ipc_shown(ipc_m);
		if (ipc_band(in) == ipc_band(im))
			sb_addf(&rd, "IPC %.2f (estimated from the native time; the model's %.2f agrees): %s\n", in, im,
				ipc_words(in));
		else
			sb_addf(&rd, "IPC estimates disagree: %.2f from the native time (%s), %.2f by the model (%s); the verdict above is the model's. The native estimate assumes the core ran at %.0f MHz for all of the task-clock: frequency scaling, turbo, or other load on the machine (a shared or virtual CPU) make it wrong; the model assumes its constants fit this core (`perfkit calibrate` measures them).\n",
				in, ipc_band_name(in), im, ipc_band_name(im), sr->mhz);
	} else if (ipc_m > 0) {
		double im = ipc_shown(ipc_m);
		sb_addf(&rd, "IPC %.2f (estimated by the model): %s\n", im, ipc_words(im));
	}
	int nthr = sim_threads(sr->cg);
	double cpus = r->sum.elapsed_ns > 0 && r->sum.have[CNT_K_TASK_CLOCK] ? r->sum.v[CNT_K_TASK_CLOCK] / r->sum.elapsed_ns : 0;
	if (nthr > 1 || cpus > 1.2) {
		if (nthr > 1)
			sb_addf(&rd, "multi-threaded (%d threads): ", nthr);
		else
			sb_addf(&rd, "multi-threaded (%.2f CPUs utilized natively): ", cpus);
		sb_addstr(&rd, "the simulation runs the threads one at a time on one cache hierarchy and models no coherence traffic, so false or true sharing between cores costs nothing in these counts and the model's cycles; measure it natively (`perfkit bench`, `perfkit c2c`).\n");
	}
	if (l[SL_L1DM].have && l[SL_L1DM].denom > 0 && 100 * l[SL_L1DM].v / l[SL_L1DM].denom > CNT_MISS_PCT_FLAG)
		sb_addf(&rd, "L1-dcache load misses %.2f%% (simulated, above %.0f%%): a red flag in a hot loop; walk memory in order, in smaller blocks.\n",
			100 * l[SL_L1DM].v / l[SL_L1DM].denom, CNT_MISS_PCT_FLAG);
	if (l[SL_BRM].have && l[SL_BRM].denom > 0 && 100 * l[SL_BRM].v / l[SL_BRM].denom > CNT_MISS_PCT_FLAG)
		sb_addf(&rd, "branch misses %.2f%% of branches (simulated, above %.0f%%): a red flag in a hot loop; look for unpredictable branches.\n",
			100 * l[SL_BRM].v / l[SL_BRM].denom, CNT_MISS_PCT_FLAG);
	cnt_reading_cpu(&r->sum, &rd);
	add_reading(sb, &rd);
	sb_release(&rd);
}

/* -x: native events as perf writes them, then the simulated and estimated
 * ones with a last field saying so. */
static void print_sim_csv(struct report *r, const struct sim_result *sr, struct strbuf *sb)
{
	const char *x = r->o->sep;
	struct sim_line l[SL_N];
	double est_nat = native_cycles(sr);
	const char *var = r->o->runs > 1 ? "" : NULL;

	print_csv(r, sb);
	sim_lines(sr->cg, l);
	for (int k = 0; k < SL_N; k++) {
		if (!l[k].have)
			continue;
		sb_addf(sb, "%.0f%s%s%s", l[k].v, x, x, l[k].name);
		if (var)
			sb_addf(sb, "%s0.00%%", x);
		sb_addf(sb, "%s0%s100.00", x, x);
		if (l[k].unit && l[k].denom > 0)
			sb_addf(sb, "%s%.2f%s%s", x, 100 * l[k].v / l[k].denom, x, l[k].unit);
		else
			sb_addf(sb, "%s%s", x, x);
		sb_addf(sb, "%ssimulated\n", x);
	}
	for (size_t i = 0; i < sr->cg->nev; i++) {
		if (sim_ev_shown(sr->cg->ev[i]))
			continue;
		sb_addf(sb, "%llu%s%spkcache:%s", (unsigned long long)sr->cg->totals[i], x, x, sr->cg->ev[i]);
		if (var)
			sb_addf(sb, "%s0.00%%", x);
		sb_addf(sb, "%s0%s100.00%s%s%ssimulated\n", x, x, x, x, x);
	}
	if (est_nat > 0) {
		sb_addf(sb, "%.0f%s%scycles-native-time", est_nat, x, x);
		if (var)
			sb_addf(sb, "%s%.2f%%", x, sr->tc_rel);
		sb_addf(sb, "%s0%s100.00%s%.2f%sinsn per cycle%sestimated\n", x, x, x, l[SL_INSN].v / est_nat, x, x);
	}
	sb_addf(sb, "%.0f%s%scycles-model", sr->model_cycles, x, x);
	if (var)
		sb_addf(sb, "%s0.00%%", x);
	sb_addf(sb, "%s0%s100.00%s%.2f%sinsn per cycle%sestimated\n", x, x, x,
		sr->model_cycles > 0 ? l[SL_INSN].v / sr->model_cycles : 0.0, x, x);
	double tot = sr->bd.total > 0 ? sr->bd.total : 1;
	for (int k = -1; k < CPI_NCLASS; k++) {
		if (k >= 0 && !sr->cc.have[k])
			continue;
		double v = k < 0 ? sr->bd.compute : sr->bd.part[k];
		sb_addf(sb, "%.0f%s%smodel-cycles:%s", v, x, x, k < 0 ? "compute" : cpi_class_key[k]);
		if (var)
			sb_addf(sb, "%s0.00%%", x);
		sb_addf(sb, "%s0%s100.00%s%.2f%sof model cycles%sestimated\n", x, x, x, 100 * v / tot, x, x);
	}
}

static void json_obj(struct strbuf *sb, const char *name, double v, double metric, const char *unit,
		     const char *source, const char *note, int runs, double var)
{
	sb_addf(sb, "{\"counter-value\" : \"%f\", \"unit\" : \"\", \"event\" : \"", v);
	sb_add_json(sb, name, strlen(name));
	sb_addstr(sb, "\"");
	if (runs > 1)
		sb_addf(sb, ", \"variance\" : %.2f", var);
	sb_addf(sb, ", \"event-runtime\" : 0, \"pcnt-running\" : 100.00, \"metric-value\" : %f, \"metric-unit\" : \"", metric);
	sb_add_json(sb, unit, strlen(unit));
	sb_addf(sb, "\", \"source\" : \"%s\"", source);
	if (note) {
		sb_addstr(sb, ", \"method\" : \"");
		sb_add_json(sb, note, strlen(note));
		sb_addstr(sb, "\"");
	}
	sb_addstr(sb, "}\n");
}

static void print_sim_json(struct report *r, const struct sim_result *sr, struct strbuf *sb)
{
	struct sim_line l[SL_N];
	double est_nat = native_cycles(sr);
	int runs = r->o->runs;
	char note[256];

	print_json(r, sb);
	sim_lines(sr->cg, l);
	for (int k = 0; k < SL_N; k++)
		if (l[k].have)
			json_obj(sb, l[k].name, l[k].v, l[k].unit && l[k].denom > 0 ? 100 * l[k].v / l[k].denom : 0,
				 l[k].unit && l[k].denom > 0 ? l[k].unit : "", "simulated", NULL, runs, 0);
	for (size_t i = 0; i < sr->cg->nev; i++) {
		if (sim_ev_shown(sr->cg->ev[i]))
			continue;
		char nm[64];
		snprintf(nm, sizeof(nm), "pkcache:%s", sr->cg->ev[i]);
		json_obj(sb, nm, (double)sr->cg->totals[i], 0, "", "simulated", NULL, runs, 0);
	}
	if (est_nat > 0) {
		snprintf(note, sizeof(note), "task-clock x %.0f MHz (%s)", sr->mhz, sr->mhz_src);
		json_obj(sb, "cycles-native-time", est_nat, l[SL_INSN].v / est_nat, "insn per cycle", "estimated",
			 note, runs, sr->tc_rel);
	}
	snprintf(note, sizeof(note), "CPI model, %s", par_label(sr));
	json_obj(sb, "cycles-model", sr->model_cycles, sr->model_cycles > 0 ? l[SL_INSN].v / sr->model_cycles : 0,
		 "insn per cycle", "estimated", note, runs, 0);
	double tot = sr->bd.total > 0 ? sr->bd.total : 1;
	for (int k = -1; k < CPI_NCLASS; k++) {
		if (k >= 0 && !sr->cc.have[k])
			continue;
		double v = k < 0 ? sr->bd.compute : sr->bd.part[k];
		char nm[64];
		snprintf(nm, sizeof(nm), "model-cycles:%s", k < 0 ? "compute" : cpi_class_key[k]);
		json_obj(sb, nm, v, 100 * v / tot, "of model cycles", "estimated", NULL, runs, 0);
	}
}

/* ---- running the command ---- */

static int pidfd_open_(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

static void record_run(struct report *r, const struct cnt_set *sum)
{
	for (size_t i = 0; i < sum->nr; i++) {
		const struct cnt_event *e = &sum->ev[i];
		struct ev_samples *s = &r->smp[i];
		if (e->state == CNT_NOT_SUPPORTED) {
			s->not_supported = 1;
			s->open_errno = e->open_errno;
			continue;
		}
		if (e->state == CNT_NOT_COUNTED) {
			s->not_counted++;
			continue;
		}
		s->val[s->n++] = (double)e->value;
		s->enabled += (double)e->enabled;
		s->running += (double)e->running;
	}
}

/* prev takes cur's counts (same events): the start of the next interval */
static void keep_counts(struct cnt_set *prev, const struct cnt_set *cur)
{
	for (size_t i = 0; i < prev->nr && i < cur->nr; i++) {
		prev->ev[i].raw = cur->ev[i].raw;
		prev->ev[i].value = cur->ev[i].value;
		prev->ev[i].enabled = cur->ev[i].enabled;
		prev->ev[i].running = cur->ev[i].running;
	}
}

/* One interval's lines (an event each, no time) into tmp, for the counts
 * of cur since prev (NULL: cur's own); lab: event i's line headed by
 * lab[i] (--per-*'s group), or NULL. */
static void interval_body(struct strbuf *tmp, const struct cnt_set *cur, const struct cnt_set *prev,
			  const struct aggr_label *lab, const struct stat_opts *o)
{
	struct stat_opts io = *o;
	struct ev_samples *smp = xcalloc(cur->nr ? cur->nr : 1, sizeof(*smp));
	double *vals = xcalloc(cur->nr ? cur->nr : 1, sizeof(*vals));
	double elapsed = o->interval_ms / 1e3;

	io.runs = 1;
	for (size_t i = 0; i < cur->nr; i++) {
		const struct cnt_event *e = &cur->ev[i];
		const struct cnt_event *pe = prev && i < prev->nr ? &prev->ev[i] : NULL;

		smp[i].val = &vals[i];
		if (e->state == CNT_NOT_SUPPORTED) {
			smp[i].not_supported = 1;
			continue;
		}
		if (e->state == CNT_NOT_COUNTED)
			continue;
		vals[i] = (double)(e->value - (pe ? pe->value : 0));
		smp[i].enabled = (double)(e->enabled - (pe ? pe->enabled : 0));
		smp[i].running = (double)(e->running - (pe ? pe->running : 0));
		/* an event that did not run in the interval (the task slept:
		 * a task's events run only while it does) is "<not counted>",
		 * as perf prints it, not a zero with a metric */
		smp[i].n = smp[i].running > 0 && smp[i].enabled > 0;
	}

	struct report r = { .o = &io, .set = cur, .smp = smp, .elapsed = &elapsed, .nruns = 1 };

	build_summary(&r);
	for (size_t i = 0; i < cur->nr; i++) {
		if (o->json) {
			print_json_line(&r, tmp, i, lab ? lab[i].json : NULL);
		} else if (o->sep) {
			if (lab)
				sb_addstr(tmp, lab[i].csv);
			print_csv_line(&r, tmp, i);
		} else {
			if (lab)
				sb_addstr(tmp, lab[i].std);
			print_event_line(&r, tmp, i);
		}
	}
	free(vals);
	free(smp);
}

/* perf stat -I's line head: the time, then a label (-A's "CPU0", or ""). */
static void interval_head(struct strbuf *sb, double t_s, const char *line, size_t len, int cpu,
			  const struct stat_opts *o)
{
	if (o->json && line[0] == '{') {
		sb_addf(sb, "{\"interval\" : %.9f, ", t_s);
		if (cpu >= 0)
			sb_addf(sb, "\"cpu\" : \"%d\", ", cpu);
		sb_add(sb, line + 1, len - 1);
		return;
	}
	sb_addf(sb, o->sep ? "%16.9f%s" : "%16.9f ", t_s, o->sep ? o->sep : "");
	if (cpu >= 0)
		sb_addf(sb, o->sep ? "CPU%d%s" : "CPU%-8d", cpu, o->sep ? o->sep : "");
	sb_add(sb, line, len);
}

/* One -I interval as perf stat 6.1 prints it: each line of the table
 * (text, -x CSV or -j JSON, with its metric: CPUs utilized over the
 * nominal interval, as perf, and rates per second of the interval's
 * task-clock) for the counts since prev, the time first ("%16.9f " in
 * text and CSV, "interval" in JSON), then lab[i] for event i's line
 * (--per-*'s group) when lab is given. */
static void print_interval(struct strbuf *sb, double t_s, const struct cnt_set *cur,
			   const struct cnt_set *prev, const struct aggr_label *lab, const struct stat_opts *o)
{
	struct strbuf tmp;

	sb_init(&tmp, 4096);
	interval_body(&tmp, cur, prev, lab, o);
	for (size_t at = 0; at < tmp.len;) {
		const char *line = tmp.buf + at, *nl = memchr(line, '\n', tmp.len - at);
		size_t len = nl ? (size_t)(nl - line) + 1 : tmp.len - at;

		interval_head(sb, t_s, line, len, -1, o);
		at += len;
	}
	sb_release(&tmp);
}

/* -I with --per-socket, -die, -core or -node: each CPU's counts since its
 * prev[c] (then prev[c] takes them) summed by group as per_groups() sums
 * a run's, the group's lines together, each headed by the time and the
 * group's label ("S0        2"), as perf stat -I --per-*.  int_ns: the
 * interval's length (duration_time's count).  Returns 0, or -1 when the
 * topology cannot be read (pk_error set). */
static int print_interval_per(struct strbuf *sb, double t_s, const struct cnt_set *cpus, struct cnt_set *prev,
			      int n, uint64_t int_ns, const struct stat_opts *o)
{
	struct cnt_set *delta = xcalloc((size_t)n + 1, sizeof(*delta)), *sets = NULL;
	struct aggr_label *lab = NULL;
	size_t nev = n ? cpus[0].nr : 0;
	int ng;

	for (int c = 0; c < n; c++) {
		add_events(&delta[c], o);
		for (size_t k = 0; k < delta[c].nr && k < cpus[c].nr; k++) {
			const struct cnt_event *e = &cpus[c].ev[k], *pe = &prev[c].ev[k];
			struct cnt_event *d = &delta[c].ev[k];

			d->state = e->state;
			d->open_errno = e->open_errno;
			d->raw = e->raw - pe->raw;
			d->enabled = e->enabled - pe->enabled;
			d->running = e->running - pe->running;
		}
		keep_counts(&prev[c], &cpus[c]);
	}
	ng = per_groups(o, delta, n, nev, int_ns, &sets, &lab);
	for (int g = 0; g < ng; g++) {
		print_interval(sb, t_s, &sets[g], NULL, &lab[(size_t)g * nev], o);
		cnt_set_release(&sets[g]);
	}
	for (int c = 0; c < n; c++)
		cnt_set_release(&delta[c]);
	free(delta);
	free(sets);
	free(lab);
	return ng < 0 ? -1 : 0;
}

/* -I with -A or --per-thread: each set's counts (a CPU's, a thread's)
 * since its prev[c] (then prev[c] takes them), event by event and set by
 * set, each line headed by the time and the set's label: labels NULL,
 * -A's "CPU0" (perf's tool event on the first CPU only, as perf stat -A
 * -I); else --per-thread's "comm-TID" (labels[c]), an event's threads by
 * their interval's count, largest first (equal ones, and those not
 * counted, in their order), as perf stat -I --per-thread. */
struct set_rank {
	double v;
	int c;
};

static int cmp_set_rank(const void *pa, const void *pb)
{
	const struct set_rank *a = pa, *b = pb;

	if (a->v != b->v)
		return a->v > b->v ? -1 : 1;
	return a->c < b->c ? -1 : a->c > b->c;
}

static void print_interval_sets(struct strbuf *sb, double t_s, struct cnt_set *sets, struct cnt_set *prev, int n,
				uint64_t dur_ns, const struct aggr_label *labels, const struct stat_opts *o)
{
	size_t nev = n ? sets[0].nr : 0, nl = (size_t)n * (nev ? nev : 1) + 1;
	struct aggr_label *lab = labels ? xcalloc(nev ? nev : 1, sizeof(*lab)) : NULL;
	struct strbuf *body = xcalloc((size_t)n + 1, sizeof(*body));
	const char **line = xcalloc(nl, sizeof(*line));   /* set c's event i: [c * nev + i] */
	size_t *len = xcalloc(nl, sizeof(*len));
	double *count = xcalloc(nl, sizeof(*count));
	struct set_rank *rank = xcalloc((size_t)n + 1, sizeof(*rank));

	for (int c = 0; c < n; c++) {
		cnt_set_duration(&sets[c], dur_ns);
		for (size_t i = 0; i < nev && i < sets[c].nr; i++) {
			const struct cnt_event *e = &sets[c].ev[i], *pe = &prev[c].ev[i];

			if (lab)
				lab[i] = labels[c];
			/* not counted in the interval (the thread slept): last */
			count[(size_t)c * nev + i] = e->state == CNT_OK && e->running > pe->running
							     ? (double)(e->value - pe->value) : -1;
		}
		sb_init(&body[c], 1024);
		interval_body(&body[c], &sets[c], &prev[c], lab, o);
		keep_counts(&prev[c], &sets[c]);
		for (size_t i = 0, at = 0; i < nev && at < body[c].len; i++) {   /* a line an event */
			const char *l = body[c].buf + at, *nlp = memchr(l, '\n', body[c].len - at);

			line[(size_t)c * nev + i] = l;
			len[(size_t)c * nev + i] = nlp ? (size_t)(nlp - l) + 1 : body[c].len - at;
			at += len[(size_t)c * nev + i];
		}
	}
	for (size_t i = 0; i < nev; i++) {
		for (int c = 0; c < n; c++)
			rank[c] = (struct set_rank){ labels ? count[(size_t)c * nev + i] : 0, c };
		if (labels)
			qsort(rank, (size_t)n, sizeof(*rank), cmp_set_rank);
		for (int k = 0; k < n; k++) {
			int c = rank[k].c;
			size_t at = (size_t)c * nev + i;

			if (!line[at] || (!labels && c > 0 && sets[c].ev[i].duration))
				continue;   /* -A: perf's tool event, the first CPU's only */
			interval_head(sb, t_s, line[at], len[at], labels ? -1 : o->ncpus ? o->cpus[c] : c, o);
		}
	}
	for (int c = 0; c < n; c++)
		sb_release(&body[c]);
	free(body);
	free(line);
	free(len);
	free(count);
	free(rank);
	free(lab);
}

static int flush_out(FILE *out, struct strbuf *sb)
{
	if (sb->len && fwrite(sb->buf, 1, sb->len, out) != sb->len)
		return -1;
	sb_reset(sb);
	return fflush(out);
}

/* One -I interval, el_ns since the start, in the form asked: --per-*'s
 * groups (*last_ns: the last interval's end, for duration_time; then this
 * one's), -A's CPUs (cpu_prev: their last counts), else the sums (cur, read
 * now, since prev); into sb, then out (nothing with --quiet).  Returns 0,
 * or -1 when --per-*'s topology cannot be read (said on stderr). */
static int interval_out(FILE *out, struct strbuf *sb, double el_ns, uint64_t *last_ns, const struct targets *t,
			struct cnt_set *cpu_prev, struct cnt_set *cur, const struct cnt_set *prev,
			const struct stat_opts *o)
{
	int ret = 0;

	cnt_set_duration(cur, (uint64_t)el_ns);
	if (cpu_prev && o->per == PER_THREAD) {
		struct aggr_label *lab = thread_labels(t->nr, t->tids, t->comms, o);

		print_interval_sets(sb, el_ns / 1e9, t->sets, cpu_prev, t->nr, (uint64_t)el_ns, lab, o);
		free(lab);
	} else if (cpu_prev && o->per) {
		if (print_interval_per(sb, el_ns / 1e9, t->sets, cpu_prev, t->nr, (uint64_t)el_ns - *last_ns, o)) {
			fprintf(stderr, "perfkit stat: %s\n", pk_errmsg());
			ret = -1;
		}
		*last_ns = (uint64_t)el_ns;
	} else if (cpu_prev) {
		print_interval_sets(sb, el_ns / 1e9, t->sets, cpu_prev, t->nr, (uint64_t)el_ns, NULL, o);
	} else {
		print_interval(sb, el_ns / 1e9, cur, prev, NULL, o);
	}
	if (o->quiet)
		sb_reset(sb);
	flush_out(out, sb);
	return ret;
}

/* perf_event_paranoid made some events count user space only: their
 * names (with ":u") into the summed set, and one line, as perf -v says */
static void note_user_only(const struct cnt_set *opened, struct cnt_set *sum, bool say)
{
	for (size_t k = 0; k < sum->nr && k < opened->nr; k++)
		if (opened->ev[k].user_only && !sum->ev[k].user_only) {
			free(sum->ev[k].name);
			sum->ev[k].name = xstrdup(opened->ev[k].name);
			sum->ev[k].user_only = true;
		}
	if (say)
		fprintf(stderr, "perfkit stat: kernel.perf_event_paranoid=%d: counting user space only "
			"(events marked :u); run as root or lower it to count the kernel too\n",
			opened->paranoid_fallback);
}

/* an option value refused: the message, and the usage exit status */
static int opt_error(struct strbuf *events)
{
	fprintf(stderr, "perfkit stat: %s\n", pk_errmsg());
	sb_release(events);
	return 2;
}

int cmd_stat(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json-output", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "detailed", no_argument, NULL, 'd' },
		{ "interval-print", required_argument, NULL, 'I' },
		{ "simulate", no_argument, NULL, 1099 },
		{ "tid", required_argument, NULL, 't' },
		{ "null", no_argument, NULL, 'n' },
		{ "no-inherit", no_argument, NULL, 'i' },
		{ "sync", no_argument, NULL, 'S' },
		{ "append", no_argument, NULL, 1100 },
		{ "pre", required_argument, NULL, 1101 },
		{ "post", required_argument, NULL, 1102 },
		{ "interval-count", required_argument, NULL, 1103 },
		{ "timeout", required_argument, NULL, 1104 },
		{ "quiet", no_argument, NULL, 1105 },
		{ "no-aggr", no_argument, NULL, 'A' },
		{ "per-socket", no_argument, NULL, 1107 },
		{ "per-die", no_argument, NULL, 1108 },
		{ "per-core", no_argument, NULL, 1109 },
		{ "per-node", no_argument, NULL, 1110 },
		{ "per-thread", no_argument, NULL, 1111 },
		{ "all-user", no_argument, NULL, 1112 },
		{ "delay", required_argument, NULL, 'D' },
		{ "no-reading", no_argument, NULL, 1114 },
		{ "all-kernel", no_argument, NULL, 1113 },
		{ "big-num", no_argument, NULL, 'B' },
		{ "no-big-num", no_argument, NULL, 1106 },
		{ "cpu", required_argument, NULL, 'C' },
		{ "I1", required_argument, NULL, 1000 + SIM_I1 },
		{ "D1", required_argument, NULL, 1000 + SIM_D1 },
		{ "L2", required_argument, NULL, 1000 + SIM_L2 },
		{ "LL", required_argument, NULL, 1000 + SIM_LL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stat_opts o = { .runs = 1, .so = { .host_geometry = true } };
	struct strbuf events = STRBUF_INIT;
	struct vgrun vr = VGRUN_INIT;
	struct sim_result sim = { 0 };
	int c, status = 0, have_geom = 0, signaled = 0, no_big_num = 0, big_num_given = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+e:r:x:jo:p:t:adI:nhiSAC:BD:", lopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (!*optarg) {
				fprintf(stderr, "perfkit stat: -e: an empty event list\n");
				sb_release(&events);
				return 2;
			}
			if (events.len)
				sb_addch(&events, ',');
			sb_addstr(&events, optarg);
			break;
		case 'r':
			if (pk_parse_int("-r", optarg, 0, 1000000, &o.runs))
				return opt_error(&events);
			o.forever = o.runs == 0;   /* perf's "forever: 0" */
			if (o.forever)
				o.runs = 1;
			break;
		case 'x':   /* perf's one escape: -x '\t' is a tab */
			o.sep = strcmp(optarg, "\\t") ? optarg : "\t";
			break;
		case 'j': o.json = 1; break;
		case 'o': o.output = optarg; break;
		case 'p':
		case 't':
			if (c == 't' && o.npids && !o.by_tid)
				break;   /* -p and -t: the PIDs win, as perf's target */
			o.by_tid = c == 't';
			if (parse_pids(&o, c == 't' ? "-t" : "-p", optarg))
				return opt_error(&events);
			break;
		case 'n': o.null_run = 1; break;
		case 'i': o.no_inherit = 1; break;
		case 'S': o.sync = 1; break;
		case 1100: o.append = 1; break;
		case 1101: o.pre_cmd = optarg; break;
		case 1102: o.post_cmd = optarg; break;
		case 1103:
			if (pk_parse_int("--interval-count", optarg, 1, INT_MAX, &o.interval_count))
				return opt_error(&events);
			break;
		case 1104:
			if (pk_parse_int("--timeout", optarg, 10, INT_MAX, &o.timeout_ms))
				return opt_error(&events);
			break;
		case 1105: o.quiet = 1; break;
		case 'A': o.no_aggr = 1, o.per = PER_NONE; break;   /* the last of these wins, as perf's */
		case 1107: case 1108: case 1109: case 1110: case 1111:
			o.per = c == 1107 ? PER_SOCKET : c == 1108 ? PER_DIE : c == 1109 ? PER_CORE :
				c == 1110 ? PER_NODE : PER_THREAD;
			o.no_aggr = 0;
			break;
		case 'B': no_big_num = 0, big_num_given = 1; break;
		case 1106: no_big_num = 1, big_num_given = 0; break;
		case 'C':
			if (parse_cpus(&o, optarg))
				return opt_error(&events);
			o.all_cpus = 1;   /* system-wide, on those CPUs */
			break;
		case 'a': o.all_cpus = 1; break;
		case 'd': o.detailed++; break;
		case 'I':
			if (pk_parse_int("-I", optarg, 1, INT_MAX, &o.interval_ms))
				return opt_error(&events);
			break;
		case 1099: o.simulate = 1; break;
		case 1112: o.all_user = 1; o.all_kernel = 0; break;   /* the last one wins */
		case 1114: o.no_reading = 1; break;
		case 'D': {   /* perf's -D MSECS */
			uint64_t ms;

			if (pk_parse_u64("-D", optarg, 0, 3600000, &ms))
				return opt_error(&events);
			o.delay_ms = (unsigned)ms;
			break;
		}
		case 1113: o.all_kernel = 1; o.all_user = 0; break;
		case 1000 + SIM_I1: case 1000 + SIM_D1: case 1000 + SIM_L2: case 1000 + SIM_LL: {
			static const char *const lv[] = { "--I1", "--D1", "--L2", "--LL" };
			int k = c - 1000;
			if (cache_geom_parse(lv[k], optarg, &o.so.geom[k]) < 0)
				return opt_error(&events);
			o.so.have[k] = true;
			have_geom = 1;
			break;
		}
		case 'h': usage(stdout); sb_release(&events); return 0;
		default:   /* getopt named the option: one line more, not the whole help */
			fprintf(stderr, "usage: perfkit stat [options] [-- CMD [ARGS...]]   (perfkit stat --help: the options)\n");
			sb_release(&events);
			return 2;
		}
	}
	o.argv = argv + optind;
	o.argc = argc - optind;
	if (events.len)
		o.events = events.buf;
	if (o.argc == 0 && o.pid <= 0 && !o.all_cpus)   /* perf: no command, no target: system-wide */
		o.all_cpus = 1;
	if (o.sep && o.json) {
		fprintf(stderr, "perfkit stat: -x and -j cannot be used together\n");
		sb_release(&events);
		return 2;
	}
	if (o.sep && big_num_given) {   /* perf's refusal, word for word */
		fprintf(stderr, "perfkit stat: -B option not supported with -x\n");
		sb_release(&events);
		return 2;
	}
	/* perf's target__validate: a process given wins over -a or -C,
	 * with a warning */
	if (o.pid > 0 && o.all_cpus) {
		fprintf(stderr, "perfkit stat: warning: PID/TID switch overriding %s\n", o.ncpus ? "CPU" : "SYSTEM");
		o.all_cpus = 0, o.ncpus = 0, o.cpu_arg = NULL;
	}
	/* the locale's numbers in the text table, as perf (setlocale(LC_ALL,
	 * "") and the ' flag): its thousands separator, and its decimal point */
	if (!o.sep && !o.json && !no_big_num && setlocale(LC_NUMERIC, "")) {
		const struct lconv *lc = localeconv();

		o.big_num = lc->thousands_sep && *lc->thousands_sep;
	}
	const char *bad = NULL;   /* a combination refused, as perf stat refuses it */
	if ((o.pid > 0 || o.interval_ms || (o.all_cpus && (!o.argc || o.no_aggr || o.per))) &&
	    (o.runs > 1 || o.forever))
		bad = "-r cannot be combined with -p, -t, -I, -A or --per-*, nor -a without a command";
	else if (o.interval_count && !o.interval_ms)
		bad = "--interval-count needs -I";
	else if (o.timeout_ms && o.interval_ms)
		bad = "--timeout is not supported with -I";
	else if (o.output && !*o.output)
		bad = "-o: an empty file name";
	else if (o.append && !o.output)
		bad = "--append needs -o FILE";
	else if (o.no_aggr && !o.all_cpus)
		bad = "-A (per CPU) needs -a or -C, as perf stat";
	else if (o.per && o.per != PER_THREAD && !o.all_cpus)
		bad = "--per-socket, --per-die, --per-core and --per-node need -a or -C, as perf stat";
	else if (o.per == PER_THREAD && o.pid <= 0)
		bad = "--per-thread needs -p or -t (perf's system-wide form is not supported)";
	else if ((o.no_aggr || o.per) && o.simulate)
		bad = "-A and --per-* count the machine's CPUs: --simulate cannot be combined with them";
	else if (o.forever && (o.simulate || o.no_aggr || o.per))
		bad = "-r 0 cannot be combined with --simulate, -A or --per-*";
	else if (o.null_run && o.simulate)
		bad = "-n counts nothing: --simulate cannot be combined with it";
	if (bad) {
		fprintf(stderr, "perfkit stat: %s\n", bad);
		sb_release(&events);
		return 2;
	}
	if (have_geom && !o.simulate) {
		fprintf(stderr, "perfkit stat: --I1, --D1, --L2 and --LL set the simulated caches: they need --simulate\n");
		sb_release(&events);
		return 2;
	}
	if (o.simulate) {
		if (o.pid > 0 || o.all_cpus || o.interval_ms || events.len) {
			fprintf(stderr, "perfkit stat: --simulate runs a command with its own events: -p, -a, -I and -e cannot be combined with it\n");
			sb_release(&events);
			return 2;
		}
		if (!pk_options_only && vgrun_find(&vr)) {   /* (the harness: no lookup) */
			fprintf(stderr, "perfkit stat: --simulate: %s\n", pk_errmsg());
			vgrun_release(&vr);
			sb_release(&events);
			return 1;
		}
		o.events = SIM_NATIVE_EVENTS;
	}

	/* validate the events before running anything */
	struct cnt_set sum = CNT_SET_INIT;
	int err = add_events(&sum, &o);
	if (err) {
		fprintf(stderr, "perfkit stat: %s\n", pk_errmsg());
		cnt_set_release(&sum);
		sb_release(&events);
		vgrun_release(&vr);
		return 2;
	}
	if (pk_options_only) {   /* the option fuzz harness: stop before running */
		cnt_set_release(&sum);
		sb_release(&events);
		vgrun_release(&vr);
		return 0;
	}

	FILE *out = stderr;
	struct outfile of;
	FILE *append = NULL;
	if (o.output) {
		/* --append: added to the file as it is (a log), so written in
		 * place; else a temp file renamed over FILE at the end */
		if (o.append && !(append = fopen(o.output, "a")))
			pk_error(errno, "%s: cannot open for appending: %s", o.output, strerror(errno));
		if (o.append ? !append : of_open_shared(&of, o.output) != 0) {
			fprintf(stderr, "perfkit stat: %s\n", pk_errmsg());
			cnt_set_release(&sum);
			sb_release(&events);
			vgrun_release(&vr);
			return 1;
		}
		out = o.append ? append : of.f;
		if (!o.quiet) {   /* as perf stat -o */
			time_t now = time(NULL);
			struct tm tm;
			char when[64];   /* ctime(3)'s form, as perf writes it */

			if (!localtime_r(&now, &tm) || !strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm))
				snprintf(when, sizeof(when), "?");
			fprintf(out, "# started on %s\n\n", when);
		}
	}

	struct report r = { .o = &o, .set = &sum };
	r.smp = xcalloc(sum.nr, sizeof(*r.smp));
	for (size_t i = 0; i < sum.nr; i++)
		r.smp[i].val = xcalloc((size_t)o.runs, sizeof(double));
	r.elapsed = xcalloc((size_t)o.runs, sizeof(double));

	struct sigaction sa = { .sa_handler = on_sigint }, old_int, old_term;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	struct strbuf sb = STRBUF_INIT;
	int rc = 0;
	struct cnt_set *percpu = NULL;   /* -A: each CPU's counts */
	int npercpu = 0;
	uint64_t percpu_ns = 0;          /* the run's wall time, of percpu's counts */
	pid_t *ptids = NULL;             /* --per-thread: percpu[i]'s thread */
	char (*pcomms)[16] = NULL;       /* and its name */
	for (int run = 0; run < o.runs && !interrupted; run++) {
		struct targets t = { 0 };
		struct pk_child ch = PK_CHILD_INIT;
		bool have_cmd = o.argc > 0;
		if (o.sync)
			sync();
		if ((err = run_hook("--pre", o.pre_cmd))) {
			rc = 1;
			break;
		}
		if (have_cmd && (err = pk_child_fork(&ch, o.argv, NULL, 0))) {
			rc = 1;
			break;
		}
		pid_t target = o.pid > 0 ? o.pid : ch.pid;
		unsigned flags = 0;
		if (o.pid <= 0 && !o.all_cpus)   /* -D: started by hand after the delay */
			flags = (o.delay_ms ? 0 : CNT_ENABLE_ON_EXEC) | (o.no_inherit ? 0 : CNT_INHERIT);
		else if (o.pid > 0 && !o.no_inherit)   /* as perf stat -p: the children it forks from now on too */
			flags = CNT_INHERIT;
		err = open_targets(&t, &o, target, o.all_cpus, flags);
		if (!err && t.sets[0].paranoid_fallback)
			note_user_only(&t.sets[0], &sum, run == 0 && !r.nruns_total);
		if (!err && !(flags & CNT_ENABLE_ON_EXEC) && !o.delay_ms)
			err = enable_targets(&t);
		if (err) {
			if (have_cmd)
				pk_child_abort(&ch);
			close_targets(&t);
			rc = 1;
			break;
		}
		if (o.delay_ms && !o.quiet)
			fputs("Events disabled\n", stderr);   /* perf's words around -D */
		double t0 = now_ns();
		int exec_err = have_cmd ? pk_child_release(&ch) : 0;
		if (exec_err) {
			waitpid(ch.pid, NULL, 0);
			err = pk_error(exec_err, "cannot run '%s': %s", o.argv[0], strerror(exec_err));
			close_targets(&t);
			rc = 1;
			/* the shell's: 126 found but not runnable, 127 not found */
			status = exec_err == EACCES || exec_err == ENOEXEC || exec_err == EISDIR ? 126 : 127;
			break;
		}
		if (o.delay_ms) {
			/* -D: the command runs uncounted for the delay (or until it
			 * ends), then the counters start and the clock with them,
			 * as perf stat's enable_counters */
			int dfd = have_cmd ? pidfd_open_(ch.pid) : -1;
			struct pollfd dp = { .fd = dfd, .events = POLLIN };
			bool ended = dfd >= 0 && poll(&dp, 1, (int)o.delay_ms) > 0;

			if (dfd < 0)
				poll(NULL, 0, (int)o.delay_ms);
			if (dfd >= 0)
				close(dfd);
			if (!ended)
				err = enable_targets(&t);
			if (!ended && !o.quiet)
				fputs("Events enabled\n", stderr);
			t0 = now_ns();
		}
		/* wait for the end: the command, the watched process, or Ctrl-C */
		int pfd = -1;
		if (have_cmd)
			pfd = pidfd_open_(ch.pid);
		else if (o.npids == 1 && !o.by_tid)
			pfd = pidfd_open_(o.pid);
		/* --timeout: the command stopped (SIGTERM, as perf) at the deadline */
		double deadline = o.timeout_ms ? t0 + o.timeout_ms * 1e6 : 0;
		int intervals = 0;
		bool stopped = false;   /* by --timeout or --interval-count */
		struct cnt_set prev = CNT_SET_INIT, cur = CNT_SET_INIT;
		struct cnt_set *cpu_prev = NULL;   /* -I -A: each CPU's last interval's counts */
		if (o.interval_ms) {
			add_events(&prev, &o);
			add_events(&cur, &o);
			note_user_only(&t.sets[0], &cur, false);
			if (o.no_aggr || o.per) {   /* -A, --per-*: counted by CPU */
				cpu_prev = xcalloc((size_t)t.nr + 1, sizeof(*cpu_prev));
				for (int ci = 0; ci < t.nr; ci++)
					add_events(&cpu_prev[ci], &o);
			}
		}
		double next = t0 + o.interval_ms * 1e6;
		if (o.interval_ms && !o.sep && !o.json && !o.quiet) {
			/* perf stat's heads, aggregation by aggregation */
			static const char *const per_head[] = {
				[PER_SOCKET] = "#           time socket cpus             counts unit events\n",
				[PER_DIE] = "#           time die          cpus             counts unit events\n",
				[PER_CORE] = "#           time core            cpus             counts unit events\n",
				[PER_NODE] = "#           time node   cpus             counts unit events\n",
			};
			sb_addstr(&sb, o.no_aggr ? "#           time CPU                    counts unit events\n"
				       : o.per == PER_THREAD ? "#           time             comm-pid                  counts unit events\n"
				       : o.per   ? per_head[o.per]
						 : "#           time             counts unit events\n");
			flush_out(out, &sb);
		}
		uint64_t last_ns = 0;   /* -I --per-*: the last interval's end */
		int wstatus = 0;
		struct rusage ru = { 0 };
		bool done = false;
		while (!done && !interrupted) {
			int timeout = o.interval_ms ? (int)((next - now_ns()) / 1e6) : -1;
			if (deadline)
				timeout = (int)((deadline - now_ns()) / 1e6);
			if ((o.interval_ms || deadline) && timeout < 0)
				timeout = 0;
			if (pfd >= 0) {
				struct pollfd p = { .fd = pfd, .events = POLLIN };
				int n = poll(&p, 1, timeout);
				if (n > 0)
					done = true;
			} else if (have_cmd) {
				/* no pidfd: wait directly (no intervals) */
				done = true;
			} else if (o.pid > 0) {
				poll(NULL, 0, timeout < 0 || timeout > 100 ? 100 : timeout);
				if (!cap_any_alive(o.pids, (size_t)o.npids))
					done = true;
			} else {
				poll(NULL, 0, timeout < 0 || timeout > 100 ? 100 : timeout);
			}
			if (deadline && !done && now_ns() >= deadline) {
				done = stopped = true;
				if (have_cmd)
					kill(ch.pid, SIGTERM);
			}
			if (o.interval_ms && now_ns() >= next && !done) {
				if (read_targets(&t, &cur) == 0) {
					double tn = now_ns();

					if (interval_out(out, &sb, tn - t0, &last_ns, &t, cpu_prev, &cur, &prev, &o))
						done = stopped = true;
					if (o.interval_count && ++intervals == o.interval_count) {
						done = stopped = true;
						if (have_cmd)
							kill(ch.pid, SIGTERM);
					}
					keep_counts(&prev, &cur);
				}
				next += o.interval_ms * 1e6;
			}
		}
		/* the last, partial interval, as perf stat -I prints it */
		if (o.interval_ms && !stopped && now_ns() > next - o.interval_ms * 1e6 && read_targets(&t, &cur) == 0) {
			double tn = now_ns();

			(void)interval_out(out, &sb, tn - t0, &last_ns, &t, cpu_prev, &cur, &prev, &o);
		}
		if (cpu_prev) {
			for (int ci = 0; ci < t.nr; ci++)
				cnt_set_release(&cpu_prev[ci]);
			free(cpu_prev);
		}
		if (have_cmd) {
			while (wait4(ch.pid, &wstatus, 0, &ru) < 0 && errno == EINTR)
				;
			if (WIFEXITED(wstatus))
				status = WEXITSTATUS(wstatus);
			else if (stopped && WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGTERM) {
				status = 0;   /* stopped as asked: perf stat exits 0, and says so */
				if (!o.quiet)
					fprintf(stderr, "%s: %s\n", o.argv[0], strsignal(SIGTERM));
			}
			else if (WIFSIGNALED(wstatus)) {
				status = 128 + WTERMSIG(wstatus);
				signaled = WTERMSIG(wstatus);
				/* as perf stat (psignal): "sh: Segmentation fault";
				 * --simulate says it in its own line */
				if (!o.simulate && !o.quiet && !(o.forever && interrupted))   /* perf: none in -r 0's Ctrl-C */
					fprintf(stderr, "%s: %s\n", o.argv[0], strsignal(signaled));
			}
		}
		double t1 = now_ns();
		if (pfd >= 0)
			close(pfd);
		cnt_set_release(&prev);
		cnt_set_release(&cur);
		err = read_targets(&t, &sum);
		cnt_set_duration(&sum, (uint64_t)(t1 - t0));   /* duration_time: the run's wall time */
		/* -A, --per-*: each CPU's (thread's) counts kept; with -I the
		 * intervals are the output */
		if (!err && (o.no_aggr || o.per) && !o.interval_ms && !percpu) {
			npercpu = t.nr;
			percpu = xcalloc((size_t)t.nr, sizeof(*percpu));
			if (o.per == PER_THREAD && t.tids) {
				ptids = xcalloc((size_t)t.nr, sizeof(*ptids));
				pcomms = xcalloc((size_t)t.nr, sizeof(*pcomms));
				memcpy(ptids, t.tids, (size_t)t.nr * sizeof(*ptids));
				memcpy(pcomms, t.comms, (size_t)t.nr * sizeof(*pcomms));
			}
			for (int cp = 0; cp < t.nr; cp++) {
				add_events(&percpu[cp], &o);
				for (size_t k = 0; k < percpu[cp].nr && k < t.sets[cp].nr; k++) {
					if (percpu[cp].ev[k].duration)
						continue;   /* set below */
					struct cnt_event *d = &percpu[cp].ev[k];
					const struct cnt_event *e = &t.sets[cp].ev[k];

					d->attr = e->attr;
					d->raw = e->raw;
					d->value = e->value;
					d->enabled = e->enabled;
					d->running = e->running;
					d->state = e->state;
					d->open_errno = e->open_errno;
				}
				cnt_set_duration(&percpu[cp], (uint64_t)(t1 - t0));
				percpu_ns = (uint64_t)(t1 - t0);
			}
		}
		close_targets(&t);
		if (err) {
			rc = 1;
			break;
		}
		if (o.forever && interrupted)
			break;   /* -r 0: the run Ctrl-C cut is not shown, as perf */
		record_run(&r, &sum);
		r.elapsed[r.nruns++] = (t1 - t0) / 1e9;
		r.user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		r.sys_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
		r.cpu_s_sum += r.user_s + r.sys_s;
		r.vcsw_sum += (double)ru.ru_nvcsw;
		r.ivcsw_sum += (double)ru.ru_nivcsw;
		if ((err = run_hook("--post", o.post_cmd))) {
			rc = 1;
			break;
		}
		if (o.forever) {   /* -r 0: this run's table, then the next run */
			build_summary(&r);
			print_table(&r, &sb);
			if (o.quiet)
				sb_reset(&sb);
			if (flush_out(out, &sb) != 0) {
				err = pk_error(errno, "write error: %s", strerror(errno));
				rc = 1;
				break;
			}
			r.nruns = 0, r.nruns_total++;
			r.cpu_s_sum = r.vcsw_sum = r.ivcsw_sum = 0;
			for (size_t i = 0; i < sum.nr; i++)
				r.smp[i] = (struct ev_samples){ .val = r.smp[i].val };
			run = -1;
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);

	if (rc) {
		fprintf(stderr, "perfkit stat: %s\n", pk_errmsg());
	} else if (r.nruns) {
		if (o.runs > 1 && r.nruns < (size_t)o.runs)
			o.runs = (int)r.nruns;
		build_summary(&r);
		/* with -I, as perf, the intervals are the whole output */
		if (o.simulate) {
			if (sim_run(&r, &vr, signaled, &status, &sim))
				rc = 1;
			else if (o.json)
				print_sim_json(&r, &sim, &sb);
			else if (o.sep)
				print_sim_csv(&r, &sim, &sb);
			else
				print_sim_std(&r, &sim, &sb);
		} else if (percpu) {
			struct cnt_set *sets = percpu;
			struct aggr_label *lab;
			size_t lab_nev = 0;
			int n = npercpu;

			if (o.per == PER_THREAD) {
				lab = thread_labels(npercpu, ptids, pcomms, &o);
			} else if (o.per) {
				lab_nev = sum.nr;
				n = per_groups(&o, percpu, npercpu, lab_nev, percpu_ns, &sets, &lab);
				if (n < 0)
					rc = 1, n = 0;
			} else {
				lab = cpu_labels(npercpu, &o);
			}
			struct report *pc = xcalloc((size_t)n + 1, sizeof(*pc));

			for (int g = 0; g < n; g++) {
				pc[g] = (struct report){ .o = &o, .set = &sets[g] };
				pc[g].smp = xcalloc(sets[g].nr ? sets[g].nr : 1, sizeof(*pc[g].smp));
				for (size_t i = 0; i < sets[g].nr; i++)
					pc[g].smp[i].val = xcalloc(1, sizeof(double));
				pc[g].elapsed = r.elapsed;
				pc[g].nruns = r.nruns;
				record_run(&pc[g], &sets[g]);
				build_summary(&pc[g]);
			}
			if (rc)
				fprintf(stderr, "perfkit stat: %s\n", pk_errmsg());
			else
				print_aggr(&r, pc, lab, lab_nev, n, !o.per || o.per == PER_THREAD, o.per == PER_THREAD, &sb);
			for (int g = 0; g < n; g++) {
				for (size_t i = 0; i < sets[g].nr; i++)
					free(pc[g].smp[i].val);
				free(pc[g].smp);
			}
			free(pc);
			if (sets != percpu) {
				for (int g = 0; g < n; g++)
					cnt_set_release(&sets[g]);
				free(sets);
			}
			free(lab);
		} else if (!o.interval_ms) {
			print_table(&r, &sb);
		}
		if (o.quiet)
			sb_reset(&sb);
		if (!rc && flush_out(out, &sb) != 0) {
			fprintf(stderr, "perfkit stat: write error: %s\n", strerror(errno));
			rc = 1;
		}
	}
	if (append) {
		if (fclose(append) != 0 && !rc) {
			fprintf(stderr, "perfkit stat: %s: %s\n", o.output, strerror(errno));
			rc = 1;
		}
	} else if (o.output) {
		if (rc) {
			of_abort(&of);
		} else if (of_commit(&of)) {
			fprintf(stderr, "perfkit stat: %s\n", pk_errmsg());
			rc = 1;
		}
	}
	for (size_t i = 0; i < sum.nr; i++)
		free(r.smp[i].val);
	free(r.smp);
	for (int cp = 0; cp < npercpu; cp++)
		cnt_set_release(&percpu[cp]);
	free(percpu);
	free(ptids);
	free(pcomms);
	free(r.elapsed);
	cnt_set_release(&sum);
	sb_release(&sb);
	sb_release(&events);
	cgfile_free(sim.cg);
	vgrun_release(&vr);
	if (rc)
		return status ? status : 1;
	if (interrupted && (o.argc == 0 || o.forever)) {
		/* no command (-a, -p, -t, -C) or -r 0: stopped by the signal, whose
		 * death the shell sees once the counts are out, as perf stat's
		 * sig_atexit (Ctrl-C: 130) */
		int sig = interrupted;

		fflush(stdout);
		signal(sig, SIG_DFL);
		raise(sig);
		return 128 + sig;
	}
	return status;
}
