/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/cachesim/cpimodel: counts from event names, the
 * prediction and its breakdown, the non-negative fit (recovering known
 * constants), Spearman's rho (hand-computed), the calibration file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "cachesim/cpimodel.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void test_counts(void **state)
{
	const char *names[] = { "Ir", "I1mr", "D1mr", "D1mw", "D2mr", "DLmr", "Bcm", "Bim", "XYZ" };
	const uint64_t v[] = { 1000, 1, 20, 5, 7, 3, 11, 2, 99 };
	struct cpi_counts c;

	(void)state;
	assert_int_equal(cpi_counts_from_events(names, v, 9, &c), 0);
	NEAR(c.instr, 1000, 0);
	NEAR(c.n[CPI_L1], 26, 0);
	NEAR(c.n[CPI_L2], 7, 0);
	NEAR(c.n[CPI_LL], 3, 0);
	NEAR(c.n[CPI_BMISS], 13, 0);
	assert_false(c.have[CPI_TLB]);
	assert_true(c.have[CPI_L2]);
	/* no Ir: not a simulator's output */
	assert_int_equal(cpi_counts_from_events(names + 1, v + 1, 8, &c), -EINVAL);
}

static void test_predict(void **state)
{
	struct cpi_params p;
	struct cpi_counts c = { .instr = 1000 };
	struct cpi_breakdown b;

	(void)state;
	cpi_params_default(&p);
	assert_false(p.calibrated);
	c.n[CPI_L1] = 10; c.have[CPI_L1] = true;
	c.n[CPI_LL] = 2; c.have[CPI_LL] = true;
	c.n[CPI_BMISS] = 4; c.have[CPI_BMISS] = true;
	c.n[CPI_TLB] = 50;   /* have = false: ignored */
	/* 0.4·1000 + 6·10 + 150·2 + 15·4 = 400 + 60 + 300 + 60 */
	NEAR(cpi_predict(&p, &c, &b), 820, 1e-9);
	NEAR(b.compute, 400, 1e-9);
	NEAR(b.part[CPI_LL], 300, 1e-9);
	NEAR(b.part[CPI_TLB], 0, 0);
	/* CEst = Ir + 10 Bm + 10 L1m + 100 LLm = 1000 + 40 + 100 + 200 */
	NEAR(cpi_cachegrind_cycles(&c), 1340, 1e-9);
}

static void test_fit_recovers(void **state)
{
	/* rows made with known constants; the fit must find them again */
	const double truth_base = 0.3, truth[CPI_NCLASS] = { 5, 20, 200, 0, 0, 18 };
	struct cpi_counts c[8];
	double y[8];
	struct cpi_params p;

	(void)state;
	for (int i = 0; i < 8; i++) {
		memset(&c[i], 0, sizeof(c[i]));
		c[i].instr = 10 + i * 3;
		c[i].n[CPI_L1] = (i * 7) % 5;
		c[i].n[CPI_L2] = (i * 3) % 4 * 0.5;
		c[i].n[CPI_LL] = i == 6 ? 1 : (i % 3) * 0.1;
		c[i].n[CPI_BMISS] = (i % 2) * 0.3 + (i == 2);
		c[i].n[CPI_TLB] = i == 5 ? 0.5 : 0;
		for (int k = 0; k < CPI_NCLASS; k++)
			c[i].have[k] = k != CPI_WALK;
		y[i] = truth_base * c[i].instr;
		for (int k = 0; k < CPI_NCLASS; k++)
			y[i] += truth[k] * c[i].n[k];
	}
	cpi_params_default(&p);
	assert_int_equal(cpi_fit(c, y, 8, &p), 0);
	NEAR(p.base_cpi, truth_base, 1e-4);
	for (int k = 0; k < CPI_NCLASS; k++)
		if (k != CPI_WALK)
			NEAR(p.pen[k], truth[k], 1e-3 * (truth[k] + 1));
	/* WALK never occurs: kept at its default, flagged not fitted */
	assert_false(p.fitted[CPI_WALK]);
	NEAR(p.pen[CPI_WALK], 30, 0);
	assert_true(p.fitted[CPI_LL]);
	/* non-negative: data that would want a negative penalty gets 0 */
	for (int i = 0; i < 8; i++)
		y[i] = 0.5 * c[i].instr - 1.0 * c[i].n[CPI_L1] + 1;
	assert_int_equal(cpi_fit(c, y, 8, &p), 0);
	for (int k = 0; k < CPI_NCLASS; k++)
		assert_true(p.pen[k] >= 0);
	assert_true(p.base_cpi >= 0);
	/* data that wants base CPI 0.05 gets the floor */
	for (int i = 0; i < 8; i++)
		y[i] = 0.05 * c[i].instr + 5 * c[i].n[CPI_L1] + 0.01;
	assert_int_equal(cpi_fit(c, y, 8, &p), 0);
	NEAR(p.base_cpi, CPI_BASE_MIN, 1e-12);
	y[3] = 0;
	assert_int_equal(cpi_fit(c, y, 8, &p), -EINVAL);
	assert_int_equal(cpi_fit(c, y, 1, &p), -EINVAL);
}

