/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/stats/compare.h: the comparison as data (ratio,
 * difference interval, both tests, the verdict on Welch's) and
 * Benjamini-Hochberg q-values (worked by hand from the definition). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_verdicts),
		cmocka_unit_test(test_compare_disagree),
		cmocka_unit_test(test_bh),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
