/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memprof.c — read and classify c2c/mem files (contract in memprof.h). */
#include "memprof/memprof.h"

#include "base/error.h"
#include "base/strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ID (1 << 24)

struct rd {
	const char *path;
	unsigned long lno;
	char *p;	/* the rest of the current line */
};

static int bad(struct rd *r, const char *what)
{
	return pk_error(EINVAL, "%s:%lu: expected %s", r->path, r->lno, what);
}

static int u64(struct rd *r, uint64_t *v, const char *what)
{
	char *end;

	while (*r->p == ' ')
		r->p++;
	if (*r->p < '0' || *r->p > '9')
		return bad(r, what);
	errno = 0;
	*v = strtoull(r->p, &end, 0);
	if (errno || (*end && *end != ' '))
		return bad(r, what);
	r->p = end;
	return 0;
}

static int id(struct rd *r, int *v, int allow_neg, const char *what)
{
	uint64_t x;

	while (*r->p == ' ')
		r->p++;
	if (allow_neg && !strncmp(r->p, "-1", 2) && (r->p[2] == 0 || r->p[2] == ' ')) {
		r->p += 2;
		*v = -1;
		return 0;
	}
	if (u64(r, &x, what) < 0)
		return -EINVAL;
	if (x >= MAX_ID)
		return bad(r, what);
	*v = (int)x;
	return 0;
}

