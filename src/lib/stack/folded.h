/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * folded.h — an aggregator of folded stacks ("comm;root;…;leaf COUNT").
 *
 * Model: every distinct frame string is interned once and named by a
 * 32-bit id; a stack is the sequence of frame ids from the root (the first
 * field of a folded line, usually the process name) to the leaf.  Stacks
 * are kept in a hash of id sequences → count.  Frame strings never contain
 * ';' (folded_add_stack splits on it), so a stack and its joined text
 * "a;b;c" correspond one to one and equal texts aggregate together.
 *
 * Counts: integers (u64, wrapping on overflow) plus, only when a caller
 * adds a fractional weight, a double per stack; a stack with a fractional
 * part prints as C "%.15g" of the sum (what Perl prints for a number), any
 * other as a plain decimal integer.
 *
 * Output order is that of FlameGraph's stackcollapse-perf.pl (`sort keys`):
 * stack texts compared byte by byte (memcmp, shorter prefix first).
 *
 * Life cycle: folded_init → folded_add_… → folded_write / folded_sort →
 * folded_release.  Allocation failure aborts (see base/strbuf.h); no other
 * function fails except folded_write (-EIO when the stream fails).
 */
#ifndef PERFKIT_STACK_FOLDED_H
#define PERFKIT_STACK_FOLDED_H

#include "stack/bytemap.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct folded {
	struct bytemap frames;  /* frame text → id (entry index) */
	struct bytemap stacks;  /* uint32_t ids[] as bytes → val = integer count */
	double *frac;           /* per stack entry: fractional weight, or NULL */
	size_t frac_alloc;
};

void folded_init(struct folded *f);
void folded_release(struct folded *f);

/* Id of the frame text s[0..len) (interned; s must not contain ';'). */
uint32_t folded_frame_id(struct folded *f, const char *s, size_t len);

/* Text of frame id (NUL-terminated, lives as long as f); *len if non-NULL. */
const char *folded_frame_name(const struct folded *f, uint32_t id, size_t *len);

/* Add count to the stack ids[0..n) (root first). */
void folded_add_ids(struct folded *f, const uint32_t *ids, size_t n, uint64_t count);
/* The same with the stack's hash given: folded_ids_hash(ids, n), computed
 * ahead so that folded_prefetch can bring the stack's slot (stage 0), its
 * entry (stage 1, once the slot is in cache) and its key (stage 2) into
 * the cache while other work runs; prefetching is only a hint (a stale or
 * wrong hash costs nothing but the prefetch). */
static inline uint64_t folded_ids_hash(const uint32_t *ids, size_t n)
{
	static const uint32_t none;

	return bm_hash(n ? (const void *)ids : (const void *)&none, n * sizeof(*ids));
}

/* (inline: called two or three times a sample on the text path) */
static inline void folded_prefetch(const struct folded *f, uint64_t h, int stage)
{
	const struct bytemap *m = &f->stacks;

	if (!m->mask)
		return;
	const struct bm_slot *sl = &m->slots[h & m->mask];
	if (stage == 0) {
		__builtin_prefetch(sl);
		return;
	}
	if (!sl->used || sl->hash != h)
		return;
	const struct bm_entry *e = &m->entries[sl->idx];
	if (stage == 1)
		__builtin_prefetch(e);
	else
		__builtin_prefetch(e->key);
}
void folded_add_ids_h(struct folded *f, const uint32_t *ids, size_t n, uint64_t h, uint64_t count);
void folded_add_ids_frac(struct folded *f, const uint32_t *ids, size_t n, double count);

/* Add count to the stack given as text "a;b;c" (split on ';'). */
void folded_add_stack(struct folded *f, const char *stack, size_t len, uint64_t count);
void folded_add_stack_frac(struct folded *f, const char *stack, size_t len, double count);

/* Add every stack of from (counts and fractional parts) to into. */
void folded_merge(struct folded *into, const struct folded *from);

/* Number of distinct stacks, and access to stack i (insertion order). */
size_t folded_nr(const struct folded *f);
const uint32_t *folded_ids(const struct folded *f, size_t i, size_t *n);
/* Weight of stack i as a double (integer part + fractional part). */
double folded_weight(const struct folded *f, size_t i);

/* A sorted, materialised view: lines[k].stack is the joined text. */
struct folded_line {
	const char *stack;
	size_t len;
	size_t index;           /* stack index in f */
};
struct folded_sorted {
	struct folded_line *lines;
	size_t nr;
	char *text;             /* storage for all stack texts */
};
void folded_sort(const struct folded *f, struct folded_sorted *out);
void folded_sorted_release(struct folded_sorted *s);

/* Append the count of stack i as it is printed (decimal or %.15g) to buf
 * (at least 32 bytes); returns the number of bytes written. */
size_t folded_format_count(const struct folded *f, size_t i, char *buf);

/* Write every stack as "stack count\n", sorted.  0 or -EIO (pk_error set). */
int folded_write(const struct folded *f, FILE *out);

#endif
