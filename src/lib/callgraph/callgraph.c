/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * callgraph.c — unique stacks, per-entry call trees and perf's stdio
 * call-graph layouts (see callgraph.h for the contract).
 *
 * Storage: three pools of plain arrays indexed by 32-bit ids.  Frames and
 * stack nodes are found by open-addressing tables of ids with their keys
 * inline or in the pool itself (frame: identity; stack node: parent, frame
 * id, tag), frames through a direct-mapped cache first; a stack node is
 * 24 bytes and 8 to 16 more in its table.  Tree nodes (one per
 * frame, uncompressed; the printer groups single-child runs the way perf's
 * radix tree holds them) are made by cg_trees_from_stacks() top-down, or by
 * cg_tree_add() through a hash map of (parent, frame).
 */
#include "callgraph/callgraph.h"

#include "base/error.h"
#include "base/hashmap.h"
#include "base/strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct tnode {
	uint32_t parent, frame;       /* frame UINT32_MAX: a tree's root */
	uint32_t first, next;         /* first child, next sibling (0: none) */
	uint32_t nchild;
	uint64_t hit, count;          /* chains ending here */
	uint64_t cumul, ccount;       /* chains through here */
};


/* Stack nodes by (parent, frame id, tag): open addressing, linear
 * probing, at most 70 % full; a slot is the key's hash's high 32 bits and
 * the node (0: empty), so a probe reads a node only when they match. */
typedef uint64_t sslot_t;

/* Frame ids by identity: a direct-mapped cache in front of fslots. */
#define FCACHE_BITS 16
struct fslot {
	const char *dso, *sym;
	uint64_t ip;                  /* 0 for a known symbol */
	uint32_t id;                  /* id + 1, 0: empty */
	bool inlined;
};

struct cg_forest {
	struct hashmap tkeys;
	uint64_t *fslots;             /* the identity hash's high 32 bits | frame
					 id + 1, 0: empty; at most 70 % full (a
					 probe reads a frame only when the hash
					 matches: frames are scattered) */
	size_t fslot_mask;
	sslot_t *sslots;
	size_t sslot_mask;            /* number of slots - 1 */
	struct fslot *fcache;
	struct cg_frame *frames;
	size_t nr_frames, alloc_frames;
	struct cg_stack_node *snodes;
	size_t nr_snodes, alloc_snodes;
	struct tnode *tnodes;
	size_t nr_tnodes, alloc_tnodes;
	enum cg_key key;
	const atomic_bool *stop;      /* cg_forest_set_stop()'s, or NULL */
};

void cg_forest_set_stop(struct cg_forest *f, const atomic_bool *stop)
{
	f->stop = stop;
}

bool cg_forest_stopped(const struct cg_forest *f)
{
	return f->stop && atomic_load_explicit(f->stop, memory_order_relaxed);
}

static void *grow(void *p, size_t *alloc, size_t nr, size_t size)
{
	if (nr < *alloc)
		return p;
	*alloc = *alloc ? *alloc * 2 : 1024;
	return xrealloc(p, *alloc * size);
}

struct cg_forest *cg_forest_new(void)
{
	struct cg_forest *f = xcalloc(1, sizeof(*f));

	hm_init(&f->tkeys);
	/* id 0 of stacks and trees: the stack root / "no node" */
	f->snodes = grow(f->snodes, &f->alloc_snodes, 0, sizeof(*f->snodes));
	memset(&f->snodes[0], 0, sizeof(f->snodes[0]));
	f->nr_snodes = 1;
	f->tnodes = grow(f->tnodes, &f->alloc_tnodes, 0, sizeof(*f->tnodes));
	memset(&f->tnodes[0], 0, sizeof(f->tnodes[0]));
	f->nr_tnodes = 1;
	return f;
}

void cg_forest_free(struct cg_forest *f)
{
	if (!f)
		return;
	free(f->fslots);
	free(f->sslots);
	free(f->fcache);
	hm_release(&f->tkeys);
	free(f->frames);
	free(f->snodes);
	free(f->tnodes);
	free(f);
}

/* A frame's identity as the forest's key has it (perf's match_chain):
 * function: (DSO, symbol), or (DSO, ip) when unknown; address: (DSO, ip)
 * (and the symbol, apart for an inlined one); srcline: the srcline text
 * when the frame has one, else as function. */
static bool by_srcline(const struct cg_forest *f, const struct cg_frame *fr)
{
	return f->key == CG_KEY_SRCLINE && fr->srcline;
}

static uint64_t frame_ip(const struct cg_forest *f, const struct cg_frame *fr)
{
	return fr->sym && f->key != CG_KEY_ADDRESS ? 0 : fr->ip;
}

static size_t frame_hash(const struct cg_forest *f, const struct cg_frame *fr)
{
	uint64_t x = by_srcline(f, fr) ? (uint64_t)(uintptr_t)fr->srcline * 0x9e3779b97f4a7c15u ^ fr->inlined
				       : (uint64_t)(uintptr_t)fr->sym * 0x9e3779b97f4a7c15u ^
						 (uint64_t)(uintptr_t)fr->dso ^
						 frame_ip(f, fr) * 0xff51afd7ed558ccdu ^ fr->inlined;

	x ^= x >> 32;
	x *= 0xc4ceb9fe1a85ec53u;
	return (size_t)(x ^ x >> 29);
}

static bool frame_same(const struct cg_forest *f, const struct cg_frame *a, const struct cg_frame *b)
{
	if (by_srcline(f, a) || by_srcline(f, b))
		return a->srcline == b->srcline && a->inlined == b->inlined;
	return a->dso == b->dso && a->sym == b->sym && frame_ip(f, a) == frame_ip(f, b) && a->inlined == b->inlined;
}

