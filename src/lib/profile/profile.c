/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile.c — the aggregation model (see profile.h for the contract).
 *
 * Storage: plain arrays indexed by 32-bit ids.  Frames and nodes are
 * found through open-addressing tables of ids (linear probing, at most
 * 70 % full) whose slots keep 32 bits of the key's hash beside the id, so
 * a probe reads a frame or node only when the bits match; frames through a
 * direct-mapped cache first, and a thread's previous stack spares the
 * lookups of the outer callers it shares with the next sample.
 */
#include "profile/profile.h"

#include "base/error.h"
#include "base/hashmap.h"
#include "base/kvsort.h"
#include "base/strbuf.h"
#include "callgraph/callgraph.h"
#include "profile/idtab.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>

/* A frame's identity (profile.h): a = symbol start (known) or offset
 * (unknown); ip 0 for a known symbol unless PROF_BY_IP. */
struct fkey {
	const char *dso, *sym;
	uint64_t a, ip;
	uint32_t flags;               /* 1 inlined, 2 kernel */
};

#define FCACHE_BITS 14
struct fcache_slot {
	struct fkey k;
	uint32_t id;                  /* id + 1, 0: empty */
};

struct prev_frame {
	struct fkey k;
	uint64_t h;                   /* the node's path hash (path_hash) */
	uint32_t node, frame;
};

/* A thread's previous stack, root first. */
struct prev_stack {
	uint32_t root;                /* the thread's node */
	uint64_t root_h;              /* its path hash */
	struct prev_frame *v;
	size_t nr, alloc;
};

/* Threads by (comm, pid, tid, tag, cpu): a direct-mapped cache in front of tmap. */
#define TCACHE_SLOTS 256
struct tcache_slot {
	const char *comm, *tag;
	uint32_t pid, tid, cpu, id;   /* id + 1, 0: empty */
};

struct prof_cache;
static void cache_free(struct prof_cache *c);

struct prof {
	unsigned flags;
	struct pk_frame *frames;
	size_t nr_frames, alloc_frames;
	uint64_t *fslots;             /* hash high 32 | id + 1 */
	size_t fslot_mask;
	struct fcache_slot *fcache;
	struct prof_thread *threads;
	size_t nr_threads, alloc_threads;
	struct hashmap tmap;          /* (comm, pid, tid, tag, cpu) -> thread id + 1 */
	struct prof_node *nodes;
	size_t nr_nodes, alloc_nodes;
	uint64_t *nslots;             /* path hash high 32 | node (0: empty) */
	bool nslots_mapped;
	size_t nslot_mask;
	struct prev_stack *prevs;     /* per thread */
	struct tcache_slot *tcache;
	struct prof_cache *cache;     /* prof_rows_make()'s, PROF_REDERIVE */
	const char **cg_srcline;      /* per frame, its call graphs' srcline
					 text (prof_cg_set_srclines), or NULL */
	size_t nr_cg_srcline;
	uint32_t *line_parts;         /* prof_set_line_parts()'s, of the first
					 line_parts_of frames */
	size_t nr_line_parts, line_parts_of;
	size_t row_room;              /* prof_set_row_room()'s, or 0 */
};

static void *grow(void *p, size_t *alloc, size_t nr, size_t size)
{
	if (nr < *alloc)
		return p;
	*alloc = *alloc ? *alloc * 2 : 1024;
	p = xrealloc(p, *alloc * size);
	xhuge(p, *alloc * size);   /* big ones are read at random */
	return p;
}

/* A zeroed table of n words; a big one in huge pages where the kernel
 * gives them on request (its probes are random: fewer TLB misses). */
#define BIG_TABLE ((size_t)4 << 20)
static uint64_t *table_new(size_t n, bool *mapped)
{
	size_t size = n * sizeof(uint64_t);
	void *v = MAP_FAILED;

	if (size >= BIG_TABLE)
		v = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	*mapped = v != MAP_FAILED;
	if (!*mapped)
		return xcalloc(n, sizeof(uint64_t));
	(void)madvise(v, size, MADV_HUGEPAGE);
	return v;
}

static void table_free(uint64_t *v, size_t n, bool mapped)
{
	if (mapped)
		munmap(v, n * sizeof(uint64_t));
	else
		free(v);
}

struct prof *prof_new(unsigned flags)
{
	struct prof *p = xcalloc(1, sizeof(*p));

	p->flags = flags;
	hm_init(&p->tmap);
	p->nodes = grow(NULL, &p->alloc_nodes, 0, sizeof(*p->nodes));
	memset(&p->nodes[0], 0, sizeof(p->nodes[0]));
	p->nodes[0].frame = PROF_NONE;
	p->nr_nodes = 1;
	p->fcache = xcalloc((size_t)1 << FCACHE_BITS, sizeof(*p->fcache));
	return p;
}

void prof_free(struct prof *p)
{
	if (!p)
		return;
	for (size_t i = 0; p->prevs && i < p->nr_threads; i++)
		free(p->prevs[i].v);
	free(p->prevs);
	free(p->tcache);
	cache_free(p->cache);
	free(p->cg_srcline);
	free(p->line_parts);
	free(p->frames);
	free(p->fslots);
	free(p->fcache);
	free(p->threads);
	hm_release(&p->tmap);
	free(p->nodes);
	if (p->nslots)
		table_free(p->nslots, p->nslot_mask + 1, p->nslots_mapped);
	free(p);
}

/* ---- DSOs by short name (profile.h) ---- */

#define DSOKEY_MEMO 64
struct prof_dsokey {
	struct hashmap by_name;       /* short name -> first DSO */
	struct { const char *dso, *key; } memo[DSOKEY_MEMO];
	bool aliased;
};

struct prof_dsokey *prof_dsokey_new(void)
{
	struct prof_dsokey *k = xcalloc(1, sizeof(*k));

	hm_init(&k->by_name);
	return k;
}

void prof_dsokey_free(struct prof_dsokey *k)
{
	if (!k)
		return;
	hm_release(&k->by_name);
	free(k);
}

bool prof_dsokey_aliased(const struct prof_dsokey *k)
{
	return k->aliased;
}

const char *prof_dsokey(struct prof_dsokey *k, const char *dso)
{
	if (!dso)
		return NULL;
	size_t m = ((uintptr_t)dso >> 4 ^ (uintptr_t)dso >> 10) % DSOKEY_MEMO;

	if (k->memo[m].dso == dso)
		return k->memo[m].key;
	/* perf's short name: the part after the last '/' of a path; a name
	 * such as [kernel.kallsyms] or [vdso] is its own */
	const char *slash = dso[0] == '/' ? strrchr(dso, '/') : NULL, *name = slash ? slash + 1 : dso;
	int created;
	struct hm_entry *e = hm_upsert(&k->by_name, name, strlen(name), &created);

	if (created)
		e->val.ptr = (void *)(uintptr_t)dso;
	else if (e->val.ptr != dso)
		k->aliased = true;
	k->memo[m].dso = dso;
	k->memo[m].key = e->val.ptr;
	return e->val.ptr;
}

static void fkey_of(const struct prof *p, const struct pk_frame *fr, struct fkey *k)
{
	k->dso = fr->dso;
	k->sym = fr->sym;
	k->a = fr->sym ? pk_frame_sym_start(fr) : fr->sym_off;
	k->ip = fr->sym && !(p->flags & PROF_BY_IP) ? 0 : fr->ip;
	k->flags = (uint32_t)fr->inlined | (uint32_t)fr->kernel << 1;
}

static bool fkey_same(const struct fkey *x, const struct fkey *y)
{
	return x->sym == y->sym && x->dso == y->dso && x->a == y->a && x->ip == y->ip && x->flags == y->flags;
}

static uint64_t fkey_hash(const struct fkey *k)
{
	return prof_mix((uint64_t)(uintptr_t)k->sym * 0x9e3779b97f4a7c15u ^ (uint64_t)(uintptr_t)k->dso ^
		   k->a * 0xff51afd7ed558ccdu ^ k->ip * 0x94d049bb133111ebu ^ k->flags);
}

