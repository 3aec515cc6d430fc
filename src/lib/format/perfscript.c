/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfscript.c — `perf script` text → folded stacks (see perfscript.h).
 *
 * The Perl regexes of stackcollapse-perf.pl are emulated by hand; each
 * matcher below states the regex and why the chosen captures are the ones
 * Perl's backtracking picks.
 */
#include "format/perfscript.h"
#include "symbol/inline.h"
#include "symbol/demangle.h"
#include "base/error.h"
#include "base/strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define MAX_WARN_LINES 3

/* Perl's \s, \d, \w on byte strings (ASCII rules), by table. */
enum { C_SP = 1, C_DIG = 2, C_WORD = 4 };
#define R4(x) x, x, x, x
#define R16(x) R4(x), R4(x), R4(x), R4(x)
static const unsigned char cls[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, C_SP, C_SP, C_SP, C_SP, C_SP, 0, 0,  /* \t..\r */
	R16(0),
	C_SP, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,              /* ' ' */
	R4(C_DIG | C_WORD), R4(C_DIG | C_WORD), C_DIG | C_WORD, C_DIG | C_WORD, 0, 0, 0, 0, 0, 0,
	0, R4(C_WORD), R4(C_WORD), R4(C_WORD), C_WORD, C_WORD, C_WORD,   /* '@', A-O */
	R4(C_WORD), R4(C_WORD), C_WORD, C_WORD, C_WORD, 0, 0, 0, 0, C_WORD, /* P-Z, '_' */
	0, R4(C_WORD), R4(C_WORD), R4(C_WORD), C_WORD, C_WORD, C_WORD,   /* '`', a-o */
	R4(C_WORD), R4(C_WORD), C_WORD, C_WORD, C_WORD, 0, 0, 0, 0, 0,   /* p-z */
};

static inline bool is_sp(unsigned char c)
{
	return cls[c] & C_SP;
}
static inline bool is_dig(unsigned char c)
{
	return cls[c] & C_DIG;
}
static inline bool is_word(unsigned char c)
{
	return cls[c] & C_WORD;
}

static const char *mem_find(const char *h, size_t hn, const char *n, size_t nn)
{
	return nn ? memmem(h, hn, n, nn) : h;
}

/* ---- line reader: fd (plain or gzip) or memory ------------------------ */

struct lreader {
	int fd;
	const char *name;
	bool gz, eof, zdone, zopen;   /* zopen: inside a gzip member */
	z_stream zs;
	unsigned char *zbuf;
	size_t zcap;
	char *buf;
	size_t cap, pos, scan, end;
	bool own_buf;
	uint64_t lineno;
	uint64_t offset;      /* bytes consumed before buf[0] */
};

#define LR_CHUNK (1u << 20)

static int lr_read_raw(struct lreader *r, void *dst, size_t n, size_t *got)
{
	for (;;) {
		ssize_t k = read(r->fd, dst, n);
		if (k >= 0) {
			*got = (size_t)k;
			return 0;
		}
		if (errno != EINTR)
			return pk_error(errno, "%s: read error: %s", r->name, strerror(errno));
	}
}

/* Append more decompressed or raw bytes at buf[end]; sets eof at the end. */
static int lr_fill(struct lreader *r)
{
	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->end - r->pos);
		r->offset += r->pos;
		r->scan -= r->pos;
		r->end -= r->pos;
		r->pos = 0;
	}
	if (r->cap - r->end < LR_CHUNK / 2) {
		r->cap = r->cap ? r->cap * 2 : 4 * (size_t)LR_CHUNK;
		r->buf = xrealloc(r->buf, r->cap);
	}
	if (!r->gz) {
		size_t got;
		int ret = lr_read_raw(r, r->buf + r->end, r->cap - r->end, &got);
		if (ret)
			return ret;
		if (!got)
			r->eof = true;
		r->end += got;
		return 0;
	}
	for (;;) {
		if (!r->zs.avail_in && !r->zdone) {
			size_t got;
			int ret = lr_read_raw(r, r->zbuf, r->zcap, &got);
			if (ret)
				return ret;
			if (!got)
				r->zdone = true;
			r->zs.next_in = r->zbuf;
			r->zs.avail_in = (uInt)got;
		}
		if (!r->zs.avail_in && r->zdone) {
			if (r->zopen)
				return pk_error(EINVAL, "%s: truncated gzip data (ends at compressed offset %lu)",
						r->name, r->zs.total_in);
			r->eof = true;
			return 0;
		}
		r->zopen = true;
		r->zs.next_out = (unsigned char *)r->buf + r->end;
		r->zs.avail_out = (uInt)(r->cap - r->end);
		int z = inflate(&r->zs, Z_NO_FLUSH);
		size_t produced = (size_t)((char *)r->zs.next_out - (r->buf + r->end));
		r->end += produced;
		if (z == Z_STREAM_END) {
			r->zopen = false;
			/* concatenated members: go on if more input follows */
			if (inflateReset(&r->zs) != Z_OK)
				return pk_error(EIO, "%s: gzip reset failed", r->name);
		} else if (z != Z_OK && z != Z_BUF_ERROR) {
			return pk_error(EINVAL, "%s: corrupt gzip data near compressed offset %lu: %s",
					r->name, r->zs.total_in,
					r->zs.msg ? r->zs.msg : "inflate failed");
		}
		if (produced)
			return 0;
	}
}

/* The first '\n' in [p, e), or NULL: 16 bytes a step, inline (lines are
 * short: a libc call per line costs more than the search). */
static inline const char *find_nl(const char *p, const char *e)
{
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n');
	while (e - p >= 16) {
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), nl));
		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
#endif
	return memchr(p, '\n', (size_t)(e - p));
}

/* lr_next past its fast path: the line runs past the bytes read. */
static int lr_next_slow(struct lreader *r, const char **line, size_t *len)
{
	for (;;) {
		char *nl = (char *)find_nl(r->buf + r->scan, r->buf + r->end);
		if (nl) {
			*line = r->buf + r->pos;
			*len = (size_t)(nl - (r->buf + r->pos));
			if (*len && nl[-1] == '\r')   /* CRLF text: "\r\n" ends a line */
				(*len)--;
			r->pos = r->scan = (size_t)(nl - r->buf) + 1;
			r->lineno++;
			return 1;
		}
		r->scan = r->end;
		if (r->eof) {
			if (r->pos < r->end) {
				*line = r->buf + r->pos;
				*len = r->end - r->pos;
				if ((*line)[*len - 1] == '\r')
					(*len)--;
				r->pos = r->scan = r->end;
				r->lineno++;
				return 1;
			}
			return 0;
		}
		int ret = lr_fill(r);
		if (ret)
			return ret;
	}
}

/* Next line without its '\n': 1, 0 at end of input, or -errno. */
static inline int lr_next(struct lreader *r, const char **line, size_t *len)
{
	const char *nl = find_nl(r->buf + r->scan, r->buf + r->end);

	if (__builtin_expect(nl != NULL, 1)) {
		const char *l = r->buf + r->pos;
		size_t n = (size_t)(nl - l);

		if (n && nl[-1] == '\r')   /* CRLF text: "\r\n" ends a line */
			n--;
		*line = l;
		*len = n;
		r->pos = r->scan = (size_t)(nl - r->buf) + 1;
		r->lineno++;
		return 1;
	}
	r->scan = r->end;
	return lr_next_slow(r, line, len);
}

/* a[0..n) == b[0..n): inline, 16 or 8 bytes a step (the last
 * step overlapping the one before), a libc call costing more than the
 * compare of a frame line's key. */
static inline bool eq_bytes(const char *a, const char *b, size_t n)
{
#ifdef __SSE2__
	if (n >= 16) {
		for (size_t i = 0; i + 16 < n; i += 16)
			if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(a + i)),
							     _mm_loadu_si128((const __m128i *)(const void *)(b + i)))) != 0xffff)
				return false;
		return _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(a + n - 16)),
							_mm_loadu_si128((const __m128i *)(const void *)(b + n - 16)))) == 0xffff;
	}
#endif
	if (n >= 8) {
		uint64_t x, y, u, v;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		memcpy(&u, a + n - 8, 8);
		memcpy(&v, b + n - 8, 8);
		return x == y && u == v;
	}
	return !memcmp(a, b, n);
}

/* ---- the collapser ---------------------------------------------------- */

struct group {
	uint32_t off, n;   /* frame ids pool[off..off+n), root first */
};

/*
 * The frame-line cache: the text of a frame line from its symbol (or, with
 * addrs/inline, its address) to the last ')' → the frames it names.  A
 * record holds its line (the key is part of it), its frame ids (inline
 * when one) and the records of the two lines that followed it last: the
 * caller's line of a stack seen before is most often one of them (all but
 * 4 % of the lines after a sample's first, on a compile job's profile), so
 * they are compared first, with no hashing and no table probe, and fetched
 * ahead while the current line is processed.
 */
struct fc_rec {
	struct fc_rec *succ;   /* the line that followed this one last time */
	struct fc_rec *succ2;  /* the one that followed it before, if another */
	uint32_t len;          /* key length */
	uint32_t n;            /* frame ids: id when n == 1, else group's */
	uint32_t id;
	uint32_t group;
	uint32_t llen;         /* the whole line that made it (0: not kept) */
	uint32_t koff;         /* where the key starts in line[] */
	char line[];           /* the line (llen bytes) holding the key at koff,
				* or the key alone (llen 0): one copy, so the
				* predicted line's compare reads few cache lines */
};

static inline const char *fc_key(const struct fc_rec *r)
{
	return r->line + r->koff;
}

/* Fetch r's first 192 bytes (its fields and most lines) into the cache,
 * without reading r (which would wait for it). */
static inline void fc_prefetch(const struct fc_rec *r)
{
	__builtin_prefetch(r);
	__builtin_prefetch((const char *)r + 64);
	__builtin_prefetch((const char *)r + 128);
}

struct fcache {
	struct fc_slot { uint64_t hash; struct fc_rec *rec; } *slots;
	size_t mask, nr;
	struct pk_arena arena;
};

struct ps_collapser {
	struct collapse_opts o;
	struct folded *out;
	struct fcache cache[2];    /* frame line text → group; [1]: java process */
	struct fc_rec *prev;       /* the current sample's last cached line */

