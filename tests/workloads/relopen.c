/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * relopen — opens files by relative paths, the ways opensnoop -F must
 * resolve, then stays alive a moment:
 *   relopen DIR   chdir(DIR); open("f.txt"); open("../up.txt");
 *                 dfd = open("d"); openat(dfd, "sub/f.txt"); close(dfd)
 *                 (the fd is gone before a tracer reads the event);
 *                 a thread that opens "./thr.txt" and ends;
 *                 open("nope.txt") (fails with ENOENT); sleeps 400 ms.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static void open_close(int dfd, const char *path)
{
	int fd = openat(dfd, path, O_RDONLY);

	if (fd >= 0)
		close(fd);
}

static void *thread_main(void *arg)
{
	(void)arg;
	open_close(AT_FDCWD, "./thr.txt");
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 400 * 1000 * 1000 };
	pthread_t th;
	int dfd;

	if (argc != 2) {
		fprintf(stderr, "usage: relopen DIR\n");
		return 2;
	}
	if (chdir(argv[1])) {
		perror(argv[1]);
		return 1;
	}
	open_close(AT_FDCWD, "f.txt");
	open_close(AT_FDCWD, "../up.txt");
	dfd = open("d", O_RDONLY | O_DIRECTORY);
	if (dfd >= 0) {
		open_close(dfd, "sub/f.txt");
		close(dfd);
	}
	if (pthread_create(&th, NULL, thread_main, NULL) == 0)
		pthread_join(th, NULL);
	open_close(AT_FDCWD, "nope.txt");
	nanosleep(&ts, NULL);
	return 0;
}
