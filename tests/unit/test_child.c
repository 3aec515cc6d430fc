/* SPDX-License-Identifier: GPL-2.0-or-later */
/* base/child: a command held before its exec, released, aborted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/child.h"

static int wait_status(pid_t pid)
{
	int st = 0;

	while (waitpid(pid, &st, 0) < 0)
		assert_int_equal(errno, EINTR);
	return st;
}

/* The command runs only once released. */
static void test_held_until_released(void **state)
{
	char dir[] = "/tmp/pk-child.XXXXXX", path[64];
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ran", dir);
	char *argv[] = { "touch", path, NULL };
	struct pk_child c = PK_CHILD_INIT;
	assert_int_equal(pk_child_fork(&c, argv, NULL, 0), 0);
	assert_true(c.pid > 0);
	usleep(50 * 1000);
	assert_int_equal(stat(path, &st), -1);   /* held: not run yet */
	assert_int_equal(pk_child_release(&c), 0);
	int s = wait_status(c.pid);
	assert_true(WIFEXITED(s));
	assert_int_equal(WEXITSTATUS(s), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(c.go_fd, -1);
	assert_int_equal(c.err_fd, -1);
	unlink(path);
	rmdir(dir);
}

/* A failed execvp comes back as its errno; the child exits 127. */
static void test_exec_failure(void **state)
{
	char *argv[] = { "/nonexistent/perfkit-no-such-program", NULL };
	struct pk_child c = PK_CHILD_INIT;

	(void)state;
	assert_int_equal(pk_child_fork(&c, argv, NULL, 0), 0);
	assert_int_equal(pk_child_release(&c), ENOENT);
	int s = wait_status(c.pid);
	assert_true(WIFEXITED(s));
	assert_int_equal(WEXITSTATUS(s), 127);
}

/* Aborting kills and reaps a held child; releasing a dead one is EPIPE. */
static void test_abort(void **state)
{
	char *argv[] = { "true", NULL };
	struct pk_child c = PK_CHILD_INIT, d = PK_CHILD_INIT;

	(void)state;
	assert_int_equal(pk_child_fork(&c, argv, NULL, 0), 0);
	pid_t pid = c.pid;
	pk_child_abort(&c);
	assert_int_equal(c.pid, -1);
	assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);   /* already reaped */
	assert_int_equal(errno, ECHILD);

	assert_int_equal(pk_child_fork(&d, argv, NULL, 0), 0);
	kill(d.pid, SIGKILL);
	int s = wait_status(d.pid);
	assert_true(WIFSIGNALED(s));
	assert_int_equal(pk_child_release(&d), EPIPE);   /* and no SIGPIPE */
}

/* PK_CHILD_QUIET: the command's output goes to /dev/null. */
static void test_quiet(void **state)
{
	int p[2];
	char buf[16];

	(void)state;
	assert_int_equal(pipe(p), 0);
	fflush(stdout);
	int saved = dup(1);
	dup2(p[1], 1);   /* the child would inherit this stdout */
	char *argv[] = { "echo", "loud", NULL };
	struct pk_child c = PK_CHILD_INIT;
	int err = pk_child_fork(&c, argv, NULL, PK_CHILD_QUIET);
	dup2(saved, 1);
	close(saved);
	close(p[1]);
	assert_int_equal(err, 0);
	assert_int_equal(pk_child_release(&c), 0);
	wait_status(c.pid);
	assert_int_equal(read(p[0], buf, sizeof(buf)), 0);   /* nothing written */
	close(p[0]);
}

/* pk_child_fork returns once the child waits for its release: its
 * stdout is /dev/null already (a clock started then counts the command,
 * not the child's own start). */
static void test_ready_when_forked(void **state)
{
	char *argv[] = { "true", NULL };
	char fd1[64], target[64] = "";
	struct pk_child c = PK_CHILD_INIT;

	(void)state;
	for (int i = 0; i < 20; i++) {
		assert_int_equal(pk_child_fork(&c, argv, NULL, PK_CHILD_QUIET), 0);
		snprintf(fd1, sizeof(fd1), "/proc/%d/fd/1", (int)c.pid);
		ssize_t n = readlink(fd1, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = 0;
		assert_string_equal(target, "/dev/null");
		assert_int_equal(pk_child_release(&c), 0);
		assert_int_equal(WEXITSTATUS(wait_status(c.pid)), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_held_until_released),
		cmocka_unit_test(test_exec_failure),
		cmocka_unit_test(test_abort),
		cmocka_unit_test(test_quiet),
		cmocka_unit_test(test_ready_when_forked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
