/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * svg.c — fuzz the SVG writer (flame/flame.h: flame_render) with any folded
 * input and check that the output is well-formed XML: tags balanced and
 * properly nested, attribute values quoted without '<' or a bare '&', text
 * without a raw '<' or a bare '&' (so no name from the input can open a tag
 * or a script), comments, CDATA and declarations closed.  The first byte
 * picks render options (inverted, reverse, flame chart, hash colours,
 * palette), the rest is the folded text.
 */
#include "fuzz.h"

#include "base/error.h"
#include "base/strbuf.h"
#include "flame/flame.h"

#include <string.h>

static const char *palettes[] = { "hot", "mem", "io", "java", "js", "perl", "red", "aqua" };

/* &name; or &#123; or &#x1f; at s (within end). */
static size_t entity_len(const char *s, const char *end)
{
	const char *p = s + 1;
	if (p < end && *p == '#') {
		p++;
		if (p < end && *p == 'x')
			p++;
		const char *d = p;
		while (p < end && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') ||
				   (*p >= 'A' && *p <= 'F')))
			p++;
		if (p == d)
			return 0;
	} else {
		const char *n = p;
		while (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			p++;
		if (p == n)
			return 0;
	}
	return p < end && *p == ';' ? (size_t)(p + 1 - s) : 0;
}

static const char *find(const char *s, const char *end, const char *what)
{
	size_t n = strlen(what);
	for (; s + n <= end; s++)
		if (!memcmp(s, what, n))
			return s;
	return NULL;
}

static int is_name(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == ':' || c == '.';
}

/* Abort unless buf is well-formed XML (the subset an SVG uses). */
static void check_xml(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	const char *stack[256];
	size_t slen[256], depth = 0, roots = 0;
	while (p < end) {
		if (*p == '&') {
			size_t n = entity_len(p, end);
			FUZZ_ASSERT(n, "bare '&' in text at offset %zu", (size_t)(p - buf));
			p += n;
			continue;
		}
		if (*p != '<') {
			p++;
			continue;
		}
		const char *q;
		if (end - p >= 4 && !memcmp(p, "<!--", 4)) {
			q = find(p + 4, end, "-->");
			FUZZ_ASSERT(q, "comment not closed at offset %zu", (size_t)(p - buf));
			FUZZ_ASSERT(!find(p + 4, q, "--"), "'--' inside a comment at offset %zu",
				    (size_t)(p - buf));
			p = q + 3;
		} else if (end - p >= 9 && !memcmp(p, "<![CDATA[", 9)) {
			q = find(p + 9, end, "]]>");
			FUZZ_ASSERT(q, "CDATA not closed at offset %zu", (size_t)(p - buf));
			p = q + 3;
		} else if (end - p >= 2 && (p[1] == '?' || p[1] == '!')) {
			q = memchr(p, '>', (size_t)(end - p));
			FUZZ_ASSERT(q, "declaration not closed at offset %zu", (size_t)(p - buf));
			p = q + 1;
		} else if (end - p >= 2 && p[1] == '/') {
			const char *n = p + 2, *e = n;
			while (e < end && is_name(*e))
				e++;
			FUZZ_ASSERT(depth > 0, "close tag without open tag at offset %zu",
				    (size_t)(p - buf));
			depth--;
			FUZZ_ASSERT((size_t)(e - n) == slen[depth] && !memcmp(n, stack[depth], slen[depth]),
				    "</%.*s> closes <%.*s> at offset %zu", (int)(e - n), n,
				    (int)slen[depth], stack[depth], (size_t)(p - buf));
			while (e < end && *e == ' ')
				e++;
			FUZZ_ASSERT(e < end && *e == '>', "bad close tag at offset %zu", (size_t)(p - buf));
			p = e + 1;
		} else {
			const char *n = p + 1, *e = n;
			while (e < end && is_name(*e))
				e++;
			FUZZ_ASSERT(e > n, "raw '<' at offset %zu", (size_t)(p - buf));
			size_t nl = (size_t)(e - n);
			/* attributes: name="value" or name='value' */
			for (;;) {
				while (e < end && (*e == ' ' || *e == '\n' || *e == '\t' || *e == '\r'))
					e++;
				FUZZ_ASSERT(e < end, "tag not closed at offset %zu", (size_t)(p - buf));
				if (*e == '>' || (*e == '/' && e + 1 < end && e[1] == '>'))
					break;
				const char *a = e;
				while (e < end && is_name(*e))
					e++;
				FUZZ_ASSERT(e > a && e + 1 < end && *e == '=' && (e[1] == '"' || e[1] == '\''),
					    "bad attribute at offset %zu", (size_t)(e - buf));
				char quote = e[1];
				e += 2;
				while (e < end && *e != quote) {
					FUZZ_ASSERT(*e != '<', "'<' in an attribute at offset %zu",
						    (size_t)(e - buf));
					if (*e == '&') {
						size_t l = entity_len(e, end);
						FUZZ_ASSERT(l, "bare '&' in an attribute at offset %zu",
							    (size_t)(e - buf));
						e += l;
					} else {
						e++;
					}
				}
				FUZZ_ASSERT(e < end, "attribute not closed");
				e++;
			}
			if (*e == '/') {
				p = e + 2;
				if (depth == 0)
					roots++;
				continue;
			}
			FUZZ_ASSERT(depth < 256, "nesting deeper than 256");
			if (depth == 0)
				roots++;
			stack[depth] = n;
			slen[depth] = nl;
			depth++;
			p = e + 1;
		}
	}
	FUZZ_ASSERT(depth == 0, "%zu tags left open (innermost <%.*s>)", depth,
		    depth ? (int)slen[depth - 1] : 0, depth ? stack[depth - 1] : "");
	FUZZ_ASSERT(roots == 1, "%zu root elements", roots);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flame_opts o;
	struct flame_input in;
	struct flame_stats st;
	struct strbuf out = STRBUF_INIT;
	uint8_t sel = size ? data[0] : 0;
	flame_opts_init(&o);
	o.inverted = sel & 1;
	o.reverse = sel & 2;
	o.flamechart = sel & 4;
	o.colormode = sel & 8 ? FLAME_COLOR_HASH : FLAME_COLOR_SEEDED;
	o.colors = palettes[(sel >> 4) & 7];
	if (sel & 128) {
		/* a few untrusted strings of the options, taken from the input */
		o.title = "t<i>&\"tle'";
		o.subtitle = "<script>alert(1)</script>";
		o.notes = "--> <!-- &amp";
		o.countname = "s&mples";
	}
	flame_input_init(&in);
	if (size > 1)
		flame_input_add_buf(&in, (const char *)data + 1, size - 1);
	if (flame_render(&in, &o, &out, &st) == 0)
		check_xml(out.buf, out.len);
	sb_release(&out);
	flame_input_release(&in);
	pk_warnings_take();
	pk_error_clear();
	return 0;
}
