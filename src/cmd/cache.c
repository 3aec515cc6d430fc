/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit cache — run a program under perfkit's Valgrind tool (pkcache) and
 * simulate caches, a data TLB, an L2 prefetcher and branch prediction.
 *
 *   perfkit cache [--model=cachegrind|modern] [--I1=S,A,L] [--D1=S,A,L]
 *                 [--L2=S,A,L] [--LL=S,A,L]
 *                 [--prefetch=none|next-line|stride|stream] [--l1-prefetch=yes|no]
 *                 [--tlb=ENTRIES,ASSOC,PAGE|none] [--stlb=ENTRIES,ASSOC|none]
 *                 [--branch-sim=yes|no]
 *                 [-o FILE] [-q] [--] CMD ARGS...
 *
 * Writes FILE (default perfkit.cache.out) in the Cachegrind format (read
 * by `perfkit annotate`, cg_annotate, KCachegrind) and prints the totals
 * to stderr, as cachegrind does (stdout stays the program's).
 *
 * --branch-sim defaults to no with --model=cachegrind (as cachegrind) and to
 * yes with --model=modern.
 *
 * Finding the tool and running the program under it: src/lib/cachesim/vgrun.h
 * (perfkit's own environment never reaches the program, so the counts of
 * --model=cachegrind are cachegrind's).
 *
 * Exit status: the program's (128+N when it died of signal N); 127 when it
 * cannot be found; 1 on a simulation failure; 2 on a usage error.
 */
#include "cmd/cmds.h"

#include "base/child.h"
#include "base/error.h"
#include "base/outfile.h"
#include "base/parse.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "cachesim/cachesim.h"
#include "cachesim/hostcache.h"
#include "cachesim/vgrun.h"
#include "cgfile/cgfile.h"
#include "symbol/symbol.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* An option value base/parse refused: its one line (option and range), exit 2. */
static int value_error(void)
{
	fprintf(stderr, "perfkit cache: %s\n", pk_errmsg());
	return 2;
}

/* s = exactly n comma-separated numbers, field k read by base/parse in
 * [1, max[k]] and named names[k] when refused: 0, -1 when the number of
 * fields is wrong, -2 when a field is refused (pk_errmsg() says why). */
static int parse_fields(const char *s, size_t n, const char *const *names, const uint64_t *max,
			uint64_t *out)
{
	char buf[128];
	size_t k = 0;

	if (strlen(s) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *p = buf;; k++) {
		char *comma = strchr(p, ',');

		if (k == n)
			return -1;
		if (comma)
			*comma = '\0';
		if (pk_parse_u64(names[k], p, 1, max[k], &out[k]))
			return -2;
		if (!comma)
			break;
		p = comma + 1;
	}
	return k + 1 == n ? 0 : -1;
}

static int usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "perfkit cache: %s\n", msg);
	fprintf(stderr,
		"usage: perfkit cache [--model=cachegrind|modern] [--I1=S,A,L] [--D1=S,A,L]\n"
		"                     [--L2=S,A,L] [--LL=S,A,L]\n"
		"                     [--prefetch=none|next-line|stride|stream] [--l1-prefetch=yes|no]\n"
		"                     [--tlb=ENTRIES,ASSOC,PAGE|none] [--stlb=ENTRIES,ASSOC|none]\n"
		"                     [--branch-sim=yes|no]\n"
		"                     [-o FILE] [-q] [--] CMD [ARGS...]\n");
	return 2;
}

