/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flat.c — rows counted straight from the samples (see flat.h).
 *
 * Storage: a row's key and sums in one 64-byte record (what every frame
 * of every sample touches), its first thread and frame in arrays apart
 * (written once); rows found through an open-addressing table of ids
 * (linear probing, at most 70 % full) whose slots keep 32 bits of the
 * key's hash.  A sample's frames are hashed first and their slots
 * prefetched, then looked up outermost first (the rows' order).  A
 * row's stamp (the number of the last sample that gave it Children)
 * counts a recurring row once per sample.
 */
#include "profile/flat.h"

#include "base/hashmap.h"
#include "base/strbuf.h"
#include "profile/idtab.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct frow {
	const void *dso, *sym;        /* masked key (flat.h) */
	uint64_t a;
	uint32_t tpart, flags;
	uint64_t self, children;
	uint32_t nr_self, stamp;
	uint64_t self_sys;            /* prof_row's */
};

_Static_assert(sizeof(struct frow) == 64, "a row's record is one cache line");

/* A row's first frame, what a row shows of it (flat.h): 32 bytes, not
 * struct pk_frame's 56 (a compile job's 530 k rows: 13 MB less of fresh
 * pages, each zeroed by the kernel). */
struct fframe {
	uint64_t ip, sym_off;         /* any 64 bits (an unknown frame's) */
	const char *sym, *dso;        /* kernel: a bit of prof_flat.kernel */
};

struct fkey {
	const void *dso, *sym;
	uint64_t a, h;
	uint32_t flags;
};

#define TCACHE_SLOTS 64
struct tslot {
	const char *comm, *tag;
	uint32_t pid, tid, cpu, tpart; /* tpart + 1, 0: empty */
};

/* A thread's previous sample: its frames' keys and rows, the outermost
 * first (the next sample of the thread often shares its outer callers). */
#define PREV_SLOTS 1024
struct prev {
	uint32_t tid, tpart;
	size_t n, alloc;              /* n 0: none */
	struct fkey *k;
	uint32_t *row;
};

struct arr {
	void *p;
	size_t size;
	bool mapped;
};

struct prof_flat {
	bool want[PROF_KEY_MAX], children;
	bool want_sys;                /* prof_flat_want_sys() */
	struct frow *rows;
	struct fframe *frames;        /* per row: the first frame met */
	uint64_t *kernel;             /* per row, a bit: that frame's kernel */
	struct prof_thread *threads;  /* per row: the first thread (pid and tid
					 keys), else NULL: tthreads */
	struct prof_thread *tthreads; /* per thread part: its first thread */
	size_t nr_tthreads, alloc_tthreads;
	size_t nr, alloc;
	struct arr rows_a, frames_a, threads_a;   /* rows, frames, threads */
	uint64_t *slots;              /* hash high 32 | row + 1 */
	bool slots_mapped;            /* zalloc's */
	size_t mask;
	struct idtab tparts;          /* (comm, tid) masked -> thread part */
	struct tslot tcache[TCACHE_SLOTS];
	uint32_t seq;                 /* the sample's number (stamps) */
	struct fkey *keys;            /* the sample's frames' keys */
	size_t keys_alloc;
	struct prev *prev;            /* by tid, direct-mapped */
	bool renamed;                 /* a thread part's comm renamed
					 (prof_flat_rename_comms) */
};

#define HUGE_PAGE ((size_t)2 << 20)

/* A zeroed mapping of size bytes at a multiple of 2 MiB, or NULL: each
 * whole 2 MiB of it can be a huge page (a mapping at any address has its
 * first and last 2 MiB in 4 KiB pages, 512 faults each). */
static void *map_aligned(size_t size)
{
	char *r = mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (r == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)r + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	if (a > r)
		munmap(r, (size_t)(a - r));
	if (r + size + HUGE_PAGE > a + size)
		munmap(a + size, (size_t)(r + size + HUGE_PAGE - (a + size)));
	return a;
}

/* A zeroed array; from 2 MiB in huge pages (its reads are random: fewer
 * TLB misses, and 2 MiB a fault).  *mapped: whether zfree unmaps it (a
 * failed mapping falls back to the heap). */
