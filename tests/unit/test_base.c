/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/base: strbuf (growth, escaping), hashmap, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/hashmap.h"
#include "base/kvsort.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "base/thread.h"

static void test_strbuf_grow(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb.buf, "");
	for (int i = 0; i < 10000; i++)
		sb_addch(&sb, 'a' + i % 26);
	assert_int_equal(sb.len, 10000);
	assert_int_equal(sb.buf[10000], '\0');
	sb_reset(&sb);
	sb_addf(&sb, "%d-%s-%.1f", 42, "x", 1.5);
	assert_string_equal(sb.buf, "42-x-1.5");
	/* a formatted string longer than the initial headroom */
	char big[300];
	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	sb_addf(&sb, "[%s]", big);
	assert_int_equal(sb.len, 8 + 2 + 299);
	size_t len;
	char *s = sb_detach(&sb, &len);
	assert_int_equal(len, 309);
	assert_int_equal(sb.len, 0);
	free(s);
}

static void xml(const char *in, size_t n, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	sb_add_xml(&sb, in, n);
	assert_string_equal(sb.buf, want);
	sb_release(&sb);
}

/* xrelease: the whole pages inside the range read as zero afterwards (the
 * kernel took them back); the bytes around them, in partial pages, stay */
static void test_xrelease(void **state)
{
	(void)state;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 64 * page;
	unsigned char *p = aligned_alloc(page, n);
	size_t from = 3 * page + 100, to = 40 * page + 5;

	assert_non_null(p);
	memset(p, 0xab, n);
	xrelease(p, from, to);
	assert_int_equal(p[from], 0xab);              /* partial first page kept */
	assert_int_equal(p[4 * page - 1], 0xab);
	assert_int_equal(p[4 * page], 0);             /* whole pages released */
	assert_int_equal(p[40 * page - 1], 0);
	assert_int_equal(p[40 * page], 0xab);         /* partial last page kept */
	assert_int_equal(p[0], 0xab);
	assert_int_equal(p[n - 1], 0xab);
	xrelease(p, to, from);                        /* empty range: nothing */
	xrelease(p, 5, 10);                           /* no whole page: nothing */
	assert_int_equal(p[5], 0xab);
	free(p);
}

