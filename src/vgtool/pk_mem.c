/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pk_mem.c — the c2c and mem modes of pkcache (--pk-mode=c2c|mem), behind
 * `perfkit c2c record` and `perfkit mem record`.
 *
 * WHAT IS RECORDED
 * Every data access of the program (loads, stores, the memory effects of
 * dirty helpers, CAS as one read-modify-write; sizes capped at 64 bytes,
 * an access straddling two 64-byte lines counts on both) is attributed to
 *  - its 64-byte line: per thread, the loads, the stores and a bitmask of
 *    the bytes read and written once the program had created a thread (so
 *    a table filled before the readers start does not count as shared);
 *    per (instruction, thread, byte offset) the
 *    loads and stores (the "sites" of the line);
 *  - its data object, decided when the line is first touched: a live heap
 *    block (known from the allocation requests that pkmemwrap.so, preloaded
 *    into the program by perfkit, makes around malloc/calloc/realloc/
 *    memalign/free: one object per allocation call stack), the running
 *    thread's stack ("[stack]"), a global variable (the data symbol
 *    VG_(get_datasym_and_offset) names), or "[unknown]" in the mapping
 *    that holds it.  Allocating a block re-attributes its lines that are
 *    not already another heap object's (malloc touches a chunk's header
 *    before the block is reported); freeing it retires its lines, so a
 *    later block at the same address starts afresh.
 *  - mem mode: the level of the modern model (cachesim.h) that served the
 *    access (L1, L2, LL, memory) and whether the L1 dTLB missed, per
 *    (instruction, object, load|store).
 *
 * THE TRANSFER MODEL (cache-line transfers between cores, what perf c2c
 * reports as HITM)
 * An access made before the program creates its first thread is alone: it
 * is counted but moves no line.  All later accesses are taken to run at
 * the same time on separate cores, each thread spreading its accesses to a line evenly over
 * that multi-threaded part of the run.  Thread t, with a_t such accesses to
 * the line, must fetch the line from another core before one of them
 * whenever another thread wrote the line since t's previous access; with
 * the others' W_o writes spread evenly among t's a_t accesses that happens
 * min(a_t, W_o) times.  A line's estimate is the sum of min(a_t, W_o) over
 * its threads.  It uses each thread's own counts only, never the order or
 * the time slices in which Valgrind ran the threads (one at a time, and a
 * short thread often to its end before its siblings start).  A table
 * filled before the threads start and then only read costs nothing; two
 * threads bumping neighbouring counters N times each cost about 2N.  Not
 * modelled: phases (threads of two successive thread pools, or the main
 * thread after its joins, are taken as concurrent with the rest: a result
 * read once after a join adds one transfer), locks that keep threads
 * apart.
 *
 * OUTPUT: a text file, one record a line, fields separated by one space;
 * the last field of `code` and `object` holds tab-separated names in which
 * a backslash, tab, newline or other control byte is written \xHH.
 *   perfkit-memprof 1                       first line: format and version
 *   mode c2c|mem
 *   cmd TEXT                                the program and its arguments
 *   line-size 64
 *   desc TEXT                               the simulated caches (mem)
 *   model TEXT                              the transfer model, one line
 *   thread SERIAL TID                       every thread the program ran
 *   line 0xADDR OBJ TRANSFERS               a line touched by >= 2 threads
 *   lt SERIAL LOADS STORES TRANSFERS 0xREADMASK 0xWRITEMASK
 *                                           its threads (bit i = byte i)
 *   ls CODE SERIAL OFFSET SIZE LOADS STORES its sites
 *   acc CODE OBJ load|store N L1 L2 LL MEM TLB_L1 TLB_L2 TLB_LL TLB_MEM
 *                                           mem: N accesses, how many each
 *                                           level served, and among those
 *                                           how many missed the L1 dTLB
 *   stack ID N CODE...                      an allocation stack, innermost
 *                                           first (the caller of malloc)
 *   object ID heap|global|stack|unknown STACK NAME<TAB>MAPPING
 *                                           STACK: -1 unless heap
 *   code ID 0xIP LINE FUNCTION<TAB>FILE<TAB>OBJECT-FILE
 *   end LINES ACCS                          last line: how many line and
 *                                           acc records (absent: cut file)
 * References (CODE, OBJ, SERIAL, STACK) may come before their definition.
 */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_oset.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_machine.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_xarray.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_aspacemgr.h"
#include "libvex.h"

#include "pk_mem.h"
#include "perfkit_cache.h"

#define LBITS 6
#define LSIZE 64
#define NFRAMES 8
#define LCACHE 65536

enum { K_READ = 0, K_WRITE = 1, K_MODIFY = 2 };
enum { O_HEAP, O_GLOBAL, O_STACK, O_UNKNOWN };
static const HChar *const kind_name[] = { "heap", "global", "stack", "unknown" };

/* per (instruction, object, load|store): mem mode */
typedef struct MC {
	struct MC *next;
	UInt obj, store;
	ULong lvl[4], tlb[4];	/* accesses by serving level; of those, dTLB misses */
} MC;

/* one per instruction address (an OSet node, key ip) */
typedef struct {
	Addr ip;
	Int id;		/* output id, -1 until written */
	MC *mc;
	/* mem: the extent of the object this instruction touched last
	 * [last_lo, last_hi), valid while obj_gen is last_gen (no heap block
	 * allocated or freed since) */
	Addr last_lo, last_hi;
	UInt last_obj, last_gen;
	/* mem, the inline count: per load (0) / store (1), the counters of
	 * its last such access and its object's extent [flo, fhi), valid
	 * while obj_gen is fgen */
	MC *fmc[2];
	Addr flo[2], fhi[2];
	UInt fgen[2];
	struct Line *last_line;	/* c2c: the line touched last (same rule), */
	struct LThr *last_thr;	/* its thread record and */
	struct LSite *last_site;	/* its site record */
} Code;

