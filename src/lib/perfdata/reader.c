/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reader.c — the reading half of perfdata.h: map a perf.data file, validate
 * its header and sections, iterate records and decode samples.
 *
 * Format facts: tools/perf/Documentation/perf.data-file-format.txt,
 * perf_event_open(2) (sample layout and sample_id_all trailer).
 * Nothing read from the file is trusted: every length is compared with the
 * bytes that remain before it is used for a loop or an allocation.
 *
 * Pipe mode (tools/perf/util/header.c, perf_event__synthesize_for_pipe):
 * a 16-byte header, then HEADER_ATTR records (attr of attr.size bytes, then
 * the event's ids), HEADER_FEATURE records ({u64 feature id, the feature's
 * file-mode body}, not always a multiple of 8 bytes), HEADER_BUILD_ID,
 * TRACING_DATA / AUXTRACE (followed by a payload outside their size), and
 * the data.  perf record -z: PERF_RECORD_COMPRESSED payloads are one zstd
 * stream per file (perf's zstd_decompress_stream: one ZSTD_DStream fed
 * every record in order); HEADER_COMPRESSED flags such files.  Both are
 * decoded once at open into a heap buffer that stands in for the map.
 */
#include "perfdata/perfdata.h"
#include "perfdata/header.h"
#include "base/bytes.h"

#include "base/error.h"
#include "base/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define PD_MAGIC 0x32454c4946524550ULL     /* "PERFILE2" little-endian */
#define PD_MAGIC_SWAPPED 0x50455246494c4532ULL
#define PD_HEADER_SIZE 104
#define PD_PIPE_HEADER_SIZE 16
/* Decompressed (perf record -z) or pipe-mode data is held in memory; a
 * stream that would expand beyond this is rejected (-EFBIG). */
#define PD_MAX_MEMDATA (64ULL << 30)

/* The private side of a pd_file: where the bytes behind f->map live. */
struct pd_file_priv {
	struct pd_file pub;
	uint8_t *heap;           /* f->map when the data is in memory (pipe, -z) */
	uint64_t mapped_size;    /* bytes mmapped at f->map (0: heap) */
	bool compressed;         /* the data section held PERF_RECORD_COMPRESSED */
	bool pipe;               /* pipe-mode stream */
	uint8_t *tracing;        /* f->tracing_data: a copy (the map can be replaced) */
	uint64_t released;       /* map bytes dropped by pd_release_before */
	struct pd_stream *stream; /* a pipe-mode stream read as it is processed */
	uint8_t *feat_copy[PD_FEAT_KEPT]; /* f->feat_body */
	bool read_warned;        /* the PERF_SAMPLE_READ warning given */
};

#define PRIV(f) ((struct pd_file_priv *)(f))

/* Is [off, off+len) inside a buffer of size total? (overflow-safe) */
static bool in_range(uint64_t off, uint64_t len, uint64_t total)
{
	return off <= total && len <= total - off;
}

/* perf 6.1's event modifiers (evsel__add_modifiers): ":" then k, u, h
 * for the levels not excluded when one is, p per precise_ip, then H, G
 * when exclude_host is set or exclude_guest is its default (set when a
 * level is excluded or precise_ip is set). */
static void add_modifiers(struct strbuf *sb, const struct perf_event_attr *a)
{
	char mod[16];
	size_t n = 0;
	bool guest_default = false;

	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		if (!a->exclude_kernel)
			mod[n++] = 'k';
		if (!a->exclude_user)
			mod[n++] = 'u';
		if (!a->exclude_hv)
			mod[n++] = 'h';
		guest_default = true;
	}
	if (a->precise_ip) {
		for (unsigned i = 0; i < a->precise_ip; i++)
			mod[n++] = 'p';
		guest_default = true;
	}
	if (a->exclude_host || (bool)a->exclude_guest == guest_default) {
		if (!a->exclude_host)
			mod[n++] = 'H';
		if (!a->exclude_guest)
			mod[n++] = 'G';
	}
	if (n)
		sb_addf(sb, ":%.*s", (int)n, mod);
}

/* perf's software/hardware event names, for files without EVENT_DESC
 * (perf 6.1's evsel__name: the name, then its modifiers). */
static char *default_name(const struct perf_event_attr *a)
{
	static const char *const sw[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches",
		"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
		"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
	};
	static const char *const hw[] = {
		"cycles", "instructions", "cache-references", "cache-misses",
		"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
		"stalled-cycles-backend", "ref-cycles",
	};
	struct strbuf sb = STRBUF_INIT;

	if (a->type == PERF_TYPE_SOFTWARE && a->config < sizeof(sw) / sizeof(sw[0])) {
		sb_addstr(&sb, sw[a->config]);
		add_modifiers(&sb, a);
	} else if (a->type == PERF_TYPE_HARDWARE && a->config < sizeof(hw) / sizeof(hw[0])) {
		sb_addstr(&sb, hw[a->config]);
		add_modifiers(&sb, a);
	} else if (a->type == PERF_TYPE_RAW) {
		sb_addf(&sb, "raw 0x%llx", (unsigned long long)a->config);
	} else
		sb_addf(&sb, "raw-%u-0x%llx", a->type, (unsigned long long)a->config);
	return sb_detach(&sb, NULL);
}

/* A perf header string: u32 len, then len bytes (NUL-padded). */
static int read_string(const uint8_t *p, uint64_t avail, char **out, uint64_t *used)
{
	uint32_t len;

	if (avail < 4)
		return -1;
	len = rd32(p);
	if (len > avail - 4)
		return -1;
	*out = xstrndup((const char *)p + 4, len);
	*used = 4 + (uint64_t)len;
	return 0;
}

static void parse_event_desc(struct pd_file *f, const uint8_t *p, uint64_t size)
{
	uint32_t nr, asz;
	uint64_t off = 8;

	if (size < 8)
		return;
	nr = rd32(p);
	asz = rd32(p + 4);
	if (asz < PERF_ATTR_SIZE_VER0)
		return;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nr_ids;
		uint64_t used;
		char *name;

		if (!in_range(off, (uint64_t)asz + 4, size))
			return;
		off += asz;
		nr_ids = rd32(p + off);
		off += 4;
		if (read_string(p + off, size - off, &name, &used))
			return;
		off += used;
		if ((uint64_t)nr_ids > (size - off) / 8) {
			free(name);
			return;
		}
		off += (uint64_t)nr_ids * 8;
		if (i < f->nr_evsels) {
			free(f->evsels[i].name);
			f->evsels[i].name = name;
		} else {
			free(name);
		}
	}
}

static void parse_build_ids(struct pd_file *f, const uint8_t *p, uint64_t size)
{
	uint64_t off = 0;
	size_t alloc = 0;   /* known room: none yet (pipe data calls this once a record) */

	while (off + 8 <= size) {
		const uint8_t *r = p + off;
		uint16_t rsize;
		struct pd_build_id *b;
		size_t flen;

		memcpy(&rsize, r + 6, 2);
		if (rsize < 36 || rsize > size - off)
			return;
		if (f->nr_build_ids >= alloc) {
			alloc = f->nr_build_ids < 8 ? 16 : f->nr_build_ids * 2;
			f->build_ids = xrealloc(f->build_ids, alloc * sizeof(*f->build_ids));
		}
		b = &f->build_ids[f->nr_build_ids++];
		memset(b, 0, sizeof(*b));
		memcpy(&b->misc, r + 4, 2);
		b->pid = rd32(r + 8);
		memcpy(b->data, r + 12, 20);
		b->size = (b->misc & (1u << 15)) && r[32] <= 20 ? r[32] : 20;
		flen = strnlen((const char *)r + 36, rsize - 36);
		b->filename = xstrndup((const char *)r + 36, flen);
		off += rsize;
	}
}

