/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text.c — the browser's terminal-free parts (tui.h): display escaping, the
 * --stdio text of a view ('P'), and an annotation's text (src/lib/annotate).
 */
#include "tui/tui.h"

#include "annotate/annotate.h"
#include "base/error.h"
#include "base/strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

/* Whether the UTF-8 sequence of k bytes at s is a format control that
 * reorders or hides text: U+061C (Arabic letter mark), U+200B..U+200F
 * (zero-width, LRM, RLM), U+2028..U+202E (line and paragraph separators,
 * bidi embeddings and overrides: U+202E shows the rest of the line
 * reversed), U+2060..U+206F (word joiner, bidi isolates), U+FEFF, and the
 * tag characters U+E0000..U+E007F (invisible: they can carry hidden ASCII
 * text).  The Unicode "Trojan Source" set (CVE-2021-42574) and its
 * neighbours. */
static bool utf8_format_control(const unsigned char *s, size_t k)
{
	if (k == 2)
		return s[0] == 0xd8 && s[1] == 0x9c;
	if (k == 4)
		return s[0] == 0xf3 && s[1] == 0xa0 && (s[2] == 0x80 || s[2] == 0x81);
	if (k != 3)
		return false;
	if (s[0] == 0xe2 && s[1] == 0x80)
		return (s[2] >= 0x8b && s[2] <= 0x8f) || (s[2] >= 0xa8 && s[2] <= 0xae);
	if (s[0] == 0xe2 && s[1] == 0x81)
		return s[2] >= 0xa0 && s[2] <= 0xaf;
	return s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf;
}

/* Length of the valid, printable UTF-8 sequence at s (2..4 bytes; C1
 * controls U+0080..U+009F, format controls (utf8_format_control),
 * surrogates and overlongs are not), or 0. */
static size_t utf8_ok(const unsigned char *s, size_t n)
{
	size_t k = sb_utf8_len(s, n);

	if (k < 2 || (s[0] == 0xc2 && s[1] < 0xa0) || utf8_format_control(s, k))
		return 0;
	return k;
}

size_t tui_escape(const char *s, size_t len, bool utf8, char **out, size_t *cap, size_t at)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		size_t n = p[i] >= 0x20 && p[i] < 0x7f ? 1 : utf8 && p[i] >= 0x80 ? utf8_ok(p + i, len - i) : 0;

		if (at + 5 > *cap || at + n + 1 > *cap) {
			*cap = (*cap + n + 5) * 2;
			*out = xrealloc(*out, *cap);
		}
		if (n) {
			memcpy(*out + at, p + i, n);
			at += n;
			i += n;
		} else {
			char *e = *out + at;

			e[0] = '\\';
			e[1] = 'x';
			e[2] = hex[p[i] >> 4];
			e[3] = hex[p[i] & 15];
			at += 4;
			i++;
		}
	}
	if (at + 1 > *cap) {
		*cap = at + 16;
		*out = xrealloc(*out, *cap);
	}
	(*out)[at] = 0;
	return at;
}

static const char *pct_head(bool children)
{
	return children ? "# Children      Self" : "# Overhead";
}

const char *tui_row_text(const struct tui_table *t, size_t i, int k)
{
	const char *s = t->rows[i].text[k];

	return s ? s : t->text ? t->text(t->text_ctx, i, k) : "";
}

size_t tui_row_text_len(const struct tui_table *t, size_t i, int k)
{
	if (t->cut[k] && t->text_len)
		return t->text_len(t->text_ctx, i, k);
	return strlen(tui_row_text(t, i, k));
}

void tui_print_stdio(FILE *fp, const struct tui_table *t, const size_t *order, size_t n, bool children,
		     const char *const *graph, const char *const *elide, const size_t *wide, size_t nwide)
{
	size_t width[TUI_MAX_KEYS];
	bool show[TUI_MAX_KEYS];
	int nshow = 0, last = -1;

	for (int k = 0; k < t->nr_keys; k++)
		nshow += show[k] = !elide || !elide[k];
	for (int k = 0; k < t->nr_keys; k++) {
		show[k] |= !nshow;   /* perf's: every column elided, all stay */
		if (show[k])
			last = k;
	}
	if (t->stdio_head) {
		size_t at = strlen(t->stdio_head);

		at = t->stdio_elide_at < at ? t->stdio_elide_at : at;
		fwrite(t->stdio_head, 1, at, fp);
		for (int k = 0; elide && k < t->nr_keys; k++)
			if (elide[k])
				fprintf(fp, "# %s: %s\n", t->kind[k] == 'c' ? "comm" : t->kind[k] == 'd' ? "dso" : "symbol",
					elide[k]);
		fputs(t->stdio_head + at, fp);
	}
	for (int k = 0; k < t->nr_keys; k++)
		width[k] = strlen(t->headers[k]);
	if (!wide) {
		wide = order;
		nwide = n;
	}
	for (size_t i = 0; i < nwide; i++)
		for (int k = 0; k < t->nr_keys; k++) {
			size_t l = tui_row_text_len(t, wide[i], k);

			if (!t->rows[wide[i]].sym && l < t->unres_width[k])
				l = t->unres_width[k];
			if (l > width[k])
				width[k] = l;
		}
	fputs(pct_head(children), fp);
	if (t->show_nr)
		fprintf(fp, "  %12s", "Samples");
	if (t->show_period)
		fprintf(fp, "  %12s", "Period");
	for (int k = 0; k < t->nr_keys; k++)
		if (show[k])
			fprintf(fp, "  %-*s", (int)width[k], t->headers[k]);
	fputs("\n# ........", fp);
	if (children)
		fputs("  ........", fp);
	if (t->show_nr)
		fputs("  ............", fp);
	if (t->show_period)
		fputs("  ............", fp);
	for (int k = 0; k < t->nr_keys; k++) {
		if (!show[k])
			continue;
		fputs("  ", fp);
		for (size_t j = 0; j < width[k]; j++)
			fputc('.', fp);
	}
	fputs("\n#\n", fp);
	for (size_t i = 0; i < n; i++) {
		const struct tui_row *r = &t->rows[order[i]];
		double tot = t->total ? (double)t->total : 1;

		if (children)
			fprintf(fp, "  %7.2f%%", 100.0 * (double)r->children / tot);
		fprintf(fp, "  %7.2f%%", 100.0 * (double)r->self / tot);
		if (t->show_nr)
			fprintf(fp, "  %12" PRIu64, r->nr);
		if (t->show_period)
			fprintf(fp, "  %12" PRIu64, r->self);
		for (int k = 0; k < t->nr_keys; k++) {
			if (!show[k])
				continue;
			if (t->cut[k])
				fprintf(fp, "  %-*.*s", (int)width[k], (int)width[k], tui_row_text(t, order[i], k));
			else if (k == last && !t->pad_last[k])
				fprintf(fp, "  %s", tui_row_text(t, order[i], k));
			else
				fprintf(fp, "  %-*s", (int)width[k], tui_row_text(t, order[i], k));
		}
		fputc('\n', fp);
		if (graph && graph[i])
			fputs(graph[i], fp);
	}
	fputs("\n\n", fp);
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p ? p : "??";
}