	/* While run_reader reads, finished stacks wait NPEND samples before
	 * they are added to out, while their slot, entry and key are fetched
	 * into the cache: on a large profile that lookup misses the cache. */
	bool defer;
	/* Look-ahead (text in memory): the first frame line of each of the
	 * next LA_N samples is found ahead, its key hashed and its slot,
	 * then its record, fetched into the cache, so the table lookup of a
	 * sample's first line (no prediction there) does not wait on memory. */
	bool la_on;
	const char *la, *la_end;   /* scanned up to la */
	struct la_ent {
		const char *start, *line;
		size_t n, ks, kl, p0, W, q;   /* frame_key's answer */
		uint64_t h;
		const struct fc_rec *rec;   /* the record of hash h, once fetched */
		bool ok, java;
	} la_ring[4];
	unsigned la_head, la_n;
	struct la_ent la_cur_ent;
	const struct la_ent *la_cur;   /* the current sample's first frame line, or NULL */
	struct pend { uint32_t *ids; size_t n, a; uint64_t h, count; } pend[3];
	unsigned npend, pend_head;

	/* The last headers read in perf's layout, less their time: a header
	 * equal to one of them but for the time gives the same sample start
	 * (comm, pid, tid, event, period), so its fields are not parsed and
	 * its process name not interned again. */
	struct hmemo {
		char *pre, *suf;       /* up to the time; from the time's ':' */
		size_t prel, sufl, apre, asuf;
		uint32_t *ids;
		size_t nids, aids;
		uint64_t period;
		bool java, valid;
	} hm[4];
	unsigned hm_next, hm_hit;

	struct group *groups;
	size_t ngroups, agroups;
	uint32_t *pool;
	size_t npool, apool;

	/* current sample */
	bool have_pname, java;
	uint64_t period;
	uint32_t *pname_ids;
	size_t npname, apname;
	uint32_t *cur;             /* frame ids, leaf first (groups reversed) */
	size_t ncur, acur;
	uint32_t *stack;           /* scratch for a finished stack */
	size_t astack;

	struct strbuf filter;
	bool filter_defaulted;
	uint64_t dropped;
	struct strbuf dropped_event;

	struct strbuf func, tmp, pname, key, pname_tmp;
	struct lreader *rd;        /* for --srcline */
	uint64_t unrecognised;
	uint64_t oneline;          /* samples without a call chain */
	uint64_t warn_lineno[MAX_WARN_LINES];
	struct strbuf warn_text[MAX_WARN_LINES];
	uint64_t lines;            /* lines read so far */
	const char *name;

	struct inline_resolver *inl;
	bool force_kernel;
	/* a typed frame being named (psc_frame_names): its DSO, ELF address,
	 * symbol and offset for the typed inline chain; dso NULL: text */
	const char *t_dso, *t_sym;
	uint64_t t_addr, t_off;
	struct strbuf dem;         /* --demangle scratch */
	char *rust;                /* sym_rust_legacy_fixup scratch */
	size_t arust;
};

struct ps_collapser *psc_new(const struct collapse_opts *o, struct folded *out)
{
	struct ps_collapser *c = xcalloc(1, sizeof(*c));

	c->o = *o;
	c->out = out;
	sb_init(&c->filter, 0);
	sb_init(&c->dropped_event, 0);
	sb_init(&c->func, 64);
	sb_init(&c->tmp, 0);
	sb_init(&c->pname, 64);
	sb_init(&c->key, 0);
	sb_init(&c->pname_tmp, 0);
	sb_init(&c->dem, 0);
	if (o->event_filter && *o->event_filter) {
		sb_addstr(&c->filter, o->event_filter);
	} else if (o->first_event && *o->first_event) {
		sb_addstr(&c->filter, o->first_event);
		c->filter_defaulted = true;
	}
	c->name = "<input>";
	for (int i = 0; i < MAX_WARN_LINES; i++)
		sb_init(&c->warn_text[i], 0);
	return c;
}

void psc_free(struct ps_collapser *c)
{
	if (!c)
		return;
	for (int i = 0; i < 2; i++) {
		free(c->cache[i].slots);
		pk_arena_release(&c->cache[i].arena);
	}
	free(c->groups);
	free(c->pool);
	free(c->pname_ids);
	free(c->cur);
	free(c->stack);
	for (int i = 0; i < 3; i++)
		free(c->pend[i].ids);
	for (int i = 0; i < 4; i++) {
		free(c->hm[i].pre);
		free(c->hm[i].suf);
		free(c->hm[i].ids);
	}
	sb_release(&c->filter);
	sb_release(&c->dropped_event);
	sb_release(&c->func);
	sb_release(&c->tmp);
	sb_release(&c->pname);
	sb_release(&c->key);
	sb_release(&c->pname_tmp);
	sb_release(&c->dem);
	free(c->rust);
	for (int i = 0; i < MAX_WARN_LINES; i++)
		sb_release(&c->warn_text[i]);
	inline_resolver_free(c->inl);
	free(c);
}

static struct fc_rec *fc_find(const struct fcache *t, const char *key, size_t len, uint64_t h)
{
	if (!t->mask)
		return NULL;
	for (size_t s = h & t->mask;; s = (s + 1) & t->mask) {
		const struct fc_slot *sl = &t->slots[s];
		if (!sl->rec)
			return NULL;
		if (sl->hash == h && sl->rec->len == len && !memcmp(fc_key(sl->rec), key, len))
			return sl->rec;
	}
}

static void fc_place(struct fcache *t, uint64_t h, struct fc_rec *r)
{
	size_t s = h & t->mask;

	while (t->slots[s].rec)
		s = (s + 1) & t->mask;
	t->slots[s].hash = h;
	t->slots[s].rec = r;
}

/* key (len bytes) lies in line (llen bytes). */
static struct fc_rec *fc_insert(struct fcache *t, const char *key, size_t len, uint64_t h,
				 const char *line, size_t llen)
{
	if ((t->nr + 1) * 2 > t->mask + 1 || !t->mask) {
		size_t ns = t->mask ? (t->mask + 1) * 2 : 1024, on = t->mask ? t->mask + 1 : 0;
		struct fc_slot *old = t->slots;
		t->slots = xcalloc_huge(ns, sizeof(*t->slots));
		t->mask = ns - 1;
		for (size_t i = 0; i < on; i++)
			if (old[i].rec)
				fc_place(t, old[i].hash, old[i].rec);
		free(old);
	}
	bool whole = llen <= UINT32_MAX;
	struct fc_rec *r = pk_arena_alloc(&t->arena, sizeof(*r) + (whole ? llen : len));
	r->succ = r->succ2 = NULL;
	r->len = (uint32_t)len;
	r->llen = whole ? (uint32_t)llen : 0;
	r->koff = whole ? (uint32_t)(key - line) : 0;
	memcpy(r->line, whole ? line : key, whole ? llen : len);
	fc_place(t, h, r);
	t->nr++;
	return r;
}

#define GROW(p, n, a, need) do {                                        \
	if ((n) + (need) > (a)) {                                       \
		size_t na_ = (a) ? (a) * 2 : 256;                       \
		while (na_ < (n) + (need))                              \
			na_ *= 2;                                       \
		(p) = xrealloc((p), na_ * sizeof(*(p)));                \
		(a) = na_;                                              \
	}                                                               \
} while (0)

/* Intern s (split on ';') and append the ids to the pool. */
static void pool_push(struct ps_collapser *c, const char *s, size_t n)
{
	size_t start = 0;

	for (size_t i = 0; i <= n; i++) {
		if (i == n || s[i] == ';') {
			GROW(c->pool, c->npool, c->apool, 1);
			c->pool[c->npool++] = folded_frame_id(c->out, s + start, i - start);
			start = i + 1;
		}
	}
}

static void warn_line(struct ps_collapser *c, const char *l, size_t n)
{
	/* kept here and shown by psc_finish: parsing may run on another thread */
	if (c->unrecognised < MAX_WARN_LINES) {
		c->warn_lineno[c->unrecognised] = c->rd ? c->rd->lineno : 0;
		struct strbuf *w = &c->warn_text[c->unrecognised];
		for (size_t i = 0; i < n && w->len < 120; i++) {
			unsigned char ch = (unsigned char)l[i];
			if (ch >= 0x20 && ch < 0x7f)
				sb_addch(w, ch);
			else if (ch == '\t')
				sb_add(w, "\\t", 2);
			else
				sb_addf(w, "\\x%02x", ch);
		}
	}
	c->unrecognised++;
}

/* --- frame naming (stackcollapse-perf.pl's per-frame rules) --- */

/* One step of a C++ name scan: advances *i past one token, tracking the
 * template depth.  "operator<", "operator<<", "operator->" … are not
 * brackets. */
static void tmpl_step(const char *s, size_t n, size_t *i, int *depth)
{
	size_t k = *i;

	if (s[k] == 'o' && n - k >= 8 && !memcmp(s + k, "operator", 8) &&
	    (k == 0 || !is_word((unsigned char)s[k - 1]))) {
		static const char *const ops[] = { "<=>", "<<=", ">>=", "->*", "<<", ">>",
						   "<=", ">=", "->", "<", ">" };
		k += 8;
		for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
			size_t ol = strlen(ops[o]);
			if (n - k >= ol && !memcmp(s + k, ops[o], ol)) {
				k += ol;
				break;
			}
		}
		*i = k;
		return;
	}
	if (s[k] == '-' && k + 1 < n && s[k + 1] == '>') {
		*i = k + 2;
		return;
	}
	if (s[k] == '<' || s[k] == '{')
		(*depth)++;
	else if ((s[k] == '>' || s[k] == '}') && *depth > 0)
		(*depth)--;
	*i = k + 1;
}

/* s[i] == '(' opens the parameter list of a function that encloses a
 * local entity ("f(int)::{lambda(int)#1}", "A::g() const::S::h"): its
 * ')', cv- and ref-qualifiers, then "::".  Returns the index after the
 * "::", or 0 when it is not one. */
static size_t enclosing_params_end(const char *s, size_t n, size_t i)
{
	static const char *const quals[] = { " const", " volatile", " &&", " &" };
	int par = 0;

	for (; i < n; i++) {
		if (s[i] == '(') {
			par++;
		} else if (s[i] == ')' && --par == 0) {
			break;
		}
	}
	if (i >= n)
		return 0;
	i++;
	for (bool more = true; more;) {
		more = false;
		for (size_t q = 0; q < sizeof(quals) / sizeof(quals[0]); q++) {
			size_t ql = strlen(quals[q]);
			if (n - i >= ql && !memcmp(s + i, quals[q], ql)) {
				i += ql;
				more = true;
			}
		}
	}
	return n - i >= 2 && s[i] == ':' && s[i + 1] == ':' ? i + 2 : 0;
}

