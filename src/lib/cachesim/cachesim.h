/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cachesim.h — perfkit's cache, TLB, prefetcher and branch-predictor model.
 *
 * Freestanding C: no libc, no allocation (the caller hands in the tag
 * storage), every hot path `static inline`.  The same code runs inside the
 * Valgrind tool (src/vgtool/), in the unit tests and in any trace replay.
 *
 * THE MODEL, exactly
 * ------------------
 * Caches (I1, D1, L2, LL, and the TLB, which is a cache of pages):
 *  - set-associative, sets = size / (line * assoc), set count and line size
 *    powers of two, line >= 16 bytes (pk_cache_check);
 *  - set index = block & (sets - 1), block = address >> log2(line); the
 *    whole block number is kept as the tag;
 *  - true LRU: a set is an array ordered most- to least-recently used; a
 *    hit moves the line to the front, a miss inserts it at the front and
 *    drops the last one;
 *  - write-allocate: a write miss installs the line like a read miss (in
 *    the cachegrind model there is no dirty state and no write-back
 *    traffic; the modern model adds them, below);
 *  - an access that straddles two lines is ONE access: both lines are
 *    looked up (and both become MRU), and it is a miss if either missed —
 *    never two misses;  an access can touch at most two lines (callers cap
 *    sizes at the smallest line size, as cachegrind does);
 *  - a lower level is only consulted on a miss of the level above.
 * These are cachegrind's rules (cg_sim.c), so `--model=cachegrind` (I1, D1,
 * LL) counts the same misses as `valgrind --tool=cachegrind`.  One
 * deliberate difference: empty ways hold PK_TAG_EMPTY, where cachegrind
 * starts with tag 0 (block 0 = addresses 0..line-1, never accessed).
 *
 * Modern model (pk_hier with has_l2, prefetchers, TLBs, pk_bpm):
 *  - I1 and D1 miss to a unified L2, L2 misses to LL;  non-inclusive, no
 *    back-invalidation.  A lower level sees one request per miss of the
 *    level above (both lines of a straddling access are looked up).
 *  - dirty lines: a write (Dw, or a modify, which counts as Dr) marks its
 *    D1 line dirty (a write miss installs it dirty);  evicting a dirty line
 *    is a write-back: D1wb (D1 -> L2), L2wb (L2 -> LL), LLwb (LL ->
 *    memory).  A write-back to a level that lacks the line installs it
 *    there, dirty, as MRU (and may evict in turn);  to a level that has it,
 *    it only marks the line dirty (no LRU change).  It is counted on the
 *    instruction whose access caused the eviction.  When line sizes differ
 *    the write-back goes to the line that holds the evicted line's first
 *    byte.  No level is written through.
 *  - prefetchers never cross a 4 KiB boundary (PK_PAGE_BITS), whatever
 *    the TLB page size.  A prefetch of a line already present does
 *    nothing (no LRU change).  A prefetched line is inserted as MRU.
 *    Misses caused by prefetches are never counted as demand misses (D2m*,
 *    DLm*).
 *    L1 next-line (l1_prefetch, "DCU"), degree PK_L1_DEGREE: a D1 demand
 *    miss whose last line is b, by an instruction whose previous D1 miss
 *    was 1 to PK_L1_DEGREE + 1 lines below the access's first line (an
 *    ascending stream; a 256-entry table indexed by the low bits of the
 *    instruction's address keeps the last line of its last D1 miss),
 *    prefetches lines
 *    b+1 .. b+PK_L1_DEGREE into D1, stopping at the page's end;  PF1i
 *    counts the lines installed.  Their first use is a plain D1 hit (no
 *    flag: a unit-stride stream misses D1 once every PK_L1_DEGREE + 1
 *    lines).  Each fill is an L2 request like a demand miss's (it trains
 *    the L2 prefetcher, its L2/LL misses fill L2 and LL) but counts no miss.
 *    L2 prefetchers (PFi issued into L2) fill L2, flagged, and read the
 *    line from LL (LL state updated, a miss there not counted);  the first
 *    request that hits a flagged line counts PFh and clears the flag.  They
 *    see every L2 request from D1 (demand misses and L1 prefetch fills, the
 *    latter on behalf of the instruction that triggered them; I1 misses do
 *    not train), after its lookup;  they train on every request but issue
 *    prefetches only on one that missed L2 or hit a flagged line (a stream
 *    over lines L2 already holds needs none):
 *      stream (default): 64 per-page entries, direct-mapped by page number;
 *        an entry keeps (page, last line offset, stride in lines,
 *        confidence, furthest line prefetched).  A new page takes the
 *        entry over;  a different non-zero line delta sets stride = delta,
 *        confidence 1;  the same delta again gives confidence 2, from
 *        which every request prefetches the lines off + k*stride,
 *        k = 1..PK_PF_DISTANCE, not yet prefetched, inside the page.
 *      stride: per instruction: a 256-entry table indexed by the low bits
 *        of the requesting instruction's address keeps (pc, last address,
 *        stride, confidence);  the same non-zero stride seen twice in a
 *        row (confidence >= 2) prefetches address + PK_PF_DISTANCE*stride,
 *        once per new block, only when that is in the same page.
 *      next-line: an L2 miss of block b prefetches b+1 if in the same page.
 *  - a data access that hits the MRU way of its D1 set, touches one line
 *    and changes nothing there (a read; a write or modify of a line already
 *    dirty) is a plain hit and goes no further: not even to the TLB (a
 *    repeat of the line just used reuses its translation;  so the TLB's
 *    LRU order sees line-to-line moves, not every access).
 *  - data TLB, two levels, consulted on every other data access (page =
 *    TLB "line"; an access straddling two pages counts once, like caches):
 *    the L1 dTLB (TLB; misses DTmr/DTmw), then on its miss the second-level
 *    STLB (misses STmr/STmw; it holds data pages only, no instruction
 *    side).  Every STLB miss is a page walk: one 8-byte load of the leaf
 *    page-table entry at PK_PT_BASE + 8 * page (so 8 neighbouring pages
 *    share a 64-byte line of entries), looked up in L2 then LL like a D1
 *    miss (state updated, no D2m/DLm, no prefetch training);  PW2m counts
 *    the accesses whose walk missed L2, PWLm those whose walk missed LL.
 *    Upper page-table levels are assumed cached (paging-structure caches).
 *  - branch predictor (pk_bpm), tournament (McFarling): a bimodal table of
 *    2^14 2-bit counters indexed by the low 14 bits of the branch address,
 *    a gshare table of 2^16 2-bit counters indexed by (address XOR 16
 *    bits of global history), and a 2^14 chooser of 2-bit counters indexed
 *    like the bimodal one (>= 2 selects gshare);  counters start at 2;
 *    both tables are trained, the chooser only when the two disagree,
 *    towards the one that was right.  Indirect branches (Bi): a 512-entry
 *    table of last targets by address, and a 1024-entry table indexed by
 *    the low 10 bits of (address XOR path), holding (address, target): its
 *    target is the prediction when its address matches, else the last
 *    target;  both are updated, then path = (path << 3) ^ (target >> 2) ^
 *    (target >> 11) (path starts at 0).  Returns (Br): a
 *    32-entry return-address stack, pushed with the fall-through address of
 *    every call, popped by every return (mispredicted, Brm, when the
 *    popped address is not the return's target;  it wraps on overflow).
 *  - --model=cachegrind keeps cachegrind's predictor (pk_bpred).
 *
 * Counters: callers pass a uint64_t array indexed by enum pk_ev.
 *
 * A consequence used by the Valgrind tool: an access that hits the MRU way
 * of its set changes no state at all, so it can be counted without calling
 * the simulator;  in the modern model that is the plain hit above (for a
 * write or a modify the line must already be dirty).
 *
 * Events (pk_ev_name; every count is per instruction):
 *   Ir I1mr I2mr ILmr   instruction fetches; misses in I1, L2, LL
 *   Dr D1mr D2mr DLmr   data reads (and modifies); misses in D1, L2, LL
 *   Dw D1mw D2mw DLmw   data writes; misses in D1, L2, LL
 *   Bc Bcm  Bi Bim      conditional / indirect branches and mispredicts
 *   DTmr DTmw           L1 dTLB misses (reads, writes)        modern only
 *   PFi PFh             L2 prefetches issued / first hits     modern only
 *   Br Brm              returns / return mispredicts         modern only
 *   STmr STmw           STLB misses = page walks              modern only
 *   PW2m PWLm           page walks whose PTE load missed L2 / LL
 *   PF1i                lines the L1 (D1) prefetcher installed
 *   D1wb L2wb LLwb      dirty lines written back from D1, L2, LL
 */
#ifndef PERFKIT_CACHESIM_H
#define PERFKIT_CACHESIM_H

#include <stdint.h>

#define PK_INLINE __attribute__((always_inline)) static inline

#define PK_TAG_EMPTY (~(uint64_t)0)
#define PK_TAG_PF    ((uint64_t)1 << 63)	/* prefetched, not yet used */
#define PK_TAG_DIRTY ((uint64_t)1 << 62)	/* written since filled (modern) */
#define PK_TAG_FLAGS (PK_TAG_PF | PK_TAG_DIRTY)	/* blocks are < 2^60 */
#define PK_PAGE_BITS 12				/* prefetchers stay in 4 KiB */
#define PK_PT_BASE   ((uint64_t)1 << 48)	/* simulated page-table entries */
#define PK_MIN_LINE  16
#define PK_PF_ENTRIES 256
#define PK_PF_DISTANCE 4
#define PK_L1_DEGREE 3
#define PK_BP_HIST_BITS 7
#define PK_BP_IADD_BITS 7
#define PK_BP_COUNTERS (1 << (PK_BP_HIST_BITS + PK_BP_IADD_BITS))
#define PK_BTAC_BITS 9
#define PK_BTAC (1 << PK_BTAC_BITS)
#define PK_STREAMS 64
#define PK_BPM_BIM_BITS 14
#define PK_BPM_GSH_BITS 16
#define PK_BPM_ITAB_BITS 10
#define PK_RAS 32

/* Event indices of a counter array.  Output files name a subset. */
enum pk_ev {
	PK_IR, PK_I1MR, PK_I2MR, PK_ILMR,
	PK_DR, PK_D1MR, PK_D2MR, PK_DLMR,
	PK_DW, PK_D1MW, PK_D2MW, PK_DLMW,
	PK_BC, PK_BCM, PK_BI, PK_BIM,
	PK_DTMR, PK_DTMW, PK_PFI, PK_PFH,
	PK_BR, PK_BRM, PK_STMR, PK_STMW, PK_PW2M, PK_PWLM,
	PK_PF1I, PK_D1WB, PK_L2WB, PK_LLWB,
	PK_NEV
};

/* Names as they appear on the "events:" line of a Cachegrind-format file. */
static const char *const pk_ev_name[PK_NEV] = {
	"Ir", "I1mr", "I2mr", "ILmr", "Dr", "D1mr", "D2mr", "DLmr",
	"Dw", "D1mw", "D2mw", "DLmw", "Bc", "Bcm", "Bi", "Bim",
	"DTmr", "DTmw", "PFi", "PFh",
	"Br", "Brm", "STmr", "STmw", "PW2m", "PWLm",
	"PF1i", "D1wb", "L2wb", "LLwb",
};

struct pk_cache {
	uint64_t *tags;		/* sets * assoc entries, MRU first per set */
	uint64_t size;		/* bytes */
	uint32_t assoc, line, sets, sets_min_1, line_bits;
};

static inline int pk_log2(uint64_t x)
{
	int n = 0;

	if (x == 0 || (x & (x - 1)))
		return -1;
	while (x > 1) {
		x >>= 1;
		n++;
	}
	return n;
}

/* NULL when (size, assoc, line) is a geometry the model handles, else why
 * not (a constant string). */
static inline const char *pk_cache_check(uint64_t size, uint64_t assoc, uint64_t line)
{
	if (size == 0 || assoc == 0 || line == 0)
		return "size, associativity and line size must be positive";
	if (pk_log2(line) < 0)
		return "line size is not a power of two";
	if (line < PK_MIN_LINE)
		return "line size is smaller than 16 bytes";
	if (size <= line)
		return "size is not larger than the line size";
	if (assoc > size / line)
		return "associativity is larger than size / line size";
	if (size % (line * assoc) != 0 || pk_log2(size / line / assoc) < 0)
		return "set count (size / (line * assoc)) is not a power of two";
	if (size / line > ((uint64_t)1 << 28))
		return "too many lines (more than 2^28)";
	return 0;
}

/* Make a host geometry (sysfs, CPUID) simulable the way cachegrind does for
 * its LL: when size / (assoc * line) is not a power of two, round the set
 * count down to one and raise the associativity to keep the size (rounded
 * to nearest), then make the size an exact multiple of the sets.  Unchanged
 * when a value is 0 or assoc or line is 2^32 or more (no real cache comes
 * near; it keeps assoc * line from wrapping).  The one copy: hostcache.c
 * (sysfs) and the Valgrind tool's LL (pk_main.c) both call it. */
static inline void pk_cache_geom_fix(uint64_t *size, uint64_t *assoc, uint64_t line)
{
	uint64_t sets, p = 1;

	if (!*size || !*assoc || !line)
		return;
	if (*assoc >= ((uint64_t)1 << 32) || line >= ((uint64_t)1 << 32))
		return;
	sets = *size / (*assoc * line);
	if (sets == 0)
		return;
	if ((sets & (sets - 1)) == 0) {
		*size = line * *assoc * sets;
		return;
	}
	while (p <= sets / 2)  /* not p * 2 <= sets: that wraps to 0 at 2^63 */
		p *= 2;
	*assoc = (uint64_t)(0.5 + (double)sets / (double)p * (double)*assoc);
	*size = line * *assoc * p;
}

/* Number of tag slots pk_cache_init needs. */
static inline uint64_t pk_cache_slots(uint64_t size, uint64_t line)
{
	return size / line;
}

/* Set up c over tags[pk_cache_slots()] (geometry already checked). */
static inline void pk_cache_init(struct pk_cache *c, uint64_t size, uint32_t assoc,
				 uint32_t line, uint64_t *tags)
{
	c->tags = tags;
	c->size = size;
	c->assoc = assoc;
	c->line = line;
	c->sets = (uint32_t)(size / line / assoc);
	c->sets_min_1 = c->sets - 1;
	c->line_bits = (uint32_t)pk_log2(line);
	for (uint64_t i = 0; i < size / line; i++)
		tags[i] = PK_TAG_EMPTY;
}

/* Look block up in its set with LRU update; 1 on a miss (block installed). */
PK_INLINE int pk_cache_block_ref(struct pk_cache *c, uint64_t block)
{
	uint64_t *set = &c->tags[(uint64_t)(block & c->sets_min_1) * c->assoc];
	uint32_t i, j;

	if (set[0] == block)
		return 0;
	for (i = 1; i < c->assoc; i++) {
		if (set[i] == block) {
			for (j = i; j > 0; j--)
				set[j] = set[j - 1];
			set[0] = block;
			return 0;
		}
	}
	for (j = c->assoc - 1; j > 0; j--)
		set[j] = set[j - 1];
	set[0] = block;
	return 1;
}

/* As pk_cache_block_ref for a cache that may hold prefetched lines:
 * returns 0 hit, 1 miss, 2 hit on a prefetched line (flag now cleared). */
PK_INLINE int pk_cache_block_ref_pf(struct pk_cache *c, uint64_t block)
{
	uint64_t *set = &c->tags[(uint64_t)(block & c->sets_min_1) * c->assoc];
	uint32_t i, j;

	for (i = 0; i < c->assoc; i++) {
		/* PK_TAG_EMPTY & ~PK_TAG_PF is no block (blocks < 2^58) */
		if ((set[i] & ~PK_TAG_PF) == block) {
			int r = (set[i] & PK_TAG_PF) ? 2 : 0;

			for (j = i; j > 0; j--)
				set[j] = set[j - 1];
			set[0] = block;
			return r;
		}
	}
	for (j = c->assoc - 1; j > 0; j--)
		set[j] = set[j - 1];
	set[0] = block;
	return 1;
}

/* Insert block as a prefetched MRU line unless present; 1 if inserted. */
static inline int pk_cache_prefetch(struct pk_cache *c, uint64_t block)
{
	uint64_t *set = &c->tags[(uint64_t)(block & c->sets_min_1) * c->assoc];
	uint32_t i, j;

	for (i = 0; i < c->assoc; i++)
		if ((set[i] & ~PK_TAG_PF) == block && set[i] != PK_TAG_EMPTY)
			return 0;
	for (j = c->assoc - 1; j > 0; j--)
		set[j] = set[j - 1];
	set[0] = block | PK_TAG_PF;
	return 1;
}

/* One access of size bytes (1 <= size <= line) at a: 1 on a miss.  A
 * straddling access looks both lines up and is one miss at most. */
PK_INLINE int pk_cache_ref(struct pk_cache *c, uint64_t a, uint32_t size)
{
	uint64_t b1 = a >> c->line_bits, b2 = (a + size - 1) >> c->line_bits;

	if (b1 == b2)
		return pk_cache_block_ref(c, b1);
	int m = pk_cache_block_ref(c, b1);

	return pk_cache_block_ref(c, b2) | m;
}

/* ---- branch prediction (cachegrind's predictor) ---- */

struct pk_bpred {
	uint64_t hist;
	uint8_t counters[PK_BP_COUNTERS];
	uint64_t btac[PK_BTAC];
};

static inline void pk_bpred_init(struct pk_bpred *p)
{
	p->hist = 0;
	for (int i = 0; i < PK_BP_COUNTERS; i++)
		p->counters[i] = 0;
	for (int i = 0; i < PK_BTAC; i++)
		p->btac[i] = 0;
}

/* Conditional branch at pc, taken or not: 1 when mispredicted. */
PK_INLINE int pk_bpred_cond(struct pk_bpred *p, uint64_t pc, int taken)
{
	uint64_t idx = ((p->hist & ((1u << PK_BP_HIST_BITS) - 1)) << PK_BP_IADD_BITS) |
		       (pc & ((1u << PK_BP_IADD_BITS) - 1));
	uint8_t *ctr = &p->counters[idx];
	int predicted = *ctr >= 2;

	p->hist = (p->hist << 1) | (taken ? 1 : 0);
	if (taken) {
		if (*ctr < 3)
			(*ctr)++;
	} else if (*ctr > 0) {
		(*ctr)--;
	}
	return predicted != (taken != 0);
}

/* Indirect branch at pc going to dst: 1 when mispredicted. */
PK_INLINE int pk_bpred_ind(struct pk_bpred *p, uint64_t pc, uint64_t dst)
{
	uint64_t *e = &p->btac[pc & (PK_BTAC - 1)];
	int miss = *e != dst;

	*e = dst;
	return miss;
}

/* ---- modern model: lines with flags ---- */

/* A victim tag that must be written back. */
PK_INLINE int pk_tag_dirty(uint64_t t)
{
	return (t & PK_TAG_DIRTY) && t != PK_TAG_EMPTY;
}

/* Modern lookup of block: 0 hit, 1 miss, 2 hit on a prefetched line.  A
 * hit keeps the dirty bit, clears the prefetch flag, adds set_flags
 * (PK_TAG_DIRTY for a write) and moves the line to MRU;  a miss installs
 * block | set_flags as MRU and leaves the dropped tag in *victim. */
PK_INLINE int pk_line_ref(struct pk_cache *c, uint64_t block, uint64_t set_flags,
			  uint64_t *victim)
{
	uint64_t *set = &c->tags[(uint64_t)(block & c->sets_min_1) * c->assoc];
	uint64_t t = set[0], prev;
	uint32_t i;

	if ((t & ~PK_TAG_FLAGS) == block) {
		set[0] = (t & ~PK_TAG_PF) | set_flags;
		return (t & PK_TAG_PF) ? 2 : 0;
	}
	/* one pass: each way takes the tag of the way before it, until the
	 * block is found (it goes to the front) or falls off the end */
	for (i = 1; i < c->assoc; i++) {
		prev = t;
		t = set[i];
		set[i] = prev;
		if ((t & ~PK_TAG_FLAGS) == block) {
			set[0] = (t & PK_TAG_DIRTY) | block | set_flags;
			return (t & PK_TAG_PF) ? 2 : 0;
		}
	}
	*victim = t;
	set[0] = block | set_flags;
	return 1;
}

/* Install block | flags as MRU unless present (present: nothing changes,
 * or with PK_TAG_DIRTY in flags the line is marked dirty).  1 if installed
 * (the dropped tag in *victim). */
static inline int pk_line_fill(struct pk_cache *c, uint64_t block, uint64_t flags,
			       uint64_t *victim)
{
	uint64_t *set = &c->tags[(uint64_t)(block & c->sets_min_1) * c->assoc];
	uint32_t i, j;

	for (i = 0; i < c->assoc; i++)
		if ((set[i] & ~PK_TAG_FLAGS) == block) {
			set[i] |= flags & PK_TAG_DIRTY;
			return 0;
		}
	*victim = set[c->assoc - 1];
	for (j = c->assoc - 1; j > 0; j--)
		set[j] = set[j - 1];
	set[0] = block | flags;
	return 1;
}

/* Look block up in the modern cache without changing anything: the tag
 * (flags included), or PK_TAG_EMPTY when absent.  For tests and tools. */
static inline uint64_t pk_line_peek(const struct pk_cache *c, uint64_t block)
{
	const uint64_t *set = &c->tags[(uint64_t)(block & c->sets_min_1) * c->assoc];

	for (uint32_t i = 0; i < c->assoc; i++)
		if ((set[i] & ~PK_TAG_FLAGS) == block)
			return set[i];
	return PK_TAG_EMPTY;
}

/* ---- modern branch prediction: tournament, indirect, return stack ---- */

struct pk_bpm {
	uint64_t hist, path;
	uint32_t ras_top;
	uint8_t bim[1 << PK_BPM_BIM_BITS];
	uint8_t sel[1 << PK_BPM_BIM_BITS];
	uint8_t gsh[1 << PK_BPM_GSH_BITS];
	uint64_t btb[PK_BTAC];
	struct { uint64_t pc, dst; } itab[1 << PK_BPM_ITAB_BITS];
	uint64_t ras[PK_RAS];
};

static inline void pk_bpm_init(struct pk_bpm *p)
{
	p->hist = p->path = 0;
	p->ras_top = 0;
	for (int i = 0; i < (1 << PK_BPM_BIM_BITS); i++)
		p->bim[i] = p->sel[i] = 2;
	for (int i = 0; i < (1 << PK_BPM_GSH_BITS); i++)
		p->gsh[i] = 2;
	for (int i = 0; i < PK_BTAC; i++)
		p->btb[i] = 0;
	for (int i = 0; i < (1 << PK_BPM_ITAB_BITS); i++)
		p->itab[i].pc = p->itab[i].dst = 0;
	for (int i = 0; i < PK_RAS; i++)
		p->ras[i] = 0;
}

PK_INLINE void pk_ctr2(uint8_t *c, int up)
{
	if (up) {
		if (*c < 3)
			(*c)++;
	} else if (*c > 0) {
		(*c)--;
	}
}

/* The counters' part of a conditional branch at pc under global history
 * hist (p->hist is left alone): 1 when mispredicted.  When the bimodal
 * and gshare counters are both saturated towards the outcome nothing
 * changes (the Valgrind tool checks that inline). */
PK_INLINE int pk_bpm_cond_ctrs(struct pk_bpm *p, uint64_t pc, int taken, uint64_t hist)
{
	uint8_t *b = &p->bim[pc & ((1u << PK_BPM_BIM_BITS) - 1)];
	uint8_t *s = &p->sel[pc & ((1u << PK_BPM_BIM_BITS) - 1)];
	uint8_t *g = &p->gsh[(pc ^ hist) & ((1u << PK_BPM_GSH_BITS) - 1)];
	int pb = *b >= 2, pg = *g >= 2, t = taken != 0;
	int pred = *s >= 2 ? pg : pb;

	if (pb != pg)
		pk_ctr2(s, pg == t);
	pk_ctr2(b, t);
	pk_ctr2(g, t);
	return pred != t;
}

/* Conditional branch at pc, taken or not: 1 when mispredicted. */
PK_INLINE int pk_bpm_cond(struct pk_bpm *p, uint64_t pc, int taken)
{
	int m = pk_bpm_cond_ctrs(p, pc, taken, p->hist);

	p->hist = (p->hist << 1) | (uint64_t)(taken != 0);
	return m;
}

/* Indirect branch (not a return) at pc going to dst: 1 when mispredicted. */
PK_INLINE int pk_bpm_ind(struct pk_bpm *p, uint64_t pc, uint64_t dst)
{
	uint64_t *last = &p->btb[pc & (PK_BTAC - 1)];
	uint32_t k = (uint32_t)((pc ^ p->path) & ((1u << PK_BPM_ITAB_BITS) - 1));
	uint64_t pred = p->itab[k].pc == pc ? p->itab[k].dst : *last;

	*last = dst;
	p->itab[k].pc = pc;
	p->itab[k].dst = dst;
	p->path = (p->path << 3) ^ (dst >> 2) ^ (dst >> 11);
	return pred != dst;
}

/* A call whose return address (the instruction after it) is ret. */
PK_INLINE void pk_bpm_call(struct pk_bpm *p, uint64_t ret)
{
	p->ras[p->ras_top++ & (PK_RAS - 1)] = ret;
}

/* A return going to dst: 1 when mispredicted. */
PK_INLINE int pk_bpm_ret(struct pk_bpm *p, uint64_t dst)
{
	return p->ras[--p->ras_top & (PK_RAS - 1)] != dst;
}

/* ---- the hierarchy ---- */

enum pk_prefetch { PK_PF_NONE, PK_PF_NEXT_LINE, PK_PF_STRIDE, PK_PF_STREAM };

/* kind of a data access */
enum pk_acc { PK_READ, PK_WRITE, PK_MODIFY };

struct pk_pf_entry {
	uint64_t pc, last, last_block;
	int64_t stride;
	uint32_t conf;
};

struct pk_stream {
	uint64_t page;
	int32_t last, stride, conf, head;
};

struct pk_hier {
	struct pk_cache I1, D1, L2, LL, TLB, STLB;
	int has_l2, has_tlb, has_stlb, l1_prefetch;
	enum pk_prefetch prefetch;
	struct pk_pf_entry pf[PK_PF_ENTRIES];
	struct pk_stream st[PK_STREAMS];
	uint64_t l1last[PK_PF_ENTRIES];	/* per instruction: last D1 miss */
	struct pk_bpred bp;	/* cachegrind's, for --model=cachegrind */
	struct pk_bpm bpm;	/* the modern predictor */
};

/* Put back to the initial state the parts of h that have no tag storage
 * (prefetcher tables, predictors);  caches are set up by pk_cache_init. */
static inline void pk_hier_reset(struct pk_hier *h)
{
	for (int i = 0; i < PK_PF_ENTRIES; i++) {
		h->pf[i].pc = h->pf[i].last = h->pf[i].last_block = 0;
		h->pf[i].stride = 0;
		h->pf[i].conf = 0;
		h->l1last[i] = PK_TAG_EMPTY;
	}
	for (int i = 0; i < PK_STREAMS; i++) {
		h->st[i].page = PK_TAG_EMPTY;
		h->st[i].last = h->st[i].stride = h->st[i].conf = h->st[i].head = 0;
	}
	pk_bpred_init(&h->bp);
	pk_bpm_init(&h->bpm);
}

/* A dirty line dropped from LL: written to memory. */
PK_INLINE void pk_hier_wb_ll(uint64_t victim, uint64_t *cc)
{
	if (pk_tag_dirty(victim))
		cc[PK_LLWB]++;
}

/* A dirty line (byte address a) written back from L2 to LL. */
static inline void pk_hier_wb_l2(struct pk_hier *h, uint64_t a, uint64_t *cc)
{
	uint64_t v;

	cc[PK_L2WB]++;
	if (pk_line_fill(&h->LL, a >> h->LL.line_bits, PK_TAG_DIRTY, &v))
		pk_hier_wb_ll(v, cc);
}

/* The tag victim dropped from L2: a write-back if dirty. */
PK_INLINE void pk_hier_l2_victim(struct pk_hier *h, uint64_t victim, uint64_t *cc)
{
	if (pk_tag_dirty(victim))
		pk_hier_wb_l2(h, (victim & ~PK_TAG_FLAGS) << h->L2.line_bits, cc);
}

/* The tag victim dropped from D1: a write-back to L2 (or LL) if dirty. */
static inline void pk_hier_d1_victim(struct pk_hier *h, uint64_t victim, uint64_t *cc)
{
	uint64_t a, v;

	if (!pk_tag_dirty(victim))
		return;
	cc[PK_D1WB]++;
	a = (victim & ~PK_TAG_FLAGS) << h->D1.line_bits;
	if (!h->has_l2) {
		if (pk_line_fill(&h->LL, a >> h->LL.line_bits, PK_TAG_DIRTY, &v))
			pk_hier_wb_ll(v, cc);
		return;
	}
	if (pk_line_fill(&h->L2, a >> h->L2.line_bits, PK_TAG_DIRTY, &v))
		pk_hier_l2_victim(h, v, cc);
}

/* Read the lines of [a, a+size) in LL (a fill request): 1 if any missed. */
PK_INLINE int pk_hier_ll_read(struct pk_hier *h, uint64_t a, uint32_t size, uint64_t *cc)
{
	uint64_t b1 = a >> h->LL.line_bits, b2 = (a + size - 1) >> h->LL.line_bits, v;
	int m = 0;

	if (pk_line_ref(&h->LL, b1, 0, &v) == 1) {
		m = 1;
		pk_hier_wb_ll(v, cc);
	}
	if (b2 != b1 && pk_line_ref(&h->LL, b2, 0, &v) == 1) {
		m = 1;
		pk_hier_wb_ll(v, cc);
	}
	return m;
}

/* Issue a prefetch of L2 block b (reading it from LL). */
static inline void pk_hier_prefetch(struct pk_hier *h, uint64_t b, uint64_t *cc)
{
	uint64_t v;

	if (pk_line_fill(&h->L2, b, PK_TAG_PF, &v)) {
		cc[PK_PFI]++;
		pk_hier_l2_victim(h, v, cc);
		(void)pk_hier_ll_read(h, b << h->L2.line_bits, 1, cc);
	}
}

/* Per-instruction stride prefetcher, trained on an L2 request at a. */
static inline void pk_hier_train_stride(struct pk_hier *h, uint64_t pc, uint64_t a, int issue,
					uint64_t *cc)
{
	struct pk_pf_entry *e = &h->pf[pc & (PK_PF_ENTRIES - 1)];

	if (e->pc != pc) {
		e->pc = pc;
		e->last = a;
		e->stride = 0;
		e->conf = 0;
		e->last_block = PK_TAG_EMPTY;
		return;
	}
	int64_t d = (int64_t)(a - e->last);

	e->last = a;
	if (d != 0 && d == e->stride) {
		if (e->conf < 3)
			e->conf++;
	} else {
		e->stride = d;
		e->conf = 0;
	}
	if (e->conf >= 2 && issue) {
		uint64_t t = a + (uint64_t)(e->stride * PK_PF_DISTANCE), b = t >> h->L2.line_bits;

		if ((t >> PK_PAGE_BITS) == (a >> PK_PAGE_BITS) && b != e->last_block) {
			e->last_block = b;
			pk_hier_prefetch(h, b, cc);
		}
	}
}

/* Per-page stream/stride prefetcher, trained on an L2 request at a. */
static inline void pk_hier_train_stream(struct pk_hier *h, uint64_t a, int issue, uint64_t *cc)
{
	const int lb = (int)h->L2.line_bits;

	if (lb >= PK_PAGE_BITS)
		return;
	const int32_t n = 1 << (PK_PAGE_BITS - lb);	/* lines per page */
	uint64_t page = a >> PK_PAGE_BITS;
	int32_t off = (int32_t)((a >> lb) & (uint64_t)(n - 1));
	struct pk_stream *e = &h->st[page & (PK_STREAMS - 1)];

	if (e->page != page) {
		e->page = page;
		e->last = e->head = off;
		e->stride = e->conf = 0;
		return;
	}
	int32_t d = off - e->last;

	if (d == 0)
		return;
	e->last = off;
	if (d != e->stride) {
		e->stride = d;
		e->conf = 1;
		e->head = off;
		return;
	}
	e->conf = 2;
	for (int32_t k = 1; issue && k <= PK_PF_DISTANCE; k++) {
		int32_t t = off + k * d;

		if (t < 0 || t >= n)
			break;
		if (d > 0 ? t <= e->head : t >= e->head)
			continue;
		e->head = t;
		pk_hier_prefetch(h, (page << (PK_PAGE_BITS - lb)) + (uint64_t)t, cc);
	}
}

/* An L2 request for [a, a+size) from a D1 demand miss (demand = 1, o
 * selects the read or write counters) or an L1 prefetch fill (demand =
 * 0, counts no miss).  Trains the L2 prefetcher. */
static inline void pk_hier_l2_data(struct pk_hier *h, uint64_t pc, uint64_t a, uint32_t size,
				   int demand, int o, uint64_t *cc)
{
	uint64_t b1 = a >> h->L2.line_bits, b2 = (a + size - 1) >> h->L2.line_bits, v;
	int m = pk_line_ref(&h->L2, b1, 0, &v), miss, pfhit;

	if (m == 1)
		pk_hier_l2_victim(h, v, cc);
	pfhit = m == 2;
	miss = m == 1;
	if (b2 != b1) {
		m = pk_line_ref(&h->L2, b2, 0, &v);
		if (m == 1)
			pk_hier_l2_victim(h, v, cc);
		pfhit += m == 2;
		miss |= m == 1;
	}
	cc[PK_PFH] += (uint64_t)pfhit;
	if (h->prefetch == PK_PF_STREAM)
		pk_hier_train_stream(h, a, miss || pfhit, cc);
	else if (h->prefetch == PK_PF_STRIDE)
		pk_hier_train_stride(h, pc, a, miss || pfhit, cc);
	if (!miss)
		return;
	if (demand)
		cc[PK_D2MR + o]++;
	if (pk_hier_ll_read(h, a, size, cc) && demand)
		cc[PK_DLMR + o]++;
	if (h->prefetch == PK_PF_NEXT_LINE && ((b2 + 1) << h->L2.line_bits) >> PK_PAGE_BITS ==
	    (b2 << h->L2.line_bits) >> PK_PAGE_BITS)
		pk_hier_prefetch(h, b2 + 1, cc);
}

/* L1 next-line prefetch after a D1 miss whose last line is b. */
static inline void pk_hier_l1_next(struct pk_hier *h, uint64_t pc, uint64_t b, uint64_t *cc)
{
	const uint64_t page = (b << h->D1.line_bits) >> PK_PAGE_BITS;

	for (uint64_t k = 1; k <= PK_L1_DEGREE; k++) {
		uint64_t a = (b + k) << h->D1.line_bits, v;

		if ((a >> PK_PAGE_BITS) != page)
			return;
		if (!pk_line_fill(&h->D1, b + k, 0, &v))
			continue;
		cc[PK_PF1I]++;
		pk_hier_d1_victim(h, v, cc);
		if (h->has_l2)
			pk_hier_l2_data(h, pc, a, 1, 0, 0, cc);
		else
			(void)pk_hier_ll_read(h, a, 1, cc);
	}
}

/* Page walk for page p (STLB miss): the leaf entry's load through L2 and
 * LL.  Returns 0, 1 (missed L2) or 2 (missed LL too). */
static inline int pk_hier_walk(struct pk_hier *h, uint64_t p, uint64_t *cc)
{
	uint64_t a = PK_PT_BASE + 8 * p, v;

	if (h->has_l2) {
		int m = pk_line_ref(&h->L2, a >> h->L2.line_bits, 0, &v);

		if (m != 1)
			return 0;
		pk_hier_l2_victim(h, v, cc);
	}
	return 1 + pk_hier_ll_read(h, a, 8, cc);
}

/* Second-level TLB after an L1 dTLB miss of pages p1..p2. */
static inline void pk_hier_stlb(struct pk_hier *h, uint64_t p1, uint64_t p2, int w, uint64_t *cc)
{
	int walk = 0, m = 0;

	uint64_t v;

	if (pk_line_ref(&h->STLB, p1, 0, &v)) {
		walk = 1;
		m = pk_hier_walk(h, p1, cc);
	}
	if (p2 != p1 && pk_line_ref(&h->STLB, p2, 0, &v)) {
		int m2 = pk_hier_walk(h, p2, cc);

		walk = 1;
		m = m2 > m ? m2 : m;
	}
	if (!walk)
		return;
	cc[w ? PK_STMW : PK_STMR]++;
	cc[PK_PW2M] += m >= 1;
	cc[PK_PWLM] += m == 2;
}

/* Instruction fetch at a, size bytes, counted in cc[] (_nocount: all but
 * the Ir count itself).  I1 holds no flags: it is a plain cache. */
PK_INLINE void pk_hier_iref_nocount(struct pk_hier *h, uint64_t a, uint32_t size, uint64_t *cc)
{
	if (!pk_cache_ref(&h->I1, a, size))
		return;
	cc[PK_I1MR]++;
	if (h->has_l2) {
		uint64_t b1 = a >> h->L2.line_bits, b2 = (a + size - 1) >> h->L2.line_bits, v;
		int m = pk_line_ref(&h->L2, b1, 0, &v), miss;

		if (m == 1)
			pk_hier_l2_victim(h, v, cc);
		cc[PK_PFH] += m == 2;
		miss = m == 1;
		if (b2 != b1) {
			m = pk_line_ref(&h->L2, b2, 0, &v);
			if (m == 1)
				pk_hier_l2_victim(h, v, cc);
			cc[PK_PFH] += m == 2;
			miss |= m == 1;
		}
		if (!miss)
			return;
		cc[PK_I2MR]++;
	}
	if (pk_hier_ll_read(h, a, size, cc))
		cc[PK_ILMR]++;
}

PK_INLINE void pk_hier_iref(struct pk_hier *h, uint64_t a, uint32_t size, uint64_t *cc)
{
	cc[PK_IR]++;
	pk_hier_iref_nocount(h, a, size, cc);
}

/* Data access at a (size 1..line) by the instruction at pc; kind selects
 * the Dr (read, modify) or Dw (write) group of counters in cc[] and
 * whether the line becomes dirty (write, modify).  _nocount: everything
 * but the access count itself (the tool counts accesses inline). */
PK_INLINE void pk_hier_dref_nocount(struct pk_hier *h, uint64_t pc, uint64_t a, uint32_t size,
				    enum pk_acc kind, uint64_t *cc)
{
	const int w = kind == PK_WRITE, o = w ? (PK_DW - PK_DR) : 0;
	const uint64_t fl = kind == PK_READ ? 0 : PK_TAG_DIRTY;
	uint64_t b1 = a >> h->D1.line_bits, b2 = (a + size - 1) >> h->D1.line_bits, v;
	uint64_t mru = h->D1.tags[(uint64_t)(b1 & h->D1.sets_min_1) * h->D1.assoc];

	/* a repeat of the MRU line, changing nothing: no TLB lookup either */
	if (b1 == b2 && (kind == PK_READ ? (mru & ~PK_TAG_DIRTY) : mru) == (b1 | fl))
		return;
	if (h->has_tlb) {
		uint64_t p1 = a >> h->TLB.line_bits, p2 = (a + size - 1) >> h->TLB.line_bits;
		int m = pk_line_ref(&h->TLB, p1, 0, &v);	/* TLBs hold no flags: 0 or 1 */

		if (p2 != p1)
			m |= pk_line_ref(&h->TLB, p2, 0, &v);
		if (m) {
			cc[w ? PK_DTMW : PK_DTMR]++;
			if (h->has_stlb)
				pk_hier_stlb(h, p1, p2, w, cc);
		}
	}

	int miss = pk_line_ref(&h->D1, b1, fl, &v) == 1;	/* D1 lines are never flagged PF */

	if (miss)
		pk_hier_d1_victim(h, v, cc);
	if (b2 != b1 && pk_line_ref(&h->D1, b2, fl, &v) == 1) {
		pk_hier_d1_victim(h, v, cc);
		miss = 1;
	}
	if (!miss)
		return;
	cc[PK_D1MR + o]++;
	if (h->has_l2) {
		pk_hier_l2_data(h, pc, a, size, 1, o, cc);
	} else if (pk_hier_ll_read(h, a, size, cc)) {
		cc[PK_DLMR + o]++;
	}
	if (h->l1_prefetch) {
		uint64_t *l = &h->l1last[pc & (PK_PF_ENTRIES - 1)];
		int stream = *l != PK_TAG_EMPTY && b1 > *l && b1 - *l <= PK_L1_DEGREE + 1;

		*l = b2;
		if (stream)
			pk_hier_l1_next(h, pc, b2, cc);
	}
}

PK_INLINE void pk_hier_dref(struct pk_hier *h, uint64_t pc, uint64_t a, uint32_t size,
			    enum pk_acc kind, uint64_t *cc)
{
	cc[kind == PK_WRITE ? PK_DW : PK_DR]++;
	pk_hier_dref_nocount(h, pc, a, size, kind, cc);
}

#endif
