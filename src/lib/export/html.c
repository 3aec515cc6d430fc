/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * html.c — html_report() of html.h: the inputs into the export model, the
 * model's merged stacks into one call tree (a value per profile at every
 * node) and exact per-function and per-call-pair sums, the hottest
 * functions' annotations, all as escaped JSON inside the page whose
 * script and style (html/page.js, html/page.css) are compiled in
 * (mk/html.mk makes html_assets.h from them).
 */
#include "export/html.h"
#include "export/model.h"

#include "annotate/annotate.h"
#include "base/error.h"
#include "base/hashmap.h"
#include "base/outfile.h"
#include "flame/flame.h"
#include "symbol/demangle.h"
#include "html_assets.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXP 16                    /* profiles in one page (events) */

void html_opts_init(struct html_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->minwidth_pct = 0.01;
	o->annotate_max = 20;
}

void html_add_json_str(struct strbuf *sb, const char *s, size_t len)
{
	struct strbuf t = STRBUF_INIT;

	sb_add_json(&t, s, len);    /* valid UTF-8 from here on */
	sb_grow(sb, t.len);
	for (size_t i = 0; i < t.len; i++) {
		unsigned char c = (unsigned char)t.buf[i];

		if (c == '<' || c == '>' || c == '&') {
			sb_addf(sb, "\\u%04x", c);
		} else if (c == 0xe2 && i + 2 < t.len && (unsigned char)t.buf[i + 1] == 0x80 &&
			   ((unsigned char)t.buf[i + 2] == 0xa8 || (unsigned char)t.buf[i + 2] == 0xa9)) {
			sb_addf(sb, "\\u%04x", 0x2028 + ((unsigned char)t.buf[i + 2] - 0xa8));
			i += 2;
		} else {
			sb_addch(sb, c);
		}
	}
	sb_release(&t);
}

static void json_str(struct strbuf *sb, const char *s)
{
	sb_addch(sb, '"');
	html_add_json_str(sb, s, strlen(s));
	sb_addch(sb, '"');
}

/* ---- inputs -------------------------------------------------------- */

/* stdin ("-"): its first bytes, read to tell perf.data from folded text,
 * then handed to the stream readers as their prefix. */
static char stdin_pre[8];
static size_t stdin_npre;

static bool is_magic(const char *m)
{
	return !memcmp(m, "PERFILE2", 8) || !memcmp(m, "2ELIFREP", 8);
}

