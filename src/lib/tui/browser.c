/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * browser.c — the ncurses browser of tui.h: rows with foldable call graphs,
 * zoom and search filters, text views (annotation, help), 'P'.
 */
#include "tui/tui.h"

#include "base/error.h"
#include "base/kvsort.h"
#include "base/outfile.h"
#include "base/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

bool tui_usable(void)
{
	const char *term = getenv("TERM");

	return isatty(STDOUT_FILENO) && isatty(STDIN_FILENO) && term && *term && strcmp(term, "dumb");
}

#ifdef PERFKIT_NO_NCURSES

int tui_browse(struct tui_table *t, const struct tui_ops *ops, void *ctx, const struct tui_opts *o)
{
	(void)t; (void)ops; (void)ctx; (void)o;
	return -EOPNOTSUPP;
}

void tui_progress(const char *what, uint64_t done, uint64_t total)
{
	(void)what; (void)done; (void)total;
}

#else

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <termios.h>
#include <wchar.h>

/* tui_opts.end_on_signal: a signal that ends perfkit while the browser
 * holds the terminal (Ctrl-C: SIGINT, SIGTERM, SIGHUP) gives the terminal
 * back as endwin() would (the alternate screen left, the cursor shown,
 * the keypad's mode and the colours reset: terminfo's rmcup, cnorm, rmkx,
 * sgr0, looked up before, written with write(2)) and the line
 * discipline's settings, then runs the handler there before the browser
 * (outfile's removal of its temporary files), else the default action
 * (Ctrl-C's exit status).  Only async-signal-safe calls in the handler. */
static const int end_sigs[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction end_old[3];
static bool end_ours[3];
static char end_seq[256];
static size_t end_len;
static struct termios end_tio;
static bool end_tio_ok;

static void on_end_signal(int sig)
{
	size_t i = 0;

	if (end_len)
		(void)!write(STDOUT_FILENO, end_seq, end_len);
	if (end_tio_ok)
		(void)tcsetattr(STDIN_FILENO, TCSANOW, &end_tio);
	while (i + 1 < sizeof(end_sigs) / sizeof(end_sigs[0]) && end_sigs[i] != sig)
		i++;
	if (end_old[i].sa_handler != SIG_IGN && end_old[i].sa_handler != SIG_DFL)
		(void)sigaction(sig, &end_old[i], NULL);   /* the one before: it ends perfkit */
	else
		signal(sig, SIG_DFL);
	raise(sig);
}

/* Before newterm(): the line discipline's settings and the handlers as
 * they are (newterm() may put ncurses' own where there are none). */
static void end_signals_save_tty(void)
{
	end_tio_ok = tcgetattr(STDIN_FILENO, &end_tio) == 0;
	for (size_t i = 0; i < sizeof(end_sigs) / sizeof(end_sigs[0]); i++)
		if (sigaction(end_sigs[i], NULL, &end_old[i]))
			end_old[i].sa_handler = SIG_DFL;
}

/* After newterm(): the sequences, and the handlers (not over an ignored
 * signal: nohup's). */
static void end_signals_on(void)
{
	static const char *const caps[] = { "rmcup", "cnorm", "rmkx", "sgr0" };

	end_len = 0;
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		const char *v = tigetstr(caps[i]);
		size_t n = v && v != (const char *)-1 ? strlen(v) : 0;

		if (n && end_len + n < sizeof(end_seq)) {
			memcpy(end_seq + end_len, v, n);
			end_len += n;
		}
	}
	for (size_t i = 0; i < sizeof(end_sigs) / sizeof(end_sigs[0]); i++) {
		struct sigaction sa = { .sa_handler = on_end_signal };

		end_ours[i] = false;
		if (end_old[i].sa_handler == SIG_IGN)
			continue;
		sigemptyset(&sa.sa_mask);
		end_ours[i] = sigaction(end_sigs[i], &sa, NULL) == 0;
	}
}

/* The browser done: the signals as they were. */
static void end_signals_off(void)
{
	for (size_t i = 0; i < sizeof(end_sigs) / sizeof(end_sigs[0]); i++)
		if (end_ours[i]) {
			(void)sigaction(end_sigs[i], &end_old[i], NULL);
			end_ours[i] = false;
		}
}

enum { C_TOP = 1, C_MEDIUM, C_SELECTED, C_ROOT };

struct filt {
	int kind;              /* 'd', 'c', 't', '/' */
	char *val;
	uint32_t tid;
};

struct line {
	size_t row;            /* table row */
	size_t off;            /* SIZE_MAX: the row itself; else offset in its graph text */
};

/* A folded node kept across a new table (top's refresh, '+'): its row's
 * names and its node path (node_path()). */
struct kept_fold {
	struct tui_row row;   /* sym, dso, comm: copies */
	char *path;
};

struct br {
	struct tui_table *t;
	const struct tui_ops *ops;
	void *ctx;
	const struct tui_opts *o;
	bool utf8, color, children;
	struct filt filt[32];
	int nfilt;
	size_t *order, nord;
	size_t *sorted[2];     /* every row ordered for the Self [0] / Children [1] view, once per table */
	bool *expanded;
	char **graph;          /* per row: its graph text (current view), or NULL */
	bool *pending;         /* per row: graph[] holds GRAPH_PENDING's copy,
				  the text being made elsewhere (ops.graph_ready) */
	size_t npending;
	size_t *plist, nplist, plist_alloc;   /* rows made pending, in order
				  (some no longer): what a pause asks about */
	struct line *fold;     /* the folded call-graph nodes (Enter on a graph
				  line): their lines, as row and offset in the
				  row's graph text; forgotten with the texts */
	size_t nfold;
	size_t nrows_alloc;
	struct line *lines;
	size_t nlines, lines_alloc;
	bool idle;                    /* getkey() may use a pause (main view) */
	bool idle_done;               /* ops->idle called since the last key */
	size_t sel, top;
	char msg[512];
	char notice[512];      /* after the status line's hint until the first key (tui_opts) */
	char *ebuf;            /* escape scratch */
	size_t ecap;
	wchar_t *wbuf;
	size_t wcap;
	bool expand_all;       /* 'E': rows of a new table come expanded (live) */
	int err;               /* fatal error from regroup */
	bool end;              /* a tick ended the browser, or the input did */
	int nerr;              /* getch() failures in a row (blocking mode) */
	double last_tick;      /* ms, CLOCK_MONOTONIC */
	char *keep_sym, *keep_dso, *keep_comm;   /* remember() */
	char *keep_path;       /* remember(): the selected graph line's node (node_path), or NULL */
	size_t keep_k;         /* ... and the line's place in its node's chain (0: the node's line) */
	char *keep_name;       /* ... and its name (line_name), when the tree's shape changed */
	uint32_t keep_tid;
	struct tui_row *open;  /* remember(): the unfolded rows' names (copies) */
	size_t nopen;
	struct kept_fold *kfold;   /* remember(): the folded nodes, by name */
	size_t nkfold;
	bool keep;
	size_t keep_pos;
	pid_t writer;          /* 'P': the child writing the view, 0: none */
	int p_queued;          /* 'P's pressed while it wrote: each writes a file after it */
	int writer_fd;         /* its error message comes through this pipe */
	char writer_path[4096];
};

#define KEY_WRITTEN (KEY_MAX + 1)   /* getkey(): 'P''s child is done (b->msg says how) */
#define KEY_IDLE (KEY_MAX + 2)      /* getkey(): the rest of the rows sorted (draw again) */

#define NFILT (int)(sizeof(((struct br *)0)->filt) / sizeof(((struct br *)0)->filt[0]))

static const char help_text[] =   /* a format (show_help): the lines of c and t or "", the sort
				     keys (sort_keys()), the line of + and - or "", then the Tab
				     line or "" */
	"Keys\n"
	"\n"
	"  Up/Down, PgUp/PgDn, Home/End   move\n"
	"  Enter, Right     expand the selected row's call graph (Enter again: collapse)\n"
	"  Left             collapse it; Enter on a graph line: fold / unfold that node\n"
	"  E / C, e         expand / collapse every call graph; e: toggle\n"
	"  /                show rows whose symbol contains a text (empty: all)\n"
	"  d                zoom into the selected row's DSO (again: zoom out)\n"
	"%s"
	"  s                sort keys (%s): regroup\n"
	"%s"
	"  a                annotate the selected row's (graph line's) function (q: back)\n"
	"  P                write the current view as --stdio text to perf.hist.N\n"
	"%s"
	"  ?                this help\n"
	"  q, Esc           back (a view, the last zoom or search), else quit; Esc asks\n"
	"  In / and s: Ctrl-U clears the line, Ctrl-W a word; s starts with the keys:\n"
	"    typing replaces them, ',' first adds to them, Backspace edits them\n";

/* ---- drawing ---- */

static const char *esc(struct br *b, const char *s, size_t len)
{
	tui_escape(s, len, b->utf8, &b->ebuf, &b->ecap, 0);
	return b->ebuf;
}

/* Put s (escaped already) at (y, x), at most w columns; returns columns used. */
static int put_w(struct br *b, int y, int x, const char *s, int w)
{
	if (w <= 0)
		return 0;
	if (!b->utf8) {
		int n = (int)strnlen(s, (size_t)w);

		mvaddnstr(y, x, s, n);
		return n;
	}
	size_t len = strlen(s), nw = 0;
	mbstate_t st;
	int cols = 0;

	if (b->wcap < len + 1) {
		b->wcap = len + 1;
		b->wbuf = xrealloc(b->wbuf, b->wcap * sizeof(wchar_t));
	}
	memset(&st, 0, sizeof(st));
	for (size_t i = 0; i < len;) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, s + i, len - i, &st);
		int cw;

		if (n == 0 || n > len - i) {   /* cannot happen on escaped text */
			wc = '?';
			n = 1;
			memset(&st, 0, sizeof(st));
		}
		cw = wcwidth(wc);
		if (cw < 0) {
			wc = '?';
			cw = 1;
		}
		if (cols + cw > w)
			break;
		b->wbuf[nw++] = wc;
		cols += cw;
		i += n;
	}
	if (nw)
		mvaddnwstr(y, x, b->wbuf, (int)nw);
	return cols;
}

static int put(struct br *b, int y, int x, const char *raw, int w)
{
	return put_w(b, y, x, esc(b, raw, strlen(raw)), w);
}

static attr_t pct_attr(struct br *b, double pct)
{
	if (!b->color)
		return A_NORMAL;
	if (pct >= 5.0)
		return COLOR_PAIR(C_TOP);
	if (pct >= 0.5)
		return COLOR_PAIR(C_MEDIUM);
	return A_NORMAL;
}

/* A percentage column "%7.2f%%" at x, coloured by its size unless the
 * row is selected (the selection's colour wins); returns the next x. */
static int put_pct(struct br *b, int y, int x, double pct, bool sel)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%7.2f%%", pct);
	if (!sel)
		attron(pct_attr(b, pct));
	put(b, y, x, buf, COLS - x);
	if (!sel)
		attroff(pct_attr(b, pct));
	return x + 10;
}

