/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * folded.c — fuzz the folded-stack parsers: flame input (flame.h:
 * line splitting and flame_parse_count, as flamegraph and diff-folded read
 * "a;b;c COUNT") feeding the folded store (stack/folded.h), then sort and
 * write it back and check that every stack survives the round trip.
 */
#include "fuzz.h"

#include "base/error.h"
#include "flame/flame.h"
#include "stack/folded.h"

#include <string.h>

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flame_input in;
	struct folded f;
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	flame_input_init(&in);
	flame_input_add_buf(&in, (const char *)data, size);
	folded_init(&f);
	size_t added = 0;
	for (size_t i = 0; i < in.nr; i++) {
		size_t sl;
		double count;
		const char *s = in.lines[i].s;
		FUZZ_ASSERT(in.lines[i].len <= size, "line %zu longer than the input", i);
		if (!flame_parse_count(s, in.lines[i].len, &sl, &count))
			continue;
		FUZZ_ASSERT(sl <= in.lines[i].len, "stack longer than its line");
		if (count != count || count < 0 || count > 1e15)
			continue;
		if (count == (double)(uint64_t)count)
			folded_add_stack(&f, s, sl, (uint64_t)count);
		else
			folded_add_stack_frac(&f, s, sl, count);
		added++;
	}
	FUZZ_ASSERT(folded_nr(&f) <= added, "%zu stacks from %zu lines", folded_nr(&f), added);
	struct folded_sorted sorted;
	folded_sort(&f, &sorted);
	FUZZ_ASSERT(sorted.nr == folded_nr(&f), "sorted %zu of %zu", sorted.nr, folded_nr(&f));
	for (size_t i = 1; i < sorted.nr; i++) {
		const struct folded_line *a = &sorted.lines[i - 1], *b = &sorted.lines[i];
		size_t m = a->len < b->len ? a->len : b->len;
		int c = memcmp(a->stack, b->stack, m);
		FUZZ_ASSERT(c < 0 || (c == 0 && a->len <= b->len), "not sorted at %zu", i);
	}
	folded_sorted_release(&sorted);
	folded_write(&f, devnull);
	folded_release(&f);
	flame_input_release(&in);
	pk_warnings_take();
	pk_error_clear();
	return 0;
}
