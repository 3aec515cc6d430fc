/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpimodel.h — an estimate of cycles from simulated counts: base CPI plus a
 * penalty per miss at each level and per mispredicted branch, the constants
 * measured on this machine by `perfkit calibrate` and cached in a file.
 * Used by `perfkit stat --simulate` (estimated cycles and IPC, and where the
 * cycles go) and by `perfkit calibrate` (the fit itself).
 *
 * THE FORMULA
 *   cycles = base_cpi · Ir
 *          + pen[L1]   · (I1mr + D1mr + D1mw)          L1 misses (served by L2)
 *          + pen[L2]   · (I2mr + D2mr + D2mw + PW2m)   L2 misses (served by LL)
 *          + pen[LL]   · (ILmr + DLmr + DLmw + PWLm)   LL misses (served by memory)
 *          + pen[TLB]  · (DTmr + DTmw)                 first-level data TLB misses
 *          + pen[WALK] · (STmr + STmw)                 second-level TLB misses (page walks)
 *          + pen[BMISS]· (Bcm + Bim + Brm)             mispredicted branches and returns
 * (PW2m / PWLm: page walks whose page-table load missed L2 / LL, counted
 * as the misses they are; write-backs D1wb L2wb LLwb and the prefetch
 * counts are not in the formula.)
 * The levels are additive: a miss in L1, L2 and LL pays all three
 * penalties, so pen[L2] is the extra cost of going past L2, not the total.
 * Counts come from the event names of a Cachegrind-format "events:" line
 * (cpi_counts_from_events); an event not in the table above is ignored, a
 * class none of whose events is present has have[c] = false and costs 0.
 * The model is the textbook "CPI stack" (Hennessy & Patterson, Computer
 * Architecture, ch. 2/B: CPI = CPI_base + Σ miss rate · miss penalty);
 * out-of-order overlap is not modelled, it is what the fitted penalties
 * absorb (they come out lower than the load-to-use latencies).
 *
 * Built-in defaults (cpi_params_default, used and said so when there is no
 * calibration): base CPI 0.40; penalties L1 6, L2 30, LL 150, TLB 8, WALK
 * 30, BMISS 15 cycles — round figures for a current x86-64 core (L2 hit
 * ~14, LL ~50, DRAM ~300 cycles load-to-use; mispredict ~15–20; discounted
 * for overlap), not measurements.
 *
 * The cachegrind model's estimate (cpi_cachegrind_cycles), the figure to
 * beat: KCachegrind's default "Cycle Estimation",
 *   CEst = Ir + 10 · Bm + 10 · L1m + 100 · LLm,
 * with L1m = I1mr + D1mr + D1mw, LLm = ILmr + DLmr + DLmw, Bm = Bcm + Bim
 * (the cachegrind model has no PW2m, PWLm or Brm events).
 *
 * Fitting (cpi_fit): minimise the squared error of the logarithms,
 *   Σ_i (ln Σ_j x_j · a_ij − ln y_i)²,  x ≥ 0,  base_cpi ≥ CPI_BASE_MIN,
 * where row i is a kernel's counts per operation (Ir, then one column per
 * class) and y_i its measured cycles per operation.  Log error because the
 * suite is judged on ranks over four decades: a 2× error counts the same at
 * 0.05 cycles per byte copied as at 500 cycles per DRAM miss.  Two stages:
 * non-negative least squares on relative error (Σ (pred − y)² / y²), solved
 * by cyclic coordinate descent on the normal equations (convex, converges),
 * then, from the better (in log error) of that and the starting values, a
 * coordinate search: each constant multiplied or divided by 4, 2, 1.5, 1.2,
 * 1.1, 1.05, 1.02, set to its floor, or from 0 back to its default — the
 * best move taken until none helps.  The floor CPI_BASE_MIN (0.15: no
 * current core sustains more than about 6–7 instructions per cycle) keeps
 * kernels whose simulated instruction count overstates the work (Valgrind
 * counts every iteration of `rep movsb`, glibc's memcpy above a few KiB, as
 * an instruction) from driving the base CPI towards 0.  A column that is 0
 * in every row keeps its starting value and is flagged not fitted.
 * -EINVAL when n < 2 or a y_i ≤ 0.
 *
 * Spearman's rank correlation (cpi_spearman): Pearson's correlation of the
 * ranks, ties given their average rank.  -EINVAL when n < 2 or a series is
 * constant.
 *
 * Calibration file (cpi_params_read / cpi_params_write): text, one
 * "KEY VALUE" per line, '#' comments, written whole or not at all
 * (base/outfile).  Keys: version (1), base_cpi, l1, l2, ll, tlb, walk,
 * bmiss (cycles, finite, >= 0), freq_mhz, and free-text host, date,
 * freq_source, spearman.  Read: -ENOENT when the file does not exist
 * (callers fall back to the defaults); -EINVAL with "FILE:LINE: …" for a bad
 * line, an unknown version or a missing penalty.
 * Default place (cpi_params_path): $PERFKIT_CPIMODEL if set, else
 * $XDG_CACHE_HOME/perfkit/cpimodel, else $HOME/.cache/perfkit/cpimodel;
 * -ENOENT when none of these can be formed.
 *
 * Reading (cpi_reading), on the model's breakdown, shares of b->total
 * compared as printed (whole percent):
 *   misses (L1 + L2 + LL + TLB + walks) >= 50 %   memory-bound
 *   mispredicts >= 20 %                             branchy
 *   compute >= 70 %                                 compute-bound
 *   none of these                                   mixed
 * Each line names the shares that decided it and the largest miss level.
 *
 * Frequency (cpi_host_mhz): the mean "cpu MHz" of /proc/cpuinfo (ROOT/proc/
 * cpuinfo), else cpufreq's cpuinfo_max_freq (kHz) of cpu0; *source says
 * which.  -ENOENT when neither is readable.
 */
