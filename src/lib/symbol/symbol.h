/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symbol.h — address → symbol resolution through elfutils (libelf/libdw).
 *
 * A symcache loads each DSO once, lazily, on its first lookup: its .symtab
 * (or .dynsym when stripped) read with libelf, sorted by address, so every
 * later lookup is a binary search.  Results are cached per (DSO, address).
 * Kernel addresses resolve through /proc/kallsyms (read once).
 *
 * Addresses: a user-space ip is turned into a DSO-relative *file offset* by
 * the caller from the MMAP2 record (file_off = ip - map.start + map.pgoff);
 * the cache maps that offset to the ELF virtual address through the PT_LOAD
 * program headers, which gets PIE, shared libraries and non-PIE executables
 * right alike.
 *
 * Names returned are interned in the cache and live as long as it.
 * Lookups never fail hard: an unreadable DSO or an address outside every
 * symbol gives NULL (shown as "[unknown]" by the callers).
 */
#ifndef PERFKIT_SYMBOL_H
#define PERFKIT_SYMBOL_H

#include "symbol/buildid.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symcache;

struct symcache *symcache_new(void);
void symcache_free(struct symcache *c);

/* Demangled names (C++, Rust; see symbol/demangle.h) from symcache_resolve
 * and symcache_resolve_kernel, without parameter lists as perf shows them
 * ("Ptr::operator->", "std::io::error::Error::new"): on by default; off
 * gives the raw ELF names
 * (--no-demangle).  Each distinct name is demangled once. */
void symcache_set_demangle(struct symcache *c, bool on);
/* The number of DSOs whose tables the cache holds (or remembers as
 * missing). */
size_t symcache_nr_dsos(const struct symcache *c);

/* Symbol containing the DSO file offset file_off of the DSO at path.
 * *sym_off (may be NULL) receives the offset from the symbol's start;
 * *vaddr (may be NULL) the ELF virtual address the offset maps to. */
const char *symcache_resolve(struct symcache *c, const char *path, uint64_t file_off,
			     uint64_t *sym_off, uint64_t *vaddr);

/* Symbol containing the kernel address ip (from /proc/kallsyms or the
 * file symcache_set_kallsyms() named, or NULL when it is unreadable, was
 * set to none, or shows zeroed addresses). */
const char *symcache_resolve_kernel(struct symcache *c, uint64_t ip, uint64_t *sym_off);

/* The file kernel addresses are named from, in /proc/kallsyms's format
 * (lines "ADDRESS TYPE NAME [MODULE]", proc(5); perf report's
 * --kallsyms), read once on the first kernel address; NULL: none, every
 * kernel address unknown (perf's, given a --symfs and no --kallsyms).
 * The default is /proc/kallsyms.  path must outlive c; a call after the
 * first symcache_resolve_kernel() changes nothing. */
void symcache_set_kallsyms(struct symcache *c, const char *path);


/* Build-ids (sym_read_build_id, sym_build_id_cache_save): symbol/buildid.h. */

/* Paths symcache_resolve understands besides ELF files: a path starting
 * with "[kernel.kallsyms]" resolves through kallsyms (perf's kernel map has
 * pgoff = start, so file_off is the kernel address); "[vdso]" resolves
 * against this process's own vdso image (same kernel, 64-bit ABI); "//anon",
 * "" and every other "[...]" name ("[heap]", "[stack]") give NULL.  A
 * missing or non-ELF file is remembered and gives NULL, without a message.
 * *vaddr is set to 0 when the offset lies in no PT_LOAD segment.
 *
 * Symbol sources: a stripped DSO (no .symtab) uses the .symtab of its
 * separate debug file /usr/lib/debug/.build-id/xx/yyyy.debug when one is
 * installed, else its .dynsym; x86-64 PLT entries resolve to "name@plt"
 * as in perf.  Names are the raw ELF names (versioned ones in a .symtab
 * read "name@@VER"), demangled unless turned off.  See symbol.c for the alias rules. */

/* Look up the function symbol called name (exact, not demangled) in the
 * DSO at path, from the same table symcache_resolve uses (.symtab, else
 * .dynsym); aliases are all found.  *addr (may be NULL) receives its start
 * as an ELF virtual address, *size (may be NULL) its st_size (0: unsized).
 * When several symbols share the name (static functions of different
 * files), the global one wins over weak over local, then a sized one, then
 * the first in the table.  Returns 0, or -ENOENT when the DSO is missing or
 * unreadable or has no such symbol (no message is recorded). */
int sym_lookup_name(struct symcache *c, const char *path, const char *name,
		    uint64_t *addr, uint64_t *size);

#endif
