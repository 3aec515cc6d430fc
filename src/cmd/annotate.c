/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit annotate — two inputs, told apart by content:
 *
 * A sampled profile (perf.data, from perfkit or perf record):
 *   perfkit annotate [-i FILE] [SYMBOL...] [--stdio] [--asm | --source]
 *                    [--no-source] [--percent-type TYPE] [--dso NAME]
 *                    [--comm NAME] [--min-percent P] [--cache CACHEFILE]
 * prints perf annotate --stdio's layout for each event of the file and
 * each of its functions, hottest first (or the SYMBOLs named, found when
 * any event has samples in them): instructions (annotate/annotate.h: aggregation,
 * capstone decoding, DWARF lines and inline chains) with their share,
 * source rows between them, jump targets, loops and call sites' callees;
 * --source one row per source line; --cache the simulated misses of a
 * `perfkit cache` run of the same binary (matched by build-id) per line.
 * A function whose code cannot be read (binary gone, rebuilt or stripped,
 * kernel without /proc/kcore) is shown by address with one line on
 * stderr saying why; exit 1 when nothing could be disassembled, a SYMBOL
 * has no samples or the file none.
 *
 * A Cachegrind-format file (from `perfkit cache` or cachegrind):
 *   perfkit annotate [FILE] [--show=E1,E2..] [--sort=EVENT] [--threshold=P]
 *                    [--auto=yes|no] [--context=N] [--folded EVENT]
 * prints totals, per-function and per-line costs, and annotated source
 * with the counts beside each line.  A positional argument is the input
 * FILE only when it is a readable perf.data (magic) or Cachegrind output
 * (its first line a header of the format), else a SYMBOL (perf annotate's
 * rule); -i of anything else is refused with one line.  Without FILE:
 * ./perf.data when there is one (the sampled mode), else perfkit.cache.out.  --sort
 * (default: the first shown event) orders the function and line tables;
 * rows below P percent of the sort event's total (default 0.1) are left
 * out.  --auto=yes (default) annotates every source file that has a line
 * above the threshold, with N lines of context (default 3).  --folded
 * EVENT prints "cmd;function count" lines weighted by EVENT, for
 * `perfkit flamegraph`.  A file cut short (no final newline or summary:
 * line) is refused.
 *
 * Names from either file are printed as they are (control bytes escaped in
 * the sampled mode); the folded output replaces ';' and newlines in names
 * with '_'.
 */
#include "cmd/cmds.h"

#include "base/error.h"
#include "base/hashmap.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "annotate/annotate.h"
#include "cgfile/cgfile.h"
#include "perfdata/perfdata.h"
#include "session/session.h"
#include "symbol/inline.h"
#include "symbol/symbol.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct agg {
	const char *file, *fn;	/* fn NULL for line entries */
	uint32_t line;
	uint64_t *c;
};

struct table {
	struct hashmap idx;
	struct agg *v;
	size_t n, alloc;
	size_t nev;
};

static struct agg *table_get(struct table *t, const char *file, const char *fn, uint32_t line)
{
	char key[64];
	struct strbuf k;
	int created;

	sb_init(&k, 128);
	snprintf(key, sizeof(key), "%p|%p|%u", (const void *)file, (const void *)fn, line);
	sb_addstr(&k, key);
	struct hm_entry *e = hm_upsert(&t->idx, k.buf, k.len, &created);

	sb_release(&k);
	if (created) {
		if (t->n == t->alloc) {
			t->alloc = t->alloc ? t->alloc * 2 : 256;
			t->v = xrealloc(t->v, t->alloc * sizeof(*t->v));
		}
		t->v[t->n] = (struct agg){ file, fn, line, xcalloc(t->nev, sizeof(uint64_t)) };
		e->val.u = t->n++;
	}
	return &t->v[e->val.u];
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].c);
	free(t->v);
	hm_release(&t->idx);
}

static int sort_ev;
static int sort_more[CGFILE_MAX_EVENTS];   /* --sort=A,B,…: B, … break ties */
static int nsort_more;

static int cmp_agg(const void *a, const void *b)
{
	const struct agg *x = a, *y = b;

	/* counts are signed (a cg_diff file's may be negative) */
	if (x->c[sort_ev] != y->c[sort_ev])
		return (int64_t)x->c[sort_ev] < (int64_t)y->c[sort_ev] ? 1 : -1;
	for (int i = 0; i < nsort_more; i++)
		if (x->c[sort_more[i]] != y->c[sort_more[i]])
			return (int64_t)x->c[sort_more[i]] < (int64_t)y->c[sort_more[i]] ? 1 : -1;
	int r = strcmp(x->file, y->file);

	if (r)
		return r;
	if (x->fn && y->fn && (r = strcmp(x->fn, y->fn)))
		return r;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int cmp_line(const void *a, const void *b)
{
	const struct agg *x = *(struct agg *const *)a, *y = *(struct agg *const *)b;

	return x->line < y->line ? -1 : x->line > y->line;
}

static int width[CGFILE_MAX_EVENTS];

static void print_counts(const uint64_t *c, const int *show, int nshow, int dots)
{
	for (int i = 0; i < nshow; i++) {
		char b[32];

		if (dots && c == NULL)
			snprintf(b, sizeof(b), ".");
		else
			cgfile_fmt_count(b, sizeof(b), c[show[i]]);
		printf("%*s ", width[i], b);
	}
}

/* An option value base/parse refused: its one line (option and range), exit 2. */
static int value_error(void)
{
	fprintf(stderr, "perfkit annotate: %s\n", pk_errmsg());
	return 2;
}

static int usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "perfkit annotate: %s\n", msg);
	fprintf(stderr, "usage: perfkit annotate [FILE] [--show=EVENTS] [--sort=EVENT] [--threshold=P]\n"
			"                        [--auto=yes|no] [--context=N] [--folded EVENT]\n");
	return 2;
}

/* --help: both modes' usage and every option, one line each (stdout). */
static void help(void)
{
	printf("usage: perfkit annotate [-i FILE] [SYMBOL...] [--stdio] [--asm | --source] [--no-source]\n"
	       "                        [--percent-type TYPE] [--dso NAME] [--comm NAME]\n"
	       "                        [--min-percent P] [--cache CACHEFILE] [--symfs DIR]\n"
	       "       perfkit annotate [CACHEGRIND-FILE] [--show=EVENTS] [--sort=EVENT] [--threshold=P]\n"
	       "                        [--auto=yes|no] [--context=N] [--folded EVENT]\n"
	       "The input is told apart by content: a perf.data (perfkit record, perf record)\n"
	       "or a Cachegrind-format file (perfkit cache, cachegrind).  A positional\n"
	       "argument is the input FILE when it is a readable file of either kind, else a\n"
	       "SYMBOL.  Without one: ./perf.data when there is one, else perfkit.cache.out.\n"
	       "\n"
	       "A sampled profile (perf.data): perf annotate --stdio's layout, for each event\n"
	       "of the file, of each function with samples (hottest first) or those named.\n"
	       "  -i, --input FILE   the perf.data to read (default ./perf.data)\n"
	       "  SYMBOL, -s SYMBOL  annotate only these functions (found when any event has\n"
	       "                     samples in them)\n"
	       "  --stdio            text output (the only output; accepted for perf's sake)\n"
	       "  --asm              the disassembly with source lines between instructions\n"
	       "                     (the default); not with --source\n"
	       "  --source           one row per source line with its share and text instead\n"
	       "  --no-source        instructions only, no source rows between them\n"
	       "  --percent-type TYPE  local-period (default), global-period, local-hits or\n"
	       "                     global-hits: shares of the function's or of all samples\n"
	       "  -d, --dso NAME     only samples in this DSO (path or basename)\n"
	       "  -c, --comm NAME    only samples of this command\n"
	       "  --min-percent P    leave out functions below P %% of all samples\n"
	       "  --symfs DIR        read the DSOs' files under DIR (DIR/usr/lib/x.so for\n"
	       "                     /usr/lib/x.so), as perf's: a recording of another machine\n"
	       "  --cache CACHEFILE  the simulated D1/LL misses (and branch mispredicts) of a\n"
	       "                     `perfkit cache` run of the same binary beside each line\n"
	       "\n"
	       "A Cachegrind-format file: totals, the costs per function and per line, and\n"
	       "the source with the counts beside each line.\n"
	       "  --show=E1,E2,...   the events to show, in this order (default: all in the file,\n"
	       "                     e.g. Ir,I1mr,ILmr,Dr,D1mr,DLmr,Dw,D1mw,DLmw)\n"
	       "  --sort=EVENT       order the function and line tables by EVENT (default: the\n"
	       "                     first shown); as cg_annotate's, EVENT[:P],EVENT2,...: ties\n"
	       "                     by EVENT2, ..., and P in place of --threshold\n"
	       "  --threshold=P      leave out rows below P %% of the sort event's total\n"
	       "                     (default 0.1)\n"
	       "  --auto=yes|no      annotate every source file with a line above the threshold\n"
	       "                     (default yes)\n"
	       "  --context=N        lines of source shown around each counted line (default 3)\n"
	       "  -I DIR, --include=DIR  look for a source file named by a relative path in\n"
	       "                     DIR too (cg_annotate's; repeatable); a source file newer\n"
	       "                     than the counts file gets cg_annotate's warning\n"
	       "  --folded EVENT     print \"cmd;function COUNT\" lines weighted by EVENT instead,\n"
	       "                     for perfkit flamegraph\n"
	       "  -h, --help         this help\n"
	       "Examples: perfkit annotate -i perf.data naive --source\n"
	       "          perfkit annotate m.cg --show=Ir,D1mr --sort=D1mr\n");
}

