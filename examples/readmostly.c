/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * readmostly — a table shared the harmless way: the main thread fills a
 * 4 KiB lookup table, then THREADS threads (default 2) read it ITERS times
 * each (default 1 000 000 lookups) and keep their sums in registers.
 *
 *   readmostly [ITERS [THREADS]]
 *
 * No thread writes the table while others read it, so each core keeps its
 * own copy of the lines and nothing moves between caches: `perfkit c2c
 * report` lists it as read-mostly and flags nothing.  Prints the sum.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 512

static long table[N];	/* 4 KiB: 64 lines */
static long iters = 1000000;

static void *reader(void *arg)
{
	unsigned long x = (unsigned long)arg * 2654435761u + 1, sum = 0;

	for (long i = 0; i < iters; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		sum += (unsigned long)table[(x >> 33) % N];	/* read only */
	}
	return (void *)sum;
}

int main(int argc, char **argv)
{
	long nthreads = 2;
	pthread_t t[64];
	unsigned long total = 0;

	if (argc > 1)
		iters = strtol(argv[1], NULL, 10);
	if (argc > 2)
		nthreads = strtol(argv[2], NULL, 10);
	if (argc > 3 || iters < 1 || nthreads < 1 || nthreads > 64) {
		fprintf(stderr, "usage: readmostly [ITERS [THREADS]]  (ITERS >= 1, 1 <= THREADS <= 64)\n");
		return 2;
	}
	for (long i = 0; i < N; i++)
		table[i] = i * i;	/* written once, before any reader starts */
	for (long i = 0; i < nthreads; i++) {
		int err = pthread_create(&t[i], NULL, reader, (void *)i);

		if (err) {
			fprintf(stderr, "readmostly: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	for (long i = 0; i < nthreads; i++) {
		void *r;

		pthread_join(t[i], &r);
		total += (unsigned long)r;
	}
	printf("readmostly: %lu\n", total);
	return 0;
}
