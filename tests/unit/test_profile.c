/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/profile: interning, the stack trie, rows derived
 * for several sort keys (Self, Children with recursion), call-graph stacks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "callgraph/callgraph.h"
#include "prof_model.h"

/* the row whose frame has symbol sym (and comm, when given) */
static const struct prof_row *row_of(const struct prof *p, const struct prof_rows *r, const char *sym,
				     const char *comm)
{
	for (size_t i = 0; i < r->nr; i++) {
		const struct pk_frame *f = prof_frame(p, r->v[i].frame);

		if (f->sym && !strcmp(f->sym, sym) && (!comm || prof_thread(p, r->v[i].thread)->comm == comm))
			return &r->v[i];
	}
	return NULL;
}

/* sample_profile_flags(): after thread 2, thread 1 again, into a new
 * function and into the kernel function thread 2 reached first (the
 * nodes' depth-first order is then not the samples' order) */
#define LATE_THREADS 0x1000u

static struct prof *sample_profile_flags(unsigned flags)
{
	struct prof *p = prof_new(flags & ~LATE_THREADS);
	struct pk_frame start = fr(LIBC, "start", 0x100, 0x100), mn = fr(EXE, "main", 0x1010, 0x1000),
			f = fr(EXE, "f", 0x2004, 0x2000), g = fr(EXE, "g", 0x3008, 0x3000),
			f2 = fr(EXE, "f", 0x2010, 0x2000), k = fr(KERN, "sys", 0xffff0010, 0xffff0000);

	add(p, CA, 1, 10, 3, start, mn, f);                 /* main -> f */
	add(p, CA, 1, 20, 4, start, mn, f, g);              /* main -> f -> g */
	add(p, CA, 1, 5, 3, start, mn, f2);                 /* f at another ip: same frame */
	add(p, CA, 1, 7, 5, start, mn, f, g, f);            /* recursion: f twice */
	add(p, CB, 2, 100, 4, start, mn, g, k);             /* another comm, into the kernel */
	if (flags & PROF_BY_IP)   /* two frames of f (per address) on one stack */
		add(p, CA, 1, 3, 5, start, mn, f, g, f2);
	if (flags & LATE_THREADS) {
		add(p, CA, 1, 4, 3, start, mn, fr(EXE, "h", 0x4004, 0x4000));
		add(p, CA, 1, 2, 4, start, mn, f, k);
	}
	return p;
}

static struct prof *sample_profile(void)
{
	return sample_profile_flags(0);
}

static void rederive_same(unsigned flags, const enum prof_key (*sets)[3], const int *nr, size_t nsets);

/* Rows made again and again (PROF_REDERIVE: nodes renumbered depth-first,
 * parts cached) equal the rows made once, for every key set. */
static void test_rederive(void **state)
{
	static const enum prof_key sets[][3] = {
		{ PROF_COMM, PROF_DSO, PROF_SYM }, { PROF_DSO }, { PROF_SYM, PROF_COMM }, { PROF_PID },
		{ PROF_COMM, PROF_DSO, PROF_SYM },
	};
	static const int nr[] = { 3, 1, 2, 1, 3 };

	(void)state;
	/* per address too: f and f2 are two frames of one sym row, one
	 * stack through both (Children not a sum of the frames') */
	for (unsigned by_ip = 0; by_ip <= PROF_BY_IP; by_ip += PROF_BY_IP) {
		rederive_same(by_ip, sets, nr, 5);
		rederive_same(by_ip | LATE_THREADS, sets, nr, 5);
	}
}

