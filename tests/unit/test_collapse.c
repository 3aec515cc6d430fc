/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the collapse paths (src/lib/stack/collapse.c, folded.c):
 *  - folded_merge, which joins the stacks of the parallel parse: frame ids
 *    of the two aggregators differ and must be mapped by text;
 *  - the parallel parse of a large perf script file against the one-thread
 *    parse of the same bytes: the same folded output and the same warnings
 *    (line numbers of the later pieces included);
 *  - perf.data -> folded (and -> the tree of names, collapse_file_tree):
 *    a perf.data written here (pd_writer) whose
 *    samples point into this program's own functions, collapsed to exact
 *    folded lines, with --pid, --count, --max-stack and the event filter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "perfdata/perfdata.h"
#include "format/collapse.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "%s/%s", tmpdir, name);
	return buf;
}

static char *dump(const struct folded *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(folded_write(f, m), 0);
	fclose(m);
	return buf;
}

/* ---- folded_merge ---- */

static void test_merge_remaps(void **state)
{
	struct folded a, b, all;

	(void)state;
	folded_init(&a);
	folded_init(&b);
	folded_init(&all);
	/* a interns main, x, y; b interns y, z, main: the same texts get other
	 * ids in each, and b has frames a never saw */
	const char *sa[] = { "main;x", "main;x;y", "main" };
	const char *sb[] = { "y;z", "main;x;y", "main;z", "q" };
	uint64_t ca[] = { 3, 5, 1 }, cb[] = { 7, 11, 2, 13 };
	for (int i = 0; i < 3; i++) {
		folded_add_stack(&a, sa[i], strlen(sa[i]), ca[i]);
		folded_add_stack(&all, sa[i], strlen(sa[i]), ca[i]);
	}
	for (int i = 0; i < 4; i++) {
		folded_add_stack(&b, sb[i], strlen(sb[i]), cb[i]);
		folded_add_stack(&all, sb[i], strlen(sb[i]), cb[i]);
	}
	folded_add_stack_frac(&b, "main;x", 6, 0.25);
	folded_add_stack_frac(&all, "main;x", 6, 0.25);
	folded_merge(&a, &b);
	char *got = dump(&a), *want = dump(&all);
	assert_string_equal(got, want);
	assert_string_equal(got, "main 1\nmain;x 3.25\nmain;x;y 16\nmain;z 2\nq 13\ny;z 7\n");
	assert_int_equal(folded_nr(&a), 6);
	/* merging into an empty aggregator copies */
	struct folded e;
	folded_init(&e);
	folded_merge(&e, &all);
	char *copy = dump(&e);
	assert_string_equal(copy, want);
	free(got);
	free(want);
	free(copy);
	folded_release(&a);
	folded_release(&b);
	folded_release(&all);
	folded_release(&e);
}

/* ---- parallel parse against one thread ---- */

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* About 8 MB of perf script text (8 of collapse.c's 1 MiB blocks, shared
 * among the workers): 40 processes, stacks of 1..12 frames
 * drawn from 3000 functions, periods; one "instructions" sample in 50 (the
 * first event is cycles, so they are dropped with a warning), an
 * unrecognized line now and then, and CRLF line ends in a stretch. */
static void make_text(struct strbuf *sb)
{
	uint64_t s = 12345;
	size_t i = 0;

	while (sb->len < (8u << 20)) {
		int depth = 1 + (int)(lcg(&s) % 12);
		int crlf = (i / 5000) % 7 == 3;
		const char *nl = crlf ? "\r\n" : "\n";
		const char *ev = i && lcg(&s) % 50 == 0 ? "instructions" : "cycles";

		sb_addf(sb, "proc%d %d [%03d] %zu.%06zu: %llu %s:%s", (int)(lcg(&s) % 40),
			1000 + (int)(lcg(&s) % 40), (int)(i % 4), i / 1000, i % 1000000,
			(unsigned long long)(1 + lcg(&s) % 1000), ev, nl);
		for (int d = 0; d < depth; d++)
			sb_addf(sb, "\t%llx fn_%d+0x%x (/usr/lib/libx%d.so)%s",
				(unsigned long long)(0x400000 + lcg(&s) % 100000),
				(int)(lcg(&s) % 3000), (unsigned)(lcg(&s) % 256), d % 3, nl);
		if (lcg(&s) % 5000 == 0)
			sb_addf(sb, "\tNOT A FRAME LINE%s", nl);
		sb_addstr(sb, nl);
		i++;
	}
}

