/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfscript.h — streaming parser of `perf script` text into folded stacks,
 * with the rules of FlameGraph's stackcollapse-perf.pl (41fee1f):
 *
 *   - lines starting with '#' are comments; an empty line ends a sample;
 *   - a sample header in perf script's own layout
 *     "COMM PID[/TID] [CPU] SECS.FRAC: [PERIOD] EVENT:" is parsed from its
 *     right-hand fields (the pid is the token followed by an optional [cpu]
 *     and the time), so a comm with spaces, digits or brackets ("ET_NET 0",
 *     "[pool 0]") or of one character is kept whole — a deliberate
 *     difference from the Perl regex below, which cuts or swallows those;
 *     when "ADDR SYM (DSO)" follows the event on the same line (a
 *     recording without call chains, comm padded on the left) that frame
 *     is the sample's one-frame stack;
 *   - other headers are matched as the Perl regex
 *     /^(\S.+?)\s+(\d+)[/]*(\d+)*\s+/ (comm, then pid[/tid]: with one number
 *     it is the tid and the pid is "?"), its period and event as
 *     /:\s*(\d+)*\s+(\S+):\s*$/;
 *   - a frame line is matched as /^\s*(\w+)\s*(.+) \((.*)\)/ (address,
 *     symbol, DSO), a DSO "PATH (deleted)" read as PATH; "+0x…" offsets are
 *     stripped, "a->b" (perf's inline chains) gives frames a and b_[i],
 *     "[unknown]" becomes "[dso]" or "[unknown]" ("[… <addr>]" with addrs),
 *     argument lists "(…)" are cut (not in Go names "pkg.(*T).M",
 *     "(anonymous namespace)", inside C++ template arguments or {lambda…},
 *     nor the parameters of a function enclosing a local entity:
 *     "f(int)::{lambda(int)#1}::operator()" gives
 *     "f(int)::{lambda(int)#1}::operator"), ';' becomes ':',
 *     backslash-escaped quotes are dropped (others kept), Java "L" class
 *     prefixes are removed in processes named java*, and _[k] (DSO "[…]",
 *     a vmlinux, versioned or not, a .ko) / _[j] (a /tmp/perf-N.map, a
 *     jitted-PID-N.so) annotations are added on request;
 *   - a symbol that is one "(…)" group and nothing else is skipped (the
 *     Perl script's "process names"); "(anonymous namespace)::f" is a frame;
 *   - Rust legacy names demangled halfway ("…$LT$T$GT$::h<16 hex>") are
 *     finished (symbol/demangle.h), and with demangle mangled names are
 *     demangled (as perf shows them, without parameter lists);
 *   - the default event filter compares events without perf's modifiers
 *     ("cycles:u" is "cycles"); a period of 0 weighs 0;
 *   - CRLF line ends are read as line ends; a frame line without a DSO
 *     ("  114d compute", perf script -F comm,tid,ip,sym) is a frame of DSO
 *     "[unknown]";
 *   - other lines are reported (pk_warn) and skipped.
 * Matching is emulated exactly (greedy/lazy backtracking included), so
 * outputs are byte-identical to the Perl script's on the same input except
 * for the rules above where they say otherwise (inferno's choices where
 * the Perl script drops or misnames frames).
 *
 * Speed: a frame line's result is cached by its text (address excluded
 * unless addrs/inline need it) with, per cached line, the two lines that
 * followed it last; a line equal to one of these predictions (whole, or by
 * its key) costs one compare, no scan of its fields and no hash; in perf
 * script's own layout (tab, 16 address columns, space) the key is compared
 * in place, whatever the address, with no search for the line's end.  In text
 * held in memory (psc_parse_mem) the first frame line of each of the next
 * few samples is found ahead and its table entry fetched into the cache
 * before it is looked up.  A header
 * equal to one of the last four but for its time reuses their fields.
 * Samples are hashed as id sequences, the lookup fetched ahead of use;
 * input is read in large blocks, no per-line allocation.
 */
#ifndef PERFKIT_FORMAT_PERFSCRIPT_H
#define PERFKIT_FORMAT_PERFSCRIPT_H

#include "format/collapse.h"
#include "stack/folded.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ps_collapser;

struct ps_collapser *psc_new(const struct collapse_opts *o, struct folded *out);
void psc_free(struct ps_collapser *c);

/* Parse perf script text from fd; the first prefix_len bytes of the stream
 * were already read into prefix (magic sniffing).  gzip: the stream is
 * gzip-compressed.  Returns 0 or -errno (read error, corrupt gzip). */
int psc_parse_fd(struct ps_collapser *c, int fd, const char *name,
		 const void *prefix, size_t prefix_len, bool gzip);

/* Parse text held in memory. */
int psc_parse_mem(struct ps_collapser *c, const char *buf, size_t len, const char *name);

/* Typed frames named once each, not per sample (perf.data read into the
 * aggregation model, profile/profile.h):
 *  - psc_event_keep applies the event filter (true: keep the sample; NULL:
 *    no event); without --event-filter the first event kept is the filter;
 *  - psc_thread_names gives the process name frames of a thread ("comm",
 *    with --pid "comm-PID", with --tid "comm-PID/TID") and whether the
 *    rules read it as a Java process;
 *  - psc_frame_names gives the frames one typed frame is named by (ip: its
 *    ELF address when known, what --inline looks up), root first: none for
 *    a frame the rules skip, several for an inline chain; java: the
 *    thread's.  Each call keeps its names: call it once per frame.
 * Ids are frames of the folded stacks given to psc_new
 * (folded_frame_name); the arrays returned are valid until the next call. */
bool psc_event_keep(struct ps_collapser *c, const char *event);
const uint32_t *psc_thread_names(struct ps_collapser *c, const char *comm, long pid, long tid,
				 size_t *n, bool *java);
const uint32_t *psc_frame_names(struct ps_collapser *c, uint64_t ip, const char *sym, uint64_t sym_off,
				const char *dso, bool kernel, bool java, size_t *n);

/* The event whose samples are kept ("" before the first sample). */
const char *psc_event(const struct ps_collapser *c);

/* Length of an event name without its perf modifiers: "cycles:u",
 * "cpu-clock:uhH" → "cycles", "cpu-clock"; a tracepoint
 * ("sched:sched_switch") is kept whole. */
size_t psc_event_base_len(const char *ev, size_t evl);

/* Queue (pk_warn) the warnings: unrecognised lines, dropped events. */
void psc_finish(struct ps_collapser *c);

/* For parsing one text in pieces (each starting after a blank line, so no
 * sample spans two), possibly on several threads: psc_first_event finds
 * the event the first piece would default to (false: none), which every
 * piece's collapser is given with psc_set_first_event; psc_merge then adds
 * the line count, warnings and dropped-sample counts of the next piece's
 * collapser to the first's (its stacks are merged with folded_merge). */
bool psc_first_event(const char *buf, size_t len, const char **ev, size_t *evl);
void psc_set_first_event(struct ps_collapser *c, const char *ev, size_t evl);
void psc_merge(struct ps_collapser *into, struct ps_collapser *from);

/* For parsing a stream in blocks (each starting after a blank line) on
 * several threads, each thread with its own collapser: after each block,
 * psc_part_take moves what the collapser counted in it (lines, the first
 * unrecognised lines, dropped samples) out of it; psc_part_merge adds the
 * parts to one collapser in the blocks' order, so that line numbers and the
 * first dropped event are those of one thread reading the whole stream
 * (and frees the part; psc_part_free frees one not merged). */
struct psc_part;
struct psc_part *psc_part_take(struct ps_collapser *c);
void psc_part_merge(struct ps_collapser *into, struct psc_part *p);
void psc_part_free(struct psc_part *p);

#endif
