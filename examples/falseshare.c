/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * falseshare — the false-sharing lesson: two threads, each bumping its own
 * counter, no data shared between them.
 *
 *   falseshare shared [ITERS]   the two counters side by side, in one 64-byte
 *                               cache line
 *   falseshare padded [ITERS]   each counter alone in its own cache line
 *
 * Each thread adds 1 to its counter ITERS times (default 50 000 000).  With
 * `shared` the line ping-pongs between the two cores' caches on every store
 * (each core must own the line to write it), with `padded` each core keeps
 * its line: same instructions, many times the time when the threads run on
 * two cores at once.  Prints both counters (each must be ITERS) and the time.
 *
 * The counters are volatile so that every increment is a load and a store to
 * memory (an optimiser would otherwise keep them in registers and store once).
 * Built like the other examples (-O2 -g -fno-omit-frame-pointer, -lpthread).
 *
 * The cache simulator (`perfkit cache`) runs the threads one at a time and
 * models no coherence between cores: there the two versions look alike.  The
 * lesson shows natively (`perfkit bench`), and `perfkit c2c record/report`
 * (simulated, any machine) names the line, its two writers and their source
 * lines: the worker bumps in bump_a(), the main thread in bump_b(), two
 * copies of one loop so that each thread has a source line of its own.
 */
#include <pthread.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LINE 64

/* one line holding both counters */
static struct {
	alignas(LINE) volatile long a;
	volatile long b;
} shared;

/* each counter in a line of its own */
static struct {
	alignas(LINE) volatile long a;
	alignas(LINE) volatile long b;
} padded;

static long iters = 50000000;
/* both threads start bumping together, so that they overlap */
static pthread_barrier_t start;

__attribute__((noinline)) static void bump_a(volatile long *c)
{
	for (long i = 0; i < iters; i++)
		(*c)++;		/* the worker's counter */
}

/* counts down, so the compiler does not fold the two copies into one */
__attribute__((noinline)) static void bump_b(volatile long *c)
{
	for (long i = iters; i > 0; i--)
		(*c)++;		/* the main thread's counter */
}

static void *worker(void *arg)
{
	pthread_barrier_wait(&start);
	bump_a(arg);
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "";
	volatile long *a, *b;

	if (argc > 2)
		iters = strtol(argv[2], NULL, 10);
	if (!strcmp(which, "shared"))
		a = &shared.a, b = &shared.b;
	else if (!strcmp(which, "padded"))
		a = &padded.a, b = &padded.b;
	else
		a = b = NULL;
	if (!a || argc > 3 || iters < 1) {
		fprintf(stderr, "usage: falseshare shared|padded [ITERS]  (ITERS >= 1)\n");
		return 2;
	}

	pthread_t t;
	pthread_barrier_init(&start, NULL, 2);
	int err = pthread_create(&t, NULL, worker, (void *)a);
	if (err) {
		fprintf(stderr, "falseshare: pthread_create: %s\n", strerror(err));
		return 1;
	}
	pthread_barrier_wait(&start);
	double t0 = now();
	bump_b(b);
	pthread_join(t, NULL);
	double dt = now() - t0;
	printf("%s: counters %ld and %ld, %.3f ms, %.2f ns per increment\n", which, *a, *b,
	       dt * 1e3, dt * 1e9 / (double)iters);
	return *a == iters && *b == iters ? 0 : 1;
}
