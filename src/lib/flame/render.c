/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * render.c — folded lines → merged frames → SVG (see flame.h for the
 * model; the merge and geometry rules are flamegraph.pl's).
 */
#include "flame/flame.h"

#include <errno.h>
#include <iconv.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "base/arena.h"
#include "base/error.h"

extern const char flame_script[];
extern const char flame_style[];

void flame_opts_init(struct flame_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->width = 1200;
	o->frameheight = 16;
	o->fontsize = 12;
	o->fontwidth = 0.59;
	o->minwidth = 0.1;
	o->fonttype = "Verdana";
	o->countname = "samples";
	o->nametype = "Function:";
	o->colors = "hot";
	o->factor = 1;
}

struct rec {
	const char *line;
	uint32_t linelen;
	uint32_t stacklen;
	double s1, s2;
	int has2;
};

struct span {
	const char *s;
	size_t len;
};

/* Perl's split(";", s): fields, with trailing empty fields removed. */
static size_t split_frames(const char *s, size_t len, struct span **v, size_t *alloc, size_t first)
{
	size_t n = first;
	const char *p = s, *end = s + len;

	if (len == 0)
		return n;
	for (;;) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *fe = semi ? semi : end;

		if (n == *alloc) {
			*alloc = *alloc ? *alloc * 2 : 64;
			*v = xrealloc(*v, *alloc * sizeof(**v));
		}
		(*v)[n].s = p;
		(*v)[n].len = (size_t)(fe - p);
		n++;
		if (!semi)
			break;
		p = semi + 1;
	}
	while (n > first && (*v)[n - 1].len == 0)
		n--;
	return n;
}

/* Length of the common prefix of two byte strings. */
static size_t common_prefix(const char *a, size_t al, const char *b, size_t bl)
{
	size_t n = al < bl ? al : bl, i = 0;

#ifdef __SSE2__
	while (i + 16 <= n) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(a + i));
		__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) ^ 0xffffu;

		if (m)
			return i + (size_t)__builtin_ctz(m);
		i += 16;
	}
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (i + 8 <= n) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return i + ((size_t)__builtin_ctzll(x ^ y) >> 3);
		i += 8;
	}
#endif
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* A sort key: the line, (once sorted) the length of the prefix it shares
 * with the line before it, and the byte that follows that prefix (0 past
 * the end), which settles most merge comparisons without reading the
 * line itself. */
struct skey {
	const char *s;
	uint32_t len;
	uint32_t lcp;
	uint32_t idx;
	unsigned char c;
};

/* how many lines ahead a merge prefetches */
#define MERGE_PREFETCH 4

/* Is a <= b, given k = the length of their common prefix? */
static inline int le_at(const struct skey *a, const struct skey *b, size_t k)
{
	if (k == a->len)
		return 1;
	if (k == b->len)
		return 0;
	return (unsigned char)a->s[k] <= (unsigned char)b->s[k];
}

/* Merge two sorted runs with known neighbour LCPs (Ng & Kakehi's LCP
 * merge): a comparison only reads bytes past the prefix both heads
 * already share with the last line written, so long common stack
 * prefixes are not compared again and again.  Each head also carries the
 * byte after that prefix: when those differ the order is known without
 * touching the lines (on shuffled input, about a third of the
 * comparisons that would read them). */
static void lcp_merge(const struct skey *A, size_t na, const struct skey *B, size_t nb,
		      struct skey *out)
{
	size_t i = 0, j = 0, o = 0;
	uint32_t ha = 0, hb = 0;
	unsigned char ca = na ? A[0].c : 0, cb = nb ? B[0].c : 0;

	while (i < na && j < nb) {
		int take_a;

		if (ha != hb) {
			/* the head sharing more with the last line is the smaller */
			take_a = ha > hb;
		} else if (ca != cb && ha < A[i].len && hb < B[j].len) {
			/* they differ at the first byte past that prefix: known
			 * without reading the lines */
			take_a = ca < cb;
		} else {
			size_t k = ha + common_prefix(A[i].s + ha, A[i].len - ha, B[j].s + ha, B[j].len - ha);

			take_a = le_at(&A[i], &B[j], k);
			if (take_a) {
				hb = (uint32_t)k;
				cb = k < B[j].len ? (unsigned char)B[j].s[k] : 0;
			} else {
				ha = (uint32_t)k;
				ca = k < A[i].len ? (unsigned char)A[i].s[k] : 0;
			}
		}
		if (take_a) {
			out[o] = A[i++];
			out[o].c = ca;
			out[o++].lcp = ha;
			ha = i < na ? A[i].lcp : 0;
			ca = i < na ? A[i].c : 0;
			if (i + MERGE_PREFETCH < na) /* hide the cache miss of a line to come */
				__builtin_prefetch(A[i + MERGE_PREFETCH].s + A[i + MERGE_PREFETCH].lcp);
		} else {
			out[o] = B[j++];
			out[o].c = cb;
			out[o++].lcp = hb;
			hb = j < nb ? B[j].lcp : 0;
			cb = j < nb ? B[j].c : 0;
			if (j + MERGE_PREFETCH < nb)
				__builtin_prefetch(B[j + MERGE_PREFETCH].s + B[j + MERGE_PREFETCH].lcp);
		}
	}
	if (i < na) {
		out[o] = A[i++];
		out[o].c = ca;
		out[o++].lcp = ha;
		while (i < na)
			out[o++] = A[i++];
	}
	if (j < nb) {
		out[o] = B[j++];
		out[o].c = cb;
		out[o++].lcp = hb;
		while (j < nb)
			out[o++] = B[j++];
	}
}

/* Merge the sorted runs runs[0..nruns) (start indices into k; the last
 * ends at runs[nruns]) pairwise until one is left, in k. */
