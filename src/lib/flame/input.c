/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * input.c — reading folded-stack text into lines, and the count parser
 * shared by flamegraph and diff-folded (see flame.h).
 */
#include "flame/flame.h"

#include <errno.h>
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
	memset(in, 0, sizeof(*in));
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
	keep_buf(in, buf, 0);
	add_lines(in, buf, len);
}

void flame_input_add_buf(struct flame_input *in, const char *buf, size_t len)
{
	char *copy = xmalloc(len + 1);

	memcpy(copy, buf, len);
	copy[len] = '\0';
	flame_input_add_owned(in, copy, len);
}

int flame_input_add_file(struct flame_input *in, const char *path)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	struct stat st;

	if (fd < 0)
		return pk_error(errno, "cannot open '%s': %s", path, strerror(errno));
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
