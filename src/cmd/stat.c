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
#include "base/strbuf.h"
#include "counter/counter.h"
#include "counter/metrics.h"
#include "stats/stats.h"

struct stat_opts {
	const char *events;   /* joined -e lists, or NULL for the defaults */
	int runs;
	const char *sep;      /* -x */
	int json;
	const char *output;
	pid_t pid;
	int all_cpus;
	int interval_ms;
	char **argv;          /* the command, NULL-terminated */
	int argc;
};

/* Per-event samples over the runs. */
struct ev_samples {
	double *val;          /* scaled values of counted runs */
	size_t n;
	double enabled, running;   /* sums over runs */
	int not_supported, not_counted;
	int open_errno;
};

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
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
		"usage: perfkit stat [-e EVENTS] [-r N] [-x SEP | -j] [-o FILE] [-p PID | -a] [-I MS] [--] CMD [ARGS...]\n"
		"  -e, --event EVENTS        events to count (perf's names: software, hardware, cache events\n"
		"                            such as L1-dcache-load-misses, SUBSYS:NAME tracepoints;\n"
		"                            comma-separated, {a,b} groups)\n"
		"  -r, --repeat N            run the command N times; print means and ( +- relative SE )\n"
		"  -x, --field-separator S   CSV output in perf's field order\n"
		"  -j, --json-output         one JSON object per counter\n"
		"  -o, --output FILE         write the counts to FILE instead of stderr\n"
		"  -p, --pid PID             count an existing process (until it exits, Ctrl-C or CMD ends)\n"
		"  -a, --all-cpus            count on every CPU (until Ctrl-C or CMD ends)\n"
		"  -I, --interval-print MS   print the counts every MS milliseconds\n");
}

static int add_events(struct cnt_set *s, const char *events)
{
	return events ? cnt_set_add_list(s, events) : cnt_set_add_defaults(s);
}

/* Open one set per CPU (-a) or one for the target. */
struct targets {
	struct cnt_set *sets;
	int nr;
};

static int open_targets(struct targets *t, const char *events, pid_t pid, int all, unsigned flags)
{
	int ncpu = all ? (int)sysconf(_SC_NPROCESSORS_ONLN) : 1;

	if (ncpu < 1)
		ncpu = 1;
	t->sets = xcalloc((size_t)ncpu, sizeof(*t->sets));
	t->nr = ncpu;
	for (int i = 0; i < ncpu; i++) {
		int err = add_events(&t->sets[i], events);
		if (err)
			return err;
		err = cnt_set_open(&t->sets[i], all ? -1 : pid, all ? i : -1, flags);
		if (err)
			return err;
	}
	return 0;
}

static void close_targets(struct targets *t)
{
	for (int i = 0; i < t->nr; i++)
		cnt_set_release(&t->sets[i]);
	free(t->sets);
	t->sets = NULL;
	t->nr = 0;
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
	double user_s, sys_s;
	struct cnt_summary sum;
};

static double ev_mean(const struct ev_samples *s)
{
	return st_mean(s->val, s->n);
}

static void build_summary(struct report *r)
{
	memset(&r->sum, 0, sizeof(r->sum));
	r->sum.elapsed_ns = st_mean(r->elapsed, r->nruns) * 1e9;
	for (size_t i = 0; i < r->set->nr; i++) {
		int k = cnt_kind_of(&r->set->ev[i].attr);
		if (k < 0 || r->sum.have[k])
			continue;
		if (r->smp[i].not_supported)
			r->sum.unsupported[k] = true;
		else if (r->smp[i].n) {
			r->sum.have[k] = true;
			r->sum.v[k] = ev_mean(&r->smp[i]);
		}
	}
}

