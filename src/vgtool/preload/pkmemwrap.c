/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pkmemwrap.c — preloaded (LD_PRELOAD) into the program by `perfkit c2c
 * record` and `perfkit mem record`: malloc, calloc, realloc, free,
 * memalign, posix_memalign, aligned_alloc and valloc call glibc's own
 * (__libc_malloc, …) and tell perfkit's Valgrind tool (pk_mem.c) about each
 * block with a client request, so the tool can take the allocation stack.
 * Outside Valgrind the requests cost a few instructions and do nothing.
 *
 * Why a preload: Valgrind's own malloc replacement (a tool's
 * vgpreload_<tool>.so) is found only in Valgrind's library directory, under
 * the tool's name, and perfkit runs its tool from its own directory
 * (src/lib/cachesim/vgrun.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <valgrind/valgrind.h>

#include "../perfkit_cache.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

#define EXPORT __attribute__((visibility("default"), noinline))

static void note_alloc(void *p, size_t n)
{
	if (p)
		VALGRIND_DO_CLIENT_REQUEST_STMT(PERFKIT_MEM_USERREQ_ALLOC, p, n, 0, 0, 0);
}

static void note_free(void *p)
{
	if (p)
		VALGRIND_DO_CLIENT_REQUEST_STMT(PERFKIT_MEM_USERREQ_FREE, p, 0, 0, 0, 0);
}

EXPORT void *malloc(size_t n)
{
	void *p = __libc_malloc(n);

	note_alloc(p, n);
	return p;
}

EXPORT void *calloc(size_t k, size_t n)
{
	void *p = __libc_calloc(k, n);

	note_alloc(p, k * n);
	return p;
}

EXPORT void *realloc(void *old, size_t n)
{
	void *p = __libc_realloc(old, n);

	if (p || n == 0)
		note_free(old);
	note_alloc(p, n);
	return p;
}

EXPORT void free(void *p)
{
	note_free(p);
	__libc_free(p);
}

EXPORT void *memalign(size_t a, size_t n)
{
	void *p = __libc_memalign(a, n);

	note_alloc(p, n);
	return p;
}

EXPORT void *aligned_alloc(size_t a, size_t n)
{
	return memalign(a, n);
}

EXPORT void *valloc(size_t n)
{
	return memalign(4096, n);
}

EXPORT int posix_memalign(void **out, size_t a, size_t n)
{
	void *p;

	if (a < sizeof(void *) || (a & (a - 1)))
		return EINVAL;
	p = memalign(a, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}