static void fslots_grow(struct prof *p)
{
	size_t n = p->fslot_mask ? (p->fslot_mask + 1) * 2 : 1024;
	uint64_t *v;

	while ((p->nr_frames + 1) * 10 > n * 7)   /* after prof_compact() */
		n *= 2;
	v = xcalloc(n, sizeof(*v));
	for (size_t i = 0; i < p->nr_frames; i++) {
		struct fkey k;
		uint64_t h;

		fkey_of(p, &p->frames[i], &k);
		h = fkey_hash(&k);
		size_t s = (size_t)h & (n - 1);

		while (v[s])
			s = (s + 1) & (n - 1);
		v[s] = (h >> 32 << 32) | (i + 1);
	}
	free(p->fslots);
	p->fslots = v;
	p->fslot_mask = n - 1;
}

static uint32_t frame_id(struct prof *p, const struct fkey *k, const struct pk_frame *fr)
{
	uint64_t h = fkey_hash(k);
	struct fcache_slot *c = &p->fcache[h >> (64 - FCACHE_BITS)];
	size_t s;

	if (c->id && fkey_same(&c->k, k))
		return c->id - 1;
	if (!p->fslots || (p->nr_frames + 1) * 10 > (p->fslot_mask + 1) * 7)
		fslots_grow(p);
	for (s = (size_t)h & p->fslot_mask; p->fslots[s]; s = (s + 1) & p->fslot_mask) {
		uint64_t v = p->fslots[s];

		struct fkey o;

		if (v >> 32 != h >> 32)
			continue;
		fkey_of(p, &p->frames[(uint32_t)v - 1], &o);
		if (fkey_same(&o, k)) {
			c->k = *k;
			c->id = (uint32_t)v;
			return (uint32_t)v - 1;
		}
	}
	p->frames = grow(p->frames, &p->alloc_frames, p->nr_frames, sizeof(*p->frames));
	p->frames[p->nr_frames] = *fr;
	p->fslots[s] = (h >> 32 << 32) | (p->nr_frames + 1);
	c->k = *k;
	c->id = (uint32_t)p->nr_frames + 1;
	return (uint32_t)p->nr_frames++;
}

/* A node's slot is found by the hash of its whole path from the root
 * (the root node 0's is 0), not of its parent's id: a sample's frames'
 * slots are known, and fetched together, before any of its nodes is. */
static uint64_t path_hash(uint64_t parent_h, uint32_t frame)
{
	return prof_mix((parent_h + frame + 1) * 0x9e3779b97f4a7c15u);
}

/* The slot index of a path hash: its top bits (a slot keeps the hash's
 * high 32 bits, so the table grows without the nodes' hashes). */
static size_t slot_of(uint64_t h, size_t mask)
{
	return (size_t)(h >> 32) * (mask + 1) >> 32;
}

static void nslots_grow(struct prof *p)
{
	size_t n = p->nslot_mask ? (p->nslot_mask + 1) * 2 : 1024;
	uint64_t *v;
	bool mapped;

	while ((p->nr_nodes + 1) * 10 > n * 7)   /* after prof_compact() */
		n *= 2;
	v = table_new(n, &mapped);
	if (p->nslots) {   /* each slot moved by the hash bits it keeps */
		for (size_t i = 0; i <= p->nslot_mask; i++) {
			uint64_t x = p->nslots[i];
			size_t s;

			if (!x)
				continue;
			for (s = slot_of(x, n - 1); v[s]; s = (s + 1) & (n - 1))
				;
			v[s] = x;
		}
		table_free(p->nslots, p->nslot_mask + 1, p->nslots_mapped);
	} else if (p->nr_nodes > 1) {   /* after prof_compact(): the paths hashed
					   again, a parent before its children */
		uint64_t *h = xmalloc(p->nr_nodes * sizeof(*h));

		h[0] = 0;
		for (size_t i = 1; i < p->nr_nodes; i++) {
			size_t s;

			h[i] = path_hash(h[p->nodes[i].parent], p->nodes[i].frame);
			for (s = slot_of(h[i], n - 1); v[s]; s = (s + 1) & (n - 1))
				;
			v[s] = (h[i] >> 32 << 32) | i;
		}
		free(h);
	}
	p->nslots = v;
	p->nslots_mapped = mapped;
	p->nslot_mask = n - 1;
}

/* The node of frame under parent, made when new; h: its path hash
 * (path_hash of the parent's and frame). */
static uint32_t child(struct prof *p, uint32_t parent, uint32_t frame, uint64_t h)
{
	size_t s;

	if (!p->nslots || (p->nr_nodes + 1) * 10 > (p->nslot_mask + 1) * 7)
		nslots_grow(p);
	for (s = slot_of(h, p->nslot_mask); p->nslots[s]; s = (s + 1) & p->nslot_mask) {
		uint64_t v = p->nslots[s];

		if (v >> 32 == h >> 32) {
			const struct prof_node *n = &p->nodes[(uint32_t)v];

			if (n->parent == parent && n->frame == frame)
				return (uint32_t)v;
		}
	}
	if (p->nr_nodes == p->alloc_nodes)   /* in huge pages (grow) */
		p->nodes = grow(p->nodes, &p->alloc_nodes, p->nr_nodes, sizeof(*p->nodes));
	p->nodes[p->nr_nodes] = (struct prof_node){ .parent = parent, .frame = frame };
	p->nslots[s] = (h >> 32 << 32) | p->nr_nodes;
	return (uint32_t)p->nr_nodes++;
}

static uint32_t thread_id(struct prof *p, const struct prof_thread *th)
{
	struct { const char *comm, *tag; uint32_t pid, tid, cpu, pad; } key = { th->comm, th->tag, th->pid, th->tid,
									   th->cpu, 0 };
	struct tcache_slot *c;
	int created;
	struct hm_entry *e;
	uint32_t tid = th->tid;

	if (!p->tcache)
		p->tcache = xcalloc(TCACHE_SLOTS, sizeof(*p->tcache));
	c = &p->tcache[(tid ^ tid >> 8 ^ (uint32_t)((uintptr_t)th->tag >> 4) ^ th->cpu * 31) % TCACHE_SLOTS];
	if (c->id && c->tid == tid && c->pid == th->pid && c->comm == th->comm && c->tag == th->tag &&
	    c->cpu == th->cpu)
		return c->id - 1;
	e = hm_upsert(&p->tmap, &key, sizeof(key), &created);
	if (created) {
		p->threads = grow(p->threads, &p->alloc_threads, p->nr_threads, sizeof(*p->threads));
		p->prevs = xrealloc(p->prevs, p->alloc_threads * sizeof(*p->prevs));
		p->threads[p->nr_threads] = *th;
		memset(&p->prevs[p->nr_threads], 0, sizeof(*p->prevs));
		e->val.u = ++p->nr_threads;
	}
	*c = (struct tcache_slot){ th->comm, th->tag, th->pid, tid, th->cpu, (uint32_t)e->val.u };
	return (uint32_t)e->val.u - 1;
}

uint32_t prof_add(struct prof *p, const char *comm, uint32_t pid, uint32_t tid, const struct pk_frame *frames,
		  size_t n, uint64_t period)
{
	const struct prof_thread th = { comm, pid, tid, NULL, 0 };

	return prof_add_thread(p, &th, frames, n, period);
}