/* --help: the usage line and every option, one line each (stdout). */
static void help(void)
{
	printf("usage: perfkit cache [OPTIONS] [--] CMD [ARGS...]\n"
	       "Run CMD under Valgrind with perfkit's cache simulator; write the counts per\n"
	       "source line in the Cachegrind format (for perfkit annotate, cg_annotate,\n"
	       "KCachegrind) and print the totals to stderr.  Works without hardware counters.\n"
	       "\n"
	       "  --model=cachegrind|modern  cachegrind: I1, D1 and LL with cachegrind's rules,\n"
	       "                             exactly its counts; modern (default): adds an L2,\n"
	       "                             a prefetcher and a data TLB, geometry from this host\n"
	       "  --I1=S,A,L                 the first-level instruction cache: size in bytes,\n"
	       "                             associativity, line size (e.g. --I1=32768,8,64)\n"
	       "  --D1=S,A,L                 the first-level data cache\n"
	       "  --L2=S,A,L                 the L2 (modern only)\n"
	       "  --LL=S,A,L                 the last-level cache\n"
	       "  --prefetch=none|next-line|stride|stream\n"
	       "                             the L2 prefetcher (modern only; default stream)\n"
	       "  --l1-prefetch=yes|no       next-line prefetch into D1 (modern only; default yes)\n"
	       "  --tlb=ENTRIES,ASSOC,PAGE|none\n"
	       "                             the data TLB (modern only; default 64,4,4096)\n"
	       "  --stlb=ENTRIES,ASSOC|none  the second-level TLB (modern only; default 1536,12)\n"
	       "  --branch-sim=yes|no        simulate branch prediction (default: yes with\n"
	       "                             modern, no with cachegrind, as cachegrind's)\n"
	       "  -o, --output=FILE          the counts file (default perfkit.cache.out); each\n"
	       "                             PERFKIT_CACHE_DUMP() of the program writes FILE.N;\n"
	       "                             also cachegrind's --cachegrind-out-file=FILE;\n"
	       "                             valgrind's %%p (the process id), %%q{VAR}, %%%% in it\n"
	       "  Options take their value after '=' or as the next argument.\n"
	       "  -q, --quiet                no totals on stderr\n"
	       "  -h, --help                 this help\n"
	       "\n"
	       "Exit status: CMD's (128+N when it died of signal N), 127 when CMD is not found,\n"
	       "126 when it cannot be run, 1 when the simulation fails (no counts), 2 on a\n"
	       "usage error.\n"
	       "Example: perfkit cache -o m.cg -- ./matmul naive && perfkit annotate m.cg\n");
}

static uint64_t ev(const struct cgfile *cg, const char *name)
{
	int i = cgfile_event(cg, name);

	return i < 0 ? 0 : cg->totals[i];
}

