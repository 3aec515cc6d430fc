/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit c2c — which cache lines threads fight over, simulated (perf c2c
 * without PEBS/IBS/SPE):
 *
 *   perfkit c2c record [-o FILE] [--] CMD ARGS...
 *   perfkit c2c report [-i FILE] [--stdio] [--min-transfers N] [--all]
 *
 * record runs CMD under perfkit's Valgrind tool in c2c mode (src/vgtool/
 * pk_mem.c: the per-line counts, the data objects and the transfer model)
 * and writes FILE (default perfkit.c2c; format in pk_mem.c).  report prints
 * perf c2c report --stdio's sections: the Shared Data Cache Line Table, the
 * Pareto view per line, then a plain reading per line with a suggestion.
 *
 * A line is listed when its estimated transfers reach the threshold:
 * --min-transfers (default 100) and 1 % of all estimated transfers
 * (--all: every line used by two or more threads).
 *
 * Exit status: record: CMD's (128+N when it died of signal N), 127 when CMD
 * is not found, 1 when the run or the file failed; report: 0, 1 on a bad
 * file; 2 on a usage error.
 */
#include "cmd/cmds.h"

#include "base/child.h"
#include "base/error.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "memprof/memprof.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MODEL_HELP \
	"Transfers (perf's HITM) are estimated, not observed: every access after the\n" \
	"program's first pthread_create is taken to run at the same time as the other\n" \
	"threads', on separate cores, each thread spreading its accesses to a line evenly;\n" \
	"so thread t fetches the line before min(a_t, W_o) of its a_t accesses (W_o: the\n" \
	"other threads' writes to it).  A line's estimate is the sum over its threads.  It\n" \
	"depends on each thread's own counts, never on the order in which Valgrind ran the\n" \
	"threads (one at a time).  Accesses before the first thread is created move nothing.\n"

static int usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "perfkit c2c: %s\n", msg);
	fprintf(stderr, "usage: perfkit c2c record [-o FILE] [--] CMD [ARGS...]\n"
			"       perfkit c2c report [-i FILE] [--stdio] [--min-transfers N] [--all]\n");
	return 2;
}

static void help(void)
{
	printf("usage: perfkit c2c record [-o FILE] [--] CMD [ARGS...]\n"
	       "       perfkit c2c report [-i FILE] [--stdio] [--min-transfers N] [--all]\n"
	       "Find the cache lines that threads pass between cores (false and true sharing),\n"
	       "simulated under Valgrind: no PEBS, IBS or SPE needed.\n"
	       "\n"
	       "record:\n"
	       "  -o, --output=FILE   the data file (default perfkit.c2c)\n"
	       "report:\n"
	       "  -i, --input=FILE    the data file (default perfkit.c2c)\n"
	       "  --stdio             text output (the only one; accepted for perf's habit)\n"
	       "  --min-transfers=N   list lines with at least N estimated transfers and 1 %% of\n"
	       "                      all of them (default 100)\n"
	       "  --all               list every line two or more threads used\n"
	       "\n"
	       "Per 64-byte line the tool counts each thread's loads and stores, the bytes each\n"
	       "touches, and the instructions; heap lines carry their allocation stack, global\n"
	       "ones their symbol.  A line is false sharing when threads write disjoint bytes\n"
	       "of it, true sharing when they touch the same bytes, read-mostly when no thread\n"
	       "writes it while others use it (never flagged).\n"
	       "\n" MODEL_HELP
	       "\n"
	       "Example: perfkit c2c record -- ./falseshare shared 100000 && perfkit c2c report\n");
}

/* ---- record ---- */

