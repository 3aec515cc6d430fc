/* SPDX-License-Identifier: GPL-2.0-or-later */
/* inlhot — spends its time in mix(), an always-inline helper from
 * inlhot_helper.h, called from main: `perfkit annotate main` shows the
 * helper's lines under main's call site.  Usage: inlhot [ROUNDS]. */
#include "inlhot_helper.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 50000000;
	double acc = 1.0;

	acc = mix(acc, rounds);
	printf("%f\n", acc);
	return 0;
}