static void *zalloc(size_t size, bool *mapped)
{
	void *v;

	*mapped = false;
	if (size < HUGE_PAGE || !(v = map_aligned(size)))
		return xcalloc(1, size);
	(void)madvise(v, size, MADV_HUGEPAGE);
	*mapped = true;
	return v;
}

static void zfree(void *v, size_t size, bool mapped)
{
	if (mapped)
		munmap(v, size);
	else
		free(v);
}

/* A per-row array grown in its own mapping: mremap moves its pages and
 * copies nothing (realloc copied each doubling below glibc's mmap
 * threshold); the heap where mapping fails. */
static void arr_grow(struct arr *a, size_t size)
{
	size = (size + 4095) & ~(size_t)4095;
	if (a->mapped || !a->p) {
		/* grown where it is, else moved to a place at a multiple of
		 * 2 MiB (map_aligned) */
		void *v = MAP_FAILED;

		if (!a->p) {
			void *m = map_aligned(size);

			if (m)
				v = m;
		} else if ((v = mremap(a->p, a->size, size, 0)) == MAP_FAILED) {
			void *to = map_aligned(size);

			v = to ? mremap(a->p, a->size, size, MREMAP_MAYMOVE | MREMAP_FIXED, to)
			       : mremap(a->p, a->size, size, MREMAP_MAYMOVE);
			if (v == MAP_FAILED && to)
				munmap(to, size);
		}
		if (v != MAP_FAILED) {
			*a = (struct arr){ v, size, true };
			/* the whole mapping, not its aligned interior
			 * (xhuge): a madvise of part of it splits its VMA,
			 * and mremap cannot move a range of two (the growth
			 * fell back to a copy into 4 KiB pages) */
			(void)madvise(v, size, MADV_HUGEPAGE);   /* written once, 2 MiB a fault */
			return;
		}
		if (a->p) {
			v = xmalloc(size);
			memcpy(v, a->p, a->size);
			munmap(a->p, a->size);
			*a = (struct arr){ v, size, false };
			return;
		}
	}
	*a = (struct arr){ xrealloc(a->p, size), size, false };
}

static void arr_free(struct arr *a)
{
	if (a->mapped)
		munmap(a->p, a->size);
	else
		free(a->p);
	*a = (struct arr){ NULL, 0, false };
}

struct prof_flat *prof_flat_new(const enum prof_key *keys, int nr_keys, bool children)
{
	struct prof_flat *f = xcalloc(1, sizeof(*f));

	for (int k = 0; k < nr_keys; k++)
		f->want[keys[k]] = true;
	f->want[PROF_TID] = f->want[PROF_PID] = f->want[PROF_TID] || f->want[PROF_PID];
	f->children = children;
	f->mask = 1023;
	f->slots = zalloc((f->mask + 1) * sizeof(*f->slots), &f->slots_mapped);
	return f;
}

void prof_flat_want_sys(struct prof_flat *f)
{
	f->want_sys = true;
}

void prof_flat_free(struct prof_flat *f)
{
	if (!f)
		return;
	arr_free(&f->rows_a);
	arr_free(&f->frames_a);
	arr_free(&f->threads_a);
	free(f->kernel);
	free(f->tthreads);
	if (f->slots)
		zfree(f->slots, (f->mask + 1) * sizeof(*f->slots), f->slots_mapped);
	free(f->keys);
	for (size_t i = 0; f->prev && i < PREV_SLOTS; i++) {
		free(f->prev[i].k);
		free(f->prev[i].row);
	}
	free(f->prev);
	idtab_free(&f->tparts);
	free(f);
}

static bool key_same(const struct fkey *x, const struct fkey *y)
{
	return x->sym == y->sym && x->a == y->a && x->dso == y->dso && x->flags == y->flags;
}

