/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/path.h"

#include "base/error.h"
#include "base/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

int pk_find_program(const char *name, char **path)
{
	bool is_path = strchr(name, '/') != NULL;

	struct stat st;
	bool there = is_path && stat(name, &st) == 0;

	*path = !is_path ? pk_path_search(name, true)
	      : there && !S_ISDIR(st.st_mode) && access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	if (*path)
		return 0;
	struct strbuf q = STRBUF_INIT;
	sb_add_term(&q, name, strlen(name));
	/* a file there that cannot be run: the shell's 126 (EACCES), not 127 */
	int err = there ? pk_error(EACCES, "'%s': %s", q.buf, S_ISDIR(st.st_mode) ? "Is a directory" : "Permission denied")
			: pk_error(ENOENT, "'%s': %s", q.buf, is_path ? "no such executable file" : "command not found");
	sb_release(&q);
	return err;
}

int pk_open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), err;
	struct stat st;

	if (fd < 0)
		return -1;
	/* st is read only when fstat filled it */
	err = fstat(fd, &st) != 0 ? errno : S_ISREG(st.st_mode) ? 0 : EINVAL;
	if (err) {
		close(fd);
		errno = err;
		return -1;
	}
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int pk_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int err = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		err = ferror(f) ? -EIO : -ENODATA;
	fclose(f);
	if (!err)
		buf[strcspn(buf, "\n")] = 0;
	return err;
}

const char *pk_sysfs_cpu(void)
{
	const char *env = getenv("PERFKIT_SYSFS_CPU");

	return env && *env ? env : "/sys/devices/system/cpu";
}
