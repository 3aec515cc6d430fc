/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata.h — reading and writing Linux perf's perf.data file (file mode).
 *
 * Format source: tools/perf/Documentation/perf.data-file-format.txt and
 * perf_event_open(2).  Layout: struct perf_file_header (magic "PERFILE2",
 * header size 104, attr_size, sections attrs/data/event_types, 256-bit
 * feature bitmap) → attr section (attr_size-byte perf_event_attr followed by
 * a {offset,size} section of u64 sample ids, per event) → data section
 * (struct perf_event_header records, each `size` bytes, 8-byte aligned) →
 * one {offset,size} section per set feature bit, in bit order, then the
 * feature bodies.  All integers are little-endian on x86-64 (the host's
 * byte order; a byte-swapped file is rejected with -EPROTONOSUPPORT).
 *
 * Reader contract: pd_open() maps the file read-only and validates every
 * section against the file size before anything is allocated.  Records are
 * never trusted: pd_next() checks each header's size (>= 8, multiple of 8,
 * within the data section and the file) and stops with a warning (pk_warn)
 * at the first record that does not fit, so a file cut in half still yields
 * its complete records.  A header whose data size is 0 (a recording that
 * never finished) is read up to the end of the file, with a warning.
 *
 * Writer contract: pd_writer_open() creates PATH.tmp-XXXXXX (mode 0600);
 * the header, ids and attributes are written before the first record (as
 * perf does), records are appended with pd_writer_write() and reach the
 * file within a second, the header's data size following them, so the
 * temporary file of a recorder killed with SIGKILL is read by perf and
 * perfkit up to its last flushed record; pd_writer_finish() writes the
 * feature sections and the final header, then renames the
 * temporary file over PATH.  pd_writer_abort() removes the temporary file,
 * so a failed recording never leaves a half-written PATH.  When PATH is a
 * device or FIFO (/dev/null, a named pipe) or any path under /dev/ or
 * /proc/ (/dev/stdout: see base/outfile.h), it is never renamed over: the
 * file is built in $TMPDIR (or /tmp) as perfkit-record.XXXXXX and copied
 * into PATH by pd_writer_finish().  A full disk is
 * the exception: the writer keeps about the features' size allocated past
 * the data (fallocate), so when pd_writer_write() fails with
 * -ENOSPC/-EDQUOT, pd_writer_finish() still writes a valid PATH holding
 * the whole records written so far (and returns 0; without the build-ids,
 * or without any feature, when even they do not fit); if the disk fills
 * during finish's own last flush it does the same and returns -ENOSPC with
 * a message saying so.
 *
 * Errors: 0 on success or -errno, with a one-line message in pk_errmsg()
 * naming the file and the offset (see base/error.h).
 */
#ifndef PERFKIT_PERFDATA_H
#define PERFKIT_PERFDATA_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* perf's feature bits (tools/perf/util/header.h, HEADER_*) */
enum pd_feature {
	PD_FEAT_TRACING_DATA = 1,
	PD_FEAT_BUILD_ID = 2,
	PD_FEAT_HOSTNAME = 3,
	PD_FEAT_OSRELEASE = 4,
	PD_FEAT_VERSION = 5,
	PD_FEAT_ARCH = 6,
	PD_FEAT_NRCPUS = 7,
	PD_FEAT_CPUDESC = 8,
	PD_FEAT_CPUID = 9,
	PD_FEAT_TOTAL_MEM = 10,
	PD_FEAT_CMDLINE = 11,
	PD_FEAT_EVENT_DESC = 12,
	PD_FEAT_CPU_TOPOLOGY = 13,
	PD_FEAT_NUMA_TOPOLOGY = 14,
	PD_FEAT_BRANCH_STACK = 15,
	PD_FEAT_PMU_MAPPINGS = 16,
	PD_FEAT_GROUP_DESC = 17,
	PD_FEAT_AUXTRACE = 18,
	PD_FEAT_STAT = 19,
	PD_FEAT_CACHE = 20,
	PD_FEAT_SAMPLE_TIME = 21,
	PD_FEAT_MEM_TOPOLOGY = 22,
	PD_FEAT_CLOCKID = 23,
	PD_FEAT_DIR_FORMAT = 24,
	PD_FEAT_BPF_PROG_INFO = 25,
	PD_FEAT_BPF_BTF = 26,
	PD_FEAT_COMPRESSED = 27,
	PD_FEAT_CPU_PMU_CAPS = 28,
	PD_FEAT_CLOCK_DATA = 29,
	PD_FEAT_HYBRID_TOPOLOGY = 30,
	PD_FEAT_PMU_CAPS = 31,
	PD_FEAT_LAST_PERF61 = 32,   /* HEADER_LAST_FEATURE of perf 6.1: the
				       pipe-mode marker after the features */
	PD_FEAT_MAX = 256,
};

