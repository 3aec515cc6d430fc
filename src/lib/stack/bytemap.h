/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bytemap.h — the hot-path hash map of the stack module: byte strings →
 * a 64-bit value, built for lookups of short keys (a `perf script` frame
 * line, a stack's id sequence) at memory speed.
 *
 * Differences from base/hashmap.h: a 128-bit-multiply hash that reads 32
 * bytes per step (two independent lanes; not stable across versions, not
 * for anything persisted), the hash stored in the slot so most misses and
 * probes never touch the key, and entries addressed by a dense index.
 * Keys are copied into an arena owned by the map, 8-byte aligned (a key
 * may be read back as an array of integers).  Open addressing, linear
 * probing, grows at 50 % load.  Allocation failure aborts (base/strbuf.h).
 */
#ifndef PERFKIT_STACK_BYTEMAP_H
#define PERFKIT_STACK_BYTEMAP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"

struct bm_entry {
	const char *key;   /* arena copy, NUL-terminated */
	uint32_t len;
	uint64_t val;
};

struct bytemap {
	struct bm_slot { uint64_t hash; uint32_t idx; uint32_t used; } *slots;
	size_t mask;               /* nslots - 1 (0 when empty) */
	struct bm_entry *entries;  /* dense, insertion order */
	size_t nr, alloc;
	struct pk_arena arena;     /* the keys, 8-byte aligned */
};

void bm_init(struct bytemap *m);
void bm_release(struct bytemap *m);

static inline uint64_t bm_rd64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}
static inline uint64_t bm_rd32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}
static inline uint64_t bm_mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t bm_hash(const void *key, size_t n)
{
	const unsigned char *p = key;
	const uint64_t k0 = 0xa0761d6478bd642fULL, k1 = 0xe7037ed1a0b428dbULL,
		       k2 = 0x8ebc6af09c88c6e3ULL, k3 = 0x589965cc75374cc3ULL;
	uint64_t h1 = k0 ^ (uint64_t)n, h2 = k1, a, b;

	if (n <= 16) {
		if (n >= 8) {
			a = bm_rd64(p);
			b = bm_rd64(p + n - 8);
		} else if (n >= 4) {
			a = bm_rd32(p);
			b = bm_rd32(p + n - 4);
		} else if (n) {
			a = ((uint64_t)p[0] << 16) | ((uint64_t)p[n >> 1] << 8) | p[n - 1];
			b = 0;
		} else {
			a = b = 0;
		}
	} else {
		size_t i = n;
		while (i > 32) {
			h1 = bm_mix(bm_rd64(p) ^ k2, bm_rd64(p + 8) ^ h1);
			h2 = bm_mix(bm_rd64(p + 16) ^ k3, bm_rd64(p + 24) ^ h2);
			p += 32;
			i -= 32;
		}
		if (i > 16)
			h1 = bm_mix(bm_rd64(p) ^ k2, bm_rd64(p + 8) ^ h1);
		a = bm_rd64(p + i - 16);
		b = bm_rd64(p + i - 8);
	}
	return bm_mix(k1 ^ (uint64_t)n, bm_mix(a ^ k2 ^ h2, b ^ h1));
}

/* Entry index of key, or -1. */
static inline long bm_find_h(const struct bytemap *m, const void *key, size_t len, uint64_t h)
{
	if (!m->mask)
		return -1;
	for (size_t s = h & m->mask;; s = (s + 1) & m->mask) {
		const struct bm_slot *sl = &m->slots[s];
		if (!sl->used)
			return -1;
		if (sl->hash == h) {
			const struct bm_entry *e = &m->entries[sl->idx];
			if (e->len == len && !memcmp(e->key, key, len))
				return (long)sl->idx;
		}
	}
}

/* Insert key (must not be present) with value val; returns its index. */
size_t bm_insert_h(struct bytemap *m, const void *key, size_t len, uint64_t h, uint64_t val);

/* Find or insert (val 0); *created set when new.  Returns the index. */
size_t bm_upsert(struct bytemap *m, const void *key, size_t len, int *created);

#endif
