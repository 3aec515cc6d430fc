/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * input.c — reading folded-stack text into lines, and the count parser
 * shared by flamegraph and diff-folded (see flame.h).
 */
#include "flame/flame.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"

void flame_input_init(struct flame_input *in)
{
	memset(in, 0, sizeof(*in));
}

void flame_input_release(struct flame_input *in)
{
	for (size_t i = 0; i < in->nbufs; i++) {
		if (in->maplens[i])
			munmap(in->bufs[i], in->maplens[i]);
		else
			free(in->bufs[i]);
	}
	free(in->bufs);
	free(in->maplens);
	free(in->lines);
	free(in->slots);
	free(in->m);
	free(in->at);
	pk_arena_release(&in->text);
	memset(in, 0, sizeof(*in));
}

void flame_input_merge(struct flame_input *in)
{
	if (in->merge)
		return;
	in->merge = true;
}

size_t flame_input_lineno(const struct flame_input *in, size_t i)
{
	return (in->at ? in->at[i] : i) + 1;
}

size_t flame_input_nlines(const struct flame_input *in)
{
	return in->merge ? in->nlines : in->nr;
}

static void push_line(struct flame_input *in, const char *s, size_t l, size_t at)
{
	if (l > UINT32_MAX)
		l = UINT32_MAX;
	if (in->nr == in->alloc) {
		in->alloc = in->alloc ? in->alloc * 2 : 4096;
		in->lines = xrealloc(in->lines, in->alloc * sizeof(*in->lines));
		if (in->merge)
			in->at = xrealloc(in->at, in->alloc * sizeof(*in->at));
	}
	in->lines[in->nr].s = s;
	in->lines[in->nr].len = (uint32_t)l;
	if (in->merge)
		in->at[in->nr] = at;
	in->nr++;
}

/* A plain decimal integer of at most 18 digits (exact in a u64 sum). */
static bool plain_uint(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (!n || n > 18)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return true;
}

/* Merge mode: a line parsed (kind 0: invalid, 1: kept whole, 2: merged). */
struct pline {
	const char *s;
	size_t len, sl;
	uint64_t h, u1, u2;
	bool has2;
	int kind;
};

static void parse_line(const char *s, size_t len, struct pline *pl)
{
	size_t sl, sl2;
	double c, c2;
	bool plain;

	pl->s = s;
	pl->len = len;
	pl->u2 = 0;
	pl->has2 = false;
	if (!flame_parse_count(s, len, &sl, &c)) {
		pl->kind = 0;
		return;
	}
	plain = plain_uint(s + sl + 1, len - sl - 1, &pl->u1);
	if (plain && flame_parse_count(s, sl, &sl2, &c2)) {
		/* two counts: BEFORE AFTER */
		pl->has2 = true;
		pl->u2 = pl->u1;
		plain = plain_uint(s + sl2 + 1, sl - sl2 - 1, &pl->u1);
		sl = sl2;
	}
	/* kept whole: a count that is not a plain integer (flamegraph.pl adds
	 * fractions in drawing order), and differential lines (its delta of
	 * a stack is that of the stack's first line in sorted order, its
	 * largest delta over every line) */
	pl->kind = plain && !pl->has2 ? 2 : 1;
	pl->sl = sl;
	if (plain)
		pl->h = hm_hash(s, sl) ^ (pl->has2 ? 0x9e3779b97f4a7c15ULL : 0);
}

