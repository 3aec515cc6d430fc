/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session.h — a perf.data file replayed as a timeline of threads, their
 * command names and their memory maps, with every sample resolved to
 * frames (DSO + symbol).
 *
 * Model: records are processed in timestamp order (perf's ordered-events
 * rule; records without a time keep file order before timed ones).  COMM,
 * FORK, EXIT, MMAP and MMAP2 update the thread table, so a sample is
 * resolved against the comm and maps its thread had at that instant: a
 * child before exec shows its parent's comm and binary, after exec its own.
 * A forked thread inherits its parent's maps and comm.  An exec (COMM with
 * PERF_RECORD_MISC_COMM_EXEC) keeps the old image's maps until the new
 * image's MMAPs overlap them, as perf does: a sample taken inside execve
 * after the COMM, while the kernel loads the new image, still has the old
 * image's user stack (__GI___execve in the old libc).
 *
 * Frames: with PERF_SAMPLE_CALLCHAIN the callchain (PERF_CONTEXT_* markers
 * switch between kernel and user address spaces and are not frames), else
 * the sample ip alone.  frames[0] is the leaf (where the sample hit),
 * frames[nr-1] the outermost caller.
 *
 * Symbols: through the file each MMAP names, unless the file's build-id is
 * not the one recorded (HEADER_BUILD_ID): then a copy by build-id from
 * ~/.debug/.build-id or /usr/lib/debug/.build-id, else no symbols (one
 * warning) — a rebuilt binary never names an old recording's addresses.
 * [vdso] frames are named from the recording's vdso in perf's build-id
 * cache, else (perf's pipe mode has no build-ids) from this machine's own
 * vdso, written to a temporary file removed on close, when the recording's
 * kernel release is this one's or unknown, as perf does.
 * Addresses in anonymous memory ("//anon", "[anon:…]") are named from the
 * process's /tmp/perf-PID.map (JIT code; symbol/perfmap.h), with the map's
 * path as the DSO whether or not the file exists, as perf's map__new; an
 * address in no mapping at all is "[unknown]" (perf's thread__find_map).
 *
 * DWARF call graphs (PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER, perf
 * record --call-graph dwarf): the kernel part of the callchain, then the
 * user frames unwound from the registers and stack copy (session/unwind.h).
 *
 * Truncation: a frame-pointer chain with as many entries as the kernel's
 * limit (attr.sample_max_stack, else /proc/sys/kernel/perf_event_max_stack
 * now), or a DWARF unwind that ran past its stack copy, lacks its outer
 * callers: it gets an extra outermost frame with sym "[truncated]" (dso
 * "[unknown]", ip 0) and counts in nr_truncated.  A stack cut by max_stack
 * is not marked.
 *
 * Broken frame-pointer chains: a library built without frame pointers
 * (Debian's libc) cuts the -g chains of samples taken in it (or leaves
 * garbage behind), and the samples show up as callerless roots.  The rule:
 * a frame-pointer chain (not DWARF, not truncated) with user frames is whole
 * when its outermost user frame is a program or thread entry
 * (session_sym_is_entry: _start, __libc_start_main…, clone…, start_thread, …),
 * else broken.  When at least 20 such chains were seen, some are whole (so
 * the entries can be named at all: not a stripped or static program) and
 * at least 10 % are broken, session_process() adds one warning
 * (pk_warn) with the share, the DSO most broken chains end in, and
 * `--call-graph dwarf`.  The counts are in session_stats.
 */
#ifndef PERFKIT_SESSION_H
#define PERFKIT_SESSION_H

#include "perfdata/perfdata.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pk_frame {
	uint64_t ip;          /* address as sampled */
	const char *sym;      /* symbol name, or NULL when unknown */
	uint64_t sym_off;     /* ip's offset from the symbol start (bytes) */
	const char *dso;      /* DSO path, "[kernel.kallsyms]", or "[unknown]" */
	bool kernel;          /* kernel-space address */
	bool inlined;         /* an inlined function's frame (session_opts.inline_):
				 sym is its DWARF name, ip that of the frame
				 after it, which holds the real function */
	uint8_t inl_depth;    /* a frame of a DWARF sample's inline chain at
				 addr (perf's naming): 1 + its item's index in
				 inline_chain()'s chain (1: the real function);
				 0: none.  Its srcline is that item's line */
	uint64_t addr;        /* ELF virtual address of ip in dso, 0: unknown */
	uint64_t map_ip;      /* ip as perf script prints it: relative to its
				 file-backed mapping (ip - start + pgoff, perf's
				 map__map_ip); ip itself in the kernel, JIT code
				 and anonymous or unmapped memory */
};

/* fr's address as its DSO knows it, the same in every process that maps
 * the DSO: the ELF address when known, else map_ip (the [vdso], mapped at
 * a different address in each process, is resolved from its image by
 * offset), else the sampled one (kernel, JIT code). */
static inline uint64_t pk_frame_dso_addr(const struct pk_frame *fr)
{
	return fr->addr ? fr->addr : fr->map_ip ? fr->map_ip : fr->ip;
}

/* The start of fr's symbol, the same in every process that maps its DSO:
 * pk_frame_dso_addr() less sym_off.  0 for an unknown symbol or an
 * inlined frame (whose ip belongs to its caller).  Rows keyed by it stay
 * apart for two symbols of one name (C++ overloads), as perf keys its
 * rows by symbol. */
static inline uint64_t pk_frame_sym_start(const struct pk_frame *fr)
{
	return !fr->sym || fr->inlined ? 0 : pk_frame_dso_addr(fr) - fr->sym_off;
}

struct pk_sample {
	const struct pd_sample *raw;
	const char *event;    /* event name, e.g. "cpu-clock" */
	const char *comm;     /* thread's command name at the sample's time */
	uint32_t pid, tid, cpu;
	uint64_t time;        /* ns, perf_clock */
	uint64_t period;      /* events represented by the sample */
	uint16_t cpumode;     /* PERF_RECORD_MISC_CPUMODE_MASK bits */
	size_t nr_frames;
	const struct pk_frame *frames; /* leaf first */
	bool chain_empty;     /* the recorded call chain held no address: frames[0]
				 is the sample's ip (perf script prints no frame) */
	bool truncated;       /* the last frame is the "[truncated]" marker
				 (perf script prints none) */
	bool dwarf;           /* a --call-graph dwarf sample (registers and a
				 user stack copy): its kernel frames first, then
				 the unwound user ones */
};

struct session_opts {
	bool no_callchain;    /* use the sample ip only even with a callchain */
	bool counts_only;     /* samples handed over decoded but not resolved: no
				 frame, thread or symbol (comm NULL, nr_frames
				 0); for counting them (report --stats) */
	int max_stack;        /* 0: no limit; else keep at most this many frames
				 of the recorded chain, and at most this many
				 unwound user frames of a DWARF sample (perf's
				 rule: its kernel part and user part apart) */
	bool no_demangle;     /* raw ELF symbol names (default: C++/Rust demangled) */
	bool inline_;         /* expand inlined functions from DWARF into frames of
				 their own (user-space frames with debug info;
				 each (DSO, address) resolved once) */
	const char *symfs;    /* perf's --symfs: a DSO's file is looked for at
				 symfs + its recorded path (then, with a build-id,
				 in the build-id caches), not at the path; and
				 kernel addresses are named only from kallsyms
				 below.  NULL, "" or "/": the paths themselves */
	const char *kallsyms; /* perf's --kallsyms: kernel addresses named from
				 this file in /proc/kallsyms's format (NULL:
				 /proc/kallsyms, or none with symfs) */
	bool inline_perf;     /* (without inline_) perf 6.1's perf script: in
				 samples unwound from DWARF (--call-graph dwarf)
				 only, each user frame with debug info becomes its
				 chain of functions at its address as binutils'
				 addr2line names them (demangled as symbols are;
				 the innermost one without a linkage name by the
				 frame's symbol), innermost first: one named as
				 the frame's symbol is the frame, any other an
				 inlined frame (sym_off: the frame's) */
};

struct session_stats {
	uint64_t nr_records;
	uint64_t nr_samples;
	uint64_t nr_lost;      /* perf report's "Total Lost Samples": the sum of
				  PERF_RECORD_LOST_SAMPLES counts (not those a BPF
				  filter dropped), as perf's session counts them */
	uint64_t nr_lost_records; /* the sum of PERF_RECORD_LOST counts (records
				  the kernel could not put in a full ring buffer) */
	uint64_t total_period;
	uint64_t nr_truncated; /* samples whose stack was cut short (see below) */
	uint64_t nr_fp_chains; /* frame-pointer chains with user frames (above) */
	uint64_t nr_fp_broken; /* … whose outermost user frame is no entry */
	/* the data section's records by type (perf_event_header.type, kernel
	 * and perf's own, below 128), each as read, processed or not: perf
	 * report --stats' counts (events_stats) */
	uint64_t nr_by_type[128];
};

/* Whether sym names a program or thread entry, the outermost frame of a
 * whole user stack: _start, __libc_start_main (any version suffix),
 * __libc_start_call_main, _dl_start_user, clone, clone3, __clone*,
 * start_thread, thread_start, Go's runtime.goexit/rt0_go/mstart. */
bool session_sym_is_entry(const char *sym);

struct session;

typedef int (*session_sample_fn)(const struct pk_sample *s, void *arg);

/* Open PATH (see pd_open for errors). opts may be NULL. */
int session_open(struct session **out, const char *path, const struct session_opts *opts);

/* Open a stream (a pipe: `cat perf.data |`, `perf record -o - |`) whose
 * first prefix_len bytes the caller read already (pd_open_stream). */
int session_open_stream(struct session **out, const char *name, int fd, const void *prefix,
			size_t prefix_len, const struct session_opts *opts);

/* A session fed with records in memory (session_feed): nr events with
 * these attrs and perf's names (NULL: default names); name is used in
 * messages.  The events' sample ids, needed with several events, are
 * given with pd_add_ids(session_pd_file(s), …). */
int session_open_attrs(struct session **out, const char *name, const struct perf_event_attr *attrs,
		       const char *const *names, size_t nr, const struct session_opts *opts);
struct pd_file *session_pd_file(struct session *s);

/* Process records handed in memory (data[0, len): whole records, 8-byte
 * aligned, as perf.data's data section holds them) as one more piece of
 * the session's stream: they are copied, queued and applied in time order
 * with perf's bounded reordering (at each FINISHED_ROUND record the queued
 * records up to the largest time seen before the previous round); with
 * final, every queued record is processed before the return, else those a
 * later round may precede stay queued for the next feed.  The thread
 * table, maps and symbol cache live on across feeds, so a long-lived
 * caller (top) loads each DSO's symbols once.  session_stats counts
 * across feeds.  For sessions made by session_open_attrs (a file's own
 * data is not replaced).  Returns 0, fn's value, or -errno. */
int session_feed(struct session *s, const void *data, size_t len, bool final, session_sample_fn fn,
		 void *arg);

/* Forget the threads whose EXIT record was seen (a late sample of one is
 * then named as an unknown thread's), the per-process JIT-map notes once
 * over 1024, and the symbol tables once the cache holds more than twice
 * the DSOs the live threads map (plus 64; not with DWARF unwinding), so a
 * long-lived session's memory follows the live threads and what they map,
 * not all that ever ran.  Pointers to names from earlier samples may then
 * dangle: copy what you keep. */
void session_trim(struct session *s);

/* The underlying file (header, events, features). */
const struct pd_file *session_file(const struct session *s);

/* Change opts.max_stack before the samples are read (a caller that decides
 * its limit from the file's events, as report does with Children). */
void session_set_max_stack(struct session *s, int max_stack);

/* Call fn for every sample in time order; fn returns 0 to go on, non-zero
 * to stop (that value is returned).  The sample and its frames are valid
 * only during the call. Returns 0, fn's value, or -errno. */
int session_process(struct session *s, session_sample_fn fn, void *arg);

/* A side-band record (PERF_RECORD_COMM, _FORK, _EXIT, _MMAP or _MMAP2:
 * perf_event_open(2)'s layouts) as the session applies it, in time order
 * among the samples: what perf script --show-task-events and
 * --show-mmap-events print of it. */
struct pk_side_event {
	uint32_t type;            /* PERF_RECORD_COMM, _FORK, _EXIT, _MMAP or _MMAP2 */
	const struct perf_event_header *rec; /* the record; its size holds its
				     type's fixed fields (an MMAP's file name
				     is NUL-ended within it) */
	bool exec;                /* COMM: PERF_RECORD_MISC_COMM_EXEC (an execve) */
	uint32_t pid, tid;        /* the record's task (FORK: the child; MMAP:
				     pid -1 for the kernel's maps) */
	uint32_t ppid, ptid;      /* FORK, EXIT: the parent */
	const char *name;         /* COMM: the new name; MMAP: the file name */
	const char *comm;         /* the name task tid has: after a COMM, a FORK's
				     child's (inherited), an EXIT's before it */
	const struct pd_evsel *evsel; /* the event its sample_id names (the first
				     event for an id of 0, or none) */
	/* its sample_id_all trailer, as perf script takes it: without one
	 * (the event has no sample_id_all) pid/tid the record's, cpu 0, time
	 * FORK's and EXIT's own, the others' 0 */
	uint32_t s_pid, s_tid, cpu;
	uint64_t time;            /* ns */
};

typedef int (*session_side_fn)(const struct pk_side_event *e, void *arg);

/* Have session_process() (and session_feed()) call fn for each side-band
 * record of the types in the mask types (1u << PERF_RECORD_COMM, ...),
 * in the same time order as the samples, each after the session applies
 * it (an EXIT leaves the task's name as it was); fn's non-zero value stops the
 * processing as a sample callback's does.  types 0 or fn NULL: none (the
 * default). */
void session_set_side_fn(struct session *s, uint32_t types, session_side_fn fn, void *arg);

const struct session_stats *session_stats(const struct session *s);

/* The command name thread tid has now (after session_process: its last
 * one, as perf's "pid"/"tid" sort keys show a thread), or NULL for a
 * thread never seen. */
const char *session_thread_comm(struct session *s, uint32_t tid);

/* The threads the file named (FORK, COMM, EXIT, samples), one each of
 * their tids as the table holds it after session_process: pid, tid, ppid
 * (the tid of the thread that forked it, FORK's ptid as perf's
 * thread__fork; -1 when no FORK named one) and its last command name, in
 * no particular order: perf report --tasks.  *out xmalloc'd (the
 * caller's), the count returned; comm lives as long as the session. */
struct session_task {
	uint32_t pid, tid;
	int32_t ppid;
	const char *comm;
};
size_t session_tasks(struct session *s, struct session_task **out);

/* Thread tid's maps as the table holds them after session_process (an
 * exec's old image kept where the new one does not overlap it, as perf's),
 * by address: [start, end), the file offset, MMAP2's inode (0 without
 * one), prot and flags (mmap(2)'s PROT_*, MAP_*; an MMAP record's:
 * PROT_EXEC unless data, as perf's) and the DSO: perf report --mmaps.
 * *out xmalloc'd (the caller's), the count returned (0: no such thread). */
struct session_map {
	uint64_t start, end, pgoff, ino;
	uint32_t prot, flags;
	const char *dso;
	bool anon;          /* anonymous or file-less memory (//anon, [heap],
			       [stack], /SYSV...: perf's is_anon_memory and
			       is_no_dso_memory) */
};
size_t session_thread_maps(struct session *s, uint32_t tid, struct session_map **out);

/* The files session_opts names, checked before a session opens them (a
 * command's options): a kallsyms that is not a readable regular file (a
 * FIFO or /dev/zero would be read forever) is -ENOENT, -EACCES or
 * -EINVAL (pk_error: the option and why); a symfs that is not a directory
 * a warning (pk_warn: no DSO will be found there), 0. */
int session_opts_check(const struct session_opts *so);

/* What a sample's comm is called at the end, as perf's report names it:
 * a thread no FORK or COMM had named carries ":TID" (comm_placeholder);
 * its first COMM renames that name in place (perf's thread__set_comm,
 * comm__override), its samples before it included, so comm, the ":TID"
 * pointer a sample carried, gives the thread's first name then.  Any
 * other comm (and all of them before the COMM is read) is returned as it
 * is.  Only report's aggregation renames; script prints ":TID" as perf
 * script does. */
const char *session_comm_renamed(const struct session *s, const char *comm);

/* The source line of a frame, as perf's srcline (util/srcline.c):
 * "file.c:LINE" (file basename, innermost inlined function's line) from
 * DWARF ("??:0" when the DSO's DWARF has no unit of the address and the
 * frame an ELF symbol, ":0" when its unit has no line for it, as perf's
 * addr2line answers); else
 * "SYM+OFF" (OFF in decimal) when the symbol is known (every
 * kernel frame with a symbol: no vmlinux lines are read); else "DSO[OFF]"
 * (DSO basename, OFF in hex); "[unknown]" without a DSO or a kernel
 * symbol.  Interned in the session; each user (DSO, address) resolved
 * once. */
const char *session_srcline(struct session *s, const struct pk_frame *fr);

/* The same as perf script's srcline field prints it (map__fprintf_srcline,
 * no symbol): "file.c:LINE" from DWARF, else "DSO[ADDR]" (ADDR in hex: the
 * DSO's address, a kernel frame's ip); NULL for a frame without a DSO or
 * whose line is "??:0" (perf prints nothing).  Interned. */
const char *session_script_srcline(struct session *s, const struct pk_frame *fr);

/* A call-graph entry's srcline, as perf's callchain_srcline() gives it
 * for the -g keys address (address set) and srcline: the frame's
 * "file.c:LINE" (session_srcline's, from DWARF); else, for address, "+OFF"
 * (OFF in decimal from the symbol's start), else NULL.  NULL for a frame
 * without a symbol (perf prints its address alone).  Interned. */
const char *session_chain_srcline(struct session *s, const struct pk_frame *fr, bool address);

/* The file to read for the user DSO dso (a pk_frame's dso pointer, as the
 * session interned it): dso itself when its build-id is the one recorded
 * (or none was), else its copy by build-id (~/.debug, /usr/lib/debug), the
 * same file symbols came from; NULL when none matches (a missing or
 * rebuilt binary: its warning is queued with pk_warn once).  For
 * "[vdso]": the image its frames are named from, perf's copy by build-id
 * (~/.debug/[vdso]/BUILD-ID/vdso, which perf record saves), else this
 * machine's own when the recording's kernel release is this one's (a
 * /proc/self/fd path), else NULL. */
const char *session_dso_file(struct session *s, const char *dso);
void session_close(struct session *s);

#endif
