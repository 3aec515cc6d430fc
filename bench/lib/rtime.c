// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/lib/rtime.c - rtime OUT CMD [ARG...]: run CMD and write to OUT one
 * line "USER SYS WALL MAXRSS_KB", the fields of GNU time's -f '%U %S %e %M',
 * with the times in seconds to the microsecond (GNU time prints hundredths
 * of a second: 0.00 for a command of 5 ms, and a ratio against it divides
 * by zero).  The CPU times and peak RSS are wait4(2)'s rusage of CMD; wall
 * time is CLOCK_MONOTONIC around fork and wait.  This program is small, so
 * the RSS its fork starts CMD with is small too, as with GNU time.  Exits
 * with CMD's status (127: CMD could not be run; 128+N: killed by signal N).
 * Built by the benchmarks that use it: cc -O2 -o rtime bench/lib/rtime.c
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: rtime OUT CMD [ARG...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "rtime: fork: %s\n", strerror(errno));
		return 127;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "rtime: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "rtime: wait4: %s\n", strerror(errno));
			return 127;
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	FILE *f = fopen(argv[1], "w");
	if (!f) {
		fprintf(stderr, "rtime: %s: %s\n", argv[1], strerror(errno));
		return 127;
	}
	fprintf(f, "%ld.%06ld %ld.%06ld %.6f %ld\n", (long)ru.ru_utime.tv_sec,
		(long)ru.ru_utime.tv_usec, (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec,
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		ru.ru_maxrss);
	if (fclose(f) != 0)
		return 127;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
