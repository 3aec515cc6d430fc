/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "stack/folded.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "base/strsort.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void folded_init(struct folded *f)
{
	memset(f, 0, sizeof(*f));
	bm_init(&f->frames);
	bm_init(&f->stacks);
}

void folded_release(struct folded *f)
{
	bm_release(&f->frames);
	bm_release(&f->stacks);
	free(f->frac);
	memset(f, 0, sizeof(*f));
}

uint32_t folded_frame_id(struct folded *f, const char *s, size_t len)
{
	return (uint32_t)bm_upsert(&f->frames, s, len, NULL);
}

const char *folded_frame_name(const struct folded *f, uint32_t id, size_t *len)
{
	const struct bm_entry *e = &f->frames.entries[id];

	if (len)
		*len = e->len;
	return e->key;
}

static size_t stack_entry(struct folded *f, const uint32_t *ids, size_t n)
{
	static const uint32_t none;

	return bm_upsert(&f->stacks, n ? (const void *)ids : (const void *)&none,
			 n * sizeof(*ids), NULL);
}

void folded_add_ids_h(struct folded *f, const uint32_t *ids, size_t n, uint64_t h, uint64_t count)
{
	static const uint32_t none;
	const void *key = n ? (const void *)ids : (const void *)&none;
	long i = bm_find_h(&f->stacks, key, n * sizeof(*ids), h);

	if (i < 0)
		i = (long)bm_insert_h(&f->stacks, key, n * sizeof(*ids), h, 0);
	f->stacks.entries[i].val += count;
}

void folded_add_ids(struct folded *f, const uint32_t *ids, size_t n, uint64_t count)
{
	size_t i = stack_entry(f, ids, n);   /* may move entries */

	f->stacks.entries[i].val += count;
}

void folded_add_ids_frac(struct folded *f, const uint32_t *ids, size_t n, double count)
{
	size_t i = stack_entry(f, ids, n);

	if (i >= f->frac_alloc) {
		size_t na = f->frac_alloc ? f->frac_alloc : 64;
		while (na <= i)
			na *= 2;
		f->frac = xrealloc(f->frac, na * sizeof(*f->frac));
		memset(f->frac + f->frac_alloc, 0, (na - f->frac_alloc) * sizeof(*f->frac));
		f->frac_alloc = na;
	}
	f->frac[i] += count;
}

static uint32_t *split_ids(struct folded *f, const char *stack, size_t len, size_t *n,
			   uint32_t *small, size_t nsmall)
{
	size_t cnt = 1;
	for (size_t i = 0; i < len; i++)
		cnt += stack[i] == ';';
	uint32_t *ids = cnt <= nsmall ? small : xmalloc(cnt * sizeof(*ids));
	size_t k = 0, start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i == len || stack[i] == ';') {
			ids[k++] = folded_frame_id(f, stack + start, i - start);
			start = i + 1;
		}
	}
	*n = k;
	return ids;
}

/* The stack text split into ids, then count (or frac, when not NULL) added. */
static void add_stack(struct folded *f, const char *stack, size_t len, uint64_t count,
		      const double *frac)
{
	uint32_t small[256];
	size_t n;
	uint32_t *ids = split_ids(f, stack, len, &n, small, 256);

	if (frac)
		folded_add_ids_frac(f, ids, n, *frac);
	else
		folded_add_ids(f, ids, n, count);
	if (ids != small)
		free(ids);
}

void folded_add_stack(struct folded *f, const char *stack, size_t len, uint64_t count)
{
	add_stack(f, stack, len, count, NULL);
}

void folded_add_stack_frac(struct folded *f, const char *stack, size_t len, double count)
{
	add_stack(f, stack, len, 0, &count);
}

static bool has_frac(const struct folded *f, size_t i)
{
	return i < f->frac_alloc && f->frac[i] != 0.0;
}

void folded_merge(struct folded *into, const struct folded *from)
{
	uint32_t *map = xmalloc((from->frames.nr ? from->frames.nr : 1) * sizeof(*map));
	uint32_t *ids = NULL;
	size_t aids = 0;

	for (size_t i = 0; i < from->frames.nr; i++)
		map[i] = folded_frame_id(into, from->frames.entries[i].key, from->frames.entries[i].len);
	for (size_t i = 0; i < from->stacks.nr; i++) {
		size_t n;
		const uint32_t *src = folded_ids(from, i, &n);
		if (n > aids) {
			aids = n * 2;
			ids = xrealloc(ids, aids * sizeof(*ids));
		}
		for (size_t k = 0; k < n; k++)
			ids[k] = map[src[k]];
		folded_add_ids(into, ids, n, from->stacks.entries[i].val);
		if (has_frac(from, i))
			folded_add_ids_frac(into, ids, n, from->frac[i]);
	}
	free(ids);
	free(map);
}

