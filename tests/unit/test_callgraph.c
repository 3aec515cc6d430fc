/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/callgraph: stacks, trees, perf's stdio layouts
 * (expected texts written from perf 6.1's output for the same trees). */
#include <setjmp.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph/callgraph.h"

static const char EXE[] = "/bin/prog", LIBC[] = "/lib/libc.so.6";

/* L = __libc_start_call_main, M = main, then a, b, c, d */
enum { L, M, A, B, C, D, NR };
static uint32_t ids[NR];

static struct cg_forest *forest(void)
{
	static const char *names[NR] = { "__libc_start_call_main", "main", "a", "b", "c", "d" };
	struct cg_forest *f = cg_forest_new();

	for (int i = 0; i < NR; i++) {
		struct cg_frame fr = { .sym = names[i], .dso = i == L ? LIBC : EXE, .start = 0x1000u * (unsigned)i };

		ids[i] = cg_frame_id(f, &fr);
	}
	return f;
}

static char *print(struct cg_forest *f, uint32_t tree, const struct cg_params *p, uint64_t total, uint64_t entry)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	cg_tree_print(fp, f, tree, p, total, entry);
	fclose(fp);
	return buf;
}

static void add(struct cg_forest *f, uint32_t tree, uint64_t period, int n, ...)
{
	uint32_t chain[16];
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		chain[i] = ids[va_arg(ap, int)];
	va_end(ap);
	cg_tree_add(f, tree, chain, (size_t)n, period, 1);
}

/* children mode, caller order: the entry "a" of a 1000-period event */
static uint32_t tree_a(struct cg_forest *f)
{
	uint32_t t = cg_tree_new(f);

	add(f, t, 120, 3, L, M, A);   /* a's own samples: the whole chain */
	add(f, t, 120, 2, A, B);      /* from a towards the leaf */
	add(f, t, 500, 3, A, B, C);
	return t;
}

static void test_graph(void **state)
{
	struct cg_forest *f = forest();
	uint32_t t = tree_a(f);
	struct cg_params p = { .mode = CG_GRAPH, .threshold = 0.5 };
	char *s = print(f, t, &p, 1000, 740);

	(void)state;
	assert_string_equal(s, "            |          \n"
			       "            |--62.00%--a\n"
			       "            |          b\n"
			       "            |          |          \n"
			       "            |           --50.00%--c\n"
			       "            |          \n"
			       "             --12.00%--__libc_start_call_main\n"
			       "                       main\n"
			       "                       a\n"
			       "\n");
	free(s);
	/* threshold 20 %: the 12 % branch goes; the one left is not the
	 * whole entry, so it keeps its percentage */
	p.threshold = 20;
	s = print(f, t, &p, 1000, 740);
	assert_string_equal(s, "            |          \n"
			       "             --62.00%--a\n"
			       "                       b\n"
			       "                       |          \n"
			       "                        --50.00%--c\n"
			       "\n");
	free(s);
	/* threshold 70 %: nothing, not even the blank line */
	p.threshold = 70;
	s = print(f, t, &p, 1000, 740);
	assert_string_equal(s, "");
	free(s);
	cg_forest_free(f);
}

static void test_single_chain(void **state)
{
	struct cg_forest *f = forest();
	uint32_t t = cg_tree_new(f);
	struct cg_params p = { .mode = CG_GRAPH, .threshold = 0.5 };
	char *s;

	(void)state;
	add(f, t, 300, 4, L, M, A, B);
	add(f, t, 100, 4, L, M, D, C);
	s = print(f, t, &p, 1000, 400);
	assert_string_equal(s, "            |\n"
			       "            ---__libc_start_call_main\n"
			       "               main\n"
			       "               |          \n"
			       "               |--30.00%--a\n"
			       "               |          b\n"
			       "               |          \n"
			       "                --10.00%--d\n"
			       "                          c\n"
			       "\n");
	free(s);
	/* --sort sym: the lone chain's first frame is the entry's symbol */
	p.skip_first = true;
	s = print(f, t, &p, 1000, 400);
	assert_string_equal(s, "            |\n"
			       "            ---main\n"
			       "               |          \n"
			       "               |--30.00%--a\n"
			       "               |          b\n"
			       "               |          \n"
			       "                --10.00%--d\n"
			       "                          c\n"
			       "\n");
	free(s);
	cg_forest_free(f);
}

/* perf's -g keys: address makes a node per address and shows each frame's
 * srcline; srcline makes one node of the frames of one line, whatever
 * their function (named after the first). */