/* HEADER_TRACING_DATA (a feature section, or a pipe-mode record's
 * payload): kept as a copy, since -z and pipe data replace the map. */
static void set_tracing_data(struct pd_file *f, const uint8_t *p, uint64_t size)
{
	struct pd_file_priv *pv = PRIV(f);

	free(pv->tracing);
	/* a NUL after the data: its text parts (a format's last line) end
	 * there for the string functions that read them */
	pv->tracing = xmalloc((size_t)size + 1);
	memcpy(pv->tracing, p, (size_t)size);
	((char *)pv->tracing)[size] = '\0';
	f->tracing_data = pv->tracing;
	f->tracing_data_size = size;
}

/* Decode the body of feature BIT (size bytes at p). */
static void parse_feature(struct pd_file *f, int bit, const uint8_t *p, uint64_t size)
{
	uint64_t used;
	char **str = NULL;

	if (bit > 0 && bit < PD_FEAT_MAX)   /* (pipe mode: from its records) */
		f->features[bit / 64] |= 1ULL << (bit % 64);
	if (bit > 0 && bit < PD_FEAT_KEPT && bit != PD_FEAT_TRACING_DATA && bit != PD_FEAT_BUILD_ID &&
	    size < (16u << 20)) {
		struct pd_file_priv *pv = PRIV(f);

		free(pv->feat_copy[bit]);
		pv->feat_copy[bit] = xmalloc(size ? (size_t)size : 1);
		memcpy(pv->feat_copy[bit], p, (size_t)size);
		f->feat_body[bit] = pv->feat_copy[bit];
		f->feat_size[bit] = size;
	}
	switch (bit) {
	case PD_FEAT_HOSTNAME: str = &f->hostname; break;
	case PD_FEAT_OSRELEASE: str = &f->osrelease; break;
	case PD_FEAT_VERSION: str = &f->version; break;
	case PD_FEAT_ARCH: str = &f->arch; break;
	case PD_FEAT_CPUDESC: str = &f->cpudesc; break;
	case PD_FEAT_CPUID: str = &f->cpuid; break;
	case PD_FEAT_NRCPUS:
		if (size >= 8) {
			f->nr_cpus_avail = rd32(p);
			f->nr_cpus_online = rd32(p + 4);
		}
		break;
	case PD_FEAT_CMDLINE: {
		struct strbuf sb = STRBUF_INIT;
		uint64_t o = 4;
		uint32_t n;

		if (size < 4)
			break;
		n = rd32(p);
		for (uint32_t i = 0; i < n && o < size; i++) {
			char *s;

			if (read_string(p + o, size - o, &s, &used))
				break;
			if (sb.len)
				sb_addch(&sb, ' ');
			sb_addstr(&sb, s);
			free(s);
			o += used;
		}
		free(f->cmdline);
		f->cmdline = sb_detach(&sb, NULL);
		break;
	}
	case PD_FEAT_EVENT_DESC:
		parse_event_desc(f, p, size);
		break;
	case PD_FEAT_BUILD_ID:
		parse_build_ids(f, p, size);
		break;
	case PD_FEAT_COMPRESSED:
		PRIV(f)->compressed = true;
		break;
	case PD_FEAT_TRACING_DATA:
		set_tracing_data(f, p, size);
		break;
	default:
		break;
	}
	if (str) {
		char *s;

		if (!read_string(p, size, &s, &used)) {
			free(*str);
			*str = s;
		}
	}
}

static void parse_features(struct pd_file *f)
{
	uint64_t secoff = f->data_offset + f->data_size;
	int nr = 0;

	int missing = -1;   /* the first feature the file holds no whole body of */

	for (int bit = 0; bit < PD_FEAT_MAX; bit++) {
		uint64_t off, size;
		const uint8_t *p;

		if (!(f->features[bit / 64] & (1ULL << (bit % 64))))
			continue;
		if (!in_range(secoff + (uint64_t)nr * 16, 16, f->size)) {
			if (missing < 0)
				missing = bit;
			break;
		}
		p = f->map + secoff + (uint64_t)nr * 16;
		nr++;
		off = rd64(p);
		size = rd64(p + 8);
		if (!in_range(off, size, f->size)) {
			if (missing < 0)
				missing = bit;
			continue;
		}
		parse_feature(f, bit, f->map + off, size);
	}
	/* perf reads on silently (an event named "cpu-clock:HG", a tracepoint
	 * "raw-2-0x174"): one line says why the names are not the file's */
	if (missing >= 0 && secoff <= f->size)   /* else the data's own cut is said */
		pk_warn("%s: the header's feature sections end past the file's end (offset %llu; cut "
			"short?): %s and the features after it not read (event names, tracing data, build-ids)",
			f->path, (unsigned long long)f->size,
			pd_feature_name(missing) ? pd_feature_name(missing) : "a feature");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void check_id_layout(struct pd_file *f);

static int parse_attrs(struct pd_file *f, uint64_t off, uint64_t size)
{
	/* each entry: the attr, then a {offset, size} section of its ids;
	 * the header's attr_size counts both */
	uint64_t entsz = f->attr_size, asz;
	size_t n;

	if (f->attr_size < PERF_ATTR_SIZE_VER0 + 16 || f->attr_size > 4096)
		return pk_error(EINVAL, "%s: bad attr_size %llu in header at offset 16 (expected %d..4096)",
				f->path, (unsigned long long)f->attr_size, PERF_ATTR_SIZE_VER0 + 16);
	asz = entsz - 16;
	if (size % entsz)
		return pk_error(EINVAL, "%s: attr section size %llu at offset 32 is not a multiple of %llu",
				f->path, (unsigned long long)size, (unsigned long long)entsz);
	n = size / entsz;
	if (n == 0)
		return pk_error(EINVAL, "%s: no events in the attr section (offset %llu)",
				f->path, (unsigned long long)off);
	f->evsels = xcalloc(n, sizeof(*f->evsels));
	f->nr_evsels = n;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *p = f->map + off + i * entsz;
		struct pd_evsel *e = &f->evsels[i];
		size_t cp = asz < sizeof(e->attr) ? (size_t)asz : sizeof(e->attr);
		uint64_t ioff = rd64(p + asz), isize = rd64(p + asz + 8);

		memcpy(&e->attr, p, cp);
		if (isize % 8 || !in_range(ioff, isize, f->size))
			return pk_error(EINVAL, "%s: event %zu: id section {%llu, %llu} outside the file",
					f->path, i, (unsigned long long)ioff, (unsigned long long)isize);
		e->nr_ids = isize / 8;
		if (e->nr_ids) {
			e->ids = xmalloc(isize);
			memcpy(e->ids, f->map + ioff, isize);
			qsort(e->ids, e->nr_ids, 8, cmp_u64);
		}
		e->name = default_name(&e->attr);
	}
	check_id_layout(f);
	return 0;
}

/* Do all events agree on the sample_id layout? (sample_id_all_known) */
static void check_id_layout(struct pd_file *f)
{
	f->sample_id_all_known = true;
	for (size_t i = 0; i < f->nr_evsels && !PRIV(f)->read_warned; i++)
		if (f->evsels[i].attr.sample_type & PERF_SAMPLE_READ) {
			/* perf record's ':S': perf script and report make one
			 * sample per member from the values read; perfkit reads
			 * past them */
			PRIV(f)->read_warned = true;
			pk_warn("%s: event '%s' samples read its group's counters (PERF_SAMPLE_READ, "
				"perf record's ':S'): not supported; each sample is counted for its own "
				"event only, the values read are not shown", f->path,
				f->evsels[i].name ? f->evsels[i].name : "?");
		}
	for (size_t i = 1; i < f->nr_evsels; i++) {
		const struct perf_event_attr *a = &f->evsels[0].attr, *b = &f->evsels[i].attr;

		if (a->sample_id_all != b->sample_id_all ||
		    (a->sample_type & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID)) !=
		    (b->sample_type & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID)))
			f->sample_id_all_known = false;
	}
}