static int c2c_record(int argc, char **argv)
{
	const char *out = "perfkit.c2c";
	int i, status = 0, n = 0;

	i = memprof_record_args(argc, argv, NULL, NULL, &n, &out);
	if (i < 0) {
		fprintf(stderr, "perfkit c2c record: %s\n", pk_errmsg());
		return usage(NULL);
	}
	if (i == 0) {
		help();
		return 0;
	}
	n = memprof_program(argv[i]);
	if (n < 0) {
		fprintf(stderr, "perfkit c2c: %s\n", pk_errmsg());
		return n == -ENOENT ? 127 : 126;
	}
	if (memprof_record("c2c", NULL, out, argv + i, &status) < 0) {
		fprintf(stderr, "perfkit c2c: %s\n", pk_errmsg());
		return 1;
	}
	fprintf(stderr, "perfkit c2c: wrote %s (perfkit c2c report -i %s)\n", out, out);
	return pk_exit_status(status);
}

/* ---- report ---- */

struct row {		/* a Pareto row: one (offset, code) of a line */
	unsigned off, size;
	int code;
	uint64_t loads, stores;
	double transfers;	/* its share of its threads' transfers */
	uint64_t count;		/* transfers as shown: rounded so the rows sum
				   to the line's (largest remainder) */
	char tids[96];
};

static uint64_t line_loads(const struct mp_line *l)
{
	uint64_t n = 0;

	for (size_t i = 0; i < l->nthr; i++)
		n += l->thr[i].loads;
	return n;
}

static uint64_t line_stores(const struct mp_line *l)
{
	uint64_t n = 0;

	for (size_t i = 0; i < l->nthr; i++)
		n += l->thr[i].stores;
	return n;
}

static int cmp_line(const void *a, const void *b)
{
	const struct mp_line *x = *(const struct mp_line *const *)a, *y = *(const struct mp_line *const *)b;

	if (x->transfers != y->transfers)
		return x->transfers < y->transfers ? 1 : -1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->transfers != y->transfers)
		return x->transfers < y->transfers ? 1 : -1;
	return x->code - y->code;
}

static const struct mp_lthr *lthr(const struct mp_line *l, unsigned serial)
{
	for (size_t i = 0; i < l->nthr; i++)
		if (l->thr[i].serial == serial)
			return &l->thr[i];
	return NULL;
}

static void add_tid(char *buf, size_t n, int tid)
{
	char t[16];
	size_t len = strlen(buf);

	snprintf(t, sizeof(t), "%d", tid);
	if (strstr(buf, t) && (buf[0] != 0))
		for (const char *p = buf; (p = strstr(p, t)); p++)
			if ((p == buf || p[-1] == ',') && (p[strlen(t)] == 0 || p[strlen(t)] == ','))
				return;
	if (len + strlen(t) + 2 < n)
		snprintf(buf + len, n - len, "%s%s", len ? "," : "", t);
}

/* Whole transfer counts for rows whose exact shares are fractions (a
 * thread's transfers spread over its sites by their references): each row
 * its share rounded down, then the units the rounding lost (the exact sum,
 * rounded, less the rounded-down sum) one each to the rows with the largest
 * fractional parts, the earlier row first on a tie — Hamilton's
 * largest-remainder method.  The rows then add up to the line's total
 * (rounding each row alone dropped, e.g., four rows of 0.5 transfers). */
static void apportion(struct row *r, size_t n)
{
	double exact = 0;
	uint64_t floors = 0;

	for (size_t i = 0; i < n; i++) {
		r[i].count = (uint64_t)r[i].transfers;
		floors += r[i].count;
		exact += r[i].transfers;
	}
	uint64_t want = (uint64_t)llround(exact);
	while (floors < want) {
		size_t best = n;
		double bf = -1;

		for (size_t i = 0; i < n; i++) {
			double f = r[i].transfers - (double)r[i].count;
			if (f > bf && f > 0) {
				bf = f;
				best = i;
			}
		}
		if (best == n)
			break;
		r[best].count++;   /* its fraction is now negative: not chosen again */
		floors++;
	}
}