static void bar(struct br *b, int y, const char *text)
{
	attr_t a = b->color ? COLOR_PAIR(C_ROOT) : A_REVERSE;

	attron(a);
	mvhline(y, 0, ' ', COLS);
	put(b, y, 0, text, COLS);
	attroff(a);
}

/* ---- the view ---- */

/* Whether row r is shown: its view's share not 0, nor under the
 * table's percent_limit when limit is true, and every filter keeps it. */
static bool row_passes_if(struct br *b, const struct tui_row *r, bool limit)
{
	if (!b->children && !r->self)
		return false;
	if (limit && b->t->percent_limit > 0 &&
	    100.0 * (double)(b->children ? r->children : r->self) / (double)(b->t->total ? b->t->total : 1) <
		    b->t->percent_limit)
		return false;
	for (int i = 0; i < b->nfilt; i++) {
		const struct filt *f = &b->filt[i];

		switch (f->kind) {
		case 'd': if (!r->dso || strcmp(r->dso, f->val)) return false; break;
		case 'c': if (!r->comm || strcmp(r->comm, f->val)) return false; break;
		case 't': if (r->tid != f->tid) return false; break;
		case '/': if (!r->sym || !strstr(r->sym, f->val)) return false; break;
		default: break;
		}
	}
	return true;
}

static bool row_passes(struct br *b, const struct tui_row *r)
{
	return row_passes_if(b, r, true);
}

static const struct tui_row *sort_rows;
static bool sort_children;

static int cmp_order(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, c = *(const size_t *)y;
	const struct tui_row *r = &sort_rows[a], *s = &sort_rows[c];

	/* rows of equal Children keep the table's order (the command's: perf
	 * puts a caller above its callee there, whatever their Self) */
	if (sort_children && r->children != s->children)
		return r->children > s->children ? -1 : 1;
	if (!sort_children && r->self != s->self)
		return r->self > s->self ? -1 : 1;
	if (!sort_children && r->tie != s->tie)
		return r->tie < s->tie ? -1 : 1;
	return a < c ? -1 : a > c;
}

/* out[0..n): the rows 0..n in cmp_order's order, by a stable sort of
 * their Children or Self, highest first (pk_kv_sort): ties keep the
 * table's order, in the Self view after the rows' tie.  qsort with
 * cmp_order took 150 ms on a million rows ('-'). */
static void radix_order(const struct tui_row *rows, bool children, size_t *out, size_t n)
{
	struct pk_kv *a = xmalloc_huge((n + 1) * sizeof(*a));   /* 16 MB for a million rows */
	bool ties = false;

	for (size_t i = 0; i < n && !children; i++)
		ties |= rows[i].tie != 0;
	if (ties) {   /* by tie first, then (a stable sort) by Self */
		for (size_t i = 0; i < n; i++)
			a[i] = (struct pk_kv){ rows[i].tie, i };
		pk_kv_sort(a, n);
		for (size_t i = 0; i < n; i++)
			a[i].k = ~rows[a[i].v].self;
	} else {
		for (size_t i = 0; i < n; i++)
			a[i] = (struct pk_kv){ ~(children ? rows[i].children : rows[i].self), i };
	}
	pk_kv_sort(a, n);
	for (size_t i = 0; i < n; i++)
		out[i] = (size_t)a[i].v;
	free(a);
}

static void free_graphs(struct br *b)
{
	for (size_t i = 0; i < b->nrows_alloc; i++) {
		free(b->graph[i]);
		b->graph[i] = NULL;
		b->pending[i] = false;
	}
	b->npending = 0;
	b->nplist = 0;
	free(b->fold);
	b->fold = NULL;
	b->nfold = 0;
}

/* ---- folding a call graph's nodes (perf's Enter on a callchain line) ----
 * The graph is --stdio's text: a node's line has its marker ("---name",
 * or "--12.34%--name") after its parents' bars ("|"), and the lines of
 * its chain below it start where its name does.  Its subtree is the lines
 * after it that start (past bars and spaces) at its name's column or
 * right of it. */

/* The column of line s's first character other than a space or a bar
 * ("|"), -1 when it has none (a connector line, or a blank one). */
static long graph_col(const char *s)
{
	for (long c = 0; s[c] && s[c] != '\n'; c++)
		if (s[c] != ' ' && s[c] != '|')
			return c;
	return -1;
}

/* The column where line s's name starts when s is a node's line ("---"
 * or "--N%--" at graph_col), else -1. */
static long graph_node_name(const char *s)
{
	long c = graph_col(s);

	if (c < 0 || s[c] != '-' || s[c + 1] != '-')
		return -1;
	if (s[c + 2] == '-')
		return c + 3;
	for (long i = c + 2; s[i] && s[i] != '\n'; i++)   /* "--12.34%--" */
		if (s[i] == '-' && s[i + 1] == '-')
			return s[i - 1] == '%' ? i + 2 : -1;
	return -1;
}

/* The index in b->fold of row's graph line at off, or SIZE_MAX: not folded. */
static size_t fold_index(const struct br *b, size_t row, size_t off)
{
	for (size_t i = 0; i < b->nfold; i++)
		if (b->fold[i].row == row && b->fold[i].off == off)
			return i;
	return SIZE_MAX;
}

static bool is_folded(const struct br *b, size_t row, size_t off)
{
	return fold_index(b, row, off) != SIZE_MAX;
}

/* The node lines that hold a graph line, outermost first (nested by
 * column): node_push() is given each line of a graph text in order. */
struct nstack {
	struct pnode {
		long col;
		size_t name, len;   /* the node's name: g[name, name + len) */
	} st[512];
	int n;
};

/* Line g[o, end) (end: its '\n' or the text's end): a node line pops the
 * nodes it is no longer in and is pushed.  Returns whether it was one. */
static bool node_push(struct nstack *s, const char *g, size_t o, size_t end)
{
	long name = graph_node_name(g + o), c;

	if (name < 0)
		return false;
	c = graph_col(g + o);
	while (s->n > 0 && s->st[s->n - 1].col >= c)
		s->n--;
	if (s->n < (int)(sizeof(s->st) / sizeof(s->st[0])))
		s->st[s->n++] = (struct pnode){ c, o + (size_t)name, end - o - (size_t)name };
	return true;
}

/* The node path of the node line at off in graph text g: "NAME\n" for
 * each node line that holds it (the nodes it is nested in, by column, and
 * itself), outermost first.  Shares are left out, so that a node has the
 * same path in the next refresh's graph (a column moves with a share's
 * digits: names only).  malloc'd. */
static char *node_path(const char *g, size_t off)
{
	struct nstack ns = { .n = 0 };
	struct strbuf sb = STRBUF_INIT;

	for (size_t o = 0; g[o];) {
		const char *nl = strchr(g + o, '\n');
		size_t end = nl ? (size_t)(nl - g) : strlen(g);

		node_push(&ns, g, o, end);
		if (o == off || !nl)
			break;
		o = end + 1;
	}
	for (int i = 0; i < ns.n; i++) {
		sb_add(&sb, g + ns.st[i].name, ns.st[i].len);
		sb_addch(&sb, '\n');
	}
	return sb_detach(&sb, NULL);
}

/* The node line of graph line off in g (itself, or the node whose chain
 * it is on), with *k the line's place below it (0: the node's line);
 * SIZE_MAX: no node's (a connector). */
static size_t node_of(const char *g, size_t off, size_t *k)
{
	long col = graph_col(g + off);
	size_t node = SIZE_MAX, n = 0;

	*k = 0;
	if (graph_node_name(g + off) >= 0)
		return off;
	if (col < 0)
		return SIZE_MAX;
	for (size_t o = 0; o < off;) {   /* the last node line whose name starts at col */
		const char *nl = strchr(g + o, '\n');

		if (!nl)
			break;
		if (graph_node_name(g + o) == col) {
			node = o;
			n = 0;
		}
		n++;
		o = (size_t)(nl - g) + 1;
	}
	*k = n;
	return node;
}

/* The name on graph line s (a node's, after its marker; a chain line's),
 * its length in *len; NULL: none (a connector). */
static const char *line_name(const char *s, size_t *len)
{
	long c = graph_node_name(s);

	if (c < 0)
		c = graph_col(s);
	if (c < 0)
		return NULL;
	const char *nl = strchr(s + c, '\n');

	*len = nl ? (size_t)(nl - (s + c)) : strlen(s + c);
	return s + c;
}

/* Does graph line s name name (line_name())? */
static bool line_named(const char *s, const char *name)
{
	size_t len;
	const char *nm = line_name(s, &len);

	return nm && len == strlen(name) && !memcmp(nm, name, len);
}

/* The offset in g of the node line whose node_path() is path, or
 * SIZE_MAX: none.  One pass: each node line's path compared as it is met. */
static size_t find_node(const char *g, const char *path)
{
	struct nstack ns = { .n = 0 };

	for (size_t o = 0; g && g[o];) {
		const char *nl = strchr(g + o, '\n');
		size_t end = nl ? (size_t)(nl - g) : strlen(g);

		if (node_push(&ns, g, o, end)) {
			const char *p = path;
			int i = 0;

			for (; i < ns.n; i++) {   /* path's names, a line each */
				const struct pnode *q = &ns.st[i];

				if (strncmp(p, g + q->name, q->len) || p[q->len] != '\n')
					break;
				p += q->len + 1;
			}
			if (i == ns.n && !*p)
				return o;
		}
		if (!nl)
			break;
		o = end + 1;
	}
	return SIZE_MAX;
}

/* The rows the browser may read: all, or the ready ones of a table
 * sorted in part (tui.h order_rest). */
static size_t nr_ready(const struct br *b)
{
	const struct tui_table *t = b->t;

	return t->order_rest && t->nr_ready < t->nr_rows ? t->nr_ready : t->nr_rows;
}

/* Every row of a table sorted in part; true when some were added. */
static bool need_all(struct br *b)
{
	if (nr_ready(b) == b->t->nr_rows)
		return false;
	b->t->order_rest(b->t->text_ctx);
	b->t->nr_ready = b->t->nr_rows;
	free(b->sorted[0]);
	free(b->sorted[1]);
	b->sorted[0] = b->sorted[1] = NULL;
	return true;
}

/* b->sorted[children]: the ready rows in that view's order (cmp_order). */
static void make_order(struct br *b, bool children)
{
	size_t n = nr_ready(b), i, *so = xmalloc((n + 1) * sizeof(*so));

	for (i = 0; i < n; i++)
		so[i] = i;
	sort_rows = b->t->rows;
	sort_children = children;
	for (i = 1; i < n && cmp_order(&so[i - 1], &so[i]) < 0; i++)
		;
	if (i < n)   /* else already in this order (report's rows) */
		radix_order(b->t->rows, children, so, n);
	b->sorted[children] = so;
}

/* The other view's order ('-' or '+' without Children made again) not
 * made yet, with every row ready: a pause makes it (getkey). */
static bool other_order_missing(const struct br *b)
{
	return b->t->children && nr_ready(b) == b->t->nr_rows && !b->sorted[!b->children];
}

