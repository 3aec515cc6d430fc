/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit diff — perf diff's table for two perf.data files: per event,
 * rows keyed by shared object and symbol with the baseline's share of the
 * old file's total period ("Baseline") and the change of that share in the
 * new file ("Delta Abs", new % − old %, perf diff's default -c delta-abs).
 *
 * Matching: an event of OLD is compared with the event of the same name in
 * NEW; rows are matched by (DSO base name, kernel/user, symbol name), or by
 * address for unknown symbols.  Self periods only (perf diff does not
 * count children).  A row seen in both files always shows its delta,
 * "+0.00%" (or "-0.00%" when the floating-point difference of equal shares
 * is a hair below zero) included, computed as perf's compute_delta does it.
 *
 * Rows of one side only — a difference from perf diff, which leaves their
 * missing side blank and lists the rows only in OLD last, below every
 * change however small: a symbol only in NEW reads "new" as its baseline
 * and its whole share as its delta; a symbol only in OLD (gone) reads
 * "gone" as its delta and sorts by the share it lost.  Ordering: by
 * |delta| (a gone row's baseline share), then baseline share, then name.
 *
 * perf diff's -c (delta-abs, delta, ratio, wdiff:W1,W2: builtin-diff.c's
 * computations, their columns, formats and order), -p (Base period and
 * Period), -F (Formula), -b (rows of both files only, Baseline as a share
 * of those rows' OLD period), -q (the rows alone, no warnings) and -s
 * (keys dso, sym, comm, pid: perf's columns, "Pid:Command" the thread's
 * last command, ties by the keys in order).  A
 * table per event of OLD's file, sampled or not (perf's: its header alone).
 *
 * Several files per side (OLD1 OLD2 … -- NEW1 NEW2 …, one run each): per
 * symbol, its self period in every file as a percentage of OLD's mean
 * total (--share: of the file's own total), Welch's test across the
 * files of a change larger than --min-effect points (0.5) and Holm's
 * correction over the symbols (stats/compare.h st_compare_sets);
 * significant changes (q < 0.05) are marked '*' (and coloured on a terminal)
 * with the change, its 95 % interval, p and q; gone/new with their share.
 * Why not shares by default: a function that got 2× slower takes share
 * from every other one, which would then all "change".
 */
#include "cmd/cmds.h"

#include "base/error.h"
#include "base/hashmap.h"
#include "base/outfile.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "format/perfscript.h"
#include "session/session.h"
#include "profile/profile.h"
#include "stats/compare.h"

#include <unistd.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct drow {
	const char *dso, *sym;   /* interned in the diff's string table */
	const char *comm;        /* -s comm: the samples' command */
	const char *tcomm;       /* -s pid: the thread's last command (perf's name of it) */
	uint32_t tid;            /* -s pid: perf's pid key, the thread */
	uint64_t period[2];      /* self period in OLD, NEW */
	double *per;             /* self period in each file (several per side) */
	bool seen[2];
	double pct[2], delta;
	bool unk;                /* the DSO's samples without a symbol, one row
				    (perf diff's), shown at the lowest address */
	uint64_t unk_addr;
};

struct devent {
	const char *name;        /* interned, without modifiers (event_get) */
	const char *shown;       /* the name as the first file that has the
				    event names it ("cpu-clock:ppp"), perf
				    diff's header */
	struct hashmap rows;     /* key → row index + 1 */
	struct drow *r;
	size_t nr, alloc;
	uint64_t total[2];
	bool seen[2];
	bool in_old;             /* an event of OLD's file (sampled or not):
				    perf diff's tables are OLD's events */
	double *ftotal;          /* total period of each file */
	struct prof *cur;        /* the file being read: its samples' leaves */
};

/* perf diff's -c: the compared value of a row (builtin-diff.c's
 * compute_delta, compute_ratio, compute_wdiff); delta-abs is perf 6.1's
 * default, delta the same value sorted by sign */
enum compute { C_DELTA_ABS, C_DELTA, C_RATIO, C_WDIFF };

/* perf diff's -s keys (default dso,sym) */
enum dkey { DK_COMM, DK_DSO, DK_SYM, DK_PID };

struct view {
	enum compute compute;
	int64_t w1, w2;          /* wdiff:W1,W2 */
	bool period;             /* -p: Base period and Period columns */
	bool formula;            /* -F: the Formula column */
	bool baseline_only;      /* -b: rows of both files only */
	const enum dkey *keys;   /* -s: the key columns, in order */
	int nr_keys;
};

struct diff {
	struct hashmap strings;
	enum dkey keys[4];
	int nr_keys;
	struct devent *ev;
	size_t nr_ev;
	int side;                /* 0: OLD, 1: NEW while reading */
	size_t file, nfiles;     /* the file being read, of nfiles */
};

static const char *dso_short(const char *dso)
{
	const char *slash = dso[0] == '/' ? strrchr(dso, '/') : NULL;

	return slash ? slash + 1 : dso;
}

/* Events are matched by perf's name without its modifiers, so a file
 * from `perf record` ("cpu-clock:ppp") compares with one from perfkit
 * ("cpu-clock"); tracepoints stay apart. */
static struct devent *event_get(struct diff *d, const char *name)
{
	struct strbuf esc = STRBUF_INIT;

	sb_add_term(&esc, name, psc_event_base_len(name, strlen(name)));   /* the file's text: printed escaped everywhere */
	const char *n = hm_intern(&d->strings, esc.buf, esc.len);

	for (size_t i = 0; i < d->nr_ev; i++)
		if (d->ev[i].name == n) {
			sb_release(&esc);
			return &d->ev[i];
		}
	d->ev = xrealloc(d->ev, (d->nr_ev + 1) * sizeof(*d->ev));
	memset(&d->ev[d->nr_ev], 0, sizeof(*d->ev));
	d->ev[d->nr_ev].name = n;
	sb_reset(&esc);
	sb_add_term(&esc, name, strlen(name));
	d->ev[d->nr_ev].shown = hm_intern(&d->strings, esc.buf, esc.len);
	sb_release(&esc);
	hm_init(&d->ev[d->nr_ev].rows);
	return &d->ev[d->nr_ev++];
}

static int on_sample(const struct pk_sample *s, void *arg)
{
	struct diff *d = arg;
	struct devent *ev = event_get(d, s->event);

	ev->seen[d->side] = true;
	ev->total[d->side] += s->period;
	if (!ev->ftotal)
		ev->ftotal = xcalloc(d->nfiles, sizeof(double));
	ev->ftotal[d->file] += (double)s->period;
	if (!s->nr_frames)
		return 0;
	if (!ev->cur)
		ev->cur = prof_new(0);
	prof_add(ev->cur, s->comm, s->pid, s->tid, s->frames, 1, s->period);
	return 0;
}

/* The file just read: each event's model's rows by (DSO, symbol), Self,
 * into the diff's rows, matched by (DSO base name, kernel/user, symbol
 * name or address); before the session (which holds the names) closes. */
static bool has_key(const struct diff *d, enum dkey k)
{
	for (int i = 0; i < d->nr_keys; i++)
		if (d->keys[i] == k)
			return true;
	return false;
}

static void fold_file(struct diff *d, struct session *s)
{
	static const enum prof_key pkey[] = { [DK_COMM] = PROF_COMM, [DK_DSO] = PROF_DSO, [DK_SYM] = PROF_SYM,
					      [DK_PID] = PROF_PID };
	enum prof_key keys[4];
	bool by_comm = has_key(d, DK_COMM), by_tid = has_key(d, DK_PID);
	bool by_dso = has_key(d, DK_DSO), by_sym = has_key(d, DK_SYM);

	for (int i = 0; i < d->nr_keys; i++)
		keys[i] = pkey[d->keys[i]];
	for (size_t i = 0; i < d->nr_ev; i++) {
		struct devent *ev = &d->ev[i];
		struct prof_rows pr;

		if (!ev->cur)
			continue;
		prof_rows_make(ev->cur, keys, d->nr_keys, false, NULL, NULL, &pr);
		for (size_t k = 0; k < pr.nr; k++) {
			const struct pk_frame *fr = prof_frame(ev->cur, pr.v[k].frame);
			const struct prof_thread *th = prof_thread(ev->cur, pr.v[k].thread);
			struct strbuf key = STRBUF_INIT;
			char sym[64];
			const char *symname;
			struct hm_entry *e;
			int created;
			struct drow *r;

			/* a DSO's addresses without a symbol are one row, as perf
			 * diff collapses them (its sym key compares names) */
			snprintf(sym, sizeof(sym), "%#.16" PRIx64, fr->sym_off);
			symname = fr->sym ? fr->sym : "\001";
			sb_init(&key, 128);
			/* the key: the parts -s names, the others empty (comm
			 * and tid in front, "DSO\0[k.]SYMBOL" last, as rows read
			 * them); pid shown with the thread's last command, as
			 * perf names a thread (its first sample's may be perf-exec's) */
			const char *tcomm = by_tid ? session_thread_comm(s, th->tid) : NULL;

			sb_addf(&key, "%s%c%u%c", by_comm ? th->comm : "", 0, by_tid ? th->tid : 0u, 0);
			size_t dso_at = key.len;

			sb_addstr(&key, by_dso ? dso_short(fr->dso) : "");
			sb_addch(&key, '\0');
			sb_addch(&key, by_sym && fr->kernel ? 'k' : '.');
			sb_addstr(&key, by_sym ? symname : "");
			e = hm_upsert(&ev->rows, key.buf, key.len, &created);
			if (created) {
				if (ev->nr == ev->alloc) {
					ev->alloc = ev->alloc ? ev->alloc * 2 : 256;
					ev->r = xrealloc(ev->r, ev->alloc * sizeof(*ev->r));
				}
				r = &ev->r[ev->nr];
				memset(r, 0, sizeof(*r));
				r->per = xcalloc(d->nfiles, sizeof(double));
				r->comm = hm_intern(&d->strings, key.buf, strlen(key.buf));
				r->tcomm = hm_intern(&d->strings, tcomm ? tcomm : th->comm, strlen(tcomm ? tcomm : th->comm));
				r->tid = th->tid;
				r->dso = hm_intern(&d->strings, key.buf + dso_at, strlen(key.buf + dso_at));
				size_t sym_at = dso_at + strlen(key.buf + dso_at) + 1;

				r->sym = hm_intern(&d->strings, key.buf + sym_at, key.len - sym_at);
				r->unk = by_sym && !fr->sym;
				r->unk_addr = UINT64_MAX;
				e->val.u = ++ev->nr;
			}
			r = &ev->r[e->val.u - 1];
			/* shown at its lowest address in OLD (perf's entry is
			 * OLD's), in NEW for a row of NEW only; OLD is read first */
			if (r->unk && fr->sym_off < r->unk_addr && (d->side == 0 || !r->seen[0])) {
				sb_reset(&key);
				sb_addch(&key, fr->kernel ? 'k' : '.');
				sb_addstr(&key, sym);
				r->sym = hm_intern(&d->strings, key.buf, key.len);
				r->unk_addr = fr->sym_off;
			}
			sb_release(&key);
			r->period[d->side] += pr.v[k].self;
			r->per[d->file] += (double)pr.v[k].self;
			r->seen[d->side] = true;
		}
		prof_rows_free(&pr);
		prof_free(ev->cur);
		ev->cur = NULL;
	}
}

/* -c wdiff's value: NEW's period times W2 less OLD's times W1, in perf's
 * s64, wrapping as it does */
static int64_t wdiff_of(const struct drow *r, const struct view *v)
{
	return (int64_t)(r->period[1] * (uint64_t)v->w2 - r->period[0] * (uint64_t)v->w1);
}

/* Is r shown: with -b, a row of both files only. */
static bool row_shown(const struct drow *r, const struct view *v)
{
	return !v->baseline_only || (r->seen[0] && r->seen[1]);
}

/* The row's compared value (-c), perf's: NEW's period against OLD's (a
 * row of one file: the other's period 0, so a gone row's delta is minus
 * its share and sorts by the share it lost).  false where there is none:
 * ratio and wdiff of a row of NEW only ("N/A") */
static bool row_value(const struct drow *r, const struct view *v, double *val)
{
	switch (v->compute) {
	case C_DELTA:
	case C_DELTA_ABS:
		*val = r->delta;
		return true;
	case C_RATIO:
		*val = (double)r->period[1] / (double)(r->period[0] ? r->period[0] : 1);
		return r->seen[0];
	case C_WDIFF:
		*val = (double)wdiff_of(r, v);
		return r->seen[0];
	}
	return false;
}

static const struct view *sort_view;   /* cmp_rows' (qsort has no context) */

/* The order: the rows with a value by it (delta-abs: by its size; delta,
 * ratio, wdiff: largest first; with delta and delta-abs a gone row's is
 * minus the share it lost), then NEW's rows without one (ratio, wdiff:
 * perf's N/A), then, with ratio and wdiff, OLD's own rows, the biggest
 * loss first (perf lists them last) */
static int row_group(const struct drow *r, const struct view *v)
{
	double x;

	if ((v->compute == C_RATIO || v->compute == C_WDIFF) && !r->seen[1])
		return 2;
	return row_value(r, v, &x) ? 0 : 1;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct drow *x = a, *y = b;
	const struct view *v = sort_view;
	int gx = row_group(x, v), gy = row_group(y, v);
	double kx = 0, ky = 0;

	if (gx != gy)
		return gx < gy ? -1 : 1;
	if (!gx) {
		row_value(x, v, &kx);
		row_value(y, v, &ky);
		if (v->compute == C_DELTA_ABS) {
			kx = fabs(kx);
			ky = fabs(ky);
		}
	} else if (gx == 1) {   /* NEW's own: by their share there */
		kx = x->pct[1];
		ky = y->pct[1];
	} else {   /* OLD's own: by the share lost */
		kx = x->pct[0];
		ky = y->pct[0];
	}
	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (x->pct[0] != y->pct[0])
		return x->pct[0] > y->pct[0] ? -1 : 1;
	/* equal changes and baselines: by the keys in order, as perf diff's
	 * (DSO names: [kernel.kallsyms] before calltree before libc.so.6); a
	 * DSO's row without a symbol after its named ones (sort__sym_sort's
	 * cmp_null: a NULL symbol last) */
	for (int k = 0; k < v->nr_keys; k++) {
		int c = 0;

		switch (v->keys[k]) {
		case DK_COMM: c = strcmp(x->comm, y->comm); break;
		case DK_PID: c = x->tid < y->tid ? -1 : x->tid > y->tid; break;
		case DK_DSO: c = strcmp(x->dso, y->dso); break;
		case DK_SYM:
			c = x->unk != y->unk ? (x->unk ? 1 : -1) : strcmp(x->sym + 1, y->sym + 1);
			break;
		}
		if (c)
			return c;
	}
	return 0;
}

/* A key column's width: its header's, or its longest value's (a symbol
 * "[.] NAME"; pid "%7d:COMM", its command at least 7 wide) */
static int key_width(const struct devent *ev, const struct view *v, enum dkey key)
{
	static const int head[] = { [DK_COMM] = 7, [DK_DSO] = 13, [DK_SYM] = 6, [DK_PID] = 15 };
	int w = head[key];

	for (size_t i = 0; i < ev->nr; i++) {
		const struct drow *r = &ev->r[i];
		int l = 0;

		if (!row_shown(r, v))
			continue;   /* -b: as wide as the rows shown */
		switch (key) {
		case DK_COMM: l = (int)strlen(r->comm); break;
		case DK_DSO: l = (int)strlen(r->dso); break;
		case DK_SYM: l = (int)strlen(r->sym + 1) + 4; break;
		case DK_PID: l = 8 + (int)strlen(r->tcomm); break;
		}
		if (l > w)
			w = l;
	}
	return w;
}

/* perf diff's columns between Baseline and the keys: what, name, width */
struct dcol {
	enum { COL_BASE_PERIOD, COL_VALUE, COL_FORMULA, COL_PERIOD } kind;
	const char *name;
	int width;
	char text[160];
};

static void dots(int n)
{
	for (int i = 0; i < n; i++)
		putchar('.');
}

static void print_event(struct devent *ev, bool first, const struct view *v, bool quiet)
{
	static const char *const cname[] = { "Delta Abs", "Delta", "Ratio", "Weighted diff" };
	static const int cwidth[] = { 9, 7, 14, 14 };
	static const char *const kname[] = { [DK_COMM] = "Command", [DK_DSO] = "Shared Object", [DK_SYM] = "Symbol",
					     [DK_PID] = "Pid:Command" };
	uint64_t shown_old = 0;
	int kw[4];

	for (size_t i = 0; i < ev->nr; i++) {
		struct drow *r = &ev->r[i];

		for (int k = 0; k < 2; k++)
			r->pct[k] = ev->total[k] ? ((double)r->period[k] * 100.0) / (double)ev->total[k] : 0;
		r->delta = r->pct[1] - r->pct[0];
		if (r->seen[0] && r->seen[1])
			shown_old += r->period[0];
	}
	/* each key column as wide as its header or longest value, as perf's
	 * header and dotted line */
	for (int k = 0; k < v->nr_keys; k++)
		kw[k] = key_width(ev, v, v->keys[k]);
	sort_view = v;
	if (ev->nr)   /* qsort(NULL, 0) is undefined (UBSan) */
		qsort(ev->r, ev->nr, sizeof(*ev->r), cmp_rows);
	/* Baseline [Base period] VALUE [Period] [Formula] */
	struct dcol col[4];
	int nc = 0;

	if (v->period)
		col[nc++] = (struct dcol){ COL_BASE_PERIOD, "Base period", 14, "" };
	col[nc++] = (struct dcol){ COL_VALUE, cname[v->compute], cwidth[v->compute], "" };
	if (v->formula)
		col[nc++] = (struct dcol){ COL_FORMULA, "Formula", 70, "" };
	if (v->period)
		col[nc++] = (struct dcol){ COL_PERIOD, "Period", 14, "" };
	if (quiet)   /* perf diff -q: the rows alone */
		goto rows;
	if (!first)   /* a blank line between events, none after the last */
		putchar('\n');
	fputs("# Event '", stdout);
	fputs_term(ev->shown, stdout);
	fputs("'\n#\n", stdout);
	printf("# Baseline");
	for (int k = 0; k < nc; k++)
		printf("  %*s", col[k].width, col[k].name);
	for (int k = 0; k < v->nr_keys; k++) {   /* perf's: Pid:Command to the right, a blank after it */
		if (v->keys[k] == DK_PID)   /* "%7s:%-*s", as its rows */
			printf("  %7s:%-*s", "Pid", kw[k] - 8, "Command");
		else
			printf("  %-*s", kw[k], kname[v->keys[k]]);
	}
	printf("\n# ........");
	for (int k = 0; k < nc; k++) {
		printf("  ");
		dots(col[k].width);
	}
	for (int k = 0; k < v->nr_keys; k++) {
		printf("  ");
		dots(kw[k]);
	}
	printf("\n#\n");
rows:
	for (size_t i = 0; i < ev->nr; i++) {
		const struct drow *r = &ev->r[i];
		char base[32] = "";
		double val;
		bool has = row_value(r, v, &val);
		unsigned long long p0 = r->period[0], p1 = r->period[1];

		if (!row_shown(r, v))
			continue;
		snprintf(base, sizeof(base), "new");
		if (r->seen[0])   /* -b: the share of the rows shown, as perf's */
			snprintf(base, sizeof(base), "%.2f%%",
				 v->baseline_only ? (shown_old ? (double)p0 * 100.0 / (double)shown_old : 0) : r->pct[0]);
		for (int k = 0; k < nc; k++) {
			char *t = col[k].text;
			size_t n = sizeof(col[k].text);

			t[0] = 0;
			if (col[k].kind == COL_BASE_PERIOD) {
				snprintf(t, n, "%llu", p0);
			} else if (col[k].kind == COL_PERIOD) {
				if (r->seen[1])   /* perf's: blank for OLD's own rows */
					snprintf(t, n, "%llu", p1);
			} else if (col[k].kind == COL_FORMULA) {
				if (!r->seen[1])
					continue;
				if (v->compute == C_RATIO)
					snprintf(t, n, "%llu / %llu", p1, p0);
				else if (v->compute == C_WDIFF)
					snprintf(t, n, "(%llu * %lld) - (%llu * %lld)", p1, (long long)v->w2, p0,
						 (long long)v->w1);
				else
					/* -b: OLD's total that of the rows shown, as perf's */
					snprintf(t, n, "(%llu * 100 / %llu) - (%llu * 100 / %llu)", p1,
						 (unsigned long long)ev->total[1], p0,
						 (unsigned long long)(v->baseline_only ? shown_old : ev->total[0]));
			} else if (!r->seen[1]) {   /* perf leaves it blank */
				snprintf(t, n, "gone");
			} else if (has) {
				if (v->compute == C_RATIO)
					snprintf(t, n, "%.6f", val);
				else if (v->compute == C_WDIFF)   /* in integers, not val's double */
					snprintf(t, n, "%lld", (long long)wdiff_of(r, v));
				else
					snprintf(t, n, "%+.2f%%", val);
			} else {
				snprintf(t, n, "N/A");
			}
		}
		printf("%10s", base);
		for (int k = 0; k < nc; k++)
			printf("  %*s", col[k].width, col[k].text);
		for (int k = 0; k < v->nr_keys; k++) {
			struct strbuf t = STRBUF_INIT;   /* escaped: one row, one line */
			bool last = k == v->nr_keys - 1;

			switch (v->keys[k]) {
			case DK_COMM: sb_add_term(&t, r->comm, strlen(r->comm)); break;
			case DK_DSO: sb_add_term(&t, r->dso, strlen(r->dso)); break;
			case DK_PID:
				sb_addf(&t, "%7u:", r->tid);
				sb_add_term(&t, r->tcomm, strlen(r->tcomm));
				while (t.len < (size_t)kw[k])
					sb_addch(&t, ' ');
				break;
			case DK_SYM:
				sb_addf(&t, "[%c] ", r->sym[0]);
				sb_add_term(&t, r->sym + 1, strlen(r->sym + 1));
				break;
			}
			/* every column padded to its width but a last Symbol */
			if (last && v->keys[k] == DK_SYM)
				printf("  %s", t.buf);
			else
				printf("  %-*s", kw[k], t.buf);
			sb_release(&t);
		}
		putchar('\n');
	}
}

struct mrow {
	const struct drow *r;
	struct st_set_row x;
};

static int cmp_mrows(const void *a, const void *b)
{
	const struct mrow *x = a, *y = b;

	if (x->x.significant != y->x.significant)
		return x->x.significant ? -1 : 1;
	if (fabs(x->x.diff) != fabs(y->x.diff))
		return fabs(x->x.diff) > fabs(y->x.diff) ? -1 : 1;
	return strcmp(x->r->sym + 1, y->r->sym + 1);
}

/* Several files per side: the noise-aware table. */
static void json_d(struct strbuf *sb, double v, bool valid)
{
	if (valid && isfinite(v))
		sb_addf(sb, "%.10g", v);
	else
		sb_addstr(sb, "null");
}

/* One event's rows as a JSON object, appended to js. */
static void json_event(struct strbuf *js, const struct devent *ev, const struct mrow *m, size_t na,
		       size_t nb, bool share, double min_effect)
{
	sb_addstr(js, js->buf[js->len - 1] != '[' ? ",\n {\"event\": \"" : "\n {\"event\": \"");
	sb_add_json(js, ev->name, strlen(ev->name));
	sb_addf(js, "\", \"files_old\": %zu, \"files_new\": %zu, \"values\": \"%s\", \"test\": \"welch\", "
		"\"null\": \"|change| <= min_effect\", \"correction\": \"holm\", \"alpha\": 0.05, \"min_effect\": %g, \"rows\": [",
		na, nb, share ? "share_percent" : "percent_of_old_mean_total", min_effect);
	for (size_t i = 0; i < ev->nr; i++) {
		const struct st_set_row *q = &m[i].x;

		sb_addstr(js, i ? ",\n  {\"dso\": \"" : "\n  {\"dso\": \"");
		sb_add_json(js, m[i].r->dso, strlen(m[i].r->dso));
		sb_addstr(js, "\", \"symbol\": \"");
		sb_add_json(js, m[i].r->sym + 1, strlen(m[i].r->sym + 1));
		sb_addf(js, "\", \"kernel\": %s, \"before\": ", m[i].r->sym[0] == 'k' ? "true" : "false");
		json_d(js, q->mean_a, true);
		sb_addstr(js, ", \"after\": ");
		json_d(js, q->mean_b, true);
		sb_addstr(js, ", \"change\": ");
		json_d(js, q->diff, true);
		sb_addstr(js, ", \"change_ci95\": [");
		json_d(js, q->diff_lo, true);
		sb_addstr(js, ", ");
		json_d(js, q->diff_hi, true);
		sb_addstr(js, "], \"p\": ");
		json_d(js, q->p, q->tested);
		sb_addstr(js, ", \"q\": ");
		json_d(js, q->q, q->tested);
		sb_addf(js, ", \"significant\": %s, \"kind\": \"%s\"}", q->significant ? "true" : "false",
			q->kind == ST_SET_NEW ? "new" : q->kind == ST_SET_GONE ? "gone" : "both");
	}
	sb_addstr(js, ev->nr ? "\n ]}" : "]}");
}

static void print_event_multi(struct devent *ev, size_t na, size_t nb, bool share, double min_effect,
			      struct strbuf *js)
{
	size_t w = na + nb, nsig = 0;
	double mean_old = 0;
	double *v = xcalloc(ev->nr * w + 1, sizeof(double));
	struct st_set_row *x = xcalloc(ev->nr + 1, sizeof(*x));
	struct mrow *m = xcalloc(ev->nr + 1, sizeof(*m));
	bool color = isatty(1);
	int dw = (int)strlen("Shared Object");

	for (size_t j = 0; j < na; j++)
		mean_old += ev->ftotal[j] / (double)na;
	for (size_t i = 0; i < ev->nr; i++) {
		for (size_t j = 0; j < w; j++) {
			double base = share ? ev->ftotal[j] : mean_old;
			v[i * w + j] = base > 0 ? ev->r[i].per[j] * 100.0 / base : 0;
		}
		if ((int)strlen(ev->r[i].dso) > dw)
			dw = (int)strlen(ev->r[i].dso);
	}
	st_compare_sets(v, ev->nr, na, nb, 0.05, min_effect, x);
	for (size_t i = 0; i < ev->nr; i++) {
		m[i].r = &ev->r[i];
		m[i].x = x[i];
		nsig += x[i].significant;
	}
	qsort(m, ev->nr, sizeof(*m), cmp_mrows);
	if (js)
		json_event(js, ev, m, na, nb, share, min_effect);
	fputs("# Event '", stdout);
	fputs_term(ev->name, stdout);
	fputs("'\n#\n", stdout);
	printf("# %zu OLD files, %zu NEW files; self period as %% of %s\n", na, nb,
	       share ? "each file's own total (shares)" : "OLD's mean total");
	if (na >= 2 && nb >= 2)
		printf("# Welch's t-test per symbol over the files: did it change by more than %g points\n"
		       "# (the smallest change that counts)?  Holm's correction over the symbols, 5 %%\n"
		       "# family-wise: %zu significant (*); p and the interval are each symbol's own,\n"
		       "# q is p after Holm's correction (a * needs q < 0.05)\n", min_effect, nsig);
	else
		printf("# one file on a side: no test, no change is called significant\n");
	printf("#\n#   %8s %8s  %-28s %8s %8s  %-*s  Symbol\n", "Before", "After", "Change [95 % CI]", "p", "q",
	       dw, "Shared Object");
	for (size_t i = 0; i < ev->nr; i++) {
		const struct st_set_row *q = &m[i].x;
		const struct drow *r = m[i].r;
		char before[32], after[32], change[64], p[16], qq[16];

		snprintf(before, sizeof(before), "%.2f", q->mean_a);
		snprintf(after, sizeof(after), "%.2f", q->mean_b);
		if (q->kind == ST_SET_NEW)
			snprintf(before, sizeof(before), "new");
		if (q->kind == ST_SET_GONE)
			snprintf(after, sizeof(after), "gone");
		if (q->tested && q->diff_hi > q->diff_lo)
			snprintf(change, sizeof(change), "%+.2f [%+.2f, %+.2f]", q->diff, q->diff_lo, q->diff_hi);
		else
			snprintf(change, sizeof(change), "%+.2f", q->diff);
		snprintf(p, sizeof(p), q->tested ? "%.2g" : "-", q->p);
		snprintf(qq, sizeof(qq), q->tested ? "%.2g" : "-", q->q);
		struct strbuf edso = STRBUF_INIT;
		sb_add_term(&edso, r->dso, strlen(r->dso));
		if (color && q->significant)
			fputs(q->diff > 0 ? "\033[31m" : "\033[32m", stdout);
		printf("%c   %8s %8s  %-28s %8s %8s  %-*s  [%c] ", q->significant ? '*' : ' ', before, after,
		       change, p, qq, dw, edso.buf, r->sym[0]);
		sb_release(&edso);
		fputs_term(r->sym + 1, stdout);
		if (color && q->significant)
			fputs("\033[m", stdout);
		putchar('\n');
	}
	printf("\n");
	free(v);
	free(x);
	free(m);
}

static void print_warnings(void)
{
	pk_warnings_print(stderr, "perfkit diff");
}

/* -s KEYS (perf diff's --sort): a comma-separated list of dso, sym (or
 * symbol), comm and pid, each once; 0 or -1 */
static int parse_keys(const char *arg, struct diff *d)
{
	char *dup = xstrdup(arg), *save = NULL;
	int n = 0, err = 0;

	for (char *t = strtok_r(dup, ",", &save); t && !err; t = strtok_r(NULL, ",", &save)) {
		enum dkey k;

		if (!strcmp(t, "dso"))
			k = DK_DSO;
		else if (!strcmp(t, "sym") || !strcmp(t, "symbol"))
			k = DK_SYM;
		else if (!strcmp(t, "comm"))
			k = DK_COMM;
		else if (!strcmp(t, "pid"))
			k = DK_PID;
		else {
			err = -1;
			break;
		}
		for (int i = 0; i < n; i++)
			err |= d->keys[i] == k ? -1 : 0;
		if (n == 4)
			err = -1;
		if (!err)
			d->keys[n++] = k;
	}
	free(dup);
	if (!n)
		err = -1;
	d->nr_keys = n;
	return err;
}

/* -c delta|delta-abs|ratio|wdiff:W1,W2 (perf diff's --compute); 0 or -1
 * with the line said */
static int parse_compute(const char *arg, struct view *v)
{
	static const char *const names[] = { "delta-abs", "delta", "ratio", "wdiff" };
	const char *colon = strchr(arg, ':');
	size_t len = colon ? (size_t)(colon - arg) : strlen(arg);

	for (int i = 0; i < 4; i++) {
		if (strlen(names[i]) != len || strncmp(arg, names[i], len))
			continue;
		v->compute = (enum compute)i;
		if (i != C_WDIFF) {
			if (colon) {
				fprintf(stderr, "perfkit diff: -c %s takes no options ('%s')\n", names[i], colon + 1);
				return -1;
			}
			return 0;
		}
		char *end;
		long long w1 = colon ? strtoll(colon + 1, &end, 10) : 0, w2 = 0;

		if (colon && end != colon + 1 && *end == ',') {
			const char *b = end + 1;

			w2 = strtoll(b, &end, 10);
			if (end == b || *end)
				w2 = 0;
		}
		if (!w1 || !w2) {
			fprintf(stderr, "perfkit diff: -c '%s': expected wdiff:W1,W2 (two non-zero integer weights)\n", arg);
			return -1;
		}
		v->w1 = w1;
		v->w2 = w2;
		return 0;
	}
	fprintf(stderr, "perfkit diff: -c '%s': not a computation (delta, delta-abs, ratio, wdiff:W1,W2)\n", arg);
	return -1;
}

static void usage(FILE *fp)
{
	fprintf(fp, "usage: perfkit diff [-c delta-abs|delta|ratio|wdiff:W1,W2] [-p] [-F] [-b] [-q] [-s KEYS] [[OLD.data] NEW.data]\n"
		    "       perfkit diff [--share] [--min-effect PTS] [--json FILE] OLD1 OLD2 … -- NEW1 NEW2 …\n"
		    "  Compare two perf.data files by shared object and symbol, like perf diff:\n"
		    "  Baseline = the symbol's share of OLD's samples, Delta Abs = NEW %% - OLD %%.\n"
		    "  Defaults: perf.data.old and perf.data; one file: perf.data.old against it.\n"
		    "  Several files per side (one run each): which symbols changed beyond the\n"
		    "  run-to-run noise — Welch's t-test per symbol across the files of a change\n"
		    "  larger than --min-effect points (0.5), Holm's correction over the symbols (at\n"
		    "  most 5 %% chance that any unchanged symbol is marked); values are the self\n"
		    "  period as %% of OLD's mean total (--share: of each file's own total).\n"
		    "  perf diff's options (two files):\n"
		    "  -c, --compute M   delta-abs (default), delta, ratio or wdiff:W1,W2\n"
		    "  -p, --period      the Base period and Period columns\n"
		    "  -F, --formula     the Formula column (how each value is computed)\n"
		    "  -b, --baseline-only  rows of both files only\n"
		    "  -q, --quiet       the rows alone: no headers, no warnings\n"
		    "  -s, --sort KEYS   the rows' keys: dso, sym, comm, pid (default dso,sym)\n");
}

int cmd_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "stdio", no_argument, NULL, 'S' },
		{ "share", no_argument, NULL, 'H' },
		{ "min-effect", required_argument, NULL, 'e' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "compute", required_argument, NULL, 'c' },
		{ "period", no_argument, NULL, 'p' },
		{ "formula", no_argument, NULL, 'F' },
		{ "baseline-only", no_argument, NULL, 'b' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "sort", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	struct view view = { .compute = C_DELTA_ABS };
	bool quiet = false, sorted = false;
	const char *files[2] = { "perf.data.old", "perf.data" };
	struct diff d = { 0 };
	int c, ret = 0;
	bool share = false, multi = false;
	const char *json = NULL;
	struct strbuf js = STRBUF_INIT;
	double min_effect = 0.5;
	const char **fv = files;
	size_t na = 1;

	/* OLD… -- NEW…: the first "--" parts the sides; options may come
	 * anywhere on either side (GNU style), each side read on its own */
	int full_argc = argc, nold_end = 0, new_start = argc;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			multi = true;
			argc = i;
			break;
		}
	for (int side = 0; side < (multi ? 2 : 1); side++) {
		int sargc = side ? full_argc - argc : argc;
		char **sargv = side ? argv + argc : argv;
		optind = 0;    /* glibc: start afresh on this argument vector */
		while ((c = getopt_long(sargc, sargv, "hc:pFbqs:", opts, NULL)) != -1) {
			switch (c) {
			case 'S': break;
			case 'c':
				if (parse_compute(optarg, &view))
					return 2;
				break;
			case 'p': view.period = true; break;
			case 'F': view.formula = true; break;
			case 'b': view.baseline_only = true; break;
			case 'q': quiet = true; break;
			case 's':
			case 'k':
				if (parse_keys(optarg, &d)) {
					fprintf(stderr, "perfkit diff: -s '%s': expected sort keys among dso, sym, comm, pid\n", optarg);
					return 2;
				}
				sorted = true;
				break;
			case 'H': share = true; break;
			case 'j': json = optarg; break;
			case 'e':
				if (pk_parse_double("--min-effect", optarg, 0, HUGE_VAL, &min_effect)) {
					fprintf(stderr, "perfkit diff: %s\n", pk_errmsg());
					return 2;
				}
				break;
			case 'h': usage(stdout); return 0;
			default: usage(stderr); return 2;
			}
		}
		/* getopt moved this side's files, in order, to its end */
		if (side)
			new_start = argc + optind;
		else
			nold_end = optind;
	}
	optind = nold_end;
	if (multi && (view.compute != C_DELTA_ABS || view.period || view.formula || view.baseline_only || sorted)) {
		fprintf(stderr, "perfkit diff: -c, -p, -F, -b and -s are perf diff's, for two files (OLD NEW), not OLD… -- NEW…\n");
		return 2;
	}
	if (!sorted) {   /* perf diff's default: dso,sym */
		d.keys[0] = DK_DSO;
		d.keys[1] = DK_SYM;
		d.nr_keys = 2;
	}
	view.keys = d.keys;
	view.nr_keys = d.nr_keys;
	if (multi) {
		fv = xcalloc((size_t)full_argc, sizeof(*fv));
		d.nfiles = 0;
		for (int i = optind; i < argc; i++)
			fv[d.nfiles++] = argv[i];
		na = d.nfiles;
		for (int i = new_start; i < full_argc; i++)
			fv[d.nfiles++] = argv[i];
		if (!na || d.nfiles == na) {
			fprintf(stderr, "perfkit diff: expected OLD files before '--' and NEW ones after it\n");
			usage(stderr);
			free(fv);
			return 2;
		}
		goto read;
	}
	if (json) {
		fprintf(stderr, "perfkit diff: --json needs several files per side: OLD1 … -- NEW1 …\n");
		return 2;
	}
	d.nfiles = 2;
	if (argc - optind > 2) {
		fprintf(stderr, "perfkit diff: unexpected argument '%s'\n", argv[optind + 2]);
		usage(stderr);
		return 2;
	}
	if (argc - optind == 1)   /* perf diff FILE: perf.data.old against FILE */
		files[1] = argv[optind];
	else if (argc - optind == 2) {
		files[0] = argv[optind];
		files[1] = argv[optind + 1];
	}
