/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session.c — replay a perf.data file in time order: a thread table (comm,
 * shared or copied map groups) built from COMM/FORK/EXIT/MMAP/MMAP2, and
 * samples resolved to frames through the symbol cache.
 *
 * Ordering: one pass over the data section collects (time, file offset) for
 * every record; records without a time sort as time 0, so they keep file
 * order before the timed ones.  A file already in order (the usual case) is
 * not sorted.
 */
#include "session/session.h"
#include "base/bytes.h"

#include "base/error.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "session/unwind.h"
#include "symbol/buildid.h"
#include "symbol/demangle.h"
#include "symbol/inline.h"
#include "symbol/perfmap.h"
#include "symbol/symbol.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

struct map {
	uint64_t start, end, pgoff;
	const char *dso;      /* interned */
	bool no_symbols;      /* anon, [heap], [vdso], …: no ELF file to read */
	bool identity;        /* anonymous memory, [stack], [heap], /SYSV: an
				 address is its own offset (perf's
				 identity__map_ip: script prints ip itself) */
	bool exec;            /* PROT_EXEC (MMAP2's prot; an MMAP without
				 PERF_RECORD_MISC_MMAP_DATA), as perf's
				 machine__process_mmap*_event */
	uint32_t prot, flags; /* MMAP2's (an MMAP's: PROT_EXEC unless data, as
				 perf's), for session_thread_maps */
	uint64_t ino;         /* MMAP2's inode (0 with a build-id instead) */
};

struct mapgroup {
	unsigned refs;
	uint64_t gen;         /* changes with every map change (unwind cache key) */
	uint64_t ver;         /* changes with every map change, anonymous ones
				 too (resolved-frame cache key); unique */
	struct map *v;        /* sorted by start, not overlapping */
	size_t nr, alloc;     /* maps, and slots allocated from v - head */
	size_t head;          /* free slots before v (mg_open_slot) */
};

struct thread {
	uint32_t pid, tid;
	int32_t ppid;         /* the tid that forked it (FORK's ptid), -1: none seen */
	const char *comm;     /* interned */
	bool comm_known;      /* from a COMM record (or inherited one), not ":tid" */
	bool exited;          /* an EXIT record was seen (session_trim drops it) */
	struct mapgroup *mg;
};

struct rec_ref {
	uint64_t time;
	uint64_t pos;         /* offset in the data section (tie-break: file order) */
};

#define ENTRY_MEMO 64

struct session {
	struct pd_file *f;
	struct session_opts opts;
	struct session_stats stats;
	struct hashmap strings;   /* interned comm and DSO names */
	struct hashmap threads;   /* tid (4 bytes) → struct thread * */
	struct symcache *syms;
	struct rec_ref *recs;
	size_t nr_recs;
	struct pk_frame *frames;
	size_t frames_alloc;
	uint64_t nr_compressed;   /* PERF_RECORD_COMPRESSED records (not decoded) */
	uint64_t kernel_start;    /* the lowest kernel map's start (the kernel's
				     [kernel.kallsyms]_text mmap), 0: none seen */
	char *vdso_image;         /* perf's build-id cache copy of the [vdso], or NULL */
	int vdso_fd;              /* this machine's vdso in an anonymous file
				     (memfd_create(2)), vdso_image its
				     /proc/self/fd path; -1 if none */
	bool vdso_tried;          /* the local fallback was tried */
	struct entry_memo {       /* session_sym_is_entry() of recent symbols */
		const char *sym;
		bool is_entry;
	} entry_memo[ENTRY_MEMO];
	struct unwinder *unw;     /* --call-graph dwarf samples, made on first use */
	struct unwind_map *umaps;
	size_t umaps_alloc, umaps_nr;
	uint64_t umaps_gen;       /* the map group generation umaps was built for */
	uint64_t *upcs;           /* unwound user pcs */
	unsigned kmax_stack;      /* kernel callchain limit when the attr has none */
	struct perfmap_cache *jit; /* /tmp/perf-PID.map, made on first use */
	struct inline_resolver *inl; /* inline frames and srclines, made on first use */
	struct strbuf tmp;
	struct pk_frame *frames2; /* scratch for inline expansion */
	size_t frames2_alloc;
	struct hashmap srclines;  /* (dso pointer, addr) → interned srcline */
	struct hashmap perfnames; /* inline chain item pointer → its name as perf 6.1 gives it */
	struct hashmap dsofiles;  /* dso pointer → the file to read for it ("" none) */
	struct hashmap bids;      /* DSO path → its struct pd_build_id (BUILD_ID feature) */
	struct hashmap renames;   /* a placeholder comm (":TID", pointer) → the
				     first name a COMM gave its thread */
	uint64_t nr_replaced;     /* DSOs whose file changed since the recording */
	struct rf_ent *rf;        /* resolved frames, 1 << RF_BITS (made on first use) */
	struct thread *last_t;    /* the previous sample's thread (freed only by session_trim) */
	session_side_fn side_fn;  /* session_set_side_fn's */
	void *side_arg;
	uint32_t side_types;
	/* the ordering queue's state (session_process, session_feed) */
	size_t recs_alloc;
	size_t syms_checked;      /* DSOs in the symbol cache at the last trim_symbols */
	uint64_t q_limit, q_seen_max, q_last, q_bad, q_bad_off;
	bool q_sorted;
	uint8_t *feed;            /* session_feed: records queued from earlier feeds, then the new ones */
	size_t feed_len, feed_alloc;
	struct {                  /* where broken frame-pointer chains end */
		const char *dso;
		uint64_t n;
	} broken_dsos[8];
};

/* Map group generations, unique across sessions (see unwind.h). */
static _Atomic uint64_t mg_gens;
/* Map group versions (struct mapgroup.ver), unique across sessions, never 0. */
static _Atomic uint64_t mg_vers;

/* The resolved-frame cache: a user frame's result is a function of its ip,
 * its thread's maps (the group's version) and pid (/tmp/perf-PID.map), a
 * kernel frame's of its ip alone; direct-mapped, emptied when the symbol or
 * JIT caches whose names it holds are let go (session_trim). */
#define RF_BITS 12
struct rf_ent {
	uint64_t ip, ver;     /* ver 0: a kernel frame (pid 0); ip 0, ver 0: empty */
	const char *sym, *dso;
	uint64_t sym_off, addr, map_ip;
	uint32_t pid;
	bool kernel;
};

/* ---- map groups ---- */

static struct mapgroup *mg_new(void)
{
	struct mapgroup *g = xcalloc(1, sizeof(*g));

	g->refs = 1;
	g->gen = ++mg_gens;
	g->ver = ++mg_vers;
	return g;
}

static struct mapgroup *mg_get(struct mapgroup *g)
{
	g->refs++;
	return g;
}

/* The allocation g->v lies in (NULL: none). */
static struct map *mg_base(const struct mapgroup *g)
{
	return g->v ? g->v - g->head : NULL;
}

static void mg_put(struct mapgroup *g)
{
	if (g && --g->refs == 0) {
		free(mg_base(g));
		free(g);
	}
}

static struct mapgroup *mg_copy(const struct mapgroup *src)
{
	struct mapgroup *g = mg_new();

	if (src && src->nr) {
		g->v = xmalloc(src->nr * sizeof(*g->v));
		memcpy(g->v, src->v, src->nr * sizeof(*g->v));
		g->nr = g->alloc = src->nr;
	}
	return g;
}

/* The maps are an array sorted by start with free room at both ends
 * (g->v is g->head slots into its allocation of g->alloc): a process's
 * maps come in address order (perf's synthesized ones) or, as mmap(2)
 * places them, top down, and either way a new one goes in at an end
 * without moving the others (200 000 maps: no quadratic cost).  Room for
 * one more at index at, the smaller side moved (when that side has no
 * room left, the array is copied with room at both ends: amortized). */
static void mg_open_slot(struct mapgroup *g, size_t at)
{
	size_t back = g->alloc - g->head - g->nr;
	bool front = at < g->nr / 2;   /* the smaller side: the maps before at */

	if (front ? !g->head : !back) {   /* no room on that side: room at both */
		size_t alloc = 2 * g->nr + 16, head = (alloc - g->nr) / 2;
		struct map *base = xmalloc(alloc * sizeof(*base));

		if (g->nr)
			memcpy(base + head, g->v, g->nr * sizeof(*base));
		free(mg_base(g));
		g->v = base + head;
		g->head = head;
		g->alloc = alloc;
	}
	if (front) {
		g->v--;
		g->head--;
		memmove(g->v, g->v + 1, at * sizeof(*g->v));
	} else {
		memmove(g->v + at + 1, g->v + at, (g->nr - at) * sizeof(*g->v));
	}
	g->nr++;
}

/* Remove the maps [i, j), the smaller side moved. */
static void mg_remove(struct mapgroup *g, size_t i, size_t j)
{
	size_t k = j - i;

	if (!k)
		return;
	if (i < g->nr - j) {
		memmove(g->v + k, g->v, i * sizeof(*g->v));
		g->v += k;
		g->head += k;
	} else {
		memmove(g->v + i, g->v + j, (g->nr - j) * sizeof(*g->v));
	}
	g->nr -= k;
}

/* A map whose change the unwinder sees (file-backed, or the vDSO). */
static void mg_touch(struct mapgroup *g, const struct map *o)
{
	if (!o->no_symbols || !strcmp(o->dso, "[vdso]"))
		g->gen = ++mg_gens;
}

/* The index of the first map ending after addr (g->nr: none), by binary
 * search: the maps do not overlap, so their ends are sorted as their
 * starts are.  The map holding addr, if one does, is that one. */
