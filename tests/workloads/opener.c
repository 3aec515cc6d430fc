/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opener — opens files in the ways opensnoop's tests look for, then stays
 * alive a moment so relative paths can still be resolved through /proc:
 *   opener MARKER   open(MARKER); openat(fd of /etc, "passwd");
 *                   open(MARKER ".missing") (fails with ENOENT);
 *                   sleeps 400 ms.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char missing[4096];
	struct timespec ts = { 0, 400 * 1000 * 1000 };
	int fd, dfd;

	if (argc != 2) {
		fprintf(stderr, "usage: opener MARKER\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd >= 0)
		close(fd);
	dfd = open("/etc", O_RDONLY | O_DIRECTORY);
	if (dfd >= 0) {
		fd = openat(dfd, "passwd", O_RDONLY);
		if (fd >= 0)
			close(fd);
	}
	snprintf(missing, sizeof(missing), "%s.missing", argv[1]);
	fd = open(missing, O_RDONLY);
	if (fd >= 0)
		close(fd);
	nanosleep(&ts, NULL);
	if (dfd >= 0)
		close(dfd);
	return 0;
}
