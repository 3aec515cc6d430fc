/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for a session fed records in memory (session_open_attrs,
 * session_feed, session_trim): perf's bounded reordering across feeds at
 * FINISHED_ROUND, comm attribution from a COMM fed earlier, final feeds,
 * exited threads trimmed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/strbuf.h"
#include "perfdata/perfdata.h"
#include "session/session.h"

#include <stdio.h>
#include <string.h>

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

static void put64(struct strbuf *sb, uint64_t v)
{
	sb_add(sb, &v, 8);
}

static void put32(struct strbuf *sb, uint32_t v)
{
	sb_add(sb, &v, 4);
}

static void hdr(struct strbuf *sb, uint32_t type, uint16_t misc, uint16_t size)
{
	put32(sb, type);
	sb_add(sb, &misc, 2);
	sb_add(sb, &size, 2);
}

static void sample(struct strbuf *sb, uint32_t pid, uint64_t time)
{
	hdr(sb, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 32);
	put64(sb, 0x1000 + time);     /* ip: in no map */
	put32(sb, pid);
	put32(sb, pid);
	put64(sb, time);
	put64(sb, 1);                 /* period */
}

static void comm(struct strbuf *sb, uint32_t pid, const char *name, uint64_t time)
{
	char n[16] = { 0 };

	memcpy(n, name, strnlen(name, sizeof(n) - 1));
	hdr(sb, PERF_RECORD_COMM, 0, 8 + 8 + 16 + 16);
	put32(sb, pid);
	put32(sb, pid);
	sb_add(sb, n, 16);
	put32(sb, pid);               /* sample_id_all: TID, TIME */
	put32(sb, pid);
	put64(sb, time);
}

static void texit(struct strbuf *sb, uint32_t pid, uint64_t time)
{
	hdr(sb, PERF_RECORD_EXIT, 0, 8 + 24 + 16);
	put32(sb, pid);
	put32(sb, 1);
	put32(sb, pid);
	put32(sb, 1);
	put64(sb, time);
	put32(sb, pid);
	put32(sb, pid);
	put64(sb, time);
}

static void round_end(struct strbuf *sb)
{
	hdr(sb, PD_RECORD_FINISHED_ROUND, 0, 8);
}

struct seen {
	uint64_t times[32];
	char comms[32][16];
	size_t n;
};

static int on_sample(const struct pk_sample *s, void *arg)
{
	struct seen *v = arg;

	if (v->n < 32) {
		v->times[v->n] = s->time;
		snprintf(v->comms[v->n], sizeof(v->comms[0]), "%s", s->comm);
		v->n++;
	}
	return 0;
}

static struct session *open_fed(void)
{
	struct perf_event_attr a;
	const char *name = "cpu-clock";
	struct session *s;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_type = ST;
	a.sample_id_all = 1;
	assert_int_equal(session_open_attrs(&s, "fed", &a, &name, 1, NULL), 0);
	return s;
}

/* Rounds across feeds (perf's ordered_events): at a FINISHED_ROUND the
 * queued records up to the newest time seen before the previous round are
 * processed, in time order, also one fed later than newer ones; the rest
 * wait for the next round or the final feed. */
static void test_rounds_across_feeds(void **state)
{
	struct session *s = open_fed();
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct seen v = { 0 };

	(void)state;
	comm(&a, 7, "early", 1);
	sample(&a, 7, 10);
	sample(&a, 7, 30);
	round_end(&a);        /* horizon: nothing yet (the first round) */
	sample(&a, 7, 50);
	assert_int_equal(session_feed(s, a.buf, a.len, false, on_sample, &v), 0);
	assert_int_equal(v.n, 0);
	sample(&b, 7, 20);    /* older than 30: still in order */
	round_end(&b);        /* horizon: the newest before the previous round, 30 */
	sample(&b, 7, 60);
	assert_int_equal(session_feed(s, b.buf, b.len, false, on_sample, &v), 0);
	assert_int_equal(v.n, 3);
	assert_int_equal(v.times[0], 10);
	assert_int_equal(v.times[1], 20);
	assert_int_equal(v.times[2], 30);
	assert_string_equal(v.comms[1], "early");
	assert_int_equal(session_feed(s, NULL, 0, true, on_sample, &v), 0);
	assert_int_equal(v.n, 5);
	assert_int_equal(v.times[3], 50);
	assert_int_equal(v.times[4], 60);
	assert_int_equal(session_stats(s)->nr_samples, 5);
	sb_release(&a);
	sb_release(&b);
	session_close(s);
}

/* A final feed processes all, sorted; a thread's COMM from an earlier feed
 * names its later samples; after its EXIT and a trim, the thread is gone. */
static void test_final_and_trim(void **state)
{
	struct session *s = open_fed();
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct seen v = { 0 };

	(void)state;
	comm(&a, 9, "worker", 1);
	sample(&a, 9, 40);
	sample(&a, 9, 20);
	assert_int_equal(session_feed(s, a.buf, a.len, true, on_sample, &v), 0);
	assert_int_equal(v.n, 2);
	assert_int_equal(v.times[0], 20);
	assert_int_equal(v.times[1], 40);
	assert_string_equal(v.comms[0], "worker");
	assert_string_equal(session_thread_comm(s, 9), "worker");
	texit(&b, 9, 50);
	assert_int_equal(session_feed(s, b.buf, b.len, true, on_sample, &v), 0);
	session_trim(s);
	assert_null(session_thread_comm(s, 9));
	sb_release(&a);
	sb_release(&b);
	session_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rounds_across_feeds),
		cmocka_unit_test(test_final_and_trim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
