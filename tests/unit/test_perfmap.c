/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/symbol/perfmap.c (/tmp/perf-PID.map) and its use by
 * the session: looked up by pid, not tid; names with spaces; [unknown] with
 * the map as DSO outside every entry; re-read when the file grew; one
 * warning for a missing map (acceptance item 4 of issue P6). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "perfdata/perfdata.h"
#include "session/session.h"
#include "format/collapse.h"
#include "stack/folded.h"
#include "symbol/perfmap.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pk-perfmap-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_map(const char *path, const char *mode, const char *text)
{
	FILE *f = fopen(path, mode);

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char MAP[] = "7f3a10001000 80 Lcom/example/Foo;::bar\n"
			  "7f3a10001080 40 Interpreted: RegExp:[&<>\"']\n"
			  "0x7f3a100010c0 20 stub <adapter>\r\n"
			  "garbage line\n";

static void test_lookup(void **state)
{
	char path[128];
	const char *mp, *name;
	uint64_t off = 99;

	(void)state;
	snprintf(path, sizeof(path), "%s/perf-4242.map", dir);
	write_map(path, "w", MAP);
	struct perfmap_cache *c = perfmap_cache_new(dir);

	name = perfmap_lookup(c, 4242, 0x7f3a10001010, true, NULL, &mp, &off);
	assert_non_null(name);
	assert_string_equal(name, "Lcom/example/Foo;::bar");
	assert_int_equal(off, 0x10);
	assert_string_equal(mp, path);
	name = perfmap_lookup(c, 4242, 0x7f3a10001085, true, NULL, &mp, NULL);
	assert_string_equal(name, "Interpreted: RegExp:[&<>\"']");
	name = perfmap_lookup(c, 4242, 0x7f3a100010df, true, NULL, &mp, NULL);
	assert_string_equal(name, "stub <adapter>");
	/* just past the last entry: no name, but the map is known */
	assert_null(perfmap_lookup(c, 4242, 0x7f3a100010e0, true, NULL, &mp, NULL));
	assert_string_equal(mp, path);
	assert_null(perfmap_lookup(c, 4242, 0x7f3a10000fff, true, NULL, &mp, NULL));

	/* the JIT appends: a miss re-reads the grown file; a later entry
	 * over an older one wins */
	write_map(path, "a", "7f3a100010e0 10 late one\n7f3a10001000 8 newer\n");
	name = perfmap_lookup(c, 4242, 0x7f3a100010e4, true, NULL, &mp, NULL);
	assert_non_null(name);
	assert_string_equal(name, "late one");
	assert_string_equal(perfmap_lookup(c, 4242, 0x7f3a10001004, true, NULL, NULL, NULL), "newer");
	assert_string_equal(perfmap_lookup(c, 4242, 0x7f3a10001010, true, NULL, NULL, NULL),
			    "Lcom/example/Foo;::bar");

	/* a missing map: NULL path; silent as perf, one note however many
	 * lookups with -v (pk_set_verbose) */
	pk_error_clear();
	(void)pk_warnings_take();
	assert_null(perfmap_lookup(c, 4243, 0x1000, true, NULL, &mp, NULL));
	assert_null(mp);
	const char *w = pk_warnings_take();
	assert_true(!w || !*w);
	pk_set_verbose(1);
	assert_null(perfmap_lookup(c, 4244, 0x1000, true, NULL, &mp, NULL));
	assert_null(mp);
	assert_null(perfmap_lookup(c, 4244, 0x2000, true, NULL, &mp, NULL));
	pk_set_verbose(0);
	w = pk_warnings_take();
	assert_non_null(w);
	assert_non_null(strstr(w, "perf-4244.map"));
	assert_null(strchr(w, '\n'));
	/* a first lookup that does not ask for the note (an address in no
	 * mapping, the end of a callchain) leaves it for the next that does
	 * (0216's anonymous code lost its note so) */
	pk_set_verbose(1);
	assert_null(perfmap_lookup(c, 4245, 0, false, NULL, &mp, NULL));
	w = pk_warnings_take();
	assert_true(!w || !*w);
	assert_null(perfmap_lookup(c, 4245, 0x1000, true, NULL, &mp, NULL));
	assert_null(perfmap_lookup(c, 4245, 0x2000, true, NULL, &mp, NULL));
	pk_set_verbose(0);
	w = pk_warnings_take();
	assert_non_null(w);
	assert_non_null(strstr(w, "perf-4245.map: no JIT symbol map (No such file or directory)"));
	assert_null(strchr(w, '\n'));
	perfmap_cache_free(c);
}

/* ---- through the session: a perf.data with an anonymous executable
 * mapping of process 4242, samples of its thread 4250 in it and one at an
 * address in no mapping, which the map covers too (perf: [unknown]) ---- */

struct got {
	char names[8][64];
	char dsos[8][64];
	int n;
};

static int on_sample(const struct pk_sample *s, void *arg)
{
	struct got *g = arg;

	assert_int_equal(s->tid, 4250);
	assert_true(s->nr_frames >= 1);
	if (g->n < 8) {
		snprintf(g->names[g->n], 64, "%s", s->frames[0].sym ? s->frames[0].sym : "[unknown]");
		snprintf(g->dsos[g->n], 64, "%s", s->frames[0].dso);
		g->n++;
	}
	return 0;
}

static void test_session(void **state)
{
	const uint64_t ips[] = { 0x7f3a10001010, 0x7f3a10001085, 0x7f3a100010df, 0x7f3a100010e0,
				 0x7f3a20000010 };
	const char *names[] = { "cpu-clock" };
	struct perf_event_attr attr;
	struct pd_writer *w;
	struct session *s;
	struct got g = { .n = 0 };
	char path[128];
	const char *map = "/tmp/perf-4242.map";

	(void)state;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD;
	attr.sample_period = 1000;
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	assert_int_equal(pd_writer_open(&w, path, &attr, names, 1), 0);
	{   /* PERF_RECORD_MMAP: pid, tid, start, len, pgoff, "//anon" */
		uint8_t rec[8 + 8 + 24 + 8];
		struct perf_event_header h = { PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, sizeof(rec) };
		uint32_t pt[2] = { 4242, 4250 };
		uint64_t v[3] = { 0x7f3a10000000, 0x10000, 0 };

		memset(rec, 0, sizeof(rec));
		memcpy(rec, &h, 8);
		memcpy(rec + 8, pt, 8);
		memcpy(rec + 16, v, 24);
		memcpy(rec + 40, "//anon", 6);
		assert_int_equal(pd_writer_write(w, rec, sizeof(rec)), 0);
	}
	for (size_t i = 0; i < 5; i++) {
		uint8_t rec[32];
		struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 32 };
		uint32_t pt[2] = { 4242, 4250 };
		uint64_t period = 1000;

		memcpy(rec, &h, 8);
		memcpy(rec + 8, &ips[i], 8);
		memcpy(rec + 16, pt, 8);
		memcpy(rec + 24, &period, 8);
		assert_int_equal(pd_writer_write(w, rec, sizeof(rec)), 0);
	}
	assert_int_equal(pd_writer_finish(w), 0);
	write_map(map, "w", MAP);
	write_map(map, "a", "7f3a20000000 100 not this\n");   /* no mapping there */
	assert_int_equal(session_open(&s, path, NULL), 0);
	assert_int_equal(session_process(s, on_sample, &g), 0);
	session_close(s);

	/* folded: ';' inside a name made safe, unknown addresses under the map */
	struct collapse_opts co;
	struct folded f;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	memset(&co, 0, sizeof(co));
	folded_init(&f);
	assert_int_equal(collapse_file(path, &co, &f), 0);
	assert_int_equal(folded_write(&f, mem), 0);
	fclose(mem);
	folded_release(&f);
	assert_non_null(strstr(buf, ";Lcom/example/Foo:::bar 1000\n"));
	assert_non_null(strstr(buf, ";Interpreted: RegExp:[&<>\"'] 1000\n"));
	assert_non_null(strstr(buf, ";stub <adapter> 1000\n"));
	assert_non_null(strstr(buf, ";[perf-4242.map] 1000\n"));
	assert_non_null(strstr(buf, ";[unknown] 1000\n"));
	assert_null(strstr(buf, "not this"));
	free(buf);
	unlink(map);
	assert_int_equal(g.n, 5);
	assert_string_equal(g.names[0], "Lcom/example/Foo;::bar");
	assert_string_equal(g.names[1], "Interpreted: RegExp:[&<>\"']");
	assert_string_equal(g.names[2], "stub <adapter>");
	assert_string_equal(g.names[3], "[unknown]");
	for (int i = 0; i < 4; i++)
		assert_string_equal(g.dsos[i], map);
	assert_string_equal(g.names[4], "[unknown]");
	assert_string_equal(g.dsos[4], "[unknown]");
}

