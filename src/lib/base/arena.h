/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * arena.h — a bump allocator: many small allocations (interned keys,
 * rewritten lines) freed all at once.
 *
 * Memory comes in blocks: the first 64 KiB, each next one twice the last
 * up to 8 MiB, or exactly the size asked for when that is larger; a block
 * of 4 MiB or more asks for transparent huge pages (xhuge).
 * Allocations are 8-byte aligned (a key may be read back as an array of
 * 64-bit words).  Allocation failure aborts, as xmalloc() does
 * (base/strbuf.h).  Pointers stay valid until pk_arena_release().
 */
#ifndef PERFKIT_BASE_ARENA_H
#define PERFKIT_BASE_ARENA_H

#include <stddef.h>

struct pk_arena {
	struct pk_arena_block *head;   /* the block being filled; NULL when empty */
	size_t next_size;              /* bytes of the next block */
};

#define PK_ARENA_INIT { 0 }

/* n bytes (n may be 0), 8-byte aligned, uninitialised. */
void *pk_arena_alloc(struct pk_arena *a, size_t n);

/* A NUL-terminated copy of the n bytes at s (which may hold NULs). */
char *pk_arena_memdup0(struct pk_arena *a, const void *s, size_t n);

/* Free every block; the arena is empty (and reusable) afterwards. */
void pk_arena_release(struct pk_arena *a);

#endif
