/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the perf.data reader's in-memory paths
 * (src/lib/perfdata/reader.c): pipe-mode streams (HEADER_ATTR /
 * HEADER_FEATURE records, read from a file or a real pipe on stdin) and
 * perf record -z data (PERF_RECORD_COMPRESSED, one zstd stream cut across
 * records), built byte by byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "perfdata/perfdata.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#define ST_BASIC (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "%s/%s", tmpdir, name);
	return buf;
}

static void put64(struct strbuf *sb, uint64_t v) { sb_add(sb, &v, 8); }
static void put32(struct strbuf *sb, uint32_t v) { sb_add(sb, &v, 4); }

static void put_hdr(struct strbuf *sb, uint32_t type, uint16_t size)
{
	struct perf_event_header h = { type, 0, size };

	sb_add(sb, &h, sizeof(h));
}

static void attr_init(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->size = sizeof(*a);
	a->sample_type = ST_BASIC;
	a->sample_id_all = 1;
}

/* COMM then three samples at ips 0x1000, 0x2000, 0x3000 */
static void put_records(struct strbuf *sb)
{
	put_hdr(sb, PERF_RECORD_COMM, 8 + 8 + 8 + 16);
	put32(sb, 42);
	put32(sb, 42);
	sb_add(sb, "work\0\0\0\0", 8);
	put32(sb, 42);
	put32(sb, 42);
	put64(sb, 5);
	for (int i = 1; i <= 3; i++) {
		put_hdr(sb, PERF_RECORD_SAMPLE, 8 + 32);
		put64(sb, 0x1000u * (unsigned)i);
		put32(sb, 42);
		put32(sb, 43);
		put64(sb, 10u * (unsigned)i);
		put64(sb, 100);
	}
}

static void write_file(const char *path, const struct strbuf *sb)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(sb->buf, 1, sb->len, fp), sb->len);
	fclose(fp);
}

/* A pipe-mode stream: header, a HOSTNAME feature record (not a multiple
 * of 8 bytes, as perf writes them), the attr with ids 7 and 9, records,
 * FINISHED_ROUND. */
static void pipe_stream(struct strbuf *sb)
{
	struct perf_event_attr a;

	attr_init(&a);
	put64(sb, 0x32454c4946524550ULL);
	put64(sb, 16);
	put_hdr(sb, PD_RECORD_HEADER_FEATURE, 8 + 8 + 4 + 5);
	put64(sb, PD_FEAT_HOSTNAME);
	put32(sb, 5);
	sb_add(sb, "host\0", 5);
	put_hdr(sb, PD_RECORD_HEADER_ATTR, (uint16_t)(8 + sizeof(a) + 16));
	sb_add(sb, &a, sizeof(a));
	put64(sb, 9);
	put64(sb, 7);
	put_records(sb);
	put_hdr(sb, PD_RECORD_FINISHED_ROUND, 8);
}

/* perf record -o - writes one HEADER_BUILD_ID record per DSO at the end:
 * 200 of them (more than the first allocation's 16) each add one entry
 * (an overflow of the build-id array once: glibc aborted on the heap). */
static void check_samples(const struct pd_file *f, int want);

static void test_pipe_build_ids(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct pd_file *f;
	char name[16];

	(void)state;
	pipe_stream(&sb);
	for (unsigned i = 0; i < 200; i++) {
		uint8_t id[20];

		put_hdr(&sb, PD_RECORD_HEADER_BUILD_ID, 36 + 16);
		put32(&sb, (uint32_t)-1);
		memset(id, (int)i, sizeof(id));
		sb_add(&sb, id, sizeof(id));
		put32(&sb, 0);   /* build-id size byte (misc bit 15 clear) + pad */
		memset(name, 0, sizeof(name));
		snprintf(name, sizeof(name), "/lib/x%03u.so", i);
		sb_add(&sb, name, sizeof(name));
	}
	write_file(tmp_path("bid.data"), &sb);
	assert_int_equal(pd_open(&f, tmp_path("bid.data")), 0);
	assert_int_equal(f->nr_build_ids, 200);
	assert_string_equal(f->build_ids[0].filename, "/lib/x000.so");
	assert_string_equal(f->build_ids[199].filename, "/lib/x199.so");
	assert_int_equal(f->build_ids[199].data[0], 199);
	check_samples(f, 3);
	pd_close(f);
	sb_release(&sb);
}

/* The samples of f's data section, numbered on from *n: sample k has ip
 * 0x1000 * k, tid 43, period 100. */
