/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model.h — internal to src/lib/export: the merged-stack model behind
 * export.h.  Frames are interned by (name, DSO); a stack is an event index
 * and a run of frame indexes (leaf first) in ids[]; identical stacks of one
 * event are one ex_stack with summed count and period.
 */
#ifndef PERFKIT_EXPORT_MODEL_H
#define PERFKIT_EXPORT_MODEL_H

#include "base/hashmap.h"
#include "export/export.h"

#include <stddef.h>
#include <stdint.h>

struct ex_frame {
	const char *name, *dso;   /* interned */
	uint64_t addr;            /* first address seen */
};

struct ex_stack {
	uint32_t event;
	uint32_t nr;              /* frames */
	size_t first;             /* index of the leaf in ids[] */
	uint64_t count, period;
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
	struct ex_event *events;
	uint32_t nr_events;
	uint64_t nr_samples, total_period;
	uint64_t t_min, t_max;    /* sample times (ns) */
};

#endif
