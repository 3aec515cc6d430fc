/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the perf.data writer (src/lib/perfdata/writer.c): header
 * fields and section offsets checked byte by byte, feature bodies in perf's
 * layout, and the temporary-file / abort behaviour. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "perfdata/perfdata.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pk-writer-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[512];
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	return 0;
}

/* Number of directory entries whose name starts with prefix. */
static int count_files(const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix)))
			n++;
	if (d)
		closedir(d);
	return n;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc((size_t)n);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

static uint64_t u64at(const uint8_t *b, size_t off)
{
	uint64_t v;
	memcpy(&v, b + off, 8);
	return v;
}

static uint32_t u32at(const uint8_t *b, size_t off)
{
	uint32_t v;
	memcpy(&v, b + off, 4);
	return v;
}

/* A COMM record (no sample_id trailer) and a FINISHED_ROUND. */
static size_t make_records(uint8_t *buf)
{
	memset(buf, 0, 40);
	struct perf_event_header h = { .type = PERF_RECORD_COMM, .misc = 0, .size = 32 };
	memcpy(buf, &h, 8);
	uint32_t pid = 42, tid = 43;
	memcpy(buf + 8, &pid, 4);
	memcpy(buf + 12, &tid, 4);
	memcpy(buf + 16, "burn", 5);
	struct perf_event_header fr = { .type = PD_RECORD_FINISHED_ROUND, .misc = 0, .size = 8 };
	memcpy(buf + 32, &fr, 8);
	return 40;
}

/* Find feature bit's {offset,size} in the table after the data section. */
static int feature(const uint8_t *b, int bit, uint64_t *off, uint64_t *size)
{
	uint64_t feats[4];
	memcpy(feats, b + 72, 32);
	if (!(feats[bit / 64] >> (bit % 64) & 1))
		return 0;
	size_t idx = 0;
	for (int i = 0; i < bit; i++)
		if (feats[i / 64] >> (i % 64) & 1)
			idx++;
	size_t table = (size_t)(u64at(b, 40) + u64at(b, 48));
	*off = u64at(b, table + idx * 16);
	*size = u64at(b, table + idx * 16 + 8);
	return 1;
}

/* perf's string: u32 padded length, then the text. */
static const char *fstring(const uint8_t *b, uint64_t off, uint32_t *len)
{
	*len = u32at(b, (size_t)off);
	return (const char *)b + off + 4;
}

/* A cpu-clock attr sampling ip and tid. */
static struct perf_event_attr cpu_clock_attr(void)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	return attr;
}

