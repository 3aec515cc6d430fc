/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/bpfutil/opts (the eBPF tools' shared option
 * values) and the parts of bpfutil/ustack that need no BPF: snapshots of
 * this process and the rendering of stacks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "bpfutil/stackmap.h"
#include "base/strbuf.h"
#include "bpfutil/opts.h"
#include "bpfutil/ustack.h"

static void test_ports(void **state)
{
	uint16_t p[4] = { 0 };
	int n = 0;

	(void)state;
	assert_int_equal(bpfk_opt_ports("-P", "80,443", p, &n, 4), 0);
	assert_int_equal(n, 2);
	assert_int_equal(p[0], 80);
	assert_int_equal(p[1], 443);
	assert_int_equal(bpfk_opt_ports("-P", "1,2,3", p, &n, 4), -E2BIG);
	assert_string_equal(pk_errmsg(), "-P takes at most 4 ports");
	assert_int_equal(n, 2);   /* untouched on error */
	const char *bad[] = { "", "0", "65536", "80,", ",80", "80,,81", "8o", "-1", " 80", "80 " };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(bpfk_opt_ports("-P", bad[i], p, &n, 4), -EINVAL);
		assert_int_equal(n, 2);
	}
	assert_int_equal(bpfk_opt_ports("-L", "7\x1b", p, &n, 4), -EINVAL);
	assert_string_equal(pk_errmsg(), "-L expects ports 1..65535 separated by commas, got '7\\x1b'");
}

static void test_args(void **state)
{
	char a0[] = "tool", a1[] = "0.5", a2[] = "3", a3[] = "x\x1b", a4[] = "0";
	char *argv[] = { a0, a1, a2, a3, NULL };
	double secs = -1;
	long count = -1;

	(void)state;
	/* nothing after the options: nothing written */
	assert_int_equal(bpfk_opt_args(1, argv, 1, "the interval", &secs, &count), 0);
	assert_true(secs == -1 && count == -1);
	assert_int_equal(bpfk_opt_args(2, argv, 1, "the interval", &secs, &count), 0);
	assert_true(secs == 0.5 && count == -1);
	assert_int_equal(bpfk_opt_args(3, argv, 1, "the interval", &secs, &count), 0);
	assert_int_equal(count, 3);
	/* one too many, escaped */
	assert_int_equal(bpfk_opt_args(4, argv, 1, "the interval", &secs, &count), -E2BIG);
	assert_string_equal(pk_errmsg(), "unexpected argument 'x\\x1b'");
	assert_int_equal(bpfk_opt_args(3, argv, 1, "the duration", &secs, NULL), -E2BIG);
	assert_string_equal(pk_errmsg(), "unexpected argument '3'");
	assert_int_equal(bpfk_opt_args(2, argv, 1, NULL, NULL, NULL), -E2BIG);
	assert_string_equal(pk_errmsg(), "unexpected argument '0.5'");
	/* bad values name their argument */
	argv[1] = a3;
	assert_int_equal(bpfk_opt_args(2, argv, 1, "the duration", &secs, NULL), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "the duration expects"));
	argv[1] = a1;
	argv[2] = a4;
	count = -1;
	assert_int_equal(bpfk_opt_args(3, argv, 1, "the interval", &secs, &count), -ERANGE);
	assert_non_null(strstr(pk_errmsg(), "the count expects"));
	assert_int_equal(count, -1);
}

static void test_values(void **state)
{
	long pid = 0, cnt = 0;
	uint32_t uid = 5;
	uint64_t us = 0;
	double secs = 0;

	(void)state;
	assert_int_equal(bpfk_opt_pid("-p", "123", &pid), 0);
	assert_int_equal(pid, 123);
	assert_int_equal(bpfk_opt_pid("-p", "0", &pid), -ERANGE);
	assert_int_equal(bpfk_opt_uid("-u", "0", &uid), 0);
	assert_int_equal(uid, 0);
	assert_int_equal(bpfk_opt_uid("-u", "4294967295", &uid), -ERANGE);   /* (uid_t)-1 */
	assert_int_equal(bpfk_opt_secs("-d", "0.5", &secs), 0);
	assert_true(secs == 0.5);
	assert_int_equal(bpfk_opt_secs("-d", "0", &secs), -ERANGE);
	assert_int_equal(bpfk_opt_count("the count", "3", &cnt), 0);
	assert_int_equal(cnt, 3);
	assert_int_equal(bpfk_opt_us("-m", "10000", &us), 0);
	assert_true(us == 10000);
	assert_int_equal(bpfk_opt_us("-m", "-1", &us), -EINVAL);   /* no sign for unsigned */
}

