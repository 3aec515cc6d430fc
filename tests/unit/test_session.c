/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the session model (src/lib/session/session.c): time
 * ordering, fork/comm/exec/thread attribution, callchain frames. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "session/session.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | \
	    PERF_SAMPLE_CALLCHAIN)

static char tmpdir[64];
static char self_exe[4096];

static const char *tmp_path(const char *name)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "%s/%s", tmpdir, name);
	return buf;
}

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

/* pad, add the sample_id trailer (TID, TIME) and set the size */
static void rec_end(struct strbuf *sb, size_t start, uint32_t pid, uint32_t tid, uint64_t time)
{
	while ((sb->len - start) % 8)
		sb_addch(sb, 0);
	put32(sb, pid);
	put32(sb, tid);
	put64(sb, time);
	((struct perf_event_header *)(sb->buf + start))->size = (uint16_t)(sb->len - start);
}

static void add_str(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s) + 1);
}

static void comm(struct strbuf *d, uint32_t pid, uint32_t tid, const char *name, bool exec, uint64_t t)
{
	size_t s = rec_begin(d, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);

	put32(d, pid);
	put32(d, tid);
	add_str(d, name);
	rec_end(d, s, pid, tid, t);
}

static void mmap2(struct strbuf *d, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		  const char *file, uint64_t t)
{
	size_t s = rec_begin(d, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);

	put32(d, pid);
	put32(d, pid);
	put64(d, start);
	put64(d, len);
	put64(d, pgoff);
	for (int i = 0; i < 3; i++)
		put64(d, 0);           /* maj, min, ino, ino_generation */
	put32(d, 5);                   /* prot */
	put32(d, 2);                   /* flags */
	add_str(d, file);
	rec_end(d, s, pid, pid, t);
}

static void fork_rec(struct strbuf *d, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t t)
{
	size_t s = rec_begin(d, PERF_RECORD_FORK, 0);

	put32(d, pid);
	put32(d, ppid);
	put32(d, tid);
	put32(d, ptid);
	put64(d, t);
	rec_end(d, s, pid, tid, t);
}

static void lost(struct strbuf *d, uint64_t n, uint64_t t)
{
	size_t s = rec_begin(d, PERF_RECORD_LOST, 0);

	put64(d, 0);
	put64(d, n);
	rec_end(d, s, 0, 0, t);
}

static void lost_samples(struct strbuf *d, uint64_t n, uint16_t misc, uint64_t t)
{
	size_t s = rec_begin(d, PERF_RECORD_LOST_SAMPLES, misc);

	put64(d, n);
	rec_end(d, s, 0, 0, t);
}

/* A sample; chain (nr entries) may be NULL. */
static void sample(struct strbuf *d, uint16_t misc, uint64_t ip, uint32_t pid, uint32_t tid, uint64_t t,
		   const uint64_t *chain, size_t nr)
{
	size_t s = rec_begin(d, PERF_RECORD_SAMPLE, misc);

	put64(d, ip);
	put32(d, pid);
	put32(d, tid);
	put64(d, t);
	put64(d, 10);                  /* period */
	put64(d, nr);
	for (size_t i = 0; i < nr; i++)
		put64(d, chain[i]);
	((struct perf_event_header *)(d->buf + s))->size = (uint16_t)(d->len - s);
}

static void write_file(const char *path, const struct strbuf *data)
{
	struct strbuf out = STRBUF_INIT;
	struct perf_event_attr a;
	uint64_t entsz = sizeof(a) + 16;
	uint64_t h[13] = { 0x32454c4946524550ULL, 104, entsz, 104, entsz, 104 + entsz, data->len };
	FILE *fp;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = ST;
	a.sample_id_all = 1;
	sb_add(&out, h, sizeof(h));
	sb_add(&out, &a, sizeof(a));
	put64(&out, 0);
	put64(&out, 0);
	sb_add(&out, data->buf, data->len);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(out.buf, 1, out.len, fp), out.len);
	fclose(fp);
	sb_release(&out);
}

/* What a test run saw, one line per sample: "comm pid/tid dso sym|?" for
 * each frame, frames joined by ";". */
struct seen {
	struct strbuf text;
	int n;
};

static int collect(const struct pk_sample *s, void *arg)
{
	struct seen *w = arg;

	sb_addf(&w->text, "%s %u/%u t=%llu", s->comm, s->pid, s->tid, (unsigned long long)s->time);
	for (size_t i = 0; i < s->nr_frames; i++)
		sb_addf(&w->text, "%s%s%s %s", i ? ";" : " ", s->frames[i].kernel ? "k:" : "",
			s->frames[i].dso, s->frames[i].sym ? s->frames[i].sym : "?");
	sb_addch(&w->text, '\n');
	w->n++;
	return 0;
}

