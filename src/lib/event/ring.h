/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ring.h — reading a perf_event mmap ring buffer (perf_event_open(2),
 * "MMAP layout"): one control page (struct perf_event_mmap_page) followed
 * by 2^n data pages.  The kernel advances data_head; the reader copies
 * records from data_tail up to data_head and then publishes the new
 * data_tail.  A record may wrap around the end of the data area.
 *
 * Shared by record and top.  base/map_len are the whole mapping, mask is
 * the data size - 1 (bytes).  No allocation, no errors.
 */
#ifndef PERFKIT_EVENT_RING_H
#define PERFKIT_EVENT_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Copy len bytes at ring position pos (any 64-bit position; wraps). */
static inline void perf_ring_copy(const uint8_t *base, size_t map_len, uint64_t mask,
				  uint64_t pos, void *dst, size_t len)
{
	const uint8_t *data = base + (map_len - (mask + 1));
	uint64_t off = pos & mask;
	size_t first = len;

	if (off + len > mask + 1)
		first = (size_t)(mask + 1 - off);
	memcpy(dst, data + off, first);
	if (first < len)
		memcpy((uint8_t *)dst + first, data, len - first);
}

/* data_head, read with acquire ordering (records up to it are visible). */
static inline uint64_t perf_ring_head(const uint8_t *base)
{
	const struct perf_event_mmap_page *pg = (const void *)base;

	return __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
}

/* Hand the space up to pos back to the kernel (release ordering). */
static inline void perf_ring_release(uint8_t *base, uint64_t pos)
{
	struct perf_event_mmap_page *pg = (void *)base;

	__atomic_store_n(&pg->data_tail, pos, __ATOMIC_RELEASE);
}

#endif
