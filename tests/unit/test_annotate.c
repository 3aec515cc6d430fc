/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/annotate: the instruction view of a function of
 * this very binary (decoded, every instruction inside the symbol, a loop's
 * back edge and jump target found, DWARF lines from this file, samples
 * attached to the instruction holding their address, call sites to the
 * call before a return address), source lines, a PLT call's symbol,
 * and the simulated costs
 * read from a Cachegrind-format text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "annotate/annotate.h"
#include "base/error.h"
#include "session/session.h"
#include "cgfile/cgfile.h"
#include "symbol/symbol.h"

volatile unsigned long sink;

enum { TARGET_FIRST = __LINE__ + 1 };
__attribute__((noinline)) void annotate_target(unsigned long n)
{
	unsigned long x = 1;

	for (unsigned long i = 0; i < n; i++)
		x = x * 2654435761u + i;
	sink = x;
}
enum { TARGET_LAST = __LINE__ - 1 };

static void test_view(void **state)
{
	struct symcache *sc = symcache_new();
	uint64_t start = 0, size = 0;

	(void)state;
	annotate_target(3);
	assert_int_equal(sym_lookup_name(sc, "/proc/self/exe", "annotate_target", &start, &size), 0);
	symcache_free(sc);
	assert_true(size > 4);

	struct ann_addr addrs[2] = {
		{ .addr = start + 1, .self = { 7, 3 } },      /* inside the first instruction or later */
		{ .addr = start + size - 1, .self = { 5, 1 } },
	};
	struct ann_func f = { .dso = "/proc/self/exe", .sym = "annotate_target",
			      .raw_sym = "annotate_target", .start = start,
			      .self = { 12, 4 }, .addrs = addrs, .nr_addrs = 2 };
	struct inline_resolver *inl = inline_resolver_new();
	struct ann_view v;
	int rc = ann_view_build(&v, &f, "/proc/self/exe", inl);

	if (rc == -EOPNOTSUPP) {   /* built without capstone */
		inline_resolver_free(inl);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_true(v.nr_insns >= 3);
	assert_int_equal(v.insns[0].in.addr, start);
	const struct ann_insn *last = &v.insns[v.nr_insns - 1];

	assert_int_equal(last->in.addr + last->in.size, start + size);
	uint64_t tot = 0;
	bool back = false, target = false;

	for (size_t i = 0; i < v.nr_insns; i++) {
		tot += v.insns[i].self.period;
		back |= v.insns[i].back_edge;
		target |= v.insns[i].jump_target;
		if (i)
			assert_int_equal(v.insns[i].in.addr, v.insns[i - 1].in.addr + v.insns[i - 1].in.size);
	}
	assert_int_equal(tot, 12);
	assert_int_equal(last->self.period, 5);
	assert_true(back);
	assert_true(target);
	assert_true(v.have_lines);
	/* lines: this file, within annotate_target */
	struct ann_line *l;
	size_t n = ann_view_lines(&v, &l);

	assert_true(n >= 2);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(strstr(l[i].file, "test_annotate.c"));
		assert_true(l[i].line >= TARGET_FIRST && l[i].line <= TARGET_LAST);
	}
	free(l);
	/* the source text of a line */
	struct ann_srccache *sc2 = ann_srccache_new();
	size_t len = 0;
	const char *t = ann_source_line(sc2, v.frames[v.insns[0].fr].file, TARGET_FIRST, &len);

	assert_non_null(t);
	assert_true(len > 10 && !memcmp(t, "__attribute__", 13));
	assert_null(ann_source_line(sc2, "/nonexistent/x.c", 1, &len));
	assert_int_equal(ann_source_nlines(sc2, "/nonexistent/x.c"), 0);
	ann_srccache_free(sc2);
	ann_view_release(&v);

	/* not a symbol: refused */
	struct ann_func u = { .dso = "/proc/self/exe" };

	assert_int_equal(ann_view_build(&v, &u, "/proc/self/exe", inl), -ENOENT);
	/* a file that is not ELF */
	f.addrs = NULL;
	f.nr_addrs = 0;
	assert_true(ann_view_build(&v, &f, "/proc/self/status", inl) < 0);
	inline_resolver_free(inl);
}

