/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the exporters (src/lib/export): stacks merged with exact
 * totals; the pprof file read back (gunzip + protobuf-c unpack of the same
 * profile.proto) with the string table, ids and leaf-first locations the
 * format requires, inlined frames folded into their real frame's location; speedscope JSON with root-first stacks and escaped
 * names; write errors leave no file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "export/export.h"

#include "perfdata/perfdata.h"
#include "symbol/inline.h"
#include "symbol/symbol.h"

#include <errno.h>
#include <link.h>
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
/* gunzip and unpack the pprof file at path (free with free_unpacked) */
static Perftools__Profiles__Profile *read_pprof(const char *path)
{
	static uint8_t out[1 << 16];
	Perftools__Profiles__Profile *p;
	z_stream z;
	size_t len;
	char *gz;

	gz = slurp(path, &len);
	assert_true(len > 2 && (uint8_t)gz[0] == 0x1f && (uint8_t)gz[1] == 0x8b);   /* gzip */
	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 31), Z_OK);
	z.next_in = (uint8_t *)gz;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = sizeof(out);
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	p = perftools__profiles__profile__unpack(NULL, z.total_out, out);
	inflateEnd(&z);
	free(gz);
	assert_non_null(p);
	return p;
}

static void test_pprof_roundtrip(void **state)
{
	struct pk_export *x = sample_model();
	Perftools__Profiles__Profile *p;
	int64_t tot[2] = { 0, 0 };

	(void)state;
	assert_int_equal(export_write_pprof(x, tmp_path("p.pb.gz")), 0);
	p = read_pprof(tmp_path("p.pb.gz"));
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
	export_free(x);
}

static const Perftools__Profiles__Location *loc_by_id(const Perftools__Profiles__Profile *p, uint64_t id)
{
	for (size_t l = 0; l < p->n_location; l++)
		if (p->location[l]->id == id)
			return p->location[l];
	fail_msg("no location %llu", (unsigned long long)id);
	return NULL;
}

/* function name and file of a location's line k */
static const char *line_fn(const Perftools__Profiles__Profile *p, const Perftools__Profiles__Location *l,
			   size_t k, const char **file)
{
	const Perftools__Profiles__Function *f;

	assert_true(k < l->n_line);
	assert_true(l->line[k]->function_id >= 1 && l->line[k]->function_id <= p->n_function);
	f = p->function[l->line[k]->function_id - 1];
	assert_int_equal(f->id, l->line[k]->function_id);
	if (file)
		*file = p->string_table[f->filename];
	return p->string_table[f->name];
}

/* Frames the session marks inlined fold into the location of the real
 * frame after them (innermost first, the real function last); a location
 * per address, functions shared; without DWARF (a DSO that does not exist)
 * lines are 0 and the file is the DSO.  speedscope keeps every frame. */
static void test_pprof_inline_fold(void **state)
{
	const char *dso = "/nonexistent/perfkit-test/prog";
	struct pk_frame a[3] = {
		{ .ip = 0x2010, .sym = "inl", .dso = dso, .inlined = true, .addr = 0x1010 },
		{ .ip = 0x2010, .sym = "real", .dso = dso, .addr = 0x1010 },
		{ .ip = 0x2200, .sym = "main", .dso = dso, .addr = 0x1200 },
	};
	struct pk_frame b[2] = {
		{ .ip = 0x2020, .sym = "real", .dso = dso, .addr = 0x1020 },
		{ .ip = 0x2200, .sym = "main", .dso = dso, .addr = 0x1200 },
	};
	struct pk_sample sa = { .event = "cpu-clock", .period = 7, .nr_frames = 3, .frames = a };
	struct pk_sample sb = { .event = "cpu-clock", .period = 5, .nr_frames = 2, .frames = b };
	struct pk_export *x = export_new();
	Perftools__Profiles__Profile *p;
	const Perftools__Profiles__Location *l;
	const char *file;
	size_t len;
	char *js;
	int64_t tot = 0;

	(void)state;
	for (int i = 0; i < 3; i++) {
		export_add(x, &sa);
		export_add(x, &sb);
	}
	assert_int_equal(export_write_pprof(x, tmp_path("p.pb.gz")), 0);
	p = read_pprof(tmp_path("p.pb.gz"));
	assert_int_equal(p->n_function, 3);        /* inl, real, main */
	assert_int_equal(p->n_location, 3);        /* real@0x2010 (+inl), real@0x2020, main */
	assert_int_equal(p->n_sample, 2);
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];

		tot += s->value[1];
		l = loc_by_id(p, s->location_id[0]);
		assert_int_equal(s->n_location_id, 2);
		if (l->address == 0x2010) {
			assert_int_equal(s->value[1], 21);
			assert_int_equal(l->n_line, 2);
			assert_string_equal(line_fn(p, l, 0, &file), "inl");
			assert_string_equal(file, dso);
			assert_string_equal(line_fn(p, l, 1, NULL), "real");
		} else {
			assert_int_equal(l->address, 0x2020);
			assert_int_equal(s->value[1], 15);
			assert_int_equal(l->n_line, 1);
			assert_string_equal(line_fn(p, l, 0, NULL), "real");
		}
		for (size_t k = 0; k < l->n_line; k++)
			assert_int_equal(l->line[k]->line, 0);
		l = loc_by_id(p, s->location_id[1]);
		assert_int_equal(l->n_line, 1);
		assert_string_equal(line_fn(p, l, 0, &file), "main");
		assert_int_equal(l->address, 0x2200);
	}
	assert_int_equal(tot, 36);
	assert_int_equal(p->n_mapping, 1);
	assert_string_equal(p->string_table[p->mapping[0]->filename], dso);
	assert_true(p->mapping[0]->has_functions);
	assert_false(p->mapping[0]->has_line_numbers);      /* no DWARF */
	perftools__profiles__profile__free_unpacked(p, NULL);

	/* speedscope: frames inl 0, real 1, main 2 as before, root first */
	assert_int_equal(export_write_speedscope(x, tmp_path("s.json")), 0);
	js = slurp(tmp_path("s.json"), &len);
	assert_non_null(strstr(js, "\"samples\":[[2,1,0],[2,1]]"));
	assert_non_null(strstr(js, "\"weights\":[21,15]"));
	free(js);
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