/* perf's "[JIT] tid PID" for a JIT map's path (dsos.c) */
static void test_path_pid(void **state)
{
	unsigned pid = 0;

	(void)state;
	assert_true(perfmap_path_pid("/tmp/perf-4720.map", &pid));
	assert_int_equal(pid, 4720);
	assert_true(perfmap_path_pid("/x/y/perf-1.map", &pid));
	assert_int_equal(pid, 1);
	assert_false(perfmap_path_pid("/tmp/perf-.map", &pid));
	assert_false(perfmap_path_pid("/tmp/perf-12.map.old", &pid));
	assert_false(perfmap_path_pid("/tmp/perf-12x.map", &pid));
	assert_false(perfmap_path_pid("/tmp/perf-99999999999.map", &pid));
	assert_false(perfmap_path_pid("perf-12.map", &pid));
	assert_false(perfmap_path_pid("//anon", &pid));
	assert_false(perfmap_path_pid(NULL, &pid));

	char buf[32] = "x";

	assert_true(perfmap_jit_name("/tmp/perf-4720.map", buf, sizeof(buf)));
	assert_string_equal(buf, "[JIT] tid 4720");
	assert_false(perfmap_jit_name("//anon", buf, sizeof(buf)));
	assert_string_equal(buf, "[JIT] tid 4720");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_session),
		cmocka_unit_test(test_path_pid),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