/* a call through the PLT (a tail call at -O2: a jump) */
__attribute__((noinline)) long plt_caller(void)
{
	return (long)getppid();
}

static void test_plt(void **state)
{
	struct symcache *sc = symcache_new();
	uint64_t start = 0, size = 0;

	(void)state;
	assert_true(plt_caller() > 0);
	assert_int_equal(sym_lookup_name(sc, "/proc/self/exe", "plt_caller", &start, &size), 0);
	symcache_free(sc);
	struct ann_func f = { .dso = "/proc/self/exe", .sym = "plt_caller", .raw_sym = "plt_caller",
			      .start = start };
	struct ann_view v;
	int rc = ann_view_build(&v, &f, "/proc/self/exe", NULL);

	if (rc == -EOPNOTSUPP)
		skip();
	assert_int_equal(rc, 0);
	struct ann_plt *plt;

	assert_int_equal(ann_plt_load("/proc/self/exe", &plt), 0);
	const char *name = NULL;
	bool direct = false;

	for (size_t i = 0; i < v.nr_insns; i++)
		if ((v.insns[i].in.kind == DIS_CALL || v.insns[i].in.kind == DIS_JUMP) &&
		    v.insns[i].in.has_target && (v.insns[i].in.target < start ||
						 v.insns[i].in.target >= start + size)) {
			direct = true;
			name = ann_plt_name(plt, v.insns[i].in.target);
		}
	ann_view_release(&v);
	if (!direct) {   /* -fno-plt: called through the GOT */
		ann_plt_free(plt);
		skip();
	}
	assert_non_null(name);
	assert_string_equal(name, "getppid");
	ann_plt_free(plt);
	/* not ELF: refused, with an empty table */
	assert_int_equal(ann_plt_load("/proc/self/status", &plt), -EINVAL);
	assert_null(ann_plt_name(plt, start));
	ann_plt_free(plt);
}

static void test_sim(void **state)
{
	const char *t =
		"desc: build-id:         ABCDEF0123\n"
		"desc: D1 cache:         32768 B, 64 B, 8-way associative\n"
		"cmd: ./prog\n"
		"events: Ir D1mr D1mw DLmr DLmw Bcm\n"
		"fl=/src/a.c\n"
		"fn=main\n"
		"10 5 2 1 1 0 3\n"
		"fn=other\n"
		"10 1 1 0 0 0 0\n"
		"11 1 0 0 0 0 1\n"
		"summary: 7 3 1 1 0 4\n";
	struct cgfile *cg;
	struct ann_sim *s;

	(void)state;
	assert_int_equal(cgfile_parse(t, strlen(t), "t.out", &cg), 0);
	assert_int_equal(ann_sim_new(cg, &s), 0);
	assert_string_equal(ann_sim_build_id(s), "abcdef0123");
	assert_int_equal(ann_sim_present(s), 7);
	const uint64_t *v = ann_sim_line(s, "/src/a.c", 10);

	assert_non_null(v);
	assert_int_equal(v[ANN_SIM_D1], 2 + 1 + 1);   /* D1mr + D1mw over both functions */
	assert_int_equal(v[ANN_SIM_LL], 1);
	assert_int_equal(v[ANN_SIM_MISP], 3);
	/* by basename when the directory differs */
	v = ann_sim_line(s, "/elsewhere/a.c", 11);
	assert_non_null(v);
	assert_int_equal(v[ANN_SIM_MISP], 1);
	assert_null(ann_sim_line(s, "/src/a.c", 12));
	assert_null(ann_sim_line(s, NULL, 10));
	ann_sim_free(s);
	cgfile_free(cg);

	/* no miss events at all */
	const char *t2 = "cmd: x\nevents: Ir\nfl=a.c\nfn=f\n1 1\n";

	assert_int_equal(cgfile_parse(t2, strlen(t2), "t2.out", &cg), 0);
	pk_error_clear();
	assert_int_equal(ann_sim_new(cg, &s), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "D1mr"));
	cgfile_free(cg);
}