static uint64_t key_hash(const struct fkey *k, uint32_t tpart)
{
	return prof_mix((uint64_t)(uintptr_t)k->sym * 0x9e3779b97f4a7c15u ^ (uint64_t)(uintptr_t)k->dso ^
			k->a * 0xff51afd7ed558ccdu ^ ((uint64_t)tpart << 32 | k->flags) * 0x94d049bb133111ebu);
}

static void key_of(const struct prof_flat *f, const struct pk_frame *fr, struct fkey *k)
{
	k->dso = f->want[PROF_DSO] ? fr->dso : NULL;
	if (f->want[PROF_SYM]) {
		k->sym = fr->sym ? (const void *)fr->sym : (const void *)fr->dso;
		k->a = fr->sym ? pk_frame_sym_start(fr) : fr->sym_off;
		k->flags = (uint32_t)(fr->sym && fr->kernel) << 1 | !fr->sym;   /* profile.c's */
	} else {
		k->sym = NULL;
		k->a = 0;
		k->flags = 0;
	}
}

/* A slot's index and tag are the hash's high 32 bits: the table grows
 * without reading a row. */
static void slots_grow(struct prof_flat *f)
{
	size_t n = (f->mask + 1) * 2;
	bool mapped;
	uint64_t *v = zalloc(n * sizeof(*v), &mapped);

	for (size_t i = 0; i <= f->mask; i++) {
		uint64_t x = f->slots[i];
		size_t s;

		if (!x)
			continue;
		for (s = (size_t)(x >> 32) & (n - 1); v[s]; s = (s + 1) & (n - 1))
			;
		v[s] = x;
	}
	zfree(f->slots, (f->mask + 1) * sizeof(*v), f->slots_mapped);
	f->slots = v;
	f->slots_mapped = mapped;
	f->mask = n - 1;
}

/* A thread's part id in tab: its fields the keys read (comm, tid, cpu,
 * trace tag), the others left out. */
static uint32_t part_intern(const struct prof_flat *f, struct idtab *tab, const struct prof_thread *t)
{
	return idtab_intern(tab, f->want[PROF_COMM] ? (uintptr_t)t->comm : 0,
			    (f->want[PROF_TID] ? t->tid : 0) | (f->want[PROF_CPU] ? (uint64_t)t->cpu << 32 : 0),
			    f->want[PROF_TRACE] ? (uintptr_t)t->tag : 0);
}

static uint32_t thread_part(struct prof_flat *f, const struct prof_thread *t)
{
	const char *comm = t->comm, *tag = t->tag;
	uint32_t pid = t->pid, tid = t->tid, cpu = t->cpu;
	struct tslot *c = &f->tcache[(tid ^ tid >> 6 ^ (uintptr_t)comm >> 4 ^ (uintptr_t)tag >> 4 ^ cpu * 31) %
				     TCACHE_SLOTS];

	if (c->tpart && c->comm == comm && c->tag == tag && c->pid == pid && c->tid == tid && c->cpu == cpu)
		return c->tpart - 1;
	*c = (struct tslot){ comm, tag, pid, tid, cpu, 0 };
	c->tpart = part_intern(f, &f->tparts, t) + 1;
	if (c->tpart > f->nr_tthreads) {   /* a new part: its first thread */
		if (f->nr_tthreads == f->alloc_tthreads) {
			f->alloc_tthreads = f->alloc_tthreads ? f->alloc_tthreads * 2 : 64;
			f->tthreads = xrealloc(f->tthreads, f->alloc_tthreads * sizeof(*f->tthreads));
		}
		f->tthreads[f->nr_tthreads++] = *t;
	}
	return c->tpart - 1;
}

