/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * walk.c — the model's stacks, one by one (see walk.h).
 *
 * A node's parent has a lower id, so one pass in id order gives every
 * node's depth; a stack is then written root first by climbing from its
 * end, each frame straight into its place.
 */
#include "profile/walk.h"

#include "base/strbuf.h"

#include <stdlib.h>

int prof_walk_stacks(const struct prof *p, prof_stack_fn fn, void *arg)
{
	size_t nr = prof_nr_nodes(p);
	const struct prof_node *nodes = prof_nodes(p);
	uint32_t *depth = xmalloc((nr ? nr : 1) * sizeof(*depth));
	uint32_t *path = NULL;
	size_t apath = 0;
	int ret = 0;

	/* node 0 the root, its children threads (depth 0), then frames */
	for (size_t i = 0; i < nr; i++)
		depth[i] = i == 0 || nodes[i].parent == 0 ? 0 : depth[nodes[i].parent] + 1;
	for (size_t i = 1; i < nr && !ret; i++) {
		const struct prof_node *e = &nodes[i];
		size_t n = depth[i];
		uint32_t v = (uint32_t)i;

		if (!e->count || !n)
			continue;
		if (n > apath) {
			apath = n * 2;
			path = xrealloc(path, apath * sizeof(*path));
		}
		for (size_t k = n; k-- > 0; v = nodes[v].parent)
			path[k] = nodes[v].frame;
		ret = fn(arg, nodes[v].frame & ~PROF_THREAD, path, n, e);
	}
	free(path);
	free(depth);
	return ret;
}
