/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * compare.h — a two-sample comparison as data: what perfkit bench prints,
 * exports and gates on, computed once (stats.h has the formulas).
 *
 *  st_compare(a, b)  the ratio mean(a)/mean(b) ± σ with its 95 % interval
 *                    (st_ratio), the difference mean(a) − mean(b) with its
 *                    95 % interval (Welch: ± t_{0.975,ν} · sqrt(s₁²/n₁ + s₂²/n₂)),
 *                    Welch's t-test and Mann-Whitney U, and a verdict.
 *
 *  Verdict (st_verdict): on Welch's p, never on Mann-Whitney's.  Welch tests
 *  the difference of the means, which is what the ratio, its interval and
 *  the difference report; Mann-Whitney tests whether one sample tends to be
 *  larger (it can call two samples of equal means but different shapes
 *  different, and with few runs its p cannot fall below a floor).  Both
 *  p-values are kept; `disagree` says when one is below alpha and the other
 *  is not, which usually means outliers or a skewed sample.
 *    ST_V_HIGHER / ST_V_LOWER  Welch p < alpha and |ratio − 1| ≥ min_effect %
 *                              (where no ratio exists, a mean ≤ 0, p < alpha
 *                              alone)
 *    ST_V_SMALL                p < alpha but the effect is below min_effect
 *    ST_V_SAME                 p ≥ alpha
 *    ST_V_TOO_FEW              fewer than 2 values in a sample (no test)
 *    ST_V_UNAVAILABLE          a sample is empty
 *
 *  st_bh(p, n, q)    Benjamini-Hochberg adjusted p-values (q-values):
 *                    q₍ᵢ₎ = min_{j ≥ i} min(1, p₍ⱼ₎ · n / j) over the p sorted
 *                    ascending (Benjamini & Hochberg, JRSS B 57, 1995);
 *                    "qᵢ < α" keeps the false-discovery rate at α.  p and q
 *                    may be the same array.
 */
#ifndef PERFKIT_STATS_COMPARE_H
#define PERFKIT_STATS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/stats.h"

enum st_verdict { ST_V_UNAVAILABLE, ST_V_TOO_FEW, ST_V_SAME, ST_V_SMALL, ST_V_HIGHER, ST_V_LOWER };

struct st_compare {
	size_t na, nb;
	double mean_a, mean_b, sd_a, sd_b;
	bool have_ratio;            /* both means > 0 */
	struct st_ratio ratio;      /* a / b */
	double diff, diff_lo, diff_hi;   /* a − b and its 95 % interval (= diff when n < 2) */
	bool have_test;             /* n ≥ 2 on both sides */
	struct st_test welch, mw;
	bool disagree;              /* one p < alpha, the other not */
	enum st_verdict verdict;
};

/* Compares a with b at level alpha (0.05) and smallest effect min_effect_pct
 * (percent of mean(b)).  Never fails; out->verdict says what was possible. */
void st_compare(const double *a, size_t na, const double *b, size_t nb, double alpha,
		double min_effect_pct, struct st_compare *out);

/* "higher", "lower", "no_difference", "below_min_effect", "too_few_runs",
 * "unavailable" — the names the exports use. */
const char *st_verdict_name(enum st_verdict v);

/* Welch's 95 % interval half-width of mean(a) − mean(b); 0 when n < 2 or
 * there is no spread. */
double st_diff_halfwidth(const double *a, size_t na, const double *b, size_t nb);

/* Benjamini-Hochberg q-values of n p-values into q (may alias p). */
void st_bh(const double *p, size_t n, double *q);

/* Holm's adjusted p-values of n p-values into q (may alias p):
 * q₍ᵢ₎ = max_{j ≤ i} min(1, (n − j + 1) · p₍ⱼ₎) over the p sorted ascending
 * (Holm, Scand. J. Statist. 6, 1979); "qᵢ < α" keeps the chance that any
 * true null hypothesis is rejected (family-wise error) at most α, whatever
 * the number of false ones and however the tests depend on each other. */
void st_holm(const double *p, size_t n, double *q);

/*
 * Many keys (functions) measured in several profiles per side: which keys
 * changed by more than the smallest change that counts.  v holds nkeys rows
 * of na + nb values, v[k * (na + nb) + j]: key k's cost in profile j, the
 * first na profiles the OLD side, the next nb the NEW one.  Per key: the
 * means, NEW − OLD with Welch's 95 % interval, p of Welch's minimum-effect
 * test (st_welch_margin: H0 |NEW − OLD| ≤ min_effect, in v's units), and q,
 * Holm's adjustment of the p over all tested keys.  significant: q < alpha
 * (then |NEW − OLD| > min_effect): the chance that any key whose change is
 * at most min_effect is marked stays below alpha, however many keys did
 * change.  (Benjamini-Hochberg, the false-discovery rate, let that chance
 * grow with the number of changed keys: a function 2× slower and its
 * callers gave every unchanged function the threshold (R+1)·alpha/n.)
 * One profile on a side: no test (tested = false, p = q = 1), never
 * significant; a key with every value 0 on one side is "new" or "gone".
 */
enum st_set_kind { ST_SET_BOTH, ST_SET_NEW, ST_SET_GONE };

struct st_set_row {
	double mean_a, mean_b;
	double diff, diff_lo, diff_hi;
	double p, q;
	bool tested, significant;
	enum st_set_kind kind;
};

void st_compare_sets(const double *v, size_t nkeys, size_t na, size_t nb, double alpha,
		     double min_effect, struct st_set_row *out);

#endif
