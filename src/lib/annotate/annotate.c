/* SPDX-License-Identifier: GPL-2.0-or-later */
/* annotate.c — per-function, per-instruction aggregation of samples and
 * the instruction/line views of annotate.h. */
#include "annotate/annotate.h"

#include "base/error.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "cgfile/cgfile.h"
#include "session/session.h"
#include "symbol/demangle.h"
#include "symbol/symbol.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- aggregation ---- */

struct fkey {
	const char *dso;
	const char *sym;
	uint64_t start;
};

struct fbuild {
	struct ann_func f;
	size_t alloc;
	uint64_t stamp;           /* the last sample (pbuild.seq) that counted f.callee */
};

struct pbuild {
	const struct ann_filter *filt;
	struct ann_profile *p;
	struct hashmap funcs;     /* (dso ptr, start, sym ptr) → index + 1 in fb */
	struct hashmap addrs;     /* (func index, addr) → index in that func's addrs */
	struct fbuild **fb;
	size_t nr_fb, alloc_fb;
	struct hashmap names;     /* demangled names */
	const char *event;
	uint64_t seq;             /* samples with call sites (fbuild.stamp) */
	struct fkey last;         /* the last function looked up, and its index */
	size_t last_fi;
	bool have_last;
	struct acache {           /* direct-mapped cache of (function, addr) */
		uint64_t fi1, addr;   /* fi1: index + 1, 0 empty */
		size_t idx;
	} ac[4096];
};

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static bool dso_match(const char *dso, const char *want)
{
	return !strcmp(dso, want) || !strcmp(base_of(dso), want);
}

/* The start of fr's function, as the functions are keyed (0: no symbol):
 * the kernel's by address, a DSO's by its address in the DSO. */
static uint64_t func_start(const struct pk_frame *fr)
{
	if (!fr->sym)
		return 0;
	return (fr->kernel ? fr->ip : pk_frame_dso_addr(fr)) - fr->sym_off;
}

static size_t func_get(struct pbuild *b, const struct pk_frame *fr)
{
	struct fkey k = { fr->dso, fr->sym, func_start(fr) };
	int created;

	if (b->have_last && !memcmp(&k, &b->last, sizeof(k)))
		return b->last_fi;
	struct hm_entry *e = hm_upsert(&b->funcs, &k, sizeof(k), &created);

	if (!created) {
		b->last = k;
		b->last_fi = e->val.u - 1;
		b->have_last = true;
		return e->val.u - 1;
	}
	if (b->nr_fb == b->alloc_fb) {
		b->alloc_fb = b->alloc_fb ? 2 * b->alloc_fb : 64;
		b->fb = xrealloc(b->fb, b->alloc_fb * sizeof(*b->fb));
	}
	struct fbuild *n = xcalloc(1, sizeof(*n));

	n->f.dso = fr->dso;
	n->f.raw_sym = fr->sym;
	n->f.kernel = fr->kernel;
	n->f.start = k.start;
	n->f.unknown_addr = !fr->sym || (!fr->kernel && !fr->addr);
	if (fr->sym) {
		char *dm = sym_demangle(fr->sym, strlen(fr->sym), 0);

		n->f.sym = dm ? hm_intern(&b->names, dm, strlen(dm)) : fr->sym;
		free(dm);
	}
	b->fb[b->nr_fb] = n;
	e->val.u = ++b->nr_fb;
	b->last = k;
	b->last_fi = b->nr_fb - 1;
	b->have_last = true;
	return b->nr_fb - 1;
}

static struct ann_addr *addr_get(struct pbuild *b, size_t fi, uint64_t addr)
{
	struct {
		uint64_t fi, addr;
	} k = { fi, addr };
	int created;
	struct fbuild *f = b->fb[fi];
	struct acache *c = &b->ac[(addr ^ (addr >> 12) ^ fi * 0x9e37) & 4095];

	if (c->fi1 == fi + 1 && c->addr == addr)
		return &f->f.addrs[c->idx];
	struct hm_entry *e = hm_upsert(&b->addrs, &k, sizeof(k), &created);

	if (created) {
		if (f->f.nr_addrs == f->alloc) {
			f->alloc = f->alloc ? 2 * f->alloc : 16;
			f->f.addrs = xrealloc(f->f.addrs, f->alloc * sizeof(*f->f.addrs));
		}
		f->f.addrs[f->f.nr_addrs] = (struct ann_addr){ .addr = addr };
		e->val.u = f->f.nr_addrs++;
	}
	*c = (struct acache){ fi + 1, addr, e->val.u };
	return &f->f.addrs[e->val.u];
}

static uint64_t frame_addr(const struct pk_frame *fr)
{
	if (fr->kernel)
		return fr->ip;
	return fr->addr ? fr->addr : fr->sym_off;   /* unknown: the DSO file offset */
}

static struct pbuild *pbuild_new(const struct ann_filter *f, const char *event)
{
	struct pbuild *bp = xcalloc(1, sizeof(*bp));   /* its cache is large */

	bp->filt = f;
	bp->event = event;
	bp->p = xcalloc(1, sizeof(*bp->p));
	hm_init(&bp->funcs);
	hm_init(&bp->addrs);
	hm_init(&bp->names);
	return bp;
}

/* One builder per event, in order of first sample. */
struct ann_builder {
	const struct ann_filter *filt;  /* &filt_copy, or NULL */
	struct ann_filter filt_copy;    /* the caller's may be gone (a block-scope one) */
	struct pbuild **b;
	size_t n;
	struct pbuild *last;
};

static int add_sample(struct pbuild *b, const struct pk_sample *s);

static int on_sample(const struct pk_sample *s, void *arg)
{
	struct ann_builder *m = arg;
	struct pbuild *b = m->last;

	if (!b || (b->event != s->event && strcmp(b->event, s->event))) {
		b = NULL;
		for (size_t i = 0; i < m->n && !b; i++)
			if (m->b[i]->event == s->event || !strcmp(m->b[i]->event, s->event))
				b = m->b[i];
		if (!b) {
			m->b = xrealloc(m->b, (m->n + 1) * sizeof(*m->b));
			b = m->b[m->n++] = pbuild_new(m->filt, s->event);
		}
		m->last = b;
	}
	return add_sample(b, s);
}