static bool is_perfdata(const char *path)
{
	char magic[8];
	int fd;
	bool yes;

	if (!strcmp(path, "-")) {
		ssize_t n = 1;

		for (stdin_npre = 0; stdin_npre < 8 && n > 0; stdin_npre += n > 0 ? (size_t)n : 0)
			n = read(STDIN_FILENO, stdin_pre + stdin_npre, 8 - stdin_npre);
		return stdin_npre == 8 && is_magic(stdin_pre);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;       /* the session names the problem */
	yes = read(fd, magic, 8) == 8 && is_magic(magic);
	close(fd);
	return yes;
}

/* One reading of a perf.data feeds the export model and, for the input
 * the page annotates, the annotation builder. */
struct loader {
	struct export_feed *feed;
	struct ann_builder *ann;
};

static int on_sample(const struct pk_sample *s, void *arg)
{
	struct loader *l = arg;

	export_feed_add(l->feed, s);
	if (l->ann)
		ann_builder_add(l->ann, s);
	return 0;
}

/* The session is read with raw symbol names (annotate looks them up in
 * the ELF file); gid_of() demangles them as the session would.  *sp keeps
 * the session open when ann is given (its DSO files are annotated). */
static int load_perfdata(struct pk_export **out, const char *path, const struct session_opts *so,
			 struct ann_builder *ann, struct session **sp, char ***evorder)
{
	struct session_opts raw = *so;
	struct session *s;
	struct loader l;
	int err;

	raw.no_demangle = true;
	err = strcmp(path, "-") ? session_open(&s, path, &raw)
				: session_open_stream(&s, "-", STDIN_FILENO, stdin_pre, stdin_npre, &raw);
	if (err)
		return err;
	*out = export_new_file(session_file(s));
	l = (struct loader){ export_feed_new(), ann };
	err = session_process(s, on_sample, &l);
	export_add_feed(*out, l.feed);
	export_feed_free(l.feed);
	/* the file's event order, which report prints its tables in */
	const struct pd_file *pf = session_file(s);

	*evorder = xcalloc(pf->nr_evsels + 1, sizeof(**evorder));
	for (size_t i = 0; i < pf->nr_evsels; i++)
		(*evorder)[i] = xstrdup(pf->evsels[i].name ? pf->evsels[i].name : "");
	if (err >= 0 && !(*out)->nr_samples)
		err = pk_error(ENODATA, "%s: no samples", path);
	if (err < 0 || !sp)
		session_close(s);
	else
		*sp = s;
	return err < 0 ? err : 0;
}

static int load_folded(struct pk_export **out, const char *path)
{
	struct flame_input in;
	struct pk_frame *fr = NULL;
	size_t nfr = 0, ignored = 0, first_bad = 0, nlines;
	char *buf = NULL;
	int err;

	flame_input_init(&in);
	err = strcmp(path, "-") ? flame_input_add_file(&in, path)
				: flame_input_add_stream(&in, STDIN_FILENO, "-", stdin_pre, stdin_npre);
	if (err) {
		flame_input_release(&in);
		return err;
	}
	*out = export_new();
	for (size_t i = 0; i < in.nr; i++) {
		const struct flame_line *l = &in.lines[i];
		size_t stacklen, n = 0;
		double cnt;
		uint64_t count;

		if (!l->len || (l->len == 1 && l->s[0] == '\r'))
			continue;
		if (!flame_parse_count(l->s, l->len, &stacklen, &cnt) || !stacklen) {
			if (!ignored++)
				first_bad = i + 1;
			continue;
		}
		count = (uint64_t)llround(cnt);
		if (!count)
			continue;
		buf = xrealloc(buf, stacklen + 1);
		memcpy(buf, l->s, stacklen);
		buf[stacklen] = '\0';
		for (size_t k = 0; k <= stacklen; k++)
			if (k == stacklen || buf[k] == ';')
				n++;
		if (n > nfr) {
			nfr = n * 2;
			fr = xrealloc(fr, nfr * sizeof(*fr));
		}
		/* root first in the text, leaf first in a sample */
		size_t j = n, st = 0;

		for (size_t k = 0; k <= stacklen; k++) {
			if (k < stacklen && buf[k] != ';')
				continue;
			buf[k] = '\0';
			fr[--j] = (struct pk_frame){ .sym = buf + st, .dso = "" };
			st = k + 1;
		}
		struct pk_sample s = { .event = "samples", .period = count, .nr_frames = n, .frames = fr };

		export_add_n(*out, &s, count);
	}
	free(buf);
	free(fr);
	nlines = in.nr;
	flame_input_release(&in);
	if (!(*out)->nr_samples && ignored)   /* not text of either kind */
		return pk_error(ENODATA, "%s: neither a perf.data file (no \"PERFILE2\" at offset 0) nor "
				"folded stacks (line %zu: expected \"frame;frame;... COUNT\")", path, first_bad);
	if (!(*out)->nr_samples)
		return pk_error(ENODATA, "%s: no folded stacks and not a perf.data file (%s)", path,
				nlines ? "blank lines or counts of 0 only" : "empty");
	if (ignored)
		pk_warn("%s: %zu lines without a stack and a count were ignored", path, ignored);
	return 0;
}

static int load(struct pk_export **out, const char *path, const struct session_opts *so, bool *perf,
		struct ann_builder *ann, struct session **sp, char ***evorder)
{
	*perf = is_perfdata(path);
	*out = NULL;
	return *perf ? load_perfdata(out, path, so, ann, sp, evorder) : load_folded(out, path);
}

/* ---- the page's model ---------------------------------------------- */

struct prof {
	const struct pk_export *x;
	int xi;                       /* which input: 0, or 1 for --diff's NEW */
	uint32_t ev;
	const char *label;
	uint64_t total, samples;
};

struct gframe {
	const char *name, *dso;
};

struct node {
	uint32_t frame, parent, depth;
	uint32_t kid, next;          /* first child, next sibling (0: none) */
	bool keep;
};

struct model {
	bool demangle;                /* show C++/Rust names demangled */
	struct hashmap names;         /* demangled names, interned */
	struct prof p[MAXP];
	int np;
	struct hashmap gmap;          /* name\0dso -> gid + 1 */
	struct gframe *g;
	size_t ng, galloc;
	uint32_t *lmap[2];            /* per export: local frame -> gid */
	struct node *nodes;
	size_t nn, nalloc;
	uint64_t *val;                /* nn * np * 2: period, samples */
	struct hashmap kids;          /* (parent, frame) -> node */
	size_t pruned;
};

static uint32_t gid_of(struct model *m, const char *name, const char *dso)
{
	struct strbuf k = STRBUF_INIT;
	struct hm_entry *e;
	int created;

	if (m->demangle && sym_is_mangled(name)) {   /* as symbol.c's symcache */
		char *dm = sym_demangle(name, strlen(name), 0);

		if (dm) {
			name = hm_intern(&m->names, dm, strlen(dm));
			free(dm);
		}
	}

	sb_addstr(&k, name);
	sb_addch(&k, '\0');
	sb_addstr(&k, dso);
	e = hm_upsert(&m->gmap, k.buf, k.len, &created);
	sb_release(&k);
	if (created) {
		if (m->ng == m->galloc) {
			m->galloc = m->galloc ? 2 * m->galloc : 1024;
			m->g = xrealloc(m->g, m->galloc * sizeof(*m->g));
		}
		m->g[m->ng] = (struct gframe){ name, dso };
		e->val.u = ++m->ng;
	}
	return (uint32_t)(e->val.u - 1);
}

static uint32_t node_get(struct model *m, uint32_t parent, uint32_t frame)
{
	uint32_t key[2] = { parent, frame };
	int created;
	struct hm_entry *e = hm_upsert(&m->kids, key, sizeof(key), &created);

	if (!created)
		return (uint32_t)e->val.u;
	if (m->nn == m->nalloc) {
		m->nalloc = m->nalloc ? 2 * m->nalloc : 4096;
		m->nodes = xrealloc(m->nodes, m->nalloc * sizeof(*m->nodes));
	}
	m->nodes[m->nn] = (struct node){ frame, parent, m->nodes[parent].depth + 1,
					 0, m->nodes[parent].kid, false };
	m->nodes[parent].kid = (uint32_t)m->nn;
	e->val.u = m->nn;
	return (uint32_t)m->nn++;
}

static void build_tree(struct model *m)
{
	hm_init(&m->kids);
	m->nalloc = 4096;
	m->nodes = xcalloc(m->nalloc, sizeof(*m->nodes));
	m->nn = 1;                     /* the root, "all" */
	m->nodes[0].frame = UINT32_MAX;
	/* the tree first, values after (the node array moves while it grows) */
	size_t vs = (size_t)m->np * 2;
	struct { uint32_t node; int pi; size_t st; } *hits = NULL;
	size_t nh = 0, ha = 0;

	for (int pi = 0; pi < m->np; pi++) {
		const struct pk_export *x = m->p[pi].x;
		const uint32_t *lm = m->lmap[m->p[pi].xi];

		for (size_t i = 0; i < x->nr_stacks; i++) {
			const struct ex_stack *s = &x->stacks[i];
			uint32_t node = 0;

			if (s->event != m->p[pi].ev)
				continue;
			for (uint32_t k = s->nr; k-- > 0;)
				node = node_get(m, node, lm[x->ids[s->first + k]]);
			if (nh == ha) {
				ha = ha ? 2 * ha : 4096;
				hits = xrealloc(hits, ha * sizeof(*hits));
			}
			hits[nh].node = node;
			hits[nh].pi = pi;
			hits[nh].st = i;
			nh++;
		}
	}
	m->val = xcalloc(m->nn * vs, sizeof(*m->val));
	for (size_t h = 0; h < nh; h++) {
		const struct ex_stack *s = &m->p[hits[h].pi].x->stacks[hits[h].st];

		/* up to the root: every node on the path gets the stack */
		for (uint32_t n = hits[h].node;; n = m->nodes[n].parent) {
			m->val[n * vs + 2 * (size_t)hits[h].pi] += s->period;
			m->val[n * vs + 2 * (size_t)hits[h].pi + 1] += s->count;
			if (!n)
				break;
		}
	}
	free(hits);
	hm_release(&m->kids);
}

static void prune(struct model *m, double pct)
{
	size_t vs = (size_t)m->np * 2;

	for (size_t n = 0; n < m->nn; n++) {
		bool keep = n == 0;

		for (int pi = 0; pi < m->np && !keep; pi++)
			keep = m->p[pi].total &&
			       100.0 * (double)m->val[n * vs + 2 * (size_t)pi] / (double)m->p[pi].total >= pct;
		m->nodes[n].keep = keep;
		if (!keep)
			m->pruned++;
	}
}

static const struct model *sort_m;

static int cmp_kid(const void *a, const void *b)
{
	const struct gframe *x = &sort_m->g[sort_m->nodes[*(const uint32_t *)a].frame];
	const struct gframe *y = &sort_m->g[sort_m->nodes[*(const uint32_t *)b].frame];
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->dso, y->dso);
}

