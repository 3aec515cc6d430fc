/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for export_feed (export.h): samples put through the
 * aggregation model and added stack by stack give the files export_add()
 * of each sample gives, byte for byte (speedscope and pprof): stacks,
 * frames and locations in the order of their first sample, even for a
 * stack that ends at a caller of an earlier one (a lower node of the
 * trie), with two events interleaved, inlined frames, an unknown symbol,
 * one function at two addresses; totals and time span the same. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/error.h"
#include "export/export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#ifndef PERFKIT_NO_PPROF
#include "profile.pb-c.h"
#endif

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char buf[4][128];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
	return buf[k];
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* the session interns its names: one pointer per string */
static const char DSO[] = "/nonexistent/prog", KDSO[] = "[kernel.kallsyms]";

#define F(IP, SYM, ADDR) { .ip = (IP), .sym = (SYM), .dso = DSO, .addr = (ADDR) }

static const struct pk_frame s_leaf[] = { F(0x1010, "leaf", 0x10), F(0x1100, "work", 0x100),
					  F(0x1200, "main", 0x200) };
static const struct pk_frame s_other[] = { F(0x1300, "other", 0x300), F(0x1200, "main", 0x200) };
static const struct pk_frame s_work[] = { F(0x1100, "work", 0x100), F(0x1200, "main", 0x200) };
static const struct pk_frame s_inl[] = {
	{ .ip = 0x1410, .sym = "inl", .dso = DSO, .addr = 0x410, .inlined = true },
	F(0x1410, "real", 0x410), F(0x1200, "main", 0x200) };
static const struct pk_frame s_unknown[] = { { .ip = 0x7777, .sym = NULL, .dso = "[unknown]", .sym_off = 0x7777 },
					     F(0x1100, "work", 0x100), F(0x1200, "main", 0x200) };
static const struct pk_frame s_leaf2[] = { F(0x1014, "leaf", 0x14), F(0x1100, "work", 0x100),
					   F(0x1200, "main", 0x200) };
static const struct pk_frame s_kernel[] = {
	{ .ip = 0xffff0010, .sym = "do_syscall", .dso = KDSO, .kernel = true, .sym_off = 0x10 },
	F(0x1100, "work", 0x100), F(0x1200, "main", 0x200) };

#define S(EV, FR, P, T) { .event = (EV), .comm = "prog", .pid = 1, .tid = 1, .time = (T), .period = (P), \
			   .nr_frames = sizeof(FR) / sizeof((FR)[0]), .frames = (FR) }

static const char CPU[] = "cpu-clock", CYC[] = "cycles";
static const struct pk_sample samples[] = {
	S(CPU, s_leaf, 1000, 500), S(CYC, s_other, 7, 501), S(CPU, s_work, 1000, 502),
	S(CPU, s_inl, 1000, 503),  S(CPU, s_leaf, 1000, 504), S(CYC, s_unknown, 9, 505),
	S(CPU, s_leaf2, 1000, 506), S(CPU, s_kernel, 1000, 507), S(CYC, s_work, 3, 508),
	S(CPU, s_work, 1000, 509),
};
#define NS (sizeof(samples) / sizeof(samples[0]))

static void write_both(struct pk_export *x, const char *tag)
{
	char name[64];

	snprintf(name, sizeof(name), "%s.json", tag);
	assert_int_equal(export_write_speedscope(x, tmp_path(name)), 0);
#ifndef PERFKIT_NO_PPROF
	snprintf(name, sizeof(name), "%s.pb.gz", tag);
	export_set_time(x, 1, 0);   /* not the write time: files comparable */
	assert_int_equal(export_write_pprof(x, tmp_path(name)), 0);
#endif
}

static void same_file(const char *a, const char *b)
{
	size_t la, lb;
	char *x = slurp(tmp_path(a), &la), *y = slurp(tmp_path(b), &lb);

	assert_int_equal(la, lb);
	assert_memory_equal(x, y, la);
	free(x);
	free(y);
}