static void folded_name(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		sb_addch(sb, (*s == ';' || *s == '\n' || *s == '\r') ? '_' : *s);
}

/* cg_annotate's -I DIR: where a source file named by a relative path is
 * looked for when it is not found as named. */
#define MAX_INCLUDES 32
struct cg_src {
	const char *inc[MAX_INCLUDES];
	int ninc;
	const char *data;        /* the Cachegrind file */
	struct timespec data_mtime;
};

/* Annotated source of one file: lines with counts and `ctx` lines around. */
static void annotate_file(const struct cg_src *src, const char *file, struct agg **lines, size_t n,
			  const int *show, int nshow, int ctx)
{
	/* the name comes from the input: only a regular file is read (not a
	 * FIFO that blocks or a device such as /dev/zero that never ends) */
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	FILE *f = NULL;
	char *buf = NULL;
	size_t cap = 0, k = 0;
	ssize_t len;
	uint32_t ln = 0, last_printed = 0;
	char *found = NULL;

	for (int i = 0; fd < 0 && errno == ENOENT && file[0] != '/' && i < src->ninc; i++) {
		free(found);
		found = xstrfmt("%s/%s", src->inc[i], file);
		fd = open(found, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	}
	const char *shown = fd >= 0 && found ? found : file;

	printf("\n-- Source file: %s\n", shown);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
		errno = EINVAL;
	}
	if (fd >= 0 && !(f = fdopen(fd, "r")))
		close(fd);
	if (!f) {
		printf("   (cannot open: %s; counts per line are in the table above%s)\n",
		       errno == EINVAL ? "not a regular file" : strerror(errno),
		       file[0] != '/' && !src->ninc ? "; -I DIR looks for it in DIR" : "");
		free(found);
		return;
	}
	/* edited since the counts were taken: they may sit beside the wrong
	 * lines (cg_annotate's warning) */
	if (st.st_mtim.tv_sec > src->data_mtime.tv_sec ||
	    (st.st_mtim.tv_sec == src->data_mtime.tv_sec && st.st_mtim.tv_nsec > src->data_mtime.tv_nsec))
		printf("@@ WARNING @@ source file '%s' is more recent than the counts file '%s':\n"
		       "@@ WARNING @@ the counts may stand beside the wrong lines\n", shown, src->data);
	free(found);
	while ((len = getline(&buf, &cap, f)) >= 0) {
		ln++;
		if (k == n && n && ln > lines[n - 1]->line + (uint32_t)ctx)
			break;  /* past the last annotated line and its context */
		while (k < n && lines[k]->line < ln)
			k++;
		int near = 0;

		for (size_t j = k; j < n && lines[j]->line <= ln + (uint32_t)ctx; j++)
			near = 1;
		if (k > 0 && lines[k - 1]->line + (uint32_t)ctx >= ln)
			near = 1;
		if (!near)
			continue;
		/* a block that does not follow the last, or a first one
		 * not at line 1: its line, as cg_annotate marks it */
		if (last_printed ? ln != last_printed + 1 : ln != 1)
			printf("-- line %u ----------------------------------------\n", ln);
		if (len > 0 && buf[len - 1] == '\n')
			buf[len - 1] = 0;
		print_counts(k < n && lines[k]->line == ln ? lines[k]->c : NULL, show, nshow, 1);
		printf(" %s\n", buf);
		last_printed = ln;
	}
	while (k < n && lines[k]->line <= ln)   /* the first counted line past the end */
		k++;
	if (k < n)
		printf("   (counts for line %u and later lie past the end of the file: out of date source?)\n",
		       lines[k]->line);
	free(buf);
	fclose(f);
}

/* A complete Cachegrind file ends with its summary: line and a newline
 * (Valgrind's format; cg_annotate refuses one without).  NULL when path
 * looks whole, else what is missing. */
static const char *cg_cut_short(const char *path, const struct cgfile *cg)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char last = '\n';

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    pread(fd, &last, 1, st.st_size - 1) != 1)
		last = '\n';
	if (fd >= 0)
		close(fd);
	if (last != '\n')
		return "cut short: its last line has no newline";
	if (!cg->has_summary)
		return "cut short: no 'summary:' line (a complete Cachegrind file ends with one)";
	return NULL;
}

