/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model.c — the export model of export.h and model.h: interned frames and
 * merged stacks per event (speedscope), and locations with their DWARF
 * inline chains and line numbers (pprof), shared by the writers.
 */
#include "export/model.h"

#include "symbol/buildid.h"
#include "symbol/inline.h"
#include "symbol/symbol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pk_export *export_new(void)
{
	struct pk_export *x = xcalloc(1, sizeof(*x));

	hm_init(&x->strings);
	hm_init(&x->frame_map);
	hm_init(&x->stack_map);
	hm_init(&x->loc_map);
	hm_init(&x->func_map);
	hm_init(&x->lstack_map);
	hm_init(&x->bids);
	hm_init(&x->dso_ok);
	hm_init(&x->label_map);
	sb_init(&x->key, 256);
	sb_init(&x->tmp, 256);
	return x;
}

struct pk_export *export_new_file(const struct pd_file *f)
{
	struct pk_export *x = export_new();

	for (size_t i = 0; f && i < f->nr_build_ids; i++) {
		const struct pd_build_id *b = &f->build_ids[i];
		struct ex_bid *v;
		struct hm_entry *e;
		int created;

		if (!b->filename || b->size < 2)
			continue;
		e = hm_upsert(&x->bids, b->filename, strlen(b->filename), &created);
		if (!created)
			continue;
		v = xcalloc(1, sizeof(*v));
		v->size = b->size < sizeof(v->data) ? b->size : sizeof(v->data);
		memcpy(v->data, b->data, v->size);
		e->val.ptr = v;
	}
	return x;
}

void export_free(struct pk_export *x)
{
	if (!x)
		return;
	hm_release(&x->strings);
	hm_release(&x->frame_map);
	hm_release(&x->stack_map);
	hm_release(&x->loc_map);
	hm_release(&x->func_map);
	hm_release(&x->lstack_map);
	for (size_t i = 0; i < x->bids.nr; i++)
		free(x->bids.entries[i].val.ptr);
	hm_release(&x->bids);
	hm_release(&x->dso_ok);
	hm_release(&x->label_map);
	free(x->labels);
	inline_resolver_free(x->inl);
	sb_release(&x->key);
	sb_release(&x->tmp);
	free(x->frames);
	free(x->stacks);
	free(x->events);
	free(x->ids);
	free(x->locs);
	free(x->funcs);
	free(x->lines);
	free(x->lstacks);
	free(x->lids);
	free(x);
}

/* make room for one more element in a growable array */
#define GROW(arr, nr, alloc, first)                                           \
	do {                                                                  \
		if ((nr) == (alloc)) {                                        \
			(alloc) = (alloc) ? (alloc) * 2 : (first);            \
			(arr) = xrealloc((arr), (alloc) * sizeof(*(arr)));    \
		}                                                             \
	} while (0)

static const char *intern(struct pk_export *x, const char *s, size_t len)
{
	return hm_intern(&x->strings, s, len);
}

uint32_t ex_event_idx(struct pk_export *x, const char *name)
{
	const char *n = intern(x, name, strlen(name));

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
	struct hm_entry *e;
	int created;

	sb_reset(&x->key);
	sb_addstr(&x->key, name);
	sb_addch(&x->key, '\0');
	sb_addstr(&x->key, dso);
	e = hm_upsert(&x->frame_map, x->key.buf, x->key.len, &created);
	if (created) {
		struct ex_frame *f;

		GROW(x->frames, x->nr_frames, x->alloc_frames, 256);
		f = &x->frames[x->nr_frames];
		f->name = intern(x, name, strlen(name));
		f->dso = intern(x, dso, strlen(dso));
		f->addr = fr->ip;
		e->val.u = ++x->nr_frames;
	}
	return (uint32_t)(e->val.u - 1);
}

/* The stack ids[start .. start+n] (event first; with a label, the label
 * index + 1 after the frames, room reserved by the caller) as a merged
 * stack of map, stacks and *nr_ids: a new stack keeps its ids, a known one
 * gets the counts. */
static void stack_add(struct hashmap *map, struct ex_stack **stacks, size_t *nr, size_t *alloc,
		      uint32_t *ids, size_t *nr_ids, size_t start, size_t n, uint64_t period,
		      uint64_t count, uint32_t label)
{
	int created;
	size_t keyn = n + 1 + (label != 0);
	struct hm_entry *e;

	if (label)
		ids[start + 1 + n] = label;
	e = hm_upsert(map, ids + start, keyn * sizeof(*ids), &created);

	if (created) {
		struct ex_stack *st;

		GROW(*stacks, *nr, *alloc, 1024);
		st = &(*stacks)[*nr];
		memset(st, 0, sizeof(*st));
		st->event = ids[start];
		st->label = label;
		st->first = start + 1;
		st->nr = (uint32_t)n;
		*nr_ids += keyn;       /* keep the ids: the stack refers to them */
		e->val.u = ++*nr;
	}
	(*stacks)[e->val.u - 1].count += count;
	(*stacks)[e->val.u - 1].period += period;
}

