/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/cachesim: the cache model on hand-computed traces
 * (LRU order, straddling accesses, write-allocate, prefetch, TLB), the
 * branch predictor, geometry checks and the sysfs reader;  the modern
 * model's page-bounded prefetchers, two-level TLB, write-backs and
 * tournament predictor with its return stack. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "cachesim/cachesim.h"
#include "cachesim/hostcache.h"

static uint64_t tags[1 << 16];

/* 2 sets x 2 ways x 64 B = 256 B: addresses 0, 128, 256 all map to set 0. */
static void test_lru_order(void **state)
{
	struct pk_cache c;

	(void)state;
	pk_cache_init(&c, 256, 2, 64, tags);
	assert_int_equal(c.sets, 2);
	assert_int_equal(pk_cache_ref(&c, 0x1000, 4), 1);	/* A miss: [A] */
	assert_int_equal(pk_cache_ref(&c, 0x1080, 4), 1);	/* B miss: [B A] */
	assert_int_equal(pk_cache_ref(&c, 0x1000, 4), 0);	/* A hit:  [A B] */
	assert_int_equal(pk_cache_ref(&c, 0x1100, 4), 1);	/* C miss evicts B: [C A] */
	assert_int_equal(pk_cache_ref(&c, 0x1000, 4), 0);	/* A still there */
	assert_int_equal(pk_cache_ref(&c, 0x1080, 4), 1);	/* B was evicted; evicts C */
	assert_int_equal(pk_cache_ref(&c, 0x1100, 4), 1);	/* C gone */
	assert_int_equal(pk_cache_ref(&c, 0x1040, 4), 1);	/* set 1 independent */
	assert_int_equal(pk_cache_ref(&c, 0x1100, 4), 0);
	/* the set holds MRU first */
	assert_true(c.tags[0] == (0x1100 >> 6));
	assert_true(c.tags[1] == (0x1080 >> 6));
}

/* The three-line conflict: 3 lines 4096 B apart, 8192,2,64 thrashes (every
 * access misses), 8192,4,64 misses only the first time. */
static void test_conflict_three_lines(void **state)
{
	struct pk_cache c;
	int m2 = 0, m4 = 0;

	(void)state;
	pk_cache_init(&c, 8192, 2, 64, tags);
	for (int r = 0; r < 1000; r++)
		for (int k = 0; k < 3; k++)
			m2 += pk_cache_ref(&c, 0x400000 + 4096u * (unsigned)k, 1);
	pk_cache_init(&c, 8192, 4, 64, tags);
	for (int r = 0; r < 1000; r++)
		for (int k = 0; k < 3; k++)
			m4 += pk_cache_ref(&c, 0x400000 + 4096u * (unsigned)k, 1);
	assert_int_equal(m2, 3000);
	assert_int_equal(m4, 3);
}

static void test_straddle(void **state)
{
	struct pk_cache c;

	(void)state;
	pk_cache_init(&c, 4096, 4, 64, tags);
	/* 8 bytes at 0x..3c touch lines 0 and 1: one access, one miss */
	assert_int_equal(pk_cache_ref(&c, 0x203c, 8), 1);
	/* both lines are now present */
	assert_int_equal(pk_cache_ref(&c, 0x2000, 4), 0);
	assert_int_equal(pk_cache_ref(&c, 0x2040, 4), 0);
	/* one line present, the other not: still one miss */
	assert_int_equal(pk_cache_ref(&c, 0x207c, 8), 1);
	assert_int_equal(pk_cache_ref(&c, 0x2080, 1), 0);
	/* the last byte of a line is not a straddle */
	assert_int_equal(pk_cache_ref(&c, 0x20bf, 1), 0);
}

/* Write-allocate: a write miss installs the line; the read that follows hits.
 * Counters: D1mw counted on the write, nothing on the read. */
