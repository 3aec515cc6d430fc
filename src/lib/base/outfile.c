/* SPDX-License-Identifier: GPL-2.0-or-later */
/* outfile.c — see outfile.h. */
#include "base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/strbuf.h"

/* The temporary files being written, for of_unlink_on_signals()'s handler
 * (fixed slots: read in a signal handler; a path that does not fit, or a
 * ninth file, is not tracked). */
#define OF_LIVE 8
static char live_tmp[OF_LIVE][PATH_MAX];
static volatile sig_atomic_t live_used[OF_LIVE];

static void live_add(const char *tmp)
{
	size_t n = strlen(tmp) + 1;

	for (int i = 0; i < OF_LIVE && n <= PATH_MAX; i++) {
		if (live_used[i])
			continue;
		memcpy(live_tmp[i], tmp, n);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		live_used[i] = 1;
		return;
	}
}

static void live_del(const char *tmp)
{
	for (int i = 0; i < OF_LIVE; i++)
		if (live_used[i] && !strcmp(live_tmp[i], tmp))
			live_used[i] = 0;
}

static void on_fatal(int sig)
{
	for (int i = 0; i < OF_LIVE; i++)
		if (live_used[i])
			unlink(live_tmp[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

void of_unlink_on_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old, sa = { .sa_handler = on_fatal };

		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(sigs[i], &sa, NULL);
	}
}

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
	live_add(of->tmp);
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
	if (of->tmp)
		live_del(of->tmp);
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
	if (of->tmp) {
		unlink(of->tmp);
		live_del(of->tmp);
	}
	of_free(of);
}
