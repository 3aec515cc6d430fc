/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctlcomm NAME [MILLIONS [BEFORE]]: spins BEFORE million iterations
 * (default 0) under its own comm, renames its comm to NAME (prctl
 * PR_SET_NAME, so it may hold control bytes) and spins MILLIONS million
 * iterations (default 100) in spin_ctl(). */
#include <stdlib.h>
#include <sys/prctl.h>

volatile unsigned long sink;

__attribute__((noinline)) static void spin_ctl(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	if (argc > 3)
		spin_ctl(strtoul(argv[3], NULL, 10) * 1000000UL);
	if (argc > 1)
		prctl(PR_SET_NAME, argv[1]);
	spin_ctl((argc > 2 ? strtoul(argv[2], NULL, 10) : 100) * 1000000UL);
	return 0;
}
