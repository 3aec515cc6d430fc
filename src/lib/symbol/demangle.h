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
bool sym_is_mangled(const char *name);

/* Flags for sym_demangle. */
#define PK_DEMANGLE_PARAMS 1u  /* C++ parameter lists and qualifiers ("(int const&)
				  const"); without it names read as perf shows
				  them by default ("Ptr::operator->") */

/* The demangled form of name (len bytes, need not be NUL-terminated) as a
 * malloc'ed string the caller frees, or NULL when name is not mangled or
 * does not demangle. */
char *sym_demangle(const char *name, size_t len, unsigned flags);

/*
 * A Rust legacy name that a profiler demangled only halfway: "::" written
 * "..", the punctuation still in "$…$" escapes, the hash kept, as in
 *   "gc::gc::GcBox$LT$T$GT$::new::_$u7b$$u7b$closure$u7d$$u7d$::ha2ed0674a1c3dc9f"
 * which reads "gc::gc::GcBox<T>::new::_{{closure}}".  Only a name ending in
 * "::h" + 16 hex digits is touched: the hash goes, a leading "_$" loses its
 * '_', ".." becomes "::" and the escapes of rustc's legacy mangling ($SP$ @,
 * $BP$ *, $RF$ &, $LT$ <, $GT$ >, $LP$ (, $RP$ ), $C$ ",", $uXX$ the code
 * point XX) are decoded; the text from an escape that is none of these on
 * is kept as it is.  This is what inferno's collapsers do (its
 * fix_partially_demangled_rust_symbol, after rustc-demangle's legacy.rs).
 *
 * Writes the result to out (a buffer of at least len + 1 bytes: the result
 * is never longer) and returns its length, or returns 0 when name is left
 * alone (no such hash).
 */
size_t sym_rust_legacy_fixup(const char *name, size_t len, char *out);

#endif
