/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * recurse — a function that calls itself, for funclatency's nesting test:
 * nap_level(n) sleeps 10 ms and then calls nap_level(n - 1) while n > 0, so
 * nap_level(2) lasts about 30 ms, nap_level(1) 20 ms and nap_level(0) 10 ms.
 *   recurse [ROUNDS] [DEPTH]   calls nap_level(DEPTH) ROUNDS times
 *                              (defaults 5 and 2: 15 calls in all)
 */
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) void nap_level(int n)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	if (n > 0)
		nap_level(n - 1);
	__asm__ volatile("" ::: "memory");   /* keep the call from becoming a jump */
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5;
	int depth = argc > 2 ? atoi(argv[2]) : 2;

	for (int i = 0; i < rounds; i++)
		nap_level(depth);
	return 0;
}