/* The kept tree, pre-order, children by name: frame, depth, then each
 * profile's period and samples. */
static void emit_tree(struct strbuf *sb, struct model *m)
{
	size_t vs = (size_t)m->np * 2, nst = 0, ast = 1024, tmpa = 0;
	uint32_t *stack = xmalloc(ast * sizeof(*stack)), *tmp = NULL;
	bool first = true;

	sort_m = m;
	stack[nst++] = 0;
	sb_addstr(sb, "[");
	while (nst) {
		uint32_t n = stack[--nst];
		size_t nk = 0;

		sb_addf(sb, first ? "%d,%" PRIu32 : ",%d,%" PRIu32,
			n ? (int)m->nodes[n].frame : -1, m->nodes[n].depth);
		first = false;
		for (size_t k = 0; k < vs; k++)
			sb_addf(sb, ",%" PRIu64, m->val[n * vs + k]);
		for (uint32_t k = m->nodes[n].kid; k; k = m->nodes[k].next) {
			if (!m->nodes[k].keep)
				continue;
			if (nk == tmpa) {
				tmpa = tmpa ? 2 * tmpa : 64;
				tmp = xrealloc(tmp, tmpa * sizeof(*tmp));
			}
			tmp[nk++] = k;
		}
		qsort(tmp, nk, sizeof(*tmp), cmp_kid);
		if (nst + nk > ast) {
			ast = 2 * (nst + nk);
			stack = xrealloc(stack, ast * sizeof(*stack));
		}
		for (size_t k = nk; k-- > 0;)    /* first child on top */
			stack[nst++] = tmp[k];
	}
	sb_addstr(sb, "]");
	free(stack);
	free(tmp);
}

