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
 *  - write-allocate: a write miss installs the line like a read miss (there
 *    is no dirty state and no write-back traffic);
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
 * Modern model (pk_hier with has_l2 / prefetch / TLB):
 *  - I1 and D1 miss to a unified L2, L2 misses to LL;  non-inclusive, no
 *    back-invalidation;
 *  - data TLB consulted on every data access (page = TLB "line"; an access
 *    straddling two pages counts once, like the caches);
 *  - prefetchers fill L2 only.  A prefetched line is inserted as MRU and
 *    flagged; the first demand hit on it counts as a prefetch hit (PFh) and
 *    clears the flag.  A prefetch of a line already in L2 does nothing.
 *    A prefetch reads the line from LL (LL state is updated; an LL miss
 *    caused by a prefetch is not counted as a demand miss).
 *    next-line: a demand L2 miss of block b prefetches b+1.
 *    stride: trained on the D1 miss stream (the accesses L2 sees), per
 *    instruction: a 256-entry table indexed by the low bits of the missing
 *    instruction's address keeps (pc, last address, stride, confidence);
 *    the same non-zero stride seen twice in a row (confidence >= 2)
 *    prefetches address + PK_PF_DISTANCE * stride, once per new block.
 *  - branch predictor: cachegrind's (cg_branchpred.c): conditional
 *    branches use 16384 2-bit saturating counters indexed by 7 bits of
 *    global history and the low 7 bits of the branch address; indirect
 *    branches a 512-entry table of last targets indexed by the low 9 bits
 *    of the branch address.  Returns are not simulated.
 *
 * Counters: callers pass a uint64_t array indexed by enum pk_ev.
 *
 * A consequence used by the Valgrind tool: an access that hits the MRU way
 * of its set (and, in the modern model, of the TLB) changes no state at
 * all, so it can be counted without calling the simulator.
 */
#ifndef PERFKIT_CACHESIM_H
#define PERFKIT_CACHESIM_H

#include <stdint.h>

#define PK_INLINE __attribute__((always_inline)) static inline

#define PK_TAG_EMPTY (~(uint64_t)0)
#define PK_TAG_PF    ((uint64_t)1 << 63)	/* prefetched, not yet used */
#define PK_MIN_LINE  16
#define PK_PF_ENTRIES 256
#define PK_PF_DISTANCE 4
#define PK_BP_HIST_BITS 7
#define PK_BP_IADD_BITS 7
#define PK_BP_COUNTERS (1 << (PK_BP_HIST_BITS + PK_BP_IADD_BITS))
#define PK_BTAC_BITS 9
#define PK_BTAC (1 << PK_BTAC_BITS)

/* Event indices of a counter array.  Output files name a subset. */
enum pk_ev {
	PK_IR, PK_I1MR, PK_I2MR, PK_ILMR,
	PK_DR, PK_D1MR, PK_D2MR, PK_DLMR,
	PK_DW, PK_D1MW, PK_D2MW, PK_DLMW,
	PK_BC, PK_BCM, PK_BI, PK_BIM,
	PK_DTMR, PK_DTMW, PK_PFI, PK_PFH,
	PK_NEV
};