/* The frame table sized for n frames (at most 70 % full). */
static void fslots_size(struct cg_forest *f, size_t n)
{
	size_t ns = 1024, h;
	uint64_t *v;

	while (ns * 7 < n * 10)
		ns *= 2;
	if (f->fslots && ns <= f->fslot_mask + 1)
		return;
	v = xcalloc(ns, sizeof(*v));
	for (size_t i = 0; i < f->nr_frames; i++) {
		size_t x = frame_hash(f, &f->frames[i]);

		for (h = x & (ns - 1); v[h]; h = (h + 1) & (ns - 1))
			;
		v[h] = (uint64_t)(x >> 32) << 32 | ((uint32_t)i + 1);
	}
	free(f->fslots);
	f->fslots = v;
	f->fslot_mask = ns - 1;
}

void cg_forest_reserve_frames(struct cg_forest *f, size_t n)
{
	fslots_size(f, f->nr_frames + n);
	if (f->nr_frames + n > f->alloc_frames) {
		f->alloc_frames = f->nr_frames + n;
		f->frames = xrealloc(f->frames, f->alloc_frames * sizeof(*f->frames));
	}
}

void cg_forest_reserve_stacks(struct cg_forest *f, size_t n)
{
	if (f->nr_snodes + n <= f->alloc_snodes)
		return;
	struct cg_stack_node *v = xmalloc_huge((f->nr_snodes + n) * sizeof(*v));   /* written once, in order */
	memcpy(v, f->snodes, f->nr_snodes * sizeof(*v));
	free(f->snodes);
	f->snodes = v;
	f->alloc_snodes = f->nr_snodes + n;
}

uint32_t cg_frame_id(struct cg_forest *f, const struct cg_frame *fr)
{
	size_t h, x;

	if ((f->nr_frames + 1) * 10 > (f->fslot_mask + 1) * 7 || !f->fslots)
		fslots_size(f, f->fslots ? (f->fslot_mask + 1) * 2 * 7 / 10 : 1);   /* double */
	x = frame_hash(f, fr);
	for (h = x & f->fslot_mask; f->fslots[h]; h = (h + 1) & f->fslot_mask)
		if (f->fslots[h] >> 32 == (uint64_t)(x >> 32) &&
		    frame_same(f, &f->frames[(uint32_t)f->fslots[h] - 1], fr))
			return (uint32_t)f->fslots[h] - 1;
	f->fslots[h] = (uint64_t)(x >> 32) << 32 | ((uint32_t)f->nr_frames + 1);
	f->frames = grow(f->frames, &f->alloc_frames, f->nr_frames, sizeof(*f->frames));
	f->frames[f->nr_frames] = *fr;
	return (uint32_t)f->nr_frames++;
}

void cg_forest_set_key(struct cg_forest *f, enum cg_key key)
{
	f->key = key;
}

const struct cg_frame *cg_frame_get(const struct cg_forest *f, uint32_t id)
{
	return &f->frames[id];
}

static uint32_t frame_cached(struct cg_forest *f, const struct cg_frame *fr)
{
	uint64_t ip = fr->sym ? 0 : fr->ip, x;
	struct fslot *sl;

	if (f->key != CG_KEY_FUNCTION)   /* the cache knows the function key only */
		return cg_frame_id(f, fr);
	if (!f->fcache)
		f->fcache = xcalloc((size_t)1 << FCACHE_BITS, sizeof(*f->fcache));
	x = (uint64_t)(uintptr_t)fr->sym * 0x9e3779b97f4a7c15u ^ (uint64_t)(uintptr_t)fr->dso ^
	    ip * 0xff51afd7ed558ccdu ^ fr->inlined;
	x ^= x >> 29;
	x *= 0xc4ceb9fe1a85ec53u;
	sl = &f->fcache[x >> (64 - FCACHE_BITS)];
	if (sl->id && sl->sym == fr->sym && sl->dso == fr->dso && sl->ip == ip && sl->inlined == fr->inlined)
		return sl->id - 1;
	*sl = (struct fslot){ fr->dso, fr->sym, ip, cg_frame_id(f, fr) + 1, fr->inlined };
	return sl->id - 1;
}

static uint64_t sslot_hash(uint32_t parent, uint32_t frame, uint32_t tag)
{
	uint64_t x = ((uint64_t)parent << 32 | frame) * 0x9e3779b97f4a7c15u ^ (uint64_t)tag * 0xff51afd7ed558ccdu;

	x ^= x >> 32;
	x *= 0xc4ceb9fe1a85ec53u;
	return x ^ x >> 29;
}

static void sslots_grow(struct cg_forest *f)
{
	size_t n = f->sslot_mask ? (f->sslot_mask + 1) * 2 : 1024;
	sslot_t *v;

	while ((f->nr_snodes + 1) * 10 > n * 7)   /* after cg_stack_append() */
		n *= 2;
	v = xcalloc(n, sizeof(*v));

	/* every node but the root has its slot: rebuild from the nodes */
	for (size_t i = 1; i < f->nr_snodes; i++) {
		const struct cg_stack_node *sn = &f->snodes[i];
		uint64_t hash = sslot_hash(sn->parent, sn->frame, sn->tag);
		size_t h = (size_t)hash & (n - 1);

		while (v[h])
			h = (h + 1) & (n - 1);
		v[h] = (hash >> 32 << 32) | i;
	}
	free(f->sslots);
	f->sslots = v;
	f->sslot_mask = n - 1;
}