/* Self and Children per function, exact over every stack of profile pi:
 * gid, self period, self samples, children period, children samples. */
static void emit_funcs(struct strbuf *sb, struct model *m, int pi)
{
	const struct pk_export *x = m->p[pi].x;
	const uint32_t *lm = m->lmap[m->p[pi].xi];
	uint64_t *v = xcalloc(m->ng * 4 + 1, sizeof(*v));
	size_t *stamp = xcalloc(m->ng + 1, sizeof(*stamp));
	bool first = true;

	for (size_t i = 0; i < x->nr_stacks; i++) {
		const struct ex_stack *s = &x->stacks[i];

		if (s->event != m->p[pi].ev || !s->nr)
			continue;
		uint32_t leaf = lm[x->ids[s->first]];

		v[leaf * 4] += s->period;
		v[leaf * 4 + 1] += s->count;
		for (uint32_t k = 0; k < s->nr; k++) {
			uint32_t g = lm[x->ids[s->first + k]];

			if (stamp[g] == i + 1)
				continue;
			stamp[g] = i + 1;
			v[g * 4 + 2] += s->period;
			v[g * 4 + 3] += s->count;
		}
	}
	sb_addstr(sb, "[");
	for (size_t g = 0; g < m->ng; g++) {
		if (!v[g * 4 + 3])
			continue;
		sb_addf(sb, "%s%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, first ? "" : ",", g,
			v[g * 4], v[g * 4 + 1], v[g * 4 + 2], v[g * 4 + 3]);
		first = false;
	}
	sb_addstr(sb, "]");
	free(v);
	free(stamp);
}