/* Names as they appear on the "events:" line of a Cachegrind-format file. */
static const char *const pk_ev_name[PK_NEV] = {
	"Ir", "I1mr", "I2mr", "ILmr", "Dr", "D1mr", "D2mr", "DLmr",
	"Dw", "D1mw", "D2mw", "DLmw", "Bc", "Bcm", "Bi", "Bim",
	"DTmr", "DTmw", "PFi", "PFh",
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

/* ---- the hierarchy ---- */

enum pk_prefetch { PK_PF_NONE, PK_PF_NEXT_LINE, PK_PF_STRIDE };

struct pk_pf_entry {
	uint64_t pc, last, last_block;
	int64_t stride;
	uint32_t conf;
};

struct pk_hier {
	struct pk_cache I1, D1, L2, LL, TLB;
	int has_l2, has_tlb;
	enum pk_prefetch prefetch;
	struct pk_pf_entry pf[PK_PF_ENTRIES];
	struct pk_bpred bp;
};

/* Issue a prefetch of block into L2 (reading it from LL). */
static inline void pk_hier_prefetch(struct pk_hier *h, uint64_t block, uint64_t *cc)
{
	if (pk_cache_prefetch(&h->L2, block)) {
		cc[PK_PFI]++;
		(void)pk_cache_block_ref(&h->LL, block);
	}
}

/* Instruction fetch at a, size bytes, counted in cc[] (_nocount: all but
 * the Ir count itself). */
PK_INLINE void pk_hier_iref_nocount(struct pk_hier *h, uint64_t a, uint32_t size, uint64_t *cc)
{
	if (!pk_cache_ref(&h->I1, a, size))
		return;
	cc[PK_I1MR]++;
	if (h->has_l2) {
		uint64_t b1 = a >> h->L2.line_bits, b2 = (a + size - 1) >> h->L2.line_bits;
		int m = pk_cache_block_ref_pf(&h->L2, b1);

		if (m == 2)
			cc[PK_PFH]++;
		if (b2 != b1) {
			int m2 = pk_cache_block_ref_pf(&h->L2, b2);

			if (m2 == 2)
				cc[PK_PFH]++;
			m = (m == 1 || m2 == 1);
		} else {
			m = m == 1;
		}
		if (!m)
			return;
		cc[PK_I2MR]++;
	}
	if (pk_cache_ref(&h->LL, a, size))
		cc[PK_ILMR]++;
}

PK_INLINE void pk_hier_iref(struct pk_hier *h, uint64_t a, uint32_t size, uint64_t *cc)
{
	cc[PK_IR]++;
	pk_hier_iref_nocount(h, a, size, cc);
}

/* Stride prefetcher training on a data access by the instruction at pc. */
static inline void pk_hier_train(struct pk_hier *h, uint64_t pc, uint64_t a, uint64_t *cc)
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
	if (e->conf >= 2) {
		uint64_t b = (a + (uint64_t)(e->stride * PK_PF_DISTANCE)) >> h->L2.line_bits;

		if (b != e->last_block) {
			e->last_block = b;
			pk_hier_prefetch(h, b, cc);
		}
	}
}

/* Data access at a (size 1..line) by the instruction at pc; is_write
 * selects the Dr or Dw group of counters in cc[].  _nocount: everything
 * but the access count itself (the tool counts accesses inline). */
PK_INLINE void pk_hier_dref_nocount(struct pk_hier *h, uint64_t pc, uint64_t a, uint32_t size,
				    int is_write, uint64_t *cc)
{
	const int o = is_write ? (PK_DW - PK_DR) : 0;

	if (h->has_tlb && pk_cache_ref(&h->TLB, a, size))
		cc[is_write ? PK_DTMW : PK_DTMR]++;
	if (!pk_cache_ref(&h->D1, a, size))
		return;
	cc[PK_D1MR + o]++;
	if (h->has_l2) {
		uint64_t b1 = a >> h->L2.line_bits, b2 = (a + size - 1) >> h->L2.line_bits;
		int m = pk_cache_block_ref_pf(&h->L2, b1), miss;

		if (h->prefetch == PK_PF_STRIDE)
			pk_hier_train(h, pc, a, cc);
		if (m == 2)
			cc[PK_PFH]++;
		miss = m == 1;
		if (b2 != b1) {
			int m2 = pk_cache_block_ref_pf(&h->L2, b2);

			if (m2 == 2)
				cc[PK_PFH]++;
			miss |= m2 == 1;
		}
		if (!miss)
			return;
		cc[PK_D2MR + o]++;
		if (h->prefetch == PK_PF_NEXT_LINE)
			pk_hier_prefetch(h, b2 + 1, cc);
	}
	if (pk_cache_ref(&h->LL, a, size))
		cc[PK_DLMR + o]++;
}

PK_INLINE void pk_hier_dref(struct pk_hier *h, uint64_t pc, uint64_t a, uint32_t size,
			    int is_write, uint64_t *cc)
{
	cc[is_write ? PK_DW : PK_DR]++;
	pk_hier_dref_nocount(h, pc, a, size, is_write, cc);
}

#endif
