/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracepoint.c — tracepoint formats and perf.data tracing data; see tracepoint.h. */
#include "event/tracepoint.h"

#include "base/error.h"
#include "bpfutil/tracefs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- format files ---- */

static char *dup_trim(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return xstrndup(s, n);
}

/* "KEY:VALUE;" inside a field line: VALUE as a number; false when absent. */
static bool field_num(const char *line, size_t len, const char *key, uint32_t *v)
{
	size_t kl = strlen(key);

	for (size_t i = 0; i + kl < len; i++) {
		if ((i == 0 || line[i - 1] == '\t' || line[i - 1] == ' ' || line[i - 1] == ';') &&
		    !strncmp(line + i, key, kl) && line[i + kl] == ':') {
			char *end;
			unsigned long x = strtoul(line + i + kl + 1, &end, 10);

			if (end == line + i + kl + 1)
				return false;
			*v = (uint32_t)x;
			return true;
		}
	}
	return false;
}

/* "field:TYPE NAME[N];\toffset:…" → a field; false for a line it cannot read. */
static bool parse_field(const char *line, size_t len, struct tp_field *f)
{
	const char *p = line, *end = line + len;
	const char *decl, *semi;
	uint32_t sg = 0;

	memset(f, 0, sizeof(*f));
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) < 6 || strncmp(p, "field:", 6))
		return false;
	decl = p + 6;
	semi = memchr(decl, ';', (size_t)(end - decl));
	if (!semi)
		return false;
	/* the name is the last word of the declaration, less any [N] */
	const char *ne = semi;
	while (ne > decl && (ne[-1] == ' ' || ne[-1] == '\t'))
		ne--;
	const char *bracket = NULL;
	if (ne > decl && ne[-1] == ']') {
		bracket = ne - 1;
		while (bracket > decl && *bracket != '[')
			bracket--;
		if (*bracket != '[')
			return false;
		f->array = true;
		f->array_len = (uint32_t)strtoul(bracket + 1, NULL, 10);
		ne = bracket;
	}
	const char *ns = ne;
	while (ns > decl && ns[-1] != ' ' && ns[-1] != '\t' && ns[-1] != '*')
		ns--;
	if (ns == ne)
		return false;
	f->name = xstrndup(ns, (size_t)(ne - ns));
	f->type = dup_trim(decl, (size_t)(ns - decl));
	f->data_loc = !strncmp(f->type, "__data_loc", 10);
	f->rel_loc = !strncmp(f->type, "__rel_loc", 9);
	f->common = !strncmp(f->name, "common_", 7);
	if (!field_num(semi, (size_t)(end - semi), "offset", &f->offset) ||
	    !field_num(semi, (size_t)(end - semi), "size", &f->size)) {
		free(f->name);
		free(f->type);
		return false;
	}
	if (field_num(semi, (size_t)(end - semi), "signed", &sg))
		f->is_signed = sg != 0;
	return true;
}

int tp_format_parse(const char *text, size_t len, const char *system, struct tp_format *out)
{
	const char *p = text, *end = text + len;
	size_t alloc = 0;

	memset(out, 0, sizeof(*out));
	out->system = xstrdup(system ? system : "");
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (l >= 5 && !strncmp(p, "name:", 5)) {
			free(out->name);
			out->name = dup_trim(p + 5, l - 5);
		} else if (l >= 3 && !strncmp(p, "ID:", 3)) {
			out->id = strtoull(p + 3, NULL, 10);
		} else if (l >= 10 && !strncmp(p, "print fmt:", 10)) {
			free(out->print_fmt);
			out->print_fmt = dup_trim(p + 10, l - 10);
		} else {
			struct tp_field f;

			if (parse_field(p, l, &f)) {
				if (out->nr_fields == alloc) {
					alloc = alloc ? alloc * 2 : 16;
					out->fields = xrealloc(out->fields, alloc * sizeof(*out->fields));
				}
				out->fields[out->nr_fields++] = f;
			}
		}
		p += l + (nl ? 1 : 0);
	}
	if (!out->name || !out->nr_fields) {
		tp_format_release(out);
		return pk_error(EINVAL, "tracepoint format of '%s': no %s", system ? system : "?",
				!out->name ? "name" : "field");
	}
	return 0;
}

void tp_format_release(struct tp_format *f)
{
	for (size_t i = 0; i < f->nr_fields; i++) {
		free(f->fields[i].name);
		free(f->fields[i].type);
	}
	free(f->fields);
	free(f->system);
	free(f->name);
	free(f->print_fmt);
	memset(f, 0, sizeof(*f));
}

