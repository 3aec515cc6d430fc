/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit collapse — perf script text (plain or gzip) or perf.data to
 * folded stacks; a drop-in for FlameGraph's stackcollapse-perf.pl.
 */
#include "cmd/cmds.h"
#include "format/collapse.h"
#include "stack/folded.h"
#include "base/error.h"
#include "base/parse.h"
#include "base/strbuf.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: perfkit collapse [options] [FILE...]\n"
	"\n"
	"Folds the stacks of `perf script` output (plain or gzip) or of a perf.data\n"
	"file into lines \"comm;root;...;leaf COUNT\", sorted (stackcollapse-perf.pl\n"
	"format). Reads standard input when no FILE or FILE is '-'.\n"
	"\n"
	"  --pid              include the PID with process names\n"
	"  --tid              include the PID and TID with process names\n"
	"  --kernel           annotate kernel functions with _[k]\n"
	"  --jit              annotate JIT functions (/tmp/perf-N.map) with _[j]\n"
	"  --all              all annotations (--kernel --jit)\n"
	"  --addrs            include raw addresses where symbols are unknown\n"
	"  --event-filter=EV  keep samples of event EV (default: the first event seen)\n"
	"  --inline           expand inlined functions (DWARF, via elfutils)\n"
	"  --context          with --inline, add file:line to names\n"
	"  --srcline          input comes from `perf script -F+srcline`\n"
	"  --count            weigh every sample 1 (default: its period)\n"
	"  --max-stack N      perf.data input: at most N frames of each stack\n"
	"  --no-demangle      perf.data input: raw (mangled) C++/Rust names\n"
	"  --demangle         perf script text: demangle C++/Rust names that are\n"
	"                     still mangled (`perf script --no-demangle` output)\n"
	"  -h, --help         show this help\n";

static void show_warnings(void)
{
	pk_warnings_print(stderr, "perfkit collapse");
}

int cmd_collapse(int argc, char **argv)
{
	enum { O_PID = 256, O_TID, O_KERNEL, O_JIT, O_ALL, O_ADDRS, O_EVENT, O_INLINE,
	       O_CONTEXT, O_SRCLINE, O_COUNT, O_MAXSTACK, O_NODEMANGLE, O_DEMANGLE };
	xmalloc_reuse();   /* before the parser's threads */
	static const struct option longopts[] = {
		{ "pid", no_argument, NULL, O_PID },
		{ "tid", no_argument, NULL, O_TID },
		{ "kernel", no_argument, NULL, O_KERNEL },
		{ "jit", no_argument, NULL, O_JIT },
		{ "all", no_argument, NULL, O_ALL },
		{ "addrs", no_argument, NULL, O_ADDRS },
		{ "event-filter", required_argument, NULL, O_EVENT },
		{ "inline", no_argument, NULL, O_INLINE },
		{ "context", no_argument, NULL, O_CONTEXT },
		{ "srcline", no_argument, NULL, O_SRCLINE },
		{ "count", no_argument, NULL, O_COUNT },
		{ "max-stack", required_argument, NULL, O_MAXSTACK },
		{ "no-demangle", no_argument, NULL, O_NODEMANGLE },
		{ "demangle", no_argument, NULL, O_DEMANGLE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct collapse_opts o;
	struct folded f;
	int opt, ret = 0;
	bool unopened = false;

	memset(&o, 0, sizeof(o));
	optind = 1;
	opterr = 0;
	/* as stackcollapse-perf.pl's Getopt::Long: "-pid" is "--pid", and
	 * options may follow the files */
	while ((opt = getopt_long_only(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case O_PID: o.pid = true; break;
		case O_TID: o.tid = true; break;
		case O_KERNEL: o.kernel = true; break;
		case O_JIT: o.jit = true; break;
		case O_ALL: o.kernel = o.jit = true; break;
		case O_ADDRS: o.addrs = true; break;
		case O_EVENT: o.event_filter = optarg; break;
		case O_INLINE: o.inline_ = true; break;
		case O_CONTEXT: o.context = true; break;
		case O_SRCLINE: o.srcline = true; break;
		case O_COUNT: o.count = true; break;
		case O_MAXSTACK: {
			if (pk_parse_int("--max-stack", optarg, 1, 1000000, &o.max_stack)) {
				fprintf(stderr, "perfkit collapse: %s\n", pk_errmsg());
				return 2;
			}
			break;
		}
		case O_NODEMANGLE: o.no_demangle = true; break;
		case O_DEMANGLE: o.demangle = true; break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			if (optopt > 0 && optopt < 256)
				fprintf(stderr, "perfkit collapse: unknown option '-%c'\n%s", optopt, usage);
			else
				fprintf(stderr, "perfkit collapse: unknown or incomplete option '%s'\n%s",
					argv[optind - 1], usage);
			return 2;
		}
	}

	struct collapse_info info = { .event = "" };
	char first[sizeof(info.event)] = "";

	folded_init(&f);
	if (optind >= argc) {
		ret = collapse_file("-", &o, &f);
	} else {
		for (int i = optind; i < argc && !ret; i++) {
			ret = collapse_file_info(argv[i], &o, &f, &info);
			/* as stackcollapse-perf.pl (Perl's <>): a file that
			 * cannot be opened is named and skipped, the others
			 * are read; the exit status says one was missing */
			if (ret && !info.opened) {
				fprintf(stderr, "perfkit collapse: %s\n", pk_errmsg());
				unopened = true;
				ret = 0;
				continue;
			}
			/* one default filter for all the files: the first
			 * event of the first that has one */
			if (!ret && !first[0] && info.event[0] && !(o.event_filter && *o.event_filter)) {
				snprintf(first, sizeof(first), "%s", info.event);
				o.first_event = first;
			}
		}
	}
	show_warnings();
	if (ret) {
		fprintf(stderr, "perfkit collapse: %s\n", pk_errmsg());
		folded_release(&f);
		return 1;
	}
	if (folded_nr(&f) == 0 && !unopened)
		fprintf(stderr, "perfkit collapse: warning: no samples found in the input; "
			"expected `perf script` output (record with `perf record -g` for call "
			"chains) or a perf.data file\n");
	if (folded_write(&f, stdout)) {
		fprintf(stderr, "perfkit collapse: %s\n", pk_errmsg());
		ret = 1;
	}
	folded_release(&f);
	return ret || unopened ? 1 : 0;
}