static void test_layout(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	struct perf_event_attr attr = cpu_clock_attr();
	attr.sample_freq = 999;
	attr.freq = 1;
	const char *names[] = { "cpu-clock" };
	struct pd_writer *w;
	assert_int_equal(pd_writer_open(&w, path, &attr, names, 1), 0);
	assert_int_equal(pd_writer_add_id(w, 0, 7), 0);
	assert_int_equal(pd_writer_add_id(w, 0, 8), 0);
	assert_int_equal(pd_writer_add_id(w, 1, 9), -EINVAL);
	uint8_t recs[64];
	size_t n = make_records(recs);
	assert_int_equal(pd_writer_write(w, recs, n), 0);
	assert_int_equal(pd_writer_data_size(w), n);
	char *argv[] = { "/usr/bin/perfkit", "record", "./burn" };
	pd_writer_set_cmdline(w, 3, argv);
	uint8_t bid[20];
	for (int i = 0; i < 20; i++)
		bid[i] = (uint8_t)(0xa0 + i);
	assert_int_equal(pd_writer_add_build_id(w, PERF_RECORD_MISC_USER, UINT32_MAX, bid, 20, "/tmp/burn"), 0);
	assert_int_equal(pd_writer_add_build_id(w, 0, 0, bid, 21, "/x"), -EINVAL);

	/* only the temporary file exists until finish */
	assert_int_equal(count_files("perf.data.tmp-"), 1);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(pd_writer_finish(w), 0);
	assert_int_equal(count_files("perf.data.tmp-"), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	size_t len;
	uint8_t *b = slurp(path, &len);
	/* struct perf_file_header */
	assert_memory_equal(b, "PERFILE2", 8);
	assert_int_equal(u64at(b, 8), 104);             /* header size */
	assert_int_equal(u64at(b, 16), 128 + 16);       /* attr_size: attr + ids section */
	uint64_t attrs_off = u64at(b, 24), attrs_size = u64at(b, 32);
	assert_int_equal(attrs_size, 144);
	/* perf's order: header, ids, attrs, then the data */
	uint64_t doff = u64at(b, 40);
	assert_int_equal(attrs_off, 104 + 16);          /* after the 2 ids */
	assert_int_equal(doff, 104 + 16 + 144);         /* data offset */
	assert_int_equal(u64at(b, 48), n);              /* data size */
	assert_int_equal(u64at(b, 56), 0);              /* event_types (unused) */
	assert_int_equal(u64at(b, 64), 0);
	/* the data section is our records, byte for byte */
	assert_memory_equal(b + doff, recs, n);
	/* attr section: the attr (size field 128) and the ids section */
	assert_true(attrs_off + attrs_size <= len);
	struct perf_event_attr fa;
	memset(&fa, 0, sizeof(fa));
	memcpy(&fa, b + attrs_off, 128);
	assert_int_equal(fa.size, 128);
	assert_int_equal(fa.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(fa.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(fa.sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID);
	assert_int_equal(fa.sample_freq, 999);
	assert_int_equal(fa.freq, 1);
	uint64_t ids_off = u64at(b, (size_t)attrs_off + 128), ids_size = u64at(b, (size_t)attrs_off + 136);
	assert_int_equal(ids_size, 16);
	assert_true(ids_off + ids_size <= len);
	assert_int_equal(u64at(b, (size_t)ids_off), 7);
	assert_int_equal(u64at(b, (size_t)ids_off + 8), 8);

	/* features: the ones perf shows in its header, each inside the file */
	static const int expected[] = { PD_FEAT_BUILD_ID, PD_FEAT_HOSTNAME, PD_FEAT_OSRELEASE,
		PD_FEAT_VERSION, PD_FEAT_ARCH, PD_FEAT_NRCPUS, PD_FEAT_TOTAL_MEM, PD_FEAT_CMDLINE,
		PD_FEAT_EVENT_DESC };
	uint64_t off, size, prev_end = doff + n;
	size_t nfeat = 0;
	for (int bit = 0; bit < 256; bit++)
		if (feature(b, bit, &off, &size))
			nfeat++;
	prev_end += nfeat * 16; /* the table sits right after the data */
	for (int bit = 0; bit < 256; bit++) {
		if (!feature(b, bit, &off, &size))
			continue;
		assert_int_equal(off, prev_end); /* bodies in bit order, packed */
		assert_true(off + size <= len);
		prev_end = off + size;
	}
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
		assert_true(feature(b, expected[i], &off, &size));

	uint32_t slen;
	assert_true(feature(b, PD_FEAT_VERSION, &off, &size));
	const char *s = fstring(b, off, &slen);
	assert_int_equal(slen % 64, 0);
	assert_int_equal(size, 4 + slen);
	assert_non_null(strstr(s, "perfkit"));

	assert_true(feature(b, PD_FEAT_NRCPUS, &off, &size));
	assert_int_equal(size, 8);
	assert_true(u32at(b, (size_t)off) >= 1);
	assert_true(u32at(b, (size_t)off + 4) >= 1);

	assert_true(feature(b, PD_FEAT_CMDLINE, &off, &size));
	assert_int_equal(u32at(b, (size_t)off), 3);
	s = fstring(b, off + 4, &slen);
	assert_string_equal(s, "/usr/bin/perfkit");
	s = fstring(b, off + 8 + slen, &slen);
	assert_string_equal(s, "record");

	assert_true(feature(b, PD_FEAT_EVENT_DESC, &off, &size));
	assert_int_equal(u32at(b, (size_t)off), 1);       /* nr events */
	assert_int_equal(u32at(b, (size_t)off + 4), 128); /* attr size */
	assert_int_equal(u32at(b, (size_t)off + 8 + 128), 2); /* nr ids */
	s = fstring(b, off + 12 + 128, &slen);
	assert_string_equal(s, "cpu-clock");
	assert_int_equal(u64at(b, (size_t)(off + 16 + 128 + slen)), 7);
	assert_int_equal(size, 16 + 128 + slen + 16);

	/* build_id: perf_event_header, pid, 24-byte id (size at [20]), name padded to 64 */
	assert_true(feature(b, PD_FEAT_BUILD_ID, &off, &size));
	struct perf_event_header h;
	memcpy(&h, b + off, 8);
	assert_int_equal(h.type, PD_RECORD_HEADER_BUILD_ID);
	assert_int_equal(h.size, 36 + 64);
	assert_int_equal(h.misc & 7, PERF_RECORD_MISC_USER);
	assert_true(h.misc & (1u << 15));
	assert_int_equal(size, h.size);
	assert_int_equal(u32at(b, (size_t)off + 8), UINT32_MAX);
	assert_memory_equal(b + off + 12, bid, 20);
	assert_int_equal(b[off + 32], 20);
	assert_string_equal((const char *)b + off + 36, "/tmp/burn");
	free(b);
}

static void test_abort_leaves_nothing(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/aborted.data", dir);
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	const char *names[] = { "cpu-clock" };
	struct pd_writer *w;
	assert_int_equal(pd_writer_open(&w, path, &attr, names, 1), 0);
	uint8_t recs[64];
	size_t n = make_records(recs);
	for (int i = 0; i < 10000; i++) /* past the write buffer */
		assert_int_equal(pd_writer_write(w, recs, n), 0);
	assert_int_equal(pd_writer_data_size(w), 10000 * n);
	assert_int_equal(count_files("aborted.data"), 1);
	pd_writer_abort(w);
	assert_int_equal(count_files("aborted.data"), 0);
}

static void test_large_and_existing(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/big.data", dir);
	FILE *f = fopen(path, "w");
	fputs("old", f);
	fclose(f);
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	const char *names[] = { "task-clock" };
	struct pd_writer *w;
	assert_int_equal(pd_writer_open(&w, path, &attr, names, 1), 0);
	/* one write bigger than the buffer goes straight through */
	size_t big = 1u << 20;
	uint8_t *recs = calloc(1, big);
	for (size_t o = 0; o < big; o += 8) {
		struct perf_event_header h = { .type = PD_RECORD_FINISHED_ROUND, .misc = 0, .size = 8 };
		memcpy(recs + o, &h, 8);
	}
	assert_int_equal(pd_writer_write(w, recs, 8), 0);
	assert_int_equal(pd_writer_write(w, recs, big), 0);
	assert_int_equal(pd_writer_finish(w), 0);
	size_t len;
	uint8_t *b = slurp(path, &len);
	assert_int_equal(u64at(b, 48), big + 8);
	uint64_t doff = u64at(b, 40);
	assert_memory_equal(b + doff, recs, 8);
	assert_memory_equal(b + doff + 8, recs, big);
	free(b);
	free(recs);
}

/* A failing write (here: over RLIMIT_FSIZE, EFBIG) is reported with the
 * file and offset, finish refuses, and nothing is left behind. */
static void test_write_error(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/full.data", dir);
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	const char *names[] = { "cpu-clock" };
	struct pd_writer *w;
	assert_int_equal(pd_writer_open(&w, path, &attr, names, 1), 0);
	struct rlimit old, small = { 0, 0 };
	getrlimit(RLIMIT_FSIZE, &old);
	small.rlim_cur = 64 * 1024;
	small.rlim_max = old.rlim_max;
	void (*oldsig)(int) = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	uint8_t recs[64];
	size_t n = make_records(recs);
	int rc = 0;
	for (int i = 0; i < 100000 && !rc; i++)
		rc = pd_writer_write(w, recs, n);
	assert_int_equal(rc, -EFBIG);
	assert_non_null(strstr(pk_errmsg(), path));
	assert_non_null(strstr(pk_errmsg(), "write failed at offset"));
	assert_int_equal(pd_writer_write(w, recs, n), -EIO); /* stays failed */
	assert_true(pd_writer_finish(w) < 0);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, oldsig);
	assert_int_equal(count_files("full.data"), 0);
}

/* A writer killed with SIGKILL: its temporary file has the header and
 * attrs first and the data size of its last flush, so the reader reads
 * every flushed record (not the ones still in the buffer). */
static void test_killed_writer(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/killed.data", dir);
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	const char *names[] = { "cpu-clock" };
	const size_t nrec = 20000;   /* 480 KB: past the 256 KB buffer once */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct pd_writer *w;
		if (pd_writer_open(&w, path, &attr, names, 1))
			_exit(1);
		pd_writer_add_id(w, 0, 5);
		for (size_t i = 0; i < nrec; i++) {
			uint64_t rec[3];
			struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER, .size = 24 };
			memcpy(&rec[0], &h, 8);
			rec[1] = 0x401000 + i;
			rec[2] = (uint64_t)7 << 32 | 7;
			if (pd_writer_write(w, rec, sizeof(rec)))
				_exit(1);
		}
		kill(getpid(), SIGKILL);
		_exit(2);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_equal(access(path, F_OK), -1);   /* never renamed */
	DIR *d = opendir(dir);
	struct dirent *de;
	char tmp[512] = "";
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "killed.data.tmp-", 16))
			snprintf(tmp, sizeof(tmp), "%s/%s", dir, de->d_name);
	closedir(d);
	assert_true(tmp[0]);
	struct pd_file *f;
	if (pd_open(&f, tmp))
		fail_msg("pd_open of the killed writer's file: %s", pk_errmsg());
	assert_int_equal(f->nr_evsels, 1);
	assert_int_equal(f->evsels[0].nr_ids, 1);
	uint64_t pos = 0;
	const struct perf_event_header *h;
	size_t n = 0;
	while (pd_next(f, &pos, &h) == 1) {
		struct pd_sample smp;
		assert_int_equal(pd_parse_sample(f, h, &smp), 0);
		assert_int_equal(smp.ip, 0x401000 + n);
		n++;
	}
	/* the first full buffer (256 KB / 24 B) was flushed, nothing torn */
	assert_true(n >= (256u << 10) / 24);
	assert_true(n < nrec);
	pd_close(f);
	unlink(tmp);
}

