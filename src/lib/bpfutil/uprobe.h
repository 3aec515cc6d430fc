/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * uprobe.h — where to place a uprobe: BINARY:FUNCTION → file and offset.
 *
 * uprobe_find_binary(name): name with a '/' is used as given; a bare name
 * is searched in $PATH.  Returns a malloc'd path to an existing regular
 * file, or NULL with a pk_error() message (errno ENOENT).
 *
 * uprobe_func_offset(path, func, &off, &size): the symbol func of the ELF
 * file at path (found with sym_lookup_name(), symbol.h: .symtab, else
 * .dynsym), converted from its virtual address to the file offset the
 * kernel's uprobe API takes, through the PT_LOAD program header that
 * contains it (off = vaddr - p_vaddr + p_offset).  *size (may be NULL) is
 * the symbol's size.  Returns 0, -ENOENT (no such file or symbol) or
 * -EINVAL (not ELF, or the address is in no loadable segment), each with a
 * pk_error() message naming the file and the function.
 */
#ifndef PERFKIT_BPFUTIL_UPROBE_H
#define PERFKIT_BPFUTIL_UPROBE_H

#include <stdint.h>

char *uprobe_find_binary(const char *name);
int uprobe_func_offset(const char *path, const char *func, uint64_t *off, uint64_t *size);

#endif