/* Kernel code comes from an ELF core file (/proc/kcore): a fake one with
 * one PT_LOAD segment at a kernel address; the function has no size, so
 * decoding stops at the first return after the last sample. */
static void test_kcore(void **state)
{
	static const uint8_t code[] = {
		0x55,                         /* push %rbp */
		0x48, 0x89, 0xe5,             /* mov %rsp,%rbp */
		0x48, 0x83, 0xc0, 0x01,       /* +4: add $1,%rax */
		0x48, 0x39, 0xc8,             /* +8: cmp %rcx,%rax */
		0x75, 0xf7,                   /* +11: jne +4 */
		0x5d,                         /* +13: pop %rbp */
		0xc3,                         /* +14: ret */
		0xcc, 0xcc,                   /* padding after the function */
	};
	const uint64_t base = 0xffffffff81000000ull;
	char path[] = "/tmp/test_annotate_kcore.XXXXXX";
	int fd = mkstemp(path);
	Elf64_Ehdr eh = { .e_type = ET_CORE, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
			  .e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 1 };
	Elf64_Phdr ph = { .p_type = PT_LOAD, .p_offset = 4096, .p_vaddr = base,
			  .p_filesz = 4096, .p_memsz = 4096 };
	uint8_t page[4096] = { 0 };

	(void)state;
	assert_true(fd >= 0);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	memcpy(page, code, sizeof(code));
	assert_int_equal(pwrite(fd, &eh, sizeof(eh), 0), (ssize_t)sizeof(eh));
	assert_int_equal(pwrite(fd, &ph, sizeof(ph), sizeof(eh)), (ssize_t)sizeof(ph));
	assert_int_equal(pwrite(fd, page, sizeof(page), 4096), (ssize_t)sizeof(page));
	close(fd);

	struct ann_addr addrs[1] = { { .addr = base + 8, .self = { 4, 4 } } };
	struct ann_func f = { .dso = "[kernel.kallsyms]", .sym = "kfn", .raw_sym = "kfn",
			      .start = base, .kernel = true, .self = { 4, 4 }, .addrs = addrs,
			      .nr_addrs = 1 };
	struct ann_view v;
	int rc = ann_view_build(&v, &f, path, NULL);

	if (rc == -EOPNOTSUPP) {
		unlink(path);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_int_equal(v.nr_insns, 7);
	assert_string_equal(v.insns[6].in.mnemonic, "retq");
	assert_int_equal(v.insns[3].self.hits, 4);      /* cmp at +8 */
	assert_true(v.insns[2].jump_target);            /* add at +4 */
	assert_true(v.insns[4].back_edge);              /* jne */
	assert_false(v.have_lines);
	ann_view_release(&v);
	/* an address outside every segment */
	f.start = base + 0x100000;
	addrs[0].addr = f.start;
	pk_error_clear();
	assert_int_equal(ann_view_build(&v, &f, path, NULL), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "in no segment"));
	unlink(path);
}

/* the builder keeps its own copy of the filter: top passed a block-scope
 * one that was gone while samples were still fed (ASan stack-use-after-scope) */
static void test_builder_filter_copy(void **state)
{
	struct ann_filter f = { NULL, "keep" };
	struct pk_frame fr = { 0 };
	struct pk_sample s = { 0 };
	struct ann_profile **v = NULL;
	size_t nr = 0;

	(void)state;
	struct ann_builder *b = ann_builder_new(&f);
	f.comm = "other";           /* the caller's filter changes or goes */
	fr.ip = 0x401000;
	fr.sym = "fn";
	fr.dso = "/nonexistent/x";
	s.event = "cpu-clock";
	s.comm = "keep";
	s.period = 1;
	s.nr_frames = 1;
	s.frames = &fr;
	ann_builder_add(b, &s);
	assert_int_equal(ann_builder_finish(b, NULL, &v, &nr), 0);
	assert_int_equal(nr, 1);
	assert_int_equal(v[0]->total_hits, 1);
	assert_int_equal(v[0]->nr_funcs, 1);   /* passed the filter it was built with */
	ann_profile_free(v[0]);
	free(v);
}

