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
 *   raw, breakpoint, PMU    count / task-clock seconds        (the same: "msr/tsc/" too)
 *   cache events (but the load misses below)   count / task-clock seconds   "/sec" … "G/sec"
 *   L1-dcache-load-misses   100 · misses / L1-dcache-loads    "of all L1-dcache accesses" (percent)
 *   L1-icache-load-misses   100 · misses / L1-icache-loads    "of all L1-icache accesses" (percent)
 *   LLC-load-misses         100 · misses / LLC-loads          "of all LL-cache accesses" (percent)
 *   dTLB-load-misses        100 · misses / dTLB-loads         "of all dTLB cache accesses" (percent)
 *   iTLB-load-misses        100 · misses / iTLB-loads         "of all iTLB cache accesses" (percent)
 *   (the load misses without their loads counted: no metric, as perf)
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
 *   CPUs utilized (task-clock / elapsed, else (user + sys) / elapsed from
 *   cpu_ns) < 0.5 → "mostly waits", or, when the command's involuntary
 *   context switches (rusage) clearly outnumber its voluntary ones (unrounded
 *   means: at least twice as many, and one more per run), "kept off the CPU
 *   by other load" (it wanted the CPU: CPU-bound); else busy.  Said whenever it is known and
 *   no IPC was read, and always when below 0.5 (an IPC of a command that
 *   mostly waits does not explain its time).
 *   A command that ran under CNT_SHORT_NS (10 ms elapsed) gets none of the
 *   CPU-use verdicts (start-up dominates): the reading says why.
 *   context switches (the count as the table shows it) ≥ CNT_CS_PER_SEC (1000)
 *   per second of task-clock (the table's /sec; user + sys without it) and at
 *   least CNT_CS_MIN (10) of them → blocks and wakes often (or competes for
 *   the CPU); fewer while mostly waiting → a few long waits.
 *   page faults × CNT_FAULT_NS (1 µs, a minor fault's order of cost: trap,
 *   zeroed 4 KiB page, page-table update) ≥ CNT_FAULT_SHARE (10 %) of the
 *   CPU time → first-touch memory is a visible cost.
 *   hardware or cache events not supported (a VM without a PMU) → one line
 *   saying so, then where to look next, by what the command does: CPU-bound
 *   (≥ 0.5 CPUs, or kept off by load) → simulate the counters with `perfkit stat --simulate` (or per line `perfkit cache`); mostly
 *   waiting → what it waits for (`perfkit biolatency`, `perfkit opensnoop`),
 *   not caches; CPU use unknown → count task-clock first.
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
	CNT_K_BRANCH_MISSES, CNT_K_CACHE_REFS, CNT_K_CACHE_MISSES,
	CNT_K_CTX_SWITCHES, CNT_K_PAGE_FAULTS,
	/* cache events (PERF_TYPE_HW_CACHE, read): loads, then load misses,
	 * of L1-dcache, L1-icache, LLC, dTLB, iTLB (perf stat -d, -dd) */
	CNT_K_L1D_LOADS, CNT_K_L1D_MISSES, CNT_K_L1I_LOADS, CNT_K_L1I_MISSES,
	CNT_K_LLC_LOADS, CNT_K_LLC_MISSES, CNT_K_DTLB_LOADS, CNT_K_DTLB_MISSES,
	CNT_K_ITLB_LOADS, CNT_K_ITLB_MISSES, CNT_K__N
};

#define CNT_IPC_LOW       1.0
#define CNT_IPC_HIGH      2.0
#define CNT_MISS_PCT_FLAG 5.0
#define CNT_CPUS_WAITING  0.5      /* CPUs utilized below this: mostly waits */
#define CNT_CS_PER_SEC    1000.0   /* context switches per CPU-second: "often" */
#define CNT_CS_MIN        10.0     /* ... and at least this many switches */
#define CNT_SHORT_NS      10e6     /* elapsed under 10 ms: too short to judge CPU use */
#define CNT_FAULT_NS      1000.0   /* the assumed cost of one page fault */
#define CNT_FAULT_SHARE   0.10     /* of the CPU time: faults worth a word */

/* Mean counts of the events a metric needs.  have[k]: counted;
 * unsupported[k]: requested but the machine cannot count it;
 * other_hw_unsupported: some other hardware, cache or raw event was
 * requested and is not supported; cpu_ns: the command's user + system time
 * (rusage), 0 when unknown, used when task-clock was not counted; vcsw,
 * ivcsw: its voluntary and involuntary context switches (rusage), when
 * have_csw. */
struct cnt_summary {
	double elapsed_ns;
	double v[CNT_K__N];
	bool have[CNT_K__N];
	bool unsupported[CNT_K__N];
	bool other_hw_unsupported;
	double cpu_ns;
	bool have_csw;
	double vcsw, ivcsw;
	bool children_uncounted;   /* the counters left the command's children
				      out (stat -i): CPU use read from cpu_ns
				      (its rusage, children included) when
				      known, not from task-clock */
	bool system_wide;     /* every CPU's counts (stat -a): task-clock is
				 the CPUs', not a command's, so no CPU-use
				 verdict is read from it */
};

/* Which kind an event is (the defaults, and the cache loads and load
 * misses a metric needs), or -1. */
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

/* Only the CPU-use lines of the reading (CPUs utilized, context switches,
 * page faults), as cnt_reading writes them when no hardware counter was
 * read: for callers that read the counters another way (stat --simulate). */
void cnt_reading_cpu(const struct cnt_summary *s, struct strbuf *out);

#endif
