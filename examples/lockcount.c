/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lockcount — true sharing: THREADS threads (default 2) each add 1 to one
 * shared counter ITERS times (default 1 000 000), under one mutex that sits
 * beside the counter.
 *
 *   lockcount [ITERS [THREADS]]
 *
 * Every thread writes the same bytes (the lock word and the counter), so the
 * line moves between cores on every iteration and padding cannot help: the
 * fix is a counter per thread, summed at the end.  `perfkit c2c report`
 * classifies the line as true sharing.  Prints the total (ITERS * THREADS).
 * Built like the other examples (-O2 -g -fno-omit-frame-pointer, -lpthread).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
	pthread_mutex_t lock;
	long count;
} shared_counter = { PTHREAD_MUTEX_INITIALIZER, 0 };

static long iters = 1000000;

static void *worker(void *arg)
{
	(void)arg;
	for (long i = 0; i < iters; i++) {
		pthread_mutex_lock(&shared_counter.lock);
		shared_counter.count++;		/* every thread: the same bytes */
		pthread_mutex_unlock(&shared_counter.lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long nthreads = 2;
	pthread_t t[64];

	if (argc > 1)
		iters = strtol(argv[1], NULL, 10);
	if (argc > 2)
		nthreads = strtol(argv[2], NULL, 10);
	if (argc > 3 || iters < 1 || nthreads < 1 || nthreads > 64) {
		fprintf(stderr, "usage: lockcount [ITERS [THREADS]]  (ITERS >= 1, 1 <= THREADS <= 64)\n");
		return 2;
	}
	for (long i = 0; i < nthreads; i++) {
		int err = pthread_create(&t[i], NULL, worker, NULL);

		if (err) {
			fprintf(stderr, "lockcount: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	for (long i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	printf("lockcount: %ld\n", shared_counter.count);
	return shared_counter.count == iters * nthreads ? 0 : 1;
}