static void test_xml_escape(void **state)
{
	(void)state;
	xml("<script>alert(1)</script>", 25, "&lt;script&gt;alert(1)&lt;/script&gt;");
	xml("a&b \"q\" 'a'", 11, "a&amp;b &quot;q&quot; &apos;a&apos;");
	/* valid UTF-8 kept: é (2 bytes), € (3), 😀 (4) */
	xml("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	/* invalid bytes, truncated sequence, overlong, surrogate → U+FFFD each byte */
	xml("a\xff" "b", 3, "a\xef\xbf\xbd" "b");
	xml("\xe2\x82", 2, "\xef\xbf\xbd\xef\xbf\xbd");
	xml("\xc0\xaf", 2, "\xef\xbf\xbd\xef\xbf\xbd");
	xml("\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	/* control characters are not allowed in XML 1.0 */
	xml("a\x01\x1b" "b\t", 5, "a\xef\xbf\xbd\xef\xbf\xbd" "b\t");
	/* embedded NUL */
	xml("a\0b", 3, "a\xef\xbf\xbd" "b");
}

static void test_json_escape(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	sb_add_json(&sb, "a\"b\\c\n\x01", 7);
	assert_string_equal(sb.buf, "a\\\"b\\\\c\\u000a\\u0001");
	sb_reset(&sb);
	sb_add_json(&sb, "\xff", 1);
	assert_string_equal(sb.buf, "\xef\xbf\xbd");
	sb_release(&sb);
}

static void test_hashmap(void **state)
{
	struct hashmap m;
	char key[32];
	int created;

	(void)state;
	hm_init(&m);
	for (int i = 0; i < 100000; i++) {
		int n = snprintf(key, sizeof(key), "frame_%d", i);
		struct hm_entry *e = hm_upsert(&m, key, (size_t)n, &created);
		assert_true(created);
		e->val.u = (uint64_t)i * 3;
	}
	assert_int_equal(m.nr, 100000);
	for (int i = 0; i < 100000; i += 7) {
		int n = snprintf(key, sizeof(key), "frame_%d", i);
		struct hm_entry *e = hm_find(&m, key, (size_t)n);
		assert_non_null(e);
		assert_int_equal(e->val.u, (uint64_t)i * 3);
		hm_upsert(&m, key, (size_t)n, &created);
		assert_false(created);
	}
	assert_null(hm_find(&m, "frame_100000", 12));
	/* insertion order is kept */
	assert_string_equal(m.entries[0].key, "frame_0");
	assert_string_equal(m.entries[99999].key, "frame_99999");
	/* interning: same pointer for equal strings; keys may contain NUL */
	const char *a = hm_intern(&m, "x\0y", 3), *b = hm_intern(&m, "x\0y", 3);
	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, hm_intern(&m, "x", 1));
	hm_release(&m);
}

/* hm_reserve: room made once, the entries found after it and after
 * the keys it had (a reserve on a map holding keys rehashes them) */
static void test_hashmap_reserve(void **state)
{
	struct hashmap m;
	char key[32];
	int created;

	(void)state;
	hm_init(&m);
	hm_upsert(&m, "before", 6, &created)->val.u = 7;
	hm_reserve(&m, 5000);
	const uint64_t *slots = m.slots;
	const struct hm_entry *entries = m.entries;

	assert_true(m.alloc >= 5001);
	assert_true(5001 * 10 < m.nslots * 7);
	for (int i = 0; i < 5000; i++) {
		int n = snprintf(key, sizeof(key), "sym_%d", i);

		hm_upsert(&m, key, (size_t)n, &created)->val.u = (uint64_t)i;
		assert_true(created);
	}
	assert_ptr_equal(slots, m.slots);   /* no growth */
	assert_ptr_equal(entries, m.entries);
	assert_int_equal(hm_find(&m, "before", 6)->val.u, 7);
	assert_int_equal(hm_find(&m, "sym_4999", 8)->val.u, 4999);
	hm_reserve(&m, 0);   /* nothing to do */
	assert_ptr_equal(slots, m.slots);
	hm_release(&m);
}

/* pk_kv_sort: ascending keys whatever their bytes, equal keys in their
 * first order, keys alike left as they are */
static void test_kv_sort(void **state)
{
	struct pk_kv v[2000];
	uint64_t x = 88172645463325252ull;

	(void)state;
	for (size_t i = 0; i < 2000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* few distinct keys (ties), spread over the low and high bytes */
		v[i] = (struct pk_kv){ (x % 7) << 56 | (x % 5) << 8 | (x % 3), i };
	}
	pk_kv_sort(v, 2000);
	for (size_t i = 1; i < 2000; i++) {
		assert_true(v[i - 1].k <= v[i].k);
		if (v[i - 1].k == v[i].k)
			assert_true(v[i - 1].v < v[i].v);   /* stable */
	}
	for (size_t i = 0; i < 10; i++)
		v[i] = (struct pk_kv){ 42, 9 - i };
	pk_kv_sort(v, 10);
	for (size_t i = 0; i < 10; i++)
		assert_int_equal(v[i].v, 9 - i);
	pk_kv_sort(v, 0);
}

static void test_error(void **state)
{
	(void)state;
	pk_error_clear();
	assert_string_equal(pk_errmsg(), "unknown error");
	assert_int_equal(pk_error(22, "%s: bad magic at offset %d", "f", 0), -22);
	assert_string_equal(pk_errmsg(), "f: bad magic at offset 0");
	pk_warn("one %d", 1);
	pk_warn("two");
	pk_warn("one %d", 1);   /* said already: once */
	pk_warn("one");         /* a line that begins another is its own */
	pk_warn("tw");
	/* peek: the same text, still queued */
	assert_string_equal(pk_warnings_peek(), "one 1\ntwo\none\ntw");
	assert_string_equal(pk_warnings_take(), "one 1\ntwo\none\ntw");
	assert_string_equal(pk_warnings_take(), "");
	assert_string_equal(pk_warnings_peek(), "");
	/* untrusted text in a message (a path, a line of a file): no byte
	 * of it drives the terminal or splits the line */
	pk_error(22, "unrecognised line '%s'", "\033]0;pwned\007\033[2J");
	assert_string_equal(pk_errmsg(), "unrecognised line '\\x1b]0;pwned\\x07\\x1b[2J'");
	pk_warn("%s: missing", "/bin/ev\033[32mil\nnl");
	pk_warn("next");
	assert_string_equal(pk_warnings_take(), "/bin/ev\\x1b[32mil\\x0anl: missing\nnext");
}

/* pk_open_regular: a regular file opens; a FIFO is refused at once
 * (never waited on), a directory too, a missing file with ENOENT */
static void test_open_regular(void **state)
{
	char dir[] = "/tmp/pk-reg.XXXXXX", f[64], fifo[64];
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(f, sizeof(f), "%s/f", dir);
	snprintf(fifo, sizeof(fifo), "%s/p", dir);
	fd = open(f, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	fd = pk_open_regular(f);
	assert_true(fd >= 0);
	assert_false(fcntl(fd, F_GETFL) & O_NONBLOCK);
	close(fd);
	errno = 0;
	assert_int_equal(pk_open_regular(fifo), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pk_open_regular(dir), -1);
	assert_int_equal(pk_open_regular("/nonexistent/x"), -1);
	assert_int_equal(errno, ENOENT);
	unlink(f);
	unlink(fifo);
	rmdir(dir);
}

/* arena: 8-byte alignment, copies with NULs, a block larger than the
 * default, growth across blocks, release and reuse */
static void test_arena(void **state)
{
	struct pk_arena a = PK_ARENA_INIT;
	char *prev = NULL;

	(void)state;
	for (size_t i = 0; i < 20000; i++) {   /* ~ 1 MB: several blocks */
		char *p = pk_arena_alloc(&a, i % 61);
		assert_int_equal((uintptr_t)p % 8, 0);
		if (prev && i % 61 > 1)
			prev[0] = 'x';   /* earlier pointers stay valid */
		memset(p, 0xab, i % 61);
		prev = i % 61 ? p : prev;
	}
	char *big = pk_arena_alloc(&a, 3u << 20);   /* larger than any block */
	memset(big, 1, 3u << 20);
	char *k = pk_arena_memdup0(&a, "a\0b", 3);
	assert_memory_equal(k, "a\0b\0", 4);
	pk_arena_release(&a);
	assert_null(a.head);
	k = pk_arena_memdup0(&a, "again", 5);
	assert_string_equal(k, "again");
	pk_arena_release(&a);
}

/* pk_path_search: PATH left to right, regular files only, exec bit when
 * asked, an empty entry is the current directory. */
static void touch(const char *path, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static void test_path_search(void **state)
{
	char dir[] = "/tmp/pk-path.XXXXXX", a[64], b[64], p[256], cwd[4096], *got;
	const char *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	assert_int_equal(mkdir(a, 0700), 0);
	assert_int_equal(mkdir(b, 0700), 0);
	snprintf(p, sizeof(p), "%s/tool", a);
	touch(p, 0600);                    /* not executable */
	snprintf(p, sizeof(p), "%s/tool", b);
	touch(p, 0700);
	snprintf(p, sizeof(p), "%s/sub", a);
	assert_int_equal(mkdir(p, 0700), 0); /* a directory is no program */
	snprintf(p, sizeof(p), "%s:%s", a, b);
	setenv("PATH", p, 1);
	got = pk_path_search("tool", true);
	snprintf(p, sizeof(p), "%s/tool", b);
	assert_string_equal(got, p);       /* a's is not executable */
	free(got);
	got = pk_path_search("tool", false);
	snprintf(p, sizeof(p), "%s/tool", a);
	assert_string_equal(got, p);       /* any regular file: the first */
	free(got);
	errno = 0;
	assert_null(pk_path_search("sub", false));
	assert_int_equal(errno, ENOENT);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(b), 0);
	snprintf(p, sizeof(p), "%s:", a);  /* empty entry: the current directory */
	setenv("PATH", p, 1);
	got = pk_path_search("tool", true);
	assert_string_equal(got, "./tool");
	free(got);
	assert_int_equal(chdir(cwd), 0);
	/* pk_find_program: a name with '/' as it is, else $PATH */
	snprintf(p, sizeof(p), "%s:%s", a, b);
	setenv("PATH", p, 1);
	assert_int_equal(pk_find_program("tool", &got), 0);
	snprintf(p, sizeof(p), "%s/tool", b);
	assert_string_equal(got, p);
	free(got);
	snprintf(p, sizeof(p), "%s/tool", a);
	assert_int_equal(pk_find_program(p, &got), -EACCES);   /* there, not executable: 126 */
	assert_null(got);
	assert_non_null(strstr(pk_errmsg(), "/tool': Permission denied"));
	assert_int_equal(pk_find_program("no-such-tool\x1b", &got), -ENOENT);
	assert_string_equal(pk_errmsg(), "'no-such-tool\\x1b': command not found");
	if (saved)
		setenv("PATH", saved, 1);
	else
		unsetenv("PATH");
	free(saved);
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
}

/* xmalloc_reuse, in a child program (whose malloc has no history: an
 * earlier free of a mapped block raises glibc's threshold by itself, an
 * earlier thread leaves its arena): a block of a few MB comes from the
 * heap, not a mapping of its own, and a thread's block from the main heap
 * ([heap]), not an arena of the thread's own (a mapping apart).  Exit
 * status: 0 fine, else which check failed. */
static void *alloc_in_thread(void *arg)
{
	return malloc((size_t)(uintptr_t)arg);
}

/* Whether p is in the [heap] mapping of /proc/self/maps. */
static bool in_heap(const void *p)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	bool in = false;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long a, b;

		if (strstr(line, "[heap]") && sscanf(line, "%lx-%lx", &a, &b) == 2)
			in |= (uintptr_t)p >= a && (uintptr_t)p < b;
	}
	if (f)
		fclose(f);
	return in;
}