static void test_keys(void **state)
{
	static const char *l12 = "x.c:12", *l13 = "x.c:13", *off = "+7";
	struct cg_params p = { .mode = CG_GRAPH, .threshold = 0.5 };
	struct cg_frame fr[] = {
		{ .sym = "main", .dso = EXE, .ip = 0x10, .srcline = l12 },
		{ .sym = "main", .dso = EXE, .ip = 0x20, .srcline = l13 },
		{ .sym = "f", .dso = EXE, .ip = 0x30, .srcline = l12 },
		{ .sym = "g", .dso = LIBC, .ip = 0x40, .srcline = off },
	};
	enum cg_key keys[] = { CG_KEY_FUNCTION, CG_KEY_ADDRESS, CG_KEY_SRCLINE };
	const char *want[] = {
		/* function: main's two addresses one node, f apart */
		"            |\n"
		"            ---g\n"
		"               |          \n"
		"               |--60.00%--main\n"
		"               |          \n"
		"                --30.00%--f\n"
		"\n",
		/* address: a node per address, each with its srcline */
		"            |\n"
		"            ---g +7\n"
		"               |          \n"
		"               |--40.00%--main x.c:13\n"
		"               |          \n"
		"               |--30.00%--f x.c:12\n"
		"               |          \n"
		"                --20.00%--main x.c:12\n"
		"\n",
		/* srcline: main at line 12 and f one node (main's name, met
		 * first), line 13 apart */
		"            |\n"
		"            ---g +7\n"
		"               |          \n"
		"               |--50.00%--main x.c:12\n"
		"               |          \n"
		"                --40.00%--main x.c:13\n"
		"\n",
	};

	(void)state;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		struct cg_forest *f = cg_forest_new();
		uint32_t id[4], t;
		char *s;

		cg_forest_set_key(f, keys[k]);
		for (int i = 0; i < 4; i++)
			id[i] = cg_frame_id(f, &fr[i]);
		t = cg_tree_new(f);
		cg_tree_add(f, t, (uint32_t[]){ id[3], id[0] }, 2, 200, 1);
		cg_tree_add(f, t, (uint32_t[]){ id[3], id[1] }, 2, 400, 1);
		cg_tree_add(f, t, (uint32_t[]){ id[3], id[2] }, 2, 300, 1);
		s = print(f, t, &p, 1000, 900);
		assert_string_equal(s, want[k]);
		free(s);
		cg_forest_free(f);
	}
}

static void test_folded_flat(void **state)
{
	struct cg_forest *f = forest();
	uint32_t t = tree_a(f);
	struct cg_params p = { .mode = CG_FOLDED, .threshold = 0.5 };
	char *s = print(f, t, &p, 1000, 740);

	(void)state;
	/* by the period ending at each node; equal ones in tree order */
	assert_string_equal(s, "50.00% a;b;c\n12.00% a;b\n12.00% __libc_start_call_main;main;a\n");
	free(s);
	p.mode = CG_FLAT;
	p.value = CG_PERIOD;
	s = print(f, t, &p, 1000, 740);
	/* flat prints each node's cumulated period (perf does) */
	assert_string_equal(s, "           500\n                a\n                b\n                c\n\n"
			       "           620\n                a\n                b\n\n"
			       "           120\n                __libc_start_call_main\n                main\n"
			       "                a\n\n");
	free(s);
	cg_forest_free(f);
}

static void test_fractal(void **state)
{
	struct cg_forest *f = forest();
	uint32_t t = cg_tree_new(f);
	struct cg_params p = { .mode = CG_FRACTAL, .threshold = 10 };
	char *s;

	(void)state;
	add(f, t, 900, 2, M, A);
	add(f, t, 60, 2, M, B);
	add(f, t, 40, 2, M, C);
	s = print(f, t, &p, 2000, 1000);
	/* relative to the parent; 6 % and 4 % are below 10 %: "[...]" */
	assert_string_equal(s, "            |\n"
			       "            ---main\n"
			       "               |          \n"
			       "               |--90.00%--a\n"
			       "                --10.00%--[...]\n"
			       "\n");
	free(s);
	cg_forest_free(f);
}

/* Siblings of equal period: perf's key order, descending: symbol start
 * within one DSO (d at 0x5000 before c at 0x4000), and across DSOs the
 * DSO's address (the session interns DSO names in map order, as perf
 * makes its DSO objects); 0203 only checks these against perf up to
 * perf's heap order, so the order itself is pinned here */
