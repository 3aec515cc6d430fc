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
		if (!have(s, CNT_K_TASK_CLOCK))
			return false;
		m->value = value / s->v[CNT_K_TASK_CLOCK];
		m->unit = "GHz";
		return true;
	case CNT_K_INSTRUCTIONS:
		if (!have(s, CNT_K_CYCLES))
			return false;
		m->value = value / s->v[CNT_K_CYCLES];
		m->unit = "insn per cycle";
		return true;
	case CNT_K_BRANCH_MISSES:
		if (!have(s, CNT_K_BRANCHES))
			return false;
		m->value = 100 * value / s->v[CNT_K_BRANCHES];
		m->unit = "of all branches";
		m->percent = true;
		return true;
	case CNT_K_CACHE_MISSES:
		if (!have(s, CNT_K_CACHE_REFS))
			return false;
		m->value = 100 * value / s->v[CNT_K_CACHE_REFS];
		m->unit = "of all cache refs";
		m->percent = true;
		return true;
	case CNT_K_BRANCHES:
	case CNT_K_CACHE_REFS:
		return rate(value, s, m);
	default:
		if (attr->type == PERF_TYPE_SOFTWARE || attr->type == PERF_TYPE_TRACEPOINT)
			return rate(value, s, m);
		if (attr->type == PERF_TYPE_HW_CACHE) {
			/* perf shows load misses of these caches as a share of
			 * their loads (not computed here), so no rate for them */
			uint64_t c = attr->config & 0xff;
			bool load_miss = (attr->config >> 8 & 0xffff) ==
				(PERF_COUNT_HW_CACHE_OP_READ | PERF_COUNT_HW_CACHE_RESULT_MISS << 8);
			if (load_miss && c <= PERF_COUNT_HW_CACHE_ITLB)
				return false;
			return rate(value, s, m);
		}
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

void cnt_reading(const struct cnt_summary *s, struct strbuf *out)
{
	bool any_hw_missing = s->unsupported[CNT_K_CYCLES] || s->unsupported[CNT_K_INSTRUCTIONS] ||
			      s->unsupported[CNT_K_BRANCHES] || s->unsupported[CNT_K_BRANCH_MISSES] ||
			      s->unsupported[CNT_K_CACHE_REFS] || s->unsupported[CNT_K_CACHE_MISSES];
	bool said = false;

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
		said = true;
	}
	if (have(s, CNT_K_CACHE_REFS) && s->have[CNT_K_CACHE_MISSES]) {
		double pct = shown(100 * s->v[CNT_K_CACHE_MISSES] / s->v[CNT_K_CACHE_REFS]);
		if (pct > CNT_MISS_PCT_FLAG)
			sb_addf(out, "cache misses %.2f%% of references (above %.0f%%): a red flag in a hot loop; rethink the data layout (locality, smaller or contiguous structures).\n",
				pct, CNT_MISS_PCT_FLAG);
		else
			sb_addf(out, "cache misses %.2f%% of references (at most %.0f%%): fine.\n",
				pct, CNT_MISS_PCT_FLAG);
		said = true;
	}
	if (have(s, CNT_K_BRANCHES) && s->have[CNT_K_BRANCH_MISSES]) {
		double pct = shown(100 * s->v[CNT_K_BRANCH_MISSES] / s->v[CNT_K_BRANCHES]);
		if (pct > CNT_MISS_PCT_FLAG)
			sb_addf(out, "branch misses %.2f%% of branches (above %.0f%%): a red flag in a hot loop; look for unpredictable branches (sort the data, use branchless code).\n",
				pct, CNT_MISS_PCT_FLAG);
		else
			sb_addf(out, "branch misses %.2f%% of branches (at most %.0f%%): fine.\n",
				pct, CNT_MISS_PCT_FLAG);
		said = true;
	}
	if (any_hw_missing) {
		sb_addstr(out, "hardware counters (cycles, instructions, branches, caches) are not supported on this machine: it has no usable PMU (a virtual machine without PMU passthrough?), so IPC and miss rates cannot be measured here.\n"
			  "use software events instead (-e task-clock,page-faults,context-switches), run on bare metal, or simulate them: `perfkit stat --simulate -- CMD` (estimated IPC, miss rates), `perfkit cache` (per line).\n");
		said = true;
	}
	if (!said && have(s, CNT_K_TASK_CLOCK) && s->elapsed_ns > 0) {
		double cpus = shown(s->v[CNT_K_TASK_CLOCK] / s->elapsed_ns);
		if (cpus < 0.5)
			sb_addf(out, "%.2f CPUs utilized (below 0.5): the command mostly waits (sleep, I/O, locks) or was kept off the CPU by other load, rather than computing.\n", cpus);
		else
			sb_addf(out, "%.2f CPUs utilized: the command is busy on the CPU; count cycles/instructions to see why.\n", cpus);
	}
}