typedef struct LThr {
	struct LThr *next;
	UInt serial;
	ULong loads, stores, xfer, ep_acc, ep_w, rmask, wmask, ep_rmask, ep_wmask;
} LThr;

typedef struct LSite {
	struct LSite *next;
	Code *code;
	UInt serial;
	UShort off, size;
	ULong loads, stores;
} LSite;

typedef struct Line {
	struct Line *hnext;
	Addr addr;
	UInt obj, epoch, nthr;
	LThr *thr;
	LSite *site;
	ULong transfers;
} Line;

typedef struct {
	Addr start;
	SizeT size;
	UInt obj;
} Block;

typedef struct {
	UInt n;
	Code *f[NFRAMES];
	UInt obj;
	Int id;
} Stack;

typedef struct {
	UInt kind;
	const HChar *name, *dso;
	Stack *stack;
	/* a global: [sym_lo, sym_hi) from the symbol's start to the end of
	 * the furthest line seen in it; sym_hi 1: two symbols of one name
	 * (no extent kept) */
	Addr sym_lo, sym_hi;
} Obj;

static enum pkm_mode mode;
static struct pk_hier *H;
static uint64_t scc[PK_NEV];	/* the simulator's counters (read as deltas) */
static UInt size_cap = LSIZE;

static OSet *codes, *blocks, *stacks, *named;
static XArray *objs;		/* Obj */
static XArray *tids;		/* Int: kernel tid per serial */
static XArray *dirty;		/* Line* touched in this epoch */
static XArray *retired;		/* Line* no longer in the table */
static UInt *tid2serial;	/* by Valgrind ThreadId; ~0u: none */
static UInt cur_serial, cur_epoch = 1;
static UInt n_live = 1;		/* 1 until the first thread creation */
static ThreadId cur_tid = 1;
static UInt stack_obj;
static UInt obj_gen = 1;	/* bumped when heap blocks come or go */
static MC no_mc = { NULL, ~0u, ~0u, { 0 }, { 0 } };	/* never matches */

static Line **ht;
static ULong ht_mask, ht_n;
static Line *lc[LCACHE];

/* ---- objects ---- */

static UInt obj_new(UInt kind, const HChar *name, const HChar *dso, Stack *st)
{
	Obj o = { kind, name, dso, st, 0, 0 };

	VG_(addToXA)(objs, &o);
	return (UInt)VG_(sizeXA)(objs) - 1;
}

typedef struct {
	const HChar *key;
	UInt obj;
} Named;

static Word cmp_named(const void *key, const void *elem)
{
	return VG_(strcmp)(*(const HChar *const *)key, ((const Named *)elem)->key);
}

/* the object of a global symbol or of an unknown mapping, by key */
static UInt obj_named(UInt kind, const HChar *name, const HChar *dso)
{
	HChar key[VG_(strlen)(name) + VG_(strlen)(dso) + 4];
	const HChar *k = key;
	Named *n;

	VG_(sprintf)(key, "%c%s\t%s", kind == O_GLOBAL ? 'g' : 'u', name, dso);
	n = VG_(OSetGen_Lookup)(named, &k);
	if (n)
		return n->obj;
	n = VG_(OSetGen_AllocNode)(named, sizeof(Named));
	n->key = VG_(strdup)("pkm.key", key);
	n->obj = obj_new(kind, VG_(strdup)("pkm.name", name), VG_(strdup)("pkm.dso", dso), NULL);
	VG_(OSetGen_Insert)(named, n);
	return n->obj;
}

static Word cmp_addr(const void *key, const void *elem)
{
	Addr a = *(const Addr *)key, b = *(const Addr *)elem;

	return a < b ? -1 : a > b;
}

static Word cmp_in_block(const void *key, const void *elem)
{
	Addr a = *(const Addr *)key;
	const Block *b = elem;

	if (a < b->start)
		return -1;
	return a >= b->start + b->size ? 1 : 0;
}

static Word cmp_stack(const void *key, const void *elem)
{
	const Stack *a = key, *b = elem;

	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (UInt i = 0; i < a->n; i++)
		if (a->f[i] != b->f[i])
			return (Addr)a->f[i] < (Addr)b->f[i] ? -1 : 1;
	return 0;
}

static Code *code_get(Addr ip)
{
	Code *c = VG_(OSetGen_Lookup)(codes, &ip);

	if (c)
		return c;
	c = VG_(OSetGen_AllocNode)(codes, sizeof(Code));
	c->ip = ip;
	c->id = -1;
	c->mc = NULL;
	c->last_lo = c->last_hi = 0;
	c->last_gen = 0;
	for (Int k = 0; k < 2; k++) {
		c->fmc[k] = &no_mc;
		c->flo[k] = c->fhi[k] = 0;
		c->fgen[k] = 0;
	}
	c->last_line = NULL;
	c->last_thr = NULL;
	c->last_site = NULL;
	VG_(OSetGen_Insert)(codes, c);
	return c;
}

static const HChar *seg_name(Addr a)
{
	NSegment const *seg = VG_(am_find_nsegment)(a);
	const HChar *f = seg ? VG_(am_get_filename)(seg) : NULL;

	return f ? f : "[anon]";
}

/* a's data object, and an extent [*lo, *hi) around a that has it too: the
 * heap block, the thread's stack, else a's 64-byte line */
