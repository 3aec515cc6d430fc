/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.c — derived metrics and the reading; see metrics.h. */
#include "counter/metrics.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int cnt_kind_of(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_SOFTWARE &&
	    (a->config == PERF_COUNT_SW_TASK_CLOCK || a->config == PERF_COUNT_SW_CPU_CLOCK))
		return CNT_K_TASK_CLOCK;
	if (a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_CONTEXT_SWITCHES)
		return CNT_K_CTX_SWITCHES;
	if (a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_PAGE_FAULTS)
		return CNT_K_PAGE_FAULTS;
	if (a->type == PERF_TYPE_HW_CACHE) {
		/* config: cache | op << 8 | result << 16 (perf_event_open(2));
		 * L1D, L1I, LL, DTLB, ITLB are 0..4 */
		uint64_t cache = a->config & 0xff, op = a->config >> 8 & 0xff, res = a->config >> 16 & 0xff;

		if (a->config >> 24 || op != PERF_COUNT_HW_CACHE_OP_READ || cache > PERF_COUNT_HW_CACHE_ITLB)
			return -1;
		static const int loads[] = { CNT_K_L1D_LOADS, CNT_K_L1I_LOADS, CNT_K_LLC_LOADS,
					     CNT_K_DTLB_LOADS, CNT_K_ITLB_LOADS };
		if (res == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
			return loads[cache];
		if (res == PERF_COUNT_HW_CACHE_RESULT_MISS)
			return loads[cache] + 1;
		return -1;
	}
	if (a->type != PERF_TYPE_HARDWARE)
		return -1;
	switch (a->config) {
	case PERF_COUNT_HW_CPU_CYCLES:          return CNT_K_CYCLES;
	case PERF_COUNT_HW_INSTRUCTIONS:        return CNT_K_INSTRUCTIONS;
	case PERF_COUNT_HW_BRANCH_INSTRUCTIONS: return CNT_K_BRANCHES;
	case PERF_COUNT_HW_BRANCH_MISSES:       return CNT_K_BRANCH_MISSES;
	case PERF_COUNT_HW_CACHE_REFERENCES:    return CNT_K_CACHE_REFS;
	case PERF_COUNT_HW_CACHE_MISSES:        return CNT_K_CACHE_MISSES;
	default:                                return -1;
	}
}

static bool have(const struct cnt_summary *s, int k)
{
	return s->have[k] && s->v[k] > 0;
}

static bool rate(double value, const struct cnt_summary *s, struct cnt_metric *m)
{
	if (!have(s, CNT_K_TASK_CLOCK))
		return false;
	double r = value / (s->v[CNT_K_TASK_CLOCK] / 1e9);
	static const char *units[] = { "/sec", "K/sec", "M/sec", "G/sec" };
	int u = 0;
	while (u < 3 && r >= 1000) {
		r /= 1000;
		u++;
	}
	/* perf scales by the magnitude of the rate; 0 stays "/sec" */
	m->value = r;
	m->unit = units[u];
	return true;
}

/* value per the count of kind den (times scale: 100 for a percentage),
 * when that count was read and is not 0. */
static bool ratio(double value, const struct cnt_summary *s, int den, double scale,
		  const char *unit, struct cnt_metric *m)
{
	if (!have(s, den))
		return false;
	m->value = scale * value / s->v[den];
	m->unit = unit;
	m->percent = scale == 100;
	return true;
}