/* The table changed (new rows): forget per-row state. */
static void reset_rows(struct br *b)
{
	free_graphs(b);
	free(b->graph);
	free(b->pending);
	free(b->expanded);
	free(b->order);
	free(b->sorted[0]);
	free(b->sorted[1]);
	b->sorted[0] = b->sorted[1] = NULL;
	b->nrows_alloc = b->t->nr_rows;
	b->graph = xcalloc(b->nrows_alloc + 1, sizeof(*b->graph));
	b->pending = xcalloc(b->nrows_alloc + 1, sizeof(*b->pending));
	b->expanded = xcalloc(b->nrows_alloc + 1, sizeof(*b->expanded));
	b->order = xcalloc(b->nrows_alloc + 1, sizeof(*b->order));
	if (b->expand_all)
		need_all(b);
	if (b->expand_all)
		for (size_t i = 0; i < b->nrows_alloc; i++)
			b->expanded[i] = b->t->rows[i].has_graph;
	b->sel = b->top = 0;
}

/* The line an expanded row shows while its call graph is being made
 * elsewhere (ops.graph_ready false): no node (graph_node_name), so it
 * folds nothing and names no function. */
static const char GRAPH_PENDING[] = "                [call graph: being made]\n";

/* Row's pending text dropped: made by graph_of when next asked. */
static void unpend(struct br *b, size_t row)
{
	if (!b->pending[row])
		return;
	free(b->graph[row]);
	b->graph[row] = NULL;
	b->pending[row] = false;
	b->npending--;
}

/* Row's call graph text (made on first need), or NULL: none.  While
 * ops.graph_ready says it would wait, GRAPH_PENDING's copy, asked again
 * at each call (a pause polls them: pending_ready); with wait, made here
 * whatever it takes ('P'). */
static const char *graph_of_wait(struct br *b, size_t row, bool wait)
{
	if (b->pending[row] && (wait || b->ops->graph_ready(b->ctx, row, b->children)))
		unpend(b, row);
	if (!b->graph[row] && b->ops->graph && b->t->rows[row].has_graph) {
		if (!wait && b->ops->graph_ready && !b->ops->graph_ready(b->ctx, row, b->children)) {
			b->graph[row] = xstrdup(GRAPH_PENDING);
			b->pending[row] = true;
			b->npending++;
			if (b->nplist == b->plist_alloc) {
				b->plist_alloc = b->plist_alloc ? 2 * b->plist_alloc : 16;
				b->plist = xrealloc(b->plist, b->plist_alloc * sizeof(*b->plist));
			}
			b->plist[b->nplist++] = row;
			return b->graph[row];
		}
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&buf, &len);

		if (!fp)
			return NULL;
		if (b->ops->graph(b->ctx, row, b->children, fp) < 0)
			snprintf(b->msg, sizeof(b->msg), "call graph: %s", pk_errmsg());
		fclose(fp);
		/* the tree's trailing blank line is no line of the view */
		b->graph[row] = buf;
	}
	return b->graph[row];
}

static const char *graph_of(struct br *b, size_t row)
{
	return graph_of_wait(b, row, false);
}

/* A pending call graph (graph_of) can be made now without waiting: the
 * rows made pending asked (those no longer pending dropped from the list),
 * until one says yes. */
static bool pending_ready(struct br *b)
{
	size_t k = 0;
	bool ready = false;

	for (size_t j = 0; j < b->nplist; j++) {
		size_t row = b->plist[j];

		if (!b->pending[row])
			continue;
		b->plist[k++] = row;
		ready = ready || b->ops->graph_ready(b->ctx, row, b->children);
	}
	b->nplist = k;
	return ready;
}

static void add_line(struct br *b, size_t row, size_t off)
{
	if (b->nlines == b->lines_alloc) {
		b->lines_alloc = b->lines_alloc ? b->lines_alloc * 2 : 1024;
		b->lines = xrealloc(b->lines, b->lines_alloc * sizeof(*b->lines));
	}
	b->lines[b->nlines++] = (struct line){ row, off };
}

/* The lines of row r's graph text g that the view shows: all but those
 * under a folded node (perf's Enter on a callchain line).  A folded node's
 * subtree is the lines after it that start at its name's column or right
 * of it, and the connector lines ("|") among them, but the connector just
 * before the next line outside it, which joins the node to its next
 * sibling as perf draws it.  emit(ctx, off, end) for each line shown,
 * g[off, end) (its '\n' included), in order; blank lines are shown. */
static void graph_visible(const struct br *b, size_t r, const char *g,
			  void (*emit)(void *ctx, size_t off, size_t end), void *ctx)
{
	long hide = -1;   /* in a folded node's subtree: its name's column */
	size_t pend = SIZE_MAX, pend_end = 0;   /* the last connector hidden */

	for (size_t off = 0; g && g[off];) {
		const char *nl = strchr(g + off, '\n');
		size_t end = nl ? (size_t)(nl - g) + 1 : strlen(g);

		if (hide >= 0) {
			long c = graph_col(g + off);
			bool blank = c < 0 && !memchr(g + off, '|', end - off);

			if (c < 0 && !blank) {   /* a connector: shown if the subtree ends here */
				pend = off;
				pend_end = end;
				off = end;
				continue;
			}
			if (c >= hide) {
				pend = SIZE_MAX;
				off = end;
				continue;
			}
			hide = -1;   /* a line outside the subtree, or the graph's end */
			if (pend != SIZE_MAX && !blank)
				emit(ctx, pend, pend_end);
			pend = SIZE_MAX;
		}
		emit(ctx, off, end);
		if (b->nfold && is_folded(b, r, off))
			hide = graph_node_name(g + off);
		off = end;
	}
}

/* graph_visible's emit for rebuild: a line of the view, unless blank */
struct shown_lines {
	struct br *b;
	size_t r;
	const char *g;
};

static void add_shown_line(void *ctx, size_t off, size_t end)
{
	struct shown_lines *sl = ctx;

	for (size_t j = off; j < end; j++)
		if (sl->g[j] != ' ' && sl->g[j] != '\n') {
			add_line(sl->b, sl->r, off);
			return;
		}
}

/* Order, filter and flatten into lines, keeping the selected line when it
 * is still there (else its row, else the same position). */
static void rebuild(struct br *b)
{
	struct line keep = b->nlines && b->sel < b->nlines ? b->lines[b->sel] : (struct line){ SIZE_MAX, SIZE_MAX };
	size_t old_sel = b->sel;

	size_t **so = &b->sorted[b->children], n;

	/* the ready rows are the first of the table's order only: a filter,
	 * expanding all or the other order needs them all */
	if (b->nfilt || b->expand_all || b->children != (b->t->children && b->t->show_children))
		need_all(b);
	n = nr_ready(b);
	if (!*so)   /* once per table and view: then each rebuild is one pass */
		make_order(b, b->children);
	b->nord = 0;
	for (size_t k = 0; k < n; k++)
		if (row_passes(b, &b->t->rows[(*so)[k]]))
			b->order[b->nord++] = (*so)[k];
	b->nlines = 0;
	for (size_t k = 0; k < b->nord; k++) {
		size_t r = b->order[k];

		add_line(b, r, SIZE_MAX);
		if (!b->expanded[r])
			continue;
		struct shown_lines sl = { b, r, graph_of(b, r) };

		graph_visible(b, r, sl.g, add_shown_line, &sl);
	}
	b->sel = SIZE_MAX;
	for (size_t i = 0; i < b->nlines && keep.row != SIZE_MAX; i++)
		if (b->lines[i].row == keep.row && b->lines[i].off == keep.off) {
			b->sel = i;
			break;
		}
	for (size_t i = 0; b->sel == SIZE_MAX && i < b->nlines && keep.row != SIZE_MAX; i++)
		if (b->lines[i].row == keep.row)
			b->sel = i;
	if (b->sel == SIZE_MAX)
		b->sel = old_sel < b->nlines ? old_sel : b->nlines ? b->nlines - 1 : 0;
}

/* Line i is a call graph's connector alone ("   |   |"), or the line of a
 * graph being made: the selection passes over it (perf's browser draws
 * no such line). */
static bool connector(struct br *b, size_t i)
{
	const struct line *l = &b->lines[i];
	const char *g;

	if (l->off == SIZE_MAX || !(g = b->graph[l->row]))
		return false;
	if (b->pending[l->row])   /* GRAPH_PENDING's line: nothing to select */
		return true;
	for (g += l->off; *g && *g != '\n'; g++)
		if (*g != ' ' && *g != '|')
			return false;
	return true;
}

/* A page key left the selection on a connector line: the next line that
 * is none (the one before when none follows), as Down and Up pass them. */
static void off_connector(struct br *b)
{
	size_t i = b->sel;

	while (i < b->nlines && connector(b, i))
		i++;
	if (i == b->nlines)
		for (i = b->sel; i > 0 && connector(b, i); i--)
			;
	if (i < b->nlines)
		b->sel = i;
}

static size_t sel_row(struct br *b)
{
	return b->nlines ? b->lines[b->sel].row : SIZE_MAX;
}

static int body_lines(void)
{
	return LINES > 3 ? LINES - 3 : 1;
}

/* A filter's kind as the status line names it. */
static const char *filt_name(int kind)
{
	return kind == 'd' ? "DSO" : kind == 'c' ? "Command" : kind == 't' ? "Thread" : "Symbol";
}

/* A zoom's value as its column shows it (a DSO by its file's name). */
static const char *filt_shown(const struct filt *f)
{
	return f->kind == 'd' && strrchr(f->val, '/') ? strrchr(f->val, '/') + 1 : f->val;
}

static const char *filt_desc(struct br *b, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < b->nfilt && n + 1 < size; i++) {
		const struct filt *f = &b->filt[i];
		const char *what = filt_name(f->kind);
		int m;

		const char *v = filt_shown(f);

		if (f->kind == 't')
			m = snprintf(buf + n, size - n, "%s: %u | ", what, f->tid);
		else
			m = snprintf(buf + n, size - n, "%s: %s | ", what, v);
		if (m < 0)
			break;
		n += (size_t)m < size - n ? (size_t)m : size - n - 1;
	}
	return buf;
}

