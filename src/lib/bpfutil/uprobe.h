/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * uprobe.h — where to place a uprobe: BINARY:FUNCTION → file and offset.
 *
 * uprobe_parse_target(spec, &path, &func): split "BINARY:FUNCTION" at the
 * first ':' whose left part names a binary (uprobe_find_binary() finds
 * it) and whose right part is a non-empty name not starting with ':', so
 * a path holding ':' and a C++ name holding "::" both work:
 * "./cpp:ns::Acc<double>::add" → "./cpp" (made absolute) and
 * "ns::Acc<double>::add".  Returns 0 with *path and *func malloc'd, or
 * -EINVAL (no ':' with text on both sides: a usage error) or -ENOENT with
 * the error of the first candidate whose function part holds no '/' (else
 * of the first candidate), each with a pk_error() message.
 *
 * uprobe_find_binary(name): name with a '/' must be an existing regular
 * file (returned made absolute); a bare name is searched in $PATH, then as
 * a library (uprobe_find_library).  Returns a malloc'd path, or NULL with
 * a pk_error() message (errno ENOENT).
 *
 * uprobe_find_library(name): a shared library given without a path, as
 * bcc resolves one: "c", "libc", "libc.so" and "libc.so.6" all name
 * libc.so.6.  The patterns tried: NAME when it contains ".so", else
 * "libNAME.so" and, for a NAME starting with "lib", "NAME.so"; each is
 * matched exactly or followed by a '.' (a version: "libc.so" matches
 * "libc.so.6") against the ld.so cache (/etc/ld.so.cache, glibc's
 * "glibc-ld.so.cache1.1" format, also after the old "ld.so-1.7.0" one;
 * only entries for this machine's ABI), then against the files of the
 * standard library directories (/lib64, /usr/lib64, the multiarch
 * /lib/<triplet> and /usr/lib/<triplet>, /lib, /usr/lib, /usr/local/lib;
 * an exact name first, else the highest version by strverscmp).  A match
 * must be an ELF file (libc.so itself is a linker script).  Returns a
 * malloc'd path, or NULL with a pk_error() message naming what was
 * searched (errno ENOENT).  uprobe_find_library_in() does the same with
 * another cache file (NULL: none) and NULL-terminated directory list.
 *
 * uprobe_func_offset(path, func, &off, &size): the symbol func of the ELF
 * file at path (found with sym_lookup_name(), symbol.h: .symtab, else
 * .dynsym), converted from its virtual address to the file offset the
 * kernel's uprobe API takes, through the PT_LOAD program header that
 * contains it (off = vaddr - p_vaddr + p_offset).  A func with no exact
 * symbol may be a demangled C++ name, with or without its parameter list
 * ("ns::Acc<double>::add" or "ns::Acc<double>::add(double)"); when it
 * names several functions (overloads) that is an error asking for the
 * parameter list.  *size (may be NULL) is the symbol's size.  Returns 0,
 * -ENOENT (no such file or symbol) or -EINVAL (not an ELF file, several
 * matches, or the address is in no loadable segment), each with a
 * pk_error() message naming the file and the function.
 */
#ifndef PERFKIT_BPFUTIL_UPROBE_H
#define PERFKIT_BPFUTIL_UPROBE_H

#include <stdint.h>

int uprobe_parse_target(const char *spec, char **path, char **func);
char *uprobe_find_binary(const char *name);
char *uprobe_find_library(const char *name);
char *uprobe_find_library_in(const char *name, const char *cache, const char *const *dirs);
int uprobe_func_offset(const char *path, const char *func, uint64_t *off, uint64_t *size);

#endif
