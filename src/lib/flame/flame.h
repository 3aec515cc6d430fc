/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flame.h — folded stacks to an SVG flame graph (flamegraph.pl's rules).
 *
 * Input: "folded" text, one stack per line: `frame;frame;…;leaf COUNT` or,
 * for a differential profile, `stack COUNT_BEFORE COUNT_AFTER`.  A line
 * is split at its LAST whitespace; what follows must be `\d+(\.\d*)?`,
 * otherwise the line is ignored and counted (flame_stats.ignored).  Frame
 * names are arbitrary bytes other than ';' and are treated as untrusted.
 * A trailing '\r' is dropped (flamegraph.pl would ignore CRLF lines).
 *
 * Model (the convention of FlameGraph's flamegraph.pl, which users and
 * scripts rely on; the source of every formula below):
 *  - lines are sorted as byte strings (or kept in input order for a flame
 *    chart) and merged with the previous line's stack only: a frame is
 *    extended while it equals the frame at the same depth of the previous
 *    line, so equal prefixes merge exactly as flamegraph.pl merges them;
 *  - the width of a stack is its count (the AFTER count when two are
 *    given); the root "all" spans the whole total (--total may widen it);
 *  - frames narrower than minwidth (pixels, or % of the total) are dropped;
 *  - geometry: x = 10 + t * (width - 20) / total, one frame row = height
 *    pixels, padding fontsize*3 on top (plus fontsize*2 with a subtitle),
 *    fontsize*2+10 below; rect x/width printed with one decimal;
 *  - tooltip: "NAME (N COUNTNAME, P%)", N = round(width * factor) with
 *    thousands separators, P = 100 * N / (total * factor) with 2 decimals;
 *    differential: "NAME (N COUNTNAME, P%; ±D%)", D = 100 * delta / (total
 *    * factor) (sign switched by negate); annotations _[k] _[w] _[i] _[j]
 *    are stripped from the name shown;
 *  - colours: flame_color() (palettes hot, mem, io, wakeup, chain, java,
 *    js, perl, red, green, blue, aqua, yellow, purple, orange; hashed by
 *    name with --hash, a name-seeded drand48 by default, random with
 *    --random), red/blue scale for differential frames, grey for "-" and
 *    "--" frames, a consistent palette map with --cp;
 *  - labels: int(frame_px / (fontsize * fontwidth)) characters (UTF-8
 *    code points) when at least 3 fit, cut with ".." when shorter than the
 *    name; never splitting a UTF-8 sequence or an XML entity.
 *  - names in tooltips and labels: control bytes shown as "\xNN" (counted
 *    as 4 characters in labels), invalid UTF-8 as U+FFFD.
 *
 * Deliberate differences from flamegraph.pl: names, titles and counts are
 * escaped everywhere (the Perl script leaves some raw and can write invalid
 * XML); the root frame is labelled "all"; flamegraph.pl keys finished
 * frames by (name, depth, end time), so a zero-width frame can overwrite
 * a real one that ended at the same instant (zero-count lines) — we keep
 * both; CRLF line ends are accepted.
 *
 * Output: a complete, well-formed SVG document with our own interactive
 * script (zoom, search, URL state); names only ever appear escaped in
 * element text, and the script reads them through textContent.
 *
 * Errors: functions return 0 or -errno and record a message with
 * pk_error(); flame_render returns -ENODATA when no valid stack was read
 * (the output then holds a small SVG whose title states the error: empty
 * input, or how many lines were ignored), and -ERANGE when the counts add
 * up past the largest double (nothing drawn).
 */
#ifndef PERFKIT_FLAME_FLAME_H
#define PERFKIT_FLAME_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hashmap.h"
#include "base/strbuf.h"

enum flame_colormode { FLAME_COLOR_SEEDED = 0, FLAME_COLOR_HASH, FLAME_COLOR_RANDOM };

struct flame_opts {
	const char *title;      /* NULL: "Flame Graph" / "Icicle Graph" / "Flame Chart" */
	const char *subtitle;   /* NULL or "": none */
	int width;              /* image width, pixels (1200) */
	int frameheight;        /* 16 */
	double fontsize;        /* 12 */
	double fontwidth;       /* 0.59 */
	double minwidth;        /* 0.1 */
	int minwidth_pct;       /* minwidth is a percentage of the total */
	const char *fonttype;   /* "Verdana" */
	const char *countname;  /* "samples" */
	const char *nametype;   /* "Function:" */
	const char *colors;     /* palette name, "hot" */
	const char *bgcolors;   /* NULL: by palette; yellow blue green grey or #rrggbb */
	enum flame_colormode colormode;
	int reverse, inverted, flamechart, negate;
	double factor;          /* 1 */
	double total;           /* 0: sum of counts */
	const char *notes;      /* NULL or text for an XML comment */
	const char *encoding;   /* NULL or the XML declaration's encoding */
	struct flame_nameattr *nameattr; /* NULL or loaded with flame_nameattr_load */
	struct flame_palette *palette;   /* NULL or the --cp map (read and extended) */
};

void flame_opts_init(struct flame_opts *o);

/* Whether name can stand in the SVG's XML declaration as its encoding
 * (flamegraph.pl's --encoding): an XML 1.0 EncName, [A-Za-z][A-Za-z0-9._-]*
 * (XML 1.0 § 4.3.3), and an encoding this system knows (iconv_open(3)), so a
 * typo ("utf8x") is not written into a file that browsers then misread. */
bool flame_encoding_valid(const char *name);

/* The input: lines of one or more buffers, kept in input order. */
struct flame_line {
	const char *s;
	uint32_t len;
};

struct flame_input {
	struct flame_line *lines;
	size_t nr, alloc;
	char **bufs;            /* owned buffers */
	size_t nbufs;
	size_t *maplens;        /* nonzero: bufs[i] is an mmap of that length */

	/* merge mode (flame_input_merge): see there */
	bool merge;
	bool perfdata;          /* the last file added began with "PERFILE2" */
	bool unsorted;          /* a stack came before the one it follows: the
				   table below is in use (sorted input needs none) */
	uint32_t *slots;        /* open addressing: index + 1 into m, 0 empty */
	size_t nslots;
	struct flame_merged {
		char *text;         /* the stack, then room for its counts */
		uint64_t hash, c1, c2;
		uint32_t stacklen;
		bool has2;
	} *m;
	size_t nm, am;
	struct pk_arena text;   /* lines kept whole, the merged lines' text */
	size_t *at;             /* merge mode: input line (0-based) of lines[i] */
	size_t nlines;          /* merge mode: lines read */
	size_t nbad_kept;       /* merge mode: invalid lines kept */
	size_t dropped_bad;     /* merge mode: invalid lines not kept */
};

void flame_input_init(struct flame_input *in);
void flame_input_release(struct flame_input *in);
/* Merge mode, for a flame graph (not a flame chart, which keeps the input
 * order): files and buffers are read in 1 MB pieces and lines of the same
 * stack with a plain integer count ("STACK N") are summed as they are
 * read, so memory grows with the distinct stacks, not with the lines.
 * Lines with other counts (fractions, exponents) and differential lines
 * ("STACK N1 N2": flamegraph.pl keeps the delta of a stack's first line
 * only) are kept whole, as are the first FLAME_IGNORED_SHOWN invalid lines
 * (the others are only counted).  flame_input_finish must be called after
 * the last add and before flame_render: it appends one line "STACK SUM"
 * per merged stack.  The graph is the same as from the lines themselves: sorted
 * lines of one stack are adjacent and merge into one frame (flamegraph.pl),
 * except where another stack's text is this stack, a space and a number
 * sorting between two of its counts. */
void flame_input_merge(struct flame_input *in);
void flame_input_finish(struct flame_input *in);
/* The 1-based input line number of lines[i] (across the inputs). */
size_t flame_input_lineno(const struct flame_input *in, size_t i);
/* Total lines read (merge mode), or the lines held. */
size_t flame_input_nlines(const struct flame_input *in);

/* Read a whole file (path "-" = stdin) and append its lines. */
int flame_input_add_file(struct flame_input *in, const char *path);
/* Read the rest of a stream fd (a pipe; name for messages) whose first
 * prefix_len bytes the caller has read already into prefix, as
 * flame_input_add_file does (in merge mode in 1 MB pieces: memory follows
 * the distinct stacks, not the stream).  fd is not closed.  -errno on a
 * read error. */
int flame_input_add_stream(struct flame_input *in, int fd, const char *name, const void *prefix,
			   size_t prefix_len);
/* Append the lines of buf (copied). */
void flame_input_add_buf(struct flame_input *in, const char *buf, size_t len);
/* Take ownership of a malloc'd buffer and append its lines. */
void flame_input_add_owned(struct flame_input *in, char *buf, size_t len);

/* Split one folded line (no newline) at its last whitespace: on success
 * returns 1 and sets *stacklen (bytes of the stack part) and *count; 0
 * when the line has no valid trailing count. */
int flame_parse_count(const char *s, size_t len, size_t *stacklen, double *count);

#define FLAME_IGNORED_SHOWN 3
struct flame_stats {
	size_t lines, ignored, frames;
	size_t ignored_at[FLAME_IGNORED_SHOWN]; /* 0-based indexes into in->lines
						 * of the first ignored lines */
	double total;           /* sum of counts */
};

/* Render the graph as a complete SVG document into out. */
int flame_render(const struct flame_input *in, const struct flame_opts *o,
		 struct strbuf *out, struct flame_stats *st);

/* Stacks handed in as a tree of named frames, not as folded text (the
 * aggregation model's, profile/names.h, through the caller): node 0 is the
 * root, above the stacks' first frames (usually the process); node i >= 1
 * has node(ctx, i, &parent, &name): a parent below i and a name id, named
 * by name(ctx, id, &len) (equal names: equal ids; no ';' in a name;
 * siblings have distinct names).  The path of names from the root to a
 * node is one stack, and count_text(ctx, i, buf, size) writes into buf the
 * count of the stacks ending at node i as the folded line would print it
 * (returns its length; 0: no stack ends there).  Drawn exactly as
 * flame_render draws the folded lines "name;name;… COUNT" of the same
 * stacks (sorted by those lines' bytes, merged at equal frames), without
 * printing, parsing or sorting them: at each node only its children are
 * ordered.  Not for --reverse, --flamechart or --colors chain, which
 * rewrite the text (-ENOTSUP): use flame_render.  Memory: about 40 bytes
 * a node besides the drawing. */
struct flame_tree {
	size_t nr;
	const void *ctx;
	void (*node)(const void *ctx, size_t i, uint32_t *parent, uint32_t *name);
	const char *(*name)(const void *ctx, uint32_t id, size_t *len);
	size_t (*count_text)(const void *ctx, size_t i, char *buf, size_t size);
};

int flame_render_tree(const struct flame_tree *ft, const struct flame_opts *o,
		      struct strbuf *out, struct flame_stats *st);

/* Colours (flamegraph.pl's color()): writes "rgb(r,g,b)" into buf (>= 32
 * bytes).  mode SEEDED derives the colour from a drand48 seeded with the
 * sum of the name's code points, as flamegraph.pl does by default. */
void flame_color(char *buf, const char *palette, enum flame_colormode mode,
		 const char *name, size_t len);
/* Differential scale: value > 0 red, < 0 blue, 0 white (max > 0). */
void flame_color_scale(char *buf, double value, double max, int negate);
/* flamegraph.pl's namehash() over a byte string (UTF-8 code points). */
double flame_namehash(const char *name, size_t len, int reversed);

/* --cp: name -> colour map read from / written to a palette.map file. */
struct flame_palette {
	struct hashmap map;     /* name -> colour string (interned in strs) */
	struct hashmap strs;
};
void flame_palette_init(struct flame_palette *p);
void flame_palette_release(struct flame_palette *p);
/* Load "NAME->COLOUR" lines; a missing file is not an error. */
int flame_palette_load(struct flame_palette *p, const char *path);
/* Write the map sorted by name (temp file + rename). */
int flame_palette_save(const struct flame_palette *p, const char *path);

/* --nameattr: "NAME<TAB>key=value<TAB>…" per line; keys title, id, class,
 * href, target, g_extra, a_extra (extras are attribute lists that are
 * re-parsed and re-escaped; anything unparseable is dropped). */
struct flame_nameattr {
	struct hashmap map;     /* name -> struct flame_attrs * */
};
struct flame_attrs {
	char *title, *id, *cls, *href, *target, *g_extra, *a_extra;
};
int flame_nameattr_load(struct flame_nameattr *na, const char *path);
void flame_nameattr_release(struct flame_nameattr *na);

/* Append a frame name as the SVG shows it: XML-escaped (sb_add_xml: invalid
 * UTF-8 becomes U+FFFD), with control bytes (0x00-0x1f, 0x7f) written as
 * visible escapes "\xNN" instead of being replaced or dropped. */
void flame_add_name(struct strbuf *sb, const char *name, size_t len);

/* Append the shortened label flamegraph.pl would draw for name in a frame
 * that fits `chars` characters, XML-escaped ("" when chars < 3). */
void flame_add_label(struct strbuf *sb, const char *name, size_t len, long chars);

/* Perl's default number formatting (%.15g, integers without exponent). */
void flame_add_num(struct strbuf *sb, double v);
/* printf("%.Nf") for N = 0..3, fast path with an exact fallback; returns
 * the value printed (as Perl would read the string back). */
double flame_add_fixed(struct strbuf *sb, double v, int decimals);
/* The value flame_add_fixed would print, without printing it. */
double flame_fixed_value(double v, int decimals);

#endif
