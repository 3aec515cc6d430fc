/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/profile/flat.c: rows counted straight from the
 * samples equal the rows the model (profile.c) derives from the same
 * samples — the same rows in the same order, sums and key parts — for
 * several key sets, with and without Children, on random stacks with
 * recursion, unknown addresses, kernel frames and several threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/flat.h"
#include "profile/profile.h"

static const char EXE[] = "/bin/prog", LIBC[] = "/lib/libc.so.6", KERN[] = "[kernel.kallsyms]", UNK[] = "[unknown]";
/* another file of EXE's short name: one DSO to perf's dso key */
static const char EXE2[] = "/opt/v2/prog";
static const char *const COMMS[] = { "cc1", "as", "make" };
static const char *const SYMS[] = { "main", "f", "g", "h", "memset", "sys" };
/* tracepoint samples' texts (report's trace key): a thread's tag */
static const char *const TAGS[] = { "prev_comm=a ==> next_comm=b", "nr=0", "N/A" };

#define NFRAMES 24
static struct pk_frame pool[NFRAMES];

static void make_pool(void)
{
	for (int i = 0; i < NFRAMES; i++) {
		struct pk_frame *f = &pool[i];
		int s = i % 8;

		memset(f, 0, sizeof(*f));
		f->ip = 0x1000 + (uint64_t)i * 0x10;
		if (s < 6) {   /* a known symbol; two ips per symbol in some DSOs */
			f->sym = SYMS[s];
			f->dso = s == 5 ? KERN : s == 4 ? LIBC : EXE;
			f->sym_off = (uint64_t)(i / 8) * 4;
			f->addr = 0x1000 + (uint64_t)s * 0x100 + f->sym_off + (i >= 16 ? 0x800 : 0);
			f->kernel = f->dso == KERN;
		} else {   /* unknown: by offset in its DSO */
			f->dso = s == 6 ? UNK : EXE;
			f->sym_off = (uint64_t)(i / 8) * 8;
			/* an unknown address of any 64 bits (a broken chain's
			 * garbage), in user space and in the kernel */
			if (i / 8 == 1) {
				f->sym_off |= (uint64_t)1 << 63;
				f->ip |= (uint64_t)1 << 63;
				f->kernel = s == 6;
			}
		}
	}
}

static uint64_t rnd_state = 88172645463325252u;
static uint32_t rnd(uint32_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (uint32_t)(rnd_state % n);
}

static void compare(const enum prof_key *keys, int nr_keys, bool children, bool by_thread)
{
	struct prof *p = prof_new(0);
	struct prof_flat *f = prof_flat_new(keys, nr_keys, children);
	struct prof_rows a, b;
	bool want[PROF_KEY_MAX] = { false };

	for (int k = 0; k < nr_keys; k++)
		want[keys[k]] = true;
	want[PROF_TID] |= want[PROF_PID];
	rnd_state = 88172645463325252u;
	for (int s = 0; s < 3000; s++) {
		struct pk_frame v[12];
		size_t n = 1 + rnd(12);
		uint32_t t = rnd(5);
		const char *comm = COMMS[t % 3];
		uint64_t period = 1000 + rnd(50);
		/* the tags of one thread vary from sample to sample */
		const struct prof_thread th = { comm, by_thread ? t : 0, by_thread ? t : 0,
						want[PROF_TRACE] || s % 2 ? TAGS[rnd(3)] : NULL,
						want[PROF_CPU] || s % 3 ? rnd(3) : 0 };

		/* a third of the samples from another file of EXE's short name
		 * (a second build of the program), never mixed in one chain */
		bool v2 = rnd(3) == 0;

		for (size_t j = 0; j < n; j++) {
			v[j] = pool[rnd(j < 3 ? NFRAMES : 8)];   /* outer frames from fewer: shared stacks */
			if (v2 && v[j].dso == EXE)
				v[j].dso = EXE2;
		}
		prof_add_thread(p, &th, v, children ? n : 1, period);
		prof_flat_add(f, &th, v, n, period);
	}
	prof_rows_make(p, keys, nr_keys, children, NULL, NULL, &a);
	prof_flat_rows(f, &b);
	assert_int_equal(a.nr, b.nr);
	for (int k = 0; k < PROF_KEY_MAX; k++)
		if (k != PROF_SYM)
			assert_int_equal(a.nr_parts[k], b.nr_parts[k]);
	for (size_t i = 0; i < a.nr; i++) {
		const struct pk_frame *fa = prof_frame(p, a.v[i].frame);
		struct pk_frame fbv;
		const struct pk_frame *fb = &fbv;

		prof_flat_frame(f, b.v[i].frame, &fbv);
		const struct prof_thread *ta = prof_thread(p, a.v[i].thread), *tb = prof_flat_thread(f, b.v[i].thread);

		assert_int_equal(a.v[i].self, b.v[i].self);
		assert_int_equal(a.v[i].children, b.v[i].children);
		assert_int_equal(a.v[i].nr_self, b.v[i].nr_self);
		assert_ptr_equal(fa->dso, fb->dso);
		assert_ptr_equal(fa->sym, fb->sym);
		assert_int_equal(fa->kernel, fb->kernel);
		/* the row's frame as sampled, whole (the model may keep
		 * another frame of the row: its first node's) */
		bool sampled = false;

		for (int j = 0; j < NFRAMES && !sampled; j++)
			sampled = pool[j].ip == fb->ip && pool[j].sym_off == fb->sym_off && pool[j].sym == fb->sym &&
				  (pool[j].dso == fb->dso || (pool[j].dso == EXE && fb->dso == EXE2)) &&
				  pool[j].kernel == fb->kernel;
		assert_true(sampled);
		/* the thread's fields a key shows (flat.h: the others are not
		 * kept per row) */
		if (want[PROF_COMM] || want[PROF_TID])
			assert_ptr_equal(ta->comm, tb->comm);
		if (want[PROF_TID])
			assert_int_equal(ta->tid, tb->tid);
		if (want[PROF_TRACE])
			assert_ptr_equal(ta->tag, tb->tag);
		if (want[PROF_CPU])
			assert_int_equal(ta->cpu, tb->cpu);
		for (size_t j = 0; j < i; j++)   /* equal parts in one, equal in the other
						    (flat: a symbol part per row) */
			for (int k = 0; k < PROF_KEY_MAX; k++)
				if (k == PROF_SYM)
					assert_true(b.v[i].part[k] != b.v[j].part[k] ||
						    a.v[i].part[k] == a.v[j].part[k]);
				else
					assert_int_equal(a.v[i].part[k] == a.v[j].part[k],
							 b.v[i].part[k] == b.v[j].part[k]);
	}
	assert_null(b.of_node);
	prof_rows_free(&a);
	prof_rows_free(&b);
	prof_free(p);
	prof_flat_free(f);
}

