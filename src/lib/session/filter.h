/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter.h — perf's sample filters, shared by script and report: the
 * sample's thread (--comms, --pid, --tid), its CPU (-C/--cpu), its time
 * (--time) and its leaf's DSO and symbol (--dsos, -S/--symbols), as perf
 * script and perf report take them.
 *
 * Shape: each list is comma-separated; a sample passes when it is in every
 * list given (an empty filter passes everything).
 *  - comms: names compared whole with the sample's comm at its time (the
 *    argument itself is kept, not copied: it must outlive the filter, as
 *    argv does);
 *  - pid, tid: decimal ids, at least one, at most SFILT_MAX of each;
 *  - cpu: "0,2-3" (perf's cpu list: any order, each CPU once), CPUs below
 *    SFILT_CPUS;
 *  - time: "START,STOP" in seconds of perf_clock with up to 9 decimals
 *    (perf script's time column), either end left out for the file's
 *    start or end, both ends included (perf's perf_time__skip_sample);
 *    several ranges separated by blanks ("1.5,2 3,"), in order and apart,
 *    a sample in any.
 *    perf's percent forms ("10%/2") are refused;
 *  - dsos: a DSO by its file name or its path (perf's short and long
 *    names); symbols: by name or "0x" and the hex start address as mapped;
 *    a frame without a DSO map or symbol is in neither (perf's
 *    machine__resolve).
 *
 * Errors: the parse functions return -EINVAL with the message recorded
 * (base/error.h) naming the option and what was expected; nothing here
 * prints or exits.
 */
#ifndef PERFKIT_SESSION_FILTER_H
#define PERFKIT_SESSION_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session/session.h"

#define SFILT_MAX 1024
#define SFILT_CPUS 4096
#define SFILT_TIMES 16

/* A comma-separated list of names: the argument itself (not copied). */
struct sfilt_names {
	const char *arg;              /* NULL: no list; a list of no names (""
					 or ",") keeps nothing, as perf's */
	size_t n;                     /* names (empty ones dropped, as perf's strlist) */
	const char *first;            /* the first name, first_len bytes */
	size_t first_len;
};

struct sample_filter {
	struct sfilt_names comms, dsos, syms;
	uint32_t pid[SFILT_MAX], tid[SFILT_MAX];
	size_t nr_pids, nr_tids;
	bool cpus;                    /* -C given: cpu_set holds the CPUs */
	uint64_t cpu_set[SFILT_CPUS / 64];
	struct { uint64_t start, end; } time[SFILT_TIMES];   /* ns; end 0: open */
	size_t nr_times;
	const char *last_comm;        /* the comm test's last answer, by the
					 session's interned pointer */
	bool last_comm_kept;
};

/* Each replaces that list (a later option wins, as perf's). */
void sfilt_names_set(struct sfilt_names *l, const char *arg);
bool sfilt_names_has(const struct sfilt_names *l, const char *name);
int sfilt_ids(struct sample_filter *f, bool tid, const char *opt, const char *arg);
int sfilt_cpus(struct sample_filter *f, const char *opt, const char *arg);
int sfilt_time(struct sample_filter *f, const char *opt, const char *arg);

/* Whether file's samples carry what f selects by: -EINVAL with the
 * message recorded (naming path) when -C is given and the first event of
 * some type has no PERF_SAMPLE_CPU (perf_session__cpu_bitmap) or lists a
 * CPU beyond the file's (HEADER_NRCPUS), or
 * --time and none has PERF_SAMPLE_TIME (perf: "File does not contain CPU
 * events", "Requested CPU N too large"). */
struct pd_file;
int sfilt_check(const struct sample_filter *f, const struct pd_file *file, const char *path);

/* Whether any list is given. */
bool sfilt_active(const struct sample_filter *f);

/* Whether s passes (f is written: the comm test's cache): all the lists,
 * or only those of its CPU and time (perf report drops those samples
 * before counting them, the thread's after), or only its thread's. */
bool sfilt_keep(struct sample_filter *f, const struct pk_sample *s);
bool sfilt_keep_when(const struct sample_filter *f, const struct pk_sample *s);
/* Whether a record of CPU cpu passes -C (every one when no list is given):
 * perf script's filter_cpu, the only filter its task records see. */
bool sfilt_keep_cpu(const struct sample_filter *f, uint32_t cpu);
bool sfilt_keep_thread(struct sample_filter *f, const struct pk_sample *s);
/* sfilt_keep_thread() for a thread (comm, pid, tid) not of a sample. */
bool sfilt_thread_listed(const struct sample_filter *f, const char *comm, uint32_t pid, uint32_t tid);

/* Whether dso (a path, "[kernel.kallsyms]", ...) is in --dsos by its
 * path or file name; whether a symbol (name, start as mapped) is in
 * --symbols.  NULL names are in neither. */
bool sfilt_dso_listed(const struct sample_filter *f, const char *dso);
bool sfilt_sym_listed(const struct sample_filter *f, const char *sym, uint64_t start);

/* Whether s's leaf (frames[0]) passes --dsos (when dsos) and --symbols
 * (when syms): report applies a list to its rows instead when the list's
 * key is a sort key. */
bool sfilt_keep_leaf(const struct sample_filter *f, const struct pk_sample *s, bool dsos, bool syms);

#endif
