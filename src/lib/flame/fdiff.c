/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fdiff.c — see fdiff.h. */
#include "flame/fdiff.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "flame/flame.h"

void fdiff_init(struct fdiff *d, const struct fdiff_opts *o)
{
	memset(d, 0, sizeof(*d));
	hm_init(&d->stacks);
	hm_init(&d->names);
	d->o = *o;
}

void fdiff_release(struct fdiff *d)
{
	for (size_t i = 0; i < d->nprof; i++) {
		free(d->prof[i].stack);
		free(d->prof[i].count);
	}
	free(d->prof);
	free(d->rows);
	hm_release(&d->stacks);
	hm_release(&d->names);
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static void add_stack(struct fdiff *d, struct fdiff_prof *p, const char *s, size_t len, double c,
		      struct strbuf *tmp)
{
	if (d->o.strip_hex && memchr(s, 'x', len)) {
		sb_reset(tmp);
		for (size_t i = 0; i < len;) {
			if (s[i] == '0' && i + 2 < len && s[i + 1] == 'x' && is_hex(s[i + 2])) {
				i += 2;
				while (i < len && is_hex(s[i]))
					i++;
				sb_add(tmp, "0x...", 5);
			} else {
				sb_addch(tmp, s[i++]);
			}
		}
		s = tmp->buf;
		len = tmp->len;
	}
	int created;
	struct hm_entry *e = hm_upsert(&d->stacks, s, len, &created);

	if (created)
		e->val.u = d->stacks.nr - 1;
	if (p->nr == p->alloc) {
		p->alloc = p->alloc ? 2 * p->alloc : 256;
		p->stack = xrealloc(p->stack, p->alloc * sizeof(*p->stack));
		p->count = xrealloc(p->count, p->alloc * sizeof(*p->count));
	}
	p->stack[p->nr] = e->val.u;
	p->count[p->nr++] = c;
	p->total += c;
}

void fdiff_add_buf(struct fdiff *d, int side, const char *buf, size_t len)
{
	struct flame_input in;
	struct strbuf tmp = STRBUF_INIT;

	d->prof = xrealloc(d->prof, (d->nprof + 1) * sizeof(*d->prof));
	struct fdiff_prof *p = &d->prof[d->nprof++];
	memset(p, 0, sizeof(*p));
	p->side = side;
	d->nside[side]++;
	flame_input_init(&in);
	flame_input_add_buf(&in, buf, len);
	for (size_t i = 0; i < in.nr; i++) {
		size_t sl;
		double c;

		if (!in.lines[i].len)
			continue;
		if (!flame_parse_count(in.lines[i].s, in.lines[i].len, &sl, &c)) {
			d->skipped++;
			continue;
		}
		add_stack(d, p, in.lines[i].s, sl, c, &tmp);
	}
	flame_input_release(&in);
	sb_release(&tmp);
}

int fdiff_add_file(struct fdiff *d, int side, const char *path)
{
	struct flame_input in;

	flame_input_init(&in);
	if (flame_input_add_file(&in, path) < 0) {
		flame_input_release(&in);
		return -EIO;
	}
	/* the lines point into in's buffers: add them one by one */
	struct strbuf all = STRBUF_INIT;
	for (size_t i = 0; i < in.nr; i++) {
		sb_add(&all, in.lines[i].s, in.lines[i].len);
		sb_addch(&all, '\n');
	}
	flame_input_release(&in);
	fdiff_add_buf(d, side, all.buf ? all.buf : "", all.len);
	sb_release(&all);
	return 0;
}

static int cmp_rows(const void *x, const void *y)
{
	const struct fdiff_row *a = x, *b = y;

	if (a->incl.significant != b->incl.significant)
		return a->incl.significant ? -1 : 1;
	double da = fabs(a->incl.diff), db = fabs(b->incl.diff);
	if (da != db)
		return da > db ? -1 : 1;
	size_t l = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->name, b->name, l);
	return c ? c : (a->len > b->len) - (a->len < b->len);
}

