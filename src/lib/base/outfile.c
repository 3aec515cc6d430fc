/* SPDX-License-Identifier: GPL-2.0-or-later */
/* outfile.c — see outfile.h. */
#include "base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/strbuf.h"

static void of_free(struct outfile *of)
{
	free(of->path);
	free(of->target);
	free(of->tmp);
	memset(of, 0, sizeof(*of));
}

bool of_kernel_path(const char *path)
{
	return !strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6);
}

int of_std_fd(const char *path)
{
	const char *n = NULL;
	char *end;

	if (!strcmp(path, "/dev/stdout"))
		return 1;
	if (!strcmp(path, "/dev/stderr"))
		return 2;
	if (!strncmp(path, "/dev/fd/", 8))
		n = path + 8;
	else if (!strncmp(path, "/proc/self/fd/", 14))
		n = path + 14;
	if (!n || *n < '0' || *n > '9')
		return -1;
	long v = strtol(n, &end, 10);
	return *end || v > 1000000 || fcntl((int)v, F_GETFD) < 0 ? -1 : (int)v;
}

static int open_mode(struct outfile *of, const char *path, bool shared)
{
	struct stat st, lst;
	bool exists = stat(path, &st) == 0;

	memset(of, 0, sizeof(*of));
	if ((exists && !S_ISREG(st.st_mode)) || of_kernel_path(path)) {
		/* /dev/stdout and /dev/fd/N: write through the descriptor we
		 * have (its offset and O_APPEND kept), not a reopened file */
		int sfd = of_std_fd(path), dfd = sfd >= 0 ? dup(sfd) : -1;
		of->f = dfd >= 0 ? fdopen(dfd, "w") : fopen(path, "w");
		if (!of->f && dfd >= 0)
			close(dfd);
		if (!of->f) {
			int err = errno;
			return pk_error(err, "cannot write '%s': %s", path, strerror(err));
		}
		of->path = xstrdup(path);
		return 0;
	}
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
		/* the link may lead anywhere (an attacker's choice in a shared
		 * directory): never write a file through it */
		return pk_error(EEXIST, "'%s' is a symbolic link%s; not writing through it "
				"(give the file's own path, or remove the link)", path,
				exists ? " to an existing file" : "");
	of->path = xstrdup(path);
	of->target = xstrdup(path);
	size_t l = strlen(path) + 16;
	of->tmp = xmalloc(l);
	snprintf(of->tmp, l, "%s.tmpXXXXXX", path);
	int fd = mkstemp(of->tmp);   /* 0600, like perf's files */
	if (fd >= 0 && exists && fchmod(fd, st.st_mode & 07777) != 0) {
		/* keep 0600: only stricter than the file it replaces */
	}
	if (fd >= 0 && !exists && shared) {
		mode_t um = umask(077);   /* read it back: umask cannot be asked alone */

		umask(um);
		if (fchmod(fd, 0666 & ~um) != 0) {
			/* keep 0600: only stricter */
		}
	}
	if (fd < 0 || !(of->f = fdopen(fd, "w"))) {
		int err = errno;
		if (fd >= 0) {
			close(fd);
			unlink(of->tmp);
		}
		of_free(of);
		return pk_error(err, "cannot write '%s': %s", path, strerror(err));
	}
	return 0;
}

int of_open(struct outfile *of, const char *path)
{
	return open_mode(of, path, false);
}

int of_open_shared(struct outfile *of, const char *path)
{
	return open_mode(of, path, true);
}

int of_commit(struct outfile *of)
{
	int err = 0;

	if (ferror(of->f) | fflush(of->f))
		err = errno ? errno : EIO;
	if (fclose(of->f) != 0 && !err)
		err = errno;
	of->f = NULL;
	if (!err && of->tmp && rename(of->tmp, of->target) != 0)
		err = errno;
	if (err) {
		if (of->tmp)
			unlink(of->tmp);
		err = pk_error(err, "cannot write '%s': %s", of->path, strerror(err));
	}
	of_free(of);
	return err;
}

void of_abort(struct outfile *of)
{
	if (of->f)
		fclose(of->f);
	if (of->tmp)
		unlink(of->tmp);
	of_free(of);
}