static void run(const char *path, struct seen *w, const struct session_opts *o, struct session_stats *st)
{
	struct session *s;

	sb_init(&w->text, 256);
	w->n = 0;
	assert_int_equal(session_open(&s, path, o), 0);
	assert_int_equal(session_process(s, collect, w), 0);
	if (st)
		*st = *session_stats(s);
	session_close(s);
}

/* Fork, exec and threads, with records out of time order in the file. */
static void test_fork_exec_thread(void **state)
{
	struct strbuf d = STRBUF_INIT;
	struct seen w;
	struct session_stats st;

	(void)state;
	comm(&d, 100, 100, "parent", false, 1);
	mmap2(&d, 100, 0x400000, 0x100000, 0, "/nonexistent/parent", 2);
	sample(&d, PERF_RECORD_MISC_USER, 0x400100, 100, 100, 3, NULL, 0);
	fork_rec(&d, 200, 100, 200, 100, 4);
	/* in the file before the exec, in time after it */
	sample(&d, PERF_RECORD_MISC_USER, 0x400100, 200, 200, 8, NULL, 0);
	sample(&d, PERF_RECORD_MISC_USER, 0x400200, 200, 200, 5, NULL, 0);
	comm(&d, 200, 200, "child", true, 6);
	mmap2(&d, 200, 0x400000, 0x1000, 0, "/nonexistent/child", 7);
	sample(&d, PERF_RECORD_MISC_USER, 0x400100, 100, 100, 9, NULL, 0);
	/* a thread of the parent shares its maps, including later ones */
	fork_rec(&d, 100, 100, 101, 100, 10);
	mmap2(&d, 100, 0x600000, 0x1000, 0, "/nonexistent/lib.so", 11);
	sample(&d, PERF_RECORD_MISC_USER, 0x600010, 100, 101, 12, NULL, 0);
	/* the child does not see the parent's new map */
	sample(&d, PERF_RECORD_MISC_USER, 0x600010, 200, 200, 13, NULL, 0);
	lost(&d, 7, 14);
	lost_samples(&d, 9, 0, 15);
	lost_samples(&d, 100, 1u << 15, 16);   /* BPF-filtered: not lost */
	write_file(tmp_path("fork.data"), &d);
	sb_release(&d);

	run(tmp_path("fork.data"), &w, NULL, &st);
	assert_int_equal(w.n, 6);
	assert_string_equal(w.text.buf,
			    "parent 100/100 t=3 /nonexistent/parent ?\n"
			    "parent 200/200 t=5 /nonexistent/parent ?\n"
			    "child 200/200 t=8 /nonexistent/child ?\n"
			    "parent 100/100 t=9 /nonexistent/parent ?\n"
			    "parent 100/101 t=12 /nonexistent/lib.so ?\n"
			    "child 200/200 t=13 [unknown] ?\n");
	assert_int_equal(st.nr_samples, 6);
	assert_int_equal(st.total_period, 60);
	assert_int_equal(st.nr_lost_records, 7);
	assert_int_equal(st.nr_lost, 9);   /* LOST_SAMPLES only, as perf report */
	sb_release(&w.text);
}

/* Samples' times ascending, and n of them. */
static void check_ascending(const struct seen *w, int n)
{
	uint64_t last = 0;

	assert_int_equal(w->n, n);
	for (const char *line = w->text.buf; *line; line = strchr(line, '\n') + 1) {
		uint64_t t = strtoull(strstr(line, "t=") + 2, NULL, 10);

		assert_true(t >= last);
		last = t;
	}
}

/* Records in a few interleaved ascending runs (as from several CPUs' ring
 * buffers: merged), and in many (sorted): replayed in time order either
 * way; a map that appears between two samples at one address changes what
 * the second one resolves to. */