static void row(const char *label, uint64_t v, uint64_t rd, uint64_t wr, int split)
{
	char a[32], b[32], c[32];

	cgfile_fmt_count(a, sizeof(a), v);
	if (split) {
		cgfile_fmt_count(b, sizeof(b), rd);
		cgfile_fmt_count(c, sizeof(c), wr);
		fprintf(stderr, "%-14s %15s  (%15s rd + %13s wr)\n", label, a, b, c);
	} else {
		fprintf(stderr, "%-14s %15s\n", label, a);
	}
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void rate(const char *label, uint64_t m, uint64_t n, uint64_t mr, uint64_t nr, uint64_t mw,
		 uint64_t nw, int split)
{
	if (split)
		fprintf(stderr, "%-14s %14.2f%%  (%14.2f%%    + %12.2f%%   )\n", label, pct(m, n),
			pct(mr, nr), pct(mw, nw));
	else
		fprintf(stderr, "%-14s %14.2f%%\n", label, pct(m, n));
}

/* Geometry "SIZE B, LINE B, N-way associative | direct-mapped | fully
 * associative" of a desc: line after its "NAME cache:"; 0 if unreadable. */
static int desc_geom(const char *d, struct cache_geom *g)
{
	unsigned long long size, line, ways;
	int n = 0;

	d += strspn(d, " ");
	if (sscanf(d, "%llu B, %llu B, %n", &size, &line, &n) < 2 || !n)
		return 0;
	d += n;
	if (!strncmp(d, "direct-mapped", 13))
		ways = 1;
	else if (!strncmp(d, "fully associative", 17))
		ways = line ? size / line : 0;
	else if (sscanf(d, "%llu-way", &ways) != 1)
		return 0;
	*g = (struct cache_geom){ size, ways, line };
	return 1;
}

/* cachegrind's "warning: simulated LL cache: …": a level the user did not
 * pin whose simulated geometry is not the one the host describes (sysfs,
 * made simulable as hostcache.h says). */
static void warn_geometry(const struct cgfile *cg, const int *pinned)
{
	static const char *const lv[4] = { "I1", "D1", "L2", "LL" };
	struct host_caches hc;

	if (hostcache_read_host(&hc) < 0)
		return;
	const struct cache_geom *h[4] = { &hc.I1, &hc.D1, &hc.L2, &hc.LL };
	for (size_t i = 0; i < cg->ndesc; i++)
		for (int k = 0; k < 4; k++) {
			size_t l = strlen(lv[k]);
			struct cache_geom sg;
			if (pinned[k] || !h[k]->size || strncmp(cg->desc[i], lv[k], l) ||
			    strncmp(cg->desc[i] + l, " cache:", 7) || !desc_geom(cg->desc[i] + l + 7, &sg))
				continue;
			if (sg.size == h[k]->size && sg.assoc == h[k]->assoc && sg.line == h[k]->line)
				continue;
			const char *d = cg->desc[i] + l + 7;
			fprintf(stderr, "perfkit cache: warning: simulated %s cache: %s, not the host's %llu B, %llu B, %llu-way (%s); pin it with --%s=%llu,%llu,%llu\n",
				lv[k], d + strspn(d, " "), (unsigned long long)h[k]->size, (unsigned long long)h[k]->line,
				(unsigned long long)h[k]->assoc, hostcache_sysfs_cpu(), lv[k],
				(unsigned long long)h[k]->size, (unsigned long long)h[k]->assoc,
				(unsigned long long)h[k]->line);
		}
}

/* The totals, in cachegrind's layout, with the extra levels of the modern
 * model (every line simulated). */
static void print_summary(const struct cgfile *cg, int modern)
{
	uint64_t ir = ev(cg, "Ir"), dr = ev(cg, "Dr"), dw = ev(cg, "Dw");
	uint64_t i1 = ev(cg, "I1mr"), d1r = ev(cg, "D1mr"), d1w = ev(cg, "D1mw");
	uint64_t i2 = ev(cg, "I2mr"), d2r = ev(cg, "D2mr"), d2w = ev(cg, "D2mw");
	uint64_t il = ev(cg, "ILmr"), dlr = ev(cg, "DLmr"), dlw = ev(cg, "DLmw");

	fprintf(stderr, "\nperfkit cache: %s model (simulated)\n", modern ? "modern" : "cachegrind");
	for (size_t i = 0; i < cg->ndesc; i++)
		fprintf(stderr, "  %s\n", cg->desc[i]);
	fputc('\n', stderr);
	row("I refs:", ir, 0, 0, 0);
	row("I1 misses:", i1, 0, 0, 0);
	if (modern)
		row("L2i misses:", i2, 0, 0, 0);
	row("LLi misses:", il, 0, 0, 0);
	rate("I1 miss rate:", i1, ir, 0, 0, 0, 0, 0);
	rate("LLi miss rate:", il, ir, 0, 0, 0, 0, 0);
	fputc('\n', stderr);
	row("D refs:", dr + dw, dr, dw, 1);
	row("D1 hits:", (dr + dw) - (d1r + d1w), dr - d1r, dw - d1w, 1);
	row("D1 misses:", d1r + d1w, d1r, d1w, 1);
	if (modern)
		row("L2d misses:", d2r + d2w, d2r, d2w, 1);
	row("LLd misses:", dlr + dlw, dlr, dlw, 1);
	rate("D1 miss rate:", d1r + d1w, dr + dw, d1r, dr, d1w, dw, 1);
	if (modern)
		rate("L2d miss rate:", d2r + d2w, dr + dw, d2r, dr, d2w, dw, 1);
	rate("LLd miss rate:", dlr + dlw, dr + dw, dlr, dr, dlw, dw, 1);
	if (modern) {
		fputc('\n', stderr);
		row("L2 refs:", i1 + d1r + d1w, i1 + d1r, d1w, 1);
		row("L2 hits:", (i1 + d1r + d1w) - (i2 + d2r + d2w), (i1 + d1r) - (i2 + d2r),
		    d1w - d2w, 1);
		row("L2 misses:", i2 + d2r + d2w, i2 + d2r, d2w, 1);
		row("L2 pf issued:", ev(cg, "PFi"), 0, 0, 0);
		row("L2 pf hits:", ev(cg, "PFh"), 0, 0, 0);
		if (cgfile_event(cg, "PF1i") >= 0)
			row("L1 pf issued:", ev(cg, "PF1i"), 0, 0, 0);
		fputc('\n', stderr);
		row("DTLB misses:", ev(cg, "DTmr") + ev(cg, "DTmw"), ev(cg, "DTmr"), ev(cg, "DTmw"), 1);
		if (cgfile_event(cg, "STmr") >= 0) {
			row("STLB misses:", ev(cg, "STmr") + ev(cg, "STmw"), ev(cg, "STmr"),
			    ev(cg, "STmw"), 1);
			row("walks L2 miss:", ev(cg, "PW2m"), 0, 0, 0);
			row("walks LL miss:", ev(cg, "PWLm"), 0, 0, 0);
		}
		if (cgfile_event(cg, "D1wb") >= 0) {
			fputc('\n', stderr);
			row("D1 writebacks:", ev(cg, "D1wb"), 0, 0, 0);
			row("L2 writebacks:", ev(cg, "L2wb"), 0, 0, 0);
			row("LL writebacks:", ev(cg, "LLwb"), 0, 0, 0);
		}
	}
	fputc('\n', stderr);
	uint64_t llr = modern ? i2 + d2r + d2w : i1 + d1r + d1w;

	row("LL refs:", llr, modern ? i2 + d2r : i1 + d1r, modern ? d2w : d1w, 1);
	row("LL misses:", il + dlr + dlw, il + dlr, dlw, 1);
	rate("LL miss rate:", il + dlr + dlw, ir + dr + dw, il + dlr, ir + dr, dlw, dw, 1);
	if (cgfile_event(cg, "Bc") >= 0) {
		uint64_t bc = ev(cg, "Bc"), bcm = ev(cg, "Bcm"), bi = ev(cg, "Bi"), bim = ev(cg, "Bim");
		char a[32], b[32], c[32];

		fputc('\n', stderr);
		cgfile_fmt_count(a, sizeof(a), bc + bi);
		cgfile_fmt_count(b, sizeof(b), bc);
		cgfile_fmt_count(c, sizeof(c), bi);
		fprintf(stderr, "%-14s %15s  (%15s cond + %11s ind)\n", "Branches:", a, b, c);
		cgfile_fmt_count(a, sizeof(a), bcm + bim);
		cgfile_fmt_count(b, sizeof(b), bcm);
		cgfile_fmt_count(c, sizeof(c), bim);
		fprintf(stderr, "%-14s %15s  (%15s cond + %11s ind)\n", "Mispredicts:", a, b, c);
		fprintf(stderr, "%-14s %14.2f%%  (%14.2f%%      + %10.2f%%     )\n", "Mispred rate:",
			pct(bcm + bim, bc + bi), pct(bcm, bc), pct(bim, bi));
		if (cgfile_event(cg, "Br") >= 0) {
			uint64_t br = ev(cg, "Br"), brm = ev(cg, "Brm");

			row("Returns:", br, 0, 0, 0);
			row("Ret mispreds:", brm, 0, 0, 0);
			rate("Ret misp rate:", brm, br, 0, 0, 0, 0, 0);
		}
	}
}

static const char *sigdesc(int sig)
{
	const char *s = strsignal(sig);

	return s ? s : "unknown signal";
}

static void add_geom(char **argv, int *n, const char *name, const struct cache_geom *g)
{
	argv[(*n)++] = xstrfmt("--%s=%llu,%llu,%llu", name, (unsigned long long)g->size,
			       (unsigned long long)g->assoc, (unsigned long long)g->line);
}

/* Copy the file at src into the open outfile, after the line head (a
 * desc: line, may be ""), and commit it. */
static int copy_to_outfile(const char *src, const char *head, struct outfile *of)
{
	char buf[65536];
	size_t n;
	FILE *in = fopen(src, "re");

	if (!in) {
		int err = errno;
		of_abort(of);
		return pk_error(err, "cannot read '%s': %s", src, strerror(err));
	}
	fputs(head, of->f);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, of->f);
	if (ferror(in)) {
		fclose(in);
		of_abort(of);
		return pk_error(EIO, "cannot read '%s'", src);
	}
	fclose(in);
	return of_commit(of);
}

