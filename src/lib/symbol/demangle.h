/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demangle.h — symbol names as people read them: C++ (Itanium ABI, "_Z…"),
 * Rust legacy ("_ZN…17h<16 hex>E": the hash is dropped) and Rust v0
 * ("_R…"), through libiberty's cplus_demangle (DMGL_AUTO | DMGL_PARAMS |
 * DMGL_ANSI; libiberty tries Rust first, then the C++ ABI).
 *
 * A name that is not mangled, or does not demangle, is left alone: the
 * functions then report "no change" and never fail.  A trailing ELF symbol
 * version ("name@@VER", "name@plt") is kept and the part before it is
 * demangled.
 */
#ifndef PERFKIT_SYMBOL_DEMANGLE_H
#define PERFKIT_SYMBOL_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* Quick test: could name be mangled at all ("_Z", "__Z", "_R")? */
bool pk_is_mangled(const char *name);

/* Flags for pk_demangle. */
#define PK_DEMANGLE_PARAMS 1u  /* C++ parameter lists and qualifiers ("(int const&)
				  const"); without it names read as perf shows
				  them by default ("Ptr::operator->") */

/* The demangled form of name (len bytes, need not be NUL-terminated) as a
 * malloc'ed string the caller frees, or NULL when name is not mangled or
 * does not demangle. */
char *pk_demangle(const char *name, size_t len, unsigned flags);

#endif
