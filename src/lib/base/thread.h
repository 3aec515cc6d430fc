/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * thread.h — scheduling of perfkit's own threads.
 *
 * pk_thread_background(): the calling thread (one working ahead of a
 * person's keys: the browser's call-graph forest, its first view's trees,
 * an annotation made in a pause) gets a nice of PK_BACKGROUND_NICE, so that
 * the thread answering the keys, at the process's own nice, has the CPU
 * first: on Linux a nice value is a thread's own (setpriority(2) on its
 * thread id; sched(7): a nice of 10 weighs a tenth of 0).  Raising one's
 * nice needs no privilege.  Returns 0, or -errno of setpriority (the
 * thread then runs as before).  Never prints.
 */
#ifndef PERFKIT_BASE_THREAD_H
#define PERFKIT_BASE_THREAD_H

#define PK_BACKGROUND_NICE 10

int pk_thread_background(void);

#endif