uint32_t prof_add_thread(struct prof *p, const struct prof_thread *th, const struct pk_frame *frames, size_t n,
			 uint64_t period)
{
	uint32_t t;

	if (p->cache) {   /* the tree changes */
		cache_free(p->cache);
		p->cache = NULL;
	}
	t = thread_id(p, th);
	struct prev_stack *ps = &p->prevs[t];
	uint32_t node;
	size_t j = 0;

	if (!ps->root) {
		ps->root_h = path_hash(0, PROF_THREAD | t);
		ps->root = child(p, 0, PROF_THREAD | t, ps->root_h);
		ps->nr = 0;
	}
	if (n > ps->alloc) {
		ps->alloc = n * 2;
		ps->v = xrealloc(ps->v, ps->alloc * sizeof(*ps->v));
	}
	node = ps->root;
	uint64_t h = ps->root_h;

	/* the outer callers this thread's previous sample had too */
	for (; j < n && j < ps->nr; j++) {
		struct fkey k;

		fkey_of(p, &frames[n - 1 - j], &k);
		if (!fkey_same(&k, &ps->v[j].k))
			break;
		node = ps->v[j].node;
		h = ps->v[j].h;
	}
	/* the others' frames and path hashes, their slots fetched; then the
	 * nodes their first slots name: the misses overlap instead of coming
	 * one after another */
	size_t from = j;

	for (; j < n; j++) {
		struct prev_frame *pv = &ps->v[j];

		fkey_of(p, &frames[n - 1 - j], &pv->k);
		pv->frame = frame_id(p, &pv->k, &frames[n - 1 - j]);
		h = pv->h = path_hash(h, pv->frame);
		if (p->nslots)
			__builtin_prefetch(&p->nslots[slot_of(h, p->nslot_mask)]);
	}
	for (j = from; p->nslots && j < n; j++) {
		uint64_t v = p->nslots[slot_of(ps->v[j].h, p->nslot_mask)];

		if (v && v >> 32 == ps->v[j].h >> 32)
			__builtin_prefetch(&p->nodes[(uint32_t)v]);
	}
	for (j = from; j < n; j++) {
		struct prev_frame *pv = &ps->v[j];

		node = pv->node = child(p, node, pv->frame, pv->h);
	}
	ps->nr = n;
	p->nodes[node].period += period;
	if (p->nodes[node].count < UINT32_MAX)
		p->nodes[node].count++;
	return node;
}

void prof_rename_comms(struct prof *p, prof_rename_fn fn, const void *arg)
{
	bool any = false;

	for (size_t i = 0; i < p->nr_threads; i++) {
		const char *c = fn(arg, p->threads[i].comm);

		any |= c != p->threads[i].comm;
		p->threads[i].comm = c;
	}
	if (!any)
		return;
	if (p->tcache)   /* its slots name the old comms */
		memset(p->tcache, 0, TCACHE_SLOTS * sizeof(*p->tcache));
	if (p->cache) {   /* the rows' thread parts */
		cache_free(p->cache);
		p->cache = NULL;
	}
}

void prof_compact(struct prof *p)
{
	if (p->nslots)
		table_free(p->nslots, p->nslot_mask + 1, p->nslots_mapped);
	p->nslots = NULL;
	p->nslot_mask = 0;
	free(p->fslots);
	p->fslots = NULL;
	p->fslot_mask = 0;
	memset(p->fcache, 0, ((size_t)1 << FCACHE_BITS) * sizeof(*p->fcache));
	for (size_t i = 0; p->prevs && i < p->nr_threads; i++) {
		free(p->prevs[i].v);
		p->prevs[i].v = NULL;
		p->prevs[i].nr = p->prevs[i].alloc = 0;
	}
}

size_t prof_nr_nodes(const struct prof *p) { return p->nr_nodes; }
const struct prof_node *prof_nodes(const struct prof *p) { return p->nodes; }
size_t prof_nr_frames(const struct prof *p) { return p->nr_frames; }
const struct pk_frame *prof_frame(const struct prof *p, uint32_t id) { return &p->frames[id]; }
size_t prof_nr_threads(const struct prof *p) { return p->nr_threads; }
const struct prof_thread *prof_thread(const struct prof *p, uint32_t id) { return &p->threads[id]; }

/* ---- rows ---- */

/* Rows by (thread key, frame key): open addressing of the packed pair. */
struct rtab {
	uint64_t *keys;
	uint32_t *rows;
	size_t mask, nr;
};

static uint32_t rtab_get(struct rtab *t, uint64_t key, uint32_t next)
{
	size_t s;

	if ((t->nr + 1) * 10 > (t->mask + 1) * 7) {
		size_t n = (t->mask + 1) * 2;
		uint64_t *k = xmalloc(n * sizeof(*k));
		uint32_t *r = xmalloc(n * sizeof(*r));

		memset(r, 0xff, n * sizeof(*r));
		for (size_t i = 0; i <= t->mask; i++) {
			if (t->rows[i] == PROF_NONE)
				continue;
			for (s = (size_t)prof_mix(t->keys[i] * 0x9e3779b97f4a7c15u) & (n - 1); r[s] != PROF_NONE;
			     s = (s + 1) & (n - 1))
				;
			k[s] = t->keys[i];
			r[s] = t->rows[i];
		}
		free(t->keys);
		free(t->rows);
		t->keys = k;
		t->rows = r;
		t->mask = n - 1;
	}
	for (s = (size_t)prof_mix(key * 0x9e3779b97f4a7c15u) & t->mask; t->rows[s] != PROF_NONE; s = (s + 1) & t->mask)
		if (t->keys[s] == key)
			return t->rows[s];
	t->keys[s] = key;
	t->rows[s] = next;
	t->nr++;
	return next;
}

/* What rows of any keys are made from: each thread's and frame's key
 * values (parts; srcline apart), each node's thread, the trie's child
 * lists and subtree periods.  Kept between calls with PROF_REDERIVE. */
struct prof_cache {
	uint32_t (*tpart)[PROF_KEY_MAX];
	uint32_t (*fpart)[PROF_KEY_MAX];
	size_t nr_parts[PROF_KEY_MAX];
	uint32_t *thread_of;
	uint32_t *first, *next;       /* children: made on the first need */
	uint64_t *sub;
	uint32_t *end;                /* PROF_REDERIVE: nodes are in depth-first
					 order, a node's subtree ends before end[] */
	uint32_t *born;               /* PROF_REDERIVE: each node's id before
					 that order, the order the samples made
					 the nodes in (a row's thread is that of
					 its first node: perf's first sample) */
	/* PROF_REDERIVE: the (thread, frame) pairs of the nodes, numbered by
	 * first node, with what rows of any keys sum from them: Self, samples
	 * and Children (the period below each outermost node of the pair) */
	uint32_t *pair_of;            /* per node, PROF_NONE: a thread node */
	uint32_t *frame_of;           /* per node, its frame's index in fpairs
					 (PROF_NONE: a thread node): a row per
					 frame key reads 4 bytes a node, not the
					 node's 24 */
	struct pair { uint32_t thread, frame, born; uint64_t self, count, children; } *pairs;
	size_t nr_pairs;
	/* PROF_REDERIVE: the same sums per frame (all its pairs; thread and
	 * born those of its earliest), in the order of their earliest nodes
	 * (born; frames of no node, born PROF_NONE, last): rows of keys that
	 * do not name the thread sum 579 k frames in order, not 1.2 M pairs
	 * of frames read at random (a compile job's), and are made in the
	 * order of their earliest nodes, not sorted to it */
	struct pair *fpairs;
	/* PROF_REDERIVE: the frames' row keys of each choice of DSO and sym
	 * (index: dso | sym << 1; srcline apart), made on the first need */
	uint32_t *fkey[4];
	size_t nr_fkeys[4];
	/* PROF_REDERIVE: for a choice of keys asked before (index: dso | sym
	 * << 1 | comm << 2 | thread << 3 | trace << 4 | cpu << 5; srcline apart), each pair's (or,
	 * without a thread key, frame's) row, and the rows made: their names
	 * and sums.  Asking those keys again copies the rows, reading no pair
	 * (the browser's 's' back and forth: 32 bytes a row) */
	uint32_t *row_of_pair[64];    /* row | PAIR_SHARED */
	struct crow { uint32_t thread, frame; uint64_t self, children, nr_self; } *rows[64];
	size_t nr_rows[64];
};