static void draw(struct br *b)
{
	const struct tui_table *t = b->t;
	int h = body_lines(), x0 = 2;
	int kx[TUI_MAX_KEYS], kw[TUI_MAX_KEYS];
	bool show_key[TUI_MAX_KEYS];
	char buf[1024], fd[600];
	int pw = b->children ? 20 : 10;   /* "Children  " "    Self  " */

	erase();
	snprintf(buf, sizeof(buf), "%s%s", filt_desc(b, fd, sizeof(fd)), t->title ? t->title : "");
	bar(b, 0, buf);

	/* columns: every key but the last as wide as its widest text in the
	 * first rows shown; the last takes the rest, 12 at least.  When they
	 * do not fit, the widest give way first: each is cut to one width
	 * (the most that fits), so a short column (comm, tid) stays whole
	 * and a long one (a symbol) keeps what is left.  Too narrow for all:
	 * the last key alone. */
	bool vis[TUI_MAX_KEYS];   /* not hidden by a zoom (tui_table.kind) */
	int nvis = 0, last = -1;

	for (int k = 0; k < t->nr_keys; k++) {
		vis[k] = !t->elided[k];
		for (int i = 0; i < b->nfilt && t->kind[k]; i++)
			if (b->filt[i].kind == t->kind[k])
				vis[k] = false;
		nvis += vis[k];
	}
	for (int k = 0; k < t->nr_keys; k++) {
		vis[k] |= !nvis;
		if (vis[k])
			last = k;
	}
	nvis = nvis ? nvis : t->nr_keys;
	int x = x0 + pw + (t->show_nr ? 14 : 0) + (t->show_period ? 14 : 0), need = 0, cut = INT_MAX;
	int nat[TUI_MAX_KEYS], room = COLS - x - 2 * nvis, sum = 0;

	for (int k = 0; k < t->nr_keys; k++) {
		size_t w = strlen(t->headers[k]);

		nat[k] = 0;
		if (!vis[k])
			continue;

		/* the first 2048 rows' widths: a large table's first rows
		 * sorted (report's RT_READY), so that the columns keep their
		 * widths when the rest comes (they grew a second after an 's') */
		for (size_t i = 0; i < b->nord && i < 2048; i++) {
			size_t l = tui_row_text_len(t, b->order[i], k);

			if (l > w)
				w = l;
		}
		nat[k] = w > 4096 ? 4096 : (int)w;
		sum += nat[k];
	}
	if (sum > room || sum - nat[last] > room - 12) {   /* the largest cut that fits */
		int lo = 8, hi = 4096;

		while (lo < hi) {
			int c = (lo + hi + 1) / 2, s = 0;

			for (int k = 0; k < last; k++)
				s += vis[k] ? (nat[k] < c ? nat[k] : c) : 0;
			if (s <= room - 12 && s + (nat[last] < c ? nat[last] : c) <= room)
				lo = c;
			else
				hi = c - 1;
		}
		cut = lo;
	}
	for (int k = 0; k < t->nr_keys; k++) {
		kw[k] = k == last ? 0 : nat[k] > cut ? cut : nat[k];
		need += vis[k] ? kw[k] + 2 : 0;
		show_key[k] = vis[k];
	}
	if (x + need + 12 > COLS && nvis > 1)
		for (int k = 0; k < last; k++)
			show_key[k] = false;
	for (int k = 0; k < t->nr_keys; k++) {
		if (!show_key[k])
			continue;
		kx[k] = x;
		if (k == last)
			kw[k] = COLS - x > 0 ? COLS - x : 0;
		x += kw[k] + 2;
	}

	/* header */
	attron(A_BOLD);
	mvhline(1, 0, ' ', COLS);
	snprintf(buf, sizeof(buf), "%*s%s%s%s", x0, "", b->children ? "Children      Self" : "Overhead",
		 t->show_nr ? "       Samples" : "", t->show_period ? "        Period" : "");
	put(b, 1, 0, buf, COLS);
	int narrow = 0;   /* key columns the screen is too narrow for */

	for (int k = 0; k < t->nr_keys; k++)
		narrow += vis[k] && !show_key[k];
	for (int k = 0; k < t->nr_keys; k++) {
		if (!show_key[k])
			continue;
		if (k == last && narrow)   /* said, not hidden silently */
			snprintf(buf, sizeof(buf), "%s (+%d hidden)", t->headers[k], narrow);
		else
			snprintf(buf, sizeof(buf), "%s", t->headers[k]);
		put(b, 1, kx[k], buf, kw[k] < COLS - kx[k] ? kw[k] : COLS - kx[k]);
	}
	attroff(A_BOLD);

	/* keep the selection on screen */
	if (b->sel < b->top)
		b->top = b->sel;
	if (b->sel >= b->top + (size_t)h)
		b->top = b->sel - (size_t)h + 1;
	if (b->top + (size_t)h > b->nlines)
		b->top = b->nlines > (size_t)h ? b->nlines - (size_t)h : 0;
	/* a graph line selected that is wider than the screen (11 columns a
	 * level: 40 columns hold two levels): the lines of its graph drawn
	 * shifted left, a '<' at their left edge, as far as its end needs
	 * (the graph's context kept), at most to two columns before its
	 * marker ("|--", "+-"), which shows whole */
	size_t shift = 0, shift_row = SIZE_MAX;

	if (b->nlines && b->lines[b->sel].off != SIZE_MAX && b->graph[b->lines[b->sel].row]) {
		const char *g = b->graph[b->lines[b->sel].row] + b->lines[b->sel].off;
		const char *nl = strchr(g, '\n');
		size_t len = nl ? (size_t)(nl - g) : strlen(g);
		long c = graph_col(g);

		if (c > 2 && len > (size_t)COLS) {
			size_t to_end = len + 2 - (size_t)COLS;   /* the end on the screen, after the '<' */

			shift = to_end < (size_t)c - 2 ? to_end : (size_t)c - 2;
			shift_row = b->lines[b->sel].row;
		}
	}
	for (int i = 0; i < h && b->top + (size_t)i < b->nlines; i++) {
		size_t li = b->top + (size_t)i;
		const struct line *l = &b->lines[li];
		const struct tui_row *r = &t->rows[l->row];
		int y = 2 + i;
		bool sel = li == b->sel;
		attr_t sa = sel ? (b->color ? COLOR_PAIR(C_SELECTED) : A_REVERSE) : A_NORMAL;
		double tot = t->total ? (double)t->total : 1;

		if (sel) {
			attron(sa);
			mvhline(y, 0, ' ', COLS);
		}
		if (l->off == SIZE_MAX) {
			const char *mark = !r->has_graph ? " " : b->expanded[l->row] ? (b->utf8 ? "\u25be" : "-")
								      : (b->utf8 ? "\u25b8" : "+");
			int px = x0;

			put_w(b, y, 0, mark, COLS);
			if (b->children)
				px = put_pct(b, y, px, 100.0 * (double)r->children / tot, sel);
			px = put_pct(b, y, px, 100.0 * (double)r->self / tot, sel);
			if (t->show_nr) {
				snprintf(buf, sizeof(buf), "%12llu", (unsigned long long)r->nr);
				put(b, y, px, buf, COLS - px);
				px += 14;
			}
			if (t->show_period) {
				snprintf(buf, sizeof(buf), "%12llu", (unsigned long long)r->self);
				put(b, y, px, buf, COLS - px);
			}
			for (int k = 0; k < t->nr_keys; k++)
				if (show_key[k] && kx[k] < COLS)
					put(b, y, kx[k], tui_row_text(t, l->row, k), kw[k] < COLS - kx[k] ? kw[k] : COLS - kx[k]);
		} else {
			const char *g = b->graph[l->row] + l->off;
			const char *nl = strchr(g, '\n');
			size_t len = nl ? (size_t)(nl - g) : strlen(g);
			long c = b->nfold && is_folded(b, l->row, l->off) ? graph_col(g) : -1;
			char *heap = NULL;   /* a folded line longer than buf */

			if (c >= 0 && (size_t)c < len) {   /* folded: "+-" */
				char *m = len < sizeof(buf) ? buf : (heap = xmalloc(len));

				memcpy(m, g, len);
				m[c] = '+';
				g = m;
			}
			if (l->row == shift_row) {   /* shifted (a name's UTF-8 not cut) */
				size_t k = shift < len ? shift : len;

				while (k < len && ((unsigned char)g[k] & 0xc0) == 0x80)
					k++;
				g += k;
				len -= k;
			}
			put_w(b, y, 0, esc(b, g, len), COLS);
			free(heap);
			if (l->row == shift_row && COLS > 0)
				put_w(b, y, 0, "<", 1);
		}
		if (sel)
			attroff(sa);
	}

	/* status line */
	const char *st = b->ops->status ? b->ops->status(b->ctx) : NULL;

	if (b->msg[0]) {
		snprintf(buf, sizeof(buf), "%s", b->msg);
	} else {
		size_t n = b->nord + b->t->nr_rows - nr_ready(b);

		snprintf(buf, sizeof(buf), "%zu row%s%s%s  Press '?' for help%s", n, n == 1 ? "" : "s",
			 st ? "  " : "", st ? st : "", b->notice);
	}
	bar(b, LINES - 1, buf);
	refresh();
}

/* ---- keys ---- */

static void remember(struct br *b);

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void print_view(struct br *b);

/* 'P''s child: reap it when done (wait: block until it is), its message
 * in b->msg; a 'P' pressed meanwhile then starts the next file.  Returns
 * true when it was reaped. */
static bool writer_done(struct br *b, bool wait)
{
	int st = 0;
	char m[400];
	ssize_t n;

	if (b->writer <= 0 || waitpid(b->writer, &st, wait ? 0 : WNOHANG) == 0)
		return false;
	n = read(b->writer_fd, m, sizeof(m) - 1);
	m[n > 0 ? n : 0] = 0;
	close(b->writer_fd);
	b->writer = 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		snprintf(b->msg, sizeof(b->msg), "the view written to %.400s", b->writer_path);
	else
		snprintf(b->msg, sizeof(b->msg), "P: %s", m[0] ? m : "the writer failed");
	if (!b->ops->tick || b->o->tick_ms <= 0)
		timeout(-1);   /* blocking reads again */
	if (b->p_queued > 0) {   /* the next 'P' */
		b->p_queued--;
		print_view(b);
	}
	return true;
}

/* How long the browser waits for a key before it sorts the rest of a
 * table sorted in part (tui.h order_rest), so that scrolling and '-' find
 * it done: a person's pause between keys is longer. */
#define IDLE_MS 100
/* How often a pause asks whether a call graph being made is there
 * (ops.graph_ready), to show it: a person sees it within this of its end. */
#define PENDING_MS 20
/* How often tui_progress draws at most. */
#define PROGRESS_MS 50

/* A key; ERR after a live tick that changed the table (or ended: b->end).
 * Ticks come every tick_ms even while keys keep arriving. */