static int add_sample(struct pbuild *b, const struct pk_sample *s)
{
	b->p->total_period += s->period;
	b->p->total_hits++;
	if (!s->nr_frames)
		return 0;
	if (s->nr_frames > 1)
		b->p->has_callchain = true;
	if (b->filt && b->filt->comm && strcmp(s->comm, b->filt->comm))
		return 0;
	const struct pk_frame *leaf = &s->frames[0];

	if (b->filt && b->filt->dso && !dso_match(leaf->dso, b->filt->dso))
		return 0;
	size_t fi = func_get(b, leaf);
	struct ann_addr *a = addr_get(b, fi, frame_addr(leaf));

	a->self.period += s->period;
	a->self.hits++;
	b->fb[fi]->f.self.period += s->period;
	b->fb[fi]->f.self.hits++;
	/* call sites: once per (function, address) per sample; a function's
	 * callee counts once per sample, and not when the leaf is in it (so
	 * that self + callee is perf's Children, recursion or not) */
	size_t n = s->nr_frames < 128 ? s->nr_frames : 128;

	b->fb[fi]->stamp = ++b->seq;
	for (size_t i = 1; i < n; i++) {
		const struct pk_frame *fr = &s->frames[i];
		bool seen = false;

		if (!fr->sym || fr->inlined || (!fr->kernel && !fr->addr))
			continue;
		fi = func_get(b, fr);
		if (b->fb[fi]->stamp != b->seq) {
			b->fb[fi]->stamp = b->seq;
			b->fb[fi]->f.callee.period += s->period;
			b->fb[fi]->f.callee.hits++;
		}
		for (size_t j = 1; j < i && !seen; j++)
			seen = s->frames[j].ip == fr->ip && s->frames[j].dso == fr->dso;
		if (seen)
			continue;
		a = addr_get(b, fi, frame_addr(fr));
		a->callee.period += s->period;
		a->callee.hits++;
	}
	return 0;
}

static int cmp_addr(const void *x, const void *y)
{
	const struct ann_addr *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int cmp_func(const void *x, const void *y)
{
	const struct ann_func *a = *(struct ann_func *const *)x, *b = *(struct ann_func *const *)y;

	if (a->self.period != b->self.period)
		return a->self.period < b->self.period ? 1 : -1;
	if (a->callee.period != b->callee.period)
		return a->callee.period < b->callee.period ? 1 : -1;
	if (!a->sym != !b->sym)
		return a->sym ? -1 : 1;
	/* equal shares: by DSO (its short name), then symbol, as perf
	 * annotate's dso,symbol order */
	const char *da = strrchr(a->dso, '/'), *db = strrchr(b->dso, '/');
	int r = strcmp(da ? da + 1 : a->dso, db ? db + 1 : b->dso);

	if (r)
		return r;
	r = a->sym ? strcmp(a->sym, b->sym) : 0;
	return r ? r : strcmp(a->dso, b->dso);
}

struct ppriv {
	struct hashmap names;
};

/* The profile of builder bp (freed). */
static struct ann_profile *pbuild_finish(struct pbuild *bp)
{
	struct ann_profile *p = bp->p;

	hm_release(&bp->funcs);
	hm_release(&bp->addrs);
	p->event = bp->event;
	p->funcs = xcalloc(bp->nr_fb ? bp->nr_fb : 1, sizeof(*p->funcs));
	for (size_t i = 0; i < bp->nr_fb; i++) {
		struct ann_func *fn = &bp->fb[i]->f;   /* first member: freed as the fbuild */

		qsort(fn->addrs, fn->nr_addrs, sizeof(*fn->addrs), cmp_addr);
		p->funcs[i] = fn;
	}
	p->nr_funcs = bp->nr_fb;
	free(bp->fb);
	qsort(p->funcs, p->nr_funcs, sizeof(*p->funcs), cmp_func);
	struct ppriv *pp = xcalloc(1, sizeof(*pp));

	pp->names = bp->names;
	p->priv = pp;
	free(bp);
	return p;
}

static size_t event_rank(const struct pd_file *pf, const char *ev)
{
	for (size_t i = 0; pf && i < pf->nr_evsels; i++)
		if (pf->evsels[i].name && !strcmp(pf->evsels[i].name, ev))
			return i;
	return (size_t)-1;
}

struct ann_builder *ann_builder_new(const struct ann_filter *f)
{
	struct ann_builder *m = xcalloc(1, sizeof(*m));

	if (f) {
		m->filt_copy = *f;
		m->filt = &m->filt_copy;
	}
	return m;
}

void ann_builder_add(struct ann_builder *b, const struct pk_sample *s)
{
	on_sample(s, b);
}

int ann_builder_finish(struct ann_builder *bld, const struct pd_file *pf, struct ann_profile ***out,
		       size_t *nr)
{
	struct ann_builder m = *bld;
	struct ann_profile **v = xcalloc(m.n ? m.n : 1, sizeof(*v));

	free(bld);
	/* the file's event order (perf's evsel order); stable otherwise */
	for (size_t i = 1; i < m.n; i++)
		for (size_t j = i; j > 0 && event_rank(pf, m.b[j]->event) <
					    event_rank(pf, m.b[j - 1]->event); j--) {
			struct pbuild *t = m.b[j];

			m.b[j] = m.b[j - 1];
			m.b[j - 1] = t;
		}
	for (size_t i = 0; i < m.n; i++)
		v[i] = pbuild_finish(m.b[i]);
	free(m.b);
	*out = v;
	*nr = m.n;
	return 0;
}

int ann_profiles_build(struct session *s, const struct ann_filter *f, struct ann_profile ***out,
		       size_t *nr)
{
	struct ann_builder *m = ann_builder_new(f);
	int rc = session_process(s, on_sample, m);
	struct ann_profile **v;
	size_t n;

	ann_builder_finish(m, session_file(s), &v, &n);
	if (rc < 0) {
		for (size_t i = 0; i < n; i++)
			ann_profile_free(v[i]);
		free(v);
		return rc;
	}
	*out = v;
	*nr = n;
	return 0;
}

int ann_profile_build(struct session *s, const struct ann_filter *f, struct ann_profile **out)
{
	struct ann_profile **v;
	size_t n;
	int rc = ann_profiles_build(s, f, &v, &n);

	if (rc < 0)
		return rc;
	for (size_t i = 1; i < n; i++)
		ann_profile_free(v[i]);
	if (n) {
		*out = v[0];
	} else {
		struct pbuild *bp = pbuild_new(f, NULL);

		*out = pbuild_finish(bp);
	}
	free(v);
	return 0;
}

void ann_profile_free(struct ann_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_funcs; i++) {
		free(p->funcs[i]->addrs);
		free(p->funcs[i]);
	}
	free(p->funcs);
	if (p->priv) {
		struct ppriv *pp = p->priv;

		hm_release(&pp->names);
		free(pp);
	}
	free(p);
}

/* ---- leaf index (ann_leaves: a browser's 'a' without reading the file again) ---- */

struct lfunc {
	const char *dso, *sym;     /* as the feeding session gave them */
	uint64_t start;
	uint64_t file_off;         /* a frame's file offset in dso (map_ip): the raw name's lookup */
	struct ann_count self, callee;
	uint32_t first;            /* its first address: index + 1 in a, 0 none */
	uint32_t ev;
	bool kernel, unknown_addr;
};