static uint64_t rd_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static void add_str(struct strbuf *out, const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++)
		sb_addch(out, s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '.');
}

static bool is_char_type(const char *type)
{
	/* "char", "unsigned char", "const char", "__data_loc char[]" */
	const char *c = strstr(type, "char");
	return c && (c[4] == '\0' || c[4] == '[' || c[4] == ' ');
}

void tp_format_fields_text(const struct tp_format *f, const uint8_t *raw, size_t len,
			   struct strbuf *out)
{
	bool first = true;

	for (size_t i = 0; i < f->nr_fields; i++) {
		const struct tp_field *fd = &f->fields[i];

		if (fd->common)
			continue;
		if (!first)
			sb_addch(out, ' ');
		first = false;
		sb_addstr(out, fd->name);
		sb_addch(out, '=');
		if ((uint64_t)fd->offset + fd->size > len) {
			sb_addch(out, '?');
			continue;
		}
		const uint8_t *p = raw + fd->offset;
		if (fd->data_loc || fd->rel_loc) {
			uint32_t loc = (uint32_t)rd_le(p, fd->size >= 4 ? 4 : fd->size);
			uint64_t off = loc & 0xffff, n = loc >> 16;

			if (fd->rel_loc)
				off += (uint64_t)fd->offset + fd->size;
			if (off > len || n > len - off) {
				sb_addch(out, '?');
				continue;
			}
			if (is_char_type(fd->type)) {
				add_str(out, raw + off, (size_t)n);
			} else {
				sb_addstr(out, "ARRAY[");
				for (uint64_t k = 0; k < n; k++)
					sb_addf(out, "%s%02x", k ? ", " : "", raw[off + k]);
				sb_addch(out, ']');
			}
		} else if (fd->array) {
			if (is_char_type(fd->type)) {
				add_str(out, p, fd->size);
			} else {
				sb_addstr(out, "ARRAY[");
				for (uint32_t k = 0; k < fd->size; k++)
					sb_addf(out, "%s%02x", k ? ", " : "", p[k]);
				sb_addch(out, ']');
			}
		} else if (fd->size == 1 || fd->size == 2 || fd->size == 4 || fd->size == 8) {
			uint64_t v = rd_le(p, fd->size);

			/* libtraceevent prints long and pointer fields in hex */
			if (strchr(fd->type, '*') || !strcmp(fd->type, "unsigned long") ||
			    !strcmp(fd->type, "long")) {
				sb_addf(out, "0x%" PRIx64, v);
			} else if (fd->is_signed) {
				int64_t sv = fd->size == 8 ? (int64_t)v
					   : (int64_t)(v << (64 - 8 * fd->size)) >> (64 - 8 * fd->size);
				sb_addf(out, "%" PRId64, sv);
			} else {
				sb_addf(out, "%" PRIu64, v);
			}
		} else {
			sb_addstr(out, "ARRAY[");
			for (uint32_t k = 0; k < fd->size; k++)
				sb_addf(out, "%s%02x", k ? ", " : "", p[k]);
			sb_addch(out, ']');
		}
	}
}

/* ---- print formats ---- */

static const struct tp_field *field_named(const struct tp_format *f, const char *name, size_t n)
{
	for (size_t i = 0; i < f->nr_fields; i++)
		if (strlen(f->fields[i].name) == n && !strncmp(f->fields[i].name, name, n))
			return &f->fields[i];
	return NULL;
}

/* One argument: REC->x, REC->x[N] or __get_str(x), under parentheses and
 * casts; *elem receives N + 1 for an element (0 for the field). */
