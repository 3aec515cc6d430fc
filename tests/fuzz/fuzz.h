/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz.h — shared helpers of the libFuzzer harnesses in tests/fuzz/.
 *
 * Each harness defines LLVMFuzzerTestOneInput(); it is linked either with
 * libFuzzer (clang -fsanitize=fuzzer, `make fuzz`) or with replay.c, a
 * plain main() that feeds files to it (built with `make tests`, used by
 * tests/e2e/0990-fuzz-regressions.t).  A harness aborts on a finding of
 * its own (for example SVG that is not well-formed), so both drivers
 * report it as a crash.
 */
#ifndef PERFKIT_TESTS_FUZZ_H
#define PERFKIT_TESTS_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(cond, ...)                                                 \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "fuzz: %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			abort();                                               \
		}                                                              \
	} while (0)

/* A NUL-terminated copy of the input (the caller frees it). */
static inline char *fuzz_strdup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	for (size_t i = 0; i < size; i++)
		s[i] = (char)data[i];
	s[size] = 0;
	return s;
}
#endif
