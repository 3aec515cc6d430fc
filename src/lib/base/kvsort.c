/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/kvsort.h"

#include "base/strbuf.h"

#include <stdlib.h>
#include <string.h>

void pk_kv_sort(struct pk_kv *v, size_t n)
{
	struct pk_kv *tmp, *a = v, *b;
	uint64_t same = ~(uint64_t)0;

	if (n < 2)
		return;
	for (size_t i = 1; i < n; i++)
		same &= ~(v[i].k ^ v[0].k);
	if (same == ~(uint64_t)0)
		return;
	tmp = xmalloc_huge(n * sizeof(*tmp));
	b = tmp;
	for (int sh = 0; sh < 64; sh += 8) {
		size_t cnt[257] = { 0 };
		struct pk_kv *t;

		if (((same >> sh) & 0xff) == 0xff)
			continue;
		for (size_t i = 0; i < n; i++)
			cnt[((a[i].k >> sh) & 0xff) + 1]++;
		for (int d = 0; d < 256; d++)
			cnt[d + 1] += cnt[d];
		for (size_t i = 0; i < n; i++)
			b[cnt[(a[i].k >> sh) & 0xff]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	if (a != v)
		memcpy(v, a, n * sizeof(*v));
	free(tmp);
}
