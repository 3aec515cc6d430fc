/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * writer.c — the writer half of perfdata.h.
 *
 * File layout written (all offsets are recorded in the header, so perf and
 * our reader find everything by offset), in perf's order:
 *
 *   0    struct perf_file_header (104 bytes)
 *   104  sample ids (u64) of every event, then the attr section: per event a
 *        PD_WRITER_ATTR_SIZE-byte perf_event_attr and the {offset,size} of
 *        its ids — written before the first record
 *   ...  data section: the records, as given to pd_writer_write()
 *   ...  feature section table: one {offset,size} per set feature bit, in
 *        bit order — perf looks for it right after the data section
 *   ...  feature bodies (formats of tools/perf/util/header.c: strings are a
 *        u32 length padded to 64 bytes, then the NUL-padded text)
 *   ...  (only when ids were added after the first record: the ids and attr
 *        section again, which the final header then points to)
 *
 * Pipe mode (path "-", perf record -o -): the stream perf writes to a pipe,
 * in order, nothing rewritten: a 16-byte header {"PERFILE2", 16}, one
 * HEADER_ATTR record per event (attr, then its ids), one HEADER_FEATURE
 * record per feature ({u64 feature bit, the file-mode body}, in bit order)
 * and the end-of-features marker perf 6.1 writes (bit PD_FEAT_LAST_PERF61),
 * an EVENT_UPDATE record naming each event,
 * a HEADER_TRACING_DATA record (its payload, padded to 8 bytes, follows
 * outside its size) when tracepoints are recorded, then the records as
 * given, and HEADER_BUILD_ID records at the end.
 *
 * So that a recorder killed with SIGKILL leaves a readable file, the header
 * is valid from the first record on: no feature bits, and a data size that
 * is rewritten after every flush of the buffer (at least once a second
 * while records come: PD_WRITER_FLUSH_NS), so perf and perfkit read every
 * record flushed before the kill.  finish() sets the features and sizes.
 */
#include "perfdata/perfdata.h"

#include "base/error.h"
#include "base/outfile.h"
#include "base/strbuf.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#ifndef PERFKIT_VERSION
#define PERFKIT_VERSION "0"
#endif

_Static_assert(sizeof(struct perf_event_attr) >= PD_WRITER_ATTR_SIZE, "perf_event_attr too old");
_Static_assert(sizeof(struct pd_writer_header) == PD_WRITER_HEADER_SIZE, "header layout");

#define WBUF_SIZE (1u << 18)
#define PD_WRITER_FLUSH_NS 1000000000ull   /* buffered records reach the file within 1 s */
#define NAME_ALIGN 64
#define BUILD_ID_REC_SIZE 36 /* header 8 + pid 4 + build_id[24] */
#define PERF_RECORD_MISC_BUILD_ID_SIZE_ (1u << 15)
/* the most payload a PERF_RECORD_COMPRESSED holds: its size is 16 bits */
#define PD_ZREC_MAX ((size_t)UINT16_MAX - sizeof(struct perf_event_header))

struct wevent {
	struct perf_event_attr attr;
	char *name;
	uint64_t *ids;
	size_t nr_ids, alloc_ids;
};

struct pd_writer {
	char *path, *tmp;
	int fd;
	bool direct;              /* PATH is a device or FIFO: the file is made
	                             in TMPDIR and copied into PATH at finish */
	bool keep_tmp;            /* finish gave up on PATH: the temporary
	                             file holds the recording, keep it */
	bool pipe;                /* path "-": perf's pipe mode on stdout */
	struct wevent *ev;
	size_t nr_ev;
	uint8_t *buf;
	size_t buf_len;
	uint64_t buf_since;       /* CLOCK_MONOTONIC ns of the oldest buffered record */
	bool started;             /* header, ids and attrs are on file */
	uint64_t data_off;        /* where the data section starts */
	uint64_t attrs_off;       /* the attr section written at the start */
	size_t started_ids;       /* ids in it */
	uint64_t data_size;
	uint64_t file_off;        /* bytes written to fd so far */
	int failed;               /* a write failed: finish refuses */
	int full;                 /* ... because the disk is full: finish keeps
	                             the whole records written so far */
	uint64_t reserved_to;     /* file space allocated up to here (UINT64_MAX:
	                             the file system cannot reserve) */
	struct strbuf cmdline;    /* body of HEADER_CMDLINE without the count */
	uint32_t cmdline_nr;
	struct strbuf build_ids;  /* body of HEADER_BUILD_ID */
	struct strbuf tracing;    /* body of HEADER_TRACING_DATA (empty: none) */
	struct strbuf groups;     /* body of HEADER_GROUP_DESC (empty: none) */
	uint64_t kept_samples;    /* after a full disk: samples in the kept data */
	int dropped_features;     /* the disk was full at finish: 1 build-ids, 2 all */
	/* perf record -z: HEADER_COMPRESSED, and the records written after
	 * pd_writer_compress() as PERF_RECORD_COMPRESSED */
	int zlevel;               /* 0: no compression */
	uint32_t zmmap_len;
	ZSTD_CStream *zs;         /* compressing (one stream, flushed per buffer) */
	uint8_t *zbuf;
	size_t zcap;
	uint64_t zraw, zout;      /* bytes given and written, since compressing */
	uint64_t buf_samples;     /* samples in buf (compressing) */
	uint64_t zkept_end, zkept_samples;  /* the file's data up to the end of the
	                             last whole flush, and its samples */
};

