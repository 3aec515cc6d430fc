/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracepoint.h — tracepoint formats (tracefs events/SYS/NAME/format) and
 * perf.data's tracing data (HEADER_TRACING_DATA), so perf script reads
 * perfkit's tracepoint samples and perfkit script prints their fields.
 *
 * A format file (the kernel's text, Documentation/trace/events.rst):
 *   name: sched_switch
 *   ID: 372
 *   format:
 *   	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
 *   	…
 *   	field:char prev_comm[16];	offset:8;	size:16;	signed:0;
 *   	field:__data_loc char[] filename;	offset:8;	size:4;	signed:1;
 *   print fmt: "prev_comm=%s …", REC->prev_comm, …
 * tp_format_parse() keeps each field's name, declared type, offset, size and
 * signedness; fields named common_* are the common header.
 *
 * The raw data of a sample (PERF_SAMPLE_RAW) is the tracepoint's record as
 * laid out by that format.  tp_format_fields_text() prints the fields after
 * the common ones as "name=value" separated by blanks (libtraceevent's
 * field listing, what perf script prints when it has no print format to
 * follow): char arrays and __data_loc/__rel_loc char[] as strings up to
 * their NUL (non-printable bytes as '.'), pointers ('*' in the type) and
 * long fields in hex (0x…), other integers of 1, 2, 4 or 8 bytes signed or
 * unsigned in decimal, other arrays as "ARRAY[…]" of their bytes in hex.  A
 * field past the end of the data prints as "name=?".
 *
 * Tracing data (tools/perf/util/trace-event-info.c, version 0.6, the host's
 * byte order):
 *   "\x17\x08\x44tracing" | "0.6\0" | endian byte (0 little) |
 *   sizeof(long) byte | page size u32 |
 *   "header_page\0" u64 size + events/header_page |
 *   "header_event\0" u64 size + events/header_event |
 *   u32 count of ftrace formats, each u64 size + text |
 *   u32 count of systems, each: "SYSTEM\0", u32 count, each u64 size + text |
 *   u32 size + kallsyms (perfkit, as perf now: 0) |
 *   u32 size + printk_formats | u64 size + saved_cmdlines.
 * tp_tracing_data_build(out, names, n) appends it for tracepoints "SYS:NAME"
 * (each format once), reading tracefs (tracefs_ensure first); 0 or -errno
 * with a message naming the file.  tp_tracing_data_parse(p, len, …) reads
 * the formats back from such a section (perfkit's or perf's); -EINVAL with
 * a message ("tracing data: … at offset N") when it is cut short or not
 * tracing data.
 */
#ifndef PERFKIT_EVENT_TRACEPOINT_H
#define PERFKIT_EVENT_TRACEPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"

struct tp_field {
	char *name;
	char *type;          /* the declaration before the name: "char", "__data_loc char[]" */
	uint32_t offset, size;
	bool is_signed;
	bool array;          /* "name[N]" */
	uint32_t array_len;  /* N (0: not given) */
	bool data_loc;       /* __data_loc: u32 (length << 16 | offset) */
	bool rel_loc;        /* __rel_loc: the same, offset from the field's end */
	bool common;         /* common_* */
};

struct tp_format {
	char *system, *name;
	uint64_t id;
	struct tp_field *fields;
	size_t nr_fields;
	char *print_fmt;     /* the text after "print fmt: ", or NULL */
};

/* Parse a format file's text (len bytes) for tracepoint SYSTEM:NAME (the
 * system is not in the file).  0, or -EINVAL with a message when there is
 * no "name:" or no field. */
int tp_format_parse(const char *text, size_t len, const char *system, struct tp_format *out);
void tp_format_release(struct tp_format *f);

/* The non-common fields of one record (see above), appended to out. */
void tp_format_fields_text(const struct tp_format *f, const uint8_t *raw, size_t len,
			   struct strbuf *out);

/* One record as its print format says, as perf script shows it: a C
 * string with %d %i %u %x %X %o %c %s conversions (flags, width and
 * precision of at most 3 digits, h/l/ll/z lengths; %% too) whose arguments
 * are C expressions over the record (libtraceevent's subset): integers,
 * string literals, REC->field, REC->field[N], __get_str(field),
 * __print_flags(v, "sep", { mask, "name" }, …) (names of the set masks in
 * order, the rest in hex), __print_symbolic(v, { value, "name" }, …) (the
 * first equal value, else hex), casts, parentheses, C's unary and binary
 * operators and ?:, nested at most 64 deep.  0 when printed; -ENOTSUP (out
 * untouched) for anything else (%p, __print_hex, enum names, a division by
 * 0, a field past the data): then print the fields. */
int tp_format_print(const struct tp_format *f, const uint8_t *raw, size_t len, struct strbuf *out);

/* A list of formats, as read from tracing data. */
struct tp_formats {
	struct tp_format *v;
	size_t nr;
};

/* The format with that id, or NULL. */
const struct tp_format *tp_formats_find(const struct tp_formats *fs, uint64_t id);
void tp_formats_release(struct tp_formats *fs);

int tp_tracing_data_build(struct strbuf *out, const char *const *names, size_t n);
int tp_tracing_data_parse(const uint8_t *p, size_t len, struct tp_formats *out);

#endif
