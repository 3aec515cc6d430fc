/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * calltree — a known call tree for call-graph tests.  main calls a and d;
 * a calls b, which calls c.  Work per round: a 1 unit itself, b 1, c 4,
 * d 2 (unit = the same LCG loop), so a profile shows about
 *   main 100 %  ─┬─ a 75 % (self 12.5) ── b 62.5 % (self 12.5) ── c 50 %
 *                └─ d 25 %
 * Built -O1 -fno-inline (tests/workloads rule); frame pointers kept so
 * `perf record -g` sees every caller.
 *   calltree [MILLISECONDS]   total CPU time to burn (default 600): the
 *   process's CPU time, so a loaded machine gives as many samples, later.
 * After SIGUSR1, d calls c too (a call graph whose shape changes while
 * top shows it: c gets a second caller).
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

#define UNIT 4000

/* Each function burns inline (no helper frame) so Self lands on it. */
#define BURN(units)                                                          \
	do {                                                                 \
		uint64_t x = sink;                                           \
		for (uint64_t i = 0; i < (units) * UNIT; i++)                \
			x = x * 6364136223846793005ULL + 1442695040888963407ULL; \
		sink = x;                                                    \
	} while (0)

/* The compiler gives a leaf function no frame, which would hide its caller
 * from a frame-pointer unwind: every burner also calls step(). */
__attribute__((noinline)) void step(void) { __asm__ volatile(""); }
__attribute__((noinline)) void c(void) { BURN(4); step(); }
__attribute__((noinline)) void b(void) { BURN(1); c(); step(); }
__attribute__((noinline)) void a(void) { BURN(1); b(); step(); }
static volatile sig_atomic_t d_calls_c;   /* set by SIGUSR1 */
__attribute__((noinline)) void d(void) { BURN(2); if (d_calls_c) c(); step(); }

static void on_usr1(int sig)
{
	(void)sig;
	d_calls_c = 1;
}

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

	signal(SIGUSR1, on_usr1);
	while (now() < end) {
		a();
		d();
	}
	return 0;
}