static void test_runs_order(void **state)
{
	struct strbuf d = STRBUF_INIT;
	struct seen w;

	(void)state;
	comm(&d, 1, 1, "p", false, 1);
	for (int k = 0; k < 3; k++)          /* 3 runs: t = 10 + 3i + k */
		for (int i = 0; i < 20; i++)
			sample(&d, PERF_RECORD_MISC_USER, 0x10010, 1, 1, 10 + 3 * (uint64_t)i + (uint64_t)k,
			       NULL, 0);
	mmap2(&d, 1, 0x10000, 0x1000, 0, "/nonexistent/late", 500);
	sample(&d, PERF_RECORD_MISC_USER, 0x10010, 1, 1, 501, NULL, 0);
	write_file(tmp_path("runs.data"), &d);
	sb_release(&d);
	run(tmp_path("runs.data"), &w, NULL, NULL);
	check_ascending(&w, 61);
	assert_non_null(strstr(w.text.buf, "p 1/1 t=10 [unknown] ?\n"));
	assert_non_null(strstr(w.text.buf, "p 1/1 t=69 [unknown] ?\n"));
	assert_non_null(strstr(w.text.buf, "p 1/1 t=501 /nonexistent/late ?\n"));
	sb_release(&w.text);

	comm(&d, 1, 1, "p", false, 1);
	for (int i = 0; i < 80; i++)         /* 40 runs of 2 */
		sample(&d, PERF_RECORD_MISC_USER, 0x10010, 1, 1, 200 + (uint64_t)(79 - i + (i % 2) * 2),
		       NULL, 0);
	write_file(tmp_path("runs2.data"), &d);
	sb_release(&d);
	run(tmp_path("runs2.data"), &w, NULL, NULL);
	check_ascending(&w, 80);
	sb_release(&w.text);
}

/* An mmap over part of an older one splits it. */
static void test_map_overlap(void **state)
{
	struct strbuf d = STRBUF_INIT;
	struct seen w;

	(void)state;
	comm(&d, 1, 1, "p", false, 1);
	mmap2(&d, 1, 0x10000, 0x30000, 0, "/nonexistent/a", 2);
	mmap2(&d, 1, 0x20000, 0x10000, 0, "/nonexistent/b", 3);
	sample(&d, PERF_RECORD_MISC_USER, 0x10010, 1, 1, 4, NULL, 0);
	sample(&d, PERF_RECORD_MISC_USER, 0x20010, 1, 1, 5, NULL, 0);
	sample(&d, PERF_RECORD_MISC_USER, 0x30010, 1, 1, 6, NULL, 0);
	sample(&d, PERF_RECORD_MISC_USER, 0x40010, 1, 1, 7, NULL, 0);
	write_file(tmp_path("overlap.data"), &d);
	sb_release(&d);
	run(tmp_path("overlap.data"), &w, NULL, NULL);
	assert_string_equal(w.text.buf,
			    "p 1/1 t=4 /nonexistent/a ?\n"
			    "p 1/1 t=5 /nonexistent/b ?\n"
			    "p 1/1 t=6 /nonexistent/a ?\n"
			    "p 1/1 t=7 [unknown] ?\n");
	sb_release(&w.text);
}

__attribute__((noinline)) int session_test_marker(int x)
{
	return x * 3 + 1;
}

/* Callchains: context markers are not frames, the leaf is not doubled,
 * kernel frames go to [kernel.kallsyms], user frames resolve through the
 * maps to real symbols (this test program's own). */
