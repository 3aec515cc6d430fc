/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/thread.h"

#include "base/strbuf.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

int pk_thread_background(void)
{
	int cur;

	errno = 0;
	cur = getpriority(PRIO_PROCESS, (id_t)gettid());
	if (cur == -1 && errno)
		return -errno;
	if (cur >= PK_BACKGROUND_NICE)   /* the process runs nicer already */
		return 0;
	return setpriority(PRIO_PROCESS, (id_t)gettid(), PK_BACKGROUND_NICE) ? -errno : 0;
}

struct pk_reserve {
	char *p;
	size_t bytes;
	atomic_bool stop;
	atomic_size_t done;           /* bytes faulted in so far */
	pthread_t thread;
};

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23   /* Linux 5.14 */
#endif

static void *reserve_main(void *arg)
{
	struct pk_reserve *rs = arg;
	const size_t step = (size_t)2 << 20;   /* the stop flag read this often */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	/* the block's whole pages (madvise wants a page's start) */
	uintptr_t a = ((uintptr_t)rs->p + page - 1) & ~(uintptr_t)(page - 1);
	size_t head = (size_t)(a - (uintptr_t)rs->p);
	bool populate = true;

	/* at the nice of the other threads working ahead of the keys (the
	 * browser's forest and trees): under SCHED_IDLE, a pause of half a
	 * second saw little of it done, and the next 's' took 2.3x longer
	 * to copy its rows */
	(void)pk_thread_background();
	if (head)
		((volatile char *)rs->p)[0] = 0;
	for (size_t o = head; o < rs->bytes && !atomic_load_explicit(&rs->stop, memory_order_relaxed); o += step) {
		size_t end = o + step < rs->bytes ? o + step : rs->bytes;

		/* the kernel faults the range in one call (no exception a
		 * page: 2.5x faster on a VM); before 5.14, EINVAL: a write a
		 * page */
		if (populate && end - o >= page &&
		    madvise(rs->p + o, (end - o) & ~(page - 1), MADV_POPULATE_WRITE))
			populate = false;
		if (!populate || (end - o) % page)
			for (size_t q = populate ? end - (end - o) % page : o; q < end; q += page)
				((volatile char *)rs->p)[q] = 0;
		atomic_store_explicit(&rs->done, end, memory_order_relaxed);
	}
	return NULL;
}

struct pk_reserve *pk_reserve_start(size_t bytes)
{
	struct pk_reserve *rs;

	if (!bytes || !(rs = calloc(1, sizeof(*rs))))
		return NULL;
	if (!(rs->p = malloc(bytes))) {
		free(rs);
		return NULL;
	}
	rs->bytes = bytes;
	xhuge(rs->p, bytes);
	atomic_init(&rs->stop, false);
	atomic_init(&rs->done, 0);
	if (pthread_create(&rs->thread, NULL, reserve_main, rs)) {
		free(rs->p);
		free(rs);
		return NULL;
	}
	return rs;
}

size_t pk_reserve_end(struct pk_reserve *rs)
{
	size_t done;

	if (!rs)
		return 0;
	atomic_store(&rs->stop, true);
	pthread_join(rs->thread, NULL);
	done = atomic_load(&rs->done);
	free(rs->p);
	free(rs);
	return done;
}

size_t pk_reserve_done(const struct pk_reserve *rs)
{
	return rs ? atomic_load(&((struct pk_reserve *)rs)->done) : 0;
}
