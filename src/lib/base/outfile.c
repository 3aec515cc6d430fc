/* SPDX-License-Identifier: GPL-2.0-or-later */
/* outfile.c — see outfile.h. */
#include "base/outfile.h"

#include <errno.h>
#include <limits.h>
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

int of_open(struct outfile *of, const char *path)
{
	struct stat st;

	memset(of, 0, sizeof(*of));
	of->path = xstrdup(path);
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		of->f = fopen(path, "w");
		if (!of->f) {
			int err = errno;
			of_free(of);
			return pk_error(err, "cannot write '%s': %s", path, strerror(err));
		}
		return 0;
	}
	char *real = realpath(path, NULL);     /* a link to an existing file */
	of->target = real ? real : xstrdup(path);
	size_t l = strlen(of->target) + 16;
	of->tmp = xmalloc(l);
	snprintf(of->tmp, l, "%s.tmpXXXXXX", of->target);
	int fd = mkstemp(of->tmp);
	if (fd >= 0) {
		/* mkstemp makes 0600; give the file the mode open(2) would */
		mode_t mask = umask(0);
		umask(mask);
		if (fchmod(fd, 0666 & ~mask) != 0) {
			/* keep 0600: still correct, only stricter */
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
