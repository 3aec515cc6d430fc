/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit bench — benchmark commands against each other (hyperfine's options
 * and output style), with statistics from stats/stats.h and a verdict.
 *
 * Policy (also in `perfkit bench --help`):
 *  - Per command: mean ± σ (sample standard deviation, N−1), median and MAD,
 *    min … max, user and system time, number of runs.  One run: no σ.
 *  - With a shell (default `sh -c CMD`), the shell's own start-up time is
 *    measured (sh -c '' ×20) and subtracted from every run (never below 0).
 *  - Without --runs: runs for about 3 s, at least --min-runs (10) and at most
 *    --max-runs.
 *  - Outliers: modified z-score |0.6745 (x − median) / MAD| > 3.5 (MeanAD
 *    when MAD = 0; no outliers when every value is equal).  They are
 *    counted in the exports, never removed; the warning is printed when they
 *    are more than 1 % of the runs.
 *  - Comparison: the ratio of each mean to the fastest mean, ± σ by error
 *    propagation, a 95 % confidence interval (delta method on log ratio),
 *    Welch's t-test and Mann-Whitney U.  Verdict: "slower"/"faster" when
 *    Welch's p < 0.05 and the difference is at least --min-effect (1 %),
 *    else "no significant difference at 95 %".  A zero mean makes the
 *    comparison "unavailable" (never inf or NaN).
 *    The verdict uses Welch's p, not Mann-Whitney's: Welch tests the means
 *    that the ratio and its interval describe; Mann-Whitney asks which
 *    command tends to be faster and can disagree when outliers or skew move
 *    one and not the other (the summary says so when they disagree).  The
 *    comparison is computed once as data (struct bench_cmp, from
 *    stats/compare.h) and the text and every export read it: JSON
 *    "comparisons", the CSV's ratio/…/verdict columns, Markdown's table.
 *  - Order: interleaved by default — warm-up runs A B A B …, then rounds of
 *    one measured run per command, every other round reversed (A B, B A, …)
 *    so load and drift fall on every command alike; --no-interleave runs all
 *    of one command's runs, then the next (hyperfine's order).  Said in the
 *    text and the exports ("order").
 *  - Max RSS and user+sys CPU of each run come from wait4's rusage; mean ± σ
 *    per command, and their own comparison and verdict line.  Linux folds
 *    the spawning process's memory into a child's max RSS until it execs,
 *    so perfkit's own max RSS is a floor under every value (exported as
 *    max_rss_floor; the text says when a command's shown mean is at it,
 *    within its noise: at most 5 % or one σ above it, one rule for all).
 *  - A failing command (non-zero exit) stops the benchmark with the command,
 *    the run and the exit code; with -i failed runs are measured as the
 *    others (hyperfine's), counted, shown and exported, and a command with
 *    failures is never called fastest without a warning.
 *  - The metric (--metric) is what the statistics and the verdict are
 *    computed on: "wall" (default, as hyperfine) the elapsed time of each
 *    run; "cpu" its user+sys CPU time (wait4's rusage of the child and its
 *    children); "instructions" the instructions it executed: counted
 *    (perf_event instructions:u of the child, inherited) where the machine
 *    has a PMU, else simulated — each run is then run once natively (for its
 *    times) and once under perfkit's Valgrind tool (src/lib/cachesim/vgrun.h;
 *    --model=cachegrind --branch-sim=no --trace-children=yes, the total Ir
 *    of every process the command started; its output discarded).  With a shell, the shell's own
 *    start-up (sh -c '' measured the same way) is subtracted from each
 *    metric, never below 0.  User and system time are recorded for every
 *    run whatever the metric, and exported.
 *  - Busy machine: /proc/loadavg and /proc/stat are read before the first
 *    and after the last run.  The machine is called busy when the 1-minute
 *    load average was above the number of online CPUs (before; after, less
 *    the benchmark's own 1), when CPU steal took 1 % or more of the CPU time
 *    meanwhile, or when other processes (all non-idle CPU time less this
 *    benchmark's) kept more than all CPUs but one busy on average.  A busy
 *    machine gets a warning naming the figures and the metric the verdict
 *    used; the figures are in the JSON export.  PERFKIT_PROC (default /proc)
 *    lets tests give their own loadavg and stat files.
 */
#include "cmd/cmds.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/child.h"
#include "base/error.h"
#include "base/hashmap.h"
#include "base/outfile.h"
#include "base/parse.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "cachesim/vgrun.h"
#include "cgfile/cgfile.h"
#include "counter/counter.h"
#include "counter/metrics.h"
#include "event/event.h"
#include "flame/fdiff.h"
#include "format/collapse.h"
#include "stats/compare.h"
#include "stats/stats.h"

#define MAX_CMDS 1024
#define MAX_PARAMS 8
#define MIB (1024.0 * 1024.0)

/* bytes in MiB for "%+.1f": a difference that rounds to zero prints
 * "+0.0", never "-0.0" */
static double mib1(double bytes)
{
	double m = bytes / MIB;

	return fabs(m) < 0.05 ? 0.0 : m;
}

enum metric { M_WALL, M_CPU, M_INS };
static const char *const metric_name[] = { "wall", "cpu", "instructions" };

struct bench_opts {
	int warmup, runs, min_runs, max_runs;
	const char *prepare[MAX_CMDS];
	int nprepare;
	const char *cleanup;
	const char *setup;          /* -s: once per command before its runs */
	const char *shell;          /* NULL with -N */
	const char *output_file;    /* --output FILE: each run's stdout (made anew) */
	int ignore_failure, show_output, counters;
	const char *names[MAX_CMDS];
	int nnames;
	const char *param_vars[MAX_PARAMS];   /* -P (one) or -L (several) */
	int nparam;
	const char *export_json, *export_md, *export_csv, *export_adoc, *export_org;
	const char *time_unit;      /* "ms", "s", "us" or NULL (auto) */
	double min_effect;
	enum metric metric;
	bool ins_sim;                /* instructions: simulated (no PMU) */
	struct vgrun vr;             /* ins_sim: the Valgrind tool */
	char *simdir;                /* ins_sim: a private temporary folder */
	struct cnt_set icnt;         /* instructions counted: instructions:u */
	bool sequential;             /* --no-interleave: hyperfine's order */
	double rss_floor;            /* this process's max RSS, bytes (see rss_floor()) */
	const char *profile_dir;     /* --profile[=DIR]: a profile of every measured run */
	int profile_hz;              /* its sampling frequency */
	const char *profile_event;   /* and event (cpu-clock) */
	char *self_exe;              /* this perfkit, which records them */
	const char *prof_path;       /* set for the run being measured */
};

struct result {
	char *command, *name;
	char **params;               /* a value per o->param_vars, or NULL */
	double *t, *user, *sys;      /* the measured runs (-i: failed ones too) */
	double *cpu, *ins;           /* user+sys, instructions (--metric=instructions) */
	double *rss;                 /* max RSS of each run, bytes (wait4's ru_maxrss) */
	size_t n, alloc;
	int *codes;                  /* exit code of every run (−signal for a signal death) */
	double *all_t, *all_user, *all_sys;   /* every run's, failed ones too (the export's
					 times, aligned with codes, as hyperfine's) */
	double *all_cpu, *all_rss, *all_ins;  /* the same for the export's cpu_times,
					 max_rss_values, instruction_counts */
	size_t nruns, failed;
	struct st_summary s;         /* wall time */
	struct st_summary cs, is;    /* CPU time, instructions */
	struct st_summary ms;        /* the metric's: s, cs or is */
	struct st_summary rs;        /* max RSS */
	double user_mean, sys_mean;
	size_t outliers;
	char **prof;                 /* --profile: the perf.data of each successful run */
	size_t nprof;
	struct cnt_set cnt;          /* --counters: event names */
	double **cv;                 /* cv[event][run] */
	size_t *cvn;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit bench [options] CMD...\n"
		"  -w, --warmup N            N untimed runs first\n"
		"  -r, --runs N              exactly N runs (default: about 3 s, 10 at least)\n"
		"  -m, --min-runs N          at least N runs (default 10)\n"
		"  -M, --max-runs N          at most N runs\n"
		"  -p, --prepare CMD         run before each run (once, or once per command)\n"
		"  -c, --cleanup CMD         run after the runs of each command\n"
		"  -s, --setup CMD           run once before the runs of each command\n"
		"  -S, --shell SHELL         shell to run commands with (default sh; a command line such as\n"
		"                            \"bash --norc\" too); -N: none\n"
		"  -N                        no shell: split CMD into words as sh would (quotes, backslashes;\n"
		"                            no expansions) and exec it\n"
		"  -i, --ignore-failure      keep going on non-zero exit; failed runs are measured too\n"
		"  -n, --command-name NAME   name of the next command in the output\n"
		"  -P, --parameter-scan V MIN MAX   run CMD with {V} = MIN..MAX (-D step)\n"
		"  -L, --parameter-list V A,B,…     run CMD with {V} = each value\n"
		"      --export-json/--export-markdown/--export-csv FILE\n"
		"      --export-asciidoc/--export-orgmode FILE   hyperfine's table (Command, Mean, Min, Max, Relative)\n"
		"      --show-output         do not discard the commands' output\n"
		"  -u, --time-unit U         millisecond, second or microsecond\n"
		"      --output WHERE        null (default) or pipe: discarded; inherit: as --show-output;\n"
		"                            FILE: each run's stdout written to FILE (made anew each run)\n"
		"      --style STYLE         basic, full, nocolor, color (accepted) or none (no text)\n"
		"  -V, --version             perfkit's version\n"
		"      --counters            count perf events (as perfkit stat) in each run\n"
		"      --min-effect PCT      smallest difference called significant (default 1); with\n"
		"                            --profile also a function's: its change in points of\n"
		"                            the first command's total must exceed it\n"
		"      --metric M            what the verdict is on: wall (elapsed, default), cpu\n"
		"                            (user+sys) or instructions (counted where a PMU exists,\n"
		"                            else simulated under perfkit's Valgrind tool)\n"
		"      --profile[=DIR]       record a profile of every measured run (perfkit record\n"
		"                            -g, cpu-clock) into DIR (bench-profile); print the\n"
		"                            functions whose cost changed significantly from the\n"
		"                            first command to each later one, and write DIR/diff.svg\n"
		"                            (DIR/diff-cmdK.svg with more than two commands); per\n"
		"                            function, its samples per run as %% of the first\n"
		"                            command's mean total, Welch's test of a change larger\n"
		"                            than --min-effect, Holm's correction over the functions;\n"
		"                            the table in every export (CSV: FILE.functions.csv)\n"
		"      --profile-freq HZ     its sampling frequency (1999)\n"
		"      --profile-event EV    its event (cpu-clock; cpu-clock:u for user space only,\n"
		"                            which is also quicker to read back)\n"
		"      --no-interleave       run all runs of one command, then the next (hyperfine's\n"
		"                            order); default: interleaved A B, B A, … so drift and\n"
		"                            load fall on every command alike\n"
		"Comparison: ratio to the fastest ± σ, 95 %% CI, Welch's t-test and Mann-Whitney U;\n"
		"\"faster\"/\"slower\" when Welch's p < 0.05 and the difference ≥ min-effect, else \"no\n"
		"significant difference at 95 %%\" (Welch tests the means the ratio is about;\n"
		"Mann-Whitney is shown beside it).  CPU time and max RSS (wait4) get their own verdict.  Outliers: modified z-score > 3.5 (MAD); warned\n"
		"about when more than 1 %% of the runs.  -D may be decimal (-P x 0 1 -D 0.25).\n");
}

/* ---- running ---- */

/* CMD split into words as a POSIX shell would split it, without
 * expansions (hyperfine's -N and -S use the shell-words crate alike):
 * blanks separate words; '…' keeps everything; "…" keeps everything but a
 * backslash before $ ` " \ or a newline; a backslash outside quotes keeps
 * the next character (a newline after it goes; one at the very end is
 * kept, as sh keeps it); '#' at the start of a word ends the line.  NULL
 * (*why set) for an unmatched quote. */
static char **split_words(const char *cmd, const char **why)
{
	size_t cap = 8, n = 0;
	char **v = xmalloc(cap * sizeof(*v));
	const char *p = cmd;

	*why = NULL;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p || *p == '#')
			break;
		struct strbuf w = STRBUF_INIT;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n' && !*why) {
			if (*p == '\'') {
				for (p++; *p && *p != '\''; )
					sb_addch(&w, *p++);
				if (!*p)
					*why = "an unmatched single quote";
				else
					p++;
			} else if (*p == '"') {
				for (p++; *p && *p != '"'; p++) {
					if (*p == '\\' && p[1] && strchr("$`\"\\\n", p[1])) {
						if (p[1] != '\n')
							sb_addch(&w, p[1]);
						p++;
					} else {
						sb_addch(&w, *p);
					}
				}
				if (!*p)
					*why = "an unmatched double quote";
				else
					p++;
			} else if (*p == '\\') {
				if (!p[1])   /* as sh: a backslash at the end is itself */
					sb_addch(&w, '\\');
				else if (p[1] != '\n')
					sb_addch(&w, p[1]);
				p += p[1] ? 2 : 1;
			} else {
				sb_addch(&w, *p++);
			}
		}
		if (n + 2 > cap)
			v = xrealloc(v, (cap *= 2) * sizeof(*v));
		v[n++] = sb_detach(&w, NULL);
		if (*why)
			break;
	}
	v[n] = NULL;
	if (*why) {
		for (size_t i = 0; i < n; i++)
			free(v[i]);
		free(v);
		return NULL;
	}
	return v;
}

static void free_argv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

struct run_out {
	int code;            /* exit code, −signal for a signal death, or 127 exec failure */
	double wall, user, sys;
	double rss;          /* max RSS, bytes */
	double ins;          /* --metric=instructions */
	double sim_wall;     /* time of the simulated run, if any */
	int exec_errno;
};

/* PATH lookup once per program name (the last one is cached), so each run
 * does not retry execve along PATH.  A name with '/' is used as is. */
static const char *resolve(const char *name)
{
	static char *last_name, *last_path;

	if (strchr(name, '/'))
		return name;
	if (last_name && !strcmp(last_name, name))
		return last_path;
	char *found = pk_path_search(name, true);

	if (!found)
		return name;      /* posix_spawn reports ENOENT */
	free(last_name);
	free(last_path);
	last_name = xstrdup(name);
	last_path = found;
	return last_path;
}

/* Without counters: posix_spawn (vfork-like, no handshake), the cheapest
 * way to start a process, so the harness adds little to each run. */
static int spawn_plain(char **argv, bool quiet, int out_fd, struct run_out *r)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status = 0, err;
	struct rusage ru;

	/* /dev/null opened once (close-on-exec here; dup2 clears the flag
	 * on the child's copies): three dup2 per run instead of three opens */
	static int devnull = -1;
	if (devnull < 0)
		devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	posix_spawn_file_actions_init(&fa);
	/* stdin on /dev/null whatever the output (hyperfine's: a run never
	 * reads perfkit's stdin) */
	if (quiet && devnull >= 0) {
		for (int k = 0; k < 3; k++)
			posix_spawn_file_actions_adddup2(&fa, k == 1 && out_fd >= 0 ? out_fd : devnull, k);
	} else if (quiet) {
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	} else if (devnull >= 0) {
		posix_spawn_file_actions_adddup2(&fa, devnull, 0);
	} else {
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	}
	const char *path = resolve(argv[0]);
	double t0 = now_s();
	err = posix_spawn(&pid, path, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		r->exec_errno = err;
		r->code = 127;
		return 0;
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			err = errno;
			return pk_error(err, "wait: %s", strerror(err));
		}
	}
	r->wall = now_s() - t0;
	r->user = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	r->sys = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	r->rss = (double)ru.ru_maxrss * 1024.0;
	r->code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
	return 0;
}