/* why the record at hand was not read: " (record there: ...)"; true when it
 * is well-formed but longer than what is left (the data cut off) */
static bool record_why(char *why, size_t n, uint32_t type, uint16_t size, unsigned long long left)
{
	if (size < sizeof(struct perf_event_header)) {
		snprintf(why, n, " (record there: type %u, size %u, less than its 8-byte header)", type, size);
		return false;
	}
	if (size <= left) {
		snprintf(why, n, " (record there: type %u, size %u, not a multiple of 8)", type, size);
		return false;
	}
	snprintf(why, n, " (record there: type %u, size %u, does not fit in the %llu bytes left)",
		 type, size, left);
	return true;
}

static void warn_short(const struct pd_file *f, uint64_t stop, const char *why);

/* ---- data held in memory: pipe mode and perf record -z ---- */

struct membuf {
	uint8_t *buf;
	uint64_t len, cap;
};

/* The most decompressed or piped data held in memory: PD_MAX_MEMDATA, or
 * half of this machine's memory when that is less (at least 256 MiB), so
 * a small file that claims or expands to more (a zstd bomb) is an error,
 * not an abort.  PERFKIT_MEM_LIMIT_KB sets it (tests; tight machines). */
static uint64_t mem_limit(void)
{
	const char *env = getenv("PERFKIT_MEM_LIMIT_KB");
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	if (env && *env) {
		char *end;
		unsigned long long kb = strtoull(env, &end, 10);
		if (!*end && kb > 0 && kb < (PD_MAX_MEMDATA >> 10))
			return (uint64_t)kb << 10;
	}
	uint64_t half = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz / 2 : PD_MAX_MEMDATA;

	if (half < (256ULL << 20))
		half = 256ULL << 20;
	return half < PD_MAX_MEMDATA ? half : PD_MAX_MEMDATA;
}

/* Make room for `more` bytes; -EFBIG past mem_limit(), -ENOMEM when the
 * memory cannot be had. */
static int mb_reserve(const struct pd_file *f, struct membuf *m, uint64_t more)
{
	uint64_t cap, lim = mem_limit();

	if (m->len > lim || more > lim - m->len)
		return pk_error(EFBIG, "%s: data would expand beyond %llu KiB in memory (half of this "
				"machine's memory at most)", f->path, (unsigned long long)(lim >> 10));
	if (m->len + more <= m->cap)
		return 0;
	cap = m->cap ? m->cap : 1 << 20;
	while (cap < m->len + more)
		cap *= 2;
	if (cap > lim)
		cap = lim;
	uint8_t *nb = realloc(m->buf, (size_t)cap);
	if (!nb)
		return pk_error(ENOMEM, "%s: cannot hold %llu MiB of data in memory", f->path,
				(unsigned long long)(cap >> 20));
	m->buf = nb;
	m->cap = cap;
	return 0;
}

/* Read from fd into m until it holds want bytes (UINT64_MAX: the whole
 * stream, a pipe or other) or the stream ends; room is made 1 MiB (or what
 * is still wanted, when less) at a time. */
