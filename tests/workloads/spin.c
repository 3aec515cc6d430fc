/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spin — burns CPU inside main() on demand, for profile's tests:
 *   spin [MS]   waits (asleep) for SIGUSR1, then spins MS milliseconds
 *               (default 1000) in main's own loop, prints the CPU time it
 *               used meanwhile in nanoseconds on stdout, and sleeps again
 *               until SIGTERM or SIGINT, so its maps stay readable.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t go;
static volatile uint64_t sink;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

static uint64_t ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000;
	sigset_t block, old;

	signal(SIGUSR1, on_usr1);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	while (!go)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);

	uint64_t cpu0 = ns(CLOCK_PROCESS_CPUTIME_ID);
	uint64_t end = ns(CLOCK_MONOTONIC) + ms * 1000000u;
	uint64_t x = sink;
	while (ns(CLOCK_MONOTONIC) < end) {
		for (int i = 0; i < 200000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sink = x;
	}
	printf("%llu\n", (unsigned long long)(ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0));
	fflush(stdout);
	for (;;)
		pause();
}