void fdiff_compute(struct fdiff *d)
{
	size_t w = d->nprof, nst = d->stacks.nr;
	/* profiles in side order: OLD first */
	size_t *order = xmalloc((w ? w : 1) * sizeof(*order)), k = 0;

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < d->nprof; i++)
			if (d->prof[i].side == s)
				order[k++] = i;
	/* per stack: its distinct names (row indexes) and its leaf */
	size_t **names = xcalloc(nst ? nst : 1, sizeof(*names));
	size_t *nnames = xcalloc(nst ? nst : 1, sizeof(*nnames)), *leaf = xcalloc(nst ? nst : 1, sizeof(*leaf));
	for (size_t s = 0; s < nst; s++) {
		const char *st = d->stacks.entries[s].key;
		size_t len = d->stacks.entries[s].keylen, cap = 0;

		for (size_t i = 0; i <= len;) {
			size_t j = i;
			while (j < len && st[j] != ';')
				j++;
			if (j > i) {
				int created;
				struct hm_entry *e = hm_upsert(&d->names, st + i, j - i, &created);
				if (created)
					e->val.u = d->names.nr - 1;
				bool dup = false;
				for (size_t m = 0; m < nnames[s]; m++)
					dup |= names[s][m] == e->val.u;
				if (!dup) {
					if (nnames[s] == cap) {
						cap = cap ? 2 * cap : 8;
						names[s] = xrealloc(names[s], cap * sizeof(size_t));
					}
					names[s][nnames[s]++] = e->val.u;
				}
				leaf[s] = e->val.u;
			}
			i = j + 1;
		}
	}
	size_t nn = d->names.nr;
	double *incl = xcalloc((nn ? nn : 1) * (w ? w : 1), sizeof(double));
	double *self = xcalloc((nn ? nn : 1) * (w ? w : 1), sizeof(double));
	double mean_old = 0;
	for (size_t j = 0; j < w; j++)
		if (d->prof[order[j]].side == 0)
			mean_old += d->prof[order[j]].total / (double)d->nside[0];
	d->base = mean_old;
	for (size_t j = 0; j < w; j++) {
		const struct fdiff_prof *p = &d->prof[order[j]];
		double base = d->o.share ? p->total : mean_old;
		double scale = base > 0 ? 100.0 / base : 0;

		for (size_t i = 0; i < p->nr; i++) {
			size_t s = p->stack[i];
			double c = p->count[i] * scale;
			for (size_t m = 0; m < nnames[s]; m++)
				incl[names[s][m] * w + j] += c;
			if (nnames[s])
				self[leaf[s] * w + j] += c;
		}
	}
	struct st_set_row *sr = xmalloc((nn ? nn : 1) * sizeof(*sr));
	st_compare_sets(incl, nn, d->nside[0], d->nside[1], d->o.alpha, d->o.min_effect, sr);
	free(d->rows);
	d->rows = xcalloc(nn ? nn : 1, sizeof(*d->rows));
	d->nrows = nn;
	for (size_t n = 0; n < nn; n++) {
		struct fdiff_row *r = &d->rows[n];
		r->name = d->names.entries[n].key;
		r->len = d->names.entries[n].keylen;
		r->incl = sr[n];
		r->self_a = st_mean(self + n * w, d->nside[0]);
		r->self_b = st_mean(self + n * w + d->nside[0], d->nside[1]);
		/* in every stack of every profile: the process or root frame */
		r->whole = w > 0;
		for (size_t j = 0; j < w && r->whole; j++) {
			const struct fdiff_prof *p = &d->prof[order[j]];
			double base = d->o.share ? p->total : mean_old;
			double all = base > 0 ? p->total * 100.0 / base : 0;
			r->whole = all > 0 && fabs(incl[n * w + j] - all) <= 1e-9 * all;
		}
	}
	qsort(d->rows, nn, sizeof(*d->rows), cmp_rows);
	free(sr);
	free(incl);
	free(self);
	for (size_t s = 0; s < nst; s++)
		free(names[s]);
	free(names);
	free(nnames);
	free(leaf);
	free(order);
}

/* red (grew) or blue (shrank), deeper for a larger change (of max) */
static void sig_color(char *buf, size_t len, double diff, double max)
{
	double f = max > 0 ? fabs(diff) / max : 1;
	int v = 210 - (int)(160 * (f > 1 ? 1 : f));

	if (diff > 0)
		snprintf(buf, len, "rgb(255,%d,%d)", v, v);
	else
		snprintf(buf, len, "rgb(%d,%d,255)", v, v);
}

