/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * listchase — the memory-access lesson for `perfkit mem`: the same sum over
 * N values (default 100 000) kept two ways.
 *
 *   listchase list [N [ROUNDS]]    a linked list of malloc'd nodes, linked
 *                                  in a shuffled order: each step loads the
 *                                  next node's address from the node before
 *                                  (pointer chasing, one cache line a node)
 *   listchase array [N [ROUNDS]]   a global array walked in order (a
 *                                  prefetcher's easiest case)
 *
 * Each walks its data ROUNDS times (default 4) and prints the sum.  Under
 * `perfkit mem` the list's misses land on the node allocation site
 * (new_node, below), the array's on the symbol `values`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	struct node *next;
	long value;
	char pad[48];		/* one node a cache line */
};

#define MAXN 4000000
static long values[MAXN];	/* the array variant's data */

__attribute__((noinline)) static struct node *new_node(long v)
{
	struct node *n = malloc(sizeof(*n));	/* the node allocation site */

	if (!n) {
		perror("listchase: malloc");
		exit(1);
	}
	n->value = v;
	n->next = NULL;
	return n;
}

__attribute__((noinline)) static long walk_list(const struct node *head)
{
	long s = 0;

	for (const struct node *n = head; n; n = n->next)
		s += n->value;
	return s;
}

__attribute__((noinline)) static long walk_array(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += values[i];
	return s;
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 100000;
	long rounds = argc > 3 ? strtol(argv[3], NULL, 10) : 4, sum = 0;

	if ((strcmp(which, "list") && strcmp(which, "array")) || argc > 4 || n < 1 || n > MAXN ||
	    rounds < 1) {
		fprintf(stderr, "usage: listchase list|array [N [ROUNDS]]  (1 <= N <= %d)\n", MAXN);
		return 2;
	}
	if (!strcmp(which, "list")) {
		struct node **all = malloc((size_t)n * sizeof(*all)), *head;
		unsigned long x = 12345;

		if (!all) {
			perror("listchase: malloc");
			return 1;
		}
		for (long i = 0; i < n; i++)
			all[i] = new_node(i);
		for (long i = n - 1; i > 0; i--) {	/* shuffle: the walk jumps */
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			long j = (long)((x >> 33) % (unsigned long)(i + 1));
			struct node *t = all[i];

			all[i] = all[j];
			all[j] = t;
		}
		for (long i = 0; i + 1 < n; i++)
			all[i]->next = all[i + 1];
		head = all[0];
		free(all);
		for (long r = 0; r < rounds; r++)
			sum += walk_list(head);
	} else {
		for (long i = 0; i < n; i++)
			values[i] = i;
		for (long r = 0; r < rounds; r++)
			sum += walk_array(n);
	}
	printf("%s: sum %ld\n", which, sum);
	return 0;
}
