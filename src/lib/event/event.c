/* SPDX-License-Identifier: GPL-2.0-or-later */
/* event.c — perf's event-name table; see event.h. */
#include "event/event.h"

#include "base/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct ev_info table[] = {
	{ "cpu-cycles",              "cycles",                  PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions",            NULL,                      PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references",        NULL,                      PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses",            NULL,                      PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions",     "branches",                PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses",           NULL,                      PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles",              NULL,                      PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", "idle-cycles-frontend",    PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend",  "idle-cycles-backend",     PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles",              NULL,                      PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock",               NULL,                      PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",              NULL,                      PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults",             "faults",                  PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches",        "cs",                      PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations",          "migrations",              PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults",            NULL,                      PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults",            NULL,                      PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults",        NULL,                      PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults",        NULL,                      PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy",                   NULL,                      PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
};

#define NR_EVENTS (sizeof(table) / sizeof(table[0]))

const struct ev_info *ev_table(size_t *nr)
{
	*nr = NR_EVENTS;
	return table;
}

static const struct ev_info *lookup_n(const char *name, size_t len)
{
	for (size_t i = 0; i < NR_EVENTS; i++) {
		const struct ev_info *e = &table[i];
		if (strlen(e->name) == len && !strncasecmp(e->name, name, len))
			return e;
		if (e->alias && strlen(e->alias) == len && !strncasecmp(e->alias, name, len))
			return e;
	}
	return NULL;
}

const struct ev_info *ev_lookup(const char *name)
{
	return lookup_n(name, strlen(name));
}

const char *ev_name(uint32_t type, uint64_t config)
{
	for (size_t i = 0; i < NR_EVENTS; i++)
		if (table[i].type == type && table[i].config == config)
			return table[i].name;
	return NULL;
}

/* "r1a8" → raw event 0x1a8 (perf's rNNN syntax). */
static int parse_raw(const char *name, size_t len, uint64_t *config)
{
	if (len < 2 || len > 17 || (name[0] != 'r' && name[0] != 'R'))
		return 0;
	uint64_t v = 0;
	for (size_t i = 1; i < len; i++) {
		char c = name[i];
		int d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return 0;
		v = v << 4 | (uint64_t)d;
	}
	*config = v;
	return 1;
}

int ev_parse(const char *spec, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	if (!spec || !*spec)
		return pk_error(EINVAL, "empty event name");
	const char *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	const struct ev_info *e = lookup_n(spec, len);
	uint64_t raw;
	if (e) {
		attr->type = e->type;
		attr->config = e->config;
	} else if (parse_raw(spec, len, &raw)) {
		attr->type = PERF_TYPE_RAW;
		attr->config = raw;
	} else {
		return pk_error(EINVAL, "unknown event '%.*s'", (int)len, spec);
	}
	if (!colon)
		return 0;
	int u = 0, k = 0, h = 0, p = 0;
	const char *m = colon + 1;
	if (!*m)
		return pk_error(EINVAL, "event '%s': empty modifier after ':'", spec);
	for (; *m; m++) {
		switch (*m) {
		case 'u': u = 1; break;
		case 'k': k = 1; break;
		case 'h': h = 1; break;
		case 'p': p++; break;
		default:
			return pk_error(EINVAL, "event '%s': unknown modifier '%c'", spec, *m);
		}
	}
	if (p > 3)
		return pk_error(EINVAL, "event '%s': at most 3 'p' modifiers", spec);
	if (u || k || h) {
		attr->exclude_user = !u;
		attr->exclude_kernel = !k;
		attr->exclude_hv = !h;
	}
	attr->precise_ip = (unsigned)p;
	return 0;
}

bool ev_needs_pmu(const struct perf_event_attr *attr)
{
	return attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_HW_CACHE ||
	       attr->type == PERF_TYPE_RAW;
}
