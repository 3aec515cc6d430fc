/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * names.h — the model's stacks (profile.h) named and merged by name: the
 * tree a consumer of named stacks reads (folded stacks, flame graphs),
 * built in one pass over the model's nodes, not stack by stack.
 *
 * Naming: the caller names each thread, and each frame as seen in a
 * thread's stacks, by a sequence of name ids (prof_names_fn): none (a
 * frame skipped), one, or several (an inline chain, a thread named by
 * more than one frame), outermost first.  Equal names must be equal ids.
 *
 * Shape: node 0 is the root (no name).  A node's children have distinct
 * name ids; the path of names from the root's child down to a node is one
 * named stack, the thread's names first.  Every stack of the model is
 * renamed and added where its path of names ends: the node's period and
 * count are the sums over the model's stacks named alike (so stacks whose
 * names come out equal are one, as folded stacks sum equal text), and end
 * is set when at least one stack ends there (its period may be 0).  The
 * root itself ends a stack only when a whole stack was named by nothing.
 * A node's id is above its parent's; children are listed in the order they
 * were first made (child, then next).
 *
 * Memory: one node (32 bytes) per distinct named prefix, a 4-byte slot per
 * node in the lookup (freed by prof_names_make before it returns) and
 * 8 bytes per model node while building.  The model is only read.
 *
 * Errors: allocation failure aborts (xmalloc); nothing here fails.
 */
#ifndef PERFKIT_PROFILE_NAMES_H
#define PERFKIT_PROFILE_NAMES_H

#include "profile/profile.h"

struct prof_nnode {
	uint32_t parent;              /* the root's: PROF_NONE */
	uint32_t name;                /* the root's: PROF_NONE */
	uint32_t child, next;         /* first child, next sibling; PROF_NONE: none */
	uint32_t count;               /* samples ending here (saturates) */
	bool end;                     /* a stack ends here */
	uint64_t period;              /* their period (wraps as folded counts do) */
};

struct prof_names {
	struct prof_nnode *v;
	size_t nr;                    /* >= 1 once made: the root */
};

/* The names of thread `thread` (frame == PROF_NONE), or of frame `frame`
 * in a stack of thread `thread`: *n ids (0 allowed), valid until the next
 * call.  Called once per model node (cache per frame where naming costs). */
typedef const uint32_t *(*prof_names_fn)(void *arg, uint32_t thread, uint32_t frame, size_t *n);

/* The tree of p's stacks named by fn into *out (free with prof_names_free). */
void prof_names_make(const struct prof *p, prof_names_fn fn, void *arg, struct prof_names *out);
void prof_names_free(struct prof_names *t);

/* Every node where a stack ends (end set), in node order: the names on its
 * path root first (n may be 0 for the root), and the node.  A nonzero
 * return of fn stops the walk and is returned; otherwise 0. */
typedef int (*prof_named_fn)(void *arg, const uint32_t *names, size_t n, const struct prof_nnode *end);
int prof_names_walk(const struct prof_names *t, prof_named_fn fn, void *arg);

#endif