bool cnt_metric(const struct perf_event_attr *attr, double value,
		const struct cnt_summary *s, struct cnt_metric *m)
{
	m->percent = false;
	switch (cnt_kind_of(attr)) {
	case CNT_K_TASK_CLOCK:
		if (!(s->elapsed_ns > 0))
			return false;
		m->value = value / s->elapsed_ns;
		m->unit = "CPUs utilized";
		return true;
	case CNT_K_CYCLES:
		return ratio(value, s, CNT_K_TASK_CLOCK, 1, "GHz", m);
	case CNT_K_INSTRUCTIONS:
		return ratio(value, s, CNT_K_CYCLES, 1, "insn per cycle", m);
	case CNT_K_BRANCH_MISSES:
		return ratio(value, s, CNT_K_BRANCHES, 100, "of all branches", m);
	case CNT_K_CACHE_MISSES:
		return ratio(value, s, CNT_K_CACHE_REFS, 100, "of all cache refs", m);
	case CNT_K_L1D_MISSES:
		return ratio(value, s, CNT_K_L1D_LOADS, 100, "of all L1-dcache accesses", m);
	case CNT_K_L1I_MISSES:
		return ratio(value, s, CNT_K_L1I_LOADS, 100, "of all L1-icache accesses", m);
	case CNT_K_LLC_MISSES:
		return ratio(value, s, CNT_K_LLC_LOADS, 100, "of all LL-cache accesses", m);
	case CNT_K_DTLB_MISSES:
		return ratio(value, s, CNT_K_DTLB_LOADS, 100, "of all dTLB cache accesses", m);
	case CNT_K_ITLB_MISSES:
		return ratio(value, s, CNT_K_ITLB_LOADS, 100, "of all iTLB cache accesses", m);
	case CNT_K_BRANCHES:
	case CNT_K_CACHE_REFS:
	case CNT_K_CTX_SWITCHES:
	case CNT_K_PAGE_FAULTS:
	case CNT_K_L1D_LOADS:
	case CNT_K_L1I_LOADS:
	case CNT_K_LLC_LOADS:
	case CNT_K_DTLB_LOADS:
	case CNT_K_ITLB_LOADS:
		return rate(value, s, m);
	default:
		/* as perf's default: a rate per second of task-clock, raw
		 * events and PMUs of their own ("msr/tsc/") too */
		if (attr->type == PERF_TYPE_SOFTWARE || attr->type == PERF_TYPE_TRACEPOINT ||
		    attr->type == PERF_TYPE_HW_CACHE || attr->type == PERF_TYPE_RAW ||
		    attr->type == PERF_TYPE_BREAKPOINT || attr->type >= PERF_TYPE_MAX)
			return rate(value, s, m);
		return false;
	}
}

/* v as the reading prints it ("%.2f"), read back: the thresholds compare
 * this, so the words always agree with the number shown (0.498 is shown
 * as 0.50, which is not below 0.5). */
static double shown(double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.2f", v);
	return strtod(buf, NULL);
}

/* The line of the reading on misses (count num) as a share of den: a red
 * flag above CNT_MISS_PCT_FLAG, with advice; false when either count is
 * missing (den also when 0). */
static bool miss_part(const struct cnt_summary *s, int num, int den, const char *what,
		      const char *of, const char *advice, struct strbuf *out)
{
	if (!have(s, den) || !s->have[num])
		return false;
	double pct = shown(100 * s->v[num] / s->v[den]);
	if (pct > CNT_MISS_PCT_FLAG)
		sb_addf(out, "%s misses %.2f%% of %s (above %.0f%%): a red flag in a hot loop; %s.\n",
			what, pct, of, CNT_MISS_PCT_FLAG, advice);
	else
		sb_addf(out, "%s misses %.2f%% of %s (at most %.0f%%): fine.\n", what, pct, of,
			CNT_MISS_PCT_FLAG);
	return true;
}

/* CPU use, as the reading judges it. */
struct cpu_use {
	double cpu_ns;       /* task-clock, else user + system time */
	double cpus;         /* CPUs utilized as shown; -1 unknown */
	bool low;            /* below CNT_CPUS_WAITING */
	bool preempted;      /* off the CPU because others had it: preempted more than it blocked */
	bool waiting;        /* low, and not preempted */
	bool too_short;      /* ran under CNT_SHORT_NS: start-up dominates, nothing concluded */
};

/* Whether the CPU use is read from task-clock: not when the counters left
 * the command's children out (stat -i) and its rusage, which has them,
 * is known. */
static bool by_task_clock(const struct cnt_summary *s)
{
	return s->have[CNT_K_TASK_CLOCK] && !(s->children_uncounted && s->cpu_ns > 0);
}