static uint32_t func_idx(struct pk_export *x, const char *name, const char *file)
{
	struct ex_func key = { name, file };   /* interned pointers */
	int created;
	struct hm_entry *e = hm_upsert(&x->func_map, &key, sizeof(key), &created);

	if (created) {
		GROW(x->funcs, x->nr_funcs, x->alloc_funcs, 256);
		x->funcs[x->nr_funcs] = key;
		e->val.u = ++x->nr_funcs;
	}
	return (uint32_t)(e->val.u - 1);
}

static void line_add(struct pk_export *x, const char *name, const char *file, int64_t line)
{
	GROW(x->lines, x->nr_lines, x->alloc_lines, 512);
	x->lines[x->nr_lines].func = func_idx(x, name, file);
	x->lines[x->nr_lines].line = line;
	x->nr_lines++;
}

/* lines from the DWARF chain v[0..n) (outermost first, symbol/inline.h):
 * innermost first; the outermost is the real function, named as the
 * session names it (real).  Each file as its basename, as the text of
 * inline_frame_text; false when one is unknown. */
static bool lines_from_dwarf(struct pk_export *x, const char *real, const struct inline_frame *v, int n)
{
	if (n <= 0)
		return false;
	for (int i = n; i-- > 0;) {
		const char *file = v[i].file ? strrchr(v[i].file, '/') : NULL;
		const char *name = v[i].name ? v[i].name : "??";

		file = file ? file + 1 : v[i].file;
		if (!file || v[i].line < 0)
			return false;
		line_add(x, i ? intern(x, name, strlen(name)) : real, intern(x, file, strlen(file)), v[i].line);
	}
	return true;
}

/* The location of the real frame fr, after the nrun inlined frames run[]
 * the session put before it; caller: fr's ip is a return address.  Its
 * lines are the frames' names at line 0, DWARF's come in ex_resolve_lines. */
static uint32_t loc_idx(struct pk_export *x, const struct pk_frame *run, size_t nrun,
			const struct pk_frame *fr, uint32_t fidx, bool caller)
{
	struct {
		uint32_t frame, caller;
		uint64_t addr;
	} key = { fidx, caller, fr->addr ? fr->addr : fr->ip };
	int created;
	struct hm_entry *e = hm_upsert(&x->loc_map, &key, sizeof(key), &created);
	const struct ex_frame *f = &x->frames[fidx];
	struct ex_loc *l;

	if (!created)
		return (uint32_t)(e->val.u - 1);
	GROW(x->locs, x->nr_locs, x->alloc_locs, 256);
	e->val.u = x->nr_locs + 1;
	l = &x->locs[x->nr_locs++];
	memset(l, 0, sizeof(*l));
	l->dso = f->dso;
	l->ip = fr->ip;
	l->frame = fidx;
	/* DWARF for user code with symbols; a caller's ip is a return address:
	 * the call is the byte before (as the session's inline expansion does) */
	if (!fr->kernel && fr->sym && fr->addr && f->dso[0] == '/')
		l->addr = fr->addr - caller;
	l->first_line = (uint32_t)x->nr_lines;
	for (size_t i = 0; i < nrun; i++) {
		const char *n = run[i].sym ? run[i].sym : "[unknown]";

		line_add(x, intern(x, n, strlen(n)), f->dso, 0);
	}
	line_add(x, f->name, f->dso, 0);
	l->nr_lines = (uint32_t)(x->nr_lines - l->first_line);
	return (uint32_t)(l - x->locs);
}

static bool same_bid(const char *path, const struct ex_bid *b)
{
	return bid_matches(path, b->data, b->size);
}

/* The file whose DWARF describes the code recorded in dso: dso itself when
 * no build-id was recorded for it or its build-id is that one, else a copy
 * by build-id (~/.debug/.build-id/xx/rest/elf or …/rest, as the session
 * finds symbols, or /usr/lib/debug/.build-id/xx/rest.debug); NULL: none
 * (a rebuilt binary gets no lines).  Decided once per DSO. */
static const char *dwarf_file(struct pk_export *x, const char *dso)
{
	int created;
	struct hm_entry *e = hm_upsert(&x->dso_ok, &dso, sizeof(dso), &created);
	const struct hm_entry *be;
	const struct ex_bid *b;
	const char *res = dso;

	if (!created)
		return e->val.ptr;
	be = hm_find(&x->bids, dso, strlen(dso));
	b = be ? be->val.ptr : NULL;
	if (b && !same_bid(dso, b))
		res = bid_find(b->data, b->size, &x->key) == 0 ? intern(x, x->key.buf, x->key.len) : NULL;
	/* e is still valid: nothing was added to dso_ok since */
	e->val.ptr = (void *)res;
	return res;
}