static int write_file(const char *path, const struct strbuf *sb);

/* Run argv under perfkit's Valgrind tool (instructions only) and add up the
 * Ir of every process it started: *ins.  *code as run_out's. */
static int sim_count(const struct bench_opts *o, char **argv, bool quiet, double *ins, int *code)
{
	static const char *const opts[] = { "--model=cachegrind", "--branch-sim=no",
					    "--trace-children=yes", NULL };
	struct strbuf out = STRBUF_INIT, log = STRBUF_INIT;
	int saved[3] = { -1, -1, -1 }, err, status = 0;
	pid_t pid;

	sb_addf(&out, "%s/ins.%%p", o->simdir);
	sb_addf(&log, "%s/valgrind.log", o->simdir);
	{   /* the tool's child inherits our stdin (always /dev/null), stdout
	     * and stderr (/dev/null when quiet) */
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);

		fflush(stdout);
		fflush(stderr);
		for (int k = 0; k < (quiet ? 3 : 1) && nul >= 0; k++) {
			saved[k] = fcntl(k, F_DUPFD_CLOEXEC, 10);
			dup2(nul, k);
		}
		if (nul >= 0)
			close(nul);
	}
	err = vgrun_spawn(&o->vr, opts, out.buf, log.buf, argv, &pid);
	for (int k = 0; k < 3; k++)
		if (saved[k] >= 0) {
			dup2(saved[k], k);
			close(saved[k]);
		}
	if (err) {
		sb_release(&out);
		sb_release(&log);
		return err;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			err = pk_error(errno, "wait: %s", strerror(errno));
			goto done;
		}
	*code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	/* the counts: one file per process (ins.PID) */
	DIR *d = opendir(o->simdir);
	struct dirent *de;
	size_t files = 0;
	double sum = 0;
	struct hashmap fns;          /* --profile: function → Ir of this run */

	hm_init(&fns);

	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "ins.", 4))
			continue;
		struct strbuf f = STRBUF_INIT;
		struct cgfile *cg = NULL;

		sb_addf(&f, "%s/%s", o->simdir, de->d_name);
		if (!err && (err = cgfile_read(f.buf, &cg)) == 0) {
			int k = cgfile_event(cg, "Ir");

			if (k < 0)
				err = pk_error(EINVAL, "%s: no Ir event in the simulator's output", f.buf);
			else
				sum += (double)cg->summary[k];
			for (size_t r = 0; k >= 0 && o->prof_path && r < cg->nrecs; r++) {
				int created;
				struct hm_entry *e = hm_upsert(&fns, cg->recs[r].fn, strlen(cg->recs[r].fn), &created);
				if (created)
					e->val.d = 0;
				e->val.d += (double)cgfile_counts(cg, r)[k];
			}
			files++;
		}
		cgfile_free(cg);
		unlink(f.buf);
		sb_release(&f);
	}
	if (d)
		closedir(d);
	if (!err && !files) {
		/* Valgrind wrote nothing: say its last message */
		FILE *lf = fopen(log.buf, "re");
		char line[512], last[512] = "";

		while (lf && fgets(line, sizeof(line), lf))
			if (line[0] != '\n')
				snprintf(last, sizeof(last), "%s", line);
		if (lf)
			fclose(lf);
		last[strcspn(last, "\n")] = 0;
		err = pk_error(EIO, "the simulated run of '%s' gave no instruction count (exit code %d)%s%s",
			       argv[0], *code, last[0] ? ": " : "", last);
	}
	*ins = sum;
	if (!err && o->prof_path) {
		/* a flat folded profile: "function Ir" per line (';' would
		 * split a name into frames) */
		struct strbuf fb = STRBUF_INIT;
		for (size_t i = 0; i < fns.nr; i++) {
			if (!fns.entries[i].val.d)
				continue;
			for (const char *c = fns.entries[i].key; *c; c++)
				sb_addch(&fb, *c == ';' || *c == '\n' ? ':' : *c);
			sb_addf(&fb, " %.0f\n", fns.entries[i].val.d);
		}
		err = write_file(o->prof_path, &fb);
		sb_release(&fb);
	}
	hm_release(&fns);
done:
	unlink(log.buf);
	sb_release(&out);
	sb_release(&log);
	return err;
}

/* Run cmd once; with cnt, count events on it (enable at exec); with
 * --metric=instructions, count or simulate its instructions too. */
static int run_once(struct bench_opts *o, const char *cmd, bool quiet,
		    struct cnt_set *cnt, bool want_ins, struct run_out *r)
{
	char **argv;
	char *shv[4];
	int err;

