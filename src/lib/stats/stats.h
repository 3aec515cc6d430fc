/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats.h — descriptive statistics, outliers, two-sample tests and ratios
 * for perfkit stat / bench (and any command that compares measurements).
 *
 * Inputs are arrays of doubles (x, n); functions never modify x (those that
 * need order sort a private copy).  Nothing here prints, exits or returns
 * NaN/inf for a defined input: where a quantity is undefined (n too small,
 * a zero mean, zero spread) the function says so in its return value as
 * documented below.  Formulas and sources:
 *
 *  mean          x̄ = Σx / n                                        (n = 0 → 0)
 *  sample σ      s = sqrt(Σ(x − x̄)² / (n − 1))   (Bessel; n < 2 → 0)
 *                computed with Welford's one-pass update (Welford 1962,
 *                Knuth TAOCP vol. 2 §4.2.2), stable for large offsets.
 *  std. error    SE = s / sqrt(n)                               (n < 2 → 0)
 *  rel. SE %     100 · SE / |x̄| — what `perf stat -r` prints as
 *                "( +- X% )" (tools/perf/util/stat.c rel_stddev_stats);
 *                x̄ = 0 → 0.  [10, 12, 14] → 9.62 %.
 *  median        middle of the sorted copy; mean of the two middles for even n
 *  MAD           median(|xᵢ − median|), unscaled
 *  modified z    Mᵢ = 0.6745 (xᵢ − median) / MAD; |Mᵢ| > 3.5 is an outlier
 *                (Iglewicz & Hoaglin, "How to Detect and Handle Outliers",
 *                ASQC 1993).  MAD = 0 (more than half the values equal):
 *                the mean absolute deviation from the median, MeanAD, is used
 *                as Mᵢ = (xᵢ − median) / (1.253314 · MeanAD) (IBM SPSS
 *                convention); MeanAD = 0 too → no value is an outlier.  Never
 *                divides by zero.
 *  Welch t       t = (x̄₁ − x̄₂) / sqrt(s₁²/n₁ + s₂²/n₂),
 *                ν = (s₁²/n₁ + s₂²/n₂)² / ((s₁²/n₁)²/(n₁−1) + (s₂²/n₂)²/(n₂−1))
 *                (Welch 1947); two-sided p = I_{ν/(ν+t²)}(ν/2, 1/2), the
 *                regularized incomplete beta function (Abramowitz & Stegun
 *                26.7.1, evaluated by its continued fraction, A&S 26.5.8).
 *  Mann-Whitney  U₁ = R₁ − n₁(n₁+1)/2 with mid-ranks for ties; normal
 *                approximation z = (U₁ − n₁n₂/2) / σ_U with the tie-corrected
 *                σ_U² = n₁n₂/12 · ((N+1) − Σ(t³−t)/(N(N−1))) and a 0.5
 *                continuity correction; two-sided p = erfc(|z|/√2)
 *                (Mann & Whitney 1947; Lehmann, Nonparametrics, 1975).
 *  ratio         r = x̄₁ / x̄₂; σ_r = r · sqrt((s₁/x̄₁)² + (s₂/x̄₂)²) (first-order
 *                error propagation, as hyperfine shows "± σ");
 *                95 % confidence interval by the delta method on log r:
 *                exp(ln r ± t_{0.975,ν} · sqrt((SE₁/x̄₁)² + (SE₂/x̄₂)²)), ν the
 *                Welch degrees of freedom (normal quantile when ν is undefined).
 */
#ifndef PERFKIT_STATS_H
#define PERFKIT_STATS_H

#include <stdbool.h>
#include <stddef.h>

double st_mean(const double *x, size_t n);
double st_stddev(const double *x, size_t n);     /* sample σ (N−1); n < 2 → 0 */
double st_stderr(const double *x, size_t n);     /* σ/√n; n < 2 → 0 */
double st_rel_stderr_pct(const double *x, size_t n); /* perf's "+- X%"; mean 0 → 0 */
double st_median(const double *x, size_t n);     /* n = 0 → 0 */
double st_mad(const double *x, size_t n);        /* unscaled MAD; n = 0 → 0 */

/* Summary of one sample. */
struct st_summary {
	size_t n;
	double mean, stddev, stderr_, rel_stderr_pct, median, mad, min, max;
};
void st_summarize(const double *x, size_t n, struct st_summary *out);

#define ST_OUTLIER_Z 3.5

/* Marks outliers by the modified z-score (|M| > threshold; use ST_OUTLIER_Z).
 * out may be NULL.  Returns the number of outliers. */
size_t st_outliers(const double *x, size_t n, double threshold, bool *out);

/* Whether `outliers` (by ST_OUTLIER_Z) among n values are worth a warning:
 * more than ST_OUTLIER_WARN_SHARE of them.  Gaussian noise alone puts 0.05 %
 * of values past |M| > 3.5 and timings have a heavier right tail, so one slow
 * run in a thousand is ordinary noise; one in ten is not.  (hyperfine instead
 * counts a run an outlier only past |x − median| / MAD > 14.826, 10 σ, and
 * warns on any one.) */
#define ST_OUTLIER_WARN_SHARE 0.01
bool st_outliers_notable(size_t outliers, size_t n);

/* Student's t distribution: two-sided tail probability P(|T| > |t|) with
 * nu > 0 degrees of freedom, and the quantile q with P(T ≤ q) = p, 0<p<1. */
double st_t_two_sided_p(double t, double nu);
double st_t_quantile(double p, double nu);

struct st_test {
	double statistic;   /* t (Welch) or z (Mann-Whitney) */
	double df;          /* Welch degrees of freedom; 0 for Mann-Whitney */
	double p;           /* two-sided p-value in [0, 1] */
};

/* Welch's unequal-variance t-test.  0, or -EDOM when undefined: fewer than
 * 2 values in a sample.  Both variances 0: p = 1 if the means are equal,
 * else p = 0 (the samples cannot overlap), df = n₁ + n₂ − 2. */
int st_welch(const double *a, size_t na, const double *b, size_t nb, struct st_test *out);

/* Welch's test of a minimum effect: H0 |mean(a) − mean(b)| ≤ margin (≥ 0)
 * against |mean(a) − mean(b)| > margin.  statistic t = (|diff| − margin)/se
 * with Welch's se and df; p = P(|T_ν| > t) = st_t_two_sided_p(t, ν) when
 * |diff| > margin, else 1 (its level is at most the nominal one anywhere in
 * H0: at |diff| = margin one tail is exactly half of it).  margin 0 is
 * st_welch.  No spread: p = 0 when |diff| > margin, else 1.  0, or -EDOM
 * as st_welch. */
int st_welch_margin(const double *a, size_t na, const double *b, size_t nb, double margin,
		    struct st_test *out);

/* Mann-Whitney U (normal approximation).  0, or -EDOM when a sample is
 * empty.  statistic = z; p = 1 when all values are tied. */
int st_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		    struct st_test *out);

struct st_ratio {
	double ratio;       /* mean(a) / mean(b) */
	double sigma;       /* propagated σ of the ratio (0 when n < 2) */
	double ci_lo, ci_hi;/* 95 % confidence interval (= ratio when n < 2) */
};

/* Ratio of means a / b with uncertainty.  0, or -EDOM when a mean is 0 or
 * negative or a sample is empty (the comparison is "unavailable"). */
int st_ratio(const double *a, size_t na, const double *b, size_t nb, struct st_ratio *out);

#endif
