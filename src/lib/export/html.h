/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * html.h — `perfkit report --html`: a profile (or two, --diff) as ONE
 * self-contained HTML page to open in any browser, offline: every script
 * and style inline, no network load of any kind.
 *
 * Inputs: each input is a perf.data file (or "-": stdin, a perf.data
 * stream or folded text, told apart by its first 8 bytes;
 * read through the session with the caller's session_opts, so frames and
 * totals are those `perfkit report` sees) or a folded text file (FlameGraph
 * "a;b;c COUNT", split as flame/flame.h splits it: at the last whitespace,
 * a count `\d+(\.\d*)?`, rounded; lines without one are ignored and
 * counted).  A file whose first 8 bytes are perf's magic "PERFILE2" is
 * perf.data, anything else folded text.  Both feed the export model
 * (export.h: stacks merged per event; a frame is (name, DSO), an unknown
 * symbol "[unknown]"; a folded frame has no DSO).  Nothing else is
 * aggregated beside it.
 *
 * What the page holds (one JSON document in a <script type=
 * "application/json" id="pk-data"> block, drawn by the page's own script,
 * src/lib/export/html/page.js and page.css, embedded at build time):
 *  - frames: every function (name, DSO), shared by all profiles;
 *  - per profile (one per event of the input with samples, in the file's
 *    event order as report prints its tables; with --diff, the first such
 *    event of OLD then of NEW): its totals (period and samples), the
 *    merged call tree (root "all" first, pre-order, each node its frame,
 *    depth, period and samples), and nodes narrower than minwidth_pct % of
 *    the total period pruned as flamegraph.pl's --minwidth does (the page
 *    says how many and how small); with --diff a node is kept when either
 *    profile's share needs it;
 *  - per profile, exact over EVERY sample (not pruned): each function's
 *    Self (period of the stacks whose leaf it is, and their samples) and
 *    Children (period of the stacks it is in, once per stack however often
 *    it recurses) — `perfkit report --sort dso,sym`'s numbers, the
 *    percentages of the event's total period — and each caller → callee
 *    pair's period (the stacks where the caller calls the callee directly,
 *    once per stack);
 *  - annotations (perf.data input, the profile the page opens on): for the
 *    hottest functions by Self (at most annotate_max, each at least 0.5 %
 *    of the total, user code whose ELF file is at hand: the DSO or its copy
 *    by build-id), their instructions (annotate/annotate.h, disasm/
 *    disasm.h) with the period sampled at each, and their source lines with
 *    text when the source file is readable.
 *
 * Names: perf.data is read with raw symbol names (one reading feeds both
 * the model and annotate's builder, which looks names up in the ELF file);
 * the page shows them demangled as the session's symbol cache would
 * (sym_demangle, perf's default flags) unless so.no_demangle.
 *
 * The page (page.js): a flame graph or icicle in #pk-graph (frames
 * .pk-fr, data-node = tree index; click zooms, Escape or #pk-reset goes
 * back; #pk-search takes a RegExp, "/" and Ctrl-F focus it, #pk-matched
 * gives the share), the functions' table #pk-table (th[data-col] sort,
 * #pk-filter), the selected function's #pk-callers, #pk-callees (shares of
 * its Children period) and #pk-annot (#pk-src, #pk-asm), with --diff
 * #pk-before/#pk-after and #pk-changes-table, with several events
 * #pk-profile.  When the first view is drawn, body[data-ready="1"] and
 * window.pkFirstViewMs (ms since navigation start) are set; tests and
 * bench/html.sh rely on these names.
 *
 * Escaping: every string in the JSON is escaped by html_add_json_str():
 * JSON's escapes (sb_add_json: quotes, backslashes, control bytes; invalid
 * UTF-8 becomes U+FFFD) and then '<', '>', '&', U+2028 and U+2029 as
 * \uXXXX, so no name can close the script block ("</script>"), open a
 * comment ("<!--") or break a JavaScript string.  The page sets names
 * through textContent and attributes only, never as markup.
 *
 * Errors: html_report() returns 0 or -errno with one pk_error() message
 * naming the input or output (-ENODATA: an input with no sample or no
 * valid folded line); the output is written whole or not at all
 * (base/outfile.h).  Nothing printed; warnings go to pk_warn().
 */
#ifndef PERFKIT_EXPORT_HTML_H
#define PERFKIT_EXPORT_HTML_H

#include "base/strbuf.h"
#include "session/session.h"

#include <stdbool.h>
#include <stddef.h>

struct html_opts {
	const char *input;        /* perf.data or folded; with --diff: NEW */
	const char *base;         /* --diff: OLD, else NULL */
	const char *output;       /* the .html file */
	const char *title;        /* NULL: "perfkit report" */
	double minwidth_pct;      /* prune tree nodes below this % of the total
				     (0.01 = flamegraph.pl's 0.1 px of 1200) */
	int annotate_max;         /* functions annotated at most (0: none) */
	struct session_opts so;   /* how perf.data inputs are read */
	/* report's --sort, --percent-limit, --no-children for the functions'
	 * table (the page's D.sort, D.limit, D.children): sort keys, NULL or
	 * a comma list of "dso" and "sym" (the table's columns: the order of
	 * rows whose percentages are equal); rows whose Children (Self with
	 * no_children) is below percent_limit % of the total are left out
	 * of the table (not of the graph or the callers/callees); no_children
	 * sorts the table by Self first. */
	const char *sort;
	double percent_limit;
	bool no_children;
};

void html_opts_init(struct html_opts *o);

int html_report(const struct html_opts *o);

/* Append s as a JSON string body (no quotes) that is safe inside an HTML
 * <script> block (see Escaping above). */
void html_add_json_str(struct strbuf *sb, const char *s, size_t len);

#endif