struct laddr {                 /* a leaf address or a call site of a function */
	uint64_t addr, period;     /* period, hits: as the leaf; cperiod, chits: as a call site */
	uint64_t cperiod;
	uint32_t hits, chits, fi, next;   /* next: the function's next address, index + 1 */
};

struct lprev {                 /* a caller frame of the thread's last sample */
	const char *dso, *sym;     /* dso NULL: nothing recorded at this depth */
	uint64_t ip, addr;
	bool inlined;
	uint32_t ai;               /* its call site: index + 1 in a; 0: not counted */
	uint32_t fi;               /* its function (with ai) */
	uint32_t phits, fhits;     /* counts for ai and for fi's callee not yet added
				      to them (leaves_flush) */
	uint64_t pperiod, fperiod;
};

struct lthread {
	uint32_t tid, ev;
	struct lprev *v;           /* by depth from the outermost caller */
	size_t nr, alloc;
};

#define LEAF_THREADS 256

struct ann_leaves {
	struct lev {
		const char *name;
		struct ann_count total;
		bool callchain;
	} *ev;
	size_t nr_ev;
	uint32_t last_ev;
	struct hashmap funcs;      /* (ev, dso, sym, start) → index + 1 */
	struct lfunc *f;
	size_t nr_f, alloc_f;
	struct laddr *a;
	size_t nr_a, alloc_a;
	uint32_t *slots;           /* (function, address) → index + 1 in a; open addressing */
	size_t nslots;
	struct lthread th[LEAF_THREADS];
	struct lseen {             /* the call sites (ai) and functions (fi | LEAF_FUNC) met in the current sample */
		uint32_t key, gen;
	} seen[512];
	uint32_t gen;
	struct symcache *sc;       /* raw names (ann_leaves_profile) */
};

struct ann_leaves *ann_leaves_new(void)
{
	struct ann_leaves *l = xcalloc(1, sizeof(*l));

	hm_init(&l->funcs);
	l->last_ev = UINT32_MAX;
	return l;
}

void ann_leaves_free(struct ann_leaves *l)
{
	if (!l)
		return;
	hm_release(&l->funcs);
	free(l->ev);
	free(l->f);
	free(l->a);
	free(l->slots);
	for (size_t i = 0; i < LEAF_THREADS; i++)
		free(l->th[i].v);
	if (l->sc)
		symcache_free(l->sc);
	free(l);
}

static uint32_t leaves_ev(struct ann_leaves *l, const char *event)
{
	uint32_t i = l->last_ev;

	if (i != UINT32_MAX && (l->ev[i].name == event || !strcmp(l->ev[i].name, event)))
		return i;
	for (i = 0; i < l->nr_ev; i++)
		if (l->ev[i].name == event || !strcmp(l->ev[i].name, event))
			break;
	if (i == l->nr_ev) {
		l->ev = xrealloc(l->ev, (l->nr_ev + 1) * sizeof(*l->ev));
		l->ev[l->nr_ev++] = (struct lev){ .name = event };
	}
	return l->last_ev = i;
}

/* The function of fr as func_get() keys it, per event. */
static uint32_t leaves_func(struct ann_leaves *l, uint32_t ev, const struct pk_frame *fr)
{
	struct {
		uint64_t ev;
		const char *dso, *sym;
		uint64_t start;
	} k = { ev, fr->dso, fr->sym, func_start(fr) };
	int created;

	struct hm_entry *e = hm_upsert(&l->funcs, &k, sizeof(k), &created);

	if (created) {
		if (l->nr_f == l->alloc_f) {
			l->alloc_f = l->alloc_f ? 2 * l->alloc_f : 1024;
			l->f = xrealloc(l->f, l->alloc_f * sizeof(*l->f));
		}
		l->f[l->nr_f] = (struct lfunc){ .dso = fr->dso, .sym = fr->sym, .start = k.start,
						.file_off = fr->map_ip, .ev = ev, .kernel = fr->kernel,
						.unknown_addr = !fr->sym || (!fr->kernel && !fr->addr) };
		e->val.u = ++l->nr_f;
	}
	return (uint32_t)(e->val.u - 1);
}