static int at_end(struct rd *r, const char *what)
{
	while (*r->p == ' ')
		r->p++;
	return *r->p ? bad(r, what) : 0;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* \xHH-escaped text up to a tab or the end; advances past the tab */
static char *field(struct rd *r)
{
	char *s = xmalloc(4 * strlen(r->p) + 1), *o = s;

	while (*r->p && *r->p != '\t') {
		unsigned char c = (unsigned char)*r->p;
		int hi = c == '\\' && r->p[1] == 'x' ? hexval(r->p[2]) : -1;
		int lo = hi >= 0 ? hexval(r->p[3]) : -1;
		unsigned v = lo >= 0 ? (unsigned)(hi * 16 + lo) : 0;

		/* a control byte stays written \xHH: names reach terminals
		 * (and one the file holds raw is written so too) */
		if (lo >= 0 && v >= 0x20 && v != 0x7f) {
			*o++ = (char)v;
			r->p += 4;
		} else if (c < 0x20 || c == 0x7f) {
			o += snprintf(o, 5, "\\x%02x", c);
			r->p++;
		} else {
			*o++ = *r->p++;
		}
	}
	if (*r->p == '\t')
		r->p++;
	*o = 0;
	return s;
}

/* The writer numbers stacks, objects and codes densely from 0, one
 * definition a line, so the id of a definition is below the line number;
 * a larger one would make memory follow the file's claims, not its size. */
static int defined_id(struct rd *r, int id, const char *what)
{
	if ((unsigned long)id >= r->lno)
		return pk_error(EINVAL, "%s:%lu: expected %s with an id below %lu (ids are numbered "
				"from 0, one definition a line), got %d", r->path, r->lno, what,
				r->lno, id);
	return 0;
}

/* grow *arr of elements of size sz to hold index i; zero the new part */
static void grow(void *arr, size_t *n, size_t i, size_t sz)
{
	void **a = arr;

	if (i < *n)
		return;
	size_t m = *n ? *n : 16;

	while (m <= i)
		m *= 2;
	*a = xrealloc(*a, m * sz);
	memset((char *)*a + *n * sz, 0, (m - *n) * sz);
	*n = m;
}

void memprof_release(struct memprof *mp)
{
	free(mp->mode);
	free(mp->cmd);
	free(mp->model);
	for (size_t i = 0; i < mp->ndesc; i++)
		free(mp->desc[i]);
	free(mp->desc);
	free(mp->thr);
	for (size_t i = 0; i < mp->nlines; i++) {
		free(mp->lines[i].thr);
		free(mp->lines[i].site);
	}
	free(mp->lines);
	free(mp->acc);
	for (size_t i = 0; i < mp->ncode; i++) {
		free(mp->code[i].fn);
		free(mp->code[i].file);
		free(mp->code[i].dso);
	}
	free(mp->code);
	for (size_t i = 0; i < mp->nobj; i++) {
		free(mp->obj[i].name);
		free(mp->obj[i].dso);
	}
	free(mp->obj);
	for (size_t i = 0; i < mp->nstack; i++)
		free(mp->stack[i].codes);
	free(mp->stack);
	memset(mp, 0, sizeof(*mp));
}

static int parse_line(struct rd *r, struct memprof *mp, const char *key, size_t *cap_lines,
		      size_t *cap_acc, int *seen_end, uint64_t end_counts[2])
{
	if (!strcmp(key, "mode")) {
		while (*r->p == ' ')
			r->p++;
		if (strcmp(r->p, "c2c") && strcmp(r->p, "mem"))
			return bad(r, "mode c2c or mem");
		free(mp->mode);
		mp->mode = xstrdup(r->p);
	} else if (!strcmp(key, "cmd")) {
		while (*r->p == ' ')
			r->p++;
		free(mp->cmd);
		mp->cmd = field(r);
	} else if (!strcmp(key, "model")) {
		while (*r->p == ' ')
			r->p++;
		free(mp->model);
		mp->model = field(r);
	} else if (!strcmp(key, "desc")) {
		while (*r->p == ' ')
			r->p++;
		mp->desc = xrealloc(mp->desc, (mp->ndesc + 1) * sizeof(char *));
		mp->desc[mp->ndesc++] = field(r);
	} else if (!strcmp(key, "line-size")) {
		uint64_t v;

		if (u64(r, &v, "line-size 64") < 0 || v != 64 || at_end(r, "line-size 64") < 0)
			return bad(r, "line-size 64");
		mp->line_size = 64;
	} else if (!strcmp(key, "thread")) {
		uint64_t s, t;

		if (u64(r, &s, "thread SERIAL TID") < 0 || u64(r, &t, "thread SERIAL TID") < 0 ||
		    at_end(r, "thread SERIAL TID") < 0 || s >= MAX_ID || t > INT32_MAX)
			return bad(r, "thread SERIAL TID");
		mp->thr = xrealloc(mp->thr, (mp->nthr + 1) * sizeof(*mp->thr));
		mp->thr[mp->nthr++] = (struct mp_thread){ (unsigned)s, (int)t };
	} else if (!strcmp(key, "line")) {
		struct mp_line l = { 0 };
		const char *w = "line 0xADDR OBJ TRANSFERS";

		if (u64(r, &l.addr, w) < 0 || id(r, &l.obj, 0, w) < 0 || u64(r, &l.transfers, w) < 0 ||
		    at_end(r, w) < 0)
			return -EINVAL;
		if (mp->nlines == *cap_lines) {
			*cap_lines = *cap_lines ? 2 * *cap_lines : 64;
			mp->lines = xrealloc(mp->lines, *cap_lines * sizeof(*mp->lines));
		}
		mp->lines[mp->nlines++] = l;
	} else if (!strcmp(key, "lt") || !strcmp(key, "ls")) {
		struct mp_line *l = mp->nlines ? &mp->lines[mp->nlines - 1] : NULL;

		if (!l)
			return bad(r, "a 'line' record before its 'lt'/'ls' records");
		if (key[1] == 't') {
			struct mp_lthr t;
			uint64_t s;
			const char *w = "lt SERIAL LOADS STORES TRANSFERS 0xRMASK 0xWMASK";

			if (u64(r, &s, w) < 0 || s >= MAX_ID || u64(r, &t.loads, w) < 0 ||
			    u64(r, &t.stores, w) < 0 || u64(r, &t.transfers, w) < 0 ||
			    u64(r, &t.rmask, w) < 0 || u64(r, &t.wmask, w) < 0 || at_end(r, w) < 0)
				return -EINVAL;
			t.serial = (unsigned)s;
			l->thr = xrealloc(l->thr, (l->nthr + 1) * sizeof(t));
			l->thr[l->nthr++] = t;
		} else {
			struct mp_lsite s;
			uint64_t ser, off, size;
			const char *w = "ls CODE SERIAL OFFSET SIZE LOADS STORES";

			if (id(r, &s.code, 0, w) < 0 || u64(r, &ser, w) < 0 || ser >= MAX_ID ||
			    u64(r, &off, w) < 0 || u64(r, &size, w) < 0 || off > 63 || size > 64 ||
			    u64(r, &s.loads, w) < 0 || u64(r, &s.stores, w) < 0 || at_end(r, w) < 0)
				return bad(r, w);
			s.serial = (unsigned)ser;
			s.off = (unsigned)off;
			s.size = (unsigned)size;
			l->site = xrealloc(l->site, (l->nsite + 1) * sizeof(s));
			l->site[l->nsite++] = s;
		}
	} else if (!strcmp(key, "acc")) {
		struct mp_acc a = { 0 };
		const char *w = "acc CODE OBJ load|store N L1 L2 LL MEM TLB1 TLB2 TLBLL TLBMEM";

		if (id(r, &a.code, 0, w) < 0 || id(r, &a.obj, 0, w) < 0)
			return -EINVAL;
		while (*r->p == ' ')
			r->p++;
		if (!strncmp(r->p, "load ", 5))
			r->p += 4;
		else if (!strncmp(r->p, "store ", 6))
			a.store = 1, r->p += 5;
		else
			return bad(r, w);
		if (u64(r, &a.n, w) < 0)
			return -EINVAL;
		for (int i = 0; i < 4; i++)
			if (u64(r, &a.lvl[i], w) < 0)
				return -EINVAL;
		for (int i = 0; i < 4; i++)
			if (u64(r, &a.tlb[i], w) < 0)
				return -EINVAL;
		if (at_end(r, w) < 0)
			return -EINVAL;
		if (mp->nacc == *cap_acc) {
			*cap_acc = *cap_acc ? 2 * *cap_acc : 64;
			mp->acc = xrealloc(mp->acc, *cap_acc * sizeof(*mp->acc));
		}
		mp->acc[mp->nacc++] = a;
	} else if (!strcmp(key, "stack")) {
		int sid;
		uint64_t n;
		const char *w = "stack ID N CODE...";

		if (id(r, &sid, 0, w) < 0 || u64(r, &n, w) < 0 || n > 256)
			return bad(r, w);
		if (defined_id(r, sid, "a stack") < 0)
			return -EINVAL;
		grow(&mp->stack, &mp->nstack, (size_t)sid, sizeof(*mp->stack));
		struct mp_stack *s = &mp->stack[sid];

		if (s->defined)
			return bad(r, "each stack id defined once");
		s->codes = xcalloc(n ? n : 1, sizeof(int));
		s->n = n;
		s->defined = 1;
		for (uint64_t i = 0; i < n; i++)
			if (id(r, &s->codes[i], 0, w) < 0)
				return -EINVAL;
		if (at_end(r, w) < 0)
			return -EINVAL;
	} else if (!strcmp(key, "object")) {
		int oid, sid;
		const char *w = "object ID heap|global|stack|unknown STACK NAME<TAB>MAPPING";
		static const char *const kinds[] = { "heap", "global", "stack", "unknown" };
		int k = -1;

		if (id(r, &oid, 0, w) < 0)
			return -EINVAL;
		while (*r->p == ' ')
			r->p++;
		for (int i = 0; i < 4; i++) {
			size_t n = strlen(kinds[i]);

			if (!strncmp(r->p, kinds[i], n) && r->p[n] == ' ') {
				k = i;
				r->p += n;
			}
		}
		if (k < 0 || id(r, &sid, 1, w) < 0 || *r->p != ' ' || (k == MP_HEAP) != (sid >= 0))
			return bad(r, w);
		r->p++;
		if (defined_id(r, oid, "an object") < 0)
			return -EINVAL;
		grow(&mp->obj, &mp->nobj, (size_t)oid, sizeof(*mp->obj));
		struct mp_object *o = &mp->obj[oid];

		if (o->defined)
			return bad(r, "each object id defined once");
		o->kind = (enum mp_kind)k;
		o->stack = sid;
		o->name = field(r);
		o->dso = field(r);
		o->defined = 1;
	} else if (!strcmp(key, "code")) {
		int cid;
		uint64_t ip, ln;
		const char *w = "code ID 0xIP LINE FUNCTION<TAB>FILE<TAB>OBJECT";

		if (id(r, &cid, 0, w) < 0 || u64(r, &ip, w) < 0 || u64(r, &ln, w) < 0 ||
		    ln > UINT32_MAX || *r->p != ' ')
			return bad(r, w);
		r->p++;
		if (defined_id(r, cid, "a code") < 0)
			return -EINVAL;
		grow(&mp->code, &mp->ncode, (size_t)cid, sizeof(*mp->code));
		struct mp_code *c = &mp->code[cid];

		if (c->defined)
			return bad(r, "each code id defined once");
		c->ip = ip;
		c->line = (unsigned)ln;
		c->fn = field(r);
		c->file = field(r);
		c->dso = field(r);
		c->defined = 1;
	} else if (!strcmp(key, "end")) {
		if (u64(r, &end_counts[0], "end LINES ACCS") < 0 ||
		    u64(r, &end_counts[1], "end LINES ACCS") < 0 || at_end(r, "end LINES ACCS") < 0)
			return -EINVAL;
		*seen_end = 1;
	} else {
		return pk_error(EINVAL, "%s:%lu: expected a record (line, lt, ls, acc, object, stack, "
				"code, thread, end …), not '%.40s'", r->path, r->lno, key);
	}
	return 0;
}

static int check_refs(struct memprof *mp, const char *path)
{
#define CODE_OK(c) ((size_t)(c) < mp->ncode && mp->code[c].defined)
#define OBJ_OK(o) ((size_t)(o) < mp->nobj && mp->obj[o].defined)
	for (size_t i = 0; i < mp->nlines; i++) {
		if (!OBJ_OK(mp->lines[i].obj))
			return pk_error(EINVAL, "%s: line 0x%" PRIx64 " refers to object %d, never defined",
					path, mp->lines[i].addr, mp->lines[i].obj);
		for (size_t k = 0; k < mp->lines[i].nsite; k++)
			if (!CODE_OK(mp->lines[i].site[k].code))
				return pk_error(EINVAL, "%s: line 0x%" PRIx64 " refers to code %d, never defined",
						path, mp->lines[i].addr, mp->lines[i].site[k].code);
	}
	for (size_t i = 0; i < mp->nacc; i++)
		if (!CODE_OK(mp->acc[i].code) || !OBJ_OK(mp->acc[i].obj))
			return pk_error(EINVAL, "%s: an acc record refers to code %d or object %d, never defined",
					path, mp->acc[i].code, mp->acc[i].obj);
	for (size_t i = 0; i < mp->nobj; i++) {
		int s = mp->obj[i].stack;

		if (!mp->obj[i].defined || s < 0)
			continue;
		if ((size_t)s >= mp->nstack || !mp->stack[s].defined)
			return pk_error(EINVAL, "%s: object %zu refers to stack %d, never defined", path, i, s);
		for (size_t k = 0; k < mp->stack[s].n; k++)
			if (!CODE_OK(mp->stack[s].codes[k]))
				return pk_error(EINVAL, "%s: stack %d refers to code %d, never defined", path,
						s, mp->stack[s].codes[k]);
	}
	return 0;
#undef CODE_OK
#undef OBJ_OK
}

int memprof_read(struct memprof *mp, const char *path)
{
	struct rd r = { path, 0, NULL };
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, cap_lines = 0, cap_acc = 0;
	ssize_t n;
	int rc = 0, seen_end = 0;
	uint64_t end_counts[2] = { 0, 0 };

	memset(mp, 0, sizeof(*mp));
	if (!f)
		return pk_error(errno, "cannot open '%s': %s", path, strerror(errno));
	while ((n = getline(&buf, &cap, f)) >= 0) {
		char key[16];
		size_t k = 0;

		r.lno++;
		if (n > 0 && buf[n - 1] == '\n') {
			buf[--n] = 0;
		} else if (r.lno > 1) {
			rc = pk_error(EINVAL, "%s:%lu: cut short in the middle of a record (no newline "
				      "at the end; was the recording interrupted?)", path, r.lno);
			break;
		}
		if ((size_t)n != strlen(buf)) {
			rc = pk_error(EINVAL, "%s:%lu: expected text, found a NUL byte", path, r.lno);
			break;
		}
		if (r.lno == 1) {
			if (strcmp(buf, "perfkit-memprof 1")) {
				rc = pk_error(EINVAL, "%s:1: expected 'perfkit-memprof 1' (a file of perfkit "
					      "c2c record or perfkit mem record)", path);
				break;
			}
			continue;
		}
		if (seen_end) {
			rc = pk_error(EINVAL, "%s:%lu: expected nothing after the 'end' record", path, r.lno);
			break;
		}
		while (buf[k] && buf[k] != ' ' && k < sizeof(key) - 1) {
			key[k] = buf[k];
			k++;
		}
		key[k] = 0;
		r.p = buf + k;
		if (buf[k] && buf[k] != ' ') {
			rc = pk_error(EINVAL, "%s:%lu: expected a record, not '%.40s'", path, r.lno, buf);
			break;
		}
		rc = parse_line(&r, mp, key, &cap_lines, &cap_acc, &seen_end, end_counts);
		if (rc < 0)
			break;
	}
	if (rc == 0 && ferror(f))
		rc = pk_error(EIO, "%s: read error", path);
	if (rc == 0 && r.lno == 0)
		rc = pk_error(EINVAL, "%s: empty file (expected 'perfkit-memprof 1'; did the record run "
			      "finish?)", path);
	if (rc == 0 && !seen_end)
		rc = pk_error(EINVAL, "%s: cut short after line %lu: expected the closing 'end' record "
			      "(was the recording interrupted?)", path, r.lno);
	if (rc == 0 && (end_counts[0] != mp->nlines || end_counts[1] != mp->nacc))
		rc = pk_error(EINVAL, "%s: cut short: 'end' counts %" PRIu64 " lines and %" PRIu64
			      " accs, the file holds %zu and %zu", path, end_counts[0], end_counts[1],
			      mp->nlines, mp->nacc);
	if (rc == 0 && (!mp->mode || !mp->line_size))
		rc = pk_error(EINVAL, "%s: expected 'mode' and 'line-size' records in the header", path);
	if (rc == 0)
		rc = check_refs(mp, path);
	if (rc == 0) {
		/* the preloaded allocation hooks' own loads and stores are
		 * perfkit's, not the program's: not counted (they were 12 % of
		 * listchase's accesses, a row of their own) */
		size_t k = 0;

		for (size_t i = 0; i < mp->nacc; i++)
			if (!strstr(mp->code[mp->acc[i].code].dso, "pkmemwrap"))
				mp->acc[k++] = mp->acc[i];
		mp->nacc = k;
	}
	free(buf);
	fclose(f);
	if (rc < 0)
		memprof_release(mp);
	return rc;
}

/* thread k's accesses (from its sites) to any byte of mask m */
static uint64_t accesses_in(const struct mp_line *l, unsigned k, uint64_t m)
{
	uint64_t n = 0;

	for (size_t i = 0; i < l->nsite; i++) {
		const struct mp_lsite *s = &l->site[i];
		uint64_t sm = (s->size >= 64 ? ~0ULL : ((1ULL << s->size) - 1)) << s->off;

		if (s->serial == k && (sm & m))
			n += s->loads + s->stores;
	}
	return n;
}

enum mp_class memprof_classify(const struct mp_line *l)
{
	int writers = 0;

	for (size_t i = 0; i < l->nthr; i++) {
		const struct mp_lthr *t = &l->thr[i];

		writers += t->wmask != 0;
		if (!t->wmask)
			continue;
		for (size_t k = 0; k < l->nthr; k++) {
			const struct mp_lthr *u = &l->thr[k];
			uint64_t n;

			if (k == i || !(t->wmask & (u->rmask | u->wmask)))
				continue;
			/* the same bytes, and not just a glance (a result read
			 * once after the run): over 1 % of u's accesses */
			n = accesses_in(l, u->serial, t->wmask);
			if (n * 100 > u->loads + u->stores)
				return MP_TRUE_SHARING;
		}
	}
	return writers ? MP_FALSE_SHARING : MP_READ_SHARED;
}

const char *memprof_class_name(enum mp_class c)
{
	switch (c) {
	case MP_FALSE_SHARING:
		return "false sharing";
	case MP_TRUE_SHARING:
		return "true sharing";
	default:
		return "read-mostly";
	}
}

int memprof_tid(const struct memprof *mp, unsigned s)
{
	for (size_t i = 0; i < mp->nthr; i++)
		if (mp->thr[i].serial == s && mp->thr[i].tid > 0)
			return mp->thr[i].tid;
	return (int)s;
}

const char *memprof_srcline(const struct memprof *mp, int code, char *buf, size_t n)
{
	const struct mp_code *c = &mp->code[code];

	if (c->line && c->file[0]) {
		const char *b = strrchr(c->file, '/');

		snprintf(buf, n, "%s:%u", b ? b + 1 : c->file, c->line);
	} else if (strcmp(c->fn, "???")) {
		snprintf(buf, n, "%s", c->fn);
	} else {
		snprintf(buf, n, "0x%" PRIx64, c->ip);
	}
	return buf;
}

static int allocator_fn(const char *fn)
{
	static const char *const names[] = { "malloc", "calloc", "realloc", "free", "memalign",
		"aligned_alloc", "posix_memalign", "valloc", "strdup", "strndup", "__strdup",
		"__libc_malloc", "__libc_calloc", "__libc_realloc", "???", NULL };

	for (int i = 0; names[i]; i++)
		if (!strcmp(fn, names[i]))
			return 1;
	return !strncmp(fn, "operator new", 12) || !strncmp(fn, "_Zn", 3);
}

int memprof_alloc_site(const struct memprof *mp, int stack)
{
	const struct mp_stack *s;

	if (stack < 0 || (size_t)stack >= mp->nstack)
		return -1;
	s = &mp->stack[stack];
	for (size_t i = 0; i < s->n; i++) {
		const struct mp_code *c = &mp->code[s->codes[i]];

		if (!allocator_fn(c->fn) && !strstr(c->dso, "pkmemwrap"))
			return s->codes[i];
	}
	return s->n ? s->codes[0] : -1;
}

const char *memprof_object_desc(const struct memprof *mp, int obj, char *buf, size_t n)
{
	const struct mp_object *o = &mp->obj[obj];
	const char *b = strrchr(o->dso, '/');
	char src[256];
	int site;

	switch (o->kind) {
	case MP_GLOBAL:
		snprintf(buf, n, "`%s` (%s)", o->name, b ? b + 1 : o->dso);
		break;
	case MP_HEAP:
		site = memprof_alloc_site(mp, o->stack);
		if (site < 0)
			snprintf(buf, n, "heap block (allocation stack unknown)");
		else
			snprintf(buf, n, "block allocated at %s (%s)",
				 memprof_srcline(mp, site, src, sizeof(src)), mp->code[site].fn);
		break;
	case MP_STACK:
		snprintf(buf, n, "[stack]");
		break;
	default:
		snprintf(buf, n, "[unknown] in %s", b ? b + 1 : o->dso);
		break;
	}
	return buf;
}