static UInt obj_range(Addr a, Addr *lo, Addr *hi)
{
	Block *b = VG_(OSetGen_LookupWithCmp)(blocks, &a, cmp_in_block);
	DiEpoch ep;
	const HChar *name;
	PtrdiffT off;
	Addr smax;
	SizeT ssz;

	if (b) {
		*lo = b->start;
		*hi = b->start + b->size;
		return b->obj;
	}
	smax = VG_(thread_get_stack_max)(cur_tid);
	ssz = VG_(thread_get_stack_size)(cur_tid);
	if (a <= smax && a + ssz > smax) {
		*lo = smax + 1 - ssz;
		*hi = smax + 1;
		return stack_obj;
	}
	*lo = a & ~(Addr)(LSIZE - 1);
	*hi = *lo + LSIZE;
	ep = VG_(current_DiEpoch)();
	if (VG_(get_datasym_and_offset)(ep, a, &name, &off)) {
		/* .bss is an anonymous mapping: name the object file instead */
		const HChar *file = seg_name(a);

		for (const DebugInfo *di = VG_(next_DebugInfo)(NULL); di; di = VG_(next_DebugInfo)(di)) {
			Addr bss = VG_(DebugInfo_get_bss_avma)(di);

			if (bss && a >= bss && a < bss + VG_(DebugInfo_get_bss_size)(di)) {
				file = VG_(DebugInfo_get_filename)(di);
				break;
			}
		}
		UInt id = obj_named(O_GLOBAL, name, file);
		Obj *o = VG_(indexXA)(objs, id);
		Addr s0 = a - (Addr)off;

		if (o->sym_hi == 0)
			o->sym_lo = s0;
		if (o->sym_lo != s0)
			o->sym_hi = 1;
		else if (o->sym_hi != 1 && *hi > o->sym_hi)
			o->sym_hi = *hi;
		return id;
	}
	return obj_named(O_UNKNOWN, "[unknown]", seg_name(a));
}

/* ---- lines ---- */

static void ht_grow(void)
{
	ULong n = (ht_mask + 1) * 2;
	Line **t = VG_(calloc)("pkm.ht", n, sizeof(Line *));

	for (ULong i = 0; i <= ht_mask; i++)
		for (Line *l = ht[i], *nx; l; l = nx) {
			ULong h = (l->addr >> LBITS) & (n - 1);

			nx = l->hnext;
			l->hnext = t[h];
			t[h] = l;
		}
	VG_(free)(ht);
	ht = t;
	ht_mask = n - 1;
}

static Line *ht_find(Addr la)
{
	for (Line *l = ht[(la >> LBITS) & ht_mask]; l; l = l->hnext)
		if (l->addr == la)
			return l;
	return NULL;
}

static void ht_remove(Line *x)
{
	Line **p = &ht[(x->addr >> LBITS) & ht_mask];

	while (*p && *p != x)
		p = &(*p)->hnext;
	if (*p)
		*p = x->hnext;
	ht_n--;
	if (lc[(x->addr >> LBITS) & (LCACHE - 1)] == x)
		lc[(x->addr >> LBITS) & (LCACHE - 1)] = NULL;
}

static Line *line_get(Addr la, Addr a)
{
	ULong i = (la >> LBITS) & (LCACHE - 1);
	Line *l = lc[i];

	if (l && l->addr == la)
		return l;
	l = ht_find(la);
	if (!l) {
		ULong h;

		if (ht_n > ht_mask)
			ht_grow();
		h = (la >> LBITS) & ht_mask;
		l = VG_(calloc)("pkm.line", 1, sizeof(Line));
		l->addr = la;
		Addr lo, hi;

		l->obj = obj_range(a, &lo, &hi);
		l->hnext = ht[h];
		ht[h] = l;
		ht_n++;
	}
	lc[i] = l;
	return l;
}

/* the model: sum over threads of min(accesses, others' writes) */
static void fold(Line *l)
{
	ULong w = 0;
	UInt live = 0;

	for (LThr *t = l->thr; t; t = t->next) {
		w += t->ep_w;
		live += t->ep_acc > 0;
	}
	for (LThr *t = l->thr; t; t = t->next) {
		ULong o = w - t->ep_w, x = t->ep_acc < o ? t->ep_acc : o;

		t->xfer += x;
		l->transfers += x;
		if (live >= 2) {	/* the masks say what threads touch at once */
			t->rmask |= t->ep_rmask;
			t->wmask |= t->ep_wmask;
		}
		t->ep_acc = t->ep_w = t->ep_rmask = t->ep_wmask = 0;
	}
	l->epoch = 0;
}

static void end_epoch(void)
{
	Word n = VG_(sizeXA)(dirty);

	for (Word i = 0; i < n; i++) {
		Line *l = *(Line **)VG_(indexXA)(dirty, i);

		if (l->epoch == cur_epoch)
			fold(l);
	}
	VG_(dropTailXA)(dirty, n);
	cur_epoch++;
}

/* count an access of thread t at site s of line l (c2c: always shared) */
static inline void count(Line *l, LThr *t, LSite *s, UInt off, UInt n, UInt kind)
{
	ULong mask = (n >= 64 ? ~0ULL : ((1ULL << n) - 1)) << off;

	if (l->epoch != cur_epoch) {
		l->epoch = cur_epoch;
		VG_(addToXA)(dirty, &l);
	}
	if (n > s->size)
		s->size = (UShort)n;
	t->ep_acc++;
	if (kind != K_WRITE) {
		t->loads++;
		s->loads++;
		t->ep_rmask |= mask;
	}
	if (kind != K_READ) {
		t->stores++;
		s->stores++;
		t->ep_wmask |= mask;
		t->ep_w++;
	}
}

