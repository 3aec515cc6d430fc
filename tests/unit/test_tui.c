/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/tui's terminal-free parts: display escaping
 * (control bytes, invalid UTF-8, C1 controls, bidi and zero-width format
 * controls; ASCII only outside UTF-8)
 * and the --stdio text of a view ('P'). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/tui.h"

static char *esc(const char *s, size_t len, bool utf8)
{
	char *out = NULL;
	size_t cap = 0;

	tui_escape(s, len, utf8, &out, &cap, 0);
	return out;
}

static void test_escape(void **state)
{
	(void)state;
	char *e = esc("plain <>&\"' name", 16, true);

	assert_string_equal(e, "plain <>&\"' name");
	free(e);
	e = esc("a\033[31mb\nc\x7f", 10, true);
	assert_string_equal(e, "a\\x1b[31mb\\x0ac\\x7f");
	free(e);
	/* valid UTF-8 kept in a UTF-8 locale, escaped outside one */
	e = esc("caf\xc3\xa9", 5, true);
	assert_string_equal(e, "caf\xc3\xa9");
	free(e);
	e = esc("caf\xc3\xa9", 5, false);
	assert_string_equal(e, "caf\\xc3\\xa9");
	free(e);
	/* invalid UTF-8, a C1 control (U+009B, CSI), an overlong '/' */
	e = esc("x\xff\xfe\xc2\x9b\xc0\xaf", 7, true);
	assert_string_equal(e, "x\\xff\\xfe\\xc2\\x9b\\xc0\\xaf");
	free(e);
	/* format controls that reorder or hide text: U+202E (right-to-left
	 * override), U+2067 (right-to-left isolate), U+200B (zero width space),
	 * U+FEFF; their neighbours U+2030 (per mille) and U+2070 stay */
	e = esc("f\xe2\x80\xae" "cba\xe2\x81\xa7" "z\xe2\x80\x8b" "w\xef\xbb\xbf", 18, true);
	assert_string_equal(e, "f\\xe2\\x80\\xae" "cba\\xe2\\x81\\xa7" "z\\xe2\\x80\\x8b" "w\\xef\\xbb\\xbf");
	free(e);
	/* U+061C (Arabic letter mark, 2 bytes); U+061B (Arabic semicolon) stays */
	e = esc("\xd8\x9c" "a\xd8\x9b", 5, true);
	assert_string_equal(e, "\\xd8\\x9c" "a\xd8\x9b");
	free(e);
	/* tag characters U+E0041 (TAG LATIN CAPITAL LETTER A) and U+E007F
	 * (CANCEL TAG); U+E0100 (a variation selector) stays */
	e = esc("\xf3\xa0\x81\x81" "\xf3\xa0\x81\xbf" "\xf3\xa0\x84\x80", 12, true);
	assert_string_equal(e, "\\xf3\\xa0\\x81\\x81\\xf3\\xa0\\x81\\xbf" "\xf3\xa0\x84\x80");
	free(e);
	e = esc("\xe2\x80\xb0\xe2\x81\xb0", 6, true);
	assert_string_equal(e, "\xe2\x80\xb0\xe2\x81\xb0");
	free(e);
	/* a truncated sequence at the end */
	e = esc("y\xe2\x82", 3, true);
	assert_string_equal(e, "y\\xe2\\x82");
	free(e);
	/* long input grows the buffer; appending at an offset */
	char *big = malloc(100000);
	memset(big, 1, 100000);
	char *out = NULL;
	size_t cap = 0, n = tui_escape("ab", 2, true, &out, &cap, 0);

	n = tui_escape(big, 100000, true, &out, &cap, n);
	assert_int_equal(n, 2 + 4 * 100000);
	assert_int_equal(strlen(out), n);
	assert_memory_equal(out, "ab\\x01", 6);
	free(out);
	free(big);
}

static void test_print_stdio(void **state)
{
	(void)state;
	struct tui_row rows[2] = {
		{ .children = 600, .self = 0, .text = { "calltree", "[.] main" } },
		{ .children = 450, .self = 300, .text = { "calltree", "[.] a" } },
	};
	struct tui_table t = { .stdio_head = "# head\n", .nr_keys = 2, .headers = { "Command", "Symbol" },
			       .children = true, .total = 600, .rows = rows, .nr_rows = 2 };
	size_t order[2] = { 0, 1 };
	const char *graph[2] = { NULL, "            |\n            ---a\n\n" };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	tui_print_stdio(fp, &t, order, 2, true, graph, NULL, NULL, 0);
	fclose(fp);
	assert_string_equal(buf, "# head\n"
				 "# Children      Self  Command   Symbol  \n"
				 "# ........  ........  ........  ........\n"
				 "#\n"
				 "   100.00%     0.00%  calltree  [.] main\n"
				 "    75.00%    50.00%  calltree  [.] a\n"
				 "            |\n            ---a\n\n"
				 "\n\n");
	free(buf);
	/* Self only, one row */
	buf = NULL;
	fp = open_memstream(&buf, &len);
	tui_print_stdio(fp, &t, order + 1, 1, false, NULL, NULL, NULL, 0);
	fclose(fp);
	assert_string_equal(buf, "# head\n"
				 "# Overhead  Command   Symbol\n"
				 "# ........  ........  ......\n"
				 "#\n"
				 "    50.00%  calltree  [.] a\n"
				 "\n\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_print_stdio),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
