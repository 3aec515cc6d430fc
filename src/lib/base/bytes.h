/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bytes.h — unaligned loads of host-order integers from a byte buffer (a
 * perf.data record, a feature section): rd32(p) and rd64(p) read 4 and 8
 * bytes at p, which need not be aligned.  The caller has checked that the
 * bytes are inside its buffer; nothing here can fail.
 */
#ifndef PERFKIT_BASE_BYTES_H
#define PERFKIT_BASE_BYTES_H

#include <stdint.h>
#include <string.h>

static inline uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

#endif