static const struct tp_field *arg_field(const struct tp_format *f, const char *a, size_t n, bool *str,
					uint32_t *elem)
{
	*elem = 0;
	for (;;) {
		while (n && (*a == ' ' || *a == '\t')) {
			a++;
			n--;
		}
		while (n && (a[n - 1] == ' ' || a[n - 1] == '\t'))
			n--;
		if (n >= 2 && a[0] == '(') {
			/* "(expr)" or "(type)expr": find the matching ')' */
			size_t depth = 0, k;
			for (k = 0; k < n; k++) {
				if (a[k] == '(')
					depth++;
				else if (a[k] == ')' && --depth == 0)
					break;
			}
			if (k == n)
				return NULL;
			if (k == n - 1) {          /* (expr) */
				a++;
				n -= 2;
				continue;
			}
			/* (type) expr: a cast when its inside is words and '*' only */
			for (size_t j = 1; j < k; j++)
				if (!(a[j] == ' ' || a[j] == '*' || a[j] == '_' || (a[j] >= 'a' && a[j] <= 'z') ||
				      (a[j] >= 'A' && a[j] <= 'Z') || (a[j] >= '0' && a[j] <= '9')))
					return NULL;
			a += k + 1;
			n -= k + 1;
			continue;
		}
		break;
	}
	if (n > 5 && !strncmp(a, "REC->", 5)) {
		*str = false;
		if (a[n - 1] == ']') {         /* REC->x[N] */
			const char *lb = memchr(a, '[', n);
			char *end;
			if (!lb)
				return NULL;
			unsigned long k = strtoul(lb + 1, &end, 10);
			if (end != a + n - 1 || end == lb + 1 || k > 4096)
				return NULL;
			*elem = (uint32_t)k + 1;
			n = (size_t)(lb - a);
		}
		for (size_t j = 5; j < n; j++)
			if (!(a[j] == '_' || (a[j] >= 'a' && a[j] <= 'z') || (a[j] >= 'A' && a[j] <= 'Z') ||
			      (a[j] >= '0' && a[j] <= '9')))
				return NULL;
		return field_named(f, a + 5, n - 5);
	}
	if (n > 10 && !strncmp(a, "__get_str(", 10) && a[n - 1] == ')') {
		*str = true;
		return field_named(f, a + 10, n - 11);
	}
	return NULL;
}

/* A string field's bytes (char array or __data_loc/__rel_loc); false if not one. */
static bool field_str(const struct tp_field *fd, const uint8_t *raw, size_t len, const uint8_t **s,
		      size_t *n)
{
	if ((uint64_t)fd->offset + fd->size > len)
		return false;
	if (fd->data_loc || fd->rel_loc) {
		uint32_t loc = (uint32_t)rd_le(raw + fd->offset, fd->size >= 4 ? 4 : fd->size);
		uint64_t off = loc & 0xffff, l = loc >> 16;
		if (fd->rel_loc)
			off += (uint64_t)fd->offset + fd->size;
		if (off > len || l > len - off)
			return false;
		*s = raw + off;
		*n = (size_t)l;
		return true;
	}
	if (fd->array) {
		*s = raw + fd->offset;
		*n = fd->size;
		return true;
	}
	return false;
}