static void test_write_allocate(void **state)
{
	static struct pk_hier h;
	uint64_t cc[PK_NEV] = { 0 };

	(void)state;
	memset(&h, 0, sizeof(h));
	pk_cache_init(&h.I1, 1024, 2, 64, tags);
	pk_cache_init(&h.D1, 1024, 2, 64, tags + 16);
	pk_cache_init(&h.LL, 4096, 4, 64, tags + 32);
	pk_hier_dref(&h, 0x400000, 0x8000, 4, 1, cc);
	pk_hier_dref(&h, 0x400004, 0x8004, 4, 0, cc);
	assert_int_equal(cc[PK_DW], 1);
	assert_int_equal(cc[PK_D1MW], 1);
	assert_int_equal(cc[PK_DLMW], 1);
	assert_int_equal(cc[PK_DR], 1);
	assert_int_equal(cc[PK_D1MR], 0);
	/* evict from D1 (2-way: two more lines of set 0), LL still has it */
	pk_hier_dref(&h, 0x400000, 0x8000 + 512, 4, 0, cc);
	pk_hier_dref(&h, 0x400000, 0x8000 + 1024, 4, 0, cc);
	pk_hier_dref(&h, 0x400000, 0x8000, 4, 0, cc);
	assert_int_equal(cc[PK_D1MR], 3);
	assert_int_equal(cc[PK_DLMR], 2);
	/* instruction fetch goes through I1 then LL */
	pk_hier_iref(&h, 0x400000, 4, cc);
	pk_hier_iref(&h, 0x400004, 4, cc);
	assert_int_equal(cc[PK_IR], 2);
	assert_int_equal(cc[PK_I1MR], 1);
	assert_int_equal(cc[PK_ILMR], 1);
}

static void setup_modern(struct pk_hier *h, enum pk_prefetch pf)
{
	memset(h, 0, sizeof(*h));
	pk_cache_init(&h->I1, 1024, 2, 64, tags);
	pk_cache_init(&h->D1, 1024, 2, 64, tags + 16);
	pk_cache_init(&h->L2, 8192, 4, 64, tags + 32);
	pk_cache_init(&h->LL, 65536, 8, 64, tags + 160);
	pk_cache_init(&h->TLB, 4 * 4096, 2, 4096, tags + 2000);
	h->has_l2 = 1;
	h->prefetch = pf;
}

static void test_next_line_prefetch(void **state)
{
	static struct pk_hier h;
	uint64_t cc[PK_NEV] = { 0 };

	(void)state;
	setup_modern(&h, PK_PF_NEXT_LINE);
	/* miss on line 0 prefetches line 1 into L2 */
	pk_hier_dref(&h, 1, 0x10000, 4, 0, cc);
	assert_int_equal(cc[PK_D1MR], 1);
	assert_int_equal(cc[PK_D2MR], 1);
	assert_int_equal(cc[PK_PFI], 1);
	/* line 1: D1 miss, L2 hit on the prefetched line; it prefetches nothing */
	pk_hier_dref(&h, 1, 0x10040, 4, 0, cc);
	assert_int_equal(cc[PK_D1MR], 2);
	assert_int_equal(cc[PK_D2MR], 1);
	assert_int_equal(cc[PK_PFH], 1);
	assert_int_equal(cc[PK_DLMR], 1);
	/* a second use of the line is no longer a prefetch hit */
	pk_cache_init(&h.D1, 1024, 2, 64, tags + 16);	/* flush D1 */
	pk_hier_dref(&h, 1, 0x10040, 4, 0, cc);
	assert_int_equal(cc[PK_PFH], 1);
	assert_int_equal(cc[PK_D2MR], 1);
}