/* find (or add) the thread and site records of an access to l, count it,
 * and cache both in c for the next access */
static void touch(Line *l, Code *c, UInt off, UInt n, UInt kind)
{
	LThr *t = l->thr, **pt;
	LSite *s = l->site, **ps;
	Bool conc = True;

	if (!t || t->serial != cur_serial) {
		for (pt = &l->thr; *pt && (*pt)->serial != cur_serial; pt = &(*pt)->next)
			;
		t = *pt;
		if (t) {
			*pt = t->next;
		} else {
			t = VG_(calloc)("pkm.lthr", 1, sizeof(LThr));
			t->serial = cur_serial;
			l->nthr++;
		}
		t->next = l->thr;
		l->thr = t;
	}
	if (!s || s->code != c || s->serial != cur_serial || s->off != off) {
		for (ps = &l->site; *ps; ps = &(*ps)->next)
			if ((*ps)->code == c && (*ps)->serial == cur_serial && (*ps)->off == off)
				break;
		s = *ps;
		if (s) {
			*ps = s->next;
		} else {
			s = VG_(calloc)("pkm.lsite", 1, sizeof(LSite));
			s->code = c;
			s->serial = cur_serial;
			s->off = (UShort)off;
		}
		s->next = l->site;
		l->site = s;
	}
	(void)conc;
	c->last_thr = t;
	c->last_site = s;
	count(l, t, s, off, n, kind);
}

static void count_mem(Code *c, UInt obj, UInt kind, UInt lvl, UInt tlb)
{
	UInt st = kind == K_WRITE;
	MC *m = c->mc, **pm;

	if (!m || m->obj != obj || m->store != st) {
		for (pm = &c->mc; *pm && ((*pm)->obj != obj || (*pm)->store != st); pm = &(*pm)->next)
			;
		m = *pm;
		if (m) {
			*pm = m->next;
		} else {
			m = VG_(calloc)("pkm.mc", 1, sizeof(MC));
			m->obj = obj;
			m->store = st;
		}
		m->next = c->mc;
		c->mc = m;
	}
	m->lvl[lvl]++;		/* n is their sum, made at output */
	m->tlb[lvl] += tlb;
	c->fmc[st] = m;		/* obj is c's last object: its extent */
	c->flo[st] = c->last_lo;
	c->fhi[st] = c->last_hi;
	c->fgen[st] = c->last_gen;
}

/* mem: a's object for instruction c, whose cached extent missed.  Heap
 * blocks and stacks come with their extent; globals and unknown memory go
 * through the line table (one symbol look-up per line, ever), and the
 * cached extent grows over neighbouring lines of the same object, so an
 * instruction walking an array looks nothing up after its first pass. */
static UInt mem_obj(Code *c, Addr a, Addr la)
{
	Addr lo, hi;
	Block *b = VG_(OSetGen_LookupWithCmp)(blocks, &a, cmp_in_block);
	Addr smax = VG_(thread_get_stack_max)(cur_tid);
	SizeT ssz = VG_(thread_get_stack_size)(cur_tid);
	UInt obj;

	if (b || (a <= smax && a + ssz > smax)) {
		obj = obj_range(a, &lo, &hi);
	} else {
		Obj *o;

		obj = line_get(la, a)->obj;
		o = VG_(indexXA)(objs, obj);
		lo = la;
		hi = la + LSIZE;
		if (o->sym_hi > 1 && a >= o->sym_lo && a < o->sym_hi) {
			lo = o->sym_lo;		/* the global's extent seen so far */
			hi = o->sym_hi;
		} else if (c->last_gen == obj_gen && c->last_obj == obj) {
			if (la == c->last_hi)
				lo = c->last_lo;
			else if (hi == c->last_lo)
				hi = c->last_hi;
		}
	}
	c->last_obj = obj;
	c->last_lo = lo;
	c->last_hi = hi;
	c->last_gen = obj_gen;
	return obj;
}

static VG_REGPARM(3) void pkm_acc(Code *c, Addr a, UWord kz)
{
	UInt size = (UInt)(kz & 0xff), kind = (UInt)(kz >> 8);
	UInt off = (UInt)(a & (LSIZE - 1)), n1 = size < LSIZE - off ? size : LSIZE - off;
	Addr la = a & ~(Addr)(LSIZE - 1);

	if (size == 0)
		return;
	if (mode == PKM_C2C) {
		/* alone (no thread created yet): nothing can be shared */
		if (n_live < 2)
			return;
		Line *l1 = c->last_line;

		if (l1 && l1->addr == la && c->last_gen == obj_gen && c->last_site->off == off &&
		    c->last_site->serial == cur_serial) {
			count(l1, c->last_thr, c->last_site, off, n1, kind);
		} else {
			l1 = c->last_line = line_get(la, a);
			c->last_gen = obj_gen;
			touch(l1, c, off, n1, kind);
		}
		if (n1 < size) {
			touch(line_get(la + LSIZE, la + LSIZE), c, 0, size - n1, kind);
			c->last_line = NULL;	/* the cached records are the 2nd line's */
		}
	} else {
		/* mem: the line only for its data object */
		UInt obj;

		if (a >= c->last_lo && a < c->last_hi && c->last_gen == obj_gen)
			obj = c->last_obj;
		else
			obj = mem_obj(c, a, la);
		const int o = kind == K_WRITE ? PK_DW - PK_DR : 0;
		uint64_t d1 = scc[PK_D1MR + o], d2 = scc[PK_D2MR + o], dl = scc[PK_DLMR + o];
		uint64_t tl = scc[PK_DTMR] + scc[PK_DTMW];
		UInt lvl;

		pk_hier_dref_nocount(H, c->ip, a, size, kind == K_READ ? PK_READ
				     : kind == K_WRITE ? PK_WRITE : PK_MODIFY, scc);
		lvl = scc[PK_DLMR + o] != dl ? 3 : scc[PK_D2MR + o] != d2 ? 2
		      : scc[PK_D1MR + o] != d1 ? 1 : 0;
		count_mem(c, obj, kind, lvl, scc[PK_DTMR] + scc[PK_DTMW] != tl);
	}
}

