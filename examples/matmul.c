/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * matmul — C = A·B for 512×512 floats, three ways, to practise measuring:
 *
 *   matmul naive   [REPS]   i-j-k loops, a scalar dot product: B is walked down
 *                           a column with a 2 KiB stride (512 floats a row), one
 *                           cache line per element — memory-bound
 *   matmul ikj     [REPS]   i-k-j loops ("transposed" access): B and C are walked
 *                           along rows, unit stride — the prefetcher's friend
 *   matmul blocked [REPS]   32×32 tiles so each tile of A, B and C stays in L1
 *
 * REPS (default 1) repeats the multiplication.  Prints a checksum of C (the
 * same for the three) so the compiler cannot drop the work, and the time per
 * multiplication.
 *
 * Build: -O2 -g -fno-omit-frame-pointer (the Makefile's PROG_CFLAGS), so
 * profiles have call chains, plus two choices that keep the lesson on every
 * current x86-64 core (checked with `perfkit cache` at --D1=32768,8,64 and
 * --D1=49152,12,64, and natively with `perfkit bench`):
 *
 * 1. naive is compiled without vectorisation (GCC: the per-function
 *    attribute optimize("no-tree-vectorize") below).  At -O2 GCC 12
 *    vectorises naive's *outer* j loop 4 floats wide (objdump shows `mulps`
 *    over the strided B), which turns it into four columns at a time: a
 *    quarter of the misses, about as fast as ikj.  The tutorial's naive is
 *    the scalar dot product.  Clang does not vectorise it either way (a
 *    float sum reordered needs -ffast-math).  Check with
 *      objdump -d build/examples/matmul | awk '/<naive>:/,/ret/' | grep -cE '(mul|add)ps'
 *    (0: only scalar `mulss`/`addss`; `mulps`/`addps` means vectorised).
 *
 * 2. naive and ikj use the textbook layout, rows of exactly 512 floats
 *    (2 KiB).  naive's column walk of B then lands every element in the same
 *    few sets of a 64-set L1 and nothing is reused between columns.  (With
 *    padded rows a 48 KiB L1 holds the 512 lines of a column, naive reuses
 *    them for the next 15 columns and the lesson disappears.)  blocked works
 *    on a copy with rows padded by 16 floats (64 B): with 2 KiB rows the 32
 *    rows of a tile fall into 4 sets and evict each other, so padding is part
 *    of blocking (the leading dimension is chosen for the cache).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 512
#define TILE 32
/* the padded leading dimension of blocked's copy: 512 + 16 floats */
#define LD (N + 16)

#if defined(__GNUC__) && !defined(__clang__)
#define SCALAR __attribute__((optimize("no-tree-vectorize")))
#else
#define SCALAR
#endif

/*
 * Keep a frame pointer in the leaf kernels, so that a profile's call chain
 * reaches main.  GCC 12 drops the frame of a leaf function that ends up with
 * no stack frame and no saved register even under -fno-omit-frame-pointer
 * (naive under optimize("no-tree-vectorize") and init qualify; adding
 * "no-omit-frame-pointer" to the attribute does not help):  asking for the
 * frame address makes the frame required, at the cost of `push %rbp;
 * mov %rsp,%rbp` once per call.  Check with
 *   objdump -d build/examples/matmul | awk '/<naive>:/,/ret/' | grep -A1 'push.*%rbp'
 */
#define KEEP_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))

static float A[N][N], B[N][N], C[N][N];
static float Ap[N][LD], Bp[N][LD], Cp[N][LD];

__attribute__((noinline)) static void init(void)
{
	unsigned s = 12345;

	KEEP_FRAME();

	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			s = s * 1103515245u + 12345u;
			Ap[i][j] = A[i][j] = (float)((s >> 16) & 0xff) / 256.0f;
			s = s * 1103515245u + 12345u;
			Bp[i][j] = B[i][j] = (float)((s >> 16) & 0xff) / 256.0f;
		}
}

__attribute__((noinline)) SCALAR void naive(void)
{
	KEEP_FRAME();
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			float sum = 0.0f;
			for (int k = 0; k < N; k++)
				sum += A[i][k] * B[k][j];
			C[i][j] = sum;
		}
}

__attribute__((noinline)) void ikj(void)
{
	KEEP_FRAME();
	memset(C, 0, sizeof(C));
	for (int i = 0; i < N; i++)
		for (int k = 0; k < N; k++) {
			float a = A[i][k];
			for (int j = 0; j < N; j++)
				C[i][j] += a * B[k][j];
		}
}

static void blocked_ld(float (*restrict C)[LD], const float (*A)[LD], const float (*B)[LD])
{
	for (int ii = 0; ii < N; ii += TILE)
		for (int kk = 0; kk < N; kk += TILE)
			for (int jj = 0; jj < N; jj += TILE)
				for (int i = ii; i < ii + TILE; i++)
					for (int k = kk; k < kk + TILE; k++) {
						float a = A[i][k];
						for (int j = jj; j < jj + TILE; j++)
							C[i][j] += a * B[k][j];
					}
}

__attribute__((noinline)) void blocked(void)
{
	KEEP_FRAME();
	memset(Cp, 0, sizeof(Cp));
	blocked_ld(Cp, (const float (*)[LD])Ap, (const float (*)[LD])Bp);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: matmul naive|ikj|blocked [REPS]\n"
		       "Multiplies two matrices REPS times (default 1) in the naive, ikj (transposed)\n"
		       "or blocked loop order and prints the time and a checksum: the cache lesson.\n");
		return 0;
	}
	void (*fn)(void);
	const char *which = argc > 1 ? argv[1] : "naive";
	long reps = argc > 2 ? strtol(argv[2], NULL, 10) : 1;

	if (!strcmp(which, "naive"))
		fn = naive;
	else if (!strcmp(which, "ikj") || !strcmp(which, "transposed"))
		fn = ikj;
	else if (!strcmp(which, "blocked"))
		fn = blocked;
	else {
		fprintf(stderr, "usage: matmul naive|ikj|blocked [REPS]\n");
		return 2;
	}
	if (reps < 1)
		reps = 1;
	init();
	double t0 = now();
	for (long r = 0; r < reps; r++)
		fn();
	double dt = (now() - t0) / (double)reps;
	double sum = 0;
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			sum += fn == blocked ? Cp[i][j] : C[i][j];
	printf("%s: %.3f ms per multiply, %.2f GFLOP/s, checksum %.6e\n", which, dt * 1e3,
	       2.0 * N * N * N / dt / 1e9, sum);
	return 0;
}
