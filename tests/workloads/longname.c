/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * longname — burns CPU in a function whose name is 64 characters long
 * (and a little in main), for the report browser's column widths: with
 * several sort keys on a wide terminal the Symbol column must show the
 * whole name.
 *   longname [MILLISECONDS]   CPU time to burn (default 600)
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void a_function_whose_name_is_sixty_four_characters_long_0123456789ab(void)
{
	uint64_t x = sink;

	for (int i = 0; i < 200000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 600, start = cpu_ms();

	while (cpu_ms() - start < ms)
		a_function_whose_name_is_sixty_four_characters_long_0123456789ab();
	return 0;
}
