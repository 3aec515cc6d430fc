/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_flame.c — the flame graph library: count parsing, flamegraph.pl's
 * colour hashes (reference values printed by Perl from flamegraph.pl's
 * own functions), labels, number formatting and a small render.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame/flame.h"

static void test_encoding_valid(void **state)
{
	(void)state;
	assert_true(flame_encoding_valid("UTF-8"));
	assert_true(flame_encoding_valid("utf-8"));
	assert_true(flame_encoding_valid("ISO-8859-1"));
	assert_false(flame_encoding_valid(""));
	assert_false(flame_encoding_valid(NULL));
	assert_false(flame_encoding_valid("utf\"8"));     /* not an EncName */
	assert_false(flame_encoding_valid("8859-1"));      /* starts with a digit */
	assert_false(flame_encoding_valid("no-such-encoding-x"));
}

static void test_parse_count(void **state)
{
	size_t sl;
	double c;

	(void)state;
	assert_true(flame_parse_count("a;b 12", 6, &sl, &c));
	assert_int_equal(sl, 3);
	assert_true(c == 12);
	/* the stack keeps all but the last whitespace */
	assert_true(flame_parse_count("a;b  7", 6, &sl, &c));
	assert_int_equal(sl, 4);
	assert_true(flame_parse_count("a b\t0.25", 8, &sl, &c));
	assert_int_equal(sl, 3);
	assert_true(c == 0.25);
	assert_true(flame_parse_count("x 6.", 4, &sl, &c));
	assert_true(c == 6);
	/* the two-column form parses as stack "a 1" count 2 */
	assert_true(flame_parse_count("a 1 2", 5, &sl, &c));
	assert_int_equal(sl, 3);
	assert_true(c == 2);
	assert_false(flame_parse_count("nocount", 7, &sl, &c));
	assert_false(flame_parse_count("a 1x", 4, &sl, &c));
	assert_false(flame_parse_count("a .5", 4, &sl, &c));
	assert_false(flame_parse_count("a 1.2.3", 7, &sl, &c));
	assert_false(flame_parse_count("a ", 2, &sl, &c));
	assert_false(flame_parse_count("", 0, &sl, &c));
	/* an empty stack is valid */
	assert_true(flame_parse_count(" 5", 2, &sl, &c));
	assert_int_equal(sl, 0);
}

struct ref { const char *name; double fwd, rev, seeded; };

static void test_namehash_reference(void **state)
{
	/* printed by Perl with flamegraph.pl's namehash() and srand/rand */
	static const struct ref refs[] = {
		{ "", 1, 1, 0.17082803610628972 },
		{ "main", 0.36335138216015961, 0.85437446565973207, 0.77859998431904742 },
		{ "mod`func", 0.74880466103036647, 0.96409233399829009, 0.12797654986298213 },
		{ "ab`cd`ef", 0.66457680250783691, 1, 0.23384957325561473 },
		{ "x_[k]", 0.74864633798803082, 0.62220955637883546, 0.79679622089406976 },
		{ "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe9\x96\xa2\xe6\x95\xb0",
		  0.7759728950951521, 0.60564896615053354, 0.12496136858044693 },
	};
	char buf[32], want[32];

	(void)state;
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		const struct ref *r = &refs[i];
		size_t l = strlen(r->name);

		assert_true(fabs(flame_namehash(r->name, l, 0) - r->fwd) < 1e-15);
		assert_true(fabs(flame_namehash(r->name, l, 1) - r->rev) < 1e-15);
		flame_color(buf, "hot", FLAME_COLOR_SEEDED, r->name, l);
		snprintf(want, sizeof(want), "rgb(%d,%d,%d)", 205 + (int)(50 * r->seeded),
			 (int)(230 * r->seeded), (int)(55 * r->seeded));
		assert_string_equal(buf, want);
	}
	flame_color(buf, "hot", FLAME_COLOR_SEEDED, "", 0);
	assert_string_equal(buf, "rgb(213,39,9)");
	flame_color(buf, "hot", FLAME_COLOR_HASH, "", 0);
	assert_string_equal(buf, "rgb(255,230,55)");
}

static void test_palettes(void **state)
{
	char buf[32];

	(void)state;
	/* java: kernel annotation is orange, JIT green, C++ yellow, else red */
	flame_color(buf, "java", FLAME_COLOR_HASH, "do_sys_open_[k]", 15);
	assert_int_equal(strncmp(buf, "rgb(", 4), 0);
	assert_int_equal(buf[strlen(buf) - 2], '0'); /* orange: blue = 0 */
	flame_color(buf, "java", FLAME_COLOR_HASH, "Ljava/lang/Thread;.run", 22);
	int r, g, b;

	assert_int_equal(sscanf(buf, "rgb(%d,%d,%d)", &r, &g, &b), 3);
	assert_true(g >= 200 && r == b); /* green */
	flame_color(buf, "nosuch", FLAME_COLOR_HASH, "x", 1);
	assert_string_equal(buf, "rgb(0,0,0)");
	flame_color_scale(buf, 5, 10, 0);
	assert_string_equal(buf, "rgb(255,105,105)");
	flame_color_scale(buf, 5, 10, 1);
	assert_string_equal(buf, "rgb(105,105,255)");
	flame_color_scale(buf, 0, 10, 0);
	assert_string_equal(buf, "rgb(255,255,255)");
}

