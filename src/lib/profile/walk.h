/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * walk.h — reading the aggregation model (profile.h) stack by stack, for
 * the consumers that want whole stacks rather than rows: folded stacks and
 * flame graphs (format/collapse.h), exports.
 *
 * A stack is a node of the trie where samples end (count > 0): its thread
 * and the frame ids on the path from the thread's node down to it, root
 * first (the outermost caller first, the sample's leaf last), n >= 1.
 * Stacks are visited in node order (a stack seen earlier first), each
 * once, with the node (period, count: the samples that ended there).
 *
 * Memory: 4 bytes per node for the walk's depth table, and the deepest
 * stack.  The model is only read.
 *
 * Errors: allocation failure aborts (xmalloc); a nonzero return of fn
 * stops the walk and is returned; otherwise 0.
 */
#ifndef PERFKIT_PROFILE_WALK_H
#define PERFKIT_PROFILE_WALK_H

#include "profile/profile.h"

typedef int (*prof_stack_fn)(void *arg, uint32_t thread, const uint32_t *frames, size_t n,
			     const struct prof_node *end);

int prof_walk_stacks(const struct prof *p, prof_stack_fn fn, void *arg);

#endif
