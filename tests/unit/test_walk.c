/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/profile/walk.c: the model's stacks one by one
 * (root first, each stack once with its period and count, threads apart,
 * inner nodes without samples not visited, the callback's stop). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/walk.h"
#include "prof_model.h"

/* the stacks seen, as "comm:sym;sym;… period/count" lines */
struct seen {
	const struct prof *p;
	char text[1024];
	size_t len;
	int stop_after;
	int nr;
};

static int on_stack(void *arg, uint32_t thread, const uint32_t *frames, size_t n, const struct prof_node *end)
{
	struct seen *s = arg;

	s->len += (size_t)snprintf(s->text + s->len, sizeof(s->text) - s->len, "%s:",
				   prof_thread(s->p, thread)->comm);
	for (size_t i = 0; i < n; i++)
		s->len += (size_t)snprintf(s->text + s->len, sizeof(s->text) - s->len, "%s%s", i ? ";" : "",
					   prof_frame(s->p, frames[i])->sym);
	s->len += (size_t)snprintf(s->text + s->len, sizeof(s->text) - s->len, " %llu/%u\n",
				   (unsigned long long)end->period, end->count);
	return ++s->nr == s->stop_after ? 7 : 0;
}

static void test_walk_stacks(void **state)
{
	(void)state;
	struct prof *p = prof_new(0);
	struct pk_frame mn = fr(EXE, "main", 0x10, 0x10), f = fr(EXE, "f", 0x20, 0x20), g = fr(EXE, "g", 0x30, 0x30),
			h = fr(EXE, "h", 0x40, 0x40);
	struct seen s = { .p = p };

	add(p, CA, 1, 10, 2, mn, f);          /* main;f */
	add(p, CA, 1, 20, 3, mn, f, g);       /* main;f;g */
	add(p, CB, 2, 3, 3, mn, f, g);        /* another thread: its own stack */
	add(p, CA, 1, 5, 2, mn, f);           /* main;f again: summed */
	add(p, CA, 1, 1, 3, mn, h, g);        /* main;h;g: main has no samples of its own */
	assert_int_equal(prof_walk_stacks(p, on_stack, &s), 0);
	assert_string_equal(s.text, "proga:main;f 15/2\n"
				    "proga:main;f;g 20/1\n"
				    "progb:main;f;g 3/1\n"
				    "proga:main;h;g 1/1\n");
	/* a nonzero return stops the walk and is returned */
	memset(&s, 0, sizeof(s));
	s.p = p;
	s.stop_after = 2;
	assert_int_equal(prof_walk_stacks(p, on_stack, &s), 7);
	assert_int_equal(s.nr, 2);
	prof_free(p);
}

static void test_walk_empty(void **state)
{
	(void)state;
	struct prof *p = prof_new(0);
	struct seen s = { .p = p };

	assert_int_equal(prof_walk_stacks(p, on_stack, &s), 0);
	assert_int_equal(s.nr, 0);
	prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_stacks),
		cmocka_unit_test(test_walk_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