#define PAIR_SHARED 0x80000000u   /* the pair's frame key is another frame's too */

static void cache_free(struct prof_cache *c)
{
	if (!c)
		return;
	free(c->tpart);
	free(c->fpart);
	free(c->thread_of);
	free(c->first);
	free(c->next);
	free(c->sub);
	free(c->end);
	free(c->born);
	free(c->pair_of);
	free(c->frame_of);
	free(c->pairs);
	free(c->fpairs);
	for (int i = 0; i < 4; i++)
		free(c->fkey[i]);
	for (int i = 0; i < 64; i++) {
		free(c->row_of_pair[i]);
		free(c->rows[i]);
	}
	free(c);
}

/* Number the nodes in depth-first order (a subtree is a range of ids,
 * parents still before children), with each subtree's end and period:
 * rows made again and again then read the nodes in one sequential pass.
 * The lookup tables go (prof_compact(); a later prof_add() remakes them). */
static void renumber(struct prof *p, struct prof_cache *c)
{
	size_t n = p->nr_nodes, pos = 0, sp = 0;
	uint32_t *first = xcalloc(n, sizeof(*first)), *next = xcalloc(n, sizeof(*next));
	uint32_t *newid = xmalloc(n * sizeof(*newid)), *stack = xmalloc((n + 1) * sizeof(*stack));
	struct prof_node *v = xmalloc((n + 1) * sizeof(*v));

	c->born = xmalloc((n + 1) * sizeof(*c->born));
	prof_compact(p);
	for (size_t i = n - 1; i >= 1; i--) {
		next[i] = first[p->nodes[i].parent];
		first[p->nodes[i].parent] = (uint32_t)i;
	}
	stack[sp++] = 0;
	while (sp) {   /* preorder: children in id order */
		uint32_t x = stack[--sp], cnt = 0;

		newid[x] = (uint32_t)pos;
		c->born[pos] = x;
		v[pos] = p->nodes[x];
		v[pos].parent = x ? newid[p->nodes[x].parent] : 0;
		pos++;
		for (uint32_t z = first[x]; z; z = next[z])
			cnt++;
		sp += cnt;
		for (uint32_t z = first[x], k = 1; z; z = next[z], k++)
			stack[sp - k] = z;   /* the first child on top */
	}
	free(first);
	free(next);
	free(newid);
	free(stack);
	free(p->nodes);
	p->nodes = v;
	p->alloc_nodes = n + 1;
	c->end = xmalloc(n * sizeof(*c->end));
	c->sub = xcalloc(n, sizeof(*c->sub));
	for (size_t i = 0; i < n; i++)
		c->end[i] = (uint32_t)i + 1;
	for (size_t i = n - 1; i >= 1; i--) {
		uint32_t up = v[i].parent;

		c->sub[i] += v[i].period;
		c->sub[up] += c->sub[i];
		if (c->end[i] > c->end[up])
			c->end[up] = c->end[i];
	}
}

static void rtab_init(struct rtab *t)
{
	*t = (struct rtab){ .mask = 1023 };
	t->keys = xmalloc((t->mask + 1) * sizeof(*t->keys));
	t->rows = xmalloc((t->mask + 1) * sizeof(*t->rows));
	memset(t->rows, 0xff, (t->mask + 1) * sizeof(*t->rows));
}

static void rtab_free(struct rtab *t)
{
	free(t->keys);
	free(t->rows);
}

/* Children: each key k of key_of[node] (PROF_NONE: none; nr keys) gets the
 * period below each of its outermost nodes, added to the uint64_t field at
 * byte offset field of record k of base (records stride bytes apart); in
 * depth-first order, the open subtrees on a stack (c->end, c->sub). */
static void add_children(const struct prof_cache *c, size_t nr_nodes, const uint32_t *key_of, size_t nr,
			 void *base, size_t stride, size_t field)
{
	uint32_t *active = xcalloc(nr + 1, sizeof(*active));
	uint32_t (*open)[2] = NULL;
	size_t sp = 0, alloc_open = 0;

	for (uint32_t i = 1; i < nr_nodes; i++) {
		uint32_t k = key_of[i];

		while (sp && open[sp - 1][0] <= i)
			if (open[--sp][1] != PROF_NONE)
				active[open[sp][1]]--;
		if (k != PROF_NONE && !active[k]++)
			*(uint64_t *)((char *)base + (size_t)k * stride + field) += c->sub[i];
		open = grow(open, &alloc_open, sp, sizeof(*open));
		open[sp][0] = c->end[i];
		open[sp++][1] = k;
	}
	free(open);
	free(active);
}

/* The nodes' (thread, frame) pairs in order of first node, with their
 * Self, samples and Children (prof_rows_make's depth-first pass, per
 * pair): rows of keys that tell every frame apart sum them, no node read. */
static void cache_pairs(const struct prof *p, struct prof_cache *c)
{
	size_t n = p->nr_nodes, alloc = 0;
	struct rtab rt;

	rtab_init(&rt);
	c->pair_of = xmalloc_huge(n * sizeof(*c->pair_of));
	c->frame_of = xmalloc_huge(n * sizeof(*c->frame_of));
	c->pair_of[0] = c->frame_of[0] = PROF_NONE;
	for (size_t i = 1; i < n; i++) {
		const struct prof_node *nd = &p->nodes[i];
		uint32_t t = c->thread_of[i], q;

		if (nd->frame & PROF_THREAD) {
			c->pair_of[i] = c->frame_of[i] = PROF_NONE;
			continue;
		}
		c->frame_of[i] = nd->frame;
		q = rtab_get(&rt, (uint64_t)t << 32 | nd->frame, (uint32_t)c->nr_pairs);
		if (q == c->nr_pairs) {
			c->pairs = grow(c->pairs, &alloc, c->nr_pairs, sizeof(*c->pairs));
			c->pairs[c->nr_pairs++] = (struct pair){ .thread = t, .frame = nd->frame, .born = c->born[i] };
		} else if (c->born[i] < c->pairs[q].born) {
			c->pairs[q].born = c->born[i];
		}
		c->pair_of[i] = q;
		c->pairs[q].self += nd->period;
		c->pairs[q].count += nd->count;
	}
	rtab_free(&rt);
	add_children(c, n, c->pair_of, c->nr_pairs, c->pairs, sizeof(*c->pairs), offsetof(struct pair, children));
	/* per frame: a frame's pairs are of different threads, whose stacks
	 * never meet, so its Children is theirs summed */
	c->fpairs = xmalloc_huge((p->nr_frames + 1) * sizeof(*c->fpairs));
	for (size_t f = 0; f < p->nr_frames; f++)
		c->fpairs[f] = (struct pair){ .thread = PROF_NONE, .frame = (uint32_t)f, .born = PROF_NONE };
	for (size_t q = 0; q < c->nr_pairs; q++) {
		const struct pair *pq = &c->pairs[q];
		struct pair *fq = &c->fpairs[pq->frame];

		if (q + 8 < c->nr_pairs)
			__builtin_prefetch(&c->fpairs[c->pairs[q + 8].frame], 1);
		if (pq->born < fq->born) {
			fq->born = pq->born;
			fq->thread = pq->thread;
		}
		fq->self += pq->self;
		fq->count += pq->count;
		fq->children += pq->children;
	}
	/* in born order; the nodes name their frame's place in it */
	struct pk_kv *kv = xmalloc_huge((p->nr_frames + 1) * sizeof(*kv));
	struct pair *sorted = xmalloc_huge((p->nr_frames + 1) * sizeof(*sorted));
	uint32_t *pos = xmalloc_huge((p->nr_frames + 1) * sizeof(*pos));

	for (size_t f = 0; f < p->nr_frames; f++)
		kv[f] = (struct pk_kv){ c->fpairs[f].born, f };
	pk_kv_sort(kv, p->nr_frames);
	for (size_t k = 0; k < p->nr_frames; k++) {
		sorted[k] = c->fpairs[kv[k].v];
		pos[kv[k].v] = (uint32_t)k;
	}
	for (size_t i = 1; i < n; i++)
		if (c->frame_of[i] != PROF_NONE)
			c->frame_of[i] = pos[c->frame_of[i]];
	free(kv);
	free(pos);
	free(c->fpairs);
	c->fpairs = sorted;
}