static uint32_t row_of(struct prof_flat *f, const struct fkey *k, uint32_t tpart, const struct pk_frame *fr,
		       const struct prof_thread *t)
{
	size_t s;

	for (s = (size_t)(k->h >> 32) & f->mask; f->slots[s]; s = (s + 1) & f->mask) {
		uint64_t v = f->slots[s];

		if (v >> 32 == k->h >> 32) {
			const struct frow *r = &f->rows[(uint32_t)v - 1];

			if (r->sym == k->sym && r->a == k->a && r->dso == k->dso && r->tpart == tpart &&
			    r->flags == k->flags)
				return (uint32_t)v - 1;
		}
	}
	if (f->nr == f->alloc) {
		f->alloc = f->alloc ? f->alloc * 2 : 1024;
		arr_grow(&f->rows_a, f->alloc * sizeof(*f->rows));
		arr_grow(&f->frames_a, f->alloc * sizeof(*f->frames));
		if (f->want[PROF_TID])
			arr_grow(&f->threads_a, f->alloc * sizeof(*f->threads));
		f->rows = f->rows_a.p;
		f->frames = f->frames_a.p;
		f->kernel = xrealloc(f->kernel, f->alloc / 64 * sizeof(*f->kernel));
		f->threads = f->threads_a.p;
	}
	f->rows[f->nr] = (struct frow){ .dso = k->dso, .sym = k->sym, .a = k->a, .tpart = tpart, .flags = k->flags };
	f->frames[f->nr] = (struct fframe){ fr->ip, fr->sym_off, fr->sym, fr->dso };
	if (f->nr % 64 == 0)
		f->kernel[f->nr / 64] = 0;
	f->kernel[f->nr / 64] |= (uint64_t)fr->kernel << (f->nr % 64);
	if (f->threads)
		f->threads[f->nr] = *t;
	f->slots[s] = (k->h >> 32 << 32) | (f->nr + 1);
	f->nr++;
	if ((f->nr + 1) * 10 > (f->mask + 1) * 7)
		slots_grow(f);
	return (uint32_t)f->nr - 1;
}

void prof_flat_add(struct prof_flat *f, const struct prof_thread *t, const struct pk_frame *frames, size_t n,
		   uint64_t period)
{
	uint32_t tid = t->tid, tpart = thread_part(f, t), r = 0;

	if (!f->children)
		n = 1;
	if (n > f->keys_alloc) {
		f->keys_alloc = n * 2;
		f->keys = xrealloc(f->keys, f->keys_alloc * sizeof(*f->keys));
	}
	if (!f->prev)
		f->prev = xcalloc(PREV_SLOTS, sizeof(*f->prev));
	struct prev *ps = &f->prev[tid % PREV_SLOTS];
	size_t same = 0;

	for (size_t j = 0; j < n; j++)
		key_of(f, &frames[j], &f->keys[j]);
	/* the outer callers of the thread's previous sample: their rows known */
	if (ps->n && ps->tid == tid && ps->tpart == tpart)
		while (same < n && same < ps->n && key_same(&f->keys[n - 1 - same], &ps->k[same]))
			same++;
	for (size_t j = 0; j + same < n; j++) {   /* hash the rest, fetch their slots */
		struct fkey *k = &f->keys[j];

		k->h = key_hash(k, tpart);
		__builtin_prefetch(&f->slots[(size_t)(k->h >> 32) & f->mask]);
	}
	/* and the rows their first slots name (most are found there): the
	 * rows' misses overlap instead of coming one after another */
	for (size_t j = 0; j + same < n; j++) {
		uint64_t v = f->slots[(size_t)(f->keys[j].h >> 32) & f->mask];

		if (v && v >> 32 == f->keys[j].h >> 32)
			__builtin_prefetch(&f->rows[(uint32_t)v - 1]);
	}
	if (n > ps->alloc) {
		ps->alloc = n * 2;
		ps->k = xrealloc(ps->k, ps->alloc * sizeof(*ps->k));
		ps->row = xrealloc(ps->row, ps->alloc * sizeof(*ps->row));
	}
	if (++f->seq == 0) {   /* the stamps' numbers wrapped */
		for (size_t i = 0; i < f->nr; i++)
			f->rows[i].stamp = 0;
		f->seq = 1;
	}
	for (size_t j = n; j-- > 0;) {   /* the outermost caller first */
		size_t o = n - 1 - j;

		if (o < same) {
			r = ps->row[o];
		} else {
			r = row_of(f, &f->keys[j], tpart, &frames[j], t);
			ps->k[o] = f->keys[j];
			ps->row[o] = r;
		}
		if (f->children && f->rows[r].stamp != f->seq) {
			f->rows[r].stamp = f->seq;
			f->rows[r].children += period;
		}
	}
	ps->tid = tid;
	ps->tpart = tpart;
	ps->n = n;
	f->rows[r].self += period;   /* r: the leaf's */
	if (f->rows[r].nr_self < UINT32_MAX)
		f->rows[r].nr_self++;
	if (n && frames[0].kernel)   /* the leaf's level: the sample's mode */
		f->rows[r].self_sys += period;
}

