/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pk_main.c — "pkcache", perfkit's Valgrind tool: cache, TLB, prefetch and
 * branch simulation with per-source-line counts in the Cachegrind format.
 *
 * Freestanding: only Valgrind's VG_() functions, no libc.  Built out of
 * tree by mk/cache.mk against the installed Valgrind's headers and static
 * libraries; run by `perfkit cache` through a private VALGRIND_LIB.
 *
 * Instrumentation (what counts as an event) follows cachegrind's rules so
 * that --model=cachegrind gives identical counts:
 *  - every guest instruction (IMark) is one Ir of its length (length 0 from
 *    an undecodable instruction counts as 1);
 *  - loads (WrTmp of Load, LoadG) are Dr, stores (Store, StoreG) Dw, of the
 *    loaded/stored type's size;  dirty helpers with a memory effect give Dr
 *    and/or Dw of min(mSize, smallest line size);  CAS gives Dr then Dw
 *    (doubled size for a double CAS);  LL gives Dr, SC Dw;
 *  - a Dw that immediately follows a Dr of the same instruction, size and
 *    address expression (no flush between) is merged into one "modify"
 *    access, which counts as a single Dr;
 *  - a conditional side exit of kind Boring/Call/Ret is a Bc (taken = the
 *    guard, inverted when the exit target is the fall-through address); a
 *    block ending in Boring/Call with a non-constant target is a Bi.
 * Simulation order is program order.  One optimisation that changes no
 * count: an instruction fetch that hits the same I1 line as the previous
 * instruction of the same superblock is a certain MRU hit (no state
 * changes), so it is counted inline without calling the simulator.
 *
 * Processes: a forked child's counts go to DUMPBASE.pidN; exec'd programs
 * are not followed (Valgrind's --trace-children=no).  Instruction info of
 * discarded translations is not freed (JIT-heavy programs grow memory).
 *
 * Modern model only: a call pushes the address after it on the return stack
 * and a block ending in Ret is a return (Br) predicted from it.  A call is a
 * block ending in Call, or (VEX follows direct calls inside a superblock)
 * an instruction that stores the constant address after itself and is
 * followed in the block by an instruction elsewhere.  A write and a modify
 * both dirty the line.
 *
 * Options: --model=cachegrind|modern  --I1= --D1= --L2= --LL=SIZE,ASSOC,LINE
 *   --tlb=ENTRIES,ASSOC,PAGE|none  --stlb=ENTRIES,ASSOC|none
 *   --prefetch=none|next-line|stride|stream  --l1-prefetch=yes|no
 *   --branch-sim=yes|no  --pk-out=FILE
 * Client requests (src/vgtool/perfkit_cache.h): zero all counts; dump the
 * counts so far to FILE.N.
 */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_oset.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_machine.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_xarray.h"
#include "pub_tool_threadstate.h"
#include "libvex.h"
#include "pub_tool_clreq.h"

#include "cachesim/cachesim.h"
#include "perfkit_cache.h"
#include "pk_mem.h"

/* ---- options ---- */

typedef struct { Long size, assoc, line; } Geom;
#define GEOM_UNSET { -1, -1, -1 }

static Bool clo_modern = False;
static Bool clo_branch_sim = True;
static Geom clo_I1 = GEOM_UNSET, clo_D1 = GEOM_UNSET, clo_L2 = GEOM_UNSET, clo_LL = GEOM_UNSET;
static Geom clo_tlb = { 64 * 4096, 4, 4096 };	/* 64 entries */
static Bool clo_tlb_on = True;
static Long clo_stlb_entries = 1536, clo_stlb_assoc = 12;	/* 0: none */
static enum pk_prefetch clo_prefetch = PK_PF_STREAM;
static Bool clo_l1_prefetch = True;
static const HChar *clo_out = "perfkit.cache.out.%p";
static const HChar *clo_dump = NULL;	/* base name of client-request dumps */
static enum pkm_mode clo_pkm = PKM_OFF;	/* --pk-mode=c2c|mem: pk_mem.c */

static Bool parse_geom(const HChar *arg, const HChar *val, Geom *g)
{
	HChar *end;
	const char *why;

	g->size = VG_(strtoll10)(val, &end);
	if (*end != ',')
		goto bad;
	g->assoc = VG_(strtoll10)(end + 1, &end);
	if (*end != ',')
		goto bad;
	g->line = VG_(strtoll10)(end + 1, &end);
	if (*end != '\0')
		goto bad;
	why = pk_cache_check((uint64_t)g->size, (uint64_t)g->assoc, (uint64_t)g->line);
	if (g->size <= 0 || g->assoc <= 0 || g->line <= 0)
		why = "values must be positive";
	if (why) {
		VG_(fmsg_bad_option)(arg, "%s\n", why);
		return False;
	}
	return True;
bad:
	VG_(fmsg_bad_option)(arg, "expected SIZE,ASSOC,LINE\n");
	return False;
}

static Bool pk_process_cmd_line_option(const HChar *arg)
{
	const HChar *s;

	if VG_STR_CLO(arg, "--pk-mode", s) {
		if (VG_(strcmp)(s, "c2c") == 0)
			clo_pkm = PKM_C2C;
		else if (VG_(strcmp)(s, "mem") == 0)
			clo_pkm = PKM_MEM;
		else if (VG_(strcmp)(s, "cache") == 0)
			clo_pkm = PKM_OFF;
		else
			VG_(fmsg_bad_option)(arg, "expected cache, c2c or mem\n");
	} else if VG_STR_CLO(arg, "--model", s) {
		if (VG_(strcmp)(s, "cachegrind") == 0)
			clo_modern = False;
		else if (VG_(strcmp)(s, "modern") == 0)
			clo_modern = True;
		else
			VG_(fmsg_bad_option)(arg, "expected cachegrind or modern\n");
	} else if VG_STR_CLO(arg, "--I1", s) {
		parse_geom(arg, s, &clo_I1);
	} else if VG_STR_CLO(arg, "--D1", s) {
		parse_geom(arg, s, &clo_D1);
	} else if VG_STR_CLO(arg, "--L2", s) {
		parse_geom(arg, s, &clo_L2);
	} else if VG_STR_CLO(arg, "--LL", s) {
		parse_geom(arg, s, &clo_LL);
	} else if VG_STR_CLO(arg, "--tlb", s) {
		if (VG_(strcmp)(s, "none") == 0) {
			clo_tlb_on = False;
		} else {
			/* ENTRIES,ASSOC,PAGE: a cache of ENTRIES*PAGE bytes */
			HChar *end;
			Long e = VG_(strtoll10)(s, &end), a, p;

			if (*end != ',')
				VG_(fmsg_bad_option)(arg, "expected ENTRIES,ASSOC,PAGE\n");
			a = VG_(strtoll10)(end + 1, &end);
			if (*end != ',')
				VG_(fmsg_bad_option)(arg, "expected ENTRIES,ASSOC,PAGE\n");
			p = VG_(strtoll10)(end + 1, &end);
			if (*end != '\0' || e <= 0 || a <= 0 || p <= 0 ||
			    pk_cache_check((uint64_t)(e * p), (uint64_t)a, (uint64_t)p))
				VG_(fmsg_bad_option)(arg, "bad TLB geometry\n");
			clo_tlb = (Geom){ e * p, a, p };
			clo_tlb_on = True;
		}
	} else if VG_STR_CLO(arg, "--stlb", s) {
		if (VG_(strcmp)(s, "none") == 0) {
			clo_stlb_entries = 0;
		} else {
			HChar *end;
			Long e = VG_(strtoll10)(s, &end), a;

			if (*end != ',')
				VG_(fmsg_bad_option)(arg, "expected ENTRIES,ASSOC\n");
			a = VG_(strtoll10)(end + 1, &end);
			if (*end != '\0' || e <= 0 || a <= 0 || e > (1 << 20))
				VG_(fmsg_bad_option)(arg, "expected ENTRIES,ASSOC\n");
			clo_stlb_entries = e;
			clo_stlb_assoc = a;
		}
	} else if VG_STR_CLO(arg, "--prefetch", s) {
		/* none: no prefetcher at all (L1's too) */
		if (VG_(strcmp)(s, "none") == 0)
			clo_prefetch = PK_PF_NONE;
		else if (VG_(strcmp)(s, "next-line") == 0)
			clo_prefetch = PK_PF_NEXT_LINE;
		else if (VG_(strcmp)(s, "stride") == 0)
			clo_prefetch = PK_PF_STRIDE;
		else if (VG_(strcmp)(s, "stream") == 0)
			clo_prefetch = PK_PF_STREAM;
		else
			VG_(fmsg_bad_option)(arg, "expected none, next-line, stride or stream\n");
	} else if VG_BOOL_CLO(arg, "--l1-prefetch", clo_l1_prefetch) {
	} else if VG_BOOL_CLO(arg, "--branch-sim", clo_branch_sim) {
	} else if VG_STR_CLO(arg, "--pk-out", clo_out) {
	} else if VG_STR_CLO(arg, "--pk-dump", clo_dump) {
	} else {
		return False;
	}
	return True;
}

static void pk_print_usage(void)
{
	VG_(printf)(
"    --model=cachegrind|modern      cachegrind's I1/D1/LL, or I1/D1/L2/LL+TLB+prefetch\n"
"    --I1= --D1= --L2= --LL=SIZE,ASSOC,LINE   cache geometry\n"
"    --tlb=ENTRIES,ASSOC,PAGE|none  L1 data TLB (modern) [64,4,4096]\n"
"    --stlb=ENTRIES,ASSOC|none      second-level TLB, same pages (modern) [1536,12]\n"
"    --prefetch=none|next-line|stride|stream  L2 prefetcher (modern) [stream];\n"
"                                   none turns the L1 prefetcher off too\n"
"    --l1-prefetch=yes|no           L1 next-line prefetcher, degree 3 (modern) [yes]\n"
"    --branch-sim=yes|no            simulate branch prediction [yes]\n"
"    --pk-out=FILE                  output file [perfkit.cache.out.%%p]\n"
"    --pk-dump=BASE                 client-request dumps go to BASE.N [--pk-out]\n"
"    --pk-mode=cache|c2c|mem        cache: counts per source line (above); c2c:\n"
"                                   per 64-byte line, threads, offsets and sites,\n"
"                                   and estimated transfers (pk_mem.c); mem: that\n"
"                                   and the level serving each access, by data\n"
"                                   object (modern model) [cache]\n");
}

static void pk_print_debug_usage(void)
{
	VG_(printf)("    (none)\n");
}

/* ---- cost centres: one per (file, function, line) ---- */

typedef struct {
	const HChar *file;
	const HChar *fn;
	UInt line;
} CodeLoc;

typedef struct {
	CodeLoc loc;
	uint64_t c[PK_NEV];
} LineCC;

typedef struct {
	Addr addr;
	UInt len;
	uint64_t *cc;
} InstrInfo;

static OSet *cc_table;
static OSet *str_table;

static Word cmp_loc(const void *key, const void *elem)
{
	const CodeLoc *a = key;
	const CodeLoc *b = &((const LineCC *)elem)->loc;
	Word r = VG_(strcmp)(a->file, b->file);

	if (r)
		return r;
	r = VG_(strcmp)(a->fn, b->fn);
	if (r)
		return r;
	return a->line < b->line ? -1 : a->line > b->line;
}

static Word cmp_str(const void *key, const void *elem)
{
	return VG_(strcmp)(*(const HChar *const *)key, *(const HChar *const *)elem);
}

static const HChar *intern(const HChar *s)
{
	HChar **p = VG_(OSetGen_Lookup)(str_table, &s);

	if (p)
		return *p;
	p = VG_(OSetGen_AllocNode)(str_table, sizeof(HChar *));
	*p = VG_(strdup)("pk.str", s);
	VG_(OSetGen_Insert)(str_table, p);
	return *p;
}

static LineCC *get_lineCC(Addr a)
{
	DiEpoch ep = VG_(current_DiEpoch)();
	const HChar *file, *dir, *fn;
	UInt line;
	CodeLoc loc;
	LineCC *cc;

	if (!VG_(get_filename_linenum)(ep, a, &file, &dir, &line)) {
		file = "???";
		dir = "";
		line = 0;
	}
	if (!VG_(get_fnname)(ep, a, &fn))
		fn = "???";
	HChar path[VG_(strlen)(dir) + VG_(strlen)(file) + 2];

	if (dir[0])
		VG_(sprintf)(path, "%s/%s", dir, file);
	else
		VG_(sprintf)(path, "%s", file);
	loc.file = path;
	loc.fn = fn;
	loc.line = line;
	cc = VG_(OSetGen_Lookup)(cc_table, &loc);
	if (!cc) {
		cc = VG_(OSetGen_AllocNode)(cc_table, sizeof(LineCC));
		VG_(memset)(cc, 0, sizeof(*cc));
		cc->loc.file = intern(path);
		cc->loc.fn = intern(fn);
		cc->loc.line = line;
		VG_(OSetGen_Insert)(cc_table, cc);
	}
	return cc;
}

/* ---- the simulated machine ---- */

static struct pk_hier H;
static UInt min_line = 64;

/* cachegrind model: I1 and D1 miss to LL. */
static inline void cg_d(Addr a, UInt sz, uint64_t *cc, int o)
{
	cc[PK_DR + o]++;
	if (pk_cache_ref(&H.D1, a, sz)) {
		cc[PK_D1MR + o]++;
		if (pk_cache_ref(&H.LL, a, sz))
			cc[PK_DLMR + o]++;
	}
}

#define OW (PK_DW - PK_DR)

static VG_REGPARM(3) void cg_dr(InstrInfo *n, Addr a, Word sz)
{
	cg_d(a, (UInt)sz, n->cc, 0);
}

static VG_REGPARM(3) void cg_dw(InstrInfo *n, Addr a, Word sz)
{
	cg_d(a, (UInt)sz, n->cc, OW);
}

static VG_REGPARM(3) void mo_dr(InstrInfo *n, Addr a, Word sz)
{
	pk_hier_dref(&H, n->addr, a, (UInt)sz, PK_READ, n->cc);
}

static VG_REGPARM(3) void mo_dw(InstrInfo *n, Addr a, Word sz)
{
	pk_hier_dref(&H, n->addr, a, (UInt)sz, PK_WRITE, n->cc);
}

/* Slow paths of the inline MRU check: everything but the access count. */
static inline void cg_i_nc(Addr a, UInt sz, uint64_t *cc)
{
	if (pk_cache_ref(&H.I1, a, sz)) {
		cc[PK_I1MR]++;
		if (pk_cache_ref(&H.LL, a, sz))
			cc[PK_ILMR]++;
	}
}

static inline void cg_d_nc(Addr a, UInt sz, uint64_t *cc, int o)
{
	if (pk_cache_ref(&H.D1, a, sz)) {
		cc[PK_D1MR + o]++;
		if (pk_cache_ref(&H.LL, a, sz))
			cc[PK_DLMR + o]++;
	}
}

static VG_REGPARM(1) void cg_ir_slow(InstrInfo *n)
{
	cg_i_nc(n->addr, n->len, n->cc);
}

static VG_REGPARM(3) void cg_dr_slow(InstrInfo *n, Addr a, Word sz)
{
	cg_d_nc(a, (UInt)sz, n->cc, 0);
}

static VG_REGPARM(3) void cg_dw_slow(InstrInfo *n, Addr a, Word sz)
{
	cg_d_nc(a, (UInt)sz, n->cc, OW);
}

static VG_REGPARM(1) void mo_ir_slow(InstrInfo *n)
{
	pk_hier_iref_nocount(&H, n->addr, n->len, n->cc);
}

static VG_REGPARM(3) void mo_dr_slow(InstrInfo *n, Addr a, Word sz)
{
	pk_hier_dref_nocount(&H, n->addr, a, (UInt)sz, PK_READ, n->cc);
}

static VG_REGPARM(3) void mo_dw_slow(InstrInfo *n, Addr a, Word sz)
{
	pk_hier_dref_nocount(&H, n->addr, a, (UInt)sz, PK_WRITE, n->cc);
}

static VG_REGPARM(3) void mo_dm_slow(InstrInfo *n, Addr a, Word sz)
{
	pk_hier_dref_nocount(&H, n->addr, a, (UInt)sz, PK_MODIFY, n->cc);
}

static VG_REGPARM(2) void h_bc(InstrInfo *n, Word taken)
{
	n->cc[PK_BC]++;
	n->cc[PK_BCM] += (ULong)pk_bpred_cond(&H.bp, n->addr, taken != 0);
}

static VG_REGPARM(2) void h_bi(InstrInfo *n, UWord dst)
{
	n->cc[PK_BI]++;
	n->cc[PK_BIM] += (ULong)pk_bpred_ind(&H.bp, n->addr, dst);
}

/* Slow path of the inline predictor check: the counters under history h
 * (the history itself is updated inline). */
static VG_REGPARM(3) void mo_bc_slow(InstrInfo *n, Word taken, ULong h)
{
	n->cc[PK_BCM] += (ULong)pk_bpm_cond_ctrs(&H.bpm, n->addr, taken != 0, h);
}

static VG_REGPARM(2) void mo_bi(InstrInfo *n, UWord dst)
{
	n->cc[PK_BI]++;
	n->cc[PK_BIM] += (ULong)pk_bpm_ind(&H.bpm, n->addr, dst);
}

static VG_REGPARM(1) void mo_call(InstrInfo *n)
{
	pk_bpm_call(&H.bpm, n->addr + n->len);
}

static VG_REGPARM(2) void mo_ret(InstrInfo *n, UWord dst)
{
	n->cc[PK_BR]++;
	n->cc[PK_BRM] += (ULong)pk_bpm_ret(&H.bpm, dst);
}

/* ---- instrumentation ---- */

enum ev_tag { EV_IR, EV_DR, EV_DW, EV_DM, EV_BC, EV_BI, EV_CALL, EV_RET };

typedef struct {
	enum ev_tag tag;
	InstrInfo *inode;
	IRExpr *ea;	/* Dr/Dw/Dm address; Bc guard; Bi target */
	Int size;
} Event;

#define N_EVENTS 16

#define N_PEND 32

typedef struct {
	Event ev[N_EVENTS];
	Int used;
	IRSB *out;
	/* counter increments not yet emitted: added up per counter and
	 * emitted at each flush (before every exit and at the end) */
	uint64_t *pend_ctr[N_PEND];
	ULong pend_n[N_PEND];
	Int npend;
} State;

static void emit(State *s, Int regparms, const HChar *name, void *fn, IRExpr **argv)
{
	IRDirty *di = unsafeIRDirty_0_N(regparms, name, VG_(fnptr_to_fnentry)(fn), argv);

	addStmtToIRSB(s->out, IRStmt_Dirty(di));
}

#define HELPER(s, rp, f, argv) emit(s, rp, #f, (void *)&(f), argv)

static IRTemp assign(State *s, IRType ty, IRExpr *e)
{
	IRTemp t = newIRTemp(s->out->tyenv, ty);

	addStmtToIRSB(s->out, IRStmt_WrTmp(t, e));
	return t;
}

static IRExpr *k64(ULong v)
{
	return IRExpr_Const(IRConst_U64(v));
}

/* *ctr += n, inline. */
static void emit_add(State *s, uint64_t *ctr, ULong n)
{
	IRExpr *addr = mkIRExpr_HWord((HWord)ctr);
	IRTemp t1 = assign(s, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, addr));
	IRTemp t2 = assign(s, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(t1), k64(n)));

	addStmtToIRSB(s->out, IRStmt_Store(Iend_LE, addr, IRExpr_RdTmp(t2)));
}