static struct prof_cache *cache_make(struct prof *p)
{
	struct prof_cache *c = xcalloc(1, sizeof(*c));
	struct idtab parts[PROF_KEY_MAX] = { { 0 } };

	if (p->flags & PROF_REDERIVE)
		renumber(p, c);

	c->tpart = xcalloc(p->nr_threads + 1, sizeof(*c->tpart));
	c->fpart = xcalloc_huge(p->nr_frames + 1, sizeof(*c->fpart));
	struct prof_dsokey *dk = prof_dsokey_new();

	for (size_t i = 0; i < p->nr_threads; i++) {
		const struct prof_thread *t = &p->threads[i];

		c->tpart[i][PROF_COMM] = idtab_intern(&parts[PROF_COMM], (uintptr_t)t->comm, 0, 0);
		c->tpart[i][PROF_PID] = c->tpart[i][PROF_TID] = idtab_intern(&parts[PROF_TID], t->tid, 0, 0);
		c->tpart[i][PROF_TRACE] = idtab_intern(&parts[PROF_TRACE], (uintptr_t)t->tag, 0, 0);
		c->tpart[i][PROF_CPU] = idtab_intern(&parts[PROF_CPU], t->cpu, 0, 0);
	}
	for (size_t i = 0; i < p->nr_frames; i++) {
		const struct pk_frame *fr = &p->frames[i];
		struct fkey k;

		fkey_of(p, fr, &k);
		const char *dso = prof_dsokey(dk, fr->dso);   /* perf's: by short name */

		c->fpart[i][PROF_DSO] = idtab_intern(&parts[PROF_DSO], (uintptr_t)dso, 0, 0);
		/* a symbol: one row per (name, start), kernel apart; an unknown
		 * address: per (offset, DSO), kernel or not (perf's entries of
		 * no symbol compare by address alone: the level shown is the
		 * row's first frame's) */
		c->fpart[i][PROF_SYM] = idtab_intern(&parts[PROF_SYM], fr->sym ? (uintptr_t)fr->sym : (uintptr_t)dso,
					       k.a, (uint64_t)(fr->sym && fr->kernel) << 1 | !fr->sym);
	}
	prof_dsokey_free(dk);
	for (int k = 0; k < PROF_KEY_MAX; k++) {
		c->nr_parts[k] = parts[k].nr;
		idtab_free(&parts[k]);
	}
	c->nr_parts[PROF_PID] = c->nr_parts[PROF_TID];
	c->thread_of = xmalloc_huge(p->nr_nodes * sizeof(*c->thread_of));
	c->thread_of[0] = PROF_NONE;
	for (size_t i = 1; i < p->nr_nodes; i++) {
		const struct prof_node *nd = &p->nodes[i];

		c->thread_of[i] = nd->frame & PROF_THREAD ? nd->frame & ~PROF_THREAD : c->thread_of[nd->parent];
	}
	if (c->end)
		cache_pairs(p, c);
	return c;
}

static void cache_tree(const struct prof *p, struct prof_cache *c)
{
	size_t n = p->nr_nodes;

	if (c->first)
		return;
	c->first = xcalloc(n, sizeof(*c->first));
	c->next = xcalloc(n, sizeof(*c->next));
	c->sub = xcalloc(n, sizeof(*c->sub));
	for (size_t i = n - 1; i >= 1; i--) {
		uint32_t up = p->nodes[i].parent;

		c->next[i] = c->first[up];
		c->first[up] = (uint32_t)i;
		c->sub[i] += p->nodes[i].period;
		c->sub[up] += c->sub[i];
	}
}

static void new_row(struct prof_rows *out, size_t *alloc, const struct prof_cache *c, uint32_t t, uint32_t frame,
		    const uint32_t *mask, const uint32_t *fline)
{
	struct prof_row *row;

	out->v = grow(out->v, alloc, out->nr, sizeof(*out->v));
	row = &out->v[out->nr++];
	memset(row, 0, sizeof(*row));
	row->thread = t;
	row->frame = frame;
	for (int k = 0; k < PROF_KEY_MAX; k++)
		row->part[k] = (c->tpart[t][k] | c->fpart[frame][k]) & mask[k];
	if (fline)
		row->part[PROF_SRCLINE] = fline[frame];
}

/* With the tid key, rows join only the threads of one tid (its comms).
 * Most such thread keys (tkey) have their pairs in one run (the nodes are
 * in depth-first order, a thread's under its own node): their rows are
 * found in a table by frame key (nr_fkeys slots, "tkey + 1 << 32 | row",
 * a few MB read at random) instead of the hash of every (thread key,
 * frame key).  Returns that table, zeroed, and in *split the thread keys
 * whose pairs are in more than one run (1: they use the hash). */
static uint64_t *thread_runs(const struct prof_cache *c, const uint32_t *tkey, size_t nr_tkeys, size_t nr_fkeys,
			     uint8_t **split)
{
	uint8_t *seen = xcalloc(nr_tkeys + 1, 1);
	uint64_t *slots = xcalloc_huge(nr_fkeys + 1, sizeof(*slots));
	uint32_t last = PROF_NONE;

	*split = xcalloc(nr_tkeys + 1, 1);
	for (size_t q = 0; q < c->nr_pairs; q++) {
		uint32_t k = tkey[c->pairs[q].thread];

		if (k == last)
			continue;
		if (seen[k])
			(*split)[k] = 1;
		seen[k] = 1;
		last = k;
	}
	free(seen);
	return slots;
}

/* The rows in the order of their earliest node (born: distinct node ids),
 * the order rows of a model made without PROF_REDERIVE have (its nodes
 * are in the samples' order): equal rows then sort alike in both (the
 * browser's 'P' and --stdio).  For rows made from the nodes (Self only:
 * the browser's '-'); rows from the pairs are made in that order instead.
 * A radix sort of the rows by born: its cost is the rows', not the
 * nodes'.  Returns each row's new index (rows[] permuted), for the caller
 * to rename its references. */
static uint32_t *rows_by_born(struct prof_rows *out, const uint32_t *born)
{
	struct pk_kv *kv = xmalloc_huge((out->nr + 1) * sizeof(*kv));
	uint32_t *newid = xmalloc_huge((out->nr + 1) * sizeof(*newid));
	struct prof_row *v = out->v;

	for (size_t r = 0; r < out->nr; r++)
		kv[r] = (struct pk_kv){ born[r], r };
	pk_kv_sort(kv, out->nr);
	for (size_t k = 0; k < out->nr; k++)
		newid[kv[k].v] = (uint32_t)k;
	/* the rows moved in place, a cycle of the permutation at a time (row
	 * k takes row kv[k].v; kv[k].v = k once done): no second array of
	 * the rows, whose fresh pages cost more than the moves */
	for (size_t k = 0; k < out->nr; k++) {
		if (kv[k].v == k)
			continue;
		struct prof_row tmp = v[k];
		size_t j = k;

		for (;;) {
			size_t src = (size_t)kv[j].v;

			kv[j].v = j;
			if (src == k) {
				v[j] = tmp;
				break;
			}
			v[j] = v[src];
			j = src;
		}
	}
	free(kv);
	return newid;
}

size_t prof_max_rows(const struct prof *p)
{
	/* rows are made of pairs (a row per pair at most), or of frames
	 * when no key names the thread (no more than the pairs then) */
	return p->cache && p->cache->pairs ? p->cache->nr_pairs : p->nr_nodes;
}

void prof_set_row_room(struct prof *p, size_t bytes)
{
	p->row_room = bytes;
}