static int annotate_cg(int argc, char **argv)
{
	const char *path = NULL, *show_s = NULL, *sort_s = NULL, *folded = NULL;
	double threshold = 0.1;
	int autoann = 1, ctx = 3;
	struct cg_src src = { .ninc = 0 };

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "-I", 2) || !strncmp(a, "--include=", 10)) {
			/* cg_annotate's -IDIR, --include=DIR (and -I DIR) */
			const char *d = a[1] == 'I' ? a + 2 : a + 10;

			if (a[1] == 'I' && !*d) {
				if (++i >= argc)
					return usage("-I needs a folder");
				d = argv[i];
			}
			if (!*d)
				return usage("--include needs a folder");
			if (src.ninc == MAX_INCLUDES)
				return usage("too many -I folders");
			src.inc[src.ninc++] = d;
		} else if (!strncmp(a, "--show=", 7)) {
			show_s = a + 7;
		} else if (!strncmp(a, "--sort=", 7)) {
			sort_s = a + 7;
		} else if (!strncmp(a, "--threshold=", 12)) {
			if (pk_parse_double("--threshold", a + 12, 0, 100, &threshold))
				return value_error();
		} else if (!strncmp(a, "--auto=", 7)) {
			if (!strcmp(a + 7, "yes"))
				autoann = 1;
			else if (!strcmp(a + 7, "no"))
				autoann = 0;
			else
				return usage("--auto: expected yes or no");
		} else if (!strncmp(a, "--context=", 10)) {
			if (pk_parse_int("--context", a + 10, 0, 1000, &ctx))
				return value_error();
		} else if (!strcmp(a, "--folded")) {
			if (++i >= argc)
				return usage("--folded needs an event name");
			folded = argv[i];
		} else if (!strncmp(a, "--folded=", 9)) {
			folded = a + 9;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			help();
			return 0;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "perfkit annotate: unknown option '%s'\n", a);
			return usage(NULL);
		} else if (!path) {
			path = a;
		} else {
			return usage("more than one input file");
		}
	}
	bool defaulted = !path;

	if (!path)
		path = "perfkit.cache.out";
	if (pk_options_only)   /* the option fuzz harness: stop before reading */
		return 0;

	struct cgfile *cg;

	if (defaulted && access(path, F_OK) && errno == ENOENT && access("perf.data", F_OK)) {
		/* nothing named: say both defaults, not only the last one tried */
		fprintf(stderr, "perfkit annotate: no ./perf.data and no ./perfkit.cache.out here: "
			"name the input (-i FILE for a perf.data, or a Cachegrind file)\n");
		return 1;
	}
	struct stat dst;

	src.data = path;
	if (stat(path, &dst) == 0)
		src.data_mtime = dst.st_mtim;
	if (cgfile_read(path, &cg) < 0) {
		fprintf(stderr, "perfkit annotate: %s\n", pk_errmsg());
		return 1;
	}
	const char *w = pk_warnings_take();

	if (*w)
		fprintf(stderr, "perfkit annotate: warning: %s\n", w);

	int show[CGFILE_MAX_EVENTS], nshow = 0, rc = 0;

	if (show_s) {
		char *s = xstrdup(show_s), *save = NULL;

		for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			int e = cgfile_event(cg, t);

			if (e < 0) {
				fprintf(stderr, "perfkit annotate: --show: %s has no event '%s'\n", path, t);
				free(s);
				cgfile_free(cg);
				return 2;
			}
			if (nshow < CGFILE_MAX_EVENTS)
				show[nshow++] = e;
		}
		free(s);
		if (!nshow) {
			cgfile_free(cg);
			return usage("--show: no event named");
		}
	} else {
		for (size_t i = 0; i < cg->nev; i++)
			show[nshow++] = (int)i;
	}
	sort_ev = show[0];
	nsort_more = 0;
	if (sort_s) {
		/* cg_annotate's --sort=A[:T],B[:T],…: by A, ties by B, …; A's
		 * threshold T (percent of its total) in place of --threshold */
		char *list = xstrdup(sort_s), *save = NULL;
		int k = 0;

		for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save), k++) {
			char *colon = strchr(t, ':');
			int e;

			if (colon)
				*colon = 0;
			if ((e = cgfile_event(cg, t)) < 0 ||
			    (colon && pk_parse_double("--sort threshold", colon + 1, 0, 100, k ? &(double){ 0 } : &threshold))) {
				if (e < 0)
					fprintf(stderr, "perfkit annotate: --sort: %s has no event '%s'\n", path, t);
				else
					fprintf(stderr, "perfkit annotate: --sort: %s\n", pk_errmsg());
				free(list);
				cgfile_free(cg);
				return 2;
			}
			if (!k)
				sort_ev = e;
			else if (nsort_more < CGFILE_MAX_EVENTS)
				sort_more[nsort_more++] = e;
		}
		free(list);
		if (!k) {
			cgfile_free(cg);
			return usage("--sort: no event named");
		}
	}
	const char *cutmsg = cg_cut_short(path, cg);

	if (cutmsg) {
		fprintf(stderr, "perfkit annotate: %s: %s\n", path, cutmsg);
		cgfile_free(cg);
		return 1;
	}

	struct table fns = { .nev = cg->nev }, lines = { .nev = cg->nev };

	hm_init(&fns.idx);
	hm_init(&lines.idx);
	for (size_t r = 0; r < cg->nrecs; r++) {
		const uint64_t *c = cgfile_counts(cg, r);
		struct agg *f = table_get(&fns, cg->recs[r].file, cg->recs[r].fn, 0);
		struct agg *l = table_get(&lines, cg->recs[r].file, NULL, cg->recs[r].line);

		for (size_t i = 0; i < cg->nev; i++) {
			f->c[i] += c[i];
			l->c[i] += c[i];
		}
	}

	if (folded) {
		int e = cgfile_event(cg, folded);

		if (e < 0) {
			fprintf(stderr, "perfkit annotate: --folded: %s has no event '%s'\n", path, folded);
			rc = 2;
			goto out;
		}
		struct strbuf sb;
		const char *cmd = cg->cmd, *sp = strchr(cmd, ' ');
		const char *base = cmd;

		for (const char *q = cmd; q < (sp ? sp : cmd + strlen(cmd)); q++)
			if (*q == '/')
				base = q + 1;
		sb_init(&sb, 4096);
		for (size_t i = 0; i < fns.n; i++) {
			if (!fns.v[i].c[e])
				continue;
			sb_reset(&sb);
			sb_add(&sb, base, sp ? (size_t)(sp - base) : strlen(base));
			sb_addch(&sb, ';');
			folded_name(&sb, fns.v[i].fn);
			printf("%s %lld\n", sb.buf, (long long)fns.v[i].c[e]);
		}
		sb_release(&sb);
		goto out;
	}

	/* column widths: the totals' widths, at least the event names' */
	for (int i = 0; i < nshow; i++) {
		char b[32];

		cgfile_fmt_count(b, sizeof(b), cg->totals[show[i]]);
		width[i] = (int)strlen(b);
		if ((int)strlen(cg->ev[show[i]]) > width[i])
			width[i] = (int)strlen(cg->ev[show[i]]);
	}
	/* a row is shown when its count is at least the threshold's share of
	 * the total, both taken as magnitudes (a cg_diff file's counts and
	 * total may be negative; then the rows below it, further down the
	 * order, may still be shown) */
	int64_t total = (int64_t)cg->totals[sort_ev];
	double cut = fabs((double)total) * threshold / 100.0;

	printf("--------------------------------------------------------------------------------\n");
	for (size_t i = 0; i < cg->ndesc; i++)
		printf("%s\n", cg->desc[i]);
	printf("Command:          %s\nData file:        %s\nEvents shown:    ", cg->cmd, path);
	for (int i = 0; i < nshow; i++)
		printf(" %s", cg->ev[show[i]]);
	printf("\nEvent sort order: %s", cg->ev[sort_ev]);
	for (int i = 0; i < nsort_more; i++)
		printf(" %s", cg->ev[sort_more[i]]);
	printf("\nThreshold:        %g%%\n", threshold);
	printf("--------------------------------------------------------------------------------\n");
	for (int i = 0; i < nshow; i++)
		printf("%*s ", width[i], cg->ev[show[i]]);
	printf("\n");
	print_counts(cg->totals, show, nshow, 0);
	printf(" PROGRAM TOTALS\n\n");

	printf("-- Functions (by %s) -----------------------------------------------------\n", cg->ev[sort_ev]);
	for (int i = 0; i < nshow; i++)
		printf("%*s ", width[i], cg->ev[show[i]]);
	printf(" file:function\n");
	if (fns.n)   /* qsort(NULL, 0) is undefined */
		qsort(fns.v, fns.n, sizeof(*fns.v), cmp_agg);
	for (size_t i = 0; i < fns.n; i++) {
		if (fabs((double)(int64_t)fns.v[i].c[sort_ev]) < cut || !fns.v[i].c[sort_ev])
			continue;
		print_counts(fns.v[i].c, show, nshow, 0);
		printf(" %s:%s\n", fns.v[i].file, fns.v[i].fn);
	}

	printf("\n-- Lines (by %s) ---------------------------------------------------------\n", cg->ev[sort_ev]);
	for (int i = 0; i < nshow; i++)
		printf("%*s ", width[i], cg->ev[show[i]]);
	printf(" file:line\n");
	if (lines.n)
		qsort(lines.v, lines.n, sizeof(*lines.v), cmp_agg);
	size_t nlines_shown = 0;

	for (size_t i = 0; i < lines.n; i++) {
		if (fabs((double)(int64_t)lines.v[i].c[sort_ev]) < cut || !lines.v[i].c[sort_ev])
			continue;
		print_counts(lines.v[i].c, show, nshow, 0);
		/* line 0: code the compiler gave no line to (e.g. clang's
		 * vectorised loop set-up), shown as "?" rather than a line */
		if (lines.v[i].line)
			printf(" %s:%u\n", lines.v[i].file, lines.v[i].line);
		else
			printf(" %s:?\n", lines.v[i].file);
		nlines_shown++;
	}

	if (autoann) {
		/* files that have a shown line, in order of first appearance */
		struct hashmap done;

		hm_init(&done);
		for (size_t i = 0; i < nlines_shown; i++) {
			const char *file = lines.v[i].file;
			int created;

			if (!strcmp(file, "???"))
				continue;
			hm_upsert(&done, file, strlen(file), &created);
			if (!created)
				continue;
			/* every counted line of this file, by line number */
			size_t n = 0;
			struct agg **fl = xmalloc(lines.n * sizeof(*fl));

			for (size_t j = 0; j < lines.n; j++)
				if (lines.v[j].file == file && lines.v[j].line > 0)
					fl[n++] = &lines.v[j];
			qsort(fl, n, sizeof(*fl), cmp_line);
			annotate_file(&src, file, fl, n, show, nshow, ctx);
			free(fl);
		}
		hm_release(&done);
	}