static void merge_runs(struct skey *k, struct skey *tmp, size_t *runs, size_t nruns)
{
	const size_t first = runs[0], end = runs[nruns];
	struct skey *src = k, *dst = tmp;

	while (nruns > 1) {
		size_t r, out = 0;

		for (r = 0; r + 1 < nruns; r += 2) {
			size_t lo = runs[r], mid = runs[r + 1], hi = runs[r + 2];

			lcp_merge(src + lo, mid - lo, src + mid, hi - mid, dst + lo);
			runs[out++] = lo;
		}
		if (r < nruns) { /* odd run out: copied as it is */
			memcpy(dst + runs[r], src + runs[r], (end - runs[r]) * sizeof(*dst));
			runs[out++] = runs[r];
		}
		runs[out] = end;
		nruns = out;
		struct skey *t = src;

		src = dst;
		dst = t;
	}
	if (src != k)
		memcpy(k + first, src + first, (end - first) * sizeof(*k));
}

/* Sort k[0..n) (n >= 1) on one thread: a natural merge sort.  The
 * ascending runs of the input (a folded file is often sorted, or a
 * concatenation of sorted files) are found in one sequential pass, then
 * merged pairwise. */
static void sort_part(struct skey *k, size_t n)
{
	size_t *runs = xmalloc((n + 2) * sizeof(*runs)), nruns = 0;

	runs[nruns++] = 0;
	k[0].lcp = 0;
	k[0].c = k[0].len ? (unsigned char)k[0].s[0] : 0;
	for (size_t i = 1; i < n; i++) {
		size_t c = common_prefix(k[i - 1].s, k[i - 1].len, k[i].s, k[i].len);

		if (le_at(&k[i - 1], &k[i], c)) {
			k[i].lcp = (uint32_t)c;
			k[i].c = c < k[i].len ? (unsigned char)k[i].s[c] : 0;
		} else {
			k[i].lcp = 0;
			k[i].c = k[i].len ? (unsigned char)k[i].s[0] : 0;
			runs[nruns++] = i;
		}
	}
	runs[nruns] = n;
	if (nruns > 1) {
		struct skey *tmp = xmalloc(n * sizeof(*tmp));

		merge_runs(k, tmp, runs, nruns);
		free(tmp);
	}
	free(runs);
}

struct sort_job {
	struct skey *k;
	size_t n;
};

static void *sort_thread(void *arg)
{
	struct sort_job *j = arg;

	sort_part(j->k, j->n);
	return NULL;
}

/* Sort keys by bytes (shorter prefix first), stably; sets every lcp
 * field.  Large inputs sort their two halves on two threads (runs found
 * and merged in each), then merge the halves unless already in order. */
static void lcp_sort(struct skey *k, size_t n)
{
	if (n < 65536) {
		if (n)
			sort_part(k, n);
		return;
	}
	size_t runs[3] = { 0, n / 2, n };
	struct sort_job job = { k + runs[1], n - runs[1] };
	pthread_t th;
	int threaded = pthread_create(&th, NULL, sort_thread, &job) == 0;

	sort_part(k, runs[1]);
	if (threaded)
		pthread_join(th, NULL);
	else
		sort_thread(&job);
	struct skey *a = &k[runs[1] - 1], *b = &k[runs[1]];
	size_t c = common_prefix(a->s, a->len, b->s, b->len);

	if (le_at(a, b, c)) { /* the halves are in order: one run */
		b->lcp = (uint32_t)c;
		b->c = c < b->len ? (unsigned char)b->s[c] : 0;
		return;
	}
	struct skey *tmp = xmalloc(n * sizeof(*tmp));

	merge_runs(k, tmp, runs, 2);
	free(tmp);
}

struct node {
	const char *name;
	uint32_t len;
	uint32_t depth;
	double stime, etime, delta;
	int hasdelta;
};

struct open_frame {
	const char *name;
	size_t len;
	size_t end;             /* offset after the frame in the current stack text */
	double stime, delta;
	int hasdelta;
};

struct layout {
	struct node *nodes;
	size_t nr, alloc;
	struct open_frame *open;
	size_t nopen, openalloc;
	double minwidth_time;
	unsigned depthmax;
};

/* flamegraph.pl keeps a frame's end time in a hash key, so it is the
 * number as Perl prints it, read back: all its digits while it is a sum of
 * integers (Perl's IV or UV: from -2^63, below 2^64), else 15
 * significant digits. */
static double perl_num(double t)
{
	char tmp[40];

	if (t == floor(t) && (t >= 0 ? t < 18446744073709551616.0 : t >= -9223372036854775808.0))
		return t;
	snprintf(tmp, sizeof(tmp), "%.15g", t);
	return strtod(tmp, NULL);
}

static void close_to(struct layout *L, size_t keep, double t)
{
	t = perl_num(t);
	while (L->nopen > keep) {
		struct open_frame *f = &L->open[--L->nopen];

		if (t - f->stime < L->minwidth_time)
			continue;
		if (L->nr == L->alloc) {
			L->alloc = L->alloc ? L->alloc * 2 : 1024;
			L->nodes = xrealloc(L->nodes, L->alloc * sizeof(*L->nodes));
		}
		struct node *n = &L->nodes[L->nr++];

		n->name = f->name;
		n->len = (uint32_t)f->len;
		n->depth = (uint32_t)L->nopen;
		n->stime = f->stime;
		n->etime = t;
		n->delta = f->delta;
		n->hasdelta = f->hasdelta;
		if (n->depth > L->depthmax)
			L->depthmax = n->depth;
	}
}

static void open_frame(struct layout *L, const char *name, size_t len, size_t end, double t)
{
	if (L->nopen == L->openalloc) {
		L->openalloc = L->openalloc ? L->openalloc * 2 : 64;
		L->open = xrealloc(L->open, L->openalloc * sizeof(*L->open));
	}
	struct open_frame *f = &L->open[L->nopen++];

	f->name = name;
	f->len = len;
	f->end = end;
	f->stime = t;
	f->hasdelta = 0;
	f->delta = 0;
}

/* flamegraph.pl's flow(): merge the stack (frames split on ';', trailing
 * empty frames dropped, under the root "") with the open frames of the
 * previous stack prev: frames equal at the same depth stay open, the rest
 * close at time t, and the new ones open at t; a differential delta goes
 * to the new leaf (0 to the other new frames). */