static void rederive_same(unsigned flags, const enum prof_key (*sets)[3], const int *nr, size_t nsets)
{
	struct prof *once = sample_profile_flags(flags), *again = sample_profile_flags(flags | PROF_REDERIVE);

	for (size_t s = 0; s < nsets; s++) {
		for (int children = 0; children < 2; children++) {
			struct prof_rows a, b;

			prof_rows_make(once, sets[s], nr[s], children, NULL, NULL, &a);
			prof_rows_make(again, sets[s], nr[s], children, NULL, NULL, &b);
			assert_int_equal(a.nr, b.nr);
			for (size_t i = 0; i < a.nr; i++) {
				size_t j = 0;

				/* the same row: the same key values */
				while (j < b.nr && memcmp(a.v[i].part, b.v[j].part, sizeof(a.v[i].part)))
					j++;
				assert_true(j < b.nr);
				/* in the same place, named by the same thread and
				 * frame: the order the samples made them in (rows
				 * of equal shares then sort alike) */
				assert_int_equal(i, j);
				assert_int_equal(a.v[i].thread, b.v[j].thread);
				assert_int_equal(a.v[i].frame, b.v[j].frame);
				assert_int_equal(a.v[i].self, b.v[j].self);
				assert_int_equal(a.v[i].children, b.v[j].children);
				assert_int_equal(a.v[i].nr_self, b.v[j].nr_self);
				/* as many nodes of the row (renumbered, not the same ids) */
				size_t na = 0, nb = 0;

				for (size_t x = 0; x < prof_nr_nodes(once); x++)
					na += a.of_node[x] == i;
				for (size_t x = 0; x < prof_nr_nodes(again); x++)
					nb += b.of_node[x] == j;
				assert_int_equal(na, nb);
			}
			prof_rows_free(&a);
			prof_rows_free(&b);
		}
	}
	prof_free(once);
	prof_free(again);
}

/* A random model: threads of a few comms (one tid seen under two comms),
 * stacks drawn from frames of which several share a symbol (an ip apart)
 * or a DSO, recursion included, added in the order samples would give. */
static struct prof *random_profile(unsigned flags, unsigned seed)
{
	static const char *const syms[] = { "a", "b", "c", "d", "e", "f", "g", "h" };
	static const char *const dsos[] = { EXE, LIBC, KERN };
	static const char *const comms[] = { CA, CB };
	struct prof *p = prof_new(flags);
	struct pk_frame pool[24];

	for (size_t i = 0; i < 24; i++) {   /* sym i % 8 in dso i % 3: 3 copies of a name */
		const char *dso = dsos[i % 3];
		uint64_t start = 0x1000 * (i % 8 + 1) + (dso == KERN ? 0xffff0000u : 0);

		pool[i] = fr(dso, i == 23 ? NULL : syms[i % 8], start + 4 * (i / 8), start);
	}
	for (int s = 0; s < 400; s++) {
		struct pk_frame v[10];
		size_t n = 1 + (size_t)(rand_r(&seed) % 10);
		uint32_t tid = 1 + (uint32_t)(rand_r(&seed) % 5);
		const char *comm = comms[tid == 3 ? (unsigned)rand_r(&seed) % 2 : tid % 2];

		for (size_t i = 0; i < n; i++)   /* a few outer frames common to most */
			v[n - 1 - i] = pool[i < 2 && rand_r(&seed) % 4 ? i : (size_t)rand_r(&seed) % 24];
		prof_add(p, comm, tid, tid, v, n, 1 + (uint64_t)(rand_r(&seed) % 100));
	}
	return p;
}

/* Two row sets equal, row by row (names, parts, sums); both freed. */
static void same_rows(struct prof_rows *a, struct prof_rows *b)
{
	assert_int_equal(a->nr, b->nr);
	for (size_t i = 0; i < a->nr; i++) {
		assert_memory_equal(a->v[i].part, b->v[i].part, sizeof(a->v[i].part));
		assert_int_equal(a->v[i].thread, b->v[i].thread);
		assert_int_equal(a->v[i].frame, b->v[i].frame);
		assert_int_equal(a->v[i].self, b->v[i].self);
		assert_int_equal(a->v[i].children, b->v[i].children);
		assert_int_equal(a->v[i].nr_self, b->v[i].nr_self);
	}
	prof_rows_free(a);
	prof_rows_free(b);
}

