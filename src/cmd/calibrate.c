/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit calibrate — measure the CPI model's constants on this machine
 * (cachesim/cpimodel.h) and say how well the simulators rank real time.
 *
 *   perfkit calibrate [--max-size SIZE] [--scale F] [-r N] [-o FILE | --no-save]
 *                     [--kernels LIST] [--I1=S,A,L] [--D1=S,A,L] [--L2=S,A,L] [--LL=S,A,L]
 *
 * The suite (the kernels of pkcalib, src/calibrate/kernels.c): pointer
 * chase over working sets 16 KiB … 1 GiB (×4 each step, up to --max-size),
 * sequential and strided sweeps (strides 4 B … 4 KiB over min(64 MiB,
 * max) bytes), a branchy loop over random and over sorted data, matmul
 * naive / ikj / blocked, hash-table lookups (64 KiB, 4 MiB, 256 MiB tables
 * up to max) and memcpy of 256 B … 16 MiB; --kernels chase,sweep,… keeps
 * only those families.  For each kernel:
 *   - its native CPU time per operation (the minimum of -r passes), times
 *     the core's frequency (cpi_host_mhz) = measured cycles per operation;
 *   - its counts per operation under the modern model (host geometry, or
 *     the pinned --I1/--D1/--L2/--LL) and under the cachegrind model.
 * The native times are taken first, one kernel at a time; the simulations
 * then run in processes of their own, several at once (simulate_all).
 * Then the penalties are fitted (cpi_fit: non-negative least squares on
 * relative error) and written to FILE (default: cpi_params_path(), which
 * `perfkit stat --simulate` reads), and the table, the fitted constants,
 * Spearman's rank correlation between predicted and measured time per
 * operation — for the fitted modern model (in-sample, and leave-one-out:
 * each kernel predicted from a fit without it), the modern model with the
 * built-in defaults, and the cachegrind model with KCachegrind's fixed
 * penalties (CEst, the figure to beat) — and whether each of the gross
 * lessons (bigger working set slower, random branches slower, naive matmul
 * slower, …) holds measured and predicted, are printed on stdout.
 *
 * Exit status: 0; 1 when the kernels, Valgrind or the tool are missing or a
 * kernel fails (one line saying which); 2 on a usage error.
 */
#include "cmd/cmds.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/child.h"
#include "base/error.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "cachesim/cpimodel.h"
#include "cachesim/simcount.h"

enum { K_CHASE, K_SWEEP, K_BRANCH, K_MATMUL, K_HASH, K_MEMCPY };
static const char *const kname[] = { "chase", "sweep", "branch", "matmul", "hash", "memcpy" };

struct kernel {
	int kind;
	unsigned long long arg, ops, buf;   /* buf: sweep's buffer */
	char label[64];
	double ns_per_op, cyc_per_op;
	struct cpi_counts modern, cg;       /* per operation */
	double pred_fit, pred_def, pred_loo, pred_cg;
};

struct suite {
	struct kernel *k;
	size_t n, alloc;
	unsigned families;   /* bit per kind */
	/* what the simulated hierarchy holds (bytes, 0 unknown), per class:
	 * a miss of class k only happens beyond reach[k] (L1: D1's size, L2:
	 * L2's, LL: LL's, TLB: the L1 dTLB's entries x page, walk: the
	 * STLB's) — from the modern model's desc: lines */
	unsigned long long reach[CPI_NCLASS];
};

/* The largest working set kernel k times (bytes): matmul walks B (4 MiB,
 * 1024 x 1040 floats), memcpy reads and writes two buffers. */
static unsigned long long ws_of(const struct kernel *k)
{
	switch (k->kind) {
	case K_CHASE: case K_HASH: return k->arg;
	case K_SWEEP: return k->buf;
	case K_MEMCPY: return 2 * k->arg;
	case K_MATMUL: return 1024ull * 1040 * 4;
	default: return 0;
	}
}