/* the line's Pareto rows: sites merged by (offset, code), threads listed */
static struct row *pareto(const struct memprof *mp, const struct mp_line *l, size_t *nrows)
{
	struct row *r = xcalloc(l->nsite ? l->nsite : 1, sizeof(*r));
	size_t n = 0;

	for (size_t i = 0; i < l->nsite; i++) {
		const struct mp_lsite *s = &l->site[i];
		const struct mp_lthr *t = lthr(l, s->serial);
		double share = 0;
		size_t k;

		if (t && t->loads + t->stores)
			share = (double)t->transfers * (double)(s->loads + s->stores) /
				(double)(t->loads + t->stores);
		for (k = 0; k < n; k++)
			if (r[k].off == s->off && r[k].code == s->code)
				break;
		if (k == n) {
			r[n] = (struct row){ .off = s->off, .code = s->code };
			n++;
		}
		if (s->size > r[k].size)
			r[k].size = s->size;
		r[k].loads += s->loads;
		r[k].stores += s->stores;
		r[k].transfers += share;
		add_tid(r[k].tids, sizeof(r[k].tids), memprof_tid(mp, s->serial));
	}
	qsort(r, n, sizeof(*r), cmp_row);
	apportion(r, n);
	*nrows = n;
	return r;
}

static void banner(const char *title)
{
	printf("=================================================\n%*s%s\n"
	       "=================================================\n",
	       (int)(49 - strlen(title)) / 2, "", title);
}

static double pct(double a, double b)
{
	return b > 0 ? 100.0 * a / b : 0.0;
}

/* offsets as "0x0" or "0x0-0x7" ranges of set bits, comma separated */
static void mask_ranges(uint64_t m, char *buf, size_t n)
{
	size_t o = 0;

	buf[0] = 0;
	for (int b = 0; b < 64 && o < n;) {
		if (!(m >> b & 1)) {
			b++;
			continue;
		}
		int e = b;

		while (e + 1 < 64 && (m >> (e + 1) & 1))
			e++;
		o += (size_t)snprintf(buf + o, n - o, "%s0x%x", o ? ", " : "", b);
		b = e + 1;
	}
}

/* the program's own file (the first word of cmd), for ranking sources */
static int own_code(const struct memprof *mp, int code)
{
	const char *dso = mp->code[code].dso, *b = strrchr(dso, '/');
	const char *cmd = mp->cmd ? mp->cmd : "", *e = strchr(cmd, ' ');
	size_t n = e ? (size_t)(e - cmd) : strlen(cmd);
	const char *cb = cmd;

	for (const char *p = cmd; p < cmd + n; p++)
		if (*p == '/')
			cb = p + 1;
	b = b ? b + 1 : dso;
	return strlen(b) == (size_t)(cmd + n - cb) && !strncmp(b, cb, (size_t)(cmd + n - cb));
}

/* the source lines of a thread's writes (or reads) to the line, at most 2:
 * the program's own code first, then the most frequent */
static void thread_srclines(const struct memprof *mp, const struct mp_line *l, unsigned serial,
			    int writes, char *buf, size_t n)
{
	char seen[2][256];
	int ns = 0;
	size_t o = 0;
	char *used = xcalloc(l->nsite ? l->nsite : 1, 1);

	buf[0] = 0;
	while (ns < 2) {
		long best = -1;
		uint64_t bc = 0;
		int bown = 0;

		for (size_t i = 0; i < l->nsite; i++) {
			const struct mp_lsite *s = &l->site[i];
			uint64_t c = writes ? s->stores : s->loads;
			int own;

			if (used[i] || s->serial != serial || !c)
				continue;
			own = own_code(mp, s->code);
			if (best < 0 || own > bown || (own == bown && c > bc))
				best = (long)i, bc = c, bown = own;
		}
		if (best < 0)
			break;
		used[best] = 1;
		memprof_srcline(mp, l->site[best].code, seen[ns], sizeof(seen[ns]));
		if (ns == 1 && !strcmp(seen[0], seen[1]))
			continue;
		o += (size_t)snprintf(buf + o, o < n ? n - o : 0, "%s%s", o ? ", " : "", seen[ns]);
		ns++;
	}
	free(used);
}