/* Rows of any keys made again (PROF_REDERIVE, keys asked twice) equal the
 * rows made once, on random models: a key that names no thread sums the
 * frames' totals, one that does the (thread, frame) pairs'. */
static void test_rederive_random(void **state)
{
	static const enum prof_key sets[][3] = {
		{ PROF_COMM, PROF_DSO, PROF_SYM }, { PROF_SYM }, { PROF_DSO }, { PROF_DSO, PROF_SYM }, { PROF_SYM },
		{ PROF_TID, PROF_SYM }, { PROF_COMM }, { PROF_DSO }, { PROF_COMM, PROF_DSO, PROF_SYM }, { PROF_SYM, PROF_DSO },
	};
	static const int nr[] = { 3, 1, 1, 2, 1, 2, 1, 1, 3, 2 };

	(void)state;
	for (unsigned seed = 1; seed <= 20; seed++) {
		for (unsigned by_ip = 0; by_ip <= PROF_BY_IP; by_ip += PROF_BY_IP) {
			struct prof *once = random_profile(by_ip, seed), *again = random_profile(by_ip | PROF_REDERIVE, seed);

			for (size_t s = 0; s < sizeof(nr) / sizeof(nr[0]); s++) {
				for (int children = 1; children >= 0; children--) {
					struct prof_rows a, b;

					prof_rows_make(once, sets[s], nr[s], children, NULL, NULL, &a);
					prof_rows_make(again, sets[s], nr[s], children, NULL, NULL, &b);
					same_rows(&a, &b);
				}
			}
			prof_free(once);
			prof_free(again);
		}
	}
}

/* A frame's line for the srcline tests: one of 5 interned texts by its
 * address (several frames a line, lines in no frame order). */
static const void *test_line(void *arg, const struct pk_frame *fr)
{
	static const char *const lines[] = { "c.c:3", "a.c:1", "b.c:2", "a.c:9", "??:0" };

	(void)arg;
	return lines[(fr->ip / 7 + fr->ip / 3) % 5];
}

/* prof_line_parts numbers the lines by their first frame (checked against
 * a plain first-seen numbering); rows with srcline made from parts handed
 * to the model (prof_set_line_parts, the browser's) equal those made from
 * the line function, Children or not, with other keys or alone. */
static void test_line_parts(void **state)
{
	static const enum prof_key sets[][3] = {
		{ PROF_SRCLINE }, { PROF_DSO, PROF_SRCLINE }, { PROF_TID, PROF_SRCLINE }, { PROF_SYM, PROF_SRCLINE, PROF_COMM },
	};
	static const int nr[] = { 1, 2, 2, 3 };

	(void)state;
	for (unsigned seed = 1; seed <= 8; seed++) {
		struct prof *once = random_profile(PROF_BY_IP, seed), *given = random_profile(PROF_BY_IP | PROF_REDERIVE, seed);
		size_t n = prof_nr_frames(given), seen = 0;
		uint32_t *ids = malloc((n + 1) * sizeof(*ids));
		const void *first[5];

		assert_non_null(ids);
		size_t np = prof_line_parts(given, test_line, NULL, ids);

		for (size_t i = 0; i < n; i++) {
			const void *l = test_line(NULL, prof_frame(given, (uint32_t)i));
			size_t j = 0;

			while (j < seen && first[j] != l)
				j++;
			if (j == seen)
				first[seen++] = l;
			assert_int_equal(ids[i], j);
		}
		assert_int_equal(np, seen);
		prof_set_line_parts(given, ids, np);
		for (size_t s = 0; s < sizeof(nr) / sizeof(nr[0]); s++) {
			for (int children = 1; children >= 0; children--) {
				struct prof_rows a, b;

				prof_rows_make(once, sets[s], nr[s], children, test_line, NULL, &a);
				/* no line function: the parts given are all there is */
				prof_rows_make(given, sets[s], nr[s], children, NULL, NULL, &b);
				assert_int_equal(a.nr_parts[PROF_SRCLINE], b.nr_parts[PROF_SRCLINE]);
				same_rows(&a, &b);
			}
		}
		prof_free(once);
		prof_free(given);
	}
}