/* reach[] from a modern-model output's desc: lines. */
static void read_reach(const struct cgfile *cg, unsigned long long *reach)
{
	for (size_t i = 0; i < cg->ndesc; i++) {
		const char *d = cg->desc[i];
		unsigned long long a, b;
		if (sscanf(d, "D1 cache: %llu B", &a) == 1)
			reach[CPI_L1] = a;
		else if (sscanf(d, "L2 cache: %llu B", &a) == 1)
			reach[CPI_L2] = a;
		else if (sscanf(d, "LL cache: %llu B", &a) == 1)
			reach[CPI_LL] = a;
		else if (sscanf(d, "D-TLB: %llu entries, %llu B pages", &a, &b) == 2)
			reach[CPI_TLB] = a * b;
		else if (sscanf(d, "STLB: %llu entries, %llu B pages", &a, &b) == 2)
			reach[CPI_WALK] = a * b;
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit calibrate [--max-size SIZE] [--scale F] [-r N] [-o FILE | --no-save] [--kernels LIST]\n"
		"                         [--I1=S,A,L] [--D1=S,A,L] [--L2=S,A,L] [--LL=S,A,L]\n"
		"  --max-size SIZE   largest working set (default 1G; K, M, G suffixes; at least 64K)\n"
		"  --scale F         operations per kernel times F (default 1; 0.1 for a quick run)\n"
		"  -r, --repeat N    timed passes per kernel, the fastest counts (default 5)\n"
		"  -o FILE           write the constants to FILE (default: the file stat --simulate reads)\n"
		"  --no-save         print only, write nothing\n"
		"  --kernels LIST    only these families: chase,sweep,branch,matmul,hash,memcpy (default all)\n"
		"  --I1/--D1/--L2/--LL=SIZE,ASSOC,LINE   pin the simulated geometry (default: the host's)\n");
}

static void fmt_size(char *buf, size_t len, unsigned long long v)
{
	if (v >= (1ull << 30) && !(v % (1ull << 30)))
		snprintf(buf, len, "%llu GiB", v >> 30);
	else if (v >= (1ull << 20) && !(v % (1ull << 20)))
		snprintf(buf, len, "%llu MiB", v >> 20);
	else if (v >= 1024 && !(v % 1024))
		snprintf(buf, len, "%llu KiB", v >> 10);
	else
		snprintf(buf, len, "%llu B", v);
}

static void add(struct suite *s, int kind, unsigned long long arg, unsigned long long ops,
		unsigned long long buf, const char *label)
{
	if (!(s->families & (1u << kind)))
		return;
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 32;
		s->k = xrealloc(s->k, s->alloc * sizeof(*s->k));
	}
	struct kernel *k = &s->k[s->n++];
	memset(k, 0, sizeof(*k));
	k->kind = kind;
	k->arg = arg;
	k->ops = ops ? ops : 1;
	k->buf = buf;
	snprintf(k->label, sizeof(k->label), "%s", label);
}

static unsigned long long scaled(double base, double scale, unsigned long long min)
{
	double v = base * scale;

	return v < (double)min ? min : (unsigned long long)v;
}

static void build_suite(struct suite *s, unsigned long long max, double scale)
{
	char sz[32], l[64];

	for (unsigned long long ws = 16 << 10; ws <= max; ws *= 4) {
		fmt_size(sz, sizeof(sz), ws);
		snprintf(l, sizeof(l), "chase %s", sz);
		add(s, K_CHASE, ws, scaled(1 << 20, scale, 10000), 0, l);
	}
	unsigned long long buf = max < (64ull << 20) ? max : (64ull << 20);
	fmt_size(sz, sizeof(sz), buf);
	for (unsigned st = 4; st <= 4096; st *= 4) {
		snprintf(l, sizeof(l), "sweep %u B of %s", st, sz);
		add(s, K_SWEEP, st, scaled(2 << 20, scale, 10000), buf, l);
	}
	add(s, K_BRANCH, 0, scaled(4 << 20, scale, 100000), 0, "branch random");
	add(s, K_BRANCH, 1, scaled(4 << 20, scale, 100000), 0, "branch sorted");
	/* matmul: whole rows of C, 1024·1024 multiply-adds each */
	unsigned long long rows = scaled(16, scale, 1);
	add(s, K_MATMUL, 0, rows << 20, 0, "matmul naive");
	add(s, K_MATMUL, 1, rows << 20, 0, "matmul ikj");
	add(s, K_MATMUL, 2, rows << 20, 0, "matmul blocked");
	static const unsigned long long hs[] = { 64ull << 10, 4ull << 20, 256ull << 20 };
	for (size_t i = 0; i < 3 && hs[i] <= max; i++) {
		fmt_size(sz, sizeof(sz), hs[i]);
		snprintf(l, sizeof(l), "hash %s", sz);
		add(s, K_HASH, hs[i], scaled(1 << 20, scale, 10000), 0, l);
	}
	for (unsigned long long m = 256; m <= (16ull << 20) && m <= max; m *= 16) {
		fmt_size(sz, sizeof(sz), m);
		snprintf(l, sizeof(l), "memcpy %s", sz);
		unsigned long long ops = scaled(32 << 20, scale, 4 * m);
		add(s, K_MEMCPY, m, ops / m * m, 0, l);
	}
}