out:
	table_free(&fns);
	table_free(&lines);
	cgfile_free(cg);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "perfkit annotate: error writing output\n");
		return 1;
	}
	return rc;
}

/* ---- sampled profiles (perf.data) ---- */

enum pct_type { PCT_LOCAL_PERIOD, PCT_GLOBAL_PERIOD, PCT_LOCAL_HITS, PCT_GLOBAL_HITS };
static const char *const pct_names[] = { "local period", "global period", "local hits",
					 "global hits" };

struct popts {
	const char *input, *cache;
	const char *symfs;           /* --symfs DIR (session_opts.symfs) */
	const char *pos_not_input;   /* an operand taken as a SYMBOL though a file is named so */
	const char **syms;
	size_t nr_syms;
	bool source, no_source;
	enum pct_type pct;
	enum { SHOW_PCT, SHOW_NR, SHOW_PERIOD } show;   /* the first column: -n, --show-total-period */
	bool quiet, skip_missing;    /* -q: no warnings; --skip-missing: no block for code not at hand */
	double min_pct;
	struct ann_filter filt;
};

struct pctx {
	struct popts *o;
	struct session *s;
	struct ann_profile *p;
	struct inline_resolver *inl;
	struct ann_srccache *src;
	struct ann_sim *sim;
	const char *sim_dso;       /* the DSO the simulation ran */
	struct ann_plt *plt;       /* the PLT slots of plt_file */
	char *plt_file;
	bool kcore_said;
};

static int pusage(const char *msg)
{
	if (msg)
		fprintf(stderr, "perfkit annotate: %s\n", msg);
	fprintf(stderr,
		"usage: perfkit annotate [-i FILE] [SYMBOL...] [--stdio] [--asm | --source] [--no-source]\n"
		"                        [--percent-type local-period|global-period|local-hits|global-hits]\n"
		"                        [--dso NAME] [--comm NAME] [--min-percent P] [--cache CACHEFILE]\n"
		"                        [-n | --show-nr-samples | --show-total-period] [-q] [--skip-missing]\n"
		"       perfkit annotate [CACHEGRIND-FILE] [--show=EVENTS] [--sort=EVENT] [--threshold=P]\n"
		"                        [--auto=yes|no] [--context=N] [--folded EVENT]\n");
	return 2;
}

static double pct_of(const struct pctx *c, const struct ann_func *f, struct ann_count v);

/* The first column's width (perf annotate's: 8, 12 with --show-total-period). */
static int col_w(const struct pctx *c)
{
	return c->o->show == SHOW_PERIOD ? 12 : 8;
}

/* The first column's name: perf annotate's Percent, Samples (-n), Period. */
static const char *col_name(const struct pctx *c)
{
	return c->o->show == SHOW_NR ? "Samples" : c->o->show == SHOW_PERIOD ? "Period" : "Percent";
}

/* A row's first column: its share (--percent-type), samples (-n) or
 * period (--show-total-period), perf annotate's. */
static void put_val(const struct pctx *c, const struct ann_func *f, struct ann_count v)
{
	if (c->o->show == SHOW_NR)
		printf("%8llu", (unsigned long long)v.hits);
	else if (c->o->show == SHOW_PERIOD)
		printf("%12llu", (unsigned long long)v.period);
	else if (v.hits)
		printf("%8.2f", pct_of(c, f, v));
	else
		printf("    0.00");
}

/* The first column blank, then " :\t". */
static void put_blank(const struct pctx *c)
{
	printf("%*s :\t", col_w(c), "");
}

static double pct_of(const struct pctx *c, const struct ann_func *f, struct ann_count v)
{
	uint64_t num, den;

	switch (c->o->pct) {
	case PCT_LOCAL_PERIOD:
		num = v.period, den = f->self.period;
		break;
	case PCT_GLOBAL_PERIOD:
		num = v.period, den = c->p->total_period;
		break;
	case PCT_LOCAL_HITS:
		num = v.hits, den = f->self.hits;
		break;
	default:
		num = v.hits, den = c->p->total_hits;
		break;
	}
	return den ? 100.0 * (double)num / (double)den : 0.0;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p ? p : "??";
}

/* Print untrusted text (names, source lines) with control bytes escaped. */
static void put_text(const char *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)t[i];

		if (ch == '\t')
			putchar('\t');
		else if (ch < 0x20 || ch == 0x7f)
			printf("\\x%02x", ch);
		else
			putchar(ch);
	}
}

static void put_str(const char *t)
{
	put_text(t, strlen(t));
}

/* t with control bytes as \xNN, for a message (one of two rotating
 * buffers, so two may appear in one message). */
static const char *esc(const char *t)
{
	static char buf[2][512];
	static int k;
	char *b = buf[k ^= 1];
	size_t o = 0;

	for (; t && *t && o + 5 < sizeof(buf[0]); t++) {
		unsigned char ch = (unsigned char)*t;

		if (ch < 0x20 || ch == 0x7f)
			o += (size_t)snprintf(b + o, sizeof(buf[0]) - o, "\\x%02x", ch);
		else
			b[o++] = (char)ch;
	}
	b[o] = 0;
	return b;
}

static void sim_cols(const struct pctx *c, const char *file, int line, bool blank)
{
	if (!c->sim)
		return;
	const uint64_t *v = blank ? NULL : ann_sim_line(c->sim, file, line);

	for (int k = 0; k < ANN_SIM_N; k++) {
		char b[32];

		if (!(ann_sim_present(c->sim) & (1u << k)))
			continue;   /* an event the file has not (no branch simulation) */
		if (v)
			cgfile_fmt_count(b, sizeof(b), v[k]);
		else
			snprintf(b, sizeof(b), ".");
		printf(" %11s", b);
	}
}

static const char *const sim_col[ANN_SIM_N] = { "D1 misses", "LL misses", "Mispredicts" };
static const char *const sim_word[ANN_SIM_N] = { "D1 misses", "LL misses", "mispredicts" };

static void sim_head(const struct pctx *c)
{
	for (int k = 0; c->sim && k < ANN_SIM_N; k++)
		if (ann_sim_present(c->sim) & (1u << k))
			printf(" %11s", sim_col[k]);
}

/* "D1 misses N, LL misses N, mispredicts N": the events the file has. */
static void sim_text(const struct pctx *c, const uint64_t *v)
{
	const char *sep = "";

	for (int k = 0; k < ANN_SIM_N; k++) {
		char b[32];

		if (!(ann_sim_present(c->sim) & (1u << k)))
			continue;
		cgfile_fmt_count(b, sizeof(b), v[k]);
		printf("%s%s %s", sep, sim_word[k], b);
		sep = ", ";
	}
}

static bool use_sim(const struct pctx *c, const struct ann_func *f)
{
	return c->sim && c->sim_dso && f->dso == c->sim_dso;
}

static void header(const struct pctx *c, const struct ann_func *f, const char *what)
{
	printf(" %-*s|\t%s of %s for %s (%llu samples, percent: %s)\n", col_w(c), col_name(c), what,
	       esc(base_name(f->dso)), esc(c->p->event), (unsigned long long)f->self.hits,
	       pct_names[c->o->pct]);
	put_blank(c);
	put_str(f->sym ? f->sym : "[unknown]");
	printf("  %.2f%% of all samples", c->p->total_period
		       ? 100.0 * (double)f->self.period / (double)c->p->total_period : 0.0);
	if (f->callee.hits && c->p->total_period)
		printf(", %.2f%% with its callees", 100.0 * (double)(f->self.period + f->callee.period) /
							    (double)c->p->total_period);
	printf("  (");
	put_str(f->dso);
	printf(")\n");
	printf("------------------------------------------------------------------------------------------\n");
}

/* Addresses and their shares, when the code cannot be read. */
static void addresses_only(const struct pctx *c, const struct ann_func *f)
{
	header(c, f, f->unknown_addr ? "Addresses (DSO file offsets)" : "Addresses");
	for (size_t i = 0; i < f->nr_addrs; i++) {
		const struct ann_addr *a = &f->addrs[i];

		if (!a->self.hits)
			continue;
		put_val(c, f, a->self);
		printf(" :\t%6llx\n", (unsigned long long)a->addr);
	}
	putchar('\n');
}

