/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/counter: multiplex scaling, group-read parsing,
 * event lists, derived metrics and the reading (synthetic counts, so the
 * bare-metal path is tested on a VM without a PMU), and a live open. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "counter/counter.h"
#include "counter/metrics.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void test_scale(void **state)
{
	enum cnt_state st;

	(void)state;
	/* 2^40 · 2^33 overflows 64 bits; the result must be exact */
	assert_true(cnt_scale(1ULL << 40, 1ULL << 33, 1ULL << 32, &st) == 2199023255552ULL);
	assert_int_equal(st, CNT_OK);
	assert_true(cnt_scale(1000, 500, 500, &st) == 1000);      /* not multiplexed */
	assert_true(cnt_scale(1000, 300, 100, &st) == 3000);
	assert_true(cnt_scale(7, 10, 3, &st) == 23);              /* floor(70/3) */
	assert_true(cnt_scale(123, 0, 0, &st) == 0);
	assert_int_equal(st, CNT_NOT_COUNTED);
	assert_true(cnt_scale(UINT64_MAX, UINT64_MAX, 1, &st) == UINT64_MAX);   /* saturates */
}

static void test_group_read(void **state)
{
	uint64_t rf = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
		      PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	uint64_t buf[] = { 2, 1000, 500, 111, 7, 222, 8 };
	struct cnt_value v[4];
	uint64_t en, run;
	size_t nr;

	(void)state;
	assert_int_equal(cnt_parse_group_read(buf, sizeof(buf), rf, &en, &run, v, 4, &nr), 0);
	assert_int_equal(nr, 2);
	assert_true(en == 1000 && run == 500);
	assert_true(v[0].value == 111 && v[0].id == 7);
	assert_true(v[1].value == 222 && v[1].id == 8);
	/* truncated: header says 2 values, only 1.5 present */
	assert_int_equal(cnt_parse_group_read(buf, 6 * 8, rf, &en, &run, v, 4, &nr), -EIO);
	assert_non_null(strstr(pk_errmsg(), "group read"));
	/* more values than room */
	assert_int_equal(cnt_parse_group_read(buf, sizeof(buf), rf, &en, &run, v, 1, &nr), -EIO);
	/* shorter than the header */
	assert_int_equal(cnt_parse_group_read(buf, 8, rf, &en, &run, v, 4, &nr), -EIO);
	/* without ID and times */
	uint64_t plain[] = { 3, 10, 20, 30 };
	assert_int_equal(cnt_parse_group_read(plain, sizeof(plain), PERF_FORMAT_GROUP, &en, &run, v, 4, &nr), 0);
	assert_int_equal(nr, 3);
	assert_true(v[2].value == 30 && v[2].id == 0);
}

