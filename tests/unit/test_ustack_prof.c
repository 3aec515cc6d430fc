/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/bpfutil/ustack_prof.c: eBPF stacks in the model
 * rendered back in bcc's layouts (folded and multi-line), markers for the
 * missing parts, a stack without parts, equal stacks merged by the model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hashmap.h"
#include "bpfutil/ustack.h"
#include "bpfutil/ustack_prof.h"
#include "profile/walk.h"

struct got {
	char *folded[8], *lines[8], *delim[8], *dlines[8], *afolded[8], *alines[8];
	uint64_t period[8];
	int nr;
};


static const struct prof *cur;

static int collect(void *arg, uint32_t thread, const uint32_t *ids, size_t n, const struct prof_node *end)
{
	struct got *g = arg;

	assert_true(g->nr < 8);
	g->folded[g->nr] = ustack_prof_render(cur, thread, ids, n, true);
	g->lines[g->nr] = ustack_prof_render(cur, thread, ids, n, false);
	g->delim[g->nr] = ustack_prof_render(cur, thread, ids, n, USTACK_FOLDED | USTACK_DELIMITED);
	g->dlines[g->nr] = ustack_prof_render(cur, thread, ids, n, USTACK_DELIMITED);
	g->afolded[g->nr] = ustack_prof_render(cur, thread, ids, n, USTACK_FOLDED | USTACK_ANNOTATE);
	g->alines[g->nr] = ustack_prof_render(cur, thread, ids, n, USTACK_ANNOTATE);
	g->period[g->nr++] = end->period;
	return 0;
}

static void got_free(struct got *g)
{
	for (int i = 0; i < g->nr; i++) {
		free(g->folded[i]);
		free(g->lines[i]);
		free(g->delim[i]);
		free(g->dlines[i]);
		free(g->afolded[i]);
		free(g->alines[i]);
	}
}

static struct pk_frame frame(const char *sym, uint64_t ip, uint64_t off, bool kernel)
{
	struct pk_frame f;

	memset(&f, 0, sizeof(f));
	f.sym = sym;
	f.ip = ip;
	f.sym_off = sym ? off : 0;
	f.kernel = kernel;
	f.dso = kernel ? "[kernel.kallsyms]" : "/bin/app";
	return f;
}

static void test_render_layouts(void **state)
{
	(void)state;
	static const char comm[] = "my app", c2[] = "c";
	static const char kleaf[] = "kleaf", uleaf[] = "leaf;x";
	struct prof *p = prof_new(0);
	struct got g = { 0 };
	/* leaf first: kernel leaf, unknown kernel address, user leaf, unknown user */
	struct pk_frame a[] = {
		frame(kleaf, 0xffffffff81000100, 0x10, true), frame(NULL, 0xffffffff81000010, 0, true),
		frame(uleaf, 0x401010, 0x10, false), frame(NULL, 0x7f0000001000, 0, false),
	};
	/* another address in the same functions: the same stack */
	struct pk_frame b[] = {
		frame(kleaf, 0xffffffff81000108, 0x18, true), frame(NULL, 0xffffffff81000010, 0, true),
		frame(uleaf, 0x401014, 0x14, false), frame(NULL, 0x7f0000001000, 0, false),
	};
	struct pk_frame m[2], none[1];

	ustack_marker(&m[0], USTACK_MISSING_KERNEL, "EFAULT");
	ustack_marker(&m[1], USTACK_MISSING_USER, "EEXIST");
	ustack_marker(&none[0], USTACK_NO_FRAMES, NULL);
	assert_true(ustack_is_marker(&m[0], USTACK_MISSING_KERNEL));
	assert_false(ustack_is_marker(&m[0], USTACK_MISSING_USER));
	assert_false(ustack_is_marker(&a[0], USTACK_NO_FRAMES));

	prof_add(p, comm, 42, 42, a, 4, 3);
	prof_add(p, comm, 42, 42, b, 4, 2);
	prof_add(p, c2, 1, 1, m, 2, 7);
	prof_add(p, c2, 1, 1, none, 1, 1);
	cur = p;
	assert_int_equal(prof_walk_stacks(p, collect, &g), 0);
	assert_int_equal(g.nr, 3);

	/* kernel frames as they are; "_[k]" after them with bcc profile's -a
	 * (USTACK_ANNOTATE), in either layout */
	assert_string_equal(g.folded[0], "my_app;[unknown];leaf:x;0xffffffff81000010;kleaf");
	assert_string_equal(g.afolded[0], "my_app;[unknown];leaf:x;0xffffffff81000010_[k];kleaf_[k]");
	assert_string_equal(g.alines[0], "    kleaf_[k]\n    0xffffffff81000010_[k]\n    leaf:x\n    [unknown]\n"
					 "    -                my app (42)\n");
	assert_string_equal(g.afolded[1], "c;[Missed User Stack: EEXIST];[Missed Kernel Stack: EFAULT]");
	/* bcc's -df: "-" between the parts */
	assert_string_equal(g.delim[0], "my_app;[unknown];leaf:x;-;0xffffffff81000010;kleaf");
	/* the multi-line form: "--" between the parts under -d only (bcc's,
	 * libbpf-tools') */
	assert_string_equal(g.lines[0], "    kleaf\n    0xffffffff81000010\n    leaf:x\n    [unknown]\n"
					"    -                my app (42)\n");
	assert_string_equal(g.dlines[0], "    kleaf\n    0xffffffff81000010\n    --\n    leaf:x\n    [unknown]\n"
					 "    -                my app (42)\n");
	assert_int_equal(g.period[0], 5);

	assert_string_equal(g.folded[1], "c;[Missed User Stack: EEXIST];[Missed Kernel Stack: EFAULT]");
	assert_string_equal(g.delim[1], g.folded[1]);   /* no "-" beside a missing part */
	assert_string_equal(g.lines[1], "    [Missed Kernel Stack: EFAULT]\n    [Missed User Stack: EEXIST]\n"
					"    -                c (1)\n");
	assert_string_equal(g.dlines[1], "    [Missed Kernel Stack: EFAULT]\n    --\n    [Missed User Stack: EEXIST]\n"
					 "    -                c (1)\n");
	assert_int_equal(g.period[1], 7);

	assert_string_equal(g.folded[2], "c");
	assert_string_equal(g.delim[2], "c");
	assert_string_equal(g.lines[2], "    -                c (1)\n");
	got_free(&g);
	prof_free(p);
}

