/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * memfile.h — hand fuzz input to a reader that takes a path: the bytes go
 * into one memfd (reused between runs) opened as /proc/self/fd/N.
 */
#ifndef PERFKIT_TESTS_FUZZ_MEMFILE_H
#define PERFKIT_TESTS_FUZZ_MEMFILE_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static inline const char *fuzz_memfile(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("fuzz-input", MFD_CLOEXEC);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
		perror("memfd write");
		abort();
	}
	return path;
}
#endif