static void flow(struct layout *L, const char *prev, size_t prevlen, const char *stack,
		 size_t len, size_t known_lcp, double t, int hasd, double d)
{
	size_t same = 0, off = 0;

	while (len && stack[len - 1] == ';')
		len--;
	if (L->nopen) {
		size_t lcp;

		if (known_lcp != UINT32_MAX) /* lines' LCP from the sort */
			lcp = known_lcp < len ? (known_lcp < prevlen ? known_lcp : prevlen)
					      : (len < prevlen ? len : prevlen);
		else
			lcp = common_prefix(prev, prevlen, stack, len);

		same = 1;
		while (same < L->nopen) {
			size_t end = L->open[same].end;

			if (end > lcp || !(end == len || stack[end] == ';'))
				break;
			same++;
		}
		if (same > 1)
			off = L->open[same - 1].end + 1;
	}
	close_to(L, same, t);
	size_t first = L->nopen;

	if (same == 0)
		open_frame(L, "", 0, 0, t);
	if (len && (same <= 1 || off <= len)) {
		const char *p = stack + off, *end = stack + len;

		for (;;) {
			const char *semi = memchr(p, ';', (size_t)(end - p));
			const char *fe = semi ? semi : end;

			open_frame(L, p, (size_t)(fe - p), (size_t)(fe - stack), t);
			if (!semi)
				break;
			p = semi + 1;
		}
	}
	if (hasd) {
		for (size_t i = first; i < L->nopen; i++) {
			L->open[i].hasdelta = 1;
			L->open[i].delta = i == L->nopen - 1 ? d : 0;
		}
	}
}

/* --colors chain: frames after ";--;" become wakers ("_[w]") */
static size_t chain_rewrite(struct pk_arena *A, const char *s, size_t len, const char **out)
{
	struct strbuf sb = STRBUF_INIT;
	const char *sep = memmem(s, len, ";--;", 4);
	size_t n;

	if (!sep) {
		sb_add(&sb, s, len);
		sb_addstr(&sb, ";--;");
	} else {
		sb_add(&sb, s, (size_t)(sep - s));
		sb_addstr(&sb, ";--;");
		const char *p = sep + 4, *end = s + len;
		int firstpart = 1;

		/* the remaining parts, each "a;b" → "a_[w];b_[w]" */
		for (;;) {
			const char *nx = memmem(p, (size_t)(end - p), ";--;", 4);
			const char *pe = nx ? nx : end;

			if (!nx && pe == p && !firstpart)
				break; /* trailing empty part (Perl's split drops it) */
			if (!firstpart)
				sb_addstr(&sb, ";--;");
			for (const char *q = p; q < pe; q++) {
				if (*q == ';')
					sb_addstr(&sb, "_[w];");
				else
					sb_addch(&sb, *q);
			}
			if (pe > p || nx)
				sb_addstr(&sb, "_[w]");
			firstpart = 0;
			if (!nx)
				break;
			p = nx + 4;
		}
	}
	n = sb.len;
	char *dst = pk_arena_alloc(A, n ? n : 1);

	memcpy(dst, sb.buf, n);
	sb_release(&sb);
	*out = dst;
	return n;
}

/* ---- SVG ---- */

static void add_attr_text(struct strbuf *sb, const char *s)
{
	sb_add_xml(sb, s, strlen(s));
}

/* Font names go into CSS: keep only characters that cannot end the rule. */
static void add_css_font(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == ' ' || c == ',' || c == '-' || c == '_' || c >= 0x80)
			sb_addch(sb, c);
	}
	if (sb->len && sb->buf[sb->len - 1] == ':')
		sb_addstr(sb, "Verdana");
}

static void add_color_attr(struct strbuf *sb, const char *s)
{
	/* bgcolors are validated by the caller; escape anyway */
	add_attr_text(sb, s);
}

