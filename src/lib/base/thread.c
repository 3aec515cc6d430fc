/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/thread.h"

#include <errno.h>
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
