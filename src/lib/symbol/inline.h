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
 * Inlined functions (every item but the outermost) are marked "_[i]" (after
 * the file:line when context is set), as stackcollapse-perf.pl marks
 * inlined frames; inline_resolver_set_mark(r, false) leaves them plain.
 *
 * Returns 0 with out filled, or -ENOENT when the DSO cannot be read or has
 * no DWARF for the address (out untouched; the caller falls back).
 *
 * The chains are made once per (DSO, address) as typed frames
 * (inline_chain); the text functions print them.
 */
#ifndef PERFKIT_SYMBOL_INLINE_H
#define PERFKIT_SYMBOL_INLINE_H

#include "base/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct inline_resolver;

struct inline_resolver *inline_resolver_new(void);
void inline_resolver_free(struct inline_resolver *r);

/* pc: hex text (no 0x) of pcl bytes; func: the symbol as perf script
 * printed it ("name+0xOFF": when pc has no DWARF, name's address + OFF is
 * tried, as the Perl script does with nm); dso: path of dsol bytes. */
int inline_resolve(struct inline_resolver *r, const char *pc, size_t pcl, const char *func,
		   size_t funcl, const char *dso, size_t dsol, bool context, struct strbuf *out);

/* Mark inlined items with "_[i]" (default) or not; set before the first
 * lookup (results are cached as made). */
void inline_resolver_set_mark(struct inline_resolver *r, bool mark);

/* The same chain for addr, an ELF (link-time) address of the file dso (a
 * NUL-terminated path); cached per (dso, addr).  Also the source line of
 * an address: with context set, the last item ends ":file:line". */
int inline_resolve_addr(struct inline_resolver *r, const char *dso, uint64_t addr, bool context,
			struct strbuf *out);

/* The same chain as data, for annotate: out[0] is the real (outermost)
 * function, out[n-1] the innermost; each item's file:line is the line
 * executing in that function at addr — for every item but the last, the
 * call site of the next one (DW_AT_call_file/line); for the last, addr's
 * line-table entry.  file is the path DWARF names, made absolute with the
 * unit's DW_AT_comp_dir when relative; NULL or line 0 when unknown; name NULL
 * when the DIE has none.  Strings live as long as r.  Not cached.  Returns
 * the number of items (at most max), or -ENOENT as above. */
struct inline_frame {
	const char *name;
	const char *file;
	int line;
	bool inlined;        /* a DW_TAG_inlined_subroutine (all but out[0]) */
	const char *linkage; /* the name the linker knows (DW_AT_linkage_name,
				through the abstract origin; in a C unit, where
				names are not mangled, the name itself); NULL:
				DWARF has none (binutils' addr2line then names
				the innermost item by the ELF symbol) */
	const char *elf_sym; /* the innermost item, a real function without a
				linkage name: the ELF symbol at the address
				(as in the file, mangled), or NULL */
};

int inline_resolve_frames(struct inline_resolver *r, const char *dso, uint64_t addr,
			  struct inline_frame *out, size_t max);

/* The chain at addr (an ELF address of the file dso) as typed frames, the
 * form every other function here prints: *out points at the items,
 * outermost first (out[0] the real function, inlined false; the others
 * inlined), each with its DWARF name (NULL: none), the file as DWARF names
 * it (NULL: unknown) and the line executing in that function (the next
 * item's call site; the last: addr's line; 0: unknown).  When addr has no
 * DWARF and sym (syml bytes, a symbol of dso) is given, sym's address +
 * sym_off is tried, as the Perl script does with nm.  Cached per (dso,
 * addr) (the first call's sym decides); the items live as long as r.
 * Returns the number of items, or -ENOENT as above. */
int inline_chain(struct inline_resolver *r, const char *dso, uint64_t addr, const char *sym, size_t syml,
		 uint64_t sym_off, const struct inline_frame **out);

/* The line-table entry of addr (an ELF address of the file dso): the
 * innermost source line executing there, what binutils' addr2line without
 * -i prints and the last item of inline_chain's chain.  *file as DWARF names
 * it (NULL: the entry names none), *line (0: unknown); both live as long as
 * r.  Not cached (a lookup in the unit's sorted line table).  Returns 0;
 * -ENODATA when dso has DWARF but no unit of it holds addr (binutils'
 * addr2line: "??:?"); -ENOENT when dso cannot be read or has no DWARF. */
int inline_line(struct inline_resolver *r, const char *dso, uint64_t addr, const char **file, int *line);

/* Append one item as the text functions above print it: its name as
 * binutils' addr2line -C gives it (the linkage name, or elf_sym, demangled
 * with its parameter list when params is set, as perf names symbols when
 * not; else the DWARF name; "??" when none), with context ":FILE:LINE"
 * (FILE the basename, "??" when unknown), "_[i]" when mark is set and the
 * item is inlined.  The text functions above name items with params. */
void inline_frame_text(const struct inline_frame *f, bool context, bool mark, bool params, struct strbuf *out);

#endif