/* The source rows above an instruction whose chain differs from the last. */
static void src_rows(struct pctx *c, const struct ann_view *v, const struct ann_insn *ai,
		     const struct ann_func *f, const struct ann_insn *prev)
{
	const struct inline_frame *fr = v->frames + ai->fr;
	size_t from = 0;

	if (prev) {
		const struct inline_frame *pf = v->frames + prev->fr;

		/* the levels both share stay printed */
		while (from < ai->nr_fr && from < prev->nr_fr && pf[from].line == fr[from].line &&
		       pf[from].file && fr[from].file && !strcmp(pf[from].file, fr[from].file) &&
		       (from == 0 || (pf[from].name && fr[from].name &&
				      !strcmp(pf[from].name, fr[from].name))))
			from++;
		if (from == ai->nr_fr && ai->nr_fr == prev->nr_fr)
			return;
		if (from == ai->nr_fr)
			from = ai->nr_fr - 1;
	}
	for (size_t k = from; k < ai->nr_fr; k++) {
		const char *file = fr[k].file;
		size_t len = 0;
		const char *t = fr[k].line > 0 ? ann_source_line(c->src, file, fr[k].line, &len) : NULL;

		put_blank(c);
		for (size_t d = 0; d < k; d++)
			printf("  ");
		if (k > 0) {
			printf("[inlined ");
			put_str(fr[k].name ? fr[k].name : "??");
			printf("] ");
		}
		put_str(base_name(file));
		printf(":%d", fr[k].line);
		if (use_sim(c, f) && k + 1 == ai->nr_fr) {
			const uint64_t *sv = ann_sim_line(c->sim, file, fr[k].line);

			if (sv) {
				printf("  [");
				sim_text(c, sv);
				printf("]");
			}
		}
		if (t) {
			printf("   ");
			while (len && (*t == ' ' || *t == '\t'))
				t++, len--;
			put_text(t, len);
		}
		putchar('\n');
	}
}

/* The PLT slots of file (the last file's kept). */
static const struct ann_plt *plt_of(struct pctx *c, const char *file)
{
	if (!c->plt_file || strcmp(c->plt_file, file)) {
		ann_plt_free(c->plt);
		free(c->plt_file);
		ann_plt_load(file, &c->plt);
		pk_error_clear();
		c->plt_file = xstrdup(file);
	}
	return c->plt;
}

static void print_asm(struct pctx *c, const struct ann_func *f, const struct ann_view *v,
		      const char *file)
{
	header(c, f, "Source code & Disassembly");
	put_blank(c);
	printf("%016llx <", (unsigned long long)f->start);
	put_str(f->sym);
	printf(">:\n");
	const struct ann_insn *prev = NULL;

	for (size_t i = 0; i < v->nr_insns; i++) {
		const struct ann_insn *ai = &v->insns[i];

		/* line 0: code the compiler attributes to no line (objdump -S
		 * shows none either): it stays under the rows above */
		if (ai->nr_fr && v->frames[ai->fr + ai->nr_fr - 1].line > 0) {
			if (!c->o->no_source)
				src_rows(c, v, ai, f, prev);
			prev = ai;
		}
		put_val(c, f, ai->self);
		printf(" :\t%6llx: %c %-6s %s", (unsigned long long)ai->in.addr,
		       ai->jump_target ? '>' : ' ', ai->in.mnemonic, ai->in.ops);
		/* the target's name: f's own (+offset), a PLT slot's symbol
		 * (strcmp@plt, as objdump and perf), else a callee's from DWARF */
		const char *tname;
		uint64_t toff;
		enum ann_target tk = ann_target_of(f, v, ai, ai->in.has_target && !f->kernel ? plt_of(c, file) : NULL,
						   c->inl, file, &tname, &toff);

		if (tk != ANN_TGT_NONE) {
			printf(" <");
			put_str(tname);
			if (tk == ANN_TGT_SELF && toff)   /* its start: the name alone, as objdump */
				printf("+%#llx>", (unsigned long long)toff);
			else
				printf(tk == ANN_TGT_PLT ? "@plt>" : ">");
			if (tk == ANN_TGT_SELF && ai->back_edge)
				printf("  # loop back");
		}
		if (ai->in.kind == DIS_CALL && ai->callee.hits && c->p->total_period)
			printf("  # callees: %.2f%% of all samples (%llu, inclusive)",
			       100.0 * (double)ai->callee.period / (double)c->p->total_period,
			       (unsigned long long)ai->callee.hits);
		putchar('\n');
	}
	putchar('\n');
}

static void print_source(struct pctx *c, const struct ann_func *f, const struct ann_view *v)
{
	struct ann_line *l;
	size_t n = ann_view_lines(v, &l);
	bool sim = use_sim(c, f);

	header(c, f, "Source lines");
	for (size_t i = 0; i < n;) {
		const char *file = l[i].file;
		size_t j = i;
		int lo = l[i].line, hi = l[i].line;

		while (j < n && !strcmp(l[j].file, file))
			hi = l[j++].line;
		printf("-- %s: ", i == 0 ? "file" : "inlined from file");
		put_str(file);
		if (i > 0 && l[i].fn) {
			printf(" (");
			put_str(l[i].fn);
			printf(")");
		}
		putchar('\n');
		printf(" %*s", col_w(c) - 1, col_name(c));
		if (sim)
			sim_head(c);
		printf("   Line  Source\n");
		/* every line from the first to the last with code, as cg_annotate */
		int nlines = ann_source_nlines(c->src, file);
		size_t k = i;

		if (hi - lo > 2000)
			lo = hi - 2000;
		for (int ln = lo; ln <= hi; ln++) {
			while (k < j && l[k].line < ln)
				k++;
			bool has = k < j && l[k].line == ln;
			size_t len = 0;
			const char *t = ln <= nlines ? ann_source_line(c->src, file, ln, &len) : NULL;

			if (!has && !t)
				continue;
			if (has)
				put_val(c, f, l[k].self);
			else
				printf("%*s", col_w(c), ".");
			if (sim)
				sim_cols(c, file, ln, !has);
			printf(" %6d  ", ln);
			if (t)
				put_text(t, len);
			putchar('\n');
		}
		i = j;
	}
	if (!n)
		printf("   (no DWARF line table for %s: nothing to show per source line)\n",
		       f->sym ? esc(f->sym) : "[unknown]");
	putchar('\n');
	free(l);
}

struct loop {
	uint64_t from, to;          /* [from, to): the target up to the back-edge jump */
	uint64_t last;              /* the back-edge jump's own address (to's last insn) */
	struct ann_count self;
};

static int cmp_loop(const void *x, const void *y)
{
	const struct loop *a = x, *b = y;

	if (a->self.period != b->self.period)
		return a->self.period < b->self.period ? 1 : -1;
	if (a->to - a->from != b->to - b->from)   /* the innermost first */
		return a->to - a->from < b->to - b->from ? -1 : 1;
	return a->from < b->from ? -1 : a->from > b->from;
}

/* Each back-edge jump closes a loop: its samples and the source lines its
 * instructions come from (with the simulated misses of those lines). */
