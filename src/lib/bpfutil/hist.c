/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hist.c — bcc-layout log2 histograms (see hist.h). */
#include "bpfutil/hist.h"

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

	sb_addf(sb, "%*s%-*s : count    distribution\n", wide ? 15 : 5, "",
		wide ? 29 : 19, val_type);
	for (int i = 0; i <= idx_max; i++) {
		sb_addf(sb, "%*llu -> %-*llu : %-8llu |", width, (unsigned long long)hist_low((unsigned)i),
			width, (unsigned long long)hist_high((unsigned)i), (unsigned long long)slots[i]);
		add_stars(sb, slots[i], val_max, stars);
		sb_addstr(sb, "|\n");
	}
}
