/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/cachesim/vgrun (finding the tool, the launcher's
 * command line, the program's environment untouched, the wait status,
 * errors) and hostcache's PERFKIT_SYSFS_CPU, with a fake `valgrind` script
 * that records its arguments and environment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "cachesim/hostcache.h"
#include "cachesim/vgrun.h"

extern char **environ;

static char dir[PATH_MAX];
static char *path0;	/* PATH as the tests found it */

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static char *slurp(const char *path)
{
	static char buf[1 << 16];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void rm_rf(const char *path)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	assert_int_equal(system(cmd), 0);
}

/* DIR/bin/valgrind (records "$@" one per line, then env), DIR/tool/pkcache-* */
static int setup(void **state)
{
	char p[PATH_MAX + 64], script[2 * PATH_MAX + 200], *real;

	(void)state;
	path0 = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	snprintf(dir, sizeof(dir), "/tmp/pk-vgrun-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	real = realpath(dir, NULL);
	snprintf(dir, sizeof(dir), "%s", real);
	free(real);
	snprintf(p, sizeof(p), "%s/bin", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/tool", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/bin/valgrind", dir);
	snprintf(script, sizeof(script),
		 "#!/bin/sh\nprintf '%%s\\n' \"$@\" >'%s/args'\nenv >'%s/env'\nexit 3\n", dir, dir);
	write_file(p, script, 0755);
#if defined(__x86_64__)
	snprintf(p, sizeof(p), "%s/tool/pkcache-amd64-linux", dir);
#elif defined(__aarch64__)
	snprintf(p, sizeof(p), "%s/tool/pkcache-arm64-linux", dir);
#endif
	write_file(p, "#!/bin/sh\nexit 0\n", 0755);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	setenv("PATH", path0, 1);
	rm_rf(dir);
	free(path0);
	return 0;
}

static void test_find_errors(void **state)
{
	struct vgrun vr = VGRUN_INIT;
	char p[PATH_MAX + 16];

	(void)state;
	setenv("PERFKIT_VALGRIND_LIB", "/nonexistent-pk", 1);
	assert_int_equal(vgrun_find(&vr), -ENOENT);
	assert_non_null(strstr(pk_errmsg(), "'/nonexistent-pk' (PERFKIT_VALGRIND_LIB)"));
	assert_null(vr.tool);
	assert_null(vr.launcher);

	/* the tool found, no valgrind in PATH */
	snprintf(p, sizeof(p), "%s/tool", dir);
	setenv("PERFKIT_VALGRIND_LIB", p, 1);
	setenv("PATH", "/nonexistent-pk", 1);
	assert_int_equal(vgrun_find(&vr), -ENOENT);
	assert_non_null(strstr(pk_errmsg(), "valgrind not found in PATH"));
	assert_null(vr.tool);
	vgrun_release(&vr);
	unsetenv("PERFKIT_VALGRIND_LIB");
	setenv("PATH", path0, 1);
}

static void test_run(void **state)
{
	struct vgrun vr = VGRUN_INIT;
	char p[PATH_MAX + 16], want[PATH_MAX + 256], *args;
	const char *opts[] = { "--model=cachegrind", "--D1=8192,2,64", NULL };
	char *argv[] = { "prog", "a b", NULL };
	int status = -1;

	(void)state;
	snprintf(p, sizeof(p), "%s/tool", dir);
	setenv("PERFKIT_VALGRIND_LIB", p, 1);
	snprintf(p, sizeof(p), "%s/bin:%s", dir, path0);	/* our valgrind first */
	setenv("PATH", p, 1);
	setenv("PK_VGRUN_MARK", "x y", 1);
	assert_int_equal(vgrun_find(&vr), 0);
	snprintf(p, sizeof(p), "%s/bin/valgrind", dir);
	assert_string_equal(vr.launcher, p);
	assert_int_equal(vgrun_run(&vr, opts, "/o.cg", "/v.log", argv, &status), 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);

	/* --tool leads from any libdir to the tool, without its platform */
	snprintf(p, sizeof(p), "%s/args", dir);
	args = slurp(p);
	snprintf(want, sizeof(want), "--tool=");
	for (int i = 0; i < 32; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "../");
	snprintf(want + strlen(want), sizeof(want) - strlen(want),
		 "%s/tool/pkcache\n-q\n--log-file=/v.log\n--pk-out=/o.cg\n"
		 "--model=cachegrind\n--D1=8192,2,64\nprog\na b\n", dir + 1);
	assert_string_equal(args, want);

	/* the environment: the caller's, nothing of perfkit's added */
	snprintf(p, sizeof(p), "%s/env", dir);
	args = slurp(p);
	assert_non_null(strstr(args, "PK_VGRUN_MARK=x y\n"));
	assert_null(strstr(args, "\nVALGRIND_LIB="));
	assert_true(strncmp(args, "VALGRIND_LIB=", 13) != 0);
	for (char **e = environ; *e; e++) {
		char line[4096];

		if (!strncmp(*e, "PWD=", 4) || !strncmp(*e, "OLDPWD=", 7) || !strncmp(*e, "_=", 2) ||
		    !strncmp(*e, "SHLVL=", 6) || strchr(*e, '\n'))
			continue;	/* what sh itself may set */
		snprintf(line, sizeof(line), "%s\n", *e);
		assert_non_null(strstr(args, line));
	}

	/* no log, no out: neither option */
	assert_int_equal(vgrun_run(&vr, NULL, NULL, NULL, argv, &status), 0);
	snprintf(p, sizeof(p), "%s/args", dir);
	args = slurp(p);
	assert_null(strstr(args, "--log-file"));
	assert_null(strstr(args, "--pk-out"));
	assert_non_null(strstr(args, "\n-q\nprog\na b\n"));

	/* a program name Valgrind would take for an option; no program */
	char *dash[] = { "-v", NULL }, *none[] = { NULL };

	assert_int_equal(vgrun_run(&vr, NULL, NULL, NULL, dash, &status), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "'-v'"));
	assert_int_equal(vgrun_run(&vr, NULL, NULL, NULL, none, &status), -EINVAL);

	/* the launcher cannot be run: exec's errno, the child reaped */
	snprintf(p, sizeof(p), "%s/bin/valgrind", dir);
	chmod(p, 0644);
	assert_int_equal(vgrun_run(&vr, NULL, NULL, NULL, argv, &status), -EACCES);
	assert_non_null(strstr(pk_errmsg(), "cannot run"));
	chmod(p, 0755);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	vgrun_release(&vr);
	vgrun_release(&vr);	/* safe twice */
	unsetenv("PERFKIT_VALGRIND_LIB");
	unsetenv("PK_VGRUN_MARK");
	setenv("PATH", path0, 1);
}