	memset(r, 0, sizeof(*r));
	if (o->shell && !strpbrk(o->shell, " \t")) {
		shv[0] = (char *)o->shell;
		shv[1] = "-c";
		shv[2] = (char *)cmd;
		shv[3] = NULL;
		argv = shv;
	} else {
		/* -N: CMD's words; -S "bash --norc": the shell's words, then
		 * -c CMD (hyperfine's --shell takes a command line) */
		const char *why;
		size_t n = 0;

		argv = split_words(o->shell ? o->shell : cmd, &why);
		if (!argv)
			return pk_error(EINVAL, "cannot split %s '%s' into words: %s", o->shell ? "the shell" : "the command",
					o->shell ? o->shell : cmd, why);
		if (!argv[0]) {
			free_argv(argv);
			return pk_error(EINVAL, o->shell ? "empty shell" : "empty command");
		}
		while (o->shell && argv[n])
			n++;
		if (o->shell) {
			argv = xrealloc(argv, (n + 3) * sizeof(*argv));
			argv[n] = xstrdup("-c");
			argv[n + 1] = xstrdup(cmd);
			argv[n + 2] = NULL;
		}
	}
	bool own_argv = argv != shv;
	struct cnt_set *icnt = want_ins && !o->ins_sim ? &o->icnt : NULL;
	char **rec = NULL;
	if (o->prof_path && o->metric != M_INS) {
		/* perfkit record -F HZ -g -o PATH -- CMD: the run is recorded
		 * (its time includes the recorder's start and its sampling,
		 * alike for every command) */
		size_t n = 0;
		while (argv[n])
			n++;
		rec = xcalloc(n + 12, sizeof(*rec));
		char hz[16];
		snprintf(hz, sizeof(hz), "%d", o->profile_hz);
		const char *pre[] = { o->self_exe, "record", "-e", o->profile_event, "-F", hz, "-g",
				      "-o", o->prof_path, "-f", "--" };
		size_t k = 0;
		for (; k < sizeof(pre) / sizeof(pre[0]); k++)
			rec[k] = xstrdup(pre[k]);
		for (size_t i = 0; i < n; i++)
			rec[k++] = xstrdup(argv[i]);
		rec[k] = NULL;
		if (own_argv)
			free_argv(argv);
		argv = rec;
	}
	/* --output FILE: the run's stdout, the file made anew for each run
	 * (hyperfine's File::create) */
	int out_fd = -1;
	if (quiet && o->output_file) {
		out_fd = open(o->output_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (out_fd < 0) {
			err = pk_error(errno, "--output %s: %s", o->output_file, strerror(errno));
			goto out;
		}
	}
	if (!cnt && !icnt) {
		err = spawn_plain(argv, quiet, out_fd, r);
	} else {
		struct pk_child ch = PK_CHILD_INIT;
		unsigned fl = CNT_ENABLE_ON_EXEC | CNT_INHERIT;

		ch.out_fd = out_fd;
		err = pk_child_fork(&ch, argv, NULL, quiet ? PK_CHILD_QUIET | PK_CHILD_STDOUT_FD : PK_CHILD_STDIN_NULL);
		if (err)
			goto out;
		if ((cnt && (err = cnt_set_open(cnt, ch.pid, -1, fl))) ||
		    (icnt && (err = cnt_set_open(icnt, ch.pid, -1, fl)))) {
			pk_child_abort(&ch);
			if (cnt)
				cnt_set_close(cnt);
			goto out;
		}
		double t0 = now_s();
		r->exec_errno = pk_child_release(&ch);
		int status = 0;
		struct rusage ru;
		while (wait4(ch.pid, &status, 0, &ru) < 0) {
			if (errno != EINTR) {
				err = pk_error(errno, "wait: %s", strerror(errno));
				goto out;
			}
		}
		r->wall = now_s() - t0;
		if (cnt) {
			err = cnt_set_read(cnt);
			cnt_set_duration(cnt, (uint64_t)(r->wall * 1e9));
			cnt_set_close(cnt);
		}
		if (icnt) {
			int e2 = cnt_set_read(icnt);
			cnt_set_close(icnt);
			if (!err)
				err = e2;
			if (!err && icnt->ev[0].state != CNT_OK)
				err = pk_error(EIO, "instructions:u was not counted in this run");
			r->ins = (double)icnt->ev[0].value;
		}
		if (err)
			goto out;
		r->user = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		r->sys = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
		r->rss = (double)ru.ru_maxrss * 1024.0;
		r->code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
	}
	if (!err && want_ins && o->ins_sim && !r->exec_errno && r->code == 0) {
		int code = 0;
		double t0 = now_s();

		/* quiet whatever --show-output says: the output was shown
		 * by the native run */
		err = sim_count(o, argv, true, &r->ins, &code);
		r->sim_wall = now_s() - t0;
		if (!err && code)
			err = pk_error(EINVAL, "'%s' succeeded natively but exited with code %d under the simulator",
				       cmd, code);
	}
out:
	if (out_fd >= 0)
		close(out_fd);
	if (rec || own_argv)
		free_argv(argv);
	return err;
}

/* The smallest max RSS a run can show: Linux folds the pre-exec memory's
 * high-water mark into the child's (exec_mmap(): setmax_mm_hiwater_rss),
 * and a spawned child's pre-exec memory is this process's. */
static double rss_floor(void)
{
	struct rusage self;

	getrusage(RUSAGE_SELF, &self);
	return (double)self.ru_maxrss * 1024.0;
}

/* ---- formatting ---- */

static const char *unit_for(const struct bench_opts *o, double mean_s, double *scale)
{
	const char *u = o->time_unit;

	if (!u)
		u = mean_s < 1 ? "ms" : "s";
	if (!strcmp(u, "us")) {
		*scale = 1e6;
		return "µs";
	}
	if (!strcmp(u, "s")) {
		*scale = 1;
		return "s";
	}
	*scale = 1e3;
	return "ms";
}

static const char *label(const struct result *r)
{
	return r->name ? r->name : r->command;
}

static void progress(bool tty, const char *what, size_t done, size_t total, double eta)
{
	if (!tty)
		return;
	int width = 30, fill = total ? (int)(width * done / total) : 0;
	fprintf(stderr, "\r\033[K  %s [", what);
	for (int i = 0; i < width; i++)
		fputs(i < fill ? "#" : ".", stderr);
	fprintf(stderr, "] %zu/%zu  ETA %02d:%02d", done, total, (int)eta / 60, (int)eta % 60);
}

static void progress_clear(bool tty)
{
	if (tty)
		fputs("\r\033[K", stderr);
}

/* ---- main loop ---- */

static void add_sample(struct result *r, double t, double u, double s, double ins, double rss)
{
	if (r->n == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 16;
		r->t = xrealloc(r->t, r->alloc * sizeof(double));
		r->user = xrealloc(r->user, r->alloc * sizeof(double));
		r->sys = xrealloc(r->sys, r->alloc * sizeof(double));
		r->cpu = xrealloc(r->cpu, r->alloc * sizeof(double));
		r->ins = xrealloc(r->ins, r->alloc * sizeof(double));
		r->rss = xrealloc(r->rss, r->alloc * sizeof(double));
	}
	r->rss[r->n] = rss;
	r->t[r->n] = t;
	r->user[r->n] = u;
	r->sys[r->n] = s;
	r->cpu[r->n] = u + s;
	r->ins[r->n] = ins;
	r->n++;
}

/* How a run ended, for messages: " with exit code N", or ": terminated by
 * signal N (SIGNAME)" for a signal death (code −N); under a shell, a code
 * 128 + N is named as the signal the shell saw. */
static const char *how_ended(int code, bool shell, char *buf, size_t len)
{
	const char *sh_sig = shell && code > 128 && code < 128 + 65 ? sigabbrev_np(code - 128) : NULL;

	if (sh_sig) {   /* sh -c CMD: the shell reports CMD's signal N as 128 + N */
		snprintf(buf, len, " with exit code %d (from the shell: signal %d, SIG%s)", code, code - 128, sh_sig);
	} else if (code >= 0) {
		snprintf(buf, len, " with exit code %d", code);
	} else {
		const char *abbrev = sigabbrev_np(-code);
		snprintf(buf, len, ": terminated by signal %d (SIG%s)", -code, abbrev ? abbrev : "?");
	}
	return buf;
}

/* The values the statistics and the verdict use. */
static const double *metric_vals(const struct bench_opts *o, const struct result *r)
{
	return o->metric == M_CPU ? r->cpu : o->metric == M_INS ? r->ins : r->t;
}

static void add_code(struct result *r, int code, double t, double u, double sy, double rss, double ins,
		     size_t *cap)
{
	if (r->nruns == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		r->codes = xrealloc(r->codes, *cap * sizeof(int));
		r->all_t = xrealloc(r->all_t, *cap * sizeof(double));
		r->all_user = xrealloc(r->all_user, *cap * sizeof(double));
		r->all_sys = xrealloc(r->all_sys, *cap * sizeof(double));
		r->all_cpu = xrealloc(r->all_cpu, *cap * sizeof(double));
		r->all_rss = xrealloc(r->all_rss, *cap * sizeof(double));
		r->all_ins = xrealloc(r->all_ins, *cap * sizeof(double));
	}
	r->all_t[r->nruns] = t;
	r->all_user[r->nruns] = u;
	r->all_sys[r->nruns] = sy;
	r->all_cpu[r->nruns] = u + sy;
	r->all_rss[r->nruns] = rss;
	r->all_ins[r->nruns] = ins;
	r->codes[r->nruns++] = code;
}

static void add_counts(struct result *r, size_t cap_runs)
{
	if (!r->cv) {
		r->cv = xcalloc(r->cnt.nr, sizeof(*r->cv));
		r->cvn = xcalloc(r->cnt.nr, sizeof(*r->cvn));
	}
	for (size_t i = 0; i < r->cnt.nr; i++) {
		const struct cnt_event *e = &r->cnt.ev[i];
		if (e->state != CNT_OK)
			continue;
		r->cv[i] = xrealloc(r->cv[i], cap_runs * sizeof(double));
		r->cv[i][r->cvn[i]++] = (double)e->value;
	}
}

struct overhead { double t, u, s, ins; };

/* The shell's own start-up (sh -c ''), 20 runs; its instructions from 3 of
 * them (counted or simulated, as the commands' are). */
static int shell_overhead(struct bench_opts *o, struct overhead *oh)
{
	double tt[20], uu[20], ss[20], ii[20];
	struct run_out ro;

	for (int i = 0; i < 20; i++) {
		int err = run_once(o, "", true, NULL, o->metric == M_INS && i < 3, &ro);
		if (err)
			return err;
		if (ro.code != 0 || ro.exec_errno)
		{
			char how[64];
			return pk_error(EINVAL, "shell '%s' does not run (it ended%s)", o->shell,
					how_ended(ro.code, false, how, sizeof(how)));
		}
		tt[i] = ro.wall;
		uu[i] = ro.user;
		ss[i] = ro.sys;
		ii[i] = ro.ins;
	}
	oh->t = st_median(tt, 20);   /* median: robust against a stray slow start */
	oh->u = st_mean(uu, 20);
	oh->s = st_mean(ss, 20);
	oh->ins = o->metric == M_INS ? st_median(ii, 3) : 0;
	return 0;
}

static char *substitute(const char *tmpl, const char *var, const char *val)
{
	struct strbuf sb = STRBUF_INIT;
	size_t vl = strlen(var);

	for (const char *p = tmpl; *p;) {
		if (*p == '{' && !strncmp(p + 1, var, vl) && p[1 + vl] == '}') {
			sb_addstr(&sb, val);
			p += vl + 2;
		} else {
			sb_addch(&sb, *p++);
		}
	}
	return sb_detach(&sb, NULL);
}

/* tmpl with r's parameter values in place of their {NAME}s, as hyperfine
 * fills in the commands, --prepare and --cleanup alike (malloc'ed). */
static char *with_params(const struct bench_opts *o, const struct result *r, const char *tmpl)
{
	char *s = xstrdup(tmpl);

	for (int p = 0; r->params && p < o->nparam; p++) {
		char *t = substitute(s, o->param_vars[p], r->params[p]);

		free(s);
		s = t;
	}
	return s;
}

/* A --prepare or --cleanup command of result r (its parameters filled
 * in), run through the shell; an error when it fails. */
static int run_aux(const struct bench_opts *o, const struct result *r, const char *tmpl, const char *what)
{
	struct run_out ro;

	if (!tmpl)
		return 0;
	struct bench_opts sh = *o;
	if (!sh.shell)
		sh.shell = "sh";
	sh.output_file = NULL;   /* --output is the benchmarked commands' */
	char *cmd = with_params(o, r, tmpl);
	int err = run_once(&sh, cmd, !o->show_output, NULL, false, &ro);

	if (!err && ro.code != 0) {
		char how[64];

		err = pk_error(EINVAL, "%s command '%s' failed%s", what, cmd, how_ended(ro.code, true, how, sizeof(how)));
	}
	free(cmd);
	return err;
}

static int run_prepare(const struct bench_opts *o, int idx, const struct result *r)
{
	return run_aux(o, r, o->nprepare == 0 ? NULL : o->nprepare == 1 ? o->prepare[0] : o->prepare[idx], "prepare");
}

/* One warm-up run of result idx (not timed). */
static int warm_once(struct bench_opts *o, int idx, struct result *r, int i)
{
	struct run_out ro;
	int err;

	if ((err = run_prepare(o, idx, r)))
		return err;
	if ((err = run_once(o, r->command, !o->show_output, NULL, false, &ro)))
		return err;
	if (ro.exec_errno)
		return pk_error(ro.exec_errno, "cannot run '%s': %s", r->command, strerror(ro.exec_errno));
	if (ro.code && !o->ignore_failure) {
		char how[64];
		return pk_error(EINVAL, "command '%s' failed in warmup run %d%s (use -i to ignore failures)",
				r->command, i + 1, how_ended(ro.code, o->shell != NULL, how, sizeof(how)));
	}
	return 0;
}

/* hyperfine's rule for the number of runs: about 3 s from the first run's
 * time (a simulated run's time counts in), within [min, max] runs. */
static size_t runs_for(const struct bench_opts *o, const struct run_out *ro)
{
	double per = ro->wall + ro->sim_wall > 1e-6 ? ro->wall + ro->sim_wall : 1e-6;
	double want = 3.0 / per;
	size_t n = want > 1e7 ? 10000000 : (size_t)want;

	if (n < (size_t)o->min_runs)
		n = (size_t)o->min_runs;
	if (o->max_runs > 0 && n > (size_t)o->max_runs)
		n = (size_t)o->max_runs;
	return n;
}

/* Measured run number i (0-based) of result idx; *ro is the run's. */
static int measure_once(struct bench_opts *o, int idx, struct result *r, const struct overhead *oh,
			size_t i, size_t cap, size_t *code_cap, struct run_out *ro)
{
	int err;

	if ((err = run_prepare(o, idx, r)))
		return err;
	struct strbuf path = STRBUF_INIT;
	if (o->profile_dir) {
		sb_addf(&path, "%s/cmd%d-run%zu.%s", o->profile_dir, idx + 1, i + 1,
			o->metric == M_INS ? "folded" : "data");
		o->prof_path = path.buf;
	}
	err = run_once(o, r->command, !o->show_output, o->counters ? &r->cnt : NULL, o->metric == M_INS, ro);
	o->prof_path = NULL;
	if (!err && o->profile_dir && !ro->exec_errno && !ro->code) {
		r->prof = xrealloc(r->prof, (r->nprof + 1) * sizeof(*r->prof));
		r->prof[r->nprof++] = sb_detach(&path, NULL);
	}
	sb_release(&path);
	if (err)
		return err;
	if (ro->exec_errno)
		return pk_error(ro->exec_errno, "cannot run '%s': %s", r->command, strerror(ro->exec_errno));
	/* the shell's start-up taken off, never below 0 */
	double t = ro->wall - oh->t, u = ro->user - oh->u, sy = ro->sys - oh->s;

	t = t > 0 ? t : 0;
	u = u > 0 ? u : 0;
	sy = sy > 0 ? sy : 0;
	double ins_run = ro->ins - oh->ins;

	add_code(r, ro->code, t, u, sy, ro->rss, ins_run > 0 ? ins_run : 0, code_cap);
	if (ro->code) {
		if (!o->ignore_failure) {
			char how[64];
			return pk_error(EINVAL, "command '%s' failed in run %zu%s (use -i to ignore failures)",
					r->command, i + 1, how_ended(ro->code, o->shell != NULL, how, sizeof(how)));
		}
		r->failed++;
	}
	/* -i: a failed run is measured too, as hyperfine's (grep without a
	 * match, diff, a compiler's warnings: commands that exit non-zero
	 * every time can be timed) */
	double ins = ro->ins - oh->ins;

	add_sample(r, t, u, sy, ins > 0 ? ins : 0, ro->rss);
	if (o->counters)
		add_counts(r, cap);
	return 0;
}

/* After the runs of result r: its cleanup command and its summaries. */
static int finish_one(struct bench_opts *o, struct result *r)
{
	int err;

	if ((err = run_aux(o, r, o->cleanup, "cleanup")))
		return err;
	st_summarize(r->t, r->n, &r->s);
	st_summarize(r->cpu, r->n, &r->cs);
	st_summarize(r->ins, r->n, &r->is);
	st_summarize(r->rss, r->n, &r->rs);
	r->ms = o->metric == M_CPU ? r->cs : o->metric == M_INS ? r->is : r->s;
	r->user_mean = st_mean(r->user, r->n);
	r->sys_mean = st_mean(r->sys, r->n);
	r->outliers = st_outliers(metric_vals(o, r), r->n, ST_OUTLIER_Z, NULL);
	return 0;
}

/* hyperfine's order: every run of one command, then the next. */
static int bench_one(struct bench_opts *o, int idx, struct result *r, const struct overhead *oh,
		     bool tty)
{
	struct run_out ro;
	size_t code_cap = 0;
	int err;

	if (o->counters && (err = cnt_set_add_defaults(&r->cnt, false)))
		return err;
	if ((err = run_aux(o, r, o->setup, "setup")))
		return err;
	for (int i = 0; i < o->warmup; i++) {
		progress(tty, "Warmup", (size_t)i, (size_t)o->warmup, 0);
		if ((err = warm_once(o, idx, r, i)))
			return err;
	}
	size_t target = o->runs > 0 ? (size_t)o->runs : (size_t)o->min_runs;
	double start = now_s();
	for (size_t i = 0; i < target; i++) {
		double el = now_s() - start, eta = i ? el / (double)i * (double)(target - i) : 0;
		progress(tty, "Performing runs", i, target, eta);
		if ((err = measure_once(o, idx, r, oh, i, target, &code_cap, &ro))) {
			progress_clear(tty);
			return err;
		}
		if (i == 0 && o->runs <= 0)
			target = runs_for(o, &ro);
	}
	progress_clear(tty);
	return finish_one(o, r);
}

/* Interleaved (the default): warm-up runs A B A B …, then rounds of one
 * measured run of each command, every other round in reverse order
 * (A B, B A, A B, …) so a drift that is linear in time falls on every
 * command alike.  Without --runs, each command's first run gives its
 * hyperfine count (about 3 s) and every command makes the smallest of
 * them, so the runs stay paired. */
static int bench_interleaved(struct bench_opts *o, struct result *res, int nres,
			     const struct overhead *oh, bool tty)
{
	size_t *caps = xcalloc((size_t)nres, sizeof(*caps));
	size_t target = o->runs > 0 ? (size_t)o->runs : (size_t)o->min_runs;
	struct run_out ro;
	int err = 0;

	for (int k = 0; k < nres && !err; k++)
		if (o->counters)
			err = cnt_set_add_defaults(&res[k].cnt, false);
	for (int k = 0; k < nres && !err; k++)   /* every command's set up before the first run */
		err = run_aux(o, &res[k], o->setup, "setup");
	for (int i = 0; i < o->warmup && !err; i++) {
		progress(tty, "Warmup", (size_t)i, (size_t)o->warmup, 0);
		for (int k = 0; k < nres && !err; k++)
			err = warm_once(o, k, &res[k], i);
	}
	double start = now_s();
	for (size_t i = 0; i < target && !err; i++) {
		double el = now_s() - start, eta = i ? el / (double)i * (double)(target - i) : 0;
		size_t first_target = SIZE_MAX;

		progress(tty, "Performing runs (interleaved)", i, target, eta);
		for (int j = 0; j < nres && !err; j++) {
			int k = i % 2 ? nres - 1 - j : j;

			err = measure_once(o, k, &res[k], oh, i, target, &caps[k], &ro);
			if (!err && i == 0 && o->runs <= 0) {
				size_t n = runs_for(o, &ro);
				if (n < first_target)
					first_target = n;
			}
		}
		if (!err && i == 0 && o->runs <= 0)
			target = first_target;
	}
	progress_clear(tty);
	for (int k = 0; k < nres && !err; k++)
		err = finish_one(o, &res[k]);
	free(caps);
	return err;
}

static void print_result(const struct bench_opts *o, int i, const struct result *r)
{
	double sc;
	const char *u = unit_for(o, r->s.mean, &sc);
	int d = !strcmp(u, "s") ? 3 : 1;   /* decimals, as hyperfine: 0.011 s, 10.2 ms */

	printf("Benchmark %d: %s\n", i + 1, label(r));
	if (r->n == 0) {
		printf("  No successful runs: all %zu runs failed.\n \n", r->nruns);
		return;
	}
	if (r->n >= 2)
		printf("  Time (mean ± σ):     %6.*f %s ± %5.*f %s    [User: %.*f %s, System: %.*f %s]\n",
		       d, r->s.mean * sc, u, d, r->s.stddev * sc, u, d, r->user_mean * sc, u, d, r->sys_mean * sc, u);
	else
		printf("  Time (abs ≡):        %6.*f %s               [User: %.*f %s, System: %.*f %s]\n",
		       d, r->s.mean * sc, u, d, r->user_mean * sc, u, d, r->sys_mean * sc, u);
	printf("  Median (± MAD):      %6.*f %s ± %5.*f %s\n", d, r->s.median * sc, u, d, r->s.mad * sc, u);
	printf("  Range (min … max):   %6.*f %s … %6.*f %s    %zu run%s\n",
	       d, r->s.min * sc, u, d, r->s.max * sc, u, r->n, r->n == 1 ? "" : "s");
	if (r->n >= 2)
		printf("  Max RSS (mean ± σ):  %6.1f MiB ± %5.1f MiB", r->rs.mean / MIB, r->rs.stddev / MIB);
	else
		printf("  Max RSS:             %6.1f MiB", r->rs.mean / MIB);
	/* the mean shown, within the floor's noise (5 %, or one σ of the runs):
	 * one rule for every command, whatever its single lowest run */
	if (r->rs.mean <= o->rss_floor * 1.05 + (r->n >= 2 ? r->rs.stddev : 0))
		printf("    (at the floor: Linux counts perfkit's own %.1f MiB until the child execs)",
		       o->rss_floor / MIB);
	printf("\n");
	{
		/* user+sys of every run (wait4), whatever the metric */
		const char *cu = unit_for(o, r->cs.mean, &sc);
		int cd = !strcmp(cu, "s") ? 3 : 1;
		printf("  CPU (mean ± σ):      %6.*f %s ± %5.*f %s    user+sys%s\n",
		       cd, r->cs.mean * sc, cu, cd, r->n >= 2 ? r->cs.stddev * sc : 0, cu,
		       o->metric == M_CPU ? ", the verdict's metric" : "");
	}
	if (o->metric == M_INS) {
		printf("  Instructions:        %.0f ± %.0f (mean ± σ), %s, the verdict's metric\n",
		       r->is.mean, r->is.stddev,
		       o->ins_sim ? "simulated (perfkit's Valgrind tool)" : "counted (instructions:u)");
	}
	if (r->failed) {
		printf("  Failed runs:         %zu of %zu (exit codes:", r->failed, r->nruns);
		for (size_t k = 0, shown = 0; k < r->nruns && shown < 8; k++)
			if (r->codes[k]) {
				const char *abbrev = r->codes[k] < 0 ? sigabbrev_np(-r->codes[k]) : NULL;
				if (r->codes[k] > 0)
					printf(" %d", r->codes[k]);
				else    /* a signal death: its name, as the shell's "Segmentation fault" */
					printf(" SIG%s", abbrev ? abbrev : "?");
				shown++;
			}
		printf("), measured with the others (as hyperfine)\n");
	}
	if (r->cv) {
		printf("  Counters (mean):    ");
		for (size_t k = 0; k < r->cnt.nr; k++) {
			const struct cnt_event *e = &r->cnt.ev[k];
			if (r->cvn[k])
				printf(" %s %.0f;", e->name, st_mean(r->cv[k], r->cvn[k]));
			else
				printf(" %s <not supported>;", e->name);
		}
		printf("\n");
	}
	if (o->shell && r->n && r->s.mean < 0.005)
		printf(" \n  Warning: the command took less than 5 ms; the shell's own start-up, measured\n"
		       "  and subtracted, is of the same size, so these times are inexact. -N (--shell=none)\n"
		       "  runs the command without a shell.\n");
	if (st_outliers_notable(r->outliers, r->n) && o->metric == M_INS && o->ins_sim) {
		/* simulated counts do not depend on load: an outlier is different
		 * work; say how different, as the MAD of near-equal counts is tiny */
		double med = r->is.median, dev = fmax(r->is.max - med, med - r->is.min);
		printf(" \n  Note: %zu run%s of %zu with outlying simulated instruction counts (modified z-score > 3.5 on the MAD), at most %.0f instructions (%.3g %%) from the median. Simulated counts do not depend on load: those runs executed different work (environment, input, randomness, timing-dependent paths), not a noisier system.\n",
		       r->outliers, r->outliers == 1 ? "" : "s", r->n, dev, med > 0 ? 100 * dev / med : 0);
	}
	else if (st_outliers_notable(r->outliers, r->n))
		printf(" \n  Warning: %zu statistical outlier%s in %zu runs (%.1f %%; modified z-score > 3.5 on the MAD). Consider a quieter system, --warmup or --prepare.\n",
		       r->outliers, r->outliers == 1 ? "" : "s", r->n, 100.0 * (double)r->outliers / (double)r->n);
	printf(" \n");
}

/* ---- is the machine busy? ---- */

struct machine {
	int cpus;
	double load[2];                       /* 1-minute load average, -1: unknown */
	unsigned long long busy[2], total[2], steal[2];   /* /proc/stat jiffies */
	bool have_stat[2];
	double cpu_self[2];                   /* this process and its children, s */
	double wall[2];
};

static void machine_sample(struct machine *m, int at)
{
	const char *root = getenv("PERFKIT_PROC");
	char path[4096], line[512];
	FILE *f;

	if (!root || !*root)
		root = "/proc";
	m->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (m->cpus < 1)
		m->cpus = 1;
	m->load[at] = -1;
	snprintf(path, sizeof(path), "%s/loadavg", root);
	if ((f = fopen(path, "re"))) {
		if (fscanf(f, "%lf", &m->load[at]) != 1)
			m->load[at] = -1;
		fclose(f);
	}
	m->have_stat[at] = false;
	snprintf(path, sizeof(path), "%s/stat", root);
	if ((f = fopen(path, "re"))) {
		unsigned long long v[8] = { 0 };
		/* cpu  user nice system idle iowait irq softirq steal … (proc(5)) */
		if (fgets(line, sizeof(line), f) &&
		    sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
			m->total[at] = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
			m->busy[at] = m->total[at] - v[3] - v[4];
			m->steal[at] = v[7];
			m->have_stat[at] = true;
		}
		fclose(f);
	}
	struct rusage self, kids;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	m->cpu_self[at] = (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
				   kids.ru_stime.tv_sec) +
			  (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec +
				   kids.ru_stime.tv_usec) / 1e6;
	m->wall[at] = now_s();
}

struct busy {
	bool busy;
	double load;      /* the higher of before and after−1; -1 unknown */
	double steal_pct; /* -1 unknown */
	double others;    /* CPUs other processes kept busy on average; -1 unknown */
};

static struct busy machine_busy(const struct machine *m)
{
	struct busy b = { false, -1, -1, -1 };

