/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit_cache.h — client requests of `perfkit cache` (the pkcache
 * Valgrind tool), for a program to bracket its region of interest:
 *
 *   #include "perfkit_cache.h"        (needs <valgrind/valgrind.h>)
 *   PERFKIT_CACHE_ZERO();              all counts so far are dropped
 *   work();
 *   PERFKIT_CACHE_DUMP();              counts so far written to OUT.1, OUT.2, ...
 *
 * Outside Valgrind both are no-ops costing a few instructions.
 */
#ifndef PERFKIT_CACHE_CLREQ_H
#define PERFKIT_CACHE_CLREQ_H

#define PERFKIT_CACHE_USERREQ_ZERO (('P' << 24) | ('K' << 16) | 0)
#define PERFKIT_CACHE_USERREQ_DUMP (('P' << 24) | ('K' << 16) | 1)
/* made by pkmemwrap.so (perfkit c2c/mem): block (ptr, size) allocated;
 * block ptr freed */
#define PERFKIT_MEM_USERREQ_ALLOC  (('P' << 24) | ('K' << 16) | 2)
#define PERFKIT_MEM_USERREQ_FREE   (('P' << 24) | ('K' << 16) | 3)

#ifndef VG_DETERMINE_INTERFACE_VERSION	/* not inside the tool itself */
#include <valgrind/valgrind.h>
#define PERFKIT_CACHE_ZERO() \
	VALGRIND_DO_CLIENT_REQUEST_STMT(PERFKIT_CACHE_USERREQ_ZERO, 0, 0, 0, 0, 0)
#define PERFKIT_CACHE_DUMP() \
	VALGRIND_DO_CLIENT_REQUEST_STMT(PERFKIT_CACHE_USERREQ_DUMP, 0, 0, 0, 0, 0)
#endif

#endif
