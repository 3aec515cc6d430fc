/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/format/perfscript + collapse: the rules of
 * FlameGraph's stackcollapse-perf.pl on small `perf script` texts.  The
 * expected outputs are those of the Perl script (41fee1f) on the same
 * text, except where conformance/README.md lists a correction (noted). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/error.h"
#include "format/collapse.h"

static char *collapse(const char *text, const struct collapse_opts *o)
{
	struct folded f;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct collapse_opts none = { 0 };

	folded_init(&f);
	assert_int_equal(collapse_text(text, strlen(text), "test", o ? o : &none, &f), 0);
	assert_int_equal(folded_write(&f, m), 0);
	fclose(m);
	folded_release(&f);
	return buf;
}

#define CHECK(text, opts, want) do {                    \
	char *got_ = collapse((text), (opts));          \
	assert_string_equal(got_, (want));              \
	free(got_);                                     \
} while (0)

static void test_basic(void **state)
{
	(void)state;
	CHECK("swapper     0 [000] 158665.570607: cpu-clock:\n"
	      "\tffffffff8103ce3b native_safe_halt ([kernel.kallsyms])\n"
	      "\tffffffff8101c6a3 default_idle+0x1a ([kernel.kallsyms])\n"
	      "\n"
	      "# a comment\n"
	      "swapper     0 [000] 158665.570608: cpu-clock:\n"
	      "\tffffffff8103ce3b native_safe_halt ([kernel.kallsyms])\n"
	      "\tffffffff8101c6a3 default_idle+0x1b ([kernel.kallsyms])\n"
	      "\n",
	      NULL, "swapper;default_idle;native_safe_halt 2\n");
}

static void test_header_forms(void **state)
{
	struct collapse_opts pid = { .pid = true }, tid = { .tid = true };
	const char *in =
		"V8 WorkerThread 24636/25607 [000] 94564.109216: 100 cycles:\n"
		"\t7f00 work (/usr/bin/node)\n\n"
		"java 12688 6544038.708352: 10309278 cycles:\n"
		"\t7f00 work (/usr/bin/java)\n\n"
		"perf 7/0 1.0: 5 cycles:\n"
		"\t7f00 work (/usr/bin/perf)\n\n";

	(void)state;
	CHECK(in, NULL, "V8_WorkerThread;work 100\njava;work 10309278\nperf;work 5\n");
	CHECK(in, &pid, "V8_WorkerThread-24636;work 100\njava-?;work 10309278\nperf-?;work 5\n");
	CHECK(in, &tid, "V8_WorkerThread-24636/25607;work 100\njava-?/12688;work 10309278\n"
			"perf-?/7;work 5\n");
}

/* Headers are read from their right-hand fields: comms with spaces,
 * digits or brackets, or of one character, stay whole (a correction to
 * the Perl regex, which cuts "ET_NET 0" and swallows "t 4321 1.5:"). */
static void test_header_right_hand(void **state)
{
	struct collapse_opts tid = { .tid = true };
	const char *in =
		"t 4321 1234.500000:     250000 cpu-clock: \n"
		"\t55d0c0a0 spin (/usr/bin/t)\n\n"
		"ET_NET 0 3101 [002] 500.000200:     7 cpu-clock: \n"
		"\t55d0c0a0 net (/usr/bin/ts)\n\n"
		"[pool 0] 3000/3102 [001] 500.000300:     9 cpu-clock: \n"
		"\t55d0c0a0 pool (/usr/bin/app)\n\n";

	(void)state;
	CHECK(in, NULL, "ET_NET_0;net 7\n[pool_0];pool 9\nt;spin 250000\n");
	CHECK(in, &tid, "ET_NET_0-?/3101;net 7\n[pool_0]-3000/3102;pool 9\nt-?/4321;spin 250000\n");
}

/* Without call chains perf script pads the comm and prints the sampled
 * frame on the header line: each line is a one-frame sample. */
static void test_no_callchain(void **state)
{
	(void)state;
	CHECK("             app  5000 [000]    10.000000:     3 cpu-clock:      55d0c0a0 spin (/usr/bin/app)\n"
	      "             app  5000 [000]    10.000250:     3 cpu-clock:      55d0c0b0 main+0x10 (/usr/bin/app)\n"
	      "             app  5000 [000]    10.000500:     3 cpu-clock:      55d0c0a0 spin (/usr/bin/app)\n",
	      NULL, "app;main 3\napp;spin 6\n");
}