bool flame_encoding_valid(const char *name)
{
	if (!name || !((*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z')))
		return false;
	for (const char *p = name + 1; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '-' || *p == '_' || *p == '.'))
			return false;
	iconv_t cd = iconv_open("UTF-8", name);
	if (cd == (iconv_t)-1)
		return false;
	iconv_close(cd);
	return true;
}

static void header(struct strbuf *sb, const struct flame_opts *o, double height)
{
	sb_addstr(sb, "<?xml version=\"1.0\"");
	if (o->encoding && *o->encoding) {
		sb_addstr(sb, " encoding=\"");
		for (const char *p = o->encoding; *p; p++)
			if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			    (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.')
				sb_addch(sb, *p);
		sb_addch(sb, '"');
	}
	sb_addstr(sb, " standalone=\"no\"?>\n"
		  "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
		  "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n");
	sb_addf(sb, "<svg version=\"1.1\" width=\"%d\" height=\"", o->width);
	flame_add_num(sb, height);
	sb_addf(sb, "\" viewBox=\"0 0 %d ", o->width);
	flame_add_num(sb, height);
	sb_addstr(sb, "\" xmlns=\"http://www.w3.org/2000/svg\" "
		  "xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
		  "<!-- Flame graph drawn by perfkit flamegraph: frame width is proportional to "
		  "the count, the y axis is stack depth. Click a frame to zoom, Ctrl-F to search. -->\n");
	/* as flamegraph.pl: the notes as given, in a comment (where entities
	 * are not read: '&' stays '&'), written when empty too; "--" cannot be
	 * in a comment (a space between), control bytes are spaces and bytes
	 * that are not UTF-8 U+FFFD (sb_add_xml), so the file stays XML */
	const char *n = o->notes ? o->notes : "";
	size_t nl = strlen(n);

	sb_addstr(sb, "<!-- NOTES: ");
	for (size_t i = 0; i < nl;) {
		unsigned char ch = (unsigned char)n[i];
		size_t j = i + 1;

		if (ch >= 0x80) {   /* a run of non-ASCII bytes */
			while (j < nl && (unsigned char)n[j] >= 0x80)
				j++;
			sb_add_xml(sb, n + i, j - i);
		} else {
			sb_addch(sb, ch < 0x20 && ch != '\t' ? ' ' : (char)ch);
			if (ch == '-' && (j == nl || n[j] == '-'))
				sb_addch(sb, ' ');
		}
		i = j;
	}
	sb_addstr(sb, " -->\n");
}

static void bg_colors(const struct flame_opts *o, const char **c1, const char **c2)
{
	const char *bg = o->bgcolors;
	const char *pal = o->colors ? o->colors : "hot";

	if (!bg || !*bg) {
		if (!strcmp(pal, "mem"))
			bg = "green";
		else if (!strcmp(pal, "io") || !strcmp(pal, "wakeup") || !strcmp(pal, "chain"))
			bg = "blue";
		else if (!strcmp(pal, "red") || !strcmp(pal, "green") || !strcmp(pal, "blue") ||
			 !strcmp(pal, "aqua") || !strcmp(pal, "yellow") || !strcmp(pal, "purple") ||
			 !strcmp(pal, "orange"))
			bg = "grey";
		else
			bg = "yellow";
	}
	if (!strcmp(bg, "blue")) {
		*c1 = "#eeeeee"; *c2 = "#e0e0ff";
	} else if (!strcmp(bg, "green")) {
		*c1 = "#eef2ee"; *c2 = "#e0ffe0";
	} else if (!strcmp(bg, "grey")) {
		*c1 = "#f8f8f8"; *c2 = "#e8e8e8";
	} else if (bg[0] == '#') {
		*c1 = *c2 = bg;
	} else {
		*c1 = "#eeeeee"; *c2 = "#eeeeb0";
	}
}

static void text_el(struct strbuf *sb, const char *id, double x, double y, const char *cls,
		    const char *txt)
{
	sb_addstr(sb, "<text");
	if (id)
		sb_addf(sb, " id=\"%s\"", id);
	if (cls)
		sb_addf(sb, " class=\"%s\"", cls);
	sb_addstr(sb, " x=\"");
	flame_add_num(sb, x);
	sb_addstr(sb, "\" y=\"");
	flame_add_num(sb, y);
	sb_addstr(sb, "\">");
	add_attr_text(sb, txt);
	sb_addstr(sb, "</text>\n");
}

static void add_samples_txt(struct strbuf *sb, double v)
{
	char tmp[400];   /* %.0f of DBL_MAX is 309 digits (found by fuzzing) */
	int n;

	if (v >= 0 && v < 1e15) {
		double r = nearbyint(v); /* %.0f rounds half to even, as does nearbyint */
		n = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)r);
	} else {
		n = snprintf(tmp, sizeof(tmp), "%.0f", v);
	}
	if (n < 0)
		n = 0;
	if (n >= (int)sizeof(tmp))
		n = (int)sizeof(tmp) - 1;
	/* thousands separators on the leading digits */
	int start = tmp[0] == '-' || tmp[0] == '+';
	int digits = n - start;

	sb_add(sb, tmp, (size_t)start);
	for (int i = 0; i < digits; i++) {
		if (i && (digits - i) % 3 == 0)
			sb_addch(sb, ',');
		sb_addch(sb, tmp[start + i]);
	}
}

static size_t strip_annotation(const char *s, size_t len)
{
	if (len >= 4 && s[len - 4] == '_' && s[len - 3] == '[' && s[len - 1] == ']' &&
	    (s[len - 2] == 'k' || s[len - 2] == 'w' || s[len - 2] == 'i' || s[len - 2] == 'j'))
		return len - 4;
	return len;
}

static void no_data_svg(struct strbuf *sb, const struct flame_opts *o, size_t lines,
			size_t ignored)
{
	double h = o->fontsize * 5;
	char msg[160];

	if (!lines)
		snprintf(msg, sizeof(msg), "ERROR: No valid input provided to perfkit flamegraph "
			 "(the input is empty).");
	else
		snprintf(msg, sizeof(msg), "ERROR: No valid input provided to perfkit flamegraph "
			 "(%zu of %zu lines ignored: expected \"STACK COUNT\").", ignored, lines);
	header(sb, o, h);
	text_el(sb, "title", (double)(o->width / 2), o->fontsize * 2, NULL, msg);
	sb_addstr(sb, "<g id=\"frames\">\n</g>\n</svg>\n");
}

/* Nothing to draw (no stack counted): the SVG that says so, and the error. */
static int no_data(struct strbuf *sb, const struct flame_opts *o, size_t lines, size_t ignored)
{
	no_data_svg(sb, o, lines, ignored);
	if (!lines)
		return pk_error(ENODATA, "no stack counts found in the input: it is empty");
	return pk_error(ENODATA, "no stack counts found in the input (%zu lines, %zu invalid)",
			lines, ignored);
}

/* Counts whose sum is not a number (past DBL_MAX): nothing drawn. */
static int too_large(void)
{
	return pk_error(ERANGE, "the counts add up to more than the largest number (about 1.8e308): nothing drawn");
}

/* The time the graph's width stands for (the total counted, or --total
 * when larger), and in L the narrowest frame drawn, in that time
 * (--minwidth in pixels of the width less its 10-pixel margins, or %). */
static double layout_scale(const struct flame_opts *o, double time, struct layout *L)
{
	double timemax = o->total > 0 && o->total >= time ? o->total : time;
	const double xpad = 10;
	const double widthpertime = (o->width - 2 * xpad) / timemax;

	L->minwidth_time = o->minwidth_pct ? timemax * o->minwidth / 100 : o->minwidth / widthpertime;
	return timemax;
}

/* 4. draw the merged frames (L's nodes) as the SVG document */
static void draw_svg(const struct layout *L, const struct flame_opts *o, double timemax, double maxdelta,
		     struct strbuf *out, struct flame_stats *st)
{
	const double xpad = 10;
	const double widthpertime = (o->width - 2 * xpad) / timemax;

	const double fs = o->fontsize;
	const double ypad1 = fs * 3, ypad2 = fs * 2 + 10, ypad3 = fs * 2;
	const int has_sub = o->subtitle && *o->subtitle;
	double imageheight = (L->depthmax + 1.0) * o->frameheight + ypad1 + ypad2;

	if (has_sub)
		imageheight += ypad3;
	const char *title = o->title && *o->title ? o->title
			    : o->flamechart ? "Flame Chart"
			    : o->inverted ? "Icicle Graph" : "Flame Graph";
	const char *bg1, *bg2;

	bg_colors(o, &bg1, &bg2);
	sb_grow(out, 4096 + L->nr * 220);
	header(out, o, imageheight);
	sb_addstr(out, "<defs>\n<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">\n"
		  "<stop stop-color=\"");
	add_color_attr(out, bg1);
	sb_addstr(out, "\" offset=\"5%\"/>\n<stop stop-color=\"");
	add_color_attr(out, bg2);
	sb_addstr(out, "\" offset=\"95%\"/>\n</linearGradient>\n</defs>\n<style type=\"text/css\">\n");
	sb_addstr(out, "text { font-family:");
	add_css_font(out, o->fonttype ? o->fonttype : "Verdana");
	sb_addstr(out, "; font-size:");
	flame_add_num(out, fs);
	sb_addstr(out, "px; fill:rgb(0,0,0); }\n#title { text-anchor:middle; font-size:");
	flame_add_num(out, fs + 5);
	sb_addstr(out, "px; }\n");
	sb_addstr(out, flame_style);
	sb_addstr(out, "</style>\n<script type=\"text/ecmascript\"><![CDATA[\n");
	sb_addstr(out, flame_script);
	sb_addstr(out, "]]></script>\n");
	sb_addf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"", o->width);
	flame_add_num(out, imageheight);
	sb_addstr(out, "\" fill=\"url(#background)\"/>\n");
	text_el(out, "title", (double)(o->width / 2), fs * 2, NULL, title);
	if (has_sub)
		text_el(out, "subtitle", (double)(o->width / 2), fs * 4, NULL, o->subtitle);
	text_el(out, "details", xpad, imageheight - ypad2 / 2, NULL, " ");
	text_el(out, "unzoom", xpad, fs * 2, "hide", "Reset Zoom");
	text_el(out, "search", o->width - xpad - 100, fs * 2, NULL, "Search");
	text_el(out, "ignorecase", o->width - xpad - 16, fs * 2, NULL, "ic");
	text_el(out, "matched", o->width - xpad - 100, imageheight - ypad2 / 2, NULL, " ");
	text_el(out, "nametype", 0, 0, "hide", o->nametype ? o->nametype : "Function:");
	sb_addstr(out, "<g id=\"frames\" fontsize=\"");
	flame_add_num(out, fs);
	sb_addstr(out, "\" fontwidth=\"");
	flame_add_num(out, o->fontwidth);
	sb_addf(out, "\" xpad=\"10\" inverted=\"%d\">\n", o->inverted ? 1 : 0);

	struct strbuf countname = STRBUF_INIT;

	add_attr_text(&countname, o->countname ? o->countname : "samples");
	const double factor = o->factor;
	const double charw = fs * o->fontwidth;
	char color[32];

	for (size_t i = 0; i < L->nr; i++) {
		const struct node *n = &L->nodes[i];
		const int root = n->depth == 0 && n->len == 0;
		double etime = root ? timemax : n->etime;
		double x1 = xpad + n->stime * widthpertime;
		double x2 = xpad + etime * widthpertime;
		double y1, y2;

		if (!o->inverted) {
			y1 = imageheight - ypad2 - (n->depth + 1.0) * o->frameheight + 1;
			y2 = imageheight - ypad2 - (double)n->depth * o->frameheight;
		} else {
			y1 = ypad1 + (double)n->depth * o->frameheight;
			y2 = ypad1 + (n->depth + 1.0) * o->frameheight - 1;
		}
		const struct flame_attrs *na = NULL;

		if (o->nameattr) {
			struct hm_entry *e = hm_find(&o->nameattr->map, n->name, n->len);

			na = e ? e->val.ptr : NULL;
		}
		/* group start */
		if (na && na->href && *na->href) {
			sb_addstr(out, "<a xlink:href=\"");
			add_attr_text(out, na->href);
			sb_addstr(out, "\" target=\"");
			add_attr_text(out, na->target && *na->target ? na->target : "_top");
			sb_addch(out, '"');
			if (na->a_extra)
				sb_addstr(out, na->a_extra);
		} else {
			sb_addstr(out, "<g");
		}
		if (na) {
			if (na->id) {
				sb_addstr(out, " id=\"");
				add_attr_text(out, na->id);
				sb_addch(out, '"');
			}
			if (na->cls) {
				sb_addstr(out, " class=\"");
				add_attr_text(out, na->cls);
				sb_addch(out, '"');
			}
			if (na->g_extra)
				sb_addstr(out, na->g_extra);
		}
		sb_addstr(out, "><title>");

		/* tooltip */
		double samples = nearbyint((etime - n->stime) * factor);
		size_t shown = strip_annotation(n->name, n->len);

		if (na && na->title && *na->title) {
			add_attr_text(out, na->title);
		} else if (root) {
			sb_addstr(out, "all (");
			add_samples_txt(out, samples);
			sb_addch(out, ' ');
			sb_add(out, countname.buf, countname.len);
			sb_addstr(out, ", 100%)");
		} else {
			flame_add_name(out, n->name, shown);
			sb_addstr(out, " (");
			add_samples_txt(out, samples);
			sb_addch(out, ' ');
			sb_add(out, countname.buf, countname.len);
			sb_addstr(out, ", ");
			flame_add_fixed(out, 100 * samples / (timemax * factor), 2);
			sb_addch(out, '%');
			if (n->hasdelta) {
				double d = o->negate ? -n->delta : n->delta;

				sb_addstr(out, "; ");
				if (d > 0)
					sb_addch(out, '+');
				flame_add_fixed(out, 100 * d / (timemax * factor), 2);
				sb_addch(out, '%');
			}
			sb_addch(out, ')');
		}
		sb_addstr(out, "</title>");
		if (na && na->title && *na->title) {
			/* the tooltip is not "NAME (…)": the script reads the name here */
			sb_addstr(out, "<desc>");
			flame_add_name(out, n->name, shown);
			sb_addstr(out, "</desc>");
		}

		/* colour */
		if (n->len == 2 && n->name[0] == '-' && n->name[1] == '-') {
			snprintf(color, sizeof(color), "rgb(160,160,160)");
		} else if (n->len == 1 && n->name[0] == '-') {
			snprintf(color, sizeof(color), "rgb(200,200,200)");
		} else if (n->hasdelta) {
			flame_color_scale(color, n->delta, maxdelta, o->negate);
		} else if (o->palette) {
			struct hm_entry *e = hm_find(&o->palette->map, n->name, n->len);

			if (e) {
				snprintf(color, sizeof(color), "%.31s", (const char *)e->val.ptr);
			} else {
				flame_color(color, o->colors, o->colormode, n->name, n->len);
				e = hm_upsert(&o->palette->map, n->name, n->len, NULL);
				e->val.ptr = (void *)hm_intern(&o->palette->strs, color, strlen(color));
			}
		} else {
			flame_color(color, o->colors, o->colormode, n->name, n->len);
		}

		/* rect: x and width as flamegraph.pl rounds them (the width is
		 * the difference of the printed x values) */
		sb_addstr(out, "<rect x=\"");
		double r1 = flame_add_fixed(out, x1, 1);
		double r2 = flame_fixed_value(x2, 1);

		sb_addstr(out, "\" y=\"");
		flame_add_num(out, y1);
		sb_addstr(out, "\" width=\"");
		flame_add_fixed(out, r2 - r1, 1);
		sb_addstr(out, "\" height=\"");
		flame_add_fixed(out, y2 - y1, 1);
		sb_addstr(out, "\" fill=\"");
		sb_addstr(out, color);
		sb_addstr(out, "\" rx=\"2\" ry=\"2\"/><text x=\"");
		flame_add_fixed(out, x1 + 3, 2);
		sb_addstr(out, "\" y=\"");
		flame_add_num(out, 3 + (y1 + y2) / 2);
		sb_addstr(out, "\">");
		if (root)
			flame_add_label(out, "all", 3, (long)((x2 - x1) / charw));
		else
			flame_add_label(out, n->name, shown, (long)((x2 - x1) / charw));
		sb_addstr(out, (na && na->href && *na->href) ? "</text></a>\n" : "</text></g>\n");
	}
	sb_addstr(out, "</g>\n</svg>\n");
	if (st)
		st->frames = L->nr;

	sb_release(&countname);
}