int tui_annotate_text(FILE *fp, const struct ann_profile *p, const struct ann_func *f, const char *elf_path,
		      struct inline_resolver *inl)
{
	struct ann_view v;
	struct ann_srccache *src;
	const char *last_file = NULL;
	int last_line = 0;
	struct ann_plt *plt = NULL;
	int err = ann_view_build(&v, f, elf_path, inl);

	if (err)
		return err;
	if (!f->kernel) {   /* call targets named as perf's: strcmp@plt */
		ann_plt_load(elf_path, &plt);
		pk_error_clear();
	}
	src = ann_srccache_new();
	fprintf(fp, " Percent |  Source code & Disassembly of ");
	fputs_term(base_name(f->dso), fp);
	fprintf(fp, " for %s (%" PRIu64 " samples, %.2f%% of all)\n", p->event ? p->event : "samples",
		f->self.hits, p->total_period ? 100.0 * (double)f->self.period / (double)p->total_period : 0);
	if (f->callee.hits && p->total_period)   /* as annotate --stdio, on a line of its own (80 columns) */
		fprintf(fp, "         :   %.2f%% with its callees\n",
			100.0 * (double)(f->self.period + f->callee.period) / (double)p->total_period);
	fprintf(fp, "---------------------------------------------------------------\n");
	fprintf(fp, "         :   %016" PRIx64 " <", f->start);
	fputs_term(f->sym ? f->sym : "??", fp);
	fprintf(fp, ">:\n");
	for (size_t i = 0; i < v.nr_insns; i++) {
		const struct ann_insn *ai = &v.insns[i];

		if (ai->nr_fr) {
			const struct inline_frame *fr = &v.frames[ai->fr + ai->nr_fr - 1];

			if (fr->line > 0 && fr->file &&
			    (fr->line != last_line || !last_file || strcmp(fr->file, last_file))) {
				size_t len = 0;
				const char *t = ann_source_line(src, fr->file, fr->line, &len);
				struct strbuf sb = STRBUF_INIT;

				if (t) {
					while (len && (*t == ' ' || *t == '\t'))
						t++, len--;
					sb_add_term(&sb, t, len);
				}
				fprintf(fp, "         :   ");
				fputs_term(base_name(fr->file), fp);
				fprintf(fp, ":%d   %s\n", fr->line, sb.buf ? sb.buf : "");
				sb_release(&sb);
				last_file = fr->file;
				last_line = fr->line;
			}
		}
		if (ai->self.hits && f->self.period)
			fprintf(fp, "%8.2f", 100.0 * (double)ai->self.period / (double)f->self.period);
		else
			fprintf(fp, "    0.00");
		fprintf(fp, " : %6" PRIx64 ": %c %-6s ", ai->in.addr, ai->jump_target ? '>' : ' ', ai->in.mnemonic);
		fputs_term(ai->in.ops, fp);
		const char *tname;
		uint64_t toff;
		enum ann_target tk = ann_target_of(f, &v, ai, plt, inl, elf_path, &tname, &toff);

		if (tk != ANN_TGT_NONE) {   /* the target named, as annotate --stdio */
			fputs(" <", fp);
			fputs_term(tname, fp);
			if (tk == ANN_TGT_SELF && toff)   /* its start: the name alone, as objdump */
				fprintf(fp, "+%#" PRIx64 ">", toff);
			else
				fputs(tk == ANN_TGT_PLT ? "@plt>" : ">", fp);
			if (tk == ANN_TGT_SELF && ai->back_edge)   /* as annotate --stdio */
				fputs("  # loop back", fp);
		}
		if (ai->in.kind == DIS_CALL && ai->callee.hits && p->total_period)   /* as annotate --stdio */
			fprintf(fp, "  # callees: %.2f%% of all samples (%" PRIu64 ", inclusive)",
				100.0 * (double)ai->callee.period / (double)p->total_period, ai->callee.hits);
		fputc('\n', fp);
	}
	ann_plt_free(plt);
	ann_srccache_free(src);
	ann_view_release(&v);
	return 0;
}