static int read_upto(const struct pd_file *f, int fd, struct membuf *m, uint64_t want)
{
	while (m->len < want) {
		uint64_t left = want - m->len;
		int err = mb_reserve(f, m, left < (1 << 20) ? left : (1 << 20));

		if (err)
			return err;
		uint64_t room = m->cap - m->len < left ? m->cap - m->len : left;
		ssize_t n = read(fd, m->buf + m->len, (size_t)room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return pk_error(errno, "%s: read error at offset %llu: %s", f->path,
					(unsigned long long)m->len, strerror(errno));
		if (n == 0)
			break;
		m->len += (uint64_t)n;
	}
	return 0;
}

/* The decompressor's side: a fixed window the zstd stream is decoded into
 * and cut into records there, so memory follows the records kept, not the
 * bytes a payload expands to. */
struct zwin {
	ZSTD_DStream *ds;
	uint8_t *buf;            /* ZWIN_SIZE bytes */
	size_t len;              /* decoded bytes not yet taken (a record's start) */
	uint16_t last_type;      /* type of the last record kept */
	uint64_t merged;         /* FINISHED_ROUND records folded into the one before */
	bool broken;             /* a corrupt payload or record ended the walk */
};
#define ZWIN_SIZE (1u << 20)   /* > the largest record (64 KiB) */

/* Take the whole records at the window's start into m: a run of
 * FINISHED_ROUND records is kept as one (nothing between them to order: a
 * payload of 512 Mi of them took 4 GiB), everything else as it is. */
static int take_records(const struct pd_file *f, struct zwin *z, struct membuf *m, uint64_t off)
{
	size_t pos = 0;
	int err = 0;

	while (z->len - pos >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;

		memcpy(&h, z->buf + pos, sizeof(h));
		if (h.size < sizeof(h))
			return pk_error(EPROTO, "%s: compressed record at offset %llu: a decompressed record of "
					"size %u (at least 8 expected)", f->path, (unsigned long long)off, h.size);
		if (h.size > z->len - pos)
			break;
		if (h.type == PD_RECORD_FINISHED_ROUND && z->last_type == PD_RECORD_FINISHED_ROUND) {
			z->merged++;
		} else {
			err = mb_reserve(f, m, h.size);
			if (err)
				return err;
			memcpy(m->buf + m->len, z->buf + pos, h.size);
			m->len += h.size;
			z->last_type = h.type;
		}
		pos += h.size;
	}
	memmove(z->buf, z->buf + pos, z->len - pos);
	z->len -= pos;
	return 0;
}

/* One PERF_RECORD_COMPRESSED payload through the stream decompressor that
 * lives across all the file's compressed records (perf compresses the ring
 * buffer as one zstd stream per mmap, cut into records). */
static int decompress(const struct pd_file *f, struct zwin *z, struct membuf *m,
		      const uint8_t *src, size_t len, uint64_t off)
{
	ZSTD_inBuffer in = { src, len, 0 };

	for (;;) {
		ZSTD_outBuffer out = { z->buf + z->len, ZWIN_SIZE - z->len, 0 };
		size_t r = ZSTD_decompressStream(z->ds, &out, &in);

		if (ZSTD_isError(r))
			return pk_error(EPROTO, "%s: compressed record at offset %llu: zstd: %s", f->path,
					(unsigned long long)off, ZSTD_getErrorName(r));
		z->len += out.pos;
		int err = take_records(f, z, m, off);
		if (err)
			return err;
		if (in.pos == in.size && out.pos < out.size)
			return 0;
	}
}

/* A pipe-mode PERF_RECORD_HEADER_ATTR: the attr (attr.size bytes), then
 * the event's sample ids up to the end of the record. */
static int add_pipe_attr(struct pd_file *f, const uint8_t *rec, uint32_t size, uint64_t off)
{
	const uint8_t *body = rec + 8;
	uint64_t blen = size - 8, asz, nids;
	struct pd_evsel *e;

	if (blen < PERF_ATTR_SIZE_VER0)
		return pk_error(EINVAL, "%s: attr record at offset %llu: %u bytes, too short for an attr",
				f->path, (unsigned long long)off, size);
	asz = rd32(body + 4);
	if (asz == 0)
		asz = PERF_ATTR_SIZE_VER0;
	if (asz < PERF_ATTR_SIZE_VER0 || asz > blen || asz % 8)
		return pk_error(EINVAL, "%s: attr record at offset %llu: attr.size %llu does not fit in %llu bytes",
				f->path, (unsigned long long)off, (unsigned long long)asz,
				(unsigned long long)blen);
	f->evsels = xrealloc(f->evsels, (f->nr_evsels + 1) * sizeof(*f->evsels));
	e = &f->evsels[f->nr_evsels++];
	memset(e, 0, sizeof(*e));
	memcpy(&e->attr, body, asz < sizeof(e->attr) ? (size_t)asz : sizeof(e->attr));
	nids = (blen - asz) / 8;
	if (nids) {
		e->ids = xmalloc((size_t)nids * 8);
		memcpy(e->ids, body + asz, (size_t)nids * 8);
		qsort(e->ids, (size_t)nids, 8, cmp_u64);
		e->nr_ids = (size_t)nids;
	}
	e->name = default_name(&e->attr);
	if (!f->attr_size)
		f->attr_size = asz + 16;
	return 0;
}

struct featref {
	uint64_t bit, off, size;
};

/* Walk the records of src[start, end) and append them to m: COMPRESSED
 * records decompressed (through *z, which lives across walks of one
 * stream), pipe-mode header records (ATTR, FEATURE, BUILD_ID, EVENT_TYPE,
 * TRACING_DATA) taken into f instead.  A record that does not fit ends the
 * walk with a warning, the records before it kept, and sets z->broken —
 * except with more (a stream with bytes still to come), where a record cut
 * by `end` only stops the walk.  *stop: where the walk stopped; base: the
 * stream offset of src[0] (for messages). */
static int walk_records(struct pd_file *f, const uint8_t *src, uint64_t start, uint64_t end,
			struct membuf *m, bool pipe, struct zwin *zp, bool more, uint64_t base,
			uint64_t *stop)
{
	struct zwin z = *zp;
	struct featref *feats = NULL;
	size_t nr_feats = 0;
	uint64_t pos = start;
	int err = 0;
	char why[160];
	bool cutoff = true;   /* short_data: the stream ends, not a bad record */

	while (pos < end) {
		struct perf_event_header h;
		const uint8_t *r = src + pos;
		uint64_t left = end - pos, extra = 0;

		if (left < sizeof(h)) {
			if (more)
				goto cut;
			snprintf(why, sizeof(why), " (truncated record header, %llu bytes left)",
				 (unsigned long long)left);
			goto short_data;
		}
		memcpy(&h, r, sizeof(h));
		if (more && h.size >= sizeof(h) && !(h.size % 8 && h.type < PD_RECORD_HEADER_ATTR) && h.size > left)
			goto cut;
		/* kernel records are 8-byte multiples; perf's own (COMPRESSED,
		 * pipe-mode HEADER_FEATURE) need not be */
		if (h.size < sizeof(h) || (h.size % 8 && h.type < PD_RECORD_HEADER_ATTR) || h.size > left) {
			cutoff = record_why(why, sizeof(why), h.type, h.size, (unsigned long long)left);
			goto short_data;
		}
		/* records followed by a payload outside their size */
		if (h.type == PD_RECORD_HEADER_TRACING_DATA && h.size >= 16)
			extra = rd32(r + 8);
		else if (h.type == PD_RECORD_AUXTRACE && h.size >= 16)
			extra = rd64(r + 8);
		if (extra > left - h.size) {
			if (more)
				goto cut;
			snprintf(why, sizeof(why), " (type %u record's %llu-byte payload does not fit)",
				 h.type, (unsigned long long)extra);
			goto short_data;
		}
		switch (h.type) {
		case PD_RECORD_COMPRESSED:
			f->nr_taken[h.type]++;
			if (!z.ds) {
				z.ds = ZSTD_createDStream();
				if (!z.ds) {
					err = pk_error(ENOMEM, "%s: cannot create a zstd decompressor", f->path);
					goto out;
				}
				ZSTD_initDStream(z.ds);
				z.buf = xmalloc(ZWIN_SIZE);
			}
			err = decompress(f, &z, m, r + 8, h.size - 8u, base + pos);
			if (err == -EPROTO) {
				pk_warn("%s; read the records before it", pk_errmsg());
				err = 0;
				z.broken = true;
				goto done;
			}
			if (err)
				goto out;
			break;
		case PD_RECORD_HEADER_ATTR:
		case PD_RECORD_HEADER_FEATURE:
		case PD_RECORD_HEADER_BUILD_ID:
		case PD_RECORD_HEADER_EVENT_TYPE:
		case PD_RECORD_HEADER_TRACING_DATA:
			if (!pipe)
				goto copy;
			f->nr_taken[h.type]++;
			if (h.type == PD_RECORD_HEADER_ATTR) {
				err = add_pipe_attr(f, r, h.size, base + pos);
				if (err)
					goto out;
			} else if (h.type == PD_RECORD_HEADER_FEATURE && h.size >= 16) {
				/* decoded after the walk: EVENT_DESC names need the attrs */
				feats = xrealloc(feats, (nr_feats + 1) * sizeof(*feats));
				feats[nr_feats].bit = rd64(r + 8);
				feats[nr_feats].off = pos + 16;
				feats[nr_feats].size = h.size - 16u;
				nr_feats++;
			} else if (h.type == PD_RECORD_HEADER_BUILD_ID) {
				parse_build_ids(f, r, h.size);
			} else if (h.type == PD_RECORD_HEADER_TRACING_DATA && extra) {
				set_tracing_data(f, r + h.size, extra);   /* its payload follows it */
			}
			break;
		default:
		copy:
			if (h.size % 8)
				break;
			err = mb_reserve(f, m, h.size);
			if (err)
				goto out;
			memcpy(m->buf + m->len, r, h.size);
			m->len += h.size;
			z.last_type = h.type;
			break;
		}
		pos += h.size + extra;
	}
	if (!pipe && f->data_size_header != f->data_size)
		warn_short(f, pos, "");
	goto done;
short_data:
	z.broken = true;
	if (pipe)
		pk_warn("%s: %s at offset %llu%s; read the records before it", f->path,
			cutoff ? "stream ends inside a record" : "corrupt stream", (unsigned long long)(base + pos), why);
	else
		warn_short(f, pos, why);
	goto done;
cut:
done:
	for (size_t i = 0; i < nr_feats; i++)
		if (feats[i].bit < PD_FEAT_MAX)
			parse_feature(f, (int)feats[i].bit, src + feats[i].off, feats[i].size);
out:
	if (err)
		z.broken = true;
	*stop = pos;
	free(feats);
	*zp = z;
	return err;
}

static void zwin_release(struct zwin *z)
{
	ZSTD_freeDStream(z->ds);
	free(z->buf);
	z->ds = NULL;
	z->buf = NULL;
}

/* The whole of src[start, end) (a file's data, or a pipe-mode stream read
 * to its end) into m: see walk_records. */
static int build_memdata(struct pd_file *f, const uint8_t *src, uint64_t start, uint64_t end,
			 struct membuf *m, bool pipe)
{
	struct zwin z = { 0 };
	uint64_t stop;
	int err = walk_records(f, src, start, end, m, pipe, &z, false, 0, &stop);

	zwin_release(&z);
	return err;
}

/* ---- a pipe-mode stream, read as it is processed ---- */

/* How much is read from the stream at a time (and so the latency of a
 * live `perf record -o - |`): records are handed on in pieces of about
 * this size, and memory follows it, not the stream. */
#define STREAM_CHUNK (2u << 20)

struct pd_stream {
	int fd;
	struct membuf raw;     /* read, not walked yet: a record's start at raw.buf[0] */
	uint64_t raw_off;      /* the stream offset of raw.buf[0] */
	struct zwin z;         /* perf record -z: the decompressor across the stream */
	struct membuf out;     /* the data records of the last piece */
	bool pending;          /* out holds records not handed on yet (open's) */
	bool eof, done;
	bool started;          /* pd_stream_next was called */
};

/* Read another piece and walk its whole records into st->out. */
static int stream_fill(struct pd_file *f, struct pd_stream *st)
{
	uint64_t stop = 0, want = st->raw.len + STREAM_CHUNK;
	int err = 0;

	if (!st->eof) {
		err = read_upto(f, st->fd, &st->raw, want);
		if (err)
			return err;
		if (st->raw.len < want)
			st->eof = true;
	}
	err = walk_records(f, st->raw.buf, 0, st->raw.len, &st->out, true, &st->z, !st->eof,
			   st->raw_off, &stop);
	memmove(st->raw.buf, st->raw.buf + stop, (size_t)(st->raw.len - stop));
	st->raw.len -= stop;
	st->raw_off += stop;
	if (st->eof || st->z.broken || err)
		st->done = true;
	return err;
}

static void stream_free(struct pd_stream *st)
{
	if (!st)
		return;
	zwin_release(&st->z);
	free(st->raw.buf);
	free(st->out.buf);
	free(st);
}

bool pd_is_stream(const struct pd_file *f)
{
	return PRIV(f)->stream != NULL;
}

int pd_stream_next(struct pd_file *f, const void **data, size_t *len)
{
	struct pd_stream *st = PRIV(f)->stream;

	if (!st)
		return 0;
	if (st->started && !st->pending && st->done && !st->out.len)
		return 0;
	st->started = true;
	if (st->pending) {
		st->pending = false;
	} else {
		st->out.len = 0;
		while (!st->out.len && !st->done) {
			int err = stream_fill(f, st);

			if (err)
				return err;
		}
	}
	if (!st->out.len)
		return 0;
	*data = st->out.buf;
	*len = (size_t)st->out.len;
	if (st->done) {
		/* the last piece: nothing after it (the next call says so) */
		st->pending = false;
	}
	return 1;
}

bool pd_stream_started(const struct pd_file *f)
{
	const struct pd_stream *st = PRIV(f)->stream;

	return st && st->started;
}

/* Replace f's bytes by the in-memory data m (a data section at offset 0). */
static void use_memdata(struct pd_file *f, struct membuf *m)
{
	struct pd_file_priv *pv = PRIV(f);

	if (pv->mapped_size)
		munmap((void *)f->map, pv->mapped_size);
	pv->mapped_size = 0;
	free(pv->heap);
	if (!m->buf)
		m->buf = xmalloc(8);
	pv->heap = m->buf;
	f->map = m->buf;
	f->size = m->len;
	f->data_offset = 0;
	f->data_size = m->len;
	f->data_size_header = m->len;
	m->buf = NULL;
}

/* Pipe mode: struct perf_pipe_file_header {magic, size = 16}, then records;
 * the events arrive as HEADER_ATTR records and features as HEADER_FEATURE
 * records, mixed with the data (perf's perf_event__synthesize_for_pipe). */
static int open_pipe(struct pd_file *f)
{
	struct membuf m = { 0 };
	int err;

	PRIV(f)->pipe = true;
	f->pipe_mode = true;
	err = build_memdata(f, f->map, PD_PIPE_HEADER_SIZE, f->size, &m, true);
	if (!err && !f->nr_evsels)
		err = pk_error(EINVAL, "%s: pipe-mode data without any event (no HEADER_ATTR record)", f->path);
	if (err) {
		free(m.buf);
		return err;
	}
	check_id_layout(f);
	use_memdata(f, &m);
	return 0;
}

/* Does the data section hold a PERF_RECORD_COMPRESSED (files whose feature
 * bitmap is lost: an unfinished recording)?  Compressed files (perf's and
 * perfkit's) hold no sample outside their compressed records: the first
 * sample says no, so a big uncompressed file is not read through. */
static bool has_compressed(const struct pd_file *f)
{
	uint64_t pos = f->data_offset, end = f->data_offset + f->data_size;

	/* a quiet hop over the record headers (pd_next warns at the end) */
	while (end - pos >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;

		memcpy(&h, f->map + pos, sizeof(h));
		if (h.type == PD_RECORD_COMPRESSED)
			return true;
		if (h.type == PERF_RECORD_SAMPLE)
			return false;
		if (h.size < sizeof(h) || h.size > end - pos)
			return false;
		pos += h.size;
	}
	return false;
}

static int open_parse(struct pd_file *f);

/* The start of a stream (m holds what the caller read already): read up
 * to 16 bytes, and check the magic and the header's size before anything
 * more is read (`yes |` or /dev/zero is refused at once, not after reading
 * it all). */
static int check_stream_start(struct pd_file *f, int fd, struct membuf *m)
{
	int err = read_upto(f, fd, m, 16);

	if (!err && m->len >= 8 && rd64(m->buf) != PD_MAGIC && rd64(m->buf) != PD_MAGIC_SWAPPED)
		err = pk_error(EINVAL, "%s: not a perf.data file (bad magic at offset 0, expected \"PERFILE2\")",
			       f->path);
	if (!err && m->len >= 16 && rd64(m->buf) == PD_MAGIC && rd64(m->buf + 8) != PD_PIPE_HEADER_SIZE &&
	    rd64(m->buf + 8) != PD_HEADER_SIZE)
		err = pk_error(EINVAL, "%s: bad header (size field %llu at offset 8; expected 16 or 104)",
			       f->path, (unsigned long long)rd64(m->buf + 8));
	return err;
}

/* A stream: pipe-mode data is read as it is processed (pd_stream_next),
 * after its header records up to the first data record are taken in here;
 * file-mode data (`cat perf.data |`: its features follow the data) is read
 * into memory whole. */
static int open_stream(struct pd_file *f, int fd, const void *prefix, size_t prefix_len)
{
	struct pd_file_priv *pv = PRIV(f);
	struct pd_stream *st;
	struct membuf m = { 0 };
	int err = mb_reserve(f, &m, 16 > prefix_len ? 16 : prefix_len);

	if (!err && prefix_len) {
		memcpy(m.buf, prefix, prefix_len);
		m.len = prefix_len;
	}
	if (!err)
		err = check_stream_start(f, fd, &m);
	if (!err && m.len >= 16 && (rd64(m.buf) != PD_MAGIC || rd64(m.buf + 8) != PD_PIPE_HEADER_SIZE))
		err = read_upto(f, fd, &m, UINT64_MAX);   /* file mode: the whole stream */
	if (err || m.len < 16 || rd64(m.buf) != PD_MAGIC || rd64(m.buf + 8) != PD_PIPE_HEADER_SIZE) {
		if (err) {
			free(m.buf);
			return err;
		}
		pv->heap = m.buf;
		f->map = m.buf;
		f->size = m.len;
		return open_parse(f);
	}
	st = xcalloc(1, sizeof(*st));
	st->fd = fd;
	memmove(m.buf, m.buf + PD_PIPE_HEADER_SIZE, (size_t)(m.len - PD_PIPE_HEADER_SIZE));
	m.len -= PD_PIPE_HEADER_SIZE;
	st->raw = m;
	st->raw_off = PD_PIPE_HEADER_SIZE;
	pv->pipe = true;
	f->pipe_mode = true;
	pv->stream = st;
	/* the header records before the first data record: the events */
	while (!st->out.len && !st->done) {
		err = stream_fill(f, st);
		if (err)
			return err;
	}
	if (!f->nr_evsels)
		return pk_error(EINVAL, "%s: pipe-mode data without any event (no HEADER_ATTR record)", f->path);
	check_id_layout(f);
	st->pending = st->out.len > 0;
	return 0;
}

int pd_open_stream(struct pd_file **out, const char *name, int fd, const void *prefix, size_t prefix_len)
{
	struct pd_file_priv *pv = xcalloc(1, sizeof(*pv));
	struct pd_file *f = &pv->pub;
	int err;

	*out = NULL;
	f->path = xstrdup(name);
	f->fd = -1;
	err = open_stream(f, fd, prefix, prefix_len);
	if (err) {
		pd_close(f);
		return err;
	}
	*out = f;
	return 0;
}

const char *pd_default_path(void)
{
	struct stat st;

	return fstat(STDIN_FILENO, &st) == 0 && S_ISFIFO(st.st_mode) ? "-" : "perf.data";
}

int pd_open(struct pd_file **out, const char *path)
{
	struct pd_file_priv *pv;
	struct pd_file *f;
	struct stat st;
	bool is_stdin = !strcmp(path, "-");
	int fd, err;

	*out = NULL;
	pv = xcalloc(1, sizeof(*pv));
	f = &pv->pub;
	f->path = xstrdup(is_stdin ? "<stdin>" : path);
	f->fd = -1;
	fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = pk_error(errno, "%s: cannot open: %s", path, strerror(errno));
		goto fail;
	}
	if (!is_stdin)
		f->fd = fd;
	if (fstat(fd, &st) < 0) {
		err = pk_error(errno, "%s: cannot stat: %s", f->path, strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		err = pk_error(EINVAL, "%s: is a directory (perf.data directories are not supported)", path);
		goto fail;
	}
	if (S_ISREG(st.st_mode) && st.st_size >= 8) {
		f->size = (uint64_t)st.st_size;
		f->map = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (f->map == MAP_FAILED) {
			f->map = NULL;
			err = pk_error(errno, "%s: cannot map: %s", f->path, strerror(errno));
			goto fail;
		}
		pv->mapped_size = f->size;
		madvise((void *)f->map, f->size, MADV_WILLNEED);
	} else if (!S_ISREG(st.st_mode)) {
		/* a pipe, FIFO or terminal: read as a stream */
		err = open_stream(f, fd, NULL, 0);
		if (err)
			goto fail;
		*out = f;
		return 0;
	} else {
		f->size = (uint64_t)st.st_size;
	}
	err = open_parse(f);
	if (err)
		goto fail;
	*out = f;
	return 0;
fail:
	pd_close(f);
	return err;
}

/* Validate and decode what f->map holds (f->size bytes). */
static int open_parse(struct pd_file *f)
{
	struct pd_file_priv *pv = PRIV(f);
	uint64_t magic, hsize, aoff, asize;
	int err;

	if (f->size < 8) {
		err = pk_error(EINVAL, "%s: not a perf.data file (%llu bytes, too short for the magic at offset 0)",
			       f->path, (unsigned long long)f->size);
		return err;
	}
	magic = rd64(f->map);
	if (magic == PD_MAGIC_SWAPPED) {
		err = pk_error(EPROTONOSUPPORT, "%s: byte-swapped (big-endian) perf.data is not supported", f->path);
		return err;
	}
	if (magic != PD_MAGIC) {
		err = pk_error(EINVAL, "%s: not a perf.data file (bad magic at offset 0, expected \"PERFILE2\")", f->path);
		return err;
	}
	if (f->size < 16) {
		err = pk_error(EINVAL, "%s: file ends at offset %llu inside the header", f->path,
			       (unsigned long long)f->size);
		return err;
	}
	hsize = rd64(f->map + 8);
	if (hsize == PD_PIPE_HEADER_SIZE) {
		err = open_pipe(f);
		if (err)
			return err;
		return 0;
	}
	if (hsize != PD_HEADER_SIZE || f->size < PD_HEADER_SIZE) {
		err = pk_error(EINVAL, "%s: bad header (size field %llu at offset 8, file %llu bytes; expected 104)",
			       f->path, (unsigned long long)hsize, (unsigned long long)f->size);
		return err;
	}
	f->attr_size = rd64(f->map + 16);
	aoff = rd64(f->map + 24);
	asize = rd64(f->map + 32);
	f->data_offset = rd64(f->map + 40);
	f->data_size = rd64(f->map + 48);
	f->hdr_data_offset = f->data_offset;
	f->hdr_data_size = f->data_size;
	memcpy(f->features, f->map + 72, sizeof(f->features));
	if (!in_range(aoff, asize, f->size)) {
		err = pk_error(EINVAL, "%s: attr section {%llu, %llu} (header offset 24) outside the %llu-byte file",
			       f->path, (unsigned long long)aoff, (unsigned long long)asize,
			       (unsigned long long)f->size);
		return err;
	}
	if (f->data_offset < PD_HEADER_SIZE || f->data_offset > f->size) {
		err = pk_error(EINVAL, "%s: data section offset %llu (header offset 40) outside the %llu-byte file",
			       f->path, (unsigned long long)f->data_offset, (unsigned long long)f->size);
		return err;
	}
	err = parse_attrs(f, aoff, asize);
	if (err)
		return err;
	f->data_size_header = f->data_size;
	if (f->data_size == 0 || !in_range(f->data_offset, f->data_size, f->size)) {
		/* unfinished or cut: read what is there (pd_next warns at the end) */
		f->data_size = f->size - f->data_offset;
		memset(f->features, 0, sizeof(f->features));
		pv->compressed = has_compressed(f);
	} else {
		parse_features(f);
		/* no feature at all: a killed recorder's file (its data size
		 * follows its flushes), or one whose disk had no room for them:
		 * a compressed one has no HEADER_COMPRESSED to say so */
		if (!pv->compressed && !f->features[0] && !f->features[1] && !f->features[2] && !f->features[3])
			pv->compressed = has_compressed(f);
	}
	if (pv->compressed) {
		/* perf record -z: decompress the whole data section once */
		struct membuf m = { 0 };

		err = mb_reserve(f, &m, f->data_size < (64u << 20) ? f->data_size * 4 + 4096 : (256u << 20));
		if (!err)
			err = build_memdata(f, f->map, f->data_offset, f->data_offset + f->data_size, &m, false);
		if (err) {
			free(m.buf);
			return err;
		}
		use_memdata(f, &m);
	}
	return 0;
}

int pd_open_attrs(struct pd_file **out, const char *name, const struct perf_event_attr *attrs,
		  const char *const *names, size_t nr)
{
	struct pd_file_priv *pv;
	struct pd_file *f;

	*out = NULL;
	if (!nr)
		return pk_error(EINVAL, "%s: no events", name);
	pv = xcalloc(1, sizeof(*pv));
	f = &pv->pub;
	f->path = xstrdup(name);
	f->fd = -1;
	f->attr_size = PERF_ATTR_SIZE_VER0 + 16;
	f->evsels = xcalloc(nr, sizeof(*f->evsels));
	f->nr_evsels = nr;
	for (size_t i = 0; i < nr; i++) {
		f->evsels[i].attr = attrs[i];
		f->evsels[i].name = names && names[i] ? xstrdup(names[i]) : default_name(&attrs[i]);
	}
	check_id_layout(f);
	*out = f;
	return 0;
}

int pd_add_ids(struct pd_file *f, size_t idx, const uint64_t *ids, size_t nr)
{
	struct pd_evsel *e;

	if (idx >= f->nr_evsels)
		return pk_error(EINVAL, "%s: no event %zu", f->path, idx);
	e = &f->evsels[idx];
	e->ids = xrealloc(e->ids, (e->nr_ids + nr + 1) * sizeof(*e->ids));
	memcpy(e->ids + e->nr_ids, ids, nr * sizeof(*ids));
	e->nr_ids += nr;
	qsort(e->ids, e->nr_ids, 8, cmp_u64);
	return 0;
}

void pd_set_data(struct pd_file *f, const void *data, size_t len)
{
	struct pd_file_priv *pv = PRIV(f);

	if (pv->mapped_size || pv->heap)
		return;   /* a file's own data stays */
	f->map = data;
	f->size = len;
	f->data_offset = 0;
	f->data_size = len;
	f->data_size_header = len;
}

void pd_release_before(const struct pd_file *f, uint64_t pos)
{
	const struct pd_file_priv *pv = (const struct pd_file_priv *)f;
	uint64_t end = f->data_offset + pos, done = pv->released;

	/* in steps of 8 MiB or more: one madvise per step (most calls end
	 * here: a caller may call once a record) */
	if (!pv->mapped_size || end < done + (8u << 20))
		return;
	long psz = sysconf(_SC_PAGESIZE);

	if (psz <= 0)
		return;
	end -= end % (uint64_t)psz;
	if (end > pv->mapped_size || end < done + (8u << 20))
		return;
	madvise((void *)(f->map + done), (size_t)(end - done), MADV_DONTNEED);
	((struct pd_file_priv *)f)->released = end;
}

void pd_close(struct pd_file *f)
{
	struct pd_file_priv *pv = PRIV(f);

	if (!f)
		return;
	if (pv->mapped_size)
		munmap((void *)f->map, pv->mapped_size);
	free(pv->heap);
	stream_free(pv->stream);
	free(pv->tracing);
	for (int i = 0; i < PD_FEAT_KEPT; i++)
		free(pv->feat_copy[i]);
	if (f->fd >= 0)
		close(f->fd);
	for (size_t i = 0; i < f->nr_evsels; i++) {
		free(f->evsels[i].ids);
		free(f->evsels[i].name);
	}
	free(f->evsels);
	for (size_t i = 0; i < f->nr_build_ids; i++)
		free(f->build_ids[i].filename);
	free(f->build_ids);
	free(f->hostname);
	free(f->osrelease);
	free(f->version);
	free(f->arch);
	free(f->cpudesc);
	free(f->cpuid);
	free(f->cmdline);
	free(f->path);
	free(pv);
}

/* The one warning for a data section that did not end where the header
 * said; stop is where reading stopped (a record that did not fit, or the
 * end of the file). */
static void warn_short(const struct pd_file *f, uint64_t stop, const char *why)
{
	unsigned long long at = (unsigned long long)stop;

	if (f->data_size_header == 0)
		pk_warn("%s: header says data size 0 (recording not finished?); read the records up to "
			"offset %llu%s", f->path, at, why);
	else if (f->data_size_header != f->data_size)
		pk_warn("%s: file truncated: the data section should end at offset %llu but the file is "
			"%llu bytes; read the complete records up to offset %llu%s", f->path,
			(unsigned long long)(f->data_offset + f->data_size_header),
			(unsigned long long)f->size, at, why);
	else
		pk_warn("%s: corrupt data section: read the records up to offset %llu%s", f->path, at, why);
}

int pd_next(const struct pd_file *f, uint64_t *pos, const struct perf_event_header **rec)
{
	uint64_t left, off;
	const struct perf_event_header *h;
	struct perf_event_header hdr;
	char why[160];

	if (*pos > f->data_size)
		return 0;    /* ended (and warned if needed) */
	off = f->data_offset + *pos;
	if (*pos == f->data_size) {
		if (f->data_size_header != f->data_size)
			warn_short(f, off, "");
		*pos = f->data_size + 1;
		return 0;
	}
	left = f->data_size - *pos;
	if (left < sizeof(*h)) {
		snprintf(why, sizeof(why), " (truncated record header, %llu bytes left)",
			 (unsigned long long)left);
		warn_short(f, off, why);
		*pos = f->data_size + 1;
		return 0;
	}
	h = (const struct perf_event_header *)(f->map + off);
	memcpy(&hdr, h, sizeof(hdr));   /* h may be unaligned after a COMPRESSED record */
	if (off % 8 && hdr.type < PD_RECORD_HEADER_ATTR) {
		/* only after an unaligned user record (see below) */
		warn_short(f, off, " (a kernel record at an unaligned offset)");
		*pos = f->data_size + 1;
		return 0;
	}
	/* Kernel records are 8-byte multiples; perf's own PERF_RECORD_COMPRESSED
	 * records are not (their payload is read with memcpy, never in place). */
	if (hdr.size < sizeof(hdr) || (hdr.size % 8 && hdr.type != PD_RECORD_COMPRESSED) || hdr.size > left) {
		record_why(why, sizeof(why), hdr.type, hdr.size, (unsigned long long)left);
		warn_short(f, off, why);
		*pos = f->data_size + 1;
		return 0;
	}
	*pos += hdr.size;
	*rec = h;
	return 1;
}

uint64_t pd_offset(const struct pd_file *f, const struct perf_event_header *rec)
{
	return (uint64_t)((const uint8_t *)rec - f->map);
}

const struct pd_evsel *pd_evsel_by_id(const struct pd_file *f, uint64_t id)
{
	if (f->nr_evsels == 1)
		return &f->evsels[0];
	for (size_t i = 0; i < f->nr_evsels; i++) {
		const struct pd_evsel *e = &f->evsels[i];
		size_t lo = 0, hi = e->nr_ids;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (e->ids[mid] < id)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < e->nr_ids && e->ids[lo] == id)
			return e;
	}
	return NULL;
}