static void test_stride_prefetch(void **state)
{
	static struct pk_hier h;
	uint64_t cc[PK_NEV] = { 0 };

	(void)state;
	setup_modern(&h, PK_PF_STRIDE);
	/* pc 0x40: addresses 0, 256, 512, 768 ... stride 256 (4 lines).
	 * 1st access: entry allocated; 2nd: stride learnt (conf 0); 3rd: same
	 * stride (conf 1); 4th: conf 2 -> prefetch addr + 4*256. */
	for (int i = 0; i < 4; i++)
		pk_hier_dref(&h, 0x40, 0x20000 + 256u * (unsigned)i, 4, 0, cc);
	assert_int_equal(cc[PK_PFI], 1);
	assert_int_equal(cc[PK_D2MR], 4);
	for (int i = 4; i < 8; i++)
		pk_hier_dref(&h, 0x40, 0x20000 + 256u * (unsigned)i, 4, 0, cc);
	/* access 3 prefetched the line of access 7 (4 strides ahead); 4..7
	 * prefetch 8..11; 4, 5, 6 still miss L2, 7 hits the prefetched line */
	assert_int_equal(cc[PK_PFI], 5);
	assert_int_equal(cc[PK_PFH], 1);	/* line of access 7 */
	assert_int_equal(cc[PK_D2MR], 7);
	/* another pc does not disturb, a changed stride resets confidence */
	pk_hier_dref(&h, 0x80, 0x90000, 4, 0, cc);
	pk_hier_dref(&h, 0x40, 0x20000 + 256u * 8 + 64, 4, 0, cc);
	assert_int_equal(cc[PK_PFI], 5);
}

static void test_tlb(void **state)
{
	static struct pk_hier h;
	uint64_t cc[PK_NEV] = { 0 };

	(void)state;
	setup_modern(&h, PK_PF_NONE);
	h.has_tlb = 1;
	/* 4 entries, 2-way, 4 KiB pages: 2 sets; pages 0,2,4 share set 0 */
	pk_hier_dref(&h, 1, 0x0000, 4, 0, cc);
	pk_hier_dref(&h, 1, 0x0010, 4, 1, cc);	/* same page: hit */
	pk_hier_dref(&h, 1, 0x2000, 4, 0, cc);
	pk_hier_dref(&h, 1, 0x4000, 4, 0, cc);	/* evicts page 0 */
	pk_hier_dref(&h, 1, 0x0020, 4, 1, cc);	/* page 0 again: write miss */
	assert_int_equal(cc[PK_DTMR], 3);
	assert_int_equal(cc[PK_DTMW], 1);
	/* an access straddling pages 1 and 2 (both absent) is one miss */
	pk_hier_dref(&h, 1, 0x1ffe, 4, 0, cc);
	assert_int_equal(cc[PK_DTMR], 4);
}

static void test_branch_predictor(void **state)
{
	static struct pk_bpred p;
	int miss = 0;

	(void)state;
	pk_bpred_init(&p);
	/* counters start at 0 (strongly not taken): an always-taken branch
	 * mispredicts while the history fills (7 bits: 8 distinct indices,
	 * each needs 2 takens to cross to "taken") */
	for (int i = 0; i < 100; i++)
		miss += pk_bpred_cond(&p, 0x1234, 1);
	assert_true(miss >= 2 && miss <= 16);
	int later = 0;

	for (int i = 0; i < 100; i++)
		later += pk_bpred_cond(&p, 0x1234, 1);
	assert_int_equal(later, 0);
	/* first not-taken after saturation is a miss */
	assert_int_equal(pk_bpred_cond(&p, 0x1234, 0), 1);
	/* indirect: the last target is the prediction */
	assert_int_equal(pk_bpred_ind(&p, 0x500, 0x1000), 1);
	assert_int_equal(pk_bpred_ind(&p, 0x500, 0x1000), 0);
	assert_int_equal(pk_bpred_ind(&p, 0x500, 0x2000), 1);
	/* 512-entry table: 0x500 and 0x700 alias */
	assert_int_equal(pk_bpred_ind(&p, 0x700, 0x3000), 1);
	assert_int_equal(pk_bpred_ind(&p, 0x500, 0x2000), 1);
}

/* ---- the modern model's new parts, on hand-computed traces ---- */

