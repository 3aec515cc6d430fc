/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit report — overhead table of a perf.data file, like `perf report
 * --stdio`: per event, rows keyed by the sort keys (default comm,dso,sym)
 * with Children/Self percentages of the event's total period.
 *
 * Children: every distinct row key found in a sample's callchain gets the
 * sample's period once (recursion does not count twice); Self goes to the
 * leaf frame only.  Shown when the file has callchains, unless --no-children.
 *
 * Call graphs (-g, default when the file has callchains): as perf builds
 * them, each row's tree gets the whole chain of the samples whose leaf is
 * the row (Self), and in children mode, for every other row met along the
 * chain (once per sample, in cursor order), the chain from that frame on
 * (towards the leaf in caller order, the root in callee order).  Samples
 * only aggregate unique stacks (callgraph/callgraph.h); trees are built
 * after sorting, for printed rows only.
 */
#include "cmd/cmds.h"

#include "base/error.h"
#include "base/parse.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "session/session.h"
#include "export/export.h"
#include "export/html.h"
#include "callgraph/callgraph.h"
#include "event/event.h"
#include "annotate/annotate.h"
#include "symbol/inline.h"
#include "tui/tui.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum sort_key { K_COMM, K_DSO, K_SYM, K_PID, K_TID, K_SRCLINE, K_MAX };

struct row {
	const char *comm, *dso, *sym; /* sym NULL: unknown, shown by address */
	const char *comm_last;        /* the thread's last comm (pid/tid keys) */
	const char *srcline;          /* --sort srcline: session_srcline() */
	uint64_t addr;
	uint32_t pid, tid;
	uint64_t self, children;
	uint64_t nr_self;             /* samples whose leaf is the row (-n) */
	uint64_t stamp;               /* last sample that counted children */
	uint32_t id;                  /* index before sorting (stack tags) */
	bool kernel;
	bool no_map;                  /* dso "[unknown]" (cmp_rows) */
	const char **text;            /* each sort key's text, made once for
					 sorting and printing (print_hist;
					 nr_keys pointers, not held per row
					 while samples are read) */
};

struct hist {
	struct hashmap keys;          /* packed key → row index + 1 */
	struct row *rows;
	size_t nr, alloc;
	uint64_t nr_samples, total;
	struct cg_forest *cg;         /* unique stacks, then trees (-g) */
};

/* A thread's last sample's stack, root first: the next sample of the
 * thread mostly shares its outer callers, whose rows and stack nodes are
 * then taken from here without a lookup. */
#define PREV_SLOTS 256
struct prev_frame {
	const char *dso, *sym;
	uint64_t ip;                  /* 0 for a known symbol */
	uint64_t a;                   /* row_cached()'s a */
	uint32_t tag;                 /* the row; UINT32_MAX: none */
	uint32_t node;                /* stack node (call graphs) */
	bool inlined, kernel;
};

struct prev_stack {
	const void *h;                /* struct hist */
	const char *comm;
	uint32_t tid;
	struct prev_frame *v;
	size_t nr, alloc;
};

struct report {
	enum sort_key keys[K_MAX];
	int nr_keys;
	bool children;
	const struct pd_file *f;
	struct session *sess;         /* for session_srcline() */
	struct hist *hists;           /* one per evsel */
	uint64_t stamp;
	bool graph;                   /* call graphs printed */
	bool show_nr;                 /* -n: perf's Samples column */
	bool quiet;                   /* -q: no '#' lines, no warnings */
	bool hide_unresolved;         /* --hide-unresolved: no rows without a symbol */
	struct cg_params cg;
	uint32_t *rowbuf;             /* on_sample: row index per frame */
	size_t rowbuf_alloc;
	struct prev_stack *prevs;     /* PREV_SLOTS, by thread */
	struct row_slot *row_cache;   /* row_cached(): 1 << ROW_CACHE_BITS */
	bool no_row_cache;            /* a key (srcline) not in the slot */
	bool row_by_tid;              /* a key (pid, tid) reads the thread */
	const char *hint_sym;         /* the hottest Self row's symbol (annotate hint) */
	uint64_t hint_self;
	struct ann_leaves *leaves;    /* the browser's 'a' (annotate/annotate.h) */
};

/* Whether `perfkit annotate` can disassemble row's function: a user DSO
 * whose file (or its copy by build-id) is there, or the kernel when
 * /proc/kcore is readable; [vdso], JIT maps (not ELF), unknown DSOs are
 * not. */
static bool annotatable(struct report *r, const struct row *row)
{
	if (row->kernel)
		return access("/proc/kcore", R_OK) == 0;
	if (!row->dso || row->dso[0] != '/' || !r->sess)
		return false;
	const char *file = session_dso_file(r->sess, row->dso);
	char magic[4];
	int fd = file ? open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	bool elf = fd >= 0 && read(fd, magic, 4) == 4 && !memcmp(magic, "\x7f" "ELF", 4);

	if (fd >= 0)
		close(fd);
	return elf;   /* not a perf-PID.map of JIT code */
}

/* The packed key of a frame, from the chosen sort keys only. */
static size_t make_key(const struct report *r, const struct pk_sample *s, const struct pk_frame *fr,
		       unsigned char *buf)
{
	size_t n = 0;

	for (int i = 0; i < r->nr_keys; i++) {
		switch (r->keys[i]) {
		case K_COMM:
			memcpy(buf + n, &s->comm, sizeof(s->comm));
			n += sizeof(s->comm);
			break;
		case K_DSO:
			memcpy(buf + n, &fr->dso, sizeof(fr->dso));
			n += sizeof(fr->dso);
			break;
		case K_SYM: {
			/* a symbol is one row per (name, start address), as perf
			 * keys rows by symbol: two overloads or two static
			 * functions of one name stay apart; an inlined frame
			 * is one row per name (perf compares their names) */
			uint64_t addr = fr->sym ? pk_frame_sym_start(fr) : fr->sym_off;

			memcpy(buf + n, &fr->sym, sizeof(fr->sym));
			n += sizeof(fr->sym);
			memcpy(buf + n, &addr, 8);
			n += 8;
			buf[n++] = fr->kernel;
			if (!fr->sym) {     /* unknown addresses are per DSO */
				memcpy(buf + n, &fr->dso, sizeof(fr->dso));
				n += sizeof(fr->dso);
			}
			break;
		}
		case K_PID:   /* perf's "pid" key is the thread: tid:comm */
		case K_TID:
			memcpy(buf + n, &s->tid, 4);
			n += 4;
			break;
		case K_SRCLINE: {     /* interned: the pointer is the key */
			const char *sl = session_srcline(r->sess, fr);

			memcpy(buf + n, &sl, sizeof(sl));
			n += sizeof(sl);
			break;
		}
		default:
			break;
		}
	}
	return n;
}

