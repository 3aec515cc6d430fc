/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/stats: descriptive statistics, outliers, the t
 * distribution, Welch, Mann-Whitney and ratios (values from the formulas in
 * stats.h, checked against closed forms and published tables). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>

#include "stats/stats.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))
#define N(x) (sizeof(x) / sizeof((x)[0]))

static void test_perf_example(void **state)
{
	const double x[] = { 10, 12, 14 };

	(void)state;
	NEAR(st_mean(x, 3), 12, 1e-12);
	NEAR(st_stddev(x, 3), 2, 1e-12);               /* sample σ, N−1 */
	NEAR(st_stderr(x, 3), 2 / sqrt(3), 1e-12);
	NEAR(st_rel_stderr_pct(x, 3), 9.6225, 1e-4);   /* perf: "+-  9.62%" */
	NEAR(st_median(x, 3), 12, 0);
}

static void test_degenerate(void **state)
{
	const double one[] = { 5 }, zeros[] = { 0, 0, 0 };
	struct st_summary s;

	(void)state;
	assert_true(st_stddev(one, 1) == 0);
	assert_true(st_stderr(one, 1) == 0);
	assert_true(st_rel_stderr_pct(one, 1) == 0);
	assert_true(st_rel_stderr_pct(zeros, 3) == 0);   /* mean 0: no NaN */
	assert_true(st_mean(NULL, 0) == 0);
	assert_true(st_median(NULL, 0) == 0);
	st_summarize(one, 1, &s);
	assert_int_equal(s.n, 1);
	assert_false(isnan(s.stddev) || isnan(s.rel_stderr_pct));
	NEAR(s.min, 5, 0);
	NEAR(s.max, 5, 0);
	/* large offset: Welford keeps precision */
	const double big[] = { 1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16 };
	NEAR(st_stddev(big, 4), sqrt(30), 1e-6);
}

static void test_median_mad(void **state)
{
	const double even[] = { 4, 1, 3, 2 };
	const double x[] = { 9.8, 10.0, 10.2, 50.0 };

	(void)state;
	NEAR(st_median(even, 4), 2.5, 1e-12);
	NEAR(st_median(x, 4), 10.1, 1e-12);
	NEAR(st_mad(x, 4), 0.2, 1e-12);   /* |d| = .3 .1 .1 39.9 → median .2 */
}

static void test_outliers(void **state)
{
	const double none[] = { 9.8, 10.0, 10.2 };
	const double one[] = { 9.8, 10.0, 10.2, 50.0 };
	const double flat[] = { 5, 5, 5, 5, 9 };    /* MAD = 0 → MeanAD rule */
	const double same[] = { 3, 3, 3, 3 };       /* no spread at all */
	bool o[5];

	(void)state;
	assert_int_equal(st_outliers(none, 3, ST_OUTLIER_Z, o), 0);
	assert_int_equal(st_outliers(one, 4, ST_OUTLIER_Z, o), 1);
	assert_false(o[0] || o[1] || o[2]);
	assert_true(o[3]);
	assert_int_equal(st_outliers(flat, 5, ST_OUTLIER_Z, o), 1);
	assert_true(o[4]);
	assert_int_equal(st_outliers(same, 4, ST_OUTLIER_Z, o), 0);
	assert_int_equal(st_outliers(one, 2, ST_OUTLIER_Z, NULL), 0);
	/* the warning needs a share: one in 1001 runs is noise, one in ten not */
	assert_false(st_outliers_notable(1, 1001));
	assert_false(st_outliers_notable(10, 1001));
	assert_true(st_outliers_notable(11, 1001));
	assert_true(st_outliers_notable(1, 10));
	assert_false(st_outliers_notable(0, 10));
	assert_false(st_outliers_notable(0, 0));
}

