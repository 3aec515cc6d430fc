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
	return pk_demangle(s, strlen(s), PK_DEMANGLE_PARAMS);
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
	r = pk_demangle("_ZNKSt10unique_ptrIiSt14default_deleteIiEEptEv", 45, 0);
	assert_non_null(r);
	assert_string_equal(r, "std::unique_ptr<int, std::default_delete<int> >::operator->");
	free(r);
	r = pk_demangle("_ZN3std2io5error5Error3new17hbb46546882ad6265E", 46, 0);
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
	assert_null(pk_demangle("_Z1av", 2, 0)); /* length respected */
	assert_false(pk_is_mangled("foo"));
	assert_true(pk_is_mangled("_ZN3foo"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cxx),
		cmocka_unit_test(test_rust_legacy),
		cmocka_unit_test(test_rust_v0),
		cmocka_unit_test(test_unchanged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