static int getkey(struct br *b, bool *changed)
{
	double pause_at = mono_ms();   /* since when no key came */

	for (;;) {
		bool still = b->idle && (!b->ops->tick || b->o->tick_ms <= 0) && b->writer <= 0;
		bool poll = still && b->npending;   /* graphs being made: shown once made */
		bool idle = still && (nr_ready(b) < b->t->nr_rows || (b->ops->idle && !b->idle_done) ||
				      other_order_missing(b));
		int ch, r;

		if (idle || poll)
			timeout(poll ? PENDING_MS : IDLE_MS);
		ch = getch();
		if (ch == ERR && b->idle && b->npending && pending_ready(b)) {
			if (idle || poll)
				timeout(-1);
			rebuild(b);
			off_connector(b);   /* the line selected may be a connector now */
			return KEY_IDLE;
		}
		/* a poll's wait short of a pause: no pause's work yet */
		if (poll && (!idle || (ch == ERR && mono_ms() - pause_at < IDLE_MS))) {
			timeout(-1);
			if (ch == ERR)
				continue;
		}
		if (idle) {
			timeout(-1);
			/* no key yet: what the next key may need (report starts
			 * threads there), then the rest of the rows */
			if (ch == ERR && b->ops->idle && !b->idle_done) {
				b->idle_done = b->ops->idle(b->ctx, sel_row(b)) != TUI_IDLE_AGAIN;
			}
			/* the rest of the rows, once made (not waited for) */
			if (ch == ERR && (!b->t->rest_ready || b->t->rest_ready(b->t->text_ctx)) && need_all(b)) {
				rebuild(b);
				return KEY_IDLE;
			}
			if (ch == ERR && other_order_missing(b))   /* for '-' */
				make_order(b, !b->children);
			pause_at = mono_ms();   /* the next pause's work after another */
			if (ch == ERR)
				continue;
		}
		if (ch != ERR)   /* a key: the next pause may have new work */
			b->idle_done = false;

		if (ch == ERR && writer_done(b, false))
			return KEY_WRITTEN;
		if (!b->ops->tick || b->o->tick_ms <= 0) {
			if (ch == ERR && b->writer > 0)
				continue;   /* the 50 ms poll of the writer */
			if (ch != ERR) {
				b->nerr = 0;
				return ch;
			}
			if (++b->nerr >= 100) {   /* a blocking read that keeps failing: no input left */
				b->end = true;
				return ERR;
			}
			continue;
		}
		if (ch != ERR && mono_ms() - b->last_tick < b->o->tick_ms)
			return ch;
		if (ch != ERR)
			ungetch(ch);
		remember(b);
		r = b->ops->tick(b->ctx);
		b->last_tick = mono_ms();   /* after it: a slow tick cannot starve keys */
		if (r < 0) {
			b->end = true;
			return ERR;
		}
		if (r > 0) {
			*changed = true;
			return ERR;
		}
	}
}


static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void free_names(struct tui_row *r)
{
	free((char *)r->sym);
	free((char *)r->dso);
	free((char *)r->comm);
}

static struct tui_row copy_names(const struct tui_row *o)
{
	return (struct tui_row){ .sym = o->sym ? xstrdup(o->sym) : NULL, .dso = o->dso ? xstrdup(o->dso) : NULL,
				 .comm = o->comm ? xstrdup(o->comm) : NULL, .tid = o->tid };
}

static void forget_open(struct br *b)
{
	for (size_t i = 0; i < b->nopen; i++)
		free_names(&b->open[i]);
	free(b->open);
	b->open = NULL;
	b->nopen = 0;
	for (size_t i = 0; i < b->nkfold; i++) {
		free_names(&b->kfold[i].row);
		free(b->kfold[i].path);
	}
	free(b->kfold);
	b->kfold = NULL;
	b->nkfold = 0;
}

static bool same_row(const struct tui_row *a, const struct tui_row *c)
{
	return same_name(a->sym, c->sym) && same_name(a->dso, c->dso) && same_name(a->comm, c->comm) &&
	       a->tid == c->tid;
}

/* The selected row's names, taken before a callback may change the table
 * (its rows are then gone): reload() selects the row of the same names. */
static void remember(struct br *b)
{
	size_t r = b->nlines && b->sel < b->nlines ? b->lines[b->sel].row : SIZE_MAX;
	const struct tui_row *w = r != SIZE_MAX && r < b->t->nr_rows ? &b->t->rows[r] : NULL;

	free(b->keep_sym);
	free(b->keep_dso);
	free(b->keep_comm);
	b->keep_sym = w && w->sym ? xstrdup(w->sym) : NULL;
	b->keep_dso = w && w->dso ? xstrdup(w->dso) : NULL;
	b->keep_comm = w && w->comm ? xstrdup(w->comm) : NULL;
	b->keep_tid = w ? w->tid : 0;
	b->keep = w != NULL;
	b->keep_pos = b->sel;
	free(b->keep_path);   /* a graph line selected: its node's path and place */
	b->keep_path = NULL;
	free(b->keep_name);
	b->keep_name = NULL;
	if (w && b->lines[b->sel].off != SIZE_MAX && r < b->nrows_alloc && b->graph[r]) {
		size_t len, node = node_of(b->graph[r], b->lines[b->sel].off, &b->keep_k);
		const char *nm = line_name(b->graph[r] + b->lines[b->sel].off, &len);

		if (node != SIZE_MAX)
			b->keep_path = node_path(b->graph[r], node);
		if (nm)
			b->keep_name = xstrndup(nm, len);
	}
	forget_open(b);
	for (size_t i = 0; i < b->nrows_alloc && i < b->t->nr_rows; i++) {
		const struct tui_row *o = &b->t->rows[i];

		if (!b->expanded[i] || b->expand_all)
			continue;
		b->open = xrealloc(b->open, (b->nopen + 1) * sizeof(*b->open));
		b->open[b->nopen++] = copy_names(o);
	}
	/* the folded nodes, by their row's names and their node path */
	for (size_t i = 0; i < b->nfold; i++) {
		const struct line *f = &b->fold[i];

		if (f->row >= b->t->nr_rows || f->row >= b->nrows_alloc || !b->graph[f->row])
			continue;
		b->kfold = xrealloc(b->kfold, (b->nkfold + 1) * sizeof(*b->kfold));
		b->kfold[b->nkfold++] = (struct kept_fold){ copy_names(&b->t->rows[f->row]),
							    node_path(b->graph[f->row], f->off) };
	}
}

static void reload(struct br *b)
{
	reset_rows(b);
	if (b->nopen)   /* an unfolded row may be anywhere */
		need_all(b);
	for (size_t k = 0; k < b->nopen; k++)   /* unfolded rows stay unfolded */
		for (size_t i = 0; i < b->t->nr_rows; i++)
			if (b->t->rows[i].has_graph && same_row(&b->t->rows[i], &b->open[k])) {
				b->expanded[i] = true;
				break;
			}
	for (size_t k = 0; k < b->nkfold; k++)   /* folded nodes stay folded */
		for (size_t i = 0; i < b->t->nr_rows; i++)
			if (b->expanded[i] && same_row(&b->t->rows[i], &b->kfold[k].row)) {
				size_t off = find_node(graph_of(b, i), b->kfold[k].path);

				if (off != SIZE_MAX && !is_folded(b, i, off)) {
					b->fold = xrealloc(b->fold, (b->nfold + 1) * sizeof(*b->fold));
					b->fold[b->nfold++] = (struct line){ i, off };
				}
				break;
			}
	b->nlines = 0;
	rebuild(b);
	b->sel = b->keep_pos < b->nlines ? b->keep_pos : b->nlines ? b->nlines - 1 : 0;
	for (size_t i = 0; b->keep && i < b->nlines; i++) {
		const struct tui_row *n = &b->t->rows[b->lines[i].row];

		if (b->lines[i].off == SIZE_MAX && same_name(n->sym, b->keep_sym) && same_name(n->dso, b->keep_dso) &&
		    same_name(n->comm, b->keep_comm) && n->tid == b->keep_tid) {
			b->sel = i;
			break;
		}
	}
	/* a graph line was selected: the same line of the same node, if shown */
	size_t r = b->nlines ? b->lines[b->sel].row : SIZE_MAX;
	const char *g = b->keep && b->keep_path && r != SIZE_MAX && b->expanded[r] ? graph_of(b, r) : NULL;
	size_t off = g ? find_node(g, b->keep_path) : SIZE_MAX;

	for (size_t k = 0; off != SIZE_MAX && k < b->keep_k; k++) {
		const char *nl = strchr(g + off, '\n');

		off = nl && nl[1] ? (size_t)(nl + 1 - g) : SIZE_MAX;
	}
	if (off != SIZE_MAX && b->keep_name && !line_named(g + off, b->keep_name))
		off = SIZE_MAX;   /* the place holds another name now */
	size_t row_line = b->sel;

	for (size_t i = b->sel; off != SIZE_MAX && i < b->nlines && b->lines[i].row == r; i++)
		if (b->lines[i].off == off) {
			b->sel = i;
			break;
		}
	/* not there (the graph's shape changed: a chain line became a node,
	 * another caller came): the first line of the graph with its name */
	for (size_t i = row_line + 1; g && b->sel == row_line && b->keep_name && i < b->nlines && b->lines[i].row == r;
	     i++)
		if (line_named(g + b->lines[i].off, b->keep_name)) {
			b->sel = i;
			break;
		}
}

/* A line of input on the status line; NULL when cancelled.  It starts
 * with init, which the first character typed replaces (as a selected
 * field's text) unless it is a ',' (keys added to init's) or an editing
 * key came first (Backspace, Ctrl-W: init is being edited). */
static char *prompt(struct br *b, const char *label, const char *init)
{
	struct strbuf sb = STRBUF_INIT;
	bool fresh = init && *init;

	sb_addstr(&sb, init ? init : "");
	curs_set(1);
	for (;;) {
		char line[1024];
		bool changed = false;
		int ch;

		snprintf(line, sizeof(line), "%s%s", label, sb.buf);
		/* wider than the screen: its end, where the typing is (the
		 * label goes first) */
		size_t shown = strlen(line) < (size_t)COLS ? 0 : strlen(line) - (size_t)(COLS > 1 ? COLS - 1 : 1);

		bar(b, LINES - 1, line + shown);
		move(LINES - 1, (int)(strlen(line) - shown));
		refresh();
		ch = getkey(b, &changed);
		if (changed)
			reload(b);
		if (b->end) {
			sb_release(&sb);
			curs_set(0);
			return NULL;
		}
		if (ch == ERR || ch == KEY_RESIZE) {
			draw(b);
			continue;
		}
		if (ch == 27) {
			sb_release(&sb);
			curs_set(0);
			return NULL;
		}
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
			break;
		if (fresh && ch >= 0x20 && ch < 0x100 && ch != 0x7f && ch != ',')
			sb_reset(&sb);
		fresh = false;
		if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
			if (sb.len)
				sb_setlen(&sb, sb.len - 1);
		} else if (ch == 0x15) {   /* Ctrl-U: the whole line, as readline */
			sb_reset(&sb);
		} else if (ch == 0x17) {   /* Ctrl-W: the word before the cursor (and the separators after it) */
			while (sb.len && (sb.buf[sb.len - 1] == ' ' || sb.buf[sb.len - 1] == ','))
				sb_setlen(&sb, sb.len - 1);
			while (sb.len && sb.buf[sb.len - 1] != ' ' && sb.buf[sb.len - 1] != ',')
				sb_setlen(&sb, sb.len - 1);
		} else if (ch >= 0x20 && ch < 0x100 && ch != 0x7f && sb.len < 512) {
			sb_addch(&sb, ch);
		}
	}
	curs_set(0);
	return sb_detach(&sb, NULL);
}

/* A yes/no question on the status line, as perf's "Do you really want to
 * exit?": y or Enter is yes, any other key no. */
