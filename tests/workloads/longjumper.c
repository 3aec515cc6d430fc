/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * longjumper — calls that funclatency must survive:
 *   longjumper N M   calls hop(1) N times, each left by longjmp (it never
 *                    returns), then hop(0) M times, each sleeping 10 ms and
 *                    returning normally.
 */
#include <setjmp.h>
#include <stdlib.h>
#include <time.h>

static jmp_buf env;

__attribute__((noinline)) void hop(int jump)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	if (jump)
		longjmp(env, 1);
	nanosleep(&ts, NULL);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	volatile int i = 0;
	int n = argc > 1 ? atoi(argv[1]) : 100, m = argc > 2 ? atoi(argv[2]) : 5;

	setjmp(env);
	while (i < n) {
		i++;
		hop(1);
	}
	for (int k = 0; k < m; k++)
		hop(0);
	return 0;
}