static void test_ties(void **state)
{
	struct cg_forest *f = forest();
	uint32_t t = cg_tree_new(f);
	struct cg_params p = { .mode = CG_FRACTAL, .threshold = 0 };
	bool libc_first = (uintptr_t)LIBC > (uintptr_t)EXE;
	char *s, want[512];

	(void)state;
	add(f, t, 100, 2, A, C);
	add(f, t, 100, 2, A, D);
	add(f, t, 100, 2, B, L);
	add(f, t, 100, 2, B, M);
	s = print(f, t, &p, 400, 400);
	snprintf(want, sizeof(want),
		 "            |          \n"
		 "            |--50.00%%--b\n"
		 "            |          |          \n"
		 "            |          |--50.00%%--%s\n"
		 "            |          |          \n"
		 "            |           --50.00%%--%s\n"
		 "            |          \n"
		 "             --50.00%%--a\n"
		 "                       |          \n"
		 "                       |--50.00%%--d\n"
		 "                       |          \n"
		 "                        --50.00%%--c\n"
		 "\n",
		 libc_first ? "__libc_start_call_main" : "main", libc_first ? "main" : "__libc_start_call_main");
	assert_string_equal(s, want);
	free(s);
	cg_forest_free(f);
}

static void check(void *arg, const uint32_t *frames, const uint32_t *tags, size_t n, uint64_t period, uint64_t count)
{
	int *calls = arg;

	(*calls)++;
	assert_int_equal(n, 2);
	assert_int_equal(frames[0], ids[M]);
	assert_int_equal(frames[1], ids[A]);
	assert_int_equal(tags[0], 7);
	assert_int_equal(tags[1], 8);
	assert_int_equal(period, 10);
	assert_int_equal(count, 2);
}

static void test_stacks(void **state)
{
	struct cg_forest *f = forest();
	uint32_t n1 = 0, n2 = 0;
	int calls = 0;

	(void)state;
	/* the same stack twice, tagged: one node chain, period summed */
	for (int k = 0; k < 2; k++) {
		uint32_t n = 0;

		n = cg_stack_push(f, n, cg_frame_get(f, ids[M]), 7);
		n = cg_stack_push(f, n, cg_frame_get(f, ids[A]), 8);
		cg_stack_hit(f, n, 5);
		if (k)
			n2 = n;
		else
			n1 = n;
	}
	assert_int_equal(n1, n2);
	assert_true(n1 != 0);
	cg_stack_each(f, check, &calls);
	assert_int_equal(calls, 1);
	cg_forest_free(f);
}

static void test_parse(void **state)
{
	struct cg_params p = { .mode = CG_GRAPH, .threshold = 0.5 };
	bool set = false;

	(void)state;
	assert_int_equal(cg_parse(&p, "folded,2,callee", &set), 0);
	assert_int_equal(p.mode, CG_FOLDED);
	assert_true(p.threshold == 2.0);
	assert_int_equal(p.order, CG_CALLEE);
	assert_true(set);
	assert_int_equal(cg_parse(&p, "fl,1,3,cal,period", &set), 0);  /* perf's prefixes */
	assert_int_equal(p.mode, CG_FLAT);
	assert_int_equal(p.print_limit, 3);
	assert_int_equal(p.order, CG_CALLER);
	assert_int_equal(p.value, CG_PERIOD);
	assert_int_equal(cg_parse(&p, "none", &set), 0);
	assert_int_equal(p.mode, CG_NONE);
	assert_true(cg_parse(&p, "bogus", &set) < 0);
	/* as perf: each number after the threshold is the print limit
	 * again, and a number's trailing text is not read */
	assert_int_equal(cg_parse(&p, "graph,0.5,1,2", &set), 0);
	assert_int_equal(p.print_limit, 2);
	assert_int_equal(cg_parse(&p, "graph,5x,3y", &set), 0);
	assert_true(p.threshold == 5.0);
	assert_int_equal(p.print_limit, 3);
	assert_true(cg_parse(&p, "graph,x5", &set) < 0);
	assert_int_equal(cg_parse(&p, "address", &set), 0);   /* perf's keys */
	assert_int_equal(p.key, CG_KEY_ADDRESS);
	assert_int_equal(cg_parse(&p, "caller,sr", &set), 0);
	assert_int_equal(p.key, CG_KEY_SRCLINE);
	assert_int_equal(cg_parse(&p, "fu", &set), 0);
	assert_int_equal(p.key, CG_KEY_FUNCTION);
	assert_true(cg_parse(&p, "branch", &set) < 0);
	/* thresholds: any finite number, as perf; over 100 or below -1 % of
	 * the total no node passes */
	assert_int_equal(cg_parse(&p, "graph,101", &set), 0);
	assert_true(p.threshold == 101.0);
	assert_true(cg_min_hit(&p, 1000) == 1010);
	assert_int_equal(cg_parse(&p, "graph,-5", &set), 0);
	assert_true(cg_min_hit(&p, 1000) == (uint64_t)-50);   /* -50 as u64: over every period */
	assert_int_equal(cg_parse(&p, "graph,-0.05", &set), 0);
	assert_true(cg_min_hit(&p, 1000) == 0);   /* -0.5 truncates to 0 */
	assert_int_equal(cg_parse(&p, "graph,50", &set), 0);
	assert_true(cg_min_hit(&p, 1001) == 500);
	/* perf takes them, converted as its x86-64 build does: inf and 1e400
	 * (2^64 and more) truncate to 0, every node; NaN hides them all */
	assert_int_equal(cg_parse(&p, "graph,inf", &set), 0);
	assert_true(cg_min_hit(&p, 1000) == 0);
	assert_int_equal(cg_parse(&p, "graph,1e400", &set), 0);
	assert_true(cg_min_hit(&p, 1000) == 0);
	assert_int_equal(cg_parse(&p, "graph,nan", &set), 0);
	assert_true(cg_min_hit(&p, 1000) == UINT64_C(1) << 63);
	assert_int_equal(cg_parse(&p, "graph,1e18", &set), 0);   /* 1e19: 2^63 taken off */
	assert_true(cg_min_hit(&p, 1000) == UINT64_C(10000000000000000000));
	assert_true(cg_parse(&p, "graph,-x", &set) < 0);   /* no number at all */
	assert_int_equal(cg_parse(&p, "graph,0.5,-1", &set), 0);   /* strtoul's: no limit */
	assert_true(p.print_limit == UINT_MAX);
}

