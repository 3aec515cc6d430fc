/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * recorder.h — record a command, a process (-p) or the whole system (-a)
 * into a perf.data file: what `perfkit record` does, as a library, so
 * `perfkit flamegraph -- CMD` records through the same code.
 *
 * Life: recorder_prepare (event attributes as perf record sets them, open
 * one event per (event, thread, CPU) with capture.h, the writer, the
 * side-band: kernel MMAP, /proc maps and comms for -p/-t/-a (of each
 * target's process); the command is
 * forked and held before its exec) → recorder_start (release the command:
 * enable_on_exec starts the events) → recorder_run (ppoll the rings, copy
 * records into the buffered writer, one FINISHED_ROUND after each pass,
 * until the command ends, every target (-p/-t) goes away, or a signal) →
 * recorder_finish (lost-sample record, build-ids of the DSOs seen,
 * rename into place) → recorder_release.
 *
 * Attributes (perf record's): IDENTIFIER|IP|TID|TIME|PERIOD, +CPU with -a
 * or a tracepoint (+RAW), +CALLCHAIN with call graphs; dwarf adds
 * REGS_USER|STACK_USER, exclude_callchain_user and mmap_data;
 * sample_max_stack from /proc/sys/kernel/perf_event_max_stack; freq
 * sampling at freq (default 999) unless a period is given (tracepoints:
 * period 1); side-band (mmap, mmap2, comm, comm_exec, task) on the first
 * event only; inherit unless -a; a command's events start at its exec.
 *
 * Signals: the caller installs handlers that set *got_signal / *got_sigchld
 * and blocks SIGINT, SIGTERM and SIGCHLD; waitmask is the mask ppoll
 * waits with.  A signal is forwarded to the command (a second one kills
 * it); without a command the recording ends.
 *
 * Errors: 0 or -errno with pk_error set.  recorder_prepare's -EINVAL for a
 * bad event name sets usage_error.  The library prints nothing: the
 * caller reports user_only, the summary and the disk-full case.
 */
#ifndef PERFKIT_CAPTURE_RECORDER_H
#define PERFKIT_CAPTURE_RECORDER_H

#include "base/child.h"
#include "base/hashmap.h"
#include "capture/capture.h"
#include "perfdata/perfdata.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#define RECORDER_MAX_EVENTS 16
#define RECORDER_DEFAULT_FREQ 999
#define RECORDER_RING_PAGES 128

struct recorder_opts {
	const char *output;          /* the perf.data to write */
	const char *events[RECORDER_MAX_EVENTS]; /* perf's names */
	size_t nr_events;            /* 0: cpu-clock */
	bool group_member[RECORDER_MAX_EVENTS]; /* -e '{a,b}': b is in the
					group of the event before it (see
					cap_events.group_member) */
	const char *group_mods[RECORDER_MAX_EVENTS]; /* '{a,b}:u': "u", the
					modifiers of every member, applied after
					its own (its name stays "a", as perf's) */
	uint64_t freq, period;       /* 0, 0: freq RECORDER_DEFAULT_FREQ */
	int callgraph;               /* 0 none, 1 fp, 2 dwarf */
	uint32_t stack_size;         /* dwarf: user stack bytes per sample */
	const pid_t *targets;        /* -p PID,... (their threads) or, with
					target_tids, -t TID,... (those threads) */
	size_t nr_targets;
	bool target_tids;
	const int *cpu_list;         /* -C: these CPUs only (system-wide
					events; ignored with targets), else
					every online CPU */
	size_t nr_cpu_list;
	bool system_wide;            /* -a, or -C without targets */
	char **cmd;                  /* a command to run, NULL-terminated, or NULL */
	uint64_t mmap_pages;         /* data pages per ring (0: RECORDER_RING_PAGES) */
	int comp_level;              /* -z: the rings' records zstd-compressed at
					this level (1..22; 0: not), perf's
					PERF_RECORD_COMPRESSED (perfdata.h) */
	bool sample_addr;            /* -d: PERF_SAMPLE_ADDR, data mmaps recorded */
	bool inherit_stat;           /* -s: attr.inherit_stat (per-thread counts) */
	bool no_buildid_cache;       /* -N: nothing written to the build-id cache */
	bool no_buildid;             /* -B: no HEADER_BUILD_ID list either */
	bool no_inherit;             /* --no-inherit: attr.inherit 0 */
	bool sample_cpu;             /* --sample-cpu: PERF_SAMPLE_CPU */
	bool all_user, all_kernel;   /* --all-user, --all-kernel: every event
					samples user (kernel) space only */
	unsigned delay_ms;           /* -D: the events start this long after the
					command (or the targets' side-band), as
					perf's; 0: at once */
	void (*on_enable)(void);     /* -D: called when they start (record says
					so, as perf), or NULL */
	int argc;                    /* the command line for HEADER_CMDLINE */
	char **argv;                 /* (argv[0] "perfkit record" is shown as "record") */
	volatile sig_atomic_t *got_signal, *got_sigchld;
	const sigset_t *oldmask;     /* the mask before SIGINT/TERM/CHLD were blocked */
};

struct recorder {
	struct recorder_opts o;
	struct perf_event_attr attrs[RECORDER_MAX_EVENTS];
	int *cpus;
	size_t nr_cpus;
	pid_t *tids;
	size_t nr_tids;
	struct cap_events ce;
	struct pd_writer *w;
	uint64_t first_id;
	uint64_t ktext, kend;
	struct hashmap dsos;         /* executable DSO paths seen in MMAP2 */
	pid_t child;
	struct pk_child held;
	bool usage_error;            /* prepare failed on a bad event */
	bool tracking_dummy;         /* -a: the last event is perf's "dummy:HG",
					on from the start, with the side-band */
	char *fallback_names[RECORDER_MAX_EVENTS]; /* "cpu-clock[:MODS]" for a
					cycles event without a PMU (perf's
					evsel__fallback; o.events points here) */
	/* results */
	uint64_t samples, lost, lost_ring;
	bool user_only;
	int status;                  /* the command's wait status */
	bool have_status;
	uint64_t enable_at;          /* -D: CLOCK_MONOTONIC ns the events start at
					(recorder_run), 0 once started */
};

int recorder_prepare(struct recorder *r, const struct recorder_opts *o);
/* Start the events opened disabled (-a, -p, -t: after the processes found
 * running were written, as perf) and release the command; 0, the errno of
 * its exec, or -errno when the events would not start (PERF_EVENT_IOC_ENABLE;
 * a message in pk_errmsg()); either error abandons the recording (nothing
 * written). */
int recorder_start(struct recorder *r);
int recorder_run(struct recorder *r);

struct recorder_result {
	bool disk_full;              /* the disk filled: the records so far kept */
	char disk_msg[512];          /* the message of the write that failed */
	int finish_err;              /* pd_writer_finish's return (disk_full) */
	uint64_t kept;               /* samples kept (disk_full) */
	uint64_t data_bytes;         /* bytes of records written */
	uint64_t comp_bytes, comp_raw; /* -z: bytes written compressed, and the
					bytes of records they hold */
};

/* rc: recorder_run's return.  Writes the file (or, on an error other than
 * a full disk, abandons it and returns rc). */
int recorder_finish(struct recorder *r, int rc, struct recorder_result *res);
void recorder_release(struct recorder *r);


/*
 * The signal set-up the header asks of the caller, for one recording at a
 * time (record, flamegraph -- CMD): recorder_signals_block(&sig, &opts)
 * blocks SIGINT, SIGTERM and SIGCHLD (recorder_run's ppoll lets them in,
 * so none is missed), installs handlers that set flags of this module
 * (cleared first) and points opts->got_signal, got_sigchld and oldmask at
 * them and at sig->oldmask; recorder_signals_restore(&sig) puts the
 * previous handlers and mask back.
 */
struct recorder_signals {
	sigset_t oldmask;
	struct sigaction old_int, old_term, old_chld, old_pipe;
};
void recorder_signals_block(struct recorder_signals *sig, struct recorder_opts *o);
void recorder_signals_restore(const struct recorder_signals *sig);

#endif