static void test_callchain(void **state)
{
	struct strbuf d = STRBUF_INIT;
	struct seen w;
	Dl_info info;
	uint64_t off, base = 0x7f0000000000ULL;
	uint64_t kip = 0xffffffff81000010ULL;
	struct session_opts o = { .max_stack = 2 };

	(void)state;
	assert_true(dladdr((void *)session_test_marker, &info) != 0);
	off = (uint64_t)((uintptr_t)session_test_marker - (uintptr_t)info.dli_fbase) + 4;
	comm(&d, 5, 5, "cc", false, 1);
	/* the whole executable mapped from file offset 0: file_off == vaddr
	 * offset for the usual PIE layout (text at p_vaddr == p_offset) */
	mmap2(&d, 5, base, 0x1000000, 0, self_exe, 2);
	/* the kernel's text, as perf record writes it (pid -1): where the
	 * kernel's maps start */
	mmap2(&d, (uint32_t)-1, 0xffffffff81000000ULL, 0x1000000, 0xffffffff81000000ULL, "[kernel.kallsyms]_text", 2);
	{
		uint64_t chain[] = { PERF_CONTEXT_USER, base + off, base + 0xfffff0 };

		sample(&d, PERF_RECORD_MISC_USER, base + off, 5, 5, 3, chain, 3);
	}
	{
		uint64_t chain[] = { PERF_CONTEXT_KERNEL, kip, kip + 8, PERF_CONTEXT_USER, base + off };

		sample(&d, PERF_RECORD_MISC_KERNEL, kip, 5, 5, 4, chain, 5);
	}
	{   /* a stray kernel context word in a user chain: the user address
	     * after it is below the kernel's maps, [unknown] as perf's, not
	     * [kernel.kallsyms] */
		uint64_t chain[] = { PERF_CONTEXT_USER, base + off, PERF_CONTEXT_KERNEL, 0x5555deadbee0ULL };

		sample(&d, PERF_RECORD_MISC_USER, base + off, 5, 5, 5, chain, 4);
	}
	write_file(tmp_path("cc.data"), &d);
	sb_release(&d);

	run(tmp_path("cc.data"), &w, NULL, NULL);
	assert_int_equal(w.n, 3);
	{
		const char *l3 = strstr(w.text.buf, "cc 5/5 t=5 ");

		assert_non_null(l3);
		assert_non_null(strstr(l3, ";k:[unknown] "));
		assert_null(strstr(l3, "kallsyms"));
	}
	{
		char *l1 = w.text.buf, *l2 = strchr(l1, '\n') + 1;
		char want[2 * sizeof(self_exe) + 64];

		snprintf(want, sizeof(want), "cc 5/5 t=3 %s session_test_marker;%s ", self_exe, self_exe);
		assert_memory_equal(l1, want, strlen(want));
		assert_non_null(strstr(l2, " k:[kernel.kallsyms] "));
		assert_int_equal(strncmp(l2, "cc 5/5 t=4 k:[kernel.kallsyms]", 30), 0);
		snprintf(want, sizeof(want), ";%s session_test_marker\n", self_exe);
		assert_non_null(strstr(l2, want));
		/* two kernel frames, one user frame: three frames, two ';' */
		const char *third = strchr(strchr(strchr(l2, ';') + 1, ';') + 1, ';');

		assert_true(!third || third > strchr(l2, '\n'));
	}
	sb_release(&w.text);

	run(tmp_path("cc.data"), &w, &o, NULL);
	/* max_stack 2: the kernel sample keeps its two kernel frames only */
	assert_null(strstr(w.text.buf, "t=4 k:[kernel.kallsyms] ?;k:[kernel.kallsyms] ?;"));
	sb_release(&w.text);

	/* counts_only (report --stats): every sample, in the file's order,
	 * with no frame or thread resolved; the records counted alike */
	struct session_opts co = { .counts_only = true };
	struct session_stats all, counted;

	run(tmp_path("cc.data"), &w, NULL, &all);
	sb_release(&w.text);
	run(tmp_path("cc.data"), &w, &co, &counted);
	assert_int_equal(w.n, 3);
	assert_string_equal(w.text.buf, "(null) 5/5 t=3\n(null) 5/5 t=4\n(null) 5/5 t=5\n");
	assert_int_equal(counted.nr_samples, all.nr_samples);
	assert_int_equal(counted.total_period, all.total_period);
	assert_memory_equal(counted.nr_by_type, all.nr_by_type, sizeof(all.nr_by_type));
	sb_release(&w.text);
}

/* A sample for a thread never announced: comm ":tid", dso [unknown];
 * pid 0 is the idle task, "swapper". */
static void test_unknown_thread(void **state)
{
	struct strbuf d = STRBUF_INIT;
	struct seen w;

	(void)state;
	sample(&d, PERF_RECORD_MISC_USER, 0x1234, 77, 78, 1, NULL, 0);
	sample(&d, PERF_RECORD_MISC_USER, 0x1234, 0, 0, 2, NULL, 0);
	write_file(tmp_path("unk.data"), &d);
	sb_release(&d);
	run(tmp_path("unk.data"), &w, NULL, NULL);
	assert_string_equal(w.text.buf, ":78 77/78 t=1 [unknown] ?\nswapper 0/0 t=2 [unknown] ?\n");
	sb_release(&w.text);

	/* a thread no FORK or COMM named is ":TID" even when its leader has
	 * a name (perf's thread__init_maps shares the leader's maps, not its
	 * comm); a sample's tid -1 is ":-1" (perf's ":%d") */
	comm(&d, 80, 80, "leader", false, 1);
	sample(&d, PERF_RECORD_MISC_USER, 0x1234, 80, 81, 2, NULL, 0);
	sample(&d, PERF_RECORD_MISC_USER, 0x1234, (uint32_t)-1, (uint32_t)-1, 3, NULL, 0);
	write_file(tmp_path("unk2.data"), &d);
	sb_release(&d);
	run(tmp_path("unk2.data"), &w, NULL, NULL);
	assert_string_equal(w.text.buf, ":81 80/81 t=2 [unknown] ?\n:-1 4294967295/4294967295 t=3 [unknown] ?\n");
	sb_release(&w.text);
}

/* session_set_side_fn: the side-band records asked for, in time order
 * among the samples, each with its task's name as perf script shows it */