int flame_render(const struct flame_input *in, const struct flame_opts *o,
		 struct strbuf *out, struct flame_stats *st)
{
	struct pk_arena A = PK_ARENA_INIT;  /* rewritten lines (reverse, chain) */
	struct rec *recs = xmalloc((in->nr + 1) * sizeof(*recs));
	size_t nrec = 0, ignored = 0;
	struct span *fr = NULL;
	size_t fralloc = 0;
	const int chain = o->colors && !strcmp(o->colors, "chain");

	/* 1. parse counts (and rewrite reversed stacks) */
	for (size_t i = 0; i < in->nr; i++) {
		const char *s = in->lines[i].s;
		size_t len = in->lines[i].len, sl, sl2;
		double c, c2;
		struct rec *r = &recs[nrec];

		if (!flame_parse_count(s, len, &sl, &c)) {
			if (st && ignored < FLAME_IGNORED_SHOWN)
				st->ignored_at[ignored] = i;
			ignored++;
			continue;
		}
		r->line = s;
		r->linelen = (uint32_t)len;
		if (flame_parse_count(s, sl, &sl2, &c2)) {
			r->has2 = 1;
			r->s1 = c2;
			r->s2 = c;
			r->stacklen = (uint32_t)sl2;
		} else {
			r->has2 = 0;
			r->s1 = c;
			r->s2 = 0;
			r->stacklen = (uint32_t)sl;
		}
		if (o->reverse) {
			size_t n = split_frames(s, r->stacklen, &fr, &fralloc, 0);
			size_t tail = len - r->stacklen; /* " COUNT[ COUNT2]" as written */
			size_t need = r->stacklen + tail + 2;
			char *d = pk_arena_alloc(&A, need), *p = d;

			for (size_t k = n; k-- > 0;) {
				memcpy(p, fr[k].s, fr[k].len);
				p += fr[k].len;
				if (k)
					*p++ = ';';
			}
			size_t newstack = (size_t)(p - d);
			/* Perl rebuilds " $samples[ $samples2]" with single spaces */
			size_t c1s, c1l, c2s = 0, c2l = 0;

			if (r->has2) {
				c2s = sl + 1; c2l = len - c2s;
				c1s = sl2 + 1; c1l = sl - c1s;
			} else {
				c1s = sl + 1; c1l = len - c1s;
			}
			*p++ = ' ';
			memcpy(p, s + c1s, c1l);
			p += c1l;
			if (r->has2) {
				*p++ = ' ';
				memcpy(p, s + c2s, c2l);
				p += c2l;
			}
			r->line = d;
			r->linelen = (uint32_t)(p - d);
			r->stacklen = (uint32_t)newstack;
		}
		nrec++;
	}

