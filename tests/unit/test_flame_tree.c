/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for flame_render_tree (src/lib/flame/render.c): a tree of
 * named frames is drawn byte for byte as flame_render draws the folded
 * lines of its stacks — random trees whose names sort around the ' ' and
 * ';' of folded lines ("f", "f x", "f.x", "f 1" beside a count of 1 …),
 * zero counts, an empty stack — and a frame whose own line and children
 * are split by a sibling's block is drawn twice, as flamegraph.pl does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame/flame.h"

/* The last NCOUNTLIKE end in " DIGITS": never a leaf, where the folded
 * text would read them as a second count (a differential line). */
static const char *const NAMES[] = {
	"f", "f x", "f.x", "f 2x", "f0", "f:x", "f!", "F", "g", "g.y", "f_x", "f-x", "f 1", "f 12", "f 9",
};
#define NNAMES (sizeof(NAMES) / sizeof(NAMES[0]))
#define NCOUNTLIKE 3

struct tnode {
	uint32_t parent, name;
	unsigned long long count;
	int end;
};

struct tree {
	struct tnode v[64];
	size_t nr;
};

static void t_node(const void *ctx, size_t i, uint32_t *parent, uint32_t *name)
{
	const struct tree *t = ctx;

	*parent = t->v[i].parent;
	*name = t->v[i].name;
}

static const char *t_name(const void *ctx, uint32_t id, size_t *len)
{
	(void)ctx;
	*len = strlen(NAMES[id]);
	return NAMES[id];
}

static size_t t_count(const void *ctx, size_t i, char *buf, size_t size)
{
	const struct tree *t = ctx;

	if (!t->v[i].end)
		return 0;
	return (size_t)snprintf(buf, size, "%llu", t->v[i].count);
}

static uint64_t rng = 88172645463325252ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* The child of parent named name, made when new. */
static uint32_t child(struct tree *t, uint32_t parent, uint32_t name)
{
	for (size_t i = 1; i < t->nr; i++)
		if (t->v[i].parent == parent && t->v[i].name == name)
			return (uint32_t)i;
	t->v[t->nr] = (struct tnode){ parent, name, 0, 0 };
	return (uint32_t)t->nr++;
}

/* The folded lines of the tree's stacks, in node order (not sorted). */
static void folded_text(const struct tree *t, struct strbuf *sb)
{
	for (size_t i = 0; i < t->nr; i++) {
		uint32_t path[64];
		size_t d = 0;

		if (!t->v[i].end)
			continue;
		for (uint32_t v = (uint32_t)i; v; v = t->v[v].parent)
			path[d++] = v;
		for (size_t k = d; k-- > 0;) {
			sb_addstr(sb, NAMES[t->v[path[k]].name]);
			if (k)
				sb_addch(sb, ';');
		}
		char num[32];

		snprintf(num, sizeof(num), " %llu\n", t->v[i].count);
		sb_addstr(sb, num);
	}
}

static void render_both(const struct tree *t, const struct flame_opts *o, struct strbuf *from_tree,
			struct strbuf *from_text, int *rt, int *rx)
{
	struct flame_tree ft = { t->nr, t, t_node, t_name, t_count };
	struct flame_input in;
	struct strbuf text = STRBUF_INIT;
	struct flame_stats s1, s2;

	*rt = flame_render_tree(&ft, o, from_tree, &s1);
	folded_text(t, &text);
	flame_input_init(&in);
	flame_input_add_buf(&in, text.buf ? text.buf : "", text.len);
	*rx = flame_render(&in, o, from_text, &s2);
	if (*rt == 0 && *rx == 0) {
		assert_int_equal(s1.lines, s2.lines);
		assert_int_equal(s1.frames, s2.frames);
		assert_true(s1.total == s2.total);
	}
	flame_input_release(&in);
	sb_release(&text);
}