	if (m->load[0] >= 0)
		b.load = m->load[0];
	if (m->load[1] >= 0 && m->load[1] - 1 > b.load)
		b.load = m->load[1] - 1;
	if (m->have_stat[0] && m->have_stat[1] && m->total[1] > m->total[0]) {
		double dt = (double)(m->total[1] - m->total[0]);
		double hz = (double)sysconf(_SC_CLK_TCK), el = m->wall[1] - m->wall[0];

		b.steal_pct = m->steal[1] >= m->steal[0] ? 100.0 * (double)(m->steal[1] - m->steal[0]) / dt : 0;
		if (hz > 0 && el > 0.5) {   /* jiffies are too coarse for less */
			double busy_s = (double)(m->busy[1] - m->busy[0]) / hz;
			b.others = (busy_s - (m->cpu_self[1] - m->cpu_self[0])) / el;
			if (b.others < 0)
				b.others = 0;
		}
	}
	b.busy = b.load > m->cpus || b.steal_pct >= 1.0 || b.others > m->cpus - 1 + 0.05;
	return b;
}

static const char *metric_words(enum metric m)
{
	return m == M_CPU ? "user+sys CPU time" : m == M_INS ? "instructions" : "wall time";
}

static void print_busy(const struct bench_opts *o, const struct machine *m, const struct busy *b)
{
	if (!b->busy)
		return;
	printf("Warning: the machine was busy during the runs (");
	const char *sep = "";
	if (b->load >= 0) {
		printf("load average %.2f on %d CPU%s", b->load, m->cpus, m->cpus == 1 ? "" : "s");
		sep = "; ";
	}
	if (b->others >= 0) {
		printf("%sother processes used %.2f CPUs", sep, b->others);
		sep = "; ";
	}
	if (b->steal_pct >= 0)
		printf("%sCPU steal %.1f %%", sep, b->steal_pct);
	printf(").\n  The verdict is on %s%s\n \n", metric_words(o->metric),
	       o->metric == M_WALL ? ", which waiting for a CPU lengthens: --metric=cpu or\n"
				     "  --metric=instructions are steadier on a busy machine." : ".");
}

/* IPC from the mean instructions and cycles of a result, if both counted. */
static bool ipc_of(const struct result *r, double *ipc)
{
	int ki = -1, kc = -1;

	for (size_t k = 0; k < r->cnt.nr; k++) {
		int kind = cnt_kind_of(&r->cnt.ev[k].attr);
		if (kind == CNT_K_INSTRUCTIONS && r->cvn[k])
			ki = (int)k;
		else if (kind == CNT_K_CYCLES && r->cvn[k])
			kc = (int)k;
	}
	if (ki < 0 || kc < 0)
		return false;
	double c = st_mean(r->cv[kc], r->cvn[kc]);
	if (!(c > 0))
		return false;
	*ipc = st_mean(r->cv[ki], r->cvn[ki]) / c;
	return true;
}

/* ---- the comparison, as data ---- */

#define ALPHA 0.05

/* One command against the reference (the best by the metric), computed
 * once after the runs: the text, JSON, CSV and Markdown all read it. */
struct bench_cmp {
	int idx, ref;
	struct st_compare metric;    /* on the verdict's metric */
	struct st_compare cpu;       /* user+sys CPU time */
	struct st_compare rss;       /* max RSS, bytes */
	struct st_compare *ctr;      /* --counters: per event of res[idx].cnt (na = 0: not counted) */
	size_t nctr;
};

struct bench_cmps {
	int ref;                     /* -1: no reference */
	struct bench_cmp *c;         /* one per result with runs, but the reference */
	int n;
};

static void compare_all(const struct bench_opts *o, struct result *res, int nres, int ref,
			struct bench_cmps *out)
{
	out->ref = ref;
	out->n = 0;
	out->c = xcalloc((size_t)(nres > 0 ? nres : 1), sizeof(*out->c));
	if (ref < 0)
		return;
	const struct result *f = &res[ref];
	for (int i = 0; i < nres; i++) {
		const struct result *r = &res[i];
		if (i == ref || !r->n)
			continue;
		struct bench_cmp *c = &out->c[out->n++];
		c->idx = i;
		c->ref = ref;
		st_compare(metric_vals(o, r), r->n, metric_vals(o, f), f->n, ALPHA, o->min_effect, &c->metric);
		st_compare(r->cpu, r->n, f->cpu, f->n, ALPHA, o->min_effect, &c->cpu);
		st_compare(r->rss, r->n, f->rss, f->n, ALPHA, o->min_effect, &c->rss);
		if (r->cv && f->cv) {
			c->nctr = r->cnt.nr < f->cnt.nr ? r->cnt.nr : f->cnt.nr;
			c->ctr = xcalloc(c->nctr, sizeof(*c->ctr));
			for (size_t k = 0; k < c->nctr; k++)
				if (r->cvn[k] && f->cvn[k])
					st_compare(r->cv[k], r->cvn[k], f->cv[k], f->cvn[k], ALPHA, 0, &c->ctr[k]);
		}
	}
}

static void cmps_release(struct bench_cmps *cs)
{
	for (int i = 0; i < cs->n; i++)
		free(cs->c[i].ctr);
	free(cs->c);
}

static const char *order_name(const struct bench_opts *o)
{
	return o->sequential ? "sequential" : "interleaved";
}

/* ---- --profile: which functions changed ---- */

/* One profile as folded text, into out: a perf.data collapsed, without its
 * first frame (the process name: two builds of a program may be named
 * differently), or a flat .folded profile (the simulated one) as it is. */
static int profile_fold(const char *path, struct strbuf *out)
{
	struct collapse_opts co;
	struct folded f;
	char *buf = NULL;
	size_t len = 0;
	int err;

	size_t pl = strlen(path);
	if (pl > 7 && !strcmp(path + pl - 7, ".folded")) {
		FILE *in = fopen(path, "r");
		char chunk[65536];
		size_t n;
		if (!in)
			return pk_error(errno, "cannot open '%s': %s", path, strerror(errno));
		while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
			sb_add(out, chunk, n);
		err = ferror(in) ? pk_error(EIO, "cannot read '%s'", path) : 0;
		fclose(in);
		return err;
	}
	memset(&co, 0, sizeof(co));
	folded_init(&f);
	err = collapse_file(path, &co, &f);
	if (!err) {
		FILE *ms = open_memstream(&buf, &len);
		if (!ms)
			err = pk_error(errno, "open_memstream: %s", strerror(errno));
		else if (folded_write(&f, ms) || fclose(ms))
			err = pk_error(EIO, "cannot fold '%s'", path);
	}
	folded_release(&f);
	if (!err) {
		for (char *p = buf; p < buf + len;) {
			char *nl = memchr(p, '\n', (size_t)(buf + len - p));
			char *end = nl ? nl : buf + len;
			char *semi = memchr(p, ';', (size_t)(end - p));
			if (semi)
				sb_add(out, semi + 1, (size_t)(end - semi - 1));
			else   /* the process name alone: keep it */
				sb_add(out, p, (size_t)(end - p));
			sb_addch(out, '\n');
			p = end + 1;
		}
	}
	free(buf);
	return err;
}

/* One comparison of profiles: the first command's (OLD) against another's. */
struct bench_pcmp {
	int idx;                     /* NEW: res[idx]; OLD is res[0] */
	struct fdiff fd;
	char *svg;                   /* the differential flame graph written */
};

struct bench_prof {
	int n;                       /* comparisons: res[1..] against res[0] */
	struct bench_pcmp *c;
};

static void prof_release(struct bench_prof *bp)
{
	for (int i = 0; i < bp->n; i++) {
		fdiff_release(&bp->c[i].fd);
		free(bp->c[i].svg);
	}
	free(bp->c);
}

/* Every later command's profiles (NEW) against the first's (OLD), as
 * bench's own OLD → NEW reading: the first command is the baseline.  Each
 * profile is folded once; DIR/diff.svg with two commands, else
 * DIR/diff-cmdK.svg for command K. */
static int profile_compare(const struct bench_opts *o, struct result *res, int nres, struct bench_prof *bp)
{
	struct fdiff_opts fo = FDIFF_OPTS_INIT;
	struct strbuf **fold = xcalloc((size_t)nres, sizeof(*fold));
	int err = 0;

	if (nres < 2) {
		free(fold);
		return 0;
	}
	/* one smallest effect for the command and its functions: a function's
	 * change, in points of OLD's mean total, counts from --min-effect % */
	fo.min_effect = o->min_effect;
	for (int k = 0; k < nres && !err; k++) {
		fold[k] = xcalloc(res[k].nprof ? res[k].nprof : 1, sizeof(**fold));
		for (size_t i = 0; i < res[k].nprof && !err; i++)
			err = profile_fold(res[k].prof[i], &fold[k][i]);
	}
	bp->c = xcalloc((size_t)nres, sizeof(*bp->c));
	for (int k = 1; k < nres && !err; k++) {
		struct bench_pcmp *c = &bp->c[bp->n++];
		c->idx = k;
		fdiff_init(&c->fd, &fo);
		for (int s = 0; s < 2; s++) {
			int r = s ? k : 0;
			for (size_t i = 0; i < res[r].nprof; i++)
				fdiff_add_buf(&c->fd, s, fold[r][i].buf ? fold[r][i].buf : "", fold[r][i].len);
		}
		fdiff_compute(&c->fd);
		struct strbuf svg = STRBUF_INIT, path = STRBUF_INIT;
		char title[256];
		snprintf(title, sizeof(title), "Differential profile: %.100s → %.100s", label(&res[0]), label(&res[k]));
		err = fdiff_svg(&c->fd, title, &svg);
		if (err == -ENODATA)
			err = 0;
		if (nres == 2)
			sb_addf(&path, "%s/diff.svg", o->profile_dir);
		else
			sb_addf(&path, "%s/diff-cmd%d.svg", o->profile_dir, k + 1);
		if (!err)
			err = write_file(path.buf, &svg);
		if (!err)
			c->svg = sb_detach(&path, NULL);
		sb_release(&path);
		sb_release(&svg);
	}
	for (int k = 0; k < nres; k++) {
		for (size_t i = 0; fold[k] && i < res[k].nprof; i++)
			sb_release(&fold[k][i]);
		free(fold[k]);
	}
	free(fold);
	return err;
}

static void print_profile(const struct bench_opts *o, struct result *res, const struct bench_prof *bp)
{
	for (int i = 0; i < bp->n; i++) {
		const struct bench_pcmp *c = &bp->c[i];
		struct strbuf t = STRBUF_INIT;

		if (o->metric == M_INS)
			printf(" \nProfile ('%s' → '%s', simulated instructions per function, a profile of each measured run):\n",
			       label(&res[0]), label(&res[c->idx]));
		else
			printf(" \nProfile ('%s' → '%s', %s at %d Hz, a profile of each measured run):\n",
			       label(&res[0]), label(&res[c->idx]), o->profile_event, o->profile_hz);
		fdiff_text(&c->fd, isatty(1), 0, &t);
		fputs(t.buf ? t.buf : "", stdout);
		if (c->svg)
			printf("Differential flame graph (only significant changes coloured): %s\n", c->svg);
		sb_release(&t);
	}
}

/* ---- the summary, printed from the comparison ---- */

static const char *ALIGN_NOTE =
	"      (the verdict follows Welch's test of the means, which the ratio and its interval\n"
	"      describe; Mann-Whitney asks which command tends to be faster, and disagrees\n"
	"      when outliers or a skewed spread move one but not the other: look at the medians)\n";

static void print_summary(const struct bench_opts *o, struct result *res, const struct bench_cmps *cs)
{
	struct result *f = &res[cs->ref];
	/* how the ratio reads: "faster" (wall), "less CPU time", "fewer instructions" */
	const char *than = o->metric == M_CPU ? "less CPU time than" :
			   o->metric == M_INS ? "fewer instructions than" : "faster than";
	const char *worse = o->metric == M_CPU ? "uses more CPU time than" :
			    o->metric == M_INS ? "executes more instructions than" : "is slower than";

	printf("Summary (verdict on %s%s)\n", metric_words(o->metric),
	       o->metric == M_INS ? (o->ins_sim ? ", simulated" : ", counted") : "");
	printf("  '%s' ran\n", label(f));
	if (f->failed)
		printf("  Warning: '%s' had %zu failed run%s (non-zero exit), measured with the others.\n",
		       label(f), f->failed, f->failed == 1 ? "" : "s");
	/* the others from the closest to the slowest, as hyperfine 1.15
	 * orders its summary (by mean; those without a ratio last) */
	int *ord = xmalloc(((size_t)cs->n + 1) * sizeof(*ord));

	for (int i = 0; i < cs->n; i++) {
		int j = i;

		for (; j > 0; j--) {   /* insertion, stable: a few commands */
			const struct st_compare *a = &cs->c[ord[j - 1]].metric, *b = &cs->c[i].metric;

			if (!b->have_ratio || (a->have_ratio && a->ratio.ratio <= b->ratio.ratio))
				break;
			ord[j] = ord[j - 1];
		}
		ord[j] = i;
	}
	for (int oi = 0; oi < cs->n; oi++) {
		const struct bench_cmp *c = &cs->c[ord[oi]];
		const struct st_compare *m = &c->metric;
		struct result *r = &res[c->idx];

		if (!m->have_ratio) {
			printf("    relative comparison with '%s' unavailable (a mean of zero)\n", label(r));
			continue;
		}
		if (r->n >= 2 && f->n >= 2)
			printf("    %.2f ± %.2f times %s '%s'\n", m->ratio.ratio, m->ratio.sigma, than, label(r));
		else
			printf("    %.2f times %s '%s'\n", m->ratio.ratio, than, label(r));
		if (m->have_test)
			printf("      95%% CI [%.3f, %.3f], Welch's t-test p = %.3g (the verdict's), Mann-Whitney U p = %.3g\n",
			       m->ratio.ci_lo, m->ratio.ci_hi, m->welch.p, m->mw.p);
		const char *vl = o->metric == M_CPU ? "verdict on CPU time" :
				 o->metric == M_INS ? "verdict on instructions" : "verdict";
		if (!m->have_test)
			printf("      %s: not enough runs for a significance test (need 2 or more each)\n", vl);
		else if (m->verdict == ST_V_HIGHER || m->verdict == ST_V_LOWER)
			printf("      %s: '%s' %s '%s' (significant at 95 %%)\n", vl, label(r), worse, label(f));
		else
			printf("      %s: no significant difference at 95 %% between '%s' and '%s'%s\n",
			       vl, label(r), label(f), m->verdict == ST_V_SMALL ? " (below the minimum effect)" : "");
		if (m->have_test && m->disagree) {
			/* the smallest p Mann-Whitney can give with these run
			 * counts: every run of one below every run of the other */
			size_t na = m->na, nb = m->nb, nt = na + nb;
			double *sep = xmalloc(nt * sizeof(double));
			struct st_test floor;
			for (size_t k = 0; k < nt; k++)
				sep[k] = (double)k;
			st_mann_whitney(sep, na, sep + na, nb, &floor);
			free(sep);
			if (m->mw.p >= ALPHA && floor.p >= ALPHA)
				printf("      (the verdict follows Welch's t-test; with %zu and %zu runs Mann-Whitney U cannot\n"
				       "      fall below p = %.3g whatever the times: more runs (-r) let it)\n", na, nb, floor.p);
			else
				fputs(ALIGN_NOTE, stdout);
		}
		if (o->metric != M_CPU && c->cpu.have_test && c->cpu.have_ratio)
			printf("      CPU (user+sys): %.2f ± %.2f times, 95%% CI [%.3f, %.3f], p = %.3g: %s\n",
			       c->cpu.ratio.ratio, c->cpu.ratio.sigma, c->cpu.ratio.ci_lo, c->cpu.ratio.ci_hi,
			       c->cpu.welch.p,
			       c->cpu.verdict == ST_V_HIGHER ? "more CPU time (significant at 95 %)" :
			       c->cpu.verdict == ST_V_LOWER ? "less CPU time (significant at 95 %)" :
			       "no significant difference");
		if (c->rss.have_test)
			printf("      Max RSS: %+.1f MiB, 95%% CI [%+.1f, %+.1f] MiB, p = %.3g: %s\n",
			       mib1(c->rss.diff), mib1(c->rss.diff_lo), mib1(c->rss.diff_hi), c->rss.welch.p,
			       c->rss.verdict == ST_V_HIGHER ? "more memory (significant at 95 %)" :
			       c->rss.verdict == ST_V_LOWER ? "less memory (significant at 95 %)" :
			       "no significant difference");
		for (size_t k = 0; k < c->nctr; k++) {
			const struct st_compare *q = &c->ctr[k];
			if (!q->na || !q->have_ratio)
				continue;
			printf("      %-18s %.3f× (%s)\n", r->cnt.ev[k].name, q->ratio.ratio,
			       q->have_test ? (q->welch.p < ALPHA ? "changed, p < 0.05" : "no significant change") :
			       "too few runs");
		}
		double ipc_r, ipc_f;
		if (c->ctr && ipc_of(r, &ipc_r) && ipc_of(f, &ipc_f))
			printf("      %-18s %.2f vs %.2f\n", "IPC", ipc_r, ipc_f);
	}
	free(ord);
}

/* ---- exports (written to a temp file, then renamed) ---- */

static int write_file(const char *path, const struct strbuf *sb)
{
	struct outfile of;
	int err = of_open_shared(&of, path);

	if (err)
		return err;
	if (sb->len && fwrite(sb->buf, 1, sb->len, of.f) != sb->len) {
		err = pk_error(errno ? errno : EIO, "cannot write '%s': %s", path,
			       strerror(errno ? errno : EIO));
		of_abort(&of);
		return err;
	}
	return of_commit(&of);
}

static void json_num(struct strbuf *sb, double v, bool valid)
{
	if (valid && isfinite(v))
		sb_addf(sb, "%.17g", v);
	else
		sb_addstr(sb, "null");
}

static void json_str(struct strbuf *sb, const char *s)
{
	sb_addch(sb, '"');
	sb_add_json(sb, s, strlen(s));
	sb_addch(sb, '"');
}

static void json_array(struct strbuf *sb, const char *key, const double *v, size_t n)
{
	sb_addf(sb, ",\n      \"%s\": [", key);
	for (size_t k = 0; k < n; k++) {
		sb_addstr(sb, k ? ", " : "");
		json_num(sb, v[k], true);
	}
	sb_addstr(sb, "]");
}

/* One comparison as a JSON object: the figures and the verdict. */
static void json_cmp(struct strbuf *sb, const struct st_compare *c)
{
	sb_addstr(sb, "{\"ratio\": ");
	json_num(sb, c->ratio.ratio, c->have_ratio);
	sb_addstr(sb, ", \"ratio_stddev\": ");
	json_num(sb, c->ratio.sigma, c->have_ratio && c->have_test);
	sb_addstr(sb, ", \"ratio_ci95\": [");
	json_num(sb, c->ratio.ci_lo, c->have_ratio && c->have_test);
	sb_addstr(sb, ", ");
	json_num(sb, c->ratio.ci_hi, c->have_ratio && c->have_test);
	sb_addstr(sb, "], \"difference\": ");
	json_num(sb, c->diff, c->na && c->nb);
	sb_addstr(sb, ", \"difference_ci95\": [");
	json_num(sb, c->diff_lo, c->have_test);
	sb_addstr(sb, ", ");
	json_num(sb, c->diff_hi, c->have_test);
	sb_addstr(sb, "], \"welch_p\": ");
	json_num(sb, c->welch.p, c->have_test);
	sb_addstr(sb, ", \"welch_df\": ");
	json_num(sb, c->welch.df, c->have_test);
	sb_addstr(sb, ", \"mann_whitney_p\": ");
	json_num(sb, c->mw.p, c->na && c->nb);
	sb_addf(sb, ", \"tests_disagree\": %s, \"verdict_test\": \"welch\", \"verdict\": \"%s\", \"significant\": %s}",
		c->disagree ? "true" : "false", st_verdict_name(c->verdict),
		c->verdict == ST_V_HIGHER || c->verdict == ST_V_LOWER ? "true" : "false");
}

static void json_profile(struct strbuf *sb, const struct bench_opts *o, struct result *res,
			 const struct bench_pcmp *c)
{
	sb_addstr(sb, "{\"old\": ");
	json_str(sb, label(&res[0]));
	sb_addstr(sb, ", \"new\": ");
	json_str(sb, label(&res[c->idx]));
	sb_addstr(sb, ", \"event\": ");
	json_str(sb, o->metric == M_INS ? "instructions (simulated)" : o->profile_event);
	sb_addf(sb, ", \"frequency\": %d, \"directory\": ", o->profile_hz);
	json_str(sb, o->profile_dir);
	sb_addstr(sb, ", \"svg\": ");
	if (c->svg)
		json_str(sb, c->svg);
	else
		sb_addstr(sb, "null");
	sb_addstr(sb, ",\n  \"functions\": ");
	fdiff_json(&c->fd, sb);
	sb_addstr(sb, "}");
}

static int export_json(const struct bench_opts *o, struct result *res, int nres,
		       const struct machine *m, const struct busy *b, const struct bench_cmps *cs,
		       const struct bench_prof *bp)
{
	struct strbuf sb = STRBUF_INIT;

	sb_addstr(&sb, "{\n  \"results\": [");
	for (int i = 0; i < nres; i++) {
		struct result *r = &res[i];
		bool have = r->n > 0;
		sb_addstr(&sb, i ? ",\n    {\n" : "\n    {\n");
		sb_addstr(&sb, "      \"command\": ");
		json_str(&sb, label(r));
		sb_addstr(&sb, ",\n      \"mean\": ");
		json_num(&sb, r->s.mean, have);
		sb_addstr(&sb, ",\n      \"stddev\": ");
		json_num(&sb, r->s.stddev, r->n >= 2);
		sb_addstr(&sb, ",\n      \"median\": ");
		json_num(&sb, r->s.median, have);
		sb_addstr(&sb, ",\n      \"mad\": ");
		json_num(&sb, r->s.mad, have);
		sb_addstr(&sb, ",\n      \"user\": ");
		json_num(&sb, r->user_mean, have);
		sb_addstr(&sb, ",\n      \"system\": ");
		json_num(&sb, r->sys_mean, have);
		sb_addstr(&sb, ",\n      \"cpu\": ");
		json_num(&sb, r->cs.mean, have);
		sb_addstr(&sb, ",\n      \"cpu_stddev\": ");
		json_num(&sb, r->cs.stddev, r->n >= 2);
		sb_addstr(&sb, ",\n      \"max_rss\": ");
		json_num(&sb, r->rs.mean, have);
		sb_addstr(&sb, ",\n      \"max_rss_stddev\": ");
		json_num(&sb, r->rs.stddev, r->n >= 2);
		if (o->metric == M_INS) {
			sb_addstr(&sb, ",\n      \"instructions\": ");
			json_num(&sb, r->is.mean, have);
			sb_addstr(&sb, ",\n      \"instructions_stddev\": ");
			json_num(&sb, r->is.stddev, r->n >= 2);
		}
		sb_addstr(&sb, ",\n      \"min\": ");
		json_num(&sb, r->s.min, have);
		sb_addstr(&sb, ",\n      \"max\": ");
		json_num(&sb, r->s.max, have);
		sb_addf(&sb, ",\n      \"outliers\": %zu,\n      \"failed_runs\": %zu", r->outliers, r->failed);
		/* every run's, failed ones too: aligned with exit_codes, as
		 * hyperfine's (the statistics above are of the successful) */
		sb_addstr(&sb, ",\n      \"times\": [");
		for (size_t k = 0; k < r->nruns; k++) {
			sb_addstr(&sb, k ? ", " : "");
			json_num(&sb, r->all_t[k], true);
		}
		sb_addstr(&sb, "]");
		json_array(&sb, "user_times", r->all_user, r->nruns);
		json_array(&sb, "system_times", r->all_sys, r->nruns);
		/* every run's too, aligned with times and exit_codes */
		json_array(&sb, "cpu_times", r->all_cpu, r->nruns);
		json_array(&sb, "max_rss_values", r->all_rss, r->nruns);
		if (o->metric == M_INS)
			json_array(&sb, "instruction_counts", r->all_ins, r->nruns);
		sb_addstr(&sb, ",\n      \"exit_codes\": [");
		/* a signal's death as hyperfine 1.15 exports it: 128 + N */
		for (size_t k = 0; k < r->nruns; k++)
			sb_addf(&sb, "%s%d", k ? ", " : "", r->codes[k] >= 0 ? r->codes[k] : 128 - r->codes[k]);
		sb_addstr(&sb, "]");
		if (r->params) {
			sb_addstr(&sb, ",\n      \"parameters\": {");
			for (int k = 0; k < o->nparam; k++) {
				sb_addstr(&sb, k ? ", " : "");
				json_str(&sb, o->param_vars[k]);
				sb_addstr(&sb, ": ");
				json_str(&sb, r->params[k]);
			}
			sb_addstr(&sb, "}");
		}
		if (r->cv) {
			sb_addstr(&sb, ",\n      \"counters\": {");
			for (size_t k = 0; k < r->cnt.nr; k++) {
				sb_addstr(&sb, k ? ", " : "");
				json_str(&sb, r->cnt.ev[k].name);
				sb_addstr(&sb, ": ");
				json_num(&sb, st_mean(r->cv[k], r->cvn[k]), r->cvn[k] > 0);
			}
			sb_addstr(&sb, "}");
		}
		sb_addstr(&sb, "\n    }");
	}
	sb_addstr(&sb, "\n  ],\n  \"metric\": ");
	json_str(&sb, metric_name[o->metric]);
	if (o->metric == M_INS)
		sb_addf(&sb, ",\n  \"instructions_source\": \"%s\"", o->ins_sim ? "simulated" : "counted");
	sb_addf(&sb, ",\n  \"order\": \"%s\",\n  \"max_rss_floor\": %.0f,\n  \"reference\": ", order_name(o),
		o->rss_floor);
	if (cs->ref >= 0)
		json_str(&sb, label(&res[cs->ref]));
	else
		sb_addstr(&sb, "null");
	sb_addstr(&sb, ",\n  \"comparisons\": [");
	for (int i = 0; i < cs->n; i++) {
		const struct bench_cmp *c = &cs->c[i];
		sb_addstr(&sb, i ? ",\n    {" : "\n    {");
		sb_addstr(&sb, "\"command\": ");
		json_str(&sb, label(&res[c->idx]));
		sb_addstr(&sb, ", \"reference\": ");
		json_str(&sb, label(&res[c->ref]));
		sb_addf(&sb, ", \"metric\": \"%s\",\n      \"comparison\": ", metric_name[o->metric]);
		json_cmp(&sb, &c->metric);
		sb_addstr(&sb, ",\n      \"cpu\": ");
		json_cmp(&sb, &c->cpu);
		sb_addstr(&sb, ",\n      \"max_rss\": ");
		json_cmp(&sb, &c->rss);
		if (c->ctr) {
			sb_addstr(&sb, ",\n      \"counters\": {");
			for (size_t k = 0, sep = 0; k < c->nctr; k++) {
				if (!c->ctr[k].na)
					continue;
				sb_addstr(&sb, sep++ ? ",\n        " : "\n        ");
				json_str(&sb, res[c->idx].cnt.ev[k].name);
				sb_addstr(&sb, ": ");
				json_cmp(&sb, &c->ctr[k]);
			}
			sb_addstr(&sb, "}");
		}
		sb_addstr(&sb, "}");
	}
	sb_addstr(&sb, cs->n ? "\n  ]" : "]");
	/* "profile": the first comparison (the only one with two commands);
	 * "profiles": every one, each later command against the first */
	for (int i = 0; i < bp->n; i++) {
		if (!i) {
			sb_addstr(&sb, ",\n  \"profile\": ");
			json_profile(&sb, o, res, &bp->c[0]);
		}
		sb_addstr(&sb, i ? ",\n    " : ",\n  \"profiles\": [\n    ");
		json_profile(&sb, o, res, &bp->c[i]);
		if (i == bp->n - 1)
			sb_addstr(&sb, "]");
	}
	sb_addf(&sb, ",\n  \"machine\": {\"cpus\": %d, \"load_average\": ", m->cpus);
	json_num(&sb, b->load, b->load >= 0);
	sb_addstr(&sb, ", \"steal_percent\": ");
	json_num(&sb, b->steal_pct, b->steal_pct >= 0);
	sb_addstr(&sb, ", \"other_cpus_busy\": ");
	json_num(&sb, b->others, b->others >= 0);
	sb_addf(&sb, ", \"busy\": %s}\n}\n", b->busy ? "true" : "false");
	int err = write_file(o->export_json, &sb);
	sb_release(&sb);
	return err;
}

/* The best by the metric (the smallest mean). */
static int fastest_of(struct result *res, int nres)
{
	int f = -1;

	for (int i = 0; i < nres; i++)
		if (res[i].n && (f < 0 || res[i].ms.mean < res[f].ms.mean))
			f = i;
	return f;
}

/* A command's label as a Markdown code span: control characters escaped
 * (a row is one line, and no escape sequence reaches a terminal showing
 * the file), | backslashed (GFM's table rule, inside code spans too); the
 * span's fence one backtick longer than the longest run of backticks in
 * it, and a space inside each fence when the label starts or ends with
 * one (CommonMark code spans: a backslash escapes nothing in them). */
static void md_code(struct strbuf *sb, const char *s)
{
	struct strbuf esc = STRBUF_INIT;
	size_t run = 0, longest = 0;

	sb_add_term(&esc, s, strlen(s));
	for (const char *p = esc.buf; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		longest = run > longest ? run : longest;
	}
	bool pad = esc.len && (esc.buf[0] == '`' || esc.buf[esc.len - 1] == '`');

	for (size_t k = 0; k <= longest; k++)
		sb_addch(sb, '`');
	if (pad)
		sb_addch(sb, ' ');
	for (const char *p = esc.buf; *p; p++) {
		if (*p == '|')
			sb_addch(sb, '\\');
		sb_addch(sb, *p);
	}
	if (pad)
		sb_addch(sb, ' ');
	for (size_t k = 0; k <= longest; k++)
		sb_addch(sb, '`');
	sb_release(&esc);
}

static void md_label(struct strbuf *sb, const struct result *r)
{
	md_code(sb, label(r));
}

/* A verdict in the words of the text summary: more/less say what was
 * compared ("slower", "more CPU time", "more memory" …). */
static const char *md_verdict(const struct st_compare *c, const char *more, const char *less)
{
	switch (c->verdict) {
	case ST_V_HIGHER: return more;
	case ST_V_LOWER: return less;
	case ST_V_SAME: return "no significant difference";
	case ST_V_SMALL: return "no significant difference (below the minimum effect)";
	case ST_V_TOO_FEW: return "not enough runs for a significance test";
	case ST_V_UNAVAILABLE: break;
	}
	return "n/a";
}

/* Result i's comparison with the reference (NULL: i is the reference, or
 * it was not compared). */
static const struct bench_cmp *cmp_of(const struct bench_cmps *cs, int i)
{
	for (int k = 0; k < cs->n; k++)
		if (cs->c[k].idx == i)
			return &cs->c[k];
	return NULL;
}

/* hyperfine's Relative cell of result i (res[i] has runs): "1.00" for the
 * reference, the ratio "R ± S" for the others, "n/a" without one. */
static void relative_text(const struct bench_opts *o, const struct result *res, const struct bench_cmps *cs, int i,
			  char *buf, size_t len)
{
	const struct bench_cmp *c = cmp_of(cs, i);

	if (i == cs->ref && st_mean(metric_vals(o, &res[i]), res[i].n) > 0)
		snprintf(buf, len, "1.00");
	else if (!c || !c->metric.have_ratio)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.2f ± %.2f", c->metric.ratio.ratio, c->metric.ratio.sigma);
}

/* --export-asciidoc (asciidoc) or --export-orgmode: hyperfine 1.15's
 * table in that markup, its five columns (Command, Mean, Min, Max,
 * Relative: against the reference command here, as the other exports). */
static int export_table(const struct bench_opts *o, struct result *res, int nres, const struct bench_cmps *cs,
			bool asciidoc)
{
	struct strbuf sb = STRBUF_INIT, cell = STRBUF_INIT;
	int f = cs->ref;
	double sc;
	const char *u = unit_for(o, f >= 0 ? res[f].s.mean : 0, &sc);
	int d = !strcmp(u, "s") ? 3 : 1;
	const char *head[5] = { "Command", "Mean", "Min", "Max", "Relative" };

	if (asciidoc)
		sb_addstr(&sb, "[cols=\"<,>,>,>,>\"]\n|===\n");
	for (int c = 0; c < 5; c++) {
		char h[64];

		snprintf(h, sizeof(h), c >= 1 && c <= 3 ? "%s [%s]" : "%s", head[c], u);
		if (asciidoc)
			sb_addf(&sb, "| %s \n", h);
		else
			sb_addf(&sb, c ? "  %s |%s" : "| %s  |%s", h, c == 4 ? "\n|--+--+--+--+--|\n" : "");
	}
	for (int i = 0; i < nres; i++) {
		const struct result *r = &res[i];
		char v[4][96];

		if (!r->n) {
			for (int c = 0; c < 4; c++)
				snprintf(v[c], sizeof(v[c]), "n/a");
		} else {
			if (r->n >= 2)
				snprintf(v[0], sizeof(v[0]), "%.*f ± %.*f", d, r->s.mean * sc, d, r->s.stddev * sc);
			else
				snprintf(v[0], sizeof(v[0]), "%.*f", d, r->s.mean * sc);
			snprintf(v[1], sizeof(v[1]), "%.*f", d, r->s.min * sc);
			snprintf(v[2], sizeof(v[2]), "%.*f", d, r->s.max * sc);
			relative_text(o, res, cs, i, v[3], sizeof(v[3]));
		}
		/* the command in the markup's code span, its '|' escaped (a
		 * cell ends there) and control bytes shown escaped */
		sb_reset(&cell);
		sb_add_term(&cell, label(r), strlen(label(r)));
		if (asciidoc) {
			sb_addstr(&sb, "\n| `");
			for (const char *p = cell.buf; *p; p++)
				sb_addstr(&sb, *p == '|' ? "\\|" : *p == '`' ? "\\`" : (char[2]){ *p, 0 });
			sb_addstr(&sb, "` \n");
			for (int c = 0; c < 4; c++)
				sb_addf(&sb, "| %s \n", v[c]);
		} else {
			sb_addstr(&sb, "| =");
			for (const char *p = cell.buf; *p; p++)
				sb_addstr(&sb, *p == '|' ? "\\vert{}" : (char[2]){ *p, 0 });
			sb_addstr(&sb, "=  |");
			for (int c = 0; c < 4; c++)
				sb_addf(&sb, "  %s |", v[c]);
			sb_addch(&sb, '\n');
		}
	}
	if (asciidoc)
		sb_addstr(&sb, "|===\n");
	int err = write_file(asciidoc ? o->export_adoc : o->export_org, &sb);
	sb_release(&sb);
	sb_release(&cell);
	return err;
}

#define MORE_MEM "more memory (significant at 95 %)"
#define LESS_MEM "less memory (significant at 95 %)"

static int export_md(const struct bench_opts *o, struct result *res, int nres,
		     const struct bench_cmps *cs, const struct bench_prof *bp)
{
	struct strbuf sb = STRBUF_INIT;
	int f = cs->ref;
	double sc;
	const char *u = unit_for(o, f >= 0 ? res[f].s.mean : 0, &sc);
	int d = !strcmp(u, "s") ? 3 : 1;

	bool ins = o->metric == M_INS;
	/* hyperfine's columns (Command, Mean, Min, Max, Relative) first, in
	 * its places (a script reading its table by column reads ours), ours
	 * after; Relative names the metric when it is not wall time */
	const char *mname = o->metric == M_CPU ? " (CPU)" : !ins ? "" :
			    o->ins_sim ? " (instructions, simulated)" : " (instructions, counted)";
	/* the words of the text summary */
	const char *more = o->metric == M_CPU ? "more CPU time (significant at 95 %)" :
			   ins ? "more instructions (significant at 95 %)" : "slower (significant at 95 %)";
	const char *less = o->metric == M_CPU ? "less CPU time (significant at 95 %)" :
			   ins ? "fewer instructions (significant at 95 %)" : "faster (significant at 95 %)";
	sb_addf(&sb, "| Command | Mean [%s] | Min [%s] | Max [%s] | Relative%s | User+Sys [%s] | Max RSS [MiB] |%s\n"
		"|:---|---:|---:|---:|---:|---:|---:|%s\n",
		u, u, u, mname, u, ins ? " Instructions |" : "", ins ? "---:|" : "");
	for (int i = 0; i < nres; i++) {
		struct result *r = &res[i];
		sb_addstr(&sb, "| ");
		md_label(&sb, r);
		sb_addstr(&sb, " | ");
		if (!r->n) {
			sb_addstr(&sb, ins ? "n/a | n/a | n/a | n/a | n/a | n/a | n/a |\n" : "n/a | n/a | n/a | n/a | n/a | n/a |\n");
			continue;
		}
		if (r->n >= 2)
			sb_addf(&sb, "%.*f ± %.*f", d, r->s.mean * sc, d, r->s.stddev * sc);
		else
			sb_addf(&sb, "%.*f", d, r->s.mean * sc);
		sb_addf(&sb, " | %.*f | %.*f | ", d, r->s.min * sc, d, r->s.max * sc);
		char rel[96];

		relative_text(o, res, cs, i, rel, sizeof(rel));
		sb_addf(&sb, "%s | ", rel);
		if (r->n >= 2)
			sb_addf(&sb, "%.*f ± %.*f | ", d, r->cs.mean * sc, d, r->cs.stddev * sc);
		else
			sb_addf(&sb, "%.*f | ", d, r->cs.mean * sc);
		if (r->n >= 2)
			sb_addf(&sb, "%.1f ± %.1f | ", r->rs.mean / MIB, r->rs.stddev / MIB);
		else
			sb_addf(&sb, "%.1f | ", r->rs.mean / MIB);
		if (ins && r->n >= 2)
			sb_addf(&sb, "%.0f ± %.0f | ", r->is.mean, r->is.stddev);
		else if (ins)
			sb_addf(&sb, "%.0f | ", r->is.mean);
		sb_setlen(&sb, sb.len - 1);   /* the row's last space */
		sb_addch(&sb, '\n');
	}
	if (cs->n) {
		/* the comparison: each command against the reference */
		sb_addf(&sb, "\nRuns %s; each command against ", order_name(o));
		md_label(&sb, &res[f]);
		sb_addf(&sb, ", verdicts at 95 %% on Welch's t-test (Mann-Whitney U shown beside).\n\n"
			"| Command | Ratio%s | 95 %% CI | Welch p | Mann-Whitney p | Verdict | CPU ratio | CPU verdict | Max RSS Δ [MiB] | Max RSS verdict |\n"
			"|:---|---:|---:|---:|---:|:---|---:|:---|---:|:---|\n",
			mname);
		for (int k = 0; k < cs->n; k++) {
			const struct bench_cmp *c = &cs->c[k];
			sb_addstr(&sb, "| ");
			md_label(&sb, &res[c->idx]);
			if (c->metric.have_ratio && c->metric.have_test)
				sb_addf(&sb, " | %.3f ± %.3f | [%.3f, %.3f] | %.3g | %.3g | ", c->metric.ratio.ratio,
					c->metric.ratio.sigma, c->metric.ratio.ci_lo, c->metric.ratio.ci_hi,
					c->metric.welch.p, c->metric.mw.p);
			else if (c->metric.have_ratio)
				sb_addf(&sb, " | %.3f | n/a | n/a | n/a | ", c->metric.ratio.ratio);
			else
				sb_addstr(&sb, " | n/a | n/a | n/a | n/a | ");
			sb_addf(&sb, "%s | ", md_verdict(&c->metric, more, less));
			const char *cv = md_verdict(&c->cpu, "more CPU time (significant at 95 %)",
						    "less CPU time (significant at 95 %)");
			if (c->cpu.have_ratio)
				sb_addf(&sb, "%.3f | %s | ", c->cpu.ratio.ratio, cv);
			else
				sb_addf(&sb, "n/a | %s | ", cv);
			if (c->rss.have_test)
				sb_addf(&sb, "%+.1f [%+.1f, %+.1f] | %s |\n", mib1(c->rss.diff), mib1(c->rss.diff_lo),
					mib1(c->rss.diff_hi), md_verdict(&c->rss, MORE_MEM, LESS_MEM));
			else
				sb_addf(&sb, "%+.1f | %s |\n", mib1(c->rss.diff), md_verdict(&c->rss, MORE_MEM, LESS_MEM));
		}
	}
	for (int i = 0; i < bp->n; i++) {
		const struct bench_pcmp *c = &bp->c[i];
		sb_addstr(&sb, "\n### Profile: ");
		md_label(&sb, &res[0]);
		sb_addstr(&sb, " → ");
		md_label(&sb, &res[c->idx]);
		if (o->metric == M_INS)
			sb_addstr(&sb, "\n\nSimulated instructions per function, a profile of each measured run");
		else
			sb_addf(&sb, "\n\n%s at %d Hz, a profile of each measured run", o->profile_event, o->profile_hz);
		if (c->svg) {
			sb_addstr(&sb, "; differential flame graph: ");
			md_code(&sb, c->svg);
		}
		sb_addstr(&sb, ".\n\n");
		fdiff_markdown(&c->fd, &sb);
	}
	int err = write_file(o->export_md, &sb);
	sb_release(&sb);
	return err;
}

/* A CSV field, quoted (RFC 4180) when it holds a comma, quote or newline. */
static void csv_field(struct strbuf *sb, const char *v)
{
	if (!strpbrk(v, ",\"\n\r")) {
		sb_addstr(sb, v);
		return;
	}
	sb_addch(sb, '"');
	for (const char *p = v; *p; p++) {
		if (*p == '"')
			sb_addch(sb, '"');
		sb_addch(sb, *p);
	}
	sb_addch(sb, '"');
}

static void csv_cmp(struct strbuf *sb, const struct st_compare *c, bool ratio)
{
	if (ratio && c->have_ratio)
		sb_addf(sb, ",%.9g", c->ratio.ratio);
	else if (ratio)
		sb_addch(sb, ',');
	if (ratio && c->have_ratio && c->have_test)
		sb_addf(sb, ",%.9g,%.9g,%.9g", c->ratio.sigma, c->ratio.ci_lo, c->ratio.ci_hi);
	else if (ratio)
		sb_addstr(sb, ",,,");
	if (!ratio)
		sb_addf(sb, ",%.9g", c->diff);
	if (!ratio && c->have_test)
		sb_addf(sb, ",%.9g,%.9g", c->diff_lo, c->diff_hi);
	else if (!ratio)
		sb_addstr(sb, ",,");
	if (c->have_test)
		sb_addf(sb, ",%.6g,%.6g", c->welch.p, c->mw.p);
	else
		sb_addstr(sb, ",,");
	sb_addf(sb, ",%s", st_verdict_name(c->verdict));
}

/* --export-csv FILE's companion for --profile: the functions' table, one
 * CSV table per file (FILE keeps hyperfine's columns): FILE without its
 * ".csv" + ".functions.csv". */
static char *functions_csv_path(const char *path)
{
	size_t l = strlen(path);
	struct strbuf sb = STRBUF_INIT;

	if (l > 4 && !strcmp(path + l - 4, ".csv"))
		l -= 4;
	sb_add(&sb, path, l);
	sb_addstr(&sb, ".functions.csv");
	return sb_detach(&sb, NULL);
}

static int export_functions_csv(const struct bench_opts *o, struct result *res, const struct bench_prof *bp)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = functions_csv_path(o->export_csv);

