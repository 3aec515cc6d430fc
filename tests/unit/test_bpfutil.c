/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/bpfutil: the log2 histogram (buckets and bcc's
 * print_log2_hist layout; expected texts written from bcc's algorithm), the
 * linear histogram (bpftrace lhist() buckets in the same layout; expected
 * texts written by hand from the contract in hist.h),
 * /proc/PID/maps lookup and the uprobe file offset of a function (checked
 * against the bytes this very process runs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "bpfutil/hist.h"
#include "bpfutil/procmaps.h"
#include "bpfutil/uprobe.h"

static void test_slots(void **state)
{
	(void)state;
	assert_int_equal(hist_slot(0), 0);
	assert_int_equal(hist_slot(1), 0);
	assert_int_equal(hist_slot(2), 1);
	assert_int_equal(hist_slot(3), 1);
	assert_int_equal(hist_slot(4), 2);
	assert_int_equal(hist_slot(8), 3);
	assert_int_equal(hist_slot(15), 3);
	assert_int_equal(hist_slot(1000), 9);
	assert_int_equal(hist_slot(1024), 10);
	assert_int_equal(hist_slot(UINT32_MAX), 31);
	assert_int_equal(hist_slot((uint64_t)1 << 32), 32);
	assert_int_equal(hist_slot((uint64_t)1 << 63), 63);
	assert_int_equal(hist_slot(UINT64_MAX), 63);
	/* every bucket holds exactly [low, high] and they tile 0..2^64-1 */
	for (unsigned i = 0; i < HIST_SLOTS; i++) {
		assert_int_equal(hist_slot(hist_low(i)), i);
		assert_int_equal(hist_slot(hist_high(i)), i);
		if (i)
			assert_true(hist_low(i) == hist_high(i - 1) + 1);
	}
	assert_true(hist_high(63) == UINT64_MAX);
}

/* Values 0, 1, 2, 3, 8, 1000 and 2^63: 0 and 1 share the first bucket, 2^63
 * lands in the top one, so the wide (20-digit) layout is used. */
static void test_render_wide(void **state)
{
	static const uint64_t vals[] = { 0, 1, 2, 3, 8, 1000, (uint64_t)1 << 63 };
	uint64_t slots[HIST_SLOTS] = { 0 };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		slots[hist_slot(vals[i])]++;
	hist_render(&sb, slots, HIST_SLOTS, "usecs");

	const char *want_head =
		"               usecs                         : count    distribution\n"
		"                   0 -> 1                    : 2        |********************|\n"
		"                   2 -> 3                    : 2        |********************|\n"
		"                   4 -> 7                    : 0        |                    |\n"
		"                   8 -> 15                   : 1        |**********          |\n";
	const char *want_1000 =
		"\n                 512 -> 1023                 : 1        |**********          |\n";
	const char *want_tail =
		" 9223372036854775808 -> 18446744073709551615 : 1        |**********          |\n";
	assert_int_equal(strncmp(sb.buf, want_head, strlen(want_head)), 0);
	assert_non_null(strstr(sb.buf, want_1000));
	assert_true(sb.len > strlen(want_tail));
	assert_string_equal(sb.buf + sb.len - strlen(want_tail), want_tail);
	size_t lines = 0;
	for (size_t i = 0; i < sb.len; i++)
		lines += sb.buf[i] == '\n';
	assert_int_equal(lines, 1 + 64);   /* header + buckets 0..63 */
	sb_release(&sb);
}

static void test_render_narrow(void **state)
{
	uint64_t slots[HIST_SLOTS] = { 0 };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	slots[hist_slot(5)] = 3;
	slots[hist_slot(40)] = 12;
	hist_render(&sb, slots, HIST_SLOTS, "msecs");
	assert_string_equal(sb.buf,
		"     msecs               : count    distribution\n"
		"         0 -> 1          : 0        |                                        |\n"
		"         2 -> 3          : 0        |                                        |\n"
		"         4 -> 7          : 3        |**********                              |\n"
		"         8 -> 15         : 0        |                                        |\n"
		"        16 -> 31         : 0        |                                        |\n"
		"        32 -> 63         : 12       |****************************************|\n");
	sb_release(&sb);

	uint64_t empty[HIST_SLOTS] = { 0 };
	hist_render(&sb, empty, HIST_SLOTS, "usecs");
	assert_int_equal(sb.len, 0);
	sb_release(&sb);
}

/* Nothing to print: no counters, or all of them zero. */
static void test_linear_empty(void **state)
{
	uint64_t slots[5] = { 0 };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(hist_render_linear(&sb, slots, 5, 10, "msecs"), 0);
	assert_int_equal(sb.len, 0);
	assert_int_equal(hist_render_linear(&sb, slots, 0, 10, "msecs"), 0);
	assert_int_equal(sb.len, 0);
	sb_release(&sb);
}

/* One non-empty slot in the middle of 1000 + 1: only its row, [30, 40). */
static void test_linear_one(void **state)
{
	static uint64_t slots[1001];
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	slots[3] = 7;
	assert_int_equal(hist_render_linear(&sb, slots, 1001, 10, "msecs"), 0);
	assert_string_equal(sb.buf,
		"     msecs               : count    distribution\n"
		"        30 -> 39         : 7        |****************************************|\n");
	sb_release(&sb);
}

/* A gap: the empty slots between the first and last non-empty ones are
 * printed, those before and after are not; stars scale to the largest. */
static void test_linear_gap(void **state)
{
	uint64_t slots[10] = { 0 };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	slots[2] = 4;
	slots[5] = 1;
	assert_int_equal(hist_render_linear(&sb, slots, 10, 5, "usecs"), 0);
	assert_string_equal(sb.buf,
		"     usecs               : count    distribution\n"
		"        10 -> 14         : 4        |****************************************|\n"
		"        15 -> 19         : 0        |                                        |\n"
		"        20 -> 24         : 0        |                                        |\n"
		"        25 -> 29         : 1        |**********                              |\n");
	sb_release(&sb);
}

/* The last counter is the overflow, printed ">= (nslots - 1) * step" in the
 * same column width as the "LO -> HI" rows. */
static void test_linear_overflow(void **state)
{
	uint64_t slots[4] = { 0, 2, 0, 8 };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(hist_render_linear(&sb, slots, 4, 100, "msecs"), 0);
	assert_string_equal(sb.buf,
		"     msecs               : count    distribution\n"
		"       100 -> 199        : 2        |**********                              |\n"
		"       200 -> 299        : 0        |                                        |\n"
		"        >= 300           : 8        |****************************************|\n");
	sb_release(&sb);

	/* only the overflow, and a single counter (everything >= 0) */
	uint64_t one = 3;
	assert_int_equal(hist_render_linear(&sb, &one, 1, 1, "msecs"), 0);
	assert_string_equal(sb.buf,
		"     msecs               : count    distribution\n"
		"        >= 0             : 3        |****************************************|\n");
	sb_release(&sb);
}

/* Bounds up to 10 digits keep the narrow layout; more switch to the wide
 * one (20-digit columns, 20 stars), as hist_render does. */
static void test_linear_wide(void **state)
{
	uint64_t slots[3] = { 1, 0, 0 };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(hist_render_linear(&sb, slots, 3, 10000000000ULL, "nsecs"), 0);
	assert_string_equal(sb.buf,
		"     nsecs               : count    distribution\n"
		"         0 -> 9999999999 : 1        |****************************************|\n");
	sb_release(&sb);

	slots[1] = 2;
	assert_int_equal(hist_render_linear(&sb, slots, 3, 10000000000ULL, "nsecs"), 0);
	assert_string_equal(sb.buf,
		"               nsecs                         : count    distribution\n"
		"                   0 -> 9999999999           : 1        |**********          |\n"
		"         10000000000 -> 19999999999          : 2        |********************|\n");
	sb_release(&sb);

	/* the largest step two counters allow: the overflow starts at 2^64 - 1 */
	uint64_t top[2] = { 0, 1 };
	assert_int_equal(hist_render_linear(&sb, top, 2, UINT64_MAX, "nsecs"), 0);
	assert_non_null(strstr(sb.buf,
		"\n                  >= 18446744073709551615    : 1        |********************|\n"));
	sb_release(&sb);
}

/* A zero step, or buckets whose bounds overflow 64 bits: -EINVAL with a
 * message, nothing appended. */
static void test_linear_bad(void **state)
{
	uint64_t slots[1001] = { [0] = 1 };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(hist_render_linear(&sb, slots, 1001, 0, "msecs"), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "step 0"));
	assert_int_equal(hist_render_linear(&sb, slots, 1001, UINT64_MAX / 999, "msecs"), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "overflow"));
	assert_int_equal(sb.len, 0);
	/* UINT64_MAX / 1000 buckets: 1000 of them still fit */
	assert_int_equal(hist_render_linear(&sb, slots, 1001, UINT64_MAX / 1000, "msecs"), 0);
	assert_true(sb.len > 0);
	sb_release(&sb);
}

