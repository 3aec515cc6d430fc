/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/child.h"
#include "base/error.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int pk_child_fork(struct pk_child *c, char *const argv[], const sigset_t *mask, int flags)
{
	int go[2], er[2];

	c->pid = -1;
	c->go_fd = c->err_fd = -1;
	if (pipe2(go, O_CLOEXEC) < 0)
		return pk_error(errno, "pipe: %s", strerror(errno));
	if (pipe2(er, O_CLOEXEC) < 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		return pk_error(e, "pipe: %s", strerror(e));
	}
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		close(er[0]);
		close(er[1]);
		return pk_error(e, "fork: %s", strerror(e));
	}
	if (pid == 0) {
		char b;
		ssize_t n;

		close(go[1]);
		close(er[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);   /* an ignored one would stay so across exec */
		if (mask)
			sigprocmask(SIG_SETMASK, mask, NULL);
		if (flags & PK_CHILD_QUIET) {
			int nul = open("/dev/null", O_RDWR);
			if (nul >= 0) {
				dup2(nul, 0);
				dup2(nul, 1);
				dup2(nul, 2);
				if (nul > 2)
					close(nul);
			}
			if ((flags & PK_CHILD_STDOUT_FD) && c->out_fd >= 0)
				dup2(c->out_fd, 1);
		} else if (flags & PK_CHILD_STDOUT_TO_STDERR) {
			dup2(2, 1);
		}
		if (flags & PK_CHILD_STDIN_NULL) {
			int nul = open("/dev/null", O_RDONLY);
			if (nul > 0) {
				dup2(nul, 0);
				close(nul);
			}
		}
		/* ready: the parent's clock starts after the child's own start
		 * (its copy-on-write faults, these dup2s), as perf's child
		 * waits long before perf stat takes its time */
		b = 'r';
		if (write(er[1], &b, 1) != 1)
			_exit(127);
		do
			n = read(go[0], &b, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(127);   /* the parent gave up */
		execvp(argv[0], argv);
		int e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	c->pid = pid;
	c->go_fd = go[1];
	c->err_fd = er[0];
	/* until the child waits for its release (its "ready" byte; EOF: it
	 * died first, and pk_child_release says so) */
	char r;
	ssize_t n;

	do
		n = read(c->err_fd, &r, 1);
	while (n < 0 && errno == EINTR);
	return 0;
}

int pk_child_release(struct pk_child *c)
{
	int e = 0;
	ssize_t n;

	if (c->go_fd < 0)
		return EPIPE;
	/* a child killed while held: EPIPE rather than SIGPIPE */
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);
	n = write(c->go_fd, "g", 1);
	sigaction(SIGPIPE, &old, NULL);
	close_fd(&c->go_fd);
	if (n != 1) {
		close_fd(&c->err_fd);
		return EPIPE;
	}
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close_fd(&c->err_fd);
	return n == (ssize_t)sizeof(e) ? e : 0;
}

void pk_child_abort(struct pk_child *c)
{
	close_fd(&c->go_fd);
	close_fd(&c->err_fd);
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	c->pid = -1;
}

int pk_exit_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}
