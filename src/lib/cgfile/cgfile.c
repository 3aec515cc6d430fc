/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgfile.c — Cachegrind output format reader (contract in cgfile.h). */
#include "cgfile/cgfile.h"

#include "base/error.h"
#include "base/hashmap.h"
#include "base/strbuf.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int starts(const char *p, const char *end, const char *pfx)
{
	size_t n = strlen(pfx);

	return (size_t)(end - p) >= n && memcmp(p, pfx, n) == 0;
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* Parse up to max unsigned numbers from [p, end) into v; returns how many,
 * or -1 on a malformed token (*bad points at it). */
/* Numbers separated by blanks into v (at most max): the first `first`
 * unsigned (a line number), the rest signed 64-bit counts — negative in a
 * cg_diff output — stored as two's complement.  Returns how many, or -1
 * with *bad at the first wrong byte. */
static int parse_nums(const char *p, const char *end, uint64_t *v, size_t max, size_t first, const char **bad)
{
	size_t n = 0;

	for (;;) {
		p = skip_ws(p, end);
		if (p >= end)
			return (int)n;
		bool neg = n >= first && *p == '-' && p + 1 < end && p[1] >= '0' && p[1] <= '9';

		if (neg)
			p++;
		if (*p < '0' || *p > '9' || n == max) {
			*bad = p;
			return -1;
		}
		uint64_t x = 0, lim = n < first ? UINT64_MAX : (uint64_t)INT64_MAX;

		while (p < end && *p >= '0' && *p <= '9') {
			unsigned d = (unsigned)(*p - '0');

			if (x > (lim - d) / 10) {
				*bad = p;
				return -1;
			}
			x = x * 10 + d;
			p++;
		}
		if (p < end && *p != ' ' && *p != '\t') {
			*bad = p;
			return -1;
		}
		v[n++] = neg ? (uint64_t)-(int64_t)x : x;
	}
}

int cgfile_parse(const char *buf, size_t len, const char *name, struct cgfile **out)
{
	struct cgfile *cg = xcalloc(1, sizeof(*cg));
	const char *p = buf, *end = buf + len;
	const char *file = NULL, *fn = NULL;
	size_t lineno = 0, cap = 0;
	int seen_summary = 0, rc = -EINVAL;

	cg->strs = xcalloc(1, sizeof(*cg->strs));
	hm_init(cg->strs);
	*out = NULL;
	if (end - p >= 8 && (!memcmp(p, "PERFILE2", 8) || !memcmp(p, "PERFFILE", 8))) {
		pk_error(EINVAL, "%s: a perf.data file, not Cachegrind output (read it with perfkit report)",
			 name);
		goto fail;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *bad = NULL;

		lineno++;
		if (le > p && le[-1] == '\r')
			le--;
		if (memchr(p, '\0', (size_t)(le - p))) {
			pk_error(EINVAL, "%s:%zu: NUL byte in a text line", name, lineno);
			goto fail;
		}
		if (seen_summary && skip_ws(p, le) != le) {
			pk_error(EINVAL, "%s:%zu: text after the summary: line", name, lineno);
			goto fail;
		}
		if (p == le || *p == '#') {
			/* blank or comment */
		} else if (starts(p, le, "desc:")) {
			if (cg->cmd || cg->nev) {
				pk_error(EINVAL, "%s:%zu: desc: line after cmd:/events:", name, lineno);
				goto fail;
			}
			cg->desc = xrealloc(cg->desc, (cg->ndesc + 1) * sizeof(char *));
			const char *t = skip_ws(p + 5, le);

			cg->desc[cg->ndesc++] = xstrndup(t, (size_t)(le - t));
		} else if (starts(p, le, "cmd:")) {
			if (cg->cmd) {
				pk_error(EINVAL, "%s:%zu: second cmd: line", name, lineno);
				goto fail;
			}
			const char *t = skip_ws(p + 4, le);

			cg->cmd = xstrndup(t, (size_t)(le - t));
		} else if (starts(p, le, "events:")) {
			if (cg->nev) {
				pk_error(EINVAL, "%s:%zu: second events: line", name, lineno);
				goto fail;
			}
			const char *t = p + 7;

			for (;;) {
				t = skip_ws(t, le);
				if (t >= le)
					break;
				const char *w = t;

				while (t < le && *t != ' ' && *t != '\t')
					t++;
				if (cg->nev == CGFILE_MAX_EVENTS) {
					pk_error(EINVAL, "%s:%zu: more than %d events", name, lineno,
						 CGFILE_MAX_EVENTS);
					goto fail;
				}
				cg->ev[cg->nev++] = xstrndup(w, (size_t)(t - w));
			}
			if (cg->nev == 0) {
				pk_error(EINVAL, "%s:%zu: events: line names no event", name, lineno);
				goto fail;
			}
		} else if (starts(p, le, "fl=") || starts(p, le, "fi=") || starts(p, le, "fe=")) {
			file = hm_intern(cg->strs, p + 3, (size_t)(le - p - 3));
		} else if (starts(p, le, "fn=")) {
			fn = hm_intern(cg->strs, p + 3, (size_t)(le - p - 3));
		} else if (starts(p, le, "summary:")) {
			if (!cg->nev) {
				pk_error(EINVAL, "%s:%zu: summary: before events:", name, lineno);
				goto fail;
			}
			int n = parse_nums(p + 8, le, cg->summary, cg->nev, 0, &bad);

			if (n < 0) {
				pk_error(EINVAL, "%s:%zu: summary: expected up to %zu counts",
					 name, lineno, cg->nev);
				goto fail;
			}
			cg->has_summary = 1;
			seen_summary = 1;
		} else if (*p >= '0' && *p <= '9') {
			uint64_t v[CGFILE_MAX_EVENTS + 1];

			if (!cg->nev) {
				pk_error(EINVAL, "%s:%zu: count line before the events: line", name,
					 lineno);
				goto fail;
			}
			if (!file) {
				pk_error(EINVAL, "%s:%zu: count line before any fl= line", name, lineno);
				goto fail;
			}
			int n = parse_nums(p, le, v, cg->nev + 1, 1, &bad);

			if (n < 0) {
				pk_error(EINVAL, "%s:%zu: expected a line number and up to %zu counts, found '%.*s'",
					 name, lineno, cg->nev, (int)(le - p > 40 ? 40 : le - p), p);
				goto fail;
			}
			if (v[0] > UINT32_MAX) {
				pk_error(EINVAL, "%s:%zu: line number %llu out of range", name, lineno,
					 (unsigned long long)v[0]);
				goto fail;
			}
			if (cg->nrecs == cap) {
				cap = cap ? cap * 2 : 256;
				cg->recs = xrealloc(cg->recs, cap * sizeof(*cg->recs));
				cg->counts = xrealloc(cg->counts, cap * cg->nev * sizeof(uint64_t));
			}
			struct cgfile_rec *r = &cg->recs[cg->nrecs];
			uint64_t *c = cg->counts + cg->nrecs * cg->nev;

			r->file = file;
			r->fn = fn ? fn : hm_intern(cg->strs, "???", 3);
			r->line = (uint32_t)v[0];
			for (size_t i = 0; i < cg->nev; i++) {
				int64_t sum;

				c[i] = (int)i + 1 < n ? v[i + 1] : 0;
				if (__builtin_add_overflow((int64_t)cg->totals[i], (int64_t)c[i], &sum)) {
					pk_error(EINVAL, "%s:%zu: total of event %s overflows", name,
						 lineno, cg->ev[i]);
					goto fail;
				}
				cg->totals[i] += c[i];
			}
			cg->nrecs++;
		} else {
			pk_error(EINVAL, "%s:%zu: unrecognised line '%.*s' (expected desc:, cmd:, events:, fl=, fn=, counts or summary:)",
				 name, lineno, (int)(le - p > 40 ? 40 : le - p), p);
			goto fail;
		}
		p = nl ? nl + 1 : end;
	}
	if (!cg->cmd) {
		pk_error(EINVAL, "%s: no cmd: line (not a Cachegrind output file)", name);
		goto fail;
	}
	if (!cg->nev) {
		pk_error(EINVAL, "%s: no events: line (not a Cachegrind output file)", name);
		goto fail;
	}
	if (cg->has_summary) {
		for (size_t i = 0; i < cg->nev; i++)
			if (cg->summary[i] != cg->totals[i]) {
				pk_warn("%s: summary %s = %lld but the lines add up to %lld", name,
					cg->ev[i], (long long)cg->summary[i], (long long)cg->totals[i]);
				break;
			}
	} else {
		memcpy(cg->summary, cg->totals, sizeof(cg->summary));
	}
	*out = cg;
	return 0;
fail:
	cgfile_free(cg);
	return rc;
}

int cgfile_read(const char *path, struct cgfile **out)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	*out = NULL;
	if (fd < 0)
		return pk_error(errno, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return pk_error(EINVAL, "'%s' is not a regular file", path);
	}
	if (st.st_size == 0) {
		close(fd);
		return pk_error(EINVAL, "%s: empty file (not a Cachegrind output file)", path);
	}
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

	close(fd);
	if (m == MAP_FAILED)
		return pk_error(errno, "cannot map '%s': %s", path, strerror(errno));
	rc = cgfile_parse(m, (size_t)st.st_size, path, out);
	munmap(m, (size_t)st.st_size);
	return rc;
}

void cgfile_free(struct cgfile *cg)
{
	if (!cg)
		return;
	free(cg->cmd);
	for (size_t i = 0; i < cg->ndesc; i++)
		free(cg->desc[i]);
	free(cg->desc);
	for (size_t i = 0; i < cg->nev; i++)
		free(cg->ev[i]);
	free(cg->recs);
	free(cg->counts);
	if (cg->strs) {
		hm_release(cg->strs);
		free(cg->strs);
	}
	free(cg);
}

int cgfile_event(const struct cgfile *cg, const char *name)
{
	for (size_t i = 0; i < cg->nev; i++)
		if (strcmp(cg->ev[i], name) == 0)
			return (int)i;
	return -1;
}

void cgfile_fmt_count(char *buf, size_t len, uint64_t v)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%lld", (long long)v), o = 0, sign = tmp[0] == '-';

	for (int i = 0; i < n && o + 2 < (int)len; i++) {
		if (i > sign && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = 0;
}
