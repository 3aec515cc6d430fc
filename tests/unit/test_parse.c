/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/base/parse (range-checked option values) and
 * sb_add_term (terminal escaping, in strbuf). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/parse.h"
#include "base/strbuf.h"

static void test_i64(void **state)
{
	int64_t v = 7;

	(void)state;
	assert_int_equal(pk_parse_i64("-x", "-9223372036854775808", INT64_MIN, INT64_MAX, &v), 0);
	assert_true(v == INT64_MIN);
	assert_int_equal(pk_parse_i64("-x", "+9223372036854775807", INT64_MIN, INT64_MAX, &v), 0);
	assert_true(v == INT64_MAX);
	v = 7;
	/* overflow is refused, not clamped to INT64_MAX */
	assert_int_equal(pk_parse_i64("-x", "99999999999999999999", 0, INT64_MAX, &v), -ERANGE);
	assert_true(v == 7);
	assert_string_equal(pk_errmsg(), "-x expects an integer ≥ 0, got '99999999999999999999'");
	assert_int_equal(pk_parse_i64("-P MIN", "5", 0, 4, &v), -ERANGE);
	assert_string_equal(pk_errmsg(), "-P MIN expects an integer from 0 to 4, got '5'");
	assert_int_equal(pk_parse_i64("-x", "-1", 0, 4, &v), -ERANGE);
	const char *bad[] = { "", " 1", "1 ", "1x", "x", "--1", "+", "-", "0x10", "1e3", "\t2" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(pk_parse_i64("-x", bad[i], INT64_MIN, INT64_MAX, &v), -EINVAL);
	assert_true(v == 7);
}

static void test_int_u64(void **state)
{
	int i = 3;
	uint64_t u = 3;

	(void)state;
	assert_int_equal(pk_parse_int("-r", "4294967297", 1, INT_MAX, &i), -ERANGE);  /* not 1 */
	assert_int_equal(i, 3);
	assert_int_equal(pk_parse_int("-r", "2147483647", 1, INT_MAX, &i), 0);
	assert_int_equal(i, INT_MAX);
	assert_int_equal(pk_parse_u64("-c", "18446744073709551615", 1, UINT64_MAX, &u), 0);
	assert_true(u == UINT64_MAX);
	assert_int_equal(pk_parse_u64("-c", "18446744073709551616", 1, UINT64_MAX, &u), -ERANGE);
	/* strtoull reads "-1" as 2^64-1: refused */
	assert_int_equal(pk_parse_u64("-c", "-1", 0, UINT64_MAX, &u), -EINVAL);
	assert_int_equal(pk_parse_u64("-c", "0", 1, 10, &u), -ERANGE);
	assert_string_equal(pk_errmsg(), "-c expects an integer from 1 to 10, got '0'");
}

static void test_double(void **state)
{
	double d = 2;

	(void)state;
	assert_int_equal(pk_parse_double("-d", "0.5", 0.1, 3600, &d), 0);
	assert_true(d == 0.5);
	assert_int_equal(pk_parse_double("-d", "1e3", 0, 1e7, &d), 0);
	assert_true(d == 1000);
	const char *bad[] = { "inf", "nan", "-inf", "", " 1", "1s", ".", "e5", "infinity" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(pk_parse_double("-d", bad[i], -1e9, 1e9, &d), -EINVAL);
	assert_int_equal(pk_parse_double("-d", "1e999", 0, HUGE_VAL, &d), -ERANGE);
	assert_int_equal(pk_parse_double("-d", "0.05", 0.1, 3600, &d), -ERANGE);
	assert_string_equal(pk_errmsg(), "-d expects a number from 0.1 to 3600, got '0.05'");
	assert_true(d == 1000);
	/* the quoted value is escaped and cut */
	assert_int_equal(pk_parse_double("-d", "1\n\x1b[2J", 0, 1, &d), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "got '1\\x0a\\x1b[2J'"));
	char longv[100];
	memset(longv, '9', sizeof(longv) - 1);
	longv[99] = 0;
	assert_int_equal(pk_parse_i64("-x", longv, 0, 5, &(int64_t){ 0 }), -ERANGE);
	assert_non_null(strstr(pk_errmsg(), "9999...'"));
}

static void test_term_escape(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	const char in[] = "a\nb\x1b[31m\tc\x7f" "\xc2\x9b" "d\xff" "é€ok\\x";

	(void)state;
	sb_add_term(&sb, in, sizeof(in) - 1);
	assert_string_equal(sb.buf, "a\\x0ab\\x1b[31m\\x09c\\x7f\\xc2\\x9bd\\xffé€ok\\x");
	assert_null(memchr(sb.buf, '\n', sb.len));
	assert_true(str_needs_term_escape(in, sizeof(in) - 1));
	assert_false(str_needs_term_escape("plain/path é", 13));
	sb_reset(&sb);
	sb_add_term(&sb, "\xe2\x82", 2);   /* a cut UTF-8 sequence */
	assert_string_equal(sb.buf, "\\xe2\\x82");
	sb_release(&sb);
}

/* perf's id and CPU lists (record and stat -p/-t/-C) */
static void test_lists(void **state)
{
	int v[4], n = -1;

	(void)state;
	assert_int_equal(pk_parse_id_list("-p", "12,3", v, 4, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0], 12);
	assert_int_equal(v[1], 3);
	assert_int_equal(pk_parse_id_list("-p", "1,,2", v, 4, &n), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "an empty id in '1,,2'"));
	assert_int_equal(pk_parse_id_list("-t", "1,", v, 4, &n), -EINVAL);
	assert_int_equal(pk_parse_id_list("-p", "0", v, 4, &n), -ERANGE);
	assert_int_equal(pk_parse_id_list("-p", "1,2,3,4,5", v, 4, &n), -E2BIG);
	assert_int_equal(n, 2);   /* untouched on error */

	assert_int_equal(pk_parse_cpu_list("-C", "0", v, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0], 0);
	assert_int_equal(pk_parse_cpu_list("-C", "0,0", v, 4, &n), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "CPU 0 given twice"));
	assert_int_equal(pk_parse_cpu_list("-C", "x", v, 4, &n), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "expected a CPU list such as 0,2-3, got 'x'"));
	assert_int_equal(pk_parse_cpu_list("-C", "1-0", v, 4, &n), -EINVAL);
	assert_int_equal(pk_parse_cpu_list("-C", "-1", v, 4, &n), -EINVAL);
	assert_int_equal(pk_parse_cpu_list("-C", "0,", v, 4, &n), 0);   /* perf's: a trailing comma */
	assert_int_equal(pk_parse_cpu_list("-C", "99999999", v, 4, &n), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "does not exist"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_i64),
		cmocka_unit_test(test_int_u64),
		cmocka_unit_test(test_double),
		cmocka_unit_test(test_term_escape),
		cmocka_unit_test(test_lists),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
