/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/base/outfile: whole-or-nothing writes, symlinks
 * never written through, new files 0600, non-regular targets (/dev/null) written directly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/outfile.h"

static char dir[] = "/tmp/pk-outfile.XXXXXX";

static void slurp(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t got = fread(buf, 1, n - 1, f);
	buf[got] = '\0';
	fclose(f);
}

static void test_commit_abort(void **state)
{
	char path[256], buf[64];
	struct outfile of;

	(void)state;
	snprintf(path, sizeof(path), "%s/out", dir);
	assert_int_equal(of_open(&of, path), 0);
	fputs("first", of.f);
	assert_int_equal(access(path, F_OK), -1);       /* not there until commit */
	assert_int_equal(of_commit(&of), 0);
	slurp(path, buf, sizeof(buf));
	assert_string_equal(buf, "first");
	assert_int_equal(of_open(&of, path), 0);
	fputs("second, abandoned", of.f);
	of_abort(&of);
	slurp(path, buf, sizeof(buf));
	assert_string_equal(buf, "first");               /* old file intact */
	/* new files are 0600 (like perf.data); a replaced file keeps its mode */
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(of_open(&of, path), 0);
	fputs("third", of.f);
	assert_int_equal(of_commit(&of), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	/* a symlink to a file, or a dangling one, is never written through */
	char link[256], dangling[256];
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(dangling, sizeof(dangling), "%s/dangling", dir);
	assert_int_equal(symlink("out", link), 0);
	assert_int_equal(of_open(&of, link), -EEXIST);
	assert_non_null(strstr(pk_errmsg(), "symbolic link"));
	assert_non_null(strstr(pk_errmsg(), link));
	assert_int_equal(symlink("elsewhere", dangling), 0);
	assert_int_equal(of_open(&of, dangling), -EEXIST);
	char tgt[256];
	snprintf(tgt, sizeof(tgt), "%s/elsewhere", dir);
	assert_int_equal(access(tgt, F_OK), -1);         /* nothing created */
	slurp(path, buf, sizeof(buf));
	assert_string_equal(buf, "third");               /* untouched */
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	unlink(link);
	unlink(dangling);
	unlink(path);
}

static void test_special_and_errors(void **state)
{
	struct outfile of;
	struct stat st;

	(void)state;
	assert_int_equal(of_open(&of, "/dev/null"), 0);
	assert_null(of.tmp);                             /* written directly */
	fputs("x", of.f);
	assert_int_equal(of_commit(&of), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));                /* still the device */
	/* a symlink to a device (/dev/stdout is one) is written directly */
	char devlink[256];
	snprintf(devlink, sizeof(devlink), "%s/devnull", dir);
	assert_int_equal(symlink("/dev/null", devlink), 0);
	assert_int_equal(of_open(&of, devlink), 0);
	assert_null(of.tmp);
	assert_int_equal(of_commit(&of), 0);
	assert_int_equal(lstat(devlink, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	unlink(devlink);
	/* under /dev/ and /proc/ (as /dev/stdout to a file): opened directly */
	assert_true(of_kernel_path("/dev/stdout"));
	assert_true(of_kernel_path("/proc/self/fd/1"));
	assert_false(of_kernel_path("/tmp/dev/x"));
	assert_false(of_kernel_path("devnull"));
	assert_int_equal(of_std_fd("/dev/stdout"), 1);
	assert_int_equal(of_std_fd("/dev/stderr"), 2);
	assert_int_equal(of_std_fd("/dev/fd/0"), 0);
	assert_int_equal(of_std_fd("/proc/self/fd/1"), 1);
	assert_int_equal(of_std_fd("/dev/fd/999999"), -1);   /* not open */
	assert_int_equal(of_std_fd("/dev/fd/1x"), -1);
	assert_int_equal(of_std_fd("/dev/null"), -1);
	assert_int_equal(of_open(&of, "/nonexistent-dir/x"), -ENOENT);
	assert_non_null(strstr(pk_errmsg(), "/nonexistent-dir/x"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commit_abort),
		cmocka_unit_test(test_special_and_errors),
	};
	if (!mkdtemp(dir))
		return 1;
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(dir);
	return rc;
}
