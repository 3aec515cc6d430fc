/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind.h — user-space call stacks from a sample's registers and its copy
 * of the user stack (perf record --call-graph dwarf: PERF_SAMPLE_REGS_USER
 * + PERF_SAMPLE_STACK_USER), unwound after the fact with elfutils libdwfl
 * (dwfl_attach_state + dwfl_getthread_frames) using each DSO's CFI
 * (.eh_frame, or .debug_frame from the file or its separate debug file).
 *
 * Model: one Dwfl per address space (the session's map group), reporting
 * every file-backed map's DSO once at its load bias; it is kept across
 * samples and rebuilt only when that address space's maps change (its
 * generation number).  Memory reads are served from the sample's stack
 * copy only; a read outside it ends the unwind and marks it truncated
 * (the stack was deeper than the copy).
 *
 * Speed: the CFI row of each pc is cached per address space as a small rule
 * when it has the shape compilers emit (CFA = rsp or rbp + N; return
 * address, and rbp when saved, at CFA + N): such frames are unwound without
 * libdwfl, which stays the fallback for everything else (and, with the
 * environment variable PERFKIT_UNWIND=dwfl, the only path: a debugging aid
 * that must give identical stacks).
 *
 * Registers: perf's register numbering (arch/x86/include/uapi/asm/
 * perf_regs.h) mapped to DWARF's; x86-64 only (elsewhere unwind_sample
 * returns -EOPNOTSUPP).
 *
 * Frames: pcs[0] is the sampled ip; callers are return addresses minus one
 * (the call instruction, as perf shows them).  Errors: -EOPNOTSUPP (other
 * architecture, no registers), -ENOENT (no module covers the ip).
 */
#ifndef PERFKIT_SESSION_UNWIND_H
#define PERFKIT_SESSION_UNWIND_H

#include "perfdata/perfdata.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symcache;
struct unwinder;

/* A file-backed mapping of the address space (the session's maps). */
struct unwind_map {
	uint64_t start, end, pgoff;
	const char *dso;      /* path; maps without a file are not passed */
};

/* syms (kept, not owned) gives each DSO's file offset → ELF address. */
struct unwinder *unwinder_new(struct symcache *syms);
void unwinder_free(struct unwinder *u);

/* Unwind raw (a sample with user registers and stack) in the address space
 * identified by (as_key, as_gen) whose maps are maps[0..nr_maps).  Writes at
 * most max pcs, leaf first; *truncated is set when the unwind stopped at the
 * end of the stack copy or at max.  Returns the number of pcs or -errno. */
int unwind_sample(struct unwinder *u, const void *as_key, uint64_t as_gen,
		  const struct unwind_map *maps, size_t nr_maps, uint32_t pid,
		  const struct pd_sample *raw, uint64_t *pcs, size_t max, bool *truncated);

/* Samples unwound so far by the cached rows alone (*fast) and by libdwfl
 * (*dwfl: a row of another kind, or PERFKIT_UNWIND=dwfl). */
void unwinder_counts(const struct unwinder *u, uint64_t *fast, uint64_t *dwfl);

#endif