static struct row *row_get(struct report *r, struct hist *h, const struct pk_sample *s,
			   const struct pk_frame *fr)
{
	unsigned char key[8 * K_MAX * 4];
	size_t n = make_key(r, s, fr, key);
	int created;
	struct hm_entry *e = hm_upsert(&h->keys, key, n, &created);
	struct row *row;

	if (!created)
		return &h->rows[e->val.u - 1];
	if (h->nr == h->alloc) {
		h->alloc = h->alloc ? h->alloc * 2 : 256;
		h->rows = xrealloc(h->rows, h->alloc * sizeof(*h->rows));
	}
	e->val.u = h->nr + 1;
	row = &h->rows[h->nr++];
	memset(row, 0, sizeof(*row));
	row->id = (uint32_t)(h->nr - 1);
	row->comm = s->comm;
	row->dso = fr->dso;
	row->sym = fr->sym;
	row->addr = fr->sym_off;
	row->kernel = fr->kernel;
	row->pid = s->pid;
	row->tid = s->tid;
	for (int i = 0; i < r->nr_keys; i++)
		if (r->keys[i] == K_SRCLINE)
			row->srcline = session_srcline(r->sess, fr);
	return row;
}

/* A direct-mapped cache in front of row_get(): a slot holds what
 * make_key() reads of a frame and its sample (but srcline), so a hit is
 * the same row without making, hashing and comparing the packed key. */
#define ROW_CACHE_BITS 16
struct row_slot {
	const struct hist *h;
	const char *comm, *dso, *sym;
	uint64_t a;                   /* symbol start, or offset when unknown */
	uint32_t tid, row;            /* row: index + 1, 0: empty */
	bool kernel;
};

static uint32_t row_cached(struct report *r, struct hist *h, const struct pk_sample *s,
			   const struct pk_frame *fr)
{
	uint64_t a = fr->sym ? pk_frame_sym_start(fr) : fr->sym_off, x;
	uint32_t tid = r->row_by_tid ? s->tid : 0;   /* else one slot for every
							process of a comm */
	struct row_slot *sl;

	if (r->no_row_cache)
		return (uint32_t)(row_get(r, h, s, fr) - h->rows);
	if (!r->row_cache)
		r->row_cache = xcalloc((size_t)1 << ROW_CACHE_BITS, sizeof(*r->row_cache));
	x = (uint64_t)(uintptr_t)fr->sym * 0x9e3779b97f4a7c15u ^ (uint64_t)(uintptr_t)fr->dso ^
	    a * 0xff51afd7ed558ccdu ^ (uint64_t)(uintptr_t)s->comm * 31 ^ tid ^ (uint64_t)(uintptr_t)h;
	x ^= x >> 29;
	x *= 0xc4ceb9fe1a85ec53u;
	sl = &r->row_cache[x >> (64 - ROW_CACHE_BITS)];
	if (sl->row && sl->h == h && sl->sym == fr->sym && sl->dso == fr->dso && sl->a == a &&
	    sl->comm == s->comm && sl->tid == tid && sl->kernel == fr->kernel)
		return sl->row - 1;
	uint32_t row = (uint32_t)(row_get(r, h, s, fr) - h->rows);

	*sl = (struct row_slot){ h, s->comm, fr->dso, fr->sym, a, tid, row + 1, fr->kernel };
	return row;
}

/* --export=pprof|speedscope -o FILE: every sample also goes to the exporter
 * (src/lib/export), and the file replaces the table on stdout. */
static struct pk_export *report_export;
static const char *export_kind, *export_path;

static int write_export(void)
{
	if (!strcmp(export_kind, "pprof"))
		return export_write_pprof(report_export, export_path);
	return export_write_speedscope(report_export, export_path);
}

/* The rows of a sample's frames into r->rowbuf (leaf first; without
 * Children only the leaf's, the others UINT32_MAX) and, with call graphs,
 * its stack node (returned), reusing the thread's previous stack as far as
 * the frames are the same. */
static uint32_t sample_rows(struct report *r, struct hist *h, const struct pk_sample *s)
{
	struct prev_stack *ps;
	uint32_t node = 0;
	size_t n = s->nr_frames;

	if (!r->prevs)
		r->prevs = xcalloc(PREV_SLOTS, sizeof(*r->prevs));
	ps = &r->prevs[(s->tid ^ s->tid >> 8) % PREV_SLOTS];
	if (ps->h != h || ps->tid != s->tid || ps->comm != s->comm) {
		ps->h = h;
		ps->tid = s->tid;
		ps->comm = s->comm;
		ps->nr = 0;
	}
	if (n > r->rowbuf_alloc) {
		r->rowbuf_alloc = n * 2;
		r->rowbuf = xrealloc(r->rowbuf, r->rowbuf_alloc * sizeof(*r->rowbuf));
	}
	if (n > ps->alloc) {
		ps->alloc = n * 2;
		ps->v = xrealloc(ps->v, ps->alloc * sizeof(*ps->v));
	}
	if (r->graph && !h->cg)
		h->cg = cg_forest_new();
	for (size_t j = 0; j < n; j++) {
		size_t i = n - 1 - j;
		const struct pk_frame *fr = &s->frames[i];
		struct prev_frame *pv = &ps->v[j];
		/* srcline rows differ by address within a symbol */
		uint64_t ip = fr->sym && !r->no_row_cache ? 0 : fr->ip;
		uint64_t a = fr->sym ? pk_frame_sym_start(fr) : fr->sym_off;
		bool same = j < ps->nr && pv->dso == fr->dso && pv->sym == fr->sym && pv->ip == ip && pv->a == a &&
			    pv->inlined == fr->inlined && pv->kernel == fr->kernel;
		uint32_t tag;

		/* the row of a frame is the same for the same frame, comm and
		 * thread; without Children only the leaf has one */
		if (same && (r->children || (i == 0) == (pv->tag != UINT32_MAX))) {
			r->rowbuf[i] = pv->tag;
			node = pv->node;
			continue;
		}
		tag = r->children || i == 0 ? row_cached(r, h, s, fr) : UINT32_MAX;
		r->rowbuf[i] = tag;
		if (r->graph) {
			struct cg_frame cf = {
				.sym = fr->sym, .dso = fr->dso, .ip = fr->ip, .inlined = fr->inlined,
				.start = (fr->addr ? fr->addr : fr->ip) - fr->sym_off,
			};

			node = cg_stack_push(h->cg, node, &cf, tag);
		}
		*pv = (struct prev_frame){ fr->dso, fr->sym, ip, a, tag, node, fr->inlined, fr->kernel };
		ps->nr = j + 1;
	}
	ps->nr = n;
	return node;
}