/* pk_reserve in a heap set as the browser sets it: the block, faulted in
 * by the thread and freed, is what the next malloc of its size gets, its
 * pages resident (mincore); without the reserve (on false) they are not. */
static int reserve_child(bool on)
{
	const size_t size = (size_t)16 << 20, page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *vec;
	size_t resident = 0, n;
	uintptr_t a, b;
	char *p;

	mallopt(M_MMAP_MAX, 0);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	if (pk_reserve_start(0) || pk_reserve_end(NULL) || pk_reserve_done(NULL))
		return 2;
	if (on) {
		struct pk_reserve *rs = pk_reserve_start(size);

		if (!rs)
			return 3;
		for (int i = 0; i < 60000 && pk_reserve_done(rs) < size; i++)
			usleep(1000);
		if (pk_reserve_end(rs) != size)
			return 4;
	}
	if (!(p = malloc(size)))
		return 5;
	a = ((uintptr_t)p + page - 1) & ~(page - 1);
	b = ((uintptr_t)p + size) & ~(page - 1);
	n = (b - a) / page;
	vec = malloc(n);
	if (!vec || mincore((void *)a, b - a, vec))
		return 6;
	for (size_t i = 0; i < n; i++)
		resident += vec[i] & 1;
	return resident * 10 >= n * 9 ? 0 : 1;
}