static void test_parallel_same_as_serial(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct collapse_opts o = { 0 }, opid = { .pid = true };
	const char *path = tmp_path("big.script");

	(void)state;
	make_text(&text);
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(text.buf, 1, text.len, fp), text.len);
	fclose(fp);

	const struct collapse_opts *opts[] = { &o, &opid };
	for (int k = 0; k < 2; k++) {
		struct folded one, par;

		folded_init(&one);
		folded_init(&par);
		pk_warnings_take();
		assert_int_equal(collapse_text(text.buf, text.len, path, opts[k], &one), 0);
		char *w1 = strdup(pk_warnings_take());
		assert_int_equal(collapse_file(path, opts[k], &par), 0);
		char *w2 = strdup(pk_warnings_take());
		char *a = dump(&one), *b = dump(&par);

		assert_true(folded_nr(&one) > 10000);
		assert_int_equal(folded_nr(&one), folded_nr(&par));
		assert_true(strlen(a) == strlen(b));
		assert_true(strcmp(a, b) == 0);
		/* the dropped events and the bad lines, with the same line numbers */
		assert_non_null(strstr(w1, "instructions"));
		assert_non_null(strstr(w1, "unrecognized line"));
		assert_string_equal(w1, w2);
		free(a);
		free(b);
		free(w1);
		free(w2);
		folded_release(&one);
		folded_release(&par);
	}
	unlink(path);
	sb_release(&text);
}

/* ---- perf.data -> folded ---- */

__attribute__((noinline)) int collapse_test_leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int collapse_test_mid(int x)
{
	return collapse_test_leaf(x) + 1;
}

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
	    PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

static void put64(struct strbuf *sb, uint64_t v)
{
	sb_add(sb, &v, 8);
}

static void put32(struct strbuf *sb, uint32_t v)
{
	sb_add(sb, &v, 4);
}

static size_t rec_begin(struct strbuf *sb, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { type, misc, 0 };
	size_t start = sb->len;

	sb_add(sb, &h, sizeof(h));
	return start;
}

/* pad, add the sample_id trailer (TID, TIME, ID) and set the size */
static void rec_end(struct strbuf *sb, size_t start, uint32_t pid, uint32_t tid, uint64_t time)
{
	while ((sb->len - start) % 8)
		sb_addch(sb, 0);
	put32(sb, pid);
	put32(sb, tid);
	put64(sb, time);
	put64(sb, 1);
	((struct perf_event_header *)(sb->buf + start))->size = (uint16_t)(sb->len - start);
}

static void add_str(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s) + 1);
}

static void comm(struct strbuf *d, uint32_t pid, uint32_t tid, const char *name, uint64_t t)
{
	size_t s = rec_begin(d, PERF_RECORD_COMM, 0);

	put32(d, pid);
	put32(d, tid);
	add_str(d, name);
	rec_end(d, s, pid, tid, t);
}

static void mmap2(struct strbuf *d, uint32_t pid, uint64_t start, uint64_t len, const char *file,
		  uint64_t t)
{
	size_t s = rec_begin(d, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);

	put32(d, pid);
	put32(d, pid);
	put64(d, start);
	put64(d, len);
	put64(d, 0);                   /* pgoff */
	for (int i = 0; i < 3; i++)
		put64(d, 0);           /* maj, min, ino, ino_generation */
	put32(d, 5);                   /* prot */
	put32(d, 2);                   /* flags */
	add_str(d, file);
	rec_end(d, s, pid, pid, t);
}

