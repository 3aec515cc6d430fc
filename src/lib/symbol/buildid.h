/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * buildid.h — every build-id and debug-file lookup in one place: reading a
 * file's GNU build-id, and where a file of a given build-id is found.
 *
 * Places searched, in order (perf's build-id cache, then the distribution's
 * debug tree; tools/perf/util/build-id.c, dso.c):
 *   ~/.debug/.build-id/HE/X…/elf   perf's cache (a folder per id, newer perf)
 *   ~/.debug/.build-id/HE/X…       perf's cache (a link to ../../NAME/HEX)
 *   /usr/lib/debug/.build-id/HE/X….debug   debug packages (-dbgsym)
 * HE is the first byte in hex, X… the rest.  bid_find accepts a candidate
 * only when its own build-id is the one asked for (a copy never stands in
 * for another build), bid_debug_path names the debug-tree path alone
 * (symbol/: the .symtab of a stripped DSO).  The kernel's [vdso] is cached
 * by perf record at ~/.debug/[vdso]/HEX/vdso.  $HOME unset or empty: the
 * cache is not searched (nor written).
 *
 * Errors: -errno; nothing is printed.
 */
#ifndef PERFKIT_SYMBOL_BUILDID_H
#define PERFKIT_SYMBOL_BUILDID_H

#include "base/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Read the GNU build-id note of the ELF file at path into id (up to
 * idsize bytes).  Returns its length, or -errno (-ENOENT: file missing,
 * -ENODATA: no build-id note, -EINVAL: not ELF). */
int sym_read_build_id(const char *path, uint8_t *id, size_t idsize);

/* Whether the file at path has build-id id[0, n) (a longer id read from
 * the file matches on its first n bytes: perf pads SHA-1 ids to 20). */
bool bid_matches(const char *path, const uint8_t *id, size_t n);

/* id[0, n) in lower-case hex, appended to sb. */
void bid_hex(struct strbuf *sb, const uint8_t *id, size_t n);

/* A file of build-id id[0, n) (n >= 2) in the places above: its path in
 * *out (reset first) and 0, or -ENOENT. */
int bid_find(const uint8_t *id, size_t n, struct strbuf *out);

/* bid_find() for a recording read with perf's --symfs ROOT (root not NULL,
 * "" or "/"): only ROOT/usr/lib/debug/.build-id/HE/X….debug, as perf's
 * dso.c, which skips its cache under a symfs. */
int bid_find_root(const char *root, const uint8_t *id, size_t n, struct strbuf *out);

/* /usr/lib/debug/.build-id/HE/X….debug for id[0, n) in *out (reset first),
 * without looking at it; -EINVAL for n < 2. */
int bid_debug_path(const uint8_t *id, size_t n, struct strbuf *out);

/* perf's copy of the [vdso] of build-id id[0, n), ~/.debug/[vdso]/HEX/vdso,
 * in *out when it is readable: 0, else -ENOENT. */
int bid_vdso_path(const uint8_t *id, size_t n, struct strbuf *out);

/* Save the ELF file readable at src (e.g. /proc/PID/map_files/START-END,
 * which still opens a binary deleted while mapped) into perf's build-id
 * cache under $HOME/.debug, as perf record does: the copy at
 * ~/.debug/NAME/HEX/elf (NAME without a " (deleted)" suffix) and the link
 * ~/.debug/.build-id/HE/X… → ../../NAME/HEX, where perf report and the
 * session look files up by build-id.  An existing copy is kept.  Fills
 * id (up to idsize bytes) and returns its length, or -errno (-ENODATA: no
 * build-id, -ENOENT: no $HOME). */
int sym_build_id_cache_save(const char *src, const char *name, uint8_t *id, size_t idsize);

/* Save this process's [vdso] (the same in every process of this kernel)
 * in perf's cache, ~/.debug/[vdso]/HEX/vdso with the link
 * ~/.debug/.build-id/HE/X… → ../../[vdso]/HEX/vdso, as perf record does.
 * Returns the build-id's length (filled in id), 0 when there is no vdso, no
 * build-id or no cache could be written. */
int bid_save_vdso(uint8_t *id, size_t idsize);

/* NT_GNU_BUILD_ID of the running kernel (/sys/kernel/notes): its length,
 * or -errno (-ENODATA: none there). */
int bid_kernel(uint8_t *id, size_t idsize);

#endif