static void test_feed_same_files(void **state)
{
	struct pk_export *a = export_new(), *b = export_new();
	struct export_feed *f = export_feed_new();
	size_t len;
	char *js;

	(void)state;
	for (size_t i = 0; i < NS; i++) {
		export_add(a, &samples[i]);
		export_feed_add(f, &samples[i]);
	}
	export_add_feed(b, f);
	export_feed_free(f);
	assert_int_equal(export_nr_samples(b), NS);
	assert_int_equal(export_total_period(b), export_total_period(a));
	write_both(a, "a");
	write_both(b, "b");
	same_file("a.json", "b.json");
#ifndef PERFKIT_NO_PPROF
	same_file("a.pb.gz", "b.pb.gz");
#endif
	/* first-sample order, not the trie's: main;work;leaf before main;work */
	js = slurp(tmp_path("b.json"), &len);
	assert_non_null(strstr(js, "\"samples\":[[2,1,0],[2,1],[2,"));
	free(js);
	export_free(a);
	export_free(b);
}

#ifndef PERFKIT_NO_PPROF
/* the time span: without export_set_time, pprof's duration is the last
 * sample's time less the first's */
static int64_t pprof_duration(const char *path)
{
	gzFile g = gzopen(path, "rb");
	uint8_t buf[65536];
	int n;
	Perftools__Profiles__Profile *p;
	int64_t d;

	assert_non_null(g);
	n = gzread(g, buf, sizeof(buf));
	gzclose(g);
	assert_true(n > 0 && n < (int)sizeof(buf));
	p = perftools__profiles__profile__unpack(NULL, (size_t)n, buf);
	assert_non_null(p);
	d = p->duration_nanos;
	perftools__profiles__profile__free_unpacked(p, NULL);
	return d;
}

static void test_feed_time_span(void **state)
{
	struct pk_export *x = export_new();
	struct export_feed *f = export_feed_new();

	(void)state;
	for (size_t i = 0; i < NS; i++)
		export_feed_add(f, &samples[i]);
	export_add_feed(x, f);
	export_feed_free(f);
	assert_int_equal(export_write_pprof(x, tmp_path("t.pb.gz")), 0);
	assert_int_equal(pprof_duration(tmp_path("t.pb.gz")), 509 - 500);
	export_free(x);
}
#endif

#ifndef PERFKIT_NO_PPROF
/* export_set_labels (profile --continuous): stacks apart per (pid, comm),
 * counts standing for several samples; comm names in buffers that do not
 * outlive the call */
static void test_feed_labels(void **state)
{
	struct pk_export *a = export_new(), *b = export_new();
	struct export_feed *f = export_feed_new();
	static const struct { uint32_t pid; const char *comm; uint64_t count; } who[] = {
		{ 10, "napper", 3 }, { 11, "napper", 2 }, { 10, "napper", 4 }, { 10, "other", 1 }, { 12, "x", 0 },
	};

	(void)state;
	export_set_labels(a, "host1");
	export_set_labels(b, "host1");
	export_feed_set_labels(f);
	for (size_t i = 0; i < NS; i++) {
		char comm[16];
		struct pk_sample s = samples[i];
		uint64_t n = who[i % 5].count;

		snprintf(comm, sizeof(comm), "%s", who[i % 5].comm);
		s.comm = comm;
		s.pid = s.tid = who[i % 5].pid;
		s.period *= n;
		export_add_n(a, &s, n);
		export_feed_add_n(f, &s, n);
		memset(comm, 'Z', sizeof(comm) - 1);   /* gone */
	}
	export_add_feed(b, f);
	export_feed_free(f);
	assert_int_equal(export_nr_samples(b), export_nr_samples(a));
	write_both(a, "a");
	write_both(b, "b");
	same_file("a.pb.gz", "b.pb.gz");
	same_file("a.json", "b.json");
	export_free(a);
	export_free(b);
}
#endif

static void test_feed_empty(void **state)
{
	struct pk_export *x = export_new();
	struct export_feed *f = export_feed_new();

	(void)state;
	export_add_feed(x, f);
	export_feed_free(f);
	assert_int_equal(export_nr_samples(x), 0);
	export_free(x);
	export_feed_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_feed_same_files),
#ifndef PERFKIT_NO_PPROF
		cmocka_unit_test(test_feed_time_span),
		cmocka_unit_test(test_feed_labels),
#endif
		cmocka_unit_test(test_feed_empty),
	};
	const char *files[] = { "a.json", "b.json", "a.pb.gz", "b.pb.gz", "t.pb.gz" };
	int rc;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pk-exfeed-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlink(tmp_path(files[i]));
	rmdir(tmpdir);
	return rc;
}