static char *find_kernels(void)
{
	const char *env = getenv("PERFKIT_CALIB_KERNELS");
	char exe[PATH_MAX], p[PATH_MAX + 64];

	if (env && *env)
		return access(env, X_OK) == 0 ? xstrdup(env) : NULL;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = 0;
	char *dir = dirname(exe);
	snprintf(p, sizeof(p), "%s/calibrate/pkcalib", dir);
	if (access(p, X_OK) == 0)
		return xstrdup(p);
	snprintf(p, sizeof(p), "%s/../libexec/perfkit/pkcalib", dir);
	if (access(p, X_OK) == 0)
		return xstrdup(p);
	return NULL;
}

/* Run argv natively, its stdout captured into buf; 0 or -errno / -EIO. */
static int run_capture(char *const argv[], char *buf, size_t len)
{
	int pfd[2];

	if (pipe(pfd) < 0)
		return pk_error(errno, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(pfd[0]);
		close(pfd[1]);
		return pk_error(e, "fork: %s", strerror(e));
	}
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	size_t got = 0;
	ssize_t r;
	while ((r = read(pfd[0], buf + got, len - 1 - got)) > 0 || (r < 0 && errno == EINTR))
		if (r > 0)
			got += (size_t)r;
	buf[got] = 0;
	close(pfd[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st))
		return pk_error(EIO, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	if (WEXITSTATUS(st))
		return pk_error(EIO, "exit status %d", WEXITSTATUS(st));
	return 0;
}

static int per_op(const struct cgfile *cg, double ops, struct cpi_counts *c)
{
	int err = cpi_counts_from_events((const char *const *)cg->ev, cg->totals, cg->nev, c);

	if (err)
		return err;
	c->instr /= ops;
	for (int k = 0; k < CPI_NCLASS; k++)
		c->n[k] /= ops;
	return 0;
}

/* pkcalib's command line for kernel k, reps passes, into argv (its
 * strings in a: 3 x 32 bytes); a sweep's buffer size in PKCALIB_BUF. */
static void kernel_argv(const char *bin, const struct kernel *k, int reps, char *argv[6], char a[3][32])
{
	snprintf(a[0], 32, "%llu", k->arg);
	snprintf(a[1], 32, "%llu", k->ops);
	snprintf(a[2], 32, "%d", reps);
	if (k->kind == K_SWEEP) {
		char b[32];
		snprintf(b, sizeof(b), "%llu", k->buf);
		setenv("PKCALIB_BUF", b, 1);
	}
	argv[0] = (char *)bin;
	argv[1] = (char *)kname[k->kind];
	argv[2] = a[0];
	argv[3] = a[1];
	argv[4] = a[2];
	argv[5] = NULL;
}

/* Kernel k's native CPU time per operation (the fastest of reps passes),
 * alone on the machine (no simulation runs meanwhile). */
static int time_kernel(const char *bin, struct kernel *k, int reps)
{
	char a[3][32], out[256], *argv[6];
	int err;

	kernel_argv(bin, k, reps, argv, a);
	if ((err = run_capture(argv, out, sizeof(out))))
		return pk_error(err, "kernel '%s' failed natively: %s", k->label, pk_errmsg());
	char *p = strstr(out, "ns_per_op=");
	if (!p || sscanf(p, "ns_per_op=%lf", &k->ns_per_op) != 1 || !(k->ns_per_op > 0))
		return pk_error(EIO, "kernel '%s' printed no time per operation", k->label);
	return 0;
}

/* What a simulation sends back from its process (simulate_all). */
struct sim_result {
	int err;                                 /* 0, or the error (msg) */
	struct cpi_counts c;                     /* per operation */
	unsigned long long reach[CPI_NCLASS];    /* the modern model's (read_reach) */
	char msg[512];
};

/* One pass of kernel k under model m (0 modern, 1 cachegrind): its counts
 * per operation into *res. */
static void sim_kernel(const char *bin, const struct vgrun *vr, const struct simcount_opts *so,
		       const struct kernel *k, int m, struct sim_result *res)
{
	char a[3][32], *argv[6];
	struct simcount_opts mo = *so;
	struct cgfile *cg = NULL;
	int err, status;

	kernel_argv(bin, k, 1, argv, a);   /* one pass */
	mo.model = m ? "cachegrind" : "modern";
	err = simcount_run(vr, &mo, argv, &cg, &status);
	if (!err && (!WIFEXITED(status) || WEXITSTATUS(status)))
		err = pk_error(EIO, "exit status %d", pk_exit_status(status));
	if (!err)
		err = per_op(cg, (double)k->ops, &res->c);
	if (!err && !m)
		read_reach(cg, res->reach);
	cgfile_free(cg);
	res->err = err;
	if (err)
		snprintf(res->msg, sizeof(res->msg), "kernel '%s' failed under the %s model: %s", k->label, mo.model,
			 pk_errmsg());
}

/* The simulations of every kernel under both models (2 x n jobs), each in
 * a process of its own, as many at once as the machine has CPUs (at most
 * 16) and its available memory holds (each job counted at twice its
 * kernel's working set, plus 256 MiB for Valgrind; one always runs):
 * Valgrind's counts do not depend on the load, and one simulation uses
 * one core.  0, or the first failure's error with its message. */
static int simulate_all(const char *bin, const struct vgrun *vr, const struct simcount_opts *so, struct suite *s,
			int tty)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long avail = 0, used = 0, line;
	size_t njobs = 2 * s->n, next = 0, done = 0, running = 0;
	struct job {
		pid_t pid;
		int fd;
		unsigned long long mem;
	} *job = xcalloc(njobs, sizeof(*job));
	int err = 0;
	char buf[256];
	FILE *mi = fopen("/proc/meminfo", "r");

	while (mi && fgets(buf, sizeof(buf), mi))
		if (sscanf(buf, "MemAvailable: %llu kB", &line) == 1)
			avail = line * 1024;
	if (mi)
		fclose(mi);
	if (ncpu < 1)
		ncpu = 1;
	if (ncpu > 16)
		ncpu = 16;
	for (size_t j = 0; j < njobs; j++)
		job[j] = (struct job){ -1, -1, 2 * ws_of(&s->k[j / 2]) + (256ull << 20) };
	fflush(NULL);
	while (done < njobs) {
		/* start what fits: a CPU free, and memory (or nothing running) */
		while (!err && next < njobs && running < (size_t)ncpu &&
		       (!running || !avail || used + job[next].mem <= avail)) {
			struct job *jb = &job[next];
			int pfd[2];

			if (pipe(pfd) < 0) {
				err = pk_error(errno, "pipe: %s", strerror(errno));
				break;
			}
			jb->pid = fork();
			if (jb->pid < 0) {
				err = pk_error(errno, "fork: %s", strerror(errno));
				close(pfd[0]);
				close(pfd[1]);
				break;
			}
			if (jb->pid == 0) {   /* the job: its result down the pipe */
				struct sim_result res = { 0 };

				close(pfd[0]);
				sim_kernel(bin, vr, so, &s->k[next / 2], (int)(next % 2), &res);
				ssize_t w = write(pfd[1], &res, sizeof(res));

				_exit(w == (ssize_t)sizeof(res) ? 0 : 1);
			}
			close(pfd[1]);
			jb->fd = pfd[0];
			used += jb->mem;
			running++;
			next++;
		}
		if (!running)
			break;
		if (tty)
			fprintf(stderr, "\rperfkit calibrate: simulating [%zu/%zu] %zu at once   ", done + 1, njobs,
				running);
		/* the next job to end: its result read whole, then reaped */
		int st;
		pid_t pid = wait(&st);

		if (pid < 0) {
			if (errno == EINTR)
				continue;
			err = err ? err : pk_error(errno, "wait: %s", strerror(errno));
			break;
		}
		for (size_t j = 0; j < next; j++) {
			struct job *jb = &job[j];

			if (jb->pid != pid)
				continue;
			struct sim_result res;
			size_t got = 0;
			ssize_t r;

			while (got < sizeof(res) &&
			       ((r = read(jb->fd, (char *)&res + got, sizeof(res) - got)) > 0 || (r < 0 && errno == EINTR)))
				if (r > 0)
					got += (size_t)r;
			close(jb->fd);
			jb->pid = -1;
			used -= jb->mem;
			running--;
			done++;
			struct kernel *k = &s->k[j / 2];

			if (got != sizeof(res) || !WIFEXITED(st) || WEXITSTATUS(st)) {
				if (!err)
					err = pk_error(EIO, "kernel '%s': its simulation under the %s model ended without a result (status %d)",
						       k->label, j % 2 ? "cachegrind" : "modern", pk_exit_status(st));
			} else if (res.err) {
				if (!err) {
					res.msg[sizeof(res.msg) - 1] = 0;
					err = pk_error(res.err, "%s", res.msg);
				}
			} else if (j % 2) {
				k->cg = res.c;
			} else {
				k->modern = res.c;
				for (int c = 0; c < CPI_NCLASS; c++)
					if (res.reach[c])
						s->reach[c] = res.reach[c];
			}
			break;
		}
	}
	for (size_t j = 0; j < njobs; j++)   /* after a failure: the others' ends */
		if (job[j].pid > 0) {
			waitpid(job[j].pid, NULL, 0);
			close(job[j].fd);
		}
	free(job);
	return err;
}

