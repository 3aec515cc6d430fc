/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit evlist — the events a perf.data holds, as `perf evlist` prints
 * them: one name per line (the file's EVENT_DESC names, else perf 6.1's
 * name for the attr: perfdata.h); with -F the sampling frequency or period
 * ("cpu-clock: sample_freq=999"); with -v every non-zero attribute, in
 * perf_event_attr__fprintf's order ("cpu-clock: type: 1, size: 128, ...").
 *
 * --trace-fields: a tracepoint's fields from the file's tracing data
 * ("sched:sched_process_exit: trace_fields: comm,pid,prio,group_dead"),
 * "(not a tracepoint)" for the others.
 *
 *   perfkit evlist [-i FILE] [-F | -v | --trace-fields]
 */
#include "cmd/cmds.h"

#include "base/error.h"
#include "base/strbuf.h"
#include "event/tracepoint.h"
#include "perfdata/header.h"
#include "perfdata/perfdata.h"

#include <getopt.h>
#include <linux/perf_event.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: perfkit evlist [-i FILE] [-F | -v | --trace-fields]\n"
		   "  -i, --input FILE   perf.data to read (default perf.data)\n"
		   "  -F, --freq         each event's sampling frequency or period\n"
		   "  -v, --verbose      each event's attributes (perf's perf_event_attr list)\n"
		   "      --trace-fields a tracepoint's fields (from the file's tracing data)\n"
		   "  -f, --force        accepted (perf's: do not check the file's owner)\n");
}

int cmd_evlist(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "freq", no_argument, NULL, 'F' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "force", no_argument, NULL, 'f' },
		{ "trace-fields", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = NULL;
	bool freq = false, verbose = false, fields = false;
	struct pd_file *f;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "i:Fvfh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': input = optarg; break;
		case 'F': freq = true; break;
		case 'v': verbose = true; break;
		case 'f': break;
		case 'T': fields = true; break;
		case 'h': usage(stdout); return 0;
		default:
			if (optopt == 'i')
				fprintf(stderr, "perfkit evlist: option -i needs a value\n");
			else if (optopt)
				fprintf(stderr, "perfkit evlist: unknown option '-%c'\n", optopt);
			else
				fprintf(stderr, "perfkit evlist: unknown option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "perfkit evlist: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!input)
		input = pd_default_path();
	if (pd_open(&f, input)) {
		fprintf(stderr, "perfkit evlist: %s\n", pk_errmsg());
		return 1;
	}
	struct strbuf sb = STRBUF_INIT;
	bool tracepoint = false;
	struct tp_formats fmts = { 0 };

	if (fields && f->tracing_data && tp_tracing_data_parse(f->tracing_data, f->tracing_data_size, &fmts)) {
		fprintf(stderr, "perfkit evlist: %s: %s\n", input, pk_errmsg());
		pd_close(f);
		return 1;
	}

	for (size_t i = 0; i < f->nr_evsels; i++) {
		const struct pd_evsel *e = &f->evsels[i];

		tracepoint |= e->attr.type == PERF_TYPE_TRACEPOINT;

		sb_reset(&sb);
		sb_add_term(&sb, e->name, strlen(e->name));
		if (fields) {
			const struct tp_format *fm = e->attr.type == PERF_TYPE_TRACEPOINT
							     ? tp_formats_find(&fmts, e->attr.config) : NULL;

			if (e->attr.type != PERF_TYPE_TRACEPOINT) {
				sb_addstr(&sb, ": (not a tracepoint)");
			} else if (!fm) {
				sb_addstr(&sb, ": (no format in the file's tracing data)");
			} else {
				bool first = true;

				sb_addstr(&sb, ": trace_fields: ");
				for (size_t j = 0; j < fm->nr_fields; j++) {
					if (fm->fields[j].common)
						continue;
					if (!first)
						sb_addch(&sb, ',');
					sb_add_term(&sb, fm->fields[j].name, strlen(fm->fields[j].name));
					first = false;
				}
			}
		} else if (verbose) {
			size_t at = sb.len;

			pd_attr_text(&e->attr, ": ", &sb);
			if (sb.len > at) {   /* ", type: 1, ..." after "NAME": "NAME: type: 1, ..." */
				sb.buf[at] = ':';
			}
		} else if (freq) {
			sb_addf(&sb, ": %s=%" PRIu64, e->attr.freq ? "sample_freq" : "sample_period",
				(uint64_t)e->attr.sample_period);
		}
		puts(sb.buf);
	}
	tp_formats_release(&fmts);
	if (tracepoint && !fields)   /* perf's closing line */
		puts("# Tip: use 'perf evlist --trace-fields' to show fields for tracepoint events");
	sb_release(&sb);
	pd_close(f);
	return 0;
}
