/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the exporters (src/lib/export): stacks merged with exact
 * totals; the pprof file read back (gunzip + protobuf-c unpack of the same
 * profile.proto) with the string table, ids and leaf-first locations the
 * format requires; speedscope JSON with root-first stacks and escaped
 * names; write errors leave no file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "export/export.h"

#include <errno.h>
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
	static char buf[128];

	snprintf(buf, sizeof(buf), "%s/%s", tmpdir, name);
	return buf;
}

/* main → work → leaf (leaf first), period p; and a name that needs escaping */
static void add(struct pk_export *x, const char *leaf, uint64_t period)
{
	struct pk_frame fr[3] = {
		{ .ip = 0x1010, .sym = leaf, .dso = "/bin/prog" },
		{ .ip = 0x1100, .sym = "work", .dso = "/bin/prog" },
		{ .ip = 0x1200, .sym = "main", .dso = "/bin/prog" },
	};
	struct pk_sample s = { .event = "cpu-clock", .period = period, .nr_frames = 3, .frames = fr };

	export_add(x, &s);
}

static struct pk_export *sample_model(void)
{
	struct pk_export *x = export_new();

	add(x, "leaf", 1000);
	add(x, "leaf", 1000);
	add(x, "quote\"<tag>\\", 500);
	return x;
}

static void test_totals(void **state)
{
	struct pk_export *x = sample_model();

	(void)state;
	assert_int_equal(export_nr_samples(x), 3);
	assert_int_equal(export_total_period(x), 2500);
	export_free(x);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;

	assert_non_null(fp);
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		sb_add(&sb, buf, n);
	fclose(fp);
	return sb_detach(&sb, len);
}

#ifndef PERFKIT_NO_PPROF
static void test_pprof_roundtrip(void **state)
{
	struct pk_export *x = sample_model();
	Perftools__Profiles__Profile *p;
	uint8_t out[1 << 16];
	uLongf outlen = sizeof(out);
	z_stream z;
	size_t len;
	char *gz;
	int64_t tot[2] = { 0, 0 };

	(void)state;
	assert_int_equal(export_write_pprof(x, tmp_path("p.pb.gz")), 0);
	gz = slurp(tmp_path("p.pb.gz"), &len);
	assert_true(len > 2 && (uint8_t)gz[0] == 0x1f && (uint8_t)gz[1] == 0x8b);   /* gzip */
	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 31), Z_OK);
	z.next_in = (uint8_t *)gz;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = sizeof(out);
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	outlen = z.total_out;
	inflateEnd(&z);
	p = perftools__profiles__profile__unpack(NULL, outlen, out);
	assert_non_null(p);
	assert_true(p->n_string_table > 0);
	assert_string_equal(p->string_table[0], "");
	assert_int_equal(p->n_sample_type, 2);
	assert_string_equal(p->string_table[p->sample_type[0]->type], "samples");
	assert_string_equal(p->string_table[p->sample_type[1]->type], "cpu-clock");
	assert_string_equal(p->string_table[p->sample_type[1]->unit], "nanoseconds");
	assert_int_equal(p->n_sample, 2);          /* the two "leaf" stacks merged */
	assert_int_equal(p->n_function, 4);
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		const Perftools__Profiles__Location *leaf = NULL, *root = NULL;

		tot[0] += s->value[0];
		tot[1] += s->value[1];
		assert_int_equal(s->n_location_id, 3);
		for (size_t l = 0; l < p->n_location; l++) {
			if (p->location[l]->id == s->location_id[0])
				leaf = p->location[l];
			if (p->location[l]->id == s->location_id[2])
				root = p->location[l];
		}
		assert_non_null(leaf);
		assert_non_null(root);
		/* function ids are 1-based: function[id - 1] */
		assert_string_equal(p->string_table[p->function[root->line[0]->function_id - 1]->name], "main");
		assert_true(leaf->mapping_id >= 1 && leaf->mapping_id <= p->n_mapping);
	}
	assert_int_equal(tot[0], 3);
	assert_int_equal(tot[1], 2500);
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(gz);
	export_free(x);
}
#endif

static void test_speedscope(void **state)
{
	struct pk_export *x = sample_model();
	size_t len;
	char *js;

	(void)state;
	assert_int_equal(export_write_speedscope(x, tmp_path("s.json")), 0);
	js = slurp(tmp_path("s.json"), &len);
	/* " and \ escaped (sb_add_json), < and > are fine in JSON */
	assert_non_null(strstr(js, "\"name\":\"quote\\\"<tag>\\\\\""));
	assert_null(strstr(js, "quote\"<"));       /* never raw */
	/* frames: leaf 0, work 1, main 2, quote 3; root first */
	assert_non_null(strstr(js, "\"samples\":[[2,1,0],[2,1,3]]"));
	assert_non_null(strstr(js, "\"weights\":[2000,500]"));
	assert_non_null(strstr(js, "\"endValue\":2500"));
	free(js);
	export_free(x);
}

static void test_write_error(void **state)
{
	struct pk_export *x = sample_model();

	(void)state;
	assert_true(export_write_speedscope(x, tmp_path("no/dir/s.json")) < 0);
	assert_non_null(strstr(pk_errmsg(), "no/dir"));
#ifndef PERFKIT_NO_PPROF
	assert_true(export_write_pprof(x, tmp_path("no/dir/p.pb.gz")) < 0);
#endif
	export_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_totals),
#ifndef PERFKIT_NO_PPROF
		cmocka_unit_test(test_pprof_roundtrip),
#endif
		cmocka_unit_test(test_speedscope),
		cmocka_unit_test(test_write_error),
	};
	int rc;

	strcpy(tmpdir, "/tmp/pk-export-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(tmp_path("p.pb.gz"));
	unlink(tmp_path("s.json"));
	rmdir(tmpdir);
	return rc;
}