/* What the writer writes, the reader reads back. */
static void test_roundtrip_reader(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/rt.data", dir);
	struct perf_event_attr attr[2];
	memset(attr, 0, sizeof(attr));
	for (int i = 0; i < 2; i++) {
		attr[i].size = sizeof(attr[i]);
		attr[i].type = PERF_TYPE_SOFTWARE;
		attr[i].sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID;
		attr[i].sample_id_all = 1;
	}
	attr[0].config = PERF_COUNT_SW_CPU_CLOCK;
	attr[1].config = PERF_COUNT_SW_PAGE_FAULTS;
	const char *names[] = { "cpu-clock", "page-faults:u" };
	struct pd_writer *w;
	assert_int_equal(pd_writer_open(&w, path, attr, names, 2), 0);
	pd_writer_add_id(w, 0, 11);
	pd_writer_add_id(w, 1, 22);
	/* one sample of each event: identifier, ip, pid/tid */
	uint64_t rec[4];
	for (int e = 0; e < 2; e++) {
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER, .size = 32 };
		memcpy(&rec[0], &h, 8);
		rec[1] = e ? 22 : 11;
		rec[2] = 0x401000 + (uint64_t)e;
		rec[3] = (uint64_t)100 << 32 | 100;
		assert_int_equal(pd_writer_write(w, rec, sizeof(rec)), 0);
	}
	char *argv[] = { "perfkit", "record", "x" };
	pd_writer_set_cmdline(w, 3, argv);
	uint8_t bid[20] = { 1, 2, 3 };
	pd_writer_add_build_id(w, PERF_RECORD_MISC_USER, UINT32_MAX, bid, 20, "/bin/x");
	assert_int_equal(pd_writer_finish(w), 0);

	struct pd_file *f;
	if (pd_open(&f, path))
		fail_msg("pd_open: %s", pk_errmsg());
	assert_int_equal(f->nr_evsels, 2);
	assert_int_equal(f->evsels[0].attr.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(f->evsels[1].attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(f->evsels[1].nr_ids, 1);
	assert_int_equal(f->evsels[1].ids[0], 22);
	assert_string_equal(f->evsels[1].name, "page-faults:u");
	assert_non_null(f->cmdline);
	assert_non_null(strstr(f->cmdline, "record x"));
	assert_int_equal(f->nr_build_ids, 1);
	assert_string_equal(f->build_ids[0].filename, "/bin/x");
	assert_memory_equal(f->build_ids[0].data, bid, 20);
	uint64_t pos = 0;
	const struct perf_event_header *h;
	int n = 0;
	while (pd_next(f, &pos, &h) == 1) {
		struct pd_sample s;
		assert_int_equal(pd_parse_sample(f, h, &s), 0);
		assert_ptr_equal(s.evsel, &f->evsels[n]);
		assert_int_equal(s.ip, 0x401000 + (uint64_t)n);
		assert_int_equal(s.tid, 100);
		n++;
	}
	assert_int_equal(n, 2);
	pd_close(f);
}

/* perf record -z: the records written after pd_writer_compress() go out
 * as PERF_RECORD_COMPRESSED (those before as they are), several per
 * buffer when a buffer compresses to more than one record holds, and
 * read back whole, in order; HEADER_COMPRESSED as perf writes it. */
static void test_compressed(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/z.data", dir);
	struct perf_event_attr attr = cpu_clock_attr();
	const char *names[] = { "cpu-clock" };
	struct pd_writer *w;
	uint8_t comm[40];
	enum { N = 60000 };

	assert_int_equal(pd_writer_open(&w, path, &attr, names, 1), 0);
	assert_int_equal(pd_writer_set_compression(w, 0, 4096), -EINVAL);
	assert_int_equal(pd_writer_set_compression(w, 23, 4096), -EINVAL);
	assert_int_equal(pd_writer_set_compression(w, 3, 129 * 4096), 0);
	assert_int_equal(pd_writer_write(w, comm, make_records(comm)), 0);
	assert_int_equal(pd_writer_compress(w), 0);
	assert_int_equal(pd_writer_set_compression(w, 1, 4096), -EINVAL);   /* too late */
	/* samples whose ips do not compress (xorshift): 1.4 MB, several
	 * buffers, each more than one record's 64 KiB compressed */
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < N; i++) {
		uint64_t rec[3];
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER, .size = 24 };
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(&rec[0], &h, 8);
		rec[1] = i % 8 ? x : 0x401000;
		rec[2] = (uint64_t)7 << 32 | 7;
		assert_int_equal(pd_writer_write(w, rec, sizeof(rec)), 0);
	}
	assert_int_equal(pd_writer_flush(w), 0);
	uint64_t raw, zb = pd_writer_compressed(w, &raw);
	assert_int_equal(raw, (uint64_t)N * 24);
	assert_true(zb > 0 && zb < raw);
	assert_int_equal(pd_writer_finish(w), 0);

	size_t len;
	uint8_t *b = slurp(path, &len);
	uint64_t off = 0, size = 0, doff = u64at(b, 40), dsize = u64at(b, 48);
	assert_int_equal(feature(b, PD_FEAT_COMPRESSED, &off, &size), 1);
	assert_int_equal(size, 20);
	assert_int_equal(u32at(b, off), 0);        /* version, as perf 6.1 */
	assert_int_equal(u32at(b, off + 4), 1);    /* zstd */
	assert_int_equal(u32at(b, off + 8), 3);    /* level */
	assert_int_equal(u32at(b, off + 12), (uint32_t)((double)raw / (double)zb + 0.5));
	assert_int_equal(u32at(b, off + 16), 129 * 4096);
	/* on file: the COMM and FINISHED_ROUND as they were, then only
	 * COMPRESSED records, ending where the data section ends */
	assert_int_equal(u32at(b, doff), PERF_RECORD_COMM);
	uint64_t pos = 40, nz = 0, big = 0;
	while (pos + 8 <= dsize) {
		uint16_t rs;
		memcpy(&rs, b + doff + pos + 6, 2);
		assert_int_equal(u32at(b, doff + pos), PD_RECORD_COMPRESSED);
		nz++;
		big += rs > 60000;
		pos += rs;
	}
	assert_int_equal(pos, dsize);
	assert_true(nz >= 4);
	assert_true(big >= 2);   /* a buffer cut into records at the 16-bit size */
	free(b);

	struct pd_file *f;
	if (pd_open(&f, path))
		fail_msg("pd_open: %s", pk_errmsg());
	const struct perf_event_header *h;
	int n = 0, comms = 0;
	x = 88172645463325252ull;
	pos = 0;
	while (pd_next(f, &pos, &h) == 1) {
		uint32_t type;
		memcpy(&type, h, 4);
		comms += type == PERF_RECORD_COMM;
		if (type != PERF_RECORD_SAMPLE)
			continue;
		struct pd_sample s;
		assert_int_equal(pd_parse_sample(f, h, &s), 0);
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		assert_int_equal(s.ip, n % 8 ? x : 0x401000);
		assert_int_equal(s.tid, 7);
		n++;
	}
	assert_int_equal(comms, 1);
	assert_int_equal(n, N);
	pd_close(f);
}

static void test_open_errors(void **state)
{
	(void)state;
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	const char *names[] = { "cpu-clock" };
	struct pd_writer *w = (struct pd_writer *)1;
	int rc = pd_writer_open(&w, "/nonexistent-dir/perf.data", &attr, names, 1);
	assert_int_equal(rc, -ENOENT);
	assert_null(w);
	assert_non_null(strstr(pk_errmsg(), "/nonexistent-dir/perf.data"));
	assert_int_equal(pd_writer_open(&w, "x", &attr, names, 0), -EINVAL);
	pd_writer_abort(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_abort_leaves_nothing),
		cmocka_unit_test(test_large_and_existing),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_killed_writer),
		cmocka_unit_test(test_roundtrip_reader),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_open_errors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