/* caller -> callee pairs over every profile: caller, callee, then each
 * profile's period (once per stack for a pair met twice). */
static void emit_edges(struct strbuf *sb, struct model *m)
{
	struct hashmap em;
	uint64_t *v = NULL;
	uint32_t *pair = NULL;
	size_t *stamp = NULL, ne = 0, ea = 0, gstamp = 0;
	bool first = true;

	hm_init(&em);
	for (int pi = 0; pi < m->np; pi++) {
		const struct pk_export *x = m->p[pi].x;
		const uint32_t *lm = m->lmap[m->p[pi].xi];

		for (size_t i = 0; i < x->nr_stacks; i++) {
			const struct ex_stack *s = &x->stacks[i];

			if (s->event != m->p[pi].ev)
				continue;
			gstamp++;
			for (uint32_t k = 0; k + 1 < s->nr; k++) {
				uint32_t key[2] = { lm[x->ids[s->first + k + 1]], lm[x->ids[s->first + k]] };
				int created;
				struct hm_entry *e = hm_upsert(&em, key, sizeof(key), &created);

				if (created) {
					if (ne == ea) {
						size_t old = ea;

						ea = ea ? 2 * ea : 4096;
						v = xrealloc(v, ea * (size_t)m->np * sizeof(*v));
						pair = xrealloc(pair, ea * 2 * sizeof(*pair));
						stamp = xrealloc(stamp, ea * sizeof(*stamp));
						memset(v + old * (size_t)m->np, 0,
						       (ea - old) * (size_t)m->np * sizeof(*v));
						memset(stamp + old, 0, (ea - old) * sizeof(*stamp));
					}
					pair[2 * ne] = key[0];
					pair[2 * ne + 1] = key[1];
					e->val.u = ne++;
				}
				if (stamp[e->val.u] == gstamp)
					continue;
				stamp[e->val.u] = gstamp;
				v[e->val.u * (size_t)m->np + (size_t)pi] += s->period;
			}
		}
	}
	sb_addstr(sb, "[");
	for (size_t e = 0; e < ne; e++) {
		sb_addf(sb, "%s%" PRIu32 ",%" PRIu32, first ? "" : ",", pair[2 * e], pair[2 * e + 1]);
		first = false;
		for (int pi = 0; pi < m->np; pi++)
			sb_addf(sb, ",%" PRIu64, v[e * (size_t)m->np + (size_t)pi]);
	}
	sb_addstr(sb, "]");
	hm_release(&em);
	free(v);
	free(pair);
	free(stamp);
}

/* ---- annotations ----------------------------------------------------- */

static bool is_elf(const char *file)
{
	char magic[4];
	int fd = file ? open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	bool elf = fd >= 0 && read(fd, magic, 4) == 4 && !memcmp(magic, "\x7f" "ELF", 4);

	if (fd >= 0)
		close(fd);
	return elf;
}

static void emit_view(struct strbuf *sb, const struct ann_func *f, const struct ann_view *v,
		      struct ann_srccache *src, const char *file)
{
	struct ann_line *l = NULL;
	size_t nl = ann_view_lines(v, &l);