int tp_format_print(const struct tp_format *f, const uint8_t *raw, size_t len, struct strbuf *out)
{
	const char *p = f->print_fmt;
	struct strbuf fmt = STRBUF_INIT, res = STRBUF_INIT;
	const char *args[32];
	size_t argl[32], nargs = 0;
	int err = -ENOTSUP;

	if (!p || *p != '"')
		return -ENOTSUP;
	/* the C string */
	for (p++; *p && *p != '"'; p++) {
		if (*p != '\\') {
			sb_addch(&fmt, *p);
			continue;
		}
		p++;
		switch (*p) {
		case 'n': sb_addch(&fmt, '\n'); break;
		case 't': sb_addch(&fmt, '\t'); break;
		case '\\': case '"': sb_addch(&fmt, *p); break;
		default: goto out;
		}
	}
	if (*p != '"')
		goto out;
	/* the arguments, split at top-level commas */
	for (p++; *p;) {
		while (*p == ' ')
			p++;
		if (*p != ',')
			break;
		p++;
		const char *a = p;
		int depth = 0;
		for (; *p && (depth || *p != ','); p++) {
			if (*p == '(')
				depth++;
			else if (*p == ')')
				depth--;
			else if (*p == '"' || *p == '?' || *p == '\'')
				goto out;   /* strings, ternaries: not for this evaluator */
		}
		if (nargs == 32)
			goto out;
		args[nargs] = a;
		argl[nargs++] = (size_t)(p - a);
	}
	/* conversions */
	size_t ai = 0;
	for (const char *c = fmt.buf; *c; c++) {
		if (*c != '%') {
			sb_addch(&res, *c);
			continue;
		}
		if (c[1] == '%') {
			sb_addch(&res, '%');
			c++;
			continue;
		}
		char spec[32];
		size_t sl = 0;
		int longs = 0;
		spec[sl++] = '%';
		for (c++; *c && strchr("-+ #0", *c) && sl < 20; c++)
			spec[sl++] = *c;
		for (; *c >= '0' && *c <= '9' && sl < 24; c++)
			spec[sl++] = *c;
		if (*c == '.')
			for (spec[sl++] = *c++; *c >= '0' && *c <= '9' && sl < 28; c++)
				spec[sl++] = *c;
		for (; *c == 'l' || *c == 'h' || *c == 'z'; c++)
			longs += *c == 'l' || *c == 'z' ? 1 : -1;
		if (!*c || !strchr("diuxXocs", *c) || ai == nargs || sl > 28)
			goto out;
		bool want_str = false;
		uint32_t elem = 0;
		const struct tp_field *fd = arg_field(f, args[ai], argl[ai], &want_str, &elem);
		ai++;
		if (!fd || (elem && (!fd->array || !fd->array_len || fd->size % fd->array_len)))
			goto out;
		if (elem) {   /* one element of an array field */
			uint32_t es = fd->size / fd->array_len;
			if (elem > fd->array_len || *c == 's' ||
			    !(es == 1 || es == 2 || es == 4 || es == 8) ||
			    (uint64_t)fd->offset + (uint64_t)elem * es > len)
				goto out;
			uint64_t v = rd_le(raw + fd->offset + (elem - 1) * es, es);
			if (fd->is_signed && es < 8)
				v = (uint64_t)((int64_t)(v << (64 - 8 * es)) >> (64 - 8 * es));
			if (longs <= 0)
				v = strchr("di", *c) ? (uint64_t)(int64_t)(int32_t)v : (uint64_t)(uint32_t)v;
			spec[sl++] = 'l';
			spec[sl++] = 'l';
			spec[sl++] = *c;
			spec[sl] = 0;
			if (*c == 'c')
				sb_addch(&res, (char)v);
			else if (strchr("di", *c))
				sb_addf(&res, spec, (long long)v);
			else
				sb_addf(&res, spec, (unsigned long long)v);
			continue;
		}
		if (*c == 's') {
			const uint8_t *s;
			size_t n;
			if (!field_str(fd, raw, len, &s, &n))
				goto out;
			size_t z = strnlen((const char *)s, n);
			char *tmp = xstrndup((const char *)s, z);
			spec[sl++] = 's';
			spec[sl] = 0;
			sb_addf(&res, spec, tmp);
			free(tmp);
			continue;
		}
		if (want_str || fd->array || fd->data_loc || fd->rel_loc || (uint64_t)fd->offset + fd->size > len ||
		    !(fd->size == 1 || fd->size == 2 || fd->size == 4 || fd->size == 8))
			goto out;
		uint64_t v = rd_le(raw + fd->offset, fd->size);
		if (fd->is_signed && fd->size < 8)
			v = (uint64_t)((int64_t)(v << (64 - 8 * fd->size)) >> (64 - 8 * fd->size));
		/* C's conversions: without l the value is an int */
		if (longs <= 0)
			v = strchr("di", *c) ? (uint64_t)(int64_t)(int32_t)v : (uint64_t)(uint32_t)v;
		if (longs < 0)   /* h, hh */
			v = strchr("di", *c) ? (uint64_t)(int64_t)(longs < -1 ? (int8_t)v : (int16_t)v)
					    : (longs < -1 ? (uint8_t)v : (uint16_t)v);
		spec[sl++] = 'l';
		spec[sl++] = 'l';
		spec[sl++] = *c;
		spec[sl] = 0;
		if (*c == 'c')
			sb_addch(&res, (char)v);
		else if (strchr("di", *c))
			sb_addf(&res, spec, (long long)v);
		else
			sb_addf(&res, spec, (unsigned long long)v);
	}
	if (ai != nargs)
		goto out;
	sb_add(out, res.buf, res.len);
	err = 0;
out:
	sb_release(&fmt);
	sb_release(&res);
	return err;
}

const struct tp_format *tp_formats_find(const struct tp_formats *fs, uint64_t id)
{
	for (size_t i = 0; i < fs->nr; i++)
		if (fs->v[i].id == id)
			return &fs->v[i];
	return NULL;
}

void tp_formats_release(struct tp_formats *fs)
{
	for (size_t i = 0; i < fs->nr; i++)
		tp_format_release(&fs->v[i]);
	free(fs->v);
	fs->v = NULL;
	fs->nr = 0;
}

/* ---- tracing data: build ---- */

