/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit flamegraph — folded stacks to an interactive SVG flame graph,
 * with flamegraph.pl's options, geometry, tooltips and colours.
 *
 *   perfkit flamegraph [options] [FILE…] > out.svg      (stdin without FILE)
 *   perfkit flamegraph -o out.svg [options] [FILE…]
 *   perfkit flamegraph -o out.svg [options] -- CMD ARGS…  (record, then draw)
 */
#include "cmd/cmds.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <getopt.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/outfile.h"
#include "base/path.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "capture/recorder.h"
#include "flame/flame.h"
#include "format/collapse.h"
#include "format/perfscript.h"

static const char usage_text[] =
	"usage: perfkit flamegraph [options] [FILE...] > graph.svg\n"
	"       perfkit flamegraph -o graph.svg [options] [FILE...]\n"
	"       perfkit flamegraph -o graph.svg [options] -- COMMAND [ARG...]\n"
	"\n"
	"Reads folded stacks (\"a;b;c COUNT\", or \"stack BEFORE AFTER\" for a\n"
	"differential graph) from the FILEs or stdin and writes an SVG flame graph.\n"
	"\n"
	"  -o, --output FILE  write to FILE (atomically) instead of stdout\n"
	"  --title TEXT       title text (default \"Flame Graph\")\n"
	"  --subtitle TEXT    second-level title\n"
	"  --width NUM        image width in pixels (default 1200)\n"
	"  --height NUM       frame height in pixels (default 16)\n"
	"  --minwidth NUM     omit frames narrower than NUM pixels, or NUM% of the total (0.1)\n"
	"  --fonttype FONT    font (default Verdana)\n"
	"  --fontsize NUM     font size (default 12)\n"
	"  --fontwidth NUM    average glyph width relative to the font size (0.59)\n"
	"  --countname TEXT   count label (default \"samples\"; for perf.data, the unit\n"
	"                     of the sample periods: \"ns\" for cpu-clock, else the event)\n"
	"  --nametype TEXT    name label (default \"Function:\")\n"
	"  --colors PALETTE   hot (default), mem, io, wakeup, chain, java, js, perl,\n"
	"                     red, green, blue, aqua, yellow, purple, orange\n"
	"  --bgcolors COLOR   yellow, blue, green, grey or #rrggbb\n"
	"  --hash             colours keyed by a hash of the name\n"
	"  --random           random colours\n"
	"  --cp               consistent palette: read and update ./palette.map\n"
	"  --reverse          reverse the stacks (merge from the leaves)\n"
	"  --inverted         icicle graph (root at the top)\n"
	"  --flamechart       keep input order, do not merge stacks by name\n"
	"  --negate           switch the differential hues (blue <-> red)\n"
	"  --factor NUM       scale the counts shown in tooltips\n"
	"  --total NUM        total to scale widths by (if above the sum of counts)\n"
	"  --nameattr FILE    per-name attributes (NAME<TAB>key=value...)\n"
	"  --notes TEXT       a notes comment in the SVG\n"
	"  --encoding NAME    encoding named in the XML declaration\n"
	"  --call-graph MODE  with -- CMD: record fp (default) or dwarf[,SIZE] call chains\n"
	"  -h, --help         this message\n";

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "perfkit flamegraph: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see 'perfkit flamegraph --help')\n");
	return 2;
}

/* An option value base/parse refused: its one line (option and range), exit 2. */
static int value_error(void)
{
	fprintf(stderr, "perfkit flamegraph: %s\n", pk_errmsg());
	return 2;
}

