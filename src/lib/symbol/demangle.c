/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demangle.c — sym_demangle() over libiberty's cplus_demangle (see
 * demangle.h; libiberty is GCC's own demangler, also used by binutils).
 */
#include "symbol/demangle.h"

#include "base/strbuf.h"

#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

bool sym_is_mangled(const char *name)
{
	return name && ((name[0] == '_' && (name[1] == 'Z' || name[1] == 'R')) ||
			(name[0] == '_' && name[1] == '_' && name[2] == 'Z'));
}

char *sym_demangle(const char *name, size_t len, unsigned flags)
{
	int opts = DMGL_AUTO | ((flags & PK_DEMANGLE_PARAMS) ? DMGL_PARAMS | DMGL_ANSI : 0);
	char buf[1024], *tmp = NULL, *res, *out;
	const char *at;
	size_t base, suffix;

	if (len < 3 || !sym_is_mangled(name))
		return NULL;
	/* "sym@@VER" / "sym@plt": demangle the part before '@', keep the rest */
	at = memchr(name, '@', len);
	base = at ? (size_t)(at - name) : len;
	suffix = len - base;
	if (base < sizeof(buf)) {
		memcpy(buf, name, base);
		buf[base] = '\0';
		res = cplus_demangle(buf, opts);
	} else {
		tmp = xmalloc(base + 1);
		memcpy(tmp, name, base);
		tmp[base] = '\0';
		res = cplus_demangle(tmp, opts);
		free(tmp);
	}
	if (!res || !suffix)
		return res;
	size_t rl = strlen(res);
	out = xmalloc(rl + suffix + 1);
	memcpy(out, res, rl);
	memcpy(out + rl, name + base, suffix);
	out[rl + suffix] = '\0';
	free(res);
	return out;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The UTF-8 bytes of code point cp at out; their number (0: not one). */
static size_t put_utf8(unsigned long cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		if (cp >= 0xd800 && cp < 0xe000)
			return 0;
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	if (cp < 0x110000) {
		out[0] = (char)(0xf0 | (cp >> 18));
		out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[3] = (char)(0x80 | (cp & 0x3f));
		return 4;
	}
	return 0;
}

/* The escape at s[0] == '$' (n bytes left): its length and decoded bytes
 * in *dec (*decl of them), or 0 when it is not a legacy escape. */
static size_t rust_escape(const char *s, size_t n, char *dec, size_t *decl)
{
	static const struct { const char *esc; char ch; } fixed[] = {
		{ "$SP$", '@' }, { "$BP$", '*' }, { "$RF$", '&' }, { "$LT$", '<' },
		{ "$GT$", '>' }, { "$LP$", '(' }, { "$RP$", ')' }, { "$C$", ',' },
	};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		size_t el = strlen(fixed[i].esc);
		if (n >= el && !memcmp(s, fixed[i].esc, el)) {
			dec[0] = fixed[i].ch;
			*decl = 1;
			return el;
		}
	}
	if (n >= 4 && s[1] == 'u') {
		unsigned long cp = 0;
		size_t k = 2;
		while (k < n && k < 8 && hexval(s[k]) >= 0)
			cp = cp * 16 + (unsigned long)hexval(s[k++]);
		if (k > 2 && k < n && s[k] == '$') {
			*decl = put_utf8(cp, dec);
			return *decl ? k + 1 : 0;
		}
	}
	return 0;
}

size_t sym_rust_legacy_fixup(const char *name, size_t len, char *out)
{
	const size_t hashl = 17;   /* 'h' and 16 hex digits */
	size_t n, o = 0;

	if (len < hashl + 2 || name[len - hashl] != 'h' || name[len - hashl - 1] != ':' ||
	    name[len - hashl - 2] != ':')
		return 0;
	for (size_t i = len - hashl + 1; i < len; i++)
		if (hexval(name[i]) < 0)
			return 0;
	n = len - hashl - 2;
	size_t i = (n >= 2 && name[0] == '_' && name[1] == '$') ? 1 : 0;
	while (i < n) {
		if (name[i] == '.' && i + 1 < n && name[i + 1] == '.') {
			out[o++] = ':';
			out[o++] = ':';
			i += 2;
		} else if (name[i] == '$') {
			char dec[4];
			size_t decl, el = rust_escape(name + i, n - i, dec, &decl);
			if (!el) {   /* not an escape: the rest as it is */
				memcpy(out + o, name + i, n - i);
				o += n - i;
				break;
			}
			memcpy(out + o, dec, decl);
			o += decl;
			i += el;
		} else {
			out[o++] = name[i++];
		}
	}
	out[o] = '\0';
	return o ? o : 0;
}