static void print_loops(struct pctx *c, const struct ann_func *f, const struct ann_view *v)
{
	struct loop *lp = NULL;
	size_t n = 0;

	for (size_t i = 0; i < v->nr_insns; i++) {
		const struct ann_insn *ai = &v->insns[i];

		if (!ai->back_edge)
			continue;
		lp = xrealloc(lp, (n + 1) * sizeof(*lp));
		lp[n] = (struct loop){ ai->in.target, ai->in.addr + ai->in.size, ai->in.addr, { 0, 0 } };
		for (size_t j = 0; j < v->nr_insns; j++)
			if (v->insns[j].in.addr >= lp[n].from && v->insns[j].in.addr < lp[n].to) {
				lp[n].self.period += v->insns[j].self.period;
				lp[n].self.hits += v->insns[j].self.hits;
			}
		n++;
	}
	/* the loops with samples, hottest first; then a loop nested in
	 * another moves before it: each place takes the hottest loop left
	 * that contains no other loop left */
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (lp[i].self.hits)
			lp[m++] = lp[i];
	n = m;
	if (!n) {
		free(lp);
		return;
	}
	qsort(lp, n, sizeof(*lp), cmp_loop);
	for (size_t k = 0; k < n; k++) {
		size_t pick = k;

		for (size_t i = k; i < n; i++) {
			bool outer = false;

			for (size_t j = k; j < n && !outer; j++)
				outer = j != i && lp[j].from >= lp[i].from && lp[j].to <= lp[i].to &&
					(lp[j].to - lp[j].from < lp[i].to - lp[i].from);
			if (!outer) {
				pick = i;
				break;
			}
		}
		struct loop t = lp[pick];

		memmove(&lp[k + 1], &lp[k], (pick - k) * sizeof(*lp));
		lp[k] = t;
	}
	printf(" Loops (a jump back to an earlier address; FIRST..LAST, the jump the last "
	       "instruction), innermost first where they nest, else hottest first:\n");
	for (size_t k = 0; k < n && k < 8; k++) {
		/* the lines of its instructions, in the function's own file */
		const char *file = NULL;
		int lo = 0, hi = 0;
		uint64_t sim[ANN_SIM_N] = { 0 };
		struct ann_line *l;
		size_t nl;
		struct ann_view sub = *v;

		for (size_t j = 0; j < v->nr_insns; j++)
			if (v->insns[j].in.addr >= lp[k].from && v->insns[j].in.addr < lp[k].to) {
				if (sub.insns == v->insns)
					sub.insns = (struct ann_insn *)&v->insns[j];
				sub.nr_insns = (size_t)(&v->insns[j] - sub.insns) + 1;
			}
		nl = ann_view_lines(&sub, &l);
		for (size_t j = 0; j < nl; j++) {
			if (!file)
				file = l[j].file, lo = hi = l[j].line;
			if (!strcmp(l[j].file, file)) {
				lo = l[j].line < lo ? l[j].line : lo;
				hi = l[j].line > hi ? l[j].line : hi;
			}
			const uint64_t *sv = use_sim(c, f) ? ann_sim_line(c->sim, l[j].file, l[j].line) : NULL;

			for (int e = 0; sv && e < ANN_SIM_N; e++)
				sim[e] += sv[e];
		}
		printf("%8.2f%%  %llx..%llx", pct_of(c, f, lp[k].self), (unsigned long long)lp[k].from,
		       (unsigned long long)lp[k].last);
		if (file) {
			printf("  ");
			put_str(base_name(file));
			printf(":%d", lo);
			if (hi != lo)
				printf("-%d", hi);
		}
		if (use_sim(c, f)) {
			printf("  ");
			sim_text(c, sim);
		}
		putchar('\n');
		free(l);
	}
	putchar('\n');
	free(lp);
}

static bool selected(const struct popts *o, const struct ann_func *f, bool *used)
{
	if (!o->nr_syms)
		return f->self.hits > 0;
	for (size_t i = 0; i < o->nr_syms; i++)
		if (f->sym && (!strcmp(f->sym, o->syms[i]) || !strcmp(f->raw_sym, o->syms[i]))) {
			used[i] = true;
			return true;
		}
	return false;
}

/* Why a user DSO's code cannot be read, or NULL when it can. */
static const char *dso_problem(struct pctx *c, const struct ann_func *f, const char **file)
{
	static char why[768];

	*file = NULL;
	if (f->kernel) {
		if (access("/proc/kcore", R_OK)) {
			snprintf(why, sizeof(why), "/proc/kcore is not readable (%s): kernel functions "
				 "shown by address only", strerror(errno));
			return why;
		}
		*file = "/proc/kcore";
		return f->sym ? NULL : "no kernel symbol (kallsyms hidden?): addresses only";
	}
	if (f->dso[0] != '/' && strcmp(f->dso, "[vdso]")) {
		snprintf(why, sizeof(why), "%s has no file to read: addresses only", esc(f->dso));
		return why;
	}
	*file = session_dso_file(c->s, f->dso);
	if (!*file) {
		if (access(f->dso, F_OK))
			snprintf(why, sizeof(why), "%s: not found (deleted since the recording, and no "
				 "copy by build-id in ~/.debug or /usr/lib/debug): addresses only", esc(f->dso));
		else
			snprintf(why, sizeof(why), "%s: not the file recorded (its build-id differs: "
				 "rebuilt since?), and no copy by build-id: addresses only", esc(f->dso));
		return why;
	}
	if (access(*file, R_OK)) {
		snprintf(why, sizeof(why), "%s: cannot be read (%s; deleted since the recording?): "
			 "addresses only", esc(f->dso), strerror(errno));
		return why;
	}
	if (!f->sym) {
		snprintf(why, sizeof(why), "%s: no symbol covers the sampled addresses (stripped: no "
			 "symbol table or debug info): addresses only", esc(f->dso));
		return why;
	}
	return NULL;
}

/* The recorded build-id of dso (lower-case hex) into buf, else the file's. */
static bool dso_build_id(struct pctx *c, const char *dso, char *buf, size_t len)
{
	const struct pd_file *pf = session_file(c->s);
	uint8_t id[64];
	int n = -1;

	for (size_t i = 0; i < pf->nr_build_ids; i++)
		if (pf->build_ids[i].filename && !strcmp(pf->build_ids[i].filename, dso)) {
			n = pf->build_ids[i].size;
			memcpy(id, pf->build_ids[i].data, (size_t)n);
			break;
		}
	if (n < 0) {
		const char *file = session_dso_file(c->s, dso);

		n = file ? sym_read_build_id(file, id, sizeof(id)) : -1;
	}
	if (n <= 0 || (size_t)n * 2 + 1 > len)
		return false;
	for (int i = 0; i < n; i++)
		snprintf(buf + 2 * i, 3, "%02x", id[i]);
	return true;
}

static int open_cache(struct pctx *c, struct cgfile **cg)
{
	const char *path = c->o->cache;

	if (cgfile_read(path, cg) < 0) {
		fprintf(stderr, "perfkit annotate: --cache: %s\n", pk_errmsg());
		return 1;
	}
	pk_warnings_take();
	const char *cutmsg = cg_cut_short(path, *cg);

	if (cutmsg) {
		fprintf(stderr, "perfkit annotate: --cache: %s: %s\n", path, cutmsg);
		return 1;
	}
	if (ann_sim_new(*cg, &c->sim) < 0) {
		fprintf(stderr, "perfkit annotate: --cache: %s: %s\n", path, pk_errmsg());
		return 1;
	}
	const char *want = ann_sim_build_id(c->sim);
	/* the DSO it simulated: the first user DSO annotated */
	const struct ann_func *first = NULL;
	bool *used = xcalloc(c->o->nr_syms + 1, sizeof(bool));

	for (size_t i = 0; i < c->p->nr_funcs && !first; i++)
		if (!c->p->funcs[i]->kernel && c->p->funcs[i]->dso[0] == '/' &&
		    selected(c->o, c->p->funcs[i], used))
			first = c->p->funcs[i];
	free(used);
	char have[160];

	if (!want) {
		if (first && !dso_build_id(c, first->dso, have, sizeof(have)))
			fprintf(stderr, "perfkit annotate: --cache: the binary %s has no build-id (linked "
				"without one: -Wl,--build-id=none?), so %s cannot be matched to the "
				"recording\n", esc(first->dso), path);
		else
			fprintf(stderr, "perfkit annotate: --cache: %s names no build-id (no 'desc: build-id:' "
				"line: the binary it simulated has none, or another tool wrote it): cannot "
				"match it to the recording\n", path);
		return 1;
	}
	for (size_t i = 0; i < c->p->nr_funcs && !c->sim_dso; i++) {
		const struct ann_func *f = c->p->funcs[i];

		if (!f->kernel && f->dso[0] == '/' && dso_build_id(c, f->dso, have, sizeof(have)) &&
		    !strncmp(have, want, strlen(want)))
			c->sim_dso = f->dso;
	}
	if (c->sim_dso && (!first || first->dso == c->sim_dso))
		return 0;
	if (!first) {
		fprintf(stderr, "perfkit annotate: --cache: %s: no user-space function of the recording "
			"to put its counts beside\n", path);
		return 1;
	}
	if (!dso_build_id(c, first->dso, have, sizeof(have)))
		snprintf(have, sizeof(have), "unknown");
	fprintf(stderr, "perfkit annotate: --cache: %s simulated build-id %s, but the recording's %s "
		"has build-id %s: not the same binary\n", path, want, esc(first->dso), have);
	return 1;
}

