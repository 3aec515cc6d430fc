/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfmap.c — /tmp/perf-PID.map lookup (see perfmap.h): each map is read
 * whole (one buffered read), its entries sorted by start and made
 * non-overlapping (later lines win), then binary-searched.
 */
#include "symbol/perfmap.h"

#include "base/error.h"
#include "base/hashmap.h"
#include "base/path.h"
#include "base/strbuf.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct pm_ent {
	uint64_t start, end;
	const char *name;     /* interned */
	size_t line;          /* file order: later lines win */
};

struct pmap {
	const char *name;     /* interned DIR/perf-PID.map, whether or not it exists */
	const char *path;     /* interned; NULL when the file is missing */
	off_t size;           /* file size when read */
	struct pm_ent *v;     /* sorted by start, then line */
	size_t nr;
	uint64_t max_size;    /* largest entry: bounds the search for overlaps */
	int err;              /* errno of the failed open, when path is NULL */
	bool noted;           /* the missing file's note given */
};

struct perfmap_cache {
	char *dir;
	struct hashmap strings;
	struct hashmap maps;  /* pid (4 bytes) → struct pmap * */
};

struct perfmap_cache *perfmap_cache_new(const char *dir)
{
	struct perfmap_cache *c = xcalloc(1, sizeof(*c));

	c->dir = xstrdup(dir ? dir : "/tmp");
	hm_init(&c->strings);
	hm_init(&c->maps);
	return c;
}

size_t perfmap_cache_nr(const struct perfmap_cache *c)
{
	return c ? c->maps.nr : 0;
}

void perfmap_cache_free(struct perfmap_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->maps.nr; i++) {
		struct pmap *m = c->maps.entries[i].val.ptr;

		free(m->v);
		free(m);
	}
	hm_release(&c->maps);
	hm_release(&c->strings);
	free(c->dir);
	free(c);
}

static int hexv(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch |= 0x20;
	return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* Parse a hex number at *p (optional 0x); false when there is none. */
static bool hexnum(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	int d, n = 0;

	if (end - s > 2 && s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	*v = 0;
	while (s < end && (d = hexv((unsigned char)*s)) >= 0 && n < 16) {
		*v = *v << 4 | (uint64_t)d;
		s++;
		n++;
	}
	if (!n || (s < end && *s != ' ' && *s != '\t'))
		return false;
	*p = s;
	return true;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct pm_ent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static void pmap_read(struct perfmap_cache *c, struct pmap *m, const char *path)
{
	int fd = pk_open_regular(path);   /* a FIFO named /tmp/perf-PID.map: refused, not waited on */
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	int err = errno;

	if (!f && fd >= 0)
		close(fd);
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	size_t n, alloc = 0, line = 0;
	struct stat st;

	free(m->v);
	m->v = NULL;
	m->nr = 0;
	if (!f) {
		m->err = err;
		m->path = NULL;
		return;
	}
	m->path = hm_intern(&c->strings, path, strlen(path));
	if (fstat(fileno(f), &st) == 0)
		m->size = st.st_size;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_add(&sb, buf, n);
	fclose(f);
	for (const char *p = sb.buf, *end = sb.buf + sb.len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *q = p;
		uint64_t start, size;

		line++;
		while (q < le && (*q == ' ' || *q == '\t'))
			q++;
		if (hexnum(&q, le, &start) && q < le && (q++, hexnum(&q, le, &size)) && size &&
		    start + size > start) {
			const char *ne = le;

			while (q < le && (*q == ' ' || *q == '\t'))
				q++;
			while (ne > q && (ne[-1] == '\r' || ne[-1] == ' '))
				ne--;
			if (m->nr == alloc) {
				alloc = alloc ? alloc * 2 : 256;
				m->v = xrealloc(m->v, alloc * sizeof(*m->v));
			}
			m->v[m->nr++] = (struct pm_ent){ start, start + size,
							 hm_intern(&c->strings, q, (size_t)(ne - q)), line };
		}
		p = le + 1;
	}
	sb_release(&sb);
	if (m->nr > 1)   /* qsort(NULL, 0, ...) is undefined (found by fuzzing) */
		qsort(m->v, m->nr, sizeof(*m->v), cmp_ent);
	m->max_size = 0;
	for (size_t i = 0; i < m->nr; i++)
		if (m->v[i].end - m->v[i].start > m->max_size)
			m->max_size = m->v[i].end - m->v[i].start;
}

/* The entry covering addr; of overlapping ones the latest line. */
static const struct pm_ent *pmap_find(const struct pmap *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nr;
	const struct pm_ent *best = NULL;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* entries starting at or before addr, nearest first, while one of
	 * them could still reach addr */
	for (size_t i = lo; i-- > 0 && addr - m->v[i].start < m->max_size;)
		if (addr < m->v[i].end && (!best || m->v[i].line > best->line))
			best = &m->v[i];
	return best;
}

const char *perfmap_lookup(struct perfmap_cache *c, uint32_t pid, uint64_t addr, bool warn,
			   const char **name, const char **map_path, uint64_t *sym_off)
{
	char path[4096];
	int created;
	struct hm_entry *e;
	struct pmap *m;
	const struct pm_ent *ent;
	struct stat st;

	if (map_path)
		*map_path = NULL;
	if (name)
		*name = NULL;
	if (!c)
		return NULL;
	e = hm_upsert(&c->maps, &pid, sizeof(pid), &created);
	if (created) {
		snprintf(path, sizeof(path), "%s/perf-%u.map", c->dir, pid);
		m = xcalloc(1, sizeof(*m));
		e->val.ptr = m;
		m->name = hm_intern(&c->strings, path, strlen(path));
		pmap_read(c, m, path);
	}
	m = e->val.ptr;
	if (name)
		*name = m->name;
	/* perf says nothing (its -v only): JIT-less anonymous code is common
	 * in a system-wide profile.  Once per pid, on its first lookup that
	 * asks: an earlier one may not (an address in no mapping). */
	if (!m->path && warn && !m->noted) {
		m->noted = true;
		pk_debug("%s: no JIT symbol map (%s); its addresses stay unnamed", m->name,
			 strerror(m->err));
	}
	if (!m->path)
		return NULL;
	ent = pmap_find(m, addr);
	if (!ent && stat(m->path, &st) == 0 && st.st_size > m->size) {
		pmap_read(c, m, m->path);   /* the JIT appended since (the path is interned) */
		ent = m->path ? pmap_find(m, addr) : NULL;
	}
	if (map_path)
		*map_path = m->path;
	if (!ent)
		return NULL;
	if (sym_off)
		*sym_off = addr - ent->start;
	return ent->name;
}

bool perfmap_path_pid(const char *path, unsigned *pid)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	unsigned long v = 0;
	const char *p;

	if (!base || strncmp(base, "/perf-", 6))
		return false;
	for (p = base + 6; *p >= '0' && *p <= '9' && v <= UINT32_MAX; p++)
		v = v * 10 + (unsigned long)(*p - '0');
	if (p == base + 6 || v > UINT32_MAX || strcmp(p, ".map"))
		return false;
	*pid = (unsigned)v;
	return true;
}

bool perfmap_jit_name(const char *path, char *buf, size_t size)
{
	unsigned pid;

	if (!perfmap_path_pid(path, &pid))
		return false;
	snprintf(buf, size, "[JIT] tid %u", pid);
	return true;
}
