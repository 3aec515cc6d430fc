/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/stack/folded: interning, aggregation, byte-wise
 * sorted output (Perl's `sort keys`), integer and fractional counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack/folded.h"

static char *dump(const struct folded *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(folded_write(f, m), 0);
	fclose(m);
	return buf;
}

static void test_intern(void **state)
{
	struct folded f;

	(void)state;
	folded_init(&f);
	uint32_t a = folded_frame_id(&f, "main", 4);
	uint32_t b = folded_frame_id(&f, "work", 4);
	assert_int_not_equal(a, b);
	assert_int_equal(folded_frame_id(&f, "main", 4), a);
	size_t len;
	assert_string_equal(folded_frame_name(&f, b, &len), "work");
	assert_int_equal(len, 4);
	folded_release(&f);
}

static void test_aggregate_and_sort(void **state)
{
	struct folded f;

	(void)state;
	folded_init(&f);
	folded_add_stack(&f, "ab", 2, 1);
	folded_add_stack(&f, "a;b", 3, 2);
	folded_add_stack(&f, "a", 1, 3);
	folded_add_stack(&f, "a;b", 3, 5);
	folded_add_stack(&f, "B;x", 3, 7);
	folded_add_stack(&f, "a;;c", 4, 1);     /* empty frame kept */
	assert_int_equal(folded_nr(&f), 5);
	char *out = dump(&f);
	/* byte order: 'B' < 'a'; "a" < "a;;c" < "a;b" < "ab" (';' < 'b') */
	assert_string_equal(out, "B;x 7\na 3\na;;c 1\na;b 7\nab 1\n");
	free(out);

	/* ids and text name the same stack */
	uint32_t ids[2] = { folded_frame_id(&f, "a", 1), folded_frame_id(&f, "b", 1) };
	folded_add_ids(&f, ids, 2, 10);
	assert_int_equal(folded_nr(&f), 5);
	out = dump(&f);
	assert_non_null(strstr(out, "\na;b 17\n"));
	free(out);
	folded_release(&f);
}

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Many stacks sharing long prefixes (the radix sort's levels), bytes
 * above 0x7f (compared unsigned), a stack the prefix of another: the
 * lines come out in memcmp's order, as qsort of the texts puts them. */
static void test_sort_many(void **state)
{
	struct folded f;
	enum { N = 3000 };
	char **want = malloc(N * sizeof(*want)), line[160];
	unsigned seed = 12345;

	(void)state;
	folded_init(&f);
	for (int i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		int depth = (int)(seed >> 16) % 6;
		int n = snprintf(line, sizeof(line), "_start;__libc_start_main;main;run_all_the_things");

		for (int d = 0; d < depth; d++) {
			seed = seed * 1103515245u + 12345u;
			n += snprintf(line + n, sizeof(line) - (size_t)n, ";f%c%u", (seed >> 30) ? 'x' : '\xe9',
				      (seed >> 8) % 7);
		}
		n += snprintf(line + n, sizeof(line) - (size_t)n, ";leaf%d", i);
		folded_add_stack(&f, line, (size_t)n, 1);
		want[i] = strdup(line);
	}
	qsort(want, N, sizeof(*want), cmp_lines);
	char *out = dump(&f), *p = out;

	for (int i = 0; i < N; i++) {
		size_t l = strlen(want[i]);

		assert_memory_equal(p, want[i], l);
		assert_memory_equal(p + l, " 1\n", 3);
		p += l + 3;
		free(want[i]);
	}
	assert_int_equal(*p, 0);
	free(out);
	free(want);
	folded_release(&f);
}

/* A name holding a NUL byte (binary garbage read as a frame): sorted as
 * memcmp sorts it, the NUL below every other byte, the line kept whole. */
static void test_sort_nul(void **state)
{
	struct folded f;
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	folded_init(&f);
	folded_add_stack(&f, "a;b\0z", 5, 1);
	folded_add_stack(&f, "a;b", 3, 2);
	folded_add_stack(&f, "a;b\x01", 4, 3);
	FILE *m = open_memstream(&buf, &len);
	assert_non_null(m);
	assert_int_equal(folded_write(&f, m), 0);
	fclose(m);
	assert_int_equal(len, 4 + 2 + 6 + 2 + 5 + 2);
	assert_memory_equal(buf, "a;b 2\na;b\0z 1\na;b\x01 3\n", len);
	free(buf);
	folded_release(&f);
}

static void test_counts(void **state)
{
	struct folded f;

	(void)state;
	folded_init(&f);
	folded_add_stack(&f, "big", 3, UINT64_C(18446744073709551000));
	folded_add_stack(&f, "half", 4, 1);
	folded_add_stack_frac(&f, "half", 4, 0.5);
	folded_add_stack_frac(&f, "third", 5, 1.0 / 3);
	char *out = dump(&f);
	assert_string_equal(out, "big 18446744073709551000\nhalf 1.5\nthird 0.333333333333333\n");
	free(out);
	folded_release(&f);
}

static void test_empty(void **state)
{
	struct folded f;

	(void)state;
	folded_init(&f);
	char *out = dump(&f);
	assert_string_equal(out, "");
	free(out);
	folded_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intern),
		cmocka_unit_test(test_aggregate_and_sort),
		cmocka_unit_test(test_sort_many),
		cmocka_unit_test(test_sort_nul),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