/* I1 1 KiB 2-way, D1 1 KiB 2-way (8 sets), L2 8 KiB 4-way (32 sets), LL
 * 64 KiB 8-way (128 sets), all 64 B lines; dTLB 4 entries 2-way (2 sets),
 * STLB 16 entries 4-way (4 sets), 4 KiB pages. */
static void setup_full(struct pk_hier *h, enum pk_prefetch pf, int l1pf)
{
	memset(h, 0, sizeof(*h));
	pk_hier_reset(h);
	pk_cache_init(&h->I1, 1024, 2, 64, tags);
	pk_cache_init(&h->D1, 1024, 2, 64, tags + 16);
	pk_cache_init(&h->L2, 8192, 4, 64, tags + 32);
	pk_cache_init(&h->LL, 65536, 8, 64, tags + 160);
	pk_cache_init(&h->TLB, 4 * 4096, 2, 4096, tags + 2000);
	pk_cache_init(&h->STLB, 16 * 4096, 4, 4096, tags + 2100);
	h->has_l2 = 1;
	h->prefetch = pf;
	h->l1_prefetch = l1pf;
}

/* L1 next-line, degree 3, on an ascending miss stream, never past the page. */
static void test_l1_prefetch_page(void **state)
{
	static struct pk_hier h;
	uint64_t cc[PK_NEV] = { 0 };
	const uint64_t base = 0x100000;	/* page-aligned */

	(void)state;
	setup_full(&h, PK_PF_NONE, 1);
	/* lines 0..63 of one page, once each, by one instruction:
	 * 0 misses (no history), 1 misses and prefetches 2..4, 5 misses (4
	 * lines after 1) and prefetches 6..8, ... 61 misses and prefetches 62
	 * and 63 only: 64 is in the next page */
	for (uint64_t i = 0; i < 64; i++)
		pk_hier_dref(&h, 0x40, base + 64 * i, 4, PK_READ, cc);
	assert_int_equal(cc[PK_D1MR], 2 + 15);
	assert_int_equal(cc[PK_PF1I], 15 * 3 + 2);
	assert_true(pk_line_peek(&h.D1, (base >> 6) + 63) != PK_TAG_EMPTY);
	assert_true(pk_line_peek(&h.D1, (base >> 6) + 64) == PK_TAG_EMPTY);
	assert_true(pk_line_peek(&h.L2, (base >> 6) + 64) == PK_TAG_EMPTY);
	/* the next page's first line is a demand miss; the stream goes on */
	pk_hier_dref(&h, 0x40, base + 64 * 64, 4, PK_READ, cc);
	assert_int_equal(cc[PK_D1MR], 18);
	assert_int_equal(cc[PK_PF1I], 50);
	/* prefetch fills count no L2 demand miss: only the 18 demand misses */
	assert_int_equal(cc[PK_D2MR], 18);
	/* a page-stride walk is no stream: nothing prefetched */
	for (uint64_t i = 0; i < 8; i++)
		pk_hier_dref(&h, 0x80, 0x400000 + 4096 * i, 4, PK_READ, cc);
	assert_int_equal(cc[PK_D1MR], 26);
	assert_int_equal(cc[PK_PF1I], 50);
}