/* perf's user-space record types (tools/lib/perf/include/perf/event.h) */
enum {
	PD_RECORD_HEADER_ATTR = 64,
	PD_RECORD_HEADER_EVENT_TYPE = 65,
	PD_RECORD_HEADER_TRACING_DATA = 66,
	PD_RECORD_HEADER_BUILD_ID = 67,
	PD_RECORD_FINISHED_ROUND = 68,
	PD_RECORD_ID_INDEX = 69,
	PD_RECORD_AUXTRACE_INFO = 70,
	PD_RECORD_AUXTRACE = 71,
	PD_RECORD_AUXTRACE_ERROR = 72,
	PD_RECORD_THREAD_MAP = 73,
	PD_RECORD_CPU_MAP = 74,
	PD_RECORD_STAT_CONFIG = 75,
	PD_RECORD_STAT = 76,
	PD_RECORD_STAT_ROUND = 77,
	PD_RECORD_EVENT_UPDATE = 78,
	PD_RECORD_TIME_CONV = 79,
	PD_RECORD_HEADER_FEATURE = 80,
	PD_RECORD_COMPRESSED = 81,
	PD_RECORD_FINISHED_INIT = 82,
};

/* One event (perf's "evsel"): its attribute, its sample ids and its name. */
struct pd_evsel {
	struct perf_event_attr attr; /* zero-extended copy of the file's attr */
	uint64_t *ids;               /* sample ids that belong to this event */
	size_t nr_ids;
	char *name;                  /* perf's name, e.g. "cpu-clock" or "cycles:u";
	                                from HEADER_EVENT_DESC when present */
};

/* A parsed PERF_RECORD_SAMPLE (fields absent from sample_type are 0). */
struct pd_sample {
	const struct pd_evsel *evsel;
	uint64_t id;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	uint32_t raw_size;          /* PERF_SAMPLE_RAW: bytes at raw (a tracepoint's record) */
	const uint8_t *raw;
	uint64_t nr_callchain;      /* callchain entries, incl. PERF_CONTEXT_* markers */
	const uint64_t *callchain;  /* points into the record */
	uint16_t misc;              /* header.misc (PERF_RECORD_MISC_*) */
	/* PERF_SAMPLE_REGS_USER / PERF_SAMPLE_STACK_USER (DWARF unwinding) */
	uint64_t user_regs_abi;
	const uint64_t *user_regs;  /* popcount(attr.sample_regs_user) values */
	uint64_t user_stack_size;   /* bytes available at user_stack */
	const uint8_t *user_stack;
};

/* The sample_id_all trailer of a non-sample record (pid/tid/time/id/cpu);
 * has_* tell which fields were present. */
struct pd_sample_id {
	bool valid;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint32_t cpu;
};

struct pd_build_id {
	uint32_t pid;
	uint16_t misc;
	uint8_t size;            /* 20 for SHA-1 build-ids */
	uint8_t data[20];
	char *filename;
};