enum {
	OPT_TITLE = 256, OPT_SUBTITLE, OPT_WIDTH, OPT_HEIGHT, OPT_MINWIDTH, OPT_FONTTYPE,
	OPT_FONTSIZE, OPT_FONTWIDTH, OPT_COUNTNAME, OPT_NAMETYPE, OPT_COLORS, OPT_BGCOLORS,
	OPT_HASH, OPT_RANDOM, OPT_CP, OPT_REVERSE, OPT_INVERTED, OPT_FLAMECHART, OPT_NEGATE,
	OPT_FACTOR, OPT_TOTAL, OPT_NAMEATTR, OPT_NOTES, OPT_ENCODING, OPT_CALLGRAPH,
};

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "subtitle", required_argument, NULL, OPT_SUBTITLE },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "height", required_argument, NULL, OPT_HEIGHT },
	{ "minwidth", required_argument, NULL, OPT_MINWIDTH },
	{ "fonttype", required_argument, NULL, OPT_FONTTYPE },
	{ "fontsize", required_argument, NULL, OPT_FONTSIZE },
	{ "fontwidth", required_argument, NULL, OPT_FONTWIDTH },
	{ "countname", required_argument, NULL, OPT_COUNTNAME },
	{ "nametype", required_argument, NULL, OPT_NAMETYPE },
	{ "colors", required_argument, NULL, OPT_COLORS },
	{ "bgcolors", required_argument, NULL, OPT_BGCOLORS },
	{ "hash", no_argument, NULL, OPT_HASH },
	{ "random", no_argument, NULL, OPT_RANDOM },
	{ "cp", no_argument, NULL, OPT_CP },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "flamechart", no_argument, NULL, OPT_FLAMECHART },
	{ "negate", no_argument, NULL, OPT_NEGATE },
	{ "factor", required_argument, NULL, OPT_FACTOR },
	{ "total", required_argument, NULL, OPT_TOTAL },
	{ "nameattr", required_argument, NULL, OPT_NAMEATTR },
	{ "notes", required_argument, NULL, OPT_NOTES },
	{ "encoding", required_argument, NULL, OPT_ENCODING },
	{ "call-graph", required_argument, NULL, OPT_CALLGRAPH },
	{ NULL, 0, NULL, 0 },
};

static const char *const palettes[] = {
	"hot", "mem", "io", "wakeup", "chain", "java", "js", "perl", "red", "green",
	"blue", "aqua", "yellow", "purple", "orange", NULL,
};

static int valid_bg(const char *s)
{
	if (!strcmp(s, "yellow") || !strcmp(s, "blue") || !strcmp(s, "green") || !strcmp(s, "grey"))
		return 1;
	if (s[0] != '#' || strlen(s) != 7)
		return 0;
	for (int i = 1; i < 7; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]))
			return 0;
	return 1;
}

/* Does path (a regular file; "-": stdin when it is one) start with the
 * perf.data magic?  Read with pread, so nothing is consumed. */
static bool is_perf_data(const char *path)
{
	bool std = !strcmp(path, "-");
	int fd = std ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	char m[8];
	bool yes;

	if (fd < 0)
		return false;
	yes = pread(fd, m, sizeof(m), 0) == (ssize_t)sizeof(m) && !memcmp(m, "PERFILE2", 8);
	if (!std)
		close(fd);
	return yes;
}

/* A perf.data file: fold its stacks (stackcollapse-perf.pl's rules) and
 * feed the folded text to the graph.  The counts are the samples' periods:
 * *unit (unit_size bytes) gets what they count (collapse_count_unit: "ns"
 * for cpu-clock), the graph's count name unless --countname gives one. */
/* A perf.data that is the graph's only input is drawn from the model's
 * tree of named stacks (collapse_file_tree, flame_render_tree): no folded
 * stacks, no text printed and parsed again.  typed_ok: allowed (one input,
 * no option that rewrites the text); typed_names and typed: the names and
 * the tree, once read. */
static bool typed_ok;
static struct folded typed_names;
static struct prof_names typed;
static bool have_typed;

static void typed_node(const void *ctx, size_t i, uint32_t *parent, uint32_t *name)
{
	const struct prof_nnode *e = &((const struct prof_names *)ctx)->v[i];

	*parent = e->parent;
	*name = e->name;
}

static const char *typed_name(const void *ctx, uint32_t id, size_t *len)
{
	(void)ctx;
	return folded_frame_name(&typed_names, id, len);
}

