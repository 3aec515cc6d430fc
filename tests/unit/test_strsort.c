/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/base/strsort.c: the order is strcmp()'s (bytes
 * unsigned), for many strings with long shared prefixes, high bytes,
 * prefixes of one another, duplicates, and short inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strsort.h"

static int cmp(const void *a, const void *b)
{
	return strcmp(((const struct pk_strrec *)a)->s, ((const struct pk_strrec *)b)->s);
}

static uint64_t st = 0x9e3779b97f4a7c15u;
static uint32_t rnd(uint32_t n)
{
	st ^= st << 13;
	st ^= st >> 7;
	st ^= st << 17;
	return (uint32_t)(st % n);
}

static void check(size_t n, int kind)
{
	char **strs = calloc(n, sizeof(*strs));
	struct pk_strrec *a = calloc(n + 1, sizeof(*a)), *b = calloc(n + 1, sizeof(*b));

	for (size_t i = 0; i < n; i++) {
		char buf[64];

		switch (kind) {
		case 0:   /* report's unknown addresses and symbols */
			if (rnd(3))
				snprintf(buf, sizeof(buf), "[%c] %-#.16llx", rnd(2) ? '.' : 'k',
					 (unsigned long long)rnd(1u << 20) * (rnd(4) ? 1 : 0x10001));
			else
				snprintf(buf, sizeof(buf), "[.] std::basic_string::f%u", rnd(500));
			break;
		case 1: {   /* random bytes, high ones too, lengths 0..20 */
			size_t l = rnd(21);

			for (size_t j = 0; j < l; j++)
				buf[j] = (char)(1 + rnd(255));
			buf[l] = '\0';
			break;
		}
		case 3: {   /* runs of 0xff: digits of all ones (the in-place
			     * reordering marks places apart from the digits) */
			size_t l = 8 + rnd(12);

			memset(buf, 0xff, l);
			buf[rnd((unsigned)l)] = (char)(1 + rnd(255));
			buf[l] = '\0';
			break;
		}
		default:   /* prefixes of one another: a, aa, aaa... of 'a'/'b' */
			memset(buf, rnd(2) ? 'a' : 'b', 1 + rnd(40));
			buf[rnd(41) + 1] = '\0';
			break;
		}
		strs[i] = strdup(buf);
		a[i] = b[i] = (struct pk_strrec){ strs[i], (uint32_t)i };
	}
	pk_strsort(a, n);
	qsort(b, n, sizeof(*b), cmp);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(a[i].s, b[i].s);
		assert_ptr_equal(a[i].s, strs[a[i].id]);   /* ids move with their strings */
	}
	for (size_t i = 0; i < n; i++)
		free(strs[i]);
	free(strs);
	free(a);
	free(b);
}

static void test_orders(void **state)
{
	static const size_t sizes[] = { 0, 1, 2, 5, 23, 24, 25, 100, 1000, 20000 };

	(void)state;
	for (int kind = 0; kind < 4; kind++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			check(sizes[i], kind);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_orders),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
