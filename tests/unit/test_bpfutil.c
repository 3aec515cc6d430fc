/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/bpfutil: the log2 histogram (buckets and bcc's
 * print_log2_hist layout; expected texts written from bcc's algorithm), the
 * linear histogram (bpftrace lhist() buckets in the same layout; expected
 * texts written by hand from the contract in hist.h),
 * /proc/PID/maps lookup, the uprobe file offset of a function (checked
 * against the bytes this very process runs, also by demangled C++ name),
 * BINARY:FUNCTION splitting, library lookup in a hand-built ld.so cache and
 * library directories, and opensnoop -F's path joining (relpath.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#ifndef PERFKIT_NO_BPF
#include <bpf/libbpf.h>
#endif
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "bpfutil/hist.h"
#include "bpfutil/procmaps.h"
#include "bpfutil/relpath.h"
#include "bpfutil/setup.h"
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

/* C++ names, written with asm labels: pktest::Acc<double>::add(double)
 * and the overloads pktest::over(int) and pktest::over(double). */
__attribute__((noinline)) double cxx_add(double x) __asm__("_ZN6pktest3AccIdE3addEd");
__attribute__((noinline)) int cxx_over_i(int x) __asm__("_ZN6pktest4overEi");
__attribute__((noinline)) double cxx_over_d(double x) __asm__("_ZN6pktest4overEd");
double cxx_add(double x) { return x + 0.5; }
int cxx_over_i(int x) { return x + 2; }
double cxx_over_d(double x) { return x + 3; }

static void assert_offset_holds(const char *exe, uint64_t off, uint64_t size, const void *fn)
{
	unsigned char file_bytes[8];
	int fd = open(exe, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, file_bytes, sizeof(file_bytes), (off_t)off), (ssize_t)sizeof(file_bytes));
	close(fd);
	size_t cmp = size && size < sizeof(file_bytes) ? size : sizeof(file_bytes);
	assert_memory_equal(file_bytes, fn, cmp);
}

static void test_uprobe_demangled(void **state)
{
	char *exe = realpath("/proc/self/exe", NULL);
	uint64_t off = 0, size = 0;

	(void)state;
	assert_non_null(exe);
	assert_int_equal(uprobe_func_offset(exe, "pktest::Acc<double>::add", &off, &size), 0);
	assert_offset_holds(exe, off, size, (const void *)(uintptr_t)&cxx_add);
	off = 0;
	assert_int_equal(uprobe_func_offset(exe, "pktest::Acc<double>::add(double)", &off, NULL), 0);
	assert_offset_holds(exe, off, 0, (const void *)(uintptr_t)&cxx_add);
	/* overloads: the bare name is ambiguous, the parameter list picks one */
	assert_int_equal(uprobe_func_offset(exe, "pktest::over", &off, NULL), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "several functions"));
	assert_int_equal(uprobe_func_offset(exe, "pktest::over(int)", &off, &size), 0);
	assert_offset_holds(exe, off, size, (const void *)(uintptr_t)&cxx_over_i);
	assert_int_equal(uprobe_func_offset(exe, "pktest::over(double)", &off, &size), 0);
	assert_offset_holds(exe, off, size, (const void *)(uintptr_t)&cxx_over_d);
	assert_int_equal(uprobe_func_offset(exe, "pktest::nothere", &off, NULL), -ENOENT);
	assert_true(cxx_add(1) + cxx_over_i(1) + cxx_over_d(1) > 0);
	free(exe);

	/* not an ELF file: said so, not "no function" */
	assert_int_equal(uprobe_func_offset("/etc/passwd", "foo", &off, NULL), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "'/etc/passwd': not an ELF file"));
}

static char tmpdir[64];

static void make_tmpdir(void)
{
	assert_non_null(mkdtemp((snprintf(tmpdir, sizeof(tmpdir), "/tmp/pk-bpfutil.XXXXXX"), tmpdir)));
}

static void remove_tmpdir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	assert_int_equal(system(cmd), 0);
}

static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	fclose(f);
}

