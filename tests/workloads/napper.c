/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * napper — one function that sleeps, one that spins, for offcputime's and
 * the stack tools' tests:
 *   napper [NAP_MS [SPIN_MS [ROUNDS]]]   (defaults 200, 200, 1)
 * Each round spins SPIN_MS milliseconds of wall time in spin_here() and then
 * sleeps NAP_MS milliseconds in nap_here(), then it exits.  nap_here()
 * enters nanosleep itself (x86-64: the syscall instruction inline; elsewhere
 * through syscall(2)), so a frame-pointer walk from the kernel's saved
 * user registers starts in nap_here and its caller is found: a libc
 * wrapper without frame pointers would hide its caller.  Prints its pid
 * first, then "done" on stdout.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void spin_here(long ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000u;

	while (now_ns() < end)
		for (int i = 0; i < 10000; i++)
			sink += (uint64_t)i * i;
}

__attribute__((noinline)) void nap_here(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
#if defined(__x86_64__)
	long ret;
	do {   /* restarted after a signal with the time left */
		__asm__ volatile("syscall" : "=a"(ret)
				 : "0"((long)SYS_nanosleep), "D"(&ts), "S"(&ts)
				 : "rcx", "r11", "memory");
	} while (ret == -4);   /* -EINTR */
#else
	while (syscall(SYS_nanosleep, &ts, &ts) == -1)
		;
#endif
}

int main(int argc, char **argv)
{
	long nap = argc > 1 ? atol(argv[1]) : 200, spin = argc > 2 ? atol(argv[2]) : 200;
	long rounds = argc > 3 ? atol(argv[3]) : 1;

	printf("%d\n", (int)getpid());
	fflush(stdout);
	for (long r = 0; r < rounds; r++) {
		spin_here(spin);
		nap_here(nap);
	}
	printf("done\n");
	return 0;
}
