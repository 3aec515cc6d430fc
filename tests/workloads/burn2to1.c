/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * burn2to1 — spends CPU time in two functions in a 2:1 ratio, for profile
 * accuracy tests.  burn_one and burn_two are the same code, both aligned to
 * 64 bytes so their loops sit alike in the cache lines and run at the same
 * speed; burn_two is asked for twice the iterations.  A round (about 90 µs
 * here) is short against a 1 ms sampling period, so samples land at every
 * phase of the round.  The time is the process's CPU time, not the
 * clock's: on a loaded machine the run takes longer but its profile has as
 * many samples (cpu-clock counts CPU time), so tests stay as precise.
 *   burn2to1 [MILLISECONDS]   total CPU time to burn (default 600)
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

#define BURN(name)                                                             \
	__attribute__((noinline, aligned(64))) void name(uint64_t iters)       \
	{                                                                      \
		uint64_t x = sink;                                             \
		for (uint64_t i = 0; i < iters; i++)                           \
			x = x * 6364136223846793005ULL + 1442695040888963407ULL; \
		sink = x;                                                      \
	}

BURN(burn_one)
BURN(burn_two)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 600;
	double end = now() + ms / 1e3;
	const uint64_t slice = 10000;

	while (now() < end) {
		burn_two(2 * slice);
		burn_one(slice);
	}
	return 0;
}