static void walk_samples(const struct pd_file *f, int *n)
{
	uint64_t pos = 0;
	const struct perf_event_header *h;

	while (pd_next(f, &pos, &h) == 1) {
		struct pd_sample s;

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		++*n;
		assert_int_equal(pd_parse_sample(f, h, &s), 0);
		assert_int_equal(s.ip, 0x1000u * (unsigned)*n);
		assert_int_equal(s.tid, 43);
		assert_int_equal(s.period, 100);
	}
}

static void check_samples(const struct pd_file *f, int want)
{
	int n = 0;

	walk_samples(f, &n);
	assert_int_equal(n, want);
}

static void test_pipe_file(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct pd_file *f;

	(void)state;
	pipe_stream(&sb);
	write_file(tmp_path("pipe.data"), &sb);
	assert_int_equal(pd_open(&f, tmp_path("pipe.data")), 0);
	assert_int_equal(f->nr_evsels, 1);
	assert_int_equal(f->evsels[0].nr_ids, 2);
	assert_int_equal(f->evsels[0].ids[0], 7);       /* sorted */
	assert_int_equal(f->evsels[0].attr.sample_type, ST_BASIC);
	assert_string_equal(f->evsels[0].name, "cpu-clock:HG");   /* perf 6.1's, no EVENT_UPDATE name */
	assert_non_null(f->hostname);
	assert_string_equal(f->hostname, "host");
	check_samples(f, 3);
	pd_close(f);
	sb_release(&sb);
}

/* A stream's samples: each piece pd_stream_next hands on, in place. */
static int stream_samples(struct pd_file *f)
{
	const void *data;
	size_t len;
	int n = 0, r;

	while ((r = pd_stream_next(f, &data, &len)) == 1) {
		pd_set_data(f, data, len);
		walk_samples(f, &n);
	}
	assert_int_equal(r, 0);
	assert_int_equal(pd_stream_next(f, &data, &len), 0);   /* read once */
	return n;
}

/* The same stream through a real pipe on stdin, path "-". */
static void test_pipe_stdin(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct pd_file *f;
	int p[2], saved;
	pid_t pid;

	(void)state;
	pipe_stream(&sb);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		_exit(write(p[1], sb.buf, sb.len) == (ssize_t)sb.len ? 0 : 1);
	}
	close(p[1]);
	saved = dup(0);
	dup2(p[0], 0);
	close(p[0]);
	assert_int_equal(pd_open(&f, "-"), 0);
	assert_true(pd_is_stream(f));   /* read as it is processed */
	assert_int_equal(f->nr_evsels, 1);
	assert_string_equal(f->hostname, "host");
	assert_int_equal(stream_samples(f), 3);
	assert_true(pd_stream_started(f));
	dup2(saved, 0);
	close(saved);
	waitpid(pid, NULL, 0);
	pd_close(f);
	sb_release(&sb);
}

/* A stream cut inside its last sample: a warning, two samples. */
static void test_pipe_cut(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct pd_file *f;

	(void)state;
	pipe_stream(&sb);
	sb.len -= 8 + 20;     /* FINISHED_ROUND and part of sample 3 */
	write_file(tmp_path("cut.data"), &sb);
	(void)pk_warnings_take();
	assert_int_equal(pd_open(&f, tmp_path("cut.data")), 0);
	assert_non_null(strstr(pk_warnings_take(), "stream ends inside a record"));
	check_samples(f, 2);
	pd_close(f);
	sb_release(&sb);
}

/* A record of size 0 or 12 in a stream is corrupt, not cut: the warning
 * says which (it said "does not fit in the N bytes left" for both). */
