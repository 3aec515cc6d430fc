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
 * relpath_join(out, dir, rel): append dir + "/" + rel, with every "."
 * and ".." component of rel (and repeated slashes) folded lexically:
 * "/a/b" + "../x/./y" gives "/a/x/y", "/a" + "sub/../f" gives "/a/f",
 * ".." of "/" is "/".  Exact for the part that comes from dir (the kernel's
 * dentries or /proc's cwd and fd links, which have no symlinks); a ".."
 * after a component of rel that is a symlink would name another file in
 * the kernel's resolution, which opensnoop avoids where it can by taking
 * a successful open's path from the kernel.  A trailing "/" of rel is kept.
 * dir must be absolute.
 */
#ifndef PERFKIT_BPFUTIL_RELPATH_H
#define PERFKIT_BPFUTIL_RELPATH_H

#include <stddef.h>

struct strbuf;

int relpath_dir_from_components(struct strbuf *out, const char *buf, size_t size, unsigned depth);
void relpath_join(struct strbuf *out, const char *dir, const char *rel);

#endif