static void test_spearman(void **state)
{
	const double x[] = { 1, 2, 3, 4, 5 }, up[] = { 10, 20, 25, 100, 1000 };
	const double down[] = { 5, 4, 3, 2, 1 }, mixed[] = { 2, 1, 4, 3, 5 };
	const double tie[] = { 1, 1, 2, 3, 4 }, flat[] = { 7, 7, 7, 7, 7 };
	double r;

	(void)state;
	assert_int_equal(cpi_spearman(x, up, 5, &r), 0);
	NEAR(r, 1, 1e-12);
	assert_int_equal(cpi_spearman(x, down, 5, &r), 0);
	NEAR(r, -1, 1e-12);
	/* d = (1,1,1,1,0): 1 - 6·4/(5·24) = 0.8 */
	assert_int_equal(cpi_spearman(x, mixed, 5, &r), 0);
	NEAR(r, 0.8, 1e-12);
	/* ties: ranks (1.5,1.5,3,4,5) against (1..5): Pearson of ranks */
	assert_int_equal(cpi_spearman(x, tie, 5, &r), 0);
	NEAR(r, 0.9746794344808963, 1e-12);
	assert_int_equal(cpi_spearman(x, flat, 5, &r), -EINVAL);
	assert_int_equal(cpi_spearman(x, up, 1, &r), -EINVAL);
}

static void test_file(void **state)
{
	char dir[] = "/tmp/pk_cpim.XXXXXX", path[256];
	struct cpi_params p, q;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/cpimodel", dir);
	assert_int_equal(cpi_params_read(path, &q), -ENOENT);
	cpi_params_default(&p);
	p.base_cpi = 0.25;
	p.pen[CPI_LL] = 123.5;
	p.freq_mhz = 2596.1;
	snprintf(p.host, sizeof(p.host), "Test CPU");
	assert_int_equal(cpi_params_write(path, &p), 0);
	assert_int_equal(cpi_params_read(path, &q), 0);
	assert_true(q.calibrated);
	NEAR(q.base_cpi, 0.25, 1e-9);
	NEAR(q.pen[CPI_LL], 123.5, 1e-9);
	NEAR(q.freq_mhz, 2596.1, 1e-6);
	assert_string_equal(q.host, "Test CPU");

	f = fopen(path, "w");
	fputs("version 1\nbase_cpi 0.3\nl1 -4\n", f);
	fclose(f);
	assert_int_equal(cpi_params_read(path, &q), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "cpimodel:3: 'l1' expects a non-negative number"));
	f = fopen(path, "w");
	fputs("version 1\nbase_cpi 0.3\nl1 4\n", f);
	fclose(f);
	assert_int_equal(cpi_params_read(path, &q), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "no 'l2' line"));
	f = fopen(path, "w");
	fputs("version 2\n", f);
	fclose(f);
	assert_int_equal(cpi_params_read(path, &q), -EINVAL);
	unlink(path);
	rmdir(dir);
}

static void test_host_mhz(void **state)
{
	char dir[] = "/tmp/pk_mhz.XXXXXX", p[256];
	double mhz;
	const char *src;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(cpi_host_mhz(dir, &mhz, &src), -ENOENT);
	snprintf(p, sizeof(p), "%s/proc", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/proc/cpuinfo", dir);
	f = fopen(p, "w");
	fputs("processor\t: 0\ncpu MHz\t\t: 2000.000\nprocessor\t: 1\ncpu MHz\t\t: 3000.000\n", f);
	fclose(f);
	assert_int_equal(cpi_host_mhz(dir, &mhz, &src), 0);
	NEAR(mhz, 2500, 1e-9);
	assert_non_null(strstr(src, "cpu MHz"));
	unlink(p);
	snprintf(p, sizeof(p), "%s/proc", dir);
	rmdir(p);
	rmdir(dir);
}

static void test_reading(void **state)
{
	struct cpi_breakdown b = { .compute = 30, .part = { 20, 0, 30, 0, 0, 20 }, .total = 100 };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	/* misses 50 % (LL the most, 30 %), mispredicts 20 %: both said */
	cpi_reading(&b, &sb);
	assert_non_null(strstr(sb.buf, "memory-bound: 50% of the model's cycles"));
	assert_non_null(strstr(sb.buf, "LL misses (30%)"));
	assert_non_null(strstr(sb.buf, "branchy: 20%"));
	sb_reset(&sb);
	/* 49.6 % prints as 50 %, and the words follow the number shown */
	b = (struct cpi_breakdown){ .compute = 50.4, .part = { 49.6 }, .total = 100 };
	cpi_reading(&b, &sb);
	assert_non_null(strstr(sb.buf, "memory-bound: 50%"));
	sb_reset(&sb);
	b = (struct cpi_breakdown){ .compute = 80, .part = { 10, 0, 0, 0, 0, 10 }, .total = 100 };
	cpi_reading(&b, &sb);
	assert_non_null(strstr(sb.buf, "compute-bound: 80%"));
	sb_reset(&sb);
	b = (struct cpi_breakdown){ .compute = 60, .part = { 30, 0, 0, 0, 0, 10 }, .total = 100 };
	cpi_reading(&b, &sb);
	assert_non_null(strstr(sb.buf, "mixed: 60%"));
	sb_reset(&sb);
	b = (struct cpi_breakdown){ 0 };
	cpi_reading(&b, &sb);
	assert_int_equal(sb.len, 0);
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_predict),
		cmocka_unit_test(test_fit_recovers),
		cmocka_unit_test(test_spearman),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_host_mhz),
		cmocka_unit_test(test_reading),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