static bool confirm(struct br *b, const char *question)
{
	for (;;) {
		bool changed = false;
		int ch;

		bar(b, LINES - 1, question);
		refresh();
		ch = getkey(b, &changed);
		if (changed)
			reload(b);
		if (b->end)
			return true;
		if (ch == ERR || ch == KEY_RESIZE || ch == KEY_IDLE || ch == KEY_WRITTEN) {
			draw(b);
			continue;
		}
		return ch == 'y' || ch == 'Y' || ch == '\n' || ch == '\r' || ch == KEY_ENTER;
	}
}

/* A scrolling text view (annotation, help) until q/Esc/Left. */
static void pager(struct br *b, const char *title, const char *text)
{
	size_t *lo = NULL, n = 0, alloc = 0, top = 0;

	for (size_t off = 0; text[off];) {
		const char *nl = strchr(text + off, '\n');

		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 256;
			lo = xrealloc(lo, alloc * sizeof(*lo));
		}
		lo[n++] = off;
		off = nl ? (size_t)(nl - text) + 1 : strlen(text);
	}
	for (;;) {
		int h = body_lines() + 1;
		bool changed = false;

		if (top + (size_t)h > n)
			top = n > (size_t)h ? n - (size_t)h : 0;
		erase();
		bar(b, 0, title);
		for (int i = 0; i < h && top + (size_t)i < n; i++) {
			const char *l = text + lo[top + (size_t)i];
			const char *nl = strchr(l, '\n');

			put_w(b, 1 + i, 0, esc(b, l, nl ? (size_t)(nl - l) : strlen(l)), COLS);
		}
		bar(b, LINES - 1, "q, Esc, Left: back   Up/Down/PgUp/PgDn: scroll");
		refresh();
		int ch = getkey(b, &changed);

		if (changed)   /* live: the table behind moved on */
			reload(b);
		if (ch == 'q' || ch == 27 || ch == KEY_LEFT || b->end)
			break;
		if (ch == KEY_DOWN || ch == 'j')
			top++;
		else if ((ch == KEY_UP || ch == 'k') && top)
			top--;
		else if (ch == KEY_NPAGE || ch == ' ')
			top += (size_t)h;
		else if (ch == KEY_PPAGE)
			top = top > (size_t)h ? top - (size_t)h : 0;
		else if (ch == KEY_HOME || ch == KEY_FIND || ch == 'g')
			top = 0;
		else if (ch == KEY_END || ch == KEY_SELECT || ch == 'G')
			top = n;
	}
	free(lo);
}

/* text's lines wider than cols wrapped at spaces into sb, a line's
 * continuations indented to its description (after its first gap of two
 * spaces: "  Left    collapse it"), at most a third of the width. */
static void wrap_text(struct strbuf *sb, const char *text, size_t cols)
{
	if (cols < 8)
		cols = 8;
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l), ind = 0, at = 0;

		for (size_t i = 2; i + 1 < len && !ind; i++)   /* the description's column */
			if (l[i] == ' ' && l[i + 1] == ' ' && l[i - 1] != ' ') {
				ind = i;
				while (ind < len && l[ind] == ' ')
					ind++;
			}
		if (ind > cols / 3 || ind >= len)
			ind = cols / 3;
		while (len - at > (at ? cols - ind : cols)) {   /* one screen line a pass */
			size_t room = at ? cols - ind : cols, cut = at + room;

			while (cut > at + 1 && l[cut] != ' ')
				cut--;
			if (cut <= at + 1)   /* one word wider than the line: cut it */
				cut = at + room;
			if (at)
				sb_addf(sb, "%*s", (int)ind, "");
			sb_add(sb, l + at, cut - at);
			sb_addstr(sb, "\n");
			at = cut;
			while (at < len && l[at] == ' ')
				at++;
		}
		if (at)
			sb_addf(sb, "%*s", (int)ind, "");
		sb_add(sb, l + at, len - at);
		sb_addstr(sb, "\n");
		l = nl ? nl + 1 : l + len;
	}
}

/* The keys 's' takes, as its prompt and '?' name them. */
static const char *sort_keys(const struct br *b)
{
	return b->o->sort_keys ? b->o->sort_keys : "comm, dso, sym, pid, tid, srcline, trace, cpu";
}

static void show_help(struct br *b)
{
	struct strbuf sb = STRBUF_INIT, w = STRBUF_INIT;

	/* c and t where rows name a command (not perf top's, a process's
	 * functions), + and - where there is a Children view, Tab where the
	 * source has events to switch between */
	bool comm = false;

	for (size_t i = 0; i < b->t->nr_rows && i < 64 && !comm; i++)
		comm = b->t->rows[i].comm != NULL;
	sb_addf(&sb, help_text,
		comm ? "  c                zoom into the selected row's command (again: zoom out)\n"
		       "  t                zoom into the selected row's thread (again: zoom out)\n" : "",
		sort_keys(b), b->t->children ? "  + / -            Children column on / off\n" : "",
		b->ops->next_event ? "  Tab / Shift-Tab  the next / previous event's table (a file of several events)\n"
				   : "");
	if (b->o->help_extra) {
		sb_addstr(&sb, "\n");
		sb_addstr(&sb, b->o->help_extra);
	}
	if (b->o->notice && *b->o->notice) {   /* whole: the status line showed its start */
		sb_addstr(&sb, "\nWarnings about the input\n\n");
		sb_addstr(&sb, b->o->notice);
		if (b->o->notice[strlen(b->o->notice) - 1] != '\n')
			sb_addstr(&sb, "\n");
	}
	wrap_text(&w, sb.buf, COLS > 0 ? (size_t)COLS : 80);   /* at this width: no line cut off */
	pager(b, "Help", w.buf);
	sb_release(&w);
	sb_release(&sb);
}

/* The function a call-graph line names, in buf (perf's --stdio graph: a
 * prefix of spaces, '|' and '-', then "NN.NN%--" on a branch's first
 * line); false when the line names none. */
static bool graph_line_sym(const char *g, size_t off, char *buf, size_t size)
{
	const char *p = g + off, *e = strchr(p, '\n'), *q;

	if (!e)
		e = p + strlen(p);
	while (p < e && (*p == ' ' || *p == '|' || *p == '-'))
		p++;
	for (q = p; q < e && ((*q >= '0' && *q <= '9') || *q == '.'); q++)
		;
	if (q > p && q < e && *q == '%')   /* a share, or a period or count (-g ...,period) */
		q++;
	if (q > p && q + 1 < e && q[0] == '-' && q[1] == '-') {   /* then "--" */
		for (q++; q < e && *q == '-'; q++)
			;
		p = q;
	}
	while (e > p && e[-1] == ' ')
		e--;
	if (p == e)
		return false;
	snprintf(buf, size, "%.*s", (int)(e - p), p);
	return true;
}

/* 'a' on a call-graph line: the first row of the view with the function
 * the line names (perf annotates a callchain entry's symbol), or
 * SIZE_MAX: then name holds the function's name when the line has one
 * (else it is empty and b->msg says why). */
static size_t graph_line_row(struct br *b, char *name, size_t size)
{
	size_t grow = b->lines[b->sel].row;   /* the lines may move (rebuild) */
	const char *g = graph_of(b, grow);

	name[0] = 0;
	if (!g || !graph_line_sym(g, b->lines[b->sel].off, name, size)) {
		name[0] = 0;
		snprintf(b->msg, sizeof(b->msg), "no function on this line to annotate");
		return SIZE_MAX;
	}
	if (need_all(b))
		rebuild(b);
	/* the graph's own command first: a name in two programs (main) or
	 * in a program and the kernel is the graph's row's process's */
	const char *comm = b->t->rows[grow].comm;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < b->nord; i++) {
			const struct tui_row *row = &b->t->rows[b->order[i]];

			if (row->sym && !strcmp(row->sym, name) &&
			    (pass || !comm || (row->comm && !strcmp(row->comm, comm))))
				return b->order[i];
		}
	for (size_t i = 0; i < b->t->nr_rows; i++)   /* a row the filters hide */
		if (b->t->rows[i].sym && !strcmp(b->t->rows[i].sym, name))
			return i;
	snprintf(b->msg, sizeof(b->msg), "no row of %.200s to annotate", name);
	return SIZE_MAX;
}

static void annotate(struct br *b)
{
	size_t r = sel_row(b), grow = r;
	char *buf = NULL, name[512] = "";
	size_t len = 0;
	FILE *fp;
	int err;

	if (r == SIZE_MAX || !b->ops->annotate)
		return;
	bool by_sym = false;

	for (int k = 0; k < b->t->nr_keys; k++)
		by_sym |= b->t->kind[k] == 's';
	if (b->lines[b->sel].off == SIZE_MAX && !by_sym) {
		/* a row of a command, DSO or thread: many functions (perf's refusal) */
		snprintf(b->msg, sizeof(b->msg), "annotation is for rows of functions: add sym to the sort keys "
			 "('s'), or press 'a' on a call-graph line");
		return;
	}
	if (b->lines[b->sel].off != SIZE_MAX && (r = graph_line_row(b, name, sizeof(name))) == SIZE_MAX &&
	    (!name[0] || !b->ops->annotate_name))
		return;
	if (r != SIZE_MAX && !b->t->rows[r].sym) {
		snprintf(b->msg, sizeof(b->msg), "no symbol to annotate (an unknown address)");
		return;
	}
	b->msg[0] = 0;
	bar(b, LINES - 1, "annotating ...");
	refresh();
	fp = open_memstream(&buf, &len);
	if (!fp)
		return;
	pk_error_clear();
	/* a function no row has (keys without sym): by its name */
	err = r == SIZE_MAX ? b->ops->annotate_name(b->ctx, grow, name, fp) : b->ops->annotate(b->ctx, r, fp);
	fclose(fp);
	if (err < 0) {
		snprintf(b->msg, sizeof(b->msg), "annotate: %s", pk_errmsg()[0] ? pk_errmsg() : strerror(-err));
	} else {
		char title[600];

		snprintf(title, sizeof(title), "Annotation of %s", r == SIZE_MAX ? name : b->t->rows[r].sym);
		pager(b, title, buf);
	}
	free(buf);
}

/* graph_visible's emit for write_view: the line's text */
struct shown_text {
	const struct br *b;
	size_t r;
	const char *g;
	struct strbuf sb;
};

static void add_shown_text(void *ctx, size_t off, size_t end)
{
	struct shown_text *st = ctx;
	size_t at = st->sb.len;
	long c;

	sb_add(&st->sb, st->g + off, end - off);
	if (is_folded(st->b, st->r, off) && (c = graph_col(st->g + off)) >= 0)
		st->sb.buf[at + (size_t)c] = '+';   /* folded: "+-", as drawn */
}

/* The value 'P' prints for column k in place of the column, as
 * report --stdio's "# dso: VALUE" of --dsos VALUE (tui_table.elided): the
 * command's, else a command or DSO zoom's (as the column shows it); NULL:
 * the column is printed (a thread zoom's too: --tid elides nothing). */
