/* SPDX-License-Identifier: GPL-2.0-or-later */
/* relpath.c — absolute paths for opensnoop -F (see relpath.h). */
#include "bpfutil/relpath.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "base/strbuf.h"

int relpath_dir_from_components(struct strbuf *out, const char *buf, size_t size, unsigned depth)
{
	size_t base = out->len, end = size;
	unsigned n = 0;

	if (!depth) {
		if (size)
			return -EINVAL;
		sb_addch(out, '/');
		return 0;
	}
	if (!size || buf[size - 1] != '\0')
		return -EINVAL;
	/* from the last component (the root's child) back to the first (the leaf) */
	while (end > 0) {
		size_t start = end - 1;              /* at the component's NUL */
		while (start > 0 && buf[start - 1] != '\0')
			start--;
		if (start == end - 1 || ++n > depth) /* empty component, or too many */
			goto bad;
		sb_addch(out, '/');
		sb_add(out, buf + start, end - 1 - start);
		end = start;
	}
	if (n == depth)
		return 0;
bad:
	sb_setlen(out, base);
	return -EINVAL;
}

void relpath_join(struct strbuf *out, const char *dir, const char *rel)
{
	size_t base = out->len;
	bool trailing = *rel && rel[strlen(rel) - 1] == '/';

	sb_addstr(out, dir);
	while (out->len > base + 1 && out->buf[out->len - 1] == '/')
		sb_setlen(out, out->len - 1);
	while (*rel) {
		size_t n = strcspn(rel, "/");

		if (n == 0 || (n == 1 && rel[0] == '.')) {
			/* "//" or "./": nothing */
		} else if (n == 2 && rel[0] == '.' && rel[1] == '.') {
			char *slash = memrchr(out->buf + base, '/', out->len - base);
			if (slash)
				sb_setlen(out, slash == out->buf + base ? base + 1 : (size_t)(slash - out->buf));
		} else {
			if (out->len == base || out->buf[out->len - 1] != '/')
				sb_addch(out, '/');
			sb_add(out, rel, n);
		}
		rel += n;
		if (*rel == '/')
			rel++;
	}
	if (trailing && out->buf[out->len - 1] != '/')
		sb_addch(out, '/');
}