static void test_pipe_bad_record(void **state)
{
	static const struct { uint16_t size; const char *why; } cases[] = {
		{ 0, "corrupt stream at offset " },
		{ 12, "not a multiple of 8" },
		{ 4, "less than its 8-byte header" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		struct pd_file *f;
		const char *w;

		pipe_stream(&sb);
		put_hdr(&sb, PERF_RECORD_SAMPLE, cases[i].size);
		put64(&sb, 0);
		put64(&sb, 0);
		write_file(tmp_path("bad.data"), &sb);
		(void)pk_warnings_take();
		assert_int_equal(pd_open(&f, tmp_path("bad.data")), 0);
		w = pk_warnings_take();
		assert_non_null(strstr(w, cases[i].why));
		assert_null(strstr(w, "does not fit"));
		assert_null(strstr(w, "stream ends"));
		check_samples(f, 3);
		pd_close(f);
		sb_release(&sb);
	}
}

/* An attr record whose attr.size runs past the record: -EINVAL, no crash. */
static void test_pipe_bad_attr(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct perf_event_attr a;
	struct pd_file *f;

	(void)state;
	attr_init(&a);
	a.size = 4000;
	put64(&sb, 0x32454c4946524550ULL);
	put64(&sb, 16);
	put_hdr(&sb, PD_RECORD_HEADER_ATTR, (uint16_t)(8 + sizeof(a)));
	sb_add(&sb, &a, sizeof(a));
	write_file(tmp_path("badattr.data"), &sb);
	assert_int_equal(pd_open(&f, tmp_path("badattr.data")), -EINVAL);
	assert_null(f);
	assert_non_null(strstr(pk_errmsg(), "attr.size 4000"));
	/* no attr at all */
	sb.len = 16;
	write_file(tmp_path("noattr.data"), &sb);
	assert_int_equal(pd_open(&f, tmp_path("noattr.data")), -EINVAL);
	sb_release(&sb);
}

/* A perf.data file whose records (after an uncompressed COMM) are one zstd
 * stream cut into two PERF_RECORD_COMPRESSED records of odd sizes. */
static void compressed_file(const char *path, bool corrupt)
{
	struct strbuf out = STRBUF_INIT, recs = STRBUF_INIT;
	struct perf_event_attr a;
	size_t bound, clen, half, comm_len;
	uint8_t *z;
	uint64_t data_off, data_len;

	attr_init(&a);
	put_records(&recs);
	comm_len = 40;
	bound = ZSTD_compressBound(recs.len - comm_len);
	z = malloc(bound);
	clen = ZSTD_compress(z, bound, recs.buf + comm_len, recs.len - comm_len, 3);
	assert_false(ZSTD_isError(clen));
	if (corrupt)
		memset(z + clen / 2, 0xff, clen - clen / 2);
	half = clen / 2 | 1;
	/* header, attr entry (attr + empty id section), data, feature */
	for (int i = 0; i < 104; i++)
		sb_addch(&out, 0);
	sb_add(&out, &a, sizeof(a));
	put64(&out, 0);
	put64(&out, 0);
	data_off = out.len;
	sb_add(&out, recs.buf, comm_len);
	put_hdr(&out, PD_RECORD_COMPRESSED, (uint16_t)(8 + half));
	sb_add(&out, z, half);
	put_hdr(&out, PD_RECORD_COMPRESSED, (uint16_t)(8 + clen - half));
	sb_add(&out, z + half, clen - half);
	data_len = out.len - data_off;
	/* HEADER_COMPRESSED: version, type (1 = zstd), level, ratio, mmap_len */
	put64(&out, out.len + 16);
	put64(&out, 20);
	put32(&out, 0);
	put32(&out, 1);
	put32(&out, 3);
	put32(&out, 2);
	put32(&out, 528384);
	{
		uint64_t h[13] = { 0x32454c4946524550ULL, 104, sizeof(a) + 16, 104, sizeof(a) + 16,
				   data_off, data_len, 0, 0, 1ULL << PD_FEAT_COMPRESSED, 0, 0, 0 };

		memcpy(out.buf, h, sizeof(h));
	}
	write_file(path, &out);
	free(z);
	sb_release(&out);
	sb_release(&recs);
}

static void test_compressed(void **state)
{
	struct pd_file *f;
	uint64_t pos = 0;
	const struct perf_event_header *h;

	(void)state;
	compressed_file(tmp_path("z.data"), false);
	(void)pk_warnings_take();
	assert_int_equal(pd_open(&f, tmp_path("z.data")), 0);
	assert_true(pd_next(f, &pos, &h) == 1);
	assert_int_equal(h->type, PERF_RECORD_COMM);  /* file order kept */
	check_samples(f, 3);
	assert_int_equal(pk_warnings_take()[0], '\0');
	pd_close(f);
}

static void test_compressed_corrupt(void **state)
{
	struct pd_file *f;

	(void)state;
	compressed_file(tmp_path("zbad.data"), true);
	(void)pk_warnings_take();
	assert_int_equal(pd_open(&f, tmp_path("zbad.data")), 0);
	assert_non_null(strstr(pk_warnings_take(), "zstd"));
	pd_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipe_file),
		cmocka_unit_test(test_pipe_stdin),
		cmocka_unit_test(test_pipe_cut),
		cmocka_unit_test(test_pipe_bad_attr),
		cmocka_unit_test(test_pipe_bad_record),
		cmocka_unit_test(test_pipe_build_ids),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_compressed_corrupt),
	};
	int rc;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pk-stream-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		if (system(cmd) != 0)
			rc = rc ? rc : 1;
	}
	return rc;
}