/* prof_max_rows: the nodes before any rows are made; then the (thread,
 * frame) pairs, no fewer than the rows of any keys, Children or not. */
static void test_max_rows(void **state)
{
	static const enum prof_key sets[][4] = {
		{ PROF_COMM, PROF_TID, PROF_DSO, PROF_SYM }, { PROF_COMM, PROF_DSO, PROF_SYM }, { PROF_SYM },
		{ PROF_TID, PROF_SYM }, { PROF_PID }, { PROF_COMM, PROF_TID, PROF_DSO },
	};
	static const int nr[] = { 4, 3, 1, 2, 1, 3 };

	(void)state;
	for (unsigned seed = 1; seed <= 8; seed++) {
		struct prof *p = random_profile(seed % 2 ? PROF_REDERIVE : PROF_REDERIVE | PROF_BY_IP, seed);
		size_t most = 0, max;

		assert_int_equal(prof_max_rows(p), prof_nr_nodes(p));
		for (size_t s = 0; s < sizeof(nr) / sizeof(nr[0]); s++) {
			for (int children = 1; children >= 0; children--) {
				struct prof_rows r;

				prof_rows_make(p, sets[s], nr[s], children, NULL, NULL, &r);
				max = prof_max_rows(p);
				assert_true(r.nr <= max);
				most = r.nr > most ? r.nr : most;
				prof_rows_free(&r);
			}
		}
		/* comm, tid, dso, sym tell every pair apart (a thread is a comm
		 * and a tid: tid 3 has two comms) but for frames of one symbol
		 * at several addresses (PROF_BY_IP): the bound is met */
		if (seed % 2)
			assert_int_equal(most, prof_max_rows(p));
		assert_true(prof_max_rows(p) < prof_nr_nodes(p));
		prof_free(p);
	}
}

/* A forest's stop flag (cg_forest_set_stop): set, prof_cg_load leaves
 * stacks out (checked each 64 k nodes) and cg_trees_from_stacks makes no
 * tree; clear, everything, as without a flag. */
static void count_stack(void *arg, const uint32_t *frames, const uint32_t *tags, size_t n, uint64_t period,
			uint64_t count)
{
	(void)frames;
	(void)tags;
	(void)n;
	(void)period;
	*(uint64_t *)arg += count;
}

static void test_cg_stop(void **state)
{
	struct prof *p = prof_new(0);
	static char names[300][8];
	struct pk_frame pool[300];
	enum prof_key keys[] = { PROF_SYM };
	struct cg_params cp = { .mode = CG_GRAPH, .order = CG_CALLER, .value = CG_PERCENT };
	uint64_t seen[3] = { 0 };

	(void)state;
	for (int i = 0; i < 300; i++) {
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		pool[i] = fr(EXE, names[i], 0x1000 + 16 * (uint64_t)i, 0x1000 + 16 * (uint64_t)i);
	}
	for (int i = 0; i < 300; i++)   /* 90 000 stacks of two frames: 90 k nodes */
		for (int j = 0; j < 300; j++)
			add(p, CA, 1, 1, 2, pool[i], pool[j]);
	assert_true(prof_nr_nodes(p) > 65536);
	for (int stop = 0; stop <= 2; stop++) {   /* 2: a flag, clear */
		atomic_bool flag = stop == 1;
		struct cg_forest *f = cg_forest_new();
		struct prof_rows r;
		uint32_t *tree_of, tree;
		char *buf = NULL;
		size_t len = 0;
		FILE *fp;

		if (stop)
			cg_forest_set_stop(f, &flag);
		assert_int_equal(cg_forest_stopped(f), stop == 1);
		prof_rows_make(p, keys, 1, true, NULL, NULL, &r);
		prof_cg_load(p, &r, f);
		cg_stack_each(f, count_stack, &seen[stop]);
		tree_of = calloc(r.nr, sizeof(*tree_of));
		tree = cg_tree_new(f);
		tree_of[0] = tree;   /* f0's row: the first made */
		cg_trees_from_stacks(f, tree_of, r.nr, CG_CALLER, true, 0);
		fp = open_memstream(&buf, &len);
		cg_tree_print(fp, f, tree, &cp, 90000, r.v[0].children);
		fclose(fp);
		if (stop == 1)
			assert_int_equal(len, 0);   /* no tree made */
		else
			assert_non_null(strstr(buf, "f299"));   /* f0 -> f299, the last callee */
		free(buf);
		free(tree_of);
		prof_rows_free(&r);
		cg_forest_free(f);
	}
	assert_int_equal(seen[0], 90000);
	assert_int_equal(seen[2], 90000);
	assert_true(seen[1] < 90000);
	prof_free(p);
}