int fdiff_svg(const struct fdiff *d, const char *title, struct strbuf *out)
{
	struct flame_opts fo;
	struct flame_input in;
	struct flame_nameattr na;
	struct flame_palette pal;
	struct strbuf folded = STRBUF_INIT;
	double maxd = 0;

	/* the NEW side's mean stacks; a stack NEW no longer has at its OLD
	 * mean, so what vanished stays visible */
	size_t nst = d->stacks.nr ? d->stacks.nr : 1;
	double *mean[2] = { xcalloc(nst, sizeof(double)), xcalloc(nst, sizeof(double)) };
	for (size_t i = 0; i < d->nprof; i++) {
		const struct fdiff_prof *p = &d->prof[i];
		for (size_t k = 0; k < p->nr; k++)
			mean[p->side][p->stack[k]] += p->count[k] / (double)d->nside[p->side];
	}
	for (size_t s = 0; s < d->stacks.nr; s++) {
		double w = mean[1][s] > 0 ? mean[1][s] : mean[0][s];
		if (!(w > 0))
			continue;
		sb_add(&folded, d->stacks.entries[s].key, d->stacks.entries[s].keylen);
		sb_addf(&folded, " %.6f\n", w);
	}
	free(mean[0]);
	free(mean[1]);
	hm_init(&na.map);
	flame_palette_init(&pal);
	for (size_t i = 0; i < d->nrows; i++)
		if (d->rows[i].incl.significant && fabs(d->rows[i].incl.diff) > maxd)
			maxd = fabs(d->rows[i].incl.diff);
	for (size_t i = 0; i < d->nrows; i++) {
		const struct fdiff_row *r = &d->rows[i];
		const struct st_set_row *x = &r->incl;
		struct flame_attrs *a = xcalloc(1, sizeof(*a));
		struct strbuf t = STRBUF_INIT;
		char color[48];

		/* the title is escaped by the renderer; names are untrusted
		 * but only ever text here */
		sb_add(&t, r->name, r->len);
		sb_addf(&t, ": before %.2f %%, after %.2f %%, change %+.2f %%", x->mean_a, x->mean_b, x->diff);
		if (x->tested)
			sb_addf(&t, " [%+.2f, %+.2f], p = %.2g, q = %.2g%s", x->diff_lo, x->diff_hi, x->p, x->q,
				x->significant ? ", significant" : ", not significant");
		else
			sb_addstr(&t, " (one profile a side: no test)");
		if (x->kind != ST_SET_BOTH)
			sb_addstr(&t, x->kind == ST_SET_NEW ? " (new)" : " (gone)");
		a->title = sb_detach(&t, NULL);
		a->cls = xstrdup(x->significant ? "sig" : "nosig");
		struct hm_entry *e = hm_upsert(&na.map, r->name, r->len, NULL);
		e->val.ptr = a;
		if (x->significant)
			sig_color(color, sizeof(color), x->diff, maxd);
		else
			snprintf(color, sizeof(color), "rgb(200,200,200)");
		e = hm_upsert(&pal.map, r->name, r->len, NULL);
		e->val.ptr = (void *)hm_intern(&pal.strs, color, strlen(color));
	}
	flame_opts_init(&fo);
	fo.title = title ? title : "Differential Flame Graph";
	fo.subtitle = d->o.share ? "colour: significant change of share (red grew, blue shrank); grey: within the noise"
				 : "colour: significant change of cost (red grew, blue shrank); grey: within the noise";
	fo.nameattr = &na;
	fo.palette = &pal;
	flame_input_init(&in);
	flame_input_add_buf(&in, folded.buf ? folded.buf : "", folded.len);
	int err = flame_render(&in, &fo, out, NULL);
	flame_input_release(&in);
	sb_release(&folded);
	flame_nameattr_release(&na);
	flame_palette_release(&pal);
	return err;
}

static void add_term_name(struct strbuf *out, const char *s, size_t len)
{
	sb_add_term(out, s, len);
}