static struct cpu_use cpu_use_of(const struct cnt_summary *s)
{
	struct cpu_use u;
	bool known = !s->system_wide && s->elapsed_ns > 0 && (s->have[CNT_K_TASK_CLOCK] || s->cpu_ns > 0);

	u.cpu_ns = by_task_clock(s) ? s->v[CNT_K_TASK_CLOCK] : s->cpu_ns;
	u.cpus = known ? shown(u.cpu_ns / s->elapsed_ns) : -1;
	u.too_short = known && s->elapsed_ns < CNT_SHORT_NS;
	u.low = !u.too_short && u.cpus >= 0 && u.cpus < CNT_CPUS_WAITING;
	/* clearly more involuntary switches than voluntary (unrounded means):
	 * at least twice as many and at least one more per run */
	u.preempted = u.low && s->have_csw && s->ivcsw >= 2 * s->vcsw && s->ivcsw >= s->vcsw + 1;
	u.waiting = u.low && !u.preempted;
	return u;
}

/* The CPU-use lines of the reading: CPUs utilized (when no counter spoke,
 * or when it is low), context switches, page faults. */
static void cpu_part(const struct cnt_summary *s, struct strbuf *out, bool said_ipc, bool hw_missing)
{
	struct cpu_use u = cpu_use_of(s);
	double cpu_ns = u.cpu_ns, cpus = u.cpus;
	bool low = u.low, preempted = u.preempted, waiting = u.waiting;

	if (cpus >= 0 && (!said_ipc || low || u.too_short)) {
		const char *from = by_task_clock(s) ? "" : " (user + system time)";
		if (u.too_short)
			sb_addf(out, "%.2f CPUs utilized%s, but it ran only %.1f ms (under %.0f ms): too short to tell waiting from start-up cost (exec, loading, first page touches), so nothing is concluded about how it uses the CPU; measure a longer run.\n",
				cpus, from, s->elapsed_ns / 1e6, CNT_SHORT_NS / 1e6);
		else if (preempted)
			sb_addf(out, "%.2f CPUs utilized%s (below %.1f), with clearly more involuntary context switches (%.1f per run) than voluntary ones (%.1f): the command wanted the CPU but other load kept it off; measure on a quieter machine.\n",
				cpus, from, CNT_CPUS_WAITING, s->ivcsw, s->vcsw);
		else if (waiting)
			sb_addf(out, "%.2f CPUs utilized%s (below %.1f): the command mostly waits (sleep, I/O, locks) or was kept off the CPU by other load, rather than computing.\n",
				cpus, from, CNT_CPUS_WAITING);
		else if (hw_missing || said_ipc)
			sb_addf(out, "%.2f CPUs utilized%s: the command is busy on the CPU.\n", cpus, from);
		else
			sb_addf(out, "%.2f CPUs utilized%s: the command is busy on the CPU; count cycles/instructions to see why.\n",
				cpus, from);
	}
	/* the table's rate: the count per second of task-clock (perf's /sec) */
	if (s->have[CNT_K_CTX_SWITCHES] && cpu_ns > 0 && !u.too_short) {
		double n = s->v[CNT_K_CTX_SWITCHES];
		double cs = n / (cpu_ns / 1e9);
		if (cs >= CNT_CS_PER_SEC && n >= CNT_CS_MIN)
			sb_addf(out, "%.0f context switches per second of CPU time (at least %.0f, %.0f switches): under a millisecond of work between switches, it blocks and wakes often (I/O, locks, many short sleeps) or shares its CPUs with other load.\n",
				cs, CNT_CS_PER_SEC, n);
		else if (waiting && s->have_csw)
			sb_addf(out, "%.0f context switch%s (%.0f per second of CPU time): a few long waits (a sleep, slow I/O, a child process) rather than frequent blocking.\n",
				n, n == 1 ? "" : "es", cs);
		else if (waiting)   /* -p, -a: no voluntary/involuntary split */
			sb_addf(out, "%.0f context switch%s (%.0f per second of CPU time): a few long waits (a sleep, slow I/O, a child process) or other load keeping it off the CPU (which of the two needs the command's voluntary and involuntary switches, known only for a command stat runs), rather than frequent blocking.\n",
				n, n == 1 ? "" : "es", cs);
	}
	if (have(s, CNT_K_PAGE_FAULTS) && cpu_ns > 0) {
		double share = s->v[CNT_K_PAGE_FAULTS] * CNT_FAULT_NS / cpu_ns;
		if (share >= CNT_FAULT_SHARE)
			sb_addf(out, "%.0f page faults: at about %.0f µs each, some %.0f%% of its CPU time (at least %.0f%%) goes to first-touch memory (allocating, mapping files); reuse buffers or prefault (MAP_POPULATE).\n",
				s->v[CNT_K_PAGE_FAULTS], CNT_FAULT_NS / 1000, 100 * (share < 1 ? share : 1),
				100 * CNT_FAULT_SHARE);
	}
}