	sb_addstr(&sb, FDIFF_CSV_HEADER);
	for (int i = 0; i < bp->n; i++)
		fdiff_csv(&bp->c[i].fd, label(&res[0]), label(&res[bp->c[i].idx]), &sb);
	int err = write_file(path, &sb);
	sb_release(&sb);
	free(path);
	return err;
}

static int export_csv(const struct bench_opts *o, struct result *res, int nres,
		      const struct bench_cmps *cs, const struct bench_prof *bp)
{
	struct strbuf sb = STRBUF_INIT;

	/* hyperfine's columns, a parameter_NAME column per parameter, then
	 * perfkit's run counts */
	sb_addstr(&sb, "command,mean,stddev,median,user,system,min,max");
	for (int k = 0; k < o->nparam; k++) {
		size_t n = strlen(o->param_vars[k]) + 16;
		char *col = xmalloc(n);

		snprintf(col, n, "parameter_%s", o->param_vars[k]);
		sb_addch(&sb, ',');
		csv_field(&sb, col);
		free(col);
	}
	sb_addstr(&sb, ",runs,failed_runs,metric,cpu,cpu_stddev,instructions,instructions_stddev"
		",max_rss,max_rss_stddev,order,reference"
		",ratio,ratio_stddev,ratio_ci_lo,ratio_ci_hi,welch_p,mann_whitney_p,verdict"
		",cpu_ratio,cpu_ratio_stddev,cpu_ratio_ci_lo,cpu_ratio_ci_hi,cpu_welch_p,cpu_mann_whitney_p,cpu_verdict"
		",max_rss_diff,max_rss_diff_ci_lo,max_rss_diff_ci_hi,max_rss_welch_p,max_rss_mann_whitney_p,max_rss_verdict\n");
	for (int i = 0; i < nres; i++) {
		struct result *r = &res[i];
		csv_field(&sb, label(r));
		if (r->n)
			sb_addf(&sb, ",%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g", r->s.mean, r->s.stddev,
				r->s.median, r->user_mean, r->sys_mean, r->s.min, r->s.max);
		else
			sb_addstr(&sb, ",,,,,,,");
		for (int k = 0; k < o->nparam; k++) {
			sb_addch(&sb, ',');
			csv_field(&sb, r->params ? r->params[k] : "");
		}
		sb_addf(&sb, ",%zu,%zu,%s", r->n, r->failed, metric_name[o->metric]);
		if (r->n)
			sb_addf(&sb, ",%.9g,%.9g", r->cs.mean, r->cs.stddev);
		else
			sb_addstr(&sb, ",,");
		if (r->n && o->metric == M_INS)
			sb_addf(&sb, ",%.12g,%.12g", r->is.mean, r->is.stddev);
		else
			sb_addstr(&sb, ",,");
		if (r->n)
			sb_addf(&sb, ",%.0f,%.0f", r->rs.mean, r->rs.stddev);
		else
			sb_addstr(&sb, ",,");
		sb_addf(&sb, ",%s,", order_name(o));
		if (cs->ref >= 0)
			csv_field(&sb, label(&res[cs->ref]));
		const struct bench_cmp *c = cmp_of(cs, i);
		if (c) {
			csv_cmp(&sb, &c->metric, true);
			csv_cmp(&sb, &c->cpu, true);
			csv_cmp(&sb, &c->rss, false);
		} else {   /* the reference itself, or no runs */
			sb_addf(&sb, ",,,,,,,%s,,,,,,,%s,,,,,,%s", i == cs->ref ? "reference" : "",
				i == cs->ref ? "reference" : "", i == cs->ref ? "reference" : "");
		}
		sb_addch(&sb, '\n');
	}
	int err = write_file(o->export_csv, &sb);
	sb_release(&sb);
	if (!err && bp->n)
		err = export_functions_csv(o, res, bp);
	return err;
}


