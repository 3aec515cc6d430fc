/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/event: perf's event names, aliases and modifiers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "base/error.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_software_names),
		cmocka_unit_test(test_hardware_names),
		cmocka_unit_test(test_modifiers),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
