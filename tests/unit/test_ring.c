/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the perf mmap ring reader (src/lib/event/ring.h): records
 * that wrap around the end of the data area, positions near 2^64, and a
 * real kernel ring of one data page that wraps many times (COMM records
 * from prctl(PR_SET_NAME), drained the way record and top drain). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "event/ring.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A fake mapping: a control page, then data_size bytes of data. */
struct fake {
	uint8_t *base;
	size_t map_len;
	uint64_t mask;
	uint64_t head;            /* writer position */
};

static void fake_init(struct fake *f, size_t page, size_t data_size)
{
	f->map_len = page + data_size;
	f->base = calloc(1, f->map_len);
	assert_non_null(f->base);
	f->mask = data_size - 1;
	f->head = 0;
}

/* Write len bytes at the writer position, wrapping as the kernel does. */
static void fake_write(struct fake *f, const void *src, size_t len)
{
	uint8_t *data = f->base + (f->map_len - (f->mask + 1));

	for (size_t i = 0; i < len; i++)
		data[(f->head + i) & f->mask] = ((const uint8_t *)src)[i];
	f->head += len;
	struct perf_event_mmap_page *pg = (void *)f->base;
	__atomic_store_n(&pg->data_head, f->head, __ATOMIC_RELEASE);
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + 1);
}

/* Every split of a record across the end of the data area: the copy is the
 * record, byte for byte, and nothing past it is touched. */
static void test_copy_wraps(void **state)
{
	struct fake f;
	uint8_t rec[48], out[64];

	(void)state;
	fake_init(&f, 4096, 128);
	for (uint64_t start = 0; start < 3 * 128; start += 8) {
		fill(rec, sizeof(rec), (unsigned)start);
		f.head = start;
		fake_write(&f, rec, sizeof(rec));
		memset(out, 0xEE, sizeof(out));
		perf_ring_copy(f.base, f.map_len, f.mask, start, out, sizeof(rec));
		assert_memory_equal(out, rec, sizeof(rec));
		for (size_t i = sizeof(rec); i < sizeof(out); i++)
			assert_int_equal(out[i], 0xEE);
		/* a part of it, starting inside, as record reads a LOST count */
		perf_ring_copy(f.base, f.map_len, f.mask, start + 8, out, 16);
		assert_memory_equal(out, rec + 8, 16);
	}
	/* exactly to the end: one piece; the whole data area: one piece */
	fill(rec, 32, 99);
	f.head = 96;
	fake_write(&f, rec, 32);
	perf_ring_copy(f.base, f.map_len, f.mask, 96, out, 32);
	assert_memory_equal(out, rec, 32);
	free(f.base);
}

/* Positions are free-running 64-bit counters: near 2^64 and across it the
 * offsets still wrap on the mask. */
static void test_positions_near_2_64(void **state)
{
	struct fake f;
	uint8_t rec[40], out[40];

	(void)state;
	fake_init(&f, 4096, 256);
	uint64_t pos = UINT64_MAX - 100;
	for (int i = 0; i < 20; i++) {
		fill(rec, sizeof(rec), (unsigned)i);
		f.head = pos;
		fake_write(&f, rec, sizeof(rec));
		perf_ring_copy(f.base, f.map_len, f.mask, pos, out, sizeof(rec));
		assert_memory_equal(out, rec, sizeof(rec));
		pos += sizeof(rec);          /* crosses 2^64 on the way */
	}
	free(f.base);
}

/* A writer and a reader: variable-size records with a header, drained
 * record by record (header first, then the whole record), many laps. */
static void test_drain_laps(void **state)
{
	struct fake f;
	uint64_t tail = 0, written = 0, read = 0;

	(void)state;
	fake_init(&f, 4096, 512);
	for (int round = 0; round < 1000; round++) {
		/* write until less than one big record fits */
		while (f.head - tail + 64 <= f.mask + 1) {
			uint8_t rec[64];
			size_t len = 8 + 8 * (written % 7);   /* 8..56 bytes */
			struct perf_event_header h = { PERF_RECORD_MAX + 1, 0, (uint16_t)len };

			memcpy(rec, &h, sizeof(h));
			fill(rec + 8, len - 8, (unsigned)written);
			fake_write(&f, rec, len);
			written++;
		}
		uint64_t head = perf_ring_head(f.base);
		assert_true(head == f.head);
		while (tail < head) {
			struct perf_event_header h;
			uint8_t rec[64], want[64];

			perf_ring_copy(f.base, f.map_len, f.mask, tail, &h, sizeof(h));
			assert_int_equal(h.size, 8 + 8 * (read % 7));
			perf_ring_copy(f.base, f.map_len, f.mask, tail, rec, h.size);
			fill(want, h.size - 8u, (unsigned)read);
			assert_memory_equal(rec + 8, want, h.size - 8u);
			tail += h.size;
			read++;
		}
		perf_ring_release(f.base, tail);
		struct perf_event_mmap_page *pg = (void *)f.base;
		assert_true(pg->data_tail == tail);
	}
	assert_true(read == written && written > 10000);
	assert_true(f.head > 100 * (f.mask + 1));       /* many laps */
	free(f.base);
}

/* The kernel's own ring: one data page, COMM records (24 or 32 bytes with
 * this attr) from ~3000 renames, drained every few renames so nothing is
 * lost; every name comes back in order, whole, across ~20 laps. */
static void test_kernel_ring(void **state)
{
	struct perf_event_attr attr;
	long page = sysconf(_SC_PAGESIZE);
	char old[17] = { 0 };

	(void)state;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.comm = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		printf("# skip: perf_event_open: %s\n", strerror(errno));
		skip();
	}
	size_t map_len = (size_t)page * 2;
	uint8_t *base = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(base != MAP_FAILED);
	uint64_t mask = (uint64_t)page - 1, tail = 0;
	int sent = 0, got = 0, straddled = 0;

	prctl(PR_GET_NAME, old);
	for (int burst = 0; burst < 300; burst++) {
		for (int k = 0; k < 10; k++) {
			char name[32];

			/* 1..14 characters (the kernel keeps 15): records of two sizes */
			snprintf(name, sizeof(name), "%.*s%d", (sent % 6) * 2, "pkpkpkpkpk", sent);
			prctl(PR_SET_NAME, name);
			sent++;
		}
		uint64_t head = perf_ring_head(base);
		while (tail < head) {
			struct perf_event_header h;
			uint8_t rec[64];

			perf_ring_copy(base, map_len, mask, tail, &h, sizeof(h));
			assert_true(h.size >= sizeof(h) && h.size <= sizeof(rec));
			if ((tail & mask) + h.size > mask + 1)
				straddled++;
			perf_ring_copy(base, map_len, mask, tail, rec, h.size);
			assert_int_not_equal(h.type, PERF_RECORD_LOST);
			if (h.type == PERF_RECORD_COMM) {
				char want[32];

				snprintf(want, sizeof(want), "%.*s%d", (got % 6) * 2, "pkpkpkpkpk", got);
				assert_string_equal((const char *)rec + 16, want);
				got++;
			}
			tail += h.size;
		}
		perf_ring_release(base, tail);
	}
	prctl(PR_SET_NAME, old);
	munmap(base, map_len);
	close(fd);
	assert_int_equal(got, sent);
	assert_true(tail > 10 * (mask + 1));     /* the ring wrapped many times */
	assert_true(straddled > 0);              /* and records were split */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_wraps),
		cmocka_unit_test(test_positions_near_2_64),
		cmocka_unit_test(test_drain_laps),
		cmocka_unit_test(test_kernel_ring),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