/* ---- instrumentation ---- */

static IRTemp tmp(IRSB *out, IRType ty, IRExpr *e)
{
	IRTemp t = newIRTemp(out->tyenv, ty);

	addStmtToIRSB(out, IRStmt_WrTmp(t, e));
	return t;
}

#define RD(t) IRExpr_RdTmp(t)
#define K64(v) IRExpr_Const(IRConst_U64((ULong)(v)))
#define LD64(a) IRExpr_Load(Iend_LE, Ity_I64, (a))
#define LD32(a) IRExpr_Load(Iend_LE, Ity_I32, (a))
#define BIN(op, a, b) IRExpr_Binop((op), (a), (b))

/* mem, inline: is this access one pk_hier_dref_nocount would end at once
 * (one line, the MRU line of its D1 set, no state change: read, or write
 * to a dirty line), to the object instruction c touched last, counted in
 * the counters c used last?  Then it is an L1 hit without a TLB lookup:
 * counted here, no helper called.  Returns the I1 temp "fast". */
/* f AND cond (flat IR: every operand an atom) */
static IRTemp and_in(IRSB *out, IRTemp f, IRExpr *cond)
{
	IRTemp c = tmp(out, Ity_I1, cond);

	return tmp(out, Ity_I1, BIN(Iop_And1, RD(f), RD(c)));
}

static IRTemp fast_path(IRSB *out, Code *c, IRExpr *ea, Int size, UInt kind)
{
	const struct pk_cache *d1 = &H->D1;
	IRExpr *sh = IRExpr_Const(IRConst_U8((UChar)d1->line_bits));
	IRTemp b1 = tmp(out, Ity_I64, BIN(Iop_Shr64, ea, sh));
	IRTemp e = tmp(out, Ity_I64, BIN(Iop_Add64, ea, K64(size - 1)));
	IRTemp b2 = tmp(out, Ity_I64, BIN(Iop_Shr64, RD(e), IRExpr_Const(IRConst_U8((UChar)d1->line_bits))));
	IRTemp idx = tmp(out, Ity_I64, BIN(Iop_And64, RD(b1), K64(d1->sets_min_1)));
	IRTemp off = tmp(out, Ity_I64, BIN(Iop_Mul64, RD(idx), K64((ULong)d1->assoc * sizeof(uint64_t))));
	IRTemp ta = tmp(out, Ity_I64, BIN(Iop_Add64, RD(off), K64((HWord)d1->tags)));
	IRTemp tag = tmp(out, Ity_I64, LD64(RD(ta)));
	IRExpr *lhs = RD(tag), *rhs = RD(b1);
	IRTemp f;

	if (kind == K_READ)
		lhs = RD(tmp(out, Ity_I64, BIN(Iop_And64, lhs, K64(~PK_TAG_DIRTY))));
	else
		rhs = RD(tmp(out, Ity_I64, BIN(Iop_Or64, rhs, K64(PK_TAG_DIRTY))));
	f = tmp(out, Ity_I1, BIN(Iop_CmpEQ64, lhs, rhs));
	f = and_in(out, f, BIN(Iop_CmpEQ64, RD(b1), RD(b2)));
	/* the object and counters of this instruction's last access of this
	 * kind: a in their extent, the generation current */
	Int st = kind == K_WRITE;
	IRTemp lo = tmp(out, Ity_I64, LD64(mkIRExpr_HWord((HWord)&c->flo[st])));
	IRTemp hi = tmp(out, Ity_I64, LD64(mkIRExpr_HWord((HWord)&c->fhi[st])));
	IRTemp g1 = tmp(out, Ity_I32, LD32(mkIRExpr_HWord((HWord)&c->fgen[st])));
	IRTemp g2 = tmp(out, Ity_I32, LD32(mkIRExpr_HWord((HWord)&obj_gen)));

	f = and_in(out, f, BIN(Iop_CmpLE64U, RD(lo), ea));
	f = and_in(out, f, BIN(Iop_CmpLT64U, ea, RD(hi)));
	f = and_in(out, f, BIN(Iop_CmpEQ32, RD(g1), RD(g2)));
	/* count it as an L1 hit (adding 0 when not: the helper counts it) */
	IRTemp mc = tmp(out, Ity_I64, LD64(mkIRExpr_HWord((HWord)&c->fmc[st])));
	IRTemp one = tmp(out, Ity_I64, IRExpr_Unop(Iop_1Uto64, RD(f)));
	IRTemp a = tmp(out, Ity_I64, BIN(Iop_Add64, RD(mc), K64(__builtin_offsetof(MC, lvl))));
	IRTemp v = tmp(out, Ity_I64, LD64(RD(a)));
	IRTemp v1 = tmp(out, Ity_I64, BIN(Iop_Add64, RD(v), RD(one)));

	addStmtToIRSB(out, IRStmt_Store(Iend_LE, RD(a), RD(v1)));
	return f;
}

