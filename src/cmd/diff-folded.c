/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit diff-folded — two folded profiles to one differential profile
 * (FlameGraph's difffolded.pl): every stack of either file as
 * "STACK COUNT_BEFORE COUNT_AFTER", ready for `perfkit flamegraph`.
 *
 *   -n  normalize: scale BEFORE counts so both totals match
 *       (before = int(before * total_after / total_before))
 *   -s  strip hex numbers (0x1234 → 0x...) so addresses do not split stacks
 *
 * Lines without a trailing count are kept as difffolded.pl keeps them: as
 * the empty stack with count 0.  Output order is first appearance.
 *
 * Several profiles per side (OLD1 OLD2 … -- NEW1 NEW2 …; one run each):
 * per function, its inclusive cost in every profile, Welch's test across
 * the profiles of a change larger than --min-effect and Holm's correction
 * over the functions (flame/fdiff.h):
 * a table of the functions on stdout, significant ones marked '*' with
 * their change, 95 % interval, p and q, gone/new ones with their share;
 * -o FILE.svg the differential flame graph where only significant
 * functions are coloured; --json FILE the table as JSON.
 */
#include "cmd/cmds.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/hashmap.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "base/outfile.h"
#include "flame/fdiff.h"
#include "flame/flame.h"

#include <getopt.h>

static const char usage_text[] =
	"usage: perfkit diff-folded [-n] [-s] BEFORE AFTER > diff.folded\n"
	"       perfkit diff-folded [-s] [--share] [-o DIFF.svg] [--json FILE] [--min-effect PTS]\n"
	"                           OLD1 OLD2 … -- NEW1 NEW2 …\n"
	"\n"
	"  -n  normalize the BEFORE counts to the AFTER total\n"
	"  -s  strip hex numbers (addresses) from frame names\n"
	"  -h  this message\n"
	"\n"
	"Draw the result with: perfkit flamegraph diff.folded > diff.svg\n"
	"(red: grew, blue: shrank; swap the files and add --negate to see what vanished)\n"
	"\n"
	"With several profiles per side (one run each), which functions changed beyond\n"
	"the run-to-run noise: Welch's t-test per function on its inclusive cost across\n"
	"the profiles of a change larger than --min-effect, Holm's correction over the\n"
	"functions (at most 5 % chance that any function that did not change is marked).\n"
	"  --share           compare shares of each profile's total (default: cost as % of\n"
	"                    OLD's mean total, so a slower function does not shrink the rest)\n"
	"  --min-effect PTS  smallest change that counts, in points (0.5): the test asks\n"
	"                    whether a function changed by more than this\n"
	"  -o FILE.svg       differential flame graph: significant functions red (grew) or\n"
	"                    blue (shrank), the rest grey; tooltips before/after/change/p\n"
	"  --json FILE       the table as JSON\n";

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static void strip_hex(struct strbuf *sb, const char *s, size_t len)
{
	size_t i = 0;

	sb_reset(sb);
	while (i < len) {
		if (s[i] == '0' && i + 2 < len && s[i + 1] == 'x' && is_hex(s[i + 2])) {
			size_t j = i + 2;

			while (j < len && is_hex(s[j]))
				j++;
			sb_add(sb, "0x...", 5);
			i = j;
			continue;
		}
		sb_addch(sb, s[i]);
		i++;
	}
}

/* Per stack and file: the sum of its integer counts exactly (Perl sums
 * integers as integers, up to 2^64) and of its other counts as doubles. */
struct counts {
	double *c[2];
	uint64_t *u[2];
	bool *nonint[2];
	size_t alloc;
};

/* The count at s[0..n) as an exact integer, if it is one (digits only,
 * below 2^64). */
static bool parse_u64(const char *s, size_t n, uint64_t *v)
{
	*v = 0;
	if (!n || n > 20)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		uint64_t d = (uint64_t)(s[i] - '0');
		if (*v > (UINT64_MAX - d) / 10)
			return false;
		*v = *v * 10 + d;
	}
	return true;
}

