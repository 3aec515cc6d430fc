/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inline.h — expand an address into its chain of inlined functions, for
 * `collapse --inline` (what stackcollapse-perf.pl gets from
 * `addr2line -a PC -e DSO -i -f -s -C`).
 *
 * The address is taken as a link-time address of the ELF file DSO (as
 * addr2line does; perf 6 prints DSO-relative ones, hence the fallback below); DWARF is read with elfutils libdw, once per DSO, and
 * each (DSO, address) is resolved once.  The result, outermost function
 * first, is "outer;…;inner", each name followed by ":file:line" (file
 * basename) when context is set.  Names are DWARF names (DW_AT_name), so
 * C++ functions appear unqualified.
 *
 * Returns 0 with out filled, or -ENOENT when the DSO cannot be read or has
 * no DWARF for the address (out untouched; the caller falls back).
 */
#ifndef PERFKIT_STACK_INLINE_H
#define PERFKIT_STACK_INLINE_H

#include "base/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

struct inline_resolver;

struct inline_resolver *inline_resolver_new(void);
void inline_resolver_free(struct inline_resolver *r);

/* pc: hex text (no 0x) of pcl bytes; func: the symbol as perf script
 * printed it ("name+0xOFF": when pc has no DWARF, name's address + OFF is
 * tried, as the Perl script does with nm); dso: path of dsol bytes. */
int inline_resolve(struct inline_resolver *r, const char *pc, size_t pcl, const char *func,
		   size_t funcl, const char *dso, size_t dsol, bool context, struct strbuf *out);

#endif
