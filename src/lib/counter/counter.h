/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * counter.h — counting with perf_event_open(2): event sets, groups, reads,
 * multiplexing scale, and the "<not counted>" / "<not supported>" states.
 *
 * A cnt_set is an ordered list of events (perf's names, see event/event.h).
 * Consecutive events added with group = true join the group of the event
 * before them (the leader is scheduled with its members, so ratios such as
 * instructions / cycles come from the same time slices).  Every event is
 * opened with read_format TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID, and
 * group leaders also with GROUP, so one read(2) on a leader returns
 *   { u64 nr; u64 time_enabled; u64 time_running; { u64 value; u64 id; }[nr] }
 * (include/uapi/linux/perf_event.h, "read_format").  If the kernel refuses a
 * group read, each fd is read on its own:
 *   { u64 value; u64 time_enabled; u64 time_running; u64 id; }.
 *
 * States after a read:
 *   CNT_OK             counted; value = raw · enabled / running (scaled when
 *                      multiplexed; running < enabled)
 *   CNT_NOT_COUNTED    opened, but running = 0 (never got on the PMU)
 *   CNT_NOT_SUPPORTED  the machine cannot count it: perf_event_open failed
 *                      with ENOENT, EOPNOTSUPP, ENODEV, ENOSYS or EINVAL on a
 *                      hardware/raw event (a VM without a PMU) or an event of
 *                      a PMU of its own (type >= PERF_TYPE_MAX), or its group
 *                      leader could not be opened.  Never reported as 0.
 *
 * Errors (0 / -errno with a pk_error() message, nothing printed):
 *   cnt_set_add: -EINVAL for an unknown event name or modifier;
 *   cnt_set_open: where perf_event_open refuses an event with EACCES/EPERM,
 *   it does not exclude user or kernel already and perf_event_paranoid > 1,
 *   the event is opened again counting user space only, as perf does
 *   (evsel__fallback): exclude_kernel and exclude_hv set, ":u" (or "u"
 *   after an existing modifier) added to its name, user_only set and the
 *   level kept in paranoid_fallback; nothing printed;
 *   cnt_set_open: -EACCES / -EPERM (perf_event_paranoid), -ESRCH (no such
 *   process), -EMFILE, or any other errno of perf_event_open that does not
 *   mean "not supported";
 *   cnt_set_read: -EIO on a short read, -errno of read(2).
 */
#ifndef PERFKIT_COUNTER_H
#define PERFKIT_COUNTER_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum cnt_state { CNT_OK, CNT_NOT_COUNTED, CNT_NOT_SUPPORTED };

struct cnt_event {
	char *name;                  /* as given, e.g. "cycles:u" */
	struct perf_event_attr attr;
	int leader;                  /* index of the group leader (self if leader) */
	int fd;                      /* -1 when not open */
	int open_errno;              /* errno of a failed open, else 0 */
	uint64_t id;                 /* kernel event id (PERF_FORMAT_ID) */
	uint64_t raw, enabled, running;   /* last read */
	uint64_t value;              /* raw scaled by enabled/running */
	enum cnt_state state;
	bool user_only;              /* see paranoid_fallback */
	bool duration;               /* perf's "duration_time" tool event: not
				      * opened; its value (ns) is what the
				      * caller measured (cnt_set_duration) */
};

struct cnt_set {
	struct cnt_event *ev;
	size_t nr, alloc;
	bool no_group_read;          /* the kernel refused PERF_FORMAT_GROUP */
	int paranoid_fallback;       /* > 0: the perf_event_paranoid level that
				      * refused kernel counting, so some events
				      * count user space only (see cnt_set_open) */
};

#define CNT_SET_INIT { NULL, 0, 0, false, 0 }

/* Add an event by perf name ("task-clock", "cycles:u", "r1a8", or perf's
 * tool event "duration_time": the wall time in ns, which no kernel counter
 * gives: see cnt_set_duration).  group: join the previous event's group
 * (ignored for the first event). */
int cnt_set_add(struct cnt_set *s, const char *spec, bool group);

/* Set every duration_time event of s to ns (counted, not scaled): the wall
 * time the caller measured for the counts it read (a run, an interval
 * since the start). */
void cnt_set_duration(struct cnt_set *s, uint64_t ns);

/* Add a comma-separated list ("cycles,instructions"); each name is its own
 * group unless the list is wrapped in braces "{cycles,instructions}" as in
 * perf.  -EINVAL with the bad name. */
int cnt_set_add_list(struct cnt_set *s, const char *list);

/* perf stat's default events: task-clock (cpu-clock when system_wide:
 * perf 6.1 counts CPUs' time there, target__has_cpu), context-switches,
 * cpu-migrations, page-faults, {cycles, instructions}, {branches,
 * branch-misses}, {cache-references, cache-misses}. */
int cnt_set_add_defaults(struct cnt_set *s, bool system_wide);

#define CNT_ENABLE_ON_EXEC 1u   /* start counting at the target's execve */
#define CNT_INHERIT        2u   /* count the target's children too */

/* Open every event for (pid, cpu) as perf_event_open takes them (pid -1 with
 * cpu ≥ 0 for a CPU; pid > 0 with cpu -1 for a task).  Events the machine
 * cannot count are marked CNT_NOT_SUPPORTED, not an error. */
int cnt_set_open(struct cnt_set *s, pid_t pid, int cpu, unsigned flags);

int cnt_set_enable(struct cnt_set *s);    /* ioctl ENABLE on each leader */
int cnt_set_disable(struct cnt_set *s);
int cnt_set_reset(struct cnt_set *s);

/* Read every open event: raw, enabled, running, then value and state. */
int cnt_set_read(struct cnt_set *s);

/* Add the counts of `from` (same events, same order) into `into`'s raw,
 * enabled, running, then rescale: summing per-CPU counts (-a). */
void cnt_set_accumulate(struct cnt_set *into, const struct cnt_set *from);

void cnt_set_close(struct cnt_set *s);    /* close fds, keep the events */
void cnt_set_release(struct cnt_set *s);  /* close and free everything */

/* Scale raw by enabled / running without 64-bit overflow (the product is
 * formed in 128 bits; the result saturates at UINT64_MAX).  running = 0 →
 * 0 and *state = CNT_NOT_COUNTED; running ≥ enabled → raw unchanged.
 * raw 2^40, enabled 2^33, running 2^32 → 2,199,023,255,552. */
uint64_t cnt_scale(uint64_t raw, uint64_t enabled, uint64_t running, enum cnt_state *state);

/* Parse a PERF_FORMAT_GROUP read buffer (with the read_format bits given)
 * into up to max (value, id) pairs; *nr receives the count.  -EIO with a
 * message when len is shorter than the header says or nr > max. */
struct cnt_value { uint64_t value, id, lost; };
int cnt_parse_group_read(const void *buf, size_t len, uint64_t read_format,
			 uint64_t *enabled, uint64_t *running,
			 struct cnt_value *vals, size_t max, size_t *nr);

/* Is this perf_event_open errno "the machine cannot count this event"? */
bool cnt_errno_unsupported(int err, const struct perf_event_attr *attr);

/* A CPU's place in the machine, for perf stat's --per-socket, --per-die,
 * --per-core and --per-node: the ids sysfs gives in
 * DIR/cpuN/topology/{physical_package_id,die_id,core_id} and the node of
 * the DIR/cpuN/nodeM link, DIR being base's pk_sysfs_cpu() ($PERFKIT_SYSFS_CPU
 * when set, a copy for tests, or /sys/devices/system/cpu).  As perf (cpu__get_die_id), a
 * kernel without die_id gives die 0; a CPU in no node gives node -1.
 * Returns 0, or -ENOENT (message set) when cpuN has no topology/
 * physical_package_id or core_id (not a CPU of this machine). */
struct cnt_cpu_topo { int socket, die, core, node; };
int cnt_cpu_topo(int cpu, struct cnt_cpu_topo *t);

#endif
