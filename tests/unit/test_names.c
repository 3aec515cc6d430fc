/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/profile/names.c: the model's stacks named and
 * merged by name — frames of two DSOs with one name are one node, threads
 * named alike are one, a frame named by nothing is skipped, an inline
 * chain is several nodes, periods summed, zero periods still end a stack,
 * siblings in the order first made, the walk's stop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/names.h"
#include "prof_model.h"

static const char LIB[] = "/lib/libx.so";

/* a frame of the program at the start of its symbol */
static struct pk_frame at(const char *sym, uint64_t ip)
{
	return fr(EXE, sym, ip, ip);
}

/* name ids: an index into this table */
static const char *const NAMES[] = { "proga", "progb", "main", "f", "g", "outer", "inner" };

static uint32_t name_id(const char *s)
{
	for (uint32_t i = 0; i < sizeof(NAMES) / sizeof(NAMES[0]); i++)
		if (!strcmp(NAMES[i], s))
			return i;
	fail_msg("no name %s", s);
	return 0;
}


struct namer {
	const struct prof *p;
	uint32_t ids[4];
	int calls;
};

/* threads by comm; "skip" named by nothing, "inl" by outer;inner, others
 * by their symbol */
static const uint32_t *namer(void *arg, uint32_t thread, uint32_t frame, size_t *n)
{
	struct namer *m = arg;

	m->calls++;
	if (frame == PROF_NONE) {
		m->ids[0] = name_id(prof_thread(m->p, thread)->comm);
		*n = 1;
		return m->ids;
	}
	const char *sym = prof_frame(m->p, frame)->sym;

	if (!strcmp(sym, "skip")) {
		*n = 0;
	} else if (!strcmp(sym, "inl")) {
		m->ids[0] = name_id("outer");
		m->ids[1] = name_id("inner");
		*n = 2;
	} else {
		m->ids[0] = name_id(sym);
		*n = 1;
	}
	return m->ids;
}

struct seen {
	char text[1024];
	size_t len;
	int nr, stop_after;
};

static int on_named(void *arg, const uint32_t *names, size_t n, const struct prof_nnode *end)
{
	struct seen *s = arg;

	for (size_t i = 0; i < n; i++)
		s->len += (size_t)snprintf(s->text + s->len, sizeof(s->text) - s->len, "%s%s", i ? ";" : "",
					   NAMES[names[i]]);
	s->len += (size_t)snprintf(s->text + s->len, sizeof(s->text) - s->len, " %llu/%u\n",
				   (unsigned long long)end->period, end->count);
	return ++s->nr == s->stop_after ? 9 : 0;
}

static void test_names_merge(void **state)
{
	(void)state;
	struct prof *p = prof_new(0);
	struct pk_frame mn = at("main", 0x10), f = at("f", 0x20), f2 = fr(LIB, "f", 0x1020, 0x1020);
	struct pk_frame g = at("g", 0x30), skip = at("skip", 0x40), inl = at("inl", 0x50);
	struct namer nm = { .p = p };
	struct prof_names t;
	struct seen s = { 0 };

	add(p, CA, 1, 10, 2, mn, f);          /* proga;main;f */
	add(p, CA, 1, 20, 3, mn, f, g);       /* proga;main;f;g */
	add(p, CA, 2, 5, 2, mn, f2);          /* another thread, f of another DSO: proga;main;f */
	add(p, CB, 3, 3, 3, mn, skip, g);     /* skip named by nothing: progb;main;g */
	add(p, CB, 3, 4, 2, mn, g);           /* the same named stack */
	add(p, CA, 1, 1, 3, mn, inl, g);      /* proga;main;outer;inner;g */
	add(p, CA, 1, 0, 2, mn, inl);         /* period 0: still a stack */
	prof_names_make(p, namer, &nm, &t);
	assert_int_equal(nm.calls, (int)prof_nr_nodes(p) - 1);
	assert_int_equal(prof_names_walk(&t, on_named, &s), 0);
	assert_string_equal(s.text, "proga;main;f 15/2\n"
				    "proga;main;f;g 20/1\n"
				    "progb;main;g 7/2\n"
				    "proga;main;outer;inner 0/1\n"   /* node order: inner made first */
				    "proga;main;outer;inner;g 1/1\n");
	/* the shape: the root, siblings distinct and in the order first made */
	assert_int_equal(t.v[0].parent, PROF_NONE);
	assert_false(t.v[0].end);
	uint32_t a = t.v[0].child, b = t.v[a].next;

	assert_string_equal(NAMES[t.v[a].name], "proga");
	assert_string_equal(NAMES[t.v[b].name], "progb");
	assert_int_equal(t.v[b].next, PROF_NONE);
	for (size_t i = 1; i < t.nr; i++) {
		assert_true(t.v[i].parent < i);
		for (uint32_t x = t.v[i].next; x != PROF_NONE; x = t.v[x].next)
			assert_int_not_equal(t.v[x].name, t.v[i].name);
	}
	assert_int_equal(t.nr, 1 + 2 + 2 + 1 + 1 + 1 + 1 + 1 + 1);  /* root, 2 threads, 2 main, f, g, g, outer, inner, g */
	/* a nonzero return stops the walk and is returned */
	memset(&s, 0, sizeof(s));
	s.stop_after = 2;
	assert_int_equal(prof_names_walk(&t, on_named, &s), 9);
	assert_int_equal(s.nr, 2);
	prof_names_free(&t);
	prof_free(p);
}

static void test_names_empty(void **state)
{
	(void)state;
	struct prof *p = prof_new(0);
	struct namer nm = { .p = p };
	struct prof_names t;
	struct seen s = { 0 };

	prof_names_make(p, namer, &nm, &t);
	assert_int_equal(t.nr, 1);
	assert_int_equal(prof_names_walk(&t, on_named, &s), 0);
	assert_int_equal(s.nr, 0);
	prof_names_free(&t);
	prof_free(p);
}

/* every frame named by its frame id + 1, every thread 0 */
static const uint32_t *by_id(void *arg, uint32_t thread, uint32_t frame, size_t *n)
{
	uint32_t *id = arg;

	(void)thread;
	*id = frame == PROF_NONE ? 0 : frame + 1;
	*n = 1;
	return id;
}

/* Many distinct stacks: the lookup grows and finds every node again. */
static void test_names_many(void **state)
{
	(void)state;
	static char syms[3000][8];
	struct prof *p = prof_new(0);
	struct prof_names t;
	uint32_t id;

	for (int i = 0; i < 3000; i++) {
		snprintf(syms[i], sizeof(syms[i]), "s%d", i);
		add(p, CA, 1, 1, 2, fr(EXE, "main", 0x10, 0x10), at(syms[i], 0x100 + (uint64_t)i));
	}
	for (int i = 0; i < 3000; i++)
		add(p, CA, 1, 2, 2, fr(EXE, "main", 0x10, 0x10), at(syms[i], 0x100 + (uint64_t)i));
	prof_names_make(p, by_id, &id, &t);
	assert_int_equal(t.nr, 1 + 1 + 1 + 3000);   /* root, thread, main, the leaves */
	for (size_t i = 3; i < t.nr; i++) {
		assert_true(t.v[i].end);
		assert_int_equal(t.v[i].parent, 2);
		assert_int_equal(t.v[i].period, 3);
		assert_int_equal(t.v[i].count, 2);
	}
	prof_names_free(&t);
	prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_merge),
		cmocka_unit_test(test_names_empty),
		cmocka_unit_test(test_names_many),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