read:
	/* every input there before any is read: a missing one is the one
	 * line said, not after the warnings of the files before it */
	for (size_t i = 0; i < d.nfiles; i++)
		if (access(fv[i], R_OK)) {
			fprintf(stderr, "perfkit diff: %s: cannot open: %s\n", fv[i], strerror(errno));
			ret = 1;
			goto out;
		}
	if (json)
		sb_addstr(&js, "{\"events\": [");
	hm_init(&d.strings);
	for (d.file = 0; d.file < d.nfiles; d.file++) {
		struct session *s;
		int err;

		d.side = d.file < na ? 0 : 1;
		pk_error_clear();
		/* each symbol's Self only: the samples' ips, no chain (no
		 * unwinding, and no warning about chains it never reads) */
		struct session_opts so = { .no_callchain = true };

		err = session_open(&s, fv[d.file], &so);
		if (!err) {
			const struct pd_file *pf = session_file(s);

			/* the events in the file's order (perf diff's), not in
			 * their first samples' */
			for (size_t i = 0; i < pf->nr_evsels; i++)
				event_get(&d, pf->evsels[i].name)->in_old |= d.side == 0;
			err = session_process(s, on_sample, &d);
			fold_file(&d, s);
			session_close(s);
		}
		if (quiet)
			(void)pk_warnings_take();
		else
			print_warnings();
		if (err < 0) {
			fprintf(stderr, "perfkit diff: %s\n", pk_errmsg());
			ret = 1;
			goto out;
		}
	}
	for (size_t i = 0; i < d.nr_ev && multi; i++) {
		/* an event only one side recorded is no comparison: every
		 * symbol would read "new" or "gone" */
		if (!d.ev[i].seen[0] && !d.ev[i].seen[1])
			continue;
		if (d.ev[i].seen[0] && d.ev[i].seen[1])
			print_event_multi(&d.ev[i], na, d.nfiles - na, share, min_effect, json ? &js : NULL);
		else
			fprintf(stderr, "perfkit diff: warning: event '%s' has no samples in the %s files\n",
				d.ev[i].name, d.ev[i].seen[0] ? "NEW" : "OLD");
	}
	bool first = true;

	for (size_t i = 0; i < d.nr_ev && !multi; i++) {
		if (d.ev[i].in_old) {   /* each of OLD's events, sampled or not, as perf's */
			print_event(&d.ev[i], first, &view, quiet);
			first = false;
		} else if (d.ev[i].seen[1] && !quiet) {
			fprintf(stderr, "perfkit diff: warning: event '%s' has no samples in '%s', only in '%s'\n",
				d.ev[i].name, files[0], files[1]);
		}
	}
	size_t sampled = 0;

	for (size_t i = 0; i < d.nr_ev; i++)
		sampled += d.ev[i].seen[0] || d.ev[i].seen[1];
	if (!sampled && multi)
		fprintf(stderr, "perfkit diff: warning: none of the files has samples\n");
	else if (!sampled && !quiet && !strcmp(files[0], files[1]))
		fprintf(stderr, "perfkit diff: warning: '%s' has no samples\n", files[0]);
	else if (!sampled && !quiet)
		fprintf(stderr, "perfkit diff: warning: neither '%s' nor '%s' has samples\n", files[0], files[1]);
	if (json) {
		struct outfile of;
		int err;

		/* {"events": [ … ]} written whole or not at all */
		sb_addstr(&js, "]}\n");
		if ((err = of_open(&of, json)) == 0) {
			if (fwrite(js.buf, 1, js.len, of.f) != js.len) {
				of_abort(&of);
				err = pk_error(EIO, "cannot write '%s'", json);
			} else {
				err = of_commit(&of);
			}
		}
		if (err) {
			fprintf(stderr, "perfkit diff: %s\n", pk_errmsg());
			ret = 1;
		}
	}
out:
	for (size_t i = 0; i < d.nr_ev; i++) {
		hm_release(&d.ev[i].rows);
		for (size_t k = 0; k < d.ev[i].nr; k++)
			free(d.ev[i].r[k].per);
		free(d.ev[i].r);
		free(d.ev[i].ftotal);
	}
	sb_release(&js);
	if (fv != files)
		free(fv);
	free(d.ev);
	hm_release(&d.strings);
	return ret;
}
