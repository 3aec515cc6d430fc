/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * callgraph.h — perf report's call-graph trees (`perf report -g`): unique
 * call stacks aggregated while samples stream by, then one tree per printed
 * hist entry, printed in perf's stdio layouts (graph, fractal, flat,
 * folded).  The format and the numbers follow perf 6.1
 * (tools/perf/ui/stdio/hist.c and util/callchain.c), checked against
 * `perf report --stdio` output.
 *
 * Three pieces, all owned by one struct cg_forest:
 *
 * Frames: cg_frame_id() interns a function identity (perf's "function"
 * callchain key): (DSO, symbol) for a known symbol, (DSO, ip) for an
 * unknown address, inlined frames apart.  The dso and sym pointers are the
 * identity (the session interns them) and must outlive the forest.  Ids
 * are dense from 0.
 *
 * Stacks: cg_stack_push() walks a sample's stack from its outermost caller
 * to its leaf, one (frame, tag) per step (tag: the caller's entry id of
 * that frame, e.g. a report row); cg_stack_hit() adds the sample's period
 * to the last node.  Identical stacks share their nodes, so memory grows
 * with distinct stacks, not samples, and nothing is allocated per sample
 * once a stack has been seen.
 *
 * Trees: cg_tree_new() makes an empty tree; cg_trees_from_stacks() fills
 * report's per-entry trees from the stacks; cg_tree_add() appends a chain
 * (frame ids, first = the tree's top level) with a period, as perf's
 * callchain_append() does.  Printing compresses single-child runs into one
 * line group exactly as perf's radix tree does (a run breaks where a chain
 * ends or branches).  Children are ordered by their cumulated period,
 * largest first; equal ones in perf's key order (descending DSO, then
 * symbol start address, or ip for an unknown symbol; DSOs compare by the
 * address of their name, which the session interns in map order).
 *
 * Percentages: graph/flat/folded are relative to `total` (the event's total
 * period), fractal to the parent node (the entry's period at the top).
 * Threshold: a node is hidden when its period is below total * percent/100
 * (truncated to an integer, as perf's u64 min_callchain_hits); fractal: below
 * ceil(parent's children period * percent/100), with a "[...]" line for
 * the hidden rest.
 *
 * Errors: allocation failure aborts (xmalloc); only cg_parse() fails.
 * Nothing here prints except cg_tree_print(), to the FILE it is given.
 */
#ifndef PERFKIT_CALLGRAPH_H
#define PERFKIT_CALLGRAPH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum cg_mode { CG_NONE, CG_GRAPH, CG_FRACTAL, CG_FLAT, CG_FOLDED };
enum cg_order { CG_CALLER, CG_CALLEE };
enum cg_value { CG_PERCENT, CG_PERIOD, CG_COUNT };
/* perf's callchain keys (-g's KEY, util/callchain.c match_chain): what makes
 * two frames one node, and what a node prints */
enum cg_key {
	CG_KEY_FUNCTION,   /* (DSO, symbol), (DSO, ip) when unknown: "SYM" */
	CG_KEY_ADDRESS,    /* (DSO, ip): "SYM SRCLINE", SRCLINE "file.c:LINE"
			      or, without line information, "+OFF" (decimal) */
	CG_KEY_SRCLINE,    /* its "file.c:LINE" when it has one, else as
			      function: "SYM file.c:LINE" or "SYM" */
};

struct cg_params {
	enum cg_mode mode;
	enum cg_order order;
	enum cg_value value;
	double threshold;      /* percent, perf's default 0.5 */
	unsigned print_limit;  /* 0: no limit; else at most this many children
				  (graph) or chains (flat, folded) per level */
	bool skip_first;       /* sort order starts with "sym": a lone top
				  chain does not repeat the entry's symbol */
	enum cg_key key;       /* the forest's (cg_forest_set_key) */
	const char *folded_sep; /* CG_FOLDED: between a chain's frames (perf's
				  report -t field separator); NULL: ";" */
};

struct cg_frame {
	const char *sym;      /* NULL: unknown, printed as %#x of ip */
	const char *dso;      /* never NULL */
	uint64_t ip;
	uint64_t start;       /* symbol start address (ordering of ties) */
	bool inlined;         /* printed with " (inlined)" */
	const char *srcline;  /* CG_KEY_ADDRESS and CG_KEY_SRCLINE: the
				 frame's srcline text (see enum cg_key),
				 interned (equal texts, equal pointers), or
				 NULL: none; ignored by CG_KEY_FUNCTION */
};

/*
 * Parse perf's -g/--call-graph argument, "TYPE,THRESHOLD,PRINT_LIMIT,ORDER,
 * KEY,VALUE" in any order (each word may be abbreviated, numbers: the first
 * is the threshold, each after it the print limit, the last one kept; a
 * number is read from the start of its word, the rest not read ("5x" is
 * 5), as perf does; a threshold is any number
 * strtod(3) reads, converted to a period as perf's build on x86-64 does:
 * over 100, NaN or a negative share below -1 hide every node, a share of
 * 2^64 and more (inf, 1e400) shows every node; a print limit is read by
 * strtoul(3), "-1" no limit).  Updates *p; sets
 * *order_set when an order was given.  Returns 0, or -EINVAL (message in
 * pk_errmsg()) for an unknown word (one that starts with no number), or
 * the unsupported "branch".
 */
int cg_parse(struct cg_params *p, const char *arg, bool *order_set);

struct cg_forest;

struct cg_forest *cg_forest_new(void);
void cg_forest_free(struct cg_forest *f);

/* A flag that ends the forest's long work early once true: loading a
 * model's stacks (prof_cg_load) and building trees (cg_trees_from_stacks),
 * done by a thread for a view that a person may leave before it is made
 * (the browser's new sort keys stop it instead of waiting).  A stopped
 * load leaves part of the stacks, a stopped build part of the trees: only
 * cg_forest_free() (and free() of the tree ids) may follow.  NULL: none.
 * The flag must outlive the forest's use. */
void cg_forest_set_stop(struct cg_forest *f, const atomic_bool *stop);
/* Whether the stop flag is set (false without one). */
bool cg_forest_stopped(const struct cg_forest *f);

/* The forest's callchain key (enum cg_key; CG_KEY_FUNCTION unless set):
 * set before the first frame is interned. */
void cg_forest_set_key(struct cg_forest *f, enum cg_key key);

uint32_t cg_frame_id(struct cg_forest *f, const struct cg_frame *fr);

/* Room for n more frames: a caller that knows how many distinct frames
 * it will intern (prof_cg_load: the model's) saves the table's regrowth. */
void cg_forest_reserve_frames(struct cg_forest *f, size_t n);

/* Room for n more stack nodes (cg_stack_append), in huge pages when
 * large: prof_cg_load appends one per model node. */
void cg_forest_reserve_stacks(struct cg_forest *f, size_t n);
const struct cg_frame *cg_frame_get(const struct cg_forest *f, uint32_t id);

/* Stacks: parent 0 is the root; returns the child node (never 0).  The
 * frame is interned (cg_frame_id).  Samples count to 2^32 - 1 per node. */
uint32_t cg_stack_push(struct cg_forest *f, uint32_t parent, const struct cg_frame *fr, uint32_t tag);
void cg_stack_hit(struct cg_forest *f, uint32_t node, uint64_t period);

/* A stack node: parent (0: the root), frame id, tag; count and period
 * of the stacks ending there. */
struct cg_stack_node {
	uint32_t parent, frame, tag;
	uint32_t count;               /* samples (saturates; the sums of counts
					 below use 32 bits too) */
	uint64_t hit;
};

/* Replace the stacks of a forest with no tree yet by v[0..n) (xmalloc'd,
 * alloc elements; the forest owns it now): v[0] the root (overwritten),
 * every other node's parent below its own index.  Nodes nothing reaches
 * (no hits below, no tag) are harmless. */
void cg_stacks_adopt(struct cg_forest *f, struct cg_stack_node *v, size_t n, size_t alloc);

/* Append a stack node made elsewhere (an aggregated trie: profile/):
 * parent an existing node (0: the root), frame a cg_frame_id(), tag, and
 * the period and samples of the stacks ending there.  No lookup: a later
 * cg_stack_push() of the same key may make a second node (harmless to
 * the trees, which group by frame). */
uint32_t cg_stack_append(struct cg_forest *f, uint32_t parent, uint32_t frame, uint32_t tag, uint64_t period,
			 uint32_t count);

/* Call fn(arg, frames, tags, n, period, count) for every stack that got
 * hits: frames/tags from the outermost caller (0) to the leaf (n-1). */
typedef void (*cg_stack_fn)(void *arg, const uint32_t *frames, const uint32_t *tags, size_t n,
			    uint64_t period, uint64_t count);
void cg_stack_each(struct cg_forest *f, cg_stack_fn fn, void *arg);

/* Trees: ids from cg_tree_new(); chains of n >= 1 frame ids. */
uint32_t cg_tree_new(struct cg_forest *f);
void cg_tree_add(struct cg_forest *f, uint32_t tree, const uint32_t *frames, size_t n,
		 uint64_t period, uint64_t count);

/*
 * Build every wanted tree from the unique stacks in one top-down pass per
 * tree, as report's per-row trees: tree_of_tag[tag] (0: none; tags at or
 * past nr_tags: none) gets, for each stack whose leaf has that tag, its
 * whole chain, and with children, for each other stack through the tag,
 * the chain from the tag's first node in order (the outermost in caller
 * order, chains root first; the innermost in callee order, chains leaf
 * first) — exactly what cg_tree_add() of those chains would make, except
 * that a node whose cumulated period is below min_hit is not made (its
 * parent still counts it in its number of children, so printing is the
 * same for thresholds >= min_hit).  Trees must be empty (cg_tree_new()).
 * Cost: about the size of the made nodes' trie neighbourhoods, plus one
 * walk of each stack; nothing per sample.  Ends early, trees partly
 * made, when the forest's stop flag is set (cg_forest_set_stop).
 */
void cg_trees_from_stacks(struct cg_forest *f, const uint32_t *tree_of_tag, size_t nr_tags,
			  enum cg_order order, bool children, uint64_t min_hit);

/* The period below which cg_tree_print() shows no node: total *
 * threshold% for graph, flat and folded; 0 for fractal (relative). */
uint64_t cg_min_hit(const struct cg_params *p, uint64_t total);

/* Print tree as perf prints an entry's call graph: total is the event's
 * total period, entry_period the entry's own (Children when shown, else
 * Self).  Graph modes end with a blank line unless nothing was printed. */
void cg_tree_print(FILE *fp, struct cg_forest *f, uint32_t tree, const struct cg_params *p,
		   uint64_t total, uint64_t entry_period);

/* The same with the threshold a share of hit_total instead of total:
 * perf report --percentage relative prints a graph's percentages of the
 * whole (total) and hides its nodes below the threshold of what the
 * filters kept (hit_total). */
void cg_tree_print_hit(FILE *fp, struct cg_forest *f, uint32_t tree, const struct cg_params *p,
		       uint64_t total, uint64_t hit_total, uint64_t entry_period);

#endif