/* functions of equal share: by DSO (short name), then symbol, as perf
 * annotate lists them (libc's aaa after ld.so's alpha and beta) */
static void test_builder_tie_order(void **state)
{
	static const struct { const char *sym, *dso; uint64_t ip; } fn[] = {
		{ "aaa", "/lib/libc.so.6", 0x1000 }, { "beta", "/lib/ld-linux.so.2", 0x2000 },
		{ "alpha", "/lib/ld-linux.so.2", 0x3000 }, { "hot", "/usr/bin/z", 0x4000 },
	};
	struct ann_builder *b = ann_builder_new(NULL);
	struct ann_profile **v = NULL;
	size_t nr = 0;

	(void)state;
	for (size_t i = 0; i < 4; i++)
		for (int k = 0; k < (i == 3 ? 2 : 1); k++) {
			struct pk_frame fr = { .ip = fn[i].ip, .addr = fn[i].ip, .sym = fn[i].sym, .dso = fn[i].dso };
			struct pk_sample smp = { .event = "cpu-clock", .comm = "c", .period = 1, .nr_frames = 1,
						 .frames = &fr };

			ann_builder_add(b, &smp);
		}
	assert_int_equal(ann_builder_finish(b, NULL, &v, &nr), 0);
	assert_int_equal(nr, 1);
	assert_int_equal(v[0]->nr_funcs, 4);
	assert_string_equal(v[0]->funcs[0]->sym, "hot");
	assert_string_equal(v[0]->funcs[1]->sym, "alpha");
	assert_string_equal(v[0]->funcs[2]->sym, "beta");
	assert_string_equal(v[0]->funcs[3]->sym, "aaa");
	ann_profile_free(v[0]);
	free(v);
}

/* ann_leaves (report's 'a') against the builder over the same samples:
 * each function's self and callee counts, and per address (leaves and
 * call sites, recursion and inlined frames among them) exactly */