static void emit_acc(IRSB *out, Code *c, IRExpr *addr, Int size, UInt kind, IRExpr *guard)
{
	IRDirty *di;
	UWord kz;

	if (size <= 0)
		return;
	if ((UInt)size > size_cap)
		size = (Int)size_cap;
	kz = (UWord)size | ((UWord)kind << 8);
	di = unsafeIRDirty_0_N(3, "pkm_acc", VG_(fnptr_to_fnentry)(&pkm_acc),
			       mkIRExprVec_3(mkIRExpr_HWord((HWord)c), addr, mkIRExpr_HWord(kz)));
	if (guard) {
		di->guard = guard;
	} else if (mode == PKM_MEM && kind != K_MODIFY && isIRAtom(addr)) {
		/* the counting is done before the helper would run: fine, the
		 * helper only runs when the access was not counted */
		IRTemp f = fast_path(out, c, addr, size, kind);

		di->guard = IRExpr_RdTmp(tmp(out, Ity_I1, IRExpr_Unop(Iop_Not1, RD(f))));
	}
	addStmtToIRSB(out, IRStmt_Dirty(di));
}

IRSB *pkm_instrument(IRSB *in, IRType gWordTy, IRType hWordTy)
{
	IRSB *out;
	Code *cur = NULL;
	Int i = 0;

	if (gWordTy != hWordTy)
		VG_(tool_panic)("host/guest word size mismatch");
	out = deepCopyIRSBExceptStmts(in);
	while (i < in->stmts_used && in->stmts[i]->tag != Ist_IMark)
		addStmtToIRSB(out, in->stmts[i++]);
	for (; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		switch (st->tag) {
		case Ist_IMark:
			cur = code_get(st->Ist.IMark.addr);
			break;
		case Ist_WrTmp:
			if (st->Ist.WrTmp.data->tag == Iex_Load)
				emit_acc(out, cur, st->Ist.WrTmp.data->Iex.Load.addr,
					 sizeofIRType(st->Ist.WrTmp.data->Iex.Load.ty), K_READ, NULL);
			break;
		case Ist_Store:
			emit_acc(out, cur, st->Ist.Store.addr,
				 sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.Store.data)), K_WRITE, NULL);
			break;
		case Ist_StoreG: {
			IRStoreG *sg = st->Ist.StoreG.details;

			emit_acc(out, cur, sg->addr, sizeofIRType(typeOfIRExpr(in->tyenv, sg->data)),
				 K_WRITE, sg->guard);
			break;
		}
		case Ist_LoadG: {
			IRLoadG *lg = st->Ist.LoadG.details;
			IRType ty = Ity_INVALID, wide = Ity_INVALID;

			typeOfIRLoadGOp(lg->cvt, &wide, &ty);
			emit_acc(out, cur, lg->addr, sizeofIRType(ty), K_READ, lg->guard);
			break;
		}
		case Ist_Dirty: {
			IRDirty *d = st->Ist.Dirty.details;

			if (d->mFx == Ifx_Read)
				emit_acc(out, cur, d->mAddr, d->mSize, K_READ, NULL);
			else if (d->mFx == Ifx_Write)
				emit_acc(out, cur, d->mAddr, d->mSize, K_WRITE, NULL);
			else if (d->mFx == Ifx_Modify)
				emit_acc(out, cur, d->mAddr, d->mSize, K_MODIFY, NULL);
			break;
		}
		case Ist_CAS: {
			IRCAS *cas = st->Ist.CAS.details;
			Int sz = sizeofIRType(typeOfIRExpr(in->tyenv, cas->dataLo));

			emit_acc(out, cur, cas->addr, cas->dataHi ? 2 * sz : sz, K_MODIFY, NULL);
			break;
		}
		case Ist_LLSC:
			if (st->Ist.LLSC.storedata == NULL)
				emit_acc(out, cur, st->Ist.LLSC.addr,
					 sizeofIRType(typeOfIRTemp(in->tyenv, st->Ist.LLSC.result)),
					 K_READ, NULL);
			else
				emit_acc(out, cur, st->Ist.LLSC.addr,
					 sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.LLSC.storedata)),
					 K_WRITE, NULL);
			break;
		default:
			break;
		}
		addStmtToIRSB(out, st);
	}
	return out;
}

/* ---- threads ---- */

static UInt serial_new(void)
{
	Int z = 0;

	VG_(addToXA)(tids, &z);
	return (UInt)VG_(sizeXA)(tids) - 1;
}

void pkm_thread_create(ThreadId parent, ThreadId child)
{
	if (parent != VG_INVALID_THREADID)
		n_live++;

	if (child < VG_N_THREADS)
		tid2serial[child] = serial_new();
}

void pkm_thread_exit(ThreadId tid)
{
	(void)tid;
	/* exits do not end sharing: Valgrind runs one thread at a time, and
	 * a short one often to its end before a sibling (or the parent, back
	 * from a barrier) runs at all, so where exits fall says how Valgrind
	 * scheduled, not what ran at the same time */
}

void pkm_start_client(ThreadId tid, ULong nblocks)
{
	Int *k;

	(void)nblocks;
	if (tid >= VG_N_THREADS)
		return;
	if (tid2serial[tid] == ~0u)
		tid2serial[tid] = serial_new();
	cur_tid = tid;
	cur_serial = tid2serial[tid];
	k = VG_(indexXA)(tids, cur_serial);
	if (*k == 0)
		*k = VG_(gettid)();
}

/* ---- heap blocks (client requests from pkmemwrap.so) ---- */

static void retire(Line *l)
{
	if (l->epoch == cur_epoch)
		fold(l);
	ht_remove(l);
	VG_(addToXA)(retired, &l);
}

