/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * matmul — C = A·B for 512×512 floats, three ways, to practise measuring:
 *
 *   matmul naive   [REPS]   i-j-k loops: B is walked down a column, one cache
 *                           line per element — memory-bound
 *   matmul ikj     [REPS]   i-k-j loops ("transposed" access): B and C are walked
 *                           along rows, unit stride — the prefetcher's friend
 *   matmul blocked [REPS]   32×32 tiles so each tile of A, B and C stays in L1
 *
 * REPS (default 1) repeats the multiplication.  Prints a checksum of C so
 * the compiler cannot drop the work, and the time per multiplication.
 * Built -O2 -g -fno-omit-frame-pointer so profiles have call chains.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 512
#define TILE 32
/* Rows are padded by 16 floats (64 bytes): with exactly 512 floats (2 KiB)
 * per row, the rows of a 32×32 tile all map onto a few sets of a typical
 * L1 data cache and evict each other, so the blocked version would thrash.
 * The padding spreads them over all sets. */
#define LD (N + 16)

static float A[N][LD], B[N][LD], C[N][LD];

__attribute__((noinline)) static void init(void)
{
	unsigned s = 12345;

	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			s = s * 1103515245u + 12345u;
			A[i][j] = (float)((s >> 16) & 0xff) / 256.0f;
			s = s * 1103515245u + 12345u;
			B[i][j] = (float)((s >> 16) & 0xff) / 256.0f;
		}
}

__attribute__((noinline)) void naive(void)
{
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
	memset(C, 0, sizeof(C));
	for (int i = 0; i < N; i++)
		for (int k = 0; k < N; k++) {
			float a = A[i][k];
			for (int j = 0; j < N; j++)
				C[i][j] += a * B[k][j];
		}
}

__attribute__((noinline)) void blocked(void)
{
	memset(C, 0, sizeof(C));
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

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
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
			sum += C[i][j];
	printf("%s: %.3f ms per multiply, %.2f GFLOP/s, checksum %.6e\n", which, dt * 1e3,
	       2.0 * N * N * N / dt / 1e9, sum);
	return 0;
}