/* the period as the folded line prints it (folded_format_count) */
static size_t typed_count(const void *ctx, size_t i, char *buf, size_t size)
{
	const struct prof_nnode *e = &((const struct prof_names *)ctx)->v[i];
	int n;

	if (!e->end)
		return 0;
	n = snprintf(buf, size, "%llu", (unsigned long long)e->period);
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

static int add_perf_data(struct flame_input *in, const char *path, int fd, const void *prefix, size_t prefix_len,
			 char *unit, size_t unit_size)
{
	struct folded f;
	struct folded_sorted sorted;
	struct collapse_opts co;
	struct collapse_info info;
	struct strbuf sb = STRBUF_INIT;
	char num[64];
	int ret;

	memset(&co, 0, sizeof(co));
	folded_init(&f);
	if (typed_ok && !have_typed) {   /* drawn from the model's tree */
		if (prefix)   /* a pipe (fd): the stream from its first bytes on */
			ret = collapse_stream_tree(fd, path, prefix, prefix_len, &co, &f, &typed, &info);
		else
			ret = collapse_file_tree(path, &co, &f, &typed, &info);
	} else if (prefix) {
		ret = collapse_stream_info(fd, path, prefix, prefix_len, &co, &f, &info);
	} else {
		ret = collapse_file_info(path, &co, &f, &info);
	}
	if (!ret) {
		char buf[128];
		snprintf(unit, unit_size, "%s", collapse_count_unit(info.event, buf, sizeof(buf)));
	}
	const char *w = pk_warnings_take();

	if (w && *w)
		fprintf(stderr, "perfkit flamegraph: %s\n", w);
	if (ret < 0) {
		folded_release(&f);
		prof_names_free(&typed);
		return ret;
	}
	if (typed.nr) {
		typed_names = f;   /* the tree's names */
		have_typed = true;
		return 0;
	}
	folded_sort(&f, &sorted);
	for (size_t i = 0; i < sorted.nr; i++) {
		size_t n = folded_format_count(&f, sorted.lines[i].index, num);

		sb_add(&sb, sorted.lines[i].stack, sorted.lines[i].len);
		sb_addch(&sb, ' ');
		sb_add(&sb, num, n);
		sb_addch(&sb, '\n');
	}
	folded_sorted_release(&sorted);
	folded_release(&f);
	size_t len;
	char *buf = sb_detach(&sb, &len);

	flame_input_add_owned(in, buf, len);
	return 0;
}

/* Whether name (no '/') is a program execvp(3) would find in $PATH. */
static bool on_path(const char *name)
{
	char *found = pk_path_search(name, true);
	bool yes = found != NULL;

	free(found);
	return yes;
}

static bool stdin_seekable(void)
{
	struct stat st;

	return fstat(0, &st) == 0 && S_ISREG(st.st_mode);
}

/* Read up to n bytes of name (fewer only at the end of the stream). */
static int read_upto(int fd, const char *name, unsigned char *buf, size_t n, size_t *got)
{
	*got = 0;
	while (*got < n) {
		ssize_t k = read(fd, buf + *got, n - *got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return pk_error(errno, "%s: read error: %s", name, strerror(errno));
		if (k == 0)
			break;
		*got += (size_t)k;
	}
	return 0;
}

/* Write data to path whole or not at all (base/outfile.h: a temporary file
 * renamed into place; /dev/stdout, FIFOs and symlinks written through). */
static int write_atomic(const char *path, const char *data, size_t len)
{
	struct outfile of;
	int ret = of_open_shared(&of, path);

	if (ret < 0)
		return ret;
	fwrite(data, 1, len, of.f);
	return of_commit(&of);
}

/*
 * "flamegraph -o OUT -- CMD ARGS": record CMD with call chains into a
 * private temporary perf.data (perfkit record's defaults: cpu-clock,
 * 999 Hz) through capture/recorder.h, which the caller draws and removes.
 * Returns the command's exit status (>= 0), or -1 (or -status) when
 * nothing was recorded (said why).
 */
static int record_command(int argc, char **argv, const char *callgraph, char *dir, size_t dirsize,
			  char *path, size_t pathsize)
{
	const char *tmpdir = getenv("TMPDIR");
	struct recorder_opts ro;
	struct recorder r;
	struct recorder_result res;
	struct recorder_signals sig;
	char **rargv;
	int st = -1, rc;

	memset(&ro, 0, sizeof(ro));
	ro.callgraph = 1;
	if (!strncmp(callgraph, "dwarf", 5) && (!callgraph[5] || callgraph[5] == ',')) {
		uint64_t sz = 8192;

		if (callgraph[5] && pk_parse_u64("--call-graph dwarf,SIZE", callgraph + 6, 1, 65528, &sz)) {
			fprintf(stderr, "perfkit flamegraph: %s\n", pk_errmsg());
			return -2;
		}
		ro.callgraph = 2;
		ro.stack_size = (uint32_t)((sz + 7) & ~7ULL);
	} else if (strcmp(callgraph, "fp")) {
		fprintf(stderr, "perfkit flamegraph: --call-graph '%s' is not supported (fp or dwarf[,SIZE])\n",
			callgraph);
		return -2;
	}
	snprintf(dir, dirsize, "%s/perfkit-flame.XXXXXX", tmpdir && *tmpdir && strlen(tmpdir) < 32 ? tmpdir : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "perfkit flamegraph: cannot create a temporary folder '%s': %s\n", dir, strerror(errno));
		dir[0] = '\0';
		return -1;
	}
	snprintf(path, pathsize, "%s/perf.data", dir);
	ro.output = path;
	ro.cmd = argv;
	/* the header's command line: what perfkit record would have been given */
	rargv = xcalloc((size_t)argc + 4, sizeof(*rargv));
	rargv[0] = (char *)"perfkit record";
	rargv[1] = (char *)(ro.callgraph == 2 ? "--call-graph=dwarf" : "-g");
	rargv[2] = (char *)"--";
	for (int i = 0; i < argc; i++)
		rargv[3 + i] = argv[i];
	ro.argc = argc + 3;
	ro.argv = rargv;

	/* as record: SIGINT/SIGTERM/SIGCHLD blocked except while waiting */
	recorder_signals_block(&sig, &ro);

	rc = recorder_prepare(&r, &ro);
	if (r.user_only)
		fprintf(stderr, "perfkit flamegraph: kernel.perf_event_paranoid=%d: sampling user space only; "
			"run as root or lower it to sample the kernel too\n", cap_paranoid());
	if (rc) {
		fprintf(stderr, "perfkit flamegraph: %s\n", pk_errmsg());
		st = -1;
		goto out;
	}
	rc = recorder_start(&r);
	if (rc < 0) {   /* the events would not start */
		fprintf(stderr, "perfkit flamegraph: %s\n", pk_errmsg());
		st = -1;
		goto out;
	}
	if (rc) {
		fprintf(stderr, "perfkit flamegraph: cannot run '%s': %s\n", argv[0], strerror(rc));
		st = -127;
		goto out;
	}
	rc = recorder_run(&r);
	rc = recorder_finish(&r, rc, &res);
	if (rc && !(res.disk_full && (!res.finish_err || res.finish_err == -ENOSPC ||
				      res.finish_err == -EDQUOT))) {
		fprintf(stderr, "perfkit flamegraph: %s\n", pk_errmsg());
		st = -1;
		goto out;
	}
	if (r.lost)
		fprintf(stderr, "perfkit flamegraph: warning: %" PRIu64 " samples lost (ring buffer full)\n", r.lost);
	fprintf(stderr, "[ perfkit record: %" PRIu64 " samples, %" PRIu64 " lost ]\n", r.samples, r.lost);
	st = r.have_status ? pk_exit_status(r.status) : 0;
out:
	recorder_release(&r);
	recorder_signals_restore(&sig);
	free(rargv);
	if (st < 0) {
		unlink(path);
		rmdir(dir);
		path[0] = dir[0] = '\0';
	}
	return st;
}

/* Name the first ignored lines (numbered across the inputs, from 1). */
static void report_ignored(const struct flame_input *in, const struct flame_stats *st)
{
	size_t shown = st->ignored < FLAME_IGNORED_SHOWN ? st->ignored : FLAME_IGNORED_SHOWN;

	fprintf(stderr, "perfkit flamegraph: ignored %zu lines with invalid format "
		"(expected \"frame;frame;... COUNT\"):", st->ignored);
	for (size_t k = 0; k < shown; k++) {
		const struct flame_line *l = &in->lines[st->ignored_at[k]];

		fprintf(stderr, "%s line %zu ", k ? "," : "", flame_input_lineno(in, st->ignored_at[k]));
		if (!l->len) {
			fputs("(empty)", stderr);
			continue;
		}
		fputc('\'', stderr);
		for (uint32_t i = 0; i < l->len && i < 60; i++) {
			unsigned char c = (unsigned char)l->s[i];

			if (c >= 0x20 && c < 0x7f)
				fputc(c, stderr);
			else
				fprintf(stderr, "\\x%02x", c);
		}
		fputs(l->len > 60 ? "...'" : "'", stderr);
	}
	fputs(st->ignored > shown ? ", ...\n" : "\n", stderr);
	/* perf script's text (a sample's header line, as collapse's parser
	 * reads one) is folded first, as with flamegraph.pl */
	for (size_t k = 0; k < shown; k++) {
		const struct flame_line *l = &in->lines[st->ignored_at[k]];
		const char *ev;
		size_t evl;

		if (psc_first_event(l->s, l->len, &ev, &evl)) {
			fprintf(stderr, "perfkit flamegraph: this looks like perf script output: fold it first "
				"(perfkit collapse FILE | perfkit flamegraph), or give the perf.data\n");
			break;
		}
	}
}

int cmd_flamegraph(int argc, char **argv)
{
	struct flame_opts o;
	const char *output = NULL, *nameattr_file = NULL;
	int cp = 0, hash = 0, rnd = 0, countname_set = 0, ret = 0, nargs = argc, cmd_at = -1, rec_status = 0;
	const char *callgraph = "fp";
	char rec_dir[64] = "", rec_path[96] = "", unit[128] = "";
	bool unopened = false;   /* a FILE of several skipped (cannot be opened) */

	xmalloc_reuse();   /* before the text parser's threads */
	flame_opts_init(&o);
	/* "-- CMD ARGS": record the command and draw it */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			cmd_at = i + 1;
			nargs = i;
			break;
		}
	}
	optind = 1;
	opterr = 0;
	for (;;) {
		int c = getopt_long_only(nargs, argv, "o:h", longopts, NULL);

		if (c == -1)
			break;
		switch (c) {
		case 'o': output = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		case OPT_TITLE: o.title = optarg; break;
		case OPT_SUBTITLE: o.subtitle = optarg; break;
		case OPT_WIDTH:
			if (pk_parse_int("--width", optarg, 21, 10000000, &o.width))
				return value_error();
			break;
		case OPT_HEIGHT:
			if (pk_parse_int("--height", optarg, 1, 100000, &o.frameheight))
				return value_error();
			break;
		case OPT_MINWIDTH: {
			size_t l = strlen(optarg);
			char buf[64];

			if (l == 0 || l >= sizeof(buf) || strspn(optarg, "0123456789.%") != l ||
			    strchr(optarg, '%') != (optarg[l - 1] == '%' ? optarg + l - 1 : NULL))
				return usage_error("--minwidth: expected pixels or a percentage (0.5%%), got '%s'", optarg);
			memcpy(buf, optarg, l + 1);
			o.minwidth_pct = buf[l - 1] == '%';
			if (o.minwidth_pct)
				buf[l - 1] = '\0';
			if (o.minwidth_pct ? pk_parse_double("--minwidth (percent)", buf, 0, 100, &o.minwidth)
					   : pk_parse_double("--minwidth (pixels)", buf, 0, 1e7, &o.minwidth))
				return value_error();
			break;
		}
		case OPT_FONTTYPE: o.fonttype = optarg; break;
		case OPT_FONTSIZE:
			if (pk_parse_double("--fontsize", optarg, 0.01, 1e4, &o.fontsize))
				return value_error();
			break;
		case OPT_FONTWIDTH:
			if (pk_parse_double("--fontwidth", optarg, 0.01, 100, &o.fontwidth))
				return value_error();
			break;
		case OPT_COUNTNAME: o.countname = optarg; countname_set = 1; break;
		case OPT_NAMETYPE: o.nametype = optarg; break;
		case OPT_COLORS: {
			int ok = 0;

			for (int i = 0; palettes[i]; i++)
				ok |= !strcmp(palettes[i], optarg);
			if (!ok)
				return usage_error("--colors: unknown palette '%s' (hot mem io wakeup chain java js perl red green blue aqua yellow purple orange)", optarg);
			o.colors = optarg;
			break;
		}
		case OPT_BGCOLORS:
			if (!valid_bg(optarg))
				return usage_error("--bgcolors: expected yellow, blue, green, grey or #rrggbb, got '%s'", optarg);
			o.bgcolors = optarg;
			break;
		case OPT_HASH: hash = 1; break;
		case OPT_RANDOM: rnd = 1; break;
		case OPT_CP: cp = 1; break;
		case OPT_REVERSE: o.reverse = 1; break;
		case OPT_INVERTED: o.inverted = 1; break;
		case OPT_FLAMECHART: o.flamechart = 1; break;
		case OPT_NEGATE: o.negate = 1; break;
		case OPT_FACTOR:
			if (pk_parse_double("--factor", optarg, 1e-9, 1e9, &o.factor))
				return value_error();
			break;
		case OPT_TOTAL:
			if (pk_parse_double("--total", optarg, 0, 1e300, &o.total))
				return value_error();
			break;
		case OPT_NAMEATTR: nameattr_file = optarg; break;
		case OPT_NOTES:
			if (strpbrk(optarg, "<>"))
				return usage_error("--notes: the text cannot contain < or >%s", "");
			o.notes = optarg;
			break;
		case OPT_ENCODING:
			if (!flame_encoding_valid(optarg))
				return usage_error("--encoding: '%s' is not an encoding name this system knows "
						   "(for example UTF-8 or ISO-8859-1)", optarg);
			o.encoding = optarg;
			break;
		case OPT_CALLGRAPH: callgraph = optarg; break;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	/* "-- FILE...": the end of the options, as flamegraph.pl reads it,
	 * when what follows is data (standard input, a file that is not
	 * executable, or, without the -o that recording needs, a name that
	 * is neither a file nor a program on PATH: a mistyped file is said
	 * to be missing), not a command to record */
	if (cmd_at >= 0 && cmd_at < argc) {
		struct stat cst;
		const char *a = argv[cmd_at];
		bool exists = stat(a, &cst) == 0;

		if (!strcmp(a, "-") || (exists && S_ISREG(cst.st_mode) && access(a, X_OK) != 0) ||
		    (!exists && !output && (strchr(a, '/') || !on_path(a)))) {
			for (int k = nargs; k + 1 < argc; k++)   /* drop the "--" */
				argv[k] = argv[k + 1];
			nargs = argc - 1;
			cmd_at = -1;
		}
	}
	/* as in flamegraph.pl, --hash wins over --random */
	o.colormode = hash ? FLAME_COLOR_HASH : rnd ? FLAME_COLOR_RANDOM : FLAME_COLOR_SEEDED;
	if (pk_options_only && cmd_at < 0)   /* the option fuzz harness: stop before reading */
		return 0;
	if (cmd_at >= 0) {
		if (cmd_at >= argc)
			return usage_error("expected a command after '%s'", "--");
		if (optind < nargs)
			return usage_error("cannot draw both FILEs and a command ('%s')", argv[optind]);
		if (!output)
			return usage_error("-o FILE is needed with '-- CMD' (the command's own output goes to stdout)%s", "");
		if (pk_options_only)
			return 0;
		/* fail on an unwritable output before the command runs */
		struct outfile probe;

		if (of_open(&probe, output) < 0) {
			fprintf(stderr, "perfkit flamegraph: %s\n", pk_errmsg());
			return 1;
		}
		of_abort(&probe);
		rec_status = record_command(argc - cmd_at, argv + cmd_at, callgraph, rec_dir, sizeof(rec_dir), rec_path,
					    sizeof(rec_path));
		if (rec_status < 0)
			return -rec_status;
	}

	/* one input and no option that rewrites the text: a perf.data is
	 * drawn from its stacks directly */
	typed_ok = !o.reverse && !o.flamechart && !(o.colors && !strcmp(o.colors, "chain")) &&
		   (rec_path[0] || nargs - optind <= 1);

	struct flame_input in;
	struct flame_nameattr na;
	struct flame_palette pal;
	struct strbuf out = STRBUF_INIT;
	struct flame_stats st;

	flame_input_init(&in);
	if (!o.flamechart)
		flame_input_merge(&in);   /* memory by distinct stacks, not lines */
	if (nameattr_file) {
		if (flame_nameattr_load(&na, nameattr_file) < 0) {
			flame_nameattr_release(&na);
			fprintf(stderr, "perfkit flamegraph: %s\n", pk_errmsg());
			return 1;
		}
		o.nameattr = &na;
	}
	if (cp) {
		flame_palette_init(&pal);
		if (flame_palette_load(&pal, "palette.map") < 0) {
			fprintf(stderr, "perfkit flamegraph: %s\n", pk_errmsg());
			ret = 1;
			goto out;
		}
		o.palette = &pal;
	}
	if (rec_path[0]) {
		if (add_perf_data(&in, rec_path, -1, NULL, 0, unit, sizeof(unit)) < 0) {
			fprintf(stderr, "perfkit flamegraph: %s\n", pk_errmsg());
			ret = 1;
			goto out;
		}
	}
	for (int i = optind; !rec_path[0] && (i < nargs || i == optind); i++) {
		const char *path = i < nargs ? argv[i] : "-";
		size_t first = in.nr;

		bool std = !strcmp(path, "-");
		struct stat pst;

		if (!std && nargs - optind > 1) {
			/* as flamegraph.pl's <>: a file that cannot be opened,
			 * or a directory, is named and skipped, the others are
			 * drawn; the exit status says so */
			int tfd = open(path, O_RDONLY | O_CLOEXEC);
			int terr = tfd < 0 ? errno : fstat(tfd, &pst) == 0 && S_ISDIR(pst.st_mode) ? EISDIR : 0;

			if (tfd >= 0)
				close(tfd);
			if (terr) {
				fprintf(stderr, "perfkit flamegraph: cannot open '%s': %s; skipped\n", path,
					strerror(terr));
				unopened = true;
				continue;
			}
		}
		if (std ? !stdin_seekable() : stat(path, &pst) == 0 && !S_ISREG(pst.st_mode)) {
			/* a pipe or a FIFO (opened once: its writer may have
			 * gone): its first bytes say perf.data or folded text */
			unsigned char pre[8];
			size_t got = 0;
			const char *nm = std ? "<stdin>" : path;
			int fd = std ? 0 : open(path, O_RDONLY | O_CLOEXEC);
			int rd = fd < 0 ? pk_error(errno, "cannot open '%s': %s", path, strerror(errno))
					: read_upto(fd, nm, pre, sizeof(pre), &got);

			if (!rd && got == 8 && !memcmp(pre, "PERFILE2", 8))
				rd = add_perf_data(&in, nm, fd, pre, got, unit, sizeof(unit));
			else if (!rd)
				rd = flame_input_add_stream(&in, fd, nm, pre, got);
			if (fd > 0)
				close(fd);
			if (rd < 0) {
				fprintf(stderr, "perfkit flamegraph: %s\n", pk_errmsg());
				ret = 1;
				goto out;
			}
			if (i >= nargs)
				break;
			continue;
		}
		if (is_perf_data(path)) {
			/* read as perf.data straight away: not split into lines
			 * first (that held the whole file in memory) */
			if (add_perf_data(&in, path, -1, NULL, 0, unit, sizeof(unit)) < 0) {
				fprintf(stderr, "perfkit flamegraph: %s\n", pk_errmsg());
				ret = 1;
				goto out;
			}
			continue;
		}
		if (flame_input_add_file(&in, path) < 0) {
			fprintf(stderr, "perfkit flamegraph: %s\n", pk_errmsg());
			ret = 1;
			goto out;
		}
		if (in.perfdata || (!in.merge && in.nr > first && in.lines[first].len >= 8 &&
				    !memcmp(in.lines[first].s, "PERFILE2", 8))) {
			in.nr = first; /* not folded text: read it as perf.data */
			if (add_perf_data(&in, path, -1, NULL, 0, unit, sizeof(unit)) < 0) {
				fprintf(stderr, "perfkit flamegraph: %s\n", pk_errmsg());
				ret = 1;
				goto out;
			}
		}
		if (i >= nargs)
			break;
	}
	/* periods from perf.data are not samples: name their unit */
	if (unit[0] && !countname_set)
		o.countname = unit;
	memset(&st, 0, sizeof(st));
	if (have_typed) {
		struct flame_tree ft = { typed.nr, &typed, typed_node, typed_name, typed_count };

		ret = flame_render_tree(&ft, &o, &out, &st);
		prof_names_free(&typed);
		folded_release(&typed_names);
		have_typed = false;
	} else {
		flame_input_finish(&in);
		ret = flame_render(&in, &o, &out, &st);
	}
	if (st.ignored)
		report_ignored(&in, &st);
	if (ret == -ENODATA) {
		/* unusable input files are reported as a usage error (2); a
		 * recorded command that gave no samples is a runtime one (1);
		 * perf.data read whole but without a sample is not "empty" */
		if (unit[0])
			fprintf(stderr, "perfkit flamegraph: no samples in the perf.data input: nothing to draw\n");
		else
			fprintf(stderr, "perfkit flamegraph: %s\n", pk_errmsg());
		ret = rec_path[0] ? 1 : 2;
	} else if (ret < 0) {
		fprintf(stderr, "perfkit flamegraph: %s\n", pk_errmsg());
		ret = 1;
		goto out;
	} else {
		ret = 0;
		/* as flamegraph.pl: only when the counts are samples (another
		 * --countname: not samples, few may be right) */
		if (st.total < 100 && !unit[0] && (!o.countname || !strcmp(o.countname, "samples")))
			fprintf(stderr, "perfkit flamegraph: warning: only %g samples in all (fewer "
				"than 100): the graph may not be representative\n", st.total);
		if (o.total > 0 && o.total < st.total && o.total / st.total > 0.02)
			fprintf(stderr, "perfkit flamegraph: --total %g is less than the actual total %g, so ignored\n",
				o.total, st.total);
	}
	if (output && ret == 2) {
		/* nothing to draw: FILE is left as it was (on standard output
		 * the error graph is written, as flamegraph.pl writes it) */
		fprintf(stderr, "perfkit flamegraph: %s not written\n", output);
	} else if (output) {
		if (write_atomic(output, out.buf, out.len) < 0) {
			fprintf(stderr, "perfkit flamegraph: %s\n", pk_errmsg());
			ret = 1;
		} else if (rec_path[0]) {
			fprintf(stderr, "perfkit flamegraph: flame graph written to %s\n", output);
		}
	} else if (fwrite(out.buf, 1, out.len, stdout) != out.len || fflush(stdout)) {
		fprintf(stderr, "perfkit flamegraph: cannot write the output: %s\n", strerror(errno));
		ret = 1;
	}
	if (cp && ret == 0 && flame_palette_save(&pal, "palette.map") < 0) {
		fprintf(stderr, "perfkit flamegraph: %s\n", pk_errmsg());
		ret = 1;
	}
	if (unopened && ret == 0)
		ret = 1;   /* drawn from the others; one was missing */
out:
	if (rec_path[0]) {
		unlink(rec_path);
		rmdir(rec_dir);
		/* like record: the command's failure is the exit status */
		if (rec_status > 0)
			ret = rec_status;
	}
	sb_release(&out);
	flame_input_release(&in);
	if (nameattr_file)
		flame_nameattr_release(&na);
	if (cp)
		flame_palette_release(&pal);
	return ret;
}
