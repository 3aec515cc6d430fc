/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * setup.h — the libbpf side of every eBPF tool: quiet libbpf, keep its
 * last message, and turn a failed open/load/attach into one line.
 *
 * bpfk_init(verbose): route libbpf's own printing here.  With verbose 0 its
 * debug and info lines are dropped and the last warning line is kept (not
 * printed), so bpfk_error() can quote it; with verbose 1 everything goes to
 * stderr (the tools' -v).  Call once before opening a skeleton.
 *
 * bpfk_error(err, what): record with pk_error() and return -|err| a message
 * for a failed step `what` ("loading BPF programs", "attaching
 * tracepoint syscalls/sys_enter_execve"):
 *   -EPERM/-EACCES  "<what>: requires root (CAP_BPF and CAP_PERFMON)"
 *                   (also when the verifier said no: its last line is quoted)
 *   -ENOENT/-ENOTSUPP/-EOPNOTSUPP/-EINVAL and the rest: "<what>: <strerror>"
 *                   followed by libbpf's last warning when there is one.
 *
 * bpfk_check_root(): 0 when the process can load BPF (effective uid 0 or
 * CAP_BPF + CAP_PERFMON in the effective set), else -EPERM with the
 * message above, so tools fail before touching libbpf.
 *
 * Stop handling for tools' poll loops: bpfk_stop_on_signals() makes SIGINT
 * and SIGTERM set a flag (and interrupt the poll) instead of killing the
 * process, so the tool detaches and prints its summary; bpfk_stopped()
 * reads the flag.
 */
#ifndef PERFKIT_BPFUTIL_SETUP_H
#define PERFKIT_BPFUTIL_SETUP_H

#include <stdbool.h>
#include <stddef.h>

void bpfk_init(int verbose);
int bpfk_error(int err, const char *what);
int bpfk_check_root(void);
void bpfk_stop_on_signals(void);
bool bpfk_stopped(void);

/*
 * bpfk_poll_ring(rb, duration_s): hand ring-buffer events to their callback
 * (ring_buffer__new) until SIGINT/SIGTERM (after bpfk_stop_on_signals) or,
 * with duration_s > 0, until that many seconds have passed.  Polls with a
 * 100 ms timeout and consumes after every poll, so records submitted
 * without a wakeup (src/bpf/wakeup.h) are seen too; stdout is flushed after
 * every batch and the buffer drained before returning.  Returns 0, or
 * -errno with a message (bpfk_error) when polling failed.
 */
struct ring_buffer;
int bpfk_poll_ring(struct ring_buffer *rb, double duration_s);
/* The same, and after each batch work(ctx) while it returns true (one
 * small step of deferred work each call), the ring consumed between steps
 * so events are never held up behind it. */
int bpfk_poll_ring_work(struct ring_buffer *rb, double duration_s, bool (*work)(void *ctx), void *ctx);

/*
 * The steps every tool takes around its skeleton (src/bpf/<tool>.bpf.c):
 *
 * bpfk_start(verbose, category, name, why): before opening it:
 * bpfk_check_root(); with category, tracefs_ensure() and the tracepoint
 * CATEGORY/NAME (-ENOENT "tracepoint CATEGORY/NAME not foundWHY" when the
 * kernel lacks it: WHY starts with its own ": " or " ("); then
 * bpfk_init(verbose).  0 or -errno, message set.
 *
 * bpfk_load_attach(skeleton, attach_what): the generated <tool>_bpf__load()
 * and, when attach_what is not NULL, <tool>_bpf__attach() on its
 * skel->skeleton (bpf_object__load_skeleton, bpf_object__attach_skeleton),
 * failing with bpfk_error(err, "loading BPF programs") or
 * bpfk_error(err, "attaching " ATTACH_WHAT).  Tools that attach by hand
 * (uprobes, perf events) pass NULL.
 *
 * bpfk_ring_new(map, fn, ctx): ring_buffer__new() on a BPF_MAP_TYPE_RINGBUF
 * map with fn (libbpf's ring_buffer_sample_fn); NULL with the message
 * "creating ring buffer: ...".
 */
struct bpf_object_skeleton;
struct bpf_map;
int bpfk_start(int verbose, const char *category, const char *name, const char *why);
int bpfk_load_attach(struct bpf_object_skeleton *skeleton, const char *attach_what);
/* The attach half alone, for a tool that fills maps between load and
 * attach (execsnoop -c): bpfk_error(err, "attaching " ATTACH_WHAT). */
int bpfk_attach(struct bpf_object_skeleton *skeleton, const char *attach_what);
struct ring_buffer *bpfk_ring_new(struct bpf_map *map, int (*fn)(void *ctx, void *data, size_t size),
				  void *ctx);

/*
 * bpfk_check_pid(pid): for the tools' -p PID, which the BPF side compares
 * with each event's thread-group id, so a wrong PID would match nothing and
 * the tool would print nothing, silently.  0 when pid is 0 (no filter) or a
 * live process; -ESRCH "no process with PID N" when there is none;
 * -EINVAL "PID N is a thread of process M; give -p M" for a thread id that
 * is not its process's id (/proc/N/status Tgid).
 */
int bpfk_check_pid(long pid);
/* bpfk_check_tid(tid): the same for -t/-L TID, compared with each event's
 * thread id: 0 when tid is 0 or a live thread, else -ESRCH "no thread with
 * TID N". */
int bpfk_check_tid(long tid);

/* CLOCK_MONOTONIC in nanoseconds, the clock of bpf_ktime_get_ns(). */
unsigned long long bpfk_now_ns(void);

/*
 * The interval loop of the histogram tools (bcc's [INTERVAL [COUNT]]):
 *
 * bpfk_wait_interval(interval_s, end_ns): wait, looking at the stop flag
 * every 20 ms, until SIGINT/SIGTERM (after bpfk_stop_on_signals), until
 * interval_s seconds from now when interval_s > 0, or until end_ns
 * (bpfk_now_ns's clock) when it is not 0, whichever comes first; with
 * neither, until a signal.
 *
 * bpfk_interval_last(interval_s, count, &n): after printing an interval,
 * true when it was the last: stopped by a signal, no interval (one summary
 * at the end), or the count-th (count > 0; *n counts the intervals, start
 * it at 0).
 */
void bpfk_wait_interval(double interval_s, unsigned long long end_ns);
bool bpfk_interval_last(double interval_s, long count, long *n);

#endif
