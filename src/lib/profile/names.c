/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * names.c — the model's stacks named and merged by name (see names.h).
 *
 * The model's nodes are read in id order (a parent before its children):
 * a node's names are followed down from the named node its parent came to,
 * each step one lookup of (parent, name) in an open-addressing table of
 * node ids (linear probing, at most 50 % full; node 0, the root, is never
 * a child, so 0 marks an empty slot).
 */
#include "profile/names.h"

#include "base/strbuf.h"

#include <stdlib.h>
#include <string.h>

struct builder {
	struct prof_names *t;
	size_t alloc;
	uint32_t *last;               /* per node: its last child (appending) */
	uint32_t *slots;
	size_t mask;
};

static inline size_t slot_of(uint32_t parent, uint32_t name, size_t mask)
{
	uint64_t k = ((uint64_t)parent << 32 | name) * 0x9E3779B97F4A7C15ull;

	return (size_t)(k >> 32) & mask;
}

static void grow_slots(struct builder *b)
{
	size_t nmask = b->mask * 2 + 1;
	uint32_t *ns = xcalloc(nmask + 1, sizeof(*ns));

	for (size_t i = 1; i < b->t->nr; i++) {
		const struct prof_nnode *e = &b->t->v[i];
		size_t s = slot_of(e->parent, e->name, nmask);

		while (ns[s])
			s = (s + 1) & nmask;
		ns[s] = (uint32_t)i;
	}
	free(b->slots);
	b->slots = ns;
	b->mask = nmask;
}

static uint32_t child(struct builder *b, uint32_t parent, uint32_t name)
{
	struct prof_names *t = b->t;
	size_t s = slot_of(parent, name, b->mask);

	for (uint32_t id; (id = b->slots[s]); s = (s + 1) & b->mask)
		if (t->v[id].parent == parent && t->v[id].name == name)
			return id;
	if (t->nr == b->alloc) {
		b->alloc *= 2;
		t->v = xrealloc(t->v, b->alloc * sizeof(*t->v));
		b->last = xrealloc(b->last, b->alloc * sizeof(*b->last));
	}
	uint32_t id = (uint32_t)t->nr++;
	struct prof_nnode *e = &t->v[id];

	memset(e, 0, sizeof(*e));
	e->parent = parent;
	e->name = name;
	e->child = e->next = PROF_NONE;
	b->last[id] = PROF_NONE;
	if (b->last[parent] == PROF_NONE)
		t->v[parent].child = id;
	else
		t->v[b->last[parent]].next = id;
	b->last[parent] = id;
	b->slots[s] = id;
	if (t->nr * 2 > b->mask + 1)
		grow_slots(b);
	return id;
}

void prof_names_make(const struct prof *p, prof_names_fn fn, void *arg, struct prof_names *out)
{
	size_t nr = prof_nr_nodes(p);
	const struct prof_node *nodes = prof_nodes(p);
	uint32_t *at = xmalloc((nr ? nr : 1) * sizeof(*at));       /* named node */
	uint32_t *thread = xmalloc((nr ? nr : 1) * sizeof(*thread));
	struct builder b = { .t = out, .alloc = 1024, .mask = 2047 };

	out->v = xmalloc(b.alloc * sizeof(*out->v));
	out->nr = 1;
	memset(&out->v[0], 0, sizeof(out->v[0]));
	out->v[0].parent = out->v[0].name = out->v[0].child = out->v[0].next = PROF_NONE;
	b.last = xmalloc(b.alloc * sizeof(*b.last));
	b.last[0] = PROF_NONE;
	b.slots = xcalloc(b.mask + 1, sizeof(*b.slots));
	if (nr)
		at[0] = thread[0] = 0;
	for (size_t i = 1; i < nr; i++) {
		const struct prof_node *e = &nodes[i];
		const uint32_t *names;
		size_t n;
		uint32_t v = at[e->parent];

		if (e->parent == 0) {
			thread[i] = e->frame & ~PROF_THREAD;
			names = fn(arg, thread[i], PROF_NONE, &n);
		} else {
			thread[i] = thread[e->parent];
			names = fn(arg, thread[i], e->frame, &n);
		}
		for (size_t k = 0; k < n; k++)
			v = child(&b, v, names[k]);
		at[i] = v;
		if (e->count && e->parent) {  /* a stack ends here (a thread alone is none) */
			struct prof_nnode *x = &out->v[v];

			x->end = true;
			x->period += e->period;
			x->count = x->count + e->count < x->count ? UINT32_MAX : x->count + e->count;
		}
	}
	free(b.slots);
	free(b.last);
	free(thread);
	free(at);
}

void prof_names_free(struct prof_names *t)
{
	free(t->v);
	t->v = NULL;
	t->nr = 0;
}

int prof_names_walk(const struct prof_names *t, prof_named_fn fn, void *arg)
{
	uint32_t *depth = xmalloc((t->nr ? t->nr : 1) * sizeof(*depth));
	uint32_t *path = NULL;
	size_t apath = 0;
	int ret = 0;

	for (size_t i = 0; i < t->nr; i++)
		depth[i] = i ? depth[t->v[i].parent] + 1 : 0;
	for (size_t i = 0; i < t->nr && !ret; i++) {
		const struct prof_nnode *e = &t->v[i];
		size_t n = depth[i];
		uint32_t v = (uint32_t)i;

		if (!e->end)
			continue;
		if (n + 1 > apath) {
			apath = n * 2 + 8;
			path = xrealloc(path, apath * sizeof(*path));
		}
		for (size_t k = n; k-- > 0; v = t->v[v].parent)
			path[k] = t->v[v].name;
		ret = fn(arg, path, n, e);
	}
	free(path);
	free(depth);
	return ret;
}