static const char *elided_value(const struct br *b, int k)
{
	const struct tui_table *t = b->t;

	if (t->elided[k])
		return t->elided[k];
	for (int i = 0; i < b->nfilt; i++) {
		const struct filt *f = &b->filt[i];

		if ((f->kind == 'c' || f->kind == 'd') && f->kind == t->kind[k])
			return filt_shown(f);
	}
	return NULL;
}

/* Write the view to path (outfile: whole or not at all), the graphs as
 * shown (folded nodes without their subtrees); 0 or -errno. */
static int write_view(struct br *b, const char *path)
{
	struct outfile of;
	const char **g;
	const char *elide[TUI_MAX_KEYS];
	bool *folded;
	int err = of_open_shared(&of, path);

	if (err)
		return err;
	if (need_all(b))
		rebuild(b);
	g = xcalloc(b->nord + 1, sizeof(*g));
	folded = xcalloc(b->nord + 1, sizeof(*folded));
	for (size_t i = 0; i < b->nord; i++) {
		size_t r = b->order[i];

		if (!b->expanded[r])
			continue;
		g[i] = graph_of_wait(b, r, true);
		if (g[i] && b->nfold) {   /* folded nodes: the lines shown */
			struct shown_text st = { b, r, g[i], { 0 } };

			sb_init(&st.sb, 0);
			graph_visible(b, r, g[i], add_shown_text, &st);
			g[i] = sb_detach(&st.sb, NULL);
			folded[i] = true;
		}
	}
	for (int k = 0; k < b->t->nr_keys; k++)
		elide[k] = elided_value(b, k);
	/* the widths: of the rows under --percent-limit too */
	size_t *wide = NULL, nwide = 0;

	if (b->t->percent_limit > 0) {
		const size_t *so = b->sorted[b->children];
		size_t n = nr_ready(b);

		wide = xmalloc((n + 1) * sizeof(*wide));
		for (size_t k = 0; k < n; k++)
			if (row_passes_if(b, &b->t->rows[so[k]], false))
				wide[nwide++] = so[k];
	}
	tui_print_stdio(of.f, b->t, b->order, b->nord, b->children, g, elide, wide, nwide);
	free(wide);
	for (size_t i = 0; i < b->nord; i++)
		if (folded[i])
			free((char *)g[i]);
	free(folded);
	free(g);
	return of_commit(&of);
}

/* Whether the allocator locks itself around fork(), so that 'P' may fork
 * while the ops' threads allocate: glibc's malloc does.  AddressSanitizer's
 * runtime as Debian 12 ships it (clang 14) does not: a child forked while
 * another thread allocates can wait forever for a lock of its copy (4
 * children of 300 in a test of a thread allocating beside fork, none with
 * glibc's malloc).  CI's sanitized pass lost a 'P' so; those builds stop
 * the ops' threads first (tui.h before_fork). */
#if defined(__SANITIZE_ADDRESS__)
#define FORK_LOCKS_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FORK_LOCKS_MALLOC 0
#endif
#endif
#ifndef FORK_LOCKS_MALLOC
#define FORK_LOCKS_MALLOC 1
#endif

/* 'P': a child process writes the view (a copy of the browser's memory),
 * so the key answers at once; the status line says when the file is
 * there (getkey polls the child every 50 ms).  Without fork: written here. */
static void print_view(struct br *b)
{
	const char *prefix = b->o->hist_prefix ? b->o->hist_prefix : "perf.hist";
	char *path = b->writer_path;
	struct stat st;
	int err, fd[2];
	pid_t pid;

	if (b->writer > 0) {   /* written after it, as perf writes one file a key */
		b->p_queued++;
		snprintf(b->msg, sizeof(b->msg), "writing %.400s; %d more after it", path, b->p_queued);
		return;
	}
	for (unsigned i = 0;; i++) {
		snprintf(path, sizeof(b->writer_path), "%s.%u", prefix, i);
		if (lstat(path, &st) && errno == ENOENT)
			break;
		if (i > 100000) {
			snprintf(b->msg, sizeof(b->msg), "P: no free %s.N name", prefix);
			return;
		}
	}
	fflush(stdout);
	if (pipe2(fd, O_CLOEXEC) == 0) {
		if (!FORK_LOCKS_MALLOC && b->ops->before_fork)
			b->ops->before_fork(b->ctx);
		pid = fork();
		if (pid == 0) {   /* the child: write, say why not, leave (no atexit, no curses) */
			close(fd[0]);
			signal(SIGINT, SIG_IGN);
			signal(SIGTERM, SIG_DFL);   /* the terminal is the browser's */
			signal(SIGHUP, SIG_DFL);
			err = write_view(b, path);
			if (err) {
				const char *m = pk_errmsg();
				ssize_t w = write(fd[1], m, strlen(m));

				(void)w;
			}
			_exit(err ? 1 : 0);
		}
		close(fd[1]);
		if (pid > 0) {
			b->writer = pid;
			b->writer_fd = fd[0];
			snprintf(b->msg, sizeof(b->msg), "writing %.400s ...", path);
			timeout(50);
			return;
		}
		close(fd[0]);
	}
	err = write_view(b, path);
	if (err)
		snprintf(b->msg, sizeof(b->msg), "P: %s", pk_errmsg());
	else
		snprintf(b->msg, sizeof(b->msg), "the view written to %.400s", path);
}

static void pop_filter(struct br *b, int i)
{
	free(b->filt[i].val);
	memmove(&b->filt[i], &b->filt[i + 1], (size_t)(b->nfilt - i - 1) * sizeof(b->filt[0]));
	b->nfilt--;
}

static void zoom(struct br *b, int kind)
{
	size_t r = sel_row(b);

	for (int i = 0; i < b->nfilt; i++)
		if (b->filt[i].kind == kind) {   /* zoom out */
			pop_filter(b, i);
			rebuild(b);
			return;
		}
	if (r == SIZE_MAX || b->nfilt == NFILT)
		return;
	const struct tui_row *row = &b->t->rows[r];
	const char *v = kind == 'd' ? row->dso : kind == 'c' ? row->comm : b->t->no_threads ? NULL : "";

	if (!v) {   /* (top's rows: no command, no thread) */
		snprintf(b->msg, sizeof(b->msg), "no %s to zoom into: this table's rows have none",
			 kind == 'd' ? "DSO" : kind == 'c' ? "command" : "thread");
		return;
	}
	b->filt[b->nfilt++] = (struct filt){ kind, xstrdup(v), row->tid };
	rebuild(b);
}

static void search(struct br *b)
{
	const char *cur = "";

	for (int i = 0; i < b->nfilt; i++)   /* the filter in force, to edit (perf's) */
		if (b->filt[i].kind == '/')
			cur = b->filt[i].val;
	char *s = prompt(b, "Symbol filter: ", cur);

	if (!s)
		return;
	for (int i = b->nfilt - 1; i >= 0; i--)
		if (b->filt[i].kind == '/')
			pop_filter(b, i);
	if (*s && b->nfilt < NFILT)
		b->filt[b->nfilt++] = (struct filt){ '/', s, 0 };
	else
		free(s);
	b->sel = 0;
	rebuild(b);
}

/* After 's': the zooms (and the '/' filter) the new keys cannot show.
 * A zoom keeps the rows whose column has its value, so it holds only
 * while a column shows that value: a thread zoom kept on rows of 'dso'
 * would show each DSO's whole share under "Thread: N".  A DSO zoom holds
 * with a symbol column too (a symbol is of one DSO), '/' with a symbol
 * column.  Those dropped are named in the status line. */
static void drop_hidden_zooms(struct br *b)
{
	bool has[128] = { false };
	char gone[200] = "";
	size_t n = 0;

	for (int k = 0; k < b->t->nr_keys; k++)
		has[(unsigned char)b->t->kind[k] & 127] = true;
	for (int i = b->nfilt - 1; i >= 0; i--) {
		const struct filt *f = &b->filt[i];
		bool keep = f->kind == '/' ? has['s'] : f->kind == 'd' ? has['d'] || has['s'] : has[f->kind & 127];
		const char *what = filt_name(f->kind);

		if (keep)
			continue;
		if (n < sizeof(gone)) {
			int m = snprintf(gone + n, sizeof(gone) - n, "%s%s", n ? ", " : "", what);

			n += m > 0 ? (size_t)m : 0;
		}
		pop_filter(b, i);
	}
	if (n)
		snprintf(b->msg, sizeof(b->msg), "zoomed out of %s: no column of the new keys shows it", gone);
}

/* Aggregate again (keys, Children).  fresh: a new table, shown from its
 * top with nothing unfolded ('s', as a new perf report); else the
 * selected and unfolded rows are found again by name ('+'). */
static void regroup(struct br *b, const char *keys, bool children, bool fresh)
{
	int err;

	if (!b->ops->regroup) {
		snprintf(b->msg, sizeof(b->msg), "this view cannot aggregate again");
		return;
	}
	bar(b, LINES - 1, "aggregating again ...");
	refresh();
	pk_error_clear();
	remember(b);
	err = b->ops->regroup(b->ctx, keys, children);
	if (err == -EINVAL) {   /* keys refused: the table as it was */
		snprintf(b->msg, sizeof(b->msg), "%s", pk_errmsg());
		return;
	}
	if (err < 0) {
		b->err = err;
		return;
	}
	if (fresh) {
		b->keep = false;
		b->keep_pos = 0;
		b->top = 0;
		forget_open(b);
		drop_hidden_zooms(b);
	}
	b->children = b->t->show_children;
	reload(b);
}

static void set_children(struct br *b, bool on)
{
	if (on == b->children)
		return;
	if (on && !b->t->children) {
		if (b->ops->regroup)
			regroup(b, b->t->sort, true, false);
		if (!b->t->children && !b->msg[0])   /* none, or aggregated again and still none */
			snprintf(b->msg, sizeof(b->msg), "no Children data (the profile has no call chains)");
		return;
	}
	b->children = on;
	free_graphs(b);   /* the trees differ */
	rebuild(b);
}

static void expand(struct br *b, size_t r, bool on)
{
	if (r == SIZE_MAX || b->expanded[r] == on)
		return;
	if (on && !b->t->rows[r].has_graph) {
		snprintf(b->msg, sizeof(b->msg), "no call graph for this row");
		return;
	}
	b->expanded[r] = on;
	if (!on)   /* the selection goes back to the row */
		for (size_t i = 0; i < b->nlines; i++)
			if (b->lines[i].row == r) {
				b->sel = i;
				break;
			}
	rebuild(b);
}

/* Enter on a call-graph line: fold or unfold its node (a line of a
 * node's chain: that node's).  False when the line is no node's (the
 * graph is no tree: -g folded, flat), for Enter to act on the row. */
