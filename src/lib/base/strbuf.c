/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

char strbuf_empty[1];

static void oom(size_t n)
{
	fprintf(stderr, "perfkit: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom(n);
	return p;
}

void xrelease(void *p, size_t from, size_t to)
{
	static uintptr_t page;
	uintptr_t a, b;

	if (!page)
		page = (uintptr_t)sysconf(_SC_PAGESIZE);
	if (!p || from >= to)
		return;
	a = ((uintptr_t)p + from + page - 1) & ~(page - 1);
	b = ((uintptr_t)p + to) & ~(page - 1);
	if (a < b)
		(void)madvise((void *)a, b - a, MADV_DONTNEED);
}

void xhuge(void *p, size_t size)
{
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t e = ((uintptr_t)p + size) & ~(huge - 1);

	if (p && size >= 2 * huge && e > a)
		(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
}

void *xmalloc_huge(size_t size)
{
	const size_t huge = (size_t)2 << 20;
	void *p;

	if (size < huge) {
		p = xmalloc(size);
		xhuge(p, size);
		return p;
	}
	/* from 2 MiB: at a huge page's start, so that every whole 2 MiB of
	 * it is a huge page (a block at any address has one fewer, and
	 * none under 4 MiB); the last part, under 2 MiB, in 4 KiB pages */
	if (posix_memalign(&p, huge, size))
		oom(size);
	(void)madvise(p, size - size % huge, MADV_HUGEPAGE);
	return p;
}

void xmalloc_reuse(void)
{
	(void)mallopt(M_MMAP_THRESHOLD, 32 << 20);   /* glibc's most */
	(void)mallopt(M_TRIM_THRESHOLD, 1 << 30);
	(void)mallopt(M_ARENA_MAX, 1);
}

void xheap_thp(size_t bytes)
{
	/* the block comes from the top of the heap (below xmalloc_reuse's
	 * mmap threshold), is asked for huge pages and freed back to the top
	 * (not trimmed): the allocations that follow fill it */
	void *p;

	if (getenv("PERFKIT_NO_HEAP_THP"))   /* perfkit.c's way out, as its restart's */
		return;
	if (!(p = malloc(bytes)))
		return;
	xhuge(p, bytes);
	free(p);
}

void *xcalloc_huge(size_t n, size_t size)
{
	size_t bytes = n * size;
	void *p;

	if (bytes < ((size_t)4 << 20))
		return xcalloc(n, size);
	if (size && bytes / size != n)
		oom(bytes);
	p = xmalloc_huge(bytes);
	memset(p, 0, bytes);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xstrfmt(const char *fmt, ...)
{
	struct strbuf sb;
	va_list ap;

	sb_init(&sb, 64);
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	return sb_detach(&sb, NULL);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

void sb_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = sb->len = 0;
	sb->buf = strbuf_empty;
	if (hint)
		sb_grow(sb, hint);
}

void sb_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	sb_init(sb, 0);
}

char *sb_detach(struct strbuf *sb, size_t *len)
{
	char *r;

	if (!sb->alloc)
		sb_grow(sb, 0);
	r = sb->buf;
	if (len)
		*len = sb->len;
	sb_init(sb, 0);
	return r;
}

void sb_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;

	if (need < sb->len)
		oom(SIZE_MAX);
	if (need <= sb->alloc)
		return;
	size_t na = sb->alloc ? sb->alloc : 64;
	while (na < need)
		na = na * 2 > na ? na * 2 : need;
	if (!sb->alloc) {
		sb->buf = xmalloc(na);
		sb->buf[0] = '\0';
	} else {
		sb->buf = xrealloc(sb->buf, na);
	}
	sb->alloc = na;
}

void sb_add(struct strbuf *sb, const void *data, size_t len)
{
	sb_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void sb_addstr(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_addch(struct strbuf *sb, int c)
{
	sb_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}

void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	sb_grow(sb, 64);
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= sb->alloc - sb->len) {
		sb_grow(sb, (size_t)n);
		vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

void sb_reset(struct strbuf *sb)
{
	sb_setlen(sb, 0);
}

void sb_setlen(struct strbuf *sb, size_t len)
{
	if (!sb->alloc)
		return;
	sb->len = len;
	sb->buf[len] = '\0';
}

size_t sb_utf8_len(const void *p, size_t n)
{
	const unsigned char *s = p;
	unsigned c = s[0];
	size_t need;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		need = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < need)
		return 0;
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((need == 3 && cp < 0x800) || (need == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	if (cp >= 0xd800 && cp <= 0xdfff)
		return 0;
	if (cp == 0xfffe || cp == 0xffff)
		return 0;
	return need;
}

static const char replacement[] = "\xef\xbf\xbd";

/* The UTF-8 sequence at p (left bytes) copied whole, or U+FFFD for a byte
 * that starts none; returns the bytes used. */
static size_t add_utf8(struct strbuf *sb, const unsigned char *p, size_t left)
{
	size_t ul = sb_utf8_len(p, left);

	if (!ul) {
		sb_addstr(sb, replacement);
		return 1;
	}
	sb_add(sb, p, ul);
	return ul;
}

void sb_add_xml(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	sb_grow(sb, len);
	while (i < len) {
		unsigned c = p[i];
		size_t run = i;

		/* copy a run of plain ASCII quickly */
		while (run < len && p[run] >= 0x20 && p[run] < 0x80 && p[run] != '&' &&
		       p[run] != '<' && p[run] != '>' && p[run] != '"' && p[run] != '\'')
			run++;
		if (run > i) {
			sb_add(sb, p + i, run - i);
			i = run;
			continue;
		}
		c = p[i];
		switch (c) {
		case '&': sb_addstr(sb, "&amp;"); i++; continue;
		case '<': sb_addstr(sb, "&lt;"); i++; continue;
		case '>': sb_addstr(sb, "&gt;"); i++; continue;
		case '"': sb_addstr(sb, "&quot;"); i++; continue;
		case '\'': sb_addstr(sb, "&apos;"); i++; continue;
		case '\t': case '\n': case '\r': sb_addch(sb, (int)c); i++; continue;
		}
		if (c < 0x20 || c == 0x7f) {
			sb_addstr(sb, replacement);
			i++;
			continue;
		}
		i += add_utf8(sb, p + i, len - i);
	}
}

void sb_add_json(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	sb_grow(sb, len);
	while (i < len) {
		unsigned c = p[i];

		if (c == '"' || c == '\\') {
			sb_addch(sb, '\\');
			sb_addch(sb, (int)c);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			sb_addf(sb, "\\u%04x", c);
			i++;
		} else if (c < 0x80) {
			sb_addch(sb, (int)c);
			i++;
		} else {
			i += add_utf8(sb, p + i, len - i);
		}
	}
}

/* the bytes sb_add_term() copies: 0 for an escaped byte, else the length of
 * the printable UTF-8 sequence at p */
static size_t term_safe_len(const unsigned char *p, size_t left)
{
	unsigned c = p[0];

	if (c < 0x20 || c == 0x7f)
		return 0;
	if (c < 0x80)
		return 1;
	size_t ul = sb_utf8_len(p, left);
	if (ul == 2 && c == 0xc2 && p[1] < 0xa0)   /* U+0080..U+009F: C1 controls */
		return 0;
	return ul;
}

int str_needs_term_escape(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		size_t n = term_safe_len(p + i, len - i);
		if (!n)
			return 1;
		i += n;
	}
	return 0;
}

void sb_add_term(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	static const char hex[] = "0123456789abcdef";

	sb_grow(sb, len);
	for (size_t i = 0; i < len;) {
		/* a run of printable ASCII (most names whole) in one copy */
		size_t j = i;
		while (j < len && p[j] >= 0x20 && p[j] < 0x7f)
			j++;
		if (j > i) {
			sb_add(sb, p + i, j - i);
			i = j;
			continue;
		}
		size_t n = term_safe_len(p + i, len - i);
		if (n) {
			sb_add(sb, p + i, n);
			i += n;
			continue;
		}
		/* a C1 control is two bytes; escape both */
		size_t k = p[i] == 0xc2 && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] < 0xa0 ? 2 : 1;
		for (size_t q = 0; q < k; q++) {
			char e[4] = { '\\', 'x', hex[p[i + q] >> 4], hex[p[i + q] & 15] };
			sb_add(sb, e, 4);
		}
		i += k;
	}
}

void sb_add_line(struct strbuf *sb, const char *s, size_t len)
{
	const char *nl;

	while (len && (nl = memchr(s, '\n', len))) {
		sb_add(sb, s, (size_t)(nl - s));
		sb_add(sb, "\\x0a", 4);
		len -= (size_t)(nl - s) + 1;
		s = nl + 1;
	}
	sb_add(sb, s, len);
}

int fputs_term(const char *s, FILE *f)
{
	size_t len = strlen(s);

	if (!str_needs_term_escape(s, len))
		return fputs(s, f);
	struct strbuf sb = STRBUF_INIT;
	sb_add_term(&sb, s, len);
	int rc = fputs(sb.buf, f);
	sb_release(&sb);
	return rc;
}

void str_term_escape_buf(char *buf, size_t size)
{
	size_t len = strlen(buf);

	if (!size || !str_needs_term_escape(buf, len))
		return;
	struct strbuf sb = STRBUF_INIT;
	sb_add_term(&sb, buf, len);
	size_t n = sb.len < size - 1 ? sb.len : size - 1;
	/* do not cut an escape: back to its backslash */
	for (size_t i = n >= 3 ? n - 3 : 0; i < n; i++)
		if (sb.buf[i] == '\\' && i + 1 < sb.len && sb.buf[i + 1] == 'x' && i + 4 > n) {
			n = i;
			break;
		}
	memcpy(buf, sb.buf, n);
	buf[n] = '\0';
	sb_release(&sb);
}

void sb_term_escape_from(struct strbuf *sb, size_t at)
{
	if (at >= sb->len || !str_needs_term_escape(sb->buf + at, sb->len - at))
		return;
	char *tail = xstrndup(sb->buf + at, sb->len - at);
	size_t n = sb->len - at;
	sb_setlen(sb, at);
	sb_add_term(sb, tail, n);
	free(tail);
}
