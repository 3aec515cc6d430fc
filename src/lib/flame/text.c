/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text.c — number formatting as Perl prints it, frame labels, and the
 * --nameattr file (see flame.h).
 */
#include "flame/flame.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

static void add_uint(struct strbuf *sb, unsigned long long n)
{
	char tmp[24];
	int i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	sb_add(sb, tmp + i, sizeof(tmp) - (size_t)i);
}

void flame_add_num(struct strbuf *sb, double v)
{
	/* Perl keeps a sum of integers an integer (IV/UV, up to 2^64) and
	 * prints all its digits; only other numbers go through %.15g */
	if (v >= 0 && v < 18446744073709551616.0 && v == floor(v)) {
		add_uint(sb, (unsigned long long)v);
		return;
	}
	if (v < 0 && v > -9223372036854775808.0 && v == floor(v)) {
		sb_addch(sb, '-');
		add_uint(sb, (unsigned long long)-v);
		return;
	}
	sb_addf(sb, "%.15g", v);
}

static const double pow10tab[] = { 1, 10, 100, 1000 };

/* The scaled integer printf("%.Nf") would print for v >= 0, or -1 when
 * the fast path cannot decide (then printf itself is used). */
static long long fixed_scaled(double v, int dec)
{
	if (!(v >= 0) || v >= 1e14)
		return -1;
	double t = v * pow10tab[dec];
	double f = floor(t);
	double frac = t - f;

	if (frac < 0.5 - 1e-7)
		return (long long)f;
	if (frac > 0.5 + 1e-7)
		return (long long)f + 1;
	return -1;
}

static void add_scaled(struct strbuf *sb, long long n, int dec)
{
	long long p = (long long)pow10tab[dec];

	add_uint(sb, (unsigned long long)(n / p));
	if (dec) {
		char tmp[4];
		long long r = n % p;

		for (int i = dec - 1; i >= 0; i--) {
			tmp[i] = (char)('0' + r % 10);
			r /= 10;
		}
		sb_addch(sb, '.');
		sb_add(sb, tmp, (size_t)dec);
	}
}

double flame_add_fixed(struct strbuf *sb, double v, int decimals)
{
	long long n = fixed_scaled(v, decimals);

	if (n >= 0) {
		add_scaled(sb, n, decimals);
		/* n / 10^d is the double nearest to the printed decimal */
		return (double)n / pow10tab[decimals];
	}
	size_t at = sb->len;

	sb_addf(sb, "%.*f", decimals, v);
	return strtod(sb->buf + at, NULL);
}

double flame_fixed_value(double v, int decimals)
{
	long long n = fixed_scaled(v, decimals);
	char tmp[64];

	if (n >= 0)
		return (double)n / pow10tab[decimals];
	snprintf(tmp, sizeof(tmp), "%.*f", decimals, v);
	return strtod(tmp, NULL);
}

/* One UTF-8 code point (or one invalid byte) starting at p. */
static size_t char_len(const unsigned char *p, size_t len)
{
	unsigned c = p[0];
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 1;
	if (n > len)
		return 1;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 1;
	if (n == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0)))
		return 1;
	if (n == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90)))
		return 1;
	return n;
}

static int is_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

static int has_ctl(const char *name, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (is_ctl((unsigned char)name[i]))
			return 1;
	return 0;
}

/* name with its control bytes written as "\xNN" */
static void add_visible(struct strbuf *sb, const char *name, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t run = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (!is_ctl(c))
			continue;
		sb_add(sb, name + run, i - run);
		char esc[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };
		sb_add(sb, esc, 4);
		run = i + 1;
	}
	sb_add(sb, name + run, len - run);
}

void flame_add_name(struct strbuf *sb, const char *name, size_t len)
{
	if (!has_ctl(name, len)) {
		sb_add_xml(sb, name, len);
		return;
	}
	struct strbuf vis = STRBUF_INIT;

	add_visible(&vis, name, len);
	sb_add_xml(sb, vis.buf, vis.len);
	sb_release(&vis);
}

void flame_add_label(struct strbuf *sb, const char *name, size_t len, long chars)
{
	const unsigned char *p = (const unsigned char *)name;
	size_t i = 0, cut = 0, prevcut = 0, n = 0;

	if (chars < 3)
		return;
	if (has_ctl(name, len)) {   /* rare: label the visible form */
		struct strbuf vis = STRBUF_INIT;

		add_visible(&vis, name, len);
		flame_add_label(sb, vis.buf, vis.len, chars);
		sb_release(&vis);
		return;
	}
	/* find the byte offset after `chars` characters, and after chars-2 */
	while (i < len && n < (size_t)chars) {
		if (n == (size_t)chars - 2)
			prevcut = i;
		i += char_len(p + i, len - i);
		n++;
	}
	cut = i;
	if (cut >= len) { /* the whole name fits */
		sb_add_xml(sb, name, len);
		return;
	}
	(void)cut;
	sb_add_xml(sb, name, prevcut);
	sb_add(sb, "..", 2);
}