static void emit_pending(State *s)
{
	for (Int i = 0; i < s->npend; i++)
		emit_add(s, s->pend_ctr[i], s->pend_n[i]);
	s->npend = 0;
}

/* Count one event in *ctr: added up with the others of the same counter
 * and emitted at the next flush point. */
static void add_inline_inc(State *s, uint64_t *ctr)
{
	for (Int i = 0; i < s->npend; i++)
		if (s->pend_ctr[i] == ctr) {
			s->pend_n[i]++;
			return;
		}
	if (s->npend == N_PEND)
		emit_pending(s);
	s->pend_ctr[s->npend] = ctr;
	s->pend_n[s->npend++] = 1;
}

/* An I1 guard: is the tag in the MRU way of the set of block b not b? */
static IRTemp guard_block(State *s, const struct pk_cache *c, ULong b)
{
	const uint64_t *slot = &c->tags[(b & c->sets_min_1) * (ULong)c->assoc];
	IRTemp t = assign(s, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)slot)));

	return assign(s, Ity_I1, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(t), k64(b)));
}

/* How guard_access compares the MRU tag t with the block b. */
enum guard_mode {
	G_EXACT,	/* t != b (no flags: cachegrind's caches, TLB) */
	G_READ,		/* (t & ~DIRTY) != b (modern D1 read: dirty is fine) */
	G_WRITE,	/* t != (b | DIRTY) (modern D1 write: must be dirty) */
};