static size_t leaves_slot(const struct ann_leaves *l, uint32_t fi, uint64_t addr)
{
	uint64_t h = (addr ^ (uint64_t)fi * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;

	return (size_t)(h >> 32) & (l->nslots - 1);
}

static struct laddr *leaves_addr(struct ann_leaves *l, uint32_t fi, uint64_t addr)
{
	size_t i;

	if (2 * (l->nr_a + 1) > l->nslots) {   /* at most half full */
		size_t n = l->nslots ? 2 * l->nslots : 4096;

		free(l->slots);
		l->slots = xcalloc(n, sizeof(*l->slots));
		l->nslots = n;
		for (size_t j = 0; j < l->nr_a; j++) {
			for (i = leaves_slot(l, l->a[j].fi, l->a[j].addr); l->slots[i]; i = (i + 1) & (n - 1))
				;
			l->slots[i] = (uint32_t)j + 1;
		}
	}
	for (i = leaves_slot(l, fi, addr); l->slots[i]; i = (i + 1) & (l->nslots - 1)) {
		struct laddr *a = &l->a[l->slots[i] - 1];

		if (a->fi == fi && a->addr == addr)
			return a;
	}
	if (l->nr_a == l->alloc_a) {
		l->alloc_a = l->alloc_a ? 2 * l->alloc_a : 4096;
		l->a = xrealloc(l->a, l->alloc_a * sizeof(*l->a));
	}
	l->a[l->nr_a] = (struct laddr){ .addr = addr, .fi = fi, .next = l->f[fi].first };
	l->f[fi].first = (uint32_t)++l->nr_a;
	l->slots[i] = l->f[fi].first;
	return &l->a[l->nr_a - 1];
}

/* Add the counts a thread's frame holds to its call site. */
static void leaves_flush(struct ann_leaves *l, struct lprev *p)
{
	if (!p->ai)
		return;
	struct laddr *site = &l->a[p->ai - 1];

	site->cperiod += p->pperiod;
	site->chits += p->phits;
	l->f[p->fi].callee.period += p->fperiod;
	l->f[p->fi].callee.hits += p->fhits;
	p->pperiod = p->fperiod = 0;
	p->phits = p->fhits = 0;
}

/* Whether key (a call site's ai, or a function's fi | LEAF_FUNC) is new
 * in the current sample (l->seen, generation l->gen); it is then added. */
#define LEAF_FUNC 0x80000000u
static bool leaves_first(struct ann_leaves *l, uint32_t key)
{
	size_t h = (key * 0x9e3779b1u) >> 23;

	while (l->seen[h].gen == l->gen && l->seen[h].key != key)
		h = (h + 1) & 511;
	if (l->seen[h].gen == l->gen)
		return false;
	l->seen[h] = (struct lseen){ key, l->gen };
	return true;
}

void ann_leaves_add(struct ann_leaves *l, const struct pk_sample *s)
{
	uint32_t ev = leaves_ev(l, s->event);
	size_t n = s->nr_frames;

	l->ev[ev].total.period += s->period;
	l->ev[ev].total.hits++;
	if (!n)
		return;
	if (n > 1)
		l->ev[ev].callchain = true;
	const struct pk_frame *leaf = &s->frames[0];
	uint32_t fi = leaves_func(l, ev, leaf);
	struct laddr *a = leaves_addr(l, fi, frame_addr(leaf));

	a->period += s->period;
	a->hits++;
	l->f[fi].self.period += s->period;
	l->f[fi].self.hits++;
	if (n < 2)
		return;
	/* call sites (add_sample's frames[1..128)), each counted once per
	 * sample: a frame the thread's last sample had at the same depth from
	 * the outermost caller is looked up again by the index it had */
	struct lthread *t = &l->th[(s->tid ^ s->tid >> 8) % LEAF_THREADS];

	if (t->tid != s->tid || t->ev != ev) {   /* another thread's slot */
		for (size_t j = 0; j < t->nr; j++)
			leaves_flush(l, &t->v[j]);
		t->tid = s->tid;
		t->ev = ev;
		t->nr = 0;
	}
	if (n > t->alloc) {
		t->alloc = 2 * n;
		t->v = xrealloc(t->v, t->alloc * sizeof(*t->v));
	}
	for (size_t j = n; j < t->nr; j++)   /* depths this sample has not */
		leaves_flush(l, &t->v[j]);
	for (size_t j = 0; j < n; j++) {
		size_t i = n - 1 - j;
		const struct pk_frame *fr = &s->frames[i];
		struct lprev *p = &t->v[j];

		if (i == 0 || i >= 128) {
			if (j < t->nr)
				leaves_flush(l, p);
			p->dso = NULL;
			p->ai = 0;
			continue;
		}
		if (j >= t->nr || p->dso != fr->dso || p->sym != fr->sym || p->ip != fr->ip || p->addr != fr->addr ||
		    p->inlined != fr->inlined) {
			if (j < t->nr)
				leaves_flush(l, p);
			*p = (struct lprev){ .dso = fr->dso, .sym = fr->sym, .ip = fr->ip, .addr = fr->addr,
					     .inlined = fr->inlined };
			if (fr->sym && !fr->inlined && (fr->kernel || fr->addr)) {
				p->fi = leaves_func(l, ev, fr);
				p->ai = (uint32_t)(leaves_addr(l, p->fi, frame_addr(fr)) - l->a) + 1;
			}
		}
	}
	/* the counts, leaf side first as add_sample: a call site once per
	 * sample (the first time met: l->seen), and a frame just after an
	 * inlined frame of the same ip (the function the inlined code is in)
	 * not counted; add_sample skips a frame whose ip a frame nearer the
	 * leaf (but the leaf) had, which these two rules give where inlined
	 * frames come before their function's, as the session gives them.
	 * Counted in the thread's frame (p), added to the call site when the
	 * frame there changes: the sites' array is touched on changes only */
	if (++l->gen == 0) {
		memset(l->seen, 0, sizeof(l->seen));
		l->gen = 1;
	}
	leaves_first(l, fi | LEAF_FUNC);   /* the leaf's function: its self, not its callee */
	for (size_t i = 1; i < n && i < 128; i++) {
		struct lprev *p = &t->v[n - 1 - i];
		const struct pk_frame *fr = &s->frames[i];

		if (!p->ai)
			continue;
		if (leaves_first(l, p->fi | LEAF_FUNC)) {   /* a function's callee: once a sample */
			p->fperiod += s->period;
			p->fhits++;
		}
		if (!leaves_first(l, p->ai))
			continue;
		if (i > 1 && s->frames[i - 1].ip == fr->ip && s->frames[i - 1].dso == fr->dso)
			continue;
		p->pperiod += s->period;
		p->phits++;
	}
	t->nr = n;
}

/* The function called sym in dso (NULL: any) of event, kernel or not
 * (any: kernel < 0), with the most period (self and callees), or NULL
 * with a message (pk_error). */
static const struct lfunc *leaves_best(struct ann_leaves *l, const char *event, const char *dso, const char *sym,
				       int kernel)
{
	const struct lfunc *best = NULL;
	uint32_t ev;

	for (size_t i = 0; i < LEAF_THREADS; i++)   /* the counts the threads' frames hold */
		for (size_t j = 0; j < l->th[i].nr; j++)
			leaves_flush(l, &l->th[i].v[j]);
	for (ev = 0; ev < l->nr_ev && strcmp(l->ev[ev].name, event); ev++)
		;
	if (ev == l->nr_ev) {
		pk_error(ENOENT, "no samples of event '%s'", event);
		return NULL;
	}
	for (size_t i = 0; i < l->nr_f; i++) {
		const struct lfunc *f = &l->f[i];

		if (f->ev == ev && f->sym && (kernel < 0 || f->kernel == kernel) &&
		    (!dso || f->dso == dso || !strcmp(f->dso, dso)) && (f->sym == sym || !strcmp(f->sym, sym)) &&
		    (!best || f->self.period + f->callee.period > best->self.period + best->callee.period))
			best = f;
	}
	if (!best)
		pk_error(ENOENT, "no samples of %s in its own code (only in its callees)", sym);
	return best;
}

int ann_leaves_find(struct ann_leaves *l, const char *event, const char *sym, const char **dso, bool *kernel)
{
	const struct lfunc *f = leaves_best(l, event, NULL, sym, -1);

	if (!f)
		return -ENOENT;
	*dso = f->dso;
	*kernel = f->kernel;
	return 0;
}

int ann_leaves_profile(struct ann_leaves *l, const char *event, const char *dso, const char *sym, bool kernel,
		       const char *elf_path, struct ann_profile **out)
{
	const struct lfunc *best = leaves_best(l, event, dso, sym, kernel);

	if (!best)
		return -ENOENT;
	uint32_t ev = best->ev;
	struct ann_profile *p = xcalloc(1, sizeof(*p));
	struct ppriv *pp = xcalloc(1, sizeof(*pp));
	struct ann_func *fn = xcalloc(1, sizeof(*fn));
	const char *raw = best->sym;
	uint64_t size = 0;
	size_t n = 0;

	hm_init(&pp->names);
	p->priv = pp;
	p->event = l->ev[ev].name;
	p->total_period = l->ev[ev].total.period;
	p->total_hits = l->ev[ev].total.hits;
	p->has_callchain = l->ev[ev].callchain;
	p->funcs = xcalloc(1, sizeof(*p->funcs));
	p->funcs[0] = fn;
	p->nr_funcs = 1;
	/* the ELF name (the feeding session may have demangled it) */
	if (!best->kernel && !best->unknown_addr && elf_path) {
		uint64_t off = 0, va = 0;
		const char *r;

		if (!l->sc) {
			l->sc = symcache_new();
			symcache_set_demangle(l->sc, false);
		}
		r = symcache_resolve(l->sc, elf_path, best->file_off, &off, &va);
		if (r && va && va - off == best->start)
			raw = r;
		/* what ann_view_build would look up, from this cache */
		if (sym_lookup_name(l->sc, elf_path, raw, &va, &size) == 0 && va == best->start)
			fn->size = size;
	}
	fn->dso = best->dso;
	fn->raw_sym = hm_intern(&pp->names, raw, strlen(raw));
	char *dm = sym_demangle(raw, strlen(raw), 0);

	fn->sym = dm ? hm_intern(&pp->names, dm, strlen(dm)) : fn->raw_sym;
	free(dm);
	fn->start = best->start;
	fn->kernel = best->kernel;
	fn->unknown_addr = best->unknown_addr;
	fn->self = best->self;
	fn->callee = best->callee;
	for (uint32_t k = best->first; k; k = l->a[k - 1].next)
		n++;
	fn->addrs = xcalloc(n + 1, sizeof(*fn->addrs));
	for (uint32_t k = best->first; k; k = l->a[k - 1].next) {
		const struct laddr *a = &l->a[k - 1];

		fn->addrs[fn->nr_addrs++] = (struct ann_addr){ .addr = a->addr,
							       .self = { a->period, a->hits },
							       .callee = { a->cperiod, a->chits } };
	}
	qsort(fn->addrs, fn->nr_addrs, sizeof(*fn->addrs), cmp_addr);
	*out = p;
	return 0;
}

/* ---- reading code ---- */

/* Open the ELF file at path: 0 with *fd, *e and *eh set (the caller ends
 * with elf_end(*e) and close(*fd)), or -errno with a message and nothing
 * left open. */
static int elf_open(const char *path, int *fd, Elf **e, GElf_Ehdr *eh)
{
	*e = NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return pk_error(errno, "cannot open '%s': %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	*e = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*e || elf_kind(*e) != ELF_K_ELF || !gelf_getehdr(*e, eh)) {
		if (*e)
			elf_end(*e);
		*e = NULL;
		close(*fd);
		*fd = -1;
		return pk_error(EINVAL, "'%s': not an ELF file", path);
	}
	return 0;
}

/* The bytes of [start, start + *len) of the ELF at path (sections with
 * code), into a malloc'd buffer; *len is cut at the section's end. */
static int elf_code(const char *path, uint64_t start, uint64_t *len, uint8_t **buf,
		    unsigned *machine)
{
	int fd, rc;
	Elf *e;
	GElf_Ehdr eh;

	if ((rc = elf_open(path, &fd, &e, &eh)))
		return rc;
	*machine = eh.e_machine;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	bool found = false, nobits = false;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    start < sh.sh_addr || start >= sh.sh_addr + sh.sh_size)
			continue;
		if (sh.sh_type == SHT_NOBITS) {
			nobits = true;
			continue;
		}
		found = true;
		break;
	}
	if (!found) {
		rc = pk_error(EINVAL, "'%s': address %#llx is in no section %s", path,
			      (unsigned long long)start,
			      nobits ? "with contents (a debug-only file)" : "of the file");
		goto out;
	}
	uint64_t avail = sh.sh_addr + sh.sh_size - start;

	if (*len > avail)
		*len = avail;
	*buf = xmalloc(*len ? *len : 1);
	ssize_t got = pread(fd, *buf, *len, (off_t)(sh.sh_offset + (start - sh.sh_addr)));

	if (got < 0 || (uint64_t)got != *len) {
		free(*buf);
		*buf = NULL;
		rc = pk_error(EIO, "'%s': cannot read %llu bytes at %#llx", path,
			      (unsigned long long)*len, (unsigned long long)start);
	}
