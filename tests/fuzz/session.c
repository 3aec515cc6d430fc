/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session.c — fuzz the session layer on top of the perf.data reader
 * (session/session.h): threads, maps, symbol lookup and callchains of
 * every sample, with and without a stack limit.
 */
#include "fuzz.h"
#include "memfile.h"

#include "base/error.h"
#include "session/session.h"

#include <stdbool.h>
#include <string.h>

static volatile size_t sink;

static int on_sample(const struct pk_sample *s, void *arg)
{
	size_t acc = s->period + s->nr_frames;
	if (s->comm)
		acc += strlen(s->comm);
	if (s->event)
		acc += strlen(s->event);
	for (size_t i = 0; i < s->nr_frames; i++) {
		if (s->frames[i].sym)
			acc += strlen(s->frames[i].sym);
		if (s->frames[i].dso)
			acc += strlen(s->frames[i].dso);
	}
	sink += acc;
	return 0;
}

/* script's --show-task-events and --show-mmap-events: every side-band
 * record's fields read */
static int on_side(const struct pk_side_event *e, void *arg)
{
	size_t acc = e->pid + e->tid + e->ppid + e->ptid + e->s_tid + e->cpu + (size_t)e->time + e->rec->size;

	if (e->name)
		acc += strlen(e->name);
	if (e->comm)
		acc += strlen(e->comm);
	if (e->evsel)
		acc += (size_t)e->evsel->attr.sample_type;
	sink += acc;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct session_opts opts = { 0 };
	struct session *s;
	bool side = size && (data[size - 1] & 16);
	/* the last byte picks the options, as the commands would */
	if (size) {
		opts.no_callchain = data[size - 1] & 1;
		opts.max_stack = (data[size - 1] >> 1) & 7;
	}
	if (session_open(&s, fuzz_memfile(data, size), &opts) == 0) {
		if (side)
			session_set_side_fn(s, ~0u, on_side, NULL);
		session_process(s, on_sample, NULL);
		sink += session_stats(s)->nr_samples;
		session_close(s);
	}
	pk_warnings_take();
	pk_error_clear();
	return 0;
}