/* A data guard: does the access [ea, ea+size) straddle two lines of c, or
 * is its line not in the MRU way of its set (in the state mode asks)?
 * (True = call the simulator.) */
static IRTemp guard_access(State *s, const struct pk_cache *c, IRExpr *ea, Int size,
			   Bool check_straddle, enum guard_mode mode)
{
	IRExpr *sh = IRExpr_Const(IRConst_U8((UChar)c->line_bits));
	IRTemp b1 = assign(s, Ity_I64, IRExpr_Binop(Iop_Shr64, ea, sh));
	IRTemp e = assign(s, Ity_I64, IRExpr_Binop(Iop_Add64, ea, k64((ULong)(size - 1))));
	IRTemp b2 = assign(s, Ity_I64, IRExpr_Binop(Iop_Shr64, IRExpr_RdTmp(e),
						  IRExpr_Const(IRConst_U8((UChar)c->line_bits))));
	IRTemp idx = assign(s, Ity_I64, IRExpr_Binop(Iop_And64, IRExpr_RdTmp(b1), k64(c->sets_min_1)));
	Int sh8 = pk_log2((uint64_t)c->assoc * sizeof(uint64_t));
	IRTemp off = sh8 >= 0
		? assign(s, Ity_I64, IRExpr_Binop(Iop_Shl64, IRExpr_RdTmp(idx), IRExpr_Const(IRConst_U8((UChar)sh8))))
		: assign(s, Ity_I64, IRExpr_Binop(Iop_Mul64, IRExpr_RdTmp(idx),
						  k64((ULong)c->assoc * sizeof(uint64_t))));
	IRTemp addr = assign(s, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(off),
						    k64((ULong)(HWord)c->tags)));
	IRTemp tag = assign(s, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, IRExpr_RdTmp(addr)));
	IRExpr *lhs = IRExpr_RdTmp(tag), *rhs = IRExpr_RdTmp(b1);

	if (mode == G_READ)
		lhs = IRExpr_RdTmp(assign(s, Ity_I64, IRExpr_Binop(Iop_And64, lhs, k64(~PK_TAG_DIRTY))));
	else if (mode == G_WRITE)
		rhs = IRExpr_RdTmp(assign(s, Ity_I64, IRExpr_Binop(Iop_Or64, rhs, k64(PK_TAG_DIRTY))));
	IRTemp g1 = assign(s, Ity_I1, IRExpr_Binop(Iop_CmpNE64, lhs, rhs));
	if (!check_straddle)
		return g1;
	IRTemp g2 = assign(s, Ity_I1, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(b1), IRExpr_RdTmp(b2)));

	return assign(s, Ity_I1, IRExpr_Binop(Iop_Or1, IRExpr_RdTmp(g1), IRExpr_RdTmp(g2)));
}