void fdiff_text(const struct fdiff *d, bool color, size_t limit, struct strbuf *out)
{
	size_t nsig = 0, shown = 0, nwhole = 0;

	for (size_t i = 0; i < d->nrows; i++) {
		nsig += d->rows[i].incl.significant;
		nwhole += d->rows[i].whole && !d->rows[i].incl.significant;
	}
	sb_addf(out, "# %zu OLD profile%s, %zu NEW profile%s; inclusive cost as %% of %s\n",
		d->nside[0], d->nside[0] == 1 ? "" : "s", d->nside[1], d->nside[1] == 1 ? "" : "s",
		d->o.share ? "each profile's own total (shares)" : "OLD's mean total");
	if (d->nside[0] >= 2 && d->nside[1] >= 2)
		sb_addf(out, "# Welch's t-test per function over the profiles: did it change by more than\n"
			"# %g point%s (the smallest change that counts)?  Holm's correction over the\n"
			"# functions, %g %% family-wise: %zu significant (*)\n",
			d->o.min_effect, d->o.min_effect == 1 ? "" : "s", d->o.alpha * 100, nsig);
	else
		sb_addstr(out, "# one profile on a side: no test, no change is called significant\n"
			       "# (give several profiles per side: OLD1 OLD2 … -- NEW1 NEW2 …)\n");
	sb_addf(out, "#   %8s %8s  %-28s %8s %8s  %s\n", "Before", "After", "Change [95 % CI]", "p", "q",
		"Function");
	for (size_t i = 0; i < d->nrows; i++) {
		const struct fdiff_row *r = &d->rows[i];
		const struct st_set_row *x = &r->incl;
		char before[32], after[32], change[64], p[16], q[16];

		if (!x->significant && (shown >= limit || r->whole))
			continue;   /* a root frame is listed only when it changed */
		if (!x->significant)
			shown++;
		snprintf(before, sizeof(before), "%.2f", x->mean_a);
		snprintf(after, sizeof(after), "%.2f", x->mean_b);
		if (x->kind == ST_SET_NEW)
			snprintf(before, sizeof(before), "new");
		if (x->kind == ST_SET_GONE)
			snprintf(after, sizeof(after), "gone");
		if (x->tested && x->diff_hi > x->diff_lo)
			snprintf(change, sizeof(change), "%+.2f [%+.2f, %+.2f]", x->diff, x->diff_lo, x->diff_hi);
		else
			snprintf(change, sizeof(change), "%+.2f", x->diff);
		snprintf(p, sizeof(p), x->tested ? "%.2g" : "-", x->p);
		snprintf(q, sizeof(q), x->tested ? "%.2g" : "-", x->q);
		const char *on = "", *off = "";
		if (color && x->significant) {
			on = x->diff > 0 ? "\033[31m" : "\033[32m";
			off = "\033[m";
		}
		sb_addf(out, "%s%c   %8s %8s  %-28s %8s %8s  ", on, x->significant ? '*' : ' ', before, after,
			change, p, q);
		add_term_name(out, r->name, r->len);
		sb_addf(out, "%s\n", off);
	}
	if (d->nrows > nsig + shown + nwhole)
		sb_addf(out, "# … %zu more within the noise\n", d->nrows - nsig - shown - nwhole);
	if (nwhole)
		sb_addf(out, "# not listed: %zu root frame%s in every stack (the whole profile: process, main), within the noise\n",
			nwhole, nwhole == 1 ? "" : "s");
	if (d->skipped)
		sb_addf(out, "# %zu line%s not 'STACK COUNT' skipped\n", d->skipped, d->skipped == 1 ? "" : "s");
}

static void json_d(struct strbuf *sb, double v)
{
	if (isfinite(v))
		sb_addf(sb, "%.10g", v);
	else
		sb_addstr(sb, "null");
}

void fdiff_json(const struct fdiff *d, struct strbuf *out)
{
	sb_addf(out, "{\"profiles_old\": %zu, \"profiles_new\": %zu, \"values\": \"%s\", \"test\": \"welch\", "
		"\"null\": \"|change| <= min_effect\", \"correction\": \"holm\", \"alpha\": %g, \"min_effect\": %g, \"rows\": [",
		d->nside[0], d->nside[1], d->o.share ? "share_percent" : "percent_of_old_mean_total",
		d->o.alpha, d->o.min_effect);
	for (size_t i = 0; i < d->nrows; i++) {
		const struct fdiff_row *r = &d->rows[i];
		const struct st_set_row *x = &r->incl;

		sb_addstr(out, i ? ",\n  {\"name\": \"" : "\n  {\"name\": \"");
		sb_add_json(out, r->name, r->len);
		sb_addstr(out, "\", \"before\": ");
		json_d(out, x->mean_a);
		sb_addstr(out, ", \"after\": ");
		json_d(out, x->mean_b);
		sb_addstr(out, ", \"change\": ");
		json_d(out, x->diff);
		sb_addstr(out, ", \"change_ci95\": [");
		json_d(out, x->diff_lo);
		sb_addstr(out, ", ");
		json_d(out, x->diff_hi);
		sb_addstr(out, "], \"p\": ");
		if (x->tested)
			json_d(out, x->p);
		else
			sb_addstr(out, "null");
		sb_addstr(out, ", \"q\": ");
		if (x->tested)
			json_d(out, x->q);
		else
			sb_addstr(out, "null");
		sb_addf(out, ", \"significant\": %s, \"kind\": \"%s\", \"self_before\": ",
			x->significant ? "true" : "false",
			x->kind == ST_SET_NEW ? "new" : x->kind == ST_SET_GONE ? "gone" : "both");
		json_d(out, r->self_a);
		sb_addstr(out, ", \"self_after\": ");
		json_d(out, r->self_b);
		sb_addstr(out, "}");
	}
	sb_addstr(out, d->nrows ? "\n]}" : "]}");
}

