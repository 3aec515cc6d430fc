/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model.h — internal to src/lib/export: the merged-stack model behind
 * export.h, two views of every sample:
 *
 *  - frames (speedscope): interned by (name, DSO), inlined frames included
 *    as the session delivers them; a stack is an event index and a run of
 *    frame indexes (leaf first) in ids[];
 *  - locations (pprof, profile.proto's model): one per real frame's code
 *    address (key: frame, ELF address or else ip, return address or not),
 *    holding its inline chain as lines[] (innermost first, the real
 *    function last), each a function (name, source file) and a line
 *    number (0 and the DSO as file until ex_resolve_lines() finds DWARF
 *    for it: only the pprof writer pays for it); a location stack is an event index and a run of location
 *    indexes (leaf first) in lids[].
 *
 * Identical stacks of one event are one ex_stack with summed count and period.
 */
#ifndef PERFKIT_EXPORT_MODEL_H
#define PERFKIT_EXPORT_MODEL_H

#include "base/hashmap.h"
#include "base/strbuf.h"
#include "export/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct inline_resolver;

struct ex_frame {
	const char *name, *dso;   /* interned */
	uint64_t addr;            /* first address seen */
};

struct ex_func {
	const char *name;         /* interned */
	const char *file;         /* interned: DWARF source file (basename), else the DSO */
};

struct ex_line {
	uint32_t func;            /* index in funcs[] */
	int64_t line;             /* 0: unknown */
};

struct ex_loc {
	const char *dso;          /* interned: the mapping */
	uint64_t ip;              /* first address seen (as sampled) */
	uint64_t addr;            /* ELF address to look up in DWARF, 0: none */
	uint32_t frame;           /* the real frame (frames[]) */
	uint32_t first_line, nr_lines;   /* in lines[], innermost first */
	bool dwarf;               /* lines and files from DWARF */
};

struct ex_bid {
	uint8_t size, data[20];
};

struct ex_stack {
	uint32_t event;
	uint32_t label;           /* export_set_labels: index in labels[] + 1, else 0 */
	uint32_t nr;              /* frames, or locations */
	size_t first;             /* index of the leaf in ids[] (lids[]) */
	uint64_t count, period;
};

struct ex_label {
	uint32_t pid;
	const char *comm;         /* interned */
};

struct ex_event {
	const char *name, *unit;
	uint64_t nr_samples, period;
};

struct pk_export {
	struct hashmap strings, frame_map, stack_map;
	struct ex_frame *frames;
	size_t nr_frames, alloc_frames;
	struct ex_stack *stacks;
	size_t nr_stacks, alloc_stacks;
	uint32_t *ids;
	size_t nr_ids, alloc_ids;
	/* the location view */
	struct hashmap loc_map, func_map, lstack_map;
	struct ex_loc *locs;
	size_t nr_locs, alloc_locs;
	struct ex_func *funcs;
	size_t nr_funcs, alloc_funcs;
	struct ex_line *lines;
	size_t nr_lines, alloc_lines;
	struct ex_stack *lstacks;
	size_t nr_lstacks, alloc_lstacks;
	uint32_t *lids;
	size_t nr_lids, alloc_lids;
	struct inline_resolver *inl;   /* DWARF lines and inline chains, made on first use */
	size_t nr_resolved;       /* locs[] looked up in DWARF so far */
	struct hashmap bids;      /* DSO path → recorded build-id (struct ex_bid) */
	struct hashmap dso_ok;    /* DSO (interned pointer) → the file to read its DWARF from, or NULL */
	struct strbuf key, tmp;   /* scratch */
	/* export_set_labels: per-process samples */
	const char *host;         /* interned; NULL: no labels */
	struct hashmap label_map; /* (pid, comm) -> index + 1 */
	struct ex_label *labels;
	size_t nr_labels, alloc_labels;

	struct ex_event *events;
	uint32_t nr_events;
	uint64_t nr_samples, total_period;
	uint64_t t_min, t_max;    /* sample times (ns) */
	int64_t time_nanos, duration_nanos;   /* export_set_time, else 0 */
};

/* Look up every location added since the last call in DWARF (user code of
 * a DSO with debug info): its inline chain, files and line numbers replace
 * the placeholder lines; each location is looked up once. */
void ex_resolve_lines(struct pk_export *x);

/* The index of the event named name in events[], added if new. */
uint32_t ex_event_idx(struct pk_export *x, const char *name);

/* The (pid, comm) label set of export_set_labels: index in labels[] + 1. */
uint32_t ex_label_idx(struct pk_export *x, uint32_t pid, const char *comm);

/* One stack of event ev (frames leaf first, n >= 0) standing for count
 * samples of summed period, with label (label_idx + 1, 0: none): the
 * frames, locations and merged stacks of both views, as export_add_n()
 * makes them for a sample (which also takes its time and label). */
void ex_add_stack(struct pk_export *x, uint32_t ev, const struct pk_frame *frames, size_t n,
		  uint64_t count, uint64_t period, uint32_t label);

#endif
