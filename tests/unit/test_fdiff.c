/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/flame/fdiff.h and stats' st_compare_sets: several
 * folded profiles a side → which functions changed (inclusive cost, values
 * as % of OLD's mean total or shares, gone/new), the table's text and JSON,
 * and the SVG's colours and classes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flame/fdiff.h"
#include "stats/compare.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static const struct fdiff_row *row(const struct fdiff *d, const char *name)
{
	for (size_t i = 0; i < d->nrows; i++)
		if (d->rows[i].len == strlen(name) && !memcmp(d->rows[i].name, name, d->rows[i].len))
			return &d->rows[i];
	return NULL;
}

/* OLD: f 100 ± 2, g 200 ± 2, strtod 50; NEW: f 200 ± 2, g 200 ± 2, mine 10 */
static void fill(struct fdiff *d)
{
	const int jit[] = { -2, 1, 0, 2, -1 };
	char buf[256];

	for (int side = 0; side < 2; side++)
		for (int i = 0; i < 5; i++) {
			int n = snprintf(buf, sizeof(buf),
					 "prog;main;f %d\nprog;main;g %d\nprog;main;%s %d\nnot a line\n",
					 (side ? 200 : 100) + jit[i], 200 - jit[i], side ? "mine" : "strtod",
					 side ? 10 + jit[(i + 1) % 5] : 50 + jit[(i + 2) % 5]);
			fdiff_add_buf(d, side, buf, (size_t)n);
		}
}

static void test_fdiff_rows(void **state)
{
	struct fdiff_opts o = FDIFF_OPTS_INIT;
	struct fdiff d;

	(void)state;
	fdiff_init(&d, &o);
	fill(&d);
	fdiff_compute(&d);
	assert_int_equal(d.skipped, 10);
	NEAR(d.base, 350, 1e-9);
	const struct fdiff_row *f = row(&d, "f"), *g = row(&d, "g"), *s = row(&d, "strtod"),
			       *m = row(&d, "mine"), *mn = row(&d, "main");
	assert_non_null(f);
	assert_non_null(g);
	assert_non_null(s);
	assert_non_null(m);
	assert_non_null(mn);
	/* % of OLD's mean total (350): f 28.57 → 57.14 */
	NEAR(f->incl.mean_a, 100.0 / 3.5, 1e-9);
	NEAR(f->incl.mean_b, 200.0 / 3.5, 1e-9);
	assert_true(f->incl.significant && f->incl.diff_lo > 0);
	assert_false(g->incl.significant);       /* unchanged cost */
	NEAR(g->incl.diff, 0, 1e-9);
	assert_int_equal(s->incl.kind, ST_SET_GONE);
	assert_int_equal(m->incl.kind, ST_SET_NEW);
	assert_true(s->incl.significant && m->incl.significant);
	assert_true(mn->incl.significant);       /* the caller: inclusive */
	NEAR(mn->self_a, 0, 0);
	NEAR(f->self_b, f->incl.mean_b, 1e-9);
	/* sorted: significant first, by |change| */
	assert_true(d.rows[0].incl.significant);
	assert_false(d.rows[d.nrows - 1].incl.significant);

	struct strbuf t = STRBUF_INIT, j = STRBUF_INIT, svg = STRBUF_INIT;
	fdiff_text(&d, false, SIZE_MAX, &t);
	assert_non_null(strstr(t.buf, "5 OLD profiles, 5 NEW profiles"));
	assert_non_null(strstr(t.buf, "gone"));
	assert_non_null(strstr(t.buf, "  f\n"));
	fdiff_json(&d, &j);
	assert_non_null(strstr(j.buf, "\"name\": \"strtod\""));
	assert_non_null(strstr(j.buf, "\"kind\": \"gone\""));
	assert_int_equal(fdiff_svg(&d, "t", &svg), 0);
	/* g's frame grey and "nosig", f's coloured and "sig" */
	const char *gf = strstr(svg.buf, "<g class=\"nosig\"><title>g: before");
	const char *ff = strstr(svg.buf, "<g class=\"sig\"><title>f: before");
	assert_non_null(gf);
	assert_non_null(ff);
	assert_non_null(strstr(gf, "fill=\"rgb(200,200,200)\""));
	assert_true(strstr(ff, "fill=\"rgb(255,") == strstr(ff, "fill=\""));
	sb_release(&t);
	sb_release(&j);
	sb_release(&svg);
	fdiff_release(&d);
}

static void test_fdiff_share_and_one(void **state)
{
	struct fdiff_opts o = FDIFF_OPTS_INIT;
	struct fdiff d;

	(void)state;
	o.share = true;
	fdiff_init(&d, &o);
	fill(&d);
	fdiff_compute(&d);
	/* shares: g's share falls when f grows — it "changes" */
	assert_true(row(&d, "g")->incl.significant);
	NEAR(row(&d, "prog")->incl.mean_a, 100, 1e-9);
	fdiff_release(&d);

	/* one profile a side: nothing tested, nothing significant */
	o.share = false;
	fdiff_init(&d, &o);
	fdiff_add_buf(&d, 0, "a;f 10\na;g 10\n", 14);
	fdiff_add_buf(&d, 1, "a;f 30\na;g 10\n", 14);
	fdiff_compute(&d);
	for (size_t i = 0; i < d.nrows; i++) {
		assert_false(d.rows[i].incl.significant);
		assert_false(d.rows[i].incl.tested);
	}
	NEAR(row(&d, "f")->incl.diff, 100, 1e-9);
	fdiff_release(&d);
}

static void test_compare_sets(void **state)
{
	/* 3 keys x (3 + 3) profiles; key 1 identical, key 2 zero in OLD */
	const double v[] = {
		10, 11, 12,   20, 21, 22,
		5, 5, 5,      5, 5, 5,
		0, 0, 0,      1, 2, 1,
	};
	struct st_set_row r[3];

	(void)state;
	st_compare_sets(v, 3, 3, 3, 0.05, 0.5, r);
	assert_true(r[0].tested && r[0].significant);
	NEAR(r[0].diff, 10, 1e-9);
	assert_false(r[1].significant);
	NEAR(r[1].p, 1, 0);
	assert_int_equal(r[2].kind, ST_SET_NEW);
	assert_true(r[0].q >= r[0].p);
	/* with min_effect above the change, no key is significant */
	st_compare_sets(v, 3, 3, 3, 0.05, 50, r);
	assert_false(r[0].significant || r[2].significant);
}

static void test_fdiff_recursion(void **state)
{
	struct fdiff_opts o = FDIFF_OPTS_INIT;
	struct fdiff d;

	(void)state;
	fdiff_init(&d, &o);
	/* f recurses through b: counted once per stack in its inclusive cost */
	fdiff_add_buf(&d, 0, "a;f;b;f 10\na;c 10\n", 19);
	fdiff_add_buf(&d, 1, "a;f;b;f 10\na;c 10\n", 19);
	fdiff_compute(&d);
	NEAR(row(&d, "f")->incl.mean_a, 50, 1e-9);
	NEAR(row(&d, "f")->self_a, 50, 1e-9);
	NEAR(row(&d, "b")->self_a, 0, 1e-9);
	NEAR(row(&d, "a")->incl.mean_a, 100, 1e-9);
	fdiff_release(&d);
}

/* the CSV and Markdown tables: every row in CSV (a name with a comma or a
 * quote quoted, RFC 4180), the significant ones in Markdown (| and `
 * backslashed, a control character escaped) */
static void test_fdiff_csv_markdown(void **state)
{
	struct fdiff_opts o = FDIFF_OPTS_INIT;
	struct fdiff d;
	struct strbuf csv = STRBUF_INIT, md = STRBUF_INIT;
	const int jit[] = { -2, 1, 0, 2, -1 };
	char buf[256];

	(void)state;
	fdiff_init(&d, &o);
	for (int side = 0; side < 2; side++)
		for (int i = 0; i < 5; i++) {
			int n = snprintf(buf, sizeof(buf), "main;pair<int, \"x\"> %d\nmain;a|b`c\033 %d\n",
					 (side ? 200 : 100) + jit[i], (side ? 150 : 100) - jit[i]);
			fdiff_add_buf(&d, side, buf, (size_t)n);
		}
	fdiff_compute(&d);
	fdiff_csv(&d, "old,1", "new", &csv);
	assert_non_null(strstr(csv.buf, "\"old,1\",new,\"pair<int, \"\"x\"\">\",50,100,50,"));
	assert_non_null(strstr(csv.buf, ",true,both,"));
	size_t lines = 0;
	for (size_t i = 0; i < csv.len; i++)
		lines += csv.buf[i] == '\n';
	assert_int_equal(lines, d.nrows);
	fdiff_markdown(&d, &md);
	assert_non_null(strstr(md.buf, "| `pair<int, \"x\">` | 50.00 | 100.00 | +50.00 |"));
	assert_non_null(strstr(md.buf, "| `a\\|b\\`c"));
	assert_null(strchr(md.buf, '\033'));
	assert_non_null(strstr(md.buf, "Holm"));
	sb_release(&csv);
	sb_release(&md);
	fdiff_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fdiff_rows),
		cmocka_unit_test(test_fdiff_share_and_one),
		cmocka_unit_test(test_compare_sets),
		cmocka_unit_test(test_fdiff_csv_markdown),
		cmocka_unit_test(test_fdiff_recursion),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