void ex_resolve_lines(struct pk_export *x)
{
	for (; x->nr_resolved < x->nr_locs; x->nr_resolved++) {
		struct ex_loc *l = &x->locs[x->nr_resolved];
		size_t first = x->nr_lines;
		const char *file = l->addr ? dwarf_file(x, l->dso) : NULL;

		if (!file)
			continue;
		if (!x->inl) {
			x->inl = inline_resolver_new();
			inline_resolver_set_mark(x->inl, false);
		}
		const struct inline_frame *v = NULL;
		int n = inline_chain(x->inl, file, l->addr, NULL, 0, 0, &v);

		if (lines_from_dwarf(x, x->frames[l->frame].name, v, n)) {
			/* the placeholder lines stay behind, unreferenced */
			l->first_line = (uint32_t)first;
			l->nr_lines = (uint32_t)(x->nr_lines - first);
			l->dwarf = true;
		} else {
			x->nr_lines = first;
		}
	}
}

static void reserve_ids(uint32_t **ids, size_t nr, size_t *alloc, size_t more)
{
	if (nr + more > *alloc) {
		while (nr + more > *alloc)
			*alloc = *alloc ? *alloc * 2 : 4096;
		*ids = xrealloc(*ids, *alloc * sizeof(**ids));
	}
}

/* The (pid, comm) label set of a sample: index in labels[] + 1. */
uint32_t ex_label_idx(struct pk_export *x, uint32_t pid, const char *comm)
{
	struct ex_label key;
	int created;

	memset(&key, 0, sizeof(key));   /* the padding is hashed too */
	key.pid = pid;
	key.comm = intern(x, comm, strlen(comm));
	struct hm_entry *e = hm_upsert(&x->label_map, &key, sizeof(key), &created);

	if (created) {
		GROW(x->labels, x->nr_labels, x->alloc_labels, 64);
		x->labels[x->nr_labels] = key;
		e->val.u = ++x->nr_labels;
	}
	return (uint32_t)e->val.u;
}

void export_add(struct pk_export *x, const struct pk_sample *s)
{
	export_add_n(x, s, 1);
}

void export_add_n(struct pk_export *x, const struct pk_sample *s, uint64_t count)
{
	uint32_t ev = ex_event_idx(x, s->event ? s->event : "samples");
	uint32_t label = x->host ? ex_label_idx(x, s->pid, s->comm ? s->comm : "") : 0;

	if (s->time && (!x->t_min || s->time < x->t_min))
		x->t_min = s->time;
	if (s->time > x->t_max)
		x->t_max = s->time;
	ex_add_stack(x, ev, s->frames, s->nr_frames, count, s->period, label);
}

void ex_add_stack(struct pk_export *x, uint32_t ev, const struct pk_frame *frames, size_t n,
		  uint64_t count, uint64_t period, uint32_t label)
{
	size_t start, lstart, m = 0, run = 0;
	bool have_prev = false, prev_kernel = false;

	x->nr_samples += count;
	x->total_period += period;
	x->events[ev].nr_samples += count;
	x->events[ev].period += period;

	/* frames: the key is the event, then the frame indexes leaf first
	 * (then the label, with export_set_labels) */
	start = x->nr_ids;
	reserve_ids(&x->ids, x->nr_ids, &x->alloc_ids, n + 2);
	x->ids[start] = ev;
	for (size_t i = 0; i < n; i++)
		x->ids[start + 1 + i] = frame_idx(x, &frames[i]);

	/* locations: inlined frames fold into the real frame after them */
	lstart = x->nr_lids;
	reserve_ids(&x->lids, x->nr_lids, &x->alloc_lids, n + 2);
	x->lids[lstart] = ev;
	for (size_t i = 0; i < n; i++) {
		const struct pk_frame *fr = &frames[i];
		bool caller;

		if (fr->inlined && i + 1 < n)
			continue;
		caller = have_prev && prev_kernel == fr->kernel;
		x->lids[lstart + 1 + m++] = loc_idx(x, frames + run, i - run, fr,
						    x->ids[start + 1 + i], caller);
		run = i + 1;
		have_prev = true;
		prev_kernel = fr->kernel;
	}

	stack_add(&x->stack_map, &x->stacks, &x->nr_stacks, &x->alloc_stacks, x->ids, &x->nr_ids,
		  start, n, period, count, label);
	stack_add(&x->lstack_map, &x->lstacks, &x->nr_lstacks, &x->alloc_lstacks, x->lids,
		  &x->nr_lids, lstart, m, period, count, label);
}

void export_set_time(struct pk_export *x, int64_t start_unix_ns, int64_t duration_ns)
{
	x->time_nanos = start_unix_ns;
	x->duration_nanos = duration_ns;
}

void export_set_labels(struct pk_export *x, const char *host)
{
	x->host = intern(x, host ? host : "", host ? strlen(host) : 0);
}

void export_set_build_id(struct pk_export *x, const char *path, const uint8_t *id, size_t size)
{
	struct hm_entry *e;
	struct ex_bid *v;
	int created;

	if (!path || size < 2)
		return;
	e = hm_upsert(&x->bids, path, strlen(path), &created);
	if (!created)
		return;
	v = xcalloc(1, sizeof(*v));
	v->size = size < sizeof(v->data) ? (uint8_t)size : sizeof(v->data);
	memcpy(v->data, id, v->size);
	e->val.ptr = v;
}

uint64_t export_nr_samples(const struct pk_export *x)
{
	return x->nr_samples;
}

uint64_t export_total_period(const struct pk_export *x)
{
	return x->total_period;
}
