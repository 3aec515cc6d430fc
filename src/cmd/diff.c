/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit diff — perf diff's table for two perf.data files: per event,
 * rows keyed by shared object and symbol with the baseline's share of the
 * old file's total period ("Baseline") and the change of that share in the
 * new file ("Delta Abs", new % − old %, perf diff's default -c delta-abs).
 *
 * Matching: an event of OLD is compared with the event of the same name in
 * NEW; rows are matched by (DSO base name, kernel/user, symbol name), or by
 * address for unknown symbols.  Self periods only (perf diff does not
 * count children).  A row seen in both files always shows its delta,
 * "+0.00%" (or "-0.00%" when the floating-point difference of equal shares
 * is a hair below zero) included, computed as perf's compute_delta does it.
 *
 * Rows of one side only — a difference from perf diff, which leaves their
 * missing side blank and lists the rows only in OLD last, below every
 * change however small: a symbol only in NEW reads "new" as its baseline
 * and its whole share as its delta; a symbol only in OLD (gone) reads
 * "gone" as its delta and sorts by the share it lost.  Ordering: by
 * |delta| (a gone row's baseline share), then baseline share, then name.
 */
#include "cmd/cmds.h"

#include "base/error.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "session/session.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct drow {
	const char *dso, *sym;   /* interned in the diff's string table */
	uint64_t period[2];      /* self period in OLD, NEW */
	bool seen[2];
	double pct[2], delta;
};

struct devent {
	const char *name;        /* interned */
	struct hashmap rows;     /* key → row index + 1 */
	struct drow *r;
	size_t nr, alloc;
	uint64_t total[2];
	bool seen[2];
};

struct diff {
	struct hashmap strings;
	struct devent *ev;
	size_t nr_ev;
	int side;                /* 0: OLD, 1: NEW while reading */
};

static const char *dso_short(const char *dso)
{
	const char *slash = dso[0] == '/' ? strrchr(dso, '/') : NULL;

	return slash ? slash + 1 : dso;
}

/* Events are matched by perf's name without its modifiers, so a file
 * from `perf record` ("cpu-clock:ppp") compares with one from perfkit
 * ("cpu-clock"). */
static struct devent *event_get(struct diff *d, const char *name)
{
	const char *n = hm_intern(&d->strings, name, strcspn(name, ":"));

	for (size_t i = 0; i < d->nr_ev; i++)
		if (d->ev[i].name == n)
			return &d->ev[i];
	d->ev = xrealloc(d->ev, (d->nr_ev + 1) * sizeof(*d->ev));
	memset(&d->ev[d->nr_ev], 0, sizeof(*d->ev));
	d->ev[d->nr_ev].name = n;
	hm_init(&d->ev[d->nr_ev].rows);
	return &d->ev[d->nr_ev++];
}

static int on_sample(const struct pk_sample *s, void *arg)
{
	struct diff *d = arg;
	struct devent *ev = event_get(d, s->event);
	const struct pk_frame *fr;
	struct strbuf key = STRBUF_INIT;
	char sym[64];
	const char *symname;
	struct hm_entry *e;
	int created;
	struct drow *r;

	ev->seen[d->side] = true;
	ev->total[d->side] += s->period;
	if (!s->nr_frames)
		return 0;
	fr = &s->frames[0];
	if (fr->sym) {
		symname = fr->sym;
	} else {
		snprintf(sym, sizeof(sym), "%#.16" PRIx64, fr->sym_off);
		symname = sym;
	}
	sb_init(&key, 128);
	sb_addstr(&key, dso_short(fr->dso));
	sb_addch(&key, '\0');
	sb_addch(&key, fr->kernel ? 'k' : '.');
	sb_addstr(&key, symname);
	e = hm_upsert(&ev->rows, key.buf, key.len, &created);
	if (created) {
		if (ev->nr == ev->alloc) {
			ev->alloc = ev->alloc ? ev->alloc * 2 : 256;
			ev->r = xrealloc(ev->r, ev->alloc * sizeof(*ev->r));
		}
		r = &ev->r[ev->nr];
		memset(r, 0, sizeof(*r));
		r->dso = hm_intern(&d->strings, key.buf, strlen(key.buf));
		r->sym = hm_intern(&d->strings, key.buf + strlen(key.buf) + 1,
				   key.len - strlen(key.buf) - 1);
		e->val.u = ++ev->nr;
	}
	sb_release(&key);
	r = &ev->r[e->val.u - 1];
	r->period[d->side] += s->period;
	r->seen[d->side] = true;
	return 0;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct drow *x = a, *y = b;
	/* a gone row (OLD only) lost its whole share */
	double kx = x->seen[1] ? fabs(x->delta) : x->pct[0];
	double ky = y->seen[1] ? fabs(y->delta) : y->pct[0];

	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (x->pct[0] != y->pct[0])
		return x->pct[0] > y->pct[0] ? -1 : 1;
	return strcmp(x->sym + 1, y->sym + 1);
}

static void print_event(struct devent *ev)
{
	int w = (int)strlen("Shared Object");
	char delta[32], base[32];

	for (size_t i = 0; i < ev->nr; i++) {
		struct drow *r = &ev->r[i];

		for (int k = 0; k < 2; k++)
			r->pct[k] = ev->total[k] ? ((double)r->period[k] * 100.0) / (double)ev->total[k] : 0;
		r->delta = r->pct[1] - r->pct[0];
		if ((int)strlen(r->dso) > w)
			w = (int)strlen(r->dso);
	}
	qsort(ev->r, ev->nr, sizeof(*ev->r), cmp_rows);
	printf("# Event '%s'\n#\n", ev->name);
	printf("# Baseline  Delta Abs  %-*s  Symbol\n", w, "Shared Object");
	printf("# ........  .........  ");
	for (int i = 0; i < w; i++)
		putchar('.');
	printf("  ......\n#\n");
	for (size_t i = 0; i < ev->nr; i++) {
		const struct drow *r = &ev->r[i];

		snprintf(base, sizeof(base), "new");
		snprintf(delta, sizeof(delta), "gone");
		if (r->seen[0])
			snprintf(base, sizeof(base), "%.2f%%", r->pct[0]);
		if (r->seen[1])
			snprintf(delta, sizeof(delta), "%+.2f%%", r->delta);
		struct strbuf edso = STRBUF_INIT;
		sb_add_term(&edso, r->dso, strlen(r->dso));
		printf("%10s  %9s  %-*s  [%c] ", base, delta, w, edso.buf, r->sym[0]);
		sb_release(&edso);
		fputs_term(r->sym + 1, stdout);   /* escaped: one row, one line */
		putchar('\n');
	}
	printf("\n");
}

static void print_warnings(void)
{
	pk_warnings_print(stderr, "perfkit diff");
}

static void usage(FILE *fp)
{
	fprintf(fp, "usage: perfkit diff [OLD.data [NEW.data]]\n"
		    "  Compare two perf.data files by shared object and symbol, like perf diff:\n"
		    "  Baseline = the symbol's share of OLD's samples, Delta Abs = NEW %% - OLD %%.\n"
		    "  Defaults: perf.data.old and perf.data.\n");
}

int cmd_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "stdio", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *files[2] = { "perf.data.old", "perf.data" };
	struct diff d = { 0 };
	int c, ret = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'S': break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (argc - optind > 2) {
		fprintf(stderr, "perfkit diff: unexpected argument '%s'\n", argv[optind + 2]);
		usage(stderr);
		return 2;
	}
	if (argc - optind == 1)
		files[0] = argv[optind];
	else if (argc - optind == 2) {
		files[0] = argv[optind];
		files[1] = argv[optind + 1];
	}
	hm_init(&d.strings);
	for (d.side = 0; d.side < 2; d.side++) {
		struct session *s;
		int err;

		pk_error_clear();
		err = session_open(&s, files[d.side], NULL);
		if (!err) {
			err = session_process(s, on_sample, &d);
			session_close(s);
		}
		print_warnings();
		if (err < 0) {
			fprintf(stderr, "perfkit diff: %s\n", pk_errmsg());
			ret = 1;
			goto out;
		}
	}
	for (size_t i = 0; i < d.nr_ev; i++) {
		if (d.ev[i].seen[0])
			print_event(&d.ev[i]);
		else
			fprintf(stderr, "perfkit diff: warning: event '%s' has no samples in '%s', only in '%s'\n",
				d.ev[i].name, files[0], files[1]);
	}
	if (!d.nr_ev)
		fprintf(stderr, "perfkit diff: warning: neither '%s' nor '%s' has samples\n", files[0], files[1]);
out:
	for (size_t i = 0; i < d.nr_ev; i++) {
		hm_release(&d.ev[i].rows);
		free(d.ev[i].r);
	}
	free(d.ev);
	hm_release(&d.strings);
	return ret;
}