/* Position (in u64 words from the start of the sample body) of the id of a
 * sample of type t, or -1 when it has none. */
static int sample_id_pos(uint64_t t)
{
	int pos = 0;

	if (t & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(t & PERF_SAMPLE_ID))
		return -1;
	if (t & PERF_SAMPLE_IP)
		pos++;
	if (t & PERF_SAMPLE_TID)
		pos++;
	if (t & PERF_SAMPLE_TIME)
		pos++;
	if (t & PERF_SAMPLE_ADDR)
		pos++;
	return pos;
}

/* The evsel of a record, from the first event's id layout. */
static const struct pd_evsel *record_evsel(const struct pd_file *f, const struct perf_event_header *rec,
					   bool sample)
{
	uint64_t t = f->evsels[0].attr.sample_type;
	uint64_t body = rec->size - sizeof(*rec);
	const uint8_t *p = (const uint8_t *)(rec + 1);
	int pos;

	if (f->nr_evsels == 1)
		return &f->evsels[0];
	if (sample) {
		pos = sample_id_pos(t);
		if (pos < 0 || (uint64_t)(pos + 1) * 8 > body)
			return NULL;
		return pd_evsel_by_id(f, rd64(p + (size_t)pos * 8));
	}
	if (!f->evsels[0].attr.sample_id_all)
		return NULL;
	/* an id of 0 names the first event, as perf's evlist__id2evsel: the
	 * records perf synthesizes (the tasks and maps there before the
	 * recording) have a trailer of zeros */
	uint64_t id;

	if (t & PERF_SAMPLE_IDENTIFIER) {
		if (body < 8)
			return NULL;
		id = rd64(p + body - 8);
		return id ? pd_evsel_by_id(f, id) : &f->evsels[0];
	}
	if (t & PERF_SAMPLE_ID) {
		/* trailer order: TID TIME ID STREAM_ID CPU IDENTIFIER; from the end */
		uint64_t back = 8;

		if (t & PERF_SAMPLE_CPU)
			back += 8;
		if (t & PERF_SAMPLE_STREAM_ID)
			back += 8;
		if (body < back)
			return NULL;
		id = rd64(p + body - back);
		return id ? pd_evsel_by_id(f, id) : &f->evsels[0];
	}
	return NULL;
}