static int load(const char *path, int which, int striphex, struct hashmap *m,
		struct counts *cs, double *total)
{
	struct flame_input in;
	struct strbuf tmp = STRBUF_INIT;
	size_t bad = 0, first_bad = 0;

	flame_input_init(&in);
	if (flame_input_add_file(&in, path) < 0) {
		flame_input_release(&in);
		return -1;
	}
	for (size_t i = 0; i < in.nr; i++) {
		const char *s = in.lines[i].s;
		size_t sl;
		double count;
		uint64_t icount = 0;
		bool is_int = true;

		if (!flame_parse_count(s, in.lines[i].len, &sl, &count)) {
			sl = 0; /* difffolded.pl: the undefined stack, count 0 */
			count = 0;
			if (!bad++)
				first_bad = i;
		} else {
			is_int = parse_u64(s + sl + 1, in.lines[i].len - sl - 1, &icount);
		}
		if (striphex && memchr(s, 'x', sl)) {
			strip_hex(&tmp, s, sl);
			s = tmp.buf;
			sl = tmp.len;
		}
		int created;
		struct hm_entry *e = hm_upsert(m, s, sl, &created);

		if (created) {
			e->val.u = m->nr - 1;
			if (m->nr > cs->alloc) {
				cs->alloc = cs->alloc ? cs->alloc * 2 : 1024;
				for (int w = 0; w < 2; w++) {
					cs->c[w] = xrealloc(cs->c[w], cs->alloc * sizeof(double));
					cs->u[w] = xrealloc(cs->u[w], cs->alloc * sizeof(uint64_t));
					cs->nonint[w] = xrealloc(cs->nonint[w], cs->alloc * sizeof(bool));
				}
			}
			for (int w = 0; w < 2; w++) {
				cs->c[w][e->val.u] = 0;
				cs->u[w][e->val.u] = 0;
				cs->nonint[w][e->val.u] = false;
			}
		}
		if (is_int && cs->u[which][e->val.u] <= UINT64_MAX - icount) {
			cs->u[which][e->val.u] += icount;
		} else {
			cs->c[which][e->val.u] += count;
			cs->nonint[which][e->val.u] = true;
		}
		*total += count;
	}
	if (bad) {
		/* the output keeps difffolded.pl's " 0 0" line; say why */
		char shown[64];
		size_t k = 0;

		for (size_t j = 0; j < in.lines[first_bad].len && k + 1 < sizeof(shown); j++) {
			unsigned char ch = (unsigned char)in.lines[first_bad].s[j];
			shown[k++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
		}
		shown[k] = '\0';
		fprintf(stderr, "perfkit diff-folded: warning: %s: %zu line%s not 'STACK COUNT' (first: '%s'), "
			"counted as an empty stack with 0, as difffolded.pl does\n", path, bad,
			bad == 1 ? " is" : "s are", shown);
	}
	sb_release(&tmp);
	flame_input_release(&in);
	return 0;
}

static int write_out(const char *path, const struct strbuf *sb)
{
	struct outfile of;
	int err = of_open_shared(&of, path);

	if (err)
		return err;
	if (sb->len && fwrite(sb->buf, 1, sb->len, of.f) != sb->len) {
		int e = errno ? errno : EIO;

		of_abort(&of);
		return pk_error(e, "cannot write '%s': %s", path, strerror(e));
	}
	return of_commit(&of);
}

/* OLD… -- NEW…: the noise-aware comparison (flame/fdiff.h). */
static int multi(int argc, char **argv, int sep, const struct fdiff_opts *fo, const char *svg,
		 const char *json)
{
	struct fdiff d;
	struct strbuf out = STRBUF_INIT;
	int ret = 0;

	if (sep == 0 || sep == argc - 1) {
		fprintf(stderr, "perfkit diff-folded: expected OLD profiles before '--' and NEW ones after it\n%s",
			usage_text);
		return 2;
	}
	fdiff_init(&d, fo);
	for (int i = 0; i < argc; i++) {
		if (i == sep)
			continue;
		if (argv[i][0] == '-' && argv[i][1] && access(argv[i], F_OK)) {
			/* getopt stops at '--': "A -- B -o x.svg" names a file '-o' */
			fprintf(stderr, "perfkit diff-folded: option '%s' after the profiles: give options "
				"before OLD1 OLD2 … -- NEW1 NEW2 …\n", argv[i]);
			ret = 2;
			goto out;
		}
		if (fdiff_add_file(&d, i > sep, argv[i]) < 0) {
			fprintf(stderr, "perfkit diff-folded: %s\n", pk_errmsg());
			ret = 1;
			goto out;
		}
		/* an empty run would count as "everything gone" (NEW) or make
		 * every value 0 % of nothing (OLD): refuse it */
		if (!(d.prof[d.nprof - 1].total > 0)) {
			fprintf(stderr, "perfkit diff-folded: %s: no samples (expected 'STACK COUNT' lines "
				"with counts above 0; one profile per run)\n", argv[i]);
			ret = 1;
			goto out;
		}
	}
	fdiff_compute(&d);
	fdiff_text(&d, isatty(1), SIZE_MAX, &out);
	if (fwrite(out.buf, 1, out.len, stdout) != out.len || fflush(stdout)) {
		fprintf(stderr, "perfkit diff-folded: cannot write the output: %s\n", strerror(errno));
		ret = 1;
		goto out;
	}
	if (svg) {
		sb_reset(&out);
		int err = fdiff_svg(&d, NULL, &out);
		if ((err && err != -ENODATA) || write_out(svg, &out)) {
			fprintf(stderr, "perfkit diff-folded: %s\n", pk_errmsg());
			ret = 1;
			goto out;
		}
	}
	if (json) {
		sb_reset(&out);
		fdiff_json(&d, &out);
		sb_addch(&out, '\n');
		if (write_out(json, &out)) {
			fprintf(stderr, "perfkit diff-folded: %s\n", pk_errmsg());
			ret = 1;
		}
	}
out:
	sb_release(&out);
	fdiff_release(&d);
	return ret;
}

enum { OPT_SHARE = 256, OPT_JSON, OPT_EFFECT };

int cmd_diff_folded(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "share", no_argument, NULL, OPT_SHARE },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "min-effect", required_argument, NULL, OPT_EFFECT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int normalize = 0, striphex = 0, c;
	struct fdiff_opts fo = FDIFF_OPTS_INIT;
	const char *svg = NULL, *json = NULL;
	bool multi_opt = false;
	/* OLD… -- NEW…: the first "--" parts the sides; options may come
	 * anywhere on either side (GNU style: before, between or after the
	 * files), so each side is read on its own and its files kept in order */
	int sep = argc;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			sep = i;
			break;
		}
	char **files = xcalloc((size_t)argc + 1, sizeof(*files));
	int nfiles = 0, nold = 0;

	opterr = 0;
	/* "[OPTIONS] -- BEFORE AFTER" (no profile before the "--"): the end of
	 * the options, as difffolded.pl's getopts reads it; two files after */
	bool dd_end = false;
	if (sep < argc) {
		dd_end = true;
		for (int i = 1; i < sep && dd_end; i++) {
			bool takes = !strcmp(argv[i], "-o") || !strcmp(argv[i], "--json") ||
				     !strcmp(argv[i], "--min-effect");
			if (argv[i][0] != '-' || !argv[i][1])
				dd_end = false;   /* a file (or '-'): OLD … -- NEW … */
			else if (takes)
				i++;              /* its value */
		}
	}
	for (int side = 0; side < (sep < argc && !dd_end ? 2 : 1); side++) {
		int sargc = side ? argc - sep : sep;
		char **sargv = side ? argv + sep : argv;

		optind = 0;    /* glibc: start afresh on this argument vector */
		while ((c = getopt_long(sargc, sargv, "nsho:", lopts, NULL)) != -1) {
			switch (c) {
			case 'n': normalize = 1; break;
			case 's': striphex = 1; break;
			case 'h': fputs(usage_text, stdout); free(files); return 0;
			case 'o': svg = optarg; multi_opt = true; break;
			case OPT_SHARE: fo.share = true; multi_opt = true; break;
			case OPT_JSON: json = optarg; multi_opt = true; break;
			case OPT_EFFECT:
				if (pk_parse_double("--min-effect", optarg, 0, HUGE_VAL, &fo.min_effect)) {
					fprintf(stderr, "perfkit diff-folded: %s\n", pk_errmsg());
					free(files);
					return 2;
				}
				multi_opt = true;
				break;
			default:
				if (optopt)
					fprintf(stderr, "perfkit diff-folded: unknown option '-%c'\n%s", optopt, usage_text);
				else
					fprintf(stderr, "perfkit diff-folded: unknown option '%s'\n%s", sargv[optind - 1],
						usage_text);
				free(files);
				return 2;
			}
		}
		/* getopt moved this side's files, in order, to its end */
		for (int i = optind; i < sargc; i++)
			files[nfiles++] = sargv[i];
		if (!side)
			nold = nfiles;
	}
	if (dd_end) {   /* every argument after the "--" is a file */
		for (int i = sep + 1; i < argc; i++)
			files[nfiles++] = argv[i];
		sep = argc;
	}
	if (sep < argc) {
		if (normalize) {
			fprintf(stderr, "perfkit diff-folded: -n is for two files; with several profiles per side use --share\n");
			free(files);
			return 2;
		}
		fo.strip_hex = striphex;
		/* multi() takes OLD… -- NEW… with the "--" at index sep */
		memmove(files + nold + 1, files + nold, (size_t)(nfiles - nold) * sizeof(*files));
		files[nold] = argv[sep];
		int r = multi(nfiles + 1, files, nold, &fo, svg, json);
		free(files);
		return r;
	}
	if (multi_opt) {
		fprintf(stderr, "perfkit diff-folded: -o, --json, --share and --min-effect need OLD1 … -- NEW1 …\n");
		free(files);
		return 2;
	}
	argv = files;
	argc = nfiles;
	optind = 0;
	if (argc - optind != 2) {
		fprintf(stderr, "perfkit diff-folded: expected two folded files, BEFORE and AFTER\n%s",
			usage_text);
		free(files);
		return 2;
	}
	struct hashmap m;
	struct counts cs = { { NULL, NULL }, { NULL, NULL }, { NULL, NULL }, 0 };
	double total[2] = { 0, 0 };
	int ret = 0;

	hm_init(&m);
	for (int w = 0; w < 2; w++) {
		if (load(argv[optind + w], w, striphex, &m, &cs, &total[w]) < 0) {
			fprintf(stderr, "perfkit diff-folded: %s\n", pk_errmsg());
			ret = 1;
			goto out;
		}
	}
	struct strbuf out = STRBUF_INIT;

	sb_grow(&out, 1 << 16);
	for (size_t i = 0; i < m.nr; i++) {
		const struct hm_entry *e = &m.entries[i];
		bool scale = normalize && total[0] != total[1] && total[0] != 0;

		sb_add(&out, e->key, e->keylen);
		for (int w = 0; w < 2; w++) {
			double v = cs.c[w][i] + (double)cs.u[w][i];

			sb_addch(&out, ' ');
			if (w == 0 && scale)
				flame_add_num(&out, trunc(v * total[1] / total[0]));
			else if (!cs.nonint[w][i])
				sb_addf(&out, "%" PRIu64, cs.u[w][i]);
			else
				flame_add_num(&out, v);
		}
		sb_addch(&out, '\n');
		if (out.len > (1 << 16)) {
			if (fwrite(out.buf, 1, out.len, stdout) != out.len)
				break;
			sb_reset(&out);
		}
	}
	if (fwrite(out.buf, 1, out.len, stdout) != out.len || fflush(stdout)) {
		fprintf(stderr, "perfkit diff-folded: cannot write the output: %s\n", strerror(errno));
		ret = 1;
	}
	sb_release(&out);
out:
	for (int w = 0; w < 2; w++) {
		free(cs.c[w]);
		free(cs.u[w]);
		free(cs.nonint[w]);
	}
	hm_release(&m);
	free(files);
	return ret;
}