/* A decimal number v / 10^scale, exactly (hyperfine steps -P with exact
 * decimals: 0.1 + 0.2 is 0.3, never 0.30000000000000004). */
struct dec {
	int64_t v;
	int scale;
};

static bool dec_parse(const char *s, struct dec *d)
{
	bool neg = *s == '-', dot = false;
	int digits = 0;

	d->v = 0;
	d->scale = 0;
	if (neg || *s == '+')
		s++;
	for (; *s; s++) {
		if (*s == '.' && !dot) {
			dot = true;
			continue;
		}
		if (*s < '0' || *s > '9' || ++digits > 17)
			return false;
		d->v = d->v * 10 + (*s - '0');
		d->scale += dot;
	}
	if (!digits || s[-1] == '.')
		return false;
	if (neg)
		d->v = -d->v;
	return true;
}

/* To `scale` decimals (≥ d->scale); false when that would not fit. */
static bool dec_rescale(struct dec *d, int scale)
{
	for (; d->scale < scale; d->scale++) {
		if (d->v > INT64_MAX / 10 || d->v < INT64_MIN / 10)
			return false;
		d->v *= 10;
	}
	return true;
}

/* v at `scale` decimals, printed with `show` of them (show ≤ scale; the
 * dropped digits are zeros). */
static void dec_format(int64_t v, int scale, int show, char *buf, size_t len)
{
	uint64_t a = v < 0 ? -(uint64_t)v : (uint64_t)v, p = 1;

	for (int i = 0; i < scale; i++)
		p *= 10;
	uint64_t whole = a / p, frac = a % p;
	for (int i = show; i < scale; i++)
		frac /= 10;
	if (show)
		snprintf(buf, len, "%s%" PRIu64 ".%0*" PRIu64, v < 0 ? "-" : "", whole, show, frac);
	else
		snprintf(buf, len, "%s%" PRIu64, v < 0 ? "-" : "", whole);
}