#define SHORT()                                                                      \
	pk_error(EPROTO, "%s: sample at offset %llu: %llu bytes, too short for its " \
		 "sample_type 0x%llx",                                               \
		 f->path, (unsigned long long)pd_offset(f, rec),                     \
		 (unsigned long long)rec->size, (unsigned long long)t)
#define NEED(n)                                  \
	do {                                     \
		if ((uint64_t)(n) > end - off)   \
			return SHORT();          \
	} while (0)

int pd_sample_time(const struct pd_file *f, const struct perf_event_header *rec, uint64_t *time)
{
	const struct pd_evsel *e = record_evsel(f, rec, true);
	uint64_t t, off = sizeof(*rec);

	if (!e)
		return -EPROTO;
	t = e->attr.sample_type;
	if (!(t & PERF_SAMPLE_TIME))
		return -ENODATA;
	off += 8 * (!!(t & PERF_SAMPLE_IDENTIFIER) + !!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID));
	if (off + 8 > rec->size)
		return -EPROTO;
	*time = rd64((const uint8_t *)rec + off);
	return 0;
}

int pd_parse_sample(const struct pd_file *f, const struct perf_event_header *rec,
		    struct pd_sample *out)
{
	const uint8_t *p = (const uint8_t *)rec;
	const struct pd_evsel *e;
	uint64_t t, off = sizeof(*rec), end = rec->size;

