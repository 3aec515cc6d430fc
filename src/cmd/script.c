/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit script — every sample of a perf.data file in `perf script`'s
 * default text form (the input of stackcollapse-perf.pl):
 *
 *   with callchains:   "comm  tid [cpu] secs.usecs:     period event: \n"
 *                      "\t    ip sym+0xoff (dso)\n" per frame, then a blank line
 *   without:           "            comm  tid [cpu] secs.usecs:     period event:      ip sym+0xoff (dso)\n"
 *
 * [cpu] appears when the samples carry PERF_SAMPLE_CPU (as perf does); the
 * period is the sample's, or the event's fixed one (-c N).
 */
#include "cmd/cmds.h"

#include "base/bytes.h"
#include "base/error.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "perfdata/header.h"
#include "perfdata/perfdata.h"
#include "session/session.h"
#include "event/event.h"
#include "event/tracepoint.h"
#include "session/filter.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The fields of perf script's -F, as perf 6.1 prints them (builtin-script.c,
 * process_event): "%16s " comm ("%s " when the call chain follows on lines
 * of its own), "%5d/%-5d " pid/tid (or "%5d " for one), "[%03d] " cpu,
 * "%5lu.%06lu: " time, "%10lu " period, "%*s: " event (padded to the
 * longest name), the tracepoint's fields, "%16lx" addr, then the ip: " "
 * and one frame, or "\n" and a line per frame of the call chain
 * ("\t%16lx", " sym" with "+0xOFF" for symoff, " (dso)"), then "\n". */
enum sfield {
	SF_COMM = 1u << 0, SF_TID = 1u << 1, SF_PID = 1u << 2, SF_TIME = 1u << 3,
	SF_CPU = 1u << 4, SF_EVENT = 1u << 5, SF_IP = 1u << 6, SF_SYM = 1u << 7,
	SF_DSO = 1u << 8, SF_SYMOFF = 1u << 9, SF_PERIOD = 1u << 10, SF_ADDR = 1u << 11,
	SF_TRACE = 1u << 12, SF_SRCLINE = 1u << 13,
	SF_NO_INLINED_MARK = 1u << 31,   /* add_frame_at: " (inlined)" left to the caller */
	SF_DWARF_CHAIN = 1u << 30,       /* add_frame: a frame of a DWARF sample's chain */
};

static const struct { const char *name; unsigned bit; } sfields[] = {
	{ "comm", SF_COMM }, { "tid", SF_TID }, { "pid", SF_PID }, { "time", SF_TIME },
	{ "cpu", SF_CPU }, { "event", SF_EVENT }, { "ip", SF_IP }, { "sym", SF_SYM },
	{ "dso", SF_DSO }, { "symoff", SF_SYMOFF }, { "period", SF_PERIOD },
	{ "addr", SF_ADDR }, { "trace", SF_TRACE }, { "srcline", SF_SRCLINE },
};

/* perf's defaults: a hardware or software event, a tracepoint (its frames
 * added when it has a call chain) */
#define SF_DEFAULT (SF_COMM | SF_TID | SF_CPU | SF_TIME | SF_PERIOD | SF_EVENT | SF_IP | \
		    SF_SYM | SF_SYMOFF | SF_DSO)
#define SF_DEFAULT_TP (SF_COMM | SF_TID | SF_CPU | SF_TIME | SF_EVENT | SF_TRACE)

/* One -F option: "[TYPE:]FIELD,…" (the list replaces the defaults) or
 * "[TYPE:]+FIELD,-FIELD,…" (edits them); TYPE -1: every event. */
struct fspec {
	int type;
	bool set;
	unsigned fields, add, rm;
};

#define MAX_FSPECS 8

/* Hand-made formatting: printf dominated the run time on large files. */
struct out {
	FILE *fp;
	struct strbuf sb;
	int name_width;       /* perf pads event names to the longest one */
	struct tp_formats tps; /* tracepoint formats from HEADER_TRACING_DATA */
	const struct pd_evsel *evsels;
	unsigned *fields;     /* per evsel */
	size_t nr_evsels;
	bool hide_cc;         /* -G: one line per sample, as without call chains */
	bool ns;              /* --ns: the time column in ns (9 decimals), as perf */
	bool no_frames;       /* --max-stack 0: each sample's header, no frame line (perf's) */
	int rel;              /* --reltime (1): since the first sample shown;
				 --deltatime (2): since the one before */
	uint64_t t_first, t_prev;   /* for rel; 0: none shown yet */
	bool time_rel;              /* --reltime with --time: the ranges are
				       shifted by the file's first sample's
				       time (rel_shift) before the first test */
	struct sample_filter *flt;  /* --comms, --pid, --tid, -C, --time, or NULL */
	struct session *sess;       /* srcline's lines */
};

