/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * feed.c — export_feed (export.h): a perf.data session's samples go into
 * the aggregation model (profile/profile.h), one model per event, and the
 * export model is made from the models' stacks, each distinct stack once.
 *
 * Order: the export model numbers frames, locations, functions and merged
 * stacks as it first meets them, so the stacks are added in the order of
 * their first sample (a sequence number kept per node where a stack ends:
 * the trie's node order is not that order, as a stack ending at a caller
 * of an earlier stack has a lower node).  Added in that order, every
 * frame, location and stack gets the index, the first address and the
 * inline run export_add() would have given it sample by sample.
 *
 * Frames are the model's per-address ones (PROF_BY_IP: a pprof location
 * is a code address); every sample goes to one thread ("", 0, 0): the
 * export merges stacks across threads (with export_feed_set_labels, one
 * thread per (comm, pid): the labels of the stacks).  A model frame stands for the
 * samples of one (DSO, symbol, ip); should two of them have different ELF
 * addresses (the same DSO mapped at the same address with another file
 * offset in two processes) the first one's is taken.
 */
#include "export/model.h"
#include "profile/profile.h"

#include <stdlib.h>
#include <string.h>

#define SEQ_NONE UINT64_MAX

struct feed_event {
	const char *name;          /* the session's pointer */
	struct prof *p;
	uint64_t *seq;             /* per node: the first sample ending there */
	size_t nseq;
};

struct export_feed {
	bool labels;               /* export_feed_set_labels: threads by (comm, pid) */
	struct hashmap comms;      /* their names, interned */
	struct feed_event *ev;
	size_t nev;
	uint64_t nr;               /* samples so far: the next sequence number */
	uint64_t t_min, t_max;
};

struct export_feed *export_feed_new(void)
{
	struct export_feed *f = xcalloc(1, sizeof(*f));

	hm_init(&f->comms);
	return f;
}

void export_feed_set_labels(struct export_feed *f)
{
	f->labels = true;
}

void export_feed_free(struct export_feed *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nev; i++) {
		prof_free(f->ev[i].p);
		free(f->ev[i].seq);
	}
	free(f->ev);
	hm_release(&f->comms);
	free(f);
}

static struct feed_event *feed_event(struct export_feed *f, const char *name)
{
	for (size_t i = 0; i < f->nev; i++)
		if (f->ev[i].name == name || !strcmp(f->ev[i].name, name))
			return &f->ev[i];
	f->ev = xrealloc(f->ev, (f->nev + 1) * sizeof(*f->ev));
	f->ev[f->nev] = (struct feed_event){ name, prof_new(PROF_BY_IP), NULL, 0 };
	return &f->ev[f->nev++];
}

void export_feed_add(struct export_feed *f, const struct pk_sample *s)
{
	export_feed_add_n(f, s, 1);
}

void export_feed_add_n(struct export_feed *f, const struct pk_sample *s, uint64_t count)
{
	struct feed_event *e = feed_event(f, s->event ? s->event : "samples");
	uint64_t seq = f->nr++;
	uint32_t node;

	if (s->time && (!f->t_min || s->time < f->t_min))
		f->t_min = s->time;
	if (s->time > f->t_max)
		f->t_max = s->time;
	if (!s->nr_frames)   /* the session gives every sample a frame */
		return;
	if (f->labels) {
		const char *comm = s->comm ? s->comm : "";

		comm = hm_intern(&f->comms, comm, strlen(comm));
		node = prof_add_n(e->p, comm, s->pid, 0, s->frames, s->nr_frames, count, s->period);
	} else {
		node = prof_add_n(e->p, "", 0, 0, s->frames, s->nr_frames, count, s->period);
	}
	if (node >= e->nseq) {
		size_t n = e->nseq ? e->nseq : 1024;

		while (n <= node)
			n *= 2;
		e->seq = xrealloc(e->seq, n * sizeof(*e->seq));
		for (size_t i = e->nseq; i < n; i++)
			e->seq[i] = SEQ_NONE;
		e->nseq = n;
	}
	if (e->seq[node] == SEQ_NONE)
		e->seq[node] = seq;
}

struct feed_stack {
	uint64_t seq;
	uint32_t ev, node;
};

static int cmp_seq(const void *a, const void *b)
{
	uint64_t x = ((const struct feed_stack *)a)->seq, y = ((const struct feed_stack *)b)->seq;

	return x < y ? -1 : x > y;
}

void export_add_feed(struct pk_export *x, struct export_feed *f)
{
	struct feed_stack *st = NULL;
	size_t nst = 0, ast = 0, afr = 0;
	struct pk_frame *fr = NULL;
	uint32_t *evidx = xcalloc(f->nev + 1, sizeof(*evidx));

	/* the stacks of every model: where samples end */
	for (size_t i = 0; i < f->nev; i++) {
		struct feed_event *e = &f->ev[i];
		size_t nr = prof_nr_nodes(e->p);

		prof_compact(e->p);   /* the lookup tables: not needed from here */
		for (size_t k = 1; k < nr; k++) {
			if (k >= e->nseq || e->seq[k] == SEQ_NONE)
				continue;   /* no sample ends here (count 0 samples do) */
			if (nst == ast) {
				ast = ast ? ast * 2 : 4096;
				st = xrealloc(st, ast * sizeof(*st));
			}
			st[nst++] = (struct feed_stack){ e->seq[k], (uint32_t)i, (uint32_t)k };
		}
		free(e->seq);
		e->seq = NULL;
		e->nseq = 0;
	}
	if (nst)
		qsort(st, nst, sizeof(*st), cmp_seq);
	/* events in the order of their first sample, as export_add() meets them */
	for (size_t i = 0; i < nst; i++)
		if (!evidx[st[i].ev])
			evidx[st[i].ev] = ex_event_idx(x, f->ev[st[i].ev].name) + 1;
	for (size_t i = 0; i < nst; i++) {
		const struct prof *p = f->ev[st[i].ev].p;
		const struct prof_node *nodes = prof_nodes(p);
		size_t n = 0;
		uint32_t v = st[i].node, label = 0;

		/* leaf first: up from the end to the thread's node */
		for (; !(nodes[v].frame & PROF_THREAD); v = nodes[v].parent) {
			if (n == afr) {
				afr = afr ? afr * 2 : 256;
				fr = xrealloc(fr, afr * sizeof(*fr));
			}
			fr[n++] = *prof_frame(p, nodes[v].frame);
		}
		if (x->host) {   /* as export_add_n(): labels only with export_set_labels */
			const struct prof_thread *t = prof_thread(p, nodes[v].frame & ~PROF_THREAD);

			label = ex_label_idx(x, t->pid, t->comm);
		}
		ex_add_stack(x, evidx[st[i].ev] - 1, fr, n, nodes[st[i].node].count,
			     nodes[st[i].node].period, label);
	}
	if (f->t_min && (!x->t_min || f->t_min < x->t_min))
		x->t_min = f->t_min;
	if (f->t_max > x->t_max)
		x->t_max = f->t_max;
	free(fr);
	free(st);
	free(evidx);
}