out:
	elf_end(e);
	close(fd);
	return rc;
}

/* Kernel code from /proc/kcore (an ELF core file whose PT_LOAD segments
 * map kernel virtual addresses). */
static int kcore_code(const char *path, uint64_t start, uint64_t *len, uint8_t **buf,
		      unsigned *machine)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	int rc = -EINVAL;

	if (fd < 0)
		return pk_error(errno, "cannot read '%s': %s", path, strerror(errno));
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr)) {
		rc = pk_error(EINVAL, "'%s': not a 64-bit ELF core file", path);
		goto out;
	}
	*machine = eh.e_machine;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) != (ssize_t)sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD || start < ph.p_vaddr || start >= ph.p_vaddr + ph.p_filesz)
			continue;
		uint64_t avail = ph.p_vaddr + ph.p_filesz - start;

		if (*len > avail)
			*len = avail;
		*buf = xmalloc(*len ? *len : 1);
		ssize_t got = pread(fd, *buf, *len, (off_t)(ph.p_offset + (start - ph.p_vaddr)));

		if (got <= 0) {
			free(*buf);
			*buf = NULL;
			rc = pk_error(EIO, "'%s': cannot read kernel code at %#llx", path,
				      (unsigned long long)start);
			goto out;
		}
		*len = (uint64_t)got;
		rc = 0;
		goto out;
	}
	rc = pk_error(EINVAL, "'%s': kernel address %#llx is in no segment", path,
		      (unsigned long long)start);
out:
	close(fd);
	return rc;
}

static struct ann_insn *insn_at(struct ann_view *v, uint64_t a)
{
	size_t lo = 0, hi = v->nr_insns;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v->insns[mid].in.addr + v->insns[mid].in.size <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < v->nr_insns && v->insns[lo].in.addr <= a)
		return &v->insns[lo];
	return NULL;
}

int ann_view_build(struct ann_view *v, const struct ann_func *f, const char *elf_path,
		   struct inline_resolver *inl)
{
	uint64_t last = f->nr_addrs ? f->addrs[f->nr_addrs - 1].addr : f->start;
	uint64_t size = 0, len;
	bool sized = false;
	uint8_t *code = NULL;
	unsigned machine = 0;
	enum dis_arch arch;
	struct disasm *d = NULL;
	int rc;