static int parse_size(const char *s, unsigned long long *v)
{
	char *end;
	double d = strtod(s, &end);
	unsigned long long m = 1;

	if (end == s || !(d > 0))
		return -1;
	switch (*end) {
	case 'k': case 'K': m = 1ull << 10; end++; break;
	case 'm': case 'M': m = 1ull << 20; end++; break;
	case 'g': case 'G': m = 1ull << 30; end++; break;
	default: break;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B')
		end++;
	if (*end || d * (double)m > (double)(64ull << 30))
		return -1;
	*v = (unsigned long long)(d * (double)m);
	return 0;
}

static int mkdir_parents(const char *path)
{
	char buf[PATH_MAX];

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -1;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0700) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

static void print_counts(const struct kernel *k)
{
	const struct cpi_counts *c = &k->modern;

	printf("%-24s %10.3f %9.2f %9.2f %9.2f %9.2f %8.2f %7.3f %7.3f %7.3f %7.3f %7.3f\n", k->label,
	       k->ns_per_op, k->cyc_per_op, k->pred_fit, k->pred_def, k->pred_cg, c->instr, c->n[CPI_L1],
	       c->n[CPI_L2], c->n[CPI_LL], c->n[CPI_TLB] + c->n[CPI_WALK], c->n[CPI_BMISS]);
}

static const struct kernel *find(const struct suite *s, const char *label_prefix, int last)
{
	const struct kernel *f = NULL;

	for (size_t i = 0; i < s->n; i++)
		if (!strncmp(s->k[i].label, label_prefix, strlen(label_prefix))) {
			f = &s->k[i];
			if (!last)
				break;
		}
	return f;
}

static const char *yes_no(double slow, double fast)
{
	return slow > fast ? "yes" : "NO";
}

static void lesson(const char *what, const struct kernel *slow, const struct kernel *fast)
{
	if (!slow || !fast || slow == fast)
		return;
	printf("  %-46s %-9s %-9s %-9s %s\n", what, yes_no(slow->cyc_per_op, fast->cyc_per_op),
	       yes_no(slow->pred_fit, fast->pred_fit), yes_no(slow->pred_def, fast->pred_def),
	       yes_no(slow->pred_cg, fast->pred_cg));
}

static void rho_line(const char *what, const double *pred, const double *meas, size_t n, const char *note)
{
	double rho;

	if (cpi_spearman(pred, meas, n, &rho) == 0)
		printf("  %-52s %6.3f%s\n", what, rho, note);
	else
		printf("  %-52s %6s  (%s)\n", what, "n/a", pk_errmsg());
}

int cmd_calibrate(int argc, char **argv)
{
	unsigned long long max = 1ull << 30;
	double scale = 1;
	int reps = 5, nosave = 0;
	unsigned families = ~0u;
	const char *out = NULL;
	struct simcount_opts so = { .host_geometry = true, .quiet_stdout = true };
	static const char *const lv[SIM_NLEVEL] = { "I1", "D1", "L2", "LL" };
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--no-save")) {
			nosave = 1;
			continue;
		}
		if (!strncmp(a, "--max-size", 10) || !strncmp(a, "--scale", 7) || !strcmp(a, "-r") ||
		    !strncmp(a, "--kernels", 9) ||
		    !strncmp(a, "--repeat", 8) || !strcmp(a, "-o") || !strncmp(a, "--output", 8)) {
			const char *eq = strchr(a, '=');
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else {
				fprintf(stderr, "perfkit calibrate: %s needs a value\n", a);
				return 2;
			}
		}
		if (!strncmp(a, "--max-size", 10)) {
			if (parse_size(val, &max) || max < (64u << 10)) {
				fprintf(stderr, "perfkit calibrate: --max-size expects a size of at least 64K (e.g. 64M, 1G), got '%s'\n", val);
				return 2;
			}
		} else if (!strncmp(a, "--scale", 7)) {
			if (pk_parse_double("--scale", val, 0.001, 1000, &scale)) {
				fprintf(stderr, "perfkit calibrate: %s\n", pk_errmsg());
				return 2;
			}
		} else if (!strcmp(a, "-r") || !strncmp(a, "--repeat", 8)) {
			if (pk_parse_int("-r", val, 1, 1000, &reps)) {
				fprintf(stderr, "perfkit calibrate: %s\n", pk_errmsg());
				return 2;
			}
		} else if (!strcmp(a, "-o") || !strncmp(a, "--output", 8)) {
			out = val;
		} else if (!strncmp(a, "--kernels", 9)) {
			families = 0;
			for (const char *p = val; *p;) {
				size_t len = strcspn(p, ","), k;
				for (k = 0; k < sizeof(kname) / sizeof(kname[0]); k++)
					if (strlen(kname[k]) == len && !strncmp(p, kname[k], len))
						break;
				if (k == sizeof(kname) / sizeof(kname[0])) {
					fprintf(stderr, "perfkit calibrate: --kernels: '%.*s' is not one of chase, sweep, branch, matmul, hash, memcpy\n",
						(int)len, p);
					return 2;
				}
				families |= 1u << k;
				p += len + (p[len] == ',');
			}
			if (!families) {
				fprintf(stderr, "perfkit calibrate: --kernels needs at least one family\n");
				return 2;
			}
		} else {
			int k;
			for (k = 0; k < SIM_NLEVEL; k++)
				if (a[0] == '-' && a[1] == '-' && !strncmp(a + 2, lv[k], 2) && a[4] == '=')
					break;
			if (k == SIM_NLEVEL) {
				fprintf(stderr, "perfkit calibrate: unknown option '%s'\n", a);
				usage(stderr);
				return 2;
			}
			char opt[8];
			snprintf(opt, sizeof(opt), "--%s", lv[k]);
			if (cache_geom_parse(opt, a + 5, &so.geom[k]) < 0) {
				fprintf(stderr, "perfkit calibrate: %s\n", pk_errmsg());
				return 2;
			}
			so.have[k] = true;
		}
	}
	if (nosave && out) {
		fprintf(stderr, "perfkit calibrate: -o and --no-save cannot be used together\n");
		return 2;
	}

	char path[PATH_MAX];
	if (!nosave && !out) {
		if (cpi_params_path(path, sizeof(path))) {
			fprintf(stderr, "perfkit calibrate: no place for the calibration file: set XDG_CACHE_HOME or HOME, or give -o FILE\n");
			return 2;
		}
		out = path;
	}

	char *bin = find_kernels();
	if (!bin) {
		fprintf(stderr, "perfkit calibrate: the kernels (calibrate/pkcalib) are not beside the perfkit binary nor in ../libexec/perfkit/ (copy build/calibrate/ along with build/perfkit, or set PERFKIT_CALIB_KERNELS)\n");
		return 1;
	}
	struct vgrun vr = VGRUN_INIT;
	if (vgrun_find(&vr)) {
		fprintf(stderr, "perfkit calibrate: %s\n", pk_errmsg());
		free(bin);
		return 1;
	}
	double mhz;
	const char *fsrc;
	if (cpi_host_mhz(NULL, &mhz, &fsrc)) {
		fprintf(stderr, "perfkit calibrate: the core's frequency is unknown (no \"cpu MHz\" in /proc/cpuinfo, no cpufreq): cycles cannot be measured from time\n");
		vgrun_release(&vr);
		free(bin);
		return 1;
	}

	struct suite s = { .families = families };
	int rc = 0;
	build_suite(&s, max, scale);
	if (s.n < 2) {
		fprintf(stderr, "perfkit calibrate: %zu kernel%s at this --max-size and --kernels: a fit needs two\n", s.n,
			s.n == 1 ? "" : "s");
		rc = 2;
		goto out;
	}
	int tty = isatty(2);
	/* the native times first, one kernel at a time on a quiet machine;
	 * then the simulations, several at once */
	for (size_t n = 0; n < s.n; n++) {
		if (tty)
			fprintf(stderr, "\rperfkit calibrate: timing [%zu/%zu] %-28s", n + 1, s.n, s.k[n].label);
		if (time_kernel(bin, &s.k[n], reps)) {
			if (tty)
				fputc('\n', stderr);
			fprintf(stderr, "perfkit calibrate: %s\n", pk_errmsg());
			rc = 1;
			goto out;
		}
		s.k[n].cyc_per_op = s.k[n].ns_per_op * mhz / 1000.0;
	}
	if (simulate_all(bin, &vr, &so, &s, tty)) {
		if (tty)
			fputc('\n', stderr);
		fprintf(stderr, "perfkit calibrate: %s\n", pk_errmsg());
		rc = 1;
		goto out;
	}
	if (tty)
		fprintf(stderr, "\r\033[K");

	struct cpi_counts *rows = xcalloc(s.n, sizeof(*rows));
	double *y = xcalloc(s.n, sizeof(double)), *pf = xcalloc(5 * s.n, sizeof(double));
	double *pd = pf + s.n, *pl = pd + s.n, *pc = pl + s.n, *sub_y = pc + s.n;
	struct cpi_params def, fit;
	cpi_params_default(&def);
	/* a class whose misses the suite's working sets cannot cause beyond
	 * the cold ones (which the untimed set-up takes) is held at its default */
	unsigned long long max_ws = 0;
	for (size_t n = 0; n < s.n; n++)
		if (ws_of(&s.k[n]) > max_ws)
			max_ws = ws_of(&s.k[n]);
	for (int c = 0; c < CPI_NCLASS; c++)
		def.fixed[c] = s.reach[c] && max_ws <= s.reach[c];
	fit = def;
	for (size_t n = 0; n < s.n; n++) {
		rows[n] = s.k[n].modern;
		y[n] = s.k[n].cyc_per_op;
	}
	if (cpi_fit(rows, y, s.n, &fit)) {
		fprintf(stderr, "perfkit calibrate: %s\n", pk_errmsg());
		rc = 1;
		free(rows);
		free(y);
		free(pf);
		goto out;
	}
	/* leave-one-out: each kernel predicted by a fit on the others */
	struct cpi_counts *sub = xcalloc(s.n, sizeof(*sub));
	for (size_t n = 0; n < s.n; n++) {
		size_t m = 0;
		for (size_t j = 0; j < s.n; j++)
			if (j != n) {
				sub[m] = rows[j];
				sub_y[m++] = y[j];
			}
		struct cpi_params lo = def;
		pl[n] = cpi_fit(sub, sub_y, m, &lo) == 0 ? cpi_predict(&lo, &rows[n], NULL) : 0;
	}
	free(sub);
	for (size_t n = 0; n < s.n; n++) {
		struct kernel *k = &s.k[n];
		k->pred_fit = pf[n] = cpi_predict(&fit, &k->modern, NULL);
		k->pred_def = pd[n] = cpi_predict(&def, &k->modern, NULL);
		k->pred_loo = pl[n];
		k->pred_cg = pc[n] = cpi_cachegrind_cycles(&k->cg);
	}

	printf("perfkit calibrate: %zu kernels, CPU time per operation (fastest of %d passes) at %.0f MHz (%s);\n"
	       "counts per operation simulated (modern model: %s geometry; cachegrind model beside it)\n\n",
	       s.n, reps, mhz, fsrc, so.have[0] || so.have[1] || so.have[2] || so.have[3] ? "pinned/host" : "host");
	printf("%-24s %10s %9s %9s %9s %9s %8s %7s %7s %7s %7s %7s\n", "kernel", "ns/op", "cyc/op",
	       "model", "defaults", "CEst", "Ir", "L1m", "L2m", "LLm", "TLBm", "Bm");
	for (size_t n = 0; n < s.n; n++)
		print_counts(&s.k[n]);
	printf("\n(cyc/op measured = ns/op x MHz; model = fitted modern model; defaults = modern model\n"
	       " with the built-in constants; CEst = Ir + 10 Bm + 10 L1m + 100 LLm on the cachegrind\n"
	       " model's counts; the count columns are the modern model's, per operation)\n\n");

	printf("fitted: base CPI %.3f", fit.base_cpi);
	for (int c = 0; c < CPI_NCLASS; c++) {
		if (fit.fitted[c])
			printf(", %s %.2f", cpi_class_key[c], fit.pen[c]);
		else if (def.fixed[c])
			printf(", %s %.2f (held at its default)", cpi_class_key[c], fit.pen[c]);
		else
			printf(", %s %.2f (no such event: default kept)", cpi_class_key[c], fit.pen[c]);
	}
	printf(" cycles\n");
	static const char *const what[CPI_NCLASS] = { "D1", "L2", "LL", "L1 dTLB's reach", "STLB's reach", "" };
	char wsz[32], rsz[32];
	fmt_size(wsz, sizeof(wsz), max_ws);
	for (int c = 0; c < CPI_NCLASS; c++)
		if (def.fixed[c]) {
			fmt_size(rsz, sizeof(rsz), s.reach[c]);
			fprintf(stderr, "perfkit calibrate: warning: %s held at its default %.0f cycles: the suite's largest working set (%s) fits in the simulated %s (%s), so it cannot time these misses; raise --max-size above %s to fit it\n",
				cpi_class_key[c], fit.pen[c], wsz, what[c], rsz, rsz);
		}
	static const int pairs[][2] = { { CPI_L1, CPI_L2 }, { CPI_L2, CPI_LL }, { CPI_TLB, CPI_WALK } };
	for (size_t pi = 0; pi < sizeof(pairs) / sizeof(pairs[0]); pi++) {
		int lo = pairs[pi][0], hi = pairs[pi][1];
		if ((fit.fitted[lo] || fit.fitted[hi]) && fabs(fit.pen[lo] - fit.pen[hi]) <= 1e-6 * (1 + fit.pen[hi]))
			fprintf(stderr, "perfkit calibrate: warning: %s and %s tied at %.2f cycles: the fit is kept monotone with level (%s <= %s) and this suite cannot tell them apart\n",
				cpi_class_key[lo], cpi_class_key[hi], fit.pen[lo], cpi_class_key[lo], cpi_class_key[hi]);
	}
	printf("\n");

	printf("Spearman rank correlation, predicted vs measured time per operation (%zu kernels):\n", s.n);
	double rho_fit = NAN;
	cpi_spearman(pf, y, s.n, &rho_fit);
	rho_line("modern model, fitted penalties (in-sample)", pf, y, s.n, "");
	rho_line("modern model, fitted penalties (leave-one-out)", pl, y, s.n, "");
	rho_line("modern model, built-in default penalties", pd, y, s.n, "");
	rho_line("cachegrind model, CEst (fixed penalties)", pc, y, s.n, "   <- the figure to beat");

	printf("\n%-48s %-9s %-9s %-9s %s\n", "lessons (is the first slower per operation?)", "measured", "model", "defaults", "cachegrind");
	const struct kernel *c0 = find(&s, "chase ", 0), *c1 = find(&s, "chase ", 1);
	lesson("pointer chase: largest vs smallest set", c1, c0);
	lesson("sweep: stride 64 B vs 4 B", find(&s, "sweep 64 ", 0), find(&s, "sweep 4 ", 0));
	lesson("branches: random vs sorted data", find(&s, "branch random", 0), find(&s, "branch sorted", 0));
	lesson("matmul: naive vs ikj", find(&s, "matmul naive", 0), find(&s, "matmul ikj", 0));
	lesson("matmul: naive vs blocked", find(&s, "matmul naive", 0), find(&s, "matmul blocked", 0));
	lesson("hash: largest vs smallest table", find(&s, "hash ", 1), find(&s, "hash ", 0));

	if (out) {
		time_t now = time(NULL);
		struct tm tmv;
		FILE *ci = fopen("/proc/cpuinfo", "re");
		char line[256];

		gmtime_r(&now, &tmv);
		strftime(fit.date, sizeof(fit.date), "%Y-%m-%dT%H:%M:%SZ", &tmv);
		while (ci && fgets(line, sizeof(line), ci))
			if (!strncmp(line, "model name", 10)) {
				char *v = strchr(line, ':');
				if (v) {
					v += 1 + strspn(v + 1, " \t");
					v[strcspn(v, "\n")] = 0;
					snprintf(fit.host, sizeof(fit.host), "%s", v);
				}
				break;
			}
		if (ci)
			fclose(ci);
		fit.freq_mhz = mhz;
		snprintf(fit.freq_source, sizeof(fit.freq_source), "%s", fsrc);
		if (isfinite(rho_fit))
			snprintf(fit.spearman, sizeof(fit.spearman), "%.3f", rho_fit);
		int lo, hi;
		if (!cpi_params_monotone(&fit, &lo, &hi)) {
			fprintf(stderr, "perfkit calibrate: not saving '%s': %s %.2f is below %s %.2f (penalties must grow with the level)\n",
				out, cpi_class_key[hi], fit.pen[hi], cpi_class_key[lo], fit.pen[lo]);
			rc = 1;
		} else if (mkdir_parents(out) < 0 || cpi_params_write(out, &fit)) {
			fprintf(stderr, "perfkit calibrate: cannot write '%s': %s\n", out,
				pk_errmsg()[0] ? pk_errmsg() : strerror(errno));
			rc = 1;
		} else {
			printf("\nwrote %s (perfkit stat --simulate reads it)\n", out);
		}
	}
	if (fflush(stdout) != 0)
		rc = 1;
	free(rows);
	free(y);
	free(pf);
out:
	free(s.k);
	vgrun_release(&vr);
	free(bin);
	return rc;
}
