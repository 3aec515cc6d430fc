/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demangle.c — pk_demangle() over libiberty's cplus_demangle (see
 * demangle.h; libiberty is GCC's own demangler, also used by binutils).
 */
#include "symbol/demangle.h"

#include "base/strbuf.h"

#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

bool pk_is_mangled(const char *name)
{
	return name && ((name[0] == '_' && (name[1] == 'Z' || name[1] == 'R')) ||
			(name[0] == '_' && name[1] == '_' && name[2] == 'Z'));
}

char *pk_demangle(const char *name, size_t len, unsigned flags)
{
	int opts = DMGL_AUTO | ((flags & PK_DEMANGLE_PARAMS) ? DMGL_PARAMS | DMGL_ANSI : 0);
	char buf[1024], *tmp = NULL, *res, *out;
	const char *at;
	size_t base, suffix;

	if (len < 3 || !pk_is_mangled(name))
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