/* L2 stream prefetcher: a unit stride and a 3-line stride inside a page. */
static void test_stream_prefetch(void **state)
{
	static struct pk_hier h;
	uint64_t cc[PK_NEV] = { 0 };
	const uint64_t base = 0x200000;

	(void)state;
	setup_full(&h, PK_PF_STREAM, 0);
	/* line 0 takes the entry, 1 sets stride 1, 2 confirms it and prefetches
	 * 3..6; from then on each request hits a prefetched line and
	 * prefetches the line 4 ahead, up to line 63 */
	for (uint64_t i = 0; i < 64; i++)
		pk_hier_dref(&h, 0x40, base + 64 * i, 4, PK_READ, cc);
	assert_int_equal(cc[PK_D2MR], 3);
	assert_int_equal(cc[PK_PFI], 61);
	assert_int_equal(cc[PK_PFH], 61);
	assert_true(pk_line_peek(&h.L2, (base >> 6) + 64) == PK_TAG_EMPTY);
	pk_hier_dref(&h, 0x40, base + 4096, 4, PK_READ, cc);	/* next page */
	assert_int_equal(cc[PK_D2MR], 4);

	/* stride of 3 lines: 0, 3, 6 train (6 prefetches 9, 12, 15, 18);
	 * 9 .. 63 (19 requests) all hit prefetched lines */
	memset(cc, 0, sizeof(cc));
	for (uint64_t off = 0; off < 64; off += 3)
		pk_hier_dref(&h, 0x44, 0x300000 + 64 * off, 4, PK_READ, cc);
	assert_int_equal(cc[PK_D2MR], 3);
	assert_int_equal(cc[PK_PFI], 19);
	assert_int_equal(cc[PK_PFH], 19);

	/* one line per page: every page is a new stream, nothing prefetched */
	memset(cc, 0, sizeof(cc));
	for (uint64_t p = 0; p < 16; p++)
		pk_hier_dref(&h, 0x48, 0x500000 + 4096 * p, 4, PK_READ, cc);
	assert_int_equal(cc[PK_D2MR], 16);
	assert_int_equal(cc[PK_PFI], 0);
}

/* The older L2 prefetchers stop at the page too. */
static void test_prefetch_page_bound(void **state)
{
	static struct pk_hier h;
	uint64_t cc[PK_NEV] = { 0 };

	(void)state;
	setup_full(&h, PK_PF_STRIDE, 0);
	/* stride 4096: trained, but address + 4 * 4096 is another page */
	for (uint64_t i = 0; i < 8; i++)
		pk_hier_dref(&h, 0x40, 0x600000 + 4096 * i, 4, PK_READ, cc);
	assert_int_equal(cc[PK_PFI], 0);
	setup_full(&h, PK_PF_NEXT_LINE, 0);
	pk_hier_dref(&h, 0x40, 0x700fc0, 4, PK_READ, cc);	/* last line of a page */
	assert_int_equal(cc[PK_PFI], 0);
	pk_hier_dref(&h, 0x40, 0x700f80, 4, PK_READ, cc);	/* one before: next is in */
	assert_int_equal(cc[PK_PFI], 0);	/* 0x700fc0 is already in L2 */
	pk_hier_dref(&h, 0x40, 0x700000, 4, PK_READ, cc);
	assert_int_equal(cc[PK_PFI], 1);
}

/* dTLB 4 entries 2-way, STLB 16 entries 4-way; page walks read the leaf
 * entry at PK_PT_BASE + 8 * page through L2 and LL. */
static void test_tlb_two_levels(void **state)
{
	static struct pk_hier h;
	uint64_t cc[PK_NEV] = { 0 };

	(void)state;
	setup_full(&h, PK_PF_NONE, 0);
	h.has_tlb = h.has_stlb = 1;
	/* 8 pages (0x1000..0x1007), twice.  Pass 1: 8 dTLB and 8 STLB misses;
	 * their 8 entries share one 64-byte line: the first walk misses L2
	 * and LL, the others hit L2.  Pass 2: the dTLB (2 sets x 2 ways) sees
	 * 4 pages per set in turn and misses every time; the STLB (2 pages
	 * per set of 4 ways) hits. */
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t p = 0; p < 8; p++)
			pk_hier_dref(&h, 1, (0x1000 + p) << 12, 4, PK_READ, cc);
	assert_int_equal(cc[PK_DTMR], 16);
	assert_int_equal(cc[PK_STMR], 8);
	assert_int_equal(cc[PK_PW2M], 1);
	assert_int_equal(cc[PK_PWLM], 1);
	/* 32 pages written twice (line p of page p, so the data lines spread
	 * over L2's sets): 8 per STLB set, every access walks; their entries
	 * fill 4 lines, read from LL once and then found in L2 */
	memset(cc, 0, sizeof(cc));
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t p = 0; p < 32; p++)
			pk_hier_dref(&h, 1, ((0x2000 + p) << 12) + 64 * p, 4, PK_WRITE, cc);
	assert_int_equal(cc[PK_DTMW], 64);
	assert_int_equal(cc[PK_STMW], 64);
	assert_int_equal(cc[PK_STMR], 0);
	assert_int_equal(cc[PK_PW2M], 4);
	assert_int_equal(cc[PK_PWLM], 4);
	/* a plain D1 hit (the MRU line again) does not consult the TLB: page
	 * 0x3000 is pushed out of its dTLB set by 0x3002 and 0x3004 (other D1
	 * sets), yet reading its line again counts no dTLB miss; another line
	 * of it does */
	memset(cc, 0, sizeof(cc));
	pk_hier_dref(&h, 1, 0x3000000, 4, PK_READ, cc);
	pk_hier_dref(&h, 1, 0x3002040, 4, PK_READ, cc);
	pk_hier_dref(&h, 1, 0x3004080, 4, PK_READ, cc);
	assert_int_equal(cc[PK_DTMR], 3);
	pk_hier_dref(&h, 1, 0x3000004, 4, PK_READ, cc);
	assert_int_equal(cc[PK_DTMR], 3);
	pk_hier_dref(&h, 1, 0x3000200, 4, PK_READ, cc);
	assert_int_equal(cc[PK_DTMR], 4);
}