void prof_set_line_parts(struct prof *p, uint32_t *ids, size_t nr)
{
	free(p->line_parts);
	p->line_parts = ids;
	p->nr_line_parts = nr;
	p->line_parts_of = p->nr_frames;
}

size_t prof_line_parts(const struct prof *p, prof_line_fn line, void *arg, uint32_t *ids)
{
	/* the frames sorted by value (stable: a value's first frame leads
	 * its run), then the runs by first frame: two radix sorts, where a
	 * hash of the values read two tables at random per frame (on a
	 * compile job's 646 k frames by address, with the line function's
	 * calls, 88-104 ms of wall -> 71-81 ms of CPU) */
	size_t n = p->nr_frames, nr = 0;
	struct pk_kv *kv = xmalloc_huge((n + 1) * sizeof(*kv)), *runs;

	for (size_t i = 0; i < n; i++)
		kv[i] = (struct pk_kv){ (uintptr_t)(line ? line(arg, &p->frames[i]) : NULL), i };
	pk_kv_sort(kv, n);
	runs = xmalloc_huge((n + 1) * sizeof(*runs));
	for (size_t i = 0; i < n; i++)
		if (!i || kv[i].k != kv[i - 1].k)
			runs[nr++] = (struct pk_kv){ kv[i].v, i };
	pk_kv_sort(runs, nr);
	for (size_t id = 0; id < nr; id++)
		for (size_t i = runs[id].v; i < n && (i == runs[id].v || kv[i].k == kv[i - 1].k); i++)
			ids[kv[i].v] = (uint32_t)id;
	free(runs);
	free(kv);
	return nr;
}