#ifndef PERFKIT_CPIMODEL_H
#define PERFKIT_CPIMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPI_BASE_MIN 0.15

enum cpi_class { CPI_L1, CPI_L2, CPI_LL, CPI_TLB, CPI_WALK, CPI_BMISS, CPI_NCLASS };

/* Short names ("l1", …) as in the calibration file, and labels for output. */
extern const char *const cpi_class_key[CPI_NCLASS];
extern const char *const cpi_class_label[CPI_NCLASS];

struct cpi_params {
	double base_cpi;
	double pen[CPI_NCLASS];       /* cycles per event */
	bool calibrated;              /* false: the built-in defaults */
	bool fitted[CPI_NCLASS];      /* the calibration had data for it */
	double freq_mhz;              /* frequency the calibration used, 0 unknown */
	char host[96], date[32], freq_source[64], spearman[32];
};

struct cpi_counts {
	double instr;                 /* Ir */
	double n[CPI_NCLASS];
	bool have[CPI_NCLASS];        /* at least one event of the class present */
};

struct cpi_breakdown {
	double compute;               /* base_cpi · Ir */
	double part[CPI_NCLASS];
	double total;
};

void cpi_params_default(struct cpi_params *p);

/* Sum the events of each class from an events:/totals pair.  Ir missing
 * gives -EINVAL (no instruction count: not a simulator's output). */
int cpi_counts_from_events(const char *const *names, const uint64_t *vals, size_t n,
			   struct cpi_counts *c);

/* Cycles of c under p, and where they go. */
double cpi_predict(const struct cpi_params *p, const struct cpi_counts *c,
		   struct cpi_breakdown *b);

/* KCachegrind's cycle estimation on the cachegrind model's counts. */
double cpi_cachegrind_cycles(const struct cpi_counts *c);

/* Fit p (base_cpi and pen[]) to rows c[i] → cycles y[i]; p holds the
 * starting values (and what unfitted classes keep).  0 or -EINVAL. */
int cpi_fit(const struct cpi_counts *c, const double *y, size_t n, struct cpi_params *p);

int cpi_spearman(const double *x, const double *y, size_t n, double *rho);

int cpi_params_path(char *buf, size_t len);
int cpi_params_read(const char *path, struct cpi_params *p);
int cpi_params_write(const char *path, const struct cpi_params *p);

int cpi_host_mhz(const char *root, double *mhz, const char **source);

#define CPI_MEMORY_BOUND_PCT 50
#define CPI_BRANCHY_PCT 20
#define CPI_COMPUTE_PCT 70

struct strbuf;
/* Append the reading of b: lines ending in '\n'. */
void cpi_reading(const struct cpi_breakdown *b, struct strbuf *out);

#endif