static void test_parse_target(void **state)
{
	char p[256], *path, *func;

	(void)state;
	make_tmpdir();
	snprintf(p, sizeof(p), "%s/cpp", tmpdir);
	write_file(p, "x", 1);
	snprintf(p, sizeof(p), "%s/a:b", tmpdir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/a:b/prog", tmpdir);
	write_file(p, "x", 1);

	/* a C++ name: split at the ':' after the binary, not at a "::" */
	snprintf(p, sizeof(p), "%s/cpp:ns::Acc<double>::add", tmpdir);
	assert_int_equal(uprobe_parse_target(p, &path, &func), 0);
	assert_non_null(strstr(path, "/cpp"));
	assert_string_equal(strrchr(path, '/'), "/cpp");
	assert_string_equal(func, "ns::Acc<double>::add");
	free(path);
	free(func);
	/* a ':' in the binary's path */
	snprintf(p, sizeof(p), "%s/a:b/prog:main", tmpdir);
	assert_int_equal(uprobe_parse_target(p, &path, &func), 0);
	assert_string_equal(strrchr(path, '/'), "/prog");
	assert_non_null(strstr(path, "/a:b/prog"));
	assert_string_equal(func, "main");
	free(path);
	free(func);
	/* a missing binary: the error of the first candidate */
	snprintf(p, sizeof(p), "%s/nope:ns::f", tmpdir);
	assert_int_equal(uprobe_parse_target(p, &path, &func), -ENOENT);
	assert_null(path);
	assert_non_null(strstr(pk_errmsg(), "/nope': no such file"));
	snprintf(p, sizeof(p), "%s/a:b/nope:ns::f", tmpdir);   /* not "/a': no such file" */
	assert_int_equal(uprobe_parse_target(p, &path, &func), -ENOENT);
	assert_non_null(strstr(pk_errmsg(), "/a:b/nope': no such file"));
	/* a directory or a device where the program should be: said so */
	assert_int_equal(uprobe_parse_target("/tmp:main", &path, &func), -ENOENT);
	assert_non_null(strstr(pk_errmsg(), "'/tmp': a directory, not a program"));
	assert_int_equal(uprobe_parse_target("/dev/null:main", &path, &func), -ENOENT);
	assert_non_null(strstr(pk_errmsg(), "'/dev/null': not a regular file"));
	/* no BINARY:FUNCTION at all: a usage error */
	assert_int_equal(uprobe_parse_target("nocolon", &path, &func), -EINVAL);
	assert_int_equal(uprobe_parse_target("prog:", &path, &func), -EINVAL);
	assert_int_equal(uprobe_parse_target(":func", &path, &func), -EINVAL);
	/* a library name as the binary */
	if (access("/etc/ld.so.cache", R_OK) == 0) {
		assert_int_equal(uprobe_parse_target("c:malloc", &path, &func), 0);
		assert_non_null(strstr(path, "/libc.so"));
		assert_string_equal(func, "malloc");
		free(path);
		free(func);
	}
	remove_tmpdir();
}

static void put32(unsigned char *b, size_t at, uint32_t v) { memcpy(b + at, &v, 4); }

/* A glibc-ld.so.cache1.1 table (after an old-format header when with_old)
 * with the entries {key, value, flags}. */
static size_t build_cache(unsigned char *buf, bool with_old, const char *const (*ents)[2],
			  const uint32_t *flags, int n)
{
	size_t base = with_old ? 16 : 0, strs, at;

	memset(buf, 0, 4096);
	if (with_old)
		memcpy(buf, "ld.so-1.7.0", 11);   /* 0 old entries */
	memcpy(buf + base, "glibc-ld.so.cache1.1", 20);
	put32(buf, base + 20, (uint32_t)n);
	strs = 48 + (size_t)n * 24;
	at = strs;
	for (int i = 0; i < n; i++) {
		size_t e = base + 48 + (size_t)i * 24;
		put32(buf, e, flags[i]);
		put32(buf, e + 4, (uint32_t)at);
		memcpy((char *)buf + base + at, ents[i][0], strlen(ents[i][0]) + 1);
		at += strlen(ents[i][0]) + 1;
		put32(buf, e + 8, (uint32_t)at);
		memcpy((char *)buf + base + at, ents[i][1], strlen(ents[i][1]) + 1);
		at += strlen(ents[i][1]) + 1;
	}
	put32(buf, base + 24, (uint32_t)(at - strs));
	return base + at;
}

static void test_find_library(void **state)
{
	unsigned char elfhdr[64], cache[4096];
	char foo[256], bar[256], dir[256], p[300], cpath[300], *r;
	int fd = open("/proc/self/exe", O_RDONLY);

	(void)state;
	make_tmpdir();
	assert_true(fd >= 0);
	assert_int_equal(read(fd, elfhdr, sizeof(elfhdr)), (ssize_t)sizeof(elfhdr));
	close(fd);
	snprintf(foo, sizeof(foo), "%s/libfoo.so.1", tmpdir);
	write_file(foo, elfhdr, sizeof(elfhdr));
	snprintf(bar, sizeof(bar), "%s/libbar.so.2", tmpdir);
	write_file(bar, elfhdr, sizeof(elfhdr));
	snprintf(dir, sizeof(dir), "%s/lib", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(p, sizeof(p), "%s/libqux.so", dir);            /* a linker script */
	write_file(p, "INPUT(libqux.so.1)\n", 19);
	snprintf(p, sizeof(p), "%s/libqux.so.1", dir);
	write_file(p, elfhdr, sizeof(elfhdr));
	snprintf(p, sizeof(p), "%s/libqux.so.1.5", dir);
	write_file(p, elfhdr, sizeof(elfhdr));
	snprintf(p, sizeof(p), "%s/libquxx.so.9", dir);        /* not libqux.so[.*] */
	write_file(p, elfhdr, sizeof(elfhdr));

	const char *const ents[][2] = { { "libfoo.so.1", foo }, { "libbar.so.2", bar } };
#if defined(__x86_64__)
	const uint32_t flags[] = { 0x0303, 0x0003 };   /* libbar: another ABI */
#elif defined(__aarch64__)
	const uint32_t flags[] = { 0x0a03, 0x0003 };
#else
	const uint32_t flags[] = { 0x0003, 0x0103 };
#endif
	const char *const dirs[] = { "/nonexistent", dir, NULL };
	snprintf(cpath, sizeof(cpath), "%s/ld.so.cache", tmpdir);
	for (int old = 0; old <= 1; old++) {
		size_t n = build_cache(cache, old, ents, flags, 2);
		write_file(cpath, cache, n);
		for (int i = 0; i < 4; i++) {
			const char *name = (const char *[]){ "foo", "libfoo", "libfoo.so", "libfoo.so.1" }[i];
			r = uprobe_find_library_in(name, cpath, dirs);
			assert_non_null(r);
			assert_string_equal(r, foo);
			free(r);
		}
		/* an entry for another ABI is not taken */
		assert_null(uprobe_find_library_in("bar", cpath, dirs));
		assert_int_equal(errno, ENOENT);
		assert_non_null(strstr(pk_errmsg(), "'bar': no library libbar.so"));
	}
	/* the directories: not the linker script, the highest version */
	r = uprobe_find_library_in("qux", cpath, dirs);
	assert_non_null(r);
	snprintf(p, sizeof(p), "%s/libqux.so.1.5", dir);
	assert_string_equal(r, p);
	free(r);
	r = uprobe_find_library_in("libqux.so.1", NULL, dirs);
	assert_non_null(r);
	snprintf(p, sizeof(p), "%s/libqux.so.1", dir);   /* an exact name wins */
	assert_string_equal(r, p);
	free(r);
	assert_null(uprobe_find_library_in("nosuch", cpath, dirs));
	/* a truncated cache is no crash, just no match */
	write_file(cpath, cache, 40);
	assert_null(uprobe_find_library_in("foo", cpath, NULL));
	/* this system's libc, as bcc names it */
	if (access("/etc/ld.so.cache", R_OK) == 0) {
		for (int i = 0; i < 3; i++) {
			r = uprobe_find_library((const char *[]){ "c", "libc", "libc.so.6" }[i]);
			assert_non_null(r);
			assert_non_null(strstr(r, "/libc.so"));
			free(r);
		}
		r = uprobe_find_binary("c");
		assert_non_null(r);
		free(r);
	}
	assert_null(uprobe_find_binary("no-such-program-or-lib"));
	assert_non_null(strstr(pk_errmsg(), "not found in $PATH, and no library"));
	remove_tmpdir();
}

static void test_relpath_components(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(relpath_dir_from_components(&sb, "c\0b\0a", 6, 3), 0);
	assert_string_equal(sb.buf, "/a/b/c");
	sb_reset(&sb);
	assert_int_equal(relpath_dir_from_components(&sb, "", 0, 0), 0);
	assert_string_equal(sb.buf, "/");
	sb_reset(&sb);
	sb_addstr(&sb, "keep");
	assert_int_equal(relpath_dir_from_components(&sb, "only", 5, 1), 0);
	assert_string_equal(sb.buf, "keep/only");
	/* malformed: nothing appended */
	sb_reset(&sb);
	sb_addstr(&sb, "keep");
	assert_int_equal(relpath_dir_from_components(&sb, "c\0b\0a", 6, 2), -EINVAL);
	assert_int_equal(relpath_dir_from_components(&sb, "c\0b\0a", 6, 4), -EINVAL);
	assert_int_equal(relpath_dir_from_components(&sb, "c\0b\0a", 5, 3), -EINVAL);
	assert_int_equal(relpath_dir_from_components(&sb, "c\0\0a", 5, 3), -EINVAL);
	assert_int_equal(relpath_dir_from_components(&sb, "x", 2, 0), -EINVAL);
	assert_int_equal(relpath_dir_from_components(&sb, "", 0, 1), -EINVAL);
	assert_int_equal(sb.len, 4);
	assert_string_equal(sb.buf, "keep");
	sb_release(&sb);
}

static void test_relpath_join(void **state)
{
	static const char *const cases[][3] = {
		{ "/a/b", "f.txt", "/a/b/f.txt" },
		{ "/a/b", "sub/f.txt", "/a/b/sub/f.txt" },
		{ "/a/b", "../hot.c", "/a/hot.c" },
		{ "/a/b", "../../../x", "/x" },
		{ "/a/b", "./f", "/a/b/f" },
		{ "/a/b/", ".//./f", "/a/b/f" },
		{ "/a/b", "../x/./y/../z", "/a/x/z" },   /* inside the path too */
		{ "/tmp/osn", "./a.txt", "/tmp/osn/a.txt" },
		{ "/tmp/osn", "sub/../a.txt", "/tmp/osn/a.txt" },
		{ "/tmp/osn", "sub/./x/../../a.txt", "/tmp/osn/a.txt" },
		{ "/a", "x/./y/", "/a/x/y/" },
		{ "/a/b", "..", "/a" },
		{ "/a", "..", "/" },
		{ "/a", ".", "/a" },
		{ "/", "f", "/f" },
		{ "/", "../f", "/f" },
		{ "/a", "..foo", "/a/..foo" },
		{ "/a", ".hidden", "/a/.hidden" },
		{ "/a", "dir/", "/a/dir/" },
	};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sb_reset(&sb);
		sb_addstr(&sb, "> ");
		relpath_join(&sb, cases[i][0], cases[i][1]);
		if (strncmp(sb.buf, "> ", 2) || strcmp(sb.buf + 2, cases[i][2]))
			fail_msg("relpath_join(\"%s\", \"%s\") = \"%s\", expected \"> %s\"",
				 cases[i][0], cases[i][1], sb.buf, cases[i][2]);
	}
	sb_release(&sb);
}

/* bpfk_error quotes libbpf's last warning once, without libbpf's own
 * "libbpf: " doubled ("(libbpf: libbpf: ...)" before). */
static void test_libbpf_message(void **state)
{
	(void)state;
#ifndef PERFKIT_NO_BPF
	bpfk_init(0);
	struct bpf_object *obj = bpf_object__open_file("/etc/passwd", NULL);
	assert_true(libbpf_get_error(obj) != 0);
	assert_int_equal(bpfk_error(-EINVAL, "opening x"), -EINVAL);
	const char *m = pk_errmsg();
	assert_non_null(strstr(m, "opening x: Invalid argument (libbpf: "));
	assert_null(strstr(m, "libbpf: libbpf:"));
#else
	skip();
#endif
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
		cmocka_unit_test(test_uprobe_demangled),
		cmocka_unit_test(test_parse_target),
		cmocka_unit_test(test_find_library),
		cmocka_unit_test(test_relpath_components),
		cmocka_unit_test(test_relpath_join),
		cmocka_unit_test(test_libbpf_message),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