#ifndef PERFKIT_NO_PPROF
/* a function of this program (built with -g) to look up in its own DWARF */
static const int probe_line = __LINE__;   /* probe_fn starts on the next line */
static __attribute__((noinline, used)) unsigned probe_fn(unsigned a)
{
	return a * 2654435761u + 1;
}

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr;    /* the program's load bias */
	return 1;
}

/* whether symbol/inline.h reads the DWARF of probe_fn in the program exe */
static bool dwarf_readable(const char *exe)
{
	struct inline_resolver *r = inline_resolver_new();
	struct strbuf sb = STRBUF_INIT;
	uint64_t bias = 0;
	int rc;

	dl_iterate_phdr(first_object, &bias);
	rc = inline_resolve_addr(r, exe, (uint64_t)(uintptr_t)probe_fn - bias, true, &sb);
	sb_release(&sb);
	inline_resolver_free(r);
	return rc == 0;
}

/* The one location of a sample at probe_fn in the exporter ex: its single
 * line (probe_fn has nothing inlined at its entry). */
static const char *probe_line_of(struct pk_export *ex, int64_t *line)
{
	static char exe[4096], file[256];
	uint64_t bias = 0;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	Perftools__Profiles__Profile *p;
	const char *f;

	assert_true(n > 0);
	exe[n] = '\0';
	dl_iterate_phdr(first_object, &bias);
	struct pk_frame fr = { .ip = (uint64_t)(uintptr_t)probe_fn, .sym = "probe_fn", .dso = exe,
			       .addr = (uint64_t)(uintptr_t)probe_fn - bias };
	struct pk_sample s = { .event = "cpu-clock", .period = 1, .nr_frames = 1, .frames = &fr };

	export_add(ex, &s);
	assert_int_equal(export_write_pprof(ex, tmp_path("p.pb.gz")), 0);
	p = read_pprof(tmp_path("p.pb.gz"));
	assert_int_equal(p->n_location, 1);
	assert_int_equal(p->location[0]->n_line, 1);
	assert_string_equal(line_fn(p, p->location[0], 0, &f), "probe_fn");
	snprintf(file, sizeof(file), "%s", strcmp(f, exe) ? f : "DSO");
	*line = p->location[0]->line[0]->line;
	perftools__profiles__profile__free_unpacked(p, NULL);
	return file;
}

/* Source lines from DWARF: this test program's own probe_fn is at
 * test_export.c:<its line>; with a recorded build-id that is not the
 * file's (a rebuilt binary) no DWARF is read: line 0, the DSO as file. */
static void test_pprof_dwarf_lines(void **state)
{
	struct pd_build_id bid = { .size = 20 };
	struct pd_file f = { .build_ids = &bid, .nr_build_ids = 1 };
	char exe[4096];
	struct pk_export *x = export_new();
	int64_t line;
	ssize_t n;

	(void)state;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	if (!dwarf_readable(exe)) {
		/* e.g. clang without -gdwarf-aranges: libdw 0.188 finds no CU */
		fprintf(stderr, "# %s: no DWARF symbol/inline can read: only the fallback tested\n", exe);
		assert_string_equal(probe_line_of(x, &line), "DSO");
		assert_int_equal(line, 0);
		export_free(x);
		return;
	}
	assert_string_equal(probe_line_of(x, &line), "test_export.c");
	assert_true(line > probe_line && line <= probe_line + 3);
	export_free(x);

	if (sym_read_build_id(exe, bid.data, sizeof(bid.data)) < 20) {
		fprintf(stderr, "# no build-id in %s: build-id check not tested\n", exe);
		return;
	}
	bid.filename = exe;
	x = export_new_file(&f);                  /* the right build-id: lines */
	assert_string_equal(probe_line_of(x, &line), "test_export.c");
	assert_true(line > probe_line);
	export_free(x);
	bid.data[0] ^= 0xff;                      /* another binary's */
	x = export_new_file(&f);
	assert_string_equal(probe_line_of(x, &line), "DSO");
	assert_int_equal(line, 0);
	export_free(x);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_totals),
#ifndef PERFKIT_NO_PPROF
		cmocka_unit_test(test_pprof_roundtrip),
		cmocka_unit_test(test_pprof_inline_fold),
		cmocka_unit_test(test_pprof_dwarf_lines),
#endif
		cmocka_unit_test(test_speedscope),
		cmocka_unit_test(test_write_error),
	};
	int rc;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pk-export-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(tmp_path("p.pb.gz"));
	unlink(tmp_path("s.json"));
	rmdir(tmpdir);
	return rc;
}