static void test_period_and_events(void **state)
{
	struct collapse_opts count = { .count = true }, instr = { .event_filter = "instructions" };
	const char *in =
		"aa 1 1.0: cycles:\n\tf x (m)\n\n"            /* no period: 1 */
		"aa 1 1.0: 0 cycles:\n\tf x (m)\n\n"          /* "0": 0 (issue 17 item 7) */
		"aa 1 1.0: 40 cycles:ppp:\n\tf x (m)\n\n"     /* cycles too, modifiers aside */
		"aa 1 1.0: 7 instructions:\n\tf y (m)\n\n"
		"aa 1 1.0: 10 cycles:\n\tf x (m)\n\n";

	(void)state;
	CHECK(in, NULL, "aa;x 51\n");     /* first event seen: cycles */
	CHECK(in, &count, "aa;x 4\n");
	CHECK(in, &instr, "aa;y 7\n");
	pk_warnings_take();
}

static void test_unknown_and_addrs(void **state)
{
	struct collapse_opts addrs = { .addrs = true };
	const char *in =
		"pp 1 1.0: 1 cpu-clock:\n"
		"\t0 [unknown] ([unknown])\n"
		"\t7f2a [unknown] (/lib/x86_64-linux-gnu/libc.so.6)\n"
		"\t10 main+0x10 (/bin/p)\n\n";

	(void)state;
	CHECK(in, NULL, "pp;main;[libc.so.6];[unknown] 1\n");
	CHECK(in, &addrs, "pp;main;[libc.so.6 <7f2a>];[unknown <0>] 1\n");
}

static void test_tidy(void **state)
{
	(void)state;
	CHECK("pp 1 1.0: 1 c:\n"
	      "\t1 foo(int, char) (/bin/p)\n"
	      "\t2 net/http.(*Client).Do (/bin/p)\n"
	      "\t3 ns::(anonymous namespace)::bar(int) (/bin/p)\n"
	      "\t4 RegExp:[&<>\\\"\\'] (/tmp/perf-1.map)\n"
	      "\t5 a;b (/bin/p)\n"
	      "\t6 (skipped) (/bin/p)\n"
	      "\t7 Lorg/x/Y;.m(I)V (/bin/p)\n\n",
	      NULL,
	      "pp;Lorg/x/Y:.m;a:b;RegExp:[&<>\\\\];ns::(anonymous namespace)::bar;"
	      "net/http.(*Client).Do;foo 1\n");
	/* java processes lose the L class prefix */
	CHECK("java 1 1.0: 1 c:\n\t7 Lorg/x/Y;.m(I)V (/bin/p)\n\t8 LNoSlash (/bin/p)\n\n",
	      NULL, "java;LNoSlash;org/x/Y:.m 1\n");
}

static void test_cpp_templates(void **state)
{
	(void)state;
	/* correction (conformance README): template arguments keep their parentheses */
	CHECK("pp 1 1.0: 1 c:\n"
	      "\t1 std::function<int (int, int)>::operator() (/bin/p)\n"
	      "\t2 std::operator<< <std::char_traits<char> >(std::ostream&, char const*) (/bin/p)\n"
	      "\t3 A::operator<(A const&) (/bin/p)\n"
	      "\t4 f<(anonymous namespace)::T>(int) (/bin/p)\n\n",
	      NULL,
	      "pp;f<(anonymous namespace)::T>;A::operator<;"
	      "std::operator<< <std::char_traits<char> >;std::function<int (int, int)>::operator 1\n");
}

static void test_annotations(void **state)
{
	struct collapse_opts all = { .kernel = true, .jit = true };
	const char *in =
		"pp 1 1.0: 1 c:\n"
		"\tffff1 do_sys ([kernel.kallsyms])\n"
		"\tffff2 mod_fn ([nf_conntrack])\n"
		"\t8c3 tcp_sendmsg (/lib/modules/4.3/build/vmlinux)\n"
		"\t7f1 Ljava/Foo;::bar (/tmp/perf-19982.map)\n"
		"\t7f2 outer->inner->leaf (/bin/p)\n"
		"\t0 [unknown] ([unknown])\n\n";

	(void)state;
	CHECK(in, NULL, "pp;[unknown];outer;inner_[i];leaf_[i];Ljava/Foo:::bar;tcp_sendmsg;mod_fn;do_sys 1\n");
	CHECK(in, &all, "pp;[unknown];outer;inner_[i];leaf_[i];Ljava/Foo:::bar_[j];tcp_sendmsg_[k];"
			"mod_fn_[k];do_sys_[k] 1\n");
}

static void test_odd_lines(void **state)
{
	(void)state;
	/* frames before any header are ignored; the last sample without a
	 * final blank line is kept (correction); a frame line whose address
	 * word must shrink for the regex to match, as Perl backtracks */
	CHECK("\tdead x (m)\n"
	      "pp 1 1.0: 1 c:\n"
	      "\t  abc (x)\n"
	      "\tWEIRD\n"
	      "\t12 last (m)", NULL, "pp;last;c 1\n");
	assert_non_null(strstr(pk_warnings_take(), "test:4: unrecognized line"));
	CHECK("", NULL, "");
	CHECK("\n\n\n", NULL, "");
}

