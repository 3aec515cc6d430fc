/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/memprof: the c2c/mem file reader (a whole file,
 * escapes, a cut one, dangling references, bad fields) and the
 * classification of shared lines (false, true, read-mostly; a result read
 * once does not make two counters true sharing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "memprof/memprof.h"

static const char good[] =
	"perfkit-memprof 1\n"
	"mode c2c\n"
	"cmd ./fs shared 10\n"
	"line-size 64\n"
	"model m\n"
	"thread 0 100\n"
	"thread 1 101\n"
	"line 0x1000 0 20\n"
	"lt 0 10 10 10 0xff00 0xff00\n"
	"lt 1 10 10 10 0xff 0xff\n"
	"ls 0 1 0 8 10 10\n"
	"ls 1 0 8 8 10 10\n"
	"object 0 global -1 counters\\x09x\\x5cy\tfs\n"
	"code 0 0x401000 12 bump_a\t/src/fs.c\t/bin/fs\n"
	"code 1 0x401100 20 bump_b\t/src/fs.c\t/bin/fs\n"
	"end 1 0\n";

static char *write_tmp(const char *text, size_t n)
{
	char *p = strdup("/tmp/test_memprof.XXXXXX");
	int fd = mkstemp(p);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	close(fd);
	return p;
}

static void test_read_good(void **state)
{
	struct memprof mp;
	char *p = write_tmp(good, sizeof(good) - 1), buf[128];

	(void)state;
	assert_int_equal(memprof_read(&mp, p), 0);
	assert_string_equal(mp.mode, "c2c");
	assert_int_equal(mp.nlines, 1);
	assert_int_equal(mp.lines[0].nthr, 2);
	assert_int_equal(mp.lines[0].transfers, 20);
	/* a control byte stays escaped (terminals), a backslash is restored */
	assert_string_equal(mp.obj[0].name, "counters\\x09x\\y");
	assert_int_equal(memprof_tid(&mp, 1), 101);
	assert_string_equal(memprof_srcline(&mp, 1, buf, sizeof(buf)), "fs.c:20");
	assert_int_equal(memprof_classify(&mp.lines[0]), MP_FALSE_SHARING);
	memprof_release(&mp);
	unlink(p);
	free(p);
}

static void expect_error(const char *text, const char *msg_part)
{
	struct memprof mp;
	char *p = write_tmp(text, strlen(text));

	assert_true(memprof_read(&mp, p) < 0);
	if (!strstr(pk_errmsg(), msg_part))
		fail_msg("'%s' not in '%s'", msg_part, pk_errmsg());
	unlink(p);
	free(p);
}

static void test_read_bad(void **state)
{
	char cut[sizeof(good)];

	(void)state;
	/* cut before the end record, and in the middle of a record */
	memcpy(cut, good, sizeof(good));
	*strstr(cut, "end 1 0") = 0;
	expect_error(cut, "cut short after line 15");
	cut[strlen(cut) - 5] = 0;
	expect_error(cut, ":15: cut short in the middle of a record");
	expect_error("perfkit-memprof 2\n", ":1: expected 'perfkit-memprof 1'");
	expect_error("perfkit-memprof 1\nmode c2c\nline-size 64\nline 0x10 7 1\nend 1 0\n",
		     "refers to object 7, never defined");
	expect_error("perfkit-memprof 1\nmode c2c\nline-size 64\nlt 0 1 1 1 0x0 0x0\n",
		     ":4: expected a 'line' record");
	expect_error("perfkit-memprof 1\nmode c2c\nline-size 64\nthread x 1\n",
		     ":4: expected thread SERIAL TID");
	expect_error("perfkit-memprof 1\nmode c2c\nline-size 64\nend 0 0\nend 0 0\n",
		     ":5: expected nothing after the 'end' record");
	expect_error("perfkit-memprof 1\nmode c2c\nline-size 64\nend 3 0\n", "cut short: 'end' counts 3");
	expect_error("perfkit-memprof 1\nmode c2c\nline-size 64\nfoo 1\n", ":4: expected a record");
	expect_error("perfkit-memprof 1\nmode c2c\nline-size 64\nstack 99999999 0\n", ":4: expected stack");
}

/* a hostile file: raw control bytes in names come back \xHH-escaped (they
 * would drive the terminal c2c/mem report print to), and a definition id far
 * beyond the file's size is refused before memory is sized by it */
static void test_read_hostile(void **state)
{
	static const char raw[] =
		"perfkit-memprof 1\n"
		"mode c2c\n"
		"line-size 64\n"
		"object 0 global -1 na\033[31mme\x7f\\x1b\tds\ro\n"
		"code 0 0x10 1 f\033]0;x\007\tfile\\x\tdso\n"
		"end 0 0\n";
	struct memprof mp;
	char *p = write_tmp(raw, sizeof(raw) - 1);

	(void)state;
	assert_int_equal(memprof_read(&mp, p), 0);
	assert_string_equal(mp.obj[0].name, "na\\x1b[31mme\\x7f\\x1b");
	assert_string_equal(mp.obj[0].dso, "ds\\x0do");
	assert_string_equal(mp.code[0].fn, "f\\x1b]0;x\\x07");
	assert_string_equal(mp.code[0].file, "file\\x");
	memprof_release(&mp);
	unlink(p);
	free(p);
	expect_error("perfkit-memprof 1\nmode c2c\nline-size 64\ncode 16777215 0x1 1 f\tf\td\n",
		     ":4: expected a code with an id below 4");
	expect_error("perfkit-memprof 1\nmode c2c\nline-size 64\nobject 9 global -1 x\ty\n",
		     ":4: expected an object with an id below 4");
	expect_error("perfkit-memprof 1\nmode c2c\nline-size 64\nstack 4 0\n",
		     ":4: expected a stack with an id below 4");
}

/* c2c record's and mem record's options, up to the program */
static int rargs(const char *line, const char *const *pass, const char **opts, int *n, const char **out)
{
	static char buf[256], *argv[16];
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *p = buf; *p && argc < 15;) {
		argv[argc++] = p;
		p += strcspn(p, " ");
		if (*p)
			*p++ = '\0';
	}
	argv[argc] = NULL;
	*n = 0;
	*out = "default";
	return memprof_record_args(argc, argv, pass, opts, n, out);
}