	memset(out, 0, sizeof(*out));
	out->misc = rec->misc;
	e = record_evsel(f, rec, true);
	if (!e)
		return pk_error(EPROTO, "%s: sample at offset %llu: unknown event id",
				f->path, (unsigned long long)pd_offset(f, rec));
	out->evsel = e;
	t = e->attr.sample_type;
	if (t & PERF_SAMPLE_IDENTIFIER) {
		NEED(8);
		out->id = rd64(p + off);
		off += 8;
	}
	if (t & PERF_SAMPLE_IP) {
		NEED(8);
		out->ip = rd64(p + off);
		off += 8;
	}
	if (t & PERF_SAMPLE_TID) {
		NEED(8);
		out->pid = rd32(p + off);
		out->tid = rd32(p + off + 4);
		off += 8;
	}
	if (t & PERF_SAMPLE_TIME) {
		NEED(8);
		out->time = rd64(p + off);
		off += 8;
	}
	if (t & PERF_SAMPLE_ADDR) {
		NEED(8);
		out->addr = rd64(p + off);
		off += 8;
	}
	if (t & PERF_SAMPLE_ID) {
		NEED(8);
		out->id = rd64(p + off);
		off += 8;
	}
	if (t & PERF_SAMPLE_STREAM_ID) {
		NEED(8);
		out->stream_id = rd64(p + off);
		off += 8;
	}
	if (t & PERF_SAMPLE_CPU) {
		NEED(8);
		out->cpu = rd32(p + off);
		off += 8;
	}
	if (t & PERF_SAMPLE_PERIOD) {
		NEED(8);
		out->period = rd64(p + off);
		off += 8;
	}
	if (t & PERF_SAMPLE_READ) {
		uint64_t rf = e->attr.read_format, words;

		if (rf & PERF_FORMAT_GROUP) {
			uint64_t nr, per = 1;

			NEED(8);
			nr = rd64(p + off);
			off += 8;
			words = 0;
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				words++;
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				words++;
			if (rf & PERF_FORMAT_ID)
				per++;
			if (rf & PERF_FORMAT_LOST)
				per++;
			if (nr > (end - off) / 8 / per)
				return SHORT();
			words += nr * per;
		} else {
			words = 1;
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				words++;
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				words++;
			if (rf & PERF_FORMAT_ID)
				words++;
			if (rf & PERF_FORMAT_LOST)
				words++;
		}
		if (words > (end - off) / 8)
			return SHORT();
		off += words * 8;
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr;

		NEED(8);
		nr = rd64(p + off);
		off += 8;
		if (nr > (end - off) / 8)
			return SHORT();
		out->nr_callchain = nr;
		out->callchain = (const uint64_t *)(p + off);
		off += nr * 8;
	}
	if (t & PERF_SAMPLE_RAW) {
		uint32_t sz;

		NEED(4);
		sz = rd32(p + off);
		NEED(4 + (uint64_t)sz);
		out->raw_size = sz;
		out->raw = p + off + 4;
		off += 4 + (uint64_t)sz;
		off = (off + 7) & ~7ULL;
		if (off > end)
			return SHORT();
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr;

		NEED(8);
		nr = rd64(p + off);
		off += 8;
		if (e->attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
			NEED(8);
			off += 8;
		}
		if (nr > (end - off) / 24)
			return SHORT();
		off += nr * 24;
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		NEED(8);
		out->user_regs_abi = rd64(p + off);
		off += 8;
		if (out->user_regs_abi) {
			uint64_t n = (uint64_t)__builtin_popcountll(e->attr.sample_regs_user);

			NEED(n * 8);
			out->user_regs = (const uint64_t *)(p + off);
			off += n * 8;
		}
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		uint64_t sz;

		NEED(8);
		sz = rd64(p + off);
		off += 8;
		if (sz) {
			NEED(sz);
			out->user_stack = p + off;
			off += sz;
			NEED(8);
			{
				uint64_t dyn = rd64(p + off);

				out->user_stack_size = dyn < sz ? dyn : sz;
			}
			off += 8;
		}
	}
	/* Later fields (weight, data_src, …) are not needed by perfkit. */
	return 0;
}