	sb_addstr(sb, "{\"file\":");
	json_str(sb, file);
	sb_addf(sb, ",\"self\":%" PRIu64 ",\"insns\":[", f->self.period);
	for (size_t i = 0; i < v->nr_insns; i++) {
		const struct ann_insn *in = &v->insns[i];
		struct strbuf t = STRBUF_INIT;

		sb_addf(&t, "%s%s%s", in->in.mnemonic, in->in.ops[0] ? " " : "", in->in.ops);
		if (in->back_edge)   /* as annotate --stdio marks it */
			sb_addstr(&t, "  # loop back");
		sb_addf(sb, "%s[\"%" PRIx64 "\",%" PRIu64 ",", i ? "," : "", in->in.addr, in->self.period);
		json_str(sb, t.buf);
		sb_release(&t);
		if (in->nr_fr) {
			const struct inline_frame *fr = &v->frames[in->fr + in->nr_fr - 1];

			sb_addch(sb, ',');
			json_str(sb, fr->file ? fr->file : "??");
			sb_addf(sb, ",%d", fr->line);
		}
		sb_addch(sb, ']');
	}
	sb_addstr(sb, "],\"lines\":[");
	for (size_t i = 0; i < nl; i++) {
		size_t len = 0;
		const char *text = l[i].file ? ann_source_line(src, l[i].file, l[i].line, &len) : NULL;

		sb_addstr(sb, i ? ",[" : "[");
		json_str(sb, l[i].file ? l[i].file : "??");
		sb_addf(sb, ",%d,%" PRIu64 ",", l[i].line, l[i].self.period);
		if (text) {
			sb_addch(sb, '"');
			html_add_json_str(sb, text, len);
			sb_addch(sb, '"');
		} else {
			sb_addstr(sb, "null");
		}
		sb_addch(sb, ']');
	}
	sb_addstr(sb, "]}");
	free(l);
}

/* "gid":{…} for the hottest annotatable functions of event's profile
 * (pv: the builder's profiles of the input read through session s). */
static void emit_annot(struct strbuf *sb, struct model *m, const struct html_opts *o, struct session *s,
		       struct ann_profile **pv, size_t np, const char *event)
{
	size_t done = 0;
	bool first = true;

	sb_addstr(sb, "{");
	for (size_t i = 0; i < np; i++) {
		const struct ann_profile *p = pv[i];
		struct inline_resolver *inl;
		struct ann_srccache *src;

		if (strcmp(p->event, event))
			continue;
		inl = inline_resolver_new();
		src = ann_srccache_new();
		for (size_t k = 0; k < p->nr_funcs && done < (size_t)o->annotate_max; k++) {
			const struct ann_func *f = p->funcs[k];
			const char *file;
			struct hm_entry *e;
			struct strbuf key = STRBUF_INIT;
			struct ann_view v;

			if (!p->total_period || 200.0 * (double)f->self.period < (double)p->total_period)
				break;     /* below 0.5 % */
			if (!f->sym || f->kernel || f->unknown_addr)
				continue;
			file = session_dso_file(s, f->dso);
			if (!is_elf(file))
				continue;
			sb_addstr(&key, m->demangle ? f->sym : f->raw_sym);
			sb_addch(&key, '\0');
			sb_addstr(&key, f->dso);
			e = hm_find(&m->gmap, key.buf, key.len);
			sb_release(&key);
			if (!e || ann_view_build(&v, f, file, inl) < 0)
				continue;
			sb_addf(sb, "%s\"%" PRIu64 "\":", first ? "" : ",", e->val.u - 1);
			first = false;
			emit_view(sb, f, &v, src, file);
			ann_view_release(&v);
			done++;
		}
		ann_srccache_free(src);
		inline_resolver_free(inl);
	}
	sb_addstr(sb, "}");
}

/* ---- the page -------------------------------------------------------- */

static void html_text(struct strbuf *sb, const char *s)
{
	sb_add_xml(sb, s, strlen(s));
}