struct pd_file {
	char *path;
	int fd;
	const uint8_t *map;      /* the whole file, read-only */
	uint64_t size;           /* bytes */
	uint64_t attr_size;
	struct pd_evsel *evsels;
	size_t nr_evsels;
	uint64_t data_offset, data_size; /* data_size after any correction */
	uint64_t features[4];    /* feature bitmap as in the header */
	/* Decoded feature sections (NULL / 0 when absent). */
	char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	char *cmdline;           /* argv joined by spaces */
	uint32_t nr_cpus_online, nr_cpus_avail;
	struct pd_build_id *build_ids;
	size_t nr_build_ids;
	const uint8_t *tracing_data; /* HEADER_TRACING_DATA's body (a copy the file
	                                owns; pipe mode: the record's payload), or NULL */
	uint64_t tracing_data_size;
	bool sample_id_all_known; /* all evsels agree on sample_id_all/sample_type layout */
	/* reader-only: the data size the header gave (0: unfinished recording;
	 * larger than data_size: the file was cut).  pd_next() warns once, at
	 * the end, when it differs from data_size. */
	uint64_t data_size_header;
	/* The bodies of feature sections 1..PD_FEAT_KEPT-1 (but TRACING_DATA
	 * and BUILD_ID, decoded above) as the file holds them, copied: for
	 * printing the header (perfdata/header.h).  NULL / 0 when absent. */
#define PD_FEAT_KEPT 64
	const uint8_t *feat_body[PD_FEAT_KEPT];
	uint64_t feat_size[PD_FEAT_KEPT];
	bool pipe_mode;          /* pipe-mode data (no file header, features
	                            from HEADER_FEATURE records) */
	uint64_t nr_taken[128];  /* records by type (below 128) the reader took
	                            in as it read the data, which pd_next() then
	                            does not yield: COMPRESSED records (their
	                            contents it yields) and pipe mode's header
	                            records (ATTR, FEATURE, BUILD_ID, …) */
	uint64_t hdr_data_offset, hdr_data_size; /* the data section as the file
	                            header gives it (0 in pipe mode), before
	                            any correction or decompression */
};

/* Open and validate PATH ("-": standard input).  -ENOENT etc. for system
 * errors, -EINVAL for a file that is not perf.data ("PATH: not a perf.data
 * file (bad magic at offset 0)"), -EPROTONOSUPPORT for byte-swapped files.
 * Pipe-mode data (perf record -o -: a 16-byte header, then HEADER_ATTR /
 * HEADER_FEATURE records among the data) in a regular file, and perf
 * record -z data (PERF_RECORD_COMPRESSED: zstd, one streaming decompressor
 * across the records) are decoded into memory at open: the pd_file then
 * shows a plain data section at offset 0 of f->map (offsets in later
 * messages are offsets in that decoded data), without the header records
 * and without COMPRESSED records.  -EFBIG past 64 GiB of decoded data; a
 * cut stream or a corrupt compressed payload warns and keeps the records
 * before it.  PATH "-", a pipe or a FIFO is opened as pd_open_stream. */
int pd_open(struct pd_file **out, const char *path);
/* The input when none is given: "-" when standard input is a pipe or a
 * FIFO (`perf record -o - | perfkit report`), else "perf.data" — perf's
 * rule (tools/perf/util/data.c, check_pipe). */
const char *pd_default_path(void);
/* The same for a stream fd (a pipe) whose first prefix_len bytes the
 * caller has read already (to tell perf.data from text): the magic and the
 * header's size are checked before anything more is read (no temporary
 * file).  Pipe-mode data (perf record -o -) is then read as it is
 * processed: open reads the header records up to the first data record
 * (the events: -EINVAL when there is none), pd_stream_next hands on the
 * data in pieces, and memory follows a piece (about 2 MiB), not the stream;
 * the pd_file has no data section of its own (pd_set_data gives it the
 * piece being processed).  File-mode data on a stream (`cat perf.data |`,
 * whose features follow the data) is read into memory whole.  name is used
 * in messages. */
int pd_open_stream(struct pd_file **out, const char *name, int fd, const void *prefix, size_t prefix_len);

/* Whether f is a pipe-mode stream read piece by piece (pd_stream_next). */
bool pd_is_stream(const struct pd_file *f);
/* The next piece of a stream's data records, whole, 8-byte aligned,
 * decompressed, header records taken into f (a FEATURE or BUILD_ID record
 * met on the way applies from then on, as in perf): returns 1 with
 * data[0, *len) (valid until the next call), 0 at the end of the stream (a
 * record cut by the end warns, as pd_open does), -errno on a read error
 * or past the memory limit.  Offsets in messages are stream offsets. */
