/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the perf.data reader (src/lib/perfdata/reader.c): files
 * built byte by byte in a temporary folder. */
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
#include <unistd.h>

/* ---- a tiny perf.data builder ---- */

struct fb {
	struct strbuf data;                /* data section */
	struct perf_event_attr attrs[4];
	uint64_t ids[4][4];
	size_t nr_ids[4];
	size_t nr_attrs;
	const char *names[4];              /* EVENT_DESC names, NULL: no feature */
};

static void put64(struct strbuf *sb, uint64_t v)
{
	sb_add(sb, &v, 8);
}

static void put32(struct strbuf *sb, uint32_t v)
{
	sb_add(sb, &v, 4);
}

static void rec_begin(struct strbuf *sb, size_t *start, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { type, misc, 0 };

	*start = sb->len;
	sb_add(sb, &h, sizeof(h));
}

static void rec_end(struct strbuf *sb, size_t start)
{
	while ((sb->len - start) % 8)
		sb_addch(sb, 0);
	((struct perf_event_header *)(sb->buf + start))->size = (uint16_t)(sb->len - start);
}

/* Write the file: header, attrs + ids, data, EVENT_DESC feature. */
static void fb_write(struct fb *b, const char *path)
{
	struct strbuf out = STRBUF_INIT, feat = STRBUF_INIT;
	uint64_t asz = sizeof(struct perf_event_attr), entsz = asz + 16;
	uint64_t ids_off = 104, attrs_off, data_off, feat_off;
	uint64_t features[4] = { 0 };
	FILE *fp;

	/* header placeholder */
	for (int i = 0; i < 104; i++)
		sb_addch(&out, 0);
	for (size_t i = 0; i < b->nr_attrs; i++)
		for (size_t j = 0; j < b->nr_ids[i]; j++)
			put64(&out, b->ids[i][j]);
	attrs_off = out.len;
	for (size_t i = 0, o = ids_off; i < b->nr_attrs; i++) {
		b->attrs[i].size = sizeof(struct perf_event_attr);
		sb_add(&out, &b->attrs[i], asz);
		put64(&out, o);
		put64(&out, b->nr_ids[i] * 8);
		o += b->nr_ids[i] * 8;
	}
	data_off = out.len;
	sb_add(&out, b->data.buf, b->data.len);
	if (b->names[0]) {
		features[0] |= 1ULL << PD_FEAT_EVENT_DESC;
		put32(&feat, (uint32_t)b->nr_attrs);
		put32(&feat, (uint32_t)asz);
		for (size_t i = 0; i < b->nr_attrs; i++) {
			uint32_t len = (uint32_t)((strlen(b->names[i]) + 1 + 7) / 8 * 8);
			char buf[64] = { 0 };

			sb_add(&feat, &b->attrs[i], asz);
			put32(&feat, (uint32_t)b->nr_ids[i]);
			put32(&feat, len);
			snprintf(buf, sizeof(buf), "%s", b->names[i]);
			sb_add(&feat, buf, len);
			for (size_t j = 0; j < b->nr_ids[i]; j++)
				put64(&feat, b->ids[i][j]);
		}
		feat_off = out.len + 16;
		put64(&out, feat_off);
		put64(&out, feat.len);
		sb_add(&out, feat.buf, feat.len);
	}
	{
		uint64_t h[13] = { 0x32454c4946524550ULL, 104, entsz, attrs_off, entsz * b->nr_attrs,
				   data_off, b->data.len, 0, 0, features[0], features[1], features[2],
				   features[3] };

		memcpy(out.buf, h, sizeof(h));
	}
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(out.buf, 1, out.len, fp), out.len);
	fclose(fp);
	sb_release(&out);
	sb_release(&feat);
}

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "%s/%s", tmpdir, name);
	return buf;
}

static void base_attr(struct perf_event_attr *a, uint64_t sample_type)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_type = sample_type;
	a->sample_id_all = 1;
}

