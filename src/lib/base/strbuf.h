/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * strbuf.h — growable byte strings (git's strbuf idea).
 *
 * Invariant: buf is always NUL-terminated and len excludes the NUL; an
 * initialised, empty strbuf points at a shared empty string and owns no
 * memory.  Life cycle: STRBUF_INIT / sb_init → sb_add… → sb_release (free) or
 * sb_detach (hand the malloc'd string to the caller).  Allocation failure
 * aborts: a profiler that cannot grow a string buffer cannot do useful work.
 */
#ifndef PERFKIT_BASE_STRBUF_H
#define PERFKIT_BASE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_empty[];
#define STRBUF_INIT { 0, 0, strbuf_empty }

void sb_init(struct strbuf *sb, size_t hint);
void sb_release(struct strbuf *sb);
char *sb_detach(struct strbuf *sb, size_t *len);
void sb_grow(struct strbuf *sb, size_t extra);
void sb_add(struct strbuf *sb, const void *data, size_t len);
void sb_addstr(struct strbuf *sb, const char *s);
void sb_addch(struct strbuf *sb, int c);
void sb_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void sb_reset(struct strbuf *sb);      /* len = 0, keeps memory */
void sb_setlen(struct strbuf *sb, size_t len);

/* Append s with XML special characters (& < > " ') escaped as entities and
 * bytes that are not allowed in XML 1.0 (C0 controls other than tab, LF,
 * CR; invalid UTF-8) replaced by U+FFFD.  Safe for element text and
 * attribute values. */
void sb_add_xml(struct strbuf *sb, const char *s, size_t len);

/* Append s as the body of a JSON string (without the quotes): " \ and
 * control characters escaped, invalid UTF-8 replaced by U+FFFD. */
void sb_add_json(struct strbuf *sb, const char *s, size_t len);

/* Append s for a terminal or a line-oriented text output (report, script,
 * the tracers' columns, folded stacks, Markdown, messages): every byte that
 * could end a line or drive a terminal is written as the four characters
 * "\xNN" — C0 controls (tab and newline included), DEL, the C1 controls
 * U+0080..U+009F in their UTF-8 form, and each byte that is not part of
 * valid UTF-8.  Valid printable UTF-8 is copied unchanged, so an ordinary
 * name prints as before and one record stays one line.  A backslash is not
 * escaped (names with "\x" in them are rare; the point is that no name can
 * forge a line or an escape sequence). */
void sb_add_term(struct strbuf *sb, const char *s, size_t len);

/* Append s for a record-per-line text that perf's own tools write with the
 * bytes as they are (perf script's text, folded stacks): every byte is
 * copied — ESC, tab, DEL, C1 controls and invalid UTF-8 included, as perf
 * 6.1 `perf script` and stackcollapse-perf.pl keep them — except a newline,
 * written "\x0a" so that one record stays one line (perf writes it raw and
 * splits the record, which no reader of its text parses back). */
void sb_add_line(struct strbuf *sb, const char *s, size_t len);

/* True when s (len bytes) has a byte sb_add_term() would escape. */
int str_needs_term_escape(const char *s, size_t len);

/* Escape sb->buf[at..len) in place as sb_add_term() does (for text that a
 * helper appended unescaped, such as a joined path). */
void sb_term_escape_from(struct strbuf *sb, size_t at);

/* Escape the NUL-terminated text in buf (size bytes) in place as
 * sb_add_term() does, cut to fit size (never inside an escape). */
void str_term_escape_buf(char *buf, size_t size);

/* fputs(s) with sb_add_term()'s escaping; returns what fputs returns. */
int fputs_term(const char *s, FILE *f);

/* Non-aborting helpers that allocate: xmalloc/xcalloc/xrealloc/xstrdup abort
 * with a message on out-of-memory (the only place base code prints). */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Give the whole pages inside bytes [from, to) of the block at p back to
 * the kernel (madvise MADV_DONTNEED): memory an array no longer needs
 * while the rest of it is still read (one consumed from its end).  The
 * block stays allocated; those pages read as zero if touched again.
 * Nothing when from >= to or the range holds no whole page. */
void xrelease(void *p, size_t from, size_t to);
/* Ask for transparent huge pages (madvise MADV_HUGEPAGE) under the 2 MiB
 * aligned part of the block at p, size bytes, when it is 4 MiB or more:
 * an array about to be written whole (its first writes fault 2 MiB at a
 * time instead of 4 KiB: under a hypervisor a fault costs microseconds)
 * or read at random (fewer TLB misses).  Nothing where the kernel has THP
 * off; the block is freed as before. */
void xhuge(void *p, size_t size);
/* xmalloc(size) for a big array about to be written whole: from 2 MiB
 * on, aligned to 2 MiB with its whole 2 MiB parts in huge pages (one
 * fault each instead of 512), its last part under 2 MiB in 4 KiB pages;
 * under 2 MiB as xmalloc.  Freed with free(). */
void *xmalloc_huge(size_t size);
/* glibc's malloc set for a program whose threads allocate and free
 * blocks of up to tens of MB in turn (collapse's parsers, a part per
 * block of text): blocks up to 32 MiB from the heap instead of a mapping
 * made and faulted in anew each time, freed memory kept for the next
 * (not trimmed), one arena for every thread (the main heap, in huge pages
 * when perfkit.c's restart asked for them; a thread's arena is not).
 * Process-wide (mallopt(3)): call before any thread starts.  On a
 * compile job's 336 MB of perf script text (collapse): 9.8 k page faults
 * -> 2.0 k, 1.47x less CPU, the peak 46 -> 64 MiB. */
void xmalloc_reuse(void);
/* Ask for transparent huge pages under the next `bytes` of the heap (a
 * block that size taken from its top, madvised with xhuge and freed back
 * to it), as glibc's tunable glibc.malloc.hugetlb=1 does for the heap it
 * grows, for a program that learns only as it runs that it will allocate
 * much (collapse reading a pipe: 4 KiB page faults cost it 35 % more CPU
 * than huge pages).  bytes must be below the mmap threshold (32 MiB after
 * xmalloc_reuse, which is to be called first) and 4 MiB or more.  The
 * pages already in use keep their size; nothing where THP is off or
 * $PERFKIT_NO_HEAP_THP is set (as for perfkit.c's restart). */
void xheap_thp(size_t bytes);
/* xcalloc(n, size) for a big table (a hash table's slots): in huge pages
 * (xhuge) asked for before the zeroing touches them; freed with free(). */
void *xcalloc_huge(size_t n, size_t size);
/* A malloc'd string formatted as printf would (aborts on out-of-memory). */
char *xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Length of the valid UTF-8 sequence at p (n bytes available): 1..4, or 0
 * when it is no valid sequence (overlong forms, surrogates, code points
 * above U+10FFFF, U+FFFE and U+FFFF count as invalid). */
size_t sb_utf8_len(const void *p, size_t n);

#endif