	/* 2. order: sorted lines, or input order for a flame chart */
	struct skey *keys = xmalloc((nrec + 1) * sizeof(*keys));

	for (size_t i = 0; i < nrec; i++) {
		keys[i].s = recs[i].line;
		keys[i].len = recs[i].linelen;
		keys[i].lcp = UINT32_MAX; /* unknown */
		keys[i].idx = (uint32_t)i;
	}
	if (!o->flamechart)
		lcp_sort(keys, nrec);

	double time = 0, maxdelta = 1;

	for (size_t i = 0; i < nrec; i++) {
		/* summed in drawing order, as flamegraph.pl does (fractions) */
		const struct rec *r = &recs[keys[i].idx];

		if (i + 16 < nrec) /* sorted lines reach recs out of order */
			__builtin_prefetch(&recs[keys[i + 16].idx]);
		time += r->has2 ? r->s2 : r->s1;
		if (r->has2 && fabs(r->s2 - r->s1) > maxdelta)
			maxdelta = fabs(r->s2 - r->s1);
	}
	ignored += in->dropped_bad;   /* merge mode: invalid lines only counted */
	if (st) {
		st->lines = flame_input_nlines(in);
		st->ignored = ignored;
		st->total = time;
		st->frames = 0;
	}
	if (time <= 0 || !isfinite(time)) {
		free(keys);
		free(recs);
		free(fr);
		pk_arena_release(&A);
		return time <= 0 ? no_data(out, o, flame_input_nlines(in), ignored) : too_large();
	}
	struct layout L = { 0 };
	double timemax = layout_scale(o, time, &L);