static void test_random_trees_draw_as_text(void **state)
{
	(void)state;
	for (int round = 0; round < 400; round++) {
		struct tree t = { .nr = 1 };
		struct flame_opts o;
		int stacks = 1 + (int)rnd(14);

		t.v[0] = (struct tnode){ UINT32_MAX, UINT32_MAX, 0, 0 };
		for (int s = 0; s < stacks && t.nr < 56; s++) {
			uint32_t v = 0;
			int depth = 1 + (int)rnd(4);

			for (int d = 0; d < depth && t.nr < 60; d++)
				v = child(&t, v, rnd(d == 0 ? 3 : d == depth - 1 ? NNAMES - NCOUNTLIKE : NNAMES));
			t.v[v].end = 1;
			/* small counts, so that "f 1" meets the count 1 or 12 */
			t.v[v].count += rnd(4) == 0 ? 0 : rnd(3) == 0 ? 12 : 1 + rnd(20);
		}
		if (round % 50 == 7) {   /* an empty stack: the root's own line */
			t.v[0].end = 1;
			t.v[0].count = 3;
		}
		flame_opts_init(&o);
		if (round & 1)
			o.minwidth = 0;
		if (round % 3 == 0)
			o.inverted = 1;
		if (round % 5 == 0)
			o.colormode = FLAME_COLOR_HASH;
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
		int ra, rb;

		render_both(&t, &o, &a, &b, &ra, &rb);
		assert_int_equal(ra, rb);
		if (!a.len || a.len != b.len || memcmp(a.buf, b.buf, a.len)) {
			struct strbuf text = STRBUF_INIT;

			folded_text(&t, &text);
			print_message("round %d differs; stacks:\n%s", round, text.buf ? text.buf : "");
			sb_release(&text);
			fail();
		}
		sb_release(&a);
		sb_release(&b);
	}
}

static size_t occurrences(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

/* "g;f 5", "g;f.x;F 1", "g;f;f0 2": the lines sort as "g;f 5" <
 * "g;f.x;…" < "g;f;…", so "f" is closed by "f.x" and opened again: two
 * "f" frames under one "g". */
static void test_split_frame(void **state)
{
	(void)state;
	struct tree t = { .nr = 1 };
	struct flame_opts o;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	int ra, rb;

	t.v[0] = (struct tnode){ UINT32_MAX, UINT32_MAX, 0, 0 };
	/* NAMES: "g" 8, "f" 0, "f.x" 2, "F" 7, "f0" 4 */
	uint32_t va = child(&t, 0, 8), vb = child(&t, va, 0), vbc = child(&t, va, 2);
	uint32_t vx = child(&t, vbc, 7), vy = child(&t, vb, 4);

	t.v[vb].end = 1;
	t.v[vb].count = 5;
	t.v[vx].end = 1;
	t.v[vx].count = 1;
	t.v[vy].end = 1;
	t.v[vy].count = 2;
	flame_opts_init(&o);
	o.minwidth = 0;
	render_both(&t, &o, &a, &b, &ra, &rb);
	assert_int_equal(ra, 0);
	assert_int_equal(rb, 0);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.buf, b.buf, a.len);
	assert_int_equal(occurrences(a.buf, "<title>f ("), 2);   /* b drawn twice */
	assert_int_equal(occurrences(a.buf, "<title>g ("), 1);
	sb_release(&a);
	sb_release(&b);
}

/* No stack, or only zero counts: the "no data" picture and -ENODATA, as
 * from the text; options that rewrite the text are refused. */
static void test_empty_and_refused(void **state)
{
	(void)state;
	struct tree t = { .nr = 1 };
	struct flame_opts o;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	int ra, rb;

	t.v[0] = (struct tnode){ UINT32_MAX, UINT32_MAX, 0, 0 };
	flame_opts_init(&o);
	render_both(&t, &o, &a, &b, &ra, &rb);
	assert_int_equal(ra, -ENODATA);
	assert_int_equal(rb, -ENODATA);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.buf, b.buf, a.len);
	sb_release(&a);
	sb_release(&b);

	uint32_t v = child(&t, 0, 8);

	t.v[v].end = 1;   /* count 0 */
	render_both(&t, &o, &a, &b, &ra, &rb);
	assert_int_equal(ra, -ENODATA);
	assert_int_equal(rb, -ENODATA);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.buf, b.buf, a.len);
	sb_release(&a);
	sb_release(&b);

	struct flame_tree ft = { t.nr, &t, t_node, t_name, t_count };

	o.reverse = 1;
	assert_int_equal(flame_render_tree(&ft, &o, &a, NULL), -ENOTSUP);
	sb_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_trees_draw_as_text),
		cmocka_unit_test(test_split_frame),
		cmocka_unit_test(test_empty_and_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
