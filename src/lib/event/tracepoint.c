/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracepoint.c — tracepoint formats and perf.data tracing data; see tracepoint.h. */
#include "event/tracepoint.h"

#include "base/error.h"
#include "tracefs/tracefs.h"

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

/* ---- print formats ----
 *
 * The arguments are C expressions over the record (libtraceevent's subset):
 * integers, string literals, REC->field, REC->field[N], __get_str(field),
 * __print_flags(v, "sep", { mask, "name" }, …), __print_symbolic(v,
 * { value, "name" }, …), casts, parentheses, unary ! ~ - +, the binary
 * operators of C but assignment, and ?:.  A value is a 64-bit integer or a
 * string.  Anything else makes the format "not plain": -ENOTSUP. */

struct val {
	bool is_str;
	int64_t i;
	struct strbuf s;
};

struct ev {
	const struct tp_format *f;
	const uint8_t *raw;
	size_t len;
	const char *p, *end;
	bool bad;
	int depth;           /* nesting, bounded: the format comes from the file */
};

static void val_int(struct val *v, int64_t i)
{
	v->is_str = false;
	v->i = i;
}

static void val_str(struct val *v, const char *s, size_t n)
{
	v->is_str = true;
	sb_reset(&v->s);
	sb_add(&v->s, s, n);
}

static void skip_ws(struct ev *e)
{
	while (e->p < e->end && (*e->p == ' ' || *e->p == '\t' || *e->p == '\n'))
		e->p++;
}

static bool eat(struct ev *e, const char *tok)
{
	size_t n = strlen(tok);

	skip_ws(e);
	if ((size_t)(e->end - e->p) >= n && !strncmp(e->p, tok, n)) {
		e->p += n;
		return true;
	}
	return false;
}

/* eat(tok) unless it begins a longer operator (& vs &&, < vs <<, …) */
static bool eat_op(struct ev *e, const char *tok, const char *not_before)
{
	const char *save = e->p;

	if (!eat(e, tok))
		return false;
	if (e->p < e->end && not_before && strchr(not_before, *e->p)) {
		e->p = save;
		return false;
	}
	return true;
}