uint32_t cg_stack_push(struct cg_forest *f, uint32_t parent, const struct cg_frame *fr, uint32_t tag)
{
	uint32_t frame = frame_cached(f, fr);
	uint64_t hash;
	size_t h;
	struct cg_stack_node *s;

	if ((f->nr_snodes + 1) * 10 > (f->sslot_mask + 1) * 7 || !f->sslots)
		sslots_grow(f);
	hash = sslot_hash(parent, frame, tag);
	for (h = (size_t)hash & f->sslot_mask; f->sslots[h]; h = (h + 1) & f->sslot_mask) {
		uint64_t sl = f->sslots[h];

		if (sl >> 32 == hash >> 32) {
			const struct cg_stack_node *sn = &f->snodes[(uint32_t)sl];

			if (sn->parent == parent && sn->frame == frame && sn->tag == tag)
				return (uint32_t)sl;
		}
	}
	f->sslots[h] = (hash >> 32 << 32) | f->nr_snodes;
	f->snodes = grow(f->snodes, &f->alloc_snodes, f->nr_snodes, sizeof(*f->snodes));
	s = &f->snodes[f->nr_snodes];
	s->parent = parent;
	s->frame = frame;
	s->tag = tag;
	s->hit = s->count = 0;
	return (uint32_t)f->nr_snodes++;
}

void cg_stack_hit(struct cg_forest *f, uint32_t node, uint64_t period)
{
	f->snodes[node].hit += period;
	if (f->snodes[node].count < UINT32_MAX)
		f->snodes[node].count++;
}

void cg_stacks_adopt(struct cg_forest *f, struct cg_stack_node *v, size_t n, size_t alloc)
{
	free(f->sslots);
	f->sslots = NULL;
	f->sslot_mask = 0;
	free(f->snodes);
	f->snodes = v;
	f->nr_snodes = n;
	f->alloc_snodes = alloc;
	f->snodes[0] = (struct cg_stack_node){ 0 };
}

uint32_t cg_stack_append(struct cg_forest *f, uint32_t parent, uint32_t frame, uint32_t tag, uint64_t period,
			 uint32_t count)
{
	struct cg_stack_node *s;

	/* the slot table no longer holds every node: the next push remakes it */
	free(f->sslots);
	f->sslots = NULL;
	f->sslot_mask = 0;
	f->snodes = grow(f->snodes, &f->alloc_snodes, f->nr_snodes, sizeof(*f->snodes));
	s = &f->snodes[f->nr_snodes];
	*s = (struct cg_stack_node){ .parent = parent, .frame = frame, .tag = tag, .count = count, .hit = period };
	return (uint32_t)f->nr_snodes++;
}

void cg_stack_each(struct cg_forest *f, cg_stack_fn fn, void *arg)
{
	uint32_t *frames = NULL, *tags = NULL;
	size_t alloc = 0;

	for (size_t i = 1; i < f->nr_snodes; i++) {
		const struct cg_stack_node *s = &f->snodes[i];
		size_t n = 0;

		if (!s->count)
			continue;
		for (uint32_t j = (uint32_t)i; j; j = f->snodes[j].parent)
			n++;
		if (n > alloc) {
			alloc = n * 2;
			frames = xrealloc(frames, alloc * sizeof(*frames));
			tags = xrealloc(tags, alloc * sizeof(*tags));
		}
		size_t k = n;

		for (uint32_t j = (uint32_t)i; j; j = f->snodes[j].parent) {
			k--;
			frames[k] = f->snodes[j].frame;
			tags[k] = f->snodes[j].tag;
		}
		fn(arg, frames, tags, n, s->hit, s->count);
	}
	free(frames);
	free(tags);
}

static uint32_t tnode_new(struct cg_forest *f, uint32_t parent, uint32_t frame)
{
	struct tnode *t;

	f->tnodes = grow(f->tnodes, &f->alloc_tnodes, f->nr_tnodes, sizeof(*f->tnodes));
	t = &f->tnodes[f->nr_tnodes];
	memset(t, 0, sizeof(*t));
	t->parent = parent;
	t->frame = frame;
	if (parent) {
		struct tnode *p = &f->tnodes[parent];

		t->next = p->first;
		p->first = (uint32_t)f->nr_tnodes;
		p->nchild++;
	}
	return (uint32_t)f->nr_tnodes++;
}

uint32_t cg_tree_new(struct cg_forest *f)
{
	return tnode_new(f, 0, UINT32_MAX);
}

void cg_tree_add(struct cg_forest *f, uint32_t tree, const uint32_t *frames, size_t n,
		 uint64_t period, uint64_t count)
{
	uint32_t cur = tree;

	if (!n)
		return;
	f->tnodes[cur].cumul += period;
	f->tnodes[cur].ccount += count;
	for (size_t i = 0; i < n; i++) {
		uint32_t key[2] = { cur, frames[i] };
		int created;
		struct hm_entry *e = hm_upsert(&f->tkeys, key, sizeof(key), &created);

		if (created)
			e->val.u = tnode_new(f, cur, frames[i]);
		cur = (uint32_t)e->val.u;
		f->tnodes[cur].cumul += period;
		f->tnodes[cur].ccount += count;
	}
	f->tnodes[cur].hit += period;
	f->tnodes[cur].count += count;
}

/* ---- trees from the unique stacks ---- */

/*
 * A tree node stands for a set of trie nodes (items) reached by the same
 * frame path.  Caller order: an item is a trie node whose subtree's stacks
 * continue the chains, either from the tag's outermost node (kind 0: the
 * stacks whose leaf has another tag) or from the root (kind 1: the stacks
 * whose leaf has the tag, whole chains); its children are the trie
 * children.  Callee order: an item is one trie node with the period of the
 * chains that go up from it; its child is the trie parent.  Children are
 * grouped by frame; a group below min_hit is counted, not made.
 */
struct tb_item {
	uint32_t node, frame, kind;
	uint64_t w, wc;            /* chains through here: period, count */
};

struct tb {
	struct cg_forest *f;
	uint32_t tag;
	bool caller;
	uint64_t min_hit;
	uint32_t *first, *next;    /* trie children */
	uint64_t *sub, *ex;        /* caller: trie subtree periods, the part of
				      them from the tag's leaves */
	uint32_t *subc, *exc;      /* the same in samples */
	struct tb_item *v;
	size_t nr, alloc;
};