static bool toggle_fold(struct br *b)
{
	const struct line *l = b->nlines ? &b->lines[b->sel] : NULL;
	const char *g;
	size_t at = b->sel;

	if (!l || l->off == SIZE_MAX || !(g = b->graph[l->row]))
		return false;
	if (graph_node_name(g + l->off) < 0) {   /* a chain's line: its node's, above */
		long c = graph_col(g + l->off);

		if (c < 0)
			return false;
		while (at > 0 && b->lines[at - 1].off != SIZE_MAX && graph_node_name(g + b->lines[at - 1].off) != c) {
			long up = graph_col(g + b->lines[at - 1].off);

			if (up >= 0 && up != c)   /* another node's line: no chain of this one */
				return false;
			at--;
		}
		if (at == 0 || b->lines[at - 1].off == SIZE_MAX)
			return false;
		at--;
	}
	l = &b->lines[at];
	size_t fi = fold_index(b, l->row, l->off);

	if (fi != SIZE_MAX) {   /* folded: unfolded */
		b->fold[fi] = b->fold[--b->nfold];
		b->sel = at;
		rebuild(b);
		return true;
	}
	/* a node with nothing under it: nothing to fold */
	long name = graph_node_name(g + l->off);
	const char *nx = strchr(g + l->off, '\n');

	while (nx && nx[1] && graph_col(nx + 1) < 0 && nx[1] != '\n')
		nx = strchr(nx + 1, '\n');
	if (!nx || !nx[1] || graph_col(nx + 1) < name) {
		snprintf(b->msg, sizeof(b->msg), "nothing below this line to fold");
		b->sel = at;
		return true;
	}
	b->fold = xrealloc(b->fold, (b->nfold + 1) * sizeof(*b->fold));
	b->fold[b->nfold++] = *l;
	b->sel = at;
	rebuild(b);
	return true;
}

/* E / C.  C leaves the selected row where it is on the screen (the graph
 * lines above it go, not the view's place: it was put on the first
 * line). */
static void expand_all(struct br *b, bool on)
{
	size_t at = b->sel >= b->top ? b->sel - b->top : 0;

	b->expand_all = on;
	b->nfold = 0;   /* E and C: no node folded */
	if (need_all(b))
		rebuild(b);
	for (size_t k = 0; k < b->nord; k++)
		b->expanded[b->order[k]] = on && b->t->rows[b->order[k]].has_graph;
	rebuild(b);
	if (!on)
		b->top = b->sel >= at ? b->sel - at : 0;
}

static void setup_colors(struct br *b)
{
	if (!b->color || !has_colors() || start_color() == ERR) {
		b->color = false;
		return;
	}
	use_default_colors();
	init_pair(C_TOP, COLOR_RED, -1);
	init_pair(C_MEDIUM, COLOR_GREEN, -1);
	init_pair(C_SELECTED, COLOR_BLACK, COLOR_YELLOW);
	init_pair(C_ROOT, COLOR_WHITE, COLOR_BLUE);
}

/* Keys typed before the browser switched the terminal to keypad mode
 * (while the file was read) come in the terminal's normal cursor mode,
 * CSI sequences ("ESC [ B") where terminfo names the keypad ones ("ESC O
 * B"): both are the keys, never an Esc followed by letters (which would
 * quit).  ncurses' define_key(3X). */
static void cursor_keys_both_modes(void)
{
	static const struct { const char *seq; int key; } k[] = {
		{ "\033[A", KEY_UP }, { "\033[B", KEY_DOWN }, { "\033[C", KEY_RIGHT }, { "\033[D", KEY_LEFT },
		{ "\033[H", KEY_HOME }, { "\033[F", KEY_END }, { "\033[5~", KEY_PPAGE }, { "\033[6~", KEY_NPAGE },
		{ "\033OA", KEY_UP }, { "\033OB", KEY_DOWN }, { "\033OC", KEY_RIGHT }, { "\033OD", KEY_LEFT },
		{ "\033OH", KEY_HOME }, { "\033OF", KEY_END },
		/* Home and End as tmux, screen and the VT220 send them, and rxvt */
		{ "\033[1~", KEY_HOME }, { "\033[4~", KEY_END }, { "\033[7~", KEY_HOME }, { "\033[8~", KEY_END },
	};

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (key_defined(k[i].seq) <= 0)
			define_key(k[i].seq, k[i].key);
}

/* The browser on the screen (tui_progress draws on it), or NULL. */
static struct br *active;

void tui_progress(const char *what, uint64_t done, uint64_t total)
{
	static double last;
	double now = mono_ms();
	char line[600];

	if (!active || (now - last < PROGRESS_MS && done < total))
		return;
	last = now;
	snprintf(line, sizeof(line), "%s ... %u%%", what,
		 total ? (unsigned)((done < total ? done : total) * 100 / total) : 0);
	bar(active, LINES - 1, line);
	refresh();
}

int tui_browse(struct tui_table *t, const struct tui_ops *ops, void *ctx, const struct tui_opts *o)
{
	struct br b = { .t = t, .ops = ops, .ctx = ctx, .o = o };
	SCREEN *scr;
	const char *cs;
	bool quit = false;

	if (o->notice && *o->notice)   /* its first line; all again at the end */
		snprintf(b.notice, sizeof(b.notice), "  warning (? shows it whole): %.*s", (int)strcspn(o->notice, "\n"),
			 o->notice);
	setlocale(LC_CTYPE, "");
	cs = nl_langinfo(CODESET);
	b.utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
	b.color = o->color;
	b.children = t->children && t->show_children;
	if (o->end_on_signal)
		end_signals_save_tty();
	scr = newterm(NULL, stdout, stdin);
	if (!scr)
		return -ENOTTY;
	set_term(scr);
	active = &b;
	if (o->end_on_signal)
		end_signals_on();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	cursor_keys_both_modes();
	curs_set(0);
	set_escdelay(25);
	if (o->tick_ms > 0)
		timeout(o->tick_ms);
	setup_colors(&b);
	reset_rows(&b);
	rebuild(&b);
	while (!quit && !b.err && !b.end) {
		bool changed = false;
		int ch;

		draw(&b);
		b.idle = true;
		ch = getkey(&b, &changed);
		b.idle = false;
		if (ch == KEY_WRITTEN || ch == KEY_IDLE)
			continue;   /* draw the message */
		if (changed || b.end) {
			if (changed)
				reload(&b);
			continue;
		}
		b.msg[0] = 0;
		b.notice[0] = 0;
		if (ops->key && ch != KEY_RESIZE && (remember(&b), ops->key(ctx, ch, sel_row(&b)) > 0)) {
			if (t->nr_rows != b.nrows_alloc || ops->tick)
				reload(&b);
			continue;
		}
		size_t h = (size_t)body_lines();

		/* near the ready rows' end: the rest of a table sorted in part */
		if ((ch == KEY_END || ch == KEY_SELECT || ch == 'G' ||
		     ((ch == KEY_DOWN || ch == 'j' || ch == KEY_NPAGE || ch == ' ') && b.sel + 2 * h >= b.nlines)) &&
		    need_all(&b))
			rebuild(&b);
		switch (ch) {
		case KEY_RESIZE: break;
		case KEY_UP: case 'k':   /* past connector lines */
			for (size_t i = b.sel; i-- > 0;)
				if (!connector(&b, i)) {
					b.sel = i;
					break;
				}
			break;
		case KEY_DOWN: case 'j':
			for (size_t i = b.sel + 1; i < b.nlines; i++)
				if (!connector(&b, i)) {
					b.sel = i;
					break;
				}
			break;
		/* a page: the view moves with the selection (perf's
		 * ui_browser), the selection keeps its place on the screen */
		case KEY_PPAGE:
			b.sel = b.sel > h ? b.sel - h : 0;
			b.top = b.top > h ? b.top - h : 0;
			off_connector(&b);
			break;
		case KEY_NPAGE: case ' ':
			if (b.sel + h < b.nlines) {
				b.sel += h;
				b.top += h;
			} else {
				b.sel = b.nlines ? b.nlines - 1 : 0;
			}
			off_connector(&b);
			break;
		case KEY_HOME: case KEY_FIND: case 'g': b.sel = 0; break;   /* Find, Select: the VT220's */
		case KEY_END: case KEY_SELECT: case 'G':
			b.sel = b.nlines ? b.nlines - 1 : 0;
			off_connector(&b);   /* nor a graph being made */
			break;
		case '\n': case '\r': case KEY_ENTER: {
			size_t r = sel_row(&b);

			if (r != SIZE_MAX && !toggle_fold(&b))
				expand(&b, r, !b.expanded[r]);
			break;
		}
		case KEY_RIGHT: expand(&b, sel_row(&b), true); break;
		case KEY_LEFT: expand(&b, sel_row(&b), false); break;
		case 'E': expand_all(&b, true); break;
		case 'e': expand_all(&b, !b.expand_all); break;
		case 'C': expand_all(&b, false); break;
		case '/': search(&b); break;
		case 'd': case 'c': case 't': zoom(&b, ch); break;
		case 's': {
			char label[160];

			snprintf(label, sizeof(label), "Sort keys (%s): ", sort_keys(&b));
			char *keys = prompt(&b, label, t->sort);

			if (keys && *keys)
				regroup(&b, keys, b.children, true);
			free(keys);
			break;
		}
		case '+': set_children(&b, true); break;
		case '-': set_children(&b, false); break;
		case 'a': annotate(&b); break;
		case 'P': print_view(&b); break;
		case '\t': case KEY_BTAB: {   /* perf's TAB / UNTAB: switch events */
			int r = ops->next_event ? (remember(&b), ops->next_event(ctx, ch == '\t' ? 1 : -1)) : 0;

			if (r < 0) {
				b.err = r;
			} else if (!r) {
				snprintf(b.msg, sizeof(b.msg), "no other event with samples");
			} else {   /* another table: from its top, nothing unfolded, as perf */
				b.keep = false;
				b.keep_pos = 0;
				b.top = 0;
				b.sel = 0;
				forget_open(&b);
				drop_hidden_zooms(&b);
				b.children = t->show_children;
				reload(&b);
			}
			break;
		}
		case '?': case 'h': case KEY_F(1): show_help(&b); break;
		case 'q': case 27:
			if (b.nfilt) {
				pop_filter(&b, b.nfilt - 1);
				rebuild(&b);
			} else {   /* Esc at the top asks first, as perf's */
				quit = ch == 'q' || confirm(&b, "Do you really want to exit? (y/n)");
			}
			break;
		default:   /* a key of perf's browser that this one has not (H, L, i, V, F, ...) */
			if (ch > ' ' && ch < 127)
				snprintf(b.msg, sizeof(b.msg), "'%c': no such key here ('?' lists the keys)", ch);
			break;
		}
	}
	while (writer_done(&b, true))   /* the files whole before perfkit ends (and those queued) */
		;
	active = NULL;
	end_signals_off();
	endwin();
	delscreen(scr);
	while (b.nfilt)
		pop_filter(&b, b.nfilt - 1);
	free_graphs(&b);
	free(b.graph);
	free(b.pending);
	free(b.plist);
	free(b.expanded);
	free(b.order);
	free(b.sorted[0]);
	free(b.sorted[1]);
	free(b.lines);
	free(b.ebuf);
	free(b.wbuf);
	free(b.keep_sym);
	free(b.keep_path);
	free(b.keep_name);
	free(b.keep_dso);
	free(b.keep_comm);
	forget_open(&b);
	return b.err;
}

#endif