	/* 3. merge (flamegraph.pl's flow) */
	double t = 0;

	const char *prev = NULL;
	size_t prevlen = 0;

	for (size_t i = 0; i < nrec; i++) {
		struct rec *r = &recs[keys[i].idx];
		const char *stack = r->line;
		size_t stacklen = r->stacklen;
		size_t lcp = keys[i].lcp; /* shared with the previous line, if known */

		/* lines out of input order are scattered in memory: fetch the
		 * records and the parts of the lines flow() reads ahead */
		if (i + 16 < nrec)
			__builtin_prefetch(&recs[keys[i + 16].idx]);
		if (i + 8 < nrec) {
			const struct skey *q = &keys[i + 8];

			if (q->lcp < q->len)
				__builtin_prefetch(q->s + q->lcp);
			if (q->len)
				__builtin_prefetch(q->s + q->len - 1);
		}

		if (chain) {
			stacklen = chain_rewrite(&A, stack, stacklen, &stack);
			lcp = UINT32_MAX;
		}
		flow(&L, prev, prevlen, stack, stacklen, lcp, t, r->has2, r->has2 ? r->s2 - r->s1 : 0);
		prev = stack;
		prevlen = stacklen;
		while (prevlen && prev[prevlen - 1] == ';')
			prevlen--;
		t += r->has2 ? r->s2 : r->s1;
	}
	close_to(&L, 0, t);

	draw_svg(&L, o, timemax, maxdelta, out, st);
	free(L.nodes);
	free(L.open);
	free(keys);
	free(recs);
	free(fr);
	pk_arena_release(&A);
	return 0;
}

/* ---- a tree of named frames (flame_render_tree) ---- */

/* The folded lines of the tree's stacks, sorted as flamegraph.pl sorts
 * them, are found without printing them: the lines through a node share
 * its text, so at each node only its children's items are ordered, an
 * item being a child's own line ("NAME COUNT") or the block of lines
 * through the child ("NAME;…": one contiguous run of the sorted lines,
 * since no other child's line starts with "NAME;").  The items compare as
 * those bytes; a block's bytes after the ';' never decide (no other item
 * shares them).  Walking the items depth first gives the lines in order. */
struct tctx {
	const struct flame_tree *ft;
	const uint32_t *name;       /* per node: its name id */
	const uint32_t *cnt_off;    /* per node: its count text in cnt_pool */
	const uint8_t *cnt_len;
	const char *cnt_pool;
};

static __thread const struct tctx *tc_cur;

/* Byte i of an item's text after its name of length l: the separator and
 * the count; -1 at the end of a line, 256 inside a block. */
static int item_tail(const struct tctx *c, uint32_t it, size_t i)
{
	if (it & 1) {
		uint32_t x = it >> 1;

		if (i == 0)
			return ' ';
		return i - 1 < c->cnt_len[x] ? (unsigned char)c->cnt_pool[c->cnt_off[x] + i - 1] : -1;
	}
	return i == 0 ? ';' : 256;
}

static const char *item_name(const struct tctx *c, uint32_t it, size_t *len)
{
	uint32_t x = it >> 1;

	if (!x) {           /* the root's own line: an empty stack */
		*len = 0;
		return "";
	}
	return c->ft->name(c->ft->ctx, c->name[x], len);
}

static int cmp_item(const void *pa, const void *pb)
{
	const struct tctx *c = tc_cur;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	size_t la, lb;
	const char *sa = item_name(c, a, &la), *sb = item_name(c, b, &lb);
	size_t m = la < lb ? la : lb;
	int r = memcmp(sa, sb, m);

	if (r)
		return r;
	for (size_t i = m;; i++) {
		int x = i < la ? (unsigned char)sa[i] : item_tail(c, a, i - la);
		int y = i < lb ? (unsigned char)sb[i] : item_tail(c, b, i - lb);

		if (x != y)
			return x < y ? -1 : 1;
		if (x < 0 || x == 256)
			break;
	}
	return a < b ? -1 : a > b;   /* equal names (not a valid tree): by node */
}

/* 4. merge (flamegraph.pl's flow) the lines order[0..nl) and draw them:
 * frames equal at the same depth as the previous line's stay open; equal
 * paths of names are one node. */