static bool is_ident(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static void expr(struct ev *e, struct val *v);
static void ternary(struct ev *e, struct val *v);
static void unary(struct ev *e, struct val *v);
static void primary_in(struct ev *e, struct val *v);
static void unary_in(struct ev *e, struct val *v);

static const struct tp_field *field_named(const struct tp_format *f, const char *name, size_t n)
{
	for (size_t i = 0; i < f->nr_fields; i++)
		if (strlen(f->fields[i].name) == n && !strncmp(f->fields[i].name, name, n))
			return &f->fields[i];
	return NULL;
}

static int64_t sext(uint64_t v, uint32_t size, bool is_signed)
{
	if (is_signed && size < 8)
		return (int64_t)(v << (64 - 8 * size)) >> (64 - 8 * size);
	return (int64_t)v;
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

static const struct tp_field *ident_field(struct ev *e)
{
	const char *a;

	skip_ws(e);
	a = e->p;
	while (e->p < e->end && is_ident(*e->p))
		e->p++;
	const struct tp_field *fd = e->p > a ? field_named(e->f, a, (size_t)(e->p - a)) : NULL;
	if (!fd)
		e->bad = true;
	return fd;
}

static void string_lit(struct ev *e, struct val *v)
{
	struct strbuf sb = STRBUF_INIT;

	skip_ws(e);
	if (e->p >= e->end || *e->p != '"') {
		e->bad = true;
		return;
	}
	for (e->p++; e->p < e->end && *e->p != '"'; e->p++) {
		if (*e->p == '\\' && e->p + 1 < e->end) {
			e->p++;
			sb_addch(&sb, *e->p == 'n' ? '\n' : *e->p == 't' ? '\t' : *e->p);
		} else {
			sb_addch(&sb, *e->p);
		}
	}
	if (e->p >= e->end)
		e->bad = true;
	else
		e->p++;
	val_str(v, sb.buf ? sb.buf : "", sb.len);
	sb_release(&sb);
}

/* { value, "name" } pairs of __print_flags / __print_symbolic */
static void print_table(struct ev *e, uint64_t x, const char *delim, bool flags, struct val *v)
{
	struct strbuf out = STRBUF_INIT;
	bool printed = false, matched = false;
	struct val a = { 0 }, b = { 0 };

	while (!e->bad && eat(e, ",")) {
		if (!eat(e, "{")) {
			e->bad = true;
			break;
		}
		ternary(e, &a);
		if (!eat(e, ","))
			e->bad = true;
		string_lit(e, &b);
		if (!eat(e, "}") || a.is_str)
			e->bad = true;
		if (e->bad)
			break;
		uint64_t m = (uint64_t)a.i;
		if (flags) {
			if (m && (x & m) == m) {
				if (printed && delim)
					sb_addstr(&out, delim);
				sb_add(&out, b.s.buf, b.s.len);
				printed = true;
				x &= ~m;
			}
		} else if (!matched && m == x) {
			sb_add(&out, b.s.buf, b.s.len);
			matched = true;
		}
	}
	if (!eat(e, ")"))
		e->bad = true;
	if (flags && x) {
		if (printed && delim)
			sb_addstr(&out, delim);
		sb_addf(&out, "0x%" PRIx64, x);
	} else if (!flags && !matched) {
		sb_addf(&out, "0x%" PRIx64, x);
	}
	val_str(v, out.buf ? out.buf : "", out.len);
	sb_release(&out);
	sb_release(&a.s);
	sb_release(&b.s);
}

static void primary(struct ev *e, struct val *v)
{
	if (++e->depth > 64) {
		e->bad = true;
		return;
	}
	primary_in(e, v);
	e->depth--;
}

static void primary_in(struct ev *e, struct val *v)
{
	skip_ws(e);
	if (e->p >= e->end) {
		e->bad = true;
		return;
	}
	if (*e->p == '"') {
		string_lit(e, v);
		return;
	}
	if (*e->p >= '0' && *e->p <= '9') {
		char *end;
		unsigned long long x = strtoull(e->p, &end, 0);
		e->p = end;
		while (e->p < e->end && (*e->p == 'u' || *e->p == 'U' || *e->p == 'l' || *e->p == 'L'))
			e->p++;
		val_int(v, (int64_t)x);
		return;
	}
	if (eat(e, "REC->")) {
		const struct tp_field *fd = ident_field(e);
		if (!fd)
			return;
		if (eat(e, "[")) {               /* one element of an array field */
			struct val k = { 0 };
			expr(e, &k);
			if (!eat(e, "]") || k.is_str || !fd->array || !fd->array_len || fd->size % fd->array_len ||
			    k.i < 0 || (uint64_t)k.i >= fd->array_len) {
				e->bad = true;
				sb_release(&k.s);
				return;
			}
			uint32_t es = fd->size / fd->array_len;
			uint64_t off = fd->offset + (uint64_t)k.i * es;
			sb_release(&k.s);
			if (!(es == 1 || es == 2 || es == 4 || es == 8) || off + es > e->len) {
				e->bad = true;
				return;
			}
			val_int(v, sext(rd_le(e->raw + off, es), es, fd->is_signed));
			return;
		}
		const uint8_t *s;
		size_t n;
		if (fd->array || fd->data_loc || fd->rel_loc) {
			if (!field_str(fd, e->raw, e->len, &s, &n)) {
				e->bad = true;
				return;
			}
			val_str(v, (const char *)s, strnlen((const char *)s, n));
			return;
		}
		if (!(fd->size == 1 || fd->size == 2 || fd->size == 4 || fd->size == 8) ||
		    (uint64_t)fd->offset + fd->size > e->len) {
			e->bad = true;
			return;
		}
		val_int(v, sext(rd_le(e->raw + fd->offset, fd->size), fd->size, fd->is_signed));
		return;
	}
	if (eat(e, "__get_str(")) {
		const struct tp_field *fd = ident_field(e);
		const uint8_t *s;
		size_t n;
		if (!fd || !eat(e, ")") || !field_str(fd, e->raw, e->len, &s, &n)) {
			e->bad = true;
			return;
		}
		val_str(v, (const char *)s, strnlen((const char *)s, n));
		return;
	}
	bool flags = eat(e, "__print_flags(");
	if (flags || eat(e, "__print_symbolic(")) {
		struct val x = { 0 }, d = { 0 };
		ternary(e, &x);
		if (flags) {
			if (!eat(e, ","))
				e->bad = true;
			else
				string_lit(e, &d);
		}
		if (x.is_str)
			e->bad = true;
		if (!e->bad)
			print_table(e, (uint64_t)x.i, flags && d.s.buf ? d.s.buf : NULL, flags, v);
		sb_release(&x.s);
		sb_release(&d.s);
		return;
	}
	if (eat(e, "(")) {
		/* a cast: words and '*' only, then ')' */
		const char *save = e->p, *q = e->p;
		while (q < e->end && (is_ident(*q) || *q == ' ' || *q == '*'))
			q++;
		if (q < e->end && *q == ')' && q > save) {
			e->p = q + 1;
			/* the cast's type matters for its width: unsigned int, u32, … */
			char ty[64];
			snprintf(ty, sizeof(ty), "%.*s", (int)(q - save), save);
			unary(e, v);
			if (!v->is_str && !strchr(ty, '*')) {
				if (strstr(ty, "char") || !strcmp(ty, "u8") || !strcmp(ty, "s8"))
					v->i = strstr(ty, "unsigned") || ty[0] == 'u' ? (int64_t)(uint8_t)v->i : (int64_t)(int8_t)v->i;
				else if (strstr(ty, "short") || !strcmp(ty, "u16") || !strcmp(ty, "s16"))
					v->i = strstr(ty, "unsigned") || ty[0] == 'u' ? (int64_t)(uint16_t)v->i : (int64_t)(int16_t)v->i;
				else if (!strcmp(ty, "int") || !strcmp(ty, "unsigned int") || !strcmp(ty, "unsigned") ||
					 !strcmp(ty, "u32") || !strcmp(ty, "s32"))
					v->i = strstr(ty, "unsigned") || ty[0] == 'u' ? (int64_t)(uint32_t)v->i : (int64_t)(int32_t)v->i;
			}
			return;
		}
		expr(e, v);
		if (!eat(e, ")"))
			e->bad = true;
		return;
	}
	e->bad = true;
}

static void unary(struct ev *e, struct val *v)
{
	if (e->bad || e->depth > 64) {   /* "- - - - …" nests too */
		e->bad = true;
		return;
	}
	e->depth++;
	unary_in(e, v);
	e->depth--;
}

static void unary_in(struct ev *e, struct val *v)
{
	if (eat_op(e, "!", "=")) {
		unary(e, v);
		val_int(v, v->is_str ? 0 : !v->i);
	} else if (eat(e, "~")) {
		unary(e, v);
		val_int(v, ~v->i);
	} else if (eat_op(e, "-", "-")) {
		unary(e, v);
		val_int(v, (int64_t)(0 - (uint64_t)v->i));
	} else if (eat_op(e, "+", "+")) {
		unary(e, v);
	} else {
		primary(e, v);
	}
}

/* binary operators by precedence, lowest first; each row: ops, and what
 * must not follow each (so "&" is not "&&") */
static const struct {
	const char *ops[4];
	const char *not_before[4];
} levels[] = {
	{ { "||" }, { NULL } },
	{ { "&&" }, { NULL } },
	{ { "|" }, { "|" } },
	{ { "^" }, { NULL } },
	{ { "&" }, { "&" } },
	{ { "==", "!=" }, { NULL, NULL } },
	{ { "<=", ">=", "<", ">" }, { NULL, NULL, "<=", ">=" } },
	{ { "<<", ">>" }, { NULL, NULL } },
	{ { "+", "-" }, { NULL, NULL } },
	{ { "*", "/", "%" }, { NULL, NULL, NULL } },
};

static int64_t apply(const char *op, int64_t a, int64_t b, bool *bad)
{
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;

	if (!strcmp(op, "||")) return a || b;
	if (!strcmp(op, "&&")) return a && b;
	if (!strcmp(op, "|")) return (int64_t)(ua | ub);
	if (!strcmp(op, "^")) return (int64_t)(ua ^ ub);
	if (!strcmp(op, "&")) return (int64_t)(ua & ub);
	if (!strcmp(op, "==")) return a == b;
	if (!strcmp(op, "!=")) return a != b;
	if (!strcmp(op, "<=")) return a <= b;
	if (!strcmp(op, ">=")) return a >= b;
	if (!strcmp(op, "<")) return a < b;
	if (!strcmp(op, ">")) return a > b;
	if (!strcmp(op, "<<")) return ub < 64 ? (int64_t)(ua << ub) : 0;
	if (!strcmp(op, ">>")) return ub < 64 ? (int64_t)(ua >> ub) : 0;
	if (!strcmp(op, "+")) return (int64_t)(ua + ub);
	if (!strcmp(op, "-")) return (int64_t)(ua - ub);
	if (!strcmp(op, "*")) return (int64_t)(ua * ub);
	if ((!strcmp(op, "/") || !strcmp(op, "%")) && b && !(a == INT64_MIN && b == -1))
		return op[0] == '/' ? a / b : a % b;
	*bad = true;
	return 0;
}

static void binary(struct ev *e, struct val *v, size_t level)
{
	if (level == sizeof(levels) / sizeof(levels[0])) {
		unary(e, v);
		return;
	}
	binary(e, v, level + 1);
	for (;;) {
		const char *op = NULL;
		for (int k = 0; k < 4 && levels[level].ops[k]; k++)
			if (eat_op(e, levels[level].ops[k], levels[level].not_before[k])) {
				op = levels[level].ops[k];
				break;
			}
		if (!op || e->bad)
			return;
		struct val r = { 0 };
		binary(e, &r, level + 1);
		if (v->is_str || r.is_str)
			e->bad = true;
		else
			val_int(v, apply(op, v->i, r.i, &e->bad));
		sb_release(&r.s);
	}
}

static void ternary(struct ev *e, struct val *v)
{
	binary(e, v, 0);
	if (e->bad || !eat(e, "?"))
		return;
	if (++e->depth > 64) {   /* a ? b : c ? d : … nests too */
		e->bad = true;
		return;
	}
	bool cond = v->is_str ? true : v->i != 0;
	struct val a = { 0 }, b = { 0 };
	expr(e, &a);
	if (!eat(e, ":"))
		e->bad = true;
	ternary(e, &b);
	struct val *pick = cond ? &a : &b;
	if (pick->is_str)
		val_str(v, pick->s.buf ? pick->s.buf : "", pick->s.len);
	else
		val_int(v, pick->i);
	sb_release(&a.s);
	sb_release(&b.s);
	e->depth--;
}

static void expr(struct ev *e, struct val *v)
{
	ternary(e, v);
}

/* The next top-level argument: from after a ',' to before the next one. */
static const char *next_arg(const char *p, const char *end)
{
	int depth = 0;

	for (; p < end; p++) {
		if (*p == '"') {
			for (p++; p < end && *p != '"'; p++)
				if (*p == '\\')
					p++;
		} else if (*p == '(' || *p == '{' || *p == '[') {
			depth++;
		} else if (*p == ')' || *p == '}' || *p == ']') {
			depth--;
		} else if (*p == ',' && depth == 0) {
			return p;
		}
	}
	return end;
}

int tp_format_print(const struct tp_format *f, const uint8_t *raw, size_t len, struct strbuf *out)
{
	const char *p = f->print_fmt;
	struct strbuf fmt = STRBUF_INIT, res = STRBUF_INIT;
	struct val v = { 0 };
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
	const char *args = p + 1, *end = p + strlen(p);
	/* conversions, each taking the next argument */
	for (const char *c = fmt.buf ? fmt.buf : ""; *c; c++) {
		if (*c != '%') {
			sb_addch(&res, *c);
			continue;
		}
		if (c[1] == '%') {
			sb_addch(&res, '%');
			c++;
			continue;
		}
		char spec[40];
		size_t sl = 0;
		int longs = 0;
		spec[sl++] = '%';
		for (c++; *c && strchr("-+ #0", *c) && sl < 20; c++)
			spec[sl++] = *c;
		/* width and precision: at most 3 digits each (the format is the file's) */
		for (int nd = 0; *c >= '0' && *c <= '9'; c++)
			if (++nd > 3)
				goto out;
			else
				spec[sl++] = *c;
		if (*c == '.') {
			spec[sl++] = *c++;
			for (int nd = 0; *c >= '0' && *c <= '9'; c++)
				if (++nd > 3)
					goto out;
				else
					spec[sl++] = *c;
		}
		for (; *c == 'l' || *c == 'h' || *c == 'z'; c++)
			longs += *c == 'l' || *c == 'z' ? 1 : -1;
		if (!*c || !strchr("diuxXocs", *c) || sl > 32)
			goto out;
		/* the argument */
		while (args < end && (*args == ' ' || *args == '\t'))
			args++;
		if (args >= end || *args != ',')
			goto out;
		const char *a = args + 1, *ae = next_arg(a, end);
		struct ev e = { f, raw, len, a, ae, false, 0 };
		expr(&e, &v);
		skip_ws(&e);
		if (e.bad || e.p != ae)
			goto out;
		args = ae;
		if (*c == 's') {
			if (!v.is_str)
				goto out;
			spec[sl++] = 's';
			spec[sl] = 0;
			sb_addf(&res, spec, v.s.buf ? v.s.buf : "");
			continue;
		}
		if (v.is_str)
			goto out;
		uint64_t x = (uint64_t)v.i;
		/* C's conversions: without l the value is an int */
		if (longs <= 0)
			x = strchr("di", *c) ? (uint64_t)(int64_t)(int32_t)x : (uint64_t)(uint32_t)x;
		if (longs < 0)   /* h, hh */
			x = strchr("di", *c) ? (uint64_t)(int64_t)(longs < -1 ? (int8_t)x : (int16_t)x)
					    : (longs < -1 ? (uint8_t)x : (uint16_t)x);
		spec[sl++] = 'l';
		spec[sl++] = 'l';
		spec[sl++] = *c;
		spec[sl] = 0;
		if (*c == 'c')
			sb_addch(&res, (char)x);
		else if (strchr("di", *c))
			sb_addf(&res, spec, (long long)x);
		else
			sb_addf(&res, spec, (unsigned long long)x);
	}
	while (args < end && (*args == ' ' || *args == '\t' || *args == '\n'))
		args++;
	if (args != end)
		goto out;    /* arguments left over */
	sb_add(out, res.buf ? res.buf : "", res.len);
	err = 0;
out:
	sb_release(&v.s);
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
