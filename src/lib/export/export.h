/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * export.h — profiles in other tools' formats: pprof (gzip-compressed
 * perftools.profiles.Profile protobuf, profile.proto, encoded by protobuf-c;
 * read by go tool pprof, Grafana Pyroscope, Parca) and speedscope JSON
 * (https://www.speedscope.app/file-format-schema.json, "sampled" profiles).
 *
 * Model: export_add() takes every resolved sample of a session; identical
 * stacks of one event are merged (their sample counts and periods added).
 * Totals are exact: the pprof values per event are {samples, count} and
 * {<event>, nanoseconds for cpu-clock / task-clock, else count}, summing to
 * the report's "Samples" and "Event count"; a speedscope profile per event
 * weighs each stack by its period.  Unknown symbols are named "[unknown]".
 *
 * speedscope: a frame per (name, DSO), its "file" the DSO; frames the
 * session marks inlined are frames of their own.
 *
 * pprof, as profile.proto models a profile: a Mapping per DSO (its path;
 * memory_start/limit/file_offset 0, one mapping standing for the DSO in
 * every process); a Location per code address of a real frame (key: the
 * function's frame, its ELF address or else the ip, and whether the ip is
 * a return address; Location.address is the ip as sampled, the first one
 * seen); its lines are the inline chain at that address, innermost inlined
 * function first, the real function last, each a Function (name, file) and
 * a line number.  For user code with DWARF (elfutils, symbol/inline.h; each
 * (DSO, address) looked up once, when the pprof file is written) the
 * chain, the files (basenames, as symbol/inline.h gives them) and the
 * lines come from DWARF: the innermost line is the sampled
 * address's, each outer one the line of the inlined call; a caller's
 * return address is looked up one byte back, in its call instruction.  The
 * real function keeps the session's (ELF, demangled) name, the inlined
 * ones DWARF's.  Without DWARF (kernel, JIT, no debug info, a rebuilt
 * binary without a copy by build-id) a location has one line per frame,
 * line 0, the DSO as file; frames the session marked inlined (session_opts
 * .inline_) are folded into the location of the real frame after them,
 * never locations of their own.  A mapping whose locations got DWARF lines
 * says has_filenames, has_line_numbers and has_inline_frames.
 *
 * Writers create the file whole or not at all (base/outfile.h) and return
 * 0 or -errno with a pk_error() message naming the path; nothing printed.
 */
#ifndef PERFKIT_EXPORT_H
#define PERFKIT_EXPORT_H

#include "session/session.h"

#include <stdint.h>

struct pk_export;

struct pk_export *export_new(void);
/* The same, for the samples of f: a DSO whose build-id is not the one f
 * recorded (HEADER_BUILD_ID; a rebuilt binary) has its source lines read
 * from a copy by build-id (~/.debug/.build-id, /usr/lib/debug/.build-id,
 * as the session's symbols) or gets none; f is not kept. */
struct pk_export *export_new_file(const struct pd_file *f);
void export_free(struct pk_export *x);

/* Per-process samples (profile --continuous): from now on a sample's pid and
 * comm are part of what tells stacks apart, and the pprof writer gives each
 * pprof Sample the labels host (string, host as given), pid (number) and
 * comm (string), as Pyroscope and Parca read them.  Call before adding. */
void export_set_labels(struct pk_export *x, const char *host);

/* The GNU build-id of the DSO at path (as the frames name it): the pprof
 * Mapping of that DSO carries it as lowercase hex (Mapping.build_id), so a
 * reader can fetch the file's symbols by build-id.  A later call for the
 * same path is ignored; size is cut to 20 bytes. */
void export_set_build_id(struct pk_export *x, const char *path, const uint8_t *id, size_t size);

/* The profile's wall-clock start (Unix ns) and length for the pprof
 * writer's time_nanos and duration_nanos, instead of the write time and the
 * span of the sample times. */
void export_set_time(struct pk_export *x, int64_t start_unix_ns, int64_t duration_ns);

/* Add one sample (frames leaf first, as session delivers them). */
void export_add(struct pk_export *x, const struct pk_sample *s);
/* The same sample standing for count samples (a folded stack's count;
 * s->period is their summed period). */
void export_add_n(struct pk_export *x, const struct pk_sample *s, uint64_t count);

/* A session's samples through the aggregation model (profile/profile.h):
 * export_feed_add() puts each sample into the model of its event (frames
 * per address, stacks merged across threads); export_add_feed() adds every
 * distinct stack once, with its samples' count and period, in the order of
 * its first sample, and the samples' first and last times: the same model
 * as export_add() of every sample (same frames, locations, stacks and
 * order, so the same files), without the export's per-sample hashing.
 * export_add_feed() drops the models' lookup tables and order (memory):
 * only export_feed_free() may follow it.
 * For a model with export_set_labels, call export_feed_set_labels() first
 * (the pid and comm of each sample are kept, one model thread each). */
struct export_feed;
struct export_feed *export_feed_new(void);
void export_feed_set_labels(struct export_feed *f);
void export_feed_add(struct export_feed *f, const struct pk_sample *s);
/* The same sample standing for count samples (s->period: their sum). */
void export_feed_add_n(struct export_feed *f, const struct pk_sample *s, uint64_t count);
void export_add_feed(struct pk_export *x, struct export_feed *f);
void export_feed_free(struct export_feed *f);

/* 0 / -errno.  pprof's duration is the span of the sample times; the
 * pprof writer reads DWARF for the locations added since its last call. */
int export_write_pprof(struct pk_export *x, const char *path);
int export_write_speedscope(const struct pk_export *x, const char *path);

/* Totals over every added sample (for callers and tests). */
uint64_t export_nr_samples(const struct pk_export *x);
uint64_t export_total_period(const struct pk_export *x);

#endif