#define ST_BASIC (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

static void add_comm(struct fb *b, uint32_t pid, const char *comm, uint64_t time)
{
	size_t s;
	char buf[16] = { 0 };

	rec_begin(&b->data, &s, PERF_RECORD_COMM, 0);
	put32(&b->data, pid);
	put32(&b->data, pid);
	snprintf(buf, sizeof(buf), "%.15s", comm);
	sb_add(&b->data, buf, (strlen(buf) + 8) / 8 * 8);
	/* sample_id_all trailer for ST_BASIC: TID, TIME */
	put32(&b->data, pid);
	put32(&b->data, pid);
	put64(&b->data, time);
	rec_end(&b->data, s);
}

static void add_basic_sample(struct fb *b, uint64_t ip, uint32_t pid, uint64_t time, uint64_t period)
{
	size_t s;

	rec_begin(&b->data, &s, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(&b->data, ip);
	put32(&b->data, pid);
	put32(&b->data, pid + 1);
	put64(&b->data, time);
	put64(&b->data, period);
	rec_end(&b->data, s);
}

static void basic_file(const char *path, bool names)
{
	struct fb b = { .data = STRBUF_INIT };

	b.nr_attrs = 1;
	base_attr(&b.attrs[0], ST_BASIC);
	if (names)
		b.names[0] = "cpu-clock:ppp";
	add_comm(&b, 42, "work", 5);
	add_basic_sample(&b, 0x1000, 42, 10, 100);
	add_basic_sample(&b, 0x2000, 42, 20, 200);
	add_basic_sample(&b, 0x3000, 42, 30, 300);
	fb_write(&b, path);
	sb_release(&b.data);
}

static int count_records(const struct pd_file *f, int *samples)
{
	uint64_t pos = 0;
	const struct perf_event_header *h;
	int n = 0;

	*samples = 0;
	while (pd_next(f, &pos, &h) == 1) {
		n++;
		if (h->type == PERF_RECORD_SAMPLE)
			(*samples)++;
	}
	return n;
}

/* ---- tests ---- */

static void test_basic(void **state)
{
	struct pd_file *f;
	uint64_t pos = 0;
	const struct perf_event_header *h;
	struct pd_sample smp;
	struct pd_sample_id sid;
	int samples;

	(void)state;
	basic_file(tmp_path("basic.data"), true);
	pk_warnings_take();
	assert_int_equal(pd_open(&f, tmp_path("basic.data")), 0);
	assert_string_equal(pk_warnings_take(), "");
	assert_int_equal(f->nr_evsels, 1);
	assert_string_equal(f->evsels[0].name, "cpu-clock:ppp");
	assert_int_equal(count_records(f, &samples), 4);
	assert_int_equal(samples, 3);

	assert_int_equal(pd_next(f, &pos, &h), 1);
	assert_int_equal(h->type, PERF_RECORD_COMM);
	assert_int_equal(pd_parse_sample_id(f, h, &sid), 0);
	assert_true(sid.valid);
	assert_int_equal(sid.pid, 42);
	assert_int_equal(sid.time, 5);
	assert_int_equal(pd_next(f, &pos, &h), 1);
	assert_int_equal(pd_offset(f, h), f->data_offset + 40); /* COMM: 8 + 8 + 8 + trailer 16 */
	assert_int_equal(pd_parse_sample(f, h, &smp), 0);
	assert_ptr_equal(smp.evsel, &f->evsels[0]);
	assert_int_equal(smp.ip, 0x1000);
	assert_int_equal(smp.pid, 42);
	assert_int_equal(smp.tid, 43);
	assert_int_equal(smp.time, 10);
	assert_int_equal(smp.period, 100);
	assert_int_equal(smp.misc, PERF_RECORD_MISC_USER);
	assert_int_equal(smp.nr_callchain, 0);
	pd_close(f);
}

static void test_default_name(void **state)
{
	struct pd_file *f;

	(void)state;
	basic_file(tmp_path("noname.data"), false);
	assert_int_equal(pd_open(&f, tmp_path("noname.data")), 0);
	/* perf 6.1's name for this attr (nothing excluded): the modifiers
	 * H and G, as `perf report` prints it */
	assert_string_equal(f->evsels[0].name, "cpu-clock:HG");
	pd_close(f);
}

/* perf 6.1's names (evsel__name) for attrs with no EVENT_DESC: the
 * modifiers as `perf report` 6.1 printed them for each attr (an H where
 * exclude_guest is its default, as perf record sets it for ":u") */
static void test_default_name_modifiers(void **state)
{
	static const struct {
		unsigned type, config, k, u, hv, precise, host, guest;
		const char *name;
	} c[] = {
		{ PERF_TYPE_SOFTWARE, 0, 1, 0, 0, 0, 0, 0, "cpu-clock:uh" },
		{ PERF_TYPE_SOFTWARE, 0, 0, 0, 0, 0, 0, 1, "cpu-clock" },
		{ PERF_TYPE_SOFTWARE, 0, 1, 0, 1, 0, 0, 1, "cpu-clock:uH" },
		{ PERF_TYPE_HARDWARE, 0, 0, 0, 0, 3, 0, 1, "cycles:pppH" },
		{ PERF_TYPE_HARDWARE, 1, 0, 1, 1, 2, 0, 1, "instructions:kppH" },
		{ PERF_TYPE_HARDWARE, 0, 0, 0, 0, 0, 1, 0, "cycles:G" },
		{ PERF_TYPE_RAW, 0x1c4, 0, 0, 0, 0, 0, 1, "raw 0x1c4" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct fb b = { .data = STRBUF_INIT };
		struct pd_file *f;

		b.nr_attrs = 1;
		base_attr(&b.attrs[0], ST_BASIC);
		b.attrs[0].type = c[i].type;
		b.attrs[0].config = c[i].config;
		b.attrs[0].exclude_kernel = c[i].k;
		b.attrs[0].exclude_user = c[i].u;
		b.attrs[0].exclude_hv = c[i].hv;
		b.attrs[0].precise_ip = c[i].precise;
		b.attrs[0].exclude_host = c[i].host;
		b.attrs[0].exclude_guest = c[i].guest;
		add_comm(&b, 42, "work", 5);
		fb_write(&b, tmp_path("mods.data"));
		sb_release(&b.data);
		assert_int_equal(pd_open(&f, tmp_path("mods.data")), 0);
		assert_string_equal(f->evsels[0].name, c[i].name);
		pd_close(f);
	}
}

static void test_missing(void **state)
{
	struct pd_file *f = (void *)1;

	(void)state;
	assert_int_equal(pd_open(&f, tmp_path("does-not-exist")), -ENOENT);
	assert_null(f);
	assert_non_null(strstr(pk_errmsg(), "does-not-exist"));
}

static void test_not_perfdata(void **state)
{
	struct pd_file *f;
	FILE *fp = fopen(tmp_path("text"), "w");

	(void)state;
	fputs("root:x:0:0:root:/root:/bin/bash\n", fp);
	fclose(fp);
	assert_int_equal(pd_open(&f, tmp_path("text")), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "not a perf.data file"));
	fp = fopen(tmp_path("tiny"), "w");
	fputs("PER", fp);
	fclose(fp);
	assert_int_equal(pd_open(&f, tmp_path("tiny")), -EINVAL);
	fp = fopen(tmp_path("empty"), "w");
	fclose(fp);
	assert_int_equal(pd_open(&f, tmp_path("empty")), -EINVAL);
	/* magic alone, header cut */
	fp = fopen(tmp_path("magic"), "w");
	fputs("PERFILE2\x68", fp);
	fclose(fp);
	assert_int_equal(pd_open(&f, tmp_path("magic")), -EINVAL);
}

static void test_truncated(void **state)
{
	struct pd_file *f;
	int samples;
	long size;
	FILE *fp;

	(void)state;
	basic_file(tmp_path("cut.data"), false);   /* no features: data ends the file */
	fp = fopen(tmp_path("cut.data"), "r");
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	fclose(fp);
	/* cut inside the last sample (40 bytes) */
	assert_int_equal(truncate(tmp_path("cut.data"), size - 12), 0);
	pk_warnings_take();
	assert_int_equal(pd_open(&f, tmp_path("cut.data")), 0);
	assert_string_equal(pk_warnings_take(), "");
	assert_int_equal(count_records(f, &samples), 3);
	assert_int_equal(samples, 2);
	{
		const char *w = pk_warnings_take();

		assert_non_null(strstr(w, "file truncated"));
		assert_non_null(strstr(w, "does not fit"));
		assert_null(strchr(w, '\n'));     /* one line */
	}
	/* later calls stay at the end, without a second warning */
	{
		uint64_t pos = f->data_size + 1;
		const struct perf_event_header *h;

		assert_int_equal(pd_next(f, &pos, &h), 0);
		assert_string_equal(pk_warnings_take(), "");
	}
	pd_close(f);
	/* cut inside a record header */
	assert_int_equal(truncate(tmp_path("cut.data"), size - 36), 0);
	assert_int_equal(pd_open(&f, tmp_path("cut.data")), 0);
	assert_int_equal(count_records(f, &samples), 3);
	assert_non_null(strstr(pk_warnings_take(), "truncated record header"));
	pd_close(f);
	/* cut exactly at a record boundary: still one warning */
	assert_int_equal(truncate(tmp_path("cut.data"), size - 40), 0);
	assert_int_equal(pd_open(&f, tmp_path("cut.data")), 0);
	assert_int_equal(count_records(f, &samples), 3);
	assert_non_null(strstr(pk_warnings_take(), "file truncated"));
	pd_close(f);
}

static void test_data_size_zero(void **state)
{
	struct pd_file *f;
	int samples;
	uint64_t zero = 0;
	FILE *fp;

	(void)state;
	basic_file(tmp_path("zero.data"), false);
	fp = fopen(tmp_path("zero.data"), "r+b");
	fseek(fp, 48, SEEK_SET);
	fwrite(&zero, 8, 1, fp);
	fclose(fp);
	pk_warnings_take();
	assert_int_equal(pd_open(&f, tmp_path("zero.data")), 0);
	assert_int_equal(count_records(f, &samples), 4);
	assert_non_null(strstr(pk_warnings_take(), "data size 0"));
	assert_int_equal(samples, 3);
	pd_close(f);
}

static void test_bad_record_size(void **state)
{
	struct fb b = { .data = STRBUF_INIT };
	struct pd_file *f;
	int samples;
	size_t s;

	(void)state;
	b.nr_attrs = 1;
	base_attr(&b.attrs[0], ST_BASIC);
	add_basic_sample(&b, 0x1000, 1, 1, 1);
	rec_begin(&b.data, &s, PERF_RECORD_SAMPLE, 0);
	put64(&b.data, 0);
	rec_end(&b.data, s);
	((struct perf_event_header *)(b.data.buf + s))->size = 12;  /* not a multiple of 8 */
	add_basic_sample(&b, 0x2000, 1, 2, 1);
	fb_write(&b, tmp_path("badsize.data"));
	sb_release(&b.data);
	assert_int_equal(pd_open(&f, tmp_path("badsize.data")), 0);
	pk_warnings_take();
	assert_int_equal(count_records(f, &samples), 1);
	assert_non_null(strstr(pk_warnings_take(), "corrupt data section"));
	pd_close(f);
}

/* perf's COMPRESSED records need not be 8-byte multiples; a kernel record
 * after one, at an unaligned offset, ends the walk with a warning. */
static void test_unaligned_compressed(void **state)
{
	struct fb b = { .data = STRBUF_INIT };
	struct pd_file *f;
	const struct perf_event_header *h;
	uint64_t pos = 0;
	size_t s;

	(void)state;
	b.nr_attrs = 1;
	/* a feature (EVENT_DESC), none COMPRESSED: the records are read as
	 * they are (a file without any feature, a killed recorder's, is
	 * looked through for compressed records and decompressed) */
	b.names[0] = "cpu-clock";
	base_attr(&b.attrs[0], ST_BASIC);
	add_basic_sample(&b, 0x1000, 1, 1, 1);
	rec_begin(&b.data, &s, PD_RECORD_COMPRESSED, 0);
	put32(&b.data, 0xabcdef);        /* 12 bytes in all */
	((struct perf_event_header *)(b.data.buf + s))->size = 12;
	add_basic_sample(&b, 0x2000, 1, 2, 1);
	fb_write(&b, tmp_path("z.data"));
	sb_release(&b.data);
	assert_int_equal(pd_open(&f, tmp_path("z.data")), 0);
	pk_warnings_take();
	assert_int_equal(pd_next(f, &pos, &h), 1);
	assert_int_equal(h->type, PERF_RECORD_SAMPLE);
	assert_int_equal(pd_next(f, &pos, &h), 1);
	assert_int_equal(pos % 8, 4);
	assert_int_equal(pd_next(f, &pos, &h), 0);
	assert_non_null(strstr(pk_warnings_take(), "unaligned"));
	pd_close(f);
}

static void test_bad_sections(void **state)
{
	struct pd_file *f;
	uint64_t v = 1ULL << 40;
	FILE *fp;

	(void)state;
	basic_file(tmp_path("badattr.data"), false);
	fp = fopen(tmp_path("badattr.data"), "r+b");
	fseek(fp, 32, SEEK_SET);      /* attrs.size */
	fwrite(&v, 8, 1, fp);
	fclose(fp);
	assert_int_equal(pd_open(&f, tmp_path("badattr.data")), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "attr section"));

	basic_file(tmp_path("baddata.data"), false);
	fp = fopen(tmp_path("baddata.data"), "r+b");
	fseek(fp, 40, SEEK_SET);      /* data.offset */
	fwrite(&v, 8, 1, fp);
	fclose(fp);
	assert_int_equal(pd_open(&f, tmp_path("baddata.data")), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "data section"));

	basic_file(tmp_path("badattrsz.data"), false);
	fp = fopen(tmp_path("badattrsz.data"), "r+b");
	v = 3;
	fseek(fp, 16, SEEK_SET);      /* attr_size */
	fwrite(&v, 8, 1, fp);
	fclose(fp);
	assert_int_equal(pd_open(&f, tmp_path("badattrsz.data")), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "attr_size"));
}