static void block_free(Addr p)
{
	Block *b = VG_(OSetGen_Lookup)(blocks, &p);

	if (!b)
		return;
	obj_gen++;
	for (Addr la = b->start & ~(Addr)(LSIZE - 1); la < b->start + b->size; la += LSIZE) {
		Line *l = ht_find(la);

		if (l && l->obj == b->obj)
			retire(l);
	}
	VG_(OSetGen_Remove)(blocks, &p);
	VG_(OSetGen_FreeNode)(blocks, b);
}

static void block_alloc(ThreadId tid, Addr p, SizeT size)
{
	Addr ips[NFRAMES + 1];
	UInt n = VG_(get_StackTrace)(tid, ips, NFRAMES + 1, NULL, NULL, 0);
	Stack key, *st;
	Block *b;

	if (!p)
		return;
	block_free(p);
	/* frame 0 is the request in pkmemwrap.so's malloc: start at its caller */
	key.n = n > 1 ? n - 1 : 0;
	for (UInt i = 0; i < key.n; i++)
		key.f[i] = code_get(ips[i + 1]);
	st = VG_(OSetGen_Lookup)(stacks, &key);
	if (!st) {
		st = VG_(OSetGen_AllocNode)(stacks, sizeof(Stack));
		*st = key;
		st->id = -1;
		st->obj = obj_new(O_HEAP, "", "[heap]", st);
		VG_(OSetGen_Insert)(stacks, st);
	}
	b = VG_(OSetGen_AllocNode)(blocks, sizeof(Block));
	b->start = p;
	b->size = size ? size : 1;
	b->obj = st->obj;
	VG_(OSetGen_Insert)(blocks, b);
	obj_gen++;
	for (Addr la = p & ~(Addr)(LSIZE - 1); la < p + b->size; la += LSIZE) {
		Line *l = ht_find(la);

		if (l && ((Obj *)VG_(indexXA)(objs, l->obj))->kind != O_HEAP)
			l->obj = st->obj;
	}
}

Bool pkm_client_request(ThreadId tid, UWord *args, UWord *ret)
{
	switch (args[0]) {
	case PERFKIT_MEM_USERREQ_ALLOC:
		block_alloc(tid, (Addr)args[1], (SizeT)args[2]);
		break;
	case PERFKIT_MEM_USERREQ_FREE:
		block_free((Addr)args[1]);
		break;
	default:
		return False;
	}
	*ret = 0;
	return True;
}

/* ---- set-up ---- */

void pkm_init(enum pkm_mode m, struct pk_hier *h)
{
	mode = m;
	H = h;
	if (h) {
		size_cap = h->D1.line;
		if (h->has_l2 && h->L2.line < size_cap)
			size_cap = h->L2.line;
		if (h->LL.line < size_cap)
			size_cap = h->LL.line;
		if (size_cap > LSIZE)
			size_cap = LSIZE;
	}
	codes = VG_(OSetGen_Create)(0, cmp_addr, VG_(malloc), "pkm.codes", VG_(free));
	blocks = VG_(OSetGen_Create)(0, cmp_addr, VG_(malloc), "pkm.blocks", VG_(free));
	stacks = VG_(OSetGen_Create)(0, cmp_stack, VG_(malloc), "pkm.stacks", VG_(free));
	named = VG_(OSetGen_Create)(0, cmp_named, VG_(malloc), "pkm.named", VG_(free));
	objs = VG_(newXA)(VG_(malloc), "pkm.objs", VG_(free), sizeof(Obj));
	tids = VG_(newXA)(VG_(malloc), "pkm.tids", VG_(free), sizeof(Int));
	dirty = VG_(newXA)(VG_(malloc), "pkm.dirty", VG_(free), sizeof(Line *));
	retired = VG_(newXA)(VG_(malloc), "pkm.retired", VG_(free), sizeof(Line *));
	tid2serial = VG_(malloc)("pkm.t2s", sizeof(UInt) * VG_N_THREADS);
	for (UInt i = 0; i < VG_N_THREADS; i++)
		tid2serial[i] = ~0u;
	ht_mask = 4095;
	ht = VG_(calloc)("pkm.ht", ht_mask + 1, sizeof(Line *));
	stack_obj = obj_new(O_STACK, "[stack]", "[stack]", NULL);
}

/* ---- output ---- */

static void put_esc(VgFile *fp, const HChar *s)
{
	for (; s && *s; s++) {
		UChar c = (UChar)*s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			VG_(fprintf)(fp, "\\x%02x", c);
		else
			VG_(fprintf)(fp, "%c", c);
	}
}

static Int next_code;
static XArray *code_out;	/* Code* to write */

static Int code_id(Code *c)
{
	if (c->id < 0) {
		c->id = next_code++;
		VG_(addToXA)(code_out, &c);
	}
	return c->id;
}

static ULong n_lines;

static void write_line(VgFile *fp, Line *l)
{
	if (l->nthr < 2)
		return;
	n_lines++;
	VG_(fprintf)(fp, "line 0x%lx %u %llu\n", l->addr, l->obj, l->transfers);
	for (LThr *t = l->thr; t; t = t->next)
		VG_(fprintf)(fp, "lt %u %llu %llu %llu 0x%llx 0x%llx\n", t->serial, t->loads, t->stores,
			     t->xfer, t->rmask, t->wmask);
	for (LSite *s = l->site; s; s = s->next)
		VG_(fprintf)(fp, "ls %d %u %u %u %llu %llu\n", code_id(s->code), s->serial,
			     (UInt)s->off, (UInt)s->size, s->loads, s->stores);
}

