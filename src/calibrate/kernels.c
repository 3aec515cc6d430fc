/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pkcalib — the kernels of `perfkit calibrate`: small loops whose time per
 * operation spans compute, every cache level, the TLB and branch
 * prediction.  One program serves both sides of the calibration:
 *
 *   pkcalib KERNEL ARG OPS REPS
 *
 * sets the kernel up, runs one untimed warm-up pass, then REPS timed passes
 * of OPS operations each, and prints
 *
 *   ns_per_op=X ops=OPS
 *
 * where X is the smallest CPU time (CLOCK_PROCESS_CPUTIME_ID) of a pass
 * divided by OPS (CPU time, not wall time, and the minimum of the passes:
 * the shared machine's noise only ever adds time).  Under perfkit's
 * Valgrind tool the counts are zeroed after the warm-up
 * (PERFKIT_CACHE_ZERO), so the simulation counts the timed passes (run it
 * with REPS = 1) and the caches start warm, as they do natively.
 *
 * Kernels (ARG in bytes unless said otherwise; an operation is):
 *   chase   WS       one dependent load, a random cycle over WS/64 lines
 *   sweep   STRIDE   one 4-byte load, walking a buffer of $PKCALIB_BUF
 *                    bytes (default 64 MiB) at STRIDE bytes, column after
 *                    column (offsets 0, S, 2S, …, then 4, S+4, …)
 *   branch  0|1      one element of a 256 KiB byte array, branching on
 *                    >= 128: 0 random data, 1 the same data sorted
 *   matmul  0|1|2    one multiply-add of a 1024×1024 float product, rows of
 *                    C 0..15 (fewer when OPS < 16·1024²): 0 naive ijk (B down a column), 1 ikj, 2
 *                    blocked 32×32 tiles
 *   hash    BYTES    one lookup of a present key, open addressing, a
 *                    table of BYTES (16-byte slots, half full)
 *   memcpy  SIZE     one byte copied by memcpy, SIZE bytes at a time
 * Built -O2 -fno-tree-vectorize (mk/calibrate.mk): the loops stay scalar,
 * so matmul naive really walks B down a column one float at a time.
 * Memory is allocated with 4 KiB pages (MADV_NOHUGEPAGE), the pages the
 * simulated TLB has.
 * Exit status: 0, or 2 with one line on stderr for bad arguments.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include "../vgtool/perfkit_cache.h"
#endif
#endif
#ifndef PERFKIT_CACHE_ZERO
#define PERFKIT_CACHE_ZERO() ((void)0)
#endif

static volatile uint64_t sink;

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *big_alloc(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "pkcalib: cannot allocate %zu bytes: %s\n", n, strerror(errno));
		exit(1);
	}
#ifdef MADV_NOHUGEPAGE
	madvise(p, n, MADV_NOHUGEPAGE);
#endif
	memset(p, 0, n);
	return p;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t xrand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* ---- kernels: setup, then pass(ops) ---- */

struct node { struct node *next; char pad[56]; };
static struct node *chase_at;