/* Every sample field perfkit reads, in one sample_type. */
static void test_sample_all_fields(void **state)
{
	struct fb b = { .data = STRBUF_INIT };
	struct pd_file *f;
	struct pd_sample smp;
	const struct perf_event_header *h;
	uint64_t pos = 0, t = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			      PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			      PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
			      PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	size_t s;
	size_t full;

	(void)state;
	b.nr_attrs = 1;
	base_attr(&b.attrs[0], t);
	b.attrs[0].read_format = PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
	b.attrs[0].sample_regs_user = 0x7; /* 3 registers */
	rec_begin(&b.data, &s, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	put64(&b.data, 77);              /* identifier */
	put64(&b.data, 0xffffffff81000000ULL); /* ip */
	put32(&b.data, 10);
	put32(&b.data, 11);              /* pid, tid */
	put64(&b.data, 123456789);       /* time */
	put64(&b.data, 0xdead);          /* addr */
	put64(&b.data, 77);              /* id */
	put64(&b.data, 88);              /* stream id */
	put32(&b.data, 3);
	put32(&b.data, 0);               /* cpu, res */
	put64(&b.data, 4000);            /* period */
	put64(&b.data, 5);               /* read: value */
	put64(&b.data, 6);               /*        enabled */
	put64(&b.data, 77);              /*        id */
	put64(&b.data, 3);               /* callchain nr */
	put64(&b.data, PERF_CONTEXT_KERNEL);
	put64(&b.data, 0xffffffff81000000ULL);
	put64(&b.data, 0xffffffff81000100ULL);
	put32(&b.data, 4);               /* raw size: 4 + 4 = 8 */
	put32(&b.data, 0xabcd);
	put64(&b.data, PERF_SAMPLE_REGS_ABI_64);
	put64(&b.data, 1);
	put64(&b.data, 2);
	put64(&b.data, 3);
	put64(&b.data, 16);              /* stack size */
	put64(&b.data, 0x1111);
	put64(&b.data, 0x2222);
	put64(&b.data, 8);               /* dyn size */
	rec_end(&b.data, s);
	full = b.data.len;
	/* the same sample cut short by 8 bytes: the stack no longer fits */
	{
		char *copy = xmalloc(full);   /* sb_add may move buf */

		memcpy(copy, b.data.buf, full);
		sb_add(&b.data, copy, full - 8);
		free(copy);
	}
	((struct perf_event_header *)(b.data.buf + full))->size = (uint16_t)(full - 8);
	fb_write(&b, tmp_path("all.data"));
	sb_release(&b.data);

	assert_int_equal(pd_open(&f, tmp_path("all.data")), 0);
	assert_int_equal(pd_next(f, &pos, &h), 1);
	assert_int_equal(pd_parse_sample(f, h, &smp), 0);
	assert_int_equal(smp.id, 77);
	assert_int_equal(smp.ip, 0xffffffff81000000ULL);
	assert_int_equal(smp.pid, 10);
	assert_int_equal(smp.tid, 11);
	assert_int_equal(smp.time, 123456789);
	assert_int_equal(smp.addr, 0xdead);
	assert_int_equal(smp.stream_id, 88);
	assert_int_equal(smp.cpu, 3);
	assert_int_equal(smp.period, 4000);
	assert_int_equal(smp.nr_callchain, 3);
	assert_int_equal(smp.callchain[0], PERF_CONTEXT_KERNEL);
	assert_int_equal(smp.callchain[2], 0xffffffff81000100ULL);
	assert_int_equal(smp.user_regs_abi, PERF_SAMPLE_REGS_ABI_64);
	assert_int_equal(smp.user_regs[2], 3);
	assert_int_equal(smp.user_stack_size, 8);
	assert_int_equal(((const uint64_t *)smp.user_stack)[1], 0x2222);
	assert_int_equal(smp.misc, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(pd_next(f, &pos, &h), 1);
	assert_int_equal(pd_parse_sample(f, h, &smp), -EPROTO);
	assert_non_null(strstr(pk_errmsg(), "too short"));
	pd_close(f);
}

/* A callchain whose nr claims more entries than the record holds. */
static void test_sample_bad_callchain(void **state)
{
	struct fb b = { .data = STRBUF_INIT };
	struct pd_file *f;
	struct pd_sample smp;
	const struct perf_event_header *h;
	uint64_t pos = 0;
	size_t s;

	(void)state;
	b.nr_attrs = 1;
	base_attr(&b.attrs[0], PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN);
	rec_begin(&b.data, &s, PERF_RECORD_SAMPLE, 0);
	put64(&b.data, 1);
	put64(&b.data, 1ULL << 60);
	put64(&b.data, 1);
	rec_end(&b.data, s);
	fb_write(&b, tmp_path("cc.data"));
	sb_release(&b.data);
	assert_int_equal(pd_open(&f, tmp_path("cc.data")), 0);
	assert_int_equal(pd_next(f, &pos, &h), 1);
	assert_int_equal(pd_parse_sample(f, h, &smp), -EPROTO);
	pd_close(f);
}

/* Two events told apart by PERF_SAMPLE_ID (sample) and the trailer (MMAP). */
static void test_two_events(void **state)
{
	struct fb b = { .data = STRBUF_INIT };
	struct pd_file *f;
	struct pd_sample smp;
	struct pd_sample_id sid;
	const struct perf_event_header *h;
	uint64_t pos = 0, t = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	size_t s;

	(void)state;
	b.nr_attrs = 2;
	base_attr(&b.attrs[0], t);
	base_attr(&b.attrs[1], t);
	b.attrs[1].config = PERF_COUNT_SW_PAGE_FAULTS;
	b.ids[0][0] = 100;
	b.ids[0][1] = 101;
	b.nr_ids[0] = 2;
	b.ids[1][0] = 200;
	b.nr_ids[1] = 1;
	b.names[0] = "cpu-clock";
	b.names[1] = "page-faults";
	for (int i = 0; i < 2; i++) {
		rec_begin(&b.data, &s, PERF_RECORD_SAMPLE, 0);
		put64(&b.data, 0x1000);
		put32(&b.data, 1);
		put32(&b.data, 1);
		put64(&b.data, 10);
		put64(&b.data, i ? 200 : 101);
		put64(&b.data, 0);
		put64(&b.data, 1);
		rec_end(&b.data, s);
	}
	rec_begin(&b.data, &s, PERF_RECORD_EXIT, 0);
	for (int i = 0; i < 3; i++)
		put64(&b.data, 0);
	put32(&b.data, 7);               /* trailer: tid */
	put32(&b.data, 8);
	put64(&b.data, 99);              /* time */
	put64(&b.data, 200);             /* id */
	put64(&b.data, 2);               /* cpu */
	rec_end(&b.data, s);
	fb_write(&b, tmp_path("two.data"));
	sb_release(&b.data);

	assert_int_equal(pd_open(&f, tmp_path("two.data")), 0);
	assert_int_equal(f->nr_evsels, 2);
	assert_string_equal(f->evsels[1].name, "page-faults");
	assert_ptr_equal(pd_evsel_by_id(f, 101), &f->evsels[0]);
	assert_ptr_equal(pd_evsel_by_id(f, 200), &f->evsels[1]);
	assert_null(pd_evsel_by_id(f, 5));
	assert_int_equal(pd_next(f, &pos, &h), 1);
	assert_int_equal(pd_parse_sample(f, h, &smp), 0);
	assert_ptr_equal(smp.evsel, &f->evsels[0]);
	assert_int_equal(pd_next(f, &pos, &h), 1);
	assert_int_equal(pd_parse_sample(f, h, &smp), 0);
	assert_ptr_equal(smp.evsel, &f->evsels[1]);
	assert_int_equal(pd_next(f, &pos, &h), 1);
	assert_int_equal(pd_parse_sample_id(f, h, &sid), 0);
	assert_true(sid.valid);
	assert_int_equal(sid.pid, 7);
	assert_int_equal(sid.tid, 8);
	assert_int_equal(sid.time, 99);
	assert_int_equal(sid.id, 200);
	assert_int_equal(sid.cpu, 2);
	assert_int_equal(pd_next(f, &pos, &h), 0);
	pd_close(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pk-reader-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_default_name),
		cmocka_unit_test(test_default_name_modifiers),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_not_perfdata),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_data_size_zero),
		cmocka_unit_test(test_bad_record_size),
		cmocka_unit_test(test_unaligned_compressed),
		cmocka_unit_test(test_bad_sections),
		cmocka_unit_test(test_sample_all_fields),
		cmocka_unit_test(test_sample_bad_callchain),
		cmocka_unit_test(test_two_events),
	};

	return cmocka_run_group_tests_name("perfdata_reader", tests, setup, teardown);
}
