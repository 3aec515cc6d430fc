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
 * Modifiers follow a ':' as in perf: u (user), k (kernel), h (hypervisor)
 * — naming any of them excludes the privilege levels not named —, and p
 * (each p raises precise_ip by one, at most 3).  "cycles:uk" counts user
 * and kernel, not hv.  Any other modifier letter is an error.
 *
 * Errors: -EINVAL with a pk_error() message ("unknown event 'x'",
 * "event 'x': unknown modifier 'q'").  Nothing is printed.
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

/* Look up a bare name (no modifiers), or NULL. */
const struct ev_info *ev_lookup(const char *name);

/* perf's canonical name for (type, config), or NULL if not in the table. */
const char *ev_name(uint32_t type, uint64_t config);

/* Parse "NAME[:MODS]" into attr: zeroes *attr, then sets size, type,
 * config, exclude_user/kernel/hv and precise_ip.  Other fields (sampling,
 * flags) are the caller's.  0 or -EINVAL. */
int ev_parse(const char *spec, struct perf_event_attr *attr);

/* True for events that need a hardware PMU (hardware, cache, raw). */
bool ev_needs_pmu(const struct perf_event_attr *attr);

/* The software event to suggest when a hardware one is unavailable. */
#define EV_SOFTWARE_FALLBACK "cpu-clock"

#endif