static void merge_line(struct flame_input *in, const struct pline *pl)
{
	size_t at = in->nlines++, sl = pl->sl;
	const char *s = pl->s;
	uint64_t h = pl->h;

	if (pl->kind == 0) {
		if (in->nbad_kept < FLAME_IGNORED_SHOWN) {
			in->nbad_kept++;
			push_line(in, pk_arena_memdup0(&in->text, s, pl->len), pl->len, at);
		} else {
			in->dropped_bad++;
		}
		return;
	}
	if (pl->kind == 1) {
		push_line(in, pk_arena_memdup0(&in->text, s, pl->len), pl->len, at);
		return;
	}
	/* find the stack (with has2) in the table of merged stacks */
	if ((in->nm + 1) * 2 > in->nslots) {
		size_t ns = in->nslots ? in->nslots * 2 : 1024;
		uint32_t *old = in->slots;
		size_t on = in->nslots;
		in->slots = xcalloc(ns, sizeof(*in->slots));
		in->nslots = ns;
		for (size_t i = 0; i < on; i++) {
			if (!old[i])
				continue;
			size_t k = in->m[old[i] - 1].hash & (ns - 1);
			while (in->slots[k])
				k = (k + 1) & (ns - 1);
			in->slots[k] = old[i];
		}
		free(old);
	}
	size_t k = h & (in->nslots - 1);
	struct flame_merged *m = NULL;
	for (; in->slots[k]; k = (k + 1) & (in->nslots - 1)) {
		struct flame_merged *x = &in->m[in->slots[k] - 1];
		if (x->hash == h && x->stacklen == sl && x->has2 == pl->has2 && !memcmp(x->text, s, sl)) {
			m = x;
			break;
		}
	}
	if (!m) {
		if (in->nm == in->am) {
			in->am = in->am ? in->am * 2 : 1024;
			in->m = xrealloc(in->m, in->am * sizeof(*in->m));
		}
		m = &in->m[in->nm++];
		in->slots[k] = (uint32_t)in->nm;
		/* room for " SUM SUM2" after the stack: finish writes it there */
		m->text = pk_arena_alloc(&in->text, sl + 44);
		memcpy(m->text, s, sl);
		m->stacklen = (uint32_t)sl;
		m->hash = h;
		m->has2 = pl->has2;
		m->c1 = m->c2 = 0;
	}
	m->c1 += pl->u1;
	m->c2 += pl->u2;
}

/* Lines in batches: all parsed and hashed first, their table slots, then
 * entries and texts fetched into the cache, then merged in order (with
 * many distinct stacks every lookup would otherwise wait for memory). */
#define MBATCH 16

static void merge_text(struct flame_input *in, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	struct pline b[MBATCH];

	while (p < end) {
		size_t nb = 0;

		while (p < end && nb < MBATCH) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *le = nl ? nl : end;
			size_t l = (size_t)(le - p);

			if (l && p[l - 1] == '\r')
				l--;
			parse_line(p, l, &b[nb]);
			if (b[nb].kind == 2 && in->nslots)
				__builtin_prefetch(&in->slots[b[nb].h & (in->nslots - 1)]);
			nb++;
			p = nl ? nl + 1 : end;
		}
		for (size_t i = 0; i < nb && in->nslots; i++) {
			if (b[i].kind != 2)
				continue;
			uint32_t x = in->slots[b[i].h & (in->nslots - 1)];
			if (x && x <= in->nm) {
				__builtin_prefetch(&in->m[x - 1]);
				__builtin_prefetch(in->m[x - 1].text);
			}
		}
		for (size_t i = 0; i < nb; i++)
			merge_line(in, &b[i]);
	}
}

void flame_input_finish(struct flame_input *in)
{
	if (!in->merge)
		return;
	free(in->slots);
	in->slots = NULL;
	in->nslots = 0;
	for (size_t i = 0; i < in->nm; i++) {
		const struct flame_merged *m = &in->m[i];
		char *q = m->text + m->stacklen;
		q += snprintf(q, 22, " %" PRIu64, m->c1);
		if (m->has2)
			q += snprintf(q, 22, " %" PRIu64, m->c2);
		push_line(in, m->text, (size_t)(q - m->text), in->nlines);
	}
	free(in->m);
	in->m = NULL;
	in->nm = in->am = 0;
}

static void add_lines(struct flame_input *in, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t l = (size_t)(le - p);

		if (l && p[l - 1] == '\r')
			l--;
		if (l > UINT32_MAX)
			l = UINT32_MAX;
		if (in->nr == in->alloc) {
			in->alloc = in->alloc ? in->alloc * 2 : 4096;
			in->lines = xrealloc(in->lines, in->alloc * sizeof(*in->lines));
		}
		in->lines[in->nr].s = p;
		in->lines[in->nr].len = (uint32_t)l;
		in->nr++;
		p = nl ? nl + 1 : end;
	}
}

static void keep_buf(struct flame_input *in, char *buf, size_t maplen)
{
	in->bufs = xrealloc(in->bufs, (in->nbufs + 1) * sizeof(*in->bufs));
	in->maplens = xrealloc(in->maplens, (in->nbufs + 1) * sizeof(*in->maplens));
	in->bufs[in->nbufs] = buf;
	in->maplens[in->nbufs] = maplen;
	in->nbufs++;
}

void flame_input_add_owned(struct flame_input *in, char *buf, size_t len)
{
	if (in->merge) {
		merge_text(in, buf, len);
		free(buf);
		return;
	}
	keep_buf(in, buf, 0);
	add_lines(in, buf, len);
}