static void test_leaves(void **state)
{
	static const char *const syms[] = { "main", "f", "g", "h" };
	static const char *dsos[] = { "/nonexistent/a", "[kernel.kallsyms]" };
	struct ann_builder *b = ann_builder_new(NULL);
	struct ann_leaves *l = ann_leaves_new();
	struct ann_profile **v = NULL;
	size_t nr = 0;
	uint64_t seed = 42;
	uint64_t children[4][2] = { { 0 } };   /* per symbol and DSO: perf's Children */

	(void)state;
	for (int k = 0; k < 5000; k++) {
		struct pk_frame fr[140];
		struct pk_sample s = { 0 };
		size_t n;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		n = 1 + (seed >> 33) % 6;
		if (k % 1000 == 7)
			n = 135;   /* past the builder's 128 call sites */
		for (size_t i = 0; i < n; i++) {
			uint64_t r = (seed >> (i % 30)) ^ i * 0x9e37;
			int si = i + 1 == n ? 0 : (int)(r % 4);   /* recursion too */
			bool kern = i == 0 && (r & 64);

			fr[i] = (struct pk_frame){ .sym = syms[si], .dso = dsos[kern], .kernel = kern };
			fr[i].sym_off = (r >> 8) % 64 + (i ? 64 : 0);   /* call sites past the leaves */
			fr[i].ip = (kern ? 0xffffffff81000000ull : 0x401000) + 0x100 * (uint64_t)si + fr[i].sym_off;
			fr[i].addr = kern ? 0 : fr[i].ip;
			fr[i].map_ip = fr[i].ip - 0x400000;
		}
		/* an inlined frame: the ip of the frame after it (its caller's
		 * call site, which add_sample then skips) */
		for (size_t i = 1; i + 1 < n; i++)
			if (((seed >> (i % 40)) & 7) == 3 && !fr[i + 1].kernel) {
				fr[i] = fr[i + 1];
				fr[i].sym = "inl";
				fr[i].inlined = true;
				i++;   /* its function's frame after it */
			}
		s.event = "cpu-clock";
		s.comm = "x";
		s.tid = (uint32_t[]){ 0, 1, 257 }[(seed >> 40) % 3];   /* 257 shares 0's slot */
		s.period = 1 + (seed >> 50) % 7;
		s.nr_frames = n;
		s.frames = fr;
		ann_builder_add(b, &s);
		ann_leaves_add(l, &s);
		/* the functions the sample passes through, each once */
		bool in[4][2] = { { false } };

		for (size_t i = 0; i < n && i < 128; i++)
			for (int si = 0; si < 4; si++)
				if (fr[i].sym == syms[si] && (i == 0 || !fr[i].inlined))
					in[si][fr[i].kernel] = true;
		for (int si = 0; si < 4; si++)
			for (int d = 0; d < 2; d++)
				children[si][d] += in[si][d] ? s.period : 0;
	}
	assert_int_equal(ann_builder_finish(b, NULL, &v, &nr), 0);
	assert_int_equal(nr, 1);
	for (size_t i = 0; i < v[0]->nr_funcs; i++) {
		const struct ann_func *f = v[0]->funcs[i];
		struct ann_profile *p = NULL;

		assert_int_equal(ann_leaves_profile(l, "cpu-clock", f->dso, f->raw_sym, f->kernel, NULL, &p), 0);
		const struct ann_func *g = p->funcs[0];

		assert_int_equal(p->total_period, v[0]->total_period);
		assert_int_equal(g->start, f->start);
		assert_int_equal(g->self.period, f->self.period);
		assert_int_equal(g->self.hits, f->self.hits);
		assert_int_equal(g->callee.period, f->callee.period);
		assert_int_equal(g->callee.hits, f->callee.hits);
		assert_int_equal(g->nr_addrs, f->nr_addrs);
		for (size_t k = 0; k < f->nr_addrs; k++) {
			assert_int_equal(g->addrs[k].addr, f->addrs[k].addr);
			assert_int_equal(g->addrs[k].self.period, f->addrs[k].self.period);
			assert_int_equal(g->addrs[k].self.hits, f->addrs[k].self.hits);
			assert_int_equal(g->addrs[k].callee.period, f->addrs[k].callee.period);
			assert_int_equal(g->addrs[k].callee.hits, f->addrs[k].callee.hits);
		}
		if (!strcmp(f->raw_sym, "main") && !f->kernel)
			assert_true(f->callee.hits > 0);   /* the test has call sites */
		/* with its callees = Children: each sample once, recursion or not */
		for (int si = 0; si < 4; si++)
			if (!strcmp(f->raw_sym, syms[si]))
				assert_int_equal(f->self.period + f->callee.period, children[si][f->kernel]);
		ann_profile_free(p);
	}
	/* by name alone (a call-graph line's): the DSO with the most Children */
	for (int si = 0; si < 4; si++) {
		const char *dso = NULL;
		bool kern = false;

		if (children[si][0] == children[si][1])
			continue;
		assert_int_equal(ann_leaves_find(l, "cpu-clock", syms[si], &dso, &kern), 0);
		assert_int_equal(kern, children[si][1] > children[si][0]);
		assert_string_equal(dso, dsos[kern]);
	}
	assert_true(children[0][0] != children[0][1]);   /* the loop checked main */
	{
		const char *dso = NULL;
		bool kern = false;

		assert_int_equal(ann_leaves_find(l, "cpu-clock", "nothing", &dso, &kern), -ENOENT);
		assert_int_equal(ann_leaves_find(l, "other", "f", &dso, &kern), -ENOENT);
		assert_null(dso);
	}
	struct ann_profile *p = NULL;

	assert_int_equal(ann_leaves_profile(l, "cpu-clock", dsos[0], "nothing", false, NULL, &p), -ENOENT);
	assert_int_equal(ann_leaves_profile(l, "other", dsos[0], "f", false, NULL, &p), -ENOENT);
	ann_profile_free(v[0]);
	free(v);
	ann_leaves_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_view),
		cmocka_unit_test(test_builder_filter_copy),
		cmocka_unit_test(test_builder_tie_order),
		cmocka_unit_test(test_leaves),
		cmocka_unit_test(test_plt),
		cmocka_unit_test(test_sim),
		cmocka_unit_test(test_kcore),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