/* Dirty lines: write-backs from D1, L2 and LL. */
static void test_writeback(void **state)
{
	static struct pk_hier h;
	uint64_t cc[PK_NEV] = { 0 };
	const uint64_t x = 0x800000;	/* D1 set 0, L2 set 0, LL set 0 */

	(void)state;
	setup_full(&h, PK_PF_NONE, 0);
	pk_hier_dref(&h, 1, x, 4, PK_WRITE, cc);		/* dirty in D1 */
	pk_hier_dref(&h, 1, x + 4, 4, PK_WRITE, cc);		/* plain hit */
	pk_hier_dref(&h, 1, x + 512, 4, PK_READ, cc);
	assert_int_equal(cc[PK_D1WB], 0);
	pk_hier_dref(&h, 1, x + 1024, 4, PK_READ, cc);	/* evicts x: write-back */
	assert_int_equal(cc[PK_D1WB], 1);
	assert_true(pk_line_peek(&h.L2, x >> 6) & PK_TAG_DIRTY);
	/* clean lines leave without a write-back */
	pk_hier_dref(&h, 1, x + 1536, 4, PK_READ, cc);
	pk_hier_dref(&h, 1, x + 2048, 4, PK_READ, cc);
	assert_int_equal(cc[PK_D1WB], 1);
	/* a modify counts as a read and dirties the line */
	pk_hier_dref(&h, 1, x + 64, 4, PK_MODIFY, cc);
	pk_hier_dref(&h, 1, x + 64 + 512, 4, PK_READ, cc);
	pk_hier_dref(&h, 1, x + 64 + 1024, 4, PK_READ, cc);
	assert_int_equal(cc[PK_D1WB], 2);
	assert_int_equal(cc[PK_DW], 2);
	/* L2 set 0 (4 ways, 32 sets: lines 2 KiB apart) holds x (dirty) and
	 * x+2048: three more lines of that set push x out to LL */
	assert_int_equal(cc[PK_L2WB], 0);
	pk_hier_dref(&h, 1, x + 4096, 4, PK_READ, cc);
	pk_hier_dref(&h, 1, x + 6144, 4, PK_READ, cc);
	assert_int_equal(cc[PK_L2WB], 0);
	pk_hier_dref(&h, 1, x + 10240, 4, PK_READ, cc);
	assert_int_equal(cc[PK_L2WB], 1);
	assert_true(pk_line_peek(&h.LL, x >> 6) & PK_TAG_DIRTY);
	/* LL set 0 (8 ways, 128 sets: lines 8 KiB apart) holds only x: 8 more
	 * lines of it push x out to memory */
	assert_int_equal(cc[PK_LLWB], 0);
	for (uint64_t k = 1; k <= 8; k++)
		pk_hier_dref(&h, 1, x + 8192 * k, 4, PK_READ, cc);
	assert_int_equal(cc[PK_LLWB], 1);
}

