/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capture.h — live perf_event capture: open events, map their ring
 * buffers, drain whole records from them, and describe the processes that
 * already run with side-band records synthesized from /proc.  Shared by
 * record, top and flamegraph -- CMD (through capture/recorder.h).
 *
 * Sources: perf_event_open(2) (the syscall, ioctls and the "MMAP layout" of
 * the ring buffer, see event/ring.h); tools/perf/util/synthetic-events.c for
 * the side-band perf synthesizes (perf_event__synthesize_mmap_events,
 * perf_event__synthesize_comm).
 *
 * Events: cap_events_open() opens one event per (event, thread, CPU), fds
 * and ids indexed [ev][tid][cpu] (tid -1: every thread; cpu -1: any CPU),
 * and maps one ring buffer per CPU column (the first fd of that column);
 * every other fd of the column is redirected into it with
 * PERF_EVENT_IOC_SET_OUTPUT.  When the very first open is refused for
 * permission (EACCES/EPERM, perf_event_paranoid > 1) and the event
 * included the kernel, every attr is switched to user space only
 * (exclude_kernel, exclude_hv) and user_only is set, as perf does.  A
 * thread other than the first that has exited meanwhile (ESRCH) is skipped
 * when skip_gone is set (its fds stay -1).  A ring that cannot be mapped
 * with `pages` data pages is mapped with 16 (perf_event_mlock_kb).
 *
 * Records: cap_drain() hands every whole record between data_tail and
 * data_head to the callback, contiguous (a record that wraps around the end
 * of the ring is copied to a scratch buffer first) and 8-byte aligned, then
 * releases the space to the kernel.  Valid only during the call.
 *
 * Side-band: cap_synth_process() writes, for one process, a COMM per thread
 * (/proc/PID/task/TID/comm) and an MMAP2 (PERF_RECORD_MISC_USER, with
 * device, inode and prot/flags from /proc/PID/maps) per executable mapping
 * (anonymous ones named "//anon"), each with the sample_id_all trailer of
 * the given sample_type (time 0, cpu 0, the given id) — the form perf
 * record writes.  cap_synth_kernel_mmap() writes perf's kernel map, MMAP
 * "[kernel.kallsyms]_text" from _text to the first module (pid -1).
 *
 * Errors: 0 or -errno.  cap_events_open() leaves the message to the caller
 * when an open fails (failed_open set, with the indexes that failed) since
 * only the caller knows the event's name; mmap and ioctl failures set
 * pk_error.  A process that is gone is not an error for the synthesizers.
 */
#ifndef PERFKIT_CAPTURE_CAPTURE_H
#define PERFKIT_CAPTURE_CAPTURE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The perf_event_open(2) syscall: the new fd, or -errno.  Refused with
 * EINVAL while exclude_guest or exclude_host is set (a PMU without guests:
 * msr, uncore), it is tried again without them, as perf does, and *attr
 * keeps them cleared when that succeeds. */
int cap_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			unsigned long flags);

/* The online CPUs (/sys/devices/system/cpu/online, "0-3,5"; else 0 to
 * _SC_NPROCESSORS_ONLN - 1).  *cpus is malloc'd. */
int cap_online_cpus(int **cpus, size_t *nr);

/* The threads of pid (/proc/PID/task).  -ESRCH (message set) when none. */
int cap_list_threads(pid_t pid, pid_t **tids, size_t *nr);

/* Whether any of ids[0..n) (process or thread ids: kill(2) with signal 0
 * finds either) still exists. */
bool cap_any_alive(const pid_t *ids, size_t n);

/* Room for nr_fds more descriptors (an event's per thread or CPU: many
 * threads need more than the usual soft limit of 1024): the soft
 * RLIMIT_NOFILE raised to the hard one when it is below nr_fds + 64, as
 * perf does.  Nothing reported: an open that still fails says EMFILE. */
void cap_raise_nofile(size_t nr_fds);

/* perf_event_paranoid, or -1 when unreadable. */
int cap_paranoid(void);

struct cap_ring {
	int fd;               /* -1: no ring in this column */
	uint8_t *base;        /* control page, then data pages */
	size_t map_len;
	uint64_t mask;        /* data size - 1 */
};

struct cap_events {
	/* in */
	struct perf_event_attr *attrs; /* nr_ev attrs (exclude_kernel may be set) */
	const bool *group_member; /* NULL, or per event: in the group of the
				 nearest event before it that is not (its
				 leader: perf_event_open's group_fd, per
				 thread and CPU) */
	size_t nr_ev;
	const pid_t *tids;
	size_t nr_tids;
	const int *cpus;
	size_t nr_cpus;
	size_t pages;         /* data pages per ring, a power of 2 */
	bool skip_gone;       /* skip threads (not the first) gone meanwhile */
	/* out */
	int *fds;             /* [ev][tid][cpu], -1 where not opened */
	uint64_t *ids;        /* PERF_EVENT_IOC_ID of each fd (0: none) */
	size_t nr_fds;
	struct cap_ring *rings; /* nr_cpus */
	bool user_only;       /* fell back to user space only */
	uint32_t cpu_clock_fallback; /* bit e: event e, hardware cycles, could
				 not be opened (no PMU: ENOENT, ENXIO, ENODEV,
				 EOPNOTSUPP) and is cpu-clock now, as perf's
				 evsel__fallback (attrs[e] changed) */
	bool failed_open;     /* the error is perf_event_open's */
	size_t fail_ev, fail_tid, fail_cpu;
	/* private */
	uint8_t *scratch;
	size_t scratch_len;
};

/* Open every (event, thread, CPU) and map the rings (see above). */
int cap_events_open(struct cap_events *ce);
/* Disable every event (PERF_EVENT_IOC_DISABLE). */
void cap_events_disable(struct cap_events *ce);
/* Unmap, close and free what cap_events_open made (the inputs are the
 * caller's). */
void cap_events_close(struct cap_events *ce);

/* Called for each record; non-zero stops the drain (returned). */
typedef int (*cap_record_fn)(void *arg, const struct perf_event_header *h);

/* Drain the whole records of one ring / of every ring (see above); *got
 * (may be NULL) is set when a record was seen. */
int cap_drain_ring(struct cap_events *ce, struct cap_ring *rg, cap_record_fn fn, void *arg,
		   bool *got);
int cap_drain(struct cap_events *ce, cap_record_fn fn, void *arg, bool *got);

/* Side-band synthesis. */
struct cap_synth {
	uint64_t sample_type; /* of the first event: the trailer's layout */
	uint64_t id;          /* the trailer's id / stream id / identifier */
	cap_record_fn emit;   /* receives each record (a non-zero return stops) */
	void *arg;
};

/* Write the sample_id_all trailer of a synthesized record at p (time 0,
 * cpu 0); returns its size (at most 48 bytes). */
size_t cap_trailer(const struct cap_synth *sy, uint8_t *p, uint32_t pid, uint32_t tid);

int cap_synth_comm(const struct cap_synth *sy, uint32_t pid, uint32_t tid, const char *comm);
int cap_synth_process(const struct cap_synth *sy, pid_t pid);
int cap_synth_all(const struct cap_synth *sy);

/* Where the kernel text is: _text (or _stext) from the top of
 * /proc/kallsyms up to the lowest module address (/proc/modules), else the
 * end of the address space.  -ENOENT when addresses are hidden. */
int cap_kernel_range(uint64_t *text, uint64_t *end);
int cap_synth_kernel_mmap(const struct cap_synth *sy, uint64_t text, uint64_t end);

#endif