static void chase_setup(size_t ws)
{
	size_t n = ws / sizeof(struct node);
	struct node *a = big_alloc(n * sizeof(struct node));
	uint32_t *perm = malloc(n * sizeof(*perm));

	if (!perm) {
		fprintf(stderr, "pkcalib: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	/* Sattolo: one cycle through every line */
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = xrand() % i;
		uint32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		a[perm[i]].next = &a[perm[(i + 1) % n]];
	free(perm);
	chase_at = &a[0];
}

static void chase_pass(uint64_t ops)
{
	struct node *p = chase_at;

	for (uint64_t i = 0; i < ops; i++)
		p = p->next;
	chase_at = p;
	sink = (uintptr_t)p;
}

static uint32_t *sweep_buf;
static size_t sweep_len, sweep_stride, sweep_pos;

static void sweep_setup(size_t stride)
{
	const char *b = getenv("PKCALIB_BUF");
	sweep_len = b ? strtoull(b, NULL, 0) : (64u << 20);
	if (sweep_len < 4096)
		sweep_len = 4096;
	sweep_buf = big_alloc(sweep_len);
	for (size_t i = 0; i < sweep_len / 4; i++)
		sweep_buf[i] = (uint32_t)i;
	sweep_stride = stride;
}

static void sweep_pass(uint64_t ops)
{
	const char *base = (const char *)sweep_buf;
	size_t pos = sweep_pos, len = sweep_len, st = sweep_stride;
	uint64_t s = 0;

	for (uint64_t i = 0; i < ops; i++) {
		s += *(const uint32_t *)(base + pos);
		pos += st;
		if (pos >= len)
			pos = (pos % st + 4) % st;   /* the next column of the stride */
	}
	sweep_pos = pos;
	sink = s;
}

#define BR_N 262144
static unsigned char br_data[BR_N];

static void branch_setup(int sorted)
{
	for (int i = 0; i < BR_N; i++)
		br_data[i] = (unsigned char)(xrand() >> 24);
	if (sorted) {
		size_t cnt[256] = { 0 };
		int k = 0;
		for (int i = 0; i < BR_N; i++)
			cnt[br_data[i]]++;
		for (int v = 0; v < 256; v++)
			for (size_t c = 0; c < cnt[v]; c++)
				br_data[k++] = (unsigned char)v;
	}
}

static void branch_pass(uint64_t ops)
{
	uint64_t s = 0;

	for (uint64_t i = 0; i < ops; i++) {
		unsigned v = br_data[i & (BR_N - 1)];
		if (v >= 128) {
			/* a side effect the compiler cannot turn into a cmov */
			__asm__ volatile("" ::: "memory");
			s += v;
		}
	}
	sink = s;
}

#define MN 1024
#define MLD (MN + 16)
#define MROWS 16
#define MT 32
static float *MA, *MB, *MC;
static int mm_kind, mm_rows = MROWS;

static void matmul_setup(int kind)
{
	MA = big_alloc(sizeof(float) * MN * MLD);
	MB = big_alloc(sizeof(float) * MN * MLD);
	MC = big_alloc(sizeof(float) * MN * MLD);
	for (int i = 0; i < MN * MLD; i++) {
		MA[i] = (float)(xrand() & 0xff) / 256.0f;
		MB[i] = (float)(xrand() & 0xff) / 256.0f;
	}
	mm_kind = kind;
}

/* one product of rows 0..mm_rows-1 of C: mm_rows·MN·MN multiply-adds */
static void matmul_once(void)
{
	if (mm_kind == 0) {
		for (int i = 0; i < mm_rows; i++)
			for (int j = 0; j < MN; j++) {
				float s = 0;
				for (int k = 0; k < MN; k++)
					s += MA[i * MLD + k] * MB[k * MLD + j];
				MC[i * MLD + j] = s;
			}
	} else if (mm_kind == 1) {
		for (int i = 0; i < mm_rows; i++) {
			for (int j = 0; j < MN; j++)
				MC[i * MLD + j] = 0;
			for (int k = 0; k < MN; k++) {
				float a = MA[i * MLD + k];
				for (int j = 0; j < MN; j++)
					MC[i * MLD + j] += a * MB[k * MLD + j];
			}
		}
	} else {
		for (int i = 0; i < mm_rows; i++)
			for (int j = 0; j < MN; j++)
				MC[i * MLD + j] = 0;
		for (int kk = 0; kk < MN; kk += MT)
			for (int jj = 0; jj < MN; jj += MT)
				for (int i = 0; i < mm_rows; i++)
					for (int k = kk; k < kk + MT; k++) {
						float a = MA[i * MLD + k];
						for (int j = jj; j < jj + MT; j++)
							MC[i * MLD + j] += a * MB[k * MLD + j];
					}
	}
	sink = (uint64_t)MC[7];
}

static void matmul_pass(uint64_t ops)
{
	uint64_t per = (uint64_t)mm_rows * MN * MN;

	for (uint64_t d = 0; d < ops; d += per)
		matmul_once();
}

static uint64_t *ht_keys;   /* slot: key, value */
static size_t ht_mask;
static uint64_t *ht_present;
static size_t ht_npresent;

static uint64_t hmix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

static void hash_setup(size_t bytes)
{
	size_t slots = 16;

	while (slots * 2 * 16 <= bytes)
		slots *= 2;
	ht_keys = big_alloc(slots * 16);
	ht_mask = slots - 1;
	ht_npresent = slots / 2;
	ht_present = malloc(ht_npresent * sizeof(uint64_t));
	if (!ht_present) {
		fprintf(stderr, "pkcalib: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < ht_npresent; i++) {
		uint64_t k = (xrand() | 1);
		size_t h = hmix(k) & ht_mask;
		while (ht_keys[2 * h])
			h = (h + 1) & ht_mask;
		ht_keys[2 * h] = k;
		ht_keys[2 * h + 1] = i;
		ht_present[i] = k;
	}
}

static void hash_pass(uint64_t ops)
{
	uint64_t s = 0;

	for (uint64_t i = 0; i < ops; i++) {
		uint64_t k = ht_present[xrand() % ht_npresent];
		size_t h = hmix(k) & ht_mask;
		while (ht_keys[2 * h] != k)
			h = (h + 1) & ht_mask;
		s += ht_keys[2 * h + 1];
	}
	sink = s;
}

static char *mc_src, *mc_dst;
static size_t mc_size;

static void memcpy_setup(size_t size)
{
	mc_size = size;
	mc_src = big_alloc(size + 64);
	mc_dst = big_alloc(size + 64);
	memset(mc_src, 7, size);
}

static void memcpy_pass(uint64_t ops)
{
	for (uint64_t d = 0; d < ops; d += mc_size) {
		memcpy(mc_dst, mc_src, mc_size);
		__asm__ volatile("" ::"r"(mc_dst) : "memory");
	}
}

int main(int argc, char **argv)
{
	char *end;

	if (argc != 5) {
		fprintf(stderr, "usage: pkcalib chase|sweep|branch|matmul|hash|memcpy ARG OPS REPS\n");
		return 2;
	}
	unsigned long long arg = strtoull(argv[2], &end, 0);
	if (*end) {
		fprintf(stderr, "pkcalib: ARG '%s' is not a number\n", argv[2]);
		return 2;
	}
	unsigned long long ops = strtoull(argv[3], &end, 0);
	if (*end || !ops) {
		fprintf(stderr, "pkcalib: OPS '%s' is not a positive number\n", argv[3]);
		return 2;
	}
	long reps = strtol(argv[4], &end, 10);
	if (*end || reps < 1) {
		fprintf(stderr, "pkcalib: REPS '%s' is not a positive number\n", argv[4]);
		return 2;
	}
	void (*pass)(uint64_t);
	uint64_t warm = ops;
	const char *k = argv[1];

	if (!strcmp(k, "chase") && arg >= 128) {
		chase_setup(arg);
		pass = chase_pass;
		if (warm > arg / 64)
			warm = arg / 64;
	} else if (!strcmp(k, "sweep") && arg >= 4 && arg <= (1u << 20) && !(arg & 3)) {
		sweep_setup(arg);
		pass = sweep_pass;
	} else if (!strcmp(k, "branch") && arg <= 1) {
		branch_setup((int)arg);
		pass = branch_pass;
	} else if (!strcmp(k, "matmul") && arg <= 2) {
		matmul_setup((int)arg);
		pass = matmul_pass;
		/* OPS below MROWS rows: fewer rows, the same loops */
		if (ops < (uint64_t)MROWS * MN * MN)
			mm_rows = (int)(ops / ((uint64_t)MN * MN)) ? (int)(ops / ((uint64_t)MN * MN)) : 1;
		warm = 1;
	} else if (!strcmp(k, "hash") && arg >= 1024) {
		hash_setup(arg);
		pass = hash_pass;
	} else if (!strcmp(k, "memcpy") && arg >= 1) {
		memcpy_setup(arg);
		pass = memcpy_pass;
		if (warm > 4 * arg)
			warm = 4 * arg;
	} else {
		fprintf(stderr, "pkcalib: unknown kernel or bad ARG: %s %s\n", k, argv[2]);
		return 2;
	}
	pass(warm);
	PERFKIT_CACHE_ZERO();
	double best = 0;
	for (long r = 0; r < reps; r++) {
		double t0 = cpu_ns();
		pass(ops);
		double t = cpu_ns() - t0;
		if (r == 0 || t < best)
			best = t;
	}
	printf("ns_per_op=%.6f ops=%llu\n", best / (double)ops, ops);
	return 0;
}
