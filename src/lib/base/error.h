/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * error.h — how perfkit's libraries report errors.
 *
 * Contract: a library function that fails returns a negative errno value
 * (or NULL with errno set) and records one human-readable line describing
 * the failure with pk_error().  Libraries never print and never exit; the
 * command that called them prints pk_errmsg() once and exits 1 (runtime) or
 * 2 (usage).  The message names the file, the offset or line, and what was
 * expected, in git's style: lower case, no full stop, subject quoted.
 *
 * The message buffer is thread-local; a later pk_error() overwrites it.
 */
#ifndef PERFKIT_BASE_ERROR_H
#define PERFKIT_BASE_ERROR_H

#include <stddef.h>
#include <stdio.h>

/* Record a message (printf format) and return -errnum (errnum > 0). */
int pk_error(int errnum, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The last recorded message, or strerror(errnum) style text if none was set
 * since pk_error_clear(). Never NULL. */
const char *pk_errmsg(void);

/* Forget the last message. */
void pk_error_clear(void);

/* Warnings a library wants the command to show (for example "file truncated
 * at offset N, N complete records read").  Up to a small fixed number are
 * kept, each once (a warning already queued, word for word, is not queued
 * again: a file read twice warns once); pk_warnings_take() returns them
 * joined by '\n' (or "" when none) and clears the list.  The returned
 * string is valid until the next call. */
void pk_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *pk_warnings_take(void);
/* The warnings queued so far, as pk_warnings_take() joins them, kept
 * queued (a browser shows them at once and the command prints them at
 * its end).  Valid until the next pk_warn() or take. */
const char *pk_warnings_peek(void);

/* Notes that perf shows only with -v (a missing /tmp/perf-PID.map …):
 * queued as warnings once a command asked for them with pk_set_verbose()
 * (level > 0, its -v), else dropped.  The level is process-wide. */
void pk_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pk_set_verbose(int level);

/* For commands (a library never calls it): take the warnings and write
 * each as one line "PREFIX: warning: TEXT" to f. */
void pk_warnings_print(FILE *f, const char *prefix);

#endif