static void emit_guarded(State *s, Int regparms, const HChar *name, void *fn, IRExpr **argv,
			 IRTemp guard)
{
	IRDirty *di = unsafeIRDirty_0_N(regparms, name, VG_(fnptr_to_fnentry)(fn), argv);

	di->guard = IRExpr_RdTmp(guard);
	addStmtToIRSB(s->out, IRStmt_Dirty(di));
}

#define GUARDED(s, rp, f, argv, g) emit_guarded(s, rp, #f, (void *)&(f), argv, g)

/* A conditional branch in the modern model (taken: an I64 0/1 atom): the
 * branch is counted and the history shifted inline;  the predictor is
 * called only when its bimodal or gshare counter is not saturated towards
 * the outcome (otherwise nothing else changes and it predicted right). */
static void emit_mo_bc(State *s, InstrInfo *n, IRExpr *taken)
{
	struct pk_bpm *p = &H.bpm;
	IRExpr *ha = mkIRExpr_HWord((HWord)&p->hist);
	IRExpr *ba = mkIRExpr_HWord((HWord)&p->bim[n->addr & ((1u << PK_BPM_BIM_BITS) - 1)]);
#define T(e) IRExpr_RdTmp(e)
	IRTemp h0 = assign(s, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, ha));
	IRTemp x = assign(s, Ity_I64, IRExpr_Binop(Iop_Xor64, T(h0), k64(n->addr)));
	IRTemp gi = assign(s, Ity_I64, IRExpr_Binop(Iop_And64, T(x), k64((1u << PK_BPM_GSH_BITS) - 1)));
	IRTemp ga = assign(s, Ity_I64, IRExpr_Binop(Iop_Add64, T(gi), k64((ULong)(HWord)p->gsh)));
	IRTemp g8 = assign(s, Ity_I8, IRExpr_Load(Iend_LE, Ity_I8, T(ga)));
	IRTemp g = assign(s, Ity_I64, IRExpr_Unop(Iop_8Uto64, T(g8)));
	IRTemp b8 = assign(s, Ity_I8, IRExpr_Load(Iend_LE, Ity_I8, ba));
	IRTemp b = assign(s, Ity_I64, IRExpr_Unop(Iop_8Uto64, T(b8)));
	IRTemp want = assign(s, Ity_I64, IRExpr_Binop(Iop_Mul64, taken, k64(3)));
	IRTemp g1 = assign(s, Ity_I1, IRExpr_Binop(Iop_CmpNE64, T(g), T(want)));
	IRTemp g2 = assign(s, Ity_I1, IRExpr_Binop(Iop_CmpNE64, T(b), T(want)));
	IRTemp gd = assign(s, Ity_I1, IRExpr_Binop(Iop_Or1, T(g1), T(g2)));

	add_inline_inc(s, &n->cc[PK_BC]);
	GUARDED(s, 3, mo_bc_slow, mkIRExprVec_3(mkIRExpr_HWord((HWord)n), taken, T(h0)), gd);
	IRTemp sh = assign(s, Ity_I64, IRExpr_Binop(Iop_Shl64, T(h0), IRExpr_Const(IRConst_U8(1))));
	IRTemp h1 = assign(s, Ity_I64, IRExpr_Binop(Iop_Or64, T(sh), taken));
#undef T

	addStmtToIRSB(s->out, IRStmt_Store(Iend_LE, ha, IRExpr_RdTmp(h1)));
}

/* Emit the simulation of the queued events, in order.  Accesses that hit
 * the MRU way (no state change) are counted inline; the rest call the
 * simulator through a guarded helper. */