/* cg_trees_from_stacks() against the per-stack construction it replaces
 * (report's former build_one(): for each stack, its leaf's row gets the
 * whole chain, and with children each other row once, at its first node in
 * order, the chain from there), printed in every layout: random stacks of
 * the six frames with recursion, tags = the frame's row. */
struct ref {
	struct cg_forest *f;
	bool caller, children;
	uint32_t trees[NR];
	uint64_t entry[NR];
};

static void ref_one(void *arg, const uint32_t *frames, const uint32_t *tags, size_t n, uint64_t period,
		    uint64_t count)
{
	struct ref *r = arg;
	uint32_t seq[64] = { 0 };
	bool seen[NR] = { false };

	for (size_t i = 0; i < n; i++)
		seq[i] = frames[r->caller ? i : n - 1 - i];
	cg_tree_add(r->f, r->trees[tags[n - 1]], seq, n, period, count);
	r->entry[tags[n - 1]] += period;
	seen[tags[n - 1]] = true;
	for (size_t p = 0; r->children && p < n; p++) {
		uint32_t row = tags[r->caller ? p : n - 1 - p];

		if (seen[row])
			continue;
		seen[row] = true;
		r->entry[row] += period;
		cg_tree_add(r->f, r->trees[row], seq + p, n - p, period, count);
	}
}

static void test_trees_from_stacks(void **state)
{
	static const char *modes[] = { "graph,0.5", "graph,5", "graph,0", "fractal,0.5", "fractal,10", "flat,2",
				       "folded,1", "folded,0,count", "graph,3,2,period" };
	unsigned seed = 1;
	int compared = 0;

	(void)state;
	for (int round = 0; round < 24; round++) {
		struct ref r = { .caller = round & 1, .children = !(round & 2) };
		uint64_t total = 0;
		uint32_t n_st = 20 + (uint32_t)(round * 13);

		r.f = forest();
		for (uint32_t k = 0; k < n_st; k++) {
			uint32_t node = 0;
			int depth = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 9;

			for (int d = 0; d < depth; d++) {
				int fi = d == 0 ? L : (int)((seed = seed * 1103515245u + 12345u) >> 16) % NR;
				const struct cg_frame *fr = cg_frame_get(r.f, ids[fi]);
				uint32_t tag = r.children || d == depth - 1 ? (uint32_t)fi : UINT32_MAX;

				node = cg_stack_push(r.f, node, fr, tag);
			}
			for (int h = 0; h < 1 + (int)(seed >> 28); h++) {
				uint64_t period = 1 + ((seed = seed * 1103515245u + 12345u) >> 16) % 50;

				cg_stack_hit(r.f, node, period);
				total += period;
			}
		}
		for (int t = 0; t < NR; t++)
			r.trees[t] = cg_tree_new(r.f);
		cg_stack_each(r.f, ref_one, &r);
		for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
			struct cg_params p = { .mode = CG_GRAPH, .threshold = 0.5 };
			bool set = false;
			uint32_t mine[NR];

			assert_int_equal(cg_parse(&p, modes[m], &set), 0);
			p.order = r.caller ? CG_CALLER : CG_CALLEE;
			for (int t = 0; t < NR; t++)
				mine[t] = cg_tree_new(r.f);
			cg_trees_from_stacks(r.f, mine, NR, p.order, r.children, cg_min_hit(&p, total));
			for (int t = 0; t < NR; t++) {
				char *want = print(r.f, r.trees[t], &p, total, r.entry[t]);
				char *got = print(r.f, mine[t], &p, total, r.entry[t]);

				if (strcmp(want, got))
					fail_msg("round %d, -g %s, %s, %s, row %d:\nwant:\n%s\ngot:\n%s", round, modes[m],
						 r.caller ? "caller" : "callee", r.children ? "children" : "self", t,
						 want, got);
				compared += want[0] != '\0';
				free(want);
				free(got);
			}
		}
		cg_forest_free(r.f);
	}
	assert_true(compared > 200);   /* most trees print something */
}

