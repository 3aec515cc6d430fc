/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/error.h"
#include "base/strbuf.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char errbuf[1024];
static _Thread_local char warnbuf[4096];
static _Thread_local char warnout[4096];
static _Thread_local size_t warnlen;

int pk_error(int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof(errbuf), fmt, ap);
	va_end(ap);
	/* a message names untrusted text (a path, a name or a line from a
	 * file): no byte of it may drive the terminal or split the line */
	if (str_needs_term_escape(errbuf, strlen(errbuf)))
		str_term_escape_buf(errbuf, sizeof(errbuf));
	return errnum > 0 ? -errnum : errnum;
}

const char *pk_errmsg(void)
{
	return errbuf[0] ? errbuf : "unknown error";
}

void pk_error_clear(void)
{
	errbuf[0] = '\0';
}

/* Is the line warnbuf[at..warnlen) one of the lines before it? */
static bool warned_before(size_t at)
{
	size_t len = warnlen - at;

	for (size_t i = 0; i + len < at; i = (size_t)((char *)memchr(warnbuf + i, '\n', at - i) - warnbuf) + 1)
		if (warnbuf[i + len] == '\n' && !memcmp(warnbuf + i, warnbuf + at, len))
			return true;
	return false;
}

void pk_warn(const char *fmt, ...)
{
	va_list ap;
	int n;
	size_t was = warnlen, at;

	if (warnlen >= sizeof(warnbuf) - 2)
		return;
	if (warnlen)
		warnbuf[warnlen++] = '\n';
	at = warnlen;
	va_start(ap, fmt);
	n = vsnprintf(warnbuf + warnlen, sizeof(warnbuf) - warnlen, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	warnlen += (size_t)n;
	if (warnlen >= sizeof(warnbuf))
		warnlen = sizeof(warnbuf) - 1;
	warnbuf[warnlen] = '\0';
	/* one warning, one line: escaped as pk_error's messages */
	if (str_needs_term_escape(warnbuf + at, warnlen - at)) {
		str_term_escape_buf(warnbuf + at, sizeof(warnbuf) - at);
		warnlen = at + strlen(warnbuf + at);
	}
	if (at && warned_before(at))   /* said already (a file read twice) */
		warnlen = was;
	warnbuf[warnlen] = '\0';
}

static int verbose_level;

void pk_set_verbose(int level)
{
	verbose_level = level;
}

void pk_debug(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (verbose_level <= 0)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	pk_warn("%s", buf);
}

const char *pk_warnings_peek(void)
{
	return warnbuf;
}

const char *pk_warnings_take(void)
{
	memcpy(warnout, warnbuf, warnlen + 1);
	warnlen = 0;
	warnbuf[0] = '\0';
	return warnout;
}

void pk_warnings_print(FILE *f, const char *prefix)
{
	const char *w = pk_warnings_take();

	while (*w) {
		const char *nl = strchr(w, '\n');
		int len = nl ? (int)(nl - w) : (int)strlen(w);

		fprintf(f, "%s: warning: %.*s\n", prefix, len, w);
		w += len + (nl ? 1 : 0);
	}
}