/* Length of s after Perl's s/\((?!anonymous namespace\)).*$// with the
 * C++ corrections: a '(' inside <…> or {…} ("{lambda(int)#1}") that closes
 * later is kept, and so is the parameter list of a function that encloses
 * a local entity ("f(int)::{lambda(int)#1}::operator()(int) const" becomes
 * "f(int)::{lambda(int)#1}::operator", not "f": perf shows the lambda as
 * "f(int)::{lambda(int)#1}::operator()", and cutting at its first '('
 * would draw a lambda called by f as f calling itself). */
static size_t cut_args(const char *s, size_t n)
{
	static const char anon[] = "anonymous namespace)";
	const size_t anonl = sizeof(anon) - 1;
	size_t i = 0, z = 0;
	int depth = 0;

	if (!memchr(s, '(', n))
		return n;
	/* pass 1: the last point where an open template closes */
	while (i < n) {
		int before = depth;
		tmpl_step(s, n, &i, &depth);
		if (before > 0 && depth == 0)
			z = i;
	}
	i = 0;
	depth = 0;
	while (i < n) {
		if (s[i] == '(' && !(n - i - 1 >= anonl && !memcmp(s + i + 1, anon, anonl)) &&
		    (depth == 0 || i >= z)) {
			size_t e = enclosing_params_end(s, n, i);
			if (!e)
				return i;
			i = e;
			continue;
		}
		tmpl_step(s, n, &i, &depth);
	}
	return n;
}

/* Perl's m/\.\(.*\)\./ (a Go method name such as "net/http.(*Client).Do"). */
static bool is_go_method(const char *s, size_t n)
{
	const char *a = mem_find(s, n, ".(", 2);

	if (!a)
		return false;
	size_t from = (size_t)(a - s) + 2;   /* ")." may start right after ".(" */
	for (size_t j = n; j >= from + 2; j--)
		if (s[j - 2] == ')' && s[j - 1] == '.')
			return true;
	return false;
}

/* m:/tmp/perf-\d+\.map: (a perf map), or a DSO that perf inject --jit
 * wrote from a jitdump: "…/jitted-PID-N.so" (as inferno tags them). */
static bool is_jit_map(const char *m, size_t n)
{
	const char *p = m, *e = m + n;

	if (n > 10 && !memcmp(m + n - 3, ".so", 3) &&
	    (!memcmp(m, "jitted-", 7) || mem_find(m, n, "/jitted-", 8)))
		return true;

	while ((p = mem_find(p, (size_t)(e - p), "/tmp/perf-", 10))) {
		const char *d = p + 10, *q = d;
		while (q < e && is_dig((unsigned char)*q))
			q++;
		if (q > d && e - q >= 4 && !memcmp(q, ".map", 4))
			return true;
		p++;
	}
	return false;
}

/* m/(perf-\d+.map|kernel\.|\[[^\]]+\])/: DSOs --inline leaves alone. */
static bool inline_excluded(const char *m, size_t n)
{
	const char *p = m, *e = m + n;

	while ((p = mem_find(p, (size_t)(e - p), "perf-", 5))) {
		const char *d = p + 5, *q = d;
		while (q < e && is_dig((unsigned char)*q))
			q++;
		if (q > d && e - q >= 4 && !memcmp(q + 1, "map", 3))
			return true;
		p++;
	}
	if (mem_find(m, n, "kernel.", 7))
		return true;
	for (size_t i = 0; i < n; i++) {
		if (m[i] != '[')
			continue;
		const char *cl = memchr(m + i + 1, ']', n - i - 1);
		if (cl && cl > m + i + 1)
			return true;
	}
	return false;
}

/* The kernel image with an optional version suffix: "vmlinux",
 * "/usr/lib/debug/boot/vmlinux-5.4.14-cloudflare-2020.1.11" (the last
 * "vmlinux" followed only by [A-Za-z0-9._-]). */
static bool is_vmlinux(const char *m, size_t n)
{
	const char *v = NULL;

	for (const char *p = m; (p = mem_find(p, (size_t)(m + n - p), "vmlinux", 7)); p++)
		v = p;
	if (!v)
		return false;
	for (const char *p = v + 7; p < m + n; p++)
		if (!is_word((unsigned char)*p) && *p != '-' && *p != '.')
			return false;
	return true;
}

/* A kernel DSO: "[kernel.kallsyms]", "[mod]", a vmlinux (versioned too),
 * a module file "….ko"; never one naming "unknown".  The Perl script takes
 * m/(^\[|vmlinux$)/; the versioned vmlinux and .ko are inferno's. */
static bool is_kernel_mod(const char *m, size_t n)
{
	if (mem_find(m, n, "unknown", 7))
		return false;
	return (n && m[0] == '[') || is_vmlinux(m, n) ||
	       (n > 3 && !memcmp(m + n - 3, ".ko", 3));
}

/* Append a srcline line (perf script -F+srcline) to func, as the Perl
 * script does: s/\[.*?\]//g, trimmed, ":" + text unless empty. */
static void add_srcline(struct ps_collapser *c, struct strbuf *func)
{
	const char *l = NULL;
	size_t n = 0;

	if (!c->rd || lr_next(c->rd, &l, &n) <= 0)
		return;
	sb_reset(&c->tmp);
	for (size_t i = 0; i < n; i++) {
		if (l[i] == '[') {
			const char *cl = memchr(l + i + 1, ']', n - i - 1);
			if (cl) {
				i = (size_t)(cl - l);
				continue;
			}
		}
		sb_addch(&c->tmp, l[i]);
	}
	size_t a = 0, b = c->tmp.len;
	while (a < b && is_sp((unsigned char)c->tmp.buf[a]))
		a++;
	while (b > a && is_sp((unsigned char)c->tmp.buf[b - 1]))
		b--;
	if (b > a) {
		sb_addch(func, ':');
		sb_add(func, c->tmp.buf + a, b - a);
	}
}

/* The Perl script skips a frame whose symbol starts with '(' ("skip
 * process names", a rule from the perf script of 2012).  Only a symbol
 * that is one parenthesised group and nothing more is skipped here: C++
 * names that start with a parenthesised qualifier are real functions
 * ("(anonymous namespace)::helper"), and dropping them drew their samples
 * as their caller's self time. */
static bool is_process_name(const char *raw, size_t n)
{
	int par = 0;

	if (!n || raw[0] != '(')
		return false;
	for (size_t i = 0; i < n; i++) {
		if (raw[i] == '(')
			par++;
		else if (raw[i] == ')' && --par == 0)
			return i + 1 == n;
	}
	return true;   /* never closed: as the Perl script */
}

/* A typed frame's inline chain (symbol/inline.h), each item named as the
 * text lines of inline_resolve would name it, into the pool; false when
 * there is none (or one unnamed item: "??", "??:??:0"), for the plain
 * rules. */
static bool inline_typed(struct ps_collapser *c)
{
	const struct inline_frame *v;
	int n = inline_chain(c->inl, c->t_dso, c->t_addr, c->t_sym, c->t_sym ? strlen(c->t_sym) : 0, c->t_off,
			     &v);

	if (n <= 0)
		return false;
	if (n == 1) {
		sb_reset(&c->tmp);
		inline_frame_text(&v[0], c->o.context, true, false, &c->tmp);
		if (!c->tmp.len || !strcmp(c->tmp.buf, "??") || !strcmp(c->tmp.buf, "??:??:0"))
			return false;
	}
	for (int i = 0; i < n; i++) {
		sb_reset(&c->tmp);
		inline_frame_text(&v[i], c->o.context, true, false, &c->tmp);
		pool_push(c, c->tmp.buf, c->tmp.len);   /* split at a ';' as the text was */
	}
	return true;
}

/* Name the frames of one frame line and store them as a group (root
 * first); returns the group index. */