int pd_parse_sample_id(const struct pd_file *f, const struct perf_event_header *rec,
		       struct pd_sample_id *out)
{
	const struct pd_evsel *e;
	const uint8_t *p = (const uint8_t *)rec;
	uint64_t t, n = 0, off;

	memset(out, 0, sizeof(*out));
	if (rec->type == PERF_RECORD_SAMPLE || rec->type >= PD_RECORD_HEADER_ATTR)
		return 0;
	e = record_evsel(f, rec, false);
	if (!e) {
		if (!f->evsels[0].attr.sample_id_all)
			return 0;
		return pk_error(EPROTO, "%s: record at offset %llu: unknown event id in sample_id trailer",
				f->path, (unsigned long long)pd_offset(f, rec));
	}
	if (!e->attr.sample_id_all)
		return 0;
	t = e->attr.sample_type;
	n += !!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ID) +
	     !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER);
	if (n * 8 > rec->size - sizeof(*rec))
		return pk_error(EPROTO, "%s: record at offset %llu (size %u) too short for its sample_id trailer",
				f->path, (unsigned long long)pd_offset(f, rec), rec->size);
	off = rec->size - n * 8;
	if (t & PERF_SAMPLE_TID) {
		out->pid = rd32(p + off);
		out->tid = rd32(p + off + 4);
		off += 8;
	}
	if (t & PERF_SAMPLE_TIME) {
		out->time = rd64(p + off);
		off += 8;
	}
	if (t & PERF_SAMPLE_ID) {
		out->id = rd64(p + off);
		off += 8;
	}
	if (t & PERF_SAMPLE_STREAM_ID)
		off += 8;
	if (t & PERF_SAMPLE_CPU) {
		out->cpu = rd32(p + off);
		off += 8;
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		out->id = rd64(p + off);
	out->valid = true;
	return 0;
}
