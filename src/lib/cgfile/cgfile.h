/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgfile.h — reader of the Cachegrind output format (cachegrind.out.*,
 * written by `valgrind --tool=cachegrind` and by `perfkit cache`).
 *
 * The format (Valgrind's docs/cg-manual, "Cachegrind output file format"):
 *   desc: TEXT            any number, first
 *   cmd: TEXT             exactly one
 *   events: E1 E2 ...     exactly one, before any count line
 *   fl=FILE               file of the following lines (also fi=, fe=)
 *   fn=NAME               function of the following lines
 *   LINE N1 N2 ...        counts for a source line; fewer numbers than
 *                         events means the rest are 0
 *   summary: N1 N2 ...    optional, last: the totals
 * Blank lines and lines starting with '#' are ignored.
 *
 * Contract: every line is checked.  Bad input gives -EINVAL and a
 * pk_error() message "FILE:LINE: what was expected".  A summary that
 * disagrees with the sum of the counts gives a pk_warn().  A count line
 * before any fn= gets the function "???".  Strings are interned; records
 * keep file order (the same file/fn/line may repeat; consumers add).
 * Counts are signed 64-bit (negative ones come from cg_diff, which
 * subtracts two files), kept as uint64_t in two's complement: read them
 * as (int64_t); a count beyond INT64_MAX, or a total that overflows, is an
 * error.
 */
#ifndef PERFKIT_CGFILE_H
#define PERFKIT_CGFILE_H

#include <stddef.h>
#include <stdint.h>

#define CGFILE_MAX_EVENTS 64

struct cgfile_rec {
	const char *file;	/* interned */
	const char *fn;		/* interned */
	uint32_t line;
};

struct cgfile {
	char *cmd;
	char **desc;
	size_t ndesc;
	size_t nev;
	char *ev[CGFILE_MAX_EVENTS];
	uint64_t totals[CGFILE_MAX_EVENTS];   /* sum over records */
	uint64_t summary[CGFILE_MAX_EVENTS];  /* from summary: (= totals if absent) */
	int has_summary;
	struct cgfile_rec *recs;
	uint64_t *counts;	/* nrecs * nev, row per record */
	size_t nrecs;
	struct hashmap *strs;
};

/* Parse buf[len]; name is used in messages.  0 or -EINVAL/-ENOMEM. */
int cgfile_parse(const char *buf, size_t len, const char *name, struct cgfile **out);
/* Read and parse the file at path (-errno when unreadable). */
int cgfile_read(const char *path, struct cgfile **out);
void cgfile_free(struct cgfile *cg);

/* Index of the event called name, or -1. */
int cgfile_event(const struct cgfile *cg, const char *name);
static inline const uint64_t *cgfile_counts(const struct cgfile *cg, size_t rec)
{
	return cg->counts + rec * cg->nev;
}

/* v (as int64_t) in decimal with a comma between groups of three digits, as
 * cg_annotate prints counts ("1,234,567", "-1,099,044"), into buf (len bytes, always
 * NUL-terminated; digits that do not fit are cut). */
void cgfile_fmt_count(char *buf, size_t len, uint64_t v);

#endif