static void test_event_lists(void **state)
{
	struct cnt_set s = CNT_SET_INIT;

	(void)state;
	assert_int_equal(cnt_set_add_list(&s, "task-clock,{cycles,instructions},page-faults"), 0);
	assert_int_equal(s.nr, 4);
	assert_int_equal(s.ev[0].leader, 0);
	assert_int_equal(s.ev[1].leader, 1);
	assert_int_equal(s.ev[2].leader, 1);     /* grouped with cycles */
	assert_int_equal(s.ev[3].leader, 3);
	assert_string_equal(s.ev[2].name, "instructions");
	cnt_set_release(&s);
	assert_int_equal(cnt_set_add_list(&s, "task-clock,bogus"), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "bogus"));
	cnt_set_release(&s);
	assert_int_equal(cnt_set_add_list(&s, "{cycles,instructions"), -EINVAL);
	cnt_set_release(&s);
	assert_int_equal(cnt_set_add_list(&s, "cycles,,instructions"), -EINVAL);
	cnt_set_release(&s);
	/* a group's modifiers apply to each member; the names stay as given
	 * (perf stat prints them so) */
	assert_int_equal(cnt_set_add_list(&s, "page-faults,{task-clock,cycles:k}:u,instructions"), 0);
	assert_int_equal(s.nr, 4);
	assert_int_equal(s.ev[0].attr.exclude_kernel, 0);
	assert_int_equal(s.ev[1].attr.exclude_kernel, 1);
	assert_int_equal(s.ev[2].attr.exclude_kernel, 1);   /* the group's u over its k */
	assert_int_equal(s.ev[2].attr.exclude_user, 0);
	assert_int_equal(s.ev[2].leader, 1);
	assert_int_equal(s.ev[3].attr.exclude_kernel, 0);
	assert_string_equal(s.ev[1].name, "task-clock");
	cnt_set_release(&s);
	/* pinned and exclusive: the group's leader only, as perf */
	assert_int_equal(cnt_set_add_list(&s, "{task-clock,page-faults}:De"), 0);
	assert_int_equal(s.ev[0].attr.pinned + s.ev[0].attr.exclusive, 2);
	assert_int_equal(s.ev[1].attr.pinned + s.ev[1].attr.exclusive, 0);
	cnt_set_release(&s);
	assert_int_equal(cnt_set_add_list(&s, "{task-clock}:q"), -EINVAL);
	cnt_set_release(&s);
	/* a PMU's terms hold commas: one event, not two */
	assert_int_equal(cnt_set_add_list(&s, "nopmu/event=0x3c,umask=0x0/,task-clock"), -ENOENT);
	assert_non_null(strstr(pk_errmsg(), "nopmu/event=0x3c,umask=0x0/"));
	cnt_set_release(&s);
	/* duration_time: a tool event, its value what the caller measured */
	assert_int_equal(cnt_set_add_list(&s, "duration_time,task-clock"), 0);
	assert_true(s.ev[0].duration);
	assert_false(s.ev[1].duration);
	cnt_set_duration(&s, 123456789);
	assert_int_equal(s.ev[0].value, 123456789);
	assert_int_equal(s.ev[0].state, CNT_OK);
	struct cnt_set sum2 = CNT_SET_INIT;
	assert_int_equal(cnt_set_add_list(&sum2, "duration_time,task-clock"), 0);
	cnt_set_duration(&sum2, 5);
	cnt_set_accumulate(&sum2, &s);   /* per-CPU sets: the wall time is not summed */
	assert_int_equal(sum2.ev[0].value, 5);
	cnt_set_release(&sum2);
	cnt_set_release(&s);
	assert_int_equal(cnt_set_add_defaults(&s, false), 0);
	assert_int_equal(s.nr, 10);
	assert_int_equal(s.ev[5].leader, 4);     /* instructions with cycles */
	assert_int_equal(s.ev[9].leader, 8);     /* cache-misses with references */
	assert_string_equal(s.ev[0].name, "task-clock");
	cnt_set_release(&s);
	assert_int_equal(cnt_set_add_defaults(&s, true), 0);   /* -a: perf 6.1 counts cpu-clock */
	assert_string_equal(s.ev[0].name, "cpu-clock");
	assert_int_equal(s.nr, 10);
	cnt_set_release(&s);
}

static struct perf_event_attr hw(uint64_t config)
{
	struct perf_event_attr a = { .type = PERF_TYPE_HARDWARE, .config = config };
	return a;
}

/* A bare-metal-like summary: 1 s task-clock over 1 s, 3e9 cycles. */
static struct cnt_summary synthetic(double instr, double crefs, double cmiss,
				    double br, double bmiss)
{
	struct cnt_summary s = { .elapsed_ns = 2e9 };
	s.v[CNT_K_TASK_CLOCK] = 1e9;
	s.v[CNT_K_CYCLES] = 3e9;
	s.v[CNT_K_INSTRUCTIONS] = instr;
	s.v[CNT_K_CACHE_REFS] = crefs;
	s.v[CNT_K_CACHE_MISSES] = cmiss;
	s.v[CNT_K_BRANCHES] = br;
	s.v[CNT_K_BRANCH_MISSES] = bmiss;
	for (int k = 0; k < CNT_K__N; k++)
		s.have[k] = true;
	return s;
}