static int write_all(struct pd_writer *w, const void *p, size_t len)
{
	const uint8_t *b = p;
	while (len) {
		ssize_t n = write(w->fd, b, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			w->failed = 1;
			w->full = e == ENOSPC || e == EDQUOT;
			if (e == EPIPE)
				return pk_error(e, "%s: the reader closed the pipe after %llu bytes; recording stopped",
						strcmp(w->path, "-") ? w->path : "standard output",
						(unsigned long long)w->file_off);
			return pk_error(e, "%s: write failed at offset %llu: %s", w->path,
					(unsigned long long)w->file_off, strerror(e));
		}
		w->file_off += (uint64_t)n;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Keep room allocated past the data about to be written for the tail
 * finish() writes (fallocate, growing in 1 MB steps when the disk has
 * them), so that when the disk fills up the data stops first and the
 * features still fit: about what they take (4 KB of host facts, the
 * command line, the event descriptions), not more, so that a small disk
 * keeps as many records as it can.  Build-ids (added at the end) are
 * dropped, then all features, when there is no room for them: the header
 * and attrs are at the start of the file.  -ENOSPC (w->full) when even
 * that room cannot be had. */
static size_t total_ids(const struct pd_writer *w)
{
	size_t n = 0;

	for (size_t i = 0; i < w->nr_ev; i++)
		n += w->ev[i].nr_ids;
	return n;
}

static uint64_t tail_estimate(const struct pd_writer *w)
{
	return 4096 + w->cmdline.len + w->nr_ev * (PD_WRITER_ATTR_SIZE + 16 + 4 + 128) +
	       2 * 8 * total_ids(w);
}

static int reserve(struct pd_writer *w, size_t len)
{
	uint64_t want = w->file_off + len + tail_estimate(w);
	if (w->reserved_to == UINT64_MAX || want <= w->reserved_to)
		return 0;
	uint64_t from = w->reserved_to > w->file_off ? w->reserved_to : w->file_off;
	if (fallocate(w->fd, FALLOC_FL_KEEP_SIZE, (off_t)from, (off_t)(want + (1u << 20) - from)) == 0) {
		w->reserved_to = want + (1u << 20);
		return 0;
	}
	if (fallocate(w->fd, FALLOC_FL_KEEP_SIZE, (off_t)from, (off_t)(want - from)) == 0) {
		w->reserved_to = want;
		return 0;
	}
	if (errno != ENOSPC && errno != EDQUOT) {
		w->reserved_to = UINT64_MAX; /* not supported here: write and see */
		return 0;
	}
	w->failed = w->full = 1;
	return pk_error(ENOSPC, "%s: no space left on the device after %llu bytes of data",
			w->path, (unsigned long long)(w->file_off - w->data_off));
}

/* Open the device, FIFO or /dev/stdout of direct mode.  A FIFO is opened
 * without blocking, again every 100 ms until a reader comes, and given up
 * when SIGINT or SIGTERM is pending (record blocks them): -1 with EINTR. */
static int open_out(const char *path)
{
	struct stat st;
	int sfd = of_std_fd(path);   /* /dev/stdout: the descriptor itself */

	if (sfd >= 0)
		return dup(sfd);
	if (stat(path, &st) == 0 && S_ISFIFO(st.st_mode)) {
		for (;;) {
			int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
			sigset_t pend;

			if (fd >= 0) {
				fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
				return fd;
			}
			if (errno != ENXIO)
				return -1;
			sigpending(&pend);
			if (sigismember(&pend, SIGINT) || sigismember(&pend, SIGTERM)) {
				errno = EINTR;
				return -1;
			}
			usleep(100 * 1000);
		}
	}
	int tr = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? O_TRUNC : 0;
	return open(path, O_WRONLY | O_CLOEXEC | tr);
}

/* Direct mode: copy the finished temporary file into the device or FIFO. */
static int copy_out(struct pd_writer *w)
{
	char buf[65536];
	off_t off = 0;
	int out = open_out(w->path);

	if (out < 0 && errno == EINTR) {
		w->keep_tmp = true;
		return pk_error(EINTR, "%s: interrupted while waiting for a reader; the recording is in %s",
				w->path, w->tmp);
	}
	if (out < 0)
		return pk_error(errno, "%s: cannot open for writing: %s", w->path, strerror(errno));
	for (;;) {
		ssize_t n = pread(w->fd, buf, sizeof(buf), off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(out);
			return pk_error(e, "%s: read failed: %s", w->tmp, strerror(e));
		}
		if (n == 0)
			break;
		for (ssize_t done = 0; done < n;) {
			ssize_t k = write(out, buf + done, (size_t)(n - done));
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				int e = errno;
				close(out);
				return pk_error(e, "%s: write failed at offset %lld: %s", w->path,
						(long long)(off + done), strerror(e));
			}
			done += k;
		}
		off += n;
	}
	if (close(out) != 0)
		return pk_error(errno, "%s: close failed: %s", w->path, strerror(errno));
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The ids, then the attr section pointing to them, as written at base. */
static void put_attrs(struct pd_writer *w, struct strbuf *sb, uint64_t base, uint64_t *attrs_off)
{
	uint64_t *id_off = xcalloc(w->nr_ev, sizeof(*id_off));

	for (size_t i = 0; i < w->nr_ev; i++) {
		id_off[i] = base + sb->len;
		if (w->ev[i].nr_ids)
			sb_add(sb, w->ev[i].ids, w->ev[i].nr_ids * 8);
	}
	*attrs_off = base + sb->len;
	for (size_t i = 0; i < w->nr_ev; i++) {
		struct perf_event_attr a = w->ev[i].attr;
		a.size = PD_WRITER_ATTR_SIZE;
		sb_add(sb, &a, PD_WRITER_ATTR_SIZE);
		sb_add(sb, &id_off[i], 8);
		uint64_t sz = w->ev[i].nr_ids * 8;
		sb_add(sb, &sz, 8);
	}
	free(id_off);
}

static void fill_header(const struct pd_writer *w, struct pd_writer_header *h, uint64_t attrs_off)
{
	memset(h, 0, sizeof(*h));
	memcpy(&h->magic, "PERFILE2", 8);
	h->size = PD_WRITER_HEADER_SIZE;
	h->attr_size = PD_WRITER_ATTR_SIZE + 16;
	h->attrs_offset = attrs_off;
	h->attrs_size = w->nr_ev * (PD_WRITER_ATTR_SIZE + 16);
	h->data_offset = w->data_off;
	h->data_size = w->data_size;
}

static int start_pipe(struct pd_writer *w);

/* Header, ids and attrs, before the first record (perf's order): from then
 * on the file is readable whatever happens to this process. */
static int start(struct pd_writer *w)
{
	struct strbuf sb;
	struct pd_writer_header h;

	if (w->started)
		return 0;
	if (w->pipe)
		return start_pipe(w);
	sb_init(&sb, 4096);
	sb_add(&sb, &h, sizeof(h));   /* placeholder, filled below */
	put_attrs(w, &sb, 0, &w->attrs_off);
	w->data_off = sb.len;
	w->started_ids = total_ids(w);
	uint64_t ds = w->data_size;
	w->data_size = 0;
	fill_header(w, &h, w->attrs_off);
	w->data_size = ds;
	memcpy(sb.buf, &h, sizeof(h));
	int rc = reserve(w, sb.len);
	if (!rc)
		rc = write_all(w, sb.buf, sb.len);
	sb_release(&sb);
	w->started = !rc;
	return rc;
}

/* Write whole records from data: all of them when there is room, else as
 * many as the disk takes one by one (a nearly full disk keeps every record
 * that fits, not only whole buffers), then -ENOSPC. */
static int write_records(struct pd_writer *w, const uint8_t *data, size_t len)
{
	int rc = reserve(w, len);

	if (!rc)
		return write_all(w, data, len);
	if (!w->full)
		return rc;
	w->failed = w->full = 0;
	for (size_t pos = 0; pos + sizeof(struct perf_event_header) <= len;) {
		struct perf_event_header h;
		memcpy(&h, data + pos, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - pos)
			break;
		rc = reserve(w, h.size);
		if (!rc)
			rc = write_all(w, data + pos, h.size);
		if (rc)
			return rc;
		pos += h.size;
	}
	w->failed = w->full = 1;
	return pk_error(ENOSPC, "%s: no space left on the device after %llu bytes of data",
			w->path, (unsigned long long)(w->file_off - w->data_off));
}

/* The buffered records as PERF_RECORD_COMPRESSED records into w->zbuf
 * (*len bytes): perf's zstd_compress_stream_to_records, one zstd stream
 * for the file, flushed at the end of each buffer so that the file's
 * records decompress whole up to the last flush; a record's payload is at
 * most what its 16-bit size leaves, and its size is not padded to 8 (as
 * perf 6.1 writes them: the payload is the stream's bytes). */
static int compress_buf(struct pd_writer *w, size_t *len)
{
	ZSTD_inBuffer in = { w->buf, w->buf_len, 0 };
	size_t pos = 0, left;

	do {
		struct perf_event_header h = { .type = PD_RECORD_COMPRESSED, .misc = 0, .size = 0 };
		size_t room = w->zcap - pos - sizeof(h);
		ZSTD_outBuffer out = { w->zbuf + pos + sizeof(h), room < PD_ZREC_MAX ? room : PD_ZREC_MAX, 0 };

		if (out.size == 0)
			return pk_error(EOVERFLOW, "%s: compressed data larger than its buffer", w->path);
		left = ZSTD_compressStream2(w->zs, &out, &in, ZSTD_e_flush);
		if (ZSTD_isError(left))
			return pk_error(EIO, "%s: zstd compression failed: %s", w->path, ZSTD_getErrorName(left));
		if (out.pos) {
			h.size = (uint16_t)(sizeof(h) + out.pos);
			memcpy(w->zbuf + pos, &h, sizeof(h));
			pos += sizeof(h) + out.pos;
		}
	} while (left || in.pos < in.size);
	*len = pos;
	return 0;
}

static int flush_buf(struct pd_writer *w)
{
	int rc = start(w);

	if (rc || !w->buf_len)
		return rc;
	if (w->zs) {
		size_t zlen = 0;

		rc = compress_buf(w, &zlen);
		if (!rc)
			rc = write_records(w, w->zbuf, zlen);
		if (!rc) {
			w->zraw += w->buf_len;
			w->zout += zlen;
			w->zkept_end = w->file_off - w->data_off;
			w->zkept_samples += w->buf_samples;
		}
		w->buf_samples = 0;
	} else {
		rc = write_records(w, w->buf, w->buf_len);
	}
	w->buf_len = 0;
	if (!rc && !w->pipe) {
		/* the data size on file follows the data: a killed recorder's
		 * file is read up to here */
		uint64_t ds = w->file_off - w->data_off;
		if (pwrite(w->fd, &ds, 8, offsetof(struct pd_writer_header, data_size)) != 8)
			rc = pk_error(errno ? errno : EIO, "%s: cannot update the header: %s", w->path,
				      strerror(errno ? errno : EIO));
	}
	return rc;
}

int pd_writer_open(struct pd_writer **out, const char *path,
		   const struct perf_event_attr *attrs, const char *const *names, size_t nr)
{
	*out = NULL;
	if (!path || !*path || nr == 0)
		return pk_error(EINVAL, "pd_writer_open: no output path or no events");
	struct pd_writer *w = xcalloc(1, sizeof(*w));
	w->path = xstrdup(path);
	struct stat st;
	if (!strcmp(path, "-")) {
		/* perf's pipe mode on stdout: written as it comes */
		w->pipe = true;
		w->reserved_to = UINT64_MAX;
		w->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (w->fd < 0) {
			int e = errno;
			free(w->path);
			free(w);
			return pk_error(e, "standard output: %s", strerror(e));
		}
		goto events;
	}
	w->direct = of_kernel_path(path) ||
		    (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
	if (w->direct) {
		/* never rename over a device node or FIFO (/dev/null): build
		 * the file privately, copy it there at the end */
		const char *td = getenv("TMPDIR");
		size_t tl = (td && *td ? strlen(td) : 4) + 32;
		w->tmp = xmalloc(tl);
		snprintf(w->tmp, tl, "%s/perfkit-record.XXXXXX", td && *td ? td : "/tmp");
	} else {
		size_t tl = strlen(path) + 16;
		w->tmp = xmalloc(tl);
		snprintf(w->tmp, tl, "%s.tmp-XXXXXX", path);
	}
	w->fd = mkstemp(w->tmp);
	if (w->fd < 0) {
		int e = errno;
		free(w->tmp);
		free(w->path);
		free(w);
		return pk_error(e, "%s: cannot create file: %s", path, strerror(e));
	}
	fchmod(w->fd, 0600);
events:
	w->ev = xcalloc(nr, sizeof(*w->ev));
	w->nr_ev = nr;
	for (size_t i = 0; i < nr; i++) {
		size_t sz = attrs[i].size && attrs[i].size < sizeof(w->ev[i].attr) ?
			attrs[i].size : sizeof(w->ev[i].attr);
		memcpy(&w->ev[i].attr, &attrs[i], sz);
		w->ev[i].name = xstrdup(names && names[i] ? names[i] : "unknown");
	}
	w->buf = xmalloc(WBUF_SIZE);
	sb_init(&w->cmdline, 256);
	sb_init(&w->build_ids, 1024);
	sb_init(&w->tracing, 0);
	sb_init(&w->groups, 0);
	/* the header, ids and attrs go out with the first record (the ids
	 * are added after this) */
	*out = w;
	return 0;
}

int pd_writer_add_id(struct pd_writer *w, size_t idx, uint64_t id)
{
	if (idx >= w->nr_ev)
		return pk_error(EINVAL, "%s: event index %zu out of range", w->path, idx);
	struct wevent *e = &w->ev[idx];
	if (e->nr_ids == e->alloc_ids) {
		e->alloc_ids = e->alloc_ids ? e->alloc_ids * 2 : 16;
		e->ids = xrealloc(e->ids, e->alloc_ids * sizeof(*e->ids));
	}
	e->ids[e->nr_ids++] = id;
	return 0;
}

static uint64_t whole_raw_records(struct pd_writer *w);

/* The PERF_RECORD_SAMPLE records among len bytes of whole records. */
static uint64_t count_samples(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t n = 0;
	struct perf_event_header h;

	for (size_t pos = 0; len - pos >= sizeof(h); pos += h.size) {
		memcpy(&h, p + pos, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - pos)
			break;
		n += h.type == PERF_RECORD_SAMPLE;
	}
	return n;
}

int pd_writer_set_compression(struct pd_writer *w, int level, uint32_t mmap_len)
{
	if (level < 1 || level > ZSTD_maxCLevel())
		return pk_error(EINVAL, "%s: compression level %d out of range (1-%d)", w->path, level,
				ZSTD_maxCLevel());
	if (w->started)
		return pk_error(EINVAL, "%s: compression set after the first record", w->path);
	w->zlevel = level;
	w->zmmap_len = mmap_len;
	return 0;
}

int pd_writer_compress(struct pd_writer *w)
{
	if (!w->zlevel || w->zs)
		return 0;
	if (w->failed)
		return -EIO;
	int rc = flush_buf(w);   /* what came before stays as it is */

	if (rc)
		return rc;
	w->zs = ZSTD_createCStream();
	if (!w->zs)
		return pk_error(ENOMEM, "%s: cannot make a zstd stream", w->path);
	size_t r = ZSTD_CCtx_setParameter(w->zs, ZSTD_c_compressionLevel, w->zlevel);
	if (ZSTD_isError(r)) {
		ZSTD_freeCStream(w->zs);
		w->zs = NULL;
		return pk_error(EINVAL, "%s: zstd level %d: %s", w->path, w->zlevel, ZSTD_getErrorName(r));
	}
	/* a buffer's worst case, and a record header per PD_ZREC_MAX of it */
	size_t bound = ZSTD_compressBound(WBUF_SIZE);
	w->zcap = bound + (bound / PD_ZREC_MAX + 2) * sizeof(struct perf_event_header);
	w->zbuf = xmalloc(w->zcap);
	w->kept_samples = 0;
	w->zkept_end = whole_raw_records(w);
	w->zkept_samples = w->kept_samples;
	return 0;
}

uint64_t pd_writer_compressed(const struct pd_writer *w, uint64_t *raw)
{
	*raw = w->zraw;
	return w->zout;
}

int pd_writer_write(struct pd_writer *w, const void *data, size_t len)
{
	if (w->failed)
		return -EIO;
	if (!w->started) {
		int rc = start(w);
		if (rc)
			return rc;
	}
	if (len > WBUF_SIZE && w->zs) {
		/* compressed through the buffer: a record at a time */
		struct perf_event_header h;
		const uint8_t *p = data;
		int rc = 0;

		for (size_t pos = 0; !rc && len - pos >= sizeof(h); pos += h.size) {
			memcpy(&h, p + pos, sizeof(h));
			if (h.size < sizeof(h) || h.size > len - pos)
				return pk_error(EINVAL, "%s: a record of %u bytes at %zu of %zu given", w->path,
						h.size, pos, len);
			rc = pd_writer_write(w, p + pos, h.size);
		}
		return rc;
	}
	if (len >= WBUF_SIZE && !w->zs) {
		int rc = flush_buf(w);
		if (!rc)
			rc = write_records(w, data, len);
		if (!rc)
			w->data_size += len;
		return rc;
	}
	if (w->buf_len + len > WBUF_SIZE) {
		int rc = flush_buf(w);
		if (rc)
			return rc;
	}
	if (!w->buf_len)
		w->buf_since = now_ns();
	if (w->zs)
		w->buf_samples += count_samples(data, len);
	memcpy(w->buf + w->buf_len, data, len);
	w->buf_len += len;
	w->data_size += len;
	return pd_writer_tick(w);
}

int pd_writer_tick(struct pd_writer *w)
{
	if (w->failed || !w->buf_len || now_ns() - w->buf_since < PD_WRITER_FLUSH_NS)
		return 0;
	return flush_buf(w);
}

int pd_writer_flush(struct pd_writer *w)
{
	return w->failed ? -EIO : flush_buf(w);
}

uint64_t pd_writer_data_size(const struct pd_writer *w)
{
	return w->data_size;
}

/* perf's do_write_string(): u32 padded length, text, NUL padding. */
static void put_string(struct strbuf *sb, const char *s)
{
	size_t olen = strlen(s) + 1;
	size_t len = (olen + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	uint32_t l32 = (uint32_t)len;
	sb_add(sb, &l32, 4);
	sb_add(sb, s, olen - 1);
	for (size_t i = olen - 1; i < len; i++)
		sb_addch(sb, 0);
}

static void put_u32(struct strbuf *sb, uint32_t v) { sb_add(sb, &v, 4); }
static void put_u64(struct strbuf *sb, uint64_t v) { sb_add(sb, &v, 8); }

void pd_writer_set_cmdline(struct pd_writer *w, int argc, char *const *argv)
{
	sb_reset(&w->cmdline);
	w->cmdline_nr = 0;
	for (int i = 0; i < argc; i++) {
		put_string(&w->cmdline, argv[i] ? argv[i] : "");
		w->cmdline_nr++;
	}
}

void pd_writer_set_tracing_data(struct pd_writer *w, const void *data, size_t len)
{
	sb_reset(&w->tracing);
	sb_add(&w->tracing, data, len);
}

void pd_writer_set_groups(struct pd_writer *w, const bool *member, size_t n)
{
	uint32_t nr = 0;

	sb_reset(&w->groups);
	put_u32(&w->groups, 0);   /* the count, set below */
	for (size_t i = 0; i < n; i++) {
		size_t k = i + 1;

		while (k < n && member[k])
			k++;
		if (member[i] || k - i < 2)
			continue;
		put_string(&w->groups, "{anon_group}");   /* perf's name of an unnamed group */
		put_u32(&w->groups, (uint32_t)i);
		put_u32(&w->groups, (uint32_t)(k - i));
		nr++;
	}
	if (!nr)
		sb_reset(&w->groups);
	else
		memcpy(w->groups.buf, &nr, 4);
}

int pd_writer_add_build_id(struct pd_writer *w, uint16_t misc, uint32_t pid,
			   const uint8_t *id, size_t len, const char *filename)
{
	if (len == 0 || len > 20)
		return pk_error(EINVAL, "%s: build-id of %zu bytes (1..20 expected)", filename, len);
	size_t flen = strlen(filename) + 1;
	size_t fpad = (flen + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	struct perf_event_header h = {
		.type = PD_RECORD_HEADER_BUILD_ID,
		.misc = (uint16_t)(misc | PERF_RECORD_MISC_BUILD_ID_SIZE_),
		.size = (uint16_t)(BUILD_ID_REC_SIZE + fpad),
	};
	uint8_t bid[24] = { 0 };
	memcpy(bid, id, len);
	bid[20] = (uint8_t)len;
	sb_add(&w->build_ids, &h, sizeof(h));
	sb_add(&w->build_ids, &pid, 4);
	sb_add(&w->build_ids, bid, sizeof(bid));
	sb_add(&w->build_ids, filename, flen - 1);
	for (size_t i = flen - 1; i < fpad; i++)
		sb_addch(&w->build_ids, 0);
	return 0;
}

/* ---- host facts for the feature sections ---- */

static char *read_small_file(const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char *b = xmalloc(max + 1);
	size_t n = 0;
	while (n < max) {
		ssize_t r = read(fd, b + n, max - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	b[n] = 0;
	return b;
}

/* Value of "key<spaces>: value" in the text (first match), trimmed. */
static char *field_value(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, key, kl))
			continue;
		const char *p = l + kl;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':')
			continue;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		return xstrndup(p, n);
	}
	return NULL;
}

struct feat {
	int bit;
	struct strbuf body;
};

static void feat_string(struct feat *f, int bit, const char *s)
{
	f->bit = bit;
	sb_init(&f->body, 128);
	put_string(&f->body, s);
}

/* Build the feature bodies, in bit order; returns how many. */
static size_t build_features(struct pd_writer *w, struct feat *fs)
{
	size_t n = 0;
	struct utsname u;
	if (uname(&u) == 0) {
		feat_string(&fs[n++], PD_FEAT_HOSTNAME, u.nodename);
		feat_string(&fs[n++], PD_FEAT_OSRELEASE, u.release);
	}
	feat_string(&fs[n++], PD_FEAT_VERSION, PERFKIT_VERSION "-perfkit");
	if (uname(&u) == 0)
		feat_string(&fs[n++], PD_FEAT_ARCH, u.machine);

	fs[n].bit = PD_FEAT_NRCPUS;
	sb_init(&fs[n].body, 8);
	long conf = sysconf(_SC_NPROCESSORS_CONF), onl = sysconf(_SC_NPROCESSORS_ONLN);
	put_u32(&fs[n].body, (uint32_t)(conf > 0 ? conf : 1));
	put_u32(&fs[n].body, (uint32_t)(onl > 0 ? onl : 1));
	n++;

	char *cpuinfo = read_small_file("/proc/cpuinfo", 1 << 16);
	if (cpuinfo) {
		char *model = field_value(cpuinfo, "model name");
		if (model) {
			/* perf squeezes runs of blanks to one */
			char *d = model;
			for (char *s = model; *s; s++)
				if (!(*s == ' ' && d > model && d[-1] == ' '))
					*d++ = *s;
			*d = 0;
			feat_string(&fs[n++], PD_FEAT_CPUDESC, model);
			free(model);
		}
		char *vendor = field_value(cpuinfo, "vendor_id");
		char *family = field_value(cpuinfo, "cpu family");
		char *modelno = field_value(cpuinfo, "model");
		char *stepping = field_value(cpuinfo, "stepping");
		if (vendor && family && modelno && stepping) {
			char id[256];
			snprintf(id, sizeof(id), "%s,%s,%s,%s", vendor, family, modelno, stepping);
			feat_string(&fs[n++], PD_FEAT_CPUID, id);
		}
		free(vendor);
		free(family);
		free(modelno);
		free(stepping);
		free(cpuinfo);
	}

	char *meminfo = read_small_file("/proc/meminfo", 4096);
	if (meminfo) {
		char *v = field_value(meminfo, "MemTotal");
		if (v) {
			fs[n].bit = PD_FEAT_TOTAL_MEM;
			sb_init(&fs[n].body, 8);
			put_u64(&fs[n].body, strtoull(v, NULL, 10));
			n++;
			free(v);
		}
		free(meminfo);
	}

	if (w->zlevel) {
		/* perf's write_compressed: version 0, type 1 (zstd), level, the
		 * data's ratio rounded (0 while unknown: a pipe's start), the
		 * ring's size in bytes */
		fs[n].bit = PD_FEAT_COMPRESSED;
		sb_init(&fs[n].body, 20);
		put_u32(&fs[n].body, 0);
		put_u32(&fs[n].body, 1);
		put_u32(&fs[n].body, (uint32_t)w->zlevel);
		put_u32(&fs[n].body, w->zout ? (uint32_t)((double)w->zraw / (double)w->zout + 0.5) : 0);
		put_u32(&fs[n].body, w->zmmap_len);
		n++;
	}

	fs[n].bit = PD_FEAT_CMDLINE;
	sb_init(&fs[n].body, w->cmdline.len + 8);
	put_u32(&fs[n].body, w->cmdline_nr);
	sb_add(&fs[n].body, w->cmdline.buf, w->cmdline.len);
	n++;

	fs[n].bit = PD_FEAT_EVENT_DESC;
	sb_init(&fs[n].body, 512);
	put_u32(&fs[n].body, (uint32_t)w->nr_ev);
	put_u32(&fs[n].body, PD_WRITER_ATTR_SIZE);
	for (size_t i = 0; i < w->nr_ev; i++) {
		sb_add(&fs[n].body, &w->ev[i].attr, PD_WRITER_ATTR_SIZE);
		put_u32(&fs[n].body, (uint32_t)w->ev[i].nr_ids);
		put_string(&fs[n].body, w->ev[i].name);
		if (w->ev[i].nr_ids)
			sb_add(&fs[n].body, w->ev[i].ids, w->ev[i].nr_ids * 8);
	}
	n++;
	return n;
}

/* Pipe mode's start: header, HEADER_ATTR and HEADER_FEATURE records, the
 * tracing data (perf's order; tools/perf/util/header.c and
 * perf.data-file-format.txt, "Pipe-mode data"). */
static int start_pipe(struct pd_writer *w)
{
	struct strbuf sb;
	struct feat fs[16];

	/* a record's size is 16 bits: an event with more ids than fit (about
	 * 8 000 threads x CPUs) cannot be said in this form */
	for (size_t i = 0; i < w->nr_ev; i++)
		if (sizeof(struct perf_event_header) + PD_WRITER_ATTR_SIZE + w->ev[i].nr_ids * 8 > UINT16_MAX)
			return pk_error(E2BIG, "standard output: event %s has %zu sample ids, more than a pipe-mode "
					"HEADER_ATTR record holds; give -o FILE", w->ev[i].name, w->ev[i].nr_ids);
	sb_init(&sb, 8192);
	sb_add(&sb, "PERFILE2", 8);
	put_u64(&sb, 16);   /* the pipe header's size */
	for (size_t i = 0; i < w->nr_ev; i++) {
		struct perf_event_attr a = w->ev[i].attr;
		struct perf_event_header h = {
			.type = PD_RECORD_HEADER_ATTR,
			.size = (uint16_t)(sizeof(h) + PD_WRITER_ATTR_SIZE + w->ev[i].nr_ids * 8),
		};
		a.size = PD_WRITER_ATTR_SIZE;
		sb_add(&sb, &h, sizeof(h));
		sb_add(&sb, &a, PD_WRITER_ATTR_SIZE);
		if (w->ev[i].nr_ids)
			sb_add(&sb, w->ev[i].ids, w->ev[i].nr_ids * 8);
	}
	size_t nf = build_features(w, fs);
	for (size_t i = 0; i <= nf; i++) {
		/* a feature too big for one record (a command line of 64 KiB) is
		 * left out, as perf leaves out what it cannot write */
		size_t len = i < nf && fs[i].body.len <= UINT16_MAX - 16 ? fs[i].body.len : 0;
		if (i < nf && !len) {
			sb_release(&fs[i].body);
			continue;
		}
		struct perf_event_header h = {
			.type = PD_RECORD_HEADER_FEATURE,
			.size = (uint16_t)(sizeof(h) + 8 + len),
		};
		sb_add(&sb, &h, sizeof(h));
		put_u64(&sb, i < nf ? (uint64_t)fs[i].bit : PD_FEAT_LAST_PERF61);
		if (i < nf) {
			sb_add(&sb, fs[i].body.buf, len);
			sb_release(&fs[i].body);
		}
	}
	/* each event's name as perf's EVENT_UPDATE (type NAME): perf names a
	 * pipe's events from these, not from EVENT_DESC; sized as perf 6.1's
	 * (its struct perf_record_event_update is 40 bytes) */
	for (size_t i = 0; i < w->nr_ev; i++) {
		if (!w->ev[i].nr_ids)
			continue;
		size_t nlen = strlen(w->ev[i].name) + 1, size = (40 + nlen + 7) / 8 * 8;
		struct perf_event_header h = { .type = PD_RECORD_EVENT_UPDATE, .size = (uint16_t)size };
		sb_add(&sb, &h, sizeof(h));
		put_u64(&sb, 2);   /* PERF_EVENT_UPDATE__NAME */
		put_u64(&sb, w->ev[i].ids[0]);
		sb_add(&sb, w->ev[i].name, nlen);
		for (size_t k = 24 + nlen; k < size; k++)
			sb_addch(&sb, 0);
	}
	if (w->tracing.len) {
		size_t padded = (w->tracing.len + 7) / 8 * 8;
		struct perf_event_header h = { .type = PD_RECORD_HEADER_TRACING_DATA, .size = 16 };
		sb_add(&sb, &h, sizeof(h));
		put_u32(&sb, (uint32_t)padded);
		put_u32(&sb, 0);
		sb_add(&sb, w->tracing.buf, w->tracing.len);
		for (size_t i = w->tracing.len; i < padded; i++)
			sb_addch(&sb, 0);
	}
	w->started_ids = total_ids(w);
	int rc = write_all(w, sb.buf, sb.len);
	sb_release(&sb);
	w->data_off = w->file_off;
	w->started = !rc;
	return rc;
}

static int cmp_feat(const void *a, const void *b)
{
	return ((const struct feat *)a)->bit - ((const struct feat *)b)->bit;
}

/* The data on file, cut to its last whole record; its samples counted in
 * w->kept_samples. */
static uint64_t whole_raw_records(struct pd_writer *w)
{
	uint64_t end = w->file_off - w->data_off, pos = 0;
	struct perf_event_header h;
	while (end - pos >= sizeof(h) &&
	       pread(w->fd, &h, sizeof(h), (off_t)(w->data_off + pos)) == (ssize_t)sizeof(h) &&
	       h.size >= sizeof(h) && h.size <= end - pos) {
		pos += h.size;
		w->kept_samples += h.type == PERF_RECORD_SAMPLE;
	}
	return pos;
}

/* After a full disk: the data on file to keep, and its samples in
 * w->kept_samples; compressed, up to the end of the last whole flush (a
 * flush cut short ends its stream in the middle of a record). */
static uint64_t whole_records(struct pd_writer *w)
{
	if (!w->zs)
		return whole_raw_records(w);
	w->kept_samples = w->zkept_samples;
	return w->zkept_end;
}

/* The tail: feature table and bodies (level 0: all; 1: without build-ids;
 * TRACING_DATA kept, the tracepoint samples are unreadable without it;
 * 2: none), and the ids and attrs again when ids came after the start. */
static size_t build_tail(struct pd_writer *w, int level, struct strbuf *tail, uint64_t base,
			 uint64_t *attrs_off, uint64_t features[4])
{
	struct feat fs[16];
	size_t nf = level < 2 ? build_features(w, fs) : 0;

	if (level < 2 && w->tracing.len) {   /* tracepoint samples need it */
		fs[nf].bit = PD_FEAT_TRACING_DATA;
		sb_init(&fs[nf].body, w->tracing.len);
		sb_add(&fs[nf].body, w->tracing.buf, w->tracing.len);
		nf++;
	}
	if (level < 2 && w->groups.len) {
		fs[nf].bit = PD_FEAT_GROUP_DESC;
		sb_init(&fs[nf].body, w->groups.len);
		sb_add(&fs[nf].body, w->groups.buf, w->groups.len);
		nf++;
	}
	if (level == 0 && w->build_ids.len) {
		fs[nf].bit = PD_FEAT_BUILD_ID;
		sb_init(&fs[nf].body, w->build_ids.len);
		sb_add(&fs[nf].body, w->build_ids.buf, w->build_ids.len);
		nf++;
	}
	qsort(fs, nf, sizeof(fs[0]), cmp_feat);
	uint64_t off = base + nf * 16;
	for (size_t i = 0; i < nf; i++) {
		put_u64(tail, off);
		put_u64(tail, fs[i].body.len);
		off += fs[i].body.len;
	}
	for (size_t i = 0; i < nf; i++)
		sb_add(tail, fs[i].body.buf, fs[i].body.len);
	memset(features, 0, 4 * sizeof(uint64_t));
	for (size_t i = 0; i < nf; i++) {
		features[fs[i].bit / 64] |= 1ull << (fs[i].bit % 64);
		sb_release(&fs[i].body);
	}
	*attrs_off = w->attrs_off;
	if (total_ids(w) != w->started_ids)
		put_attrs(w, tail, base + tail->len, attrs_off);
	return nf;
}

/* Pipe mode's end: the buffered records, then the build-ids as
 * HEADER_BUILD_ID records (perf inject -b's form). */
static int finish_pipe(struct pd_writer *w)
{
	int rc = w->failed ? -EIO : flush_buf(w);

	if (!rc && w->build_ids.len)
		rc = write_all(w, w->build_ids.buf, w->build_ids.len);
	if (close(w->fd) != 0 && !rc && errno != EINTR)
		rc = pk_error(errno, "standard output: close failed: %s", strerror(errno));
	w->fd = -1;
	if (rc == -EIO)
		pk_error(EIO, "standard output: an earlier write failed");
	pd_writer_abort(w);
	return rc;
}

int pd_writer_finish(struct pd_writer *w)
{
	int rc = 0, cut = 0;  /* cut: the disk filled up in this call */

	if (w->pipe)
		return finish_pipe(w);
	if (!w->failed) {
		rc = flush_buf(w);   /* starts the file too */
		cut = w->full;
		if (!rc && w->zs)   /* the data on file: the records compressed */
			w->data_size = w->file_off - w->data_off;
	}
	if (w->full && w->started) {
		/* keep what fits: the whole records written (the header and
		 * attrs are on file already); the features go after them, or
		 * fewer of them, or none */
		w->data_size = whole_records(w);
		w->file_off = w->data_off + w->data_size;
		w->buf_len = 0;
		w->failed = 0;
		rc = lseek(w->fd, (off_t)w->file_off, SEEK_SET) < 0 ?
			pk_error(errno, "%s: seek failed: %s", w->path, strerror(errno)) : 0;
	} else if (w->full) {
		rc = pk_error(ENOSPC, "%s: no space left on the device for even the header", w->path);
	} else if (!rc && w->failed) {
		rc = -EIO;
	}
	if (rc) {
		if (rc == -EIO)
			pk_error(EIO, "%s: an earlier write failed", w->path);
		pd_writer_abort(w);
		return rc;
	}

	uint64_t base = w->data_off + w->data_size, attrs_off = 0, features[4];
	for (int level = 0; level < 3; level++) {
		struct strbuf tail;
		sb_init(&tail, 8192);
		build_tail(w, level, &tail, base, &attrs_off, features);
		rc = write_all(w, tail.buf, tail.len);
		sb_release(&tail);
		if (!rc || !w->full)
			break;
		/* the disk is full: less of the tail */
		cut = 1;
		w->failed = w->full = 0;
		w->dropped_features = level + 1;
		w->file_off = base;
		if (lseek(w->fd, (off_t)base, SEEK_SET) < 0 || ftruncate(w->fd, (off_t)base) != 0) {
			rc = pk_error(errno, "%s: seek failed: %s", w->path, strerror(errno));
			break;
		}
	}

	struct pd_writer_header h;
	fill_header(w, &h, attrs_off);
	memcpy(h.features, features, sizeof(h.features));

	/* drop what lies past the tail: space reserved and not used, or data
	 * past the last whole record after a full disk */
	if (!rc && ftruncate(w->fd, (off_t)w->file_off) != 0)
		rc = pk_error(errno, "%s: cannot truncate: %s", w->path, strerror(errno));
	if (!rc && pwrite(w->fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		rc = pk_error(errno ? errno : EIO, "%s: cannot write the header: %s", w->path,
			      strerror(errno ? errno : EIO));
	if (!rc && w->direct)
		rc = copy_out(w);
	if (!rc && close(w->fd) != 0)
		rc = pk_error(errno, "%s: close failed: %s", w->path, strerror(errno));
	else if (rc)
		close(w->fd);
	w->fd = -1;
	if (!rc && w->direct) {
		unlink(w->tmp);
	} else if (!rc && rename(w->tmp, w->path) != 0)
		rc = pk_error(errno, "%s: cannot rename to '%s': %s", w->tmp, w->path, strerror(errno));
	if (rc) {
		pd_writer_abort(w);
		return rc;
	}
	free(w->tmp);
	w->tmp = NULL;
	if (cut && !w->failed)
		/* the file is complete, but not all the data given */
		rc = pk_error(ENOSPC, "%s: no space left on the device: kept the first %llu bytes of data%s",
			      w->path, (unsigned long long)w->data_size,
			      w->dropped_features == 1 ? " (without the build-ids)" :
			      w->dropped_features == 2 ? " (without the header features)" : "");
	pd_writer_abort(w); /* frees */
	return rc;
}

uint64_t pd_writer_kept_samples(struct pd_writer *w)
{
	w->kept_samples = 0;
	if (w->started && w->file_off >= w->data_off)
		whole_records(w);
	return w->kept_samples;
}

void pd_writer_abort(struct pd_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->tmp && !w->keep_tmp)
		unlink(w->tmp);
	for (size_t i = 0; i < w->nr_ev; i++) {
		free(w->ev[i].name);
		free(w->ev[i].ids);
	}
	free(w->ev);
	free(w->buf);
	free(w->zbuf);
	ZSTD_freeCStream(w->zs);
	sb_release(&w->cmdline);
	sb_release(&w->build_ids);
	sb_release(&w->tracing);
	sb_release(&w->groups);
	free(w->tmp);
	free(w->path);
	free(w);
}
