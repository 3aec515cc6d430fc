/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/symbol/demangle.c: C++, Rust legacy and v0 names,
 * names that must stay as they are (acceptance item 3 of issue P6). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "symbol/demangle.h"

static char *dm(const char *s)
{
	return sym_demangle(s, strlen(s), PK_DEMANGLE_PARAMS);
}

static void test_cxx(void **state)
{
	char *r = dm("_ZNSt6vectorIiSaIiEE9push_backERKi");

	(void)state;
	assert_non_null(r);
	assert_string_equal(r, "std::vector<int, std::allocator<int> >::push_back(int const&)");
	free(r);
	r = dm("_ZNKSt10unique_ptrIiSt14default_deleteIiEEptEv");
	assert_non_null(r);
	assert_string_equal(r, "std::unique_ptr<int, std::default_delete<int> >::operator->() const");
	free(r);
	/* a versioned / PLT suffix is kept */
	r = dm("_Z1av@plt");
	assert_non_null(r);
	assert_string_equal(r, "a()@plt");
	free(r);
	/* without PK_DEMANGLE_PARAMS: as perf shows names by default */
	r = sym_demangle("_ZNKSt10unique_ptrIiSt14default_deleteIiEEptEv", 45, 0);
	assert_non_null(r);
	assert_string_equal(r, "std::unique_ptr<int, std::default_delete<int> >::operator->");
	free(r);
	r = sym_demangle("_ZN3std2io5error5Error3new17hbb46546882ad6265E", 46, 0);
	assert_non_null(r);
	assert_string_equal(r, "std::io::error::Error::new");
	free(r);
}

static void test_rust_legacy(void **state)
{
	char *r = dm("_ZN3std2io5error5Error3new17hbb46546882ad6265E");

	(void)state;
	assert_non_null(r);
	assert_string_equal(r, "std::io::error::Error::new");
	free(r);
}

static void test_rust_v0(void **state)
{
	char *r = dm("_RNvCs1234_7mycrate3foo");

	(void)state;
	assert_non_null(r);
	assert_non_null(strstr(r, "mycrate"));
	assert_int_equal(strlen(r) - strlen("::foo"), (size_t)(strstr(r, "::foo") - r));
	assert_null(strstr(r, "_R"));
	free(r);
}

static void test_unchanged(void **state)
{
	(void)state;
	assert_null(dm("_ZN3foo"));
	assert_null(dm("main"));
	assert_null(dm(""));
	assert_null(dm("_R"));
	assert_null(sym_demangle("_Z1av", 2, 0)); /* length respected */
	assert_false(sym_is_mangled("foo"));
	assert_true(sym_is_mangled("_ZN3foo"));
}

/* Rust legacy names a profiler demangled only halfway (inferno's cases). */
static void fix_ok(const char *in, const char *want)
{
	size_t n = strlen(in);
	char *out = malloc(n + 1);
	size_t l = sym_rust_legacy_fixup(in, n, out);

	assert_int_equal(l, strlen(want));
	assert_string_equal(out, want);
	free(out);
}

static void fix_unchanged(const char *in)
{
	char out[512];

	assert_int_equal(sym_rust_legacy_fixup(in, strlen(in), out), 0);
}

static void test_rust_legacy_fixup(void **state)
{
	(void)state;
	fix_ok("gc::gc::GcBox$LT$T$GT$::new::_$u7b$$u7b$closure$u7d$$u7d$::ha2ed0674a1c3dc9f",
	       "gc::gc::GcBox<T>::new::_{{closure}}");
	fix_ok("std::sys::unix::fs::File::open::hb90e1c1c787080f0", "std::sys::unix::fs::File::open");
	fix_ok("_$LT$std..fs..ReadDir$u20$as$u20$core..iter..traits..iterator..Iterator$GT$::next::hc14f1750ca79129b",
	       "<std::fs::ReadDir as core::iter::traits::iterator::Iterator>::next");
	fix_ok("_$LT$$RF$std..fs..File$u20$as$u20$std..io..Read$GT$::read::h5d84059cf335c8e6",
	       "<&std::fs::File as std::io::Read>::read");
	fix_ok("core::str::Split$LT$$u27$a$C$$u20$P$GT$::next::h0123456789abcdef",
	       "core::str::Split<'a, P>::next");
	/* an escape that is none: the rest kept as it is */
	fix_ok("a..b$ZZ$c::h0123456789abcdef", "a::b$ZZ$c");
	/* not touched: no hash, fully mangled, fully demangled, C */
	fix_unchanged("_ZN4test1a2bcE");
	fix_unchanged("_ZN3std2rt19lang_start_internal17h540c897fe52ba9c5E");
	fix_unchanged("<F as alloc::boxed::FnBox<A>>::call_box");
	fix_unchanged("main");
	fix_unchanged("fooh0123456789abcdef");
	fix_unchanged("x::h0123456789abcdeg");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cxx),
		cmocka_unit_test(test_rust_legacy),
		cmocka_unit_test(test_rust_v0),
		cmocka_unit_test(test_rust_legacy_fixup),
		cmocka_unit_test(test_unchanged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