static int side_collect(const struct pk_side_event *e, void *arg)
{
	struct seen *w = arg;

	sb_addf(&w->text, "%s %u/%u t=%llu type=%u", e->comm, e->s_pid, e->s_tid, (unsigned long long)e->time,
		e->type);
	if (e->name)
		sb_addf(&w->text, " name=%s%s", e->name, e->exec ? " exec" : "");
	if (e->type == PERF_RECORD_FORK || e->type == PERF_RECORD_EXIT)
		sb_addf(&w->text, " %u:%u<-%u:%u", e->pid, e->tid, e->ppid, e->ptid);
	sb_addch(&w->text, '\n');
	return 0;
}

static void test_side_events(void **state)
{
	struct strbuf d = STRBUF_INIT;
	struct seen w;
	struct session *s;

	(void)state;
	comm(&d, 100, 100, "parent", false, 1);
	fork_rec(&d, 200, 100, 200, 100, 3);
	sample(&d, PERF_RECORD_MISC_USER, 0x1234, 200, 200, 4, NULL, 0);
	comm(&d, 200, 200, "child", true, 5);
	/* the parent of 300 has no name yet: the child keeps its own ":300"
	 * (perf's thread__fork copies a parent's name only once it has one) */
	fork_rec(&d, 300, 400, 300, 400, 6);
	sample(&d, PERF_RECORD_MISC_USER, 0x1234, 300, 300, 7, NULL, 0);
	mmap2(&d, 200, 0x400000, 0x1000, 0, "/nonexistent/child", 2);   /* in time before the fork */
	write_file(tmp_path("side.data"), &d);
	sb_release(&d);

	sb_init(&w.text, 256);
	w.n = 0;
	assert_int_equal(session_open(&s, tmp_path("side.data"), NULL), 0);
	session_set_side_fn(s, 1u << PERF_RECORD_COMM | 1u << PERF_RECORD_FORK | 1u << PERF_RECORD_MMAP2,
			    side_collect, &w);
	assert_int_equal(session_process(s, collect, &w), 0);
	session_close(s);
	assert_string_equal(w.text.buf,
			    "parent 100/100 t=1 type=3 name=parent\n"
			    ":200 200/200 t=2 type=10 name=/nonexistent/child\n"
			    "parent 200/200 t=3 type=7 200:200<-100:100\n"
			    "parent 200/200 t=4 [unknown] ?\n"
			    "child 200/200 t=5 type=3 name=child exec\n"
			    ":300 300/300 t=6 type=7 300:300<-400:400\n"
			    ":300 300/300 t=7 [unknown] ?\n");
	sb_release(&w.text);
}

/* A callback's non-zero value stops the walk and is returned. */
static int stop_at_first(const struct pk_sample *s, void *arg)
{
	(void)s;
	++*(int *)arg;
	return 42;
}

static void test_stop(void **state)
{
	struct session *s;
	int calls = 0;

	(void)state;
	assert_int_equal(session_open(&s, tmp_path("unk.data"), NULL), 0);
	assert_int_equal(session_process(s, stop_at_first, &calls), 42);
	assert_int_equal(calls, 1);
	session_close(s);
	assert_true(session_open(&s, tmp_path("missing.data"), NULL) < 0);
}

static int setup(void **state)
{
	ssize_t n;

	(void)state;
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0)
		return -1;
	self_exe[n] = '\0';
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pk-session-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* The entries a whole user stack ends in (broken frame-pointer chains). */
static void test_sym_is_entry(void **state)
{
	(void)state;
	assert_true(session_sym_is_entry("_start"));
	assert_true(session_sym_is_entry("__libc_start_main"));
	assert_true(session_sym_is_entry("__libc_start_main@@GLIBC_2.34"));
	assert_true(session_sym_is_entry("__libc_start_main_impl"));
	assert_true(session_sym_is_entry("__libc_start_call_main"));
	assert_true(session_sym_is_entry("clone3"));
	assert_true(session_sym_is_entry("__clone3"));
	assert_true(session_sym_is_entry("start_thread"));
	assert_true(session_sym_is_entry("runtime.goexit"));
	assert_false(session_sym_is_entry("main"));
	assert_false(session_sym_is_entry("msort_with_tmp.part.0"));
	assert_false(session_sym_is_entry("_start_helper"));
	assert_false(session_sym_is_entry(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fork_exec_thread),
		cmocka_unit_test(test_map_overlap),
		cmocka_unit_test(test_runs_order),
		cmocka_unit_test(test_callchain),
		cmocka_unit_test(test_sym_is_entry),
		cmocka_unit_test(test_unknown_thread),
		cmocka_unit_test(test_side_events),
		cmocka_unit_test(test_stop),
	};

	return cmocka_run_group_tests_name("session", tests, setup, teardown);
}