static void flush(State *s)
{
	for (Int i = 0; i < s->used; i++) {
		Event *e = &s->ev[i];
		InstrInfo *n = e->inode;
		IRExpr *in = mkIRExpr_HWord((HWord)n);

		switch (e->tag) {
		case EV_IR: {
			ULong b1 = n->addr >> H.I1.line_bits, b2 = (n->addr + n->len - 1) >> H.I1.line_bits;

			add_inline_inc(s, &n->cc[PK_IR]);
			IRTemp g = guard_block(s, &H.I1, b1);

			if (b1 != b2) {	/* straddles: both lines must be MRU */
				IRTemp g2 = guard_block(s, &H.I1, b2);

				g = assign(s, Ity_I1, IRExpr_Binop(Iop_Or1, IRExpr_RdTmp(g), IRExpr_RdTmp(g2)));
			}

			if (clo_modern)
				GUARDED(s, 1, mo_ir_slow, mkIRExprVec_1(in), g);
			else
				GUARDED(s, 1, cg_ir_slow, mkIRExprVec_1(in), g);
			break;
		}
		case EV_DR:
		case EV_DM:
		case EV_DW: {
			Bool w = e->tag == EV_DW;
			IRTemp g;

			add_inline_inc(s, &n->cc[w ? PK_DW : PK_DR]);
			g = guard_access(s, &H.D1, e->ea, e->size, True,
					 !clo_modern ? G_EXACT : e->tag == EV_DR ? G_READ : G_WRITE);
			IRExpr **a = mkIRExprVec_3(in, e->ea, mkIRExpr_HWord((HWord)e->size));

			if (clo_modern) {
				if (w)
					GUARDED(s, 3, mo_dw_slow, a, g);
				else if (e->tag == EV_DM)
					GUARDED(s, 3, mo_dm_slow, a, g);
				else
					GUARDED(s, 3, mo_dr_slow, a, g);
			} else {
				if (w)
					GUARDED(s, 3, cg_dw_slow, a, g);
				else
					GUARDED(s, 3, cg_dr_slow, a, g);
			}
			break;
		}
		case EV_BC:
			if (clo_modern)
				emit_mo_bc(s, n, e->ea);
			else
				HELPER(s, 2, h_bc, mkIRExprVec_2(in, e->ea));
			break;
		case EV_BI:
			if (clo_modern)
				HELPER(s, 2, mo_bi, mkIRExprVec_2(in, e->ea));
			else
				HELPER(s, 2, h_bi, mkIRExprVec_2(in, e->ea));
			break;
		case EV_CALL:
			HELPER(s, 1, mo_call, mkIRExprVec_1(in));
			break;
		case EV_RET:
			HELPER(s, 2, mo_ret, mkIRExprVec_2(in, e->ea));
			break;
		}
	}
	s->used = 0;
	emit_pending(s);
}

static void add_event(State *s, enum ev_tag tag, InstrInfo *n, IRExpr *ea, Int size)
{
	if (s->used == N_EVENTS)
		flush(s);
	s->ev[s->used] = (Event){ tag, n, ea, size };
	s->used++;
}

static void add_dr(State *s, InstrInfo *n, Int size, IRExpr *ea)
{
	tl_assert(isIRAtom(ea));
	if (size > (Int)min_line)
		size = (Int)min_line;
	add_event(s, EV_DR, n, ea, size);
}

static void add_dw(State *s, InstrInfo *n, Int size, IRExpr *ea)
{
	tl_assert(isIRAtom(ea));
	if (size > (Int)min_line)
		size = (Int)min_line;
	if (s->used > 0) {
		Event *l = &s->ev[s->used - 1];

		if (l->tag == EV_DR && l->size == size && l->inode == n && eqIRAtom(l->ea, ea)) {
			l->tag = EV_DM;
			return;
		}
	}
	add_event(s, EV_DW, n, ea, size);
}

static void add_d_guarded(State *s, InstrInfo *n, Int size, IRExpr *ea, IRExpr *guard,
			  Bool is_write)
{
	IRExpr **a;
	IRDirty *di;

	if (size > (Int)min_line)
		size = (Int)min_line;
	flush(s);
	a = mkIRExprVec_3(mkIRExpr_HWord((HWord)n), ea, mkIRExpr_HWord((HWord)size));
	if (clo_modern)
		di = is_write ? unsafeIRDirty_0_N(3, "mo_dw", VG_(fnptr_to_fnentry)(&mo_dw), a)
			      : unsafeIRDirty_0_N(3, "mo_dr", VG_(fnptr_to_fnentry)(&mo_dr), a);
	else
		di = is_write ? unsafeIRDirty_0_N(3, "cg_dw", VG_(fnptr_to_fnentry)(&cg_dw), a)
			      : unsafeIRDirty_0_N(3, "cg_dr", VG_(fnptr_to_fnentry)(&cg_dr), a);
	di->guard = guard;
	addStmtToIRSB(s->out, IRStmt_Dirty(di));
}

