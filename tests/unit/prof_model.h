/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prof_model.h — what the profile-model unit tests (test_profile.c,
 * test_walk.c, test_names.c) build their small models from: frames of a
 * program, libc and the kernel, and stacks added root first.  Header only (static inline):
 * the Makefile builds each tests/unit/test_*.c on its own. */
#ifndef PK_TESTS_UNIT_PROF_MODEL_H
#define PK_TESTS_UNIT_PROF_MODEL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

static const char EXE[] = "/bin/prog", LIBC[] = "/lib/libc.so.6", KERN[] = "[kernel.kallsyms]";
static const char CA[] = "proga", CB[] = "progb";

/* a frame at ip in symbol sym of dso, the symbol starting at start (sym
 * NULL: no symbol, the offset is the ip); kernel when dso is KERN */
static inline struct pk_frame fr(const char *dso, const char *sym, uint64_t ip, uint64_t start)
{
	return (struct pk_frame){ .ip = ip, .sym = sym, .sym_off = sym ? ip - start : ip, .dso = dso,
				  .kernel = dso == KERN, .addr = ip };
}

/* frames given root first, stored leaf first as pk_sample holds them */
static inline void add(struct prof *p, const char *comm, uint32_t tid, uint64_t period, size_t n, ...)
{
	struct pk_frame v[16];
	va_list ap;

	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		v[n - 1 - i] = va_arg(ap, struct pk_frame);
	va_end(ap);
	prof_add(p, comm, tid, tid, v, n, period);
}

#endif