static int on_sample(const struct pk_sample *s, void *arg)
{
	struct report *r = arg;
	struct hist *h = &r->hists[s->raw->evsel - r->f->evsels];
	uint32_t node;

	h->nr_samples++;
	h->total += s->period;
	if (r->leaves)
		ann_leaves_add(r->leaves, s);
	if (report_export)
		export_add(report_export, s);
	if (!s->nr_frames)
		return 0;
	node = sample_rows(r, h, s);
	h->rows[r->rowbuf[0]].self += s->period;
	h->rows[r->rowbuf[0]].nr_self++;
	if (r->children) {
		/* every row of the chain once */
		r->stamp++;
		for (size_t i = 0; i < s->nr_frames; i++) {
			struct row *row = &h->rows[r->rowbuf[i]];

			if (row->stamp != r->stamp) {
				row->stamp = r->stamp;
				row->children += s->period;
			}
		}
	}
	if (r->graph)
		cg_stack_hit(h->cg, node, s->period);
	return 0;
}

static const char *dso_short(const char *dso)
{
	const char *slash;

	if (dso[0] != '/')
		return dso;
	slash = strrchr(dso, '/');
	return slash ? slash + 1 : dso;
}

static void sym_text(const struct row *row, char *buf, size_t size)
{
	if (row->sym)
		snprintf(buf, size, "[%c] %s", row->kernel ? 'k' : '.', row->sym);
	else
		snprintf(buf, size, "[%c] %-#.16" PRIx64, row->kernel ? 'k' : '.', row->addr);
}

static void key_text(const struct row *row, enum sort_key k, char *buf, size_t size)
{
	switch (k) {
	case K_COMM: snprintf(buf, size, "%s", row->comm); break;
	case K_DSO: snprintf(buf, size, "%s", dso_short(row->dso)); break;
	case K_SYM: sym_text(row, buf, size); break;
	case K_PID: /* fall through */
	case K_TID:
		snprintf(buf, size, "%7" PRIu32 ":%s", row->tid, row->comm_last ? row->comm_last : row->comm);
		break;
	case K_SRCLINE: snprintf(buf, size, "%s", row->srcline); break;
	default: buf[0] = '\0'; break;
	}
	/* a name with a newline or an escape sequence stays on its row */
	str_term_escape_buf(buf, size);
}

static const char *key_header(enum sort_key k)
{
	static const char *const names[] = { "Command", "Shared Object", "Symbol", "      Pid:Command",
					     "      Tid:Command", "Source:Line" };

	return names[k];
}

static const struct report *sort_ctx;

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c;

	if (sort_ctx->children && x->children != y->children)
		return x->children > y->children ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	for (int i = 0; i < sort_ctx->nr_keys; i++) {
		if (sort_ctx->keys[i] == K_DSO && x->no_map != y->no_map)
			/* perf: no map (NULL dso) after every named one */
			return x->no_map ? 1 : -1;
		c = strcmp(x->text[i], y->text[i]);
		if (c)
			return c;
	}
	return 0;
}

/* The printed rows' trees, from the unique stacks (tags are row ids);
 * rows whose period is below the threshold print no tree line. */
static uint32_t *build_trees(const struct report *r, struct hist *h, const bool *show, uint64_t total)
{
	uint32_t *tree_of_tag = xcalloc(h->nr + 1, sizeof(*tree_of_tag));
	uint32_t *trees = xcalloc(h->nr + 1, sizeof(*trees));
	uint64_t min_hit = cg_min_hit(&r->cg, total);

	for (size_t i = 0; i < h->nr; i++) {
		const struct row *row = &h->rows[i];

		if (!show[i] || (r->children ? row->children : row->self) < min_hit)
			continue;
		trees[i] = cg_tree_new(h->cg);
		tree_of_tag[row->id] = trees[i];
	}
	cg_trees_from_stacks(h->cg, tree_of_tag, h->nr, r->cg.order, r->children, min_hit);
	free(tree_of_tag);
	return trees;
}

/* The samples and the period an event's table is made of: all of them, or
 * with perf's --hide-unresolved only those of rows with a symbol (the
 * percentages are then of the resolved samples, as perf's). */
static uint64_t hist_shown(const struct report *r, const struct hist *h, uint64_t *total)
{
	uint64_t n = 0;

	if (!r->hide_unresolved) {
		*total = h->total;
		return h->nr_samples;
	}
	*total = 0;
	for (size_t i = 0; i < h->nr; i++)
		if (h->rows[i].sym) {
			*total += h->rows[i].self;
			n += h->rows[i].nr_self;
		}
	return n;
}