void prof_flat_rename_comms(struct prof_flat *f, prof_rename_fn fn, const void *arg)
{
	for (size_t i = 0; i < f->nr_tthreads; i++) {
		const char *c = fn(arg, f->tthreads[i].comm);

		f->renamed |= c != f->tthreads[i].comm && f->want[PROF_COMM];
		f->tthreads[i].comm = c;
	}
	for (size_t i = 0; f->threads && i < f->nr; i++)
		f->threads[i].comm = fn(arg, f->threads[i].comm);
	memset(f->tcache, 0, sizeof(f->tcache));   /* its slots name the old comms */
}

/* With renamed comms, each thread part's identity as thread_part() would
 * give it now: parts that differ only by a renamed comm get one. */
static uint32_t *parts_renamed(const struct prof_flat *f)
{
	struct idtab t = { 0 };
	uint32_t *v = xmalloc((f->nr_tthreads + 1) * sizeof(*v));

	for (size_t i = 0; i < f->nr_tthreads; i++)
		v[i] = part_intern(f, &t, &f->tthreads[i]);
	idtab_free(&t);
	return v;
}

void prof_flat_rows(struct prof_flat *f, struct prof_rows *out)
{
	struct idtab parts[PROF_KEY_MAX] = { { 0 } };

	memset(out, 0, sizeof(*out));
	out->nr = f->nr;
	zfree(f->slots, (f->mask + 1) * sizeof(*f->slots), f->slots_mapped);   /* counting is over */
	f->slots = NULL;
	/* the rows made in the records' own memory, each over the records
	 * read already (a row, 56 bytes, is smaller than a record, 64): no
	 * fresh pages (on a compile job's 667 k rows, 37 MB) */
	_Static_assert(sizeof(struct prof_row) <= sizeof(struct frow), "rows made in place");
	if (!f->rows) {   /* no sample */
		f->alloc = 1;
		arr_grow(&f->rows_a, sizeof(*f->rows));
		f->rows = f->rows_a.p;
	}
	out->v = (struct prof_row *)(void *)f->rows;
	out->v_mapped = f->rows_a.mapped ? f->rows_a.size : 0;
	/* DSOs by short name, as perf's dso key compares them: rows counted
	 * apart for two files of one name are one (the first) when any two
	 * rows' DSOs share a name */
	struct prof_dsokey *dk = prof_dsokey_new();

	for (size_t i = 0; i < f->nr; i++)
		(void)prof_dsokey(dk, f->frames[i].dso);
	uint32_t *tcanon = f->renamed ? parts_renamed(f) : NULL;
	uint32_t *into = prof_dsokey_aliased(dk) || tcanon ? xmalloc((f->nr + 1) * sizeof(*into)) : NULL;
	struct hashmap same;

	hm_init(&same);
	out->self_sys = f->want_sys ? xmalloc_huge((f->nr + 1) * sizeof(*out->self_sys)) : NULL;
	for (size_t i = 0; i < f->nr; i++) {
		const struct frow rec = f->rows[i], *r = &rec;

		if (into) {   /* the row's key with its DSO by name, its comm renamed */
			struct { const void *dso, *sym; uint64_t a; uint32_t tpart, flags; } k;
			const char *cd = prof_dsokey(dk, f->frames[i].dso);
			int created;

			memset(&k, 0, sizeof(k));
			k.dso = r->dso ? cd : NULL;
			k.sym = r->flags & 1 ? (const void *)cd : r->sym;   /* unknown: by DSO and offset */
			k.a = r->a;
			k.tpart = tcanon ? tcanon[r->tpart] : r->tpart;   /* comms renamed: by the new name */
			k.flags = r->flags;
			struct hm_entry *e = hm_upsert(&same, &k, sizeof(k), &created);

			if (created)
				e->val.u = i;
			into[i] = (uint32_t)e->val.u;
		}
		uint32_t tid_of = f->threads ? (uint32_t)i : r->tpart;
		const struct prof_thread *t = prof_flat_thread(f, tid_of);
		struct prof_row *o = &out->v[i];

		memset(o, 0, sizeof(*o));
		o->thread = tid_of;
		o->frame = (uint32_t)i;
		o->self = r->self;
		o->children = r->children;
		o->nr_self = r->nr_self;
		if (out->self_sys)
			out->self_sys[i] = r->self_sys;
		if (f->want[PROF_COMM])
			o->part[PROF_COMM] = idtab_intern(&parts[PROF_COMM], (uintptr_t)t->comm, 0, 0);
		if (f->want[PROF_TID])
			o->part[PROF_TID] = o->part[PROF_PID] = idtab_intern(&parts[PROF_TID], t->tid, 0, 0);
		if (f->want[PROF_TRACE])
			o->part[PROF_TRACE] = idtab_intern(&parts[PROF_TRACE], (uintptr_t)t->tag, 0, 0);
		if (f->want[PROF_CPU])
			o->part[PROF_CPU] = idtab_intern(&parts[PROF_CPU], t->cpu, 0, 0);
		if (f->want[PROF_DSO])
			o->part[PROF_DSO] = idtab_intern(&parts[PROF_DSO], (uintptr_t)prof_dsokey(dk, r->dso), 0, 0);
		/* a symbol's part: the row's own (rows of one symbol in several
		 * comms, 2.5 % of big.data's rows, get a text each; interning
		 * every row's cost more) */
		if (f->want[PROF_SYM])
			o->part[PROF_SYM] = (uint32_t)i;
	}
	hm_release(&same);
	prof_dsokey_free(dk);
	free(tcanon);
	if (into) {   /* each row added to its first, the others dropped, in order */
		size_t n = 0;

		for (size_t i = 0; i < f->nr; i++) {
			struct prof_row *to = &out->v[into[i]];

			if (into[i] != i) {
				to->self += out->v[i].self;
				to->children += out->v[i].children;
				to->nr_self += out->v[i].nr_self;
				if (out->self_sys)
					out->self_sys[into[i]] += out->self_sys[i];
			}
		}
		for (size_t i = 0; i < f->nr; i++)
			if (into[i] == i) {
				if (out->self_sys)
					out->self_sys[n] = out->self_sys[i];
				out->v[n++] = out->v[i];
			}
		out->nr = n;
		free(into);
	}
	for (int k = 0; k < PROF_KEY_MAX; k++) {
		out->nr_parts[k] = parts[k].nr;
		idtab_free(&parts[k]);
	}
	if (f->want[PROF_SYM])
		out->nr_parts[PROF_SYM] = f->nr;
	out->nr_parts[PROF_PID] = out->nr_parts[PROF_TID];
	f->rows_a = (struct arr){ NULL, 0, false };   /* out->v's now */
	f->rows = NULL;
}

void prof_flat_release(struct prof_flat *f, uint32_t from)
{
	if (from >= f->nr)
		return;
	xrelease(f->frames, from * sizeof(*f->frames), f->frames_a.size);
	if (f->threads)
		xrelease(f->threads, from * sizeof(*f->threads), f->threads_a.size);
}

const struct prof_thread *prof_flat_thread(const struct prof_flat *f, uint32_t id)
{
	return f->threads ? &f->threads[id] : &f->tthreads[id];
}
void prof_flat_frame(const struct prof_flat *f, uint32_t id, struct pk_frame *out)
{
	const struct fframe *x = &f->frames[id];

	*out = (struct pk_frame){ .ip = x->ip, .sym_off = x->sym_off, .sym = x->sym, .dso = x->dso,
				  .kernel = f->kernel[id / 64] >> (id % 64) & 1 };
}