	memset(v, 0, sizeof(*v));
	if (f->sym && f->unknown_addr)   /* a name from a perf map: no file holds the code */
		return pk_error(ENOENT, "no file holds its instructions (JIT or anonymous memory, named by %s)",
				f->dso ? f->dso : "a perf map");
	if (!f->sym || f->unknown_addr)
		return pk_error(ENOENT, "no symbol for these addresses");
	if (!f->kernel && f->size) {
		size = f->size;
		sized = true;
	} else if (!f->kernel) {
		struct symcache *sc = symcache_new();
		uint64_t a = 0;

		if (sym_lookup_name(sc, elf_path, f->raw_sym, &a, &size) == 0 && a == f->start && size)
			sized = true;
		symcache_free(sc);
	}
	/* unsized: up to a return after the last sample, at most 64 KiB */
	len = sized ? size : (last - f->start) + 4096;
	if (len > 65536 && !sized)
		len = 65536;
	rc = f->kernel ? kcore_code(elf_path, f->start, &len, &code, &machine)
		       : elf_code(elf_path, f->start, &len, &code, &machine);
	if (rc < 0)
		return rc;
	rc = disasm_arch_of_elf(machine, &arch);
	if (rc == 0)
		rc = disasm_open(&d, arch);
	if (rc < 0) {
		free(code);
		return rc;
	}
	size_t alloc = 0, falloc = 0, nr_undecoded = 0;

	for (uint64_t off = 0; off < len;) {
		struct dis_insn in;

		if (disasm_one(d, code + off, len - off, f->start + off, &in) < 0) {
			if (!sized && v->nr_insns)
				break;       /* ran off the end of an unsized function */
			/* show undecodable bytes one at a time, as objdump's (bad) */
			memset(&in, 0, sizeof(in));
			in.addr = f->start + off;
			in.size = 1;
			snprintf(in.mnemonic, sizeof(in.mnemonic), "(bad)");
			snprintf(in.ops, sizeof(in.ops), ".byte 0x%02x", code[off]);
		}
		if (v->nr_insns == alloc) {
			alloc = alloc ? 2 * alloc : 256;
			v->insns = xrealloc(v->insns, alloc * sizeof(*v->insns));
		}
		struct ann_insn *ai = &v->insns[v->nr_insns++];

		memset(ai, 0, sizeof(*ai));
		ai->in = in;
		nr_undecoded += in.undecoded;
		if (inl && !f->kernel) {
			struct inline_frame fr[64];
			int n = inline_resolve_frames(inl, elf_path, in.addr, fr, 64);

			if (n > 0) {
				if (v->nr_frames + (size_t)n > falloc) {
					falloc = (falloc + (size_t)n) * 2;
					v->frames = xrealloc(v->frames, falloc * sizeof(*v->frames));
				}
				memcpy(v->frames + v->nr_frames, fr, (size_t)n * sizeof(*fr));
				ai->fr = v->nr_frames;
				ai->nr_fr = (size_t)n;
				v->nr_frames += (size_t)n;
				if (fr[n - 1].line > 0 && fr[n - 1].file)
					v->have_lines = true;
			}
		}
		off += in.size;
		if (!sized && in.kind == DIS_RET && in.addr >= last)
			break;
	}
	disasm_close(d);
	free(code);
	if (nr_undecoded)   /* capstone 4 knows part of AVX-512 only */
		pk_warn("%s: %zu instruction%s capstone cannot decode (AVX-512 or mask instructions): "
			"shown as their bytes, each where it starts", f->sym ? f->sym : elf_path, nr_undecoded,
			nr_undecoded == 1 ? "" : "s");
	if (!v->nr_insns) {
		ann_view_release(v);
		return pk_error(EINVAL, "'%s': no code at %#llx", elf_path, (unsigned long long)f->start);
	}
	/* samples, call sites, jump targets */
	for (size_t i = 0; i < f->nr_addrs; i++) {
		const struct ann_addr *a = &f->addrs[i];
		struct ann_insn *ai;

		if (a->self.hits && (ai = insn_at(v, a->addr))) {
			ai->self.period += a->self.period;
			ai->self.hits += a->self.hits;
		}
		if (a->callee.hits && a->addr > f->start && (ai = insn_at(v, a->addr - 1))) {
			ai->callee.period += a->callee.period;
			ai->callee.hits += a->callee.hits;
		}
	}
	for (size_t i = 0; i < v->nr_insns; i++) {
		struct ann_insn *ai = &v->insns[i];
		struct ann_insn *t;

		if (ai->in.kind != DIS_JUMP || !ai->in.has_target)
			continue;
		if ((t = insn_at(v, ai->in.target)) && t->in.addr == ai->in.target) {
			t->jump_target = true;
			if (ai->in.target <= ai->in.addr)
				ai->back_edge = true;
		}
	}
	return 0;
}

void ann_view_release(struct ann_view *v)
{
	free(v->insns);
	free(v->frames);
	memset(v, 0, sizeof(*v));
}

/* ---- lines ---- */

static const char *own_file;

static int cmp_line(const void *x, const void *y)
{
	const struct ann_line *a = x, *b = y;
	bool ao = own_file && !strcmp(a->file, own_file), bo = own_file && !strcmp(b->file, own_file);

	if (ao != bo)
		return ao ? -1 : 1;
	int r = strcmp(a->file, b->file);

	if (r)
		return r;
	return a->line < b->line ? -1 : a->line > b->line;
}

size_t ann_view_lines(const struct ann_view *v, struct ann_line **out)
{
	struct ann_line *l = xcalloc(v->nr_insns ? v->nr_insns : 1, sizeof(*l));
	size_t n = 0;

	own_file = NULL;
	for (size_t i = 0; i < v->nr_insns; i++) {
		const struct ann_insn *ai = &v->insns[i];

		if (!ai->nr_fr)
			continue;
		const struct inline_frame *in = &v->frames[ai->fr + ai->nr_fr - 1];

		if (!in->file || in->line <= 0)
			continue;
		if (!own_file && v->frames[ai->fr].file)
			own_file = v->frames[ai->fr].file;
		l[n++] = (struct ann_line){ in->file, in->line, in->name, ai->nr_fr > 1, ai->self };
	}
	qsort(l, n, sizeof(*l), cmp_line);
	/* merge equal (file, line) */
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		if (m && !strcmp(l[m - 1].file, l[i].file) && l[m - 1].line == l[i].line) {
			l[m - 1].self.period += l[i].self.period;
			l[m - 1].self.hits += l[i].self.hits;
			continue;
		}
		l[m++] = l[i];
	}
	own_file = NULL;
	*out = l;
	return m;
}

/* ---- source text ---- */

struct srcfile {
	char *buf;
	size_t *offs;   /* line i (0-based) starts at offs[i], ends before offs[i + 1] - 1 */
	int n;
};

struct ann_srccache {
	struct hashmap files;
};

struct ann_srccache *ann_srccache_new(void)
{
	struct ann_srccache *c = xcalloc(1, sizeof(*c));

	hm_init(&c->files);
	return c;
}

void ann_srccache_free(struct ann_srccache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->files.nr; i++) {
		struct srcfile *sf = c->files.entries[i].val.ptr;

		if (sf) {
			free(sf->buf);
			free(sf->offs);
			free(sf);
		}
	}
	hm_release(&c->files);
	free(c);
}