static void print_hist(struct report *r, const struct pd_evsel *ev, struct hist *h, double limit)
{
	uint32_t *trees = NULL;
	size_t width[K_MAX];
	char buf[512];
	uint64_t total;
	unsigned long n = (unsigned long)hist_shown(r, h, &total);
	char unit = ' ';
	size_t shown = 0;
	bool *show;

	if (n > 1000) { n /= 1000; unit = 'K'; }
	if (n > 1000) { n /= 1000; unit = 'M'; }
	if (n > 1000) { n /= 1000; unit = 'G'; }
	if (!r->quiet) {
		printf("# Samples: %lu%c of event '%s'\n", n, unit, ev->name);
		printf("# Event count (approx.): %" PRIu64 "\n#\n", total);
	}

	/* no more rows: their key map goes before the texts and trees */
	hm_release(&h->keys);
	hm_init(&h->keys);
	/* perf's pid and tid keys name a thread by its last comm */
	for (size_t i = 0; i < h->nr; i++) {
		h->rows[i].comm_last = session_thread_comm(r->sess, h->rows[i].tid);
	}
	/* each key's text once per row (not per comparison) */
	struct pk_arena texts = PK_ARENA_INIT;

	const char **textv = xmalloc((h->nr + 1) * (size_t)r->nr_keys * sizeof(*textv));

	for (size_t i = 0; i < h->nr; i++) {
		h->rows[i].text = textv + i * (size_t)r->nr_keys;
		h->rows[i].no_map = !strcmp(h->rows[i].dso, "[unknown]");
		for (int k = 0; k < r->nr_keys; k++) {
			key_text(&h->rows[i], r->keys[k], buf, sizeof(buf));
			h->rows[i].text[k] = pk_arena_memdup0(&texts, buf, strlen(buf));
		}
	}
	sort_ctx = r;
	qsort(h->rows, h->nr, sizeof(*h->rows), cmp_rows);
	show = xcalloc(h->nr + 1, sizeof(*show));
	for (int k = 0; k < r->nr_keys; k++)
		width[k] = strlen(key_header(r->keys[k]));
	for (size_t i = 0; i < h->nr; i++) {
		const struct row *row = &h->rows[i];
		double pct = total ? 100.0 * (double)(r->children ? row->children : row->self) /
				     (double)total : 0;

		if (pct < limit || (r->children ? row->children : row->self) == 0)
			continue;
		if (r->hide_unresolved && !row->sym)   /* perf: percentages stay of the whole */
			continue;
		show[i] = true;
		shown++;
		for (int k = 0; k < r->nr_keys; k++)
			if (strlen(row->text[k]) > width[k])
				width[k] = strlen(row->text[k]);
	}
	if (!r->quiet) {
		if (r->children)
			printf("# Children      Self");
		else
			printf("# Overhead");
		if (r->show_nr)
			printf("  %12s", "Samples");
		for (int k = 0; k < r->nr_keys; k++)
			printf("  %-*s", (int)width[k], key_header(r->keys[k]));
		printf("\n# ........");
		if (r->children)
			printf("  ........");
		if (r->show_nr)
			printf("  ............");
		for (int k = 0; k < r->nr_keys; k++) {
			putchar(' ');
			putchar(' ');
			for (size_t j = 0; j < width[k]; j++)
				putchar('.');
		}
		printf("\n#\n");
	}
	if (r->graph && h->cg)
		trees = build_trees(r, h, show, total);
	for (size_t i = 0; i < h->nr; i++) {
		const struct row *row = &h->rows[i];

		if (!show[i])
			continue;
		if (row->sym && row->self > r->hint_self && annotatable(r, row)) {
			r->hint_sym = row->sym;
			r->hint_self = row->self;
		}
		if (r->children)
			printf("  %7.2f%%", 100.0 * (double)row->children / (double)total);
		printf("  %7.2f%%", 100.0 * (double)row->self / (double)total);
		if (r->show_nr)   /* perf: the samples whose leaf is the row */
			printf("  %12" PRIu64, row->nr_self);
		for (int k = 0; k < r->nr_keys; k++) {
			if (k == r->nr_keys - 1)
				printf("  %s", row->text[k]);
			else
				printf("  %-*s", (int)width[k], row->text[k]);
		}
		putchar('\n');
		if (trees && trees[i])
			cg_tree_print(stdout, h->cg, trees[i], &r->cg, total,
				      r->children ? row->children : row->self);
	}
	free(trees);
	free(show);
	pk_arena_release(&texts);
	free(textv);
	printf("\n\n");
	(void)shown;
}

static int parse_sort(struct report *r, const char *spec)
{
	char *dup = xstrdup(spec), *save = NULL;

	r->nr_keys = 0;
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum sort_key k;

		if (!strcmp(tok, "comm"))
			k = K_COMM;
		else if (!strcmp(tok, "dso"))
			k = K_DSO;
		else if (!strcmp(tok, "sym") || !strcmp(tok, "symbol"))
			k = K_SYM;
		else if (!strcmp(tok, "pid"))
			k = K_PID;
		else if (!strcmp(tok, "tid"))
			k = K_TID;
		else if (!strcmp(tok, "srcline"))
			k = K_SRCLINE;
		else {
			fprintf(stderr, "perfkit report: unknown sort key '%s' (expected comm, dso, sym, pid, tid, srcline)\n",
				tok);
			free(dup);
			return -1;
		}
		if (r->nr_keys == K_MAX) {
			fprintf(stderr, "perfkit report: too many sort keys in '%s'\n", spec);
			free(dup);
			return -1;
		}
		r->keys[r->nr_keys++] = k;
	}
	free(dup);
	if (!r->nr_keys) {
		fprintf(stderr, "perfkit report: empty --sort\n");
		return -1;
	}
	return 0;
}