static int write_page(const struct html_opts *o, const struct strbuf *json)
{
	struct strbuf sb = STRBUF_INIT;
	struct outfile of;
	int err;

	sb_init(&sb, json->len + sizeof(html_page_js) + sizeof(html_page_css) + 4096);
	sb_addstr(&sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		       /* nothing loads from anywhere: inline script and style only */
		       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		       "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
		       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		       "<meta name=\"generator\" content=\"perfkit " PERFKIT_VERSION "\">\n<title>");
	html_text(&sb, o->title ? o->title : "perfkit report");
	sb_addstr(&sb, "</title>\n<style>\n");
	sb_add(&sb, html_page_css, sizeof(html_page_css));
	sb_addstr(&sb, "</style>\n</head>\n<body>\n<noscript>This report needs JavaScript.</noscript>\n"
		       "<script type=\"application/json\" id=\"pk-data\">");
	sb_add(&sb, json->buf, json->len);
	sb_addstr(&sb, "</script>\n<script>\n");
	sb_add(&sb, html_page_js, sizeof(html_page_js));
	sb_addstr(&sb, "</script>\n</body>\n</html>\n");
	err = of_open_shared(&of, o->output);
	if (!err) {
		if (fwrite(sb.buf, 1, sb.len, of.f) != sb.len) {
			of_abort(&of);
			err = pk_error(EIO, "%s: write error", o->output);
		} else {
			err = of_commit(&of);
		}
	}
	sb_release(&sb);
	return err;
}

/* The events of x with samples, in the file's order (evorder, NULL:
 * the model's, order of first sample), as profiles. */
static void add_profiles(struct model *m, const struct pk_export *x, int xi, const char *label,
			 char **evorder, bool first_only)
{
	size_t nord = 0;

	while (evorder && evorder[nord])
		nord++;
	for (size_t r = 0; r <= nord; r++) {
		for (uint32_t ev = 0; ev < x->nr_events && m->np < MAXP; ev++) {
			bool listed = false;

			if (!x->events[ev].nr_samples)
				continue;
			for (size_t k = 0; k < nord && !listed; k++)
				listed = !strcmp(evorder[k], x->events[ev].name);
			/* round r < nord: the file's r-th event; the last: the rest */
			if (r < nord ? strcmp(evorder[r], x->events[ev].name) != 0 : listed)
				continue;
			m->p[m->np++] = (struct prof){ x, xi, ev, label, x->events[ev].period,
						       x->events[ev].nr_samples };
			if (first_only)
				return;
		}
	}
}

/* report's --sort (the table's columns among them), --percent-limit and
 * --no-children, each only when given */
static void emit_table_opts(struct strbuf *sb, const struct html_opts *o)
{
	if (o->sort) {
		const char *p = o->sort;
		bool first = true;

		sb_addstr(sb, "\"sort\":[");
		while (*p) {
			size_t n = strcspn(p, ",");

			if ((n == 3 && !strncmp(p, "dso", 3)) || (n == 3 && !strncmp(p, "sym", 3)) ||
			    (n == 6 && !strncmp(p, "symbol", 6))) {
				sb_addstr(sb, first ? "\"" : ",\"");
				sb_addstr(sb, p[0] == 'd' ? "dso" : "name");
				sb_addch(sb, '"');
				first = false;
			}
			p += n + (p[n] == ',');
		}
		sb_addstr(sb, "],");
	}
	if (o->percent_limit > 0)
		sb_addf(sb, "\"limit\":%g,", o->percent_limit);
	if (o->no_children)
		sb_addstr(sb, "\"children\":false,");
}

