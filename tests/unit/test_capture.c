/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/capture's synthesized records: a COMM record's
 * name is at most 15 bytes (TASK_COMM_LEN with its NUL, as perf's
 * perf_event__synthesize_comm writes it), padded with NULs to 8 bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "capture/capture.h"

struct got {
	uint8_t rec[256];
	size_t size;
};

static int keep(void *arg, const struct perf_event_header *h)
{
	struct got *g = arg;

	assert_true(h->size <= sizeof(g->rec));
	memcpy(g->rec, h, h->size);
	g->size = h->size;
	return 0;
}

static void comm_of(const char *name, struct got *g)
{
	struct cap_synth sy = { .sample_type = 0, .id = 0, .emit = keep, .arg = g };

	memset(g, 0xff, sizeof(*g));
	assert_int_equal(cap_synth_comm(&sy, 42, 43, name), 0);
}

static void test_comm_short(void **state)
{
	struct got g;
	uint32_t pid, tid;

	(void)state;
	comm_of("bash", &g);
	assert_int_equal(((struct perf_event_header *)g.rec)->type, PERF_RECORD_COMM);
	memcpy(&pid, g.rec + 8, 4);
	memcpy(&tid, g.rec + 12, 4);
	assert_int_equal(pid, 42);
	assert_int_equal(tid, 43);
	assert_string_equal((const char *)g.rec + 16, "bash");
	assert_int_equal(g.size, 16 + 8);
}

static void test_comm_kworker_cut_to_15(void **state)
{
	struct got g;

	(void)state;
	/* /proc/PID/comm of a kworker holds its workqueue too */
	comm_of("kworker/1:2-events_power_efficient", &g);
	assert_string_equal((const char *)g.rec + 16, "kworker/1:2-eve");
	assert_int_equal(g.size, 16 + 16);
	comm_of("exactly15chars_", &g);
	assert_string_equal((const char *)g.rec + 16, "exactly15chars_");
	comm_of("sixteen_chars_xy", &g);
	assert_string_equal((const char *)g.rec + 16, "sixteen_chars_x");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comm_short),
		cmocka_unit_test(test_comm_kworker_cut_to_15),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
