/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * child.h — a command forked and held just before its execvp, so that the
 * caller can attach perf events to its pid (perf_event_open(2) with
 * enable_on_exec, as `perf stat` and `perf record` do) and only then let it
 * run.  Used by record, stat and bench.
 *
 * pk_child_fork(c, argv, mask, flags): fork; the child closes the parent's
 * pipe ends, resets SIGINT, SIGTERM and SIGCHLD to their defaults, sets the
 * signal mask to *mask when mask is given, with PK_CHILD_QUIET puts
 * /dev/null on its stdin, stdout and stderr (with PK_CHILD_STDOUT_TO_STDERR
 * its stdout on our stderr instead; with PK_CHILD_STDOUT_FD too, c->out_fd,
 * set by the caller, as its stdout), and then blocks until
 * released; pk_child_fork returns once it does (a byte on the error pipe
 * says so), so that a clock started before the release counts the
 * command, not the child's own start.  Returns 0 with c->pid set, or
 * -errno (pipe2 or fork failed; message in pk_errmsg()).
 *
 * pk_child_release(c): let the child execvp(argv[0], argv).  Returns 0 once
 * the exec has happened (the close-on-exec error pipe reached EOF), or the
 * positive errno of a failed execvp (ENOENT for a missing program, EACCES…)
 * — the child then exits with status 127 and the caller still reaps it.
 * Returns EPIPE when the child was already gone (killed while held).
 *
 * pk_child_abort(c): kill (SIGKILL) and reap a child that was never
 * released, and close its pipes.  Safe on a child that was released.
 *
 * A child whose parent exits or closes c->go_fd without releasing it exits
 * with status 127 without running anything.
 */
#ifndef PERFKIT_BASE_CHILD_H
#define PERFKIT_BASE_CHILD_H

#include <signal.h>
#include <sys/types.h>

struct pk_child {
	pid_t pid;        /* -1 before pk_child_fork */
	int go_fd;        /* write end: one byte releases the child (-1 once used) */
	int err_fd;       /* read end: the errno of a failed execvp (-1 once used) */
	int out_fd;       /* PK_CHILD_STDOUT_FD: the child's stdout (set by the caller) */
};

#define PK_CHILD_INIT { .pid = -1, .go_fd = -1, .err_fd = -1, .out_fd = -1 }

enum {
	PK_CHILD_QUIET = 1,   /* stdin, stdout and stderr on /dev/null */
	PK_CHILD_STDOUT_TO_STDERR = 2,   /* its stdout is our stderr (record
					  * writing its data to our stdout) */
	PK_CHILD_STDOUT_FD = 4,          /* with PK_CHILD_QUIET: c->out_fd is its
					  * stdout (bench --output FILE) */
	PK_CHILD_STDIN_NULL = 8,         /* stdin on /dev/null (bench, as
					  * hyperfine: a run never reads ours) */
};

int pk_child_fork(struct pk_child *c, char *const argv[], const sigset_t *mask, int flags);
int pk_child_release(struct pk_child *c);
void pk_child_abort(struct pk_child *c);

/* The exit status a shell shows for a waitpid() status: the program's own,
 * 128+N when signal N killed it, 1 otherwise (stopped). */
int pk_exit_status(int wstatus);

#endif