static void test_trie(void **state)
{
	struct prof *p = sample_profile();
	const struct prof_node *n = prof_nodes(p);
	size_t threads = 0, ends = 0;
	uint64_t sum = 0;

	(void)state;
	/* frames: start, main, f, g, sys (f at 0x2010 is f) */
	assert_int_equal(prof_nr_frames(p), 5);
	assert_int_equal(prof_nr_threads(p), 2);
	/* root, 2 threads, CA: start main f g f (5), CB: start main g sys (4) */
	assert_int_equal(prof_nr_nodes(p), 1 + 2 + 5 + 4);
	for (size_t i = 1; i < prof_nr_nodes(p); i++) {
		assert_true(n[i].parent < i);
		threads += (n[i].frame & PROF_THREAD) != 0;
		ends += n[i].count != 0;
		sum += n[i].period;
	}
	assert_int_equal(threads, 2);
	assert_int_equal(ends, 4);   /* f's two samples end at one node */
	assert_int_equal(sum, 142);
	prof_free(p);
}

/* Samples added after rows were made (PROF_REDERIVE: the nodes renumbered
 * and the lookup tables dropped, as top's kept model): a stack seen before
 * ends at its old node, found again through the remade table, and only new
 * frames make nodes; the nodes stay after their parents. */
static void test_trie_after_rows(void **state)
{
	struct prof *p = sample_profile_flags(PROF_REDERIVE);
	const enum prof_key keys[] = { PROF_SYM };
	struct prof_rows r;
	struct pk_frame start = fr(LIBC, "start", 0x100, 0x100), mn = fr(EXE, "main", 0x1010, 0x1000),
			f = fr(EXE, "f", 0x2004, 0x2000), g = fr(EXE, "g", 0x3008, 0x3000),
			k = fr(KERN, "sys", 0xffff0010, 0xffff0000);
	size_t before;
	uint64_t sum = 0;

	(void)state;
	prof_rows_make(p, keys, 1, true, NULL, NULL, &r);
	prof_rows_free(&r);
	before = prof_nr_nodes(p);
	add(p, CA, 1, 1, 4, start, mn, f, g);   /* old stacks of both threads */
	add(p, CB, 2, 1, 4, start, mn, g, k);
	assert_int_equal(prof_nr_nodes(p), before);
	add(p, CA, 1, 1, 5, start, mn, f, g, k);   /* one new frame: one node */
	assert_int_equal(prof_nr_nodes(p), before + 1);
	for (size_t i = 1; i < prof_nr_nodes(p); i++) {
		assert_true(prof_nodes(p)[i].parent < i);
		sum += prof_nodes(p)[i].period;
	}
	assert_int_equal(sum, 142 + 3);
	prof_rows_make(p, keys, 1, true, NULL, NULL, &r);
	assert_int_equal(row_of(p, &r, "g", NULL)->self, 20 + 1);
	assert_int_equal(row_of(p, &r, "sys", NULL)->self, 100 + 1 + 1);
	prof_rows_free(&r);
	prof_free(p);
}