static void test_fixed_matches_printf(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char want[64];
	double vals[] = { 0, 0.05, 0.25, 0.35, 1.05, 2.5, 1180, 143.45, 999.95, 1e-9, 123456.789 };

	(void)state;
	srand(7);
	for (int i = 0; i < 20000; i++) {
		double v = i < (int)(sizeof(vals) / sizeof(vals[0])) ? vals[i]
			   : (double)rand() / RAND_MAX * 2000 + (i % 7) * 0.05;

		for (int d = 0; d <= 2; d++) {
			sb_reset(&sb);
			double back = flame_add_fixed(&sb, v, d);

			snprintf(want, sizeof(want), "%.*f", d, v);
			assert_string_equal(sb.buf, want);
			assert_true(back == strtod(want, NULL));
		}
	}
	sb_reset(&sb);
	flame_add_num(&sb, 246);
	assert_string_equal(sb.buf, "246");
	sb_reset(&sb);
	flame_add_num(&sb, 109.5);
	assert_string_equal(sb.buf, "109.5");
	sb_reset(&sb);
	flame_add_num(&sb, 0.1 + 0.2);
	assert_string_equal(sb.buf, "0.3");
	sb_release(&sb);
}

static void label(const char *name, long chars, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	flame_add_label(&sb, name, strlen(name), chars);
	assert_string_equal(sb.buf, want);
	sb_release(&sb);
}

static void test_labels(void **state)
{
	(void)state;
	label("function", 2, "");
	label("function", 8, "function");
	label("function", 20, "function");
	label("function", 7, "funct..");
	label("function", 3, "f..");
	/* entities are never split: the cut is made before escaping */
	label("a&b&c&d", 5, "a&amp;b..");
	label("<script>", 4, "&lt;s..");
	/* a 3-byte UTF-8 character (U+65E5) at the cut stays whole or goes */
	label("ab\xe6\x97\xa5" "cdef", 5, "ab\xe6\x97\xa5..");
	label("abc\xe6\x97\xa5" "def", 5, "abc..");
	label("\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5", 3, "\xe6\x97\xa5..");
	label("\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5", 3, "\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5");
	/* invalid bytes count as one character each and become U+FFFD */
	label("\xff\xfe" "abcdef", 4, "\xef\xbf\xbd\xef\xbf\xbd..");
	/* control bytes are shown as \xNN, 4 characters each */
	label("a\x1b[0m", 20, "a\\x1b[0m");
	label("ab\x01" "cdefgh", 6, "ab\\x..");
}

static void test_names(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	static const char nul[] = "anon\0class<T>&";

	(void)state;
	flame_add_name(&sb, nul, sizeof(nul) - 1);
	assert_string_equal(sb.buf, "anon\\x00class&lt;T&gt;&amp;");
	sb_reset(&sb);
	flame_add_name(&sb, "esc\x1b[0m\x7f\xad", 9);
	assert_string_equal(sb.buf, "esc\\x1b[0m\\x7f\xef\xbf\xbd");
	sb_reset(&sb);
	flame_add_name(&sb, "plain", 5);
	assert_string_equal(sb.buf, "plain");
	sb_release(&sb);
}

static char *render(const char *text, struct flame_opts *o, int *ret)
{
	struct flame_input in;
	struct strbuf out = STRBUF_INIT;
	struct flame_stats st;

	flame_input_init(&in);
	flame_input_add_buf(&in, text, strlen(text));
	*ret = flame_render(&in, o, &out, &st);
	flame_input_release(&in);
	return sb_detach(&out, NULL);
}

