/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * event.h — perf's event names ↔ perf_event_attr (type, config, modifiers).
 *
 * Names are Linux perf's (tools/perf/util/parse-events.c, perf list):
 * software events (cpu-clock, task-clock, page-faults/faults,
 * context-switches/cs, cpu-migrations/migrations, minor-faults,
 * major-faults, alignment-faults, emulation-faults, dummy) and generic
 * hardware events (cycles/cpu-cycles, instructions, cache-references,
 * cache-misses, branches/branch-instructions, branch-misses, bus-cycles,
 * ref-cycles, stalled-cycles-frontend/idle-cycles-frontend,
 * stalled-cycles-backend/idle-cycles-backend), plus raw events "rHEX".
 * Names match case-insensitively.
 *
 * Generic hardware cache events (PERF_TYPE_HW_CACHE), perf's grammar
 * CACHE[-OP|-RESULT][-OP|-RESULT] (tools/perf/util/evsel.c tables):
 *   CACHE  L1-dcache/l1-d/l1d/L1-data, L1-icache/l1-i/l1i/L1-instruction,
 *          LLC/L2, dTLB/d-tlb/Data-TLB, iTLB/i-tlb/Instruction-TLB,
 *          branch/branches/bpu/btb/bpc, node
 *   OP     load/loads/read, store/stores/write,
 *          prefetch/prefetches/speculative-read/speculative-load
 *   RESULT refs/Reference/ops/access, misses/miss
 * OP defaults to load, RESULT to access; config = CACHE | OP << 8 |
 * RESULT << 16 (perf_event_open(2)): "L1-dcache-load-misses" = 0x10000,
 * "LLC-stores" = 0x102, "dTLB-load-misses" = 0x10003.  As in perf, an OP
 * the cache lacks is an error: L1-icache and iTLB have no stores, iTLB
 * and branch no prefetches ("event 'iTLB-stores': the iTLB cache has no
 * stores events").  A bare hardware name wins ("branches" is
 * branch-instructions, not the branch cache).
 *
 * Tracepoints: "SUBSYSTEM:NAME" (sched:sched_switch), when SUBSYSTEM is
 * not an event name above: PERF_TYPE_TRACEPOINT with config = the id in
 * tracefs events/SUBSYSTEM/NAME/id.  ev_parse() then reads tracefs and
 * mounts it at /sys/kernel/tracing if neither it nor
 * /sys/kernel/debug/tracing has events/ (tracefs/tracefs.h,
 * tracefs_event_id): its errors pass through (-ENOENT "unknown tracepoint
 * 'sched:nosuch' …", -EPERM when tracefs is absent and cannot be mounted).
 * Modifiers may follow a second ':'.  Patterns (sched:*) are -EINVAL.
 *
 * PMU events: "PMU/TERM[=VALUE],.../" as perf writes them ("msr/tsc/",
 * "cpu/event=0x3c,umask=0x0/"): the type from
 * /sys/bus/event_source/devices/PMU/type, each term a format of PMU/format
 * (its value, default 1, put in the bits the format names:
 * "config:0-7,21"), config/config1/config2 whole, period (the sample
 * period), name=NAME (the name shown: ev_pmu_name), or an alias of
 * PMU/events (a file of terms; its name matched without regard to case).  -ENOENT when there is no such PMU, -EINVAL
 * for an unknown term.  PERFKIT_SYSFS_PMU names another root (tests).
 *
 * Modifiers follow a ':' as in perf (parse-events.c): u (user), k
 * (kernel), h (hypervisor) — naming any of them excludes the privilege
 * levels not named —, p (each p raises precise_ip by one, at most 3), G
 * (guest: exclude_host), H (host: exclude_guest; GH: both counted), I
 * (exclude_idle), D (pinned), e (exclusive), and W and S (accepted, no
 * effect on counting).  "cycles:uk" counts user and kernel, not hv.  Any
 * other modifier letter is an error.
 *
 * Errors: -EINVAL with a pk_error() message ("unknown event 'x'",
 * "event 'x': unknown modifier 'q'").  Nothing is printed.  An unknown name
 * gets the nearest known one appended ("unknown event 'cylces'; did you
 * mean 'cycles'?", ev_suggest).
 */
#ifndef PERFKIT_EVENT_H
#define PERFKIT_EVENT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ev_info {
	const char *name;   /* perf's canonical name */
	const char *alias;  /* another accepted name, or NULL */
	uint32_t type;      /* PERF_TYPE_SOFTWARE or PERF_TYPE_HARDWARE */
	uint64_t config;    /* PERF_COUNT_SW_* or PERF_COUNT_HW_* */
};

/* The table, in perf list's order; *nr receives its length. */
const struct ev_info *ev_table(size_t *nr);

/* Look up a bare name of the table (no modifiers), or NULL; cache events
 * and tracepoints are not in the table: ev_parse() them. */
const struct ev_info *ev_lookup(const char *name);

/* perf's canonical name for (type, config), or NULL if not in the table
 * (hardware cache events included, see ev_cache_name). */
const char *ev_name(uint32_t type, uint64_t config);

/* perf's canonical name of a PERF_TYPE_HW_CACHE config: "L1-dcache-loads"
 * for accesses, "L1-dcache-load-misses" for misses; NULL when a field is
 * out of range. */
const char *ev_cache_name(uint64_t config);

/* Is this cache config one perf would open (the cache has that op)? */
bool ev_cache_valid(uint64_t config);

/* Parse "NAME[:MODS]" into attr: zeroes *attr, then sets size, type,
 * config, exclude_user/kernel/hv and precise_ip.  Other fields (sampling,
 * flags) are the caller's.  0 or -EINVAL. */
int ev_parse(const char *spec, struct perf_event_attr *attr);

/* Levenshtein distance of a and b, letters compared case-insensitively
 * (an insertion, deletion or substitution costs 1; a swap of two adjacent
 * letters costs 1 too: Damerau's rule, the commonest typo). */
size_t ev_edit_distance(const char *a, const char *b);

/* The known event name nearest to name (its modifiers ignored), for a "did
 * you mean": software, hardware and cache names (canonical and aliases),
 * and for "SYS:NAME" the tracepoints in tracefs (if it is mounted; it is
 * not mounted for this).  Only a name within distance max(1, len / 3) of
 * it (at most 3); NULL when none.  The result is valid until the next call. */
const char *ev_suggest(const char *name);

/* Call fn(system, name, arg) for every tracepoint in tracefs, systems and
 * events in directory order; stops at fn's first non-zero return, which is
 * returned.  -ENOENT when no tracefs with events/ is mounted (nothing is
 * mounted here). */
int ev_tracepoints_each(int (*fn)(const char *system, const char *name, void *arg), void *arg);

/* True for events that need a hardware PMU (hardware, cache, raw). */
/* The name a PMU event's "name=NAME" term gives it ("cpu/event=0x3c,
 * name=busy/" is shown as "busy", as perf shows it): *name and its length,
 * or 0 when spec has none. */
size_t ev_pmu_name(const char *spec, const char **name);

/* Apply modifier letters (as after ':', above) to attr: a group's "{a,b}:u"
 * to each member.  -EINVAL with spec named for an unknown letter. */
int ev_apply_modifiers(const char *spec, const char *mods, struct perf_event_attr *attr);

bool ev_needs_pmu(const struct perf_event_attr *attr);

/* One event of perf's event list, as -e of record and stat take it
 * ("a,{b,c}:u,cpu/event=0x3c,umask=0/"): its name with its own modifiers
 * (a PMU's "/terms/" whole, commas and all), its group (0 outside braces,
 * else the braces' number, 1, 2, … in the list), whether it is its
 * group's first (the leader) and the group's modifiers after its '}'
 * ("u"; NULL when none or outside braces). */
struct ev_list_item {
	char *name;                  /* malloc'd */
	char *group_mods;            /* malloc'd, or NULL */
	int group;
	bool leader;
};

/* Split list into *items (malloc'd, *n of them, n >= 1; free with
 * ev_list_free).  -EINVAL with a message naming the list and the offset:
 * nested '{', '}' without '{' or '{' without '}', an empty name (",a",
 * "a,,b", "a,"), or no ',' after a '}'. */
int ev_list_parse(const char *list, struct ev_list_item **items, size_t *n);
void ev_list_free(struct ev_list_item *items, size_t n);

/* The software event to suggest when a hardware one is unavailable. */
#define EV_SOFTWARE_FALLBACK "cpu-clock"

/* perf_event_open(2) of attr (named name) failed with err (positive or
 * negative errno): when that means the machine has no PMU for it (a
 * hardware, cache or raw event failing with ENOENT, EOPNOTSUPP or ENODEV),
 * returns -err with the message "event 'NAME' is not supported on this
 * machine (no hardware PMU); use -e cpu-clock"; else 0, nothing set. */
int ev_pmu_error(const struct perf_event_attr *attr, const char *name, int err);

/* The kernel's highest sampling frequency for freq-mode events, in Hz, from
 * /proc/sys/kernel/perf_event_max_sample_rate (the kernel lowers it itself
 * when sampling interrupts take too long).  0 or -errno (-ENOENT without the
 * file, -EINVAL when it holds no positive number). */
int ev_max_sample_rate(unsigned *hz);

/* The kernel's callchain depth limit, kernel.perf_event_max_stack
 * (/proc/sys/kernel/perf_event_max_stack), 127 when it cannot be read: perf
 * report's and perf script's default --max-stack. */
unsigned ev_max_stack(void);

#endif