static uint32_t process_frame(struct ps_collapser *c, const char *pc, size_t pcl,
			      const char *raw, size_t rawl, const char *mod, size_t modl,
			      bool java)
{
	size_t gstart = c->npool;
	struct strbuf *func = &c->func;

	if (c->o.inline_ && !inline_excluded(mod, modl)) {
		if (!c->inl)
			c->inl = inline_resolver_new();
		if (c->t_dso) {
			if (inline_typed(c))
				goto done;
			goto plain;
		}
		sb_reset(&c->tmp);
		if (inline_resolve(c->inl, pc, pcl, raw, rawl, mod, modl, c->o.context, &c->tmp) == 0 &&
		    c->tmp.len && strcmp(c->tmp.buf, "??") && strcmp(c->tmp.buf, "??:??:0")) {
			pool_push(c, c->tmp.buf, c->tmp.len);
			goto done;
		}
	}
plain:
	/* s/\+0x[\da-f]+$// */
	{
		size_t e = rawl;
		while (e > 0 && (is_dig((unsigned char)raw[e - 1]) ||
				 (raw[e - 1] >= 'a' && raw[e - 1] <= 'f')))
			e--;
		if (e < rawl && e >= 3 && !memcmp(raw + e - 3, "+0x", 3))
			rawl = e - 3;
	}
	if (is_process_name(raw, rawl))
		goto done;
	/* --demangle: names perf printed mangled (perf script --no-demangle) */
	if (c->o.demangle && rawl >= 3 && sym_is_mangled(raw)) {
		char *d = sym_demangle(raw, rawl, 0);
		if (d) {
			sb_reset(&c->dem);
			sb_addstr(&c->dem, d);
			free(d);
			raw = c->dem.buf;
			rawl = c->dem.len;
		}
	}
	/* Rust legacy names a profiler demangled halfway ("…$LT$T$GT$::h…") */
	{
		GROW(c->rust, 0, c->arust, rawl + 1);
		size_t rl = sym_rust_legacy_fixup(raw, rawl, c->rust);
		if (rl) {
			raw = c->rust;
			rawl = rl;
		}
	}

	/* split /->/ (trailing empty fields dropped) */
	size_t end = rawl;
	for (;;) {   /* drop trailing empty fields */
		if (end >= 2 && raw[end - 2] == '-' && raw[end - 1] == '>' &&
		    !(end >= 10 && !memcmp(raw + end - 10, "operator", 8)))
			end -= 2;
		else
			break;
	}
	if (end == 0)
		goto done;
	bool is_unknown = false;
	size_t start = 0;
	for (size_t part = 0;; part++) {
		const char *arrow = mem_find(raw + start, end - start, "->", 2);
		/* C++ "operator->" is a name, not an inline separator */
		while (arrow && arrow - raw >= 8 && !memcmp(arrow - 8, "operator", 8))
			arrow = mem_find(arrow + 2, (size_t)(raw + end - arrow - 2), "->", 2);
		size_t fe = arrow ? (size_t)(arrow - raw) : end;
		const char *f = raw + start;
		size_t fl = fe - start;

		sb_reset(func);
		if (fl == 9 && !memcmp(f, "[unknown]", 9)) {
			const char *b;
			size_t bl;
			if (!(modl == 9 && !memcmp(mod, "[unknown]", 9))) {
				const char *sl = mod + modl;
				while (sl > mod && sl[-1] != '/')
					sl--;
				b = sl;
				bl = (size_t)(mod + modl - sl);
			} else {
				b = "unknown";
				bl = 7;
				is_unknown = true;
			}
			sb_addch(func, '[');
			sb_add(func, b, bl);
			if (c->o.addrs) {
				sb_add(func, " <", 2);
				sb_add(func, pc, pcl);
				sb_addch(func, '>');
			}
			sb_addch(func, ']');
		} else {
			sb_add(func, f, fl);
		}
		/* tidy_generic */
		for (size_t i = 0; i < func->len; i++)
			if (func->buf[i] == ';')
				func->buf[i] = ':';
		if (!is_go_method(func->buf, func->len))
			sb_setlen(func, cut_args(func->buf, func->len));
		/* quotes: the Perl script deletes every ' and " (for
		 * "RegExp:[&<>\"\']" of a JavaScript perf map); only those
		 * escaped with a backslash are dropped here, so that names
		 * holding quotes keep them ("RegExp:[&<>"']", Rust's
		 * "Split<'a, P>", C++'s operator"") */
		{
			size_t w = 0;
			for (size_t i = 0; i < func->len; i++)
				if (!((func->buf[i] == '"' || func->buf[i] == '\'') && i > 0 &&
				      func->buf[i - 1] == '\\'))
					func->buf[w++] = func->buf[i];
			sb_setlen(func, w);
		}
		/* tidy_java */
		if (java && func->len && func->buf[0] == 'L' && memchr(func->buf, '/', func->len)) {
			memmove(func->buf, func->buf + 1, func->len - 1);
			sb_setlen(func, func->len - 1);
		}
		/* annotations */
		if (part > 0) {
			if (!mem_find(func->buf, func->len, "_[i]", 4))
				sb_add(func, "_[i]", 4);
		} else if (c->o.kernel && (c->force_kernel || is_kernel_mod(mod, modl))) {
			sb_add(func, "_[k]", 4);
		} else if (c->o.jit && is_jit_map(mod, modl)) {
			if (!mem_find(func->buf, func->len, "_[j]", 4))
				sb_add(func, "_[j]", 4);
		}
		if (c->o.srcline && !is_unknown)
			add_srcline(c, func);
		pool_push(c, func->buf, func->len);
		if (!arrow || fe + 2 >= end)
			break;
		start = fe + 2;
	}
done:
	GROW(c->groups, c->ngroups, c->agroups, 1);
	c->groups[c->ngroups].off = (uint32_t)gstart;
	c->groups[c->ngroups].n = (uint32_t)(c->npool - gstart);
	return (uint32_t)c->ngroups++;
}

static void push_group(struct ps_collapser *c, uint32_t g)
{
	const struct group *gr = &c->groups[g];

	GROW(c->cur, c->ncur, c->acur, gr->n);
	for (uint32_t k = gr->n; k-- > 0;)
		c->cur[c->ncur++] = c->pool[gr->off + k];
}

/* If the sample's frames were the last groups added (they were not cached),
 * the pool may be trimmed; keep it simple and let it grow: it only holds
 * distinct frame lines when caching, or every frame with --srcline. */
static void drop_group(struct ps_collapser *c, uint32_t g)
{
	if (g + 1 == c->ngroups) {
		c->npool = c->groups[g].off;
		c->ngroups--;
	}
}

/* --- sample assembly --- */

/* l[1..17) of a line in perf script's own frame layout: spaces, then at
 * least one word character to the end (the address, right-aligned in 16
 * columns).  *p0: where the address starts.  l holds 17 bytes or more. */
static inline bool addr16(const char *l, size_t *p0)
{
#ifdef __SSE2__
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(l + 1));
	unsigned sp = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
	__m128i lo = _mm_or_si128(v, _mm_set1_epi8(0x20));   /* A-Z → a-z */
	__m128i w = _mm_or_si128(
		_mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
			      _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1))),
		_mm_or_si128(_mm_and_si128(_mm_cmpgt_epi8(lo, _mm_set1_epi8('a' - 1)),
					   _mm_cmplt_epi8(lo, _mm_set1_epi8('z' + 1))),
			     _mm_cmpeq_epi8(v, _mm_set1_epi8('_'))));
	unsigned wm = (unsigned)_mm_movemask_epi8(w);

	*p0 = 1 + (size_t)__builtin_ctz(~sp | 0x10000u);   /* sp is a prefix: 2^k - 1 */
	return (sp & (sp + 1)) == 0 && (sp | wm) == 0xffff && sp != 0xffff;
#else
	size_t i = 1;

	while (i < 16 && l[i] == ' ')
		i++;
	*p0 = i;
	while (i < 17 && is_word((unsigned char)l[i]))
		i++;
	return i == 17;
#endif
}

/* The cache key of a frame line (see on_frame_line): l[*ks..*ks+*kl), the
 * text from the symbol (or with addrs/inline, the address) to the last
 * ')'; *p0, *W, *q: where the address starts, its length, where the
 * symbol starts.  False when the line has no such key. */
static inline bool frame_key(const struct ps_collapser *c, const char *l, size_t n, size_t *ks,
			     size_t *kl, size_t *p0_, size_t *W_, size_t *q_)
{
	size_t p0 = 0, W = 0, k = 0, q;

	/* perf script's own layout first: a tab, the address right-aligned
	 * in 16 columns, one space, the symbol — the same p0, W and q as
	 * the scan below finds, in one pass over a fixed width */
	if (n > 19 && l[0] == '\t' && l[17] == ' ' && !is_sp((unsigned char)l[18]) &&
	    is_word((unsigned char)l[16])) {
		if (addr16(l, &p0)) {
			W = 17 - p0;
			q = 18;
			goto tail;
		}
		p0 = 0;
	}
	while (p0 < n && is_sp((unsigned char)l[p0]))
		p0++;
	while (p0 + W < n && is_word((unsigned char)l[p0 + W]))
		W++;
	while (p0 + W + k < n && is_sp((unsigned char)l[p0 + W + k]))
		k++;
	q = p0 + W + k;
tail:;
	const char *rp = !W ? NULL : l[n - 1] == ')' ? l + n - 1 : memrchr(l, ')', n);
	if (!rp || (size_t)(rp - l) <= q)
		return false;
	*ks = (c->o.addrs || c->o.inline_) ? p0 : q;
	*kl = (size_t)(rp - l) + 1 - *ks;
	*p0_ = p0;
	*W_ = W;
	*q_ = q;
	return true;
}

/* After the first blank line ("\n\n") in [p, e), or NULL: 64 bytes a
 * step (a sample is a few hundred), each loaded once. */
static const char *find_blank(const char *p, const char *e)
{
	uint64_t carry = 0;   /* p[-1] is a '\n' of the range */
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n');
#define NLMASK(o) ((uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8( \
	_mm_loadu_si128((const __m128i *)(const void *)(p + (o))), nl)) << (o))
	while (e - p >= 64) {
		uint64_t m = NLMASK(0) | NLMASK(16) | NLMASK(32) | NLMASK(48);
		uint64_t x = ((m << 1) | carry) & m;   /* bit i: p[i - 1] and p[i] */
		if (x)
			return p + __builtin_ctzll(x) + 1;
		carry = m >> 63;
		p += 64;
	}
	while (e - p >= 16) {
		uint64_t m = NLMASK(0);
		uint64_t x = ((m << 1) | carry) & m;
		if (x)
			return p + __builtin_ctzll(x) + 1;
		carry = (m >> 15) & 1;
		p += 16;
	}
#undef NLMASK
#endif
	if (carry && p < e && p[0] == '\n')
		return p + 1;
	for (; e - p >= 2; p++)
		if (p[0] == '\n' && p[1] == '\n')
			return p + 2;
	return NULL;
}

#define LA_N 4

/* Find the next sample ahead and fetch its first frame line's slot. */
static bool la_push(struct ps_collapser *c)
{
	const char *e = c->la_end;
	const char *st = find_blank(c->la, e);
	const char *he = st ? find_nl(st, e) : NULL;
	const char *fe = he ? find_nl(he + 1, e) : NULL;

	if (!fe) {
		c->la = e;
		return false;
	}
	c->la = fe;
	struct la_ent *x = &c->la_ring[(c->la_head + c->la_n++) % LA_N];
	const char *f = he + 1;
	x->start = st;
	x->line = f;
	x->n = (size_t)(fe - f);
	x->rec = NULL;
	x->ok = frame_key(c, f, (size_t)(fe - f), &x->ks, &x->kl, &x->p0, &x->W, &x->q);
	if (!x->ok)
		return true;
	const char *cm = st;
	while (cm < he && is_sp((unsigned char)*cm))
		cm++;
	x->java = he - cm >= 4 && !memcmp(cm, "java", 4);
	x->h = bm_hash(f + x->ks, x->kl);
	const struct fcache *t = &c->cache[x->java];
	if (t->mask)
		__builtin_prefetch(&t->slots[x->h & t->mask]);
	return true;
}

/* At the start of a sample (pos: its header line): take its look-ahead
 * entry, keep LA_N entries ahead, fetch the next one's record. */