static void test_metrics(void **state)
{
	struct cnt_summary s = synthetic(6e9, 1e8, 1e7, 1e9, 2e7);
	struct perf_event_attr tc = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK };
	struct perf_event_attr pf = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS };
	struct perf_event_attr a;
	struct cnt_metric m;

	(void)state;
	assert_true(cnt_metric(&tc, 1e9, &s, &m));
	NEAR(m.value, 0.5, 1e-12);
	assert_string_equal(m.unit, "CPUs utilized");
	a = hw(PERF_COUNT_HW_CPU_CYCLES);
	assert_true(cnt_metric(&a, 3e9, &s, &m));
	NEAR(m.value, 3.0, 1e-12);
	assert_string_equal(m.unit, "GHz");
	a = hw(PERF_COUNT_HW_INSTRUCTIONS);
	assert_true(cnt_metric(&a, 6e9, &s, &m));
	NEAR(m.value, 2.0, 1e-12);
	assert_string_equal(m.unit, "insn per cycle");
	a = hw(PERF_COUNT_HW_BRANCH_MISSES);
	assert_true(cnt_metric(&a, 2e7, &s, &m));
	NEAR(m.value, 2.0, 1e-12);
	assert_true(m.percent);
	assert_string_equal(m.unit, "of all branches");
	a = hw(PERF_COUNT_HW_CACHE_MISSES);
	assert_true(cnt_metric(&a, 1e7, &s, &m));
	NEAR(m.value, 10.0, 1e-12);
	assert_string_equal(m.unit, "of all cache refs");
	assert_true(cnt_metric(&pf, 12345, &s, &m));
	NEAR(m.value, 12.345, 1e-9);
	assert_string_equal(m.unit, "K/sec");
	a = hw(PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	assert_true(cnt_metric(&a, 1e9, &s, &m));
	NEAR(m.value, 1.0, 1e-12);
	assert_string_equal(m.unit, "G/sec");
	/* tracepoints and cache events: a rate per task-clock second, as
	 * perf; cache load misses of L1D..iTLB: none (perf gives a share) */
	struct perf_event_attr tp = { .type = PERF_TYPE_TRACEPOINT, .config = 300 };
	assert_true(cnt_metric(&tp, 0, &s, &m));
	NEAR(m.value, 0.0, 1e-12);
	assert_string_equal(m.unit, "/sec");
	struct perf_event_attr hc = { .type = PERF_TYPE_HW_CACHE, .config = 0x102 };  /* LLC-stores */
	assert_true(cnt_metric(&hc, 2e6, &s, &m));
	NEAR(m.value, 2.0, 1e-12);
	assert_string_equal(m.unit, "M/sec");
	/* load misses: a share of their loads, perf's words (stat-shadow.c) */
	static const struct { uint64_t cache; int loads; const char *unit; } lm[] = {
		{ PERF_COUNT_HW_CACHE_L1D, CNT_K_L1D_LOADS, "of all L1-dcache accesses" },
		{ PERF_COUNT_HW_CACHE_L1I, CNT_K_L1I_LOADS, "of all L1-icache accesses" },
		{ PERF_COUNT_HW_CACHE_LL, CNT_K_LLC_LOADS, "of all LL-cache accesses" },
		{ PERF_COUNT_HW_CACHE_DTLB, CNT_K_DTLB_LOADS, "of all dTLB cache accesses" },
		{ PERF_COUNT_HW_CACHE_ITLB, CNT_K_ITLB_LOADS, "of all iTLB cache accesses" },
	};
	for (size_t i = 0; i < sizeof(lm) / sizeof(lm[0]); i++) {
		struct perf_event_attr ld = { .type = PERF_TYPE_HW_CACHE, .config = lm[i].cache };
		hc.config = lm[i].cache | (uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS << 16;
		assert_int_equal(cnt_kind_of(&ld), lm[i].loads);
		assert_int_equal(cnt_kind_of(&hc), lm[i].loads + 1);
		s.v[lm[i].loads] = 8e6;
		assert_true(cnt_metric(&hc, 2e6, &s, &m));
		NEAR(m.value, 25.0, 1e-9);
		assert_true(m.percent);
		assert_string_equal(m.unit, lm[i].unit);
		assert_true(cnt_metric(&ld, 8e6, &s, &m));   /* the loads: a rate */
		assert_string_equal(m.unit, "M/sec");
		s.have[lm[i].loads] = false;                 /* no loads counted: none */
		assert_false(cnt_metric(&hc, 2e6, &s, &m));
		s.have[lm[i].loads] = true;
	}
	/* raw events and PMUs of their own: a rate too, as perf */
	struct perf_event_attr pmu = { .type = 17, .config = 0 };   /* msr/tsc/ */
	assert_true(cnt_metric(&pmu, 2e9, &s, &m));
	assert_string_equal(m.unit, "G/sec");
	pmu.type = PERF_TYPE_RAW;
	assert_true(cnt_metric(&pmu, 2e6, &s, &m));
	assert_string_equal(m.unit, "M/sec");
	hc.config = 0x10000 | PERF_COUNT_HW_CACHE_OP_WRITE << 8;   /* L1-dcache-store-misses: a rate */
	assert_int_equal(cnt_kind_of(&hc), -1);
	assert_true(cnt_metric(&hc, 2e6, &s, &m));
	assert_string_equal(m.unit, "M/sec");
	hc.config = 0x10005;                                 /* branch-load-misses */
	assert_true(cnt_metric(&hc, 2e3, &s, &m));
	assert_string_equal(m.unit, "K/sec");
	/* denominators missing or zero: no metric, never inf */
	s.have[CNT_K_CYCLES] = false;
	a = hw(PERF_COUNT_HW_INSTRUCTIONS);
	assert_false(cnt_metric(&a, 6e9, &s, &m));
	s.have[CNT_K_CYCLES] = true;
	s.v[CNT_K_CYCLES] = 0;
	assert_false(cnt_metric(&a, 6e9, &s, &m));
	s.elapsed_ns = 0;
	assert_false(cnt_metric(&tc, 1e9, &s, &m));
}

static char *reading(const struct cnt_summary *s)
{
	struct strbuf sb = STRBUF_INIT;

	cnt_reading(s, &sb);
	return sb_detach(&sb, NULL);
}

static void test_reading_thresholds(void **state)
{
	char *r;
	struct cnt_summary s;

	(void)state;
	s = synthetic(1.5e9, 1e8, 1e6, 1e9, 1e6);           /* IPC 0.5, misses 1 %, 0.1 % */
	r = reading(&s);
	assert_non_null(strstr(r, "memory-bound"));
	assert_non_null(strstr(r, "below 1.0"));
	assert_null(strstr(r, "red flag"));
	free(r);
	s = synthetic(7.5e9, 1e8, 1e6, 1e9, 1e6);           /* IPC 2.5 */
	r = reading(&s);
	assert_non_null(strstr(r, "above 2.0"));
	assert_non_null(strstr(r, "algorithm"));
	free(r);
	s = synthetic(4.5e9, 1e8, 6e6, 1e9, 1e6);           /* IPC 1.5, cache misses 6 % */
	r = reading(&s);
	assert_non_null(strstr(r, "between 1.0 and 2.0"));
	assert_non_null(strstr(r, "cache misses 6.00%"));
	assert_non_null(strstr(r, "red flag"));
	assert_non_null(strstr(r, "data layout"));
	free(r);
	s = synthetic(4.5e9, 1e8, 1e6, 1e9, 6e7);           /* branch misses 6 % */
	r = reading(&s);
	assert_non_null(strstr(r, "branch misses 6.00%"));
	assert_non_null(strstr(r, "unpredictable branches"));
	free(r);
	s = synthetic(4.5e9, 1e8, 5e6, 1e9, 5e7);           /* exactly 5 %: not flagged */
	r = reading(&s);
	assert_null(strstr(r, "red flag"));
	free(r);
	/* a VM: hardware counters unsupported */
	struct cnt_summary vm = { .elapsed_ns = 1e9 };
	vm.have[CNT_K_TASK_CLOCK] = true;
	vm.v[CNT_K_TASK_CLOCK] = 9e8;
	vm.unsupported[CNT_K_CYCLES] = vm.unsupported[CNT_K_INSTRUCTIONS] = true;
	r = reading(&vm);
	assert_non_null(strstr(r, "not supported on this machine"));
	assert_non_null(strstr(r, "PMU"));
	assert_non_null(strstr(r, "0.90 CPUs utilized: the command is busy"));  /* what is there is read */
	assert_non_null(strstr(r, "CPU-bound"));
	assert_non_null(strstr(r, "perfkit cache"));
	assert_null(strstr(r, "memory-bound"));   /* no IPC verdict without counts */
	free(r);
}

/* Without a PMU, the reading uses what there is (CPU use, context switches,
 * page faults) and points to cache simulation only for a CPU-bound command. */
static void test_reading_no_pmu(void **state)
{
	char *r;
	(void)state;

	/* an I/O benchmark on a VM: 0.27 CPUs, few long waits */
	struct cnt_summary io = { .elapsed_ns = 1e9, .have_csw = true, .vcsw = 40, .ivcsw = 3 };
	io.have[CNT_K_TASK_CLOCK] = true;
	io.v[CNT_K_TASK_CLOCK] = 2.7e8;
	io.have[CNT_K_CTX_SWITCHES] = true;
	io.v[CNT_K_CTX_SWITCHES] = 43;
	io.unsupported[CNT_K_CYCLES] = io.unsupported[CNT_K_CACHE_MISSES] = true;
	r = reading(&io);
	assert_non_null(strstr(r, "0.27 CPUs utilized (below 0.5): the command mostly waits"));
	assert_non_null(strstr(r, "43 context switches (159 per second of CPU time): a few long waits"));
	assert_non_null(strstr(r, "not supported on this machine"));
	assert_non_null(strstr(r, "biolatency"));
	assert_null(strstr(r, "perfkit cache"));   /* caches do not explain waiting */
	free(r);

	/* attached (-p) or system-wide: no voluntary/involuntary split, so a
	 * CPU-bound process kept off the CPU by other load is not called
	 * waiting for certain */
	struct cnt_summary att = io;
	att.have_csw = false;
	att.vcsw = att.ivcsw = 0;
	r = reading(&att);
	assert_non_null(strstr(r, "43 context switches (159 per second of CPU time): a few long waits"));
	assert_non_null(strstr(r, "or other load keeping it off the CPU"));
	free(r);
	r = reading(&io);
	assert_null(strstr(r, "or other load keeping it off the CPU"));
	free(r);

	/* system-wide (stat -a): task-clock is every CPU's, so 2.00 CPUs
	 * says nothing of the command: no CPU-use verdict, no advice built
	 * on one */
	struct cnt_summary sys = io;
	sys.system_wide = true;
	sys.v[CNT_K_TASK_CLOCK] = 2e9;
	r = reading(&sys);
	assert_null(strstr(r, "CPUs utilized"));
	assert_null(strstr(r, "CPU-bound"));
	assert_null(strstr(r, "biolatency"));
	assert_non_null(strstr(r, "not supported on this machine"));
	free(r);

	/* the same, blocking often */
	io.v[CNT_K_CTX_SWITCHES] = 5000;
	r = reading(&io);
	assert_non_null(strstr(r, "18519 context switches per second of CPU time (at least 1000, 5000 switches)"));
	assert_non_null(strstr(r, "it blocks and wakes often"));
	free(r);

	/* a high rate from a handful of switches is no "often" */
	io.v[CNT_K_TASK_CLOCK] = 5e5;
	io.v[CNT_K_CTX_SWITCHES] = 2;
	r = reading(&io);
	assert_null(strstr(r, "wakes often"));
	free(r);
	io.v[CNT_K_TASK_CLOCK] = 2.7e8;

	/* too short to tell: 3 ms elapsed, no waiting/IO verdict, says why */
	struct cnt_summary sh = io;
	sh.elapsed_ns = 3e6;
	sh.v[CNT_K_TASK_CLOCK] = 5e5;
	sh.v[CNT_K_CTX_SWITCHES] = 0;
	r = reading(&sh);
	assert_non_null(strstr(r, "too short to tell"));
	assert_null(strstr(r, "mostly waits"));
	assert_null(strstr(r, "biolatency"));
	assert_null(strstr(r, "CPU-bound"));
	assert_null(strstr(r, "context switches"));
	free(r);

	/* 2.2 involuntary vs 1.8 voluntary per run: not clearly more, no claim */
	struct cnt_summary near = io;
	near.vcsw = 1.8;
	near.ivcsw = 2.2;
	r = reading(&near);
	assert_null(strstr(r, "other load kept it off"));
	assert_non_null(strstr(r, "mostly waits"));
	free(r);

	/* preempted, not waiting: more involuntary switches than voluntary */
	struct cnt_summary pre = io;
	pre.vcsw = 2;
	pre.ivcsw = 1800;
	r = reading(&pre);
	assert_non_null(strstr(r, "involuntary context switches (1800.0 per run) than voluntary ones (2.0)"));
	assert_non_null(strstr(r, "other load kept it off"));
	assert_non_null(strstr(r, "perfkit cache"));
	assert_null(strstr(r, "mostly waits"));
	free(r);

	/* stat -i: task-clock left the children out; the rusage (children in)
	 * tells the CPU use */
	struct cnt_summary noinh = io;
	noinh.v[CNT_K_TASK_CLOCK] = 1e7;     /* the shell alone: 0.01 CPUs */
	noinh.cpu_ns = 9.5e8;                /* with its children */
	noinh.children_uncounted = true;
	r = reading(&noinh);
	assert_non_null(strstr(r, "CPUs utilized (user + system time)"));
	assert_null(strstr(r, "mostly waits"));
	free(r);

	/* -e L1-dcache-loads alone: no task-clock, user + system time used */
	struct cnt_summary l1 = { .elapsed_ns = 1e9, .cpu_ns = 9.5e8, .other_hw_unsupported = true };
	r = reading(&l1);
	assert_non_null(strstr(r, "0.95 CPUs utilized (user + system time): the command is busy"));
	assert_non_null(strstr(r, "not supported on this machine"));
	assert_non_null(strstr(r, "perfkit cache"));
	free(r);

	/* nothing to tell CPU use by: ask for task-clock */
	struct cnt_summary none = { .elapsed_ns = 1e9, .other_hw_unsupported = true };
	r = reading(&none);
	assert_non_null(strstr(r, "count task-clock"));
	free(r);

	/* page faults: 200 000 at ~1 µs in 1 s of CPU time is 20 % */
	struct cnt_summary pf = { .elapsed_ns = 1e9 };
	pf.have[CNT_K_TASK_CLOCK] = true;
	pf.v[CNT_K_TASK_CLOCK] = 1e9;
	pf.have[CNT_K_PAGE_FAULTS] = true;
	pf.v[CNT_K_PAGE_FAULTS] = 2e5;
	r = reading(&pf);
	assert_non_null(strstr(r, "200000 page faults"));
	assert_non_null(strstr(r, "20%"));
	free(r);
	pf.v[CNT_K_PAGE_FAULTS] = 5e4;           /* 5 %: not worth a word */
	r = reading(&pf);
	assert_null(strstr(r, "page faults"));
	free(r);
}

/* The words must agree with the number printed (2 decimals): a value that
 * rounds onto a threshold is judged as the printed number. */
static void test_reading_rounding(void **state)
{
	char *r;
	(void)state;

	struct cnt_summary c = { .elapsed_ns = 1e9 };
	c.have[CNT_K_TASK_CLOCK] = true;
	c.v[CNT_K_TASK_CLOCK] = 4.98e8;                      /* 0.498 CPUs */
	r = reading(&c);
	assert_non_null(strstr(r, "0.50 CPUs utilized: "));
	assert_null(strstr(r, "below 0.5"));
	free(r);
	c.v[CNT_K_TASK_CLOCK] = 4.94e8;                      /* 0.494 CPUs */
	r = reading(&c);
	assert_non_null(strstr(r, "0.49 CPUs utilized (below 0.5)"));
	free(r);
	c.v[CNT_K_TASK_CLOCK] = 5e8;                         /* exactly 0.5 */
	r = reading(&c);
	assert_non_null(strstr(r, "0.50 CPUs utilized: "));
	free(r);

	struct cnt_summary s = synthetic(2.994e9, 1e8, 1e6, 1e9, 1e6);   /* IPC 0.998 */
	r = reading(&s);
	assert_non_null(strstr(r, "IPC 1.00 is between 1.0 and 2.0"));
	free(r);
	s = synthetic(2.97e9, 1e8, 1e6, 1e9, 1e6);          /* IPC 0.99 */
	r = reading(&s);
	assert_non_null(strstr(r, "IPC 0.99 is below 1.0"));
	free(r);
	s = synthetic(6.012e9, 1e8, 1e6, 1e9, 1e6);         /* IPC 2.004 */
	r = reading(&s);
	assert_non_null(strstr(r, "IPC 2.00 is between 1.0 and 2.0"));
	free(r);
	s = synthetic(4.5e9, 1e8, 5.004e6, 1e9, 5.004e7);   /* 5.004 % misses */
	r = reading(&s);
	assert_non_null(strstr(r, "cache misses 5.00% of references (at most 5%): fine"));
	assert_non_null(strstr(r, "branch misses 5.00% of branches (at most 5%): fine"));
	assert_null(strstr(r, "red flag"));
	free(r);
	s = synthetic(4.5e9, 1e8, 5.006e6, 1e9, 1e6);       /* 5.006 % → 5.01 */
	r = reading(&s);
	assert_non_null(strstr(r, "cache misses 5.01% of references (above 5%)"));
	free(r);
}

static void test_live(void **state)
{
	struct cnt_set s = CNT_SET_INIT;

	(void)state;
	assert_int_equal(cnt_set_add_list(&s, "task-clock,page-faults,{cycles,instructions}"), 0);
	int err = cnt_set_open(&s, 0, -1, 0);
	if (err == -EACCES || err == -EPERM) {
		cnt_set_release(&s);
		skip();
	}
	assert_int_equal(err, 0);
	assert_int_equal(cnt_set_enable(&s), 0);
	volatile char *p = malloc(1 << 20);
	for (int i = 0; i < (1 << 20); i += 4096)
		p[i] = 1;
	free((void *)p);
	assert_int_equal(cnt_set_disable(&s), 0);
	assert_int_equal(cnt_set_read(&s), 0);
	assert_int_equal(s.ev[0].state, CNT_OK);
	assert_true(s.ev[0].value > 0);              /* task-clock ns */
	assert_true(s.ev[0].enabled > 0 && s.ev[0].running > 0);
	assert_int_equal(s.ev[1].state, CNT_OK);
	/* cycles: either counted (bare metal) or <not supported> (VM), never 0 by error */
	if (s.ev[2].state == CNT_NOT_SUPPORTED)
		assert_int_equal(s.ev[3].state, CNT_NOT_SUPPORTED);
	else
		assert_true(s.ev[2].state == CNT_OK || s.ev[2].state == CNT_NOT_COUNTED);
	cnt_set_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_group_read),
		cmocka_unit_test(test_event_lists),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_reading_no_pmu),
		cmocka_unit_test(test_reading_thresholds),
		cmocka_unit_test(test_reading_rounding),
		cmocka_unit_test(test_live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
