/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * color.c — frame colours, following the palettes of FlameGraph's
 * flamegraph.pl (the colour of a frame is part of the convention users
 * compare graphs by), and the --cp palette map file.
 */
#include "flame/flame.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"

/* Decode one UTF-8 code point; an invalid byte decodes as itself. */
static size_t utf8_next(const unsigned char *p, size_t len, uint32_t *cp)
{
	unsigned c = p[0];
	size_t n;
	uint32_t v;

	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if (c >= 0xc2 && c <= 0xdf) {
		n = 2; v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3; v = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4; v = c & 0x07;
	} else {
		*cp = c;
		return 1;
	}
	if (n > len)
		goto bad;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			goto bad;
		v = (v << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) ||
	    (n == 4 && (v < 0x10000 || v > 0x10ffff)))
		goto bad;
	*cp = v;
	return n;
bad:
	*cp = c;
	return 1;
}

/* Up to `max` code points of name, forwards or from the end backwards. */
static size_t decode(const char *name, size_t len, uint32_t *out, size_t max, int reversed)
{
	const unsigned char *p = (const unsigned char *)name;
	size_t n = 0;

	if (!reversed) {
		for (size_t i = 0; i < len && n < max;) {
			i += utf8_next(p + i, len - i, &out[n]);
			n++;
		}
		return n;
	}
	/* backwards: find the start of each code point from the end */
	size_t end = len;

	while (end > 0 && n < max) {
		size_t start = end - 1, back = 0;

		while (start > 0 && back < 3 && (p[start] & 0xc0) == 0x80) {
			start--;
			back++;
		}
		uint32_t cp;
		size_t l = utf8_next(p + start, end - start, &cp);

		if (start + l != end) { /* not one valid sequence: last byte alone */
			start = end - 1;
			cp = p[start];
		}
		out[n++] = cp;
		end = start;
	}
	return n;
}

double flame_namehash(const char *name, size_t len, int reversed)
{
	/* flamegraph.pl: drop everything up to the first backquote after the
	 * first character (a module`function prefix), then weigh the first
	 * three characters; reversed = the same over the reversed name. */
	uint32_t cps[3];
	size_t n;

	if (!reversed) {
		const char *bq = len > 1 ? memchr(name + 1, '`', len - 1) : NULL;

		if (bq) {
			len -= (size_t)(bq + 1 - name);
			name = bq + 1;
		}
		n = decode(name, len, cps, 3, 0);
	} else {
		/* the backquote search runs over the reversed string */
		const unsigned char *p = (const unsigned char *)name;
		size_t last = len;
		int found = 0;

		if (len > 1) {
			/* the first character of the reversed string is the last code point */
			uint32_t one;
			size_t firstlen = 0;

			if (decode(name, len, &one, 1, 1)) {
				size_t e = len;
				/* length of the last code point */
				size_t s = e - 1, back = 0;
				while (s > 0 && back < 3 && (p[s] & 0xc0) == 0x80) {
					s--;
					back++;
				}
				uint32_t cp;
				firstlen = (s + utf8_next(p + s, e - s, &cp) == e) ? e - s : 1;
			}
			for (size_t i = len - firstlen; i-- > 0;) {
				if (p[i] == '`') {
					last = i;
					found = 1;
					break;
				}
			}
		}
		n = decode(name, found ? last : len, cps, 3, 1);
	}
	double vector = 0, weight = 1, max = 1;
	double mod = 10;

	for (size_t i = 0; i < n; i++) {
		double c = (double)(cps[i] % (uint32_t)mod);

		vector += (c / (mod - 1)) * weight;
		mod += 1;
		max += 1 * weight;
		weight *= 0.70;
	}
	return 1 - vector / max;
}

/* Perl's rand() after srand(seed): FreeBSD drand48, seeded seed<<16|0x330e. */
static double seeded_rand(const char *name, size_t len)
{
	const unsigned char *p = (const unsigned char *)name;
	uint32_t sum = 0;

	for (size_t i = 0; i < len;) {
		uint32_t cp;

		i += utf8_next(p + i, len - i, &cp);
		sum += cp;
	}
	uint64_t x = ((uint64_t)sum << 16) | 0x330e;

	x = (x * 0x5deece66dULL + 0xb) & 0xffffffffffffULL;
	return (double)x / 281474976710656.0;
}