static void test_record_args(void **state)
{
	static const char *const pass[] = { "--D1=", "--LL=", NULL };
	const char *opts[16], *out;
	int n;

	(void)state;
	assert_int_equal(rargs("record ./prog -o x", NULL, opts, &n, &out), 1);
	assert_string_equal(out, "default");   /* the program's own -o */
	assert_int_equal(rargs("record -o f --output=g -- -prog", NULL, opts, &n, &out), 5);
	assert_string_equal(out, "g");
	assert_int_equal(rargs("record --D1=1,2,3 -o f --LL=4,5,6 prog a", pass, opts, &n, &out), 5);
	assert_int_equal(n, 2);
	assert_string_equal(opts[0], "--D1=1,2,3");
	assert_string_equal(opts[1], "--LL=4,5,6");
	assert_string_equal(out, "f");
	assert_int_equal(rargs("record --help prog", NULL, opts, &n, &out), 0);
	assert_int_equal(rargs("record --D1=1,2,3 prog", NULL, opts, &n, &out), -EINVAL);
	assert_string_equal(pk_errmsg(), "unknown option '--D1=1,2,3'");
	assert_int_equal(rargs("record -o", NULL, opts, &n, &out), -EINVAL);
	assert_string_equal(pk_errmsg(), "-o needs a file name");
	assert_int_equal(rargs("record -o f --", pass, opts, &n, &out), -EINVAL);
	assert_string_equal(pk_errmsg(), "no program to run");
}

static void test_classify(void **state)
{
	struct mp_lthr t[2] = { { 0, 100, 100, 0, 0xff, 0xff }, { 1, 100, 100, 0, 0xff00, 0xff00 } };
	struct mp_lsite s[3] = { { 0, 0, 0, 8, 100, 100 }, { 1, 1, 8, 8, 100, 100 }, { 2, 1, 0, 8, 1, 0 } };
	struct mp_line l = { 0x1000, 10, 0, t, 2, s, 2 };

	(void)state;
	assert_int_equal(memprof_classify(&l), MP_FALSE_SHARING);
	/* thread 1 reads thread 0's bytes once: still false sharing */
	t[1].rmask |= 0xff;
	t[1].loads++;
	l.nsite = 3;
	assert_int_equal(memprof_classify(&l), MP_FALSE_SHARING);
	/* ... but often: true sharing */
	s[2].loads = 50;
	t[1].loads += 49;
	assert_int_equal(memprof_classify(&l), MP_TRUE_SHARING);
	/* nobody writes: read-mostly */
	t[0].wmask = t[1].wmask = 0;
	assert_int_equal(memprof_classify(&l), MP_READ_SHARED);
	assert_string_equal(memprof_class_name(MP_READ_SHARED), "read-mostly");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_good),
		cmocka_unit_test(test_read_bad),
		cmocka_unit_test(test_read_hostile),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_record_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