static void la_step(struct ps_collapser *c, const char *pos)
{
	c->la_cur = NULL;
	while (c->la_n && c->la_ring[c->la_head].start <= pos) {
		const struct la_ent *x = &c->la_ring[c->la_head];
		if (x->start == pos && x->ok) {
			c->la_cur_ent = *x;
			c->la_cur = &c->la_cur_ent;
		}
		c->la_head = (c->la_head + 1) % LA_N;
		c->la_n--;
	}
	if (c->la < pos)
		c->la = pos;
	while (c->la_n < LA_N && la_push(c))
		;
	if (c->la_n) {
		struct la_ent *x = &c->la_ring[c->la_head];
		const struct fcache *t = &c->cache[x->java];
		if (x->ok && t->mask) {
			for (size_t s = x->h & t->mask; t->slots[s].rec; s = (s + 1) & t->mask) {
				if (t->slots[s].hash == x->h) {
					x->rec = t->slots[s].rec;
					__builtin_prefetch(t->slots[s].rec);
					__builtin_prefetch((const char *)t->slots[s].rec + 64);
					break;
				}
			}
		}
	}
}

static void set_pname(struct ps_collapser *c)
{
	const char *s = c->pname.buf;
	size_t n = c->pname.len, start = 0;

	for (size_t i = 0; i < n; i++)
		if (s[i] == ' ')
			c->pname.buf[i] = '_';
	c->npname = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || s[i] == ';') {
			GROW(c->pname_ids, c->npname, c->apname, 1);
			c->pname_ids[c->npname++] = folded_frame_id(c->out, s + start, i - start);
			start = i + 1;
		}
	}
	c->java = n >= 4 && !memcmp(s, "java", 4);
	c->prev = NULL;
	/* like the Perl script, a header does not clear frames gathered since
	 * the last blank line: they join the next stack */
	c->have_pname = true;
}

#define NPEND 3

static void pend_pop(struct ps_collapser *c)
{
	struct pend *p = &c->pend[c->pend_head];

	folded_add_ids_h(c->out, p->ids, p->n, p->h, p->count);
	c->pend_head = (c->pend_head + 1) % NPEND;
	c->npend--;
}

static void pend_drain(struct ps_collapser *c)
{
	while (c->npend)
		pend_pop(c);
}

/* The current sample's stack (process name, then its frames root first)
 * into ids[0..n). */
static inline void stack_ids(const struct ps_collapser *c, uint32_t *ids)
{
	for (size_t k = 0; k < c->npname; k++)   /* one or two: no libc call */
		*ids++ = c->pname_ids[k];
	for (size_t k = c->ncur; k-- > 0;)
		*ids++ = c->cur[k];
}

/* The current sample's stack into the queue (written there directly). */
static void pend_push(struct ps_collapser *c, uint64_t count)
{
	size_t n = c->npname + c->ncur;

	if (c->npend == NPEND)
		pend_pop(c);
	struct pend *p = &c->pend[(c->pend_head + c->npend) % NPEND];
	GROW(p->ids, 0, p->a, n ? n : 1);
	stack_ids(c, p->ids);
	p->n = n;
	p->count = count;
	p->h = folded_ids_hash(p->ids, n);
	c->npend++;
	folded_prefetch(c->out, p->h, 0);
	/* the older ones one stage further: slot → entry → key */
	for (unsigned j = 0; j + 1 < c->npend; j++) {
		unsigned age = c->npend - 1 - j;
		folded_prefetch(c->out, c->pend[(c->pend_head + j) % NPEND].h, age >= 2 ? 2 : 1);
	}
}

static void flush_sample(struct ps_collapser *c)
{
	if (!c->have_pname)
		return;
	if (c->defer) {
		pend_push(c, c->period);
	} else {
		size_t n = c->npname + c->ncur;
		GROW(c->stack, 0, c->astack, n);
		stack_ids(c, c->stack);
		folded_add_ids(c->out, c->stack, n, c->period);
	}
	c->ncur = 0;
	c->prev = NULL;
	c->have_pname = false;
}

/* Length of an event name without its perf modifiers ("cycles:u",
 * "cpu-clock:uhH", "cycles:ppp" → "cycles", "cpu-clock"): the part after
 * the last ':' when it is only modifier letters.  A tracepoint
 * ("sched:sched_switch") keeps its name. */
size_t psc_event_base_len(const char *ev, size_t evl)
{
	const char *colon = memrchr(ev, ':', evl);

	if (!colon || colon == ev || colon + 1 == ev + evl)
		return evl;
	for (const char *p = colon + 1; p < ev + evl; p++)
		if (!strchr("ukhIGHpPSDWeb", *p) || !*p)
			return evl;
	return (size_t)(colon - ev);
}

/* Event filter; false when the sample is dropped.  The default filter (the
 * first event seen) and a filter given without modifiers match an event
 * whatever its modifiers (perf script prints "cycles:u" on some lines and
 * "cycles" on others of one recording; inferno reads both as "cycles"); a
 * filter given with modifiers matches exactly. */
static bool event_ok(struct ps_collapser *c, const char *ev, size_t evl)
{
	if (!c->filter.len && !c->filter_defaulted) {
		sb_add(&c->filter, ev, evl);
		c->filter_defaulted = true;
		return true;
	}
	if (evl == c->filter.len && !memcmp(ev, c->filter.buf, evl))
		return true;
	size_t fb = psc_event_base_len(c->filter.buf, c->filter.len);
	if ((c->filter_defaulted || fb == c->filter.len) && psc_event_base_len(ev, evl) == fb &&
	    !memcmp(ev, c->filter.buf, fb))
		return true;
	if (!c->dropped++)
		sb_add(&c->dropped_event, ev, evl);
	return false;
}

static uint64_t parse_period(const char *p, size_t n)
{
	uint64_t v = 0;

	if (n == 0)
		return 1;   /* no period printed: the sample counts once */
	/* a period of 0 weighs 0 (inferno, perf report); the Perl script's
	 * `if (not $period) { $period = 1 }` counts it as 1 */
	for (size_t i = 0; i < n; i++) {
		uint64_t d = (uint64_t)(p[i] - '0');
		v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
	}
	return v;
}

/*
 * /^(\S.+?)\s+(\d+)[/]*(\d+)*\s+/: comm is the shortest prefix of 2+ chars
 * followed by whitespace, digits, slashes, digits, whitespace.  Greedy
 * captures succeed whenever any split does, so the first whitespace run
 * (at index >= 2) whose tail fits gives the match.
 */
static bool match_header(const char *l, size_t n, size_t *comml, const char **pid,
			 size_t *pidl, const char **tid, size_t *tidl)
{
	if (!n || is_sp((unsigned char)l[0]))
		return false;
	size_t i = 2;
	while (i < n) {
		if (!is_sp((unsigned char)l[i])) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && is_sp((unsigned char)l[j]))
			j++;
		size_t a = j;
		while (a < n && is_dig((unsigned char)l[a]))
			a++;
		if (a > j) {
			size_t b = a, d;
			while (b < n && l[b] == '/')
				b++;
			d = b;
			while (d < n && is_dig((unsigned char)l[d]))
				d++;
			if (d < n && is_sp((unsigned char)l[d])) {
				*comml = i;
				*pid = l + j;
				*pidl = a - j;
				*tid = l + b;
				*tidl = d - b;
				return true;
			}
		}
		i = j;
	}
	return false;
}

/*
 * /:\s*(\d+)*\s+(\S+):\s*$/: the last whitespace-separated token must end
 * with ':' (event = token less that ':'), and be preceded by whitespace,
 * optionally by digits and whitespace (the period), and then ':'.
 */
static bool match_event(const char *l, size_t n, const char **ev, size_t *evl,
			const char **per, size_t *perl)
{
	size_t e = n;
	while (e > 0 && is_sp((unsigned char)l[e - 1]))
		e--;
	size_t t = e;
	while (t > 0 && !is_sp((unsigned char)l[t - 1]))
		t--;
	if (e - t < 2 || l[e - 1] != ':')
		return false;
	size_t g = t;
	while (g > 0 && is_sp((unsigned char)l[g - 1]))
		g--;
	if (g == t || g == 0)
		return false;
	*ev = l + t;
	*evl = e - 1 - t;
	if (l[g - 1] == ':') {
		*per = NULL;
		*perl = 0;
		return true;
	}
	size_t d = g;
	while (d > 0 && is_dig((unsigned char)l[d - 1]))
		d--;
	if (d == g)
		return false;
	size_t w = d;
	while (w > 0 && is_sp((unsigned char)l[w - 1]))
		w--;
	if (w == 0 || l[w - 1] != ':')
		return false;
	*per = l + d;
	*perl = g - d;
	return true;
}

/*
 * perf script's own header layout, parsed from its right-hand fields so
 * that a comm holding spaces, digits or brackets ("DOM Worker", "ET_NET 0",
 * "[pool 0]") or a one-character comm is never cut short nor swallowed
 * with the pid or the time (the Perl regex above gets these wrong):
 *
 *   [spaces] COMM PID[/TID] [[CPU]] SECS.FRAC: [PERIOD] EVENT: [ADDR SYM (DSO)]
 *
 * The pid token is the first token after the comm's first one that is
 * followed by an optional "[cpu]" and a "secs.frac:" time.  rest/restl:
 * what follows the time (period, event, and for a recording without call
 * chains, the sampled frame).
 */
struct rh_header {
	const char *comm, *pid, *tid, *rest;
	size_t comml, pidl, tidl, restl;
};

static size_t skip_sp(const char *l, size_t i, size_t n)
{
	while (i < n && is_sp((unsigned char)l[i]))
		i++;
	return i;
}

static size_t skip_tok(const char *l, size_t i, size_t n)
{
	while (i < n && !is_sp((unsigned char)l[i]))
		i++;
	return i;
}

static size_t skip_dig(const char *l, size_t i, size_t n)
{
	while (i < n && is_dig((unsigned char)l[i]))
		i++;
	return i;
}

/* l[i..) holds "[CPU] SECS.FRAC:" or "SECS.FRAC:" then whitespace or the
 * end; returns the index after the ':' or 0. */
static size_t match_cpu_time(const char *l, size_t i, size_t n)
{
	size_t k;

	if (i < n && l[i] == '[') {
		k = skip_dig(l, i + 1, n);
		if (k == i + 1 || k >= n || l[k] != ']')
			return 0;
		i = skip_sp(l, k + 1, n);
		if (i == k + 1)
			return 0;
	}
	k = skip_dig(l, i, n);
	if (k == i || k >= n || l[k] != '.')
		return 0;
	i = k + 1;
	k = skip_dig(l, i, n);
	if (k == i || k >= n || l[k] != ':' || (k + 1 < n && !is_sp((unsigned char)l[k + 1])))
		return 0;
	return k + 1;
}