static int parse_int(const char *opt, const char *s, int min, int *out)
{
	if (pk_parse_int(opt, s, min, 100000000, out)) {
		fprintf(stderr, "perfkit bench: %s\n", pk_errmsg());
		return -1;
	}
	return 0;
}

static void free_results(struct result *res, int nres, int nparam)
{
	for (int i = 0; i < nres; i++) {
		struct result *r = &res[i];
		free(r->command);
		free(r->name);
		if (r->params)
			for (int k = 0; k < nparam; k++)
				free(r->params[k]);
		free(r->params);
		free(r->t);
		free(r->user);
		free(r->sys);
		free(r->cpu);
		free(r->ins);
		free(r->rss);
		for (size_t k = 0; k < r->nprof; k++)
			free(r->prof[k]);
		free(r->prof);
		free(r->codes);
		free(r->all_t);
		free(r->all_cpu);
		free(r->all_rss);
		free(r->all_ins);
		free(r->all_user);
		free(r->all_sys);
		for (size_t k = 0; r->cv && k < r->cnt.nr; k++)
			free(r->cv[k]);
		free(r->cv);
		free(r->cvn);
		cnt_set_release(&r->cnt);
	}
	free(res);
}

static void free_vals(char *vals[][MAX_CMDS], const int *nvals, int nparam)
{
	for (int k = 0; k < nparam; k++)
		for (int i = 0; i < nvals[k]; i++)
			free(vals[k][i]);
}

enum { OPT_JSON = 256, OPT_MD, OPT_CSV, OPT_ADOC, OPT_ORG, OPT_SHOW, OPT_UNIT, OPT_COUNTERS, OPT_EFFECT, OPT_STEP, OPT_METRIC,
       OPT_NO_INTERLEAVE, OPT_PROFILE, OPT_PROFILE_FREQ, OPT_PROFILE_EVENT, OPT_OUTPUT, OPT_STYLE };

/* --metric=instructions: count instructions:u where the machine can (a
 * probe on this process), else find the Valgrind tool and a folder for its
 * outputs.  0, or -errno with a message. */
