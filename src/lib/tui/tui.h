/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tui.h — the terminal browser of `perfkit report` and `perfkit top`: a
 * full-screen ncurses view over a table of rows (perf's hist entries), each
 * with an expandable call graph, as perf report's TUI (tools/perf/ui/browsers/
 * hists.c) shows them.
 *
 * The model: a command fills a struct tui_table (rows already aggregated and
 * filtered by --percent-limit, in any order; the browser orders them by
 * Children then Self, or Self alone) and gives struct tui_ops callbacks for
 * what only it can make: a row's call graph (the --stdio text, which the
 * browser folds under the row), an annotation, a new aggregation (other sort
 * keys, Children on or off), and for a live source (top) a periodic tick and
 * its own keys.  The browser never reads a perf.data file and never frees the
 * table; after regroup() or a tick() that returns 1 it reads the table again
 * (row indices change: expanded rows are forgotten, filters stay because
 * they match by name).
 *
 * Keys (the '?' screen lists them): Up/Down/PgUp/PgDn/Home/End move;
 * Enter or Right expands the selected row's call graph, Left collapses it;
 * E / C expand / collapse all, e toggles; '/' keeps the rows whose symbol contains a
 * text; 'd', 'c', 't' zoom into the selected row's DSO, command or thread
 * (again: zoom out); 's' asks for sort keys (regroup); '+' / '-' Children
 * column on / off; 'a' annotates the selected symbol (a text view in the
 * same window); 'P' writes the current view as --stdio text to perf.hist.N
 * (base/outfile: whole or not at all); '?' help; q / Esc leave a text view,
 * undo the last zoom or search, else quit.  A live source gets first go at
 * every key (tui_ops.key) and a tick every tick_ms.
 *
 * Display: every text is escaped again before it reaches the terminal
 * (tui_escape: control bytes, invalid UTF-8 and, outside a UTF-8 locale,
 * every non-ASCII byte become "\xNN"), so a name cannot drive the terminal.
 * Colours follow perf's: a percentage at or above 5 % red, at or above
 * 0.5 % green, the selected row black on yellow, the title white on blue;
 * none when opts.color is false (the command decides: NO_COLOR,
 * --no-color) or the terminal has none.  Redraws repaint only what changed
 * (ncurses' refresh), so a live view does not flicker.  KEY_RESIZE redraws
 * at the new size; 40 columns and 10 lines still show rows.
 *
 * Errors: tui_browse() returns 0 on quit, -ENOTTY when the terminal cannot
 * be set up (then nothing was drawn: the command prints its text instead),
 * -EOPNOTSUPP when perfkit was built without ncurses, or the first negative
 * value a callback returned from regroup() (whose message is in pk_errmsg()).
 * Other callback errors are shown on the status line and browsing goes on.
 * Nothing is printed to stdout or stderr.
 */
#ifndef PERFKIT_TUI_H
#define PERFKIT_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TUI_MAX_KEYS 8

struct tui_row {
	uint64_t children, self;   /* periods (Children: 0 when the table has none) */
	uint64_t nr;               /* samples whose leaf is the row (-n) */
	const char *text[TUI_MAX_KEYS];  /* each column's text, as --stdio prints it;
					    NULL: made by the table's text() when shown */
	const char *comm, *dso;    /* raw names for zooming (dso: as the table shows it) */
	const char *sym;           /* raw symbol for '/' and 'a'; NULL: unknown */
	uint32_t tid;              /* the row's thread for 't' (perf: the first one seen) */
	bool has_graph;            /* graph() has something for it */
	uint64_t tie;              /* the Self view's order of rows of equal Self,
				      lowest first (report: perf's --no-children
				      order, by the keys' texts); equal ties keep
				      the table's order (0 for every row: all) */
};

struct tui_table {
	const char *title;         /* top line, e.g. "Samples: 2M of event 'cpu-clock', ..." */
	const char *stdio_head;    /* what --stdio prints before the column header
				      ("# Samples: ...\n# Event count ...\n#\n"), for 'P' */
	const char *sort;          /* the sort keys, "comm,dso,sym" ('s' starts from it) */
	int nr_keys;
	const char *headers[TUI_MAX_KEYS];
	/* each column's kind: 'c' the command, 'd' the DSO, 't' the thread
	 * (pid, tid), 's' the symbol, 0 another.  A zoom of that kind (c, d,
	 * t) hides the column, all its rows showing one value, as perf's zoom
	 * elides it (perf_hpp__set_elide); the other columns stay, and with
	 * every one hidden all show.  After new keys ('s') a zoom stays only
	 * when a column shows its value (a DSO's: 'd' or 's'; '/': 's'). */
	char kind[TUI_MAX_KEYS];
	/* 'P' lays the columns out as perf report --stdio: pad_last[k],
	 * column k padded to its width when it is the last one (perf's
	 * "%-*s" columns: comm, DSO, pid); unres_width[k], column k's least
	 * width (characters) when a row printed has no symbol (perf's
	 * hists__set_unres_dso_col_len: 16 for the DSO; 0 none) */
	bool pad_last[TUI_MAX_KEYS];
	uint8_t unres_width[TUI_MAX_KEYS];
	/* Optional: elided[k], the one value the command's filter leaves
	 * column k (kind 'c', 'd' or 's'; perf's sort__setup_elide: --comms,
	 * --dsos, --symbols of one name), which is then not shown, and 'P'
	 * prints "# comm: VALUE" ("dso", "symbol") instead, at byte
	 * stdio_elide_at of stdio_head; a zoom ('c', 'd') elides its column
	 * the same way.  With every column elided, all show (the lines are
	 * still printed).  NULL: shown. */
	const char *elided[TUI_MAX_KEYS];
	size_t stdio_elide_at;
	bool children;             /* rows have Children periods (a column can show them) */
	bool show_children;        /* the Children column is shown (initially) */
	bool show_nr;              /* a Samples column */
	bool show_period;          /* a Period column (Self's), after it */
	bool no_threads;           /* rows[].tid names no thread: 't' says so */
	uint64_t total;            /* the percentages' denominator */
	/* rows whose share of the view (Children in the Children view, else
	 * Self) is under percent_limit % of total are not shown (report's
	 * --percent-limit, as perf's browser applies it to the view shown);
	 * 'P' gives the columns the widths of their texts all the same, as
	 * --stdio (perf's hists__calc_col_len).  0: every row. */
	double percent_limit;
	struct tui_row *rows;      /* in the command's order; the browser
				      orders them by Children (Children
				      view: equal ones keep this order) or
				      by Self, then this order */
	size_t nr_rows;
	/* Optional: row i's text of column k, for rows whose text[k] is NULL
	 * (tables of many rows make only the texts shown); it may store the
	 * text in rows[i].text[k].  Must not fail. */
	const char *(*text)(void *ctx, size_t i, int k);
	void *text_ctx;
	/* Optional: the length (bytes) row i's column k takes when the
	 * columns are sized, for the columns with cut[k] set, whose texts are
	 * then cut to the column's width (printf's "%-*.*s"): report's
	 * Command column, which perf sizes by the length of each row's
	 * thread's last comm (hists__calc_col_len), so that a comm the thread
	 * had before an exec prints cut.  Others: their texts' lengths. */
	size_t (*text_len)(void *ctx, size_t i, int k);
	bool cut[TUI_MAX_KEYS];
	/* Optional (a large table sorted in part): rows [nr_ready, nr_rows)
	 * are not filled yet; order_rest(text_ctx) fills them, each below
	 * every ready row in the browser's order (Children, when the table
	 * has them, then Self), and sets nr_ready to nr_rows.  The browser
	 * calls it before it shows or reads any of them: scrolling near the
	 * ready rows' end, End, a filter, 'P', expanding all, the other
	 * order ('-').  NULL: every row is ready. */
	size_t nr_ready;
	void (*order_rest)(void *ctx);
	/* Optional, with order_rest: false while the rest is still being
	 * sorted elsewhere (a thread), so that a pause does not wait for it:
	 * the browser asks again after the next pause.  A key that needs the
	 * rows calls order_rest all the same, which then waits.  NULL: the
	 * rest is always ready to be ordered. */
	bool (*rest_ready)(void *ctx);
};

/* Row i's text of column k (rows[i].text[k], else made by t->text). */
const char *tui_row_text(const struct tui_table *t, size_t i, int k);
/* The length row i's column k takes in the column's width: t->text_len's
 * for a column with cut[k], else its text's. */
size_t tui_row_text_len(const struct tui_table *t, size_t i, int k);

struct tui_ops {
	/* Row i's call graph as --stdio prints it under the row, lines ending
	 * in '\n', for the Children view (children true) or the Self one.
	 * 0 or -errno. */
	int (*graph)(void *ctx, size_t i, bool children, FILE *fp);
	/* Optional: false while row i's call graph is being made elsewhere (a
	 * thread), so that graph() would wait for it.  The browser then shows
	 * the row expanded with a line saying so, answers keys meanwhile, asks
	 * again every 20 ms of a pause and calls graph() once true; 'P' calls
	 * graph() at once (it waits).  It may start that work.  NULL: graph()
	 * never waits long. */
	bool (*graph_ready)(void *ctx, size_t i, bool children);
	/* An annotation of row i's symbol, as text lines.  0 or -errno (with
	 * a pk_error() message, shown on the status line). */
	int (*annotate)(void *ctx, size_t i, FILE *fp);
	/* Optional: an annotation of the function called name, which a line
	 * of row i's call graph names and no row of the table has as its
	 * symbol (sort keys without sym: comm, dso, pid).  0 or -errno (with
	 * a pk_error() message). */
	int (*annotate_name)(void *ctx, size_t i, const char *name, FILE *fp);
	/* Aggregate again with these sort keys and Children on or off, into
	 * the same table.  -EINVAL (bad keys: message shown, table unchanged)
	 * or other -errno (fatal: tui_browse returns it). */
	int (*regroup)(void *ctx, const char *keys, bool children);
	/* Live sources: called every tick_ms (also while keys arrive); 1
	 * when the table changed, 0 when not, < 0 to end the browser (the
	 * watched process exited, a signal) — tui_browse then returns 0. */
	int (*tick)(void *ctx);
	/* Live sources: a key (ncurses code) before the browser's own; the
	 * selected row or SIZE_MAX.  Returns 1 when handled (the table may
	 * have changed), 0 to let the browser handle it. */
	int (*key)(void *ctx, int key, size_t selected);
	/* Optional: called once the table view has had no key for a pause
	 * (100 ms), with the selected row (SIZE_MAX: none), for work a later
	 * key is likely to need (report: the selected row's annotation, so
	 * that 'a' finds it made).  Called again only after another key, or
	 * after the next pause when it returns TUI_IDLE_AGAIN (work that
	 * waits for other work to end first); it must not change the table.
	 * Other results are ignored. */
	int (*idle)(void *ctx, size_t selected);
	/* Optional: show the next (dir 1) or previous (dir -1) event's table
	 * instead (a file of several events: perf's TAB / shift-TAB).  1 when
	 * the table changed, 0 when there is no other event with samples,
	 * other -errno: fatal (tui_browse returns it). */
	int (*next_event)(void *ctx, int dir);
	/* A status text for the bottom line (live: "frozen", filters), or NULL. */
	const char *(*status)(void *ctx);
	/* Optional: the ops' threads brought to an end before 'P' forks its
	 * writer, so that none allocates while fork() copies the process.
	 * Work not finished is dropped, to be made again when next needed
	 * (graph_ready false meanwhile).  Called only by builds whose
	 * allocator does not lock itself around fork() (AddressSanitizer's:
	 * browser.c FORK_LOCKS_MALLOC). */
	void (*before_fork)(void *ctx);
};

#define TUI_IDLE_AGAIN 2   /* ops.idle: call again after the next pause */

struct tui_opts {
	bool color;                /* false: no colours (NO_COLOR, --no-color) */
	int tick_ms;               /* > 0: call ops.tick this often (live) */
	const char *help_extra;    /* lines added to the '?' screen (a source's keys) */
	const char *sort_keys;     /* the keys regroup takes, as 's' and '?' name them
				      (NULL: "comm, dso, sym, pid, tid, srcline, trace, cpu") */
	const char *hist_prefix;   /* 'P' writes <prefix>.N, first free N (default "perf.hist") */
	const char *notice;        /* shown on the status line as the browser opens, until a
				      key (a warning about the file: truncated, broken stacks) */
	bool end_on_signal;        /* SIGINT (Ctrl-C), SIGTERM, SIGHUP end perfkit while it
				      browses, the terminal given back first (then the handler
				      set before, such as outfile's, else the default action);
				      false: the caller's handlers alone (perfkit top ends its
				      loop on them) */
};

/* Whether a browser can run here: stdout and stdin are terminals and TERM
 * is set and not "dumb".  The command still decides (--stdio). */
bool tui_usable(void);

int tui_browse(struct tui_table *t, const struct tui_ops *ops, void *ctx, const struct tui_opts *o);

/* For an op's long work (regroup reading the samples again): the status
 * line of the browser on the screen says "WHAT ... N%" (done of total,
 * in any unit), drawn at most every 50 ms.  Nothing when no browser runs. */
void tui_progress(const char *what, uint64_t done, uint64_t total);

/* ---- text helpers (no terminal needed; used by the browser, tested alone) ---- */

/* Append s[0..len) to *out escaped for display: control bytes, DEL, C1
 * controls, invalid UTF-8 and the format controls that reorder or hide text
 * (bidi overrides, zero-width characters: U+061C, U+200B..U+200F,
 * U+2028..U+202E, U+2060..U+206F, U+FEFF, the tag characters
 * U+E0000..U+E007F) as "\xNN" per byte; with utf8 false every byte >= 0x80
 * too (ASCII only).  *out is a malloc'd buffer of *cap bytes, grown as
 * needed and NUL-terminated; returns its new length. */
size_t tui_escape(const char *s, size_t len, bool utf8, char **out, size_t *cap, size_t at);

struct strbuf;

/* The --stdio text of rows order[0..n) of t ('P'): the header as report
 * prints it (t->stdio_head, with a "# comm: VALUE" line for each column k
 * whose elide[k] is non-NULL at t->stdio_elide_at, then the column header
 * and dots), one line per row with the Children column when children is
 * true and without the elided columns (all of them when every one is), and
 * after each row whose graph[k] is non-NULL that text; then two blank
 * lines.  elide may be NULL: none.  The columns are as wide as their
 * widest text in rows wide[0..nwide) (a superset of order's: rows below
 * --percent-limit count, as perf's), or order's when wide is NULL. */
void tui_print_stdio(FILE *fp, const struct tui_table *t, const size_t *order, size_t n, bool children,
		     const char *const *graph, const char *const *elide, const size_t *wide, size_t nwide);

/* Annotation text of one function (src/lib/annotate): the address, share
 * of the function's samples and instruction of each instruction, the
 * source line above the instructions it starts (when DWARF has lines and
 * the file is readable).  -errno from ann_view_build(). */
struct ann_profile;
struct ann_func;
struct inline_resolver;
int tui_annotate_text(FILE *fp, const struct ann_profile *p, const struct ann_func *f, const char *elf_path,
		      struct inline_resolver *inl);

#endif
