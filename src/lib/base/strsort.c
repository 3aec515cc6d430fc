/* SPDX-License-Identifier: GPL-2.0-or-later */
/* strsort.c — strings in strcmp()'s order by 8-byte digits (strsort.h). */
#include "base/strsort.h"

#include "base/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* 12 bytes, packed: two arrays of them are the sort's memory (report's
 * 843 k symbol texts: 20 MB, not 27) */
struct __attribute__((packed)) digit {
	uint64_t k;                   /* bytes d..d+7, big-endian, 0 after the end */
	uint32_t i;                   /* the record's index */
};

_Static_assert(sizeof(struct digit) == 12, "digits packed");

#define SMALL 24

/* The 8 bytes of s from d (s is at least d bytes long, not ended before). */
static uint64_t digit_at(const char *s, size_t d)
{
	uint64_t k = 0;

	for (int b = 0; b < 8; b++) {
		unsigned char c = (unsigned char)s[d + b];

		if (!c)
			break;
		k |= (uint64_t)c << (56 - 8 * b);
	}
	return k;
}

static void insertion(struct digit *v, size_t n, const struct pk_strrec *r, size_t d)
{
	for (size_t i = 1; i < n; i++) {
		struct digit x = v[i];
		size_t j = i;

		while (j > 0 && strcmp(r[v[j - 1].i].s + d, r[x.i].s + d) > 0) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

/* Order v by k: byte-wise LSD radix sort, passes of one common byte skipped. */
static void radix(struct digit *v, struct digit *tmp, size_t n)
{
	size_t cnt[8][256];

	memset(cnt, 0, sizeof(cnt));
	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 8; b++)
			cnt[b][(v[i].k >> (8 * b)) & 0xff]++;
	for (int b = 0; b < 8; b++) {
		size_t pos = 0;
		int sh = 8 * b;

		if (cnt[b][(v[0].k >> sh) & 0xff] == n)
			continue;
		for (int c = 0; c < 256; c++) {
			size_t x = cnt[b][c];

			cnt[b][c] = pos;
			pos += x;
		}
		for (size_t i = 0; i < n; i++)
			tmp[cnt[b][(v[i].k >> sh) & 0xff]++] = v[i];
		memcpy(v, tmp, n * sizeof(*v));
	}
}

static void msd(struct digit *v, struct digit *tmp, size_t n, const struct pk_strrec *r, size_t d)
{
	if (n < SMALL) {
		insertion(v, n, r, d);
		return;
	}
	for (size_t i = 0; i < n; i++)
		v[i].k = digit_at(r[v[i].i].s, d);
	radix(v, tmp, n);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && v[j].k == v[i].k; j++)
			;
		if (j - i > 1 && (v[i].k & 0xff))   /* equal so far, not ended */
			msd(v + i, tmp, j - i, r, d + 8);
	}
}

void pk_strsort(struct pk_strrec *v, size_t n)
{
	struct digit *d, *tmp;

	if (n < 2)
		return;
	d = xmalloc(n * sizeof(*d));
	tmp = xmalloc(n * sizeof(*tmp));
	for (size_t i = 0; i < n; i++)
		d[i].i = (uint32_t)i;
	msd(d, tmp, n, v, 0);   /* v is only read while its order is found */
	free(tmp);
	/* v[i] = old v[d[i].i], in place: each cycle of the permutation
	 * followed once, d[].k marking the places filled (no copy of v) */
	for (size_t i = 0; i < n; i++)
		d[i].k = 0;
	for (size_t i = 0; i < n; i++) {
		struct pk_strrec first;
		size_t j = i;

		if (d[i].k)
			continue;
		first = v[i];
		for (;;) {
			size_t src = d[j].i;

			d[j].k = 1;
			if (src == i) {
				v[j] = first;
				break;
			}
			v[j] = v[src];
			j = src;
		}
	}
	free(d);
}