static void add_hex(struct strbuf *sb, uint64_t v, int width)
{
	char buf[32];
	int n = 0;

	do {
		buf[sizeof(buf) - 1 - n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	for (; width > n; width--)
		sb_addch(sb, ' ');
	sb_add(sb, buf + sizeof(buf) - n, (size_t)n);
}

/* v in decimal, padded on the left with pad to width columns */
static void add_dec(struct strbuf *sb, uint64_t v, int width, char pad)
{
	char buf[24];
	int n = 0;

	do {
		buf[sizeof(buf) - 1 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (; width > n; width--)
		sb_addch(sb, pad);
	sb_add(sb, buf + sizeof(buf) - n, (size_t)n);
}

/* a pid or tid as perf's "%*d" (-1 for a task past its exit) */
static void add_int(struct strbuf *sb, uint32_t v, int width)
{
	if (v == UINT32_MAX) {
		for (; width > 2; width--)
			sb_addch(sb, ' ');
		sb_add(sb, "-1", 2);
	} else {
		add_dec(sb, v, width, ' ');
	}
}

/* inlined frames as perf 6.1 prints them by default (session_opts.inline_perf):
 * with the offset of the frame they are part of */
static bool inline_offsets;

/* One frame "ip sym+0xoff (dso)" as f selects (ip, sym, symoff, dso);
 * chain: a call-chain line, whose address perf 6.1 prints relative to its
 * file mapping (kernel, JIT and unmapped addresses as they are), where the
 * sample's own ip (no call chain) is printed as sampled. */
static void add_frame_at(struct strbuf *sb, const struct pk_frame *fr, bool chain, unsigned f);

/* add_frame_at, then with srcline its line on a line of its own ("\n  "
 * and perf's map__fprintf_srcline text; nothing for a frame without a
 * DSO) */
static void add_frame(struct out *o, struct strbuf *sb, const struct pk_frame *fr, bool chain, unsigned f)
{
	const char *l = f & SF_SRCLINE ? session_script_srcline(o->sess, fr) : NULL;

	/* perf's DWARF chains carry a srcline for every user frame: "??:0"
	 * where none is known (frame-pointer chains print none) */
	if ((f & SF_SRCLINE) && !l && (f & SF_DWARF_CHAIN) && !fr->kernel && fr->dso && fr->dso[0] == '/')
		l = "??:0";

	/* an inlined frame's " (inlined)" after its srcline, when there is
	 * one (perf's sample__fprintf_callchain) */
	add_frame_at(sb, fr, chain, l ? f | SF_NO_INLINED_MARK : f);
	if (l) {
		sb_add(sb, "\n  ", 3);
		sb_add_line(sb, l, strlen(l));
		if (fr->inlined)
			sb_add(sb, " (inlined)", 10);
	}
}

static void add_frame_at(struct strbuf *sb, const struct pk_frame *fr, bool chain, unsigned f)
{
	add_hex(sb, chain ? fr->map_ip : fr->ip, 16);
	if (fr->inlined) {     /* as perf shows inlined functions */
		if (f & SF_SYM) {
			sb_addch(sb, ' ');
			sb_add_line(sb, fr->sym, strlen(fr->sym));
			if (inline_offsets && (f & SF_SYMOFF)) {
				sb_add(sb, "+0x", 3);
				add_hex(sb, fr->sym_off, 0);
			}
		}
		if (!(f & SF_NO_INLINED_MARK))
			sb_add(sb, " (inlined)", 10);
		return;
	}
	if (f & SF_SYM) {
		sb_addch(sb, ' ');
		if (fr->sym) {
			sb_add_line(sb, fr->sym, strlen(fr->sym));
			if (f & SF_SYMOFF) {
				sb_add(sb, "+0x", 3);
				add_hex(sb, fr->sym_off, 0);
			}
		} else {
			sb_add(sb, "[unknown]", 9);
		}
	}
	if (f & SF_DSO) {
		sb_add(sb, " (", 2);
		sb_add_line(sb, fr->dso, strlen(fr->dso));
		sb_addch(sb, ')');
	}
}

/* perf_sample__fprintf_start's part of a line, the fields in f: the comm
 * with its bytes as perf prints them (sb_add_line: only a newline, which
 * would start a new sample, escaped) and, unless the call chain follows
 * (cc with the ip field), right-aligned on 16 columns; "%5d/%-5d " pid and
 * tid, "[%03d] " cpu, "%5lu.%06lu: " time (since the first line printed
 * with --reltime, the one before with --deltatime) */
static void print_head(struct out *o, struct strbuf *sb, unsigned f, bool cc, const char *comm, uint32_t pid,
		       uint32_t tid, uint32_t cpu, uint64_t time)
{
	if (f & SF_COMM) {
		size_t at = sb->len;
		sb_add_line(sb, comm, strlen(comm));
		size_t cl = sb->len - at;
		if (!((f & SF_IP) && cc) && cl < 16) {
			sb_grow(sb, 16 - cl);
			memmove(sb->buf + at + 16 - cl, sb->buf + at, cl);
			memset(sb->buf + at, ' ', 16 - cl);
			sb_setlen(sb, at + 16);
		}
		sb_addch(sb, ' ');
	}
	/* " %5u ", "[%03u] ", "%5lu.%06lu: " by hand: printf took a tenth
	 * of the run */
	if (f & SF_PID) {
		add_int(sb, pid, 5);
		if (f & SF_TID) {
			size_t at = sb->len;
			sb_addch(sb, '/');
			add_int(sb, tid, 0);
			while (sb->len - at < 6)   /* "/%-5d" */
				sb_addch(sb, ' ');
		}
		sb_addch(sb, ' ');
	} else if (f & SF_TID) {
		add_int(sb, tid, 5);
		sb_addch(sb, ' ');
	}
	if (f & SF_CPU) {
		sb_addch(sb, '[');
		add_dec(sb, cpu, 3, '0');
		sb_add(sb, "] ", 2);
	}
	if (f & SF_TIME) {
		uint64_t tm = time;

		if (o->rel == 1) {   /* perf's initial_time: the first line printed */
			if (!o->t_first)
				o->t_first = tm;
			tm -= o->t_first;
		} else if (o->rel == 2) {
			tm = o->t_prev ? tm - o->t_prev : 0;
			o->t_prev = time;
		}
		add_dec(sb, tm / 1000000000u, 5, ' ');
		sb_addch(sb, '.');
		if (o->ns)
			add_dec(sb, tm % 1000000000u, 9, '0');
		else
			add_dec(sb, tm % 1000000000u / 1000u, 6, '0');
		sb_add(sb, ": ", 2);
	}
}

/* The -F fields of event ev's lines (perf's defaults for an event the
 * table lacks) */
static unsigned fields_of(const struct out *o, const struct pd_evsel *ev)
{
	size_t ei = ev ? (size_t)(ev - o->evsels) : 0;

	return ei < o->nr_evsels ? o->fields[ei] : SF_DEFAULT;
}

static void flush_some(struct out *o)
{
	if (o->sb.len >= 1 << 20) {
		fwrite(o->sb.buf, 1, o->sb.len, o->fp);
		sb_reset(&o->sb);
	}
}

/* printf's "%#lx": 0x and the hex digits, "0" for zero */
static void add_alt_hex(struct strbuf *sb, uint64_t v)
{
	if (v)
		sb_addf(sb, "%#" PRIx64, v);
	else
		sb_addch(sb, '0');
}

/* An MMAP or MMAP2 record's text after "PERF_RECORD_MMAP2", as perf's
 * perf_event__fprintf_mmap2 (and _mmap) prints it: " PID/TID: [START(LEN)
 * @ PGOFF MAJ:MIN INO INO_GEN]: rwxp FILE" (an MMAP2 with a build-id:
 * "<BUILD-ID>" for the device and inode; an MMAP: "]: x FILE", r for
 * data). */
static void add_mmap(struct strbuf *sb, const struct pk_side_event *e)
{
	const uint8_t *p = (const uint8_t *)e->rec;

	sb_addf(sb, " %d/%d: [", (int)e->pid, (int)e->tid);
	add_alt_hex(sb, rd64(p + 16));   /* start */
	sb_addch(sb, '(');
	add_alt_hex(sb, rd64(p + 24));   /* length */
	sb_add(sb, ") @ ", 4);
	add_alt_hex(sb, rd64(p + 32));   /* page offset */
	if (e->type == PERF_RECORD_MMAP) {
		sb_addf(sb, "]: %c ", e->rec->misc & PERF_RECORD_MISC_MMAP_DATA ? 'r' : 'x');
	} else {
		uint32_t prot = rd32(p + 64), flags = rd32(p + 68);

		if (e->rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			size_t n = p[40] <= 20 ? p[40] : 20;

			sb_add(sb, " <", 2);
			for (size_t i = 0; i < n; i++)
				sb_addf(sb, "%02x", p[44 + i]);
			sb_addch(sb, '>');
		} else {   /* major, minor, inode, inode generation */
			sb_addf(sb, " %02x:%02x %" PRIu64 " %" PRIu64, rd32(p + 40), rd32(p + 44), rd64(p + 48),
				rd64(p + 56));
		}
		sb_addf(sb, "]: %c%c%c%c ", prot & 1 ? 'r' : '-', prot & 2 ? 'w' : '-', prot & 4 ? 'x' : '-',
			flags & 1 ? 's' : 'p');   /* PROT_READ, _WRITE, _EXEC; MAP_SHARED */
	}
	sb_add_line(sb, e->name, strlen(e->name));
	sb_addch(sb, '\n');
}

/* --show-task-events, --show-mmap-events: a COMM, FORK, EXIT, MMAP or
 * MMAP2 record as perf script prints it (process_comm_event and the
 * others: perf_sample__fprintf_start with the fields of the event its
 * sample_id names, then perf_event__fprintf's "PERF_RECORD_COMM exec:
 * NAME:PID/TID", "PERF_RECORD_FORK(PID:TID):(PPID:PTID)",
 * "PERF_RECORD_EXIT(…)", "PERF_RECORD_MMAP2 PID/TID: […]"); of the
 * filters only -C applies, as in perf. */
static int on_side(const struct pk_side_event *e, void *arg)
{
	struct out *o = arg;
	struct strbuf *sb = &o->sb;
	const struct pd_evsel *ev = e->evsel;
	unsigned f = fields_of(o, ev);
	bool cc = ev && (ev->attr.sample_type & PERF_SAMPLE_CALLCHAIN) && !o->hide_cc;

	if (o->flt && !sfilt_keep_cpu(o->flt, e->cpu))
		return 0;
	print_head(o, sb, f, cc, e->comm, e->s_pid, e->s_tid, e->cpu, e->time);
	switch (e->type) {
	case PERF_RECORD_COMM:
		sb_addstr(sb, e->exec ? "PERF_RECORD_COMM exec: " : "PERF_RECORD_COMM: ");
		sb_add_line(sb, e->name, strlen(e->name));
		sb_addf(sb, ":%d/%d\n", (int)e->pid, (int)e->tid);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		sb_addf(sb, "PERF_RECORD_%s(%d:%d):(%d:%d)\n", e->type == PERF_RECORD_FORK ? "FORK" : "EXIT",
			(int)e->pid, (int)e->tid, (int)e->ppid, (int)e->ptid);
		break;
	default:
		sb_addstr(sb, e->type == PERF_RECORD_MMAP2 ? "PERF_RECORD_MMAP2" : "PERF_RECORD_MMAP");
		add_mmap(sb, e);
		break;
	}
	flush_some(o);
	return 0;
}

/* --reltime --time A,B: A and B are seconds since the file's first sample,
 * as perf 6.1 reads them (perf_time__parse_for_ranges_reltime adds the
 * evlist's first_sample_time): the SAMPLE_TIME feature's first time, or
 * without it (perfkit's recordings) the first sample's.  An open end stays
 * open (perf's becomes the first sample's time: nothing kept). */
static void rel_shift(struct sample_filter *f, uint64_t base)
{
	for (size_t i = 0; i < f->nr_times; i++) {
		f->time[i].start += base;
		if (f->time[i].end)
			f->time[i].end += base;
	}
}

static int on_sample(const struct pk_sample *s, void *arg)
{
	struct out *o = arg;
	if (o->time_rel) {   /* the first sample: the ranges' base */
		rel_shift(o->flt, s->time);
		o->time_rel = false;
	}
	struct strbuf *sb = &o->sb;
	const struct pd_evsel *ev = s->raw->evsel;
	uint64_t t = ev->attr.sample_type;
	bool cc = (t & PERF_SAMPLE_CALLCHAIN) && !o->hide_cc;
	unsigned f = fields_of(o, ev);
	const struct tp_format *tpf = NULL;

	if ((f & SF_TRACE) && ev->attr.type == PERF_TYPE_TRACEPOINT && s->raw->raw)
		tpf = tp_formats_find(&o->tps, ev->attr.config);

	if (!f)   /* perf prints nothing for an event left with no field */
		return 0;
	if (o->flt && !sfilt_keep(o->flt, s))
		return 0;
	print_head(o, sb, f, cc, s->tid == UINT32_MAX ? ":-1" : s->comm, s->pid, s->tid, s->cpu, s->time);
	if (f & SF_PERIOD) {
		add_dec(sb, s->period, 10, ' ');
		sb_addch(sb, ' ');
	}
	if (f & SF_EVENT) {
		size_t evl = strlen(s->event);
		for (size_t k = evl; k < (size_t)(o->name_width > 0 ? o->name_width : 0); k++)
			sb_addch(sb, ' ');
		sb_add(sb, s->event, evl);
		sb_add(sb, ": ", 2);
	}
	if (tpf && tp_format_print(tpf, s->raw->raw, s->raw->raw_size, sb))
		tp_format_fields_text(tpf, s->raw->raw, s->raw->raw_size, sb);
	if (f & SF_ADDR)
		add_hex(sb, s->raw->addr, 16);
	if ((f & SF_IP) && cc) {
		/* perf prints no frame for an empty chain, nor a marker for a
		 * chain the kernel cut at its maximum depth */
		size_t nf = s->chain_empty || o->no_frames ? 0 : s->nr_frames - (s->truncated && s->nr_frames);
		sb_addch(sb, '\n');
		for (size_t i = 0; i < nf; i++) {
			sb_addch(sb, '\t');
			add_frame(o, sb, &s->frames[i], true, s->dwarf ? f | SF_DWARF_CHAIN : f);
			sb_addch(sb, '\n');
		}
		/* a DWARF unwind that ran past the stack copy: perf's libdw
		 * unwinder reports one more frame there, of pc 0, which it
		 * prints as the return address 0 - 1 */
		if (nf && s->truncated && (s->raw->evsel->attr.sample_type & PERF_SAMPLE_STACK_USER)) {
			const struct pk_frame cut = { .ip = UINT64_MAX, .map_ip = UINT64_MAX, .dso = "[unknown]" };

			sb_addch(sb, '\t');
			add_frame(o, sb, &cut, true, f);
			sb_addch(sb, '\n');
		}
	} else if ((f & SF_IP) && s->nr_frames) {
		sb_addch(sb, ' ');
		add_frame(o, sb, &s->frames[0], false, f);
	}
	sb_addch(sb, '\n');
	flush_some(o);
	return 0;
}

/* Parse one -F argument into *fs; 0 or -EINVAL with the message recorded. */
static int fspec_parse(const char *arg, struct fspec *fs)
{
	static const struct { const char *name; int type; } types[] = {
		{ "hw", PERF_TYPE_HARDWARE }, { "sw", PERF_TYPE_SOFTWARE },
		{ "trace", PERF_TYPE_TRACEPOINT }, { "raw", PERF_TYPE_RAW },
		{ "break", PERF_TYPE_BREAKPOINT },
	};
	const char *p = arg, *colon = strchr(arg, ':');
	int mode = 0;   /* 0 none yet, 1 a list, 2 edits */

	*fs = (struct fspec){ .type = -1 };
	if (colon) {
		size_t n = (size_t)(colon - arg);
		for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			if (strlen(types[i].name) == n && !memcmp(types[i].name, arg, n))
				fs->type = types[i].type;
		if (fs->type < 0)
			return pk_error(-EINVAL, "-F '%s': unknown event type '%.*s' (hw, sw, trace, raw, break)",
					arg, (int)n, arg);
		p = colon + 1;
	}
	while (*p) {
		size_t n = strcspn(p, ",");
		int m = 1;
		bool plus = true;

		if (!n) {
			p++;
			continue;
		}
		if (*p == '+' || *p == '-') {
			plus = *p == '+';
			m = 2;
			p++;
			n--;
		}
		if (mode && mode != m)
			return pk_error(-EINVAL, "-F '%s': cannot mix +field/-field with a list of fields", arg);
		mode = m;
		unsigned bit = 0;
		for (size_t i = 0; i < sizeof(sfields) / sizeof(sfields[0]); i++)
			if (strlen(sfields[i].name) == n && !memcmp(sfields[i].name, p, n))
				bit = sfields[i].bit;
		if (!bit)
			return pk_error(-EINVAL, "-F '%s': unknown field '%.*s' (known: comm, tid, pid, time, "
					"cpu, event, ip, sym, symoff, dso, period, addr, trace, srcline)", arg, (int)n, p);
		if (m == 1)
			fs->fields |= bit;
		else if (plus)
			fs->add |= bit, fs->rm &= ~bit;
		else
			fs->rm |= bit, fs->add &= ~bit;
		p += n;
	}
	if (!mode)
		return pk_error(-EINVAL, "-F '%s': no field", arg);
	fs->set = mode == 1;
	return 0;
}

/* The fields of each event: perf's defaults less what its samples lack,
 * then the -F options in order; a field named in -F that the samples lack
 * is an error (as perf: it cannot be printed). */
static int fields_resolve(struct out *o, const struct fspec *fs, size_t nfs)
{
	static const struct { unsigned bit; uint64_t type; const char *what; } need[] = {
		{ SF_TID, PERF_SAMPLE_TID, "TID" }, { SF_PID, PERF_SAMPLE_TID, "TID" },
		{ SF_TIME, PERF_SAMPLE_TIME, "TIME" }, { SF_CPU, PERF_SAMPLE_CPU, "CPU" },
		{ SF_IP, PERF_SAMPLE_IP, "IP" }, { SF_ADDR, PERF_SAMPLE_ADDR, "ADDR" },
	};

	for (size_t i = 0; i < o->nr_evsels; i++) {
		const struct perf_event_attr *a = &o->evsels[i].attr;
		bool tp = a->type == PERF_TYPE_TRACEPOINT && tp_formats_find(&o->tps, a->config);
		unsigned f = tp ? SF_DEFAULT_TP : SF_DEFAULT & ~(unsigned)SF_TRACE, named = 0;

		bool user_set = false;
		for (size_t j = 0; j < nfs; j++)
			user_set |= fs[j].type < 0 || fs[j].type == (int)a->type;
		/* perf adds a tracepoint's frames when it has a call chain,
		 * unless -F names fields for tracepoints */
		if (tp && (a->sample_type & PERF_SAMPLE_CALLCHAIN) && !user_set && !o->hide_cc)
			f |= SF_IP | SF_SYM | SF_SYMOFF | SF_DSO;
		for (size_t k = 0; k < sizeof(need) / sizeof(need[0]); k++)
			if (!(a->sample_type & need[k].type))
				f &= ~need[k].bit;
		for (size_t j = 0; j < nfs; j++) {
			int type = (int)a->type == PERF_TYPE_HW_CACHE ? PERF_TYPE_HARDWARE : (int)a->type;
			if (fs[j].type >= 0 && fs[j].type != type)
				continue;
			if (fs[j].set)
				f = fs[j].fields, named = fs[j].fields;
			else
				f = (f | fs[j].add) & ~fs[j].rm, named = (named | fs[j].add) & ~fs[j].rm;
		}
		for (size_t k = 0; k < sizeof(need) / sizeof(need[0]); k++)
			if ((named & need[k].bit) && !(a->sample_type & need[k].type)) {
				const char *fname = "";
				for (size_t q = 0; q < sizeof(sfields) / sizeof(sfields[0]); q++)
					if (sfields[q].bit == need[k].bit)
						fname = sfields[q].name;
				return pk_error(-EINVAL, "samples of event '%s' do not have the %s attribute set: "
						"cannot print field '%s'", o->evsels[i].name, need[k].what, fname);
			}
		if (!tp && (named & SF_TRACE))   /* perf: "'trace' not valid for … events. Ignoring." */
			pk_warn("-F trace: not valid for event '%s' (%s): ignored", o->evsels[i].name,
				a->type == PERF_TYPE_TRACEPOINT ? "a tracepoint without its format in the file" :
				"not a tracepoint");
		if (!tp)
			f &= ~(unsigned)SF_TRACE;
		if ((f & SF_SYMOFF) && !(f & SF_SYM))
			return pk_error(-EINVAL, "-F: symoff needs sym");
		if ((f & SF_SRCLINE) && !(f & SF_IP))   /* perf's refusal */
			return pk_error(-EINVAL, "-F: srcline needs ip (the address whose source line it shows)");
		o->fields[i] = f;
	}
	return 0;
}

static void print_warnings(void)
{
	pk_warnings_print(stderr, "perfkit script");
}

#define SCRIPT_USAGE "usage: perfkit script [-i FILE] [-F [TYPE:][+-]FIELD,...] [-G] [-c|--pid|--tid|-C|--dsos|-S LIST] [--time START,STOP] [--ns] [--reltime|--deltatime] [--show-task-events] [--show-mmap-events] [--max-stack N] [--no-demangle] [--symfs DIR] [--kallsyms FILE] [--[no-]inline] [--header] [--header-only] [-v]\n" \
	"  -i, --input FILE   the perf.data to read (- or a pipe on stdin: perf's pipe mode);\n" \
	"                     default standard input when it is a pipe, else ./perf.data\n" \
	"  -F, --fields LIST  the fields to print, as perf script's -F: comm, tid, pid, time, cpu,\n" \
	"                     event, ip, sym, symoff, dso, period, addr, trace, srcline (the\n" \
	"                     source line of each frame, on a line of its own); a list replaces\n" \
	"                     the defaults, +FIELD/-FIELD edit them; TYPE (hw, sw, trace, raw,\n" \
	"                     break) limits the option to those events\n" \
	"  -G, --hide-call-graph  one line per sample, its own ip only, as perf script -G\n" \
	"  -c, --comms LIST, --pid LIST, --tid LIST  only the samples of these commands,\n" \
	"                     processes or threads (comma-separated), as perf script\n" \
	"  -C, --cpu LIST     only the samples taken on these CPUs (0,2-3)\n" \
	"  --dsos LIST, -S, --symbols LIST  only the samples whose leaf is in these DSOs\n" \
	"                     (file name or path) or symbols (name, or 0x start address)\n" \
	"  --time START,STOP  only the samples in this time range (seconds, as the time\n" \
	"                     column; either end may be left out; ranges separated by blanks)\n" \
	"  --ns               the time column in nanoseconds (9 decimals), as perf script --ns\n" \
	"  --reltime, --deltatime  the time column since the first sample shown, or since\n" \
	"                     the sample shown before, as perf script's\n" \
	"  --show-task-events  also the COMM, FORK and EXIT records, in time order, as perf\n" \
	"  --show-mmap-events  also the MMAP and MMAP2 records, likewise\n" \
	"  --max-stack N      the N innermost frames of each chain (default: perf's,\n" \
	"                     kernel.perf_event_max_stack; 0: the samples' lines, no frame)\n" \
	"  --no-demangle      C++ and Rust names as stored (--demangle: the default)\n" \
	"  --symfs DIR        read the DSOs' files under DIR (DIR/usr/lib/x.so for\n" \
	"                     /usr/lib/x.so), as perf's; kernel symbols then only from\n" \
	"                     --kallsyms\n" \
	"  --kallsyms FILE    kernel symbols from FILE (a copy of /proc/kallsyms)\n" \
	"  --header           the file's header first, as perf report --header prints it\n" \
	"  --header-only      the header alone, as perf script --header-only\n" \
	"  -f, --force        accepted (perfkit does not check the file's owner)\n" \
	"  --inline           inlined functions (from DWARF) in every sample, name (inlined)\n" \
	"  --no-inline        none (by default, as perf 6.1: in --call-graph dwarf samples only)\n" \
	"  -v, --verbose      also the notes perf shows with -v (a missing /tmp/perf-PID.map)\n"

int cmd_script(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "fields", required_argument, NULL, 'F' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "max-stack", required_argument, NULL, 'M' },
		{ "no-demangle", no_argument, NULL, 'D' },
		{ "demangle", no_argument, NULL, 1005 },
		{ "header", no_argument, NULL, 1006 },
		{ "header-only", no_argument, NULL, 1009 },
		{ "force", no_argument, NULL, 'f' },
		{ "inline", no_argument, NULL, 'I' },
		{ "no-inline", no_argument, NULL, 'N' },
		{ "hide-call-graph", no_argument, NULL, 'G' },
		{ "comms", required_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, 'P' },
		{ "tid", required_argument, NULL, 'T' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "dsos", required_argument, NULL, 'd' },
		{ "symbols", required_argument, NULL, 'S' },
		{ "time", required_argument, NULL, 'W' },
		{ "ns", no_argument, NULL, 'n' },
		{ "reltime", no_argument, NULL, 1001 },
		{ "deltatime", no_argument, NULL, 1002 },
		{ "show-task-events", no_argument, NULL, 1003 },
		{ "show-mmap-events", no_argument, NULL, 1004 },
		{ "symfs", required_argument, NULL, 1007 },
		{ "kallsyms", required_argument, NULL, 1008 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* perf 6.1's default: inlined functions in --call-graph dwarf samples */
	struct session_opts so = { .inline_ = false, .inline_perf = true };
	const char *input = pd_default_path();
	struct session *s;
	struct out o;
	struct fspec fs[MAX_FSPECS];
	size_t nfs = 0;
	bool hide_cc = false, ns = false, max0 = false, stack_given = false, header = false, header_only = false;
	uint32_t side = 0;   /* the side-band records shown: 1 << PERF_RECORD_* */
	int rel = 0, rel_both = 0;
	static struct sample_filter flt;   /* 36 kB: not on the stack */

	int c, err;

	memset(&flt, 0, sizeof(flt));   /* a second call (the option fuzz harness) */
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:F:GhvC:c:S:f", opts, NULL)) != -1) {
		switch (c) {
		case 'i': input = optarg; break;
		case 'F':
			if (nfs == MAX_FSPECS) {
				fprintf(stderr, "perfkit script: at most %d -F options\n", MAX_FSPECS);
				return 2;
			}
			if (fspec_parse(optarg, &fs[nfs++])) {
				fprintf(stderr, "perfkit script: %s\n", pk_errmsg());
				return 2;
			}
			break;
		case 'M':
			if (pk_parse_int("--max-stack", optarg, 0, 1000000, &so.max_stack)) {
				fprintf(stderr, "perfkit script: %s\n", pk_errmsg());
				return 2;
			}
			stack_given = true;
			break;
		case 'D': so.no_demangle = true; break;
		case 1005: so.no_demangle = false; break;
		case 1006: header = true; break;
		case 1009: header = header_only = true; break;   /* perf's: the header alone */
		case 'f': break;   /* perf's: no owner check, which perfkit never makes */
		case 'v': pk_set_verbose(1); break;
		case 'G': hide_cc = true; break;
		case 'n': ns = true; break;
		case 1003:
			side |= 1u << PERF_RECORD_COMM | 1u << PERF_RECORD_FORK | 1u << PERF_RECORD_EXIT;
			break;
		case 1004: side |= 1u << PERF_RECORD_MMAP | 1u << PERF_RECORD_MMAP2; break;
		case 1001: case 1002:
			rel_both |= c == 1001 ? 1 : 2;
			rel = c == 1001 ? 1 : 2;
			break;
		case 'c':
			sfilt_names_set(&flt.comms, optarg);
			break;
		case 'd':
			sfilt_names_set(&flt.dsos, optarg);
			break;
		case 'S':
			sfilt_names_set(&flt.syms, optarg);
			break;
		case 'P': case 'T': case 'C': case 'W':
			if (c == 'C' ? sfilt_cpus(&flt, "--cpu", optarg) :
			    c == 'W' ? sfilt_time(&flt, "--time", optarg) :
			    sfilt_ids(&flt, c == 'T', c == 'P' ? "--pid" : "--tid", optarg)) {
				fprintf(stderr, "perfkit script: %s\n", pk_errmsg());
				return 2;
			}
			break;
		case 'I': so.inline_ = true; break;
		case 'N': so.inline_ = so.inline_perf = false; break;
		case 1007: so.symfs = optarg; break;
		case 1008: so.kallsyms = optarg; break;
		case 'h': printf("%s", SCRIPT_USAGE); return 0;
		default: fprintf(stderr, "%s", SCRIPT_USAGE); return 2;
		}
	}
	if (session_opts_check(&so)) {   /* --kallsyms, --symfs */
		fprintf(stderr, "perfkit script: %s\n", pk_errmsg());
		return 1;
	}
	if (optind < argc) {
		fprintf(stderr, "perfkit script: unexpected argument '%s'\nusage: perfkit script [-i FILE]\n",
			argv[optind]);
		return 2;
	}
	if (rel_both == 3) {   /* perf's refusal */
		fprintf(stderr, "perfkit script: --reltime and --deltatime cannot be used together; "
				"use one of them\n");
		return 2;
	}
	if (hide_cc)   /* -G: the sample's own ip and its ELF symbol, as perf */
		so.no_callchain = true, so.inline_ = so.inline_perf = false;
	max0 = so.max_stack == 0 && stack_given;
	if (!so.max_stack)   /* perf's default --max-stack (0 given: no frame printed) */
		so.max_stack = (int)ev_max_stack();
	inline_offsets = so.inline_perf && !so.inline_;
	pk_error_clear();
	err = session_open(&s, input, &so);
	if (err) {
		fprintf(stderr, "perfkit script: %s\n", pk_errmsg());
		print_warnings();
		return 1;
	}
	o.flt = sfilt_active(&flt) ? &flt : NULL;
	if (o.flt && sfilt_check(o.flt, session_file(s), input)) {
		fprintf(stderr, "perfkit script: %s\n", pk_errmsg());
		session_close(s);
		return 1;
	}
	sb_init(&o.sb, 1 << 21);
	if (header) {   /* perf script --header: the header's lines, then the samples */
		struct stat st;

		if (strcmp(input, "-") ? stat(input, &st) : fstat(0, &st))
			st.st_mtime = time(NULL);
		pd_header_text(session_file(s), st.st_mtime, &o.sb);
		if (header_only) {
			int werr = fwrite(o.sb.buf, 1, o.sb.len, stdout) != o.sb.len || fflush(stdout);

			sb_release(&o.sb);
			session_close(s);
			print_warnings();
			return werr ? 1 : 0;
		}
	}
	o.fp = stdout;
	o.sess = s;
	o.name_width = 0;
	o.hide_cc = hide_cc;
	o.ns = ns;
	o.no_frames = max0;
	o.rel = rel;
	o.t_first = o.t_prev = 0;
	o.time_rel = false;
	if (rel == 1 && o.flt && o.flt->nr_times) {
		const struct pd_file *pf = session_file(s);
		const uint8_t *st = pf->feat_body[PD_FEAT_SAMPLE_TIME];

		if (st && pf->feat_size[PD_FEAT_SAMPLE_TIME] >= 16) {
			uint64_t first;

			memcpy(&first, st, sizeof(first));
			rel_shift(o.flt, first);
		} else {
			o.time_rel = true;
		}
	}
	o.tps = (struct tp_formats){ 0 };
	if (session_file(s)->tracing_data &&
	    tp_tracing_data_parse(session_file(s)->tracing_data, session_file(s)->tracing_data_size, &o.tps))
		pk_warn("%s: %s; tracepoint fields are not shown", input, pk_errmsg());
	for (size_t i = 0; i < session_file(s)->nr_evsels; i++) {
		size_t len = strlen(session_file(s)->evsels[i].name);

		if (len > (size_t)o.name_width && len < 256)
			o.name_width = (int)len;
	}
	o.evsels = session_file(s)->evsels;
	o.nr_evsels = session_file(s)->nr_evsels;
	o.fields = xcalloc(o.nr_evsels ? o.nr_evsels : 1, sizeof(*o.fields));
	if (fields_resolve(&o, fs, nfs)) {
		fprintf(stderr, "perfkit script: %s: %s\n", input, pk_errmsg());
		free(o.fields);
		sb_release(&o.sb);
		tp_formats_release(&o.tps);
		session_close(s);
		return 1;
	}
	if (side)
		session_set_side_fn(s, side, on_side, &o);
	err = session_process(s, on_sample, &o);
	free(o.fields);
	fwrite(o.sb.buf, 1, o.sb.len, stdout);
	sb_release(&o.sb);
	tp_formats_release(&o.tps);
	if (err < 0)
		fprintf(stderr, "perfkit script: %s\n", pk_errmsg());
	print_warnings();
	session_close(s);
	return err < 0 ? 1 : 0;
}