static void test_rows_comm_dso_sym(void **state)
{
	struct prof *p = sample_profile();
	enum prof_key keys[] = { PROF_COMM, PROF_DSO, PROF_SYM };
	struct prof_rows r;
	const struct prof_row *x;

	(void)state;
	prof_rows_make(p, keys, 3, true, NULL, NULL, &r);
	/* CA: start main f g; CB: start main g sys */
	assert_int_equal(r.nr, 8);
	x = row_of(p, &r, "f", CA);
	assert_non_null(x);
	assert_int_equal(x->self, 10 + 5 + 7);
	assert_int_equal(x->nr_self, 3);
	assert_int_equal(x->children, 10 + 20 + 5 + 7);   /* the recursive sample once */
	x = row_of(p, &r, "g", CA);
	assert_int_equal(x->self, 20);
	assert_int_equal(x->children, 27);
	x = row_of(p, &r, "main", CA);
	assert_int_equal(x->self, 0);
	assert_int_equal(x->children, 42);
	x = row_of(p, &r, "g", CB);
	assert_int_equal(x->children, 100);
	x = row_of(p, &r, "sys", CB);
	assert_int_equal(x->self, 100);
	/* parts: two comms, three DSOs, five symbols */
	assert_int_equal(r.nr_parts[PROF_COMM], 2);
	assert_int_equal(r.nr_parts[PROF_DSO], 3);
	assert_int_equal(r.nr_parts[PROF_SYM], 5);
	assert_int_equal(row_of(p, &r, "g", CA)->part[PROF_SYM], row_of(p, &r, "g", CB)->part[PROF_SYM]);
	assert_int_not_equal(row_of(p, &r, "g", CA)->part[PROF_COMM], row_of(p, &r, "g", CB)->part[PROF_COMM]);
	prof_rows_free(&r);
	prof_free(p);
}

static void test_rows_other_keys(void **state)
{
	struct prof *p = sample_profile();
	enum prof_key dso[] = { PROF_DSO }, sym[] = { PROF_SYM };
	struct prof_rows r;
	uint64_t self = 0;

	(void)state;
	/* by DSO: EXE's children = every sample through main (both comms) */
	prof_rows_make(p, dso, 1, true, NULL, NULL, &r);
	assert_int_equal(r.nr, 3);
	for (size_t i = 0; i < r.nr; i++) {
		const struct pk_frame *f = prof_frame(p, r.v[i].frame);

		self += r.v[i].self;
		if (f->dso == EXE) {
			assert_int_equal(r.v[i].self, 42);
			assert_int_equal(r.v[i].children, 142);
		} else if (f->dso == KERN) {
			assert_int_equal(r.v[i].children, 100);
		}
	}
	assert_int_equal(self, 142);
	prof_rows_free(&r);
	/* Self only: rows of leaves only, comms merged */
	prof_rows_make(p, sym, 1, false, NULL, NULL, &r);
	assert_int_equal(r.nr, 3);   /* f, g, sys */
	assert_int_equal(row_of(p, &r, "f", NULL)->self, 22);
	assert_int_equal(row_of(p, &r, "f", NULL)->children, 0);
	assert_null(row_of(p, &r, "main", NULL));
	prof_rows_free(&r);
	prof_free(p);
}

/* The call graph of a row from the model equals the one pushed by hand. */
static void test_cg_load(void **state)
{
	struct prof *p = sample_profile();
	enum prof_key keys[] = { PROF_COMM, PROF_DSO, PROF_SYM };
	struct prof_rows r;
	struct cg_forest *f = cg_forest_new();
	struct cg_params cp = { .mode = CG_GRAPH, .order = CG_CALLER, .value = CG_PERCENT };
	uint32_t *tree_of = NULL, tree;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	const struct prof_row *x;

	(void)state;
	prof_rows_make(p, keys, 3, true, NULL, NULL, &r);
	prof_cg_load(p, &r, f);
	x = row_of(p, &r, "g", CA);
	tree_of = calloc(r.nr, sizeof(*tree_of));
	tree = cg_tree_new(f);
	tree_of[x - r.v] = tree;
	cg_trees_from_stacks(f, tree_of, r.nr, CG_CALLER, true, 0);
	fp = open_memstream(&buf, &len);
	cg_tree_print(fp, f, tree, &cp, 142, x->children);
	fclose(fp);
	/* g's chains: g (20) and g -> f (7) below it */
	assert_non_null(strstr(buf, "g"));
	assert_non_null(strstr(buf, "f"));
	assert_null(strstr(buf, "sys"));   /* CB's g is another row */
	free(buf);
	free(tree_of);
	cg_forest_free(f);
	prof_rows_free(&r);
	prof_free(p);
}

