/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/event: perf's event names, aliases and modifiers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "tracefs/tracefs.h"
#include "event/event.h"

static void check(const char *spec, uint32_t type, uint64_t config)
{
	struct perf_event_attr a;
	int rc = ev_parse(spec, &a);
	if (rc)
		fail_msg("ev_parse(%s): %s", spec, pk_errmsg());
	assert_int_equal(a.type, type);
	assert_int_equal(a.config, config);
	assert_int_equal(a.size, sizeof(a));
}

static void test_software_names(void **state)
{
	(void)state;
	check("cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	check("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	check("page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	check("faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	check("context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
	check("cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
	check("cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS);
	check("migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS);
	check("minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN);
	check("major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ);
	check("alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS);
	check("emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS);
	check("dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	check("CPU-Clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
}

static void test_hardware_names(void **state)
{
	(void)state;
	check("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	check("cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	check("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	check("cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES);
	check("cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES);
	check("branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	check("branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	check("branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES);
	check("bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES);
	check("ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES);
	check("stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND);
	check("idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND);
	check("stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND);
	check("idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND);
	check("r1a8", PERF_TYPE_RAW, 0x1a8);
	struct perf_event_attr a;
	assert_int_equal(ev_parse("cycles", &a), 0);
	assert_true(ev_needs_pmu(&a));
	assert_int_equal(ev_parse("cpu-clock", &a), 0);
	assert_false(ev_needs_pmu(&a));
}

static void test_modifiers(void **state)
{
	(void)state;
	struct perf_event_attr a;

	assert_int_equal(ev_parse("cycles", &a), 0);
	assert_int_equal(a.exclude_user + a.exclude_kernel + a.exclude_hv + a.precise_ip, 0);

	assert_int_equal(ev_parse("cycles:u", &a), 0);
	assert_int_equal(a.exclude_user, 0);
	assert_int_equal(a.exclude_kernel, 1);
	assert_int_equal(a.exclude_hv, 1);

	assert_int_equal(ev_parse("cpu-clock:k", &a), 0);
	assert_int_equal(a.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(a.exclude_user, 1);
	assert_int_equal(a.exclude_kernel, 0);
	assert_int_equal(a.exclude_hv, 1);

	assert_int_equal(ev_parse("instructions:uk", &a), 0);
	assert_int_equal(a.exclude_user, 0);
	assert_int_equal(a.exclude_kernel, 0);
	assert_int_equal(a.exclude_hv, 1);

	assert_int_equal(ev_parse("cycles:h", &a), 0);
	assert_int_equal(a.exclude_user, 1);
	assert_int_equal(a.exclude_kernel, 1);
	assert_int_equal(a.exclude_hv, 0);

	assert_int_equal(ev_parse("cycles:p", &a), 0);
	assert_int_equal(a.precise_ip, 1);
	assert_int_equal(a.exclude_kernel, 0);
	assert_int_equal(ev_parse("cycles:upp", &a), 0);
	assert_int_equal(a.precise_ip, 2);
	assert_int_equal(a.exclude_kernel, 1);
	assert_int_equal(ev_parse("cycles:ppp", &a), 0);
	assert_int_equal(a.precise_ip, 3);
}

/* perf's other modifiers: G/H (guest/host), I, D, e; W and S accepted */
static void test_more_modifiers(void **state)
{
	(void)state;
	struct perf_event_attr a;

	/* neither: perf's default, guests left out (exclude_GH default) */
	assert_int_equal(ev_parse("cpu-clock", &a), 0);
	assert_int_equal(a.exclude_guest, 1);
	assert_int_equal(a.exclude_host, 0);
	assert_int_equal(ev_parse("task-clock:u", &a), 0);
	assert_int_equal(a.exclude_guest, 1);
	assert_int_equal(ev_parse("cycles:G", &a), 0);
	assert_int_equal(a.exclude_host, 1);
	assert_int_equal(a.exclude_guest, 0);
	assert_int_equal(ev_parse("cycles:H", &a), 0);
	assert_int_equal(a.exclude_host, 0);
	assert_int_equal(a.exclude_guest, 1);
	assert_int_equal(ev_parse("cycles:GH", &a), 0);
	assert_int_equal(a.exclude_host + a.exclude_guest, 0);
	assert_int_equal(ev_parse("task-clock:D", &a), 0);
	assert_int_equal(a.pinned, 1);
	assert_int_equal(ev_parse("cycles:uIe", &a), 0);
	assert_int_equal(a.exclude_idle, 1);
	assert_int_equal(a.exclusive, 1);
	assert_int_equal(a.exclude_kernel, 1);
	assert_int_equal(ev_parse("cycles:WS", &a), 0);
	/* and onto a parsed event: a group's modifiers */
	assert_int_equal(ev_parse("task-clock", &a), 0);
	assert_int_equal(ev_apply_modifiers("task-clock", "u", &a), 0);
	assert_int_equal(a.exclude_kernel, 1);
	assert_int_equal(ev_apply_modifiers("task-clock", "q", &a), -EINVAL);
}

/* "PMU/terms/" against a sysfs tree made here (PERFKIT_SYSFS_PMU) */
static void put(const char *dir, const char *file, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_pmu_terms(void **state)
{
	(void)state;
	char root[] = "/tmp/pk-pmu-XXXXXX", d[64], cmd[256];
	struct perf_event_attr a;

	assert_non_null(mkdtemp(root));
	snprintf(d, sizeof(d), "%s/fake", root);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/format %s/events", d, d);
	assert_int_equal(system(cmd), 0);
	put(d, "type", "42\n");
	put(d, "format/event", "config:0-7\n");
	put(d, "format/umask", "config:8-15\n");
	put(d, "format/split", "config:16-17,20-21\n");
	put(d, "format/any", "config:23\n");
	put(d, "format/ldlat", "config1:0-15\n");
	put(d, "events/loads", "event=0xcd,umask=0x01\n");
	setenv("PERFKIT_SYSFS_PMU", root, 1);

	check("fake/event=0x3c,umask=0x2/", 42, 0x023c);
	check("fake/loads/", 42, 0x01cd);
	check("fake/any/", 42, 1u << 23);
	check("fake/split=0xf/", 42, (3u << 16) | (3u << 20));   /* low bits to the first range */
	check("fake/config=0x1234/", 42, 0x1234);
	assert_int_equal(ev_parse("fake/loads,ldlat=30/u", &a), 0);
	assert_int_equal(a.config1, 30);
	assert_int_equal(a.exclude_kernel, 1);
	assert_int_equal(ev_parse("fake/event=1/:k", &a), 0);
	assert_int_equal(a.exclude_user, 1);
	/* name= names it (ev_pmu_name), period= sets the sample period, an
	 * alias matches without regard to case */
	const char *nm = NULL;
	check("fake/event=0x3c,name=busy/", 42, 0x3c);
	assert_int_equal(ev_pmu_name("fake/event=0x3c,name=busy/", &nm), 4);
	assert_memory_equal(nm, "busy", 4);
	assert_int_equal(ev_pmu_name("fake/event=0x3c/", &nm), 0);
	assert_int_equal(ev_pmu_name("cycles:u", &nm), 0);
	check("fake/LOADS/", 42, 0x01cd);
	assert_int_equal(ev_parse("fake/loads,period=1000/", &a), 0);
	assert_int_equal(a.sample_period, 1000);
	assert_int_equal(ev_parse("fake/nosuch/", &a), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "unknown term 'nosuch' for PMU 'fake'"));
	assert_int_equal(ev_parse("fake/event=zz/", &a), -EINVAL);
	assert_int_equal(ev_parse("fake/event=1", &a), -EINVAL);
	assert_int_equal(ev_parse("nopmu/event=1/", &a), -ENOENT);
	assert_non_null(strstr(pk_errmsg(), "no PMU 'nopmu'"));
	unsetenv("PERFKIT_SYSFS_PMU");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

static void test_errors(void **state)
{
	(void)state;
	struct perf_event_attr a;

	assert_int_equal(ev_parse("nosuchevent", &a), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "unknown event 'nosuchevent'"));
	assert_int_equal(ev_parse("nosuch:u", &a), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "unknown event 'nosuch'"));
	assert_int_equal(ev_parse("cycles:x", &a), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "unknown modifier 'x'"));
	assert_int_equal(ev_parse("cycles:", &a), -EINVAL);
	assert_int_equal(ev_parse("cycles:pppp", &a), -EINVAL);
	assert_int_equal(ev_parse("", &a), -EINVAL);
	assert_int_equal(ev_parse("rxyz", &a), -EINVAL);
	assert_int_equal(ev_parse("cpu-clock-x", &a), -EINVAL);
}

static void test_table(void **state)
{
	(void)state;
	size_t nr;
	const struct ev_info *t = ev_table(&nr);
	assert_true(nr >= 20);
	for (size_t i = 0; i < nr; i++) {
		/* every name and alias round-trips, and names are unique */
		assert_ptr_equal(ev_lookup(t[i].name), &t[i]);
		if (t[i].alias)
			assert_ptr_equal(ev_lookup(t[i].alias), &t[i]);
		assert_string_equal(ev_name(t[i].type, t[i].config), t[i].name);
	}
	assert_null(ev_lookup("cpu-clock:u"));
	assert_null(ev_name(PERF_TYPE_SOFTWARE, 9999));
	assert_string_equal(ev_name(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK), "cpu-clock");
}

/* PERF_TYPE_HW_CACHE: config = cache id | op << 8 | result << 16, with the
 * ids of perf_event_open(2): caches L1D 0, L1I 1, LL 2, DTLB 3, ITLB 4,
 * BPU 5, NODE 6; ops READ 0, WRITE 1, PREFETCH 2; results ACCESS 0, MISS 1.
 * The numbers are written out here (not built from the enum) and match
 * what `perf stat -e NAME -vv true` prints as config on perf 6.1. */
static void test_cache_names(void **state)
{
	(void)state;
	check("L1-dcache-loads", PERF_TYPE_HW_CACHE, 0x0);
	check("L1-dcache-load-misses", PERF_TYPE_HW_CACHE, 0x10000);
	check("L1-dcache-stores", PERF_TYPE_HW_CACHE, 0x100);
	check("L1-dcache-store-misses", PERF_TYPE_HW_CACHE, 0x10100);
	check("L1-dcache-prefetches", PERF_TYPE_HW_CACHE, 0x200);
	check("L1-icache-load-misses", PERF_TYPE_HW_CACHE, 0x10001);
	check("LLC-loads", PERF_TYPE_HW_CACHE, 0x2);
	check("LLC-load-misses", PERF_TYPE_HW_CACHE, 0x10002);
	check("LLC-stores", PERF_TYPE_HW_CACHE, 0x102);
	check("LLC-store-misses", PERF_TYPE_HW_CACHE, 0x10102);
	check("dTLB-loads", PERF_TYPE_HW_CACHE, 0x3);
	check("dTLB-load-misses", PERF_TYPE_HW_CACHE, 0x10003);
	check("iTLB-load-misses", PERF_TYPE_HW_CACHE, 0x10004);
	check("branch-loads", PERF_TYPE_HW_CACHE, 0x5);
	check("branch-load-misses", PERF_TYPE_HW_CACHE, 0x10005);
	check("node-loads", PERF_TYPE_HW_CACHE, 0x6);
	check("node-store-misses", PERF_TYPE_HW_CACHE, 0x10106);
	/* aliases, defaults (op load, result access), either order, case */
	check("l1d-read-miss", PERF_TYPE_HW_CACHE, 0x10000);
	check("L1-data-misses", PERF_TYPE_HW_CACHE, 0x10000);
	check("L1-dcache", PERF_TYPE_HW_CACHE, 0x0);
	check("L1-dcache-misses-stores", PERF_TYPE_HW_CACHE, 0x10100);
	check("L2-write-access", PERF_TYPE_HW_CACHE, 0x102);
	check("Data-TLB-speculative-load-miss", PERF_TYPE_HW_CACHE, 0x10203);
	check("l1-i-prefetches", PERF_TYPE_HW_CACHE, 0x201);
	check("Instruction-TLB-loads", PERF_TYPE_HW_CACHE, 0x4);
	check("bpu-misses", PERF_TYPE_HW_CACHE, 0x10005);
	check("btb-load-misses", PERF_TYPE_HW_CACHE, 0x10005);
	check("llc-load-misses", PERF_TYPE_HW_CACHE, 0x10002);
	/* a bare hardware name wins over the cache alias "branches" */
	check("branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	check("branches-misses", PERF_TYPE_HW_CACHE, 0x10005);

	struct perf_event_attr a;
	assert_int_equal(ev_parse("LLC-load-misses:u", &a), 0);
	assert_int_equal(a.type, PERF_TYPE_HW_CACHE);
	assert_int_equal(a.config, 0x10002);
	assert_int_equal(a.exclude_kernel, 1);
	assert_int_equal(a.exclude_user, 0);
	assert_true(ev_needs_pmu(&a));

	/* ops a cache lacks (perf's evsel__hw_cache_stat) */
	assert_int_equal(ev_parse("L1-icache-stores", &a), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "has no stores"));
	assert_int_equal(ev_parse("iTLB-stores", &a), -EINVAL);
	assert_int_equal(ev_parse("branch-prefetches", &a), -EINVAL);
	/* not of the grammar */
	assert_int_equal(ev_parse("L1-dcache-loads-stores", &a), -EINVAL);
	assert_int_equal(ev_parse("L1-dcache-misses-misses", &a), -EINVAL);
	assert_int_equal(ev_parse("L1-dcache-", &a), -EINVAL);
	assert_int_equal(ev_parse("L1-dcacheloads", &a), -EINVAL);
	assert_int_equal(ev_parse("LLC-lo", &a), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "unknown event 'LLC-lo'"));
}

static void test_cache_name_round_trip(void **state)
{
	(void)state;
	int valid = 0;
	for (uint64_t t = 0; t < 7; t++)
		for (uint64_t o = 0; o < 3; o++)
			for (uint64_t r = 0; r < 2; r++) {
				uint64_t c = t | o << 8 | r << 16;
				const char *n = ev_cache_name(c);
				assert_non_null(n);
				assert_string_equal(ev_name(PERF_TYPE_HW_CACHE, c), n);
				if (!ev_cache_valid(c))
					continue;
				valid++;
				check(n, PERF_TYPE_HW_CACHE, c);
			}
	/* perf list's count: L1-dcache 6, L1-icache 4, LLC 6, dTLB 6,
	 * iTLB 2, branch 2, node 6 */
	assert_int_equal(valid, 32);
	assert_string_equal(ev_cache_name(0x10000), "L1-dcache-load-misses");
	assert_string_equal(ev_cache_name(0x102), "LLC-stores");
	assert_null(ev_cache_name(7));
	assert_null(ev_cache_name(0x300));
	assert_null(ev_cache_name(0x20000));
	assert_null(ev_cache_name(0x1000000));
}

static void test_tracepoints(void **state)
{
	(void)state;
	struct perf_event_attr a;

	/* checked before tracefs is touched */
	assert_int_equal(ev_parse("sched:*", &a), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "patterns are not supported"));
	assert_int_equal(ev_parse("../../etc:passwd", &a), -EINVAL);
	assert_int_equal(ev_parse("a/b:c", &a), -EINVAL);

	if (tracefs_ensure() != 0 || !tracefs_dir()) {
		skip();
		return;
	}
	char path[256];
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", tracefs_dir());
	FILE *f = fopen(path, "r");
	if (!f) {
		skip();
		return;
	}
	unsigned long long id = 0;
	assert_int_equal(fscanf(f, "%llu", &id), 1);
	fclose(f);
	check("sched:sched_switch", PERF_TYPE_TRACEPOINT, id);
	assert_int_equal(ev_parse("sched:sched_switch", &a), 0);
	assert_false(ev_needs_pmu(&a));
	assert_int_equal(ev_parse("sched:sched_switch:k", &a), 0);
	assert_int_equal(a.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(a.config, id);
	assert_int_equal(a.exclude_user, 1);
	assert_int_equal(a.exclude_kernel, 0);
	assert_int_equal(ev_parse("sched:no_such_tracepoint", &a), -ENOENT);
	assert_non_null(strstr(pk_errmsg(), "unknown tracepoint 'sched:no_such_tracepoint'"));
	assert_int_equal(ev_parse("nosuchsubsys:x", &a), -ENOENT);
	/* an event name before ':' still means modifiers */
	assert_int_equal(ev_parse("cycles:q", &a), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "unknown modifier 'q'"));
}

/* "did you mean": the edit distance and the nearest known name. */
static void test_suggest(void **state)
{
	(void)state;
	assert_int_equal(ev_edit_distance("cycles", "cycles"), 0);
	assert_int_equal(ev_edit_distance("cylces", "cycles"), 1);      /* a swap */
	assert_int_equal(ev_edit_distance("task-clok", "task-clock"), 1);
	assert_int_equal(ev_edit_distance("CYCLES", "cycles"), 0);      /* case */
	assert_int_equal(ev_edit_distance("", "abc"), 3);
	assert_int_equal(ev_edit_distance("kitten", "sitting"), 3);
	assert_string_equal(ev_suggest("cylces"), "cycles");
	assert_string_equal(ev_suggest("cylces:u"), "cycles");           /* modifiers aside */
	assert_string_equal(ev_suggest("L1-dcache-lods"), "L1-dcache-loads");
	assert_string_equal(ev_suggest("contextswitches"), "context-switches");
	assert_null(ev_suggest("xyzzy"));                                /* nothing near */
	assert_null(ev_suggest("cycles"));                               /* known: no suggestion */

	struct perf_event_attr a;
	assert_int_equal(ev_parse("instrutions", &a), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "did you mean 'instructions'?"));
}

/* perf's event list: groups, their modifiers, PMU terms with commas */
static void test_event_list(void **state)
{
	struct ev_list_item *it;
	size_t n;

	(void)state;
	assert_int_equal(ev_list_parse("a,{b,c:k}:u,cpu/event=0x3c,umask=0/", &it, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(it[0].name, "a");
	assert_int_equal(it[0].group, 0);
	assert_null(it[0].group_mods);
	assert_string_equal(it[1].name, "b");
	assert_int_equal(it[1].group, 1);
	assert_true(it[1].leader);
	assert_string_equal(it[1].group_mods, "u");
	assert_string_equal(it[2].name, "c:k");
	assert_false(it[2].leader);
	assert_string_equal(it[2].group_mods, "u");
	assert_string_equal(it[3].name, "cpu/event=0x3c,umask=0/");
	assert_int_equal(it[3].group, 0);
	ev_list_free(it, n);
	assert_int_equal(ev_list_parse("{a,b},{c}", &it, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(it[2].group, 2);
	assert_true(it[2].leader);
	ev_list_free(it, n);
	/* blanks around names, groups and modifiers, as perf's lexer */
	assert_int_equal(ev_list_parse(" {a , b}:u ,\tc ", &it, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(it[0].name, "a");
	assert_string_equal(it[1].name, "b");
	assert_string_equal(it[1].group_mods, "u");
	assert_string_equal(it[2].name, "c");
	assert_int_equal(it[2].group, 0);
	ev_list_free(it, n);
	assert_int_equal(ev_list_parse("a, ", &it, &n), -EINVAL);
	assert_int_equal(ev_list_parse("{a,b}{c}", &it, &n), -EINVAL);   /* perf: a ',' between */
	assert_int_equal(ev_list_parse("a{b}", &it, &n), -EINVAL);
	assert_int_equal(ev_list_parse("{a,{b}}", &it, &n), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "nested '{'"));
	assert_int_equal(ev_list_parse("a}", &it, &n), -EINVAL);
	assert_int_equal(ev_list_parse("{a", &it, &n), -EINVAL);
	assert_int_equal(ev_list_parse("a,,b", &it, &n), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "empty event name at offset 2"));
	assert_int_equal(ev_list_parse("a,", &it, &n), -EINVAL);
	assert_int_equal(ev_list_parse("{a}x", &it, &n), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "expected ','"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_software_names),
		cmocka_unit_test(test_hardware_names),
		cmocka_unit_test(test_modifiers),
		cmocka_unit_test(test_more_modifiers),
		cmocka_unit_test(test_pmu_terms),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_cache_names),
		cmocka_unit_test(test_cache_name_round_trip),
		cmocka_unit_test(test_tracepoints),
		cmocka_unit_test(test_event_list),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