/* Why path (not IN_PERF or IN_CG) is no input, after its name. */
static const char *not_input_why(const char *path)
{
	static char why[300];
	struct stat st;

	if (stat(path, &st) < 0 && errno == ENOENT)
		snprintf(why, sizeof(why), "does not exist");
	else if (stat(path, &st) < 0)
		snprintf(why, sizeof(why), "cannot be reached (%s)", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(why, sizeof(why), "is not a regular file");
	else if (access(path, R_OK) < 0)
		snprintf(why, sizeof(why), "cannot be read (%s)", strerror(errno));
	else
		snprintf(why, sizeof(why), "is neither a perf.data file nor Cachegrind output");
	return why;
}

/* Why symbols may be missing: a user DSO with samples but no symbol whose
 * binary is gone or rebuilt since the recording (one line), else NULL. */
static const char *missing_binary(struct pctx *c, struct ann_profile *const *pv, size_t np)
{
	static char why[768];

	for (size_t e = 0; e < np; e++)
		for (size_t i = 0; i < pv[e]->nr_funcs; i++) {
			const struct ann_func *f = pv[e]->funcs[i];

			if (f->sym || f->kernel || f->dso[0] != '/')
				continue;
			const char *file = session_dso_file(c->s, f->dso);

			pk_warnings_take();
			if (!file && access(f->dso, F_OK))
				snprintf(why, sizeof(why), "the binary %s, which has samples, is missing (deleted since the "
					 "recording, and no copy by build-id in ~/.debug or /usr/lib/debug): "
					 "no symbols to look it up in", esc(f->dso));
			else if (!file)
				snprintf(why, sizeof(why), "the binary %s, which has samples, is not the file recorded (its "
					 "build-id differs: rebuilt since?): no symbols to look it up in",
					 esc(f->dso));
			else if (access(file, R_OK))
				snprintf(why, sizeof(why), "the binary %s, which has samples, cannot be read (%s): no symbols to "
					 "look it up in", esc(f->dso), strerror(errno));
			else
				continue;
			return why;
		}
	return NULL;
}

/* One event's functions (c->p), hottest first or those named; *nsel and
 * *shown count the functions selected and those disassembled. */
static void annotate_event(struct pctx *c, bool *used, size_t *nsel, size_t *shown)
{
	struct popts *o = c->o;

	for (size_t i = 0; i < c->p->nr_funcs; i++) {
		const struct ann_func *f = c->p->funcs[i];
		const char *file;

		if (!selected(o, f, used))
			continue;
		if (!o->nr_syms && c->p->total_period &&
		    100.0 * (double)f->self.period / (double)c->p->total_period < o->min_pct)
			continue;
		(*nsel)++;
		const char *why = dso_problem(c, f, &file);
		struct ann_view v;

		if (!why && ann_view_build(&v, f, file, c->inl) < 0) {
			static char b[300];

			snprintf(b, sizeof(b), "%s: %s: addresses only", esc(f->sym), pk_errmsg());
			why = b;
		}
		if (why) {
			if ((!f->kernel || !c->kcore_said) && !c->o->quiet && !c->o->skip_missing)
				fprintf(stderr, "perfkit annotate: %s\n", why);
			if (f->kernel)
				c->kcore_said = true;
			if (!c->o->skip_missing)   /* perf's --skip-missing: no block at all */
				addresses_only(c, f);
			continue;
		}
		if (c->o->quiet)   /* the view's (undecoded instructions) */
			(void)pk_warnings_take();
		else
			pk_warnings_print(stderr, "perfkit annotate");
		if (o->source)
			print_source(c, f, &v);
		else
			print_asm(c, f, &v, file);
		print_loops(c, f, &v);
		ann_view_release(&v);
		(*shown)++;
	}
}

static int annotate_perf(struct popts *o)
{
	struct session_opts so = { .no_demangle = true, .symfs = o->symfs };
	struct pctx c = { .o = o };
	struct cgfile *cg = NULL;
	struct ann_profile **pv = NULL;
	size_t np = 0;
	int rc = 0;
	bool *used = xcalloc(o->nr_syms + 1, sizeof(bool));

	if (session_opts_check(&so) < 0 || session_open(&c.s, o->input, &so) < 0) {
		fprintf(stderr, "perfkit annotate: %s\n", pk_errmsg());
		free(used);
		free(o->syms);
		return 1;
	}
	if (ann_profiles_build(c.s, &o->filt, &pv, &np) < 0) {
		fprintf(stderr, "perfkit annotate: %s\n", pk_errmsg());
		rc = 1;
		goto out;
	}
	{
		/* the session's own build-id warnings are said once per function
		 * below; anything else (a cut file) is shown */
		const char *w = pk_warnings_take();
		char *dup = xstrdup(w), *save = NULL;

		for (char *t = strtok_r(dup, "\n", &save); t; t = strtok_r(NULL, "\n", &save))
			if (!strstr(t, "build-id") && !o->quiet)
				fprintf(stderr, "perfkit annotate: warning: %s\n", t);
		free(dup);
	}
	uint64_t hits = 0;
	size_t nfuncs = 0;

	for (size_t e = 0; e < np; e++) {
		hits += pv[e]->total_hits;
		nfuncs += pv[e]->nr_funcs;
		if (!c.p && pv[e]->nr_funcs)
			c.p = pv[e];
	}
	if (!hits) {
		fprintf(stderr, "perfkit annotate: %s: no samples\n", o->input);
		rc = 1;
		goto out;
	}
	if (!nfuncs) {
		fprintf(stderr, "perfkit annotate: %s: no samples%s%s%s%s\n", o->input,
			o->filt.comm ? " of command " : "", o->filt.comm ? o->filt.comm : "",
			o->filt.dso ? " in DSO " : "", o->filt.dso ? o->filt.dso : "");
		rc = 1;
		goto out;
	}
	if (o->cache && (rc = open_cache(&c, &cg)))
		goto out;
	c.inl = inline_resolver_new();
	c.src = ann_srccache_new();

	size_t shown = 0, nsel = 0;

	/* each event apart, in the file's order (perf annotate's layout) */
	for (size_t e = 0; e < np; e++) {
		c.p = pv[e];
		annotate_event(&c, used, &nsel, &shown);
	}
	for (size_t i = 0; i < o->nr_syms; i++)
		if (!used[i]) {
			const char *gone = missing_binary(&c, pv, np);

			if (gone)
				fprintf(stderr, "perfkit annotate: symbol '%s' not found in %s: %s\n",
					esc(o->syms[i]), o->input, gone);
			else if (o->pos_not_input && o->syms[i] == o->pos_not_input &&
				 (!access(o->syms[i], F_OK) || strchr(o->syms[i], '/') ||
				  strchr(o->syms[i], '.')))
				fprintf(stderr, "perfkit annotate: symbol '%s' has no samples in %s (and as a "
					"file, %s %s)\n", esc(o->syms[i]), o->input, esc(o->syms[i]),
					not_input_why(o->syms[i]));
			else
				fprintf(stderr, "perfkit annotate: symbol '%s' has no samples in %s\n",
					esc(o->syms[i]), o->input);
			rc = 1;
		}
	if (!shown && nsel)
		rc = 1;
	if (!nsel && !o->nr_syms) {
		fprintf(stderr, "perfkit annotate: %s: no function at or above %.2f%%\n", o->input,
			o->min_pct);
		rc = 1;
	}
out:
	ann_plt_free(c.plt);
	free(c.plt_file);
	ann_sim_free(c.sim);
	cgfile_free(cg);
	ann_srccache_free(c.src);
	inline_resolver_free(c.inl);
	for (size_t e = 0; e < np; e++)
		ann_profile_free(pv[e]);
	free(pv);
	session_close(c.s);
	free(used);
	free(o->syms);
	return rc;
}

enum in_kind { IN_NONE = -1, IN_OTHER = 0, IN_PERF = 1, IN_CG = 2 };

/* What the file at path holds, by content: a perf.data (its magic), a
 * Cachegrind-format file (its first line is one of the format's header
 * lines), something else, or IN_NONE when it is no readable regular file. */
static enum in_kind input_kind(const char *path)
{
	char buf[512];
	struct stat st;
	int fd;

	/* not opened unless regular: a FIFO's writer would pair with this
	 * open and be gone when the reader opens it */
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return IN_NONE;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return IN_NONE;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return IN_NONE;
	}
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	close(fd);
	if (n < 0)
		return IN_NONE;
	if (n >= 8 && (!memcmp(buf, "PERFILE2", 8) || !memcmp(buf, "2ELIFREP", 8)))
		return IN_PERF;
	buf[n] = 0;
	if (memchr(buf, 0, (size_t)n))
		return IN_OTHER;
	static const char *const heads[] = { "desc:", "cmd:", "events:", "version:", "creator:",
					     "pid:", "positions:" };
	const char *l = buf;

	while (*l == '\n' || *l == '#') {   /* blank and comment lines */
		const char *nl = *l == '#' ? strchr(l, '\n') : l;

		if (!nl)
			return IN_OTHER;
		l = nl + 1;
	}
	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++)
		if (!strncmp(l, heads[i], strlen(heads[i])))
			return IN_CG;
	return IN_OTHER;
}

