/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/path.h"

#include "base/strbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *pk_path_search(const char *name, bool exec_only)
{
	const char *p = getenv("PATH");
	struct strbuf sb;

	if (!p || !*p)
		p = "/bin:/usr/bin";
	sb_init(&sb, 64);
	for (;;) {
		size_t n = strcspn(p, ":");
		struct stat st;

		sb_reset(&sb);
		sb_add(&sb, n ? p : ".", n ? n : 1);
		sb_addch(&sb, '/');
		sb_addstr(&sb, name);
		if (stat(sb.buf, &st) == 0 && S_ISREG(st.st_mode) && (!exec_only || access(sb.buf, X_OK) == 0))
			return sb_detach(&sb, NULL);
		if (!p[n])
			break;
		p += n + 1;
	}
	sb_release(&sb);
	errno = ENOENT;
	return NULL;
}
