/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/cgfile: the Cachegrind output format reader —
 * well-formed files (short count lines, fi=/fe=, comments), and every kind
 * of bad line reported as FILE:LINE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "base/error.h"
#include "cgfile/cgfile.h"

static int parse(const char *text, struct cgfile **cg)
{
	pk_error_clear();
	return cgfile_parse(text, strlen(text), "t.out", cg);
}

static void test_good(void **state)
{
	struct cgfile *cg;
	const char *t =
		"desc: I1 cache:         32768 B, 64 B, 8-way associative\n"
		"desc: D1 cache:         32768 B, 64 B, 8-way associative\n"
		"cmd: ./prog a b\n"
		"events: Ir Dr D1mr\n"
		"# a comment\n"
		"fl=/src/a.c\n"
		"fn=main\n"
		"10 5 2 1\n"
		"11 3\n"
		"\n"
		"fn=helper\n"
		"20 7 1 0\n"
		"fi=/src/a.h\n"
		"3 1 1 1\n"
		"fe=/src/a.c\n"
		"21 1 0 0\n"
		"summary: 17 4 2\n";

	(void)state;
	assert_int_equal(parse(t, &cg), 0);
	assert_int_equal(cg->ndesc, 2);
	assert_string_equal(cg->cmd, "./prog a b");
	assert_int_equal(cg->nev, 3);
	assert_string_equal(cg->ev[2], "D1mr");
	assert_int_equal(cgfile_event(cg, "Dr"), 1);
	assert_int_equal(cgfile_event(cg, "Bc"), -1);
	assert_int_equal(cg->nrecs, 5);
	assert_string_equal(cg->recs[1].fn, "main");
	assert_int_equal(cg->recs[1].line, 11);
	assert_true(cgfile_counts(cg, 1)[0] == 3 && cgfile_counts(cg, 1)[1] == 0 &&
		    cgfile_counts(cg, 1)[2] == 0);
	assert_string_equal(cg->recs[3].file, "/src/a.h");
	assert_string_equal(cg->recs[3].fn, "helper");
	assert_true(cg->recs[0].file == cg->recs[4].file);	/* interned */
	assert_true(cg->totals[0] == 17 && cg->totals[1] == 4 && cg->totals[2] == 2);
	assert_true(cg->has_summary && cg->summary[0] == 17);
	assert_string_equal(pk_warnings_take(), "");
	cgfile_free(cg);
}

static void test_summary_mismatch_warns(void **state)
{
	struct cgfile *cg;

	(void)state;
	assert_int_equal(parse("cmd: x\nevents: Ir\nfl=f\nfn=g\n1 5\nsummary: 6\n", &cg), 0);
	assert_non_null(strstr(pk_warnings_take(), "summary Ir = 6 but the lines add up to 5"));
	cgfile_free(cg);
	/* no summary: totals are used */
	assert_int_equal(parse("cmd: x\nevents: Ir\nfl=f\n1 5\n", &cg), 0);
	assert_true(cg->summary[0] == 5);
	assert_string_equal(cg->recs[0].fn, "???");
	cgfile_free(cg);
}

struct bad {
	const char *text, *msg;
};

