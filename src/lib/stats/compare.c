/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare.c — see compare.h. */
#include "stats/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"

double st_diff_halfwidth(const double *a, size_t na, const double *b, size_t nb)
{
	if (na < 2 || nb < 2)
		return 0;
	double sa = st_stddev(a, na), sb = st_stddev(b, nb);
	double qa = sa * sa / (double)na, qb = sb * sb / (double)nb;
	double se2 = qa + qb;

	if (se2 <= 0)
		return 0;
	double den = qa * qa / (double)(na - 1) + qb * qb / (double)(nb - 1);
	double df = den > 0 ? se2 * se2 / den : (double)(na + nb - 2);
	return st_t_quantile(0.975, df) * sqrt(se2);
}

void st_compare(const double *a, size_t na, const double *b, size_t nb, double alpha,
		double min_effect_pct, struct st_compare *o)
{
	memset(o, 0, sizeof(*o));
	o->na = na;
	o->nb = nb;
	o->welch.p = o->mw.p = 1;
	if (!na || !nb) {
		o->verdict = ST_V_UNAVAILABLE;
		return;
	}
	o->mean_a = st_mean(a, na);
	o->mean_b = st_mean(b, nb);
	o->sd_a = st_stddev(a, na);
	o->sd_b = st_stddev(b, nb);
	o->have_ratio = st_ratio(a, na, b, nb, &o->ratio) == 0;
	o->diff = o->mean_a - o->mean_b;
	double hw = st_diff_halfwidth(a, na, b, nb);
	o->diff_lo = o->diff - hw;
	o->diff_hi = o->diff + hw;
	st_mann_whitney(a, na, b, nb, &o->mw);
	if (st_welch(a, na, b, nb, &o->welch) != 0) {
		o->verdict = ST_V_TOO_FEW;
		return;
	}
	o->have_test = true;
	o->disagree = (o->welch.p < alpha) != (o->mw.p < alpha);
	if (o->welch.p >= alpha)
		o->verdict = ST_V_SAME;
	else if (o->have_ratio && fabs(o->ratio.ratio - 1) * 100 < min_effect_pct)
		o->verdict = ST_V_SMALL;
	else
		o->verdict = o->diff > 0 ? ST_V_HIGHER : ST_V_LOWER;
}

const char *st_verdict_name(enum st_verdict v)
{
	switch (v) {
	case ST_V_HIGHER: return "higher";
	case ST_V_LOWER: return "lower";
	case ST_V_SAME: return "no_difference";
	case ST_V_SMALL: return "below_min_effect";
	case ST_V_TOO_FEW: return "too_few_runs";
	case ST_V_UNAVAILABLE: break;
	}
	return "unavailable";
}

struct pidx { double p; size_t i; };

static int cmp_pidx(const void *x, const void *y)
{
	double a = ((const struct pidx *)x)->p, b = ((const struct pidx *)y)->p;

	return a < b ? -1 : a > b;
}

/* p[0, n) with their indices, ascending (NaN as 1), for the step-up and
 * step-down corrections; n >= 1; the caller frees. */
static struct pidx *sorted_p(const double *p, size_t n)
{
	struct pidx *s = xmalloc(n * sizeof(*s));

	for (size_t i = 0; i < n; i++)
		s[i] = (struct pidx){ isnan(p[i]) ? 1 : p[i], i };
	qsort(s, n, sizeof(*s), cmp_pidx);
	return s;
}

void st_bh(const double *p, size_t n, double *q)
{
	if (!n)
		return;
	struct pidx *s = sorted_p(p, n);
	double run = 1;
	for (size_t k = n; k-- > 0;) {
		double v = s[k].p * (double)n / (double)(k + 1);
		if (v < run)
			run = v;
		q[s[k].i] = run < 0 ? 0 : run;
	}
	free(s);
}

void st_holm(const double *p, size_t n, double *q)
{
	if (!n)
		return;
	struct pidx *s = sorted_p(p, n);
	double run = 0;
	for (size_t k = 0; k < n; k++) {
		double v = s[k].p * (double)(n - k);
		if (v > run)
			run = v;
		q[s[k].i] = run > 1 ? 1 : run;
	}
	free(s);
}

void st_compare_sets(const double *v, size_t nkeys, size_t na, size_t nb, double alpha,
		     double min_effect, struct st_set_row *out)
{
	size_t w = na + nb;
	double *p = xmalloc((nkeys ? nkeys : 1) * sizeof(double));

	for (size_t k = 0; k < nkeys; k++) {
		const double *a = v + k * w, *b = a + na;
		struct st_set_row *r = &out[k];
		struct st_test t;
		bool any_a = false, any_b = false;

		memset(r, 0, sizeof(*r));
		for (size_t j = 0; j < na; j++)
			any_a |= a[j] != 0;
		for (size_t j = 0; j < nb; j++)
			any_b |= b[j] != 0;
		r->kind = any_a && !any_b ? ST_SET_GONE : !any_a && any_b ? ST_SET_NEW : ST_SET_BOTH;
		r->mean_a = st_mean(a, na);
		r->mean_b = st_mean(b, nb);
		r->diff = r->mean_b - r->mean_a;
		double hw = st_diff_halfwidth(b, nb, a, na);
		r->diff_lo = r->diff - hw;
		r->diff_hi = r->diff + hw;
		r->tested = st_welch_margin(b, nb, a, na, min_effect, &t) == 0;
		p[k] = r->p = r->tested ? t.p : 1;
	}
	st_holm(p, nkeys, p);
	for (size_t k = 0; k < nkeys; k++) {
		out[k].q = p[k];
		/* q < alpha implies |diff| > min_effect (p = 1 otherwise) */
		out[k].significant = out[k].tested && p[k] < alpha && fabs(out[k].diff) > min_effect;
	}
	free(p);
}
