/* SPDX-License-Identifier: GPL-2.0-or-later */
/* inlhot_helper.h — the hot loop of tests/workloads/inlhot.c, in a file of
 * its own and always inlined (the workloads are built -fno-inline), so a
 * profile's samples land on these lines inside inlhot.c's main(). */
#ifndef INLHOT_HELPER_H
#define INLHOT_HELPER_H

static inline __attribute__((always_inline)) double mix(double x, long rounds)
{
	for (long r = 0; r < rounds; r++)
		x = x * 0.999999 + 1.0 / (x + 3.0);
	return x;
}

#endif