static void test_render_escapes(void **state)
{
	(void)state;
	static const char comm[] = "a;b\x01";
	static const char sym[] = "bad\nname";
	struct prof *p = prof_new(0);
	struct got g = { 0 };
	struct pk_frame f[] = { frame(sym, 0x401000, 0, false) };

	prof_add(p, comm, 9, 9, f, 1, 1);
	cur = p;
	prof_walk_stacks(p, collect, &g);
	assert_int_equal(g.nr, 1);
	assert_null(strchr(g.folded[0], '\n'));
	assert_null(strchr(g.folded[0], '\x01'));
	assert_true(!strncmp(g.folded[0], "a_b", 3));
	/* one line per frame, then the comm line: the name's newline escaped */
	assert_true(!strncmp(g.lines[0], "    bad", 7));
	assert_null(strchr(g.lines[0] + 4, '\x01'));
	assert_int_equal(strchr(g.lines[0], '\n') - g.lines[0], strstr(g.lines[0], "\n    -") - g.lines[0]);
	got_free(&g);
	prof_free(p);
}

/* ustack_prof_add: a trace through the model renders as ustack_render
 * renders the trace itself (user frames of this process, named from its
 * snapshot; markers; no parts; a comm of 16 bytes without NUL). */
static struct got one;

static void test_add_as_render(void **state)
{
	(void)state;
	struct ustack_cache *c = ustack_cache_new();
	int pid = (int)getpid();
	uint64_t uips[2] = { (uint64_t)(uintptr_t)&test_add_as_render + 4, (uint64_t)(uintptr_t)&collect + 8 };
	uint64_t kips[2] = { 0xffffffff81000010ULL, 0xffffffff81000020ULL };
	static const char comm16[16] = { 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p' };
	const struct ustack_trace tr[] = {
		{ .pid = pid, .comm = "unit", .uips = uips, .nu = 2, .kmissing = "EFAULT" },
		{ .pid = pid, .comm = "unit", .uips = uips, .nu = 2, .kips = kips, .nk = 2 },
		{ .pid = pid, .comm = "unit;x", .uips = uips, .nu = 1, .umissing = NULL },
		{ .pid = pid, .comm = "unit", .umissing = "evicted", .kmissing = "EEXIST" },
		{ .pid = pid, .comm = comm16 },
	};

	assert_int_equal(ustack_snapshot(c, pid), 0);
	for (size_t i = 0; i < sizeof(tr) / sizeof(tr[0]); i++) {
		struct prof *p = prof_new(0);
		struct hashmap names;

		hm_init(&names);
		ustack_prof_add(p, &names, c, &tr[i], (uint32_t)pid, (uint32_t)pid, 5);
		ustack_prof_add(p, &names, c, &tr[i], (uint32_t)pid, (uint32_t)pid, 2);   /* merged */
		memset(&one, 0, sizeof(one));
		cur = p;
		assert_int_equal(prof_walk_stacks(p, collect, &one), 0);
		assert_int_equal(one.nr, 1);
		assert_int_equal(one.period[0], 7);
		char *f = ustack_render(c, &tr[i], true), *l = ustack_render(c, &tr[i], false);
		char *d = ustack_render(c, &tr[i], USTACK_FOLDED | USTACK_DELIMITED);

		assert_string_equal(one.folded[0], f);
		assert_string_equal(one.lines[0], l);
		assert_string_equal(one.delim[0], d);
		if (i == 1)
			assert_non_null(strstr(d, ";-;"));
		else
			assert_null(strstr(d, ";-;"));
		free(d);
		if (i == 0)
			assert_non_null(strstr(f, "test_add_as_render"));   /* named */
		free(f);
		free(l);
		got_free(&one);
		prof_free(p);
		hm_release(&names);
	}
	ustack_cache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render_layouts),
		cmocka_unit_test(test_render_escapes),
		cmocka_unit_test(test_add_as_render),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