void prof_rows_make(struct prof *p, const enum prof_key *keys, int nr_keys, bool children,
		    prof_line_fn line, void *arg, struct prof_rows *out)
{
	struct prof_cache *c = p->cache ? p->cache : cache_make(p);
	struct idtab tk = { 0 }, fk = { 0 };
	size_t nr_lines = 0;
	uint32_t *tkey = xmalloc((p->nr_threads + 1) * sizeof(*tkey));
	uint32_t *fkey = xmalloc((p->nr_frames + 1) * sizeof(*fkey));
	uint32_t *fline = NULL;
	bool want[PROF_KEY_MAX] = { false };
	struct rtab rt;
	size_t alloc = 0;
	bool summed = false;
	uint32_t mask[PROF_KEY_MAX];

	memset(out, 0, sizeof(*out));
	for (int k = 0; k < nr_keys; k++)
		want[keys[k]] = true;
	want[PROF_TID] = want[PROF_PID] = want[PROF_TID] || want[PROF_PID];
	for (int k = 0; k < PROF_KEY_MAX; k++)
		mask[k] = want[k] ? UINT32_MAX : 0;
	/* the rows' key: the asked parts of the thread's and the frame's */
	for (size_t i = 0; i < p->nr_threads; i++)
		tkey[i] = idtab_intern(&tk, c->tpart[i][PROF_COMM] & mask[PROF_COMM], c->tpart[i][PROF_TID] & mask[PROF_TID],
				 (c->tpart[i][PROF_TRACE] & mask[PROF_TRACE]) |
					 (uint64_t)(c->tpart[i][PROF_CPU] & mask[PROF_CPU]) << 32);
	if (want[PROF_SRCLINE])
		fline = xmalloc((p->nr_frames + 1) * sizeof(*fline));
	int fsel = want[PROF_DSO] | want[PROF_SYM] << 1;

	if (!fline && c->fkey[fsel]) {   /* made by an earlier call */
		memcpy(fkey, c->fkey[fsel], (p->nr_frames + 1) * sizeof(*fkey));
		fk.nr = c->nr_fkeys[fsel];
	} else if (!fline && (fsel == 1 || fsel == 2)) {
		/* the DSO or the symbol alone: its part is the key (parts are
		 * numbered by first frame, as the interning would number them) */
		int k = fsel == 1 ? PROF_DSO : PROF_SYM;

		for (size_t i = 0; i < p->nr_frames; i++)
			fkey[i] = c->fpart[i][k];
		fk.nr = c->nr_parts[k];
	} else {
		/* the line alone: its ids are the key's (numbered alike, by
		 * first frame) */
		if (fline && p->line_parts && p->line_parts_of == p->nr_frames) {
			memcpy(fline, p->line_parts, p->nr_frames * sizeof(*fline));
			nr_lines = p->nr_line_parts;
		} else if (fline) {
			nr_lines = prof_line_parts(p, line, arg, fline);
		}
		if (fline && fsel)
			idtab_reserve(&fk, p->nr_frames);
		for (size_t i = 0; i < p->nr_frames; i++)
			fkey[i] = fline && !fsel ? fline[i]
						 : idtab_intern(&fk, c->fpart[i][PROF_DSO] & mask[PROF_DSO],
								c->fpart[i][PROF_SYM] & mask[PROF_SYM], fline ? fline[i] : 0);
		if (fline && !fsel)
			fk.nr = nr_lines;
		if (!fline && (p->flags & PROF_REDERIVE)) {
			c->fkey[fsel] = xmalloc((p->nr_frames + 1) * sizeof(*fkey));
			memcpy(c->fkey[fsel], fkey, (p->nr_frames + 1) * sizeof(*fkey));
			c->nr_fkeys[fsel] = fk.nr;
		}
	}
	for (int k = 0; k < PROF_KEY_MAX; k++)
		out->nr_parts[k] = want[k] ? c->nr_parts[k] : 0;
	out->nr_parts[PROF_SRCLINE] = nr_lines;

	rtab_init(&rt);
	out->of_node = xmalloc_huge(p->nr_nodes * sizeof(*out->of_node));
	out->of_node[0] = PROF_NONE;
	/* room for the most rows there can be (pages untouched cost nothing):
	 * written once, not grown and copied */
	alloc = (children && c->pairs ? c->nr_pairs : p->nr_nodes) + 1;
	out->v = xmalloc_huge(alloc * (p->row_room > sizeof(*out->v) ? p->row_room : sizeof(*out->v)));
	if (children && c->pairs) {
		/* rows from the pairs.  Children: a row's pairs of frames whose
		 * key no other frame has are of different threads, whose stacks
		 * never meet: their Children sum.  Pairs of frames sharing a key
		 * (an inlined copy, an unknown address of a DSO mapped at two
		 * places) may nest: for them, in the nodes' depth-first order, a
		 * node counts when it is past the subtree of the row's last
		 * counted node (rend), i.e. outermost. */
		int sel = fsel | want[PROF_COMM] << 2 | want[PROF_TID] << 3 | want[PROF_TRACE] << 4 | want[PROF_CPU] << 5;
		/* no key names the thread: the rows sum frames, not pairs */
		bool by_frame = !want[PROF_COMM] && !want[PROF_TID] && !want[PROF_TRACE] && !want[PROF_CPU];
		const struct pair *units = by_frame ? c->fpairs : c->pairs;
		size_t nr_units = by_frame ? p->nr_frames : c->nr_pairs;
		bool cached = !fline && c->row_of_pair[sel], keep = !fline && (p->flags & PROF_REDERIVE) && !cached;
		uint32_t *of_pair = cached ? c->row_of_pair[sel] : xmalloc((nr_units + 1) * sizeof(*of_pair));
		/* each row's earliest pair so far (rep), whose thread and frame
		 * the row takes, and its born (the frames come in born order: a
		 * row's first is its earliest) */
		uint32_t *rborn = cached || by_frame ? NULL : xmalloc((nr_units + 1) * sizeof(*rborn));
		uint32_t *rep = cached ? NULL : xmalloc((nr_units + 1) * sizeof(*rep));
		size_t nr_rows = 0;
		uint32_t *nfk = NULL, *rend, *by_fkey = NULL;
		uint64_t *run_row = NULL;
		uint8_t *split = NULL;
		bool any = false;

		if (!cached) {   /* how many frames have each frame key */
			nfk = xcalloc(fk.nr + 1, sizeof(*nfk));
			for (size_t i = 0; i < p->nr_frames; i++)
				nfk[fkey[i]]++;
			run_row = want[PROF_TID] ? thread_runs(c, tkey, tk.nr, fk.nr, &split) : NULL;
			if (!run_row && tk.nr <= 1) {   /* no thread key: a row per frame key, by index */
				by_fkey = xmalloc_huge((fk.nr + 1) * sizeof(*by_fkey));
				memset(by_fkey, 0xff, (fk.nr + 1) * sizeof(*by_fkey));
			}
		} else {   /* the rows of these keys as made before */
			for (size_t r = 0; r < c->nr_rows[sel]; r++) {
				const struct crow *cr = &c->rows[sel][r];

				new_row(out, &alloc, c, cr->thread, cr->frame, mask, NULL);
				out->v[r].self = cr->self;
				out->v[r].children = cr->children;
				out->v[r].nr_self = cr->nr_self;
			}
		}
		for (size_t q = 0; !cached && q < nr_units; q++) {
			const struct pair *pq = &units[q];
			uint32_t r;

			if (pq->born == PROF_NONE) {   /* a frame of no node */
				of_pair[q] = PROF_NONE;
				continue;
			}
			if (run_row && !split[tkey[pq->thread]]) {
				/* the thread key's pairs are one run: a row is
				 * new when its frame key's slot is of another */
				uint64_t *slot = &run_row[fkey[pq->frame]], stamp = (uint64_t)(tkey[pq->thread] + 1) << 32;

				if (q + 8 < nr_units)   /* the slot of a pair ahead */
					__builtin_prefetch(&run_row[fkey[units[q + 8].frame]], 1);
				r = (*slot & ~(uint64_t)UINT32_MAX) == stamp ? (uint32_t)*slot : (uint32_t)nr_rows;
				*slot = stamp | r;
			} else if (by_fkey) {
				uint32_t *slot = &by_fkey[fkey[pq->frame]];

				if (*slot == PROF_NONE)
					*slot = (uint32_t)nr_rows;
				r = *slot;
			} else {
				r = rtab_get(&rt, (uint64_t)tkey[pq->thread] << 32 | fkey[pq->frame], (uint32_t)nr_rows);
			}
			if (r == nr_rows) {
				if (rborn)
					rborn[r] = pq->born;
				rep[nr_rows++] = (uint32_t)q;
			} else if (rborn && pq->born < rborn[r]) {   /* a thread seen earlier */
				rborn[r] = pq->born;
				rep[r] = (uint32_t)q;
			}
			/* the row, and whether another frame has this one's key
			 * (PAIR_SHARED) */
			of_pair[q] = r | (nfk[fkey[pq->frame]] > 1 ? PAIR_SHARED : 0);
			any |= of_pair[q] >= PAIR_SHARED;
		}
		if (rborn) {
			/* rows in their earliest nodes' order, made there: the
			 * provisional ids sorted by born, not the rows moved (1.3 M
			 * rows, 83 MB read at random, were 36 % of a compile job's
			 * 's sym,tid') */
			struct pk_kv *kv = xmalloc_huge((nr_rows + 1) * sizeof(*kv));
			uint32_t *newid = xmalloc_huge((nr_rows + 1) * sizeof(*newid));

			for (size_t r = 0; r < nr_rows; r++)
				kv[r] = (struct pk_kv){ rborn[r], r };
			pk_kv_sort(kv, nr_rows);
			for (size_t k = 0; k < nr_rows; k++) {
				const struct pair *pq = &units[rep[kv[k].v]];

				newid[kv[k].v] = (uint32_t)k;
				/* read at random, for rows ahead: the pair's index,
				 * the pair (its index read), the parts of its frame
				 * (the pair read) */
				if (k + 24 < nr_rows)
					__builtin_prefetch(&rep[kv[k + 24].v]);
				if (k + 16 < nr_rows)
					__builtin_prefetch(&units[rep[kv[k + 16].v]]);
				if (k + 8 < nr_rows)
					__builtin_prefetch(c->fpart[units[rep[kv[k + 8].v]].frame]);
				new_row(out, &alloc, c, pq->thread, pq->frame, mask, fline);
			}
			for (size_t q = 0; q < nr_units; q++)   /* pairs: each of a node */
				if (of_pair[q] != PROF_NONE)
					of_pair[q] = newid[of_pair[q] & ~PAIR_SHARED] | (of_pair[q] & PAIR_SHARED);
			free(kv);
			free(newid);
		} else {
			for (size_t r = 0; !cached && r < nr_rows; r++)
				new_row(out, &alloc, c, units[rep[r]].thread, units[rep[r]].frame, mask, fline);
		}
		free(rep);
		/* the sums, each pair's row known by now: the row of a pair
		 * ahead prefetched (rows are read at random, tens of MB) */
		for (size_t q = 0; !cached && q < nr_units; q++) {
			const struct pair *pq = &units[q];
			uint32_t r = of_pair[q] & ~PAIR_SHARED;

			if (q + 16 < nr_units)
				__builtin_prefetch(&out->v[of_pair[q + 16] & ~PAIR_SHARED], 1);
			if (of_pair[q] == PROF_NONE)
				continue;
			out->v[r].self += pq->self;
			out->v[r].nr_self += pq->count;
			if (of_pair[q] < PAIR_SHARED)
				out->v[r].children += pq->children;
		}
		rend = any ? xcalloc(out->nr + 1, sizeof(*rend)) : NULL;
		for (uint32_t i = 1; i < p->nr_nodes; i++) {
			uint32_t q = by_frame ? c->frame_of[i] : c->pair_of[i];
			uint32_t r = q == PROF_NONE ? PROF_NONE : of_pair[q] & ~PAIR_SHARED;

			out->of_node[i] = r;
			if (rend && r != PROF_NONE && of_pair[q] >= PAIR_SHARED && i >= rend[r]) {
				out->v[r].children += c->sub[i];
				rend[r] = c->end[i];
			}
		}
		summed = true;
		free(rborn);
		free(rend);
		free(nfk);
		free(run_row);
		free(by_fkey);
		free(split);
		if (keep) {   /* the rows summed: kept for these keys' next time */
			c->row_of_pair[sel] = of_pair;
			c->rows[sel] = xmalloc_huge((out->nr + 1) * sizeof(*c->rows[sel]));
			for (size_t r = 0; r < out->nr; r++)
				c->rows[sel][r] = (struct crow){ out->v[r].thread, out->v[r].frame, out->v[r].self,
								 out->v[r].children, out->v[r].nr_self };
			c->nr_rows[sel] = out->nr;
		} else if (!cached) {
			free(of_pair);
		}
	}
	/* nodes in depth-first order (c->born): a row takes the thread and
	 * frame of its earliest node */
	uint32_t *nborn = !(children && c->pairs) && c->born ? xmalloc(alloc * sizeof(*nborn)) : NULL;

	for (size_t i = 1; !(children && c->pairs) && i < p->nr_nodes; i++) {
		const struct prof_node *nd = &p->nodes[i];
		uint32_t t, r;

		if (nd->frame & PROF_THREAD || (!children && !nd->count)) {
			out->of_node[i] = PROF_NONE;
			continue;
		}
		t = c->thread_of[i];
		r = rtab_get(&rt, (uint64_t)tkey[t] << 32 | fkey[nd->frame], (uint32_t)out->nr);
		if (r == out->nr) {
			if (nborn)
				nborn[r] = c->born[i];
			new_row(out, &alloc, c, t, nd->frame, mask, fline);
		} else if (nborn && c->born[i] < nborn[r]) {
			nborn[r] = c->born[i];
			out->v[r].thread = t;
			out->v[r].frame = nd->frame;
		}
		out->of_node[i] = r;
		out->v[r].self += nd->period;
		out->v[r].nr_self += nd->count;
	}
	if (nborn) {   /* rows in their earliest nodes' order */
		uint32_t *newid = rows_by_born(out, nborn);

		for (size_t i = 1; i < p->nr_nodes; i++)
			if (out->of_node[i] != PROF_NONE)
				out->of_node[i] = newid[out->of_node[i]];
		free(newid);
	}
	free(nborn);
	rtab_free(&rt);
	free(tkey);
	free(fkey);
	free(fline);
	idtab_free(&tk);
	idtab_free(&fk);
	if (!(p->flags & PROF_REDERIVE)) {   /* the parts were for this call */
		free(c->thread_of);
		free(c->tpart);
		free(c->fpart);
		c->thread_of = NULL;
		c->tpart = c->fpart = NULL;
	} else {
		p->cache = c;
	}
	if (children && summed) {
		/* done */
	} else if (children && c->end) {
		add_children(c, p->nr_nodes, out->of_node, out->nr, out->v, sizeof(*out->v),
			     offsetof(struct prof_row, children));
	} else if (children) {
		/* Children: a row gets the period below each of its outermost
		 * nodes (a depth-first walk counts the rows on the path) */
		uint32_t *active = xcalloc(out->nr + 1, sizeof(*active));

		cache_tree(p, c);
		for (uint32_t cur = c->first[0]; cur;) {
			uint32_t r = out->of_node[cur];

			if (r != PROF_NONE && !active[r]++)
				out->v[r].children += c->sub[cur];
			if (c->first[cur]) {
				cur = c->first[cur];
				continue;
			}
			for (;;) {
				r = out->of_node[cur];
				if (r != PROF_NONE)
					active[r]--;
				if (c->next[cur]) {
					cur = c->next[cur];
					break;
				}
				cur = p->nodes[cur].parent;
				if (!cur)
					break;
			}
		}
		free(active);
	}
	if (!(p->flags & PROF_REDERIVE))
		cache_free(c);
	if (p->flags & PROF_SYS) {   /* Self in kernel mode: the nodes where stacks end in the kernel */
		out->self_sys = xcalloc_huge(out->nr + 1, sizeof(*out->self_sys));
		for (size_t i = 1; i < p->nr_nodes; i++) {
			const struct prof_node *nd = &p->nodes[i];
			uint32_t r = out->of_node[i];

			if (nd->count && r != PROF_NONE && !(nd->frame & PROF_THREAD) && p->frames[nd->frame].kernel)
				out->self_sys[r] += nd->period;
		}
	}
}

