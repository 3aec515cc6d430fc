/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * relpath.h — making the relative paths opensnoop -F sees absolute.
 *
 * relpath_dir_from_components(out, buf, size, depth): append to out the
 * directory whose components the kernel half collected leaf first, each
 * NUL-terminated: "c\0b\0a\0" (depth 3) gives "/a/b/c"; depth 0 gives "/".
 * Returns 0, or -EINVAL (nothing appended) when buf does not hold exactly
 * depth NUL-terminated, non-empty components in size bytes.
 *
 * relpath_join(out, dir, rel): append dir + "/" + rel, with the leading
 * "." and ".." components of rel (and repeated slashes) folded into dir
 * lexically: "/a/b" + "../x/./y" gives "/a/x/./y", ".." of "/" is "/".
 * Folding is exact only because dir has no symlinks (it comes from the
 * kernel's dentries or /proc's cwd and fd links, which are canonical); the
 * rest of rel is kept as given (a symlink there may make its ".." differ).
 * dir must be absolute.
 */
#ifndef PERFKIT_BPFUTIL_RELPATH_H
#define PERFKIT_BPFUTIL_RELPATH_H

#include <stddef.h>

struct strbuf;

int relpath_dir_from_components(struct strbuf *out, const char *buf, size_t size, unsigned depth);
void relpath_join(struct strbuf *out, const char *dir, const char *rel);

#endif
