/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * export.h — profiles in other tools' formats: pprof (gzip-compressed
 * perftools.profiles.Profile protobuf, profile.proto, encoded by protobuf-c;
 * read by go tool pprof, Grafana Pyroscope, Parca) and speedscope JSON
 * (https://www.speedscope.app/file-format-schema.json, "sampled" profiles).
 *
 * Model: export_add() takes every resolved sample of a session; identical
 * stacks of one event are merged (their sample counts and periods added),
 * frames are interned by (name, DSO).  Totals are exact: the pprof values
 * per event are {samples, count} and {<event>, nanoseconds for cpu-clock /
 * task-clock, else count}, summing to the report's "Samples" and "Event
 * count"; a speedscope profile per event weighs each stack by its period.
 * Unknown symbols are named "[unknown]" (with their DSO as mapping/file).
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
void export_free(struct pk_export *x);

/* Add one sample (frames leaf first, as session delivers them). */
void export_add(struct pk_export *x, const struct pk_sample *s);

/* 0 / -errno.  pprof's duration is the span of the sample times. */
int export_write_pprof(const struct pk_export *x, const char *path);
int export_write_speedscope(const struct pk_export *x, const char *path);

/* Totals over every added sample (for callers and tests). */
uint64_t export_nr_samples(const struct pk_export *x);
uint64_t export_total_period(const struct pk_export *x);

#endif
