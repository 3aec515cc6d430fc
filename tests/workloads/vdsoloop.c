/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vdsoloop [N] — calls clock_gettime() N times (default 3000000): nearly
 * all its time is in the [vdso]'s __vdso_clock_gettime. */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3000000, s = 0;
	struct timespec ts;

	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s += ts.tv_nsec;
	}
	return (int)(s & 1) * 0;
}