/* "NAME=V" or "NAME V" (V the next argument), as valgrind and getopt take
 * them: 1 with *v set, 0 when a is another option, -1 when V is missing. */
static int optval(int argc, char **argv, int *i, const char *name, const char **v)
{
	size_t n = strlen(name);
	const char *a = argv[*i];

	if (strncmp(a, name, n))
		return 0;
	if (a[n] == '=') {
		*v = a + n + 1;
		return 1;
	}
	if (a[n])
		return 0;
	if (*i + 1 >= argc)
		return -1;
	*v = argv[++*i];
	return 1;
}

/* The output name as valgrind expands its --*-file options
 * (VG_(expand_file_name)): %p the simulated process's id (pid; 0: kept
 * as "%p", *has_pid set), %q{VAR} the environment variable VAR, %% a '%'.
 * NULL, with the reason in *why, for another '%' form or a variable that
 * is not set. */
static char *expand_name(const char *fmt, pid_t pid, bool *has_pid, char *why, size_t whyn)
{
	struct strbuf sb;

	sb_init(&sb, strlen(fmt) + 16);
	*has_pid = false;
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			sb_addch(&sb, *p);
			continue;
		}
		p++;
		if (*p == '%') {
			sb_addch(&sb, '%');
		} else if (*p == 'p') {
			*has_pid = true;
			if (pid)
				sb_addf(&sb, "%d", (int)pid);
			else
				sb_addstr(&sb, "%p");
		} else if (*p == 'q' && p[1] == '{' && strchr(p + 2, '}')) {
			const char *end = strchr(p + 2, '}');
			char *name = xstrndup(p + 2, (size_t)(end - p - 2));
			const char *v = getenv(name);

			if (!v) {
				snprintf(why, whyn, "%%q{%s}: the environment variable %s is not set", name, name);
				free(name);
				sb_release(&sb);
				return NULL;
			}
			sb_addstr(&sb, v);
			free(name);
			p = end;
		} else {
			snprintf(why, whyn, "'%%%.1s' is none of valgrind's %%p, %%q{VAR} or %%%%", *p ? p : "");
			sb_release(&sb);
			return NULL;
		}
		if (!*p)
			break;
	}
	return sb_detach(&sb, NULL);
}

