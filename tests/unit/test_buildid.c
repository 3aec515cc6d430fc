/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for sym_read_build_id() (src/lib/symbol/buildid.c). */
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

#include "symbol/symbol.h"

static void test_self(void **state)
{
	(void)state;
	uint8_t id[20];
	int n = sym_read_build_id("/proc/self/exe", id, sizeof(id));
	if (n == -ENODATA)
		skip(); /* linked without --build-id */
	assert_int_equal(n, 20);
	/* the same id as binutils shows, when readelf is there */
	char exe[512], cmd[600], line[256], hex[41];
	ssize_t l = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(l > 0);
	exe[l] = 0;
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", exe);
	FILE *p = popen(cmd, "r");
	if (!p)
		return;
	const char *want = NULL;
	static char found[64];
	while (fgets(line, sizeof(line), p)) {
		char *s = strstr(line, "Build ID: ");
		if (s && sscanf(s + 10, "%63s", found) == 1)
			want = found;
	}
	pclose(p);
	if (!want)
		return;
	for (int i = 0; i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	assert_string_equal(hex, want);
	/* a short buffer gets a prefix */
	uint8_t small[4];
	assert_int_equal(sym_read_build_id("/proc/self/exe", small, sizeof(small)), 4);
	assert_memory_equal(small, id, 4);
}

static void test_errors(void **state)
{
	(void)state;
	uint8_t id[20];
	assert_int_equal(sym_read_build_id("/nonexistent/file", id, sizeof(id)), -ENOENT);
	char path[] = "/tmp/pk-bid-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not an ELF file at all\n", 23), 23);
	close(fd);
	assert_int_equal(sym_read_build_id(path, id, sizeof(id)), -EINVAL);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
