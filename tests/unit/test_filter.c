/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/session/filter (perf's sample filters: --comms,
 * --pid, --tid, -C, --time). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "base/error.h"
#include "session/filter.h"

static struct sample_filter f;

static struct pk_sample sample(const char *comm, uint32_t pid, uint32_t tid, uint32_t cpu, uint64_t time)
{
	return (struct pk_sample){ .comm = comm, .pid = pid, .tid = tid, .cpu = cpu, .time = time };
}

static void test_empty_passes(void **state)
{
	struct pk_sample s = sample("x", 1, 1, 3, 5);

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_false(sfilt_active(&f));
	assert_true(sfilt_keep(&f, &s));
}

static void test_comms(void **state)
{
	static const char ls[] = "ls", cc[] = "cc1", l[] = "l";
	struct pk_sample a = sample(ls, 1, 1, 0, 0), b = sample(cc, 2, 2, 0, 0), c = sample(l, 3, 3, 0, 0);

	(void)state;
	memset(&f, 0, sizeof(f));
	sfilt_names_set(&f.comms, ",ls,,make,");
	assert_int_equal(f.comms.n, 2);
	assert_int_equal(f.comms.first_len, 2);
	assert_memory_equal(f.comms.first, "ls", 2);
	assert_true(sfilt_keep(&f, &a));
	assert_false(sfilt_keep(&f, &b));
	assert_false(sfilt_keep(&f, &c));   /* whole names, not prefixes */
	assert_true(sfilt_keep(&f, &a));    /* the cached answer follows the comm */
	assert_true(sfilt_names_has(&f.comms, "make"));
	assert_false(sfilt_names_has(&f.comms, "mak"));
	sfilt_names_set(&f.comms, ",,");   /* no name: nothing kept, as perf */
	assert_int_equal(f.comms.n, 0);
	assert_false(sfilt_keep(&f, &b));
	assert_false(sfilt_keep(&f, &a));
}

/* --dsos and --symbols: the leaf's DSO by path or file name, its symbol
 * by name or start address */
static void test_leaf(void **state)
{
	struct pk_frame fr[2] = {
		{ .ip = 0x401010, .sym = "work", .sym_off = 0x10, .dso = "/usr/bin/prog" },
		{ .ip = 0x7f0000001000, .sym = NULL, .dso = "[unknown]" },
	};
	struct pk_sample s = sample("a", 1, 1, 0, 0), u = s, none = s;

	(void)state;
	s.frames = fr;
	s.nr_frames = 2;
	u.frames = fr + 1;
	u.nr_frames = 1;
	memset(&f, 0, sizeof(f));
	sfilt_names_set(&f.dsos, "libc.so.6,prog");
	assert_true(sfilt_keep(&f, &s));
	assert_false(sfilt_keep(&f, &u));
	assert_false(sfilt_keep(&f, &none));   /* no frame: no DSO */
	sfilt_names_set(&f.dsos, "/usr/bin/prog");
	assert_true(sfilt_keep(&f, &s));
	sfilt_names_set(&f.dsos, "bin/prog");   /* a name or the whole path, no other suffix */
	assert_false(sfilt_keep(&f, &s));
	memset(&f, 0, sizeof(f));
	sfilt_names_set(&f.syms, "main,0x401000");
	assert_true(sfilt_keep(&f, &s));   /* by start address */
	sfilt_names_set(&f.syms, "work");
	assert_true(sfilt_keep(&f, &s));
	assert_false(sfilt_keep(&f, &u));   /* no symbol */
	sfilt_names_set(&f.syms, "wor,0x401010");   /* neither a prefix nor the ip */
	assert_false(sfilt_keep(&f, &s));
	assert_true(sfilt_sym_listed(&f, "wor", 0));
	assert_false(sfilt_dso_listed(&f, NULL));
}

static void test_ids(void **state)
{
	struct pk_sample a = sample("a", 10, 11, 0, 0), b = sample("a", 10, 12, 0, 0), c = sample("a", 20, 21, 0, 0);

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(sfilt_ids(&f, false, "--pid", "10,30"), 0);
	assert_true(sfilt_keep(&f, &a) && sfilt_keep(&f, &b));
	assert_false(sfilt_keep(&f, &c));
	assert_int_equal(sfilt_ids(&f, true, "--tid", "12"), 0);
	assert_false(sfilt_keep(&f, &a));   /* both lists must pass */
	assert_true(sfilt_keep(&f, &b));
	const char *bad[] = { "x", "1,y", "-1", "+1", "99999999999", "2147483648", "", ",," };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(sfilt_ids(&f, false, "--pid", bad[i]), -EINVAL);
		assert_non_null(strstr(pk_errmsg(), "--pid"));
	}
}

static void test_cpus(void **state)
{
	struct pk_sample s = sample("a", 1, 1, 0, 0);

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(sfilt_cpus(&f, "-C", "64,2-3,0"), 0);   /* any order */
	for (uint32_t cpu = 0; cpu < 70; cpu++) {
		s.cpu = cpu;
		assert_int_equal(sfilt_keep(&f, &s), cpu == 0 || cpu == 2 || cpu == 3 || cpu == 64);
	}
	s.cpu = UINT32_MAX;
	assert_false(sfilt_keep(&f, &s));
	/* each CPU once */
	const char *bad[] = { "", ",", "1,0-1", "0,0", "3-2", "1-", "-1", "x", "4096", "0-4096" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(sfilt_cpus(&f, "-C", bad[i]), -EINVAL);
}

static void test_time(void **state)
{
	struct pk_sample s = sample("a", 1, 1, 0, 0);

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(sfilt_time(&f, "--time", "1.5,2 3.000000001,"), 0);
	assert_int_equal(f.nr_times, 2);
	uint64_t in[] = { 1500000000, 1700000000, 2000000000, 3000000001, UINT64_MAX };
	uint64_t out[] = { 0, 1499999999, 2000000001, 3000000000 };
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		s.time = in[i];
		assert_true(sfilt_keep(&f, &s));
	}
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
		s.time = out[i];
		assert_false(sfilt_keep(&f, &s));
	}
	assert_int_equal(sfilt_time(&f, "--time", ",7"), 0);
	s.time = 0;
	assert_true(sfilt_keep(&f, &s));
	s.time = 7000000001;
	assert_false(sfilt_keep(&f, &s));
	const char *bad[] = { "", " ", "1", "x,2", "2,1", "1.1234567891,", "10%/2", "1,2,3,4", "1.,x",
			      "3,4 1,2", "1,3 2,4", "1, 2,3" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(sfilt_time(&f, "--time", bad[i]), -EINVAL);
		assert_non_null(strstr(pk_errmsg(), "--time"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_passes),
		cmocka_unit_test(test_comms),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_leaf),
		cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