static bool cg_option(const char *a)
{
	return !strncmp(a, "--show=", 7) || !strncmp(a, "--sort=", 7) ||
	       !strncmp(a, "--threshold=", 12) || !strncmp(a, "--auto=", 7) ||
	       !strncmp(a, "--context=", 10) || !strncmp(a, "--folded", 8) ||
	       !strncmp(a, "-I", 2) || !strncmp(a, "--include=", 10);
}

static int opt_arg(int argc, char **argv, int *i, const char *name, const char **val)
{
	size_t n = strlen(name);
	const char *a = argv[*i];

	if (!strcmp(a, name)) {
		if (*i + 1 >= argc)
			return -1;
		*val = argv[++*i];
		return 1;
	}
	if (!strncmp(a, name, n) && a[n] == '=' && name[1] == '-') {
		*val = a + n + 1;
		return 1;
	}
	return 0;
}

int cmd_annotate(int argc, char **argv)
{
	struct popts o = { .pct = PCT_LOCAL_PERIOD };
	const char *first_pos = NULL;
	bool asm_ = false, src_ = false;
	int r;

	/* which reader: -i, else the first operand when it is a file, else
	 * ./perf.data when it exists, else perfkit.cache.out (Cachegrind) */
	for (int i = 1; i < argc; i++) {
		if (cg_option(argv[i]))
			return annotate_cg(argc, argv);
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			help();
			return 0;
		}
		if ((r = opt_arg(argc, argv, &i, "-i", &o.input)) ||
		    (r = opt_arg(argc, argv, &i, "--input", &o.input))) {
			if (r < 0)
				return pusage("-i needs a file");
			continue;
		}
		if (argv[i][0] != '-' && !first_pos)
			first_pos = argv[i];
		if (!strcmp(argv[i], "--asm"))
			asm_ = true;
		if (!strcmp(argv[i], "--source"))
			src_ = true;
	}
	if (asm_ && src_)
		return pusage("--asm and --source: choose one (the disassembly, or one row per source line)");
	if (!o.input) {
		/* the first operand is the input only when it is a perf.data or
		 * Cachegrind output; anything else is a SYMBOL (perf's rule) */
		enum in_kind k = first_pos ? input_kind(first_pos) : IN_NONE;

		if (k == IN_CG)
			return annotate_cg(argc, argv);
		if (k == IN_PERF) {
			o.input = first_pos;
		} else if (!access("perf.data", F_OK)) {
			o.input = "perf.data";
			o.pos_not_input = first_pos;
		} else if (!first_pos) {
			return annotate_cg(argc, argv);   /* perfkit.cache.out */
		} else {
			fprintf(stderr, "perfkit annotate: %s %s, and there is no ./perf.data to find it "
				"in as a symbol\n", esc(first_pos), not_input_why(first_pos));
			return 1;
		}
	} else {
		enum in_kind k = input_kind(o.input);

		if (k == IN_OTHER) {
			fprintf(stderr, "perfkit annotate: %s: neither a perf.data file nor Cachegrind output\n",
				esc(o.input));
			return 1;
		}
		if (k == IN_CG) {
			/* -i names Cachegrind text */
			char **av = xcalloc((size_t)argc + 1, sizeof(char *));
			int n = 0;

			for (int i = 0; i < argc; i++) {
				if (!strcmp(argv[i], "-i") || !strcmp(argv[i], "--input")) {
					i++;
					continue;
				}
				if (!strncmp(argv[i], "--input=", 8))
					continue;
				av[n++] = argv[i];
			}
			av[n++] = (char *)o.input;
			r = annotate_cg(n, av);
			free(av);
			return r;
		}
	}
	o.syms = xcalloc((size_t)argc, sizeof(char *));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if ((r = opt_arg(argc, argv, &i, "-i", &v)) || (r = opt_arg(argc, argv, &i, "--input", &v))) {
			continue;
		} else if ((r = opt_arg(argc, argv, &i, "--percent-type", &v))) {
			if (r < 0) {
				free(o.syms);
				return pusage("--percent-type needs a value");
			}
			int k;

			for (k = 0; k < 4; k++) {
				static const char *const w[] = { "local-period", "global-period", "local-hits",
								 "global-hits" };
				if (!strcmp(v, w[k]))
					break;
			}
			if (k == 4) {
				free(o.syms);
				return pusage("--percent-type: expected local-period, global-period, local-hits or global-hits");
			}
			o.pct = (enum pct_type)k;
		} else if ((r = opt_arg(argc, argv, &i, "--dso", &v)) || (r = opt_arg(argc, argv, &i, "-d", &v))) {
			if (r < 0) {
				free(o.syms);
				return pusage("--dso needs a name");
			}
			o.filt.dso = v;
		} else if ((r = opt_arg(argc, argv, &i, "--comm", &v)) || (r = opt_arg(argc, argv, &i, "-c", &v))) {
			if (r < 0) {
				free(o.syms);
				return pusage("--comm needs a name");
			}
			o.filt.comm = v;
		} else if ((r = opt_arg(argc, argv, &i, "--min-percent", &v))) {
			if (r < 0) {
				free(o.syms);
				return pusage("--min-percent needs a percentage");
			}
			if (pk_parse_double("--min-percent", v, 0, 100, &o.min_pct)) {
				free(o.syms);
				return value_error();
			}
		} else if ((r = opt_arg(argc, argv, &i, "--cache", &v))) {
			if (r < 0) {
				free(o.syms);
				return pusage("--cache needs a file");
			}
			o.cache = v;
		} else if ((r = opt_arg(argc, argv, &i, "-s", &v)) || (r = opt_arg(argc, argv, &i, "--symbol", &v))) {
			if (r < 0) {
				free(o.syms);
				return pusage("--symbol needs a name");
			}
			o.syms[o.nr_syms++] = v;
		} else if ((r = opt_arg(argc, argv, &i, "--symfs", &v))) {
			if (r < 0) {
				free(o.syms);
				return pusage("--symfs needs a directory");
			}
			o.symfs = v;
		} else if (!strcmp(a, "-n") || !strcmp(a, "--show-nr-samples")) {
			o.show = SHOW_NR;
		} else if (!strcmp(a, "--show-total-period")) {
			o.show = SHOW_PERIOD;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			o.quiet = true;
		} else if (!strcmp(a, "--skip-missing")) {
			o.skip_missing = true;
		} else if (!strcmp(a, "--stdio")) {
			/* the only output */
		} else if (!strcmp(a, "--asm")) {
			/* the default view */
		} else if (!strcmp(a, "--source")) {
			o.source = true;
		} else if (!strcmp(a, "--no-source")) {
			o.no_source = true;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "perfkit annotate: unknown option '%s'\n", a);
			free(o.syms);
			return pusage(NULL);
		} else if (a != o.input) {
			o.syms[o.nr_syms++] = a;
		}
	}
	/* a symbol named twice is one (its annotation once, no "no samples"
	 * for the second) */
	size_t nu = 0;

	for (size_t k = 0; k < o.nr_syms; k++) {
		size_t j = 0;

		while (j < nu && strcmp(o.syms[j], o.syms[k]))
			j++;
		if (j == nu)
			o.syms[nu++] = o.syms[k];
	}
	o.nr_syms = nu;
	if (pk_options_only) {   /* the option fuzz harness: stop before reading */
		free(o.syms);
		return 0;
	}
	return annotate_perf(&o);
}
