/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * readfile — read_full()/write_full() done right, and a read benchmark.
 *
 *   readfile [-s SIZE] [-b BUFSIZE] [-c] [FILE]
 *
 * Writes FILE (default ./readfile.dat, removed afterwards) of SIZE bytes
 * (default 1 GiB; suffixes K, M, G), then reads it back with BUFSIZE-byte
 * reads (default 1 MiB) and prints the write and read throughput in MB/s
 * (1 MB = 10^6 bytes).  -c asks the kernel to drop the file's pages from the
 * page cache before reading (posix_fadvise DONTNEED after fsync), so the
 * read comes from the device rather than memory.
 *
 * read_full/write_full loop until every byte is done: read(2) and write(2)
 * may transfer fewer bytes than asked (pipes, sockets, signals, large
 * requests), and may fail with EINTR when a signal arrives first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Read up to len bytes; returns bytes read (< len only at end of file) or
 * -1 with errno set.  Retries on EINTR and short reads. */
ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break; /* end of file */
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/* Write all len bytes; returns len or -1 with errno set.  Retries on
 * EINTR and short writes. */
ssize_t write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);

	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end == 'i' || *end == 'B')
		end++;
	if (*end == 'B')
		end++;
	if (*end || v == 0)
		return -1;
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t size = 1ULL << 30, bufsize = 1 << 20;
	const char *path = "readfile.dat";
	int cold = 0, opt;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("usage: readfile [-s SIZE] [-b BUFSIZE] [-c] [FILE]\n"
		       "Writes FILE (default ./readfile.dat, removed afterwards) of SIZE bytes (1G;\n"
		       "suffixes K, M, G), reads it back in BUFSIZE reads (1M) and prints both\n"
		       "throughputs; -c drops its pages from the page cache before reading.\n");
		return 0;
	}
	while ((opt = getopt(argc, argv, "s:b:ch")) != -1) {
		switch (opt) {
		case 's':
			if (parse_size(optarg, &size)) {
				fprintf(stderr, "readfile: bad size '%s'\n", optarg);
				return 2;
			}
			break;
		case 'b':
			if (parse_size(optarg, &bufsize) || bufsize > (1ULL << 30)) {
				fprintf(stderr, "readfile: bad buffer size '%s'\n", optarg);
				return 2;
			}
			break;
		case 'c':
			cold = 1;
			break;
		default:
			fprintf(opt == 'h' ? stdout : stderr, "usage: readfile [-s SIZE] [-b BUFSIZE] [-c] [FILE]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind < argc)
		path = argv[optind];

	char *buf = malloc(bufsize);
	if (!buf) {
		perror("readfile: malloc");
		return 1;
	}
	for (uint64_t i = 0; i < bufsize; i++)
		buf[i] = (char)(i * 131 + 7);

	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
	if (fd < 0) {
		fprintf(stderr, "readfile: %s: %s\n", path, strerror(errno));
		return 1;
	}
	double t0 = now();
	for (uint64_t left = size; left;) {
		size_t n = left < bufsize ? (size_t)left : (size_t)bufsize;
		if (write_full(fd, buf, n) < 0) {
			fprintf(stderr, "readfile: write %s: %s\n", path, strerror(errno));
			unlink(path);
			return 1;
		}
		left -= n;
	}
	if (fsync(fd) < 0)
		fprintf(stderr, "readfile: fsync %s: %s\n", path, strerror(errno));
	double tw = now() - t0;
	if (cold)
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);

	if (lseek(fd, 0, SEEK_SET) < 0) {
		perror("readfile: lseek");
		return 1;
	}
	uint64_t total = 0, sum = 0;
	t0 = now();
	for (;;) {
		ssize_t n = read_full(fd, buf, bufsize);
		if (n < 0) {
			fprintf(stderr, "readfile: read %s: %s\n", path, strerror(errno));
			unlink(path);
			return 1;
		}
		if (n == 0)
			break;
		sum += (unsigned char)buf[n - 1];
		total += (uint64_t)n;
	}
	double tr = now() - t0;
	close(fd);
	unlink(path);
	if (total != size) {
		fprintf(stderr, "readfile: read %llu bytes, expected %llu\n",
			(unsigned long long)total, (unsigned long long)size);
		return 1;
	}
	printf("write: %llu bytes in %.3f s, %.1f MB/s\n", (unsigned long long)size, tw,
	       (double)size / tw / 1e6);
	printf("read:  %llu bytes in %.3f s, %.1f MB/s (%s cache, %llu-byte reads, check %llu)\n",
	       (unsigned long long)total, tr, (double)total / tr / 1e6, cold ? "cold" : "warm",
	       (unsigned long long)bufsize, (unsigned long long)sum);
	free(buf);
	return 0;
}
