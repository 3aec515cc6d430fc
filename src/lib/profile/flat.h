/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flat.h — rows without the stack tree: perf report's hist entries for a
 * set of sort keys counted straight from the samples, for a report that
 * prints no call graph and derives no other rows later (`report -g none
 * --stdio`, with or without Children).  The rows are those profile.h's
 * prof_rows_make() derives from a model of the same samples, in the same
 * order, with the same Self, Children and sample counts.
 *
 * Shape:
 *  - A row key is the asked keys' values of a sample's thread and frame:
 *    comm (pointer), tid (PROF_PID and PROF_TID alike), DSO (pointer),
 *    symbol (name pointer, symbol start, kernel) or, unknown, (DSO, offset
 *    in it, kernel) — profile.h's parts, compared as values.
 *  - Rows are numbered in the order their key is first met, the samples in
 *    order and each one's frames from the outermost caller to the leaf
 *    (the model's node order); a row keeps the thread and frame of that
 *    first meeting.
 *  - Self: the period and count of the samples whose leaf is the row.
 *    Children (children set): the period of the samples with the row
 *    anywhere in their chain, once a sample however often it recurs.
 *    Without children only the leaf of each sample is read.
 *  - Memory: about 126 bytes per row (88 after prof_flat_rows()),
 *    nothing per sample.  PROF_SRCLINE
 *    is not a key here (its values are per address: use the model).
 *
 * Errors: allocation failure aborts (xmalloc); nothing here fails, prints
 * or exits.
 */
#ifndef PERFKIT_PROFILE_FLAT_H
#define PERFKIT_PROFILE_FLAT_H

#include "profile/profile.h"

struct prof_flat;

/* keys: nr_keys >= 1 of enum prof_key, none PROF_SRCLINE. */
struct prof_flat *prof_flat_new(const enum prof_key *keys, int nr_keys, bool children);
void prof_flat_free(struct prof_flat *f);

/* prof_flat_rows() to make its rows' self_sys too (prof_rows.self_sys:
 * Self taken in kernel mode); without it, NULL. */
void prof_flat_want_sys(struct prof_flat *f);

/* One sample of thread t (comm, pid, tid, tag, cpu): frames leaf first
 * (as struct pk_sample holds them), n >= 1.  The thread is a key only for
 * PROF_PID and PROF_TID, its tag for PROF_TRACE, its cpu for PROF_CPU;
 * consecutive samples of a thread share the lookups of the outer callers
 * they have in common. */
void prof_flat_add(struct prof_flat *f, const struct prof_thread *t, const struct pk_frame *frames, size_t n,
		   uint64_t period);

/* Rename the threads' comms as prof_rename_comms() does, before
 * prof_flat_rows(): rows that differ only by a renamed comm are one then
 * (summed, the first kept). */
void prof_flat_rename_comms(struct prof_flat *f, prof_rename_fn fn, const void *arg);

/* The rows (free with prof_rows_free): row i's thread and frame are ids
 * for prof_flat_thread() and prof_flat_frame() (frame ids grow with the
 * rows), of_node is NULL.  Rows whose DSOs have one short name
 * (prof_dsokey) are one, the first, as in perf (their Children summed: a
 * chain through the same function of both files, which perf counts once,
 * counts twice).  A row's
 * thread is the first that sampled it with the pid or tid key; else the
 * first of its comm (with the comm key) or of the whole profile: the
 * fields no key shows are not kept per row (a compile job's 667 k rows:
 * 11 MB).  part[]
 * and nr_parts[] as prof_rows_make() gives them (equal ids, equal
 * values), except that each row has a symbol part of its own (two rows
 * of one symbol, in two comms, have two ids).  Counting ends: the
 * sums and the lookup table are freed, only prof_flat_thread(),
 * prof_flat_frame() and prof_flat_free() may follow. */
void prof_flat_rows(struct prof_flat *f, struct prof_rows *out);
const struct prof_thread *prof_flat_thread(const struct prof_flat *f, uint32_t id);
/* Row id's first frame into *out: its ip, sym, sym_off, dso and kernel
 * (the fields a row shows); addr and map_ip 0, inlined false. */
void prof_flat_frame(const struct prof_flat *f, uint32_t id, struct pk_frame *out);
/* After prof_flat_rows(): the threads and frames of ids from `from` on
 * (a row's frame id) are read no more (their memory goes back to the
 * kernel, xrelease()); for a caller that copies the rows out from the
 * last one down. */
void prof_flat_release(struct prof_flat *f, uint32_t from);

#endif