/* Tournament: gshare learns an alternating branch the bimodal counter
 * cannot; the indirect table learns alternating targets; the return stack. */
static void test_modern_predictor(void **state)
{
	static struct pk_bpm p;
	const uint64_t pc = 0x4000;
	int miss = 0, bim_miss = 0;

	(void)state;
	pk_bpm_init(&p);
	for (int i = 0; i < 1000; i++)
		(void)pk_bpm_cond(&p, pc, i & 1);
	for (int i = 1000; i < 2000; i++) {
		int t = i & 1;

		bim_miss += (p.bim[pc & ((1u << PK_BPM_BIM_BITS) - 1)] >= 2) != t;
		miss += pk_bpm_cond(&p, pc, t);
	}
	assert_int_equal(miss, 0);
	/* the bimodal counter swings 1 -> 2 -> 1: always the wrong way */
	assert_int_equal(bim_miss, 1000);
	assert_true(p.sel[pc & ((1u << PK_BPM_BIM_BITS) - 1)] >= 2);	/* gshare chosen */
	/* a loop branch taken 3 times then not (period 4): learnt too */
	miss = 0;
	for (int i = 0; i < 400; i++)
		(void)pk_bpm_cond(&p, 0x4100, (i & 3) != 3);
	for (int i = 0; i < 400; i++)
		miss += pk_bpm_cond(&p, 0x4100, (i & 3) != 3);
	assert_int_equal(miss, 0);

	/* indirect: targets A, B, A, B... the last target is always wrong; the
	 * path-indexed table learns after a few rounds */
	int last_wrong = 0;

	miss = 0;
	for (int i = 0; i < 200; i++) {
		uint64_t dst = (i & 1) ? 0x7000 : 0x9040;

		last_wrong += i > 0 && p.btb[0x5000 & (PK_BTAC - 1)] != dst;
		if (i >= 100)
			miss += pk_bpm_ind(&p, 0x5000, dst);
		else
			(void)pk_bpm_ind(&p, 0x5000, dst);
	}
	assert_int_equal(last_wrong, 199);
	assert_int_equal(miss, 0);

	/* return stack: nested calls 10 deep all predicted; 40 deep overflows
	 * the 32 entries: the 8 outermost returns are mispredicted */
	miss = 0;
	for (uint64_t d = 0; d < 10; d++)
		pk_bpm_call(&p, 0x10000 + 16 * d);
	for (uint64_t d = 10; d-- > 0;)
		miss += pk_bpm_ret(&p, 0x10000 + 16 * d);
	assert_int_equal(miss, 0);
	for (uint64_t d = 0; d < 40; d++)
		pk_bpm_call(&p, 0x20000 + 16 * d);
	for (uint64_t d = 40; d-- > 0;)
		miss += pk_bpm_ret(&p, 0x20000 + 16 * d);
	assert_int_equal(miss, 8);
}

