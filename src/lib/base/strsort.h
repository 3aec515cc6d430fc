/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * strsort.h — sorting many NUL-terminated strings in strcmp()'s order
 * (bytes compared as unsigned char), faster than qsort() with strcmp when
 * they are many and share long prefixes (report's row texts: hundreds of
 * thousands of "[.] 0x00000000…" addresses).
 *
 * How: a most-significant-digit radix sort whose digits are 8 bytes of
 * the strings, read once per record and level into the record, each level
 * ordered by an LSD byte radix sort (passes where every record has the
 * same byte skipped); runs still equal go one level deeper, short ones
 * are finished by insertion sort with strcmp.  Equal strings end in any
 * order (not stable).
 *
 * Memory: 24 bytes a record (each record's digit and index, and the
 * radix passes' buffer); the records are put in order in place.  Errors:
 * allocation failure aborts (xmalloc); nothing else fails.
 */
#ifndef PERFKIT_BASE_STRSORT_H
#define PERFKIT_BASE_STRSORT_H

#include <stddef.h>
#include <stdint.h>

struct pk_strrec {
	const char *s;
	uint32_t id;                  /* the caller's: moves with s */
};

void pk_strsort(struct pk_strrec *v, size_t n);

#endif
