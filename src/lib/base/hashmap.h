/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hashmap.h — open-addressing hash map from byte strings to a pointer-sized
 * value, and a string interner built on it.
 *
 * Keys are copied into an arena owned by the map (one allocation per many
 * keys), so callers may pass transient buffers.  Lookups are O(1) expected;
 * the table doubles at 70 % load.  A slot keeps 32 bits of its key's hash
 * beside the entry index, so a probe of a full table touches one cache line
 * of slots and, but for one hash collision in 2^32, only the matching entry.  Iteration order is insertion order
 * (entries are kept in a dense array), which keeps outputs deterministic.
 */
#ifndef PERFKIT_BASE_HASHMAP_H
#define PERFKIT_BASE_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"

struct hm_entry {
	const char *key;   /* NUL-terminated copy, owned by the map */
	size_t keylen;
	uint64_t hash;
	union {
		void *ptr;
		uint64_t u;
		double d;
	} val;
};

struct hashmap {
	uint64_t *slots;          /* 0 = empty, else (hash's high 32 bits << 32)
				     | (entry index + 1): a probe compares the
				     hash bits here and reads an entry only
				     when they match */
	size_t nslots;            /* power of two */
	struct hm_entry *entries; /* dense, insertion order */
	size_t nr, alloc;
	struct pk_arena arena;   /* the keys */
};

void hm_init(struct hashmap *m);
void hm_release(struct hashmap *m);

/* 64-bit hash of a byte string (stable across runs). */
uint64_t hm_hash(const void *key, size_t len);

/* Room for n more entries without growing (a caller that knows about how
 * many keys come: a symbol table); n too large costs memory only (16
 * bytes of slots and 40 of entry per key). */
void hm_reserve(struct hashmap *m, size_t n);

/* Find the entry for key, or NULL. */
struct hm_entry *hm_find(const struct hashmap *m, const void *key, size_t len);

/* Find or insert; *created is set to 1 when a new entry (val zeroed) was
 * made.  The returned pointer is valid until the next insertion. */
struct hm_entry *hm_upsert(struct hashmap *m, const void *key, size_t len, int *created);

/* Intern: one stable copy of each distinct string.  The returned string
 * lives as long as the map. */
const char *hm_intern(struct hashmap *m, const char *s, size_t len);

#endif