size_t folded_nr(const struct folded *f)
{
	return f->stacks.nr;
}

const uint32_t *folded_ids(const struct folded *f, size_t i, size_t *n)
{
	const struct bm_entry *e = &f->stacks.entries[i];

	*n = e->len / sizeof(uint32_t);
	return (const uint32_t *)(const void *)e->key;
}

double folded_weight(const struct folded *f, size_t i)
{
	double w = (double)f->stacks.entries[i].val;

	if (has_frac(f, i))
		w += f->frac[i];
	return w;
}

size_t folded_format_count(const struct folded *f, size_t i, char *buf)
{
	if (has_frac(f, i))
		return (size_t)snprintf(buf, 32, "%.15g", folded_weight(f, i));
	uint64_t v = f->stacks.entries[i].val;
	char tmp[24];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t k = 0; k < n; k++)
		buf[k] = tmp[n - 1 - k];
	return n;
}

static int line_cmp(const void *a, const void *b)
{
	const struct folded_line *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->stack, y->stack, n);

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

void folded_sort(const struct folded *f, struct folded_sorted *out)
{
	size_t nr = f->stacks.nr, total = 0;

	for (size_t i = 0; i < nr; i++) {
		size_t n;
		const uint32_t *ids = folded_ids(f, i, &n);
		for (size_t k = 0; k < n; k++)
			total += f->frames.entries[ids[k]].len + 1;
		total++;   /* an empty stack's NUL */
	}
	out->nr = nr;
	out->lines = xmalloc((nr ? nr : 1) * sizeof(*out->lines));
	out->text = xmalloc(total + 1);
	char *p = out->text;
	bool nul = false;   /* a NUL in a name: strcmp's order is not memcmp's */

	for (size_t i = 0; i < nr; i++) {
		size_t n;
		const uint32_t *ids = folded_ids(f, i, &n);
		char *start = p;
		for (size_t k = 0; k < n; k++) {
			const struct bm_entry *e = &f->frames.entries[ids[k]];
			if (k)
				*p++ = ';';
			memcpy(p, e->key, e->len);
			nul |= memchr(e->key, 0, e->len) != NULL;
			p += e->len;
		}
		out->lines[i].stack = start;
		out->lines[i].len = (size_t)(p - start);
		out->lines[i].index = i;
		*p++ = '\0';   /* the line's end, for pk_strsort (total counts it) */
	}
	if (nul || nr > UINT32_MAX) {
		qsort(out->lines, nr, sizeof(*out->lines), line_cmp);
		return;
	}
	/* the lines share long prefixes (the stacks' outer callers): a radix
	 * sort reads each prefix byte about once, where qsort's memcmp read
	 * it at every comparison (5 % of collapse's CPU on a compile job) */
	struct pk_strrec *v = xmalloc((nr ? nr : 1) * sizeof(*v));
	struct folded_line *sorted = xmalloc((nr ? nr : 1) * sizeof(*sorted));

	for (size_t i = 0; i < nr; i++)
		v[i] = (struct pk_strrec){ out->lines[i].stack, (uint32_t)i };
	pk_strsort(v, nr);
	for (size_t i = 0; i < nr; i++)
		sorted[i] = out->lines[v[i].id];
	free(v);
	free(out->lines);
	out->lines = sorted;
}

void folded_sorted_release(struct folded_sorted *s)
{
	free(s->lines);
	free(s->text);
	memset(s, 0, sizeof(*s));
}

int folded_write(const struct folded *f, FILE *out)
{
	struct folded_sorted s;
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	folded_sort(f, &s);
	sb_grow(&sb, 1 << 20);
	for (size_t k = 0; k < s.nr && !ret; k++) {
		const struct folded_line *l = &s.lines[k];
		sb_grow(&sb, l->len + 40);
		memcpy(sb.buf + sb.len, l->stack, l->len);
		sb.len += l->len;
		sb.buf[sb.len++] = ' ';
		sb.len += folded_format_count(f, l->index, sb.buf + sb.len);
		sb.buf[sb.len++] = '\n';
		if (sb.len >= (1 << 20) || k + 1 == s.nr) {
			if (fwrite(sb.buf, 1, sb.len, out) != sb.len)
				ret = pk_error(EIO, "write error: %s", strerror(errno));
			sb.len = 0;
		}
	}
	if (!ret && fflush(out))
		ret = pk_error(EIO, "write error: %s", strerror(errno));
	sb.buf[0] = '\0';
	sb_release(&sb);
	folded_sorted_release(&s);
	return ret;
}
