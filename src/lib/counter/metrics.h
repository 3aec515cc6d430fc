/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics.h — perf stat's derived metrics and perfkit's plain-language
 * reading of a count summary.  Pure functions of numbers (no syscalls), so
 * the bare-metal path is testable on a machine without a PMU.
 *
 * Metrics, as `perf stat` prints them after '#' (tools/perf/util/stat-shadow.c):
 *   task-clock, cpu-clock   task_clock_ns / elapsed_ns        "CPUs utilized"
 *   other software events   count / task-clock seconds        "/sec", "K/sec", "M/sec", "G/sec"
 *   tracepoints, hardware   count / task-clock seconds        "/sec" … "G/sec"
 *   cache events (but the load misses of L1-dcache, L1-icache, LLC, dTLB,
 *   iTLB, which perf shows as "% of all … accesses": not shown here)
 *   cycles                  cycles / task_clock_ns            "GHz"
 *   instructions            instructions / cycles             "insn per cycle"
 *   branches                count / task-clock seconds        "/sec" … "G/sec"
 *   branch-misses           100 · misses / branches           "of all branches" (percent)
 *   cache-references        count / task-clock seconds        "/sec" … "G/sec"
 *   cache-misses            100 · misses / references         "of all cache refs" (percent)
 * A metric whose denominator is absent or zero is not shown (never inf/NaN).
 *
 * Reading (cnt_reading), thresholds stated in the text:
 *   IPC < 1.0        likely memory-bound (stalls waiting on cache/memory)
 *   IPC > 2.0        compute-bound: further wins need algorithm changes
 *   otherwise        mixed
 *   cache-miss % > 5 or branch-miss % > 5  → red flag for a hot loop
 *   hardware counters not supported → says so (VM without a PMU) and what to
 *   use instead: software events (task-clock, page-faults) now, cache
 *   simulation with `perfkit stat --simulate` or `perfkit cache`.
 *   no hardware reading: CPUs utilized < 0.5 → "mostly waits", else busy.
 * Each value is printed with 2 decimals and the threshold is applied to the
 * printed value, so number and words agree (0.498 CPUs prints "0.50 CPUs
 * utilized" with the busy wording; 0.494 prints "0.49 … (below 0.5)").
 */
#ifndef PERFKIT_COUNTER_METRICS_H
#define PERFKIT_COUNTER_METRICS_H

#include <linux/perf_event.h>
#include <stdbool.h>

#include "base/strbuf.h"

enum cnt_kind {
	CNT_K_TASK_CLOCK, CNT_K_CYCLES, CNT_K_INSTRUCTIONS, CNT_K_BRANCHES,
	CNT_K_BRANCH_MISSES, CNT_K_CACHE_REFS, CNT_K_CACHE_MISSES, CNT_K__N
};

#define CNT_IPC_LOW       1.0
#define CNT_IPC_HIGH      2.0
#define CNT_MISS_PCT_FLAG 5.0

/* Mean counts of the events a metric needs.  have[k]: counted;
 * unsupported[k]: requested but the machine cannot count it. */
struct cnt_summary {
	double elapsed_ns;
	double v[CNT_K__N];
	bool have[CNT_K__N];
	bool unsupported[CNT_K__N];
};

/* Which kind an event is (counting only user-visible defaults), or -1. */
int cnt_kind_of(const struct perf_event_attr *attr);

struct cnt_metric {
	double value;
	const char *unit;     /* "CPUs utilized", "GHz", "K/sec", "of all branches" … */
	bool percent;         /* value is a percentage (printed "x.xx%") */
};

/* The metric perf shows next to an event of that value; false if none. */
bool cnt_metric(const struct perf_event_attr *attr, double value,
		const struct cnt_summary *s, struct cnt_metric *m);

/* Append the reading: one or more lines, each ending in '\n'. */
void cnt_reading(const struct cnt_summary *s, struct strbuf *out);

#endif