static int ins_setup(struct bench_opts *o)
{
	struct cnt_set probe = CNT_SET_INIT;
	int err = cnt_set_add(&probe, "instructions:u", false);

	if (!err)
		err = cnt_set_add(&o->icnt, "instructions:u", false);
	if (!err && cnt_set_open(&probe, 0, -1, 0) == 0 && probe.nr == 1 &&
	    probe.ev[0].state != CNT_NOT_SUPPORTED && probe.ev[0].fd >= 0) {
		cnt_set_release(&probe);
		o->ins_sim = false;
		return 0;
	}
	cnt_set_release(&probe);
	if (err)
		return err;
	o->ins_sim = true;
	if ((err = vgrun_find(&o->vr)) < 0) {
		char why[512];

		snprintf(why, sizeof(why), "%s", pk_errmsg());
		return pk_error(-err, "--metric=instructions: no PMU to count instructions here, and "
				"none can be simulated: %s", why);
	}
	const char *tmpdir = getenv("TMPDIR");
	struct strbuf dir = STRBUF_INIT;
	sb_addf(&dir, "%s/perfkit-bench.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir.buf)) {
		err = pk_error(errno, "cannot create a temporary folder '%s': %s", dir.buf, strerror(errno));
		sb_release(&dir);
		return err;
	}
	o->simdir = sb_detach(&dir, NULL);
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "warmup", required_argument, NULL, 'w' },
		{ "runs", required_argument, NULL, 'r' },
		{ "min-runs", required_argument, NULL, 'm' },
		{ "max-runs", required_argument, NULL, 'M' },
		{ "prepare", required_argument, NULL, 'p' },
		{ "cleanup", required_argument, NULL, 'c' },
		{ "shell", required_argument, NULL, 'S' },
		{ "ignore-failure", no_argument, NULL, 'i' },
		{ "command-name", required_argument, NULL, 'n' },
		{ "parameter-scan", required_argument, NULL, 'P' },
		{ "parameter-step-size", required_argument, NULL, 'D' },
		{ "parameter-list", required_argument, NULL, 'L' },
		{ "export-json", required_argument, NULL, OPT_JSON },
		{ "export-markdown", required_argument, NULL, OPT_MD },
		{ "export-csv", required_argument, NULL, OPT_CSV },
		{ "export-asciidoc", required_argument, NULL, OPT_ADOC },
		{ "export-orgmode", required_argument, NULL, OPT_ORG },
		{ "show-output", no_argument, NULL, OPT_SHOW },
		{ "time-unit", required_argument, NULL, 'u' },
		{ "counters", no_argument, NULL, OPT_COUNTERS },
		{ "min-effect", required_argument, NULL, OPT_EFFECT },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "no-interleave", no_argument, NULL, OPT_NO_INTERLEAVE },
		{ "profile", optional_argument, NULL, OPT_PROFILE },
		{ "profile-freq", required_argument, NULL, OPT_PROFILE_FREQ },
		{ "profile-event", required_argument, NULL, OPT_PROFILE_EVENT },
		{ "setup", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, OPT_OUTPUT },
		{ "style", required_argument, NULL, OPT_STYLE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_opts o = { .min_runs = 10, .shell = "sh", .min_effect = 1.0, .vr = VGRUN_INIT, .profile_hz = 1999,
				.profile_event = "cpu-clock",
				.icnt = CNT_SET_INIT };
	int min_given = 0;
	bool style_none = false;
	const char *scan_min = NULL, *scan_max = NULL, *step = NULL, *lists[MAX_PARAMS] = { 0 };
	int nlists = 0;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "w:r:m:M:p:c:s:S:Nin:P:D:L:u:hV", lopts, NULL)) != -1) {
		switch (c) {
		case 'w': if (parse_int("--warmup", optarg, 0, &o.warmup)) return 2; break;
		case 'r': if (parse_int("--runs", optarg, 1, &o.runs)) return 2; break;
		case 'm': if (parse_int("--min-runs", optarg, 1, &o.min_runs)) return 2; min_given = 1; break;
		case 'M': if (parse_int("--max-runs", optarg, 1, &o.max_runs)) return 2; break;
		case 'p':
			if (o.nprepare == MAX_CMDS)
				return fprintf(stderr, "perfkit bench: too many --prepare\n"), 2;
			o.prepare[o.nprepare++] = optarg;
			break;
		case 'c': o.cleanup = optarg; break;
		case 's': o.setup = optarg; break;
		case 'S':
			if (!optarg[strspn(optarg, " \t")])   /* hyperfine's words */
				return fprintf(stderr, "perfkit bench: empty command specified for --shell\n"), 2;
			/* hyperfine's words: "none" (-N), "default" (sh) */
			o.shell = !strcmp(optarg, "none") ? NULL : !strcmp(optarg, "default") ? "sh" : optarg;
			break;
		case 'N': o.shell = NULL; break;
		case 'i': o.ignore_failure = 1; break;
		case 'n':
			if (o.nnames == MAX_CMDS)
				return fprintf(stderr, "perfkit bench: too many --command-name\n"), 2;
			o.names[o.nnames++] = optarg;
			break;
		case 'P':
			if (optind + 1 >= argc)
				return fprintf(stderr, "perfkit bench: -P expects VAR MIN MAX\n"), 2;
			if (scan_min)
				return fprintf(stderr, "perfkit bench: -P can be given once\n"), 2;
			if (o.nparam == MAX_PARAMS)
				return fprintf(stderr, "perfkit bench: at most %d parameters\n", MAX_PARAMS), 2;
			o.param_vars[o.nparam++] = optarg;
			scan_min = argv[optind++];
			scan_max = argv[optind++];
			break;
		case 'D': step = optarg; break;
		case 'L':
			if (optind >= argc)
				return fprintf(stderr, "perfkit bench: -L expects VAR VALUES\n"), 2;
			if (o.nparam == MAX_PARAMS)
				return fprintf(stderr, "perfkit bench: at most %d parameters\n", MAX_PARAMS), 2;
			o.param_vars[o.nparam] = optarg;
			lists[o.nparam++] = argv[optind++];
			nlists++;
			break;
		case OPT_JSON: o.export_json = optarg; break;
		case OPT_MD: o.export_md = optarg; break;
		case OPT_CSV: o.export_csv = optarg; break;
		case OPT_ADOC: o.export_adoc = optarg; break;
		case OPT_ORG: o.export_org = optarg; break;
		case OPT_SHOW: o.show_output = 1; break;
		case OPT_OUTPUT:   /* hyperfine's null (the default), pipe, inherit */
			if (!strcmp(optarg, "inherit"))
				o.show_output = 1;
			else if (strcmp(optarg, "null") && strcmp(optarg, "pipe"))
				o.output_file = optarg;   /* a file: each run's stdout */
			break;
		case OPT_STYLE:   /* hyperfine's; none: no text on stdout (the exports are written) */
			if (!strcmp(optarg, "none"))
				style_none = true;
			else if (strcmp(optarg, "basic") && strcmp(optarg, "full") && strcmp(optarg, "nocolor") &&
				 strcmp(optarg, "color") && strcmp(optarg, "auto"))
				return fprintf(stderr, "perfkit bench: --style expects auto, basic, full, nocolor, color or none, "
						       "got '%s'\n", optarg), 2;
			break;
		case 'u':
			if (!strcmp(optarg, "millisecond") || !strcmp(optarg, "ms"))
				o.time_unit = "ms";
			else if (!strcmp(optarg, "second") || !strcmp(optarg, "s"))
				o.time_unit = "s";
			else if (!strcmp(optarg, "microsecond") || !strcmp(optarg, "us"))
				o.time_unit = "us";
			else
				return fprintf(stderr, "perfkit bench: --time-unit expects millisecond, second or microsecond, got '%s'\n", optarg), 2;
			break;
		case OPT_COUNTERS: o.counters = 1; break;
		case OPT_NO_INTERLEAVE: o.sequential = true; break;
		case OPT_PROFILE: o.profile_dir = optarg ? optarg : "bench-profile"; break;
		case OPT_PROFILE_EVENT: o.profile_event = optarg; break;
		case OPT_PROFILE_FREQ: if (parse_int("--profile-freq", optarg, 1, &o.profile_hz)) return 2; break;
		case OPT_METRIC:
			if (!strcmp(optarg, "wall"))
				o.metric = M_WALL;
			else if (!strcmp(optarg, "cpu"))
				o.metric = M_CPU;
			else if (!strcmp(optarg, "instructions"))
				o.metric = M_INS;
			else
				return fprintf(stderr, "perfkit bench: --metric expects wall, cpu or instructions, got '%s'\n", optarg), 2;
			break;
		case OPT_EFFECT:
			if (pk_parse_double("--min-effect", optarg, 0, HUGE_VAL, &o.min_effect))
				return fprintf(stderr, "perfkit bench: %s\n", pk_errmsg()), 2;
			break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("perfkit bench %s\n", PERFKIT_VERSION); return 0;   /* hyperfine -V */
		default:   /* getopt named the option */
			fputs("usage: perfkit bench [options] CMD...   (perfkit bench --help: the options)\n", stderr);
			return 2;
		}
	}
	int ntmpl = argc - optind;
	char **tmpl = argv + optind;
	if (ntmpl < 1) {
		fprintf(stderr, "perfkit bench: no command to benchmark\n");
		usage(stderr);
		return 2;
	}
	for (int k = 0; k < ntmpl; k++)   /* hyperfine refuses an empty one; -N: words to run */
		if (!tmpl[k][strspn(tmpl[k], " \t\n")]) {
			fprintf(stderr, "perfkit bench: command %d is empty%s\n", k + 1,
				o.shell ? "" : " (-N runs its words, without a shell)");
			return 2;
		}
	if (o.nnames > ntmpl) {   /* hyperfine's "Too many --command-name options" */
		fprintf(stderr, "perfkit bench: too many --command-name options: %d for %d command%s\n", o.nnames,
			ntmpl, ntmpl == 1 ? "" : "s");
		return 2;
	}
	if (o.runs && (min_given || o.max_runs)) {   /* hyperfine: they conflict */
		fprintf(stderr, "perfkit bench: --runs cannot be used with --%s-runs\n", min_given ? "min" : "max");
		return 2;
	}
	if (o.max_runs && o.min_runs > o.max_runs) {
		if (min_given) {
			fprintf(stderr, "perfkit bench: --min-runs %d exceeds --max-runs %d\n", o.min_runs, o.max_runs);
			return 2;
		}
		o.min_runs = o.max_runs;
	}
	/* an export that cannot be written fails now, not after the runs */
	const char *exports[] = { o.export_json, o.export_md, o.export_csv, o.export_adoc, o.export_org };
	for (size_t k = 0; k < sizeof(exports) / sizeof(exports[0]); k++) {
		struct outfile probe;

		if (!exports[k] || pk_options_only)
			continue;
		if (of_open(&probe, exports[k]) < 0) {
			fprintf(stderr, "perfkit bench: %s\n", pk_errmsg());
			return 1;
		}
		of_abort(&probe);
	}
	/* parameter values: vals[k][0..nvals[k]) for each parameter; the
	 * commands are every combination, the first parameter varying fastest
	 * (hyperfine's order) */
	char *vals[MAX_PARAMS][MAX_CMDS];
	int nvals[MAX_PARAMS] = { 0 };
	if (scan_min && nlists) {
		fprintf(stderr, "perfkit bench: use either -P or -L, not both\n");
		return 2;
	}
	for (int k = 0; k < o.nparam; k++)
		for (int j = 0; j < k; j++)
			if (!strcmp(o.param_vars[j], o.param_vars[k])) {
				fprintf(stderr, "perfkit bench: parameter '%s' given twice\n", o.param_vars[k]);
				return 2;
			}
	if (scan_min) {
		/* integers: range-checked, refused with the option named; with a
		 * decimal anywhere, hyperfine's exact decimal steps */
		bool decimal = strchr(scan_min, '.') || strchr(scan_max, '.') || (step && strchr(step, '.'));
		if (!decimal) {
			int64_t lo, hi, st = 1;
			if (pk_parse_i64("-P MIN", scan_min, INT64_MIN, INT64_MAX, &lo) ||
			    pk_parse_i64("-P MAX", scan_max, lo, INT64_MAX, &hi) ||
			    (step && pk_parse_i64("-D", step, 1, INT64_MAX, &st))) {
				fprintf(stderr, "perfkit bench: %s\n", pk_errmsg());
				return 2;
			}
			/* hi - lo as unsigned: it cannot overflow when hi >= lo */
			uint64_t n = ((uint64_t)hi - (uint64_t)lo) / (uint64_t)st;   /* + 1 */
			if (n >= MAX_CMDS) {
				fprintf(stderr, "perfkit bench: -P %s %s with step %lld gives more than %d values\n",
					scan_min, scan_max, (long long)st, MAX_CMDS);
				return 2;
			}
			n++;
			for (uint64_t i = 0; i < n; i++) {
				char b[32];
				snprintf(b, sizeof(b), "%lld", (long long)((uint64_t)lo + i * (uint64_t)st));
				vals[0][nvals[0]++] = xstrdup(b);
			}
		} else {
			/* hyperfine: integers, or decimals when -D is given (exact
			 * decimal steps: 0, 0.1, …, 0.9, 1.0 — the first value as written,
			 * the others with the most decimals of MIN and -D) */
			struct dec lo, hi, st = { 1, 0 };
			bool ok = dec_parse(scan_min, &lo) && dec_parse(scan_max, &hi) && (!step || dec_parse(step, &st));
			int scale = 0;
			if (ok && !step && (lo.scale || hi.scale))
				ok = false;       /* decimals need -D, as in hyperfine */
			if (ok) {
				scale = lo.scale > hi.scale ? lo.scale : hi.scale;
				scale = scale > st.scale ? scale : st.scale;
				ok = dec_rescale(&lo, scale) && dec_rescale(&hi, scale) && dec_rescale(&st, scale) &&
				     st.v > 0 && hi.v >= lo.v &&
				     ((uint64_t)hi.v - (uint64_t)lo.v) / (uint64_t)st.v < MAX_CMDS;
			}
			if (!ok) {
				fprintf(stderr, "perfkit bench: -P expects numbers MIN ≤ MAX (integers, or decimals with -D; at most %d values) and a positive -D\n", MAX_CMDS);
				return 2;
			}
			dec_parse(scan_min, &lo);   /* its own decimals, for the first value */
			int first_scale = lo.scale;
			dec_parse(step ? step : "1", &st);
			int step_scale = first_scale > st.scale ? first_scale : st.scale;
			dec_rescale(&lo, scale);
			dec_rescale(&st, scale);
			uint64_t n = ((uint64_t)hi.v - (uint64_t)lo.v) / (uint64_t)st.v + 1;
			for (uint64_t i = 0; i < n; i++) {
				int64_t v = (int64_t)((uint64_t)lo.v + i * (uint64_t)st.v);
				char b[48];
				dec_format(v, scale, i ? step_scale : first_scale, b, sizeof(b));
				vals[0][nvals[0]++] = xstrdup(b);
			}
		}
	}
	for (int k = 0; k < nlists; k++) {
		for (const char *p = lists[k];;) {
			size_t l = strcspn(p, ",");
			if (nvals[k] == MAX_CMDS) {
				fprintf(stderr, "perfkit bench: at most %d values for '%s'\n", MAX_CMDS, o.param_vars[k]);
				free_vals(vals, nvals, o.nparam);
				return 2;
			}
			vals[k][nvals[k]++] = xstrndup(p, l);
			if (!p[l])
				break;
			p += l + 1;
		}
	}
	long ncomb = 1;
	for (int k = 0; k < o.nparam && ncomb <= MAX_CMDS; k++)
		ncomb *= nvals[k];
	if ((long)ntmpl * ncomb > MAX_CMDS) {
		fprintf(stderr, "perfkit bench: at most %d commands\n", MAX_CMDS);
		free_vals(vals, nvals, o.nparam);
		return 2;
	}
	int nres = ntmpl * (int)ncomb;
	if (o.nprepare > 1 && o.nprepare != nres) {
		fprintf(stderr, "perfkit bench: give one --prepare, or one per command (%d)\n", nres);
		free_vals(vals, nvals, o.nparam);
		return 2;
	}
	struct result *res = xcalloc((size_t)nres, sizeof(*res));
	for (int t = 0, k = 0; t < ntmpl; t++) {
		for (long comb = 0; comb < ncomb; comb++, k++) {
			const char *name = t < o.nnames ? o.names[t] : NULL;

			if (o.nparam) {
				res[k].params = xcalloc((size_t)o.nparam, sizeof(char *));
				for (int p = 0, rest = (int)comb; p < o.nparam; p++) {
					res[k].params[p] = xstrdup(vals[p][rest % nvals[p]]);
					rest /= nvals[p];
				}
			}
			/* the values filled in as in --prepare, --cleanup, --setup */
			res[k].command = with_params(&o, &res[k], tmpl[t]);
			res[k].name = name ? with_params(&o, &res[k], name) : NULL;
		}
	}

	if (style_none && o.show_output) {   /* as hyperfine: the output would be lost */
		fprintf(stderr, "perfkit bench: --show-output (or --output inherit) cannot be used with --style none\n");
		free_results(res, nres, o.nparam);
		free_vals(vals, nvals, o.nparam);
		return 2;
	}
	if (pk_options_only) {   /* the option fuzz harness: stop before running */
		free_results(res, nres, o.nparam);
		free_vals(vals, nvals, o.nparam);
		return 0;
	}
	int saved_stdout = -1;   /* --style none: stdout as it was, for the exports */

	if (style_none) {   /* --style none: no text; the exports and errors as always */
		int nul = open("/dev/null", O_WRONLY | O_CLOEXEC);

		fflush(stdout);
		if (nul >= 0) {
			saved_stdout = fcntl(1, F_DUPFD_CLOEXEC, 3);
			(void)dup2(nul, 1);
			close(nul);
		}
	}
	bool tty = isatty(2);
	int rc = 0, err = 0;
	struct overhead oh = { 0, 0, 0, 0 };
	struct machine mach;
	fflush(stdout);
	machine_sample(&mach, 0);
	if (o.metric == M_INS && (err = ins_setup(&o)))
		rc = 1;
	if (!rc && o.metric == M_INS && o.profile_dir && !o.ins_sim) {
		err = pk_error(ENOTSUP, "--profile with --metric=instructions uses the simulated instruction "
			       "profile, and this machine counts instructions instead: use --metric=cpu or wall");
		rc = 1;
	}
	if (!rc && o.shell && (err = shell_overhead(&o, &oh)))
		rc = 1;
	if (nres >= 2 && !o.sequential && (o.setup || o.cleanup)) {
		/* hyperfine's --setup and --cleanup run around each command's
		 * series (-L rev a,b -s 'git checkout {rev} && make'): its runs
		 * together then, whatever interleaving would gain */
		printf("--setup/--cleanup: each command's runs together, between its setup and its cleanup "
		       "(as hyperfine), not interleaved.\n \n");
		o.sequential = true;
	}
	if (nres < 2)
		o.sequential = true;
	o.rss_floor = rss_floor();
	if (!rc && o.profile_dir && o.metric != M_INS) {
		/* checked here: a bad event would fail every profiled run, and
		 * record's exit code would read as the command's own failure */
		struct perf_event_attr ea;
		char *evs = xstrdup(o.profile_event), *save = NULL;
		const char *tok = strtok_r(evs, ",", &save);

		if (!tok) {
			err = pk_error(EINVAL, "--profile-event expects an event name, got '%s'", o.profile_event);
			rc = 2;
		}
		for (; tok && !rc; tok = strtok_r(NULL, ",", &save))
			if (ev_parse(tok, &ea) < 0) {
				char why[256];

				snprintf(why, sizeof(why), "%s", pk_errmsg());
				err = pk_error(EINVAL, "--profile-event: %s", why);
				rc = 2;
			}
		free(evs);
	}
	if (!rc && o.profile_dir) {
		char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0) {
			err = pk_error(errno, "--profile: cannot find this program (/proc/self/exe): %s", strerror(errno));
			rc = 1;
		} else {
			self[n] = 0;
			o.self_exe = xstrdup(self);
		}
		if (!rc && mkdir(o.profile_dir, 0777) && errno != EEXIST) {
			err = pk_error(errno, "--profile: cannot create '%s': %s", o.profile_dir, strerror(errno));
			rc = 1;
		}
	}
	if (!rc && !o.sequential) {
		printf("Runs interleaved: warm-up and measured runs take turns (A B, B A, A B, …);\n"
		       "--no-interleave runs each command's runs together, as hyperfine.\n \n");
		fflush(stdout);
		if ((err = bench_interleaved(&o, res, nres, &oh, tty)))
			rc = 1;
		for (int i = 0; i < nres && !rc; i++)
			print_result(&o, i, &res[i]);
	}
	for (int i = 0; i < nres && !rc && o.sequential; i++) {
		if ((err = bench_one(&o, i, &res[i], &oh, tty))) {
			rc = 1;
			break;
		}
		print_result(&o, i, &res[i]);
		fflush(stdout);   /* kept when Ctrl-C ends the rest */
	}
	if (rc) {
		fflush(stdout);
		fprintf(stderr, "perfkit bench: %s\n", pk_errmsg());
	} else {
		int f = fastest_of(res, nres);
		int with_data = 0;
		machine_sample(&mach, 1);
		struct busy busy = machine_busy(&mach);
		print_busy(&o, &mach, &busy);
		for (int i = 0; i < nres; i++)
			with_data += res[i].n > 0;
		struct bench_cmps cs;
		struct bench_prof bp = { 0 };
		compare_all(&o, res, nres, f, &cs);
		if (f >= 0 && with_data >= 2)
			print_summary(&o, res, &cs);
		if (o.profile_dir && (err = profile_compare(&o, res, nres, &bp))) {
			fprintf(stderr, "perfkit bench: --profile: %s\n", pk_errmsg());
			rc = 1;
		} else if (bp.n) {
			print_profile(&o, res, &bp);
		} else if (o.profile_dir) {
			printf(" \nProfiles of every measured run are in %s/ (the comparison of functions\n"
			       "needs two commands or more: each later one against the first).\n", o.profile_dir);
		}
		fflush(stdout);
		if (saved_stdout >= 0) {
			/* the text is done: an export to /dev/stdout (hyperfine
			 * --style none --export-json /dev/stdout | jq) reaches it */
			(void)dup2(saved_stdout, 1);
			close(saved_stdout);
			saved_stdout = -1;
		}
		if (rc) {
		} else if ((o.export_json && (err = export_json(&o, res, nres, &mach, &busy, &cs, &bp))) ||
		    (o.export_md && (err = export_md(&o, res, nres, &cs, &bp))) ||
		    (o.export_csv && (err = export_csv(&o, res, nres, &cs, &bp))) ||
		    (o.export_adoc && (err = export_table(&o, res, nres, &cs, true))) ||
		    (o.export_org && (err = export_table(&o, res, nres, &cs, false)))) {
			fprintf(stderr, "perfkit bench: %s\n", pk_errmsg());
			rc = 1;
		}
		cmps_release(&cs);
		prof_release(&bp);
	}
	free_results(res, nres, o.nparam);
	if (o.simdir) {
		rmdir(o.simdir);
		free(o.simdir);
	}
	vgrun_release(&o.vr);
	free(o.self_exe);
	cnt_set_release(&o.icnt);
	free_vals(vals, nvals, o.nparam);
	return rc;
}