static void test_t_distribution(void **state)
{
	(void)state;
	NEAR(st_t_two_sided_p(1, 1), 0.5, 1e-12);             /* Cauchy */
	NEAR(st_t_two_sided_p(1, 2), 1 - 1 / sqrt(3), 1e-12); /* closed form, ν=2 */
	NEAR(st_t_two_sided_p(2.228139, 10), 0.05, 1e-6);     /* table t.975,10 */
	NEAR(st_t_two_sided_p(0, 7), 1, 1e-12);
	NEAR(st_t_quantile(0.975, 10), 2.228139, 1e-5);
	NEAR(st_t_quantile(0.975, 1e6), 1.959964, 1e-4);      /* → normal */
	NEAR(st_t_quantile(0.025, 4), -2.776445, 1e-5);
}

static void test_welch(void **state)
{
	const double a[] = { 10, 12, 14 }, b[] = { 20, 22, 24 };
	const double c[] = { 1, 1, 1 }, d[] = { 2, 2, 2 };
	struct st_test t;

	(void)state;
	assert_int_equal(st_welch(a, 3, b, 3, &t), 0);
	NEAR(t.statistic, -10 / sqrt(8.0 / 3), 1e-9);
	NEAR(t.df, 4, 1e-9);
	/* t = 6.1237, ν = 4: between the .001 and .01 two-sided table points */
	assert_true(t.p < 0.01 && t.p > 0.001);
	assert_int_equal(st_welch(a, 3, a, 3, &t), 0);
	NEAR(t.p, 1, 1e-12);
	assert_int_equal(st_welch(c, 3, d, 3, &t), 0);        /* no spread */
	assert_true(t.p == 0);
	assert_int_equal(st_welch(c, 3, c, 3, &t), 0);
	assert_true(t.p == 1);
	assert_int_equal(st_welch(a, 1, b, 3, &t), -EDOM);
}

static void test_mann_whitney(void **state)
{
	const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 6, 7, 8, 9, 10 };
	const double t1[] = { 1, 1, 1 };
	struct st_test t;

	(void)state;
	assert_int_equal(st_mann_whitney(a, 5, b, 5, &t), 0);
	/* U = 0, μ = 12.5, σ² = 25·11/12, continuity 0.5 → z = −2.5067 */
	NEAR(t.statistic, -12 / sqrt(25.0 * 11 / 12), 1e-9);
	NEAR(t.p, 0.012186, 1e-5);
	assert_int_equal(st_mann_whitney(a, 5, a, 5, &t), 0);
	NEAR(t.p, 1, 1e-12);
	assert_int_equal(st_mann_whitney(t1, 3, t1, 3, &t), 0);  /* all tied */
	NEAR(t.p, 1, 1e-12);
	assert_int_equal(st_mann_whitney(a, 0, b, 5, &t), -EDOM);
}

static void test_ratio(void **state)
{
	const double a[] = { 10, 12, 14 }, b[] = { 5, 6, 7 };
	const double z[] = { 0, 0 }, one[] = { 3 };
	struct st_ratio r;

	(void)state;
	assert_int_equal(st_ratio(a, 3, b, 3, &r), 0);
	NEAR(r.ratio, 2, 1e-12);
	NEAR(r.sigma, 2 * sqrt(2) * (2.0 / 12), 1e-12);
	assert_true(r.ci_lo < 2 && r.ci_hi > 2);
	NEAR(r.ci_lo * r.ci_hi, 4, 1e-9);    /* symmetric in log space */
	assert_int_equal(st_ratio(a, 3, z, 2, &r), -EDOM);   /* mean 0 */
	assert_int_equal(st_ratio(one, 1, one, 1, &r), 0);
	NEAR(r.ratio, 1, 0);
	assert_true(r.sigma == 0 && r.ci_lo == 1 && r.ci_hi == 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_example),
		cmocka_unit_test(test_degenerate),
		cmocka_unit_test(test_median_mad),
		cmocka_unit_test(test_outliers),
		cmocka_unit_test(test_t_distribution),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_mann_whitney),
		cmocka_unit_test(test_ratio),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
