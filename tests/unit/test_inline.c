/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for inline_chain (src/lib/symbol/inline.c): the DWARF inline
 * chain as typed frames, read from this test's own binary — the inlined
 * helper found under its caller, marked inlined, with its lines; the same
 * items inline_resolve_frames gives and the same text inline_resolve_addr
 * prints, at every address of the caller, whose innermost line inline_line
 * gives alone; the linkage name of a C unit's
 * function; cached; the "symbol + offset"
 * fallback of an address without DWARF. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbol/inline.h"
#include "symbol/symbol.h"

volatile unsigned long sink;

static inline __attribute__((always_inline)) void inline_helper(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) void inline_target(unsigned long n)
{
	inline_helper(n);
	sink++;
}

static const char *base(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p;
}

static void test_chain(void **state)
{
	(void)state;
	struct symcache *sc = symcache_new();
	uint64_t start = 0, size = 0;
	struct inline_resolver *r = inline_resolver_new();
	struct strbuf text = STRBUF_INIT, joined = STRBUF_INIT;
	int deepest = 0;

	inline_target(3);
	assert_int_equal(sym_lookup_name(sc, "/proc/self/exe", "inline_target", &start, &size), 0);
	symcache_free(sc);
	for (uint64_t a = start; a < start + size; a++) {
		const struct inline_frame *v, *again;
		struct inline_frame fr[16];
		int n = inline_chain(r, "/proc/self/exe", a, NULL, 0, 0, &v);
		int m = inline_resolve_frames(r, "/proc/self/exe", a, fr, 16);

		const char *lf = NULL;
		int ll = -1;

		assert_int_equal(n, m);
		if (n <= 0)
			continue;
		/* the line-table entry alone: the innermost item's line */
		assert_int_equal(inline_line(r, "/proc/self/exe", a, &lf, &ll), 0);
		assert_int_equal(ll, v[n - 1].line);
		assert_true(lf == v[n - 1].file || (lf && v[n - 1].file && !strcmp(lf, v[n - 1].file)));
		assert_int_equal(inline_chain(r, "/proc/self/exe", a, NULL, 0, 0, &again), n);
		assert_ptr_equal(again, v);   /* cached */
		assert_string_equal(v[0].name, "inline_target");
		assert_false(v[0].inlined);
		/* a C unit: the name is the linkage name (as binutils reads it) */
		assert_non_null(v[0].linkage);
		assert_string_equal(v[0].linkage, "inline_target");
		sb_reset(&joined);
		for (int i = 0; i < n; i++) {
			assert_string_equal(v[i].name, fr[i].name);
			assert_int_equal(v[i].line, fr[i].line);
			assert_int_equal(v[i].inlined, fr[i].inlined);
			assert_int_equal(v[i].inlined, i > 0);
			if (v[i].file)
				assert_string_equal(base(v[i].file), base(fr[i].file));
			if (i)
				sb_addch(&joined, ';');
			inline_frame_text(&v[i], true, true, true, &joined);
		}
		sb_reset(&text);
		inline_resolver_set_mark(r, true);
		assert_int_equal(inline_resolve_addr(r, "/proc/self/exe", a, true, &text), 0);
		assert_string_equal(text.buf, joined.buf);
		if (n > deepest)
			deepest = n;
		if (n >= 2) {
			assert_string_equal(v[1].name, "inline_helper");
			assert_non_null(strstr(joined.buf, "inline_helper:test_inline.c:"));
			assert_non_null(strstr(joined.buf, "_[i]"));
		}
	}
	assert_true(deepest >= 2);   /* the helper was found inlined somewhere */

	/* no DWARF at 8: the symbol's address + offset is tried instead */
	const struct inline_frame *v;

	assert_int_equal(inline_chain(r, "/proc/self/exe", 8, NULL, 0, 0, &v), -ENOENT);
	assert_true(inline_chain(r, "/proc/self/exe", 16, "inline_target", 13, 0, &v) >= 1);
	assert_string_equal(v[0].name, "inline_target");
	/* an unreadable file */
	assert_int_equal(inline_chain(r, "/nonexistent/file", 0x1000, NULL, 0, 0, &v), -ENOENT);
	const char *lf;
	int ll;

	assert_int_equal(inline_line(r, "/nonexistent/file", 0x1000, &lf, &ll), -ENOENT);
	/* DWARF, but no unit holds 8: addr2line's "??:?", apart from a file
	 * without DWARF */
	assert_int_equal(inline_line(r, "/proc/self/exe", 8, &lf, &ll), -ENODATA);
	sb_release(&text);
	sb_release(&joined);
	inline_resolver_free(r);
}

/* The text of one item: name or "??", ":file:line" with the basename,
 * "_[i]" only when marked and inlined; a C++ linkage name demangled (with
 * its parameters when asked: addr2line -C's), else the ELF symbol of a
 * real function without one. */
static void test_frame_text(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	struct inline_frame f = { "g", "/src/dir/a.c", 12, true, NULL, NULL };

	inline_frame_text(&f, true, true, true, &sb);
	assert_string_equal(sb.buf, "g:a.c:12_[i]");
	sb_reset(&sb);
	inline_frame_text(&f, false, false, true, &sb);
	assert_string_equal(sb.buf, "g");
	sb_reset(&sb);
	f = (struct inline_frame){ NULL, NULL, 0, false, NULL, NULL };
	inline_frame_text(&f, true, true, true, &sb);
	assert_string_equal(sb.buf, "??:??:0");
	sb_reset(&sb);
	f = (struct inline_frame){ "operator()", NULL, 0, false, "_ZNK1AclEd", NULL };
	inline_frame_text(&f, false, false, true, &sb);
	assert_string_equal(sb.buf, "A::operator()(double) const");
	sb_reset(&sb);
	inline_frame_text(&f, false, false, false, &sb);
	assert_string_equal(sb.buf, "A::operator()");
	sb_reset(&sb);
	f = (struct inline_frame){ "helper", NULL, 0, false, NULL, "_ZN12_GLOBAL__N_16helperEd" };
	inline_frame_text(&f, false, false, true, &sb);
	assert_string_equal(sb.buf, "(anonymous namespace)::helper(double)");
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_frame_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