static void print_std(struct report *r, struct strbuf *sb)
{
	const struct stat_opts *o = r->o;

	sb_addstr(sb, "\n Performance counter stats for ");
	if (o->all_cpus)
		sb_addstr(sb, "'system wide'");
	else if (o->pid > 0)
		sb_addf(sb, "process id '%d'", (int)o->pid);
	else {
		sb_addch(sb, '\'');
		for (int i = 0; i < o->argc; i++)
			sb_addf(sb, "%s%s", i ? " " : "", o->argv[i]);
		sb_addch(sb, '\'');
	}
	if (o->runs > 1)
		sb_addf(sb, " (%d runs)", o->runs);
	sb_addstr(sb, ":\n\n");
	for (size_t i = 0; i < r->set->nr; i++) {
		const struct cnt_event *e = &r->set->ev[i];
		const struct ev_samples *s = &r->smp[i];
		size_t start = sb->len;
		if (s->not_supported || !s->n) {
			sb_addf(sb, "%18s      %-32s", s->not_supported ? "<not supported>" : "<not counted>",
				e->name);
			while (sb->len - start < 84)
				sb_addch(sb, ' ');
			sb_addch(sb, '\n');
			continue;
		}
		double v = ev_mean(s);
		if (is_msec(&e->attr))
			sb_addf(sb, "%18.2f msec %-32s", v / 1e6, e->name);
		else
			sb_addf(sb, "%18.0f      %-32s", v, e->name);
		struct cnt_metric m;
		if (cnt_metric(&e->attr, v, &r->sum, &m)) {
			if (m.percent)
				sb_addf(sb, " # %7.2f%% %-23s", m.value, m.unit);
			else
				sb_addf(sb, " # %8.3f %-23s", m.value, m.unit);
		} else {
			sb_addf(sb, "%35s", "");
		}
		if (o->runs > 1)
			sb_addf(sb, "  ( +-%6.2f%% )", st_rel_stderr_pct(s->val, s->n));
		if (s->running < s->enabled && s->enabled > 0)
			sb_addf(sb, "  (%.2f%%)", 100.0 * s->running / s->enabled);
		sb_addch(sb, '\n');
	}
	sb_addch(sb, '\n');
	double avg = st_mean(r->elapsed, r->nruns);
	if (r->nruns <= 1) {
		sb_addf(sb, " %17.9f seconds time elapsed\n\n", avg);
		if (o->pid <= 0 && !o->all_cpus)
			sb_addf(sb, " %17.9f seconds user\n %17.9f seconds sys\n\n", r->user_s, r->sys_s);
	} else {
		double sd = st_stderr(r->elapsed, r->nruns);
		int prec = precision_of(sd) + 2;
		sb_addf(sb, " %17.*f +- %.*f seconds time elapsed", prec, avg, prec, sd);
		sb_addf(sb, "  ( +-%6.2f%% )\n", st_rel_stderr_pct(r->elapsed, r->nruns));
	}
	struct strbuf rd = STRBUF_INIT;
	cnt_reading(&r->sum, &rd);
	if (rd.len) {
		sb_addstr(sb, "\n Reading:\n");
		for (char *p = rd.buf; *p;) {
			char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			sb_addf(sb, "   %.*s\n", (int)len, p);
			p += len + (nl ? 1 : 0);
		}
	}
	sb_release(&rd);
	sb_addch(sb, '\n');
}