static void sample(struct strbuf *d, uint64_t id, uint32_t pid, uint32_t tid, uint64_t t,
		   uint64_t period, const uint64_t *chain, size_t nr)
{
	size_t s = rec_begin(d, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);

	put64(d, chain[1]);            /* ip: the first frame after the context */
	put32(d, pid);
	put32(d, tid);
	put64(d, t);
	put64(d, id);
	put64(d, period);
	put64(d, nr);
	for (size_t i = 0; i < nr; i++)
		put64(d, chain[i]);
	((struct perf_event_header *)(d->buf + s))->size = (uint16_t)(d->len - s);
}

static char *collapse_path(const char *path, const struct collapse_opts *o)
{
	struct folded f;

	folded_init(&f);
	assert_int_equal(collapse_file(path, o, &f), 0);
	char *out = dump(&f);
	folded_release(&f);
	return out;
}

/* a tree's stacks as "name;name COUNT" lines */
struct tree_text {
	const struct folded *names;
	char *lines[16];
	size_t nr;
};

static int tree_line(void *arg, const uint32_t *ids, size_t n, const struct prof_nnode *end)
{
	struct tree_text *tt = arg;
	struct strbuf sb = STRBUF_INIT;

	assert_true(tt->nr < 16);
	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_addch(&sb, ';');
		sb_addstr(&sb, folded_frame_name(tt->names, ids[i], NULL));
	}
	sb_addf(&sb, " %llu", (unsigned long long)end->period);
	tt->lines[tt->nr++] = sb_detach(&sb, NULL);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_perfdata_to_folded(void **state)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	Dl_info li, mi;
	uint64_t base = 0x7f0000000000ULL;
	struct strbuf d = STRBUF_INIT;
	struct perf_event_attr attrs[2];
	const char *names[] = { "cpu-clock", "page-faults" };
	struct pd_writer *w;

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	assert_true(dladdr((void *)collapse_test_leaf, &li) && dladdr((void *)collapse_test_mid, &mi));
	/* the whole executable mapped from file offset 0: file offset ==
	 * vaddr offset for the usual PIE layout (text at p_vaddr == p_offset) */
	uint64_t leaf = base + (uint64_t)((uintptr_t)collapse_test_leaf - (uintptr_t)li.dli_fbase) + 2;
	uint64_t mid = base + (uint64_t)((uintptr_t)collapse_test_mid - (uintptr_t)mi.dli_fbase) + 6;

	comm(&d, 5, 5, "cc", 1);
	comm(&d, 5, 6, "worker 1", 1);      /* a space: '_' in folded output */
	mmap2(&d, 5, base, 0x1000000, exe, 2);
	{
		uint64_t c1[] = { PERF_CONTEXT_USER, leaf, mid };           /* leaf first */
		uint64_t c2[] = { PERF_CONTEXT_USER, mid };
		uint64_t c3[] = { PERF_CONTEXT_USER, base - 0x10000, mid }; /* outside every map */

		sample(&d, 1, 5, 5, 3, 10, c1, 3);
		sample(&d, 1, 5, 5, 4, 30, c1, 3);
		sample(&d, 1, 5, 5, 5, 7, c2, 2);
		sample(&d, 1, 5, 6, 6, 5, c1, 3);
		sample(&d, 1, 5, 5, 7, 1, c3, 3);
		sample(&d, 2, 5, 5, 8, 1000, c1, 3);                        /* page-faults */
	}
	memset(attrs, 0, sizeof(attrs));
	for (int i = 0; i < 2; i++) {
		attrs[i].size = sizeof(attrs[i]);
		attrs[i].type = PERF_TYPE_SOFTWARE;
		attrs[i].config = i ? PERF_COUNT_SW_PAGE_FAULTS : PERF_COUNT_SW_CPU_CLOCK;
		attrs[i].sample_type = ST;
		attrs[i].sample_id_all = 1;
	}
	const char *path = tmp_path("fold.data");
	assert_int_equal(pd_writer_open(&w, path, attrs, names, 2), 0);
	assert_int_equal(pd_writer_add_id(w, 0, 1), 0);
	assert_int_equal(pd_writer_add_id(w, 1, 2), 0);
	assert_int_equal(pd_writer_write(w, d.buf, d.len), 0);
	assert_int_equal(pd_writer_finish(w), 0);
	sb_release(&d);

	struct collapse_opts o = { 0 }, pid = { .pid = true }, cnt = { .count = true },
			     one = { .max_stack = 1 }, pf = { .event_filter = "page-faults" };
	char *out;

	pk_warnings_take();
	out = collapse_path(path, &o);
	assert_string_equal(out,
		"cc;collapse_test_mid 7\n"
		"cc;collapse_test_mid;[unknown] 1\n"
		"cc;collapse_test_mid;collapse_test_leaf 40\n"
		"worker_1;collapse_test_mid;collapse_test_leaf 5\n");
	free(out);
	/* the page-faults sample was dropped, and a warning says so */
	assert_non_null(strstr(pk_warnings_take(), "page-faults"));
	out = collapse_path(path, &pid);
	assert_string_equal(out,
		"cc-5;collapse_test_mid 7\n"
		"cc-5;collapse_test_mid;[unknown] 1\n"
		"cc-5;collapse_test_mid;collapse_test_leaf 40\n"
		"worker_1-5;collapse_test_mid;collapse_test_leaf 5\n");
	free(out);
	out = collapse_path(path, &cnt);
	assert_string_equal(out,
		"cc;collapse_test_mid 1\n"
		"cc;collapse_test_mid;[unknown] 1\n"
		"cc;collapse_test_mid;collapse_test_leaf 2\n"
		"worker_1;collapse_test_mid;collapse_test_leaf 1\n");
	free(out);
	out = collapse_path(path, &one);
	assert_string_equal(out,
		"cc;[unknown] 1\n"
		"cc;collapse_test_leaf 40\n"
		"cc;collapse_test_mid 7\n"
		"worker_1;collapse_test_leaf 5\n");
	free(out);
	out = collapse_path(path, &pf);
	assert_string_equal(out, "cc;collapse_test_mid;collapse_test_leaf 1000\n");
	free(out);

	/* the same stacks as a tree of names (collapse_file_tree): the
	 * folded stacks' nodes, merged by name, in the names' folded */
	struct folded fnames;
	struct prof_names t;
	struct tree_text tt = { .names = &fnames };

	folded_init(&fnames);
	assert_int_equal(collapse_file_tree(path, &o, &fnames, &t, NULL), 0);
	assert_int_equal(folded_nr(&fnames), 0);   /* names only, no stacks */
	assert_true(t.nr > 1);
	assert_int_equal(prof_names_walk(&t, tree_line, &tt), 0);
	qsort(tt.lines, tt.nr, sizeof(tt.lines[0]), cmp_str);
	assert_int_equal(tt.nr, 4);
	assert_string_equal(tt.lines[0], "cc;collapse_test_mid 7");
	assert_string_equal(tt.lines[1], "cc;collapse_test_mid;[unknown] 1");
	assert_string_equal(tt.lines[2], "cc;collapse_test_mid;collapse_test_leaf 40");
	assert_string_equal(tt.lines[3], "worker_1;collapse_test_mid;collapse_test_leaf 5");
	for (size_t i = 0; i < tt.nr; i++)
		free(tt.lines[i]);
	for (size_t i = 1; i < t.nr; i++)   /* siblings named apart */
		for (uint32_t x = t.v[i].next; x != PROF_NONE; x = t.v[x].next)
			assert_int_not_equal(t.v[x].name, t.v[i].name);
	prof_names_free(&t);
	folded_release(&fnames);
	pk_warnings_take();
	unlink(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pk-collapse-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	unlink(tmp_path("big.script"));   /* left by a failed test */
	unlink(tmp_path("fold.data"));
	return rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_remaps),
		cmocka_unit_test(test_parallel_same_as_serial),
		cmocka_unit_test(test_perfdata_to_folded),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