/* ---- --nameattr ---- */

static int is_name_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static int is_name_char(int c)
{
	return is_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

/* Re-emit an attribute list (`a="x" b='y' c=z`) escaped; unparseable parts
 * are dropped.  Returns a malloc'd string of ` name="value"` items. */
static char *clean_extra(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = s;

	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!is_name_start((unsigned char)*p)) {
			if (*p)
				p++;
			continue;
		}
		const char *n0 = p;

		while (is_name_char((unsigned char)*p))
			p++;
		size_t nl = (size_t)(p - n0);

		if (*p != '=')
			continue;
		p++;
		const char *v0 = p, *v1;

		if (*p == '"' || *p == '\'') {
			char q = *p++;

			v0 = p;
			while (*p && *p != q)
				p++;
			v1 = p;
			if (*p)
				p++;
		} else {
			while (*p && *p != ' ' && *p != '\t')
				p++;
			v1 = p;
		}
		if ((nl == 2 && !memcmp(n0, "id", 2)) || (nl == 5 && !memcmp(n0, "class", 5)) ||
		    (nl == 10 && !memcmp(n0, "xlink:href", 10)) || (nl == 6 && !memcmp(n0, "target", 6)) ||
		    (nl >= 2 && (n0[0] == 'o' || n0[0] == 'O') && (n0[1] == 'n' || n0[1] == 'N')))
			continue; /* set elsewhere, or an event handler: not allowed */
		if (memmem(sb.buf, sb.len, n0, nl)) {
			/* a repeated attribute would make the XML invalid */
			struct strbuf probe = STRBUF_INIT;
			int dup;

			sb_addch(&probe, ' ');
			sb_add(&probe, n0, nl);
			sb_addch(&probe, '=');
			dup = memmem(sb.buf, sb.len, probe.buf, probe.len) != NULL;
			sb_release(&probe);
			if (dup)
				continue;
		}
		sb_addch(&sb, ' ');
		sb_add(&sb, n0, nl);
		sb_addstr(&sb, "=\"");
		sb_add_xml(&sb, v0, (size_t)(v1 - v0));
		sb_addch(&sb, '"');
	}
	return sb_detach(&sb, NULL);
}

static void attrs_free(struct flame_attrs *a)
{
	free(a->title); free(a->id); free(a->cls); free(a->href);
	free(a->target); free(a->g_extra); free(a->a_extra);
	free(a);
}

int flame_nameattr_load(struct flame_nameattr *na, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned long lineno = 0;

	hm_init(&na->map);
	if (!f)
		return pk_error(errno, "cannot read '%s': %s", path, strerror(errno));
	while ((n = getline(&line, &cap, f)) >= 0) {
		size_t l = (size_t)n;

		lineno++;
		if (l && line[l - 1] == '\n')
			line[--l] = '\0';
		char *tab = strchr(line, '\t');

		if (!tab) {
			free(line);
			fclose(f);
			return pk_error(EINVAL, "'%s' line %lu: expected NAME<TAB>key=value…",
					path, lineno);
		}
		*tab = '\0';
		struct hm_entry *e = hm_upsert(&na->map, line, (size_t)(tab - line), NULL);
		struct flame_attrs *a = e->val.ptr;

		if (!a)
			e->val.ptr = a = xcalloc(1, sizeof(*a));
		for (char *tok = tab + 1; tok;) {
			char *next = strchr(tok, '\t'), *eq;

			if (next)
				*next++ = '\0';
			eq = strchr(tok, '=');
			if (eq) {
				char **slot = NULL;

				*eq = '\0';
				if (!strcmp(tok, "title")) slot = &a->title;
				else if (!strcmp(tok, "id")) slot = &a->id;
				else if (!strcmp(tok, "class")) slot = &a->cls;
				else if (!strcmp(tok, "href")) slot = &a->href;
				else if (!strcmp(tok, "target")) slot = &a->target;
				else if (!strcmp(tok, "g_extra")) slot = &a->g_extra;
				else if (!strcmp(tok, "a_extra")) slot = &a->a_extra;
				if (slot) {
					free(*slot);
					*slot = (slot == &a->g_extra || slot == &a->a_extra)
						? clean_extra(eq + 1) : xstrdup(eq + 1);
				}
			}
			tok = next;
		}
	}
	free(line);
	fclose(f);
	return 0;
}

void flame_nameattr_release(struct flame_nameattr *na)
{
	for (size_t i = 0; i < na->map.nr; i++)
		if (na->map.entries[i].val.ptr)
			attrs_free(na->map.entries[i].val.ptr);
	hm_release(&na->map);
}
