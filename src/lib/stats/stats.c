/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.c — see stats.h for the formulas and their sources. */
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"

double st_mean(const double *x, size_t n)
{
	double m = 0;

	for (size_t i = 0; i < n; i++)
		m += (x[i] - m) / (double)(i + 1);
	return m;
}

/* Welford: returns Σ(x − x̄)² (M2). */
static double sum_sq_dev(const double *x, size_t n, double *mean)
{
	double m = 0, m2 = 0;

	for (size_t i = 0; i < n; i++) {
		double d = x[i] - m;
		m += d / (double)(i + 1);
		m2 += d * (x[i] - m);
	}
	if (mean)
		*mean = m;
	return m2;
}

double st_stddev(const double *x, size_t n)
{
	if (n < 2)
		return 0;
	return sqrt(sum_sq_dev(x, n, NULL) / (double)(n - 1));
}

double st_stderr(const double *x, size_t n)
{
	if (n < 2)
		return 0;
	return st_stddev(x, n) / sqrt((double)n);
}

double st_rel_stderr_pct(const double *x, size_t n)
{
	double m = st_mean(x, n);

	if (n < 2 || m == 0)
		return 0;
	return 100.0 * st_stderr(x, n) / fabs(m);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_sorted(const double *s, size_t n)
{
	if (n == 0)
		return 0;
	if (n % 2)
		return s[n / 2];
	return (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double *sorted_copy(const double *x, size_t n)
{
	double *s = xmalloc((n ? n : 1) * sizeof(*s));

	if (n)
		memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

double st_median(const double *x, size_t n)
{
	double *s = sorted_copy(x, n);
	double m = median_sorted(s, n);

	free(s);
	return m;
}

double st_mad(const double *x, size_t n)
{
	if (n == 0)
		return 0;
	double med = st_median(x, n);
	double *d = xmalloc(n * sizeof(*d));
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(x[i] - med);
	double m = st_median(d, n);
	free(d);
	return m;
}

void st_summarize(const double *x, size_t n, struct st_summary *o)
{
	memset(o, 0, sizeof(*o));
	o->n = n;
	if (n == 0)
		return;
	o->mean = st_mean(x, n);
	o->stddev = st_stddev(x, n);
	o->stderr_ = st_stderr(x, n);
	o->rel_stderr_pct = st_rel_stderr_pct(x, n);
	o->median = st_median(x, n);
	o->mad = st_mad(x, n);
	o->min = o->max = x[0];
	for (size_t i = 1; i < n; i++) {
		if (x[i] < o->min)
			o->min = x[i];
		if (x[i] > o->max)
			o->max = x[i];
	}
}

bool st_outliers_notable(size_t outliers, size_t n)
{
	return outliers && (double)outliers > ST_OUTLIER_WARN_SHARE * (double)n;
}

size_t st_outliers(const double *x, size_t n, double threshold, bool *out)
{
	size_t count = 0;

	if (out)
		memset(out, 0, n * sizeof(*out));
	if (n < 3)
		return 0;
	double med = st_median(x, n), mad = st_mad(x, n), scale;
	if (mad > 0) {
		scale = mad / 0.6745;
	} else {
		double mean_ad = 0;
		for (size_t i = 0; i < n; i++)
			mean_ad += fabs(x[i] - med);
		mean_ad /= (double)n;
		if (mean_ad <= 0)
			return 0;
		scale = 1.253314 * mean_ad;
	}
	for (size_t i = 0; i < n; i++) {
		bool o = fabs(x[i] - med) / scale > threshold;
		if (out)
			out[i] = o;
		count += o;
	}
	return count;
}

/* Continued fraction of the regularized incomplete beta (A&S 26.5.8),
 * evaluated by the modified Lentz method. */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double f = 1, c = 1, d = 0;

	for (int j = 1; j < 1000; j++) {
		double m = (double)(j / 2), num;
		if (j % 2)      /* d_{2m+1} */
			num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		else            /* d_{2m} */
			num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + num * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		double delta = c * d;
		f *= delta;
		if (fabs(delta - 1) < 1e-15)
			break;
	}
	return f;
}

/* Regularized incomplete beta I_x(a, b). */
static double inc_beta(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double lfront = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x > (a + 1) / (a + b + 2))
		return 1 - inc_beta(b, a, 1 - x);
	return exp(lfront) / a / beta_cf(a, b, x);
}

double st_t_two_sided_p(double t, double nu)
{
	if (!(nu > 0) || isnan(t))
		return 1;
	if (isinf(t))
		return 0;
	double p = inc_beta(nu / 2, 0.5, nu / (nu + t * t));
	return p < 0 ? 0 : p > 1 ? 1 : p;
}

double st_t_quantile(double p, double nu)
{
	if (!(p > 0 && p < 1))
		return 0;
	if (p == 0.5)
		return 0;
	/* CDF(q) = 1 − p2(q)/2 for q > 0; bisect on |q| for the upper tail */
	double tail = p > 0.5 ? 2 * (1 - p) : 2 * p;   /* two-sided probability */
	double lo = 0, hi = 1;
	while (st_t_two_sided_p(hi, nu) > tail && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (st_t_two_sided_p(mid, nu) > tail)
			lo = mid;
		else
			hi = mid;
	}
	double q = (lo + hi) / 2;
	return p > 0.5 ? q : -q;
}

static double welch_df(double va, size_t na, double vb, size_t nb)
{
	double qa = va / (double)na, qb = vb / (double)nb;
	double den = qa * qa / (double)(na - 1) + qb * qb / (double)(nb - 1);

	if (den <= 0)
		return (double)(na + nb - 2);
	return (qa + qb) * (qa + qb) / den;
}

int st_welch(const double *a, size_t na, const double *b, size_t nb, struct st_test *o)
{
	memset(o, 0, sizeof(*o));
	o->p = 1;
	if (na < 2 || nb < 2)
		return -EDOM;
	double ma, mb;
	double va = sum_sq_dev(a, na, &ma) / (double)(na - 1);
	double vb = sum_sq_dev(b, nb, &mb) / (double)(nb - 1);
	double se2 = va / (double)na + vb / (double)nb;
	o->df = welch_df(va, na, vb, nb);
	if (se2 <= 0) {
		o->statistic = 0;
		o->p = ma == mb ? 1 : 0;
		return 0;
	}
	o->statistic = (ma - mb) / sqrt(se2);
	o->p = st_t_two_sided_p(o->statistic, o->df);
	return 0;
}

int st_welch_margin(const double *a, size_t na, const double *b, size_t nb, double margin,
		    struct st_test *o)
{
	int err = st_welch(a, na, b, nb, o);

	if (err || !(margin > 0))
		return err;
	double ma = st_mean(a, na), mb = st_mean(b, nb), d = fabs(ma - mb);
	double va = st_stddev(a, na), vb = st_stddev(b, nb);
	double se = sqrt(va * va / (double)na + vb * vb / (double)nb);

	if (!(se > 0)) {
		o->statistic = 0;
		o->p = d > margin ? 0 : 1;
		return 0;
	}
	o->statistic = (d - margin) / se;
	o->p = d > margin ? st_t_two_sided_p(o->statistic, o->df) : 1;
	return 0;
}

struct ranked { double v; int group; };

static int cmp_ranked(const void *x, const void *y)
{
	return cmp_double(&((const struct ranked *)x)->v, &((const struct ranked *)y)->v);
}

int st_mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct st_test *o)
{
	memset(o, 0, sizeof(*o));
	o->p = 1;
	if (na == 0 || nb == 0)
		return -EDOM;
	size_t n = na + nb;
	struct ranked *r = xmalloc(n * sizeof(*r));
	for (size_t i = 0; i < na; i++)
		r[i] = (struct ranked){ a[i], 0 };
	for (size_t i = 0; i < nb; i++)
		r[na + i] = (struct ranked){ b[i], 1 };
	qsort(r, n, sizeof(*r), cmp_ranked);
	double ra = 0, ties = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && r[j + 1].v == r[i].v)
			j++;
		double rank = ((double)i + (double)j) / 2 + 1;   /* mid-rank, 1-based */
		double t = (double)(j - i + 1);
		ties += t * t * t - t;
		for (size_t k = i; k <= j; k++)
			if (r[k].group == 0)
				ra += rank;
		i = j + 1;
	}
	free(r);
	double dn = (double)n, fa = (double)na, fb = (double)nb;
	double u = ra - fa * (fa + 1) / 2;
	double var = fa * fb / 12 * ((dn + 1) - (n > 1 ? ties / (dn * (dn - 1)) : 0));
	if (var <= 0)
		return 0;
	double diff = u - fa * fb / 2;
	double cc = diff > 0 ? -0.5 : diff < 0 ? 0.5 : 0;
	if (fabs(diff) < 0.5)
		cc = -diff;
	o->statistic = (diff + cc) / sqrt(var);
	o->p = erfc(fabs(o->statistic) / sqrt(2.0));
	if (o->p > 1)
		o->p = 1;
	return 0;
}

int st_ratio(const double *a, size_t na, const double *b, size_t nb, struct st_ratio *o)
{
	memset(o, 0, sizeof(*o));
	if (na == 0 || nb == 0)
		return -EDOM;
	double ma = st_mean(a, na), mb = st_mean(b, nb);
	if (!(ma > 0) || !(mb > 0))
		return -EDOM;
	o->ratio = ma / mb;
	o->ci_lo = o->ci_hi = o->ratio;
	double sa = st_stddev(a, na), sb = st_stddev(b, nb);
	o->sigma = o->ratio * sqrt((sa / ma) * (sa / ma) + (sb / mb) * (sb / mb));
	if (na < 2 || nb < 2)
		return 0;
	double ea = sa / sqrt((double)na) / ma, eb = sb / sqrt((double)nb) / mb;
	double se_log = sqrt(ea * ea + eb * eb);
	double df = welch_df(sa * sa, na, sb * sb, nb);
	double q = st_t_quantile(0.975, df > 0 ? df : 1);
	o->ci_lo = o->ratio * exp(-q * se_log);
	o->ci_hi = o->ratio * exp(q * se_log);
	return 0;
}