static void test_same_rows(void **state)
{
	static const enum prof_key sets[][3] = {
		{ PROF_COMM, PROF_DSO, PROF_SYM }, { PROF_DSO }, { PROF_SYM, PROF_COMM }, { PROF_PID },
		{ PROF_SYM }, { PROF_TID, PROF_SYM }, { PROF_TRACE }, { PROF_COMM, PROF_TRACE }, { PROF_TRACE, PROF_SYM },
		{ PROF_CPU }, { PROF_CPU, PROF_SYM }, { PROF_COMM, PROF_CPU, PROF_TRACE },
	};
	static const int nr[] = { 3, 1, 2, 1, 1, 2, 1, 2, 2, 1, 2, 3 };

	(void)state;
	make_pool();
	for (size_t s = 0; s < sizeof(nr) / sizeof(nr[0]); s++)
		for (int children = 0; children < 2; children++)
			for (int by_thread = 0; by_thread < 2; by_thread++)
				compare(sets[s], nr[s], children, by_thread);
}

/* DSOs by short name: the first of a name stands for the others; names
 * not paths ([vdso]) are their own; the aliasing is seen. */
static void test_dsokey(void **state)
{
	static const char a[] = "/usr/lib/libc.so.6", b[] = "/srv/root/usr/lib/libc.so.6", c[] = "/bin/prog",
			  v[] = "[vdso]", w[] = "[vdso]";
	struct prof_dsokey *k = prof_dsokey_new();

	(void)state;
	assert_ptr_equal(prof_dsokey(k, a), a);
	assert_ptr_equal(prof_dsokey(k, c), c);
	assert_false(prof_dsokey_aliased(k));
	assert_ptr_equal(prof_dsokey(k, b), a);
	assert_ptr_equal(prof_dsokey(k, b), a);   /* remembered */
	assert_true(prof_dsokey_aliased(k));
	assert_ptr_equal(prof_dsokey(k, v), v);
	assert_ptr_equal(prof_dsokey(k, w), v);
	assert_null(prof_dsokey(k, NULL));
	prof_dsokey_free(k);
}

/* Children: a sample counts once for a row met twice in its chain. */
static void test_recursion_once(void **state)
{
	enum prof_key keys[] = { PROF_SYM };
	struct prof_flat *f = prof_flat_new(keys, 1, true);
	struct prof_rows r;
	struct pk_frame v[3];

	(void)state;
	make_pool();
	v[0] = pool[1];   /* f <- g <- f: leaf first */
	v[1] = pool[2];
	v[2] = pool[1];
	const struct prof_thread cc1 = { "cc1", 0, 0, NULL, 0 };

	prof_flat_add(f, &cc1, v, 3, 10);
	prof_flat_add(f, &cc1, v + 1, 1, 5);   /* g alone */
	prof_flat_rows(f, &r);
	assert_int_equal(r.nr, 2);
	prof_flat_frame(f, r.v[0].frame, &v[0]);
	assert_ptr_equal(v[0].sym, SYMS[1]);   /* outermost first */
	assert_int_equal(r.v[0].children, 10);
	assert_int_equal(r.v[0].self, 10);
	assert_int_equal(r.v[0].nr_self, 1);
	assert_int_equal(r.v[1].children, 15);
	assert_int_equal(r.v[1].self, 5);
	prof_rows_free(&r);
	prof_flat_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_rows),
		cmocka_unit_test(test_dsokey),
		cmocka_unit_test(test_recursion_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