int pd_stream_next(struct pd_file *f, const void **data, size_t *len);
/* Whether pd_stream_next was called already (a stream is read once). */
bool pd_stream_started(const struct pd_file *f);
void pd_close(struct pd_file *f);

/* A pd_file for records that come from memory (a live capture, records
 * handed in by the caller): nr events with these attrs and names (NULL:
 * perf's default names), no data yet.  name is used in messages.
 * pd_add_ids gives event idx its sample ids (needed with several events).
 * pd_set_data points the data section at data[0, len) (the caller's
 * memory, read in place until the next pd_set_data; records 8-byte
 * aligned); offsets in messages are then offsets in it.  A no-op on a
 * pd_file opened from a file. */
int pd_open_attrs(struct pd_file **out, const char *name, const struct perf_event_attr *attrs,
		  const char *const *names, size_t nr);
int pd_add_ids(struct pd_file *f, size_t idx, const uint64_t *ids, size_t nr);
void pd_set_data(struct pd_file *f, const void *data, size_t len);

/* Iterate the data section in file order.  *pos starts at 0 (meaning the
 * start of the data section); returns 1 and sets *rec for each record, 0 at
 * the end, and 0 with a pk_warn() at a record that does not fit (truncated
 * or corrupt file: the records before it are all delivered). */
int pd_next(const struct pd_file *f, uint64_t *pos, const struct perf_event_header **rec);

/* The event a sample or sample_id trailer belongs to (by id; the only
 * event when there is one).  NULL if the id is unknown. */
const struct pd_evsel *pd_evsel_by_id(const struct pd_file *f, uint64_t id);

/* Decode a PERF_RECORD_SAMPLE.  -EPROTO ("PATH: sample at offset N: ...")
 * when the record is shorter than its sample_type says. */
int pd_parse_sample(const struct pd_file *f, const struct perf_event_header *rec,
		    struct pd_sample *out);

/* The time of a PERF_RECORD_SAMPLE without decoding the rest (what an
 * ordering queue needs): 0, -ENODATA when its event has no
 * PERF_SAMPLE_TIME, -EPROTO (no message) when the record is too short or
 * its event unknown — pd_parse_sample then says why. */
int pd_sample_time(const struct pd_file *f, const struct perf_event_header *rec, uint64_t *time);

/* Decode the sample_id_all trailer of a non-sample record (MMAP, COMM, …).
 * out->valid is false when the evsel has no sample_id_all. */
int pd_parse_sample_id(const struct pd_file *f, const struct perf_event_header *rec,
		       struct pd_sample_id *out);

/* Offset in the file of a record returned by pd_next (for messages). */
/* The caller is done with the records before data position pos (as
 * pd_next counts it): the pages of the mapping before it are dropped
 * (MADV_DONTNEED; read again from the file if touched), so reading a large
 * file in order keeps a window of it in memory, not the file.  No-op for
 * in-memory data. */
void pd_release_before(const struct pd_file *f, uint64_t pos);

uint64_t pd_offset(const struct pd_file *f, const struct perf_event_header *rec);

/* ---- writer ---- */

struct pd_writer;

/* Start a perf.data at PATH (written to a temporary name first).  attrs and
 * names (perf's event names, used for HEADER_EVENT_DESC) have nr entries.
 * PATH "-": perf's pipe mode on standard output (perf record -o -), written
 * in order as records come, nothing rewritten; ids must be added before the
 * first record; a write error (EPIPE when the reader is gone) is returned. */
int pd_writer_open(struct pd_writer **out, const char *path,
		   const struct perf_event_attr *attrs, const char *const *names, size_t nr);

/* Sample ids of event idx (from PERF_EVENT_IOC_ID / read_format ID). */
int pd_writer_add_id(struct pd_writer *w, size_t idx, uint64_t id);

/* Append raw records (already well-formed, 8-byte aligned) to the data
 * section.  Buffered; -errno (e.g. -ENOSPC) with a message on failure. */
int pd_writer_write(struct pd_writer *w, const void *data, size_t len);

/* Bytes of records given to the data section so far (before compression). */
uint64_t pd_writer_data_size(const struct pd_writer *w);