static int reuse_child(bool tune)
{
	pthread_t th;
	void *p, *q;

	if (tune)
		xmalloc_reuse();
	p = malloc(4u << 20);
	if (!p || mallinfo2().hblks != 0)
		return 1;
	if (pthread_create(&th, NULL, alloc_in_thread, (void *)(uintptr_t)(64u << 10)) || pthread_join(th, &q) || !q)
		return 2;
	if (!in_heap(q))
		return 3;
	free(q);
	free(p);
	return 0;
}

/* Whether the mapping holding p is asked for huge pages: "hg" among its
 * VmFlags in /proc/self/smaps (madvise MADV_HUGEPAGE). */
static bool huge_advised(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false, hg = false;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long a, b;

		if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)p >= a && (uintptr_t)p < b;
		else if (in && !strncmp(line, "VmFlags:", 8))
			hg = strstr(line, " hg") != NULL;
	}
	if (f)
		fclose(f);
	return hg;
}

/* xheap_thp, in a child program as above: the heap's next megabytes are
 * asked for huge pages, so a block of 6 MiB malloc'd after it is in a
 * mapping with MADV_HUGEPAGE (its middle: the aligned 2 MiB there); 1
 * when it is not (glibc's own heap, without the call). */
static int thp_child(bool hint)
{
	xmalloc_reuse();
	if (hint)
		xheap_thp(16u << 20);
	char *p = malloc(6u << 20);

	if (!p)
		return 2;
	bool hg = huge_advised(p + (3u << 20));
	free(p);
	return hg ? 0 : 1;
}

