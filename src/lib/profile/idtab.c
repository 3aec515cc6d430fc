/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idtab.c — dense ids of three-word values (see idtab.h). */
#include "profile/idtab.h"

#include "base/strbuf.h"

#include <stdlib.h>
#include <string.h>

static uint64_t id_hash(const uint64_t *k)
{
	return prof_mix(k[0] * 0x9e3779b97f4a7c15u ^ k[1] * 0xff51afd7ed558ccdu ^ k[2] * 0x94d049bb133111ebu);
}

static void grow_to(struct idtab *t, size_t n)
{
	uint64_t *v = xcalloc(n, sizeof(*v)), h;
	size_t s;

	for (size_t i = 0; i < t->nr; i++) {
		h = id_hash(t->keys[i]);
		for (s = (size_t)h & (n - 1); v[s]; s = (s + 1) & (n - 1))
			;
		v[s] = (h >> 32 << 32) | (i + 1);
	}
	free(t->slots);
	t->slots = v;
	t->mask = n - 1;
}

void idtab_reserve(struct idtab *t, size_t n)
{
	size_t slots = 256;

	while ((n + 1) * 10 > slots * 7)
		slots *= 2;
	if (!t->slots || slots > t->mask + 1)
		grow_to(t, slots);
	if (n > t->alloc) {
		t->alloc = n;
		t->keys = xrealloc(t->keys, t->alloc * sizeof(*t->keys));
	}
}

uint32_t idtab_intern(struct idtab *t, uint64_t k0, uint64_t k1, uint64_t k2)
{
	uint64_t k[3] = { k0, k1, k2 }, h;
	size_t s;

	if ((t->nr + 1) * 10 > (t->mask + 1) * 7 || !t->slots)
		grow_to(t, t->slots ? (t->mask + 1) * 2 : 256);
	h = id_hash(k);
	for (s = (size_t)h & t->mask; t->slots[s]; s = (s + 1) & t->mask) {
		uint64_t v = t->slots[s];
		const uint64_t *o = t->keys[(uint32_t)v - 1];

		if (v >> 32 == h >> 32 && o[0] == k0 && o[1] == k1 && o[2] == k2)
			return (uint32_t)v - 1;
	}
	if (t->nr == t->alloc) {
		t->alloc = t->alloc ? t->alloc * 2 : 1024;
		t->keys = xrealloc(t->keys, t->alloc * sizeof(*t->keys));
	}
	memcpy(t->keys[t->nr], k, sizeof(k));
	t->slots[s] = (h >> 32 << 32) | (t->nr + 1);
	return (uint32_t)t->nr++;
}

void idtab_free(struct idtab *t)
{
	free(t->keys);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
