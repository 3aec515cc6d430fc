/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/stats/compare.h: the comparison as data (ratio,
 * difference interval, both tests, the verdict on Welch's) and
 * Benjamini-Hochberg and Holm adjustments (worked by hand from the
 * definitions), Welch's minimum-effect test and the many-key comparison. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "stats/compare.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void test_compare_verdicts(void **state)
{
	const double a[] = { 20, 21, 22, 21, 20 }, b[] = { 10, 11, 10, 11, 10 };
	const double c[] = { 10, 11, 10, 11, 10 }, one[] = { 3 };
	struct st_compare k;

	(void)state;
	st_compare(a, 5, b, 5, 0.05, 1, &k);
	assert_int_equal(k.verdict, ST_V_HIGHER);
	assert_true(k.have_ratio && k.have_test);
	NEAR(k.ratio.ratio, 20.8 / 10.4, 1e-12);
	NEAR(k.diff, 10.4, 1e-12);
	assert_true(k.diff_lo < 10.4 && k.diff_hi > 10.4);
	NEAR(k.diff_hi - 10.4, 10.4 - k.diff_lo, 1e-9);    /* symmetric */
	assert_string_equal(st_verdict_name(k.verdict), "higher");
	st_compare(b, 5, a, 5, 0.05, 1, &k);
	assert_int_equal(k.verdict, ST_V_LOWER);
	st_compare(b, 5, c, 5, 0.05, 1, &k);
	assert_int_equal(k.verdict, ST_V_SAME);
	NEAR(k.welch.p, 1, 1e-12);
	assert_false(k.disagree);
	/* significant but below a 200 % minimum effect */
	st_compare(a, 5, b, 5, 0.05, 200, &k);
	assert_int_equal(k.verdict, ST_V_SMALL);
	st_compare(one, 1, b, 5, 0.05, 1, &k);
	assert_int_equal(k.verdict, ST_V_TOO_FEW);
	assert_false(k.have_test);
	st_compare(one, 0, b, 5, 0.05, 1, &k);
	assert_int_equal(k.verdict, ST_V_UNAVAILABLE);
	assert_string_equal(st_verdict_name(k.verdict), "unavailable");
}

static void test_compare_disagree(void **state)
{
	/* equal means, one sample always a little larger but for one big
	 * outlier: Mann-Whitney says different, Welch does not */
	const double a[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 11 };
	const double b[] = { 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 };
	struct st_compare k;

	(void)state;
	st_compare(a, 10, b, 10, 0.05, 1, &k);
	assert_true(k.mw.p < 0.05);
	assert_true(k.welch.p >= 0.05);
	assert_true(k.disagree);
	assert_int_equal(k.verdict, ST_V_SAME);    /* the verdict follows Welch */
}

static void test_bh(void **state)
{
	/* p = .01 .04 .03 .20 (n = 4): sorted .01 .03 .04 .20 →
	 * .04 .06 .0533 .20 → running min from the top: .04 .0533 .0533 .20 */
	double p[] = { 0.01, 0.04, 0.03, 0.20 }, q[4];

	(void)state;
	st_bh(p, 4, q);
	NEAR(q[0], 0.04, 1e-12);
	NEAR(q[1], 0.16 / 3, 1e-12);
	NEAR(q[2], 0.16 / 3, 1e-12);
	NEAR(q[3], 0.20, 1e-12);
	st_bh(p, 4, p);    /* in place */
	assert_memory_equal(p, q, sizeof(q));
	double big[] = { 0.9, 0.8 };
	st_bh(big, 2, big);
	NEAR(big[0], 0.9, 1e-12);
	NEAR(big[1], 0.9, 1e-12);
}

static void test_holm(void **state)
{
	/* p = .01 .04 .03 .20 (n = 4): sorted .01 .03 .04 .20 → ×4 ×3 ×2 ×1 =
	 * .04 .09 .08 .20 → running max from the bottom: .04 .09 .09 .20 */
	double p[] = { 0.01, 0.04, 0.03, 0.20 }, q[4];

	(void)state;
	st_holm(p, 4, q);
	NEAR(q[0], 0.04, 1e-12);
	NEAR(q[1], 0.09, 1e-12);
	NEAR(q[2], 0.09, 1e-12);
	NEAR(q[3], 0.20, 1e-12);
	st_holm(p, 4, p);
	assert_memory_equal(p, q, sizeof(q));
	double big[] = { 0.9, 0.8 };
	st_holm(big, 2, big);
	NEAR(big[0], 1, 1e-12);
	NEAR(big[1], 1, 1e-12);
}

static void test_welch_margin(void **state)
{
	/* diff 2, s² = 1 each, se = √(2/3), ν = 4: margin 0 is Welch's
	 * (p = .0705, scipy's ttest_ind equal_var=False); margin 1: t =
	 * 1/√(2/3) = 1.2247, p = .2879; margin ≥ 2: p = 1 */
	const double a[] = { 10, 11, 12 }, b[] = { 12, 13, 14 };
	struct st_test t;

	(void)state;
	assert_int_equal(st_welch_margin(b, 3, a, 3, 0, &t), 0);
	NEAR(t.p, 0.0704840, 1e-6);
	assert_int_equal(st_welch_margin(b, 3, a, 3, 1, &t), 0);
	NEAR(t.statistic, 1 / sqrt(2.0 / 3), 1e-9);
	NEAR(t.p, 0.2878641, 1e-6);
	assert_int_equal(st_welch_margin(a, 3, b, 3, 1, &t), 0);   /* sign does not matter */
	NEAR(t.p, 0.2878641, 1e-6);
	st_welch_margin(b, 3, a, 3, 2.5, &t);
	NEAR(t.p, 1, 0);
	/* no spread: beyond the margin or not */
	const double c[] = { 5, 5, 5 }, d[] = { 7, 7, 7 };
	st_welch_margin(d, 3, c, 3, 1, &t);
	NEAR(t.p, 0, 0);
	st_welch_margin(d, 3, c, 3, 3, &t);
	NEAR(t.p, 1, 0);
	assert_int_equal(st_welch_margin(a, 1, b, 3, 1, &t), -EDOM);
}

/* A changed key and its caller, and many unchanged ones of which one
 * drifts a little: Benjamini-Hochberg would mark the drifting one with
 * the two real changes; Holm with the minimum-effect test does not. */
static void test_compare_sets_family(void **state)
{
	enum { K = 12, N = 10 };
	double v[K * 2 * N];
	struct st_set_row r[K];

	(void)state;
	for (int k = 0; k < K; k++)
		for (int j = 0; j < 2 * N; j++)
			v[k * 2 * N + j] = 30 + (j % 3) + (k % 4);   /* same in OLD and NEW */
	for (int j = N; j < 2 * N; j++) {
		v[0 * 2 * N + j] += 26;                            /* f: +26 points */
		v[1 * 2 * N + j] += 26;                            /* its caller */
		v[2 * 2 * N + j] += j < N + 8 ? 2 : 0;             /* drifts +1.6 */
	}
	st_compare_sets(v, K, N, N, 0.05, 1.0, r);
	assert_true(r[0].significant && r[1].significant);
	for (int k = 2; k < K; k++)
		assert_false(r[k].significant);
	/* tested against 0 (p = .0043), the drift is marked even by Holm
	 * (q = 10·p = .043) … */
	st_compare_sets(v, K, N, N, 0.05, 0, r);
	NEAR(r[2].p, 0.0043196, 1e-6);
	assert_true(r[2].significant);
	double p[K];
	for (int k = 0; k < K; k++)
		p[k] = r[k].p;
	/* … and by Benjamini-Hochberg (q = p·K/3 = .017) */
	st_bh(p, K, p);
	assert_true(p[2] < 0.05);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_verdicts),
		cmocka_unit_test(test_compare_disagree),
		cmocka_unit_test(test_bh),
		cmocka_unit_test(test_holm),
		cmocka_unit_test(test_welch_margin),
		cmocka_unit_test(test_compare_sets_family),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
