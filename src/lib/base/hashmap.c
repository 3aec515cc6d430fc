/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/hashmap.h"
#include "base/strbuf.h"

#include <stdlib.h>
#include <string.h>

void hm_init(struct hashmap *m)
{
	memset(m, 0, sizeof(*m));
}

void hm_release(struct hashmap *m)
{
	pk_arena_release(&m->arena);
	free(m->slots);
	free(m->entries);
	hm_init(m);
}

uint64_t hm_hash(const void *key, size_t len)
{
	/* FNV-1a over 8-byte words, then a murmur-style finaliser. */
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ULL ^ (len * 0x9e3779b97f4a7c15ULL);

	while (len >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
		p += 8;
		len -= 8;
	}
	while (len--) {
		h = (h ^ *p++) * 0x100000001b3ULL;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* A slot's value: the hash's high half beside the entry index + 1. */
static inline uint64_t slot_of(uint64_t h, size_t i)
{
	return (h & 0xffffffff00000000ULL) | (uint64_t)(uint32_t)(i + 1);
}

static void rehash(struct hashmap *m, size_t nslots)
{
	free(m->slots);
	m->slots = xcalloc(nslots, sizeof(*m->slots));
	m->nslots = nslots;
	for (size_t i = 0; i < m->nr; i++) {
		size_t s = m->entries[i].hash & (nslots - 1);
		while (m->slots[s])
			s = (s + 1) & (nslots - 1);
		m->slots[s] = slot_of(m->entries[i].hash, i);
	}
}

static struct hm_entry *lookup(const struct hashmap *m, const void *key, size_t len,
			       uint64_t h, size_t *slot)
{
	if (!m->nslots) {
		*slot = 0;
		return NULL;
	}
	size_t s = h & (m->nslots - 1);
	uint64_t v, tag = h & 0xffffffff00000000ULL;

	while ((v = m->slots[s])) {
		if ((v & 0xffffffff00000000ULL) == tag) {
			struct hm_entry *e = &m->entries[(uint32_t)v - 1];

			if (e->hash == h && e->keylen == len && !memcmp(e->key, key, len))
				return e;
		}
		s = (s + 1) & (m->nslots - 1);
	}
	*slot = s;
	return NULL;
}

void hm_reserve(struct hashmap *m, size_t n)
{
	size_t want = m->nr + n, nslots = m->nslots ? m->nslots : 64;

	while ((want + 1) * 10 >= nslots * 7)
		nslots *= 2;
	if (nslots != m->nslots)
		rehash(m, nslots);
	if (want > m->alloc) {
		m->alloc = want;
		m->entries = xrealloc(m->entries, m->alloc * sizeof(*m->entries));
	}
}

struct hm_entry *hm_find(const struct hashmap *m, const void *key, size_t len)
{
	size_t slot;

	return lookup(m, key, len, hm_hash(key, len), &slot);
}

struct hm_entry *hm_upsert(struct hashmap *m, const void *key, size_t len, int *created)
{
	uint64_t h = hm_hash(key, len);
	size_t slot;
	struct hm_entry *e = lookup(m, key, len, h, &slot);

	if (created)
		*created = 0;
	if (e)
		return e;
	if ((m->nr + 1) * 10 >= m->nslots * 7) {
		rehash(m, m->nslots ? m->nslots * 2 : 64);
		lookup(m, key, len, h, &slot);
	}
	if (m->nr == m->alloc) {
		m->alloc = m->alloc ? m->alloc * 2 : 64;
		m->entries = xrealloc(m->entries, m->alloc * sizeof(*m->entries));
	}
	e = &m->entries[m->nr];
	e->key = pk_arena_memdup0(&m->arena, key, len);
	e->keylen = len;
	e->hash = h;
	e->val.u = 0;
	m->slots[slot] = slot_of(h, m->nr);
	m->nr++;
	if (created)
		*created = 1;
	return e;
}

const char *hm_intern(struct hashmap *m, const char *s, size_t len)
{
	return hm_upsert(m, s, len, NULL)->key;
}
