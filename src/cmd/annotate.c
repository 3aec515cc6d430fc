/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit annotate — read a Cachegrind-format file (from `perfkit cache` or
 * cachegrind) and print totals, per-function and per-line costs, and
 * annotated source with the counts beside each line.
 *
 *   perfkit annotate [FILE] [--show=E1,E2..] [--sort=EVENT] [--threshold=P]
 *                    [--auto=yes|no] [--context=N] [--folded EVENT]
 *
 * FILE defaults to perfkit.cache.out.  --sort (default: the first shown
 * event) orders the function and line tables; rows below P percent of the
 * sort event's total (default 0.1) are left out.  --auto=yes (default)
 * annotates every source file that has a line above the threshold, with
 * N lines of context (default 3).  --folded EVENT prints "cmd;function
 * count" lines weighted by EVENT, for `perfkit flamegraph`.
 *
 * Names from the file are printed as they are (they are not interpreted);
 * the folded output replaces ';' and newlines in names with '_'.
 */
#include "cmd/cmds.h"

#include "base/error.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "cgfile/cgfile.h"

#include <errno.h>
#include <fcntl.h>
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

static int cmp_agg(const void *a, const void *b)
{
	const struct agg *x = a, *y = b;

	if (x->c[sort_ev] != y->c[sort_ev])
		return x->c[sort_ev] < y->c[sort_ev] ? 1 : -1;
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

static int width[CG_MAX_EVENTS];

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

static int usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "perfkit annotate: %s\n", msg);
	fprintf(stderr, "usage: perfkit annotate [FILE] [--show=EVENTS] [--sort=EVENT] [--threshold=P]\n"
			"                        [--auto=yes|no] [--context=N] [--folded EVENT]\n");
	return 2;
}

static void folded_name(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		sb_addch(sb, (*s == ';' || *s == '\n' || *s == '\r') ? '_' : *s);
}

/* Annotated source of one file: lines with counts and `ctx` lines around. */
static void annotate_file(const char *file, struct agg **lines, size_t n, const int *show,
			  int nshow, int ctx)
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

	printf("\n-- Source file: %s\n", file);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
		errno = EINVAL;
	}
	if (fd >= 0 && !(f = fdopen(fd, "r")))
		close(fd);
	if (!f) {
		printf("   (cannot open: %s; counts per line are in the table above)\n",
		       errno == EINVAL ? "not a regular file" : strerror(errno));
		return;
	}
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
		if (last_printed && ln != last_printed + 1)
			printf("-- line %u ----------------------------------------\n", ln);
		if (len > 0 && buf[len - 1] == '\n')
			buf[len - 1] = 0;
		print_counts(k < n && lines[k]->line == ln ? lines[k]->c : NULL, show, nshow, 1);
		printf(" %s\n", buf);
		last_printed = ln;
	}
	if (k < n && lines[n - 1]->line > ln)
		printf("   (counts for line %u and later lie past the end of the file: out of date source?)\n",
		       lines[n - 1]->line);
	free(buf);
	fclose(f);
}

int cmd_annotate(int argc, char **argv)
{
	const char *path = NULL, *show_s = NULL, *sort_s = NULL, *folded = NULL;
	double threshold = 0.1;
	int autoann = 1, ctx = 3;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "--show=", 7)) {
			show_s = a + 7;
		} else if (!strncmp(a, "--sort=", 7)) {
			sort_s = a + 7;
		} else if (!strncmp(a, "--threshold=", 12)) {
			char *end;

			threshold = strtod(a + 12, &end);
			if (*end || end == a + 12 || threshold < 0 || threshold > 100)
				return usage("--threshold: expected a percentage 0..100");
		} else if (!strncmp(a, "--auto=", 7)) {
			if (!strcmp(a + 7, "yes"))
				autoann = 1;
			else if (!strcmp(a + 7, "no"))
				autoann = 0;
			else
				return usage("--auto: expected yes or no");
		} else if (!strncmp(a, "--context=", 10)) {
			char *end;
			long v = strtol(a + 10, &end, 10);

			if (*end || v < 0 || v > 1000)
				return usage("--context: expected a number of lines 0..1000");
			ctx = (int)v;
		} else if (!strcmp(a, "--folded")) {
			if (++i >= argc)
				return usage("--folded needs an event name");
			folded = argv[i];
		} else if (!strncmp(a, "--folded=", 9)) {
			folded = a + 9;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(NULL);
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
	if (!path)
		path = "perfkit.cache.out";

	struct cgfile *cg;

	if (cgfile_read(path, &cg) < 0) {
		fprintf(stderr, "perfkit annotate: %s\n", pk_errmsg());
		return 1;
	}
	const char *w = pk_warnings_take();

	if (*w)
		fprintf(stderr, "perfkit annotate: warning: %s\n", w);

	int show[CG_MAX_EVENTS], nshow = 0, rc = 0;

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
			if (nshow < CG_MAX_EVENTS)
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
	if (sort_s && (sort_ev = cgfile_event(cg, sort_s)) < 0) {
		fprintf(stderr, "perfkit annotate: --sort: %s has no event '%s'\n", path, sort_s);
		cgfile_free(cg);
		return 2;
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
			printf("%s %llu\n", sb.buf, (unsigned long long)fns.v[i].c[e]);
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
	uint64_t total = cg->totals[sort_ev];
	double cut = (double)total * threshold / 100.0;

	printf("--------------------------------------------------------------------------------\n");
	for (size_t i = 0; i < cg->ndesc; i++)
		printf("%s\n", cg->desc[i]);
	printf("Command:          %s\nData file:        %s\nEvents shown:    ", cg->cmd, path);
	for (int i = 0; i < nshow; i++)
		printf(" %s", cg->ev[show[i]]);
	printf("\nEvent sort order: %s\nThreshold:        %g%%\n", cg->ev[sort_ev], threshold);
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
		if ((double)fns.v[i].c[sort_ev] < cut || !fns.v[i].c[sort_ev])
			break;
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
		if ((double)lines.v[i].c[sort_ev] < cut || !lines.v[i].c[sort_ev])
			break;
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
			annotate_file(file, fl, n, show, nshow, ctx);
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