/* A tracefs file whole (their stat size is 0: read to the end). */
static int slurp(const char *path, struct strbuf *sb)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[8192];
	ssize_t r;

	if (fd < 0)
		return -errno;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		sb_add(sb, buf, (size_t)r);
	int err = r < 0 ? -errno : 0;
	close(fd);
	return err;
}

static void put_le(struct strbuf *sb, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sb_addch(sb, (char)(v >> (8 * i) & 0xff));
}

/* "u{N} size" + the file; a missing file is size 0 when optional. */
static int put_file(struct strbuf *out, const char *root, const char *rel, size_t size_bytes,
		    bool optional)
{
	struct strbuf path = STRBUF_INIT, body = STRBUF_INIT;
	int err;

	sb_addf(&path, "%s/%s", root, rel);
	err = slurp(path.buf, &body);
	if (err && optional) {
		sb_reset(&body);
		err = 0;
	}
	if (err)
		err = pk_error(-err, "tracing data: cannot read '%s': %s", path.buf, strerror(-err));
	else {
		put_le(out, body.len, size_bytes);
		sb_add(out, body.buf, body.len);
	}
	sb_release(&path);
	sb_release(&body);
	return err;
}

int tp_tracing_data_build(struct strbuf *out, const char *const *names, size_t n)
{
	int err = tracefs_ensure();
	const char *root = tracefs_dir();
	char **sys = xcalloc(n + 1, sizeof(*sys)), **ev = xcalloc(n + 1, sizeof(*ev));
	size_t nt = 0;

	if (!err && !root)
		err = pk_error(ENOENT, "tracing data: no tracefs with events/");
	/* SYS:NAME[:mods], each tracepoint once */
	for (size_t i = 0; !err && i < n; i++) {
		const char *c = strchr(names[i], ':');
		if (!c)
			continue;
		const char *e = c + 1, *m = strchr(e, ':');
		char *s = xstrndup(names[i], (size_t)(c - names[i]));
		char *nm = m ? xstrndup(e, (size_t)(m - e)) : xstrdup(e);
		size_t k;
		for (k = 0; k < nt && (strcmp(sys[k], s) || strcmp(ev[k], nm)); k++)
			;
		if (k < nt) {
			free(s);
			free(nm);
			continue;
		}
		sys[nt] = s;
		ev[nt++] = nm;
	}
	if (err)
		goto out;
	sb_add(out, "\x17\x08\x44tracing", 10);
	sb_add(out, "0.6", 4);
	sb_addch(out, 0);                       /* little endian (x86-64, arm64) */
	sb_addch(out, (char)sizeof(long));
	put_le(out, (uint64_t)sysconf(_SC_PAGESIZE), 4);
	sb_add(out, "header_page", 12);
	if ((err = put_file(out, root, "events/header_page", 8, false)))
		goto out;
	sb_add(out, "header_event", 13);
	if ((err = put_file(out, root, "events/header_event", 8, false)))
		goto out;
	/* ftrace's own events, then one group per other system, in first-seen order */
	uint32_t nftrace = 0, nsys = 0;
	for (size_t k = 0; k < nt; k++)
		nftrace += !strcmp(sys[k], "ftrace");
	put_le(out, nftrace, 4);
	for (size_t k = 0; k < nt; k++) {
		if (strcmp(sys[k], "ftrace"))
			continue;
		struct strbuf rel = STRBUF_INIT;
		sb_addf(&rel, "events/ftrace/%s/format", ev[k]);
		err = put_file(out, root, rel.buf, 8, false);
		sb_release(&rel);
		if (err)
			goto out;
	}
	for (size_t k = 0; k < nt; k++) {
		size_t j;
		for (j = 0; j < k && strcmp(sys[j], sys[k]); j++)
			;
		nsys += j == k && strcmp(sys[k], "ftrace");
	}
	put_le(out, nsys, 4);
	for (size_t k = 0; k < nt; k++) {
		size_t j;
		for (j = 0; j < k && strcmp(sys[j], sys[k]); j++)
			;
		if (j < k || !strcmp(sys[k], "ftrace"))
			continue;
		uint32_t cnt = 0;
		for (j = k; j < nt; j++)
			cnt += !strcmp(sys[j], sys[k]);
		sb_add(out, sys[k], strlen(sys[k]) + 1);
		put_le(out, cnt, 4);
		for (j = k; j < nt; j++) {
			if (strcmp(sys[j], sys[k]))
				continue;
			struct strbuf rel = STRBUF_INIT;
			sb_addf(&rel, "events/%s/%s/format", sys[j], ev[j]);
			err = put_file(out, root, rel.buf, 8, false);
			sb_release(&rel);
			if (err)
				goto out;
		}
	}
	put_le(out, 0, 4);                      /* kallsyms: none, as perf */
	if ((err = put_file(out, root, "printk_formats", 4, true)))
		goto out;
	err = put_file(out, root, "saved_cmdlines", 8, true);
out:
	for (size_t k = 0; k < nt; k++) {
		free(sys[k]);
		free(ev[k]);
	}
	free(sys);
	free(ev);
	return err;
}