static void print_csv(struct report *r, struct strbuf *sb)
{
	const char *x = r->o->sep;

	for (size_t i = 0; i < r->set->nr; i++) {
		const struct cnt_event *e = &r->set->ev[i];
		const struct ev_samples *s = &r->smp[i];
		double runtime = r->nruns ? s->running / (double)r->nruns : 0;
		double pct = s->enabled > 0 ? 100.0 * s->running / s->enabled : 100.0;
		if (s->not_supported || !s->n) {
			sb_addf(sb, "%s%s%s%s", s->not_supported ? "<not supported>" : "<not counted>", x, x, e->name);
			if (r->o->runs > 1)
				sb_addf(sb, "%s0.00%%", x);
			sb_addf(sb, "%s%.0f%s%.2f%s%s\n", x, s->not_supported ? 0.0 : runtime, x,
				s->not_supported ? 100.0 : pct, x, x);
			continue;
		}
		double v = ev_mean(s);
		if (is_msec(&e->attr))
			sb_addf(sb, "%.2f%smsec%s%s", v / 1e6, x, x, e->name);
		else
			sb_addf(sb, "%.0f%s%s%s", v, x, x, e->name);
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

static void print_json(struct report *r, struct strbuf *sb)
{
	for (size_t i = 0; i < r->set->nr; i++) {
		const struct cnt_event *e = &r->set->ev[i];
		const struct ev_samples *s = &r->smp[i];
		double runtime = r->nruns ? s->running / (double)r->nruns : 0;
		double pct = s->enabled > 0 ? 100.0 * s->running / s->enabled : 100.0;
		bool counted = !s->not_supported && s->n;
		double v = counted ? ev_mean(s) : 0;
		sb_addstr(sb, "{\"counter-value\" : \"");
		if (!counted)
			sb_addstr(sb, s->not_supported ? "<not supported>" : "<not counted>");
		else
			sb_addf(sb, "%f", is_msec(&e->attr) ? v / 1e6 : v);
		sb_addf(sb, "\", \"unit\" : \"%s\", \"event\" : \"", counted && is_msec(&e->attr) ? "msec" : "");
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

static void print_interval(struct strbuf *sb, double t_s, const struct cnt_set *cur,
			   const struct cnt_set *prev, const char *sep)
{
	for (size_t i = 0; i < cur->nr; i++) {
		const struct cnt_event *e = &cur->ev[i];
		const char *name = e->name;
		if (e->state == CNT_NOT_SUPPORTED) {
			if (sep)
				sb_addf(sb, "%.9f%s<not supported>%s%s%s\n", t_s, sep, sep, sep, name);
			else
				sb_addf(sb, "%16.9f %18s      %s\n", t_s, "<not supported>", name);
			continue;
		}
		double d = (double)(e->value - (prev ? prev->ev[i].value : 0));
		if (is_msec(&e->attr)) {
			if (sep)
				sb_addf(sb, "%.9f%s%.2f%smsec%s%s\n", t_s, sep, d / 1e6, sep, sep, name);
			else
				sb_addf(sb, "%16.9f %18.2f msec %s\n", t_s, d / 1e6, name);
		} else {
			if (sep)
				sb_addf(sb, "%.9f%s%.0f%s%s%s\n", t_s, sep, d, sep, sep, name);
			else
				sb_addf(sb, "%16.9f %18.0f      %s\n", t_s, d, name);
		}
	}
}

static int flush_out(FILE *out, struct strbuf *sb)
{
	if (sb->len && fwrite(sb->buf, 1, sb->len, out) != sb->len)
		return -1;
	sb_reset(sb);
	return fflush(out);
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
		{ "interval-print", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stat_opts o = { .runs = 1 };
	struct strbuf events = STRBUF_INIT;
	int c, status = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+e:r:x:jo:p:aI:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (events.len)
				sb_addch(&events, ',');
			sb_addstr(&events, optarg);
			break;
		case 'r':
			if (pk_parse_int("-r", optarg, 1, 1000000, &o.runs))
				return opt_error(&events);
			break;
		case 'x': o.sep = optarg; break;
		case 'j': o.json = 1; break;
		case 'o': o.output = optarg; break;
		case 'p':
			if (pk_parse_int("-p", optarg, 1, INT_MAX, &o.pid))
				return opt_error(&events);
			break;
		case 'a': o.all_cpus = 1; break;
		case 'I':
			if (pk_parse_int("-I", optarg, 10, INT_MAX, &o.interval_ms))
				return opt_error(&events);
			break;
		case 'h': usage(stdout); sb_release(&events); return 0;
		default: usage(stderr); sb_release(&events); return 2;
		}
	}
	o.argv = argv + optind;
	o.argc = argc - optind;
	if (events.len)
		o.events = events.buf;
	if (o.argc == 0 && o.pid <= 0 && !o.all_cpus) {
		fprintf(stderr, "perfkit stat: no command given (perfkit stat [options] -- CMD [ARGS...])\n");
		usage(stderr);
		sb_release(&events);
		return 2;
	}
	if (o.sep && o.json) {
		fprintf(stderr, "perfkit stat: -x and -j cannot be used together\n");
		sb_release(&events);
		return 2;
	}
	if (o.pid > 0 && o.all_cpus) {
		fprintf(stderr, "perfkit stat: -p and -a cannot be used together\n");
		sb_release(&events);
		return 2;
	}
	if ((o.pid > 0 || o.all_cpus || o.interval_ms) && o.runs > 1) {
		fprintf(stderr, "perfkit stat: -r cannot be combined with -p, -a or -I\n");
		sb_release(&events);
		return 2;
	}

	/* validate the events before running anything */
	struct cnt_set sum = CNT_SET_INIT;
	int err = o.events ? cnt_set_add_list(&sum, o.events) : cnt_set_add_defaults(&sum);
	if (err) {
		fprintf(stderr, "perfkit stat: %s\n", pk_errmsg());
		cnt_set_release(&sum);
		sb_release(&events);
		return 2;
	}
	if (pk_options_only) {   /* the option fuzz harness: stop before running */
		cnt_set_release(&sum);
		sb_release(&events);
		return 0;
	}

	FILE *out = stderr;
	struct outfile of;
	if (o.output) {
		if (of_open(&of, o.output)) {
			fprintf(stderr, "perfkit stat: %s\n", pk_errmsg());
			cnt_set_release(&sum);
			sb_release(&events);
			return 1;
		}
		out = of.f;
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
	for (int run = 0; run < o.runs && !interrupted; run++) {
		struct targets t = { 0 };
		struct pk_child ch = PK_CHILD_INIT;
		bool have_cmd = o.argc > 0;
		if (have_cmd && (err = pk_child_fork(&ch, o.argv, NULL, 0))) {
			rc = 1;
			break;
		}
		pid_t target = o.pid > 0 ? o.pid : ch.pid;
		unsigned flags = 0;
		if (o.pid <= 0 && !o.all_cpus)
			flags = CNT_ENABLE_ON_EXEC | CNT_INHERIT;
		err = open_targets(&t, o.events, target, o.all_cpus, flags);
		if (!err && t.sets[0].paranoid_fallback)
			note_user_only(&t.sets[0], &sum, run == 0);
		if (!err && flags == 0)
			for (int i = 0; i < t.nr && !err; i++)
				err = cnt_set_enable(&t.sets[i]);
		if (err) {
			if (have_cmd)
				pk_child_abort(&ch);
			close_targets(&t);
			rc = 1;
			break;
		}
		double t0 = now_ns();
		int exec_err = have_cmd ? pk_child_release(&ch) : 0;
		if (exec_err) {
			waitpid(ch.pid, NULL, 0);
			err = pk_error(exec_err, "cannot run '%s': %s", o.argv[0], strerror(exec_err));
			close_targets(&t);
			rc = 1;
			status = 127;
			break;
		}
		/* wait for the end: the command, the watched process, or Ctrl-C */
		int pfd = -1;
		if (have_cmd)
			pfd = pidfd_open_(ch.pid);
		else if (o.pid > 0)
			pfd = pidfd_open_(o.pid);
		struct cnt_set prev = CNT_SET_INIT, cur = CNT_SET_INIT;
		if (o.interval_ms) {
			add_events(&prev, o.events);
			add_events(&cur, o.events);
			note_user_only(&t.sets[0], &cur, false);
		}
		double next = t0 + o.interval_ms * 1e6;
		if (o.interval_ms && !o.sep && !o.json) {
			sb_addstr(&sb, "#           time             counts unit events\n");
			flush_out(out, &sb);
		}
		int wstatus = 0;
		struct rusage ru = { 0 };
		bool done = false;
		while (!done && !interrupted) {
			int timeout = o.interval_ms ? (int)((next - now_ns()) / 1e6) : -1;
			if (o.interval_ms && timeout < 0)
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
				if (kill(o.pid, 0) < 0 && errno == ESRCH)
					done = true;
			} else {
				poll(NULL, 0, timeout < 0 || timeout > 100 ? 100 : timeout);
			}
			if (o.interval_ms && now_ns() >= next && !done) {
				if (read_targets(&t, &cur) == 0) {
					print_interval(&sb, (now_ns() - t0) / 1e9, &cur, &prev, o.sep);
					flush_out(out, &sb);
					for (size_t i = 0; i < cur.nr; i++)
						prev.ev[i].value = cur.ev[i].value;
				}
				next += o.interval_ms * 1e6;
			}
		}
		/* the last, partial interval, as perf stat -I prints it */
		if (o.interval_ms && now_ns() > next - o.interval_ms * 1e6 && read_targets(&t, &cur) == 0) {
			print_interval(&sb, (now_ns() - t0) / 1e9, &cur, &prev, o.sep);
			flush_out(out, &sb);
		}
		if (have_cmd) {
			while (wait4(ch.pid, &wstatus, 0, &ru) < 0 && errno == EINTR)
				;
			if (WIFEXITED(wstatus))
				status = WEXITSTATUS(wstatus);
			else if (WIFSIGNALED(wstatus))
				status = 128 + WTERMSIG(wstatus);
		}
		double t1 = now_ns();
		if (pfd >= 0)
			close(pfd);
		cnt_set_release(&prev);
		cnt_set_release(&cur);
		err = read_targets(&t, &sum);
		close_targets(&t);
		if (err) {
			rc = 1;
			break;
		}
		record_run(&r, &sum);
		r.elapsed[r.nruns++] = (t1 - t0) / 1e9;
		r.user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		r.sys_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
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
		if (!o.interval_ms && o.json)
			print_json(&r, &sb);
		else if (!o.interval_ms && o.sep)
			print_csv(&r, &sb);
		else if (!o.interval_ms)
			print_std(&r, &sb);
		if (flush_out(out, &sb) != 0) {
			fprintf(stderr, "perfkit stat: write error: %s\n", strerror(errno));
			rc = 1;
		}
	}
	if (o.output) {
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
	free(r.elapsed);
	cnt_set_release(&sum);
	sb_release(&sb);
	sb_release(&events);
	if (rc)
		return status ? status : 1;
	return status;
}