static uint64_t rng_state;

static double random_unit(void)
{
	if (!rng_state)
		rng_state = ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid() ^ 0x9e3779b97f4a7c15ULL;
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

static int ends_with(const char *s, size_t len, const char *suf)
{
	size_t l = strlen(suf);

	return len >= l && memcmp(s + len - l, suf, l) == 0;
}

static int contains(const char *s, size_t len, const char *needle)
{
	return memmem(s, len, needle, strlen(needle)) != NULL;
}

static int java_prefix(const char *s, size_t len)
{
	static const char *const pkgs[] = { "java/", "javax/", "jdk/", "net/", "org/",
					    "com/", "io/", "sun/" };

	if (len && s[0] == 'L') {
		for (size_t i = 0; i < sizeof(pkgs) / sizeof(pkgs[0]); i++)
			if (len - 1 >= strlen(pkgs[i]) && !memcmp(s + 1, pkgs[i], strlen(pkgs[i])))
				return 1;
	}
	for (size_t i = 0; i < sizeof(pkgs) / sizeof(pkgs[0]); i++)
		if (len >= strlen(pkgs[i]) && !memcmp(s, pkgs[i], strlen(pkgs[i])))
			return 1;
	return 0;
}

static const char *resolve_type(const char *type, const char *s, size_t len)
{
	if (!strcmp(type, "java")) {
		if (ends_with(s, len, "_[j]"))
			return "green";
		if (ends_with(s, len, "_[i]"))
			return "aqua";
		if (java_prefix(s, len))
			return "green";
		if (contains(s, len, ":::"))
			return "green";
		if (contains(s, len, "::"))
			return "yellow";
		if (ends_with(s, len, "_[k]"))
			return "orange";
		return "red";
	}
	if (!strcmp(type, "perl")) {
		if (contains(s, len, "::"))
			return "yellow";
		if (contains(s, len, "Perl") || contains(s, len, ".pl"))
			return "green";
		if (ends_with(s, len, "_[k]"))
			return "orange";
		return "red";
	}
	if (!strcmp(type, "js")) {
		if (ends_with(s, len, "_[j]"))
			return contains(s, len, "/") ? "green" : "aqua";
		if (contains(s, len, "::"))
			return "yellow";
		const char *slash = memchr(s, '/', len);

		if (slash && contains(slash + 1, len - (size_t)(slash + 1 - s), ".js"))
			return "green";
		if (contains(s, len, ":"))
			return "aqua";
		if (len == 1 && s[0] == ' ')
			return "green";
		if (contains(s, len, "_[k]"))
			return "orange";
		return "red";
	}
	if (!strcmp(type, "wakeup"))
		return "aqua";
	if (!strcmp(type, "chain"))
		return contains(s, len, "_[w]") ? "aqua" : "blue";
	return type;
}

void flame_color(char *buf, const char *type, enum flame_colormode mode,
		 const char *name, size_t len)
{
	double v1, v2, v3;
	int r, g, b;

	if (mode == FLAME_COLOR_HASH) {
		v1 = flame_namehash(name, len, 0);
		v2 = v3 = flame_namehash(name, len, 1);
	} else if (mode == FLAME_COLOR_RANDOM) {
		v1 = random_unit();
		v2 = random_unit();
		v3 = random_unit();
	} else {
		v1 = v2 = v3 = seeded_rand(name, len);
	}
	if (!type)
		type = "hot";
	if (!strcmp(type, "hot")) {
		r = 205 + (int)(50 * v3); g = (int)(230 * v1); b = (int)(55 * v2);
	} else if (!strcmp(type, "mem")) {
		r = 0; g = 190 + (int)(50 * v2); b = (int)(210 * v1);
	} else if (!strcmp(type, "io")) {
		r = g = 80 + (int)(60 * v1); b = 190 + (int)(55 * v2);
	} else {
		type = resolve_type(type, name, len);
		if (!strcmp(type, "red")) {
			r = 200 + (int)(55 * v1); g = b = 50 + (int)(80 * v1);
		} else if (!strcmp(type, "green")) {
			g = 200 + (int)(55 * v1); r = b = 50 + (int)(60 * v1);
		} else if (!strcmp(type, "blue")) {
			b = 205 + (int)(50 * v1); r = g = 80 + (int)(60 * v1);
		} else if (!strcmp(type, "yellow")) {
			r = g = 175 + (int)(55 * v1); b = 50 + (int)(20 * v1);
		} else if (!strcmp(type, "purple")) {
			r = b = 190 + (int)(65 * v1); g = 80 + (int)(60 * v1);
		} else if (!strcmp(type, "aqua")) {
			r = 50 + (int)(60 * v1); g = b = 165 + (int)(55 * v1);
		} else if (!strcmp(type, "orange")) {
			r = 190 + (int)(65 * v1); g = 90 + (int)(65 * v1); b = 0;
		} else {
			r = g = b = 0;
		}
	}
	snprintf(buf, 32, "rgb(%d,%d,%d)", r, g, b);
}

void flame_color_scale(char *buf, double value, double max, int negate)
{
	int r = 255, g = 255, b = 255;

	if (negate)
		value = -value;
	if (value > 0)
		g = b = (int)(210 * (max - value) / max);
	else if (value < 0)
		r = g = (int)(210 * (max + value) / max);
	snprintf(buf, 32, "rgb(%d,%d,%d)", r, g, b);
}

/* ---- palette map (--cp) ---- */

void flame_palette_init(struct flame_palette *p)
{
	hm_init(&p->map);
	hm_init(&p->strs);
}

void flame_palette_release(struct flame_palette *p)
{
	hm_release(&p->map);
	hm_release(&p->strs);
}

int flame_palette_load(struct flame_palette *p, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f) {
		if (errno == ENOENT)
			return 0;
		return pk_error(errno, "cannot open '%s': %s", path, strerror(errno));
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		size_t l = (size_t)n;

		if (l && line[l - 1] == '\n')
			l--;
		char *arrow = memmem(line, l, "->", 2);

		if (!arrow)
			continue;
		/* flamegraph.pl: split("->") — the value ends at a second arrow */
		const char *val = arrow + 2;
		size_t vl = l - (size_t)(val - line);
		char *arrow2 = memmem(val, vl, "->", 2);

		if (arrow2)
			vl = (size_t)(arrow2 - val);
		struct hm_entry *e = hm_upsert(&p->map, line, (size_t)(arrow - line), NULL);

		e->val.ptr = (void *)hm_intern(&p->strs, val, vl);
	}
	free(line);
	fclose(f);
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct hm_entry *x = *(const struct hm_entry *const *)a;
	const struct hm_entry *y = *(const struct hm_entry *const *)b;
	size_t l = x->keylen < y->keylen ? x->keylen : y->keylen;
	int c = memcmp(x->key, y->key, l);

	return c ? c : (x->keylen > y->keylen) - (x->keylen < y->keylen);
}

int flame_palette_save(const struct flame_palette *p, const char *path)
{
	const struct hm_entry **v = xmalloc((p->map.nr + 1) * sizeof(*v));
	struct strbuf tmp = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < p->map.nr; i++)
		v[i] = &p->map.entries[i];
	qsort(v, p->map.nr, sizeof(*v), cmp_entry);
	sb_addf(&tmp, "%s.tmp.%d", path, (int)getpid());
	FILE *f = fopen(tmp.buf, "w");

	if (!f) {
		ret = pk_error(errno, "cannot write '%s': %s", tmp.buf, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < p->map.nr; i++) {
		fwrite(v[i]->key, 1, v[i]->keylen, f);
		fprintf(f, "->%s\n", (const char *)v[i]->val.ptr);
	}
	if (ferror(f) | fclose(f)) {
		ret = pk_error(EIO, "cannot write '%s'", tmp.buf);
		unlink(tmp.buf);
		goto out;
	}
	if (rename(tmp.buf, path) < 0) {
		ret = pk_error(errno, "cannot rename '%s' to '%s': %s", tmp.buf, path, strerror(errno));
		unlink(tmp.buf);
	}
out:
	sb_release(&tmp);
	free(v);
	return ret;
}