void prof_rows_free_v(struct prof_rows *r)
{
	if (r->v_mapped)
		munmap(r->v, r->v_mapped);
	else
		free(r->v);
	r->v = NULL;
	r->v_mapped = 0;
}

void prof_rows_free(struct prof_rows *r)
{
	prof_rows_free_v(r);
	free(r->of_node);
	free(r->self_sys);
	memset(r, 0, sizeof(*r));
}

/* ---- call graphs ---- */

/* A model frame as callgraph interns it: (DSO, symbol) and the symbol's
 * start in its DSO (pk_frame_dso_addr). */
static struct cg_frame cg_frame_of(const struct prof *p, uint32_t id)
{
	const struct pk_frame *fr = &p->frames[id];

	return (struct cg_frame){ .sym = fr->sym, .dso = fr->dso, .ip = fr->ip, .inlined = fr->inlined,
				  .start = pk_frame_dso_addr(fr) - fr->sym_off,
				  .srcline = id < p->nr_cg_srcline ? p->cg_srcline[id] : NULL };
}

void prof_cg_set_srclines(struct prof *p, const char **v, size_t n)
{
	free(p->cg_srcline);
	p->cg_srcline = v;
	p->nr_cg_srcline = v ? n : 0;
}

void prof_cg_load_with(const struct prof *p, const struct prof_rows *rows, const uint32_t *tag_of,
		       void (*copy)(void *arg, struct cg_frame *cf), void *arg, struct cg_forest *f)
{
	uint32_t *cgframe = xmalloc((p->nr_frames + 1) * sizeof(*cgframe));
	uint32_t *cgnode = xmalloc_huge(p->nr_nodes * sizeof(*cgnode));

	memset(cgframe, 0xff, (p->nr_frames + 1) * sizeof(*cgframe));
	cg_forest_reserve_frames(f, p->nr_frames);
	cg_forest_reserve_stacks(f, p->nr_nodes);
	cgnode[0] = 0;
	for (size_t i = 1; i < p->nr_nodes; i++) {
		const struct prof_node *nd = &p->nodes[i];
		uint32_t row = rows->of_node[i];

		if (i % 65536 == 0 && cg_forest_stopped(f))   /* given up: part loaded */
			break;

		if (nd->frame & PROF_THREAD) {   /* a thread's stacks start at the root */
			cgnode[i] = 0;
			continue;
		}
		if (cgframe[nd->frame] == PROF_NONE) {
			struct cg_frame cf = cg_frame_of(p, nd->frame);

			if (copy)
				copy(arg, &cf);
			cgframe[nd->frame] = cg_frame_id(f, &cf);
		}
		cgnode[i] = cg_stack_append(f, cgnode[nd->parent], cgframe[nd->frame],
					    tag_of && row != PROF_NONE ? tag_of[row] : row, nd->period, nd->count);
	}
	free(cgframe);
	free(cgnode);
}

void prof_cg_load(const struct prof *p, const struct prof_rows *rows, struct cg_forest *f)
{
	prof_cg_load_with(p, rows, NULL, NULL, NULL, f);
}

void prof_cg_take(struct prof *p, const struct prof_rows *rows, struct cg_forest *f)
{
	uint32_t *cgframe = xmalloc((p->nr_frames + 1) * sizeof(*cgframe));
	struct cg_stack_node *v = (struct cg_stack_node *)(void *)p->nodes;

	_Static_assert(sizeof(struct cg_stack_node) == sizeof(struct prof_node), "node sizes");
	memset(cgframe, 0xff, (p->nr_frames + 1) * sizeof(*cgframe));
	/* in place, in id order (a node's parent is already a cg node): a
	 * thread node becomes a node nothing reaches (frame PROF_NONE, never
	 * read), and its stacks start at the root */
	for (size_t i = 1; i < p->nr_nodes; i++) {
		struct prof_node nd;
		struct cg_stack_node c = { .frame = PROF_NONE, .tag = PROF_NONE };

		memcpy(&nd, &p->nodes[i], sizeof(nd));
		if (!(nd.frame & PROF_THREAD)) {
			uint32_t upframe;

			memcpy(&upframe, &v[nd.parent].frame, sizeof(upframe));
			if (cgframe[nd.frame] == PROF_NONE) {
				struct cg_frame cf = cg_frame_of(p, nd.frame);

				cgframe[nd.frame] = cg_frame_id(f, &cf);
			}
			c = (struct cg_stack_node){ .parent = upframe == PROF_NONE ? 0 : nd.parent,
						    .frame = cgframe[nd.frame], .tag = rows->of_node[i],
						    .count = nd.count, .hit = nd.period };
		}
		memcpy(&v[i], &c, sizeof(c));
	}
	cg_stacks_adopt(f, v, p->nr_nodes, p->alloc_nodes);
	p->nodes = NULL;
	p->nr_nodes = p->alloc_nodes = 0;
	free(cgframe);
}

/* ---- a sample standing for several (export/feed.c: eBPF counts) ---- */

uint32_t prof_add_n(struct prof *p, const char *comm, uint32_t pid, uint32_t tid, const struct pk_frame *frames,
		    size_t n, uint64_t count, uint64_t period)
{
	uint32_t node = prof_add(p, comm, pid, tid, frames, n, period);
	uint64_t c = (uint64_t)p->nodes[node].count - 1 + count;

	p->nodes[node].count = c < UINT32_MAX ? (uint32_t)c : UINT32_MAX;
	return node;
}