/* prof_cg_load_with: the same stacks, tags mapped through tag_of, every
 * frame's names passed once through the copy function. */
struct stacks_seen {
	char text[2048];
	size_t len;
	const struct cg_forest *f;
};

static void on_cg_stack(void *arg, const uint32_t *frames, const uint32_t *tags, size_t n, uint64_t period,
			uint64_t count)
{
	struct stacks_seen *s = arg;

	for (size_t i = 0; i < n; i++) {
		const struct cg_frame *cf = cg_frame_get(s->f, frames[i]);

		s->len += (size_t)snprintf(s->text + s->len, sizeof(s->text) - s->len, "%s%s/%d", i ? ";" : "",
					   cf->sym ? cf->sym : "?",
					   tags[i] == UINT32_MAX ? -1 : (int)(tags[i] % 100));
	}
	s->len += (size_t)snprintf(s->text + s->len, sizeof(s->text) - s->len, " %llu/%llu\n",
				   (unsigned long long)period, (unsigned long long)count);
}

struct copier {
	char pool[16][32];
	int n;
};

static void copy_frame(void *arg, struct cg_frame *cf)
{
	struct copier *c = arg;

	assert_true(c->n < 16);
	snprintf(c->pool[c->n], sizeof(c->pool[c->n]), "%s", cf->sym ? cf->sym : "?");
	cf->sym = c->pool[c->n++];
}

static void test_cg_load_with(void **state)
{
	struct prof *p = sample_profile();
	enum prof_key keys[] = { PROF_COMM, PROF_DSO, PROF_SYM };
	struct prof_rows r;
	struct cg_forest *f1 = cg_forest_new(), *f2 = cg_forest_new();
	struct stacks_seen a = { .f = f1 }, b = { .f = f2 };
	struct copier c = { .n = 0 };
	uint32_t tag_of[64];

	(void)state;
	prof_rows_make(p, keys, 3, false, NULL, NULL, &r);
	assert_true(r.nr < 64);
	for (size_t i = 0; i < r.nr; i++)
		tag_of[i] = (uint32_t)i + 300;   /* the same modulo 100 */
	prof_cg_load(p, &r, f1);
	prof_cg_load_with(p, &r, tag_of, copy_frame, &c, f2);
	assert_int_equal(c.n, (int)prof_nr_frames(p));   /* each frame once */
	cg_stack_each(f1, on_cg_stack, &a);
	cg_stack_each(f2, on_cg_stack, &b);
	assert_true(a.len > 0);
	assert_string_equal(a.text, b.text);
	/* the names are the copies */
	for (uint32_t id = 0; id < (uint32_t)c.n; id++) {
		const struct cg_frame *cf = cg_frame_get(f2, id);
		bool copied = false;

		for (int k = 0; k < c.n; k++)
			copied |= cf->sym == c.pool[k];
		assert_true(copied);
	}
	cg_forest_free(f1);
	cg_forest_free(f2);
	prof_rows_free(&r);
	prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trie),
		cmocka_unit_test(test_trie_after_rows),
		cmocka_unit_test(test_rows_comm_dso_sym),
		cmocka_unit_test(test_rows_other_keys),
		cmocka_unit_test(test_cg_load),
		cmocka_unit_test(test_cg_load_with),
		cmocka_unit_test(test_rederive),
		cmocka_unit_test(test_rederive_random),
		cmocka_unit_test(test_max_rows),
		cmocka_unit_test(test_line_parts),
		cmocka_unit_test(test_cg_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
