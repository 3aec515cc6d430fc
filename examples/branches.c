/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * branches — the branch-prediction lesson: one loop, the same values, first
 * in random order and then sorted.
 *
 *   branches random [N] [REPS]   N bytes (default 65536) in random order
 *   branches sorted [N] [REPS]   the same N bytes, sorted
 *
 * The loop adds up the values >= 128, REPS times (default 100).  Over random
 * data the branch `v >= 128` goes either way at random and the predictor is
 * wrong about half the time; over sorted data it is taken never, then
 * always, and almost every prediction is right.  Same instructions, same
 * data, same sum: only the order differs.  Prints the sum (the same for
 * both) and the loop's time per element.
 *
 * The branch must stay a branch.  At -O2 compilers turn `if (v >= 128)
 * sum += v;` into a conditional move or a vectorised select, which have
 * nothing to predict and run as fast on random data as on sorted.  An empty
 * `asm volatile` in the taken arm (it has side effects, so it cannot be
 * executed speculatively or if-converted) keeps a real conditional jump with
 * GCC and clang at any -O level.  Check with
 *     objdump -d --no-show-raw-insn build/examples/branches | awk '/<count_big>:/,/ret/'
 * the loop must hold a conditional jump on the byte (GCC 12 and clang 14:
 * `test %dl,%dl` then `jns`, "skip unless the top bit is set"; or `cmp $0x7f`
 * then `jbe`) around the `add`, and no `cmov` and no packed (`p...`)
 * instructions.
 *
 * Built like the other examples (-O2 -g -fno-omit-frame-pointer); the
 * counting sort keeps set-up cheap (no qsort, whose own branches would blur
 * the comparison under `perfkit cache`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Keep count_big's frame pointer, so that a profile's call chain reaches
 * main: GCC drops the frame of a leaf that needs no stack frame even under
 * -fno-omit-frame-pointer, and asking for the frame address makes it
 * required (matmul.c's KEEP_FRAME, README).  Check with
 *   objdump -d build/examples/branches | awk '/<count_big>:/,/ret/' | grep -A1 'push.*%rbp'
 */
#define KEEP_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))

__attribute__((noinline)) unsigned long long count_big(const unsigned char *v, size_t n)
{
	unsigned long long sum = 0;

	KEEP_FRAME();

	for (size_t i = 0; i < n; i++)
		if (v[i] >= 128) {
			sum += v[i];
			__asm__ volatile("" : "+r"(sum));
		}
	return sum;
}

static void fill(unsigned char *v, size_t n)
{
	unsigned s = 2463534242u;

	for (size_t i = 0; i < n; i++) { /* xorshift32: no data-dependent branch */
		s ^= s << 13;
		s ^= s >> 17;
		s ^= s << 5;
		v[i] = (unsigned char)(s >> 24);
	}
}

static void sort_bytes(unsigned char *v, size_t n)
{
	size_t count[256] = {0};

	for (size_t i = 0; i < n; i++)
		count[v[i]]++;
	for (size_t b = 0, i = 0; b < 256; b++)
		for (size_t c = 0; c < count[b]; c++)
			v[i++] = (unsigned char)b;
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
		printf("usage: branches random|sorted [N] [REPS]  (1 <= N <= 2^30, REPS >= 1)\n"
		       "Adds up the bytes >= 128 of N random bytes (default 65536), REPS times (100),\n"
		       "in random or sorted order: the branch-prediction lesson.\n");
		return 0;
	}
	const char *which = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 65536;
	long reps = argc > 3 ? strtol(argv[3], NULL, 10) : 100;

	if ((strcmp(which, "random") && strcmp(which, "sorted")) || argc > 4 || n < 1 ||
	    n > (1L << 30) || reps < 1) {
		fprintf(stderr, "usage: branches random|sorted [N] [REPS]  (1 <= N <= 2^30, REPS >= 1)\n");
		return 2;
	}
	unsigned char *v = malloc((size_t)n);
	if (!v) {
		perror("branches: malloc");
		return 1;
	}
	fill(v, (size_t)n);
	if (!strcmp(which, "sorted"))
		sort_bytes(v, (size_t)n);

	unsigned long long sum = 0;
	double t0 = now();
	for (long r = 0; r < reps; r++)
		sum += count_big(v, (size_t)n);
	double dt = now() - t0;
	printf("%s: %.3f ns per element, %.3f ms in all, sum %llu\n", which,
	       dt * 1e9 / ((double)n * (double)reps), dt * 1e3, sum);
	free(v);
	return 0;
}
