/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * burn2to1 — spends CPU time in two functions in a 2:1 ratio, for profile
 * accuracy tests.  Both run the same loop body; burn_two runs twice as many
 * iterations, interleaved in small slices so sampling sees both throughout.
 *   burn2to1 [MILLISECONDS]   total CPU time to burn (default 600)
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

__attribute__((noinline)) void burn_one(uint64_t iters)
{
	uint64_t x = sink;

	for (uint64_t i = 0; i < iters; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

__attribute__((noinline)) void burn_two(uint64_t iters)
{
	uint64_t x = sink;

	for (uint64_t i = 0; i < iters; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 600;
	double end = cpu_now() + ms / 1e3;
	const uint64_t slice = 200000;

	while (cpu_now() < end) {
		burn_two(2 * slice);
		burn_one(slice);
	}
	return 0;
}