static size_t mg_first_after(const struct mapgroup *g, uint64_t addr)
{
	size_t lo = 0, hi = g->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Insert m, cutting away whatever part of older maps it overlaps. */
static void mg_insert(struct mapgroup *g, const struct map *m)
{
	size_t lo, j;

	/* the generation changes with the file-backed maps only (what the
	 * unwinder reports): anonymous memory comes and goes all the time */
	mg_touch(g, m);
	g->ver = ++mg_vers;
	lo = mg_first_after(g, m->start);
	if (lo < g->nr && g->v[lo].start < m->start && g->v[lo].end > m->end) {
		/* inside one map: split it in two around m */
		struct map tail = g->v[lo];

		mg_touch(g, &tail);
		tail.pgoff += m->end - tail.start;
		tail.start = m->end;
		g->v[lo].end = m->start;
		mg_open_slot(g, lo + 1);
		g->v[lo + 1] = tail;
		mg_open_slot(g, lo + 1);
		g->v[lo + 1] = *m;
		return;
	}
	if (lo < g->nr && g->v[lo].start < m->start && g->v[lo].end > m->start) {
		mg_touch(g, &g->v[lo]);   /* its head stays */
		g->v[lo].end = m->start;
		lo++;
	}
	for (j = lo; j < g->nr && g->v[j].start < m->end && g->v[j].end <= m->end; j++)
		mg_touch(g, &g->v[j]);    /* wholly under m: goes */
	if (j < g->nr && g->v[j].start < m->end) {   /* its tail stays */
		mg_touch(g, &g->v[j]);
		g->v[j].pgoff += m->end - g->v[j].start;
		g->v[j].start = m->end;
	}
	if (j > lo) {   /* m takes the first removed map's slot */
		g->v[lo] = *m;
		mg_remove(g, lo + 1, j);
	} else {
		mg_open_slot(g, lo);
		g->v[lo] = *m;
	}
}

static const struct map *mg_find(const struct mapgroup *g, uint64_t ip)
{
	size_t i = g ? mg_first_after(g, ip) : 0;

	return g && i < g->nr && g->v[i].start <= ip ? &g->v[i] : NULL;
}

/* ---- threads ---- */

static const char *intern(struct session *s, const char *str, size_t len)
{
	return hm_intern(&s->strings, str, len);
}

static struct thread *thread_find(struct session *s, uint32_t tid)
{
	struct hm_entry *e = hm_find(&s->threads, &tid, sizeof(tid));

	return e ? e->val.ptr : NULL;
}

/* A new thread object for tid, replacing any older one. */
static struct thread *thread_new(struct session *s, uint32_t pid, uint32_t tid)
{
	int created;
	struct hm_entry *e = hm_upsert(&s->threads, &tid, sizeof(tid), &created);
	struct thread *t = e->val.ptr;

	if (t) {
		mg_put(t->mg);
	} else {
		t = xcalloc(1, sizeof(*t));
		e->val.ptr = t;
	}
	t->pid = pid;
	t->tid = tid;
	t->ppid = -1;
	t->comm = NULL;
	t->comm_known = false;
	t->exited = false;
	t->mg = NULL;
	return t;
}

/* The name of thread tid before any is known, as perf's thread__new:
 * "swapper" for 0, else ":TID", TID signed (a sample's -1: ":-1"). */
static const char *comm_placeholder(struct session *s, uint32_t tid)
{
	char buf[32];
	int n;

	if (tid == 0)
		return intern(s, "swapper", 7);
	n = snprintf(buf, sizeof(buf), ":%" PRId32, (int32_t)tid);
	return intern(s, buf, (size_t)n);
}

static struct thread *thread_findnew(struct session *s, uint32_t pid, uint32_t tid)
{
	struct thread *t = thread_find(s, tid), *leader;

	if (t)
		return t;
	leader = pid != tid && pid != (uint32_t)-1 ? thread_findnew(s, pid, pid) : NULL;
	t = thread_new(s, pid, tid);
	t->mg = leader ? mg_get(leader->mg) : mg_new();
	/* the leader's maps, not its name: a thread no FORK or COMM named
	 * is ":TID" as in perf (thread__init_maps shares the maps only) */
	t->comm = comm_placeholder(s, tid);
	t->comm_known = tid == 0;   /* perf's machine sets "swapper" as a name */
	return t;
}

/* ---- side-band records ---- */

/* *acc += v, stopping at UINT64_MAX (counts a file claims can be anything) */
static void sat_add(uint64_t *acc, uint64_t v)
{
	*acc = v > UINT64_MAX - *acc ? UINT64_MAX : *acc + v;
}

#define DELETED " (deleted)"
#define DELETED_LEN (sizeof(DELETED) - 1)

static bool dso_has_no_file(const char *name)
{
	return name[0] == '[' || !strncmp(name, "//anon", 6) || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/memfd:", 7) || !strncmp(name, "/SYSV", 5) ||
	       !strncmp(name, "anon_inode:", 11) || name[0] == '\0';
}

/* perf's --symfs given (not "/", which is the paths themselves) */
static bool symfs_on(const struct session *s)
{
	return s->opts.symfs && *s->opts.symfs && strcmp(s->opts.symfs, "/");
}

/* its length without trailing slashes (symfs_on()) */
static int symfs_len(const struct session *s)
{
	size_t fl = strlen(s->opts.symfs);

	while (fl > 1 && s->opts.symfs[fl - 1] == '/')
		fl--;
	return (int)fl;
}

/* perf record saves the vdso it saw in its build-id cache,
 * ~/.debug/[vdso]/<build-id>/vdso; resolve [vdso] frames through it. */
static void find_vdso_image(struct session *s)
{
	const struct pd_file *f = s->f;
	struct strbuf path = STRBUF_INIT;

	if (symfs_on(s))   /* perf's cache is not read under a symfs: none */
		s->vdso_tried = true;
	for (size_t i = 0; i < f->nr_build_ids && !symfs_on(s); i++) {
		const struct pd_build_id *b = &f->build_ids[i];

		if (strcmp(b->filename, "[vdso]") || !b->size)
			continue;
		if (bid_vdso_path(b->data, b->size < sizeof(b->data) ? b->size : sizeof(b->data), &path) == 0) {
			s->vdso_image = sb_detach(&path, NULL);
			return;
		}
	}
	sb_release(&path);
}

/* The [vdso] image to name [vdso] frames with: the recording's (perf's
 * build-id cache), else, as perf does when it has none (a pipe-mode
 * recording), this machine's own vdso, when the recording's kernel
 * release is this one's (or unknown): the vdso is the kernel's (under a
 * --symfs, as perf's, none: find_vdso_image).  The
 * copy is an anonymous memory file (memfd_create(2)) named by its
 * /proc/self/fd path, which the unwinder opens like any ELF file: no
 * file is created anywhere (perfkit top writes none). */
static const char *vdso_image(struct session *s)
{
	struct utsname u;
	unsigned long base;
	FILE *maps;
	char line[512], path[64];
	unsigned long long start = 0, end = 0;
	int fd;

	if (s->vdso_image || s->vdso_tried)
		return s->vdso_image;
	s->vdso_tried = true;
	if (s->f->osrelease && (uname(&u) || strcmp(u.release, s->f->osrelease)))
		return NULL;
	base = getauxval(AT_SYSINFO_EHDR);
	if (!base || !(maps = fopen("/proc/self/maps", "re")))
		return NULL;
	while (fgets(line, sizeof(line), maps))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &start, &end) == 2)
			break;
	fclose(maps);
	if (start != base || end <= start || end - start > (1u << 20))
		return NULL;
	if ((fd = memfd_create("perfkit-vdso", MFD_CLOEXEC)) < 0)
		return NULL;
	if (write(fd, (const void *)(uintptr_t)start, end - start) != (ssize_t)(end - start)) {
		close(fd);
		return NULL;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	s->vdso_fd = fd;
	s->vdso_image = xstrdup(path);
	return s->vdso_image;
}

