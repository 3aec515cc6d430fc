/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * idtab.h — dense ids of values of three 64-bit words, for the
 * aggregation model's key parts and row keys (profile.c, flat.c).
 *
 * Shape: ids from 0 in the order values are first seen; equal values,
 * equal ids.  Keys are kept in id order (keys[id]); an open-addressing
 * table (linear probing, at most 70 % full) holds 32 bits of each key's
 * hash beside its id + 1.  A zeroed struct is an empty table.
 *
 * Errors: allocation failure aborts (xmalloc); nothing fails or prints.
 */
#ifndef PERFKIT_PROFILE_IDTAB_H
#define PERFKIT_PROFILE_IDTAB_H

#include <stddef.h>
#include <stdint.h>

struct idtab {
	uint64_t (*keys)[3];
	uint64_t *slots;
	size_t mask, nr, alloc;
};

/* Room for n values without growing (the table is sized once). */
void idtab_reserve(struct idtab *t, size_t n);
uint32_t idtab_intern(struct idtab *t, uint64_t k0, uint64_t k1, uint64_t k2);
void idtab_free(struct idtab *t);

/* A 64-bit finalizer (xor-shift-multiply): spreads a key over the bits
 * the tables index by. */
static inline uint64_t prof_mix(uint64_t x)
{
	x ^= x >> 32;
	x *= 0xc4ceb9fe1a85ec53u;
	return x ^ x >> 29;
}

#endif