static void usage(FILE *fp)
{
	fprintf(fp, "usage: perfkit report [-i FILE] [-g [TYPE,THRESHOLD,ORDER]] [--no-children] [--sort KEYS]\n"
		    "                      [--percent-limit P] [-n] [-q] [--stdio] [--no-inline]\n"
		    "       perfkit report --html -o FILE.html [-i FILE] | --html --diff -o FILE.html OLD NEW\n"
		    "  -i, --input FILE        perf.data to read (default perf.data)\n"
		    "  -g, --call-graph[=ARG]  call graph under each row when the file has callchains (the default):\n"
		    "                          TYPE graph, fractal, flat, folded or none; THRESHOLD percent (0.5);\n"
		    "                          then an optional print limit; ORDER caller or callee (default caller\n"
		    "                          with Children, else callee); VALUE percent, period or count\n"
		    "  -G, --inverted          caller-based call graph (same as ORDER caller)\n"
		    "      --children          show the Children column (default when the file has callchains)\n"
		    "      --no-children       Self only\n"
		    "  -s, --sort KEYS         comm, dso, sym, pid, tid, srcline (default comm,dso,sym)\n"
		    "      --percent-limit P   hide rows below P percent\n"
		    "  -n, --show-nr-samples   a Samples column: the samples whose leaf is the row\n"
		    "  -q, --quiet             the rows only: no '#' header lines, no warnings\n"
		    "      --stdio             text, also on a terminal (default there: a browser, '?' lists its keys)\n"
		    "      --no-color          no colours in the browser (also when NO_COLOR is set)\n"
		    "      --no-inline         accepted: report never adds inlined functions as frames\n"
		    "                          (perf does by default; perfkit's report is perf's --no-inline)\n"
		    "      --inline            accepted, but inlined frames are not added (script and\n"
		    "                          collapse --inline add them)\n"
		    "  -f, --force             accepted (perfkit does not check the file's owner)\n"
		    "      --hide-unresolved   no rows for addresses without a symbol\n"
		    "      --max-stack N       use at most N frames of each call chain (default: as\n"
		    "                          perf, kernel.perf_event_max_stack, 127 unless changed)\n"
		    "      --no-demangle       raw (mangled) C++/Rust symbol names\n"
		    "      --export=FORMAT     write the profile as pprof (gzip protobuf) or speedscope (JSON)\n"
		    "  -o, --output FILE       the file --export or --html writes (required with them)\n"
		    "      --html              write one self-contained HTML page (flame graph, icicle,\n"
		    "                          table, callers/callees, annotations) to -o FILE; -i may\n"
		    "                          also name a folded-stacks file\n"
		    "      --diff OLD NEW      with --html: the two profiles compared (perf.data or folded)\n");
}

/* On a terminal: where to go next, for the hottest function (quoted for
 * the shell when it needs it; a name with a quote or control byte is not
 * repeated). */
/* s as one shell word: as it is when plain, else in single quotes; NULL
 * when it cannot be (a quote or control byte in it). */