void cnt_reading_cpu(const struct cnt_summary *s, struct strbuf *out)
{
	cpu_part(s, out, false, true);
}

void cnt_reading(const struct cnt_summary *s, struct strbuf *out)
{
	bool hw_missing = s->other_hw_unsupported;

	for (int k = CNT_K_CYCLES; k < CNT_K__N; k++)   /* the hardware and cache kinds */
		hw_missing |= k != CNT_K_CTX_SWITCHES && k != CNT_K_PAGE_FAULTS && s->unsupported[k];
	bool said_ipc = false;
	struct cpu_use u = cpu_use_of(s);

	if (have(s, CNT_K_CYCLES) && s->have[CNT_K_INSTRUCTIONS]) {
		double ipc = shown(s->v[CNT_K_INSTRUCTIONS] / s->v[CNT_K_CYCLES]);
		if (ipc < CNT_IPC_LOW)
			sb_addf(out, "IPC %.2f is below %.1f: likely memory-bound, the core waits on cache and memory; look at data layout and access patterns.\n",
				ipc, CNT_IPC_LOW);
		else if (ipc > CNT_IPC_HIGH)
			sb_addf(out, "IPC %.2f is above %.1f: real compute; further wins need algorithm changes (less work), not tuning.\n",
				ipc, CNT_IPC_HIGH);
		else
			sb_addf(out, "IPC %.2f is between %.1f and %.1f: neither clearly memory-bound nor compute-bound.\n",
				ipc, CNT_IPC_LOW, CNT_IPC_HIGH);
		said_ipc = true;
	}
	if (miss_part(s, CNT_K_CACHE_MISSES, CNT_K_CACHE_REFS, "cache", "references",
		      "rethink the data layout (locality, smaller or contiguous structures)", out))
		said_ipc = true;
	if (miss_part(s, CNT_K_BRANCH_MISSES, CNT_K_BRANCHES, "branch", "branches",
		      "look for unpredictable branches (sort the data, use branchless code)", out))
		said_ipc = true;
	cpu_part(s, out, said_ipc, hw_missing);
	if (hw_missing) {
		sb_addstr(out, "hardware counters (cycles, instructions, branches, caches) are not supported on this machine: it has no usable PMU (a virtual machine without PMU passthrough?), so IPC and miss rates cannot be measured here.\n");
		if (u.too_short || s->system_wide)
			;   /* said above: nothing concluded; or no one command */
		else if (u.waiting)
			sb_addstr(out, "it mostly waits, so cache and branch counts would not explain its time: look at what it waits for (block I/O latency with `perfkit biolatency`, its files with `perfkit opensnoop`).\n");
		else if (u.cpus >= 0)
			sb_addstr(out, "it is CPU-bound: simulate its counters with `perfkit stat --simulate -- CMD` (estimated IPC, miss rates) or per line with `perfkit cache -- CMD`, or count on bare metal.\n");
		else
			sb_addstr(out, "count task-clock too (-e task-clock,context-switches,page-faults) to see whether it is CPU-bound; if it is, `perfkit stat --simulate -- CMD` (or `perfkit cache -- CMD`, per line) simulates its caches and branches.\n");
	}
}