/* perf record -z: HEADER_COMPRESSED (zstd, level 1..ZSTD_maxCLevel(), the
 * ring's size in bytes) in the file; set before the first record (a pipe's
 * features come first).  -EINVAL: a level out of range, or too late.
 * Then pd_writer_compress(): the records written after it go out as
 * PERF_RECORD_COMPRESSED records (perf.data-file-format.txt; perf 6.1's
 * form: one zstd stream for the file, each record's payload at most 64 KiB
 * less its header, sizes not padded to 8), those before it as they are (perf
 * compresses its rings' data, not the side-band it synthesizes first).  A
 * no-op without a level.  -ENOMEM, or a write's error. */
int pd_writer_set_compression(struct pd_writer *w, int level, uint32_t mmap_len);
int pd_writer_compress(struct pd_writer *w);
/* Compressed: the bytes written for the records (headers included), and
 * in *raw the bytes they hold; 0 and 0 before pd_writer_compress(). */
uint64_t pd_writer_compressed(const struct pd_writer *w, uint64_t *raw);

/* Write out buffered records when the oldest has waited a second
 * (pd_writer_write does this too; a recorder calls it when idle), so a
 * killed recorder loses at most about a second of records. */
int pd_writer_tick(struct pd_writer *w);

/* Write out the buffered records now; -errno as pd_writer_write(). */
int pd_writer_flush(struct pd_writer *w);

/* After a write failed with -ENOSPC/-EDQUOT, before finish: the number of
 * PERF_RECORD_SAMPLE records among the whole records on file (those
 * finish will keep). */
uint64_t pd_writer_kept_samples(struct pd_writer *w);

/* Feature data recorded in the header at finish. */
void pd_writer_set_cmdline(struct pd_writer *w, int argc, char *const *argv);
int pd_writer_add_build_id(struct pd_writer *w, uint16_t misc, uint32_t pid,
			   const uint8_t *id, size_t len, const char *filename);
/* HEADER_GROUP_DESC from the events' groups (-e '{a,b}'): member[i] true
 * when event i is in the group of the event before it; each group of two
 * or more as perf writes it ("{anon_group}", its leader's index, its
 * size; perf.data-file-format.txt).  No group: no feature. */
void pd_writer_set_groups(struct pd_writer *w, const bool *member, size_t n);
/* HEADER_TRACING_DATA's body (event/tracepoint.h builds it), copied. */
void pd_writer_set_tracing_data(struct pd_writer *w, const void *data, size_t len);

/* Write attrs, ids, features (hostname, osrelease, version, arch, nrcpus,
 * cmdline, event_desc, build_id, …) and the header; rename over PATH.
 * The writer is freed either way. */
int pd_writer_finish(struct pd_writer *w);

/* Remove the temporary file and free the writer. */
void pd_writer_abort(struct pd_writer *w);

/* ---- writer-only: the on-disk header as pd_writer_finish() writes it ----
 *
 * Layout of a written file: header (104 bytes) | sample ids | attr section
 * | data section (the records, byte for byte as given) | feature section
 * table ({offset,size} per set bit, in bit order, right after the data as
 * perf expects) | feature bodies (TRACING_DATA when given, HOSTNAME, OSRELEASE, VERSION, ARCH,
 * NRCPUS, CPUDESC, CPUID, TOTAL_MEM, CMDLINE, EVENT_DESC, BUILD_ID when
 * given) [| ids and attr section again, when ids were added after the
 * first record].
 * Attributes are written PD_WRITER_ATTR_SIZE bytes long with attr.size set
 * to match, so perf 6.1 (which rejects larger attrs) reads them. */

#define PD_WRITER_HEADER_SIZE 104 /* sizeof(struct perf_file_header) */
#define PD_WRITER_ATTR_SIZE 128   /* PERF_ATTR_SIZE_VER7: what perf 6.1 reads */

struct pd_writer_header {
	uint64_t magic;           /* "PERFILE2" */
	uint64_t size;            /* PD_WRITER_HEADER_SIZE */
	uint64_t attr_size;       /* PD_WRITER_ATTR_SIZE + 16 (attr + ids section) */
	uint64_t attrs_offset, attrs_size;
	uint64_t data_offset, data_size;
	uint64_t event_types_offset, event_types_size;
	uint64_t features[4];     /* bit N set = feature N present */
};

#endif