static int child_status(const char *mode, bool on);

static int reuse_status(bool tune)
{
	return child_status("--reuse-child", tune);
}

static int child_status(const char *mode, bool on)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {   /* a new image: no arena nor threshold of this one's */
		/* no malloc settings of the caller's (MALLOC_*_, GLIBC_TUNABLES) */
		char *const env[] = { NULL };

		execle("/proc/self/exe", "test_base", mode, on ? "1" : "0", (char *)NULL, env);
		_exit(127);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* a sanitizer's own malloc: glibc's settings do not apply */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED_MALLOC 1
#endif
#endif

static void test_malloc_reuse(void **state)
{
	(void)state;
#ifdef SANITIZED_MALLOC
	skip();
#endif
	assert_int_equal(reuse_status(true), 0);
	assert_int_equal(reuse_status(false), 1);   /* glibc's own: a mapping */
}

/* pk_thread_background in a thread: its own nice is 10 (or the
 * process's, when nicer), the calling thread's is as it was. */
static void *background_in_thread(void *arg)
{
	int *nice = arg;

	nice[0] = pk_thread_background();
	errno = 0;
	nice[1] = getpriority(PRIO_PROCESS, (id_t)gettid());
	return NULL;
}

static void test_thread_background(void **state)
{
	pthread_t th;
	int got[2] = { 1, -100 }, before;

	(void)state;
	errno = 0;
	before = getpriority(PRIO_PROCESS, (id_t)gettid());
	assert_int_equal(pthread_create(&th, NULL, background_in_thread, got), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], before > PK_BACKGROUND_NICE ? before : PK_BACKGROUND_NICE);
	assert_int_equal(getpriority(PRIO_PROCESS, (id_t)gettid()), before);   /* this thread's own */
}

static void test_reserve(void **state)
{
	(void)state;
#ifdef SANITIZED_MALLOC
	skip();   /* its own malloc: freed blocks are not reused at once */
#endif
	assert_int_equal(child_status("--reserve-child", true), 0);
	assert_int_equal(child_status("--reserve-child", false), 1);
}

static void test_heap_thp(void **state)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char buf[128] = "";

	(void)state;
#ifdef SANITIZED_MALLOC
	skip();
#endif
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	if (!strstr(buf, "[madvise]") && !strstr(buf, "[always]"))
		skip();   /* THP off: madvise is refused, nothing to see */
	assert_int_equal(child_status("--thp-child", true), 0);
	assert_int_equal(child_status("--thp-child", false), 1);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--reuse-child"))   /* test_malloc_reuse's */
		return reuse_child(argv[2][0] == '1');
	if (argc == 3 && !strcmp(argv[1], "--thp-child"))   /* test_heap_thp's */
		return thp_child(argv[2][0] == '1');
	if (argc == 3 && !strcmp(argv[1], "--reserve-child"))   /* test_reserve's */
		return reserve_child(argv[2][0] == '1');
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strbuf_grow),
		cmocka_unit_test(test_xrelease),
		cmocka_unit_test(test_heap_thp),
		cmocka_unit_test(test_thread_background),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_xml_escape),
		cmocka_unit_test(test_json_escape),
		cmocka_unit_test(test_hashmap),
		cmocka_unit_test(test_hashmap_reserve),
		cmocka_unit_test(test_kv_sort),
		cmocka_unit_test(test_arena),
		cmocka_unit_test(test_error),
		cmocka_unit_test(test_path_search),
		cmocka_unit_test(test_open_regular),
		cmocka_unit_test(test_malloc_reuse),
	};
	return cmocka_run_group_tests_name("base", tests, NULL, NULL);
}
