/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fdiff.h — a differential profile from several folded profiles per side,
 * with the run-to-run noise accounted for: which functions changed.
 *
 * Input: folded profiles ("frame;frame;…;leaf COUNT" lines, flame.h's
 * rules; lines that are not are skipped and counted), each added to side 0
 * (OLD, before) or side 1 (NEW, after).  One profile is one run.
 *
 * Per function name, in each profile: its inclusive cost (the counts of the
 * stacks it appears in, once per stack however often it recurs) and its self
 * cost (the stacks it is the leaf of).  Values compared (fdiff_opts.share):
 *   - default: the cost as a percentage of OLD's mean total — a function
 *     that did not change keeps its value when another one slows down (a
 *     per-profile share would fall for every other function: a 2× slower
 *     function takes share from all the rest);
 *   - share: the cost as a percentage of its own profile's total.
 * Then stats/compare.h's st_compare_sets on the inclusive values: per
 * function, Welch's test across the profiles of a change larger than
 * min_effect (percentage points), Holm's correction over the functions,
 * significant when q < alpha (at most alpha the chance that any function
 * that changed by min_effect or less is marked).  One profile per side gives no test: nothing is
 * significant and the changes are shown as they are.
 *
 * Output: rows (one per function, sorted: significant first, then by
 * |change|, then name) and a differential flame graph (fdiff_svg): the NEW
 * side's mean stacks drawn by flame_render (a stack only OLD has at its OLD
 * mean, so a function that is gone stays visible), a significant function red
 * (grew) or blue (shrank) by its change, every other frame grey; each
 * frame's tooltip "NAME: before B %, after A %, change ±C % [lo, hi],
 * p = P, q = Q" (class "sig" or "nosig" on its <g> for scripts).
 *
 * Errors: 0 or -errno with pk_error() (a file that cannot be read).
 */
#ifndef PERFKIT_FLAME_FDIFF_H
#define PERFKIT_FLAME_FDIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/hashmap.h"
#include "base/strbuf.h"
#include "stats/compare.h"

struct fdiff_opts {
	double alpha;          /* 0.05 */
	double min_effect;     /* percentage points, 0.5 */
	bool share;            /* compare per-profile shares */
	bool strip_hex;        /* 0x1234 → 0x... in frame names */
};
#define FDIFF_OPTS_INIT { 0.05, 0.5, false, false }

struct fdiff_prof {
	int side;
	double total;
	size_t *stack;         /* stack indexes */
	double *count;
	size_t nr, alloc;
};

struct fdiff_row {
	const char *name;      /* interned in fdiff.names */
	size_t len;
	struct st_set_row incl;   /* inclusive cost, the one tested */
	double self_a, self_b;    /* mean self cost, same units */
	bool whole;               /* in every stack of every profile (a root:
				   * process, main): fdiff_text lists it only
				   * when significant */
};

struct fdiff {
	struct hashmap stacks;     /* stack text → index (val.u) */
	struct hashmap names;      /* function name → row index (val.u) */
	struct fdiff_prof *prof;
	size_t nprof, nside[2];
	size_t skipped;            /* lines that were not STACK COUNT */
	struct fdiff_row *rows;    /* after fdiff_compute */
	size_t nrows;
	double base;               /* the 100 % of the values */
	struct fdiff_opts o;
};

void fdiff_init(struct fdiff *d, const struct fdiff_opts *o);
void fdiff_release(struct fdiff *d);
/* Add one profile (folded text) to side 0 (OLD) or 1 (NEW). */
void fdiff_add_buf(struct fdiff *d, int side, const char *buf, size_t len);
int fdiff_add_file(struct fdiff *d, int side, const char *path);
/* The per-function comparison, into d->rows (sorted). */
void fdiff_compute(struct fdiff *d);
/* The computed rows as text: a header (what was compared, how), then one
 * line per function — significant ones marked '*' (coloured with color:
 * red grew, green shrank), gone/new ones with their share — into out.
 * At most limit rows besides the significant ones (SIZE_MAX: all). */
void fdiff_text(const struct fdiff *d, bool color, size_t limit, struct strbuf *out);
/* The computed rows as a JSON object ("profiles", "values", "rows": name,
 * before, after, change, change_ci95, p, q, significant, kind, self). */
void fdiff_json(const struct fdiff *d, struct strbuf *out);
/* The computed rows as CSV lines, one per function (every row, as the
 * JSON), without a header line: FDIFF_CSV_HEADER's columns, OLD's and
 * NEW's labels (old, new) first; empty fields where JSON has null. */
#define FDIFF_CSV_HEADER "old,new,function,before,after,change,change_ci_lo,change_ci_hi,p,q,significant,kind,self_before,self_after\n"
void fdiff_csv(const struct fdiff *d, const char *old, const char *new, struct strbuf *out);
/* The computed rows as Markdown: a sentence saying what was compared and
 * how, then a table of the significant functions (name, before, after,
 * change, 95 % interval, p, q); no table when none is. */
void fdiff_markdown(const struct fdiff *d, struct strbuf *out);
/* The differential flame graph of the computed rows, into out. */
int fdiff_svg(const struct fdiff *d, const char *title, struct strbuf *out);

#endif
