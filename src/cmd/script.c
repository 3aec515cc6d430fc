/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit script — every sample of a perf.data file in `perf script`'s
 * default text form (the input of stackcollapse-perf.pl):
 *
 *   with callchains:   "comm  tid [cpu] secs.usecs:     period event: \n"
 *                      "\t    ip sym+0xoff (dso)\n" per frame, then a blank line
 *   without:           "            comm  tid [cpu] secs.usecs:     period event:      ip sym+0xoff (dso)\n"
 *
 * [cpu] appears when the samples carry PERF_SAMPLE_CPU (as perf does); the
 * period is the sample's, or the event's fixed one (-c N).
 */
#include "cmd/cmds.h"

#include "base/error.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "perfdata/perfdata.h"
#include "session/session.h"
#include "event/event.h"
#include "event/tracepoint.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hand-made formatting: printf dominated the run time on large files. */
struct out {
	FILE *fp;
	struct strbuf sb;
	int name_width;       /* perf pads event names to the longest one */
	struct tp_formats tps; /* tracepoint formats from HEADER_TRACING_DATA */
};

static void add_hex(struct strbuf *sb, uint64_t v, int width)
{
	char buf[32];
	int n = 0;

	do {
		buf[sizeof(buf) - 1 - n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	for (; width > n; width--)
		sb_addch(sb, ' ');
	sb_add(sb, buf + sizeof(buf) - n, (size_t)n);
}

/* One frame "ip sym+0xoff (dso)\n"; chain: a call-chain line, whose
 * address perf 6.1 prints relative to its file mapping (kernel, JIT and
 * unmapped addresses as they are), where the sample's own ip (no call
 * chain) is printed as sampled. */
/* v in decimal, padded on the left with pad to width columns */
static void add_dec(struct strbuf *sb, uint64_t v, int width, char pad)
{
	char buf[24];
	int n = 0;

	do {
		buf[sizeof(buf) - 1 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (; width > n; width--)
		sb_addch(sb, pad);
	sb_add(sb, buf + sizeof(buf) - n, (size_t)n);
}

/* inlined frames as perf 6.1 prints them by default (session_opts.inline_perf):
 * with the offset of the frame they are part of */
static bool inline_offsets;

static void add_frame(struct strbuf *sb, const struct pk_frame *fr, bool chain)
{
	add_hex(sb, chain ? fr->map_ip : fr->ip, 16);
	sb_addch(sb, ' ');
	if (fr->inlined) {     /* as perf shows inlined functions */
		sb_addstr(sb, fr->sym);
		if (inline_offsets) {
			sb_add(sb, "+0x", 3);
			add_hex(sb, fr->sym_off, 0);
		}
		sb_add(sb, " (inlined)\n", 11);
		return;
	}
	if (fr->sym) {
		sb_add_term(sb, fr->sym, strlen(fr->sym));
		sb_add(sb, "+0x", 3);
		add_hex(sb, fr->sym_off, 0);
	} else {
		sb_add(sb, "[unknown]", 9);
	}
	sb_add(sb, " (", 2);
	sb_add_term(sb, fr->dso, strlen(fr->dso));
	sb_add(sb, ")\n", 2);
}

/* A tracepoint sample, as perf script prints one: comm tid [cpu] time:
 * event: its fields (tracepoint.h), then the call chain if recorded. */
static void add_tracepoint(struct out *o, const struct pk_sample *s, const struct tp_format *f)
{
	struct strbuf *sb = &o->sb;
	uint64_t t = s->raw->evsel->attr.sample_type;

	sb_addf(sb, "%16s %5" PRIu32 " ", s->comm, s->tid);
	if (t & PERF_SAMPLE_CPU)
		sb_addf(sb, "[%03" PRIu32 "] ", s->cpu);
	if (t & PERF_SAMPLE_TIME)
		sb_addf(sb, "%5" PRIu64 ".%06" PRIu64 ": ", (uint64_t)(s->time / 1000000000u),
			(uint64_t)(s->time % 1000000000u / 1000u));
	sb_addf(sb, "%*s: ", o->name_width, s->event);
	/* its print format when simple (as perf), else its fields */
	if (tp_format_print(f, s->raw->raw, s->raw->raw_size, sb))
		tp_format_fields_text(f, s->raw->raw, s->raw->raw_size, sb);
	sb_addch(sb, '\n');
	if (t & PERF_SAMPLE_CALLCHAIN) {
		size_t nf = s->chain_empty ? 0 : s->nr_frames - (s->truncated && s->nr_frames);
		for (size_t i = 0; i < nf; i++) {
			sb_addch(sb, '\t');
			add_frame(sb, &s->frames[i], true);
		}
		sb_addch(sb, '\n');
	}
}

static int on_sample(const struct pk_sample *s, void *arg)
{
	struct out *o = arg;
	struct strbuf *sb = &o->sb;
	uint64_t t = s->raw->evsel->attr.sample_type;
	bool cc = (t & PERF_SAMPLE_CALLCHAIN) != 0;
	const struct tp_format *tpf;

	if (s->raw->evsel->attr.type == PERF_TYPE_TRACEPOINT && s->raw->raw &&
	    (tpf = tp_formats_find(&o->tps, s->raw->evsel->attr.config))) {
		add_tracepoint(o, s, tpf);
		goto flush;
	}

	/* the comm escaped (a newline in it would start a new sample) and,
	 * without call chains, right-aligned on 16 columns */
	size_t at = sb->len;
	sb_add_term(sb, s->comm, strlen(s->comm));
	size_t cl = sb->len - at;
	if (!cc && cl < 16) {
		sb_grow(sb, 16 - cl);
		memmove(sb->buf + at + 16 - cl, sb->buf + at, cl);
		memset(sb->buf + at, ' ', 16 - cl);
		sb_setlen(sb, at + 16);
	}
	/* " %5u ", "[%03u] ", "%5lu.%06lu: ", "%10lu %*s: " by hand: printf
	 * took a tenth of the run */
	sb_addch(sb, ' ');
	add_dec(sb, s->tid, 5, ' ');
	sb_addch(sb, ' ');
	if (t & PERF_SAMPLE_CPU) {
		sb_addch(sb, '[');
		add_dec(sb, s->cpu, 3, '0');
		sb_add(sb, "] ", 2);
	}
	if (t & PERF_SAMPLE_TIME) {
		add_dec(sb, s->time / 1000000000u, 5, ' ');
		sb_addch(sb, '.');
		add_dec(sb, s->time % 1000000000u / 1000u, 6, '0');
		sb_add(sb, ": ", 2);
	}
	add_dec(sb, s->period, 10, ' ');
	sb_addch(sb, ' ');
	size_t evl = strlen(s->event);
	for (size_t k = evl; k < (size_t)(o->name_width > 0 ? o->name_width : 0); k++)
		sb_addch(sb, ' ');
	sb_add(sb, s->event, evl);
	sb_add(sb, ": ", 2);
	if (cc) {
		/* perf prints no frame for an empty chain, nor a marker for a
		 * chain the kernel cut at its maximum depth */
		size_t nf = s->chain_empty ? 0 : s->nr_frames - (s->truncated && s->nr_frames);
		sb_addch(sb, '\n');
		for (size_t i = 0; i < nf; i++) {
			sb_addch(sb, '\t');
			add_frame(sb, &s->frames[i], true);
		}
		sb_addch(sb, '\n');
	} else if (s->nr_frames) {
		sb_addch(sb, ' ');
		add_frame(sb, &s->frames[0], false);
	} else {
		sb_addch(sb, '\n');
	}
flush:
	if (sb->len >= 1 << 20) {
		fwrite(sb->buf, 1, sb->len, o->fp);
		sb_reset(sb);
	}
	return 0;
}

static void print_warnings(void)
{
	pk_warnings_print(stderr, "perfkit script");
}

#define SCRIPT_USAGE "usage: perfkit script [-i FILE] [--max-stack N] [--no-demangle] [--inline]\n"

int cmd_script(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "max-stack", required_argument, NULL, 'M' },
		{ "no-demangle", no_argument, NULL, 'D' },
		{ "inline", no_argument, NULL, 'I' },
		{ "no-inline", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* perf 6.1's default: inlined functions in --call-graph dwarf samples */
	struct session_opts so = { .inline_ = false, .inline_perf = true };
	const char *input = pd_default_path();
	struct session *s;
	struct out o;
	int c, err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': input = optarg; break;
		case 'M':
			if (pk_parse_int("--max-stack", optarg, 1, 1000000, &so.max_stack)) {
				fprintf(stderr, "perfkit script: %s\n", pk_errmsg());
				return 2;
			}
			break;
		case 'D': so.no_demangle = true; break;
		case 'I': so.inline_ = true; break;
		case 'N': so.inline_ = so.inline_perf = false; break;
		case 'h': printf("%s", SCRIPT_USAGE); return 0;
		default: fprintf(stderr, "%s", SCRIPT_USAGE); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "perfkit script: unexpected argument '%s'\nusage: perfkit script [-i FILE]\n",
			argv[optind]);
		return 2;
	}
	if (!so.max_stack)   /* perf's default --max-stack */
		so.max_stack = (int)ev_max_stack();
	inline_offsets = so.inline_perf && !so.inline_;
	pk_error_clear();
	err = session_open(&s, input, &so);
	if (err) {
		fprintf(stderr, "perfkit script: %s\n", pk_errmsg());
		print_warnings();
		return 1;
	}
	sb_init(&o.sb, 1 << 21);
	o.fp = stdout;
	o.name_width = 0;
	o.tps = (struct tp_formats){ 0 };
	if (session_file(s)->tracing_data &&
	    tp_tracing_data_parse(session_file(s)->tracing_data, session_file(s)->tracing_data_size, &o.tps))
		pk_warn("%s: %s; tracepoint fields are not shown", input, pk_errmsg());
	for (size_t i = 0; i < session_file(s)->nr_evsels; i++) {
		size_t len = strlen(session_file(s)->evsels[i].name);

		if (len > (size_t)o.name_width && len < 256)
			o.name_width = (int)len;
	}
	err = session_process(s, on_sample, &o);
	fwrite(o.sb.buf, 1, o.sb.len, stdout);
	sb_release(&o.sb);
	tp_formats_release(&o.tps);
	if (err < 0)
		fprintf(stderr, "perfkit script: %s\n", pk_errmsg());
	print_warnings();
	session_close(s);
	return err < 0 ? 1 : 0;
}
