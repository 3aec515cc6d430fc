/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile.h — the aggregation model: one stack tree of a profile, with
 * interned frames and threads, from which rows (perf report's hist
 * entries for any set of sort keys) and their call graphs are derived
 * without reading the samples again.
 *
 * Shape:
 *  - Frames: a typed frame (struct pk_frame: DSO, symbol, ip, inlined,
 *    kernel) is interned to a dense id from 0 by its identity: (DSO,
 *    symbol, symbol start, inlined, kernel) for a known symbol, (DSO, ip,
 *    offset, kernel) for an unknown one; with PROF_BY_IP the ip is part of
 *    every frame's identity (keys that differ within a function: srcline).
 *    The stored frame is the first one seen.  The dso, sym and comm
 *    pointers are the identity (the session interns them) and must outlive
 *    the model.
 *  - Threads: (comm, pid, tid, tag, cpu) interned to dense ids; a thread is the root
 *    of its stacks.
 *  - Nodes: a trie.  Node 0 is the root; its children are thread nodes
 *    (frame = PROF_THREAD | thread id), theirs the samples' outermost
 *    callers, down to the leaves.  A node's period and count are those of
 *    the samples whose stack ends there (Self of that stack).  A parent's
 *    id is below its children's.  Memory grows with distinct stacks and
 *    frames, nothing per sample once a stack has been seen.
 *
 * Rows: prof_rows_make() groups nodes by the sort keys (a row key is the
 * keys' values of the node's thread and frame) in one pass over the trie:
 * Self of a row is the period of the stacks ending in it, Children the
 * period of the stacks through it, each stack counted once however often
 * the row recurs in it (perf's --children).  Each key value gets a dense
 * "part" id per key, so rows compare as small integers.  Without
 * children, only nodes where a stack ends get a row.
 *
 * Call graphs: prof_cg_load() fills a struct cg_forest's stacks from the
 * trie, tagged with the rows (callgraph.h builds and prints the trees).
 *
 * Errors: allocation failure aborts (xmalloc); nothing here fails,
 * prints or exits.
 */
#ifndef PERFKIT_PROFILE_H
#define PERFKIT_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session/session.h"

struct cg_forest;

#define PROF_THREAD 0x80000000u
#define PROF_NONE UINT32_MAX

/* PROF_BY_IP: frames per address.  PROF_REDERIVE: rows will be made
 * again (other keys): prof_rows_make() keeps what does not depend on the
 * keys until the next prof_add() (about 28 bytes per node, 40 per
 * distinct (thread, frame) pair, 40 per frame, 4 per frame and choice of
 * dso/sym keys): rows with Children are then summed from the pairs, or,
 * when no key names the thread (comm, pid, tid), from the frames' sums
 * (in frame order, half as many on a compile job's profile), and only
 * rows whose frames share a key (an inlined copy, keys such as dso) read
 * the nodes, in one sequential pass.  PROF_SYS: prof_rows_make() also
 * makes the rows' self_sys (one more pass over the nodes). */
enum { PROF_BY_IP = 1, PROF_REDERIVE = 2, PROF_SYS = 4 };

/* A thread as the model keys it.  tag: NULL, or an interned text that
 * is part of the thread's identity and PROF_TRACE's value (report's trace
 * key: a tracepoint sample's formatted fields, perf's "Trace output");
 * cpu: part of it too, PROF_CPU's value (0 when no key reads it). */
struct prof_thread {
	const char *comm;
	uint32_t pid, tid;
	const char *tag;
	uint32_t cpu;
};

struct prof_node {
	uint32_t parent, frame;       /* frame: a frame id, or PROF_THREAD | thread */
	uint32_t count;               /* samples ending here (saturates) */
	uint64_t period;              /* their period */
};

struct prof;

struct prof *prof_new(unsigned flags);
void prof_free(struct prof *p);

/* One sample: frames leaf first (frames[0] the leaf, as struct pk_sample
 * holds them), n >= 1.  Consecutive samples of a thread share the work
 * for the outer callers they have in common.  Returns the node where the
 * stack ends (its id stays until prof_rows_make() with PROF_REDERIVE). */
uint32_t prof_add(struct prof *p, const char *comm, uint32_t pid, uint32_t tid, const struct pk_frame *frames,
		  size_t n, uint64_t period);

/* The same for a thread with a tag (t->tag, see struct prof_thread). */
uint32_t prof_add_thread(struct prof *p, const struct prof_thread *t, const struct pk_frame *frames, size_t n,
			 uint64_t period);

/* The same for count samples of summed period (count 0: the period only). */
uint32_t prof_add_n(struct prof *p, const char *comm, uint32_t pid, uint32_t tid, const struct pk_frame *frames,
		    size_t n, uint64_t count, uint64_t period);

/* Rename the threads' comms: each becomes fn(arg, comm) (report: the
 * session's session_comm_renamed, perf's override of a thread's ":TID"
 * by its first COMM).  Called once the samples are added and before rows
 * are made; rows of a renamed comm and of the name it took are then one.
 * A later prof_add() under the old name adds to the renamed thread. */
typedef const char *(*prof_rename_fn)(const void *arg, const char *comm);
void prof_rename_comms(struct prof *p, prof_rename_fn fn, const void *arg);

/* Free what only adding needs (the lookup tables, the threads' previous
 * stacks): a model read only from now on takes less memory; a later
 * prof_add() remakes them. */
void prof_compact(struct prof *p);

size_t prof_nr_nodes(const struct prof *p);
const struct prof_node *prof_nodes(const struct prof *p);
size_t prof_nr_frames(const struct prof *p);
const struct pk_frame *prof_frame(const struct prof *p, uint32_t id);
size_t prof_nr_threads(const struct prof *p);
const struct prof_thread *prof_thread(const struct prof *p, uint32_t id);
/* The most rows prof_rows_make() can make of this model, whatever the
 * keys and Children (PROF_REDERIVE, after a first call: its distinct
 * (thread, frame) pairs); else the nodes, a looser bound.  A reader of
 * memory to come (the browser's reserve for its next 's'). */
size_t prof_max_rows(const struct prof *p);

/* The sort keys rows can be made of; PROF_PID and PROF_TID both key by
 * the thread id (perf's "pid" key is the thread); PROF_TRACE by the
 * thread's tag, PROF_CPU by its cpu. */
enum prof_key { PROF_COMM, PROF_DSO, PROF_SYM, PROF_PID, PROF_TID, PROF_SRCLINE, PROF_TRACE, PROF_CPU, PROF_KEY_MAX };

struct prof_row {
	uint32_t thread, frame;       /* the first node's: the row's names */
	uint32_t part[PROF_KEY_MAX];  /* per key (by enum prof_key): the
					 value's dense id (equal ids, equal
					 values); keys not asked: 0 */
	uint64_t self, children;      /* periods */
	uint64_t nr_self;             /* samples whose leaf is the row */
};

struct prof_rows {
	struct prof_row *v;           /* in the order of their first node */
	size_t nr;
	size_t v_mapped;              /* v's own mapping's size (bytes), or 0:
					 malloc'd (prof_rows_free_v() knows) */
	uint32_t *of_node;            /* row per node, PROF_NONE: none */
	size_t nr_parts[PROF_KEY_MAX];
	uint64_t *self_sys;           /* per row, the part of its Self whose
					 leaf frame is the kernel's (samples
					 taken in kernel mode: perf's
					 overhead_sys), or NULL: made by
					 prof_flat_rows(), and by
					 prof_rows_make() for a model of
					 PROF_SYS */
};

/* A DSO as perf's dso key compares it (sort.c's _sort__dso_cmp: by its
 * short name, a path's last part): dso itself, or the first DSO given
 * with the same short name, so that two files of one name (two builds of
 * a program, a container's copy of a library) are one row.  The rows'
 * DSO part and an unknown address's symbol part are of this DSO. */
struct prof_dsokey;
struct prof_dsokey *prof_dsokey_new(void);
void prof_dsokey_free(struct prof_dsokey *k);
const char *prof_dsokey(struct prof_dsokey *k, const char *dso);
/* Whether two DSOs given so far had one short name. */
bool prof_dsokey_aliased(const struct prof_dsokey *k);

/* The interned value of a frame for PROF_SRCLINE (e.g. session_srcline());
 * equal values, one row.  Needs a PROF_BY_IP model to differ by line. */
typedef const void *(*prof_line_fn)(void *arg, const struct pk_frame *fr);

/* The PROF_SRCLINE part of each frame into ids[frame id] (room for
 * prof_nr_frames()): line(arg, frame)'s values numbered from 0 in the
 * order of their first frame, as prof_rows_make() numbers a row's
 * part[PROF_SRCLINE] (a caller may rank the values ahead of it: the ids
 * are the same for a model whatever the keys).  Returns how many values. */
size_t prof_line_parts(const struct prof *p, prof_line_fn line, void *arg, uint32_t *ids);

/* Hand the model the parts prof_line_parts() made (ids, of nr values;
 * the model owns it now): prof_rows_make() takes them instead of calling
 * its line function, which must give what the one they were made of gave
 * (the browser ranks the lines in a pause, then 's' finds both made).
 * Frames added later make the model call its line function again. */
void prof_set_line_parts(struct prof *p, uint32_t *ids, size_t nr);

/* Room of `bytes` a row (from sizeof(struct prof_row) up) in the rows
 * prof_rows_make() makes from now on: a caller whose own rows are that
 * big writes them over the model's, from the last down (row i's bytes
 * cover only rows i and after), in the same block, instead of a second
 * one of fresh pages (the browser's report rows, 96 bytes: 125 MB for a
 * compile job's 1.3 M rows of 's sym,tid').  out->v then holds
 * (out->nr + 1) * bytes at least. */
void prof_set_row_room(struct prof *p, size_t bytes);

/* Rows of the keys (nr_keys >= 1) into *out (free with prof_rows_free).
 * Children computed when children is set (else 0). */
void prof_rows_make(struct prof *p, const enum prof_key *keys, int nr_keys, bool children,
		    prof_line_fn line, void *arg, struct prof_rows *out);
void prof_rows_free(struct prof_rows *r);
/* Only r->v (NULL after): a caller done with the rows before the rest. */
void prof_rows_free_v(struct prof_rows *r);

/* Load the trie's stacks into an empty forest (cg_forest_new()), each
 * node tagged with its row (tags are row indexes; nodes without a row:
 * PROF_NONE), frames interned as callgraph's (DSO, symbol) identities;
 * then cg_trees_from_stacks() builds the rows' trees.  Ends early, part
 * of the stacks loaded, once the forest's stop flag is set
 * (cg_forest_set_stop). */
void prof_cg_load(const struct prof *p, const struct prof_rows *rows, struct cg_forest *f);

/* prof_cg_load for a forest that outlives the model (top's, kept across
 * windows): a node's tag is tag_of[its row] (the rows mapped to the
 * caller's own; NULL: the row), and each frame passes through copy(arg,
 * &cf) before being interned, to replace its dso and sym by copies that
 * live as long as the forest (NULL: kept). */
struct cg_frame;
void prof_cg_load_with(const struct prof *p, const struct prof_rows *rows, const uint32_t *tag_of,
		       void (*copy)(void *arg, struct cg_frame *cf), void *arg, struct cg_forest *f);

/* The srcline texts of the model's frames for their call graphs (the
 * forest's CG_KEY_ADDRESS or CG_KEY_SRCLINE, callgraph.h): v[frame id],
 * n of them (prof_nr_frames() when made; later frames have none),
 * xmalloc'd, the model's now (freed by it, or by the next call; NULL:
 * none).  The texts are the caller's and must outlive the forest. */
void prof_cg_set_srclines(struct prof *p, const char **v, size_t n);

/* The same, taking the model's nodes over (no copy): the model has no
 * stacks left after it, only prof_free() may follow. */
void prof_cg_take(struct prof *p, const struct prof_rows *rows, struct cg_forest *f);

#endif