static IRSB *pk_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			   const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
			   IRType gWordTy, IRType hWordTy)
{
	State s;
	Int i, n_instrs = 0, k = 0;
	InstrInfo *infos, *cur = NULL;
	Addr cia = 0;
	UInt isize = 0;
	ULong prev_block = ~0ULL;	/* I1 block of the previous instruction's last byte */
	InstrInfo *call_cand = NULL;	/* stored its own return address: a call? */

	if (clo_pkm != PKM_OFF)
		return pkm_instrument(in, gWordTy, hWordTy);
	if (gWordTy != hWordTy)
		VG_(tool_panic)("host/guest word size mismatch");
	for (i = 0; i < in->stmts_used; i++)
		if (in->stmts[i]->tag == Ist_IMark)
			n_instrs++;
	infos = VG_(malloc)("pk.instrs", sizeof(InstrInfo) * (n_instrs ? n_instrs : 1));

	s.used = 0;
	s.npend = 0;
	s.out = deepCopyIRSBExceptStmts(in);
	i = 0;
	while (i < in->stmts_used && in->stmts[i]->tag != Ist_IMark)
		addStmtToIRSB(s.out, in->stmts[i++]);

	for (; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		switch (st->tag) {
		case Ist_IMark: {
			ULong b1, b2;

			/* a call that VEX chased into its target: the instruction
			 * stored the address after it, and the next one is not there */
			if (call_cand && st->Ist.IMark.addr != call_cand->addr + call_cand->len)
				add_event(&s, EV_CALL, call_cand, NULL, 0);
			call_cand = NULL;
			cia = st->Ist.IMark.addr;
			isize = st->Ist.IMark.len;
			if (isize == 0)
				isize = VG_MIN_INSTR_SZB;
			tl_assert(k < n_instrs);
			cur = &infos[k++];
			cur->addr = cia;
			cur->len = isize;
			cur->cc = get_lineCC(cia)->c;
			b1 = cia >> H.I1.line_bits;
			b2 = (cia + isize - 1) >> H.I1.line_bits;
			if (b1 == b2 && b1 == prev_block) {
				/* certain MRU hit in I1: count only */
				add_inline_inc(&s, &cur->cc[PK_IR]);
			} else {
				add_event(&s, EV_IR, cur, NULL, 0);
			}
			prev_block = b2;
			break;
		}
		case Ist_WrTmp: {
			IRExpr *d = st->Ist.WrTmp.data;

			if (d->tag == Iex_Load)
				add_dr(&s, cur, sizeofIRType(d->Iex.Load.ty), d->Iex.Load.addr);
			break;
		}
		case Ist_Store: {
			IRExpr *d = st->Ist.Store.data;

			add_dw(&s, cur, sizeofIRType(typeOfIRExpr(in->tyenv, d)), st->Ist.Store.addr);
			if (clo_modern && clo_branch_sim && d->tag == Iex_Const &&
			    d->Iex.Const.con->tag == Ico_U64 && d->Iex.Const.con->Ico.U64 == cia + isize)
				call_cand = cur;
			break;
		}
		case Ist_StoreG: {
			IRStoreG *sg = st->Ist.StoreG.details;

			add_d_guarded(&s, cur, sizeofIRType(typeOfIRExpr(in->tyenv, sg->data)),
				      sg->addr, sg->guard, True);
			break;
		}
		case Ist_LoadG: {
			IRLoadG *lg = st->Ist.LoadG.details;
			IRType ty = Ity_INVALID, wide = Ity_INVALID;

			typeOfIRLoadGOp(lg->cvt, &wide, &ty);
			add_d_guarded(&s, cur, sizeofIRType(ty), lg->addr, lg->guard, False);
			break;
		}
		case Ist_Dirty: {
			IRDirty *d = st->Ist.Dirty.details;

			if (d->mFx != Ifx_None) {
				if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
					add_dr(&s, cur, d->mSize, d->mAddr);
				if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
					add_dw(&s, cur, d->mSize, d->mAddr);
			}
			break;
		}
		case Ist_CAS: {
			IRCAS *cas = st->Ist.CAS.details;
			Int sz = sizeofIRType(typeOfIRExpr(in->tyenv, cas->dataLo));

			if (cas->dataHi)
				sz *= 2;
			add_dr(&s, cur, sz, cas->addr);
			add_dw(&s, cur, sz, cas->addr);
			break;
		}
		case Ist_LLSC:
			if (st->Ist.LLSC.storedata == NULL) {
				add_dr(&s, cur, sizeofIRType(typeOfIRTemp(in->tyenv, st->Ist.LLSC.result)),
				       st->Ist.LLSC.addr);
				flush(&s);
			} else {
				add_dw(&s, cur, sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.LLSC.storedata)),
				       st->Ist.LLSC.addr);
			}
			break;
		case Ist_Exit:
			if (clo_branch_sim && (st->Ist.Exit.jk == Ijk_Boring || st->Ist.Exit.jk == Ijk_Call ||
					       st->Ist.Exit.jk == Ijk_Ret)) {
				IRConst *dst = st->Ist.Exit.dst;
				Addr sea;
				Bool inverted;
				IRTemp g1 = newIRTemp(s.out->tyenv, Ity_I1);
				IRTemp gw = newIRTemp(s.out->tyenv, Ity_I64);
				IRTemp g = newIRTemp(s.out->tyenv, Ity_I64);

				tl_assert(dst->tag == Ico_U64);
				sea = dst->Ico.U64;
				inverted = (cia + isize) == sea;
				addStmtToIRSB(s.out, IRStmt_WrTmp(g1, st->Ist.Exit.guard));
				addStmtToIRSB(s.out, IRStmt_WrTmp(gw, IRExpr_Unop(Iop_1Uto64, IRExpr_RdTmp(g1))));
				addStmtToIRSB(s.out, IRStmt_WrTmp(g, inverted
					? IRExpr_Binop(Iop_Xor64, IRExpr_RdTmp(gw), IRExpr_Const(IRConst_U64(1)))
					: IRExpr_RdTmp(gw)));
				add_event(&s, EV_BC, cur, IRExpr_RdTmp(g), 0);
			}
			flush(&s);
			break;
		default:
			break;
		}
		addStmtToIRSB(s.out, st);
	}
	if (clo_branch_sim && (in->jumpkind == Ijk_Boring || in->jumpkind == Ijk_Call) &&
	    in->next->tag == Iex_RdTmp)
		add_event(&s, EV_BI, cur, in->next, 0);
	if (clo_branch_sim && clo_modern && cur) {
		if (in->jumpkind == Ijk_Call)
			add_event(&s, EV_CALL, cur, NULL, 0);
		else if (in->jumpkind == Ijk_Ret && isIRAtom(in->next))
			add_event(&s, EV_RET, cur, in->next, 0);
	}
	flush(&s);
	tl_assert(k == n_instrs);
	return s.out;
}

/* ---- configuration ---- */

static const VexCache *find_cache(const VexCacheInfo *ci, VexCacheKind kind, UInt level)
{
	for (UInt i = 0; i < ci->num_caches; i++)
		if (ci->caches[i].level == level && ci->caches[i].kind == kind)
			return &ci->caches[i];
	return NULL;
}

/* Make an auto-detected LL simulable the way cachegrind does
 * (pk_cache_geom_fix, cachesim.h). */
static void fix_ll(Geom *g)
{
	uint64_t size, assoc;

	if (g->size <= 0 || g->assoc <= 0 || g->line <= 0)
		return;
	size = (uint64_t)g->size;
	assoc = (uint64_t)g->assoc;
	pk_cache_geom_fix(&size, &assoc, (uint64_t)g->line);
	g->size = (Long)size;
	g->assoc = (Long)assoc;
}

/* Host geometry as cachegrind reads it (CPUID through VEX), or its
 * fallback defaults. */
static void host_caches(Geom *I1, Geom *D1, Geom *L2, Geom *LL)
{
	VexArchInfo vai;
	const VexCacheInfo *ci;
	const VexCache *i1, *d1, *l2, *ll;

	VG_(machine_get_VexArchInfo)(NULL, &vai);
	ci = &vai.hwcache_info;
	i1 = find_cache(ci, INSN_CACHE, 1);
	d1 = find_cache(ci, DATA_CACHE, 1);
	ll = find_cache(ci, UNIFIED_CACHE, ci->num_levels);
	l2 = ci->num_levels > 2 ? find_cache(ci, UNIFIED_CACHE, 2) : NULL;
	if (i1 && d1 && ll) {
		if (i1->is_trace_cache)
			*I1 = (Geom){ (i1->sizeB == 12 * 1024 || i1->sizeB == 16 * 1024) ? 16384 : 32768,
				      i1->assoc, 32 };
		else
			*I1 = (Geom){ i1->sizeB, i1->assoc, i1->line_sizeB };
		*D1 = (Geom){ d1->sizeB, d1->assoc, d1->line_sizeB };
		*LL = (Geom){ ll->sizeB, ll->assoc, ll->line_sizeB };
		*L2 = l2 ? (Geom){ l2->sizeB, l2->assoc, l2->line_sizeB } : (Geom){ 1 << 20, 8, 64 };
	} else {
		*I1 = (Geom){ 65536, 2, 64 };
		*D1 = (Geom){ 65536, 2, 64 };
		*LL = (Geom){ 262144, 8, 64 };
		*L2 = (Geom){ 262144, 8, 64 };
	}
	fix_ll(LL);
}

static void setup_cache(struct pk_cache *c, const HChar *name, Geom g)
{
	const char *why = pk_cache_check((uint64_t)g.size, (uint64_t)g.assoc, (uint64_t)g.line);
	ULong *tags;

	if (why) {
		VG_(fmsg)("%s geometry %lld,%lld,%lld not supported: %s; give --%s=SIZE,ASSOC,LINE\n",
			  name, g.size, g.assoc, g.line, why, name);
		VG_(exit)(2);
	}
	tags = VG_(malloc)("pk.tags", sizeof(ULong) * pk_cache_slots((uint64_t)g.size, (uint64_t)g.line));
	pk_cache_init(c, (uint64_t)g.size, (uint32_t)g.assoc, (uint32_t)g.line, (uint64_t *)tags);
}

static Geom g_I1, g_D1, g_L2, g_LL, g_stlb;
static Int main_pid;