void flame_input_add_buf(struct flame_input *in, const char *buf, size_t len)
{
	if (in->merge) {
		merge_text(in, buf, len);
		return;
	}
	char *copy = xmalloc(len + 1);

	memcpy(copy, buf, len);
	copy[len] = '\0';
	flame_input_add_owned(in, copy, len);
}

/* Merge mode: read fd in 1 MB pieces; a line cut by a piece's end is
 * carried to the next. */
static int merge_fd(struct flame_input *in, int fd, const char *path)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = xmalloc(cap);
	bool first = true;
	int ret = 0;

	for (;;) {
		if (len == cap) {   /* one line longer than the buffer */
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		ssize_t n = read(fd, buf + len, cap - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = pk_error(errno, "cannot read '%s': %s", path, strerror(errno));
			break;
		}
		len += (size_t)n;
		if (first && (len >= 8 || n == 0)) {
			first = false;
			if (len >= 8 && !memcmp(buf, "PERFILE2", 8)) {
				in->perfdata = true;   /* not folded text */
				break;
			}
		}
		if (first && n)
			continue;
		if (n == 0) {
			merge_text(in, buf, len);
			break;
		}
		const char *lastnl = memrchr(buf, '\n', len);
		if (!lastnl)
			continue;
		size_t done = (size_t)(lastnl - buf) + 1;
		merge_text(in, buf, done);
		memmove(buf, buf + done, len - done);
		len -= done;
	}
	free(buf);
	if (fd)
		close(fd);
	return ret;
}

int flame_input_add_file(struct flame_input *in, const char *path)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	struct stat st;

	if (fd < 0)
		return pk_error(errno, "cannot open '%s': %s", path, strerror(errno));
	in->perfdata = false;
	if (in->merge)
		return merge_fd(in, fd, path);
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);

		if (m != MAP_FAILED) {
			if (fd)
				close(fd);
			madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
			keep_buf(in, m, (size_t)st.st_size);
			add_lines(in, m, (size_t)st.st_size);
			return 0;
		}
	}
	size_t alloc = 1 << 16, len = 0;
	char *buf = xmalloc(alloc);

	for (;;) {
		if (len == alloc) {
			alloc *= 2;
			buf = xrealloc(buf, alloc);
		}
		ssize_t n = read(fd, buf + len, alloc - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			if (fd)
				close(fd);
			return pk_error(e, "cannot read '%s': %s", path, strerror(e));
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (fd)
		close(fd);
	flame_input_add_owned(in, buf, len);
	return 0;
}

static inline int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

int flame_parse_count(const char *s, size_t len, size_t *stacklen, double *count)
{
	/* the tail after the last whitespace must be \d+(\.\d*)? (what
	 * flamegraph.pl reads), or that with an exponent [eE][+-]?\d+ (a
	 * count some tool printed as "1e+15"; flamegraph.pl would take it
	 * for part of the frame name): scan back over those characters,
	 * then demand a whitespace before them */
	size_t k = len;

	while (k > 0 && ((s[k - 1] >= '0' && s[k - 1] <= '9') || s[k - 1] == '.' ||
			 s[k - 1] == 'e' || s[k - 1] == 'E' || s[k - 1] == '+' || s[k - 1] == '-'))
		k--;
	if (k == 0 || k == len || !is_space((unsigned char)s[k - 1]))
		return 0;
	const char *t = s + k, *e = s + len, *q = t;
	double v = 0;
	int ndig = 0;

	while (q < e && *q >= '0' && *q <= '9') {
		v = v * 10 + (*q - '0');
		q++;
		ndig++;
	}
	if (ndig == 0)
		return 0;
	int frac = 0, expo = 0;

	if (q < e && *q == '.') {
		q++;
		while (q < e && *q >= '0' && *q <= '9') {
			q++;
			frac++;
		}
	}
	if (q < e && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < e && (*q == '+' || *q == '-'))
			q++;
		while (q < e && *q >= '0' && *q <= '9') {
			q++;
			expo++;
		}
		if (!expo)
			return 0;
	}
	if (q != e)
		return 0;
	if (frac || expo || ndig > 15) {
		char small[64], *tmp = small;
		size_t tl = (size_t)(e - t);

		if (tl >= sizeof(small))
			tmp = xmalloc(tl + 1);
		memcpy(tmp, t, tl);
		tmp[tl] = '\0';
		v = strtod(tmp, NULL);
		if (tmp != small)
			free(tmp);
	}
	*stacklen = k - 1;
	*count = v;
	return 1;
}