static struct srcfile *src_get(struct ann_srccache *c, const char *file)
{
	int created;
	struct hm_entry *e = hm_upsert(&c->files, file, strlen(file), &created);

	if (!created)
		return e->val.ptr;
	struct srcfile *sf = NULL;
	FILE *fp = fopen(file, "re");
	struct stat st;

	if (fp && fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (64 << 20)) {
		sf = xcalloc(1, sizeof(*sf));
		sf->buf = xmalloc((size_t)st.st_size + 1);
		size_t got = fread(sf->buf, 1, (size_t)st.st_size, fp);

		sf->buf[got] = 0;
		size_t alloc = 64;

		sf->offs = xmalloc(alloc * sizeof(*sf->offs));
		sf->offs[0] = 0;
		for (size_t i = 0; i < got; i++) {
			if (sf->buf[i] != '\n')
				continue;
			if ((size_t)sf->n + 2 >= alloc) {
				alloc *= 2;
				sf->offs = xrealloc(sf->offs, alloc * sizeof(*sf->offs));
			}
			sf->offs[++sf->n] = i + 1;
		}
		if (got && sf->buf[got - 1] != '\n') {
			if ((size_t)sf->n + 2 >= alloc)
				sf->offs = xrealloc(sf->offs, (alloc + 2) * sizeof(*sf->offs));
			sf->offs[++sf->n] = got + 1;
		}
	}
	if (fp)
		fclose(fp);
	hm_find(&c->files, file, strlen(file))->val.ptr = sf;
	return sf;
}

const char *ann_source_line(struct ann_srccache *c, const char *file, int line, size_t *len)
{
	struct srcfile *sf = file ? src_get(c, file) : NULL;

	if (!sf || line < 1 || line > sf->n)
		return NULL;
	*len = sf->offs[line] - sf->offs[line - 1] - 1;
	return sf->buf + sf->offs[line - 1];
}

int ann_source_nlines(struct ann_srccache *c, const char *file)
{
	struct srcfile *sf = file ? src_get(c, file) : NULL;

	return sf ? sf->n : 0;
}

/* ---- simulated costs ---- */

struct ann_sim {
	struct hashmap full, base;   /* "file\nLINE" → uint64_t[ANN_SIM_N] */
	char *bid;
	unsigned present;
	struct strbuf key;
};

static uint64_t *sim_slot(struct hashmap *m, struct strbuf *k, const char *file, int line)
{
	int created;

	sb_reset(k);
	sb_addf(k, "%s\n%d", file, line);
	struct hm_entry *e = hm_upsert(m, k->buf, k->len, &created);

	if (created)
		e->val.ptr = xcalloc(ANN_SIM_N, sizeof(uint64_t));
	return e->val.ptr;
}

int ann_sim_new(const struct cgfile *cg, struct ann_sim **out)
{
	static const char *const names[ANN_SIM_N][2] = {
		{ "D1mr", "D1mw" }, { "DLmr", "DLmw" }, { "Bcm", "Bim" },
	};
	int idx[ANN_SIM_N][2];
	struct ann_sim *s = xcalloc(1, sizeof(*s));

	for (int k = 0; k < ANN_SIM_N; k++)
		for (int j = 0; j < 2; j++) {
			idx[k][j] = cgfile_event(cg, names[k][j]);
			if (idx[k][j] >= 0)
				s->present |= 1u << k;
		}
	if (!s->present) {
		free(s);
		return pk_error(EINVAL, "no simulated misses in it (events D1mr/D1mw, DLmr/DLmw, Bcm/Bim)");
	}
	hm_init(&s->full);
	hm_init(&s->base);
	sb_init(&s->key, 64);
	for (size_t i = 0; i < cg->ndesc; i++) {
		const char *d = cg->desc[i];

		if (strncmp(d, "build-id:", 9))
			continue;
		d += 9;
		while (*d == ' ' || *d == '\t')
			d++;
		size_t n = strspn(d, "0123456789abcdefABCDEF");

		if (n >= 2) {
			free(s->bid);
			s->bid = xstrndup(d, n);
			for (size_t j = 0; j < n; j++)
				s->bid[j] = (char)(s->bid[j] | 0x20);
		}
	}
	for (size_t r = 0; r < cg->nrecs; r++) {
		const uint64_t *c = cgfile_counts(cg, r);
		uint64_t *a = sim_slot(&s->full, &s->key, cg->recs[r].file, (int)cg->recs[r].line);
		uint64_t *b = sim_slot(&s->base, &s->key, base_of(cg->recs[r].file), (int)cg->recs[r].line);

		for (int k = 0; k < ANN_SIM_N; k++)
			for (int j = 0; j < 2; j++)
				if (idx[k][j] >= 0) {
					a[k] += c[idx[k][j]];
					b[k] += c[idx[k][j]];
				}
	}
	*out = s;
	return 0;
}

void ann_sim_free(struct ann_sim *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->full.nr; i++)
		free(s->full.entries[i].val.ptr);
	for (size_t i = 0; i < s->base.nr; i++)
		free(s->base.entries[i].val.ptr);
	hm_release(&s->full);
	hm_release(&s->base);
	sb_release(&s->key);
	free(s->bid);
	free(s);
}

const char *ann_sim_build_id(const struct ann_sim *s)
{
	return s->bid;
}

unsigned ann_sim_present(const struct ann_sim *s)
{
	return s->present;
}

const uint64_t *ann_sim_line(const struct ann_sim *s, const char *file, int line)
{
	struct strbuf k;
	const struct hm_entry *e;

	if (!file)
		return NULL;
	sb_init(&k, 64);
	sb_addf(&k, "%s\n%d", file, line);
	e = hm_find(&s->full, k.buf, k.len);
	if (!e) {
		sb_reset(&k);
		sb_addf(&k, "%s\n%d", base_of(file), line);
		e = hm_find(&s->base, k.buf, k.len);
	}
	sb_release(&k);
	return e ? e->val.ptr : NULL;
}

/* ---- PLT slots ---- */

struct ann_plt {
	struct ann_plt_slot {
		uint64_t addr;
		char *name;
	} *v;
	size_t n;
};