static bool match_header_rh(const char *l, size_t n, struct rh_header *h)
{
	size_t c0 = skip_sp(l, 0, n);
	size_t cend = skip_tok(l, c0, n);

	if (c0 == cend)
		return false;
	for (size_t i = cend; i < n;) {
		size_t t0 = skip_sp(l, i, n), t1 = skip_dig(l, t0, n), t2 = t1;

		if (t0 >= n)
			break;
		if (t1 > t0 && t1 < n && l[t1] == '/')
			t2 = skip_dig(l, t1 + 1, n);
		if (t1 > t0 && t2 < n && is_sp((unsigned char)l[t2]) && (t2 == t1 || t2 > t1 + 1)) {
			size_t e = match_cpu_time(l, skip_sp(l, t2, n), n);

			if (e) {
				h->comm = l + c0;
				h->comml = cend - c0;
				h->pid = l + t0;
				h->pidl = t1 - t0;
				h->tid = t2 > t1 ? l + t1 + 1 : l + t1;
				h->tidl = t2 > t1 ? t2 - t1 - 1 : 0;
				h->rest = l + e;
				h->restl = n - e;
				return true;
			}
		}
		cend = skip_tok(l, t0, n);
		i = cend;
	}
	return false;
}

/* The fields after the time: "[PERIOD] EVENT:" and, without call chains,
 * "ADDR SYM (DSO)" on the same line (*frame, *framel; 0 when none).
 * False when they do not have that shape. */
static bool match_rest(const char *r, size_t n, const char **ev, size_t *evl,
		       const char **per, size_t *perl, const char **frame, size_t *framel)
{
	size_t i = skip_sp(r, 0, n), k = skip_dig(r, i, n);

	*per = NULL;
	*perl = 0;
	if (k > i && k < n && is_sp((unsigned char)r[k])) {
		*per = r + i;
		*perl = k - i;
		i = skip_sp(r, k, n);
	}
	k = skip_tok(r, i, n);
	if (k - i < 2 || r[k - 1] != ':')
		return false;
	*ev = r + i;
	*evl = k - 1 - i;
	i = skip_sp(r, k, n);
	*frame = r + i;
	*framel = n - i;
	return true;
}

static bool is_hex_tok(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
			 (s[i] >= 'A' && s[i] <= 'F')))
		i++;
	return i > 0 && i < n && is_sp((unsigned char)s[i]);
}

static void set_header(struct ps_collapser *c, const char *comm, size_t comml,
		       const char *pid, size_t pidl, const char *tid, size_t tidl);
static void on_frame_line(struct ps_collapser *c, const char *l, size_t n);

#ifdef __SSE2__
/* l[0..T) is "DIGITS.DIGITS" (a header's time), T <= 16 and 16 bytes
 * readable at l: one non-digit, a '.', neither first nor last. */
static inline bool is_time16(const char *l, size_t T)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)l);
	__m128i d = _mm_sub_epi8(v, _mm_set1_epi8('0'));
	unsigned dig = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d));
	unsigned nd = ~dig & ((1u << T) - 1);   /* the non-digits */

	return T >= 3 && nd && !(nd & (nd - 1)) && !(nd & 1) && !(nd >> (T - 1)) &&
	       l[__builtin_ctz(nd)] == '.';
}
#endif

/* A header in perf script's own layout; false to let the Perl rules try. */
static bool on_header_rh(struct ps_collapser *c, const char *l, size_t n)
{
	struct rh_header h;
	const char *ev, *per, *fr;
	size_t evl, perl, frl;

	for (unsigned j = 0; j < 4; j++) {   /* the one that matched last first */
		unsigned i = (c->hm_hit + j) % 4;
		const struct hmemo *m = &c->hm[i];
		if (!m->valid || n <= m->prel + m->sufl || !eq_bytes(l, m->pre, m->prel))
			continue;
		size_t T = n - m->sufl - m->prel;   /* the time's length */
#ifdef __SSE2__
		if (T <= 16 && m->prel + 16 <= n) {
			if (!is_time16(l + m->prel, T) || !eq_bytes(l + n - m->sufl, m->suf, m->sufl))
				continue;
		} else
#endif
		{
			size_t k = skip_dig(l, m->prel, n);
			if (k == m->prel || k >= n || l[k] != '.')
				continue;
			size_t k2 = skip_dig(l, k + 1, n);
			if (k2 == k + 1 || n - k2 != m->sufl || !eq_bytes(l + k2, m->suf, m->sufl))
				continue;
		}
		c->hm_hit = i;
		c->period = m->period;
		GROW(c->pname_ids, 0, c->apname, m->nids);
		for (size_t k = 0; k < m->nids; k++)
			c->pname_ids[k] = m->ids[k];
		c->npname = m->nids;
		c->java = m->java;
		c->prev = NULL;
		c->have_pname = true;
		return true;
	}
	if (!match_header_rh(l, n, &h))
		return false;
	if (!match_rest(h.rest, h.restl, &ev, &evl, &per, &perl, &fr, &frl))
		return false;
	bool oneline = frl && is_hex_tok(fr, frl);

	if (oneline) {   /* no call chains: every line is a sample of its own */
		flush_sample(c);
	} else {
		/* event and period by the Perl rule, as stackcollapse-perf.pl
		 * reads them (a tracepoint's trailing fields hide both) */
		per = NULL;
		perl = 0;
		if (!match_event(l, n, &ev, &evl, &per, &perl))
			ev = NULL;
	}
	if (ev && !event_ok(c, ev, evl))
		return true;
	c->period = c->o.count ? 1 : parse_period(per, perl);
	set_header(c, h.comm, h.comml, h.pid, h.pidl, h.tid, h.tidl);
	if (!oneline) {   /* remember it (see struct hmemo) */
		size_t colon = (size_t)(h.rest - l) - 1, ts = colon;
		while (ts > 0 && (is_dig((unsigned char)l[ts - 1]) || l[ts - 1] == '.'))
			ts--;
		struct hmemo *m = &c->hm[c->hm_next++ % 4];
		GROW(m->pre, 0, m->apre, ts + 1);
		GROW(m->suf, 0, m->asuf, n - colon + 1);
		GROW(m->ids, 0, m->aids, c->npname + 1);
		memcpy(m->pre, l, ts);
		m->prel = ts;
		memcpy(m->suf, l + colon, n - colon);
		m->sufl = n - colon;
		memcpy(m->ids, c->pname_ids, c->npname * sizeof(*m->ids));
		m->nids = c->npname;
		m->period = c->period;
		m->java = c->java;
		m->valid = true;
	}
	if (oneline) {
		c->oneline++;
		on_frame_line(c, fr, frl);
		flush_sample(c);
	}
	return true;
}

static void on_header(struct ps_collapser *c, const char *l, size_t n, size_t comml,
		      const char *pid, size_t pidl, const char *tid, size_t tidl)
{
	const char *ev, *per = NULL;
	size_t evl, perl = 0;

	if (match_event(l, n, &ev, &evl, &per, &perl) && !event_ok(c, ev, evl))
		return;
	c->period = c->o.count ? 1 : parse_period(per, perl);
	set_header(c, l, comml, pid, pidl, tid, tidl);
}

static void set_header(struct ps_collapser *c, const char *comm, size_t comml,
		       const char *pid, size_t pidl, const char *tid, size_t tidl)
{
	if (!tidl || (tidl == 1 && tid[0] == '0')) {
		tid = pid;
		tidl = pidl;
		pid = "?";
		pidl = 1;
	}
	sb_reset(&c->pname);
	sb_add(&c->pname, comm, comml);
	if (c->o.tid) {
		sb_addch(&c->pname, '-');
		sb_add(&c->pname, pid, pidl);
		sb_addch(&c->pname, '/');
		sb_add(&c->pname, tid, tidl);
	} else if (c->o.pid) {
		sb_addch(&c->pname, '-');
		sb_add(&c->pname, pid, pidl);
	}
	set_pname(c);
}

/*
 * /^\s*(\w+)\s*(.+) \((.*)\)/: the DSO group ends at the last ')'; the
 * symbol ends at the last " (" that has a ')' at least one byte after its
 * '(' and starts at least one byte after the symbol's start.  The address
 * is the leading word (shortened only when nothing else fits).
 */
struct frame_match {
	size_t p0, w, q, s, L;
};

#define DELETED " (deleted)"
#define DELETED_LEN (sizeof(DELETED) - 1)

static bool match_frame(const char *l, size_t n, struct frame_match *m)
{
	size_t p0 = 0, W = 0, k = 0;

	while (p0 < n && is_sp((unsigned char)l[p0]))
		p0++;
	while (p0 + W < n && is_word((unsigned char)l[p0 + W]))
		W++;
	if (!W)
		return false;
	const char *rp = memrchr(l, ')', n);
	if (!rp)
		return false;
	size_t L = (size_t)(rp - l);
	if (L < 2)
		return false;
	/* a DSO whose file was removed: perf prints the name the kernel gave,
	 * "/opt/app/bin/server (deleted)"; the DSO is the path */
	if (L > DELETED_LEN + 2 && !memcmp(l + L - DELETED_LEN, DELETED, DELETED_LEN))
		L -= DELETED_LEN;
	/* the last " (" with s + 2 <= L */
	size_t s, lim = L;   /* the '(' is searched in l[0..lim) */
	for (;;) {
		const char *op = lim ? memrchr(l, '(', lim) : NULL;
		if (!op || op == l)
			return false;
		if (op[-1] == ' ') {
			s = (size_t)(op - l) - 1;
			break;
		}
		lim = (size_t)(op - l);
	}
	while (p0 + W + k < n && is_sp((unsigned char)l[p0 + W + k]))
		k++;
	size_t w, q;
	if (s >= p0 + W + 1) {
		size_t jj = s - 1 - (p0 + W);
		w = W;
		q = p0 + W + (jj < k ? jj : k);
	} else if (W >= 2 && s >= p0 + 2) {
		w = s - 1 - p0;
		if (w > W - 1)
			w = W - 1;
		q = p0 + w;
	} else {
		return false;
	}
	m->p0 = p0;
	m->w = w;
	m->q = q;
	m->s = s;
	m->L = L;
	return true;
}