static void test_bad(void **state)
{
	static const struct bad cases[] = {
		{ "cmd: x\nevents: Ir\nfl=f\nfn=g\n1 2 3\n", "t.out:5: expected a line number and up to 1 counts" },
		{ "cmd: x\nevents: Ir\nfl=f\nfn=g\n1 x\n", "t.out:5: expected a line number" },
		{ "cmd: x\nevents: Ir\nfl=f\nfn=g\n1 --3\n", "t.out:5:" },
		{ "cmd: x\nevents: Ir\nfl=f\nfn=g\n-1 3\n", "t.out:5: unrecognised line" },
		{ "cmd: x\nevents: Ir\nfl=f\nfn=g\n1 9223372036854775808\n", "t.out:5: expected a line number" },
		{ "cmd: x\nevents: Ir\nfl=f\nfn=g\n1 99999999999999999999999\n", "t.out:5:" },
		{ "cmd: x\nevents: Ir\nfl=f\nfn=g\n9999999999 1\n", "t.out:5: line number 9999999999 out of range" },
		{ "cmd: x\nfl=f\nfn=g\n1 2\n", "t.out:4: count line before the events: line" },
		{ "cmd: x\nevents: Ir\n1 2\n", "t.out:3: count line before any fl= line" },
		{ "cmd: x\nevents: Ir\nbogus\n", "t.out:3: unrecognised line 'bogus'" },
		{ "cmd: x\nevents:\n", "t.out:2: events: line names no event" },
		{ "cmd: x\nevents: Ir\nevents: Dr\n", "t.out:3: second events: line" },
		{ "cmd: x\ncmd: y\n", "t.out:2: second cmd: line" },
		{ "cmd: x\nevents: Ir\ndesc: late\n", "t.out:3: desc: line after cmd:/events:" },
		{ "cmd: x\nevents: Ir\nfl=f\n1 1\nsummary: 1\n2 2\n", "t.out:6: text after the summary: line" },
		{ "cmd: x\nevents: Ir\nsummary: 1 2\n", "t.out:3: summary: expected up to 1 counts" },
		{ "events: Ir\nfl=f\n1 1\n", "t.out: no cmd: line" },
		{ "cmd: x\n", "t.out: no events: line" },
		{ "cmd: x\nevents: Ir\nfl=f\n1 9223372036854775807\n2 1\n", "t.out:5: total of event Ir overflows" },
		{ "", "t.out: no cmd: line" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cgfile *cg = (struct cgfile *)1;

		assert_int_equal(parse(cases[i].text, &cg), -EINVAL);
		assert_null(cg);
		if (!strstr(pk_errmsg(), cases[i].msg))
			fail_msg("case %zu: got '%s', want '%s'", i, pk_errmsg(), cases[i].msg);
	}
	/* a NUL byte inside the text */
	{
		static const char t[] = "cmd: x\nevents: Ir\nfl=f\0\n";
		struct cgfile *cg;

		assert_int_equal(cgfile_parse(t, sizeof(t) - 1, "t.out", &cg), -EINVAL);
		assert_non_null(strstr(pk_errmsg(), "t.out:3: NUL byte"));
	}
}

/* cg_diff's output: counts may be negative (OLD subtracted from NEW),
 * read as two's complement, summed, printed with the sign. */
static void test_negative(void **state)
{
	static const char t[] = "desc: Files compared: a; b\ncmd: x\nevents: Ir Dr \nfl=f\nfn=g\n"
				"1 -1099044 5\n2 44 -7\nsummary: -1099000 -2\n";
	struct cgfile *cg;
	char b[32];

	(void)state;
	assert_int_equal(cgfile_parse(t, sizeof(t) - 1, "t.out", &cg), 0);
	assert_int_equal((int64_t)cgfile_counts(cg, 0)[0], -1099044);
	assert_int_equal((int64_t)cgfile_counts(cg, 1)[1], -7);
	assert_int_equal((int64_t)cg->totals[0], -1099000);
	assert_int_equal((int64_t)cg->totals[1], -2);
	assert_int_equal((int64_t)cg->summary[0], -1099000);
	cgfile_fmt_count(b, sizeof(b), cg->totals[0]);
	assert_string_equal(b, "-1,099,000");
	cgfile_fmt_count(b, sizeof(b), (uint64_t)-(int64_t)100);
	assert_string_equal(b, "-100");
	cgfile_fmt_count(b, sizeof(b), 1234567);
	assert_string_equal(b, "1,234,567");
	cgfile_free(cg);
}

static void test_read_errors(void **state)
{
	struct cgfile *cg;

	(void)state;
	assert_true(cgfile_read("/nonexistent/pk.out", &cg) == -ENOENT);
	assert_non_null(strstr(pk_errmsg(), "cannot open '/nonexistent/pk.out'"));
	assert_int_equal(cgfile_read("/", &cg), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "not a regular file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_summary_mismatch_warns),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_negative),
		cmocka_unit_test(test_read_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