static void reading(const struct memprof *mp, const struct mp_line *l)
{
	enum mp_class c = memprof_classify(l);
	char obj[512], who[1024] = "", offs[512] = "";
	size_t ow = 0, oo = 0;
	int nw = 0, k = 0, nk = 0;

	memprof_object_desc(mp, l->obj, obj, sizeof(obj));
	for (size_t i = 0; i < l->nthr; i++)
		nw += l->thr[i].wmask != 0;
	for (size_t i = 0; i < l->nthr; i++)
		nk += (nw ? l->thr[i].wmask : l->thr[i].rmask) != 0;
	for (size_t i = 0; i < l->nthr; i++) {
		const struct mp_lthr *t = &l->thr[i];
		uint64_t m = nw ? t->wmask : t->rmask;
		char src[512], r[256];

		if (!m)
			continue;
		thread_srclines(mp, l, t->serial, nw != 0, src, sizeof(src));
		mask_ranges(m, r, sizeof(r));
		k++;
		ow += (size_t)snprintf(who + ow, ow < sizeof(who) ? sizeof(who) - ow : 0, "%s%d (%s)",
				       k == 1 ? "" : k == nk ? " and " : ", ", memprof_tid(mp, t->serial), src);
		oo += (size_t)snprintf(offs + oo, oo < sizeof(offs) ? sizeof(offs) - oo : 0, "%s%s",
				       k == 1 ? "" : " and ", r);
	}
	printf("line 0x%" PRIx64 " in %s: threads %s %s offsets %s — %s", l->addr, obj, who,
	       nw ? "write" : "read", offs, memprof_class_name(c));
	switch (c) {
	case MP_FALSE_SHARING:
		printf("; pad to 64 bytes: give each thread's data a line of its own "
		       "(alignas(64) on each field, or per-thread structures)\n");
		break;
	case MP_TRUE_SHARING:
		printf("; the threads update the same data (a lock, a shared counter): padding will "
		       "not help — give each thread its own copy and combine at the end, or update "
		       "less often\n");
		break;
	default:
		printf("; nothing to fix\n");
		break;
	}
}