static void tb_push(struct tb *b, uint32_t node, uint32_t kind, uint64_t w, uint64_t wc)
{
	b->v = grow(b->v, &b->alloc, b->nr, sizeof(*b->v));
	b->v[b->nr++] = (struct tb_item){ node, b->f->snodes[node].frame, kind, w, wc };
}

/* The next level of items [lo, hi), appended. */
static void tb_expand(struct tb *b, size_t lo, size_t hi)
{
	for (size_t i = lo; i < hi; i++) {
		struct tb_item it = b->v[i];

		if (!b->caller) {
			uint32_t up = b->f->snodes[it.node].parent;

			if (up)
				tb_push(b, up, 0, it.w, it.wc);
			continue;
		}
		for (uint32_t z = b->first[it.node]; z; z = b->next[z]) {
			uint64_t w = it.kind ? b->ex[z] : b->sub[z] - b->ex[z];
			uint64_t wc = it.kind ? b->exc[z] : b->subc[z] - b->exc[z];

			if (wc)
				tb_push(b, z, it.kind, w, wc);
		}
	}
}

static int cmp_items(const void *pa, const void *pb)
{
	const struct tb_item *a = pa, *b = pb;

	return a->frame < b->frame ? -1 : a->frame > b->frame;
}

/* v[0..n) by frame, stable: two counting passes of 16 bits. */
static void radix_items(struct tb_item *v, size_t n)
{
	struct tb_item *tmp = xmalloc(n * sizeof(*tmp)), *src = v, *dst = tmp;
	size_t *cnt = xmalloc(65536 * sizeof(*cnt));

	for (int sh = 0; sh < 32; sh += 16) {
		size_t sum = 0;

		memset(cnt, 0, 65536 * sizeof(*cnt));
		for (size_t i = 0; i < n; i++)
			cnt[src[i].frame >> sh & 0xffff]++;
		if (cnt[src[0].frame >> sh & 0xffff] == n)   /* one digit: nothing to move */
			continue;
		for (size_t d = 0; d < 65536; d++) {
			size_t c = cnt[d];

			cnt[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[cnt[src[i].frame >> sh & 0xffff]++] = src[i];
		struct tb_item *t = src;

		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(cnt);
	free(tmp);
}

/* Items [base, nr) become the children of tree node t. */
static void tb_group(struct tb *b, uint32_t t, size_t base)
{
	size_t end = b->nr;

	if (end - base <= 32) {   /* most groups: an insertion sort, stable as glibc's qsort (a merge sort) */
		for (size_t i = base + 1; i < end; i++) {
			struct tb_item x = b->v[i];
			size_t j = i;

			for (; j > base && b->v[j - 1].frame > x.frame; j--)
				b->v[j] = b->v[j - 1];
			b->v[j] = x;
		}
	} else if (end - base < 4096) {
		qsort(b->v + base, end - base, sizeof(*b->v), cmp_items);
	} else {   /* the big groups (a row's outermost callers): a stable radix sort */
		radix_items(b->v + base, end - base);
	}
	for (size_t a = base, z; a < end; a = z) {
		uint64_t w = 0, wc = 0, hit = 0, count = 0;

		for (z = a; z < end && b->v[z].frame == b->v[a].frame; z++) {
			const struct tb_item *it = &b->v[z];
			const struct cg_stack_node *s = &b->f->snodes[it->node];

			w += it->w;
			wc += it->wc;
			if (!b->caller) {
				if (!s->parent) {
					hit += it->w;
					count += it->wc;
				}
			} else if ((s->tag == b->tag) == (it->kind == 1)) {
				hit += s->hit;
				count += s->count;
			}
		}
		if (w < b->min_hit) {
			b->f->tnodes[t].nchild++;
			continue;
		}
		uint32_t c = tnode_new(b->f, t, b->v[a].frame);
		struct tnode *tn = &b->f->tnodes[c];
		size_t next = b->nr;

		tn->cumul = w;
		tn->ccount = wc;
		tn->hit = hit;
		tn->count = count;
		tb_expand(b, a, z);
		tb_group(b, c, next);
	}
	b->nr = base;
}

/* Pairs (tag, node) sorted by tag: lists[start[tag] .. start[tag + 1]). */
struct tag_lists {
	uint32_t *start, *node;
};

static void tag_lists_make(struct tag_lists *l, const uint32_t (*pairs)[2], size_t n, size_t nr_tags)
{
	l->start = xcalloc(nr_tags + 2, sizeof(*l->start));
	l->node = xmalloc((n + 1) * sizeof(*l->node));
	for (size_t i = 0; i < n; i++)
		l->start[pairs[i][0] + 2]++;
	for (size_t t = 2; t < nr_tags + 2; t++)
		l->start[t] += l->start[t - 1];
	for (size_t i = 0; i < n; i++)
		l->node[l->start[pairs[i][0] + 1]++] = pairs[i][1];
}

static void tag_lists_free(struct tag_lists *l)
{
	free(l->start);
	free(l->node);
}

void cg_trees_from_stacks(struct cg_forest *f, const uint32_t *tree_of_tag, size_t nr_tags,
			  enum cg_order order, bool children, uint64_t min_hit)
{
	size_t n = f->nr_snodes, np = 0, npa = 0;
	struct tb b = { .f = f, .caller = order == CG_CALLER, .min_hit = min_hit };
	uint32_t (*pairs)[2] = NULL;
	uint32_t *mark = xcalloc(nr_tags + 1, sizeof(*mark));
	struct tag_lists starts = { 0 }, leaves = { 0 };
	uint64_t *w = NULL;
	uint32_t *wc = NULL;

	/* the stack and frame tables are not needed to build (a later push
	 * or cg_frame_id() remakes them) */
	free(f->sslots);
	f->sslots = NULL;
	f->sslot_mask = 0;
	free(f->fcache);
	f->fcache = NULL;
	free(f->fslots);
	f->fslots = NULL;
	f->fslot_mask = 0;
	if (cg_forest_stopped(f))
		goto out;
#define WANT(t) ((t) < nr_tags && tree_of_tag[(t)])
#define PAIR(t, x)                                                          \
	do {                                                                \
		pairs = grow(pairs, &npa, np, sizeof(*pairs));              \
		pairs[np][0] = (t);                                         \
		pairs[np++][1] = (x);                                       \
	} while (0)

	if (b.caller) {
		/* 20 MB each on a compile job's 3 M nodes, zeroed: the stop
		 * flag read between them */
		b.first = xcalloc_huge(n, sizeof(*b.first));
		b.next = xcalloc_huge(n, sizeof(*b.next));
		if (cg_forest_stopped(f))
			goto out;
		b.sub = xcalloc_huge(n, sizeof(*b.sub));
		b.subc = xcalloc_huge(n, sizeof(*b.subc));
		if (cg_forest_stopped(f))
			goto out;
		b.ex = xcalloc_huge(n, sizeof(*b.ex));
		b.exc = xcalloc_huge(n, sizeof(*b.exc));
		if (cg_forest_stopped(f))
			goto out;
		for (size_t i = n - 1; i >= 1; i--) {
			const struct cg_stack_node *s = &f->snodes[i];

			b.next[i] = b.first[s->parent];
			b.first[s->parent] = (uint32_t)i;
			b.sub[i] += s->hit;
			b.subc[i] += s->count;
			b.sub[s->parent] += b.sub[i];
			b.subc[s->parent] += b.subc[i];
		}
		if (cg_forest_stopped(f))
			goto out;
		/* each tag's outermost nodes: a walk that counts the tags
		 * on the path (mark) */
		if (children) {
			uint32_t cur = b.first[0];

			while (cur) {
				uint32_t t = f->snodes[cur].tag;

				if (t < nr_tags) {
					if (!mark[t] && tree_of_tag[t])
						PAIR(t, cur);
					mark[t]++;
				}
				if (b.first[cur]) {
					cur = b.first[cur];
					continue;
				}
				for (;;) {
					t = f->snodes[cur].tag;
					if (t < nr_tags)
						mark[t]--;
					if (b.next[cur]) {
						cur = b.next[cur];
						break;
					}
					cur = f->snodes[cur].parent;
					if (!cur)
						break;
				}
			}
		}
		if (cg_forest_stopped(f))
			goto out;
		tag_lists_make(&starts, (const uint32_t (*)[2])pairs, np, nr_tags);
		np = 0;
		for (size_t i = 1; i < n; i++)
			if (f->snodes[i].count && WANT(f->snodes[i].tag))
				PAIR(f->snodes[i].tag, (uint32_t)i);
		tag_lists_make(&leaves, (const uint32_t (*)[2])pairs, np, nr_tags);
	} else {
		/* each stack's period goes to its innermost node of each tag
		 * (the leaf's own tag first); without children the leaf only */
		w = xcalloc_huge(n, sizeof(*w));
		wc = xcalloc_huge(n, sizeof(*wc));
		if (cg_forest_stopped(f))
			goto out;
		for (size_t i = 1; i < n; i++) {
			const struct cg_stack_node *s = &f->snodes[i];

			if (!s->count)
				continue;
			for (uint32_t y = (uint32_t)i; y; y = children ? f->snodes[y].parent : 0) {
				uint32_t t = f->snodes[y].tag;

				if (WANT(t) && mark[t] != i) {
					mark[t] = (uint32_t)i;
					w[y] += s->hit;
					wc[y] += s->count;
				}
			}
		}
		if (cg_forest_stopped(f))
			goto out;
		for (size_t i = 1; i < n; i++)
			if (wc[i] && WANT(f->snodes[i].tag))
				PAIR(f->snodes[i].tag, (uint32_t)i);
		tag_lists_make(&starts, (const uint32_t (*)[2])pairs, np, nr_tags);
	}
	free(pairs);
	free(mark);
	pairs = NULL;
	mark = NULL;

	for (size_t t = 0; t < nr_tags; t++) {
		uint32_t tree = tree_of_tag[t];
		uint64_t sum = 0, sumc = 0;

		/* a relaxed load a tree: a few trees (a DSO's each) can
		 * take long each */
		if (cg_forest_stopped(f))
			break;
		if (!tree)
			continue;
		b.tag = (uint32_t)t;
		b.nr = 0;
		if (b.caller) {
			/* the tag's leaves: their share of every node above */
			for (uint32_t k = leaves.start[t]; k < leaves.start[t + 1]; k++) {
				const struct cg_stack_node *l = &f->snodes[leaves.node[k]];

				for (uint32_t y = leaves.node[k]; y; y = f->snodes[y].parent) {
					if (!f->snodes[y].parent && !b.exc[y])
						tb_push(&b, y, 1, 0, 0);
					b.ex[y] += l->hit;
					b.exc[y] += l->count;
				}
			}
			for (size_t k = 0; k < b.nr; k++) {
				b.v[k].w = b.ex[b.v[k].node];
				b.v[k].wc = b.exc[b.v[k].node];
			}
			for (uint32_t k = starts.start[t]; k < starts.start[t + 1]; k++) {
				uint32_t x = starts.node[k];

				if (b.subc[x] - b.exc[x])
					tb_push(&b, x, 0, b.sub[x] - b.ex[x], b.subc[x] - b.exc[x]);
			}
		} else {
			for (uint32_t k = starts.start[t]; k < starts.start[t + 1]; k++)
				tb_push(&b, starts.node[k], 0, w[starts.node[k]], wc[starts.node[k]]);
		}
		for (size_t k = 0; k < b.nr; k++) {
			sum += b.v[k].w;
			sumc += b.v[k].wc;
		}
		if (b.nr && sum >= min_hit) {
			f->tnodes[tree].cumul = sum;
			f->tnodes[tree].ccount = sumc;
			tb_group(&b, tree, 0);
		}
		b.nr = 0;
		if (b.caller)
			for (uint32_t k = leaves.start[t]; k < leaves.start[t + 1]; k++)
				for (uint32_t y = leaves.node[k]; y; y = f->snodes[y].parent)
					b.ex[y] = b.exc[y] = 0;
	}
#undef WANT
#undef PAIR
out:   /* also when stopped (cg_forest_set_stop) */
	free(pairs);
	free(mark);
	tag_lists_free(&starts);
	tag_lists_free(&leaves);
	free(w);
	free(wc);
	free(b.first);
	free(b.next);
	free(b.sub);
	free(b.subc);
	free(b.ex);
	free(b.exc);
	free(b.v);
}

/* percent % of base as perf's u64 min_callchain_hits: the double
 * converted to u64 as perf's build does it on x86-64 (cvttsd2si, with 2^63
 * taken off first at or above 2^63), since perf takes any threshold: over
 * 100 % hides every node, 2^64 and more (1e400, inf) truncate to 0 and
 * show every node, NaN and below -1 hide every node, a negative product
 * above -1 truncates to 0. */
static uint64_t pct_hits(double base, double percent, bool up)
{
	const double two63 = 9223372036854775808.0;
	const uint64_t indefinite = UINT64_C(1) << 63;   /* cvttsd2si's out of range */
	double v = base * (percent / 100.0);

	if (up)
		v = ceil(v);
	if (v >= two63) {
		v -= two63;
		return (v >= two63 ? indefinite : (uint64_t)v) ^ indefinite;
	}
	if (!(v > -two63 - 1))   /* NaN, or below INT64_MIN */
		return indefinite;
	return (uint64_t)(int64_t)v;
}

uint64_t cg_min_hit(const struct cg_params *p, uint64_t total)
{
	return p->mode == CG_FRACTAL ? 0 : pct_hits((double)total, p->threshold, false);
}

/* ---- printing ---- */

struct pctx {
	FILE *fp;
	struct cg_forest *f;
	const struct cg_params *p;
	uint64_t min_hit;         /* graph, flat, folded */
	bool printed;
	uint32_t *path;           /* flat/folded: root → node */
	size_t path_alloc;
};

/* perf keeps a node's children in descending (DSO, symbol start or ip)
 * order (append_chain_children); equal periods print in that order.  perf
 * compares DSOs by the address of its DSO objects, made as their maps
 * appear; here by the address of the DSO name, which the session interns
 * as the maps appear (and the kernel's and "[unknown]" are literals, below
 * the heap, as perf's kernel DSO is made first and no map is NULL). */
static int cmp_key(const struct cg_forest *f, uint32_t a, uint32_t b)
{
	const struct cg_frame *x = &f->frames[f->tnodes[a].frame], *y = &f->frames[f->tnodes[b].frame];
	bool addr = f->key == CG_KEY_ADDRESS;
	uint64_t ax = x->sym && !addr ? x->start : x->ip, ay = y->sym && !addr ? y->start : y->ip;
	uintptr_t dx = (uintptr_t)x->dso, dy = (uintptr_t)y->dso;
	int c;

	/* the srcline key: by text, when both have one (match_chain_strings) */
	if (by_srcline(f, x) && by_srcline(f, y) && (c = strcmp(y->srcline, x->srcline)))
		return c;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	if (ax != ay)
		return ax > ay ? -1 : 1;
	if (x->sym && y->sym && (c = strcmp(y->sym, x->sym)))
		return c;
	/* perfkit's own frames that perf has not ("[truncated]", start 0)
	 * tie with an unknown address 0: the address first; an inlined
	 * frame after the function of the same name */
	if (!x->sym != !y->sym)
		return x->sym ? 1 : -1;
	if (x->inlined != y->inlined)
		return x->inlined ? 1 : -1;
	return 0;
}

static const struct cg_forest *sort_forest;
static bool sort_by_key;       /* else by cumulated period first */

static int cmp_kids(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const struct tnode *x = &sort_forest->tnodes[a], *y = &sort_forest->tnodes[b];

	if (!sort_by_key && x->cumul != y->cumul)
		return x->cumul > y->cumul ? -1 : 1;
	return cmp_key(sort_forest, a, b);
}

/* Children of node with cumul >= min_hit, in print order; *n set. */
static uint32_t *kids_sorted(struct pctx *c, uint32_t node, uint64_t min_hit, bool by_key, size_t *n)
{
	const struct tnode *t = &c->f->tnodes[node];
	uint32_t *k = xmalloc((t->nchild + 1) * sizeof(*k));
	size_t m = 0;

	for (uint32_t ch = t->first; ch; ch = c->f->tnodes[ch].next)
		if (by_key || c->f->tnodes[ch].cumul >= min_hit)
			k[m++] = ch;
	sort_forest = c->f;
	sort_by_key = by_key;
	qsort(k, m, sizeof(*k), cmp_kids);
	*n = m;
	return k;
}

/* The last node of the run that starts at node (perf's radix node). */
static uint32_t run_end(const struct cg_forest *f, uint32_t node)
{
	while (!f->tnodes[node].hit && f->tnodes[node].nchild == 1)
		node = f->tnodes[node].first;
	return node;
}

static void put_name(struct pctx *c, uint32_t node)
{
	const struct cg_frame *fr = &c->f->frames[c->f->tnodes[node].frame];

	if (fr->sym) {
		fputs_term(fr->sym, c->fp);
		if (fr->srcline && c->f->key != CG_KEY_FUNCTION) {   /* perf's "%s %s%s" */
			fputc(' ', c->fp);
			fputs_term(fr->srcline, c->fp);
		}
		if (fr->inlined)
			fputs(" (inlined)", c->fp);
	}
	else
		fprintf(c->fp, "%#" PRIx64, fr->ip);
}

static void put_value(struct pctx *c, uint64_t period, uint64_t count, uint64_t total)
{
	switch (c->p->value) {
	case CG_PERIOD:
		fprintf(c->fp, "%" PRIu64, period);
		break;
	case CG_COUNT:
		fprintf(c->fp, "%u", (unsigned)count);
		break;
	default:
		fprintf(c->fp, "%.2f%%", total ? (double)period * 100.0 / (double)total : 0.0);
		break;
	}
}

static void margin(struct pctx *c, int left)
{
	fprintf(c->fp, "            %*s", left, "");
}

static void graph_line(struct pctx *c, int depth, const unsigned char *mask, int left)
{
	margin(c, left);
	for (int i = 0; i < depth; i++)
		fputs(mask[i] ? "|          " : "           ", c->fp);
	fputc('\n', c->fp);
}

/* One line of a run: the first one carries --VALUE--. */
static void graph_entry(struct pctx *c, uint32_t node, bool first, uint64_t period, uint64_t count,
			uint64_t total, int depth, const unsigned char *mask, int left)
{
	margin(c, left);
	for (int i = 0; i < depth; i++) {
		fputc(mask[i] ? '|' : ' ', c->fp);
		if (first && i == depth - 1) {
			fputs("--", c->fp);
			put_value(c, period, count, total);
			fputs("--", c->fp);
		} else {
			fputs("          ", c->fp);
		}
	}
	if (node)
		put_name(c, node);
	else    /* perf 6.1 adds " (inlined)" here: an uninitialised field */
		fputs("[...]", c->fp);
	fputc('\n', c->fp);
}

static uint64_t rel_min(const struct pctx *c, uint64_t children_hit)
{
	return pct_hits((double)children_hit, c->p->threshold, true);
}

/* Print the children of node (the end of a run) at depth. */
static void graph_level(struct pctx *c, uint32_t node, uint64_t total, int depth,
			const unsigned char *mask, int left)
{
	const struct tnode *t = &c->f->tnodes[node];
	bool rel = c->p->mode == CG_FRACTAL;
	uint64_t children_hit = t->cumul - t->hit, children_count = t->ccount - t->count;
	uint64_t remaining = total, rem_count = children_count;
	size_t n, printed = 0;
	uint32_t *kids = kids_sorted(c, node, rel ? rel_min(c, children_hit) : c->min_hit, false, &n);
	unsigned char *nmask = xmalloc((size_t)depth + 2);

	memcpy(nmask, mask, (size_t)depth);
	for (size_t j = 0; j < n; j++) {
		uint32_t k = kids[j], end = run_end(c->f, k);
		const struct tnode *kt = &c->f->tnodes[k];

		remaining -= kt->cumul;
		rem_count -= kt->ccount;
		if (j == n - 1 && (!rel || !remaining))
			nmask[depth - 1] = 0;
		graph_line(c, depth, mask, left);
		for (uint32_t x = k, first = 1;; x = c->f->tnodes[x].first, first = 0) {
			graph_entry(c, x, first, kt->cumul, kt->ccount, total, depth, nmask, left);
			if (x == end)
				break;
		}
		c->printed = true;
		nmask[depth] = 1;
		graph_level(c, end, rel ? c->f->tnodes[end].cumul - c->f->tnodes[end].hit : total, depth + 1,
			    nmask, left);
		if (++printed == c->p->print_limit)
			break;
	}
	if (rel && remaining && remaining != total) {
		nmask[depth - 1] = 0;
		graph_entry(c, 0, true, remaining, rem_count, total, depth, nmask, left);
	}
	free(nmask);
	free(kids);
}

static void print_graph(struct pctx *c, uint32_t tree, uint64_t total, uint64_t entry_period)
{
	const struct tnode *root = &c->f->tnodes[tree];
	bool rel = c->p->mode == CG_FRACTAL;
	size_t n;
	uint32_t *kids = kids_sorted(c, tree, rel ? rel_min(c, root->cumul) : c->min_hit, false, &n);
	uint32_t start = tree;
	int left = 0;
	unsigned char mask[2] = { 1, 0 };

	if (n == 1 && c->f->tnodes[kids[0]].cumul == entry_period) {
		uint32_t end = run_end(c->f, kids[0]);
		bool head = false;
		unsigned i = 0;

		for (uint32_t x = kids[0];; x = c->f->tnodes[x].first) {
			if (!(i++ == 0 && c->p->skip_first)) {
				if (!head) {
					margin(c, left);
					fputs("|\n", c->fp);
					margin(c, left);
					fputs("---", c->fp);
					left += 3;
					head = true;
				} else {
					margin(c, left);
				}
				put_name(c, x);
				fputc('\n', c->fp);
				c->printed = true;
			}
			if (x == end || i == c->p->print_limit)
				break;
		}
		start = end;
	}
	free(kids);
	graph_level(c, start, rel ? entry_period : total, 1, mask, left);
	if (c->printed)
		fputc('\n', c->fp);
}

/* flat / folded: chains that end at a node, by period ending there. */
struct chain_end {
	uint32_t node;
	uint64_t hit;
	size_t pos;           /* traversal order: perf's order among equals */
};

static void collect_ends(struct pctx *c, uint32_t node, struct chain_end **v, size_t *nr, size_t *alloc)
{
	size_t n;
	uint32_t *kids = kids_sorted(c, node, 0, true, &n);
	const struct tnode *t;

	for (size_t j = 0; j < n; j++)
		collect_ends(c, kids[j], v, nr, alloc);
	free(kids);
	t = &c->f->tnodes[node];
	if (t->frame != UINT32_MAX && t->hit && t->hit >= c->min_hit) {
		*v = grow(*v, alloc, *nr, sizeof(**v));
		(*v)[(*nr)++] = (struct chain_end){ node, t->hit, 0 };
	}
}

static int cmp_ends(const void *pa, const void *pb)
{
	const struct chain_end *a = pa, *b = pb;

	if (a->hit != b->hit)
		return a->hit > b->hit ? -1 : 1;
	return a->pos < b->pos ? -1 : (a->pos > b->pos);
}

static void print_flat(struct pctx *c, uint32_t tree, uint64_t total)
{
	struct chain_end *v = NULL;
	size_t nr = 0, alloc = 0;
	bool folded = c->p->mode == CG_FOLDED;

	collect_ends(c, tree, &v, &nr, &alloc);
	for (size_t i = 0; i < nr; i++)
		v[i].pos = i;
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_ends);
	for (size_t i = 0; i < nr; i++) {
		const struct tnode *t = &c->f->tnodes[v[i].node];
		size_t depth = 0;

		for (uint32_t x = v[i].node; c->f->tnodes[x].frame != UINT32_MAX; x = c->f->tnodes[x].parent)
			depth++;
		if (depth > c->path_alloc) {
			c->path_alloc = depth * 2;
			c->path = xrealloc(c->path, c->path_alloc * sizeof(*c->path));
		}
		size_t k = depth;

		for (uint32_t x = v[i].node; c->f->tnodes[x].frame != UINT32_MAX; x = c->f->tnodes[x].parent)
			c->path[--k] = x;
		if (folded) {
			put_value(c, t->hit, t->count, total);
			fputc(' ', c->fp);
			for (size_t j = 0; j < depth; j++) {
				if (j)
					fputs(c->p->folded_sep ? c->p->folded_sep : ";", c->fp);
				put_name(c, c->path[j]);
			}
			fputc('\n', c->fp);
		} else {
			fputs("           ", c->fp);
			put_value(c, t->cumul, t->ccount, total);
			fputc('\n', c->fp);
			for (size_t j = 0; j < depth; j++) {
				fputs("                ", c->fp);
				put_name(c, c->path[j]);
				fputc('\n', c->fp);
			}
			fputc('\n', c->fp);
		}
		if (i + 1 == c->p->print_limit)
			break;
	}
	free(v);
}

void cg_tree_print(FILE *fp, struct cg_forest *f, uint32_t tree, const struct cg_params *p,
		   uint64_t total, uint64_t entry_period)
{
	cg_tree_print_hit(fp, f, tree, p, total, total, entry_period);
}

void cg_tree_print_hit(FILE *fp, struct cg_forest *f, uint32_t tree, const struct cg_params *p,
		       uint64_t total, uint64_t hit_total, uint64_t entry_period)
{
	struct pctx c = { .fp = fp, .f = f, .p = p };

	c.min_hit = pct_hits((double)hit_total, p->threshold, false);
	switch (p->mode) {
	case CG_GRAPH:
	case CG_FRACTAL:
		print_graph(&c, tree, total, entry_period);
		break;
	case CG_FLAT:
	case CG_FOLDED:
		print_flat(&c, tree, total);
		break;
	default:
		break;
	}
	free(c.path);
}

/* ---- -g argument ---- */

static bool prefix(const char *tok, const char *word)
{
	return !strncmp(tok, word, strlen(tok));
}

int cg_parse(struct cg_params *p, const char *arg, bool *order_set)
{
	char *dup = xstrdup(arg), *save = NULL, *end;
	int numbers = 0, err = 0;

	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (prefix(tok, "none")) {
			p->mode = CG_NONE;
			break;
		}
		if (prefix(tok, "graph"))
			p->mode = CG_GRAPH;
		else if (prefix(tok, "flat"))
			p->mode = CG_FLAT;
		else if (prefix(tok, "fractal"))
			p->mode = CG_FRACTAL;
		else if (prefix(tok, "folded"))
			p->mode = CG_FOLDED;
		else if (prefix(tok, "caller") || prefix(tok, "callee")) {
			p->order = prefix(tok, "caller") ? CG_CALLER : CG_CALLEE;
			*order_set = true;
		} else if (prefix(tok, "function"))
			p->key = CG_KEY_FUNCTION;
		else if (prefix(tok, "address"))
			p->key = CG_KEY_ADDRESS;
		else if (prefix(tok, "srcline"))
			p->key = CG_KEY_SRCLINE;
		else if (prefix(tok, "branch")) {
			err = pk_error(EINVAL, "call-graph key '%s' is not supported (function, address, srcline)", tok);
			break;
		} else if (prefix(tok, "percent"))
			p->value = CG_PERCENT;
		else if (prefix(tok, "period"))
			p->value = CG_PERIOD;
		else if (prefix(tok, "count"))
			p->value = CG_COUNT;
		else if (numbers == 0) {
			double v = strtod(tok, &end);

			/* any number strtod(3) reads, as perf: over 100, below
			 * 0, infinite or NaN no node is shown (pct_hits); what
			 * follows the number is not read ("5x" is 5) */
			if (end == tok) {
				err = pk_error(EINVAL, "bad call-graph word '%s' (expected graph, flat, folded, fractal, "
						       "none, caller, callee, a threshold percent or a print limit)",
					       tok);
				break;
			}
			p->threshold = v;
			numbers++;
		} else {
			/* as perf reads it: the whole number it starts with
			 * ("0.5" is 0, no limit), an error only without one;
			 * each number after the threshold is the limit again */
			/* strtoul's: "-1" is ULONG_MAX, no limit */
			unsigned long v = strtoul(tok, &end, 0);

			if (end == tok) {
				err = pk_error(EINVAL, "bad call-graph print limit '%s' (expected a whole number)", tok);
				break;
			}
			p->print_limit = v > UINT_MAX ? UINT_MAX : (unsigned)v;
		}
	}
	free(dup);
	return err;
}