int html_report(const struct html_opts *o)
{
	struct pk_export *xs[2] = { NULL, NULL };
	bool perf[2] = { false, false };
	struct model m;
	struct strbuf sb = STRBUF_INIT;
	int err = 0, nx = o->base ? 2 : 1;
	const char *paths[2] = { o->base ? o->base : o->input, o->input };

	struct ann_builder *ann = o->annotate_max > 0 ? ann_builder_new(NULL) : NULL;
	struct ann_profile **pv = NULL;
	size_t npv = 0;
	struct session *s = NULL;
	char **evorder[2] = { NULL, NULL };

	memset(&m, 0, sizeof(m));
	hm_init(&m.gmap);
	hm_init(&m.names);
	m.demangle = !o->so.no_demangle;
	for (int i = 0; i < nx && !err; i++)
		err = load(&xs[i], paths[i], &o->so, &perf[i], i == nx - 1 ? ann : NULL,
			   i == nx - 1 && ann ? &s : NULL, &evorder[i]);
	if (ann) {
		ann_builder_finish(ann, s ? session_file(s) : NULL, &pv, &npv);
		ann = NULL;
	}
	if (err)
		goto out;
	for (int i = 0; i < nx; i++) {
		m.lmap[i] = xcalloc(xs[i]->nr_frames + 1, sizeof(*m.lmap[i]));
		for (size_t k = 0; k < xs[i]->nr_frames; k++)
			m.lmap[i][k] = gid_of(&m, xs[i]->frames[k].name, xs[i]->frames[k].dso);
	}
	for (int i = 0; i < nx; i++)
		add_profiles(&m, xs[i], i, paths[i], evorder[i], nx == 2);
	build_tree(&m);
	prune(&m, o->minwidth_pct);

	sb_init(&sb, 1 << 20);
	sb_addstr(&sb, "{\"version\":1,\"generator\":\"perfkit " PERFKIT_VERSION "\",\"title\":");
	json_str(&sb, o->title ? o->title : "perfkit report");
	sb_addf(&sb, ",\"diff\":%s,\"minwidth\":%g,\"pruned\":%zu,\"nodes\":%zu,",
		nx == 2 ? "true" : "false", o->minwidth_pct, m.pruned, m.nn);
	emit_table_opts(&sb, o);
	sb_addstr(&sb, "\n\"frames\":[");
	for (size_t g = 0; g < m.ng; g++) {
		sb_addstr(&sb, g ? ",[" : "[");
		json_str(&sb, m.g[g].name);
		sb_addch(&sb, ',');
		json_str(&sb, m.g[g].dso);
		sb_addch(&sb, ']');
	}
	sb_addstr(&sb, "],\n\"profiles\":[");
	for (int pi = 0; pi < m.np; pi++) {
		const struct ex_event *e = &m.p[pi].x->events[m.p[pi].ev];

		sb_addstr(&sb, pi ? ",\n{\"input\":" : "\n{\"input\":");
		json_str(&sb, m.p[pi].label);
		sb_addstr(&sb, ",\"event\":");
		json_str(&sb, e->name);
		sb_addstr(&sb, ",\"unit\":");
		json_str(&sb, perf[m.p[pi].xi] ? e->unit : "samples");
		sb_addf(&sb, ",\"total\":%" PRIu64 ",\"samples\":%" PRIu64 ",\"funcs\":", m.p[pi].total,
			m.p[pi].samples);
		emit_funcs(&sb, &m, pi);
		sb_addstr(&sb, "}");
	}
	sb_addstr(&sb, "],\n\"edges\":");
	emit_edges(&sb, &m);
	sb_addstr(&sb, ",\n\"tree\":");
	emit_tree(&sb, &m);
	sb_addstr(&sb, ",\n\"annot\":");
	if (s && m.np) {
		int pi = nx == 2 ? 1 : 0;

		emit_annot(&sb, &m, o, s, pv, npv, m.p[pi].x->events[m.p[pi].ev].name);
	} else {
		sb_addstr(&sb, "{}");
	}
	sb_addstr(&sb, "}");
	err = write_page(o, &sb);
out:
	sb_release(&sb);
	for (size_t i = 0; i < npv; i++)
		ann_profile_free(pv[i]);
	free(pv);
	if (s)
		session_close(s);
	hm_release(&m.names);
	for (int i = 0; i < 2; i++) {
		for (size_t k = 0; evorder[i] && evorder[i][k]; k++)
			free(evorder[i][k]);
		free(evorder[i]);
		free(m.lmap[i]);
		export_free(xs[i]);
	}
	hm_release(&m.gmap);
	free(m.g);
	free(m.nodes);
	free(m.val);
	return err;
}
