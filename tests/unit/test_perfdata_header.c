/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/perfdata/header.c: the header text of a pd_file
 * built here (feature bodies as perf writes them), a malformed section, the
 * event line's attribute order, pipe mode; sb_add_line (base/strbuf). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "perfdata/header.h"

/* a perf header string: u32 len (with NUL, padded to 8 here), bytes */
static size_t put_str(uint8_t *p, const char *s)
{
	uint32_t len = (uint32_t)((strlen(s) + 1 + 7) / 8 * 8);

	memcpy(p, &len, 4);
	memset(p + 4, 0, len);
	memcpy(p + 4, s, strlen(s));
	return 4 + len;
}

static void set_feat(struct pd_file *f, int bit, const uint8_t *body, uint64_t size)
{
	f->features[bit / 64] |= 1ULL << (bit % 64);
	f->feat_body[bit] = body;
	f->feat_size[bit] = size;
}

static void test_header_lines(void **state)
{
	struct pd_file f = { 0 };
	struct strbuf sb = STRBUF_INIT;
	uint8_t host[32], cmd[64], nr[8], mem[8], pmu[64], st[16], trunc[3] = { 9, 0, 0 };
	uint64_t ids[2] = { 11, 12 };
	struct pd_evsel ev = { 0 };
	size_t n;

	(void)state;
	put_str(host, "box");
	set_feat(&f, PD_FEAT_HOSTNAME, host, sizeof(host));
	set_feat(&f, PD_FEAT_OSRELEASE, trunc, sizeof(trunc));   /* cut: malformed */
	uint32_t avail = 8, online = 4;
	memcpy(nr, &avail, 4);
	memcpy(nr + 4, &online, 4);
	set_feat(&f, PD_FEAT_NRCPUS, nr, 8);
	uint64_t kb = 1024;
	memcpy(mem, &kb, 8);
	set_feat(&f, PD_FEAT_TOTAL_MEM, mem, 8);
	uint32_t two = 2;
	memcpy(cmd, &two, 4);
	n = 4 + put_str(cmd + 4, "perf");
	n += put_str(cmd + n, "record");
	set_feat(&f, PD_FEAT_CMDLINE, cmd, n);
	ev.name = (char *)"cycles:u";
	ev.ids = ids;
	ev.nr_ids = 2;
	ev.attr.type = 0;
	ev.attr.size = 128;
	ev.attr.sample_period = 4000;
	ev.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_DATA_SRC;
	ev.attr.freq = 1;
	ev.attr.exclude_kernel = 1;
	ev.attr.clockid = 1;
	ev.attr.use_clockid = 1;
	f.evsels = &ev;
	f.nr_evsels = 1;
	set_feat(&f, PD_FEAT_EVENT_DESC, (const uint8_t *)"", 0);
	set_feat(&f, PD_FEAT_CPU_TOPOLOGY, (const uint8_t *)"", 0);
	uint32_t one = 1, type = 1;
	memcpy(pmu, &one, 4);
	memcpy(pmu + 4, &type, 4);
	n = 8 + put_str(pmu + 8, "software");
	set_feat(&f, PD_FEAT_PMU_MAPPINGS, pmu, n);
	uint64_t t0 = 5000123456ull, t1 = 5250123456ull;
	memcpy(st, &t0, 8);
	memcpy(st + 8, &t1, 8);
	set_feat(&f, PD_FEAT_SAMPLE_TIME, st, 16);
	f.hdr_data_offset = 264;
	f.hdr_data_size = 1000;
	setenv("TZ", "UTC", 1);
	pd_header_text(&f, 0, &sb);
	assert_string_equal(sb.buf,
		"# ========\n"
		"# captured on    : Thu Jan  1 00:00:00 1970\n"
		"# header version : 1\n"
		"# data offset    : 264\n"
		"# data size      : 1000\n"
		"# feat offset    : 1264\n"
		"# hostname : box\n"
		"# OSRELEASE : (3-byte section, malformed)\n"
		"# nrcpus online : 4\n"
		"# nrcpus avail : 8\n"
		"# total memory : 1024 kB\n"
		"# cmdline : perf record \n"
		"# event : name = cycles:u, , id = { 11, 12 }, size = 128, { sample_period, sample_freq } = 4000, "
		"sample_type = IP|TID|IDENTIFIER|DATA_SRC, exclude_kernel = 1, freq = 1, use_clockid = 1, clockid = 1\n"
		"# CPU_TOPOLOGY info available, use -I to display\n"
		"# pmu mappings: software = 1\n"
		"# time of first sample : 5.000123\n"
		"# time of last sample : 5.250123\n"
		"# sample duration :    250.000 ms\n"
		"# missing features: TRACING_DATA BUILD_ID VERSION ARCH CPUDESC CPUID NUMA_TOPOLOGY "
		"BRANCH_STACK GROUP_DESC AUXTRACE STAT CACHE MEM_TOPOLOGY CLOCKID DIR_FORMAT BPF_PROG_INFO "
		"BPF_BTF COMPRESSED CPU_PMU_CAPS CLOCK_DATA HYBRID_TOPOLOGY PMU_CAPS \n"
		"# ========\n"
		"#\n");
	sb_release(&sb);

	/* pipe mode: zeros, the rule, then the features, no missing list */
	f.pipe_mode = true;
	pd_header_text(&f, 0, &sb);
	assert_non_null(strstr(sb.buf, "# data offset    : 0\n# data size      : 0\n# feat offset    : 0\n# ========\n#\n# hostname : box\n"));
	assert_null(strstr(sb.buf, "missing features"));
	sb_release(&sb);
}

static void test_sb_add_line(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	sb_add_line(&sb, "a\033[1m\tb\177\n\nc", 11);
	assert_memory_equal(sb.buf, "a\033[1m\tb\177\\x0a\\x0ac", 17);
	assert_int_equal(sb.len, 17);
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_lines),
		cmocka_unit_test(test_sb_add_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