static void pk_post_clo_init(void)
{
	if (clo_pkm == PKM_C2C) {	/* no cache simulated: no geometry to refuse */
		main_pid = VG_(getpid)();
		pkm_init(clo_pkm, NULL);
		return;
	}
	if (clo_pkm == PKM_MEM)
		clo_modern = True;	/* mem: the levels of the modern model */
	host_caches(&g_I1, &g_D1, &g_L2, &g_LL);
	if (clo_pkm == PKM_MEM)		/* mem fetches no instructions: I1 unused */
		g_I1 = (Geom){ 32768, 8, 64 };
	if (clo_I1.size > 0)
		g_I1 = clo_I1;
	if (clo_D1.size > 0)
		g_D1 = clo_D1;
	if (clo_L2.size > 0)
		g_L2 = clo_L2;
	if (clo_LL.size > 0)
		g_LL = clo_LL;
	setup_cache(&H.I1, "I1", g_I1);
	setup_cache(&H.D1, "D1", g_D1);
	setup_cache(&H.LL, "LL", g_LL);
	min_line = H.I1.line < H.D1.line ? H.I1.line : H.D1.line;
	if (H.LL.line < min_line)
		min_line = H.LL.line;
	H.has_l2 = clo_modern;
	H.has_tlb = clo_modern && clo_tlb_on;
	H.has_stlb = H.has_tlb && clo_stlb_entries > 0;
	H.prefetch = clo_modern ? clo_prefetch : PK_PF_NONE;
	H.l1_prefetch = clo_modern && clo_l1_prefetch && clo_prefetch != PK_PF_NONE;
	pk_hier_reset(&H);
	if (clo_modern) {
		setup_cache(&H.L2, "L2", g_L2);
		if (H.L2.line < min_line)
			min_line = H.L2.line;
		if (H.has_tlb)
			setup_cache(&H.TLB, "tlb", clo_tlb);
		if (H.has_stlb) {
			g_stlb = (Geom){ clo_stlb_entries * clo_tlb.line, clo_stlb_assoc, clo_tlb.line };
			if (pk_cache_check((uint64_t)g_stlb.size, (uint64_t)g_stlb.assoc,
					   (uint64_t)g_stlb.line)) {
				VG_(fmsg)("--stlb=%lld,%lld: entries / associativity must be a power "
					  "of two\n", clo_stlb_entries, clo_stlb_assoc);
				VG_(exit)(2);
			}
			setup_cache(&H.STLB, "stlb", g_stlb);
		}
	}
	main_pid = VG_(getpid)();
	cc_table = VG_(OSetGen_Create)(__builtin_offsetof(LineCC, loc), cmp_loc, VG_(malloc), "pk.cc", VG_(free));
	str_table = VG_(OSetGen_Create)(0, cmp_str, VG_(malloc), "pk.str", VG_(free));
	if (clo_pkm != PKM_OFF)
		pkm_init(clo_pkm, clo_pkm == PKM_MEM ? &H : NULL);
}

/* Threads the process created (itself included): Valgrind runs them one at
 * a time on one simulated hierarchy, so sharing between cores is not seen. */
static Int n_threads = 1;

static void pk_thread_create(ThreadId tid, ThreadId child)
{
	(void)child;
	if (tid != VG_INVALID_THREADID)   /* not the main thread's own creation */
		n_threads++;
	if (clo_pkm != PKM_OFF)
		pkm_thread_create(tid, child);
}

static void pk_thread_exit(ThreadId tid)
{
	if (clo_pkm != PKM_OFF)
		pkm_thread_exit(tid);
}

static void pk_start_client(ThreadId tid, ULong blocks)
{
	if (clo_pkm != PKM_OFF)
		pkm_start_client(tid, blocks);
}

/* ---- output ---- */

static const int cg_events[] = { PK_IR, PK_I1MR, PK_ILMR, PK_DR, PK_D1MR, PK_DLMR, PK_DW,
				 PK_D1MW, PK_DLMW, PK_BC, PK_BCM, PK_BI, PK_BIM };
static const int mo_events[] = { PK_IR, PK_I1MR, PK_I2MR, PK_ILMR, PK_DR, PK_D1MR, PK_D2MR,
				 PK_DLMR, PK_DW, PK_D1MW, PK_D2MW, PK_DLMW, PK_BC, PK_BCM,
				 PK_BI, PK_BIM, PK_DTMR, PK_DTMW, PK_PFI, PK_PFH, PK_BR, PK_BRM,
				 PK_STMR, PK_STMW, PK_PW2M, PK_PWLM, PK_PF1I, PK_D1WB,
				 PK_L2WB, PK_LLWB };

static void desc_line(VgFile *fp, const HChar *name, Geom g)
{
	if (g.assoc == 1)
		VG_(fprintf)(fp, "desc: %s cache:         %lld B, %lld B, direct-mapped\n", name,
			     g.size, g.line);
	else
		VG_(fprintf)(fp, "desc: %s cache:         %lld B, %lld B, %lld-way associative\n",
			     name, g.size, g.line, g.assoc);
}

static Int n_dumps;