static int c2c_report(int argc, char **argv)
{
	const char *in = "perfkit.c2c";
	uint64_t min_tr = 100;
	int all = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-i")) {
			if (++i >= argc)
				return usage("-i needs a file name");
			in = argv[i];
		} else if (!strncmp(a, "--input=", 8)) {
			in = a + 8;
		} else if (!strcmp(a, "--stdio")) {
			;
		} else if (!strcmp(a, "--all")) {
			all = 1;
		} else if (!strncmp(a, "--min-transfers=", 16) || !strcmp(a, "--min-transfers")) {
			const char *v = a[15] == '=' ? a + 16 : (++i < argc ? argv[i] : NULL);

			if (!v)
				return usage("--min-transfers: expected a count");
			if (pk_parse_u64("--min-transfers", v, 0, UINT64_MAX, &min_tr)) {
				fprintf(stderr, "perfkit c2c report: %s\n", pk_errmsg());
				return 2;
			}
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			help();
			return 0;
		} else {
			fprintf(stderr, "perfkit c2c report: unknown option '%s'\n", a);
			return usage(NULL);
		}
	}

	struct memprof mp;

	if (memprof_read(&mp, in) < 0) {
		fprintf(stderr, "perfkit c2c: %s\n", pk_errmsg());
		return 1;
	}
	if (strcmp(mp.mode, "c2c")) {
		fprintf(stderr, "perfkit c2c: %s: recorded by perfkit mem record, which keeps no "
			"per-line sharing (record with perfkit c2c record)\n", in);
		memprof_release(&mp);
		return 1;
	}
	if (mp.nthr < 2) {
		printf("perfkit c2c: nothing shared: %s records a single thread (%s); false and true "
		       "sharing need two or more\n", in, mp.cmd ? mp.cmd : "?");
		memprof_release(&mp);
		return 0;
	}

	uint64_t tot_tr = 0, tot_ld = 0, tot_st = 0;
	const struct mp_line **sorted = xcalloc(mp.nlines ? mp.nlines : 1, sizeof(*sorted));
	size_t nshow = 0, nread = 0, nbelow = 0;
	const struct mp_line *read_ex = NULL;

	for (size_t i = 0; i < mp.nlines; i++) {
		tot_tr += mp.lines[i].transfers;
		tot_ld += line_loads(&mp.lines[i]);
		tot_st += line_stores(&mp.lines[i]);
	}
	uint64_t thr = min_tr > tot_tr / 100 ? min_tr : tot_tr / 100;

	for (size_t i = 0; i < mp.nlines; i++) {
		const struct mp_line *l = &mp.lines[i];

		if (all || (l->transfers >= thr && l->transfers > 0)) {
			sorted[nshow++] = l;
		} else if (memprof_classify(l) == MP_READ_SHARED) {
			int readers = 0;

			for (size_t k = 0; k < l->nthr; k++)
				readers += l->thr[k].rmask != 0;
			if (readers >= 2) {
				nread++;
				/* the example: a named object first, then the most read */
				int named = mp.obj[l->obj].kind == MP_GLOBAL || mp.obj[l->obj].kind == MP_HEAP;
				int ex_named = read_ex && (mp.obj[read_ex->obj].kind == MP_GLOBAL ||
							   mp.obj[read_ex->obj].kind == MP_HEAP);

				if (!read_ex || named > ex_named ||
				    (named == ex_named && line_loads(l) > line_loads(read_ex)))
					read_ex = l;
			} else {
				nbelow++;
			}
		} else {
			nbelow++;
		}
	}
	qsort(sorted, nshow, sizeof(*sorted), cmp_line);

	banner("Trace Event Information");
	printf("  %-34s: %s\n", "Program", mp.cmd ? mp.cmd : "?");
	printf("  %-34s: %zu\n", "Threads", mp.nthr);
	printf("  %-34s: %zu\n", "Lines used by 2+ threads", mp.nlines);
	printf("  %-34s: %" PRIu64 "\n", "Loads on those lines", tot_ld);
	printf("  %-34s: %" PRIu64 "\n", "Stores on those lines", tot_st);
	printf("  %-34s: %" PRIu64 "\n", "Estimated transfers (HITM)", tot_tr);
	printf("  %-34s: %" PRIu64 "%s\n", "Threshold (est. transfers)", thr, all ? " (--all)" : "");
	printf("  %-34s: %s\n", "Model", "simulated (perfkit c2c --help); not sampled");
	printf("\n");
	banner("Shared Data Cache Line Table");
	printf("#\n#        ----------- Cacheline ----------  --- Est. transfers ---    Total    Total    Total\n");
	printf("# Index             Address  Class             Count    Share  records    Loads   Stores  Data object\n");
	printf("# .....  ..................  ..............  ........  .......  .......  .......  .......  ...........\n#\n");
	for (size_t i = 0; i < nshow; i++) {
		const struct mp_line *l = sorted[i];
		char obj[512];
		uint64_t ld = line_loads(l), st = line_stores(l);

		printf("  %5zu  %#18" PRIx64 "  %-14s  %8" PRIu64 "  %6.2f%%  %7" PRIu64 "  %7" PRIu64
		       "  %7" PRIu64 "  %s\n", i, l->addr, memprof_class_name(memprof_classify(l)),
		       l->transfers, pct((double)l->transfers, (double)tot_tr), ld + st, ld, st,
		       memprof_object_desc(&mp, l->obj, obj, sizeof(obj)));
	}
	if (!nshow)
		printf("  (no line reaches the threshold of %" PRIu64 " estimated transfers)\n", thr);
	printf("\n");
	banner("Shared Cache Line Distribution Pareto");
	printf("#\n#   Num  -- Est. transfers --  ---- Refs ----  ------ CL ------\n");
	printf("#        Count    Share          Loads   Stores    Off  Size  Tids                Code address  Symbol                    Object        Source:Line\n");
	printf("# .....  .......  ......        .......  .......  .....  ....  ..........  ..................  ........................  ............  ...........\n#\n");
	for (size_t i = 0; i < nshow; i++) {
		const struct mp_line *l = sorted[i];
		size_t nr;
		struct row *r = pareto(&mp, l, &nr);
		char obj[512];

		printf("  -------------------------------------------------------------\n");
		printf("  %5zu  %7" PRIu64 "  %#18" PRIx64 "  %s  %s\n", i, l->transfers, l->addr,
		       memprof_class_name(memprof_classify(l)),
		       memprof_object_desc(&mp, l->obj, obj, sizeof(obj)));
		if (mp.obj[l->obj].kind == MP_HEAP) {	/* the allocation stack */
			const struct mp_stack *st = &mp.stack[mp.obj[l->obj].stack];
			int site = memprof_alloc_site(&mp, mp.obj[l->obj].stack), on = 0;

			printf("  allocated at:");
			for (size_t k = 0; k < st->n; k++) {
				char src[256];

				on |= st->codes[k] == site;
				if (!on)
					continue;
				printf(" %s%s (%s)", k && on > 1 ? "<- " : "", mp.code[st->codes[k]].fn,
				       memprof_srcline(&mp, st->codes[k], src, sizeof(src)));
				on = 2;
				if (!strcmp(mp.code[st->codes[k]].fn, "main"))
					break;
			}
			printf("\n");
		}
		printf("  -------------------------------------------------------------\n");
		for (size_t k = 0; k < nr; k++) {
			const struct mp_code *c = &mp.code[r[k].code];
			const char *dso = strrchr(c->dso, '/');
			char src[256];

			char off[16];

			snprintf(off, sizeof(off), "0x%x", r[k].off);
			printf("         %7" PRIu64 "  %6.2f%%       %7" PRIu64 "  %7" PRIu64 "  %5s  %4u  %-10s  %#18" PRIx64
			       "  %-24s  %-12s  %s\n", r[k].count, pct((double)r[k].count, (double)l->transfers),
			       r[k].loads, r[k].stores, off, r[k].size, r[k].tids, c->ip, c->fn,
			       dso ? dso + 1 : c->dso, memprof_srcline(&mp, r[k].code, src, sizeof(src)));
		}
		free(r);
	}
	printf("\n");
	banner("Reading");
	for (size_t i = 0; i < nshow; i++)
		reading(&mp, sorted[i]);
	if (!nshow)
		printf("no cache line reaches the threshold (%" PRIu64 " estimated transfers): no false "
		       "or true sharing worth fixing\n", thr);
	if (nread) {
		char obj[512];

		printf("read-mostly, not flagged: %zu line%s read by several threads and written by "
		       "none meanwhile, e.g. %s\n", nread, nread == 1 ? "" : "s",
		       memprof_object_desc(&mp, read_ex->obj, obj, sizeof(obj)));
	}
	if (nbelow && !all)
		printf("below the threshold, not shown: %zu line%s (--all shows them)\n", nbelow,
		       nbelow == 1 ? "" : "s");
	free(sorted);
	memprof_release(&mp);
	return 0;
}

int cmd_c2c(int argc, char **argv)
{
	if (argc < 2)
		return usage("expected record or report");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		help();
		return 0;
	}
	if (!strcmp(argv[1], "record"))
		return c2c_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return c2c_report(argc - 1, argv + 1);
	fprintf(stderr, "perfkit c2c: unknown subcommand '%s'\n", argv[1]);
	return usage(NULL);
}
