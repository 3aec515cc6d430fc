/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "stack/bytemap.h"
#include "base/strbuf.h"

#include <stdlib.h>

void bm_init(struct bytemap *m)
{
	memset(m, 0, sizeof(*m));
}

void bm_release(struct bytemap *m)
{
	pk_arena_release(&m->arena);
	free(m->slots);
	free(m->entries);
	bm_init(m);
}

static void place(struct bytemap *m, uint64_t h, size_t idx)
{
	size_t s = h & m->mask;

	while (m->slots[s].used)
		s = (s + 1) & m->mask;
	m->slots[s].hash = h;
	m->slots[s].idx = (uint32_t)idx;
	m->slots[s].used = 1;
}

size_t bm_insert_h(struct bytemap *m, const void *key, size_t len, uint64_t h, uint64_t val)
{
	if ((m->nr + 1) * 2 > m->mask + 1 || !m->mask) {
		size_t ns = m->mask ? (m->mask + 1) * 2 : 1024;
		struct bm_slot *old = m->slots;
		size_t oldn = m->mask ? m->mask + 1 : 0;
		m->slots = xcalloc_huge(ns, sizeof(*m->slots));
		m->mask = ns - 1;
		for (size_t i = 0; i < oldn; i++)
			if (old[i].used)
				place(m, old[i].hash, old[i].idx);
		free(old);
	}
	if (m->nr == m->alloc) {
		m->alloc = m->alloc ? m->alloc * 2 : 1024;
		m->entries = xrealloc(m->entries, m->alloc * sizeof(*m->entries));
	}
	struct bm_entry *e = &m->entries[m->nr];
	e->key = pk_arena_memdup0(&m->arena, key, len);
	e->len = (uint32_t)len;
	e->val = val;
	place(m, h, m->nr);
	return m->nr++;
}

size_t bm_upsert(struct bytemap *m, const void *key, size_t len, int *created)
{
	uint64_t h = bm_hash(key, len);
	long i = bm_find_h(m, key, len, h);

	if (created)
		*created = i < 0;
	if (i >= 0)
		return (size_t)i;
	return bm_insert_h(m, key, len, h, 0);
}
