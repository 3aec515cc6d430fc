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

/* CLOCK_MONOTONIC in nanoseconds, the clock of bpf_ktime_get_ns(). */
unsigned long long bpfk_now_ns(void);

#endif