/* a CSV field (RFC 4180: quoted when it holds a comma, quote or line end) */
static void csv_str(struct strbuf *out, const char *s, size_t len)
{
	bool q = false;

	for (size_t i = 0; i < len && !q; i++)
		q = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
	if (!q) {
		sb_add(out, s, len);
		return;
	}
	sb_addch(out, '"');
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			sb_addch(out, '"');
		sb_addch(out, s[i]);
	}
	sb_addch(out, '"');
}

static void csv_d(struct strbuf *out, double v, bool valid)
{
	sb_addch(out, ',');
	if (valid && isfinite(v))
		sb_addf(out, "%.10g", v);
}

void fdiff_csv(const struct fdiff *d, const char *old, const char *new, struct strbuf *out)
{
	for (size_t i = 0; i < d->nrows; i++) {
		const struct fdiff_row *r = &d->rows[i];
		const struct st_set_row *x = &r->incl;

		csv_str(out, old, strlen(old));
		sb_addch(out, ',');
		csv_str(out, new, strlen(new));
		sb_addch(out, ',');
		csv_str(out, r->name, r->len);
		csv_d(out, x->mean_a, true);
		csv_d(out, x->mean_b, true);
		csv_d(out, x->diff, true);
		csv_d(out, x->diff_lo, true);
		csv_d(out, x->diff_hi, true);
		csv_d(out, x->p, x->tested);
		csv_d(out, x->q, x->tested);
		sb_addf(out, ",%s,%s", x->significant ? "true" : "false",
			x->kind == ST_SET_NEW ? "new" : x->kind == ST_SET_GONE ? "gone" : "both");
		csv_d(out, r->self_a, true);
		csv_d(out, r->self_b, true);
		sb_addch(out, '\n');
	}
}

/* a name as a Markdown code span: terminal-safe, | and ` backslashed */
static void md_name(struct strbuf *out, const char *s, size_t len)
{
	struct strbuf esc = STRBUF_INIT;

	sb_add_term(&esc, s, len);
	sb_addch(out, '`');
	for (size_t i = 0; i < esc.len; i++) {
		if (esc.buf[i] == '|' || esc.buf[i] == '`')
			sb_addch(out, '\\');
		sb_addch(out, esc.buf[i]);
	}
	sb_addch(out, '`');
	sb_release(&esc);
}

void fdiff_markdown(const struct fdiff *d, struct strbuf *out)
{
	size_t nsig = 0;

	for (size_t i = 0; i < d->nrows; i++)
		nsig += d->rows[i].incl.significant;
	if (d->nside[0] < 2 || d->nside[1] < 2) {
		sb_addstr(out, "One profile on a side: no test, no change is called significant.\n");
		return;
	}
	sb_addf(out, "%zu OLD and %zu NEW profiles; inclusive cost as %% of %s.  Welch's t-test per "
		"function: did it change by more than %g point%s?  Holm's correction over the %zu "
		"functions, %g %% family-wise: %zu significant.\n",
		d->nside[0], d->nside[1], d->o.share ? "each profile's own total" : "OLD's mean total",
		d->o.min_effect, d->o.min_effect == 1 ? "" : "s", d->nrows, d->o.alpha * 100, nsig);
	if (!nsig)
		return;
	sb_addstr(out, "\n| Function | Before [%] | After [%] | Change [points] | 95 % CI | p | q |\n"
		       "|:---|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < d->nrows; i++) {
		const struct fdiff_row *r = &d->rows[i];
		const struct st_set_row *x = &r->incl;

		if (!x->significant)
			continue;
		sb_addstr(out, "| ");
		md_name(out, r->name, r->len);
		if (x->kind == ST_SET_NEW)
			sb_addstr(out, " | new");
		else
			sb_addf(out, " | %.2f", x->mean_a);
		if (x->kind == ST_SET_GONE)
			sb_addstr(out, " | gone");
		else
			sb_addf(out, " | %.2f", x->mean_b);
		sb_addf(out, " | %+.2f | [%+.2f, %+.2f] | %.2g | %.2g |\n", x->diff, x->diff_lo, x->diff_hi,
			x->p, x->q);
	}
}
