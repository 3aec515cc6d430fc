/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit list — the events stat, record and top take, as `perf list`
 * prints them: software events, hardware events, generic hardware cache
 * events and tracepoints (from tracefs), one per line with its kind in
 * brackets and, for the first three, a one-line description.  Hardware and
 * cache events the machine cannot count (no PMU, as in most VMs) are marked
 * "not supported here": each is opened once, counting this process, to
 * find out.
 *
 *   perfkit list [sw|software|hw|hardware|cache|hwcache|tracepoint|GLOB...]
 *
 * A word names a kind; anything else is a glob (fnmatch(3)) on the names
 * and aliases of every kind ('sched:*', '*fault*').  Tracepoints need tracefs:
 * it is mounted at /sys/kernel/tracing when needed and allowed (root); else
 * a note on stderr says they are left out.
 */
#include "cmd/cmds.h"

#include "base/error.h"
#include "base/strbuf.h"
#include "tracefs/tracefs.h"
#include "capture/capture.h"
#include "event/event.h"

#include <errno.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { K_SW = 1, K_HW = 2, K_CACHE = 4, K_TP = 8, K_TOOL = 16 };

struct filter {
	unsigned kinds;          /* kinds named; 0: all */
	const char *const *globs;
	int nr_globs;            /* 0: every name of the kinds */
	size_t shown;
};

static const struct {
	uint32_t type;
	uint64_t config;
	const char *desc;
} descs[] = {
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "CPU cycles (core clock ticks while not halted)" },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions retired" },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "last-level cache accesses (model-specific)" },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "last-level cache misses (model-specific)" },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branch instructions retired" },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "mispredicted branches" },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "bus cycles" },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "cycles the front end issued nothing" },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "cycles the back end retired nothing" },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "reference cycles (not scaled by frequency changes)" },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "a per-CPU timer (ns); the default for sampling" },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "CPU time of the task (ns)" },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page faults (minor and major)" },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches (blocking or preemption)" },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "moves of the task to another CPU" },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "page faults served without I/O" },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "page faults that needed I/O" },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, "unaligned accesses fixed up by the kernel" },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, "instructions emulated by the kernel" },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, "counts nothing (side-band records only)" },
};

static const char *desc_of(uint32_t type, uint64_t config)
{
	for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++)
		if (descs[i].type == type && descs[i].config == config)
			return descs[i].desc;
	return NULL;
}

