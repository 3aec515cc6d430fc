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

/*
 * A heap reserve: memory a program will soon allocate, faulted in ahead by
 * a background thread while it waits for a person (the browser in a pause
 * before an 's' that makes a million rows).  A fresh page is zeroed by the
 * kernel at its first touch, and under a hypervisor also mapped by the
 * host: on the 2-CPU VM of docs/PERFORMANCE.md, 1-2 ms of CPU per MiB,
 * most of the time of a derivation that writes 250 MB of new rows.
 *
 * pk_reserve_start(bytes): from the calling thread, malloc(bytes) (the
 * heap of the thread that will allocate: call it from that one), asked for
 * huge pages (xhuge), and a thread at PK_BACKGROUND_NICE faults its pages
 * in, in order (madvise MADV_POPULATE_WRITE 2 MiB at a time; before Linux
 * 5.14, a write a page).  NULL when bytes is 0 or the block or the
 * thread cannot be had (nothing reserved; no error is kept).
 *
 * pk_reserve_end(rs): the thread stops at its next 2 MiB (it checks a
 * flag), is joined, and the block is freed: its pages, faulted so far, are
 * the heap's free memory, which the next allocations reuse as long as
 * malloc keeps them (the caller sets M_TRIM_THRESHOLD above them; a block
 * above M_MMAP_THRESHOLD would be unmapped: the caller sets M_MMAP_MAX 0).
 * Returns the bytes faulted in (0 for NULL).  Call it from the thread that
 * started it, before allocating what the reserve is for.
 */
struct pk_reserve;

struct pk_reserve *pk_reserve_start(size_t bytes);
size_t pk_reserve_end(struct pk_reserve *rs);
/* The bytes faulted in so far (0 for NULL); the block's size once done. */
size_t pk_reserve_done(const struct pk_reserve *rs);

#endif