/*
 * A frame line without a DSO, as `perf script -F comm,tid,ip,sym` prints
 * it: indented, a hex address, a symbol ("\t  114d compute").  The Perl
 * script rejects these lines; read as frames of DSO "[unknown]".  *sym,
 * *syml: the symbol.
 */
static bool match_frame_nodso(const char *l, size_t n, const char **pc, size_t *pcl,
			      const char **sym, size_t *syml)
{
	size_t i = skip_sp(l, 0, n), a = i;

	if (i == 0)
		return false;
	while (i < n && ((l[i] >= '0' && l[i] <= '9') || (l[i] >= 'a' && l[i] <= 'f')))
		i++;
	if (i == a || i >= n || !is_sp((unsigned char)l[i]))
		return false;
	*pc = l + a;
	*pcl = i - a;
	i = skip_sp(l, i, n);
	size_t e = n;
	while (e > i && is_sp((unsigned char)l[e - 1]))
		e--;
	if (e == i)
		return false;
	*sym = l + i;
	*syml = e - i;
	return true;
}

static void on_frame_nodso(struct ps_collapser *c, const char *l, size_t n)
{
	const char *pc, *sym;
	size_t pcl, syml;

	if (!match_frame_nodso(l, n, &pc, &pcl, &sym, &syml)) {
		warn_line(c, l, n);
		return;
	}
	if (!c->have_pname)
		return;
	sb_reset(&c->key);
	sb_add(&c->key, l, n);   /* --srcline reads on: work on a copy */
	pc = c->key.buf + (pc - l);
	sym = c->key.buf + (sym - l);
	uint32_t g = process_frame(c, pc, pcl, sym, syml, "[unknown]", 9, c->java);
	push_group(c, g);
	drop_group(c, g);
}

/* r followed p: r becomes p's first prediction, the other one its second. */
static inline void fc_set_succ(struct fc_rec *p, struct fc_rec *r)
{
	if (p && p->succ != r) {
		p->succ2 = p->succ;
		p->succ = r;
	}
}

static inline bool fc_key_is(const struct fc_rec *r, const char *k, size_t kl)
{
	return r && r->len == kl && !memcmp(fc_key(r), k, kl);
}

/* A frame line found in the cache: its frames join the sample. */
static inline void use_rec(struct ps_collapser *c, struct fc_rec *r)
{
	if (r->n == 1) {
		GROW(c->cur, c->ncur, c->acur, 1);
		c->cur[c->ncur++] = r->id;
	} else {
		push_group(c, r->group);
	}
	c->prev = r;
	/* the predicted next line (fetched one line ago) and the one after */
	const struct fc_rec *sc = r->succ;
	if (sc) {
		fc_prefetch(sc);
		if (sc->succ)
			fc_prefetch(sc->succ);
	}
	if (r->succ2) {
		__builtin_prefetch(r->succ2);
		__builtin_prefetch((const char *)r->succ2 + 64);
	}
}

static void on_frame_line(struct ps_collapser *c, const char *l, size_t n)
{
	struct frame_match m;

	if (c->have_pname && !c->o.srcline) {
		/* fast path: cache by the text from the symbol (or address) to
		 * the last ')' */
		size_t p0, W, q, ks, kl;
		const struct la_ent *x = c->la_cur;
		bool ahead = x && l == x->line && n == x->n;
		if (ahead) {
			ks = x->ks;
			kl = x->kl;
			p0 = x->p0;
			W = x->W;
			q = x->q;
		}
		if (ahead || frame_key(c, l, n, &ks, &kl, &p0, &W, &q)) {
			struct fc_rec *r = c->prev ? c->prev->succ : NULL;
			if (!fc_key_is(r, l + ks, kl) && c->prev && fc_key_is(c->prev->succ2, l + ks, kl)) {
				r = c->prev->succ2;
				fc_set_succ(c->prev, r);
			} else if (!fc_key_is(r, l + ks, kl)) {
				struct fcache *cache = &c->cache[c->java];
				uint64_t h = ahead ? x->h : bm_hash(l + ks, kl);
				/* the look-ahead's record when it holds this key */
				r = ahead && fc_key_is(x->rec, l + ks, kl) ? (struct fc_rec *)x->rec
									   : fc_find(cache, l + ks, kl, h);
				if (!r) {
					if (!match_frame(l, n, &m)) {
						c->prev = NULL;
						on_frame_nodso(c, l, n);
						return;
					}
					uint32_t g = process_frame(c, l + m.p0, m.w, l + m.q, m.s - m.q,
								   l + m.s + 2, m.L - m.s - 2, c->java);
					push_group(c, g);
					if (m.q != q || m.w != W || kl > UINT32_MAX) {
						drop_group(c, g);
						c->prev = NULL;
						return;
					}
					r = fc_insert(cache, l + ks, kl, h, l, n);
					r->group = g;
					r->n = c->groups[g].n;
					r->id = r->n == 1 ? c->pool[c->groups[g].off] : 0;
					fc_set_succ(c->prev, r);
					c->prev = r;
					return;
				}
				fc_set_succ(c->prev, r);
			}
			use_rec(c, r);
			return;
		}
	}
	c->prev = NULL;
	if (!match_frame(l, n, &m)) {
		on_frame_nodso(c, l, n);
		return;
	}
	if (!c->have_pname)
		return;
	/* --srcline reads more lines: work on a copy */
	sb_reset(&c->key);
	sb_add(&c->key, l, n);
	l = c->key.buf;
	uint32_t g = process_frame(c, l + m.p0, m.w, l + m.q, m.s - m.q, l + m.s + 2,
				   m.L - m.s - 2, c->java);
	push_group(c, g);
	drop_group(c, g);
}

static void on_line(struct ps_collapser *c, const char *l, size_t n)
{
	size_t comml, pidl, tidl;
	const char *pid, *tid;

	if (n == 0) {
		flush_sample(c);
		return;
	}
	if (l[0] == '#')
		return;
	/* a line that starts with a space is a frame while a sample is open
	 * (the hot path); otherwise it may be a header of a recording without
	 * call chains, whose comm perf pads on the left */
	if (is_sp((unsigned char)l[0]) && c->have_pname) {   /* match_header refuses it */
		on_frame_line(c, l, n);
		return;
	}
	if (on_header_rh(c, l, n))
		return;
	if (match_header(l, n, &comml, &pid, &pidl, &tid, &tidl)) {
		on_header(c, l, n, comml, pid, pidl, tid, tidl);
		return;
	}
	on_frame_line(c, l, n);
}

/* The text at r's position is s's whole line, then '\n'. */
static inline bool line_is(const struct lreader *r, const struct fc_rec *s)
{
	return s->llen && r->end - r->pos > s->llen && r->buf[r->pos + s->llen] == '\n' &&
	       !memcmp(r->buf + r->pos, s->line, s->llen);
}

/* The text at r's position is a frame line in perf script's own layout
 * (a tab, the address right-aligned in 16 columns, a space) whose key
 * (the rest) is s's, then '\n': frame_key finds that key in it, so it names
 * the same frames as s whatever its address (another process, another
 * load address).  s's key is 2 bytes or more, starts with no space and
 * ends with ')' (frame_key's), so the line ends at the key's end. */
static inline bool key_line_is(const struct lreader *r, const struct fc_rec *s)
{
	const char *l = r->buf + r->pos;
	size_t kl = s->len, p0;

	return r->end - r->pos > 18 + kl && l[18 + kl] == '\n' && l[0] == '\t' && l[17] == ' ' &&
	       eq_bytes(l + 18, fc_key(s), kl) && addr16(l, &p0);
}

static int run_reader(struct ps_collapser *c, struct lreader *r)
{
	const char *l;
	size_t n;
	int ret;
	/* without addrs and inline, a frame line's key leaves its address out */
	bool by_key = !c->o.addrs && !c->o.inline_;

	c->rd = r;
	c->name = r->name;
	c->defer = true;
	for (;;) {
		/* the line the cache predicts (the one that followed the last
		 * line the last time), compared by its key (or whole, address
		 * included, with addrs or inline): it names the same frames,
		 * with no scan of its fields */
		struct fc_rec *pv = c->prev, *s = pv ? pv->succ : NULL;
		if (s && by_key) {
			if (key_line_is(r, s)) {
				r->pos = r->scan = r->pos + 19 + s->len;
				r->lineno++;
				use_rec(c, s);
				continue;
			}
			if ((s = pv->succ2) != NULL && key_line_is(r, s)) {
				r->pos = r->scan = r->pos + 19 + s->len;
				r->lineno++;
				fc_set_succ(pv, s);
				use_rec(c, s);
				continue;
			}
			s = NULL;
		}
		if (s && line_is(r, s)) {
			r->pos = r->scan = r->pos + s->llen + 1;
			r->lineno++;
			use_rec(c, s);
			continue;
		}
		/* or the line that followed it the time before */
		if (s && (s = pv->succ2) != NULL && line_is(r, s)) {
			r->pos = r->scan = r->pos + s->llen + 1;
			r->lineno++;
			fc_set_succ(pv, s);
			use_rec(c, s);
			continue;
		}
		if ((ret = lr_next(r, &l, &n)) <= 0)
			break;
		if (!n && c->la_on) {
			la_step(c, r->buf + r->pos);
			on_line(c, l, n);
			/* the next sample's header and first frame line, whose
			 * ends the look-ahead found: no newline search */
			const struct la_ent *x = c->la_cur;
			if (x && x->line - 1 > x->start) {
				size_t hn = (size_t)(x->line - 1 - x->start), fn = x->n;
				if (x->start[hn - 1] == '\r')
					hn--;
				r->pos = r->scan = (size_t)(x->line - r->buf);
				r->lineno++;
				on_line(c, x->start, hn);
				if (x->line[fn - 1] == '\r')
					fn--;
				r->pos = r->scan = (size_t)(x->line - r->buf) + x->n + 1;
				r->lineno++;
				on_line(c, x->line, fn);
			}
			continue;
		}
		on_line(c, l, n);
	}
	/* a last sample without a final blank line is kept (the Perl script
	 * drops it; ../shared/conformance's correction), frames or not */
	flush_sample(c);
	pend_drain(c);
	c->defer = false;
	c->lines += r->lineno;
	c->rd = NULL;
	return ret;
}

