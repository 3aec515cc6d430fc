/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * collapse.h — turn a profile into folded stacks, the way FlameGraph's
 * stackcollapse-perf.pl does (FlameGraph 41fee1f), for every command that
 * needs folded stacks (collapse, flamegraph, flamegraph -- CMD).
 *
 * Inputs, told apart by their first bytes:
 *   "PERFILE2"      perf.data (through session/session.h)
 *   1f 8b           gzip-compressed `perf script` text (zlib)
 *   anything else   `perf script` text
 * path "-" (or NULL) is standard input (perf.data on a pipe is read from
 * the stream: session_open_stream, no temporary file).
 *
 * Output: stacks root first, the first frame being the process name (with
 * "-PID" / "-PID/TID" under pid/tid; spaces become '_'); each sample
 * weighs its period (a missing period counts 1; a period of 0 counts 0, as
 * in inferno and perf report, where the Perl script counts it 1), or 1
 * with count.  Only samples of one event are kept: opts
 * event_filter, or by default the first event seen (a warning is queued
 * with pk_warn when others are dropped).
 *
 * Frame names follow stackcollapse-perf.pl's rules (see perfscript.h), with
 * the corrections listed in shared/conformance/README.md: the last sample
 * of a file without a final blank line is kept, and C++ names keep
 * template arguments that contain parentheses.
 *
 * perf.data frames are named as the Perl script would name the lines of
 * `perf script` for the same file: symbol (offset dropped), "[unknown]"
 * symbols become "[dso-basename]" (or "[unknown]"), with _[k] on kernel
 * frames under kernel.  Differences: --pid/--tid use the real pid (perf
 * script's default output has none, so the Perl script prints "?"), a
 * sample without a callchain has its ip as one frame, and --addrs shows the
 * sampled address (perf script shows a DSO-relative one).  Names are the
 * session's (perf script demangles C++; see session.h).
 *
 * Speed and memory: plain text (a file or a pipe alike) is read in 1 MB
 * blocks cut at blank lines and parsed by one worker thread per CPU this
 * process may run on (sched_getaffinity), each into its own folded stacks,
 * merged at the end; same output and warnings (file line numbers, the
 * first event of the whole text as the default filter) as one thread.
 * --srcline, --inline, and text whose first block names no event are
 * parsed by one worker, in order.  Peak memory: two blocks per worker and
 * one being read, plus the distinct frame lines and stacks — not the size
 * of the input.  gzip is read in 4 MB blocks on one thread.
 *
 * Errors: -errno with pk_error set (unreadable file, corrupt or truncated
 * gzip, bad perf.data); lines that are not perf script text are skipped with a
 * warning (pk_warn: the first few with file:line, then a total).
 */
#ifndef PERFKIT_FORMAT_COLLAPSE_H
#define PERFKIT_FORMAT_COLLAPSE_H

#include "stack/folded.h"
#include "profile/names.h"

#include <stdbool.h>

struct collapse_opts {
	bool pid;          /* --pid: comm-PID */
	bool tid;          /* --tid: comm-PID/TID */
	bool kernel;       /* --kernel: _[k] on kernel frames */
	bool jit;          /* --jit: _[j] on frames from /tmp/perf-N.map */
	bool addrs;        /* --addrs: [dso <addr>] for unknown symbols */
	bool inline_;      /* --inline: expand inlined frames (libdw) */
	bool context;      /* --context: with inline_, add file:line */
	bool srcline;      /* --srcline: input has perf script -F+srcline lines */
	bool count;        /* --count: every sample weighs 1, not its period */
	bool demangle;     /* --demangle: text input: demangle mangled C++/Rust
			      names (perf script --no-demangle output) */
	const char *event_filter; /* NULL or "": the first event seen */
	const char *first_event;  /* without event_filter: the first event of
				     the files read before (collapse_info's),
				     kept as if seen first in this one (one
				     filter for several files, as the Perl
				     script reads them as one stream); NULL:
				     none */
	/* perf.data input only (text input has its names and frames set) */
	int max_stack;     /* --max-stack N: at most N frames a stack (0: all) */
	bool no_demangle;  /* --no-demangle: raw C++/Rust symbol names */
};

/* Read path_or_dash (see above) and add its stacks to *out (which the
 * caller has folded_init'ed; stacks from several files accumulate). */
int collapse_file(const char *path_or_dash, const struct collapse_opts *o,
		  struct folded *out);

/* What a collapse kept, for naming its counts. */
struct collapse_info {
	char event[128];   /* the event whose samples were kept ("" if none) */
	bool opened;       /* false: the file could not be opened, or is a
			      directory (nothing read) */
};

/* collapse_file, and the event kept in *info (info may be NULL). */
int collapse_file_info(const char *path_or_dash, const struct collapse_opts *o,
		       struct folded *out, struct collapse_info *info);

/* collapse_file_info for a stream fd (a pipe) whose first prefix_len
 * bytes (at most 8) the caller has read already into prefix. */
int collapse_stream_info(int fd, const char *name, const void *prefix, size_t prefix_len,
			 const struct collapse_opts *o, struct folded *out, struct collapse_info *info);

/* collapse_file_info and collapse_stream_info, except that a perf.data's
 * stacks are not flattened into out but left as the tree of their names
 * (profile/names.h, for a consumer that reads stacks merged by name: a
 * flame graph): out gets the names only (the tree's name ids are out's
 * frame ids, folded_frame_name), *tree the stacks (each path from the
 * root to a node with end set is a stack collapse_file_info would add,
 * the node's period its count; free with prof_names_free).  Text input
 * goes into out as with collapse_file_info, *tree left empty (nr 0, on
 * errors too). */
int collapse_file_tree(const char *path_or_dash, const struct collapse_opts *o, struct folded *out,
		       struct prof_names *tree, struct collapse_info *info);
int collapse_stream_tree(int fd, const char *name, const void *prefix, size_t prefix_len,
			 const struct collapse_opts *o, struct folded *out, struct prof_names *tree,
			 struct collapse_info *info);

/* The unit of the counts of a collapse that weighed samples by their
 * period, for a flame graph's --countname (flamegraph.pl's convention:
 * the count names what is counted): "ns" for cpu-clock and task-clock
 * (their periods are nanoseconds), the event's name without modifiers
 * otherwise ("cycles", "page-faults"), "samples" for an empty event. */
const char *collapse_count_unit(const char *event, char *buf, size_t size);

/* Same for perf script text already in memory (name is used in messages). */
int collapse_text(const char *buf, size_t len, const char *name,
		  const struct collapse_opts *o, struct folded *out);

#endif