static void write_output(const HChar *base, const HChar *suffix)
{
	HChar *name = VG_(expand_file_name)("--pk-out", base);
	HChar path[VG_(strlen)(name) + 32];
	const int *evs = clo_modern ? mo_events : cg_events;
	Int nev = clo_modern ? (Int)(sizeof(mo_events) / sizeof(int)) : (Int)(sizeof(cg_events) / sizeof(int));
	ULong tot[PK_NEV];
	const HChar *cur_file = NULL, *cur_fn = NULL;
	LineCC *cc;
	VgFile *fp;
	Int i;

	HChar tmp[VG_(strlen)(name) + 64], lnk[8];

	VG_(sprintf)(path, "%s%s", name, suffix);
	VG_(free)(name);
	/* the output-file rules (base/outfile.h), freestanding: never
	 * through a planted symbolic link, written whole to a new 0600
	 * temporary (O_EXCL: not a link either) and renamed over the path */
	if (VG_(readlink)(path, lnk, sizeof(lnk)) >= 0) {
		VG_(umsg)("error: '%s' is a symbolic link; not writing through it\n", path);
		return;
	}
	fp = NULL;
	for (i = 0; i < 100 && !fp; i++) {
		VG_(sprintf)(tmp, "%s.tmp%d.%d", path, VG_(getpid)(), i);
		fp = VG_(fopen)(tmp, VKI_O_CREAT | VKI_O_EXCL | VKI_O_WRONLY, VKI_S_IRUSR | VKI_S_IWUSR);
	}
	if (!fp) {
		VG_(umsg)("error: cannot create output file '%s'\n", tmp);
		return;
	}
	if (!clo_branch_sim)
		nev -= 4 * !clo_modern;
	desc_line(fp, "I1", g_I1);
	desc_line(fp, "D1", g_D1);
	if (clo_modern)
		desc_line(fp, "L2", g_L2);
	desc_line(fp, "LL", g_LL);
	if (clo_modern) {
		if (H.has_tlb)
			VG_(fprintf)(fp, "desc: D-TLB:            %lld entries, %lld B pages, %lld-way\n",
				     clo_tlb.size / clo_tlb.line, clo_tlb.line, clo_tlb.assoc);
		if (H.has_stlb)
			VG_(fprintf)(fp, "desc: STLB:             %lld entries, %lld B pages, %lld-way\n",
				     g_stlb.size / g_stlb.line, g_stlb.line, g_stlb.assoc);
		VG_(fprintf)(fp, "desc: prefetch:         %s into L2%s\n",
			     clo_prefetch == PK_PF_NONE ? "none"
			     : clo_prefetch == PK_PF_NEXT_LINE ? "next-line"
			     : clo_prefetch == PK_PF_STRIDE ? "stride" : "stream",
			     H.l1_prefetch ? ", next-line (degree 3) into D1" : "");
		if (clo_branch_sim)
			VG_(fprintf)(fp, "desc: branch predictor: tournament (bimodal 16K, gshare 64K), "
				     "indirect by path, 32-entry return stack\n");
		VG_(fprintf)(fp, "desc: model:            modern\n");
	}
	if (n_threads > 1)
		VG_(fprintf)(fp, "desc: threads:          %d, simulated one at a time (no coherence traffic)\n",
			     n_threads);
	VG_(fprintf)(fp, "cmd: %s", VG_(args_the_exename));
	for (i = 0; i < VG_(sizeXA)(VG_(args_for_client)); i++)
		VG_(fprintf)(fp, " %s", *(HChar **)VG_(indexXA)(VG_(args_for_client), i));
	VG_(fprintf)(fp, "\nevents:");
	for (i = 0; i < nev; i++)
		VG_(fprintf)(fp, " %s", pk_ev_name[evs[i]]);
	/* cachegrind 3.19 ends its line of the cache events alone (no branch
	 * events) with a blank, and cg_merge compares the line as a string:
	 * the same bytes there, so that its files and these merge */
	VG_(fprintf)(fp, nev && !VG_(strcmp)(pk_ev_name[evs[nev - 1]], "DLmw") ? " \n" : "\n");
	VG_(memset)(tot, 0, sizeof(tot));
	VG_(OSetGen_ResetIter)(cc_table);
	while ((cc = VG_(OSetGen_Next)(cc_table))) {
		Bool any = False;

		for (i = 0; i < nev; i++)
			any |= cc->c[evs[i]] != 0;
		if (!any)
			continue;
		if (cc->loc.file != cur_file) {
			VG_(fprintf)(fp, "fl=%s\n", cc->loc.file);
			cur_file = cc->loc.file;
			cur_fn = NULL;
		}
		if (cc->loc.fn != cur_fn) {
			VG_(fprintf)(fp, "fn=%s\n", cc->loc.fn);
			cur_fn = cc->loc.fn;
		}
		VG_(fprintf)(fp, "%u", cc->loc.line);
		for (i = 0; i < nev; i++) {
			VG_(fprintf)(fp, " %llu", (ULong)cc->c[evs[i]]);
			tot[evs[i]] += cc->c[evs[i]];
		}
		VG_(fprintf)(fp, "\n");
	}
	VG_(fprintf)(fp, "summary:");
	for (i = 0; i < nev; i++)
		VG_(fprintf)(fp, " %llu", tot[evs[i]]);
	VG_(fprintf)(fp, "\n");
	VG_(fclose)(fp);
	if (VG_(rename)(tmp, path) != 0) {
		VG_(umsg)("error: cannot rename '%s' to '%s'\n", tmp, path);
		VG_(unlink)(tmp);
	}
}

static void zero_counts(void)
{
	LineCC *cc;

	VG_(OSetGen_ResetIter)(cc_table);
	while ((cc = VG_(OSetGen_Next)(cc_table)))
		VG_(memset)(cc->c, 0, sizeof(cc->c));
}

static Bool pk_handle_client_request(ThreadId tid, UWord *args, UWord *ret)
{
	HChar suffix[32];

	if (!VG_IS_TOOL_USERREQ('P', 'K', args[0]))
		return False;
	if (clo_pkm != PKM_OFF)
		return pkm_client_request(tid, args, ret);
	switch (args[0]) {
	case PERFKIT_CACHE_USERREQ_ZERO:
		zero_counts();
		*ret = 0;
		return True;
	case PERFKIT_CACHE_USERREQ_DUMP:
		VG_(sprintf)(suffix, ".%d", ++n_dumps);
		write_output(clo_dump ? clo_dump : clo_out, suffix);
		*ret = (UWord)n_dumps;
		return True;
	default:
		return False;
	}
}

/* A forked child (not exec'd: that is not traced) writes its own counts
 * to DUMPBASE.pidN instead of overwriting its parent's file. */
/* c2c/mem: the geometry lines, then pk_mem.c's file. */
static void pkm_write(const HChar *suffix)
{
	HChar *name = VG_(expand_file_name)("--pk-out", clo_out);
	HChar path[VG_(strlen)(name) + 32], d[5][128];
	const HChar *desc[6] = { NULL };
	Int n = 0;

	VG_(sprintf)(path, "%s%s", name, suffix);
	VG_(free)(name);
	if (clo_pkm == PKM_MEM) {
		const Geom *g[3] = { &g_D1, &g_L2, &g_LL };
		const HChar *nm[3] = { "D1", "L2", "LL" };

		for (Int i = 0; i < 3; i++) {
			VG_(sprintf)(d[n], "%s cache: %lld B, %lld B, %lld-way associative", nm[i],
				     g[i]->size, g[i]->line, g[i]->assoc);
			desc[n] = d[n];
			n++;
		}
		if (H.has_tlb) {
			VG_(sprintf)(d[n], "D-TLB: %lld entries, %lld B pages, %lld-way",
				     clo_tlb.size / clo_tlb.line, clo_tlb.line, clo_tlb.assoc);
			desc[n] = d[n];
			n++;
		}
	}
	pkm_fini(path, desc);
}

static void pk_fini(Int exitcode)
{
	HChar suffix[32];

	if (clo_pkm != PKM_OFF) {
		if (VG_(getpid)() == main_pid)
			pkm_write("");
		else {
			VG_(sprintf)(suffix, ".pid%d", VG_(getpid)());
			pkm_write(suffix);
		}
		return;
	}
	if (VG_(getpid)() == main_pid) {
		write_output(clo_out, "");
		return;
	}
	VG_(sprintf)(suffix, ".pid%d", VG_(getpid)());
	write_output(clo_dump ? clo_dump : clo_out, suffix);
}

static void pk_pre_clo_init(void)
{
	VG_(details_name)("pkcache");
	VG_(details_version)(NULL);
	VG_(details_description)("perfkit's cache and branch simulator");
	VG_(details_copyright_author)("perfkit authors, GPL-2.0-or-later");
	VG_(details_bug_reports_to)("perfkit");
	VG_(details_avg_translation_sizeB)(500);
	VG_(basic_tool_funcs)(pk_post_clo_init, pk_instrument, pk_fini);
	VG_(needs_command_line_options)(pk_process_cmd_line_option, pk_print_usage,
					pk_print_debug_usage);
	VG_(needs_client_requests)(pk_handle_client_request);
	VG_(track_pre_thread_ll_create)(pk_thread_create);
	VG_(track_pre_thread_ll_exit)(pk_thread_exit);
	VG_(track_start_client_code)(pk_start_client);
}

VG_DETERMINE_INTERFACE_VERSION(pk_pre_clo_init)