static void do_mmap(struct session *s, const struct perf_event_header *h, const uint8_t *p)
{
	size_t fn_off = h->type == PERF_RECORD_MMAP2 ? 72 : 40;
	uint32_t pid, tid;
	struct map m;
	struct thread *t;
	size_t len;

	if (h->size < fn_off)
		return;
	pid = rd32(p + 8);
	tid = rd32(p + 12);
	if (pid == (uint32_t)-1 || (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
		/* kernel and module maps: resolved through kallsyms; where the
		 * kernel's maps start is kept (an address below: in none) */
		uint64_t start = rd64(p + 16);

		if (h->size > fn_off + 17 && !strncmp((const char *)p + fn_off, "[kernel.kallsyms]", 17) && start &&
		    (!s->kernel_start || start < s->kernel_start))
			s->kernel_start = start;
		return;
	}
	m.start = rd64(p + 16);
	m.end = m.start + rd64(p + 24);
	m.pgoff = rd64(p + 32);
	m.exec = h->type == PERF_RECORD_MMAP2 ? (rd32(p + 64) & PROT_EXEC) != 0
					       : !(h->misc & PERF_RECORD_MISC_MMAP_DATA);
	m.prot = h->type == PERF_RECORD_MMAP2 ? rd32(p + 64) : m.exec ? PROT_EXEC : 0;
	m.flags = h->type == PERF_RECORD_MMAP2 ? rd32(p + 68) : 0;
	m.ino = h->type == PERF_RECORD_MMAP2 && !(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ? rd64(p + 48) : 0;
	if (m.end <= m.start)
		return;
	len = strnlen((const char *)p + fn_off, h->size - fn_off);
	/* a file removed while mapped: the kernel appends " (deleted)"; the
	 * DSO keeps it, as perf's (script prints "(PATH (deleted))", report
	 * "NAME (deleted)"); its symbols come from the copy saved by its
	 * build-id (dso_file) */
	m.dso = intern(s, (const char *)p + fn_off, len);
	m.no_symbols = dso_has_no_file(m.dso);
	/* perf's is_anon_memory and is_no_dso_memory (map__new) */
	m.identity = !strcmp(m.dso, "//anon") || !strncmp(m.dso, "/dev/zero", 9) ||
		     !strncmp(m.dso, "/anon_hugepage", 14) || !strncmp(m.dso, "[stack", 6) ||
		     !strncmp(m.dso, "/SYSV", 5) || !strcmp(m.dso, "[heap]");
	t = thread_findnew(s, pid, tid);
	mg_insert(t->mg, &m);
}

static void do_comm(struct session *s, const struct perf_event_header *h, const uint8_t *p)
{
	struct thread *t;
	size_t len;

	if (h->size < 16)
		return;
	t = thread_findnew(s, rd32(p + 8), rd32(p + 12));
	len = strnlen((const char *)p + 16, h->size - 16u);
	const char *was = t->comm;

	t->comm = intern(s, (const char *)p + 16, len);
	if (!t->comm_known && was && was != t->comm) {
		/* the thread's first name: perf's thread__set_comm overrides
		 * the ":TID" it had in place (comm__override), so that its
		 * samples until now are named so too in report's rows */
		int created;
		struct hm_entry *e = hm_upsert(&s->renames, &was, sizeof(was), &created);

		if (created)
			e->val.ptr = (void *)t->comm;
	}
	t->comm_known = true;
	/* exec: the old image's maps stay until the new image's maps overlap
	 * them (mg_insert), as in perf.  The COMM comes early in execve,
	 * before the new image is mapped and long before the task returns to
	 * user space: samples until then still carry the old user stack
	 * (__GI___execve in the old libc), and clearing the maps here named
	 * those frames [unknown] */
	if (h->misc & PERF_RECORD_MISC_COMM_EXEC)
		t->mg->gen = ++mg_gens;
}

static void do_fork(struct session *s, const struct perf_event_header *h, const uint8_t *p)
{
	uint32_t pid, ppid, tid, ptid;
	struct thread *parent, *child;
	const char *comm;
	struct mapgroup *mg;

	if (h->size < 32)
		return;
	pid = rd32(p + 8);
	ppid = rd32(p + 12);
	tid = rd32(p + 16);
	ptid = rd32(p + 20);
	if (tid == ptid)
		return;
	parent = thread_findnew(s, ppid, ptid);
	comm = parent->comm;
	if (pid == ppid)               /* a new thread: same address space */
		mg = mg_get(parent->mg);
	else if (h->misc & PERF_RECORD_MISC_FORK_EXEC)
		mg = mg_new();   /* perf's synthesized fork of a process found running: its own
				    maps follow (perf's thread__fork clones none then) */
	else                           /* a new process: a copy of the parent's */
		mg = mg_copy(parent->mg);
	child = thread_new(s, pid, tid);
	/* the parent's name when it has one, as perf's thread__fork; else the
	 * child's own ":TID", not the parent's */
	child->comm = parent->comm_known ? comm : comm_placeholder(s, tid);
	child->comm_known = parent->comm_known;
	child->mg = mg;
	child->ppid = (int32_t)ptid;   /* perf's thread__fork: the parent thread's tid */
}

/* ---- ordering ---- */

static int cmp_rec(const void *a, const void *b)
{
	const struct rec_ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static bool rec_less(const struct rec_ref *x, const struct rec_ref *y)
{
	return x->time < y->time || (x->time == y->time && x->pos < y->pos);
}

/* The end of the ascending run of v[0..n) that starts at i. */
static size_t rec_run(const struct rec_ref *v, size_t i, size_t n)
{
	while (++i < n && !rec_less(&v[i], &v[i - 1]))
		;
	return i;
}

/* Sort v by (time, pos), as cmp_rec.  A round's records are a few ascending
 * runs (one per CPU's ring buffer, and what an earlier round left): those
 * are merged, pairwise per pass; many runs go to qsort. */
static void recs_sort(struct rec_ref *v, size_t n)
{
	size_t runs = 1;
	struct rec_ref *src = v, *dst, *tmp;

	for (size_t i = 1; i < n; i++)
		runs += rec_less(&v[i], &v[i - 1]);
	if (runs == 1)
		return;
	if (runs > 32) {
		qsort(v, n, sizeof(*v), cmp_rec);
		return;
	}
	tmp = dst = xmalloc(n * sizeof(*v));
	while (runs > 1) {
		size_t i = 0, o = 0;

		runs = 0;
		while (i < n) {
			size_t a = i, am = rec_run(src, i, n), bm = am < n ? rec_run(src, am, n) : am, b = am;

			while (a < am && b < bm)
				dst[o++] = rec_less(&src[b], &src[a]) ? src[b++] : src[a++];
			while (a < am)
				dst[o++] = src[a++];
			while (b < bm)
				dst[o++] = src[b++];
			i = bm;
			runs++;
		}
		struct rec_ref *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
}

static void session_init(struct session *s, const struct session_opts *opts);

int session_open(struct session **out, const char *path, const struct session_opts *opts)
{
	struct session *s;
	int err;

	*out = NULL;
	s = xcalloc(1, sizeof(*s));
	err = pd_open(&s->f, path);
	if (err) {
		free(s);
		return err;
	}
	session_init(s, opts);
	*out = s;
	return 0;
}

int session_open_stream(struct session **out, const char *name, int fd, const void *prefix,
			size_t prefix_len, const struct session_opts *opts)
{
	struct session *s;
	int err;

	*out = NULL;
	s = xcalloc(1, sizeof(*s));
	err = pd_open_stream(&s->f, name, fd, prefix, prefix_len);
	if (err) {
		free(s);
		return err;
	}
	session_init(s, opts);
	*out = s;
	return 0;
}

int session_open_attrs(struct session **out, const char *name, const struct perf_event_attr *attrs,
		       const char *const *names, size_t nr, const struct session_opts *opts)
{
	struct session *s;
	int err;

	*out = NULL;
	s = xcalloc(1, sizeof(*s));
	err = pd_open_attrs(&s->f, name, attrs, names, nr);
	if (err) {
		free(s);
		return err;
	}
	session_init(s, opts);
	*out = s;
	return 0;
}

struct pd_file *session_pd_file(struct session *s)
{
	return s->f;
}

static void session_init(struct session *s, const struct session_opts *opts)
{
	if (opts)
		s->opts = *opts;
	s->vdso_fd = -1;
	hm_init(&s->strings);
	hm_init(&s->threads);
	hm_init(&s->srclines);
	hm_init(&s->perfnames);
	hm_init(&s->dsofiles);
	hm_init(&s->bids);
	hm_init(&s->renames);
	for (size_t i = 0; i < s->f->nr_build_ids; i++) {
		const struct pd_build_id *b = &s->f->build_ids[i];
		int created;

		if (b->filename && b->filename[0] == '/')
			hm_upsert(&s->bids, b->filename, strlen(b->filename), &created)->val.ptr =
				(void *)b;
	}
	/* "PATH (deleted)" (a binary removed while it ran, whose copy record
	 * saved by build-id) also names PATH, as the maps show it */
	for (size_t i = 0; i < s->f->nr_build_ids; i++) {
		const struct pd_build_id *b = &s->f->build_ids[i];
		size_t l = b->filename ? strlen(b->filename) : 0;
		int created;

		if (l > DELETED_LEN && b->filename[0] == '/' &&
		    !memcmp(b->filename + l - DELETED_LEN, DELETED, DELETED_LEN)) {
			struct hm_entry *e = hm_upsert(&s->bids, b->filename, l - DELETED_LEN, &created);
			if (created)
				e->val.ptr = (void *)b;
		}
	}
	sb_init(&s->tmp, 0);
	s->syms = symcache_new();
	symcache_set_demangle(s->syms, !s->opts.no_demangle);
	if (s->opts.kallsyms || symfs_on(s))
		symcache_set_kallsyms(s->syms, s->opts.kallsyms);
	{
		FILE *ms = fopen("/proc/sys/kernel/perf_event_max_stack", "r");

		s->kmax_stack = 127;   /* the kernel's default */
		if (ms) {
			if (fscanf(ms, "%u", &s->kmax_stack) != 1)
				s->kmax_stack = 127;
			fclose(ms);
		}
	}
	find_vdso_image(s);
}

const struct pd_file *session_file(const struct session *s)
{
	return s->f;
}

void session_set_max_stack(struct session *s, int max_stack)
{
	s->opts.max_stack = max_stack;
}

void session_set_side_fn(struct session *s, uint32_t types, session_side_fn fn, void *arg)
{
	s->side_fn = fn;
	s->side_arg = arg;
	s->side_types = fn ? types : 0;
}

/* The side-band record at p (COMM, FORK, EXIT, MMAP or MMAP2) handed to
 * s->side_fn when its type is asked for, after the session applies it
 * (an EXIT leaves the task's name as it was), as perf script prints it.
 * Returns fn's value; 0 for any other record, or one too short for its
 * type's fields. */
static int side_event(struct session *s, const struct perf_event_header *h, const uint8_t *p)
{
	struct pk_side_event e = { .type = h->type, .rec = h };
	struct pd_sample_id sid = { 0 };
	struct thread *t;

	if (h->type >= 32 || !(s->side_types >> h->type & 1))
		return 0;
	switch (h->type) {
	case PERF_RECORD_COMM:
		if (h->size < 16)
			return 0;
		e.exec = h->misc & PERF_RECORD_MISC_COMM_EXEC;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (h->size < 24)
			return 0;
		e.ppid = rd32(p + 12);
		e.ptid = rd32(p + 20);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {   /* the file name NUL-ended in the record */
		size_t fn_off = h->type == PERF_RECORD_MMAP2 ? 72 : 40;

		if (h->size <= fn_off || !memchr(p + fn_off, '\0', h->size - fn_off))
			return 0;
		e.name = (const char *)p + fn_off;
		break;
	}
	default:
		return 0;
	}
	e.pid = rd32(p + 8);
	e.tid = rd32(p + (h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT ? 16 : 12));
	t = thread_findnew(s, e.pid, e.tid);
	e.comm = t->comm;
	if (h->type == PERF_RECORD_COMM)
		e.name = t->comm;   /* do_comm's: the record's name, interned */
	e.evsel = s->f->nr_evsels ? &s->f->evsels[0] : NULL;
	if (pd_parse_sample_id(s->f, h, &sid) == 0 && sid.valid) {
		const struct pd_evsel *ev = pd_evsel_by_id(s->f, sid.id);

		if (ev)
			e.evsel = ev;
		e.s_pid = sid.pid;
		e.s_tid = sid.tid;
		e.cpu = sid.cpu;
		e.time = sid.time;
	} else {
		pk_error_clear();
		e.s_pid = e.pid;
		e.s_tid = e.tid;
		e.time = (h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT) && h->size >= 32 ? rd64(p + 24)
													: 0;
	}
	return s->side_fn(&e, s->side_arg);
}

const char *session_thread_comm(struct session *s, uint32_t tid)
{
	struct thread *t = thread_find(s, tid);

	return t ? t->comm : NULL;
}

size_t session_tasks(struct session *s, struct session_task **out)
{
	size_t n = 0;

	*out = xmalloc((s->threads.nr + 1) * sizeof(**out));
	for (size_t i = 0; i < s->threads.nr; i++) {   /* entries: dense */
		const struct thread *t = s->threads.entries[i].val.ptr;

		if (t)
			(*out)[n++] = (struct session_task){ t->pid, t->tid, t->ppid, t->comm };
	}
	return n;
}

size_t session_thread_maps(struct session *s, uint32_t tid, struct session_map **out)
{
	const struct thread *t = thread_find(s, tid);
	const struct mapgroup *mg = t ? t->mg : NULL;
	size_t n = mg ? mg->nr : 0;

	*out = xmalloc((n + 1) * sizeof(**out));
	for (size_t i = 0; i < n; i++) {
		const struct map *m = &mg->v[i];

		(*out)[i] = (struct session_map){ m->start, m->end, m->pgoff, m->ino, m->prot, m->flags, m->dso,
						  m->identity };
	}
	return n;
}

int session_opts_check(const struct session_opts *so)
{
	struct stat st;

	if (so->kallsyms) {
		if (stat(so->kallsyms, &st))
			return pk_error(-errno, "--kallsyms %s: %s", so->kallsyms, strerror(errno));
		if (!S_ISREG(st.st_mode))
			return pk_error(-EINVAL, "--kallsyms %s: not a regular file (a copy of /proc/kallsyms expected)",
					so->kallsyms);
		if (access(so->kallsyms, R_OK))
			return pk_error(-errno, "--kallsyms %s: %s", so->kallsyms, strerror(errno));
	}
	if (so->symfs && *so->symfs) {
		int e = stat(so->symfs, &st) ? errno : !S_ISDIR(st.st_mode) ? ENOTDIR : 0;

		if (e)
			pk_warn("--symfs %s: %s: no DSO is read there", so->symfs, strerror(e));
	}
	return 0;
}

const char *session_comm_renamed(const struct session *s, const char *comm)
{
	const struct hm_entry *e = s->renames.nr ? hm_find(&s->renames, &comm, sizeof(comm)) : NULL;

	return e ? e->val.ptr : comm;
}

const struct session_stats *session_stats(const struct session *s)
{
	return &s->stats;
}

/* ---- samples ---- */

static const char *dso_file(struct session *s, const char *dso);

/* x86-64's kernel addresses: the upper half of the canonical space */
#define KERNEL_HALF 0xffff800000000000ull

/* Returns false when the result may change (a JIT map that may grow). */
static bool resolve_frame(struct session *s, struct thread *t, struct pk_frame *fr)
{
	const struct map *m;
	uint64_t file_off;

	fr->sym = NULL;
	fr->sym_off = fr->ip;
	fr->inlined = false;
	fr->inl_depth = 0;
	fr->addr = 0;
	fr->map_ip = fr->ip;
	if (fr->kernel && fr->ip < (s->kernel_start ? s->kernel_start : KERNEL_HALF)) {
		/* an address below the kernel's maps in its context (a user
		 * address after a stray context word in a broken chain): in
		 * none of them, so [unknown], as perf's thread__find_map.
		 * A file without the kernel's mmap: perf maps the running
		 * kernel, in the upper half of the address space */
		fr->dso = "[unknown]";
		return true;
	}
	if (fr->kernel) {
		fr->dso = "[kernel.kallsyms]";
		fr->sym = symcache_resolve_kernel(s->syms, fr->ip, &fr->sym_off);
		if (!fr->sym)
			fr->sym_off = fr->ip;
		return true;
	}
	m = mg_find(t->mg, fr->ip);
	if (!m) {
		/* an address in no mapping (a broken frame-pointer chain's junk,
		 * code before the exec): [unknown], as perf's thread__find_map,
		 * whatever a JIT map says */
		fr->dso = "[unknown]";
		return true;
	}
	if (m->exec && (!strncmp(m->dso, "//anon", 6) || !strncmp(m->dso, "[anon", 5))) {
		/* JIT code: anonymous executable memory, named by the process's
		 * /tmp/perf-PID.map (anonymous data, recorded with -d, stays
		 * "//anon": perf's map__new) */
		const char *name, *map_path;

		if (!s->jit)
			s->jit = perfmap_cache_new(NULL);
		fr->sym = perfmap_lookup(s->jit, t->pid, fr->ip, true, &name, &map_path,
					 &fr->sym_off);
		if (map_path) {
			fr->dso = map_path;
			if (!fr->sym)
				fr->sym_off = fr->ip;
			return fr->sym != NULL;   /* the map may grow (perfmap.h) */
		}
		/* a missing map stays missing (perfmap.h); the anonymous code
		 * keeps the map's name as its DSO, as perf's map__new */
		fr->dso = name;
		fr->sym_off = fr->ip;
		return true;
	}
	fr->dso = m->dso;
	file_off = m->identity ? fr->ip : fr->ip - m->start + m->pgoff;
	fr->map_ip = file_off;
	fr->sym_off = file_off;
	const char *file = m->no_symbols ? NULL : dso_file(s, m->dso);

	if (file || (m->no_symbols && !strcmp(m->dso, "[vdso]") && vdso_image(s))) {
		fr->sym = symcache_resolve(s->syms, m->no_symbols ? s->vdso_image : file, file_off,
					   &fr->sym_off, &fr->addr);
		if (!fr->sym)
			fr->sym_off = file_off;
	}
	return true;
}

static void rf_clear(struct session *s)
{
	free(s->rf);
	s->rf = NULL;
}

/* fr's slot in the resolved-frame cache, or NULL when not cached. */
static struct rf_ent *rf_slot(struct session *s, const struct thread *t, const struct pk_frame *fr)
{
	uint64_t ver = fr->kernel ? 0 : t->mg ? t->mg->ver : UINT64_MAX;
	uint32_t pid = fr->kernel ? 0 : t->pid;
	uint64_t h = (fr->ip ^ ver * 0xff51afd7ed558ccdULL ^ (uint64_t)pid << 32) * 0x9e3779b97f4a7c15ULL;

	if (ver == UINT64_MAX || (!fr->ip && !ver))
		return NULL;
	if (!s->rf)
		s->rf = xcalloc((size_t)1 << RF_BITS, sizeof(*s->rf));
	return &s->rf[h >> (64 - RF_BITS)];
}

/* The frames' cache slots are fetched together, not one miss after the other. */
static void rf_prefetch(struct session *s, const struct thread *t, const struct pk_frame *fr, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct rf_ent *e = rf_slot(s, t, &fr[i]);

		if (e)
			__builtin_prefetch(e);
	}
}

static void resolve(struct session *s, struct thread *t, struct pk_frame *fr)
{
	struct rf_ent *e = rf_slot(s, t, fr);
	uint64_t ver = fr->kernel ? 0 : t->mg->ver;
	uint32_t pid = fr->kernel ? 0 : t->pid;

	if (!e) {
		(void)resolve_frame(s, t, fr);
		return;
	}
	if (e->ip == fr->ip && e->ver == ver && e->pid == pid && e->kernel == fr->kernel) {
		fr->sym = e->sym;
		fr->dso = e->dso;
		fr->sym_off = e->sym_off;
		fr->addr = e->addr;
		fr->map_ip = e->map_ip;
		fr->inlined = false;
		fr->inl_depth = 0;
		return;
	}
	if (resolve_frame(s, t, fr))
		*e = (struct rf_ent){ fr->ip, ver, fr->sym, fr->dso, fr->sym_off, fr->addr, fr->map_ip, pid,
			      fr->kernel };
}

/* ---- build-ids: the file a DSO's symbols come from ---- */

static bool same_bid(const char *path, const struct pd_build_id *b)
{
	return bid_matches(path, b->data, b->size);
}

/* The file to read for dso: the DSO itself when its build-id is the one
 * recorded (or none was, unless the file was deleted when mapped, named
 * "PATH (deleted)": whatever is at PATH now is another file), else a copy by build-id from perf's
 * cache (~/.debug/.build-id/xx/rest[/elf]) or the debug tree
 * (/usr/lib/debug/.build-id/xx/rest.debug); NULL when none matches: a
 * rebuilt binary is never read for an old recording. */
static const char *dso_file(struct session *s, const char *dso)
{
	int created;
	struct hm_entry *e = hm_upsert(&s->dsofiles, &dso, sizeof(dso), &created);
	const struct hm_entry *be;
	const struct pd_build_id *b;
	const char *res = dso;
	struct strbuf hex = STRBUF_INIT, cand = STRBUF_INIT;

	if (!created)
		return *(const char *)e->val.ptr ? e->val.ptr : NULL;
	/* a map's DSO keeps the kernel's " (deleted)" (perf's name): the
	 * file is the path before it */
	size_t dl = strlen(dso);
	const char *key = dso;
	bool deleted = dl > DELETED_LEN && !memcmp(dso + dl - DELETED_LEN, DELETED, DELETED_LEN);

	if (deleted) {
		dso = intern(s, dso, dl - DELETED_LEN);
		res = dso;
	}
	be = hm_find(&s->bids, dso, strlen(dso));
	b = be ? be->val.ptr : NULL;
	/* --symfs: the recorded path under that directory */
	const char *path = dso;

	if (symfs_on(s)) {
		sb_add(&cand, s->opts.symfs, (size_t)symfs_len(s));
		sb_addstr(&cand, dso);
		path = intern(s, cand.buf, cand.len);
		sb_reset(&cand);
		res = path;
	}
	struct stat st;

	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a FIFO (a reader would wait on it forever), a device, a
		 * directory: not an object file */
		res = NULL;
		pk_warn("%s: not a regular file: its symbols are shown as [unknown]", path);
	} else if (deleted && !(b && b->size >= 2)) {
		res = NULL;
		pk_warn("%s: deleted while it ran and no build-id was recorded for it: "
			"its symbols are shown as [unknown]", dso);
	} else if (b && b->size >= 2 && !same_bid(path, b)) {
		res = NULL;
		bid_hex(&hex, b->data, b->size);
		if (bid_find_root(symfs_on(s) ? s->opts.symfs : NULL, b->data, b->size, &cand) == 0)
			res = intern(s, cand.buf, cand.len);
		if (!res) {
			s->nr_replaced++;
			pk_warn("%s: %s (build-id %s; no copy in %s%.*s/usr/lib/debug): "
				"its symbols are shown as [unknown]", path,
				access(path, F_OK) ? "missing" : "not the file recorded, its build-id differs",
				hex.buf, symfs_on(s) ? "" : "~/.debug or ", symfs_on(s) ? symfs_len(s) : 0,
				symfs_on(s) ? s->opts.symfs : "");
		}
	}
	sb_release(&hex);
	sb_release(&cand);
	/* e may have moved: look up again */
	hm_find(&s->dsofiles, &key, sizeof(key))->val.ptr = (void *)(res ? res : "");
	return res;
}

const char *session_dso_file(struct session *s, const char *dso)
{
	if (dso && !strcmp(dso, "[vdso]"))
		return vdso_image(s);
	return dso && dso[0] == '/' ? dso_file(s, dso) : NULL;
}

static struct inline_resolver *inl_get(struct session *s)
{
	if (!s->inl) {
		s->inl = inline_resolver_new();
		inline_resolver_set_mark(s->inl, false);
	}
	return s->inl;
}

/* An item of fr's chain as perf 6.1 names it (session_opts.inline_perf):
 * binutils' addr2line gives the linkage name, else the DWARF name, but the
 * innermost item without a linkage name its ELF symbol; perf demangles. */
static const char *perf_inline_name(struct session *s, const struct inline_frame *v, bool innermost,
				    const struct pk_frame *fr)
{
	if (!v->linkage && innermost)
		return fr->sym;
	/* items live as long as the resolver: named once */
	int created;
	struct hm_entry *e = hm_upsert(&s->perfnames, &v, sizeof(v), &created);
	const char *r;

	if (!created)
		return e->val.ptr;
	const char *raw = v->linkage ? v->linkage : v->name ? v->name : "??";
	char *d = !s->opts.no_demangle && sym_is_mangled(raw) ? sym_demangle(raw, strlen(raw), 0)   /* as symbol names */
							      : NULL;

	r = d ? intern(s, d, strlen(d)) : intern(s, raw, strlen(raw));
	free(d);
	/* e may have moved: look up again */
	hm_find(&s->perfnames, &v, sizeof(v))->val.ptr = (void *)r;
	return r;
}

/* Inline frames from DWARF (symbol/inline.h's typed chains) for the n
 * frames of a sample; returns the new count.  Without perf
 * (session_opts.inline_): the inlined functions' frames, innermost first,
 * before each user frame whose address DWARF places in inlined code, a
 * caller looked up at its call (its ip is a return address).  With perf
 * (inline_perf, a DWARF sample): each frame replaced by its chain at its
 * own address, named as perf 6.1 names it. */
static size_t expand_inlines(struct session *s, size_t n, bool perf)
{
	size_t out = 0;

	for (size_t i = 0; i < n; i++) {
		const struct pk_frame *fr = &s->frames[i];
		const struct inline_frame *v = NULL;
		const char *file = !fr->kernel && fr->sym && fr->addr && fr->dso[0] == '/'
					   ? dso_file(s, fr->dso) : NULL;
		uint64_t at = perf ? fr->addr : fr->addr - (i > 0 && !s->frames[i - 1].kernel);
		int k = file ? inline_chain(inl_get(s), file, at, NULL, 0, 0, &v) : 0;
		size_t need = out + (k > 0 ? (size_t)k : 1);

		if (need > s->frames2_alloc) {
			s->frames2_alloc = need * 2 + 64;
			s->frames2 = xrealloc(s->frames2, s->frames2_alloc * sizeof(*s->frames2));
		}
		if (k <= 0) {
			s->frames2[out++] = *fr;
			continue;
		}
		/* the items are outermost first: the innermost first here; item
		 * 0 is the real function, fr itself unless perf names it apart */
		for (int j = k - 1; j >= 0; j--) {
			struct pk_frame *nf = &s->frames2[out++];
			const char *name = perf ? perf_inline_name(s, &v[j], j == k - 1, fr) : NULL;

			*nf = *fr;
			if (perf && j < UINT8_MAX)
				nf->inl_depth = (uint8_t)(j + 1);
			if (perf && name != fr->sym && strcmp(name, fr->sym)) {
				nf->sym = name;   /* interned; sym_off: the frame's, as perf prints it */
				nf->inlined = true;
			} else if (!perf && j > 0) {
				name = v[j].name ? v[j].name : "??";
				nf->sym = intern(s, name, strlen(name));
				nf->sym_off = 0;
				nf->inlined = true;
			}
		}
	}
	/* swap the buffers */
	struct pk_frame *t = s->frames;
	size_t ta = s->frames_alloc;

	s->frames = s->frames2;
	s->frames_alloc = s->frames2_alloc;
	s->frames2 = t;
	s->frames2_alloc = ta;
	return out;
}

/* perf's srcline where no line is known but the symbol is: "sym+OFFSET",
 * the offset in decimal (util/srcline.c) */
static const char *srcline_sym(struct session *s, const struct pk_frame *fr)
{
	char buf[32];

	sb_reset(&s->tmp);
	sb_addstr(&s->tmp, fr->sym);
	snprintf(buf, sizeof(buf), "+%" PRIu64, fr->sym_off);
	sb_addstr(&s->tmp, buf);
	return intern(s, s->tmp.buf, s->tmp.len);
}

/* DSO[ADDR] (perf's srcline of an address without a line): the DSO's
 * short name (a JIT map's as perf names it), ADDR in hex. */
static const char *srcline_addr(struct session *s, const char *dso, uint64_t addr)
{
	const char *base = dso[0] == '[' ? NULL : strrchr(dso, '/');
	char buf[64];

	sb_reset(&s->tmp);
	if (perfmap_jit_name(dso, buf, sizeof(buf)))
		sb_addstr(&s->tmp, buf);
	else
		sb_addstr(&s->tmp, base ? base + 1 : dso);
	snprintf(buf, sizeof(buf), "[%" PRIx64 "]", addr);   /* perf: no "+" */
	sb_addstr(&s->tmp, buf);
	return intern(s, s->tmp.buf, s->tmp.len);
}

/* script: the symbol is never the fallback (perf script's
 * map__fprintf_srcline passes none) */
static const char *srcline_of(struct session *s, const struct pk_frame *fr, bool script);

const char *session_srcline(struct session *s, const struct pk_frame *fr)
{
	return srcline_of(s, fr, false);
}

/* "FILE:LINE" interned, FILE the basename of src ("??" when NULL), as
 * addr2line and perf print a srcline. */
static const char *srcline_text(struct session *s, const char *src, int line)
{
	const char *base = src ? strrchr(src, '/') : NULL;
	char buf[24];

	sb_reset(&s->tmp);
	sb_addstr(&s->tmp, !src ? "??" : base ? base + 1 : src);
	snprintf(buf, sizeof(buf), ":%d", line);
	sb_addstr(&s->tmp, buf);
	return intern(s, s->tmp.buf, s->tmp.len);
}

const char *session_script_srcline(struct session *s, const struct pk_frame *fr)
{
	if (!fr->dso || !strcmp(fr->dso, "[unknown]"))
		return NULL;
	if (fr->kernel)   /* no vmlinux lines: the address */
		return srcline_addr(s, fr->dso, fr->ip);
	if (fr->inl_depth && fr->addr && fr->dso[0] == '/') {
		/* a frame of an inline chain: its item's line (the call site
		 * of the item inside it; the innermost: the address's), as
		 * perf's callchain nodes carry them */
		const char *file = dso_file(s, fr->dso);
		const struct inline_frame *v = NULL;
		int k = file ? inline_chain(inl_get(s), file, fr->addr, NULL, 0, 0, &v) : 0;

		if (k >= fr->inl_depth && v[fr->inl_depth - 1].file && v[fr->inl_depth - 1].line > 0)
			return srcline_text(s, v[fr->inl_depth - 1].file, v[fr->inl_depth - 1].line);
	}
	const char *l = srcline_of(s, fr, true);

	return strncmp(l, "??:0", 4) ? l : NULL;   /* perf prints no unknown line */
}

static const char *srcline_of(struct session *s, const struct pk_frame *fr, bool script)
{
	struct {
		const char *dso;
		uint64_t addr;
		uint64_t script;
	} key = { fr->dso, fr->addr ? fr->addr : fr->sym_off, script };
	int created;
	struct hm_entry *e;
	const char *res;

	if (!fr->dso || !strcmp(fr->dso, "[unknown]") || (fr->kernel && !fr->sym))
		return "[unknown]";
	if (fr->kernel)   /* no vmlinux lines: perf's "sym+offset" (decimal) */
		return srcline_sym(s, fr);
	e = hm_upsert(&s->srclines, &key, sizeof(key), &created);
	if (!created)
		return e->val.ptr;
	const char *file = fr->addr && fr->dso[0] == '/' ? dso_file(s, fr->dso) : NULL;
	const char *src = NULL;
	int line = 0, rc = file ? inline_line(inl_get(s), file, fr->addr, &src, &line) : -ENOENT;

	/* DWARF that holds no unit of the address: binutils' addr2line finds
	 * the function in the symbol table and answers "??:?", perf's srcline
	 * "??:0" (crt1's _start); without a symbol (a PLT stub's "@plt" is
	 * perf's own name) "??:0", which perf takes for no answer: the
	 * fallback below.  A unit without a line for it: ":?", ":0" (ld.so's
	 * _start) */
	size_t sl = fr->sym ? strlen(fr->sym) : 0;
	bool plt = sl >= 4 && !strcmp(fr->sym + sl - 4, "@plt");

	if (rc == -ENODATA && (!sl || plt))
		rc = -ENOENT;
	/* perf script, a function of a file without DWARF: "??:0" too (no
	 * line printed; "??:0" in a DWARF sample's chain), not DSO[ADDR] */
	if (script && rc == -ENOENT && file && sl && !plt) {
		res = "??:0";
		goto done;
	}
	if (rc == -ENODATA || (rc == 0 && !src && !line)) {
		res = rc ? "??:0" : ":0";
		goto done;
	}
	/* the line-table entry (the innermost inlined item's line): "file:line",
	 * file's basename */
	if (rc == 0) {
		res = srcline_text(s, src, line);
		goto done;
	}
	res = fr->sym && !script ? srcline_sym(s, fr) : srcline_addr(s, fr->dso, key.addr);
done:
	/* e may have moved while interning into another map: look up again */
	hm_find(&s->srclines, &key, sizeof(key))->val.ptr = (void *)res;
	return res;
}

const char *session_chain_srcline(struct session *s, const struct pk_frame *fr, bool address)
{
	const char *t;
	size_t n, len, sl;

	if (!fr->sym)
		return NULL;
	t = session_srcline(s, fr);
	n = len = strlen(t);
	while (n && t[n - 1] >= '0' && t[n - 1] <= '9')
		n--;
	if (n > 1 && n < len && t[n - 1] == ':')   /* "file.c:LINE" */
		return t;
	sl = strlen(fr->sym);
	if (address && !strncmp(t, fr->sym, sl) && t[sl] == '+')   /* "SYM+OFF" */
		return t + sl;
	return NULL;
}

static struct pk_frame *frame_slot(struct session *s, size_t n)
{
	if (n >= s->frames_alloc) {
		s->frames_alloc = s->frames_alloc ? s->frames_alloc * 2 : 64;
		s->frames = xrealloc(s->frames, s->frames_alloc * sizeof(*s->frames));
	}
	memset(&s->frames[n], 0, sizeof(s->frames[n]));   /* no field left from an earlier sample */
	return &s->frames[n];
}

/* Append the user frames unwound from a --call-graph dwarf sample after the
 * n frames there are; returns the new count. */
static size_t unwind_user(struct session *s, struct thread *t, const struct pd_sample *raw,
			  size_t n, bool *truncated)
{
	const struct mapgroup *g = t->mg;
	size_t nm = 0, max = 1024;
	bool trunc = false;
	int got;

	/* as perf (thread__resolve_callchain): the kernel part and the unwound
	 * user part are each limited to max_stack frames */
	if (s->opts.max_stack > 0)
		max = (size_t)s->opts.max_stack;
	if (!max || !g)
		return n;
	if (!s->unw) {
		s->unw = unwinder_new(s->syms);
		s->upcs = xmalloc(1024 * sizeof(*s->upcs));
	}
	if (max > 1024)
		max = 1024;
	/* the file-backed maps (and [vdso]) change only with the generation,
	 * which is unique across map groups: rebuild the list only then */
	if (s->umaps_gen == g->gen && s->umaps)
		goto unwind;
	if (g->nr > s->umaps_alloc) {
		s->umaps_alloc = g->nr * 2;
		s->umaps = xrealloc(s->umaps, s->umaps_alloc * sizeof(*s->umaps));
	}
	for (size_t i = 0; i < g->nr; i++) {
		const struct map *m = &g->v[i];
		const char *dso = m->dso;

		if (m->no_symbols) {
			if (strcmp(dso, "[vdso]") || !vdso_image(s))
				continue;
			dso = s->vdso_image;
		} else if (!(dso = dso_file(s, dso))) {
			continue;
		}
		s->umaps[nm++] = (struct unwind_map){ m->start, m->end, m->pgoff, dso };
	}
	s->umaps_nr = nm;
	s->umaps_gen = g->gen;
unwind:
	got = unwind_sample(s->unw, g, g->gen, s->umaps, s->umaps_nr, t->pid, raw, s->upcs, max,
			    &trunc);
	if (got <= 0)
		return n;
	/* max reached is --max-stack doing its job, not a truncation */
	if (trunc && !((size_t)got == max && s->opts.max_stack > 0))
		*truncated = true;
	for (int i = 0; i < got; i++) {
		struct pk_frame *fr = frame_slot(s, n++);

		fr->ip = s->upcs[i];
		fr->kernel = false;
	}
	return n;
}

bool session_sym_is_entry(const char *sym)
{
	static const char *const exact[] = {
		"_start", "__libc_start_call_main", "_dl_start_user", "_dl_start", "clone", "clone3",
		"start_thread", "thread_start", "runtime.goexit", "runtime.rt0_go", "runtime.mstart",
	};

	if (!sym)
		return false;
	if (!strncmp(sym, "__libc_start_main", 17) || !strncmp(sym, "__clone", 7))
		return true;   /* __libc_start_main_impl, …@@GLIBC_2.34, __clone3, __clone_internal */
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(sym, exact[i]))
			return true;
	return false;
}

/* A frame-pointer chain of n resolved frames: whole or broken (session.h). */
static void count_fp_chain(struct session *s, size_t n)
{
	const struct pk_frame *outer = NULL;

	for (size_t i = n; i-- > 0;)
		if (!s->frames[i].kernel) {
			outer = &s->frames[i];
			break;
		}
	if (!outer)
		return;   /* kernel only */
	s->stats.nr_fp_chains++;
	if (outer->sym) {   /* names are the symbol tables': one answer per pointer */
		struct entry_memo *e = &s->entry_memo[((uintptr_t)outer->sym >> 3) % ENTRY_MEMO];

		if (e->sym != outer->sym)
			*e = (struct entry_memo){ outer->sym, session_sym_is_entry(outer->sym) };
		if (e->is_entry)
			return;
	}
	s->stats.nr_fp_broken++;
	size_t k, nk = sizeof(s->broken_dsos) / sizeof(s->broken_dsos[0]);
	for (k = 0; k < nk && s->broken_dsos[k].dso && s->broken_dsos[k].dso != outer->dso; k++)
		;
	if (k < nk) {
		s->broken_dsos[k].dso = outer->dso;
		s->broken_dsos[k].n++;
	}
}

static void warn_fp_chains(const struct session *s)
{
	const struct session_stats *st = &s->stats;
	const char *dso = NULL;
	uint64_t most = 0;

	if (st->nr_fp_chains < 20 || st->nr_fp_broken == st->nr_fp_chains ||
	    st->nr_fp_broken * 10 < st->nr_fp_chains)
		return;
	for (size_t k = 0; k < sizeof(s->broken_dsos) / sizeof(s->broken_dsos[0]); k++)
		if (s->broken_dsos[k].n > most) {
			most = s->broken_dsos[k].n;
			dso = s->broken_dsos[k].dso;
		}
	const char *base = dso ? strrchr(dso, '/') : NULL;
	pk_warn("%s: %.0f%% of the frame-pointer call chains (%llu of %llu samples) stop before the "
		"program's entry (_start, __libc_start_main, clone, start_thread): their callers are "
		"lost, most in %s, likely built without frame pointers (as Debian's libc); record "
		"with --call-graph dwarf for whole stacks",
		s->f->path, 100.0 * (double)st->nr_fp_broken / (double)st->nr_fp_chains,
		(unsigned long long)st->nr_fp_broken, (unsigned long long)st->nr_fp_chains,
		base ? base + 1 : dso ? dso : "[unknown]");
}

/* The sample's period (a fixed one, -c N, is in the attr, not in each
 * sample), counted; smp's fields from raw, then smp to fn. */
static int hand_over(struct session *s, struct pd_sample *raw, struct pk_sample *smp, uint16_t cpumode,
		     session_sample_fn fn, void *arg)
{
	if (!(raw->evsel->attr.sample_type & PERF_SAMPLE_PERIOD))
		raw->period = raw->evsel->attr.freq ? 1 : raw->evsel->attr.sample_period;
	s->stats.nr_samples++;
	s->stats.total_period += raw->period;
	smp->raw = raw;
	smp->event = raw->evsel->name;
	smp->pid = raw->pid;
	smp->tid = raw->tid;
	smp->cpu = raw->cpu;
	smp->time = raw->time;
	smp->period = raw->period;
	smp->cpumode = cpumode;
	return fn(smp, arg);
}

static int do_sample(struct session *s, const struct perf_event_header *h, session_sample_fn fn,
		     void *arg, bool *bad)
{
	struct pd_sample raw;
	struct pk_sample smp;
	struct thread *t;
	size_t n = 0;
	uint16_t cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	bool kernel = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;

	if (pd_parse_sample(s->f, h, &raw)) {
		*bad = true;
		return 0;
	}
	if (s->opts.counts_only) {   /* counted, not resolved */
		memset(&smp, 0, sizeof(smp));
		return hand_over(s, &raw, &smp, cpumode, fn, arg);
	}
	/* a thread object stays its tid's until session_trim frees it */
	t = s->last_t && s->last_t->tid == raw.tid ? s->last_t : thread_findnew(s, raw.pid, raw.tid);
	s->last_t = t;
	bool dwarf = (raw.evsel->attr.sample_type & PERF_SAMPLE_REGS_USER) && raw.user_regs &&
		     raw.user_regs_abi && raw.user_stack_size;
	bool truncated = false, cut = false;
	if (raw.callchain && raw.nr_callchain && !s->opts.no_callchain) {
		uint64_t entries = 0;
		unsigned limit = raw.evsel->attr.sample_max_stack ? raw.evsel->attr.sample_max_stack
								  : s->kmax_stack;

		for (uint64_t i = 0; i < raw.nr_callchain; i++) {
			uint64_t ip = raw.callchain[i];
			struct pk_frame *fr;

			if (ip >= PERF_CONTEXT_MAX) {
				if (ip != PERF_CONTEXT_HV && ip != PERF_CONTEXT_KERNEL &&
				    ip != PERF_CONTEXT_USER) {
					/* a context perf does not take in a host
					 * chain (a guest one, or garbage: seen as
					 * -1 and GUEST_KERNEL after a user frame of
					 * a compile job): perf drops the whole
					 * chain, the sample keeps its ip (as when
					 * nothing was recorded) */
					n = 0;
					entries = 0;
					cut = false;
					break;
				}
				kernel = ip == PERF_CONTEXT_KERNEL || ip == PERF_CONTEXT_GUEST_KERNEL;
				continue;
			}
			entries++;
			if (dwarf && !kernel)
				continue;  /* user part comes from the unwinder */
			if (s->opts.max_stack > 0 && n >= (size_t)s->opts.max_stack) {
				cut = true;
				break;
			}
			fr = frame_slot(s, n++);
			fr->ip = ip;
			fr->kernel = kernel;
		}
		/* the kernel stops at perf_event_max_stack entries: such a chain
		 * lacks its outer callers */
		if (limit && entries >= limit && !dwarf)
			truncated = true;
	}
	/* DWARF: the user part has its own max_stack (perf's unwinder), a
	 * kernel part cut at it keeps it */
	if (dwarf && !s->opts.no_callchain)
		n = unwind_user(s, t, &raw, n, &truncated);
	smp.chain_empty = n == 0 && (raw.evsel->attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
			  !s->opts.no_callchain;
	if (n == 0) {
		struct pk_frame *fr = frame_slot(s, n++);

		fr->ip = raw.ip;
		fr->kernel = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
	}
	rf_prefetch(s, t, s->frames, n);
	for (size_t i = 0; i < n; i++)
		resolve(s, t, &s->frames[i]);
	if (raw.callchain && raw.nr_callchain && !s->opts.no_callchain && !dwarf && !truncated && !cut)
		count_fp_chain(s, n);
	if (s->opts.inline_ || (s->opts.inline_perf && dwarf))
		n = expand_inlines(s, n, !s->opts.inline_);
	if (truncated) {
		/* shown as the outermost frame, so a cut stack never poses as
		 * top-level code */
		struct pk_frame *fr = frame_slot(s, n++);

		s->stats.nr_truncated++;
		memset(fr, 0, sizeof(*fr));   /* inlined, addr: none */
		fr->sym = "[truncated]";
		fr->dso = "[unknown]";
	}
	smp.truncated = truncated;
	smp.dwarf = dwarf;
	smp.comm = t->comm;
	smp.nr_frames = n;
	smp.frames = s->frames;
	return hand_over(s, &raw, &smp, cpumode, fn, arg);
}

static int process_record(struct session *s, uint64_t rpos, session_sample_fn fn, void *arg,
			  uint64_t *bad, uint64_t *bad_off)
{
	const uint8_t *p = s->f->map + s->f->data_offset + rpos;
	const struct perf_event_header *h = (const struct perf_event_header *)p;
	int ret = 0;

	s->stats.nr_records++;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
	{
		bool malformed = false;

		ret = do_sample(s, h, fn, arg, &malformed);
		if (malformed && !(*bad)++)
			*bad_off = pd_offset(s->f, h);
		break;
	}
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		do_mmap(s, h, p);
		break;
	case PERF_RECORD_COMM:
		do_comm(s, h, p);
		break;
	case PERF_RECORD_FORK:
		do_fork(s, h, p);
		break;
	case PERF_RECORD_LOST:
		if (h->size >= 24)
			sat_add(&s->stats.nr_lost_records, rd64(p + 16));
		break;
	case PERF_RECORD_LOST_SAMPLES:
		/* PERF_RECORD_MISC_LOST_SAMPLES_BPF (1 << 15): dropped
		 * by a BPF filter, not lost; perf does not count them */
		if (h->size >= 16 && !(h->misc & (1u << 15)))
			sat_add(&s->stats.nr_lost, rd64(p + 8));
		break;
	case PERF_RECORD_EXIT:
		/* the thread stays: late samples still resolve (session_trim
		 * drops it) */
		if (h->size >= 24) {
			struct thread *t = thread_find(s, rd32(p + 16));

			if (t)
				t->exited = true;
		}
		break;
	default:
		break;
	}
	if (s->side_types && !ret)   /* session_set_side_fn's records, as applied */
		ret = side_event(s, h, p);
	return ret;
}

/* Process the queued records with time <= upto in time order (file order
 * for equal times) and keep the others queued. */
static int flush_queue(struct session *s, uint64_t upto, uint64_t next_pos, bool *sorted,
		       session_sample_fn fn, void *arg, uint64_t *bad, uint64_t *bad_off)
{
	size_t i, n = s->nr_recs;
	int ret = 0;

	if (!*sorted)
		recs_sort(s->recs, n);
	*sorted = true;
	for (i = 0; i < n && s->recs[i].time <= upto && !ret; i++)
		ret = process_record(s, s->recs[i].pos, fn, arg, bad, bad_off);
	memmove(s->recs, s->recs + i, (n - i) * sizeof(*s->recs));
	s->nr_recs = n - i;
	/* the file before the lowest record still queued is done with */
	uint64_t low = next_pos;
	for (size_t k = 0; k < s->nr_recs; k++)
		if (s->recs[k].pos < low)
			low = s->recs[k].pos;
	pd_release_before(s->f, low);
	return ret;
}

/*
 * Records are applied in time order as perf does (ordered_events): they are
 * queued, and at each FINISHED_ROUND the queued records up to the largest
 * time seen before the previous round are sorted and processed, the rest
 * wait.  Memory then follows a round's records (two at most), not the
 * file's: a file without rounds is sorted whole, as before.
 */
static void queue_reset(struct session *s)
{
	free(s->recs);
	s->recs_alloc = 1024;
	s->recs = xmalloc(s->recs_alloc * sizeof(*s->recs));
	s->nr_recs = 0;
	s->q_limit = s->q_seen_max = s->q_last = 0;
	s->q_bad = s->q_bad_off = 0;
	s->q_sorted = true;
}

/* Queue and process the records of the data section from pos on (see
 * session_process); with final, everything queued is processed at the
 * end, else the records a later round may still precede stay queued. */
static int process_data(struct session *s, uint64_t pos, bool final, session_sample_fn fn, void *arg)
{
	const struct pd_file *f = s->f;
	const struct perf_event_header *h;
	uint64_t here = pos;
	bool id_time = f->nr_evsels && f->evsels[0].attr.sample_id_all &&
		       (f->evsels[0].attr.sample_type & PERF_SAMPLE_TIME);
	int ret = 0;

	while (!ret && pd_next(f, &pos, &h) == 1) {
		struct rec_ref r = { 0, here };
		uint32_t type;

		memcpy(&type, h, sizeof(type));   /* h may be unaligned (below) */
		if (type < 128)
			s->stats.nr_by_type[type]++;
		if (((uintptr_t)h & 7) || (here & 7) || (pos & 7)) {   /* absolute: the data offset may be odd */
			/* perf's COMPRESSED records are not 8-byte multiples: count
			 * them here, never touch them unaligned later */
			if (type == PD_RECORD_COMPRESSED)
				s->nr_compressed++;
			here = pos;
			continue;
		}
		here = pos;
		if (h->type == PD_RECORD_COMPRESSED) {
			s->nr_compressed++;
			continue;
		}
		if (h->type == PD_RECORD_FINISHED_ROUND) {
			s->stats.nr_records++;
			ret = flush_queue(s, s->q_limit, pos, &s->q_sorted, fn, arg, &s->q_bad, &s->q_bad_off);
			s->q_limit = s->q_seen_max;
			/* the queue is sorted now: a new record compares with its end */
			s->q_last = s->nr_recs ? s->recs[s->nr_recs - 1].time : 0;
			continue;
		}
		if (s->opts.counts_only) {   /* counted: in no order, nothing queued */
			ret = process_record(s, r.pos, fn, arg, &s->q_bad, &s->q_bad_off);
			pd_release_before(f, pos);   /* the file read so far (8 MiB steps) */
			continue;
		}
		if (h->type == PERF_RECORD_SAMPLE) {
			/* its time only: the sample is decoded once, when processed */
			uint64_t tm;

			if (pd_sample_time(f, h, &tm) == 0)
				r.time = tm;
		} else if (id_time && h->type < PD_RECORD_HEADER_ATTR) {
			struct pd_sample_id sid;

			if (pd_parse_sample_id(f, h, &sid) == 0 && sid.valid)
				r.time = sid.time;
		}
		if (r.time < s->q_last)
			s->q_sorted = false;
		s->q_last = r.time;
		if (r.time > s->q_seen_max)
			s->q_seen_max = r.time;
		if (s->nr_recs == s->recs_alloc) {
			s->recs_alloc *= 2;
			s->recs = xrealloc(s->recs, s->recs_alloc * sizeof(*s->recs));
		}
		s->recs[s->nr_recs++] = r;
	}
	if (!ret && final)
		ret = flush_queue(s, UINT64_MAX, pos, &s->q_sorted, fn, arg, &s->q_bad, &s->q_bad_off);
	return ret;
}

static void process_warnings(struct session *s)
{
	if (s->nr_compressed)
		pk_warn("%s: %llu compressed records (perf record -z) skipped: not supported", s->f->path,
			(unsigned long long)s->nr_compressed);
	if (s->q_bad)
		pk_warn("%s: %llu malformed samples skipped (first at offset %llu)", s->f->path,
			(unsigned long long)s->q_bad, (unsigned long long)s->q_bad_off);
	warn_fp_chains(s);
}

/*
 * Records are applied in time order as perf does (ordered_events): they are
 * queued, and at each FINISHED_ROUND the queued records up to the largest
 * time seen before the previous round are sorted and processed, the rest
 * wait.  Memory then follows a round's records (two at most), not the
 * file's: a file without rounds is sorted whole, as before.
 */
static int process_stream(struct session *s, session_sample_fn fn, void *arg);

int session_process(struct session *s, session_sample_fn fn, void *arg)
{
	int ret;

	memset(&s->stats, 0, sizeof(s->stats));
	memset(s->broken_dsos, 0, sizeof(s->broken_dsos));
	s->nr_compressed = 0;
	if (pd_is_stream(s->f))
		return process_stream(s, fn, arg);
	queue_reset(s);
	ret = process_data(s, 0, true, fn, arg);
	free(s->recs);
	s->recs = NULL;
	s->nr_recs = 0;
	if (ret)
		return ret;
	process_warnings(s);
	return 0;
}

int session_feed(struct session *s, const void *data, size_t len, bool final, session_sample_fn fn,
		 void *arg)
{
	size_t carry = s->feed_len;
	int ret;

	if (!s->recs)
		queue_reset(s);
	if (carry + len > s->feed_alloc) {
		s->feed_alloc = (carry + len) * 2 + 4096;
		s->feed = xrealloc(s->feed, s->feed_alloc);
	}
	if (len)
		memcpy(s->feed + carry, data, len);
	s->feed_len = carry + len;
	pd_set_data(s->f, s->feed, s->feed_len);
	ret = process_data(s, carry, final, fn, arg);
	/* keep the records still queued, in queue order, at the front */
	if (!s->nr_recs) {
		s->feed_len = 0;
	} else {
		uint8_t *keep = xmalloc(s->feed_alloc);
		size_t n = 0;

		for (size_t i = 0; i < s->nr_recs; i++) {
			const struct perf_event_header *h = (const void *)(s->feed + s->recs[i].pos);

			memcpy(keep + n, h, h->size);
			s->recs[i].pos = n;
			n += h->size;
		}
		free(s->feed);
		s->feed = keep;
		s->feed_len = n;
	}
	pd_set_data(s->f, s->feed, s->feed_len);
	if (final && !ret)
		process_warnings(s);
	return ret;
}

/* A pipe-mode stream: its pieces through session_feed as they are read,
 * so memory follows a piece and the ordering window, not the stream. */
static int process_stream(struct session *s, session_sample_fn fn, void *arg)
{
	const void *data;
	size_t len;
	int ret = 0, r;

	if (pd_stream_started(s->f))
		return pk_error(EINVAL, "%s: a stream is read once; it was read already", s->f->path);
	while (!ret && (r = pd_stream_next(s->f, &data, &len)) == 1)
		ret = session_feed(s, data, len, false, fn, arg);
	if (!ret && r < 0)
		ret = r;
	if (!ret)
		ret = session_feed(s, NULL, 0, true, fn, arg);
	free(s->recs);
	s->recs = NULL;
	s->nr_recs = 0;
	return ret;
}

/* The symbol tables of binaries no live thread maps any more (a machine
 * that builds and runs new programs all day): once the cache holds more
 * than twice the DSOs mapped now (plus 64), start it afresh; what is still
 * mapped is loaded again on its next sample.  Not while the DWARF
 * unwinder holds the cache. */
static void trim_symbols(struct session *s)
{
	size_t nd = symcache_nr_dsos(s->syms);

	if (s->unw || nd <= 64 || nd < s->syms_checked + 32)
		return;   /* checked at 32 DSOs more at the earliest */
	s->syms_checked = nd;
	{
		struct hashmap live_dsos;

		hm_init(&live_dsos);
		for (size_t i = 0; i < s->threads.nr; i++) {
			const struct mapgroup *g = s->threads.entries[i].val.ptr
				? ((struct thread *)s->threads.entries[i].val.ptr)->mg : NULL;

			for (size_t k = 0; g && k < g->nr; k++)
				if (!g->v[k].no_symbols)
					hm_upsert(&live_dsos, &g->v[k].dso, sizeof(g->v[k].dso), NULL);
		}
		if (symcache_nr_dsos(s->syms) > 2 * live_dsos.nr + 64) {
			symcache_free(s->syms);
			rf_clear(s);   /* its entries name the cache's symbols */
			s->syms = symcache_new();
			symcache_set_demangle(s->syms, !s->opts.no_demangle);
			s->syms_checked = 0;
		}
		hm_release(&live_dsos);
	}
}

void session_trim(struct session *s)
{
	struct thread **live;
	size_t n = 0, nr = s->threads.nr;

	for (size_t i = 0; i < nr; i++)
		n += !((struct thread *)s->threads.entries[i].val.ptr)->exited;
	if (n == nr) {
		trim_symbols(s);
		return;
	}
	s->last_t = NULL;
	live = xmalloc((n ? n : 1) * sizeof(*live));
	n = 0;
	for (size_t i = 0; i < nr; i++) {
		struct thread *t = s->threads.entries[i].val.ptr;

		if (t->exited) {
			mg_put(t->mg);
			free(t);
		} else {
			live[n++] = t;
		}
	}
	hm_release(&s->threads);
	hm_init(&s->threads);
	for (size_t i = 0; i < n; i++)
		hm_upsert(&s->threads, &live[i]->tid, sizeof(live[i]->tid), NULL)->val.ptr = live[i];
	free(live);
	/* the unwinder's map list may name a freed group's generation: rebuilt
	 * on next use (generations are never reused) */
	/* /tmp/perf-PID.map lookups are remembered per process, also for the
	 * many that have none: start afresh once they pile up */
	if (perfmap_cache_nr(s->jit) > 1024) {
		perfmap_cache_free(s->jit);
		s->jit = NULL;
		rf_clear(s);   /* its entries name the map's symbols */
	}
	trim_symbols(s);
}

void session_close(struct session *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->threads.nr; i++) {
		struct thread *t = s->threads.entries[i].val.ptr;

		mg_put(t->mg);
		free(t);
	}
	hm_release(&s->threads);
	hm_release(&s->strings);
	unwinder_free(s->unw);
	perfmap_cache_free(s->jit);
	inline_resolver_free(s->inl);
	hm_release(&s->srclines);
	hm_release(&s->perfnames);
	hm_release(&s->dsofiles);
	hm_release(&s->bids);
	hm_release(&s->renames);
	sb_release(&s->tmp);
	free(s->frames2);
	free(s->rf);
	free(s->umaps);
	free(s->upcs);
	symcache_free(s->syms);
	free(s->recs);
	free(s->frames);
	free(s->feed);
	if (s->vdso_fd >= 0)
		close(s->vdso_fd);
	free(s->vdso_image);
	pd_close(s->f);
	free(s);
}