static int cmp_slot(const void *x, const void *y)
{
	const struct ann_plt_slot *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* x86-64 .plt.got: each entry jumps through a GOT slot that .rela.dyn
 * fills with a symbol (GLOB_DAT): [endbr64] [bnd] jmp *disp32(%rip). */
static void plt_got(Elf *e, Elf_Scn *pg, const GElf_Shdr *pgsh, Elf_Scn *rd, const GElf_Shdr *rdsh,
		    struct ann_plt *p)
{
	Elf_Data *code = elf_getdata(pg, NULL), *rels = elf_getdata(rd, NULL);
	Elf_Scn *dsyms = elf_getscn(e, rdsh->sh_link);
	Elf_Data *sd = dsyms ? elf_getdata(dsyms, NULL) : NULL;
	GElf_Shdr dsh;
	uint64_t ent = pgsh->sh_entsize ? pgsh->sh_entsize : 8;

	if (!code || !code->d_buf || !rels || !sd || !gelf_getshdr(dsyms, &dsh) || !rdsh->sh_entsize ||
	    ent > 64)
		return;
	const uint8_t *b = code->d_buf;
	size_t nrel = rdsh->sh_size / rdsh->sh_entsize;

	for (uint64_t o = 0; o + ent <= code->d_size; o += ent) {
		uint64_t k = o;

		if (k + 4 <= o + ent && !memcmp(b + k, "\xf3\x0f\x1e\xfa", 4))
			k += 4;
		if (k < o + ent && b[k] == 0xf2)
			k++;
		if (k + 6 > o + ent || b[k] != 0xff || b[k + 1] != 0x25)
			continue;
		int32_t disp;

		memcpy(&disp, b + k + 2, 4);
		uint64_t got = pgsh->sh_addr + k + 6 + (uint64_t)(int64_t)disp;

		for (size_t i = 0; i < nrel; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *nm;

			if (!gelf_getrela(rels, (int)i, &r) || r.r_offset != got || !GELF_R_SYM(r.r_info))
				continue;
			if (gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym) &&
			    (nm = elf_strptr(e, dsh.sh_link, sym.st_name)) && *nm) {
				p->v = xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
				p->v[p->n++] = (struct ann_plt_slot){ pgsh->sh_addr + o, xstrdup(nm) };
			}
			break;
		}
	}
}

int ann_plt_load(const char *path, struct ann_plt **out)
{
	struct ann_plt *p = xcalloc(1, sizeof(*p));
	int fd, rc;
	Elf *e;
	GElf_Ehdr eh;
	size_t shstr;

	*out = p;
	if ((rc = elf_open(path, &fd, &e, &eh)))
		return rc;
	if (elf_getshdrstrndx(e, &shstr)) {
		rc = pk_error(EINVAL, "'%s': not an ELF file", path);
		goto out;
	}
	Elf_Scn *scn = NULL, *rela = NULL, *reladyn = NULL, *pltgot = NULL;
	GElf_Shdr sh, rsh = { 0 }, plt = { 0 }, pltsec = { 0 }, dynsh = { 0 }, pgsh = { 0 };

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *nm = elf_strptr(e, shstr, sh.sh_name);

		if (!nm)
			continue;
		if (!strcmp(nm, ".rela.plt") && sh.sh_type == SHT_RELA)
			rela = scn, rsh = sh;
		else if (!strcmp(nm, ".rela.dyn") && sh.sh_type == SHT_RELA)
			reladyn = scn, dynsh = sh;
		else if (!strcmp(nm, ".plt"))
			plt = sh;
		else if (!strcmp(nm, ".plt.sec"))
			pltsec = sh;
		else if (!strcmp(nm, ".plt.got") && sh.sh_type == SHT_PROGBITS)
			pltgot = scn, pgsh = sh;
	}
	if (eh.e_machine == EM_X86_64 && pltgot && reladyn)
		plt_got(e, pltgot, &pgsh, reladyn, &dynsh, p);
	/* slot i's address: .plt.sec + 16 i (x86-64 with IBT), else after
	 * the PLT's first entry (x86-64: 16 bytes, aarch64: 32), 16 bytes each */
	uint64_t base, step = 16;

	if (!rela || !plt.sh_addr)
		goto out;
	if (eh.e_machine == EM_X86_64 && pltsec.sh_addr)
		base = pltsec.sh_addr;
	else if (eh.e_machine == EM_X86_64)
		base = plt.sh_addr + 16;
	else if (eh.e_machine == EM_AARCH64)
		base = plt.sh_addr + 32;
	else
		goto out;
	Elf_Scn *dsyms = elf_getscn(e, rsh.sh_link);
	GElf_Shdr dsh;
	Elf_Data *rd = elf_getdata(rela, NULL), *sd = dsyms ? elf_getdata(dsyms, NULL) : NULL;

	if (!rd || !sd || !gelf_getshdr(dsyms, &dsh) || !rsh.sh_entsize)
		goto out;
	size_t nr = rsh.sh_size / rsh.sh_entsize;

	p->v = xrealloc(p->v, (p->n + nr + 1) * sizeof(*p->v));
	for (size_t i = 0; i < nr; i++) {
		GElf_Rela r;
		GElf_Sym s;
		const char *nm;

		if (!gelf_getrela(rd, (int)i, &r) || !GELF_R_SYM(r.r_info) ||
		    !gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &s) ||
		    !(nm = elf_strptr(e, dsh.sh_link, s.st_name)) || !*nm)
			continue;   /* an IRELATIVE slot: no symbol */
		p->v[p->n++] = (struct ann_plt_slot){ base + step * i, xstrdup(nm) };
	}
out:
	if (p->n)
		qsort(p->v, p->n, sizeof(*p->v), cmp_slot);
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

const char *ann_plt_name(const struct ann_plt *p, uint64_t addr)
{
	size_t lo = 0, hi = p ? p->n : 0;

	while (lo < hi) {   /* slots are in address order */
		size_t mid = (lo + hi) / 2;

		if (p->v[mid].addr == addr)
			return p->v[mid].name;
		if (p->v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

enum ann_target ann_target_of(const struct ann_func *f, const struct ann_view *v, const struct ann_insn *ai,
			      const struct ann_plt *plt, struct inline_resolver *inl, const char *file,
			      const char **name, uint64_t *off)
{
	const struct dis_insn *last = v->nr_insns ? &v->insns[v->nr_insns - 1].in : NULL;
	struct inline_frame cf;

	*name = NULL;
	*off = 0;
	if (!ai->in.has_target)
		return ANN_TGT_NONE;
	if (last && ai->in.target >= f->start && ai->in.target < last->addr + last->size) {
		*name = f->sym;
		*off = ai->in.target - f->start;
		return ANN_TGT_SELF;
	}
	if ((ai->in.kind != DIS_CALL && ai->in.kind != DIS_JUMP) || f->kernel)
		return ANN_TGT_NONE;
	if ((*name = ann_plt_name(plt, ai->in.target)))
		return ANN_TGT_PLT;
	if (ai->in.kind == DIS_CALL && inl && file && inline_resolve_frames(inl, file, ai->in.target, &cf, 1) > 0 &&
	    cf.name) {
		*name = cf.name;
		return ANN_TGT_CALL;
	}
	return ANN_TGT_NONE;   /* *name NULL: ann_plt_name's */
}

void ann_plt_free(struct ann_plt *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].name);
	free(p->v);
	free(p);
}
