/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/arena.h"
#include "base/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* Blocks double from 64 KiB to 8 MiB: an arena of texts of a few MB
 * then fills blocks big enough for transparent huge pages (xhuge: a
 * fault per 2 MiB, not per 4 KiB). */
#define ARENA_FIRST (64u << 10)
#define ARENA_MAX   (8u << 20)

struct pk_arena_block {
	struct pk_arena_block *next;
	size_t used, size;
	_Alignas(8) char data[];
};

void *pk_arena_alloc(struct pk_arena *a, size_t n)
{
	struct pk_arena_block *b = a->head;
	size_t need = (n + 7) & ~(size_t)7;

	if (!b || b->size - b->used < need) {
		size_t sz = a->next_size ? a->next_size : ARENA_FIRST;

		if (sz < ARENA_MAX)
			a->next_size = sz * 2;
		else
			a->next_size = ARENA_MAX;
		if (need > sz)
			sz = need;
		b = xmalloc_huge(sizeof(*b) + sz);
		b->next = a->head;
		b->used = 0;
		b->size = sz;
		a->head = b;
	}
	char *p = b->data + b->used;
	b->used += need;
	return p;
}

char *pk_arena_memdup0(struct pk_arena *a, const void *s, size_t n)
{
	char *p = pk_arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void pk_arena_release(struct pk_arena *a)
{
	struct pk_arena_block *b = a->head;

	while (b) {
		struct pk_arena_block *n = b->next;
		free(b);
		b = n;
	}
	a->head = NULL;
	a->next_size = 0;
}