static void test_srcline(void **state)
{
	struct collapse_opts src = { .srcline = true };

	(void)state;
	CHECK("a.out 35081 252436.005167: 667783 cycles:\n"
	      "\t408ebb some_method+0x8b (/full/a.out)\n"
	      "  uniform_int_dist.h:300\n"
	      "\t7f6d215ca51b __strlen_avx2+0x4b (/lib64/libc-2.33.so)\n"
	      "  libc-2.33.so[16351b]\n"
	      "\t7ffc71ee9580 [unknown] ([unknown])\n\n",
	      &src, "a.out;[unknown];__strlen_avx2:libc-2.33.so;some_method:uniform_int_dist.h:300 667783\n");
}

/* The fast paths (a frame line predicted by its symbol and DSO whatever
 * its address, a header equal to a recent one but for its time) give what
 * the fields parsed give: a predicted line whose address is not one word
 * is read by the regex (part of it joins the symbol), and a header whose
 * time is not DIGITS.DIGITS is parsed, not taken from the memo.  Expected:
 * stackcollapse-perf.pl's output on the same text. */
static void test_fast_paths(void **state)
{
	(void)state;
	CHECK("sh 30134  1228.113500:      33333 cpu-clock:ppp: \n"
	      "\tffffffff816ad1d5 kfunc+0x155 ([kernel.kallsyms])\n"
	      "\t    7fe0d30f2ad7 ufunc+0x1 (/usr/lib/libc.so.6)\n"
	      "\t    55d0d30f2ad7 main+0x10 (/usr/bin/sh)\n"
	      "\n"
	      "sh 30135  1228.113600:      33333 cpu-clock:ppp: \n"
	      "\tffffffff816ad1d5 kfunc+0x155 ([kernel.kallsyms])\n"
	      "\t    7fe0aaaaaad7 ufunc+0x1 (/usr/lib/libc.so.6)\n"
	      "\t    55d0bbbbbad7 main+0x10 (/usr/bin/sh)\n"
	      "\n"
	      "sh 30135  1228.113700:      33333 cpu-clock:ppp: \n"
	      "\tffffffff816ad1d5 kfunc+0x155 ([kernel.kallsyms])\n"
	      "\t    7fe0aaa.aad7 ufunc+0x1 (/usr/lib/libc.so.6)\n"
	      "\t    55d0bbbb bad7 main+0x10 (/usr/bin/sh)\n"
	      "\n"
	      "sh 30135  1228.1137x0:      33333 cpu-clock:ppp: \n"
	      "\tffffffff816ad1d5 kfunc+0x155 ([kernel.kallsyms])\n"
	      "\n"
	      "sh 30135  1228.:      33333 cpu-clock:ppp: \n"
	      "\tffffffff816ad1d5 kfunc+0x155 ([kernel.kallsyms])\n"
	      "\n"
	      "sh 30135  12281.13700:      33333 cpu-clock:ppp: \n"
	      "\tffffffff816ad1d5 kfunc+0x155 ([kernel.kallsyms])\n"
	      "\n",
	      NULL,
	      "sh;bad7 main;.aad7 ufunc;kfunc 33333\n"
	      "sh;kfunc 99999\n"
	      "sh;main;ufunc;kfunc 66666\n");
}

static void test_file_gzip(void **state)
{
	char path[] = "/tmp/pk-test-perfscript-XXXXXX";
	int fd = mkstemp(path);
	const char *text = "pp 1 1.0: 3 c:\n\t1 f (m)\n\n";
	struct collapse_opts none = { 0 };
	struct folded f;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	gzFile gz = gzopen(path, "wb");
	assert_non_null(gz);
	gzputs(gz, text);
	gzclose(gz);
	folded_init(&f);
	assert_int_equal(collapse_file(path, &none, &f), 0);
	assert_int_equal(folded_nr(&f), 1);
	assert_true(folded_weight(&f, 0) == 3);
	folded_release(&f);

	/* missing file: -ENOENT with the name in the message */
	folded_init(&f);
	assert_int_equal(collapse_file("/nonexistent/x", &none, &f), -2);
	assert_non_null(strstr(pk_errmsg(), "/nonexistent/x"));
	folded_release(&f);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_header_forms),
		cmocka_unit_test(test_header_right_hand),
		cmocka_unit_test(test_no_callchain),
		cmocka_unit_test(test_period_and_events),
		cmocka_unit_test(test_unknown_and_addrs),
		cmocka_unit_test(test_tidy),
		cmocka_unit_test(test_cpp_templates),
		cmocka_unit_test(test_annotations),
		cmocka_unit_test(test_odd_lines),
		cmocka_unit_test(test_srcline),
		cmocka_unit_test(test_fast_paths),
		cmocka_unit_test(test_file_gzip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