static void tree_draw(const struct flame_tree *ft, const uint32_t *parent, const uint32_t *name,
		      const uint32_t *depth, const double *count, const uint32_t *order, size_t nl,
		      double time, const struct flame_opts *o, struct strbuf *out, struct flame_stats *st)
{
	struct layout L = { 0 };
	double timemax = layout_scale(o, time, &L);
	double t = 0;
	uint32_t *prev = NULL, *path = NULL;
	size_t nprev = 0, apath = 0;

	for (size_t i = 0; i < nl; i++) {
		uint32_t x = order[i];
		size_t d = depth[x], same = 0;

		if (d > apath) {
			apath = d * 2;
			path = xrealloc(path, apath * sizeof(*path));
			prev = xrealloc(prev, apath * sizeof(*prev));
		}
		for (size_t k = d, v = x; k-- > 0; v = parent[v])
			path[k] = (uint32_t)v;
		if (L.nopen) {
			size_t k = 0;

			while (k < nprev && k < d && prev[k] == path[k])
				k++;
			same = 1 + k;   /* the root and the shared frames */
			if (same > L.nopen)
				same = L.nopen;
		}
		close_to(&L, same, t);
		if (same == 0)
			open_frame(&L, "", 0, 0, t);
		for (size_t k = same ? same - 1 : 0; k < d; k++) {
			size_t len;
			const char *nm = ft->name(ft->ctx, name[path[k]], &len);

			open_frame(&L, nm, len, 0, t);
		}
		uint32_t *tmp = prev;   /* this line is the next one's previous */

		prev = path;
		path = tmp;
		nprev = d;
		t += count[x];
	}
	close_to(&L, 0, t);
	draw_svg(&L, o, timemax, 1, out, st);
	free(L.nodes);
	free(L.open);
	free(prev);
	free(path);
}

int flame_render_tree(const struct flame_tree *ft, const struct flame_opts *o,
		      struct strbuf *out, struct flame_stats *st)
{
	size_t nr = ft->nr ? ft->nr : 1;

	if (o->reverse || o->flamechart || (o->colors && !strcmp(o->colors, "chain")))
		return pk_error(ENOTSUP, "--reverse, --flamechart and --colors chain draw from folded text");

	uint32_t *parent = xmalloc(nr * sizeof(*parent)), *name = xmalloc(nr * sizeof(*name));
	uint32_t *depth = xmalloc(nr * sizeof(*depth)), *cnt_off = xmalloc(nr * sizeof(*cnt_off));
	uint32_t *start = xcalloc(nr + 1, sizeof(*start));
	uint8_t *cnt_len = xcalloc(nr, sizeof(*cnt_len));
	bool *haskids = xcalloc(nr, sizeof(*haskids));
	double *count = xmalloc(nr * sizeof(*count));
	struct strbuf pool = STRBUF_INIT;
	size_t nlines = 0;

	/* 1. the nodes, their counts as the folded lines print them */
	parent[0] = name[0] = UINT32_MAX;
	depth[0] = 0;
	for (size_t i = 0; i < ft->nr; i++) {
		char buf[48];
		size_t n = ft->count_text(ft->ctx, i, buf, sizeof(buf));

		if (i) {
			ft->node(ft->ctx, i, &parent[i], &name[i]);
			if (parent[i] >= i)   /* not a tree: drawn under the root */
				parent[i] = 0;
			depth[i] = depth[parent[i]] + 1;
			haskids[parent[i]] = true;
		}
		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		buf[n] = '\0';
		cnt_off[i] = (uint32_t)pool.len;
		cnt_len[i] = (uint8_t)n;
		count[i] = n ? strtod(buf, NULL) : 0;
		sb_add(&pool, buf, n);
		nlines += n != 0;
	}
	/* 2. each node's items: its children's own lines and blocks (the
	 * root's own line among the root's) */
	for (size_t i = 0; i < ft->nr; i++) {
		uint32_t at = i ? parent[i] : 0;

		start[at + 1] += (cnt_len[i] != 0) + (i && haskids[i]);
	}
	for (size_t i = 0; i < nr; i++)
		start[i + 1] += start[i];
	uint32_t *items = xmalloc((start[nr] + 1) * sizeof(*items));
	uint32_t *fill = xmalloc(nr * sizeof(*fill));

	memcpy(fill, start, nr * sizeof(*fill));
	for (size_t i = 0; i < ft->nr; i++) {
		uint32_t at = i ? parent[i] : 0;

		if (cnt_len[i])
			items[fill[at]++] = (uint32_t)i << 1 | 1;
		if (i && haskids[i])
			items[fill[at]++] = (uint32_t)i << 1;
	}
	struct tctx c = { ft, name, cnt_off, cnt_len, pool.buf };

	tc_cur = &c;
	for (size_t i = 0; i < nr; i++)
		if (start[i + 1] - start[i] > 1)
			qsort(items + start[i], start[i + 1] - start[i], sizeof(*items), cmp_item);
	tc_cur = NULL;

	/* 3. the lines in order: the items depth first */
	uint32_t *order = xmalloc((nlines + 1) * sizeof(*order));
	uint32_t *dnode = NULL, *dpos = NULL;
	size_t sp = 0, asp = 0, nl = 0;

	if (ft->nr) {
		asp = 64;
		dnode = xmalloc(asp * sizeof(*dnode));
		dpos = xmalloc(asp * sizeof(*dpos));
		dnode[0] = 0;
		dpos[0] = start[0];
		sp = 1;
	}
	while (sp) {
		uint32_t x = dnode[sp - 1];

		if (dpos[sp - 1] == start[x + 1]) {
			sp--;
			continue;
		}
		uint32_t it = items[dpos[sp - 1]++];

		if (it & 1) {
			order[nl++] = it >> 1;
			continue;
		}
		if (sp == asp) {
			asp *= 2;
			dnode = xrealloc(dnode, asp * sizeof(*dnode));
			dpos = xrealloc(dpos, asp * sizeof(*dpos));
		}
		dnode[sp] = it >> 1;
		dpos[sp] = start[it >> 1];
		sp++;
	}
	free(dnode);
	free(dpos);
	free(items);
	free(fill);
	free(start);
	free(haskids);

	double time = 0;

	for (size_t i = 0; i < nl; i++)
		time += count[order[i]];   /* summed in drawing order, as flamegraph.pl does */
	if (st) {
		st->lines = nl;
		st->ignored = 0;
		st->total = time;
		st->frames = 0;
	}
	int ret = 0;

	if (time <= 0)
		ret = no_data(out, o, nl, 0);
	else if (!isfinite(time))
		ret = too_large();
	else
		tree_draw(ft, parent, name, depth, count, order, nl, time, o, out, st);
	free(order);
	free(parent);
	free(name);
	free(depth);
	free(cnt_off);
	free(cnt_len);
	free(count);
	sb_release(&pool);
	return ret;
}