void pkm_fini(const HChar *path, const HChar *const *desc)
{
	HChar tmp[VG_(strlen)(path) + 64], lnk[8];
	VgFile *fp = NULL;
	ULong n_acc = 0;
	Word i, n;
	Code *c;

	end_epoch();
	if (VG_(readlink)(path, lnk, sizeof(lnk)) >= 0) {
		VG_(umsg)("error: '%s' is a symbolic link; not writing through it\n", path);
		return;
	}
	for (i = 0; i < 100 && !fp; i++) {
		VG_(sprintf)(tmp, "%s.tmp%d.%d", path, VG_(getpid)(), (Int)i);
		fp = VG_(fopen)(tmp, VKI_O_CREAT | VKI_O_EXCL | VKI_O_WRONLY, VKI_S_IRUSR | VKI_S_IWUSR);
	}
	if (!fp) {
		VG_(umsg)("error: cannot create output file '%s'\n", tmp);
		return;
	}
	code_out = VG_(newXA)(VG_(malloc), "pkm.cout", VG_(free), sizeof(Code *));
	VG_(fprintf)(fp, "perfkit-memprof 1\nmode %s\ncmd ", mode == PKM_MEM ? "mem" : "c2c");
	put_esc(fp, VG_(args_the_exename));
	for (i = 0; i < VG_(sizeXA)(VG_(args_for_client)); i++) {
		VG_(fprintf)(fp, " ");
		put_esc(fp, *(HChar **)VG_(indexXA)(VG_(args_for_client), i));
	}
	VG_(fprintf)(fp, "\nline-size %d\n", LSIZE);
	for (; desc && *desc; desc++)
		VG_(fprintf)(fp, "desc %s\n", *desc);
	VG_(fprintf)(fp, "model per line, over the accesses after the first thread creation: "
		     "sum over threads of min(accesses, other threads' writes)\n");
	for (i = 0; i < VG_(sizeXA)(tids); i++)
		VG_(fprintf)(fp, "thread %d %d\n", (Int)i, *(Int *)VG_(indexXA)(tids, i));
	for (ULong b = 0; b <= ht_mask; b++)
		for (Line *l = ht[b]; l; l = l->hnext)
			write_line(fp, l);
	n = VG_(sizeXA)(retired);
	for (i = 0; i < n; i++)
		write_line(fp, *(Line **)VG_(indexXA)(retired, i));
	if (mode == PKM_MEM) {
		VG_(OSetGen_ResetIter)(codes);
		while ((c = VG_(OSetGen_Next)(codes)))
			for (MC *m = c->mc; m; m = m->next) {
				n_acc++;
				VG_(fprintf)(fp, "acc %d %u %s %llu %llu %llu %llu %llu %llu %llu %llu %llu\n",
					     code_id(c), m->obj, m->store ? "store" : "load",
					     m->lvl[0] + m->lvl[1] + m->lvl[2] + m->lvl[3],
					     m->lvl[0], m->lvl[1], m->lvl[2], m->lvl[3],
					     m->tlb[0], m->tlb[1], m->tlb[2], m->tlb[3]);
			}
	}
	n = VG_(sizeXA)(objs);
	for (i = 0; i < n; i++) {
		Obj *o = VG_(indexXA)(objs, i);
		Int sid = -1;

		if (o->stack) {
			Stack *st = o->stack;

			sid = (Int)i;
			VG_(fprintf)(fp, "stack %d %u", sid, st->n);
			for (UInt k = 0; k < st->n; k++)
				VG_(fprintf)(fp, " %d", code_id(st->f[k]));
			VG_(fprintf)(fp, "\n");
		}
		VG_(fprintf)(fp, "object %d %s %d ", (Int)i, kind_name[o->kind], sid);
		put_esc(fp, o->name);
		VG_(fprintf)(fp, "\t");
		put_esc(fp, o->dso);
		VG_(fprintf)(fp, "\n");
	}
	{
		DiEpoch ep = VG_(current_DiEpoch)();

		n = VG_(sizeXA)(code_out);
		for (i = 0; i < n; i++) {
			const HChar *fn, *file, *dir, *obj;
			UInt ln;

			HChar *src;

			c = *(Code **)VG_(indexXA)(code_out, i);
			VG_(fprintf)(fp, "code %d 0x%lx ", c->id, c->ip);
			if (!VG_(get_filename_linenum)(ep, c->ip, &file, &dir, &ln)) {
				file = dir = "";
				ln = 0;
			}
			/* the names' buffers do not outlive the next look-up */
			src = VG_(malloc)("pkm.src", VG_(strlen)(dir) + VG_(strlen)(file) + 2);
			VG_(sprintf)(src, "%s%s%s", dir, dir[0] ? "/" : "", file);
			VG_(fprintf)(fp, "%u ", ln);
			put_esc(fp, VG_(get_fnname)(ep, c->ip, &fn) ? fn : "???");
			VG_(fprintf)(fp, "\t");
			put_esc(fp, src);
			VG_(free)(src);
			VG_(fprintf)(fp, "\t");
			put_esc(fp, VG_(get_objname)(ep, c->ip, &obj) ? obj : seg_name(c->ip));
			VG_(fprintf)(fp, "\n");
		}
	}
	VG_(fprintf)(fp, "end %llu %llu\n", n_lines, n_acc);
	VG_(fclose)(fp);
	if (VG_(rename)(tmp, path) != 0) {
		VG_(umsg)("error: cannot rename '%s' to '%s'\n", tmp, path);
		VG_(unlink)(tmp);
	}
}
