/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hist.c — bcc-layout log2 and linear histograms (see hist.h). */
#include "bpfutil/hist.h"

#include <errno.h>

#include "base/error.h"

#include "bpf/log2.h"   /* src/bpf/log2.h, shared with the BPF programs */

_Static_assert(HIST_SLOTS == LOG2_SLOTS, "hist.h and log2.h disagree on the bucket count");

unsigned int hist_slot(uint64_t v)
{
	return log2_slot(v);
}

uint64_t hist_low(unsigned int i)
{
	return i == 0 ? 0 : (uint64_t)1 << i;
}

uint64_t hist_high(unsigned int i)
{
	return i >= 63 ? UINT64_MAX : ((uint64_t)1 << (i + 1)) - 1;
}

static void add_stars(struct strbuf *sb, uint64_t val, uint64_t val_max, int width)
{
	/* val <= val_max always; long double keeps counts near 2^64 exact enough */
	int stars = val_max ? (int)((long double)val * width / (long double)val_max) : 0;

	for (int i = 0; i < width; i++)
		sb_addch(sb, i < stars ? '*' : ' ');
}

/* The header both layouts share: narrow (10-digit columns, 40 stars) or
 * wide (20-digit columns, 20 stars). */
static void add_header(struct strbuf *sb, int wide, const char *val_type)
{
	sb_addf(sb, "%*s%-*s : count    distribution\n", wide ? 15 : 5, "",
		wide ? 29 : 19, val_type);
}

/* ": COUNT |stars|\n" after a row's range column. */
static void add_count(struct strbuf *sb, uint64_t val, uint64_t val_max, int stars)
{
	sb_addf(sb, " : %-8llu |", (unsigned long long)val);
	add_stars(sb, val, val_max, stars);
	sb_addstr(sb, "|\n");
}

void hist_render(struct strbuf *sb, const uint64_t *slots, unsigned int nslots,
		 const char *val_type)
{
	int idx_max = -1;
	uint64_t val_max = 0;

	if (nslots > HIST_SLOTS)
		nslots = HIST_SLOTS;
	for (unsigned int i = 0; i < nslots; i++) {
		if (slots[i])
			idx_max = (int)i;
		if (slots[i] > val_max)
			val_max = slots[i];
	}
	if (idx_max < 0)
		return;

	int wide = idx_max > 32;
	int width = wide ? 20 : 10, stars = wide ? 20 : 40;

	add_header(sb, wide, val_type);
	for (int i = 0; i <= idx_max; i++) {
		sb_addf(sb, "%*llu -> %-*llu", width, (unsigned long long)hist_low((unsigned)i),
			width, (unsigned long long)hist_high((unsigned)i));
		add_count(sb, slots[i], val_max, stars);
	}
}

int hist_render_linear(struct strbuf *sb, const uint64_t *slots, unsigned int nslots,
		       uint64_t step, const char *val_type)
{
	unsigned int first = nslots, last = 0;
	uint64_t val_max = 0;

	if (step == 0)
		return pk_error(EINVAL, "linear histogram: step 0 (expected a positive step)");
	if (nslots && (uint64_t)(nslots - 1) > UINT64_MAX / step)
		return pk_error(EINVAL, "linear histogram: %u buckets of %llu overflow 64 bits",
				nslots - 1, (unsigned long long)step);
	for (unsigned int i = 0; i < nslots; i++) {
		if (!slots[i])
			continue;
		if (first == nslots)
			first = i;
		last = i;
		if (slots[i] > val_max)
			val_max = slots[i];
	}
	if (first == nslots)
		return 0;

	/* the largest bound printed: the overflow's floor or the last row's top */
	uint64_t top = last == nslots - 1 ? (uint64_t)last * step : ((uint64_t)last + 1) * step - 1;
	int wide = top > 9999999999ULL;
	int width = wide ? 20 : 10, stars = wide ? 20 : 40;

	add_header(sb, wide, val_type);
	for (unsigned int i = first; i <= last; i++) {
		uint64_t lo = (uint64_t)i * step;

		if (i == nslots - 1)   /* same column width as "LO -> HI" */
			sb_addf(sb, "%*s %-*llu", width, ">=", width + 3, (unsigned long long)lo);
		else
			sb_addf(sb, "%*llu -> %-*llu", width, (unsigned long long)lo,
				width, (unsigned long long)(lo + step - 1));
		add_count(sb, slots[i], val_max, stars);
	}
	return 0;
}