/* ---- tracing data: parse ---- */

struct rd {
	const uint8_t *p;
	size_t len, off;
};

static int rd_fail(const struct rd *r, const char *what)
{
	return pk_error(EINVAL, "tracing data: %s at offset %zu (of %zu bytes)", what, r->off, r->len);
}

static int rd_n(struct rd *r, size_t n, uint64_t *v)
{
	if (r->len - r->off < n)
		return rd_fail(r, "cut short");
	*v = rd_le(r->p + r->off, n);
	r->off += n;
	return 0;
}

static int rd_str(struct rd *r, const char **s)
{
	const uint8_t *z = memchr(r->p + r->off, 0, r->len - r->off);

	if (!z)
		return rd_fail(r, "unterminated name");
	*s = (const char *)(r->p + r->off);
	r->off = (size_t)(z - r->p) + 1;
	return 0;
}

/* u64 size + body; the body's pointer and length */
static int rd_blob(struct rd *r, size_t size_bytes, const uint8_t **b, size_t *n)
{
	uint64_t sz = 0;
	int err = rd_n(r, size_bytes, &sz);

	if (err)
		return err;
	if (sz > r->len - r->off)
		return rd_fail(r, "file longer than the section");
	*b = r->p + r->off;
	*n = (size_t)sz;
	r->off += (size_t)sz;
	return 0;
}

static int add_format(struct tp_formats *out, size_t *alloc, const char *system, const uint8_t *b,
		      size_t n)
{
	struct tp_format f;

	if (tp_format_parse((const char *)b, n, system, &f))
		return 0;   /* an unreadable format: its events print without fields */
	if (out->nr == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 8;
		out->v = xrealloc(out->v, *alloc * sizeof(*out->v));
	}
	out->v[out->nr++] = f;
	return 0;
}

int tp_tracing_data_parse(const uint8_t *p, size_t len, struct tp_formats *out)
{
	struct rd r = { p, len, 0 };
	const uint8_t *b;
	const char *s;
	size_t n, alloc = 0;
	uint64_t v = 0, cnt = 0;
	int err;

	out->v = NULL;
	out->nr = 0;
	if (len < 10 || memcmp(p, "\x17\x08\x44tracing", 10))
		return pk_error(EINVAL, "tracing data: no \"\\027\\010\\104tracing\" magic");
	r.off = 10;
	if ((err = rd_str(&r, &s)))
		return err;
	if ((err = rd_n(&r, 1, &v)))
		return err;
	if (v != 0)
		return rd_fail(&r, "big-endian data (not supported)");
	if ((err = rd_n(&r, 1, &v)) || (err = rd_n(&r, 4, &v)))
		return err;
	for (int h = 0; h < 2; h++) {    /* header_page, header_event */
		if ((err = rd_str(&r, &s)) || (err = rd_blob(&r, 8, &b, &n)))
			return err;
	}
	if ((err = rd_n(&r, 4, &cnt)))
		return err;
	for (uint64_t i = 0; i < cnt; i++) {
		if ((err = rd_blob(&r, 8, &b, &n)))
			goto fail;
		add_format(out, &alloc, "ftrace", b, n);
	}
	if ((err = rd_n(&r, 4, &cnt)))
		goto fail;
	for (uint64_t i = 0; i < cnt; i++) {
		const char *sys;
		uint64_t ne = 0;

		if ((err = rd_str(&r, &sys)) || (err = rd_n(&r, 4, &ne)))
			goto fail;
		for (uint64_t j = 0; j < ne; j++) {
			if ((err = rd_blob(&r, 8, &b, &n)))
				goto fail;
			add_format(out, &alloc, sys, b, n);
		}
	}
	return 0;   /* kallsyms, printk formats, saved cmdlines: not needed */
fail:
	tp_formats_release(out);
	return err;
}