__attribute__((noinline)) static int here(void)
{
	return 1;
}

/* This process snapshotted: a user address of ours resolves, after
 * forgetting the snapshot it is taken again (the process lives); bcc's
 * layouts of a stack, with a comm to escape. */
/* stack ids from the two stack maps (stackmap.h): sizes, names of errors */
static void test_stackmap(void **state)
{
	(void)state;
	uint64_t ips[4];

	/* a size that is not a power of two would leave buckets without
	 * entries: ENOMEM for stacks whose bucket is free */
	assert_int_equal(bpfk_stack_buckets(1), 1);
	assert_int_equal(bpfk_stack_buckets(3), 4);
	assert_int_equal(bpfk_stack_buckets(16384), 16384);
	assert_int_equal(bpfk_stack_buckets(16385), 32768);
	assert_int_equal(bpfk_stack_buckets(1u << 24), 1u << 24);
	assert_int_equal(bpfk_stack_spill_size(16384), 4096);
	assert_int_equal(bpfk_stack_spill_size(2), 1);
	assert_int_equal(bpfk_stack_spill_size(1), 1);
	assert_string_equal(bpfk_stack_errname(-EEXIST), "EEXIST");
	assert_string_equal(bpfk_stack_errname(-EFAULT), "EFAULT");
	assert_string_equal(bpfk_stack_errname(-E2BIG), "error");
	/* an error id reads no frames, whatever the maps */
	assert_int_equal(bpfk_stack_read(-1, -1, -EEXIST, ips, 4), 0);
	/* a part's reason for having no frames: its error, none when not
	 * asked for, "evicted" for an id its map no longer holds */
	const char *why = "x";

	assert_int_equal(bpfk_stack_part(-1, -1, -EEXIST, -0x7fff, ips, 4, &why), 0);
	assert_string_equal(why, "EEXIST");
	assert_int_equal(bpfk_stack_part(-1, -1, -0x7fff, -0x7fff, ips, 4, &why), 0);
	assert_null(why);
	assert_int_equal(bpfk_stack_part(-1, -1, 5, -0x7fff, ips, 4, &why), 0);
	assert_string_equal(why, "evicted");
}

static void test_ustack(void **state)
{
	struct ustack_cache *c = ustack_cache_new();
	uint64_t ip = (uint64_t)(uintptr_t)&here, off = 1;
	const char *dso = NULL, *file = NULL;

	(void)state;
	assert_int_equal(ustack_snapshot(c, getpid()), 0);
	while (ustack_load_pending(c))
		;
	const char *name = ustack_user_sym(c, getpid(), ip, true, &off, &dso, &file);
	assert_non_null(name);
	assert_string_equal(name, "here");
	assert_true(off == 0);
	assert_non_null(dso);
	assert_non_null(file);
	ustack_forget_processes(c, true);
	name = ustack_user_sym(c, getpid(), ip + 1, false, NULL, NULL, NULL);   /* a return address: ip - 1 */
	assert_non_null(name);
	assert_string_equal(name, "here");
	assert_int_equal(ustack_snapshot(c, 999999999), -ESRCH);   /* no such process */

	uint64_t u[2] = { ip, ip + 1 };
	struct ustack_trace t = { .pid = getpid(), .comm = "a;b c\nd", .uips = u, .nu = 2,
				  .kmissing = "EFAULT" };
	char *folded = ustack_render(c, &t, true);
	assert_string_equal(folded, "a_b_c\\x0ad;here;here;[Missed Kernel Stack: EFAULT]");
	free(folded);
	char *multi = ustack_render(c, &t, false);
	/* "--" between the parts under -d only, as bcc's and libbpf-tools' */
	assert_non_null(strstr(multi, "    [Missed Kernel Stack: EFAULT]\n    here\n    here\n"));
	assert_non_null(strstr(multi, "    -                a;b c\\x0ad ("));
	free(multi);
	multi = ustack_render(c, &t, USTACK_DELIMITED);
	assert_non_null(strstr(multi, "    [Missed Kernel Stack: EFAULT]\n    --\n    here\n    here\n"));
	free(multi);

	struct ustack_lines l = { 0 };
	ustack_lines_add(&l, strdup("x;y"), 2);
	ustack_lines_add(&l, strdup("x;y"), 3);
	ustack_lines_add(&l, strdup("a"), 1);
	assert_int_equal(l.nr, 3);
	ustack_lines_print(&l, true);   /* "a 1", "x;y 5" on stdout */
	assert_int_equal(l.nr, 0);
	ustack_cache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_ustack),
		cmocka_unit_test(test_stackmap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
