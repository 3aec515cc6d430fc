/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracefs.h — make sure tracefs is reachable before attaching tracepoint
 * programs or opening tracepoint events.  A module of its own (it depends on
 * base/ only) so that event/ (perf tracepoint events) and bpfutil/ (eBPF
 * tracepoint programs) both use it without depending on each other.  libbpf finds a tracepoint's id under
 * /sys/kernel/tracing/events/<category>/<name>/id (or the same under
 * /sys/kernel/debug/tracing); without tracefs mounted, attaching fails with
 * a bare ENOENT.
 *
 * tracefs_ensure(): 0 when /sys/kernel/tracing/events or
 * /sys/kernel/debug/tracing/events exists; otherwise mounts tracefs at
 * /sys/kernel/tracing (needs CAP_SYS_ADMIN) and returns 0, or returns
 * -errno with a message saying how to mount it (-EPERM: not root,
 * -ENODEV: the kernel has no tracefs, CONFIG_FTRACE).
 * tracefs_has_event("syscalls", "sys_enter_execve"): 1 when that
 * tracepoint exists, 0 when not (call tracefs_ensure() first).
 * tracefs_dir(): the tracefs root in use (TRACEFS_DIR or
 * /sys/kernel/debug/tracing), or NULL when neither has events/.
 * tracefs_event_id("sched", "sched_switch", &id): calls tracefs_ensure(),
 * then reads <root>/events/<category>/<name>/id, the config of a
 * PERF_TYPE_TRACEPOINT event (perf_event_open(2)).  0, or -errno with a
 * message: tracefs_ensure()'s errors, -EINVAL for a category or name that
 * is empty or holds '/' or starts with '.', -ENOENT for no such tracepoint,
 * -EIO for an id file that does not hold a number, -EACCES when it cannot
 * be read.
 */
#ifndef PERFKIT_TRACEFS_TRACEFS_H
#define PERFKIT_TRACEFS_TRACEFS_H

#include <stdint.h>

#define TRACEFS_DIR "/sys/kernel/tracing"

int tracefs_ensure(void);
int tracefs_has_event(const char *category, const char *name);
const char *tracefs_dir(void);
int tracefs_event_id(const char *category, const char *name, uint64_t *id);

#endif