/* A group of thousands of items (a row's stacks through 6000 callers,
 * each reached from two places: 12 000 distinct stacks) is radix-sorted,
 * 16 bits a pass; its trees are those of the per-stack construction, in
 * both orders.  Half the callers' ids are the other half's plus 65 536
 * (filler frames between them), so that a sort by the low 16 bits alone
 * splits their groups. */
static void test_trees_big_group(void **state)
{
	enum { N = 60000, MIDS = 3000 };

	(void)state;
	for (int caller = 0; caller < 2; caller++) {
		struct ref r = { .caller = caller, .children = false };
		uint32_t mid[2 * MIDS];
		uint64_t total = 0;
		unsigned seed = 7;

		r.f = forest();
		for (uint32_t i = 0; i < 2 * MIDS; i++) {
			struct cg_frame fr = { .dso = EXE, .ip = 0x400000u + i * 16u };

			if (i == MIDS)   /* fillers up to the first id + 65 536 */
				for (uint32_t k = 0; cg_frame_id(r.f, &(struct cg_frame){ .dso = LIBC, .ip = k }) + 1 <
						     mid[0] + 65536; k++)
					;
			mid[i] = cg_frame_id(r.f, &fr);
		}
		assert_int_equal(mid[MIDS], mid[0] + 65536);
		for (uint32_t k = 0; k < N; k++) {
			uint32_t x = (seed = seed * 1103515245u + 12345u) >> 8;
			uint32_t node = cg_stack_push(r.f, 0, cg_frame_get(r.f, ids[M]), UINT32_MAX);

			node = cg_stack_push(r.f, node, cg_frame_get(r.f, ids[x >> 20 & 1 ? A : B]), UINT32_MAX);
			node = cg_stack_push(r.f, node, cg_frame_get(r.f, mid[x % (2 * MIDS)]), UINT32_MAX);
			node = cg_stack_push(r.f, node, cg_frame_get(r.f, ids[C]), C);
			cg_stack_hit(r.f, node, 1 + k % 7);
			total += 1 + k % 7;
		}
		for (int t = 0; t < NR; t++)
			r.trees[t] = cg_tree_new(r.f);
		cg_stack_each(r.f, ref_one, &r);
		for (int th = 0; th < 2; th++) {
			struct cg_params p = { .mode = CG_GRAPH, .threshold = th ? 0.01 : 0,
					       .order = caller ? CG_CALLER : CG_CALLEE };
			uint32_t mine[NR];

			for (int t = 0; t < NR; t++)
				mine[t] = cg_tree_new(r.f);
			cg_trees_from_stacks(r.f, mine, NR, p.order, false, cg_min_hit(&p, total));
			for (int t = C; t <= C; t++) {
				char *want = print(r.f, r.trees[t], &p, total, r.entry[t]);
				char *got = print(r.f, mine[t], &p, total, r.entry[t]);

				assert_true(strlen(want) > 1000);
				assert_string_equal(want, got);
				free(want);
				free(got);
			}
		}
		cg_forest_free(r.f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_graph),
		cmocka_unit_test(test_single_chain),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_folded_flat),
		cmocka_unit_test(test_fractal),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_stacks),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_trees_from_stacks),
		cmocka_unit_test(test_trees_big_group),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