/* Can this machine count it?  Opened once on this process, user space only. */
static bool supported(uint32_t type, uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = cap_perf_event_open(&a, 0, -1, -1, 0);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static bool wanted(struct filter *f, unsigned kind, const char *name, const char *alias)
{
	if (f->kinds && !(f->kinds & kind))
		return false;
	if (!f->nr_globs)
		return true;
	for (int i = 0; i < f->nr_globs; i++)
		if (!fnmatch(f->globs[i], name, FNM_CASEFOLD) ||
		    (alias && !fnmatch(f->globs[i], alias, FNM_CASEFOLD)))
			return true;
	return false;
}

/* perf list's line: the name (and alias) padded to 50, the kind in brackets. */
static void line(struct filter *f, const char *name, const char *alias, const char *kind,
		 bool unsupported, const char *desc)
{
	char left[600];

	if (alias)
		snprintf(left, sizeof(left), "%s OR %s", name, alias);
	else
		snprintf(left, sizeof(left), "%s", name);
	printf("  %-50s [%s%s]\n", left, kind, unsupported ? ", not supported here" : "");
	if (desc)
		printf("       %s\n", desc);
	f->shown++;
}

static void list_table(struct filter *f, uint32_t type, unsigned kind, const char *label)
{
	size_t nr;
	const struct ev_info *t = ev_table(&nr);

	for (size_t i = 0; i < nr; i++) {
		if (t[i].type != type || !wanted(f, kind, t[i].name, t[i].alias))
			continue;
		line(f, t[i].name, t[i].alias, label,
		     type == PERF_TYPE_HARDWARE && !supported(type, t[i].config),
		     desc_of(type, t[i].config));
	}
}

static void list_cache(struct filter *f)
{
	static const char *const what[] = { "loads", "stores", "prefetches" };
	static const char *const cache[PERF_COUNT_HW_CACHE_MAX] = {
		"L1 data cache", "L1 instruction cache", "last-level cache", "data TLB",
		"instruction TLB", "branch predictor", "local NUMA node memory",
	};

	for (uint64_t c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++)
		for (uint64_t op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++)
			for (uint64_t res = 0; res < PERF_COUNT_HW_CACHE_RESULT_MAX; res++) {
				uint64_t config = c | op << 8 | res << 16;
				const char *name = ev_cache_name(config);
				char desc[128];

				if (!name || !ev_cache_valid(config) || !wanted(f, K_CACHE, name, NULL))
					continue;
				snprintf(desc, sizeof(desc), "%s %s%s", cache[c], what[op],
					 res == PERF_COUNT_HW_CACHE_RESULT_MISS ? " that missed" : "");
				line(f, name, NULL, "Hardware cache event",
				     !supported(PERF_TYPE_HW_CACHE, config), desc);
			}
}

static int tp_line(const char *system, const char *name, void *arg)
{
	struct filter *f = arg;
	char full[512];

	snprintf(full, sizeof(full), "%s:%s", system, name);
	if (wanted(f, K_TP, full, NULL))
		line(f, full, NULL, "Tracepoint event", false, NULL);
	return 0;
}

static void usage(FILE *fp)
{
	fprintf(fp, "usage: perfkit list [sw|hw|cache|tracepoint|GLOB...]\n"
		    "List the events stat, record and top take (-e), as perf list does: software,\n"
		    "hardware (marked \"not supported here\" when this machine has no PMU for them),\n"
		    "generic hardware cache events and tracepoints (from tracefs).\n"
		    "  sw, software        software events only\n"
		    "  hw, hardware        hardware events only\n"
		    "  cache, hwcache      hardware cache events only\n"
		    "  tracepoint          tracepoints only\n"
		    "  GLOB                events whose name matches ('sched:*', '*fault*')\n");
}

int cmd_list(int argc, char **argv)
{
	struct filter f = { 0 };
	const char **globs = xcalloc((size_t)argc + 1, sizeof(*globs));

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			free(globs);
			return 0;
		} else if (a[0] == '-') {
			fprintf(stderr, "perfkit list: unknown option '%s'\n", a);
			usage(stderr);
			free(globs);
			return 2;
		} else if (!strcmp(a, "sw") || !strcmp(a, "software")) {
			f.kinds |= K_SW;
		} else if (!strcmp(a, "hw") || !strcmp(a, "hardware")) {
			f.kinds |= K_HW;
		} else if (!strcmp(a, "cache") || !strcmp(a, "hwcache")) {
			f.kinds |= K_CACHE;
		} else if (!strcmp(a, "tracepoint")) {
			f.kinds |= K_TP;
		} else if (!strcmp(a, "tool")) {
			f.kinds |= K_TOOL;
		} else {
			globs[f.nr_globs++] = a;
		}
	}
	f.globs = globs;
	printf("\nList of pre-defined events (to be used in -e):\n\n");
	list_table(&f, PERF_TYPE_HARDWARE, K_HW, "Hardware event");
	list_table(&f, PERF_TYPE_SOFTWARE, K_SW, "Software event");
	/* perf's tool events: counted by stat itself (counter.h) */
	if (wanted(&f, K_TOOL, "duration_time", NULL))
		line(&f, "duration_time", NULL, "Tool event", false, "wall-clock time of the run (stat), in ns");
	list_cache(&f);
	if (!f.kinds || (f.kinds & K_TP)) {
		if (tracefs_ensure() == 0 && tracefs_dir())
			ev_tracepoints_each(tp_line, &f);
		else if (f.kinds & K_TP || !f.nr_globs || strchr(globs[0], ':'))
			fprintf(stderr, "perfkit list: tracepoints left out: %s\n", pk_errmsg());
	}
	printf("\n");
	int rc = 0;
	if (!f.shown && f.nr_globs) {
		fprintf(stderr, "perfkit list: no event matches '%s'\n", globs[0]);
		rc = 1;
	}
	free(globs);
	return rc;
}