__attribute__((noinline)) int bpfutil_probe_target(int x)
{
	return x * 3 + 1;
}

static void test_procmaps_self(void **state)
{
	struct procmaps pm;
	uint64_t ip = (uint64_t)(uintptr_t)&bpfutil_probe_target;

	(void)state;
	assert_int_equal(procmaps_load(&pm, getpid()), 0);
	const struct procmap *m = procmaps_find(&pm, ip);
	assert_non_null(m);
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_string_equal(m->path, exe);
	assert_null(procmaps_find(&pm, 0));
	procmaps_release(&pm);
	assert_int_equal(procmaps_load(&pm, 0x7ffffff0), -ESRCH);
}

/* The offset uprobe_func_offset gives must hold the very bytes this
 * process executes for that function. */
static void test_uprobe_offset(void **state)
{
	char *exe = realpath("/proc/self/exe", NULL);
	uint64_t off = 0, size = 0;
	unsigned char file_bytes[16];

	(void)state;
	assert_non_null(exe);
	assert_int_equal(uprobe_func_offset(exe, "bpfutil_probe_target", &off, &size), 0);
	assert_true(size > 0);
	int fd = open(exe, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, file_bytes, sizeof(file_bytes), (off_t)off), (ssize_t)sizeof(file_bytes));
	close(fd);
	size_t cmp = size < sizeof(file_bytes) ? size : sizeof(file_bytes);
	assert_memory_equal(file_bytes, (const void *)(uintptr_t)&bpfutil_probe_target, cmp);
	assert_int_equal(bpfutil_probe_target(2), 7);

	assert_int_equal(uprobe_func_offset(exe, "no_such_function_here", &off, NULL), -ENOENT);
	free(exe);

	char *sh = uprobe_find_binary("sh");
	assert_non_null(sh);
	assert_true(sh[0] == '/');
	free(sh);
	assert_null(uprobe_find_binary("/nonexistent/binary"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_render_wide),
		cmocka_unit_test(test_render_narrow),
		cmocka_unit_test(test_linear_empty),
		cmocka_unit_test(test_linear_one),
		cmocka_unit_test(test_linear_gap),
		cmocka_unit_test(test_linear_overflow),
		cmocka_unit_test(test_linear_wide),
		cmocka_unit_test(test_linear_bad),
		cmocka_unit_test(test_procmaps_self),
		cmocka_unit_test(test_uprobe_offset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