static void test_render_small(void **state)
{
	struct flame_opts o;
	int ret;

	(void)state;
	flame_opts_init(&o);
	o.colormode = FLAME_COLOR_HASH;
	char *svg = render("main;a 2\nmain;b 1\nmain;a 1\nbad line\n", &o, &ret);

	assert_int_equal(ret, 0);
	assert_non_null(strstr(svg, "id=\"frames\""));
	assert_non_null(strstr(svg, "<title>all (4 samples, 100%)</title>"));
	assert_non_null(strstr(svg, "<title>main (4 samples, 100.00%)</title>"));
	/* the two "main;a" lines merge: 3 of 4 */
	assert_non_null(strstr(svg, "<title>a (3 samples, 75.00%)</title>"));
	assert_non_null(strstr(svg, "<title>b (1 samples, 25.00%)</title>"));
	/* depth 2 + root: height = 3 * 16 + 36 + 34 */
	assert_non_null(strstr(svg, "height=\"118\""));
	assert_non_null(strstr(svg, ">Flame Graph</text>"));
	free(svg);

	o.title = "T <&> \"q\"";
	o.countname = "ms<";
	svg = render("x;y 1.5 3\n", &o, &ret);
	assert_int_equal(ret, 0);
	assert_non_null(strstr(svg, ">T &lt;&amp;&gt; &quot;q&quot;</text>"));
	assert_non_null(strstr(svg, "<title>y (3 ms&lt;, 100.00%; +50.00%)</title>"));
	free(svg);

	svg = render("no counts here\n\n", &o, &ret);
	assert_int_equal(ret, -ENODATA);
	assert_non_null(strstr(svg, "</svg>"));
	free(svg);
}

/* ---- line order: the merge sort with cached bytes and prefetching must
 * give exactly the graph of the same lines already sorted ---- */
static uint32_t lcg(uint32_t *x)
{
	*x = *x * 1103515245u + 12345u;
	return *x >> 8;
}

static int cmp_line(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;

	return strcmp(x, y); /* bytes as unsigned char, a prefix first */
}

/* n lines of 1-4 frames from names that sort around ';' and ' ' and share
 * prefixes; integer and fractional counts; some two-column lines */
static char **make_lines(size_t n, uint32_t seed)
{
	static const char *const names[] = {
		"a", "a!", "a b", "a\x01", "ab", "b", "\xc3\xa9", "", "a~",
	};
	const size_t nn = sizeof(names) / sizeof(names[0]);
	char **v = malloc(n * sizeof(*v));

	for (size_t i = 0; i < n; i++) {
		char buf[128];
		size_t len = 0;
		uint32_t depth = 1 + lcg(&seed) % 4;

		for (uint32_t d = 0; d < depth; d++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", d ? ";" : "",
						names[lcg(&seed) % nn]);
		uint32_t c = lcg(&seed) % 100;

		if (c < 10)
			snprintf(buf + len, sizeof(buf) - len, " %u %u", c, lcg(&seed) % 9);
		else if (c < 50)
			snprintf(buf + len, sizeof(buf) - len, " %u.%u", c, lcg(&seed) % 1000);
		else
			snprintf(buf + len, sizeof(buf) - len, " %u", c);
		v[i] = strdup(buf);
	}
	return v;
}

static char *join(char **v, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		sb_addstr(&sb, v[i]);
		sb_addch(&sb, '\n');
	}
	return sb_detach(&sb, NULL);
}

static void test_render_order(void **state)
{
	/* above 65536 lines the merge runs on two threads */
	const size_t n = 70000;
	char **v = make_lines(n, 12345);
	struct flame_opts o;
	int ret;

	(void)state;
	flame_opts_init(&o);
	o.colormode = FLAME_COLOR_HASH;
	o.minwidth = 0;
	char *shuffled = join(v, n);
	/* two sorted halves: a concatenation of sorted files */
	qsort(v, n / 2, sizeof(*v), cmp_line);
	qsort(v + n / 2, n - n / 2, sizeof(*v), cmp_line);
	char *halves = join(v, n);

	qsort(v, n, sizeof(*v), cmp_line);
	char *sorted = join(v, n);
	/* sorted backwards: every line starts a run */
	for (size_t i = 0; i < n / 2; i++) {
		char *t = v[i];

		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
	char *backwards = join(v, n);
	char *want = render(sorted, &o, &ret);

	assert_int_equal(ret, 0);
	assert_non_null(strstr(want, "a b (")); /* names with spaces kept */
	const char *inputs[] = { shuffled, halves, backwards };

	for (size_t k = 0; k < 3; k++) {
		char *got = render(inputs[k], &o, &ret);

		assert_int_equal(ret, 0);
		assert_true(strcmp(got, want) == 0); /* not printed: megabytes */
		free(got);
	}
	/* and the same with --reverse (lines rewritten before sorting) */
	o.reverse = 1;
	free(want);
	want = render(sorted, &o, &ret);
	for (size_t k = 0; k < 3; k++) {
		char *got = render(inputs[k], &o, &ret);

		assert_int_equal(ret, 0);
		assert_true(strcmp(got, want) == 0); /* not printed: megabytes */
		free(got);
	}
	free(want);
	free(shuffled);
	free(halves);
	free(sorted);
	free(backwards);
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encoding_valid),
		cmocka_unit_test(test_parse_count),
		cmocka_unit_test(test_namehash_reference),
		cmocka_unit_test(test_palettes),
		cmocka_unit_test(test_fixed_matches_printf),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_render_small),
		cmocka_unit_test(test_render_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