static void test_sysfs_cpu_env(void **state)
{
	char p[PATH_MAX + 64];
	struct host_caches hc;
	static const char *const idx[2][4] = { { "1", "Data", "48K", "12" },
					       { "2", "Unified", "2048K", "16" } };

	(void)state;
	unsetenv("PERFKIT_SYSFS_CPU");
	assert_string_equal(hostcache_sysfs_cpu(), "/sys/devices/system/cpu");
	setenv("PERFKIT_SYSFS_CPU", "", 1);
	assert_string_equal(hostcache_sysfs_cpu(), "/sys/devices/system/cpu");

	snprintf(p, sizeof(p), "%s/cpu0", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/cpu0/cache", dir);
	mkdir(p, 0755);
	for (int i = 0; i < 2; i++) {
		static const char *const f[] = { "level", "type", "size", "ways_of_associativity" };

		snprintf(p, sizeof(p), "%s/cpu0/cache/index%d", dir, i);
		mkdir(p, 0755);
		for (int j = 0; j < 4; j++) {
			snprintf(p, sizeof(p), "%s/cpu0/cache/index%d/%s", dir, i, f[j]);
			write_file(p, idx[i][j], 0644);
		}
		snprintf(p, sizeof(p), "%s/cpu0/cache/index%d/coherency_line_size", dir, i);
		write_file(p, "64\n", 0644);
	}
	setenv("PERFKIT_SYSFS_CPU", dir, 1);
	assert_string_equal(hostcache_sysfs_cpu(), dir);
	assert_int_equal(hostcache_read_host(&hc), 0);
	assert_true(hc.D1.size == 49152 && hc.D1.assoc == 12 && hc.D1.line == 64);
	assert_true(hc.L2.size == 2u << 20 && hc.L2.assoc == 16);
	assert_true(hc.LL.size == 2u << 20);	/* the highest unified level */
	assert_int_equal(hc.I1.size, 0);

	/* set, but describing nothing: an error naming it, not the host */
	snprintf(p, sizeof(p), "%s/bin", dir);
	setenv("PERFKIT_SYSFS_CPU", p, 1);
	assert_int_equal(hostcache_read_host(&hc), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "PERFKIT_SYSFS_CPU='"));
	assert_non_null(strstr(pk_errmsg(), "/bin/cpu0/cache/index*/'"));
	unsetenv("PERFKIT_SYSFS_CPU");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_errors),
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_sysfs_cpu_env),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
