/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/event/tracepoint: format files, field printing and
 * perf.data tracing data read back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "event/tracepoint.h"

static const char fmt_exec[] =
	"name: sched_process_exec\n"
	"ID: 365\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, REC->old_pid\n";

static const char fmt_switch[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:s8 delta;\toffset:40;\tsize:1;\tsigned:1;\n"
	"\tfield:void * ptr;\toffset:48;\tsize:8;\tsigned:0;\n"
	"print fmt: \"prev_comm=%s\", REC->prev_comm\n";

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

static void test_format_parse(void **state)
{
	struct tp_format f;
	(void)state;

	assert_int_equal(tp_format_parse(fmt_exec, strlen(fmt_exec), "sched", &f), 0);
	assert_string_equal(f.system, "sched");
	assert_string_equal(f.name, "sched_process_exec");
	assert_int_equal(f.id, 365);
	assert_int_equal(f.nr_fields, 7);
	assert_string_equal(f.fields[4].name, "filename");
	assert_string_equal(f.fields[4].type, "__data_loc char[]");
	assert_true(f.fields[4].data_loc);
	assert_true(f.fields[3].common);
	assert_false(f.fields[5].common);
	assert_int_equal(f.fields[6].offset, 16);
	assert_non_null(strstr(f.print_fmt, "filename=%s"));
	tp_format_release(&f);

	assert_int_equal(tp_format_parse(fmt_switch, strlen(fmt_switch), "sched", &f), 0);
	assert_string_equal(f.fields[2].name, "prev_comm");
	assert_true(f.fields[2].array);
	assert_int_equal(f.fields[2].size, 16);
	assert_string_equal(f.fields[6].name, "ptr");
	assert_string_equal(f.fields[6].type, "void *");
	tp_format_release(&f);

	assert_int_not_equal(tp_format_parse("garbage\n", 8, "x", &f), 0);
}

static void test_fields_text(void **state)
{
	struct tp_format f;
	struct strbuf sb = STRBUF_INIT;
	uint8_t rec[64] = { 0 };
	(void)state;

	/* exec: filename at 20, 13 bytes with its NUL */
	assert_int_equal(tp_format_parse(fmt_exec, strlen(fmt_exec), "sched", &f), 0);
	put32(rec + 8, 13u << 16 | 20u);
	put32(rec + 12, 4242);
	put32(rec + 16, 4242);
	memcpy(rec + 20, "/usr/bin/ls", 12);
	tp_format_fields_text(&f, rec, 40, &sb);
	assert_string_equal(sb.buf, "filename=/usr/bin/ls pid=4242 old_pid=4242");
	/* cut short: the string's bytes are past the end */
	sb_reset(&sb);
	tp_format_fields_text(&f, rec, 22, &sb);
	assert_string_equal(sb.buf, "filename=? pid=4242 old_pid=4242");
	sb_reset(&sb);
	tp_format_fields_text(&f, rec, 14, &sb);
	assert_string_equal(sb.buf, "filename=? pid=? old_pid=?");
	tp_format_release(&f);

	assert_int_equal(tp_format_parse(fmt_switch, strlen(fmt_switch), "sched", &f), 0);
	memset(rec, 0, sizeof(rec));
	memcpy(rec + 8, "bash\x01", 5);
	put32(rec + 24, (uint32_t)-7);
	rec[32] = 1;
	rec[40] = 0xff;
	rec[48] = 0x10;
	sb_reset(&sb);
	tp_format_fields_text(&f, rec, 56, &sb);
	assert_string_equal(sb.buf, "prev_comm=bash. prev_pid=-7 prev_state=0x1 delta=-1 ptr=0x10");
	tp_format_release(&f);
	sb_release(&sb);
}

/* Print formats: simple ones as perf prints them, the rest refused. */
static void test_print_fmt(void **state)
{
	struct tp_format f;
	struct strbuf sb = STRBUF_INIT;
	uint8_t rec[64] = { 0 };
	(void)state;

	assert_int_equal(tp_format_parse(fmt_exec, strlen(fmt_exec), "sched", &f), 0);
	put32(rec + 8, 13u << 16 | 20u);
	put32(rec + 12, 4242);
	put32(rec + 16, (uint32_t)-1);
	memcpy(rec + 20, "/usr/bin/ls", 12);
	assert_int_equal(tp_format_print(&f, rec, 40, &sb), 0);
	assert_string_equal(sb.buf, "filename=/usr/bin/ls pid=4242 old_pid=-1");
	tp_format_release(&f);

	static const char fmt_sys[] =
		"name: sys_enter\nID: 20\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield:unsigned long args[2];\toffset:16;\tsize:16;\tsigned:0;\n"
		"\tfield:int fd;\toffset:32;\tsize:8;\tsigned:0;\n"
		"print fmt: \"NR %ld (%lx, %lx) fd: 0x%08lx %%\", REC->id, REC->args[0], REC->args[1], "
		"((unsigned long)(REC->fd))\n";
	assert_int_equal(tp_format_parse(fmt_sys, strlen(fmt_sys), "raw_syscalls", &f), 0);
	memset(rec, 0, sizeof(rec));
	rec[8] = 1;
	rec[9] = 1;
	rec[16] = 0x9c; rec[17] = 0xff; rec[18] = 0xff; rec[19] = 0xff;
	rec[24] = 0x10;
	rec[32] = 3;
	sb_reset(&sb);
	assert_int_equal(tp_format_print(&f, rec, 40, &sb), 0);
	assert_string_equal(sb.buf, "NR 257 (ffffff9c, 10) fd: 0x00000003 %");
	/* cut short: refused, nothing printed */
	sb_reset(&sb);
	assert_int_not_equal(tp_format_print(&f, rec, 20, &sb), 0);
	assert_int_equal(sb.len, 0);
	tp_format_release(&f);

	static const char fmt_hard[] =
		"name: x\nID: 1\nformat:\n"
		"\tfield:long state;\toffset:8;\tsize:8;\tsigned:1;\n"
		"print fmt: \"state=%s\", REC->state ? __print_flags(REC->state, \"|\", { 1, \"S\" }) : \"R\"\n";
	assert_int_equal(tp_format_parse(fmt_hard, strlen(fmt_hard), "x", &f), 0);
	memset(rec, 0, sizeof(rec));
	sb_reset(&sb);
	assert_int_equal(tp_format_print(&f, rec, 40, &sb), 0);
	assert_string_equal(sb.buf, "state=R");
	rec[8] = 1;
	sb_reset(&sb);
	assert_int_equal(tp_format_print(&f, rec, 40, &sb), 0);
	assert_string_equal(sb.buf, "state=S");
	rec[8] = 5;                                      /* a bit with no name: hex after '|' */
	sb_reset(&sb);
	assert_int_equal(tp_format_print(&f, rec, 40, &sb), 0);
	assert_string_equal(sb.buf, "state=S|0x4");
	tp_format_release(&f);

	/* sched_switch's prev_state: masks, shifts, ?:, __print_flags, "+" */
	static const char fmt_sw[] =
		"name: sched_switch\nID: 2\nformat:\n"
		"\tfield:long prev_state;\toffset:8;\tsize:8;\tsigned:1;\n"
		"print fmt: \"prev_state=%s%s ==>\", (REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002) + 1) << 1) - 1)) ? "
		"__print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002) + 1) << 1) - 1), \"|\", "
		"{ 0x00000001, \"S\" }, { 0x00000002, \"D\" }) : \"R\", "
		"REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002) + 1) << 1) ? \"+\" : \"\"\n";
	assert_int_equal(tp_format_parse(fmt_sw, strlen(fmt_sw), "sched", &f), 0);
	static const struct { uint8_t state; const char *want; } sw[] = {
		{ 0, "prev_state=R ==>" }, { 1, "prev_state=S ==>" }, { 2, "prev_state=D ==>" },
		{ 3, "prev_state=S|D ==>" }, { 8, "prev_state=R+ ==>" },
	};
	for (size_t k = 0; k < sizeof(sw) / sizeof(sw[0]); k++) {
		memset(rec, 0, sizeof(rec));
		rec[8] = sw[k].state;
		sb_reset(&sb);
		assert_int_equal(tp_format_print(&f, rec, 40, &sb), 0);
		assert_string_equal(sb.buf, sw[k].want);
	}
	tp_format_release(&f);

	/* not for this evaluator: %p, unknown helpers, unknown fields */
	static const char fmt_no[] =
		"name: y\nID: 3\nformat:\n"
		"\tfield:long v;\toffset:8;\tsize:8;\tsigned:1;\n"
		"print fmt: \"%p %s\", REC->v, __print_hex(REC->v, 2)\n";
	assert_int_equal(tp_format_parse(fmt_no, strlen(fmt_no), "y", &f), 0);
	sb_reset(&sb);
	assert_int_not_equal(tp_format_print(&f, rec, 40, &sb), 0);
	assert_int_equal(sb.len, 0);
	free(f.print_fmt);
	f.print_fmt = strdup("\"%d\", REC->nosuch");
	assert_int_not_equal(tp_format_print(&f, rec, 40, &sb), 0);
	free(f.print_fmt);
	f.print_fmt = strdup("\"%d %d\", REC->v");      /* too few arguments */
	assert_int_not_equal(tp_format_print(&f, rec, 40, &sb), 0);
	free(f.print_fmt);
	f.print_fmt = strdup("\"%d\", REC->v / 0");     /* no division by zero */
	assert_int_not_equal(tp_format_print(&f, rec, 40, &sb), 0);
	free(f.print_fmt);
	f.print_fmt = strdup("\"%99999d\", REC->v");    /* no huge width */
	assert_int_not_equal(tp_format_print(&f, rec, 40, &sb), 0);
	free(f.print_fmt);                               /* no deep recursion */
	size_t deep = 100000;
	f.print_fmt = malloc(deep * 2 + 32);
	memcpy(f.print_fmt, "\"%d\", ", 6);
	memset(f.print_fmt + 6, '(', deep);
	memcpy(f.print_fmt + 6 + deep, "REC->v", 6);
	memset(f.print_fmt + 12 + deep, ')', deep);
	f.print_fmt[12 + 2 * deep] = 0;
	assert_int_not_equal(tp_format_print(&f, rec, 40, &sb), 0);
	memset(f.print_fmt + 6, '-', deep);              /* - - - … */
	assert_int_not_equal(tp_format_print(&f, rec, 40, &sb), 0);
	for (size_t k = 0; k < deep / 4; k++)             /* 1?1:1?1:… */
		memcpy(f.print_fmt + 6 + 4 * k, "1?1:", 4);
	assert_int_not_equal(tp_format_print(&f, rec, 40, &sb), 0);
	tp_format_release(&f);
	sb_release(&sb);
}

static void put_blob(struct strbuf *sb, const char *s, size_t len, int size_bytes)
{
	uint64_t n = len;
	sb_add(sb, &n, (size_t)size_bytes);
	sb_add(sb, s, len);
}

static void test_tracing_data_parse(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct tp_formats fs;
	uint32_t u;
	(void)state;

	sb_add(&sb, "\x17\x08\x44tracing", 10);
	sb_add(&sb, "0.6", 4);
	sb_addch(&sb, 0);
	sb_addch(&sb, 8);
	u = 4096;
	sb_add(&sb, &u, 4);
	sb_add(&sb, "header_page", 12);
	put_blob(&sb, "hp", 2, 8);
	sb_add(&sb, "header_event", 13);
	put_blob(&sb, "he", 2, 8);
	u = 0;
	sb_add(&sb, &u, 4);                /* no ftrace formats */
	u = 1;
	sb_add(&sb, &u, 4);                /* one system */
	sb_add(&sb, "sched", 6);
	u = 2;
	sb_add(&sb, &u, 4);
	put_blob(&sb, fmt_exec, strlen(fmt_exec), 8);
	put_blob(&sb, fmt_switch, strlen(fmt_switch), 8);
	u = 0;
	sb_add(&sb, &u, 4);                /* kallsyms */
	sb_add(&sb, &u, 4);                /* printk */
	uint64_t z = 0;
	sb_add(&sb, &z, 8);                /* saved cmdlines */

	assert_int_equal(tp_tracing_data_parse((const uint8_t *)sb.buf, sb.len, &fs), 0);
	assert_int_equal(fs.nr, 2);
	assert_non_null(tp_formats_find(&fs, 372));
	assert_string_equal(tp_formats_find(&fs, 365)->name, "sched_process_exec");
	assert_string_equal(tp_formats_find(&fs, 365)->system, "sched");
	assert_null(tp_formats_find(&fs, 1));
	tp_formats_release(&fs);

	/* every cut is an error (or, past the formats, still fine), never a crash */
	for (size_t cut = 0; cut < sb.len; cut++) {
		if (tp_tracing_data_parse((const uint8_t *)sb.buf, cut, &fs) == 0)
			tp_formats_release(&fs);
	}
	assert_int_not_equal(tp_tracing_data_parse((const uint8_t *)sb.buf, 60, &fs), 0);
	assert_int_not_equal(tp_tracing_data_parse((const uint8_t *)"nottracing", 10, &fs), 0);
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_parse),
		cmocka_unit_test(test_fields_text),
		cmocka_unit_test(test_print_fmt),
		cmocka_unit_test(test_tracing_data_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