int psc_parse_mem(struct ps_collapser *c, const char *buf, size_t len, const char *name)
{
	struct lreader r;

	memset(&r, 0, sizeof(r));
	r.fd = -1;
	r.name = name;
	r.buf = (char *)buf;
	r.end = r.cap = len;
	r.eof = true;
	c->la_on = !c->o.srcline && len > 0;
	c->la = buf;
	c->la_end = buf + len;
	c->la_n = c->la_head = 0;
	c->la_cur = NULL;
	int ret = run_reader(c, &r);
	c->la_on = false;
	c->la_cur = NULL;
	return ret;
}

int psc_parse_fd(struct ps_collapser *c, int fd, const char *name, const void *prefix,
		 size_t prefix_len, bool gzip)
{
	struct lreader r;
	int ret;

	memset(&r, 0, sizeof(r));
	r.fd = fd;
	r.name = name;
	r.gz = gzip;
	r.cap = 4 * (size_t)LR_CHUNK;
	r.buf = xmalloc(r.cap);
	if (gzip) {
		r.zcap = LR_CHUNK;
		r.zbuf = xmalloc(r.zcap);
		memcpy(r.zbuf, prefix, prefix_len);
		r.zs.next_in = r.zbuf;
		r.zs.avail_in = (uInt)prefix_len;
		if (inflateInit2(&r.zs, 16 + MAX_WBITS) != Z_OK) {
			free(r.buf);
			free(r.zbuf);
			return pk_error(ENOMEM, "%s: cannot start gzip decoder", name);
		}
	} else {
		memcpy(r.buf, prefix, prefix_len);
		r.end = prefix_len;
	}
	ret = run_reader(c, &r);
	if (gzip)
		inflateEnd(&r.zs);
	free(r.buf);
	free(r.zbuf);
	return ret;
}

/* --- typed frames (perf.data read into the aggregation model) --- */

/* The process name frames of (comm, pid, tid) into c->pname_ids. */
static void thread_pname(struct ps_collapser *c, const char *comm, long pid, long tid)
{
	sb_reset(&c->pname);
	/* as perf script text shows it (bytes kept, as stackcollapse-perf.pl
	 * keeps them): only a newline, which would split the folded line, is
	 * escaped */
	if (comm && *comm)
		sb_add_line(&c->pname, comm, strlen(comm));
	else
		sb_addstr(&c->pname, "[unknown]");
	if (c->o.tid)
		sb_addf(&c->pname, "-%ld/%ld", pid, tid);
	else if (c->o.pid)
		sb_addf(&c->pname, "-%ld", pid);
	set_pname(c);
}

/* Name one frame by the rules (as perf script would print it, then
 * process_frame): a new group, root first. */
static uint32_t frame_group(struct ps_collapser *c, uint64_t ip, const char *sym, uint64_t sym_off,
			    const char *dso, bool kernel, bool java)
{
	char pc[24];
	int pcl = snprintf(pc, sizeof(pc), "%" PRIx64, ip);
	const char *mod = dso && *dso ? dso : "[unknown]";
	struct strbuf emod = STRBUF_INIT;
	if (strchr(mod, '\n')) {
		sb_add_line(&emod, mod, strlen(mod));
		mod = emod.buf;
	}
	const char *raw = "[unknown]";

	if (sym && *sym) {
		/* as perf script prints it: name+0xOFF (the offset is dropped
		 * again, but --inline may need it) */
		sb_reset(&c->pname_tmp);
		sb_add_line(&c->pname_tmp, sym, strlen(sym));
		sb_addf(&c->pname_tmp, "+0x%" PRIx64, sym_off);
		raw = c->pname_tmp.buf;
	}
	/* perf script names kernel modules "[mod]"; a path to a .ko is kernel too */
	c->force_kernel = kernel && !strstr(mod, "unknown");
	/* --inline: the chain as typed frames, looked up by address */
	c->t_dso = dso && *dso ? dso : "[unknown]";
	c->t_addr = ip;
	c->t_sym = sym && *sym ? sym : NULL;
	c->t_off = sym_off;
	/* "PATH (deleted)" (perf's DSO name for a removed file): PATH, as
	 * match_frame reads it from perf script's text */
	size_t modl = strlen(mod);

	if (modl > DELETED_LEN + 1 && !memcmp(mod + modl - DELETED_LEN, DELETED, DELETED_LEN))
		modl -= DELETED_LEN;
	uint32_t g = process_frame(c, pc, (size_t)pcl, raw, strlen(raw), mod, modl, java);
	c->t_dso = NULL;
	c->force_kernel = false;
	sb_release(&emod);
	return g;
}

bool psc_event_keep(struct ps_collapser *c, const char *event)
{
	return !event || event_ok(c, event, strlen(event));
}

const uint32_t *psc_thread_names(struct ps_collapser *c, const char *comm, long pid, long tid,
				 size_t *n, bool *java)
{
	thread_pname(c, comm, pid, tid);
	c->have_pname = false;   /* no sample under way */
	*n = c->npname;
	*java = c->java;
	return c->pname_ids;
}

const uint32_t *psc_frame_names(struct ps_collapser *c, uint64_t ip, const char *sym, uint64_t sym_off,
				const char *dso, bool kernel, bool java, size_t *n)
{
	uint32_t gi = frame_group(c, ip, sym, sym_off, dso, kernel, java);   /* may move groups */
	const struct group *g = &c->groups[gi];

	*n = g->n;
	return c->pool + g->off;
}

const char *psc_event(const struct ps_collapser *c)
{
	return c->filter.len ? c->filter.buf : "";
}

void psc_finish(struct ps_collapser *c)
{
	for (uint64_t i = 0; i < c->unrecognised && i < MAX_WARN_LINES; i++)
		pk_warn("%s:%" PRIu64 ": unrecognized line: %s", c->name, c->warn_lineno[i],
			c->warn_text[i].buf);
	if (c->unrecognised > MAX_WARN_LINES)
		pk_warn("%s: %" PRIu64 " unrecognized lines in all (first %d shown)", c->name,
			c->unrecognised, MAX_WARN_LINES);
	if (c->dropped && c->filter_defaulted)
		pk_warn("%s: filtering for events of type %s: %" PRIu64
			" samples of other events (%s, …) dropped; use --event-filter=EVENT",
			c->name, c->filter.buf, c->dropped, c->dropped_event.buf);
	c->dropped = 0;
	c->unrecognised = 0;
}

void psc_set_first_event(struct ps_collapser *c, const char *ev, size_t evl)
{
	if (c->filter.len || c->filter_defaulted)
		return;
	sb_add(&c->filter, ev, evl);
	c->filter_defaulted = true;
}

bool psc_first_event(const char *buf, size_t len, const char **ev, size_t *evl)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p), full = n;
		size_t comml, pidl, tidl, perl;

		if (n && p[n - 1] == '\r')   /* CRLF text, as lr_next reads it */
			n--;
		const char *pid, *tid, *per;

		struct rh_header h;
		const char *fr;
		size_t frl;

		if (n && p[0] != '#' && match_header_rh(p, n, &h) &&
		    match_rest(h.rest, h.restl, ev, evl, &per, &perl, &fr, &frl) &&
		    frl && is_hex_tok(fr, frl))
			return true;
		if (n && p[0] != '#' && match_header(p, n, &comml, &pid, &pidl, &tid, &tidl) &&
		    match_event(p, n, ev, evl, &per, &perl))
			return true;
		p += full + 1;
	}
	return false;
}

void psc_merge(struct ps_collapser *into, struct ps_collapser *from)
{
	for (uint64_t i = 0; i < from->unrecognised && i < MAX_WARN_LINES; i++) {
		if (into->unrecognised + i >= MAX_WARN_LINES)
			break;
		size_t k = (size_t)(into->unrecognised + i);
		into->warn_lineno[k] = into->lines + from->warn_lineno[i];
		sb_reset(&into->warn_text[k]);
		sb_add(&into->warn_text[k], from->warn_text[i].buf, from->warn_text[i].len);
	}
	into->unrecognised += from->unrecognised;
	if (!into->dropped && from->dropped)
		sb_add(&into->dropped_event, from->dropped_event.buf, from->dropped_event.len);
	into->dropped += from->dropped;
	into->lines += from->lines;
}

struct psc_part {
	uint64_t lines, unrecognised, dropped;
	uint64_t warn_lineno[MAX_WARN_LINES];
	char *warn_text[MAX_WARN_LINES];
	char *dropped_event;
};

struct psc_part *psc_part_take(struct ps_collapser *c)
{
	struct psc_part *p = xcalloc(1, sizeof(*p));

	p->lines = c->lines;
	p->unrecognised = c->unrecognised;
	p->dropped = c->dropped;
	for (uint64_t i = 0; i < c->unrecognised && i < MAX_WARN_LINES; i++) {
		p->warn_lineno[i] = c->warn_lineno[i];
		p->warn_text[i] = xstrndup(c->warn_text[i].buf ? c->warn_text[i].buf : "",
					   c->warn_text[i].len);
		sb_reset(&c->warn_text[i]);
	}
	if (c->dropped)
		p->dropped_event = xstrndup(c->dropped_event.buf ? c->dropped_event.buf : "",
					    c->dropped_event.len);
	sb_reset(&c->dropped_event);
	c->lines = c->unrecognised = c->dropped = 0;
	return p;
}

void psc_part_merge(struct ps_collapser *into, struct psc_part *p)
{
	if (!p)
		return;
	for (uint64_t i = 0; i < p->unrecognised && i < MAX_WARN_LINES; i++) {
		if (into->unrecognised + i >= MAX_WARN_LINES)
			break;
		size_t k = (size_t)(into->unrecognised + i);
		into->warn_lineno[k] = into->lines + p->warn_lineno[i];
		sb_reset(&into->warn_text[k]);
		sb_addstr(&into->warn_text[k], p->warn_text[i]);
	}
	into->unrecognised += p->unrecognised;
	if (!into->dropped && p->dropped)
		sb_addstr(&into->dropped_event, p->dropped_event);
	into->dropped += p->dropped;
	into->lines += p->lines;
	psc_part_free(p);
}

void psc_part_free(struct psc_part *p)
{
	if (!p)
		return;
	for (int i = 0; i < MAX_WARN_LINES; i++)
		free(p->warn_text[i]);
	free(p->dropped_event);
	free(p);
}