static void test_geometry(void **state)
{
	struct cache_geom g;

	(void)state;
	assert_null(pk_cache_check(32768, 8, 64));
	assert_non_null(pk_cache_check(32768, 8, 48));	/* line not 2^n */
	assert_non_null(pk_cache_check(32768, 8, 8));	/* line < 16 */
	assert_non_null(pk_cache_check(24576, 8, 64));	/* 48 sets */
	assert_non_null(pk_cache_check(64, 1, 64));	/* size <= line */
	assert_int_equal(cache_geom_parse("--D1", "8192,2,64", &g), 0);
	assert_true(g.size == 8192 && g.assoc == 2 && g.line == 64);
	assert_int_equal(cache_geom_parse("--D1", "8192,2", &g), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "--D1=8192,2: expected SIZE,ASSOC,LINE"));
	assert_int_equal(cache_geom_parse("--D1", "8192,3,64", &g), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "power of two"));
	assert_int_equal(cache_geom_parse("--LL", "x", &g), -EINVAL);
	assert_int_equal(cache_geom_parse("--LL", "-1,2,64", &g), -EINVAL);
	/* cachegrind's LL fix: 12 MiB 16-way = 12288 sets -> 8192 sets 24-way */
	g = (struct cache_geom){ 12u << 20, 16, 64 };
	pk_cache_geom_fix(&g.size, &g.assoc, g.line);
	assert_true(g.assoc == 24 && g.size == 64ull * 24 * 8192);
	/* more than 2^63 sets: the power of two below is found without
	 * wrapping (p * 2 <= sets wrapped to 0 and never ended) */
	g = (struct cache_geom){ (1ull << 63) + (1ull << 62), 1, 1 };
	pk_cache_geom_fix(&g.size, &g.assoc, g.line);
	assert_true(g.assoc == 2);
	/* absurd associativity: left as it is */
	g = (struct cache_geom){ 3ull << 40, 1ull << 32, 64 };
	pk_cache_geom_fix(&g.size, &g.assoc, g.line);
	assert_true(g.size == 3ull << 40 && g.assoc == 1ull << 32);
}

static void put(const char *dir, const char *name, const char *val)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(val, f);
	fclose(f);
}

static void test_sysfs(void **state)
{
	char root[] = "/tmp/pk-hostcache-XXXXXX", d[600];
	struct host_caches hc;
	const char *v[4][4] = { { "1", "Data", "48K", "12" }, { "1", "Instruction", "32K", "8" },
				{ "2", "Unified", "1280K", "10" }, { "3", "Unified", "12288K", "12" } };

	(void)state;
	assert_non_null(mkdtemp(root));
	for (int i = 0; i < 4; i++) {
		snprintf(d, sizeof(d), "%s/index%d", root, i);
		mkdir(d, 0755);
		put(d, "level", v[i][0]);
		put(d, "type", v[i][1]);
		put(d, "size", v[i][2]);
		put(d, "ways_of_associativity", v[i][3]);
		put(d, "coherency_line_size", "64\n");
	}
	assert_int_equal(hostcache_read(root, &hc), 0);
	assert_true(hc.I1.size == 32768 && hc.I1.assoc == 8);
	assert_true(hc.D1.size == 49152 && hc.D1.assoc == 12);	/* 64 sets */
	assert_true(hc.L2.size == 1280 * 1024 && hc.L2.assoc == 10);	/* 2048 sets */
	assert_true(hc.LL.assoc == 12 && hc.LL.size == 12u << 20);	/* 16384 sets */
	assert_int_equal(hostcache_read("/nonexistent-pk", &hc), -ENOENT);
	for (int i = 0; i < 4; i++) {
		static const char *const f[] = { "level", "type", "size", "ways_of_associativity",
						 "coherency_line_size" };

		for (int j = 0; j < 5; j++) {
			snprintf(d, sizeof(d), "%s/index%d/%s", root, i, f[j]);
			unlink(d);
		}
		snprintf(d, sizeof(d), "%s/index%d", root, i);
		rmdir(d);
	}
	rmdir(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lru_order),
		cmocka_unit_test(test_conflict_three_lines),
		cmocka_unit_test(test_straddle),
		cmocka_unit_test(test_write_allocate),
		cmocka_unit_test(test_next_line_prefetch),
		cmocka_unit_test(test_stride_prefetch),
		cmocka_unit_test(test_tlb),
		cmocka_unit_test(test_branch_predictor),
		cmocka_unit_test(test_l1_prefetch_page),
		cmocka_unit_test(test_stream_prefetch),
		cmocka_unit_test(test_prefetch_page_bound),
		cmocka_unit_test(test_tlb_two_levels),
		cmocka_unit_test(test_writeback),
		cmocka_unit_test(test_modern_predictor),
		cmocka_unit_test(test_geometry),
		cmocka_unit_test(test_sysfs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