int cmd_cache(int argc, char **argv)
{
	const char *model = "modern", *out = "perfkit.cache.out", *prefetch = NULL, *tlb = NULL;
	const char *stlb = NULL, *l1pf = NULL;
	const char *bsim = NULL;	/* default: yes (modern), no (cachegrind, as cachegrind) */
	struct cache_geom g[4];
	int have[4] = { 0, 0, 0, 0 }, quiet = 0, i;
	static const char *const names[4] = { "I1", "D1", "L2", "LL" };

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int k;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-')
			break;
		const char *v = NULL;
		int r;

		if ((r = optval(argc, argv, &i, "--model", &v))) {
			if (r < 0)
				return usage("--model needs a value: cachegrind or modern");
			model = v;
			if (strcmp(model, "cachegrind") && strcmp(model, "modern"))
				return usage("--model: expected cachegrind or modern");
		} else if ((r = optval(argc, argv, &i, "--prefetch", &v))) {
			prefetch = r < 0 ? "" : v;
			if (strcmp(prefetch, "none") && strcmp(prefetch, "next-line") &&
			    strcmp(prefetch, "stride") && strcmp(prefetch, "stream"))
				return usage("--prefetch: expected none, next-line, stride or stream");
		} else if ((r = optval(argc, argv, &i, "--l1-prefetch", &v))) {
			l1pf = r < 0 ? "" : v;
			if (strcmp(l1pf, "yes") && strcmp(l1pf, "no"))
				return usage("--l1-prefetch: expected yes or no");
		} else if ((r = optval(argc, argv, &i, "--stlb", &v))) {
			stlb = r < 0 ? "" : v;
			if (strcmp(stlb, "none")) {
				static const char *const fields[] = { "--stlb ENTRIES", "--stlb ASSOC" };
				static const uint64_t max[] = { 1u << 20, 1u << 20 };
				uint64_t f[2];
				int pr = parse_fields(stlb, 2, fields, max, f);

				if (pr == -2)
					return value_error();
				if (pr || f[1] > f[0] || (f[0] / f[1]) & (f[0] / f[1] - 1) || f[0] % f[1]) {
					fprintf(stderr, "perfkit cache: --stlb=%s: expected ENTRIES,ASSOC with ENTRIES/ASSOC a power of two (e.g. 1536,12) or none\n", stlb);
					return 2;
				}
			}
		} else if ((r = optval(argc, argv, &i, "--tlb", &v))) {
			if (r < 0)
				return usage("--tlb needs ENTRIES,ASSOC,PAGE or none");
			struct cache_geom t;

			tlb = v;
			if (strcmp(tlb, "none")) {
				/* ENTRIES,ASSOC,PAGE = a cache of ENTRIES*PAGE bytes */
				static const char *const fields[] = { "--tlb ENTRIES", "--tlb ASSOC", "--tlb PAGE" };
				static const uint64_t max[] = { 1u << 20, 1u << 20, 1u << 30 };
				uint64_t f[3];
				int pr = parse_fields(tlb, 3, fields, max, f);

				if (pr == -2)
					return value_error();
				if (pr) {
					fprintf(stderr, "perfkit cache: --tlb=%s: expected ENTRIES,ASSOC,PAGE (e.g. 64,4,4096) or none\n", tlb);
					return 2;
				}
				char buf[96];

				snprintf(buf, sizeof(buf), "%llu,%llu,%llu", (unsigned long long)(f[0] * f[2]),
					 (unsigned long long)f[1], (unsigned long long)f[2]);
				if (cache_geom_parse("--tlb", buf, &t) < 0) {
					fprintf(stderr, "perfkit cache: --tlb=%s: entries, associativity and page size do not make a simulable TLB\n", tlb);
					return 2;
				}
			}
		} else if ((r = optval(argc, argv, &i, "--branch-sim", &v))) {
			bsim = r < 0 ? "" : v;
			if (strcmp(bsim, "yes") && strcmp(bsim, "no"))
				return usage("--branch-sim: expected yes or no");
		} else if ((r = optval(argc, argv, &i, "-o", &v)) || (r = optval(argc, argv, &i, "--output", &v)) ||
			   (r = optval(argc, argv, &i, "--cachegrind-out-file", &v))) {
			/* --cachegrind-out-file: cachegrind's name for it */
			if (r < 0)
				return usage("-o needs a file name");
			out = v;
		} else if ((r = optval(argc, argv, &i, "--cache-sim", &v))) {
			/* cachegrind's: the caches are what this simulates */
			if (r < 0 || strcmp(v, "yes"))
				return usage("--cache-sim: only yes (perfkit cache always simulates the caches)");
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			quiet = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			help();
			return 0;
		} else {
			for (k = 0; k < 4; k++) {
				size_t l = strlen(names[k]);

				if (a[1] == '-' && !strncmp(a + 2, names[k], l) && (a[2 + l] == '=' || !a[2 + l]))
					break;
			}
			const char *gv = k < 4 ? a + 3 + strlen(names[k]) : NULL;

			if (k < 4 && !a[2 + strlen(names[k])]) {   /* --D1 S,A,L */
				if (i + 1 >= argc) {
					fprintf(stderr, "perfkit cache: --%s needs SIZE,ASSOC,LINE\n", names[k]);
					return 2;
				}
				gv = argv[++i];
			}
			if (k == 4) {
				fprintf(stderr, "perfkit cache: unknown option '%s'\n", a);
				return usage(NULL);
			}
			char opt[8];

			snprintf(opt, sizeof(opt), "--%s", names[k]);
			if (cache_geom_parse(opt, gv, &g[k]) < 0) {
				fprintf(stderr, "perfkit cache: %s\n", pk_errmsg());
				return 2;
			}
			have[k] = 1;
		}
	}
	if (i >= argc)
		return usage("no program to run");
	int modern = !strcmp(model, "modern");

	if (!modern && (have[2] || prefetch || tlb || stlb || l1pf)) {
		fprintf(stderr, "perfkit cache: --L2, --prefetch, --l1-prefetch, --tlb and --stlb need --model=modern\n");
		return 2;
	}
	/* cachegrind refuses a line shorter than the largest register it
	 * simulates (an AVX ymm, 32 B, where the CPU has AVX), so that no
	 * access straddles more than two lines: its counts would not exist */
	unsigned reg = __builtin_cpu_supports("avx") ? 32 : 16;

	for (int gk = 0; !modern && gk < 4; gk++)
		if (have[gk] && g[gk].line < reg) {
			fprintf(stderr, "perfkit cache: --%s: a line of %u B is shorter than the largest register "
				"valgrind simulates here (%u B), which cachegrind refuses; --model=modern takes it\n",
				names[gk], (unsigned)g[gk].line, reg);
			return 2;
		}

	char *prog;

	int found = pk_find_program(argv[i], &prog);

	if (found < 0) {   /* as valgrind and the shell: 126 there but not runnable */
		fprintf(stderr, "perfkit cache: %s\n", pk_errmsg());
		return found == -EACCES ? 126 : 127;
	}
	/* the program's build-id, for `perfkit annotate --cache` to match
	 * the binary a recording sampled: "desc: build-id: HEX" */
	char bidline[160] = "";
	uint8_t bid[64];
	int bidn = sym_read_build_id(prog, bid, sizeof(bid));

	if (bidn > 0) {
		int o = snprintf(bidline, sizeof(bidline), "desc: build-id:         ");

		for (int k = 0; k < bidn && o < (int)sizeof(bidline) - 4; k++)
			o += snprintf(bidline + o, sizeof(bidline) - (size_t)o, "%02x", bid[k]);
		snprintf(bidline + o, sizeof(bidline) - (size_t)o, "\n");
	}
	free(prog);
	struct vgrun vr = VGRUN_INIT;

	if (vgrun_find(&vr) < 0) {
		fprintf(stderr, "perfkit cache: %s\n", pk_errmsg());
		return 1;
	}
	if (!bsim)
		bsim = modern ? "yes" : "no";

	int pinned[4];
	memcpy(pinned, have, sizeof(pinned));
	/* modern: geometry from the host's sysfs unless given (hostcache.h) */
	if (modern) {
		struct host_caches hc;

		int hr = hostcache_read_host(&hc);	/* PERFKIT_SYSFS_CPU or sysfs */

		if (hr == -EINVAL) {
			fprintf(stderr, "perfkit cache: %s\n", pk_errmsg());
			vgrun_release(&vr);
			return 1;
		}
		if (hr == 0) {
			struct cache_geom *h[4] = { &hc.I1, &hc.D1, &hc.L2, &hc.LL };

			for (int k = 0; k < 4; k++)
				if (!have[k] && h[k]->size &&
				    !pk_cache_check(h[k]->size, h[k]->assoc, h[k]->line)) {
					g[k] = *h[k];
					have[k] = 1;
				}
		}
	}

	/* The tool writes into a private temporary folder; the result is
	 * copied to the output through outfile (whole or not at all, and
	 * /dev/stdout or a symlink is written through, never replaced).
	 * The output is opened first, so a bad path fails before the run. */
	struct strbuf tmp, log, dir;
	struct outfile of;
	int of_committed = 0;
	const char *tmpdir = getenv("TMPDIR");

	/* valgrind's %p, %q{VAR} and %% in the name (cachegrind.out.%p); with
	 * %p the file is opened once the process has its id */
	char why[256];
	bool pid_name = false;
	char *out_x = expand_name(out, 0, &pid_name, why, sizeof(why));

	if (!out_x) {
		fprintf(stderr, "perfkit cache: -o '%s': %s\n", out, why);
		vgrun_release(&vr);
		return 2;
	}
	if (!pid_name && of_open(&of, out_x) < 0) {
		fprintf(stderr, "perfkit cache: %s\n", pk_errmsg());
		free(out_x);
		vgrun_release(&vr);
		return 1;
	}
	bool of_opened = !pid_name;
	sb_init(&dir, 64);
	sb_addf(&dir, "%s/perfkit-cache.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir.buf)) {
		fprintf(stderr, "perfkit cache: cannot create a temporary folder '%s': %s\n", dir.buf,
			strerror(errno));
		if (of_opened)
			of_abort(&of);
		sb_release(&dir);
		vgrun_release(&vr);
		return 1;
	}
	sb_init(&tmp, 64);
	sb_addf(&tmp, "%s/out.cg", dir.buf);
	sb_init(&log, 64);
	sb_addf(&log, "%s/valgrind.log", dir.buf);
	int fd = open(tmp.buf, O_WRONLY | O_CREAT | O_EXCL, 0600);

	if (fd < 0) {
		fprintf(stderr, "perfkit cache: cannot create '%s': %s\n", tmp.buf, strerror(errno));
		if (of_opened)
			of_abort(&of);
		rmdir(dir.buf);
		sb_release(&tmp);
		sb_release(&log);
		sb_release(&dir);
		vgrun_release(&vr);
		return 1;
	}
	close(fd);

	char **vargv = xcalloc(20, sizeof(char *));	/* the tool's options */
	int n = 0;
	vargv[n++] = xstrfmt("--pk-dump=%s", out);
	vargv[n++] = xstrfmt("--model=%s", model);
	vargv[n++] = xstrfmt("--branch-sim=%s", bsim);
	for (int k = 0; k < 4; k++)
		if (have[k] && (modern || k != 2))
			add_geom(vargv, &n, names[k], &g[k]);
	if (prefetch)
		vargv[n++] = xstrfmt("--prefetch=%s", prefetch);
	if (tlb)
		vargv[n++] = xstrfmt("--tlb=%s", tlb);
	if (stlb)
		vargv[n++] = xstrfmt("--stlb=%s", stlb);
	if (l1pf)
		vargv[n++] = xstrfmt("--l1-prefetch=%s", l1pf);
	vargv[n] = NULL;

	const char *prog_name = argv[i];
	pid_t pid;
	int rc;
	struct cgfile *cg = NULL;
	struct stat st;

	if (vgrun_spawn(&vr, (const char *const *)vargv, tmp.buf, log.buf, argv + i, &pid) < 0) {
		fprintf(stderr, "perfkit cache: %s\n", pk_errmsg());
		unlink(tmp.buf);
		unlink(log.buf);
		rc = 1;
		goto out;
	}
	if (pid_name) {   /* the process's id in the name: known now */
		free(out_x);
		out_x = expand_name(out, pid, &pid_name, why, sizeof(why));
		if (!out_x || of_open(&of, out_x) < 0) {
			fprintf(stderr, "perfkit cache: %s\n", out_x ? pk_errmsg() : why);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			unlink(tmp.buf);
			unlink(log.buf);
			rc = 1;
			goto out;
		}
		of_opened = true;
	}

	/* wait, with a progress line on a terminal after a few seconds */
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	int status = 0, progress = 0;
	struct timespec t0, now, nap = { 0, 200 * 1000 * 1000 };

	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			status = 1 << 8;
			break;
		}
		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		double el = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;

		if (el >= 3.0 && !quiet && isatty(2)) {
			fprintf(stderr, "\rperfkit cache: simulating %s … %.0f s", prog_name, el);
			progress = 1;
		}
	}
	if (progress)
		fprintf(stderr, "\r\033[K");
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);

	rc = pk_exit_status(status);

	if (stat(tmp.buf, &st) != 0 || st.st_size == 0) {
		/* the tool never wrote its output: Valgrind failed */
		char last[512];

		vgrun_log_last(log.buf, last, sizeof(last));
		if (WIFSIGNALED(status))
			fprintf(stderr, "perfkit cache: %s: killed by signal %d (%s) before any result\n",
				prog_name, WTERMSIG(status), sigdesc(WTERMSIG(status)));
		else if (!last[0])   /* no word from valgrind: the process left it */
			fprintf(stderr, "perfkit cache: %s exited (status %d) with no counts written: it most likely replaced "
				"itself with exec(), and valgrind does not follow an exec (cachegrind writes "
				"nothing either); run the exec'd program itself\n", prog_name, rc);
		else
			fprintf(stderr, "perfkit cache: valgrind failed (exit %d): %s\n", rc, last);
		unlink(tmp.buf);
		unlink(log.buf);
		if (rc == 0)
			rc = 1;
		goto out;
	}
	if (cgfile_read(tmp.buf, &cg) < 0) {
		fprintf(stderr, "perfkit cache: %s\n", pk_errmsg());
		unlink(tmp.buf);
		unlink(log.buf);
		rc = 1;
		goto out;
	}
	if (copy_to_outfile(tmp.buf, bidline, &of) < 0) {
		fprintf(stderr, "perfkit cache: %s\n", pk_errmsg());
		unlink(tmp.buf);
		unlink(log.buf);
		rc = 1;
		goto out;
	}
	of_committed = 1;
	unlink(tmp.buf);
	if (WIFSIGNALED(status))
		fprintf(stderr, "perfkit cache: %s: killed by signal %d (%s); counts up to then in %s\n",
			prog_name, WTERMSIG(status), sigdesc(WTERMSIG(status)), out_x);
	{
		/* the tool's own errors (a dump file refused, …) are shown;
		 * the whole log with PERFKIT_CACHE_LOG */
		bool all = getenv("PERFKIT_CACHE_LOG") != NULL;
		FILE *lf = fopen(log.buf, "re");
		char line[512];

		while (lf && fgets(line, sizeof(line), lf)) {
			const char *m = vgrun_log_text(line);

			if (all)
				fputs(line, stderr);
			else if (!strncmp(m, "error: ", 7))
				fprintf(stderr, "perfkit cache: %s", m + 7);
		}
		if (lf)
			fclose(lf);
	}
	unlink(log.buf);
	warn_geometry(cg, pinned);
	if (!quiet) {
		print_summary(cg, modern);
		fprintf(stderr, "\nperfkit cache: wrote %s\n", out_x);
	}
out:
	if (!of_committed && of_opened)
		of_abort(&of);
	free(out_x);
	rmdir(dir.buf);
	sb_release(&dir);
	cgfile_free(cg);
	for (int k = 0; k < n; k++)
		free(vargv[k]);
	free(vargv);
	vgrun_release(&vr);
	sb_release(&tmp);
	sb_release(&log);
	return rc;
}