static const char *shell_word(const char *s, char *buf, size_t len)
{
	bool plain = *s != 0;

	for (const char *p = s; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '\'')
			return NULL;
		if (!(*p == '_' || *p == ':' || *p == '.' || *p == '/' || *p == '-' || *p == '+' ||
		      *p == ',' || *p == '@' || *p == '=' || (*p >= '0' && *p <= '9') ||
		      ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z')))
			plain = false;
	}
	if (plain)
		return s;
	if (strlen(s) + 3 > len)
		return NULL;
	snprintf(buf, len, "'%s'", s);
	return buf;
}

static void print_hint(const char *input, const char *sym)
{
	static char ib[4096], sb[4096];
	const char *in = strcmp(input, "perf.data") ? shell_word(input, ib, sizeof(ib)) : "";
	const char *sy = shell_word(sym, sb, sizeof(sb));

	printf("# hint: `perfkit annotate%s%s %s` shows the instructions and source lines of the "
	       "hottest function\n", *input && strcmp(input, "perf.data") ? " -i " : "",
	       in ? in : "FILE", sy ? sy : "SYMBOL");
}

static void print_warnings(void)
{
	pk_warnings_print(stderr, "perfkit report");
}

static int report_browse(struct report *r, const char *input, double limit, const struct session_opts *so,
			 struct session **sess, bool color, const char *sort);

/* --html [--diff OLD NEW] -o FILE: the page of export/html.h instead of
 * the table. */
static int report_html(bool html, bool diff, const char *input, int nargs, char **args,
		       struct session_opts *so)
{
	struct html_opts o;
	int err;

	if (!html || !export_path || export_kind || nargs != (diff ? 2 : 0)) {
		fprintf(stderr, "perfkit report: %s\n",
			!html ? "--diff needs --html (perfkit diff compares two files as text)"
			: !export_path ? "--html needs -o FILE.html"
			: export_kind ? "--html and --export write different files: one at a time"
			: diff ? "--html --diff needs two files: OLD NEW"
			       : "unexpected argument (two files need --diff)");
		return 2;
	}
	html_opts_init(&o);
	o.output = export_path;
	o.input = diff ? args[1] : input;
	o.base = diff ? args[0] : NULL;
	o.so = *so;
	if (!o.so.max_stack)   /* perf's default --max-stack */
		o.so.max_stack = (int)ev_max_stack();
	pk_error_clear();
	err = html_report(&o);
	if (err < 0)
		fprintf(stderr, "perfkit report: %s\n", pk_errmsg());
	print_warnings();
	return err < 0 ? 1 : 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "no-children", no_argument, NULL, 'N' },
		{ "children", no_argument, NULL, 'C' },
		{ "call-graph", optional_argument, NULL, 'g' },
		{ "inverted", no_argument, NULL, 'G' },
		{ "sort", required_argument, NULL, 's' },
		{ "percent-limit", required_argument, NULL, 'P' },
		{ "stdio", no_argument, NULL, 'S' },
		{ "show-nr-samples", no_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "inline", no_argument, NULL, 'I' },
		{ "no-inline", no_argument, NULL, 'X' },
		{ "force", no_argument, NULL, 'f' },
		{ "hide-unresolved", no_argument, NULL, 'U' },
		{ "max-stack", required_argument, NULL, 'M' },
		{ "no-demangle", no_argument, NULL, 'D' },
		{ "export", required_argument, NULL, 'E' },
		{ "output", required_argument, NULL, 'o' },
		{ "no-color", no_argument, NULL, 'K' },
		{ "html", no_argument, NULL, 1000 },
		{ "diff", no_argument, NULL, 1001 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report r = { .keys = { K_COMM, K_DSO, K_SYM }, .nr_keys = 3,
			    .cg = { .mode = CG_GRAPH, .threshold = 0.5, .order = CG_CALLEE } };
	const char *input = "perf.data";
	int no_children = 0, c, err;
	double limit = 0;
	struct session *s;
	struct session_opts so = { 0 };
	bool has_cc = false, order_set = false, inverted = false, stdio = false, no_color = false, html = false, html_diff = false, tui;
	const char *sort = "comm,dso,sym";

	export_kind = export_path = NULL;   /* a second call (the option fuzz harness) */
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:s:g::Gho:nqf", opts, NULL)) != -1) {
		switch (c) {
		case 'i': input = optarg; break;
		case 'N': no_children = 1; break;
		case 'C': no_children = 0; break;
		case 'g': {
			/* perf's -g takes the next word as its value unless that
			 * is an option (or there is none) */
			const char *arg = optarg;

			if (!arg && optind < argc && argv[optind][0] != '-')
				arg = argv[optind++];
			if (arg && cg_parse(&r.cg, arg, &order_set)) {
				fprintf(stderr, "perfkit report: bad -g '%s': %s\n", arg, pk_errmsg());
				return 2;
			}
			break;
		}
		case 'G': inverted = true; break;
		case 's':
			if (parse_sort(&r, optarg))
				return 2;
			sort = optarg;
			r.cg.skip_first = !strncmp(optarg, "sym", 3);
			break;
		case 'P': {
			/* "5" or "5%", as perf takes it */
			char pct[64];
			size_t l = strlen(optarg);
			const char *v = optarg;

			if (l && l < sizeof(pct) && optarg[l - 1] == '%') {
				memcpy(pct, optarg, l - 1);
				pct[l - 1] = '\0';
				v = pct;
			}
			if (pk_parse_double("--percent-limit", v, 0, 100, &limit)) {
				fprintf(stderr, "perfkit report: %s\n", pk_errmsg());
				return 2;
			}
			r.cg.threshold = limit;   /* perf: the call graph's too */
			break;
		}
		case 'S': stdio = true; break;
		case 'K': no_color = true; break;
		case 'n': r.show_nr = true; break;
		case 'q': r.quiet = true; break;
		case 'I': case 'X': break;   /* report's frames never include inlined ones */
		case 'f': break;             /* no ownership check to skip */
		case 'U': r.hide_unresolved = true; break;
		case 'M':
			if (pk_parse_int("--max-stack", optarg, 1, 1000000, &so.max_stack)) {
				fprintf(stderr, "perfkit report: %s\n", pk_errmsg());
				return 2;
			}
			break;
		case 'D': so.no_demangle = true; break;
		case 'E':
			if (strcmp(optarg, "pprof") && strcmp(optarg, "speedscope")) {
				fprintf(stderr, "perfkit report: bad --export '%s' (expected pprof or speedscope)\n",
					optarg);
				return 2;
			}
			export_kind = optarg;
			break;
		case 'o': export_path = optarg; break;
		case 1000: html = true; break;
		case 1001: html_diff = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (pk_options_only && (html || html_diff))   /* the option fuzz harness */
		return 0;
	if (html || html_diff)
		return report_html(html, html_diff, input, argc - optind, argv + optind, &so);
	if (optind < argc) {
		fprintf(stderr, "perfkit report: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}

	if (!export_kind != !export_path) {
		fprintf(stderr, "perfkit report: %s\n", export_kind ? "--export needs -o FILE" : "-o FILE needs --export");
		return 2;
	}
	if (pk_options_only)   /* the option fuzz harness: stop before reading */
		return 0;
	if (!so.max_stack)   /* perf's default --max-stack */
		so.max_stack = (int)ev_max_stack();
	pk_error_clear();
	err = session_open(&s, input, &so);
	if (err) {
		fprintf(stderr, "perfkit report: %s\n", pk_errmsg());
		print_warnings();
		return 1;
	}
	r.f = session_file(s);
	for (int k = 0; k < r.nr_keys; k++)
		if (r.keys[k] == K_SRCLINE)
			r.no_row_cache = true;
		else if (r.keys[k] == K_PID || r.keys[k] == K_TID)
			r.row_by_tid = true;
	r.sess = s;
	for (size_t i = 0; i < r.f->nr_evsels; i++)
		if (r.f->evsels[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN)
			has_cc = true;
	r.children = has_cc && !no_children;
	r.graph = has_cc && r.cg.mode != CG_NONE && !export_kind;
	if (inverted)
		r.cg.order = CG_CALLER;
	else if (!order_set)
		r.cg.order = r.children ? CG_CALLER : CG_CALLEE;
	r.hists = xcalloc(r.f->nr_evsels, sizeof(*r.hists));
	for (size_t i = 0; i < r.f->nr_evsels; i++)
		hm_init(&r.hists[i].keys);
	if (export_kind)
		report_export = export_new_file(r.f);
	/* on a terminal: the browser (src/lib/tui), else text */
	tui = !stdio && !export_kind && strcmp(input, "-") && tui_usable();
	if (tui)
		r.leaves = ann_leaves_new();
	err = session_process(s, on_sample, &r);
	if (err >= 0 && report_export)
		err = write_export();
	if (err >= 0 && tui) {
		const char *nc = getenv("NO_COLOR");

		err = report_browse(&r, input, limit, &so, &s, !no_color && !(nc && *nc), sort);
		tui = err != 1;
		err = err == 1 ? 0 : err;
	}
	if (err < 0) {
		fprintf(stderr, "perfkit report: %s\n", pk_errmsg());
	} else if (!report_export && !tui) {
		uint64_t nr = 0;

		if (!r.quiet) {
			printf("#\n#\n");
			printf("# Total Lost Samples: %" PRIu64 "\n#\n", session_stats(s)->nr_lost);
		}
		for (size_t i = 0; i < r.f->nr_evsels; i++) {
			uint64_t total;

			/* as perf's (default) --skip-empty: an event with no
			 * sample to show prints nothing */
			if (!hist_shown(&r, &r.hists[i], &total))
				continue;
			print_hist(&r, &r.f->evsels[i], &r.hists[i], limit);
			nr += r.hists[i].nr_samples;
		}
		if (!nr && !r.quiet)
			printf("# no samples in %s\n", input);
		/* perf report warns too ("lost N chunks") */
		if (session_stats(s)->nr_lost_records && !r.quiet)
			fprintf(stderr, "perfkit report: warning: %s: %" PRIu64 " events were lost while recording "
				"(the ring buffer was full: check I/O or CPU load, or record with a bigger -m)\n",
				input, session_stats(s)->nr_lost_records);
	}
	if (err >= 0 && !report_export && !tui && r.hint_sym && !r.quiet && isatty(STDOUT_FILENO))
		print_hint(input, r.hint_sym);
	if (r.quiet)
		pk_warnings_take();   /* perf's -q: no warnings or messages */
	else
		print_warnings();
	for (size_t i = 0; i < r.f->nr_evsels; i++) {
		hm_release(&r.hists[i].keys);
		free(r.hists[i].rows);
		cg_forest_free(r.hists[i].cg);
	}
	free(r.hists);
	free(r.rowbuf);
	for (size_t i = 0; r.prevs && i < PREV_SLOTS; i++)
		free(r.prevs[i].v);
	free(r.prevs);
	free(r.row_cache);
	ann_leaves_free(r.leaves);
	export_free(report_export);
	report_export = NULL;
	session_close(s);
	return err < 0 ? 1 : 0;
}

/* ---- on a terminal: the browser (src/lib/tui) ----
 * The first event with samples, its rows as print_hist() orders and
 * filters them; call graphs from the same stacks (trees built for the
 * Children or the Self view, each once); 's' and '+' aggregate again (the
 * file read again); 'a' annotates from the leaf samples report's own pass
 * counted (annotate/annotate.h ann_leaves), disassembling the one symbol. */
struct report_tui {
	struct report *r;
	struct session **sess;
	const char *input;
	struct session_opts so;
	double limit;
	char sort[256];
	struct hist *h;
	uint64_t total;
	size_t *hrow;                 /* table row -> h->rows index */
	uint32_t *trees[2];           /* per h row: [0] Self view, [1] Children view */
	struct cg_params cg[2];
	bool *show;
	struct pk_arena texts;
	const char **textv;
	struct tui_table t;
	char title[512], head[512];
	struct inline_resolver *inl;
};

static void rt_release_hist(struct report_tui *rt)
{
	for (int c = 0; c < 2; c++) {
		free(rt->trees[c]);
		rt->trees[c] = NULL;
	}
	free(rt->hrow);
	free(rt->show);
	free(rt->t.rows);
	free(rt->textv);
	pk_arena_release(&rt->texts);
	rt->hrow = NULL;
	rt->show = NULL;
	rt->t.rows = NULL;
	rt->textv = NULL;
}

/* The table of the first event with samples (print_hist's rows). */
static void rt_prepare(struct report_tui *rt)
{
	struct report *r = rt->r;
	struct hist *h = NULL;
	const struct pd_evsel *ev = NULL;
	char buf[512];
	uint64_t total = 0;
	unsigned long n = 0;
	char unit = ' ';

	for (size_t i = 0; i < r->f->nr_evsels && !h; i++)
		if ((n = (unsigned long)hist_shown(r, &r->hists[i], &total))) {
			h = &r->hists[i];
			ev = &r->f->evsels[i];
		}
	rt->h = h;
	rt->total = total;
	rt->t = (struct tui_table){ .title = rt->title, .stdio_head = rt->head, .sort = rt->sort,
				    .nr_keys = r->nr_keys, .children = r->children,
				    .show_children = r->children, .show_nr = r->show_nr, .total = total };
	for (int k = 0; k < r->nr_keys; k++)
		rt->t.headers[k] = key_header(r->keys[k]);
	if (n > 1000) { n /= 1000; unit = 'K'; }
	if (n > 1000) { n /= 1000; unit = 'M'; }
	if (n > 1000) { n /= 1000; unit = 'G'; }
	snprintf(rt->title, sizeof(rt->title), "Samples: %lu%c of event '%s', Event count (approx.): %" PRIu64,
		 n, unit, ev ? ev->name : "none", total);
	snprintf(rt->head, sizeof(rt->head), "#\n#\n# Total Lost Samples: %" PRIu64 "\n#\n"
		 "# Samples: %lu%c of event '%s'\n# Event count (approx.): %" PRIu64 "\n#\n",
		 session_stats(*rt->sess)->nr_lost, n, unit, ev ? ev->name : "none", total);
	if (!h)
		return;
	hm_release(&h->keys);
	hm_init(&h->keys);
	for (size_t i = 0; i < h->nr; i++)
		h->rows[i].comm_last = session_thread_comm(r->sess, h->rows[i].tid);
	rt->textv = xmalloc((h->nr + 1) * (size_t)r->nr_keys * sizeof(*rt->textv));
	for (size_t i = 0; i < h->nr; i++) {
		h->rows[i].text = rt->textv + i * (size_t)r->nr_keys;
		h->rows[i].no_map = !strcmp(h->rows[i].dso, "[unknown]");
		for (int k = 0; k < r->nr_keys; k++) {
			key_text(&h->rows[i], r->keys[k], buf, sizeof(buf));
			h->rows[i].text[k] = pk_arena_memdup0(&rt->texts, buf, strlen(buf));
		}
	}
	sort_ctx = r;
	qsort(h->rows, h->nr, sizeof(*h->rows), cmp_rows);
	rt->show = xcalloc(h->nr + 1, sizeof(*rt->show));
	rt->hrow = xcalloc(h->nr + 1, sizeof(*rt->hrow));
	rt->t.rows = xcalloc(h->nr + 1, sizeof(*rt->t.rows));
	for (size_t i = 0; i < h->nr; i++) {
		const struct row *row = &h->rows[i];
		uint64_t v = r->children ? row->children : row->self;

		if ((total ? 100.0 * (double)v / (double)total : 0) < rt->limit || !v)
			continue;
		if (r->hide_unresolved && !row->sym)
			continue;
		rt->show[i] = true;
		struct tui_row *tr = &rt->t.rows[rt->t.nr_rows];

		*tr = (struct tui_row){ .children = row->children, .self = row->self, .nr = row->nr_self,
					.comm = row->comm, .dso = row->dso, .sym = row->sym, .tid = row->tid };
		for (int k = 0; k < r->nr_keys; k++)
			tr->text[k] = row->text[k];
		rt->hrow[rt->t.nr_rows++] = i;
	}
	if (r->graph && h->cg) {   /* the first view's trees, as --stdio builds them */
		rt->trees[r->children] = build_trees(r, h, rt->show, total);
		for (size_t i = 0; i < rt->t.nr_rows; i++)
			rt->t.rows[i].has_graph = rt->trees[r->children][rt->hrow[i]] != 0;
	}
}

static int rt_graph(void *ctx, size_t i, bool children, FILE *fp)
{
	struct report_tui *rt = ctx;
	struct report *r = rt->r;
	const struct row *row;
	int c = children && r->children;

	if (!rt->h || !rt->h->cg || i >= rt->t.nr_rows)
		return 0;
	if (!rt->trees[c]) {   /* the other view: its trees once */
		bool was = r->children;
		struct cg_params cg = r->cg;

		r->children = c;
		r->cg = rt->cg[c];
		rt->trees[c] = build_trees(r, rt->h, rt->show, rt->total);
		r->children = was;
		r->cg = cg;
	}
	row = &rt->h->rows[rt->hrow[i]];
	if (rt->trees[c][rt->hrow[i]])
		cg_tree_print(fp, rt->h->cg, rt->trees[c][rt->hrow[i]], &rt->cg[c], rt->total,
			      c ? row->children : row->self);
	return 0;
}

static int rt_regroup(void *ctx, const char *keys, bool children)
{
	struct report_tui *rt = ctx;
	struct report *r = rt->r;
	static const char *const known[] = { "comm", "dso", "sym", "symbol", "pid", "tid", "srcline" };
	char *dup = xstrdup(keys), *save = NULL;
	struct session *ns;
	bool has_cc = false;
	int n = 0, err;

	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save), n++) {
		size_t k = 0;

		while (k < sizeof(known) / sizeof(known[0]) && strcmp(tok, known[k]))
			k++;
		if (k == sizeof(known) / sizeof(known[0]) || n == K_MAX) {
			err = n == K_MAX ? pk_error(-EINVAL, "too many sort keys") :
			      pk_error(-EINVAL, "unknown sort key '%s' (comm, dso, sym, pid, tid, srcline)", tok);
			free(dup);
			return err;
		}
	}
	free(dup);
	if (!n)
		return pk_error(-EINVAL, "no sort key");
	err = session_open(&ns, rt->input, &rt->so);   /* before anything is freed */
	if (err)
		return err < 0 ? err : -EIO;
	parse_sort(r, keys);
	snprintf(rt->sort, sizeof(rt->sort), "%s", keys);
	r->cg.skip_first = !strncmp(keys, "sym", 3);
	rt->cg[0].skip_first = rt->cg[1].skip_first = r->cg.skip_first;
	rt_release_hist(rt);
	for (size_t i = 0; i < r->f->nr_evsels; i++) {
		hm_release(&r->hists[i].keys);
		free(r->hists[i].rows);
		cg_forest_free(r->hists[i].cg);
	}
	free(r->hists);
	for (size_t i = 0; r->prevs && i < PREV_SLOTS; i++)
		free(r->prevs[i].v);
	free(r->prevs);
	free(r->row_cache);
	r->prevs = NULL;
	r->row_cache = NULL;
	session_close(*rt->sess);
	*rt->sess = ns;
	r->sess = ns;
	r->f = session_file(r->sess);
	r->no_row_cache = r->row_by_tid = false;
	for (int k = 0; k < r->nr_keys; k++)
		if (r->keys[k] == K_SRCLINE)
			r->no_row_cache = true;
		else if (r->keys[k] == K_PID || r->keys[k] == K_TID)
			r->row_by_tid = true;
	for (size_t i = 0; i < r->f->nr_evsels; i++)
		if (r->f->evsels[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN)
			has_cc = true;
	r->children = has_cc && children;
	r->cg = rt->cg[r->children];
	r->hists = xcalloc(r->f->nr_evsels, sizeof(*r->hists));
	for (size_t i = 0; i < r->f->nr_evsels; i++)
		hm_init(&r->hists[i].keys);
	ann_leaves_free(r->leaves);
	r->leaves = ann_leaves_new();
	err = session_process(r->sess, on_sample, r);
	if (err < 0)
		return err;
	rt_prepare(rt);
	return 0;
}

static int rt_annotate(void *ctx, size_t i, FILE *fp)
{
	struct report_tui *rt = ctx;
	struct report *r = rt->r;
	const struct row *row;
	struct ann_profile *p;
	const char *file;
	int err;

	if (!rt->h || i >= rt->t.nr_rows || !r->leaves)
		return -EINVAL;
	row = &rt->h->rows[rt->hrow[i]];
	file = row->kernel ? "/proc/kcore" : row->dso[0] == '/' ? session_dso_file(r->sess, row->dso) : NULL;
	/* the samples counted per leaf address in report's own pass */
	err = ann_leaves_profile(r->leaves, r->f->evsels[rt->h - r->hists].name, row->dso, row->sym, row->kernel,
				 row->kernel ? NULL : file, &p);
	if (err)
		return err;
	if (!file)
		err = pk_error(-ENOENT, "%s: no file to read (deleted, or not ELF)", dso_short(row->dso));
	else
		err = tui_annotate_text(fp, p, p->funcs[0], file, rt->inl ? rt->inl : (rt->inl = inline_resolver_new()));
	ann_profile_free(p);
	return err;
}

/* 1: no browser here (print the text); else 0 or -errno. */
static int report_browse(struct report *r, const char *input, double limit, const struct session_opts *so,
			 struct session **sess, bool color, const char *sort)
{
	static const struct tui_ops ops = { .graph = rt_graph, .annotate = rt_annotate, .regroup = rt_regroup };
	struct report_tui rt = { .r = r, .sess = sess, .input = input, .so = *so, .limit = limit };
	struct tui_opts o = { .color = color };
	int err;

	snprintf(rt.sort, sizeof(rt.sort), "%s", sort);
	rt.cg[0] = rt.cg[1] = r->cg;
	if (r->children)   /* the Self view's order: perf's default without Children */
		rt.cg[0].order = CG_CALLEE;
	rt_prepare(&rt);
	err = tui_browse(&rt.t, &ops, &rt, &o);
	rt_release_hist(&rt);
	if (rt.inl)
		inline_resolver_free(rt.inl);
	if (err == -ENOTTY || err == -EOPNOTSUPP)
		return 1;
	if (err < 0)
		return pk_error(err, "%s", pk_errmsg()[0] ? pk_errmsg() : strerror(-err));
	return 0;
}
