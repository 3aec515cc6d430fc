/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model.c — the export model of export.h: interned frames and merged
 * stacks per event, shared by the pprof and speedscope writers.
 */
#include "export/model.h"

#include "base/strbuf.h"

#include <stdlib.h>
#include <string.h>

struct pk_export *export_new(void)
{
	struct pk_export *x = xcalloc(1, sizeof(*x));

	hm_init(&x->strings);
	hm_init(&x->frame_map);
	hm_init(&x->stack_map);
	return x;
}

void export_free(struct pk_export *x)
{
	if (!x)
		return;
	hm_release(&x->strings);
	hm_release(&x->frame_map);
	hm_release(&x->stack_map);
	free(x->frames);
	free(x->stacks);
	free(x->events);
	free(x->ids);
	free(x);
}

static uint32_t event_idx(struct pk_export *x, const char *name)
{
	const char *n = hm_intern(&x->strings, name, strlen(name));

	for (uint32_t i = 0; i < x->nr_events; i++)
		if (x->events[i].name == n)
			return i;
	x->events = xrealloc(x->events, (x->nr_events + 1) * sizeof(*x->events));
	memset(&x->events[x->nr_events], 0, sizeof(*x->events));
	x->events[x->nr_events].name = n;
	x->events[x->nr_events].unit = (!strncmp(n, "cpu-clock", 9) || !strncmp(n, "task-clock", 10))
				       ? "nanoseconds" : "count";
	return x->nr_events++;
}

static uint32_t frame_idx(struct pk_export *x, const struct pk_frame *fr)
{
	const char *name = fr->sym ? fr->sym : "[unknown]";
	const char *dso = fr->dso ? fr->dso : "[unknown]";
	struct strbuf key = STRBUF_INIT;
	struct hm_entry *e;
	int created;

	sb_init(&key, 128);
	sb_addstr(&key, name);
	sb_addch(&key, '\0');
	sb_addstr(&key, dso);
	e = hm_upsert(&x->frame_map, key.buf, key.len, &created);
	if (created) {
		struct ex_frame *f;

		if (x->nr_frames == x->alloc_frames) {
			x->alloc_frames = x->alloc_frames ? x->alloc_frames * 2 : 256;
			x->frames = xrealloc(x->frames, x->alloc_frames * sizeof(*x->frames));
		}
		f = &x->frames[x->nr_frames];
		f->name = hm_intern(&x->strings, name, strlen(name));
		f->dso = hm_intern(&x->strings, dso, strlen(dso));
		f->addr = fr->ip;
		e->val.u = ++x->nr_frames;
	}
	sb_release(&key);
	return (uint32_t)(e->val.u - 1);
}

void export_add(struct pk_export *x, const struct pk_sample *s)
{
	uint32_t ev = event_idx(x, s->event ? s->event : "samples");
	size_t n = s->nr_frames, start;
	struct hm_entry *e;
	int created;

	if (s->time && (!x->t_min || s->time < x->t_min))
		x->t_min = s->time;
	if (s->time > x->t_max)
		x->t_max = s->time;
	x->nr_samples++;
	x->total_period += s->period;
	x->events[ev].nr_samples++;
	x->events[ev].period += s->period;
	/* the key: event, then the frame indexes leaf first */
	start = x->nr_ids;
	if (x->nr_ids + n + 1 > x->alloc_ids) {
		while (x->nr_ids + n + 1 > x->alloc_ids)
			x->alloc_ids = x->alloc_ids ? x->alloc_ids * 2 : 4096;
		x->ids = xrealloc(x->ids, x->alloc_ids * sizeof(*x->ids));
	}
	x->ids[start] = ev;
	for (size_t i = 0; i < n; i++)
		x->ids[start + 1 + i] = frame_idx(x, &s->frames[i]);
	e = hm_upsert(&x->stack_map, x->ids + start, (n + 1) * sizeof(*x->ids), &created);
	if (created) {
		struct ex_stack *st;

		if (x->nr_stacks == x->alloc_stacks) {
			x->alloc_stacks = x->alloc_stacks ? x->alloc_stacks * 2 : 1024;
			x->stacks = xrealloc(x->stacks, x->alloc_stacks * sizeof(*x->stacks));
		}
		st = &x->stacks[x->nr_stacks];
		memset(st, 0, sizeof(*st));
		st->event = ev;
		st->first = start + 1;
		st->nr = (uint32_t)n;
		x->nr_ids += n + 1;      /* keep the ids: the stack refers to them */
		e->val.u = ++x->nr_stacks;
	}
	x->stacks[e->val.u - 1].count++;
	x->stacks[e->val.u - 1].period += s->period;
}

uint64_t export_nr_samples(const struct pk_export *x)
{
	return x->nr_samples;
}

uint64_t export_total_period(const struct pk_export *x)
{
	return x->total_period;
}
