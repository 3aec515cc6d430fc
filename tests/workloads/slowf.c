/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slowf N — three functions of about equal work (f, g, h: N iterations of
 * a multiply-add chain each); built with -DSLOW, f does 2N: the "one
 * function made 2x slower, the rest identical" workload of the
 * differential-profile tests (tests/e2e/0618-bench-profile.t).  The two
 * builds differ in one datum (f_rounds), not in code: g and h sit at the
 * same addresses with the same alignment in both. */
#include <stdlib.h>

static volatile unsigned long sink;
#ifdef SLOW
static volatile long f_rounds = 2;
#else
static volatile long f_rounds = 1;
#endif

__attribute__((noinline)) static void f(long n)
{
	unsigned long x = 1;

	n *= f_rounds;
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

__attribute__((noinline)) static void g(long n)
{
	unsigned long x = 3;

	for (long i = 0; i < n; i++)
		x = (x ^ (x >> 7)) * 2654435761UL + 1;
	sink = x;
}

__attribute__((noinline)) static void h(long n)
{
	unsigned long x = 5;

	for (long i = 0; i < n; i++)
		x += x * x + (unsigned long)i;
	sink = x;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3000000;

	f(n);
	g(n);
	h(n);
	return 0;
}
