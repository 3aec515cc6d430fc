/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit report — overhead table of a perf.data file, like `perf report
 * --stdio`: per event, rows keyed by the sort keys (default comm,dso,sym)
 * with Children/Self percentages of the event's total period.
 *
 * Children: every distinct row key found in a sample's callchain gets the
 * sample's period once (recursion does not count twice); Self goes to the
 * leaf frame only.  Shown when the file has callchains, unless --no-children.
 *
 * Call graphs (-g, default when the file has callchains): as perf builds
 * them, each row's tree gets the whole chain of the samples whose leaf is
 * the row (Self), and in children mode, for every other row met along the
 * chain (once per sample, in cursor order), the chain from that frame on
 * (towards the leaf in caller order, the root in callee order).  Samples
 * only aggregate unique stacks (callgraph/callgraph.h); trees are built
 * after sorting, for printed rows only.
 */
#include "cmd/cmds.h"

#include "base/error.h"
#include "base/parse.h"
#include "base/hashmap.h"
#include "base/kvsort.h"
#include "base/strbuf.h"
#include "base/strsort.h"
#include "base/thread.h"
#include "perfdata/perfdata.h"
#include "perfdata/header.h"
#include "session/session.h"
#include "session/filter.h"
#include "export/export.h"
#include "export/html.h"
#include "callgraph/callgraph.h"
#include "profile/profile.h"
#include "profile/flat.h"
#include "event/event.h"
#include "event/tracepoint.h"
#include "annotate/annotate.h"
#include "symbol/inline.h"
#include "symbol/perfmap.h"
#include "tui/tui.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <pthread.h>
#include <sys/mman.h>
#include <stdatomic.h>
#include <math.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* perf's sort keys, numbered as the model's (enum prof_key); K_TRACE:
 * perf's "trace", a tracepoint sample's fields as its print format writes
 * them (the model's thread tag); K_CPU: the sample's CPU */
enum sort_key { K_COMM, K_DSO, K_SYM, K_PID, K_TID, K_SRCLINE, K_TRACE, K_CPU, K_MAX };
/* the most sort keys of one report (a row ranks each) */
#define KEYS_MAX 6

/* A row of the table: derived from the event's model (profile/profile.h)
 * for the sort keys, once samples are read. */
struct row {
	const char *comm, *dso, *sym; /* sym NULL: unknown, shown by address */
	uint64_t addr;
	uint64_t at;                  /* with a symbol: its start as mapped (-S
					 0xADDR); without: the first frame's
					 address as sampled */
	uint64_t self, children;
	uint32_t pid, tid;
	uint32_t nr_self;             /* samples whose leaf is the row (-n; 32
					 bits as perf's he_stat.nr_events) */
	bool kernel;
	bool sym_out;                 /* --symbol-filter: the row's entry symbol
					 (entry_sym()) does not hold it */
	uint32_t rank[KEYS_MAX];      /* each sort key's text's rank (cmp_rows) */
};   /* 96 bytes: what only some keys need is in struct hist, by row */

_Static_assert(sizeof(struct row) == 96, "a row of a compile job's 530 k: 51 MB");

struct sortrec;

struct hist {
	struct prof *prof;            /* the samples' stacks */
	struct prof_flat *flat;       /* or, r->flat, the rows alone */
	struct row *rows;             /* derived: hist_derive(); rows[i] is the
					 model's row i, the tag of its stacks */
	size_t nr;
	uint64_t *self_sys;           /* by row (--show-cpu-utilization): the
					 part of Self taken in kernel mode
					 (prof_rows.self_sys), else NULL */
	const char **comm_last;       /* by row: its thread's last comm (pid and
					 tid keys), else NULL */
	const char **srcline;         /* by row: session_srcline() (srcline key),
					 else NULL */
	const char **frame_line;      /* browser: by model frame, session_srcline(),
					 looked up in pauses (rt_lines_ahead) for
					 frames [0, frame_line_at); or NULL */
	size_t frame_line_at;
	const char **trace;           /* by row: its thread's tag, the trace
					 key's text (trace_text), else NULL */
	uint32_t *cpu;                /* by row: its thread's cpu (cpu key),
					 else NULL */
	bool derived;
	uint64_t nr_samples, total;
	uint64_t kept_samples, kept_total; /* those the sample filters kept */
	struct cg_forest *cg;         /* the model's stacks tagged with rows (-g) */
	enum cg_key cg_key;           /* its frames' key (-g's KEY) */
	uint32_t *of_node;            /* the model's row per node, for cg (browser:
					 made by a thread as the rows are copied and
					 ranked, hist_cg_start) */
	pthread_t cg_thread;          /* browser: making cg_made from the model */
	bool cg_building;
	pid_t cg_pid;                 /* the process that started it ('P''s
					 child has no such thread) */
	struct cg_forest *cg_made;
	atomic_bool cg_stop;          /* set: the forest and the trees made of it
					 are given up (the browser's next rows,
					 its end): their threads stop early
					 (cg_forest_set_stop) */
	uint32_t *depth;              /* by row, Children with call graphs: its
					 deepest chain (tie_depth()), else NULL */
	uint32_t *node_depth;         /* by model node, the depth tie_depth()
					 gives its row (browser: kept while the
					 model is; for node_caller's order) */
	bool node_caller;
	uint32_t *rank_of[K_MAX];     /* browser: a key's rank per part id */
	bool rank_full[K_MAX];        /* rank_of ranks every part: rows map
					 their parts as they are made */
	const char **rank_text[K_MAX];/* by sort key index: its text per rank
					 (comm, dso, sym), in texts; or NULL;
					 from rank unk_from[k] on (a symbol key's
					 unknown addresses) rank_text() makes it */
	uint32_t *rank_len[K_MAX];    /* their lengths */
	uint32_t unk_from[K_MAX];     /* the first rank shown as an address */
	uint64_t *unk_addr[K_MAX];    /* by rank - unk_from: its address */
	uint8_t *unk_kernel[K_MAX];   /* and its level, a bit each ('k': 1) */
	struct pk_arena texts;
	size_t rows_cap;              /* rows allocated (kept between derivations:
					 fresh pages cost more than the rows) */
	size_t rows_mapped;           /* rows' own mapping's size (bytes: the
					 flat rows' grown, hist_derive), or 0:
					 malloc'd */
	struct sortrec *ord;          /* the rows' order (sort_rows) */
	size_t nr_sorted;             /* ord's first, in order */
	bool wide;                    /* ranks compared per key */
	unsigned rank_bits[K_MAX];    /* else each key's bits in sortrec.key */
	unsigned id_bits;             /* the row index's bits in sortrec.key */
	size_t split_from;            /* split_unknown(): rows from here on are
					 the cumulative entries of the rows
					 split_x names (by row - split_from) */
	uint32_t *split_x;
	struct hashmap *entry_syms;   /* r->entry_syms: (comm, dso, tid) → the
					 symbol of the frame that made perf's
					 entry (const char *, NULL: none) */
};

/* A column of -F/--fields, or a sort field: 'c' Children (perf's
 * overhead_children), 's' Self (overhead), 'n' samples (sample), 'p' Self's
 * period (period), 'k' the sort key keys[key]. */
struct rfield {
	char kind;
	int key;
};
#define MAX_FIELDS (K_MAX + 4)

struct report {
	enum sort_key keys[K_MAX];
	int nr_keys;
	struct rfield fields[2 * MAX_FIELDS];   /* -F: the columns, or none */
	int nr_fields;
	struct rfield sorts[2 * MAX_FIELDS];    /* -F: the rows' order, field by field */
	int nr_sorts;
	int outer_max;                /* --max-stack N in caller order: the N
					 outermost frames (on_sample) */
	bool children;
	const struct pd_file *f;
	struct session *sess;         /* for session_srcline() */
	struct hist *hists;           /* one per evsel */
	int group;                    /* --group 1, --no-group -1, else 0: perf's
					 group view where the file has groups */
	uint32_t *leader_of;          /* by evsel: its group's leader (itself
					 alone), for the group view; NULL: none */
	char **group_name;            /* by leader: its group's name, or NULL */
	int group_sort_idx;           /* --group-sort-idx: the group's event
					 its rows sort by first (0: the leader) */
	bool group_forced;            /* --group without groups in the file:
					 every event one group, perf's
					 evlist__force_leader */
	bool graph;                   /* call graphs printed */
	bool no_chains;               /* --max-stack 0: the leaf alone, no chain
					 (perf: no cumulative entry, Children =
					 Self) */
	bool show_nr;                 /* -n: perf's Samples column */
	bool sys_sorts;               /* sorts: show_sys's, not -F's */
	bool show_sys;                /* --show-cpu-utilization: perf's sys and
					 usr columns (Self in kernel and user
					 mode) */
	const char *field_sep;        /* -t: between the columns, as perf's
					 symbol_conf.field_sep (NULL: "  ") */
	bool show_period;             /* --show-total-period: perf's Period
					 column (Self's), after Samples */
	bool quiet;                   /* -q: no '#' lines, no warnings */
	bool hide_unresolved;         /* --hide-unresolved: no rows without a symbol */
	struct pk_frame *kept_frames; /* --hide-unresolved: a sample's frames with one */
	size_t nr_kept_alloc;
	const char *sym_filter;       /* --symbol-filter: rows whose symbol holds it
					 (with a comm key only, as perf 6.1:
					 sym_filter_on()) */
	bool cg_order_set;            /* -g's ORDER or -G given: the graphs keep
					 it with Children on and off (else
					 caller with, callee without, as perf) */
	int chain_lv;                 /* the graph order whose levels frames of
					 no map take (chain_levels), -1: none
					 (Self only, no browser's '+') */
	bool split_unk;               /* --stdio with Children and a sym key (no
					 srcline): split_unknown() */
	bool entry_syms;              /* sym_filter_on() with no sym or srcline
					 key: rows' symbols as perf's entries'
					 (hist.entry_syms), read at sample time */
	/* perf's filters: the thread's, CPU and time (-c/--comms, --pid,
	 * --tid, -C, --time: session/filter.h) are applied to each sample;
	 * -d/--dsos and -S/--symbols to each row by its own DSO or symbol
	 * when that is a sort key, else to each sample by its leaf.
	 * Percentages stay of the whole unless --percentage relative. */
	struct sample_filter sf;
	bool sample_filter;           /* some filter is applied per sample */
	bool sf_when;                 /* -C or --time: samples not counted */
	const char *time_arg;         /* --time's argument */
	bool row_dsos, row_syms;      /* --dsos, --symbols applied per row */
	bool row_threads;             /* --pid, --tid, or --comms with no comm
					 key: applied per row, by its first
					 sample's thread (perf marks a sample's
					 entries filtered by its thread, and an
					 entry keeps the mark of the sample that
					 made it) */
	bool relative;                /* --percentage relative */
	bool elide[K_MAX];            /* --stdio: a sort key's column left out, as
					 perf's when its filter names one value
					 ("# comm: NAME" above the table) */
	bool flat;                    /* rows counted without a model (no
					 call graphs, no browser, no srcline):
					 profile/flat.h */
	bool by_ip;                   /* the models' frames per address (srcline) */
	bool keep_models;             /* rows derived again later (the browser) */
	bool by_thread;               /* the models' roots are threads, not comms */
	struct cg_params cg;
	const char *hint_sym;         /* the hottest Self row's symbol (annotate hint) */
	uint64_t hint_self;
	struct ann_leaves *leaves;    /* the browser's 'a' (annotate/annotate.h) */
	bool trace_tags;              /* the samples' threads tagged with their
					 trace text (trace key): trace_text */
	bool by_cpu;                  /* and with their CPU (cpu key) */
	struct tp_formats tps;        /* the file's tracepoint formats */
	struct hashmap trace_names;   /* the trace texts, interned */
	struct hashmap comm_tid;      /* !by_thread, the models' rows: a comm's
					 first thread (comm_shown) */
	const char *comm_tid_last;
	struct strbuf trace_sb;
};

/* Where the kernel's code is read: /proc/kcore (PERFKIT_KCORE=PATH: PATH,
 * the tests' stand-in for a machine where it is not readable). */
static const char *kcore_path(void)
{
	const char *e = getenv("PERFKIT_KCORE");

	return e && *e ? e : "/proc/kcore";
}

/* Whether `perfkit annotate` can disassemble row's function: a user DSO
 * whose file (or its copy by build-id) is there, [vdso] when its image is
 * (session_dso_file), or the kernel when /proc/kcore is readable; JIT
 * maps (not ELF) and unknown DSOs are not. */
static bool annotatable(struct report *r, const struct row *row)
{
	if (row->kernel)
		return access(kcore_path(), R_OK) == 0;
	if (!row->dso || !r->sess)
		return false;
	const char *file = session_dso_file(r->sess, row->dso);
	char magic[4];
	int fd = file ? open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	bool elf = fd >= 0 && read(fd, magic, 4) == 4 && !memcmp(magic, "\x7f" "ELF", 4);

	if (fd >= 0)
		close(fd);
	return elf;   /* not a perf-PID.map of JIT code */
}

/* --export=pprof|speedscope -o FILE: every sample also goes to the exporter
 * (src/lib/export), and the file replaces the table on stdout. */
static struct pk_export *report_export;
static struct export_feed *report_feed;   /* the samples, through the model */
static const char *export_kind, *export_path;

static int write_export(void)
{
	export_add_feed(report_export, report_feed);
	if (!strcmp(export_kind, "pprof"))
		return export_write_pprof(report_export, export_path);
	return export_write_speedscope(report_export, export_path);
}

/* Where the filters apply for r's keys (perf's entries): --comms per row
 * (by the row's first thread) without a comm key, else per sample (a row
 * is one command's, and the order of equal rows is of the samples kept);
 * --pid, --tid per row; --dsos, --symbols per row with their key or
 * without Children (perf keeps or drops an entry by the sample that made
 * it, whose leaf is the row's first frame: `--sort comm --dsos X` keeps a
 * command's row, all its samples, when its first sample's leaf is in X),
 * else by the sample's leaf.  Returns whether that changed. */
static bool place_filters(struct report *r)
{
	bool comm_key = false, threads, dsos = r->sf.dsos.arg && !r->children, syms = r->sf.syms.arg && !r->children;

	for (int k = 0; k < r->nr_keys; k++) {
		comm_key |= r->keys[k] == K_COMM;
		dsos |= r->sf.dsos.arg && r->keys[k] == K_DSO;
		syms |= r->sf.syms.arg && r->keys[k] == K_SYM;
	}
	threads = r->sf.nr_pids || r->sf.nr_tids || (r->sf.comms.arg && !comm_key);
	bool changed = threads != r->row_threads || dsos != r->row_dsos || syms != r->row_syms;

	r->row_threads = threads;
	r->row_dsos = dsos;
	r->row_syms = syms;
	r->sample_filter = r->sf.comms.arg || r->sf.nr_pids || r->sf.nr_tids || (r->sf.dsos.arg && !dsos) ||
			   (r->sf.syms.arg && !syms);
	return changed;
}

/* Whether the filters applied per sample keep s: its thread's, CPU and
 * time (session/filter.h) and, for --dsos and --symbols not applied per
 * row, its leaf's. */
static bool sample_kept(struct report *r, const struct pk_sample *s)
{
	return (r->row_threads || sfilt_keep_thread(&r->sf, s)) && sfilt_keep_leaf(&r->sf, s, !r->row_dsos, !r->row_syms);
}

/* perf 6.1 filters its entries by --symbol-filter as it collapses them
 * (hists__collapse_resort, hists__apply_filters), which it does only when
 * a sort key needs it (se_collapse): of perfkit's keys, comm alone.  With
 * -s dso, sym or pid the filter leaves every row (checked against perf
 * 6.1: `perf report -s dso --symbol-filter=xyzzy` prints them all). */
static bool sym_filter_on(const struct report *r)
{
	for (int k = 0; r->sym_filter && k < r->nr_keys; k++)
		if (r->keys[k] == K_COMM)
			return true;
	return false;
}

/* The symbol perf filters an entry by is that of the frame which made the
 * entry (hist_entry.ms, never changed as samples add to it): in sample
 * order, a sample's leaf and then (Children) its callers in the call
 * graph's order, root first in caller order (hist_entry_iter's cumulative
 * entries walk the callchain cursor, made in that order).  With a symbol key every frame
 * of a row has the row's symbol; without one, the first frame to have the
 * row's keys is kept here as the samples are read: keyed by comm, and DSO
 * and thread when they are keys (struct entry_key). */
struct entry_key {
	const char *comm, *dso;
	uint32_t tid;
};

static struct entry_key entry_key_of(const struct report *r, const char *comm, const char *dso, uint32_t tid)
{
	struct entry_key k;

	memset(&k, 0, sizeof(k));   /* the padding too: the map hashes the bytes */
	k.comm = comm;
	for (int i = 0; i < r->nr_keys; i++) {
		if (r->keys[i] == K_DSO)
			k.dso = dso;
		else if (r->keys[i] == K_PID || r->keys[i] == K_TID)
			k.tid = tid;
	}
	return k;
}

static void entry_syms_add(struct report *r, struct hist *h, const struct pk_sample *s,
			   const struct pk_frame *frames, size_t n)
{
	if (!h->entry_syms) {
		h->entry_syms = xmalloc(sizeof(*h->entry_syms));
		hm_init(h->entry_syms);
	}
	bool caller = r->cg.order == CG_CALLER;

	for (size_t j = 0; j < (r->children ? n : 1); j++) {
		size_t i = !j || !caller ? j : n - j;   /* the leaf, then the chain's order */
		struct entry_key k = entry_key_of(r, s->comm, frames[i].dso, (uint32_t)s->tid);
		int created;
		struct hm_entry *e = hm_upsert(h->entry_syms, &k, sizeof(k), &created);

		if (created)
			e->val.ptr = (void *)frames[i].sym;
	}
}

/* Whether a row is shown by the filters applied per row (symf: the
 * symbol filter too). */
static bool row_kept_by(const struct report *r, const struct row *row, bool symf)
{
	if (r->hide_unresolved && (!row->sym || (!row->addr && !row->at && !strcmp(row->sym, "[truncated]"))))
		return false;   /* perfkit's "[truncated]" marker too */
	if (symf && row->sym_out && sym_filter_on(r))
		return false;   /* perf's hists__filter_by_symbol */
	if (r->row_dsos && !sfilt_dso_listed(&r->sf, row->dso))
		return false;
	if (r->row_threads && !sfilt_thread_listed(&r->sf, row->comm, row->pid, row->tid))
		return false;
	if (r->row_syms && !sfilt_sym_listed(&r->sf, row->sym, row->at))
		return false;
	return true;
}

static bool row_kept(const struct report *r, const struct row *row)
{
	return row_kept_by(r, row, true);
}

/* r->kept_frames with room for n frames (its frames not kept). */
static struct pk_frame *kept_room(struct report *r, size_t n)
{
	if (r->nr_kept_alloc < n) {
		free(r->kept_frames);
		r->nr_kept_alloc = n * 2;
		r->kept_frames = xmalloc(r->nr_kept_alloc * sizeof(*r->kept_frames));
	}
	return r->kept_frames;
}

/* A frame of no map ([unknown]): perf's entry for it shows no level of
 * its own.  perf makes a sample's entries with Children from one
 * addr_location, each caller's filled in by fill_callchain_info, which
 * sets the level from the caller's map and leaves it as it was when there
 * is none: such a frame takes the level of the frame before it in the
 * chain's order (caller order, perf's with Children: the nearest mapped
 * frame toward the root, callee order: toward the leaf), or the sample's
 * when there is none.  The frames, leaf first, with those levels: frames
 * itself, or a copy in r->kept_frames. */
static const struct pk_frame *chain_levels(struct report *r, const struct pk_frame *frames, size_t n, bool marker)
{
	bool caller = r->chain_lv == CG_CALLER, lvl = frames[0].kernel;
	struct pk_frame *out = NULL;
	size_t nc = n - marker;   /* perfkit's "[truncated]" (the outermost): not perf's, no level */

	for (size_t j = 1; j < nc; j++) {
		size_t i = caller ? nc - j : j;
		const struct pk_frame *fr = &frames[i];

		if (fr->sym || strcmp(fr->dso, "[unknown]")) {
			lvl = fr->kernel;
			continue;
		}
		if (fr->kernel == lvl)
			continue;
		if (!out && frames == r->kept_frames) {
			out = r->kept_frames;
		} else if (!out) {
			out = memcpy(kept_room(r, n), frames, n * sizeof(*frames));
		}
		out[i].kernel = lvl;
	}
	return out ? out : frames;
}

/* What the trace key and the Command column's widths kept (trace_text,
 * comm_shown). */
static void report_names_free(struct report *r)
{
	tp_formats_release(&r->tps);
	hm_release(&r->trace_names);
	sb_release(&r->trace_sb);
	hm_release(&r->comm_tid);
}

/* The samples' threads read from here on with what the keys show of
 * them: their trace text (trace key), their CPU (cpu key); a model read
 * with them serves keys without them too. */
static void keys_tag_threads(struct report *r)
{
	for (int k = 0; k < r->nr_keys; k++) {
		r->trace_tags |= r->keys[k] == K_TRACE;
		r->by_cpu |= r->keys[k] == K_CPU;
	}
}

/* A tracepoint sample's text for the trace key, as perf's trace output:
 * its print format's (tracepoint.h), else its fields, interned; NULL for
 * another event's sample (shown "N/A", as perf shows it). */
static const char *trace_text(struct report *r, const struct pk_sample *s)
{
	const struct pd_evsel *ev = s->raw->evsel;
	const struct tp_format *tpf;

	if (ev->attr.type != PERF_TYPE_TRACEPOINT || !s->raw->raw ||
	    !(tpf = tp_formats_find(&r->tps, ev->attr.config)))
		return NULL;
	sb_reset(&r->trace_sb);
	if (tp_format_print(tpf, s->raw->raw, s->raw->raw_size, &r->trace_sb))
		tp_format_fields_text(tpf, s->raw->raw, s->raw->raw_size, &r->trace_sb);
	return hm_intern(&r->trace_names, r->trace_sb.buf ? r->trace_sb.buf : "", r->trace_sb.len);
}

/* The cpu key's value: the sample's CPU, -1 when the event records none
 * (perf's sample.cpu then). */
static uint32_t sample_cpu(const struct pk_sample *s)
{
	return s->raw->evsel->attr.sample_type & PERF_SAMPLE_CPU ? s->cpu : UINT32_MAX;
}

static int on_sample(const struct pk_sample *s, void *arg)
{
	struct report *r = arg;
	struct hist *h = &r->hists[s->raw->evsel - r->f->evsels];

	if (r->sf_when && !sfilt_keep_when(&r->sf, s))
		return 0;   /* perf report: not counted at all */
	h->nr_samples++;
	h->total += s->period;
	if (r->sample_filter && !sample_kept(r, s))
		return 0;   /* counted in the total, as perf's absolute percentages */
	h->kept_samples++;
	h->kept_total += s->period;
	if (r->leaves)
		ann_leaves_add(r->leaves, s);
	if (report_feed) {   /* the file replaces the table: no rows */
		export_feed_add(report_feed, s);
		return 0;
	}
	if (!s->nr_frames)
		return 0;
	const struct pk_frame *frames = s->frames;
	size_t nr_frames = s->nr_frames;

	if (r->hide_unresolved && nr_frames > 1) {
		/* perf's add_callchain_ip drops the frames without a symbol
		 * from the chain (the leaf's row is hidden by row_kept) */
		kept_room(r, nr_frames)[0] = s->frames[0];
		nr_frames = 1;
		/* perfkit's "[truncated]" marker is unresolved too: perf has none */
		for (size_t i = 1; i < s->nr_frames - s->truncated; i++)
			if (s->frames[i].sym)
				r->kept_frames[nr_frames++] = s->frames[i];
		frames = r->kept_frames;
	}
	/* the chain's real frames: perfkit's "[truncated]" marker (a chain
	 * the kernel cut) is none of perf's */
	size_t real = nr_frames - (s->truncated && frames[nr_frames - 1].sym &&
				   !strcmp(frames[nr_frames - 1].sym, "[truncated]"));

	if (r->outer_max && s->dwarf) {
		/* --max-stack N in caller order, a DWARF sample: perf's cursor
		 * holds the N innermost unwound user frames (its unwinder
		 * stops at N whatever the order) and the N outermost kernel
		 * ones (thread__resolve_callchain_sample, ORDER_CALLER); the
		 * leaf keeps its own entry when they leave it out */
		size_t n = (size_t)r->outer_max, nk = 0;

		while (nk < real && frames[nk].kernel)
			nk++;
		size_t nu = real - nk, kfrom = nk > n ? nk - n : 0, ku = nu > n ? n : nu;

		if (kfrom || ku < nu) {
			size_t pre = kfrom > 0, n2 = pre + (nk - kfrom) + ku;
			struct pk_frame f0 = frames[0], *k = kept_room(r, n2);   /* n2 <= real: frames stays */

			/* frames may be k itself: every move goes left */
			memmove(k + pre, frames + kfrom, (nk - kfrom) * sizeof(*k));
			memmove(k + pre + (nk - kfrom), frames + nk, ku * sizeof(*k));
			k[0] = pre ? f0 : k[0];
			frames = k;
			nr_frames = n2;
		}
	} else if (r->outer_max && real > (size_t)r->outer_max + 1) {
		/* --max-stack N in caller order (Children's default): perf's
		 * cursor holds the N outermost frames of the chain
		 * (thread__resolve_callchain_sample, ORDER_CALLER), the leaf
		 * keeping its own entry: the leaf, then those N */
		struct pk_frame *k = kept_room(r, (size_t)r->outer_max + 1);

		if (k != frames)
			k[0] = frames[0];
		memmove(k + 1, frames + real - (size_t)r->outer_max, (size_t)r->outer_max * sizeof(*k));
		frames = k;
		nr_frames = (size_t)r->outer_max + 1;
	}
	if (r->chain_lv >= 0 && nr_frames > 1)
		frames = chain_levels(r, frames, nr_frames, s->truncated && frames[nr_frames - 1].sym &&
							     !strcmp(frames[nr_frames - 1].sym, "[truncated]"));
	if (r->entry_syms)
		entry_syms_add(r, h, s, frames, nr_frames);
	const char *tag = r->trace_tags ? trace_text(r, s) : NULL;

	if (r->flat) {
		if (!h->flat) {
			h->flat = prof_flat_new((const enum prof_key *)r->keys, r->nr_keys, r->children);
			if (r->show_sys)
				prof_flat_want_sys(h->flat);
		}
		/* the real thread: flat keys by it only for pid and tid, and
		 * shares a thread's outer callers with its previous sample */
		const struct prof_thread th = { s->comm, s->pid, s->tid, tag, r->by_cpu ? sample_cpu(s) : 0 };

		prof_flat_add(h->flat, &th, frames, nr_frames, s->period);
		return 0;
	}
	if (!h->prof)
		h->prof = prof_new((r->by_ip ? PROF_BY_IP : 0) | (r->keep_models ? PROF_REDERIVE : 0) |
				   (r->show_sys ? PROF_SYS : 0));
	if (!r->by_thread && s->comm != r->comm_tid_last) {   /* comm_shown's */
		int created;
		struct hm_entry *e = hm_upsert(&r->comm_tid, &s->comm, sizeof(s->comm), &created);

		if (created)
			e->val.u = s->tid;
		r->comm_tid_last = s->comm;
	}
	/* stacks per thread only when a key, the browser or perf's order of
	 * equal rows reads threads: else per comm, fewer nodes */
	const struct prof_thread th = { s->comm, r->by_thread ? s->pid : 0, r->by_thread ? s->tid : 0, tag,
					r->by_cpu ? sample_cpu(s) : 0 };

	prof_add_thread(h->prof, &th, frames, nr_frames, s->period);
	return 0;
}

static const char *dso_short(const char *dso)
{
	const char *slash;

	if (dso[0] != '/')
		return dso;
	slash = strrchr(dso, '/');
	return slash ? slash + 1 : dso;
}

/* A row's symbol text; without a symbol its address: perf's, which is the
 * address in the DSO's file for a sampled ip (the row has Self) and the
 * address as sampled for a caller's return address only (perf's entries
 * from call chains keep the chain's ip). */
/* addr_text()'s length: "[l] ", "0x" but for 0, 16 digits */
static size_t addr_text_len(uint64_t addr)
{
	return 4 + (addr ? 2 : 0) + 16;
}

/* "[%c] %-#.16" PRIx64 without printf: 23 bytes at most with the NUL;
 * returns the text's length (addr_text_len()) */
static size_t addr_text(char *buf, bool kernel, uint64_t addr)
{
	char *p = buf;

	*p++ = '[';
	*p++ = kernel ? 'k' : '.';
	*p++ = ']';
	*p++ = ' ';
	if (addr) {
		*p++ = '0';
		*p++ = 'x';
	}
	for (int sh = 60; sh >= 0; sh -= 4)
		*p++ = "0123456789abcdef"[(addr >> sh) & 0xf];
	*p = '\0';
	return (size_t)(p - buf);
}

static void sym_text(const struct row *row, char *buf, size_t size)
{
	uint64_t addr = !row->sym && !row->kernel && !row->self && row->children ? row->at : row->addr;

	if (row->sym)
		snprintf(buf, size, "[%c] %s", row->kernel ? 'k' : '.', row->sym);
	else if (size >= 24)
		addr_text(buf, row->kernel, addr);
	else
		snprintf(buf, size, "[%c] %-#.16" PRIx64, row->kernel ? 'k' : '.', addr);
}

/* perf's override of a thread's ":TID" by its first COMM (session_comm_renamed):
 * the models' threads renamed once all samples are read, so that the
 * samples before the COMM count under the name it gave; a comm's first
 * thread (comm_shown) is the placeholder's when the name had none. */
static const char *renamed_comm(const void *sess, const char *comm)
{
	return session_comm_renamed(sess, comm);
}

static void rename_comms(struct report *r)
{
	for (size_t i = 0; i < r->f->nr_evsels; i++) {
		if (r->hists[i].prof)
			prof_rename_comms(r->hists[i].prof, renamed_comm, r->sess);
		if (r->hists[i].flat)
			prof_flat_rename_comms(r->hists[i].flat, renamed_comm, r->sess);
	}
	for (size_t i = 0; i < r->comm_tid.nr; i++) {
		const char *was = *(const char *const *)r->comm_tid.entries[i].key;
		const char *now = session_comm_renamed(r->sess, was);
		int created;

		if (now == was)
			continue;
		uint64_t tid = r->comm_tid.entries[i].val.u;
		struct hm_entry *e = hm_upsert(&r->comm_tid, &now, sizeof(now), &created);

		if (created)
			e->val.u = tid;
	}
	r->comm_tid_last = NULL;
}

/* The comm perf sizes the Command column by (hists__calc_col_len: the
 * length of the row's thread's comm, thread__comm_len, made once all
 * samples are read, so the thread's last): a row of a comm the thread had
 * before an exec or a prctl(PR_SET_NAME) prints cut to that width
 * ("perf-exec" as "perf-exe" beside "burn2to1"), the column no wider.
 * The row's own comm when its thread is not known. */
static const char *comm_shown(const struct report *r, const struct row *row)
{
	uint32_t tid = row->tid;

	if (!r->by_thread && !r->flat) {   /* the model's rows are per comm: its first thread */
		const struct hm_entry *e = hm_find(&r->comm_tid, &row->comm, sizeof(row->comm));

		if (e)
			tid = (uint32_t)e->val.u;
	}
	const char *c = r->sess ? session_thread_comm(r->sess, tid) : NULL;

	return c ? c : row->comm;
}

/* Its length as the column prints it (key_text escapes control bytes) */
static size_t comm_shown_len(const struct report *r, const struct row *row)
{
	const char *c = comm_shown(r, row);
	size_t n = strlen(c);
	char buf[1024];

	if (!str_needs_term_escape(c, n) || n >= sizeof(buf) / 4)
		return n;
	memcpy(buf, c, n + 1);
	str_term_escape_buf(buf, sizeof(buf));
	return strlen(buf);
}

/* Row row's text of key k, escaped (a name with a newline or an escape
 * sequence stays on its row), in a buffer of key_text's own, valid until
 * its next call: its callers copy or print it at once, and the browser's
 * helper threads make none.  The buffer holds a whole name, as perf prints
 * it (C++ template names run to kilobytes; the hostile names' tests to
 * 100 kB; a 512-byte one cut them and different names read alike). */
static const char *key_text(const struct hist *h, const struct row *row, enum sort_key k)
{
	static char buf[256u << 10];
	const size_t size = sizeof(buf);
	size_t i = (size_t)(row - h->rows);

	switch (k) {
	case K_COMM: snprintf(buf, size, "%s", row->comm); break;
	case K_DSO:
		if (!perfmap_jit_name(row->dso, buf, size))   /* perf's dso__set_basename */
			snprintf(buf, size, "%s", dso_short(row->dso));
		break;
	case K_SYM: sym_text(row, buf, size); break;
	case K_PID: /* fall through */
	case K_TID:
		snprintf(buf, size, "%7" PRId32 ":%s", (int32_t)row->tid,   /* perf's %7d */
			 h->comm_last && h->comm_last[i] ? h->comm_last[i] : row->comm);
		break;
	case K_SRCLINE: snprintf(buf, size, "%s", h->srcline ? h->srcline[i] : ""); break;
	case K_TRACE: snprintf(buf, size, "%s", h->trace && h->trace[i] ? h->trace[i] : "N/A"); break;
	case K_CPU:   /* perf's "%0*.*d", 3 wide: -001 for a file without CPUs */
		snprintf(buf, size, "%.3" PRId32, h->cpu ? (int32_t)h->cpu[i] : 0);
		break;
	default: buf[0] = '\0'; break;
	}
	str_term_escape_buf(buf, size);
	return buf;
}

/* Which rows' trace texts widen their column, as in perf: an entry's
 * trace output is made (and counted in hists__calc_col_len) only when
 * the entries' compare reaches the trace key, i.e. when another sample
 * has the same values of the keys before it (all samples when it is the
 * first key), or with Children, where a sample's callers' entries are
 * compared with its own (iter_add_next_cumulative_entry), and only for a
 * tracepoint's ("N/A" rows have none).  By row, or NULL when the report
 * has no trace key. */
static uint8_t *trace_sized(const struct report *r, const struct hist *h)
{
	int kt = 0;

	while (kt < r->nr_keys && r->keys[kt] != K_TRACE)
		kt++;
	if (kt == r->nr_keys || !h->trace)
		return NULL;
	uint8_t *v = xcalloc(h->nr + 1, 1);

	if (!kt || r->children) {   /* every entry compared on it, once there are two */
		for (size_t i = 0; i < h->nr; i++)
			v[i] = (h->kept_samples >= 2 || r->children) && h->trace[i];
		return v;
	}
	struct hashmap groups;   /* the keys before: their samples */

	hm_init(&groups);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < h->nr; i++) {
			const struct row *row = &h->rows[i];
			struct hm_entry *e;
			int created;

			e = hm_upsert(&groups, row->rank, (size_t)kt * sizeof(row->rank[0]), &created);
			if (!pass)   /* a row is one sample at least */
				e->val.u += row->nr_self ? row->nr_self : 1;
			else
				v[i] = e->val.u >= 2 && h->trace[i];
		}
	hm_release(&groups);
	return v;
}

/* perf report's first line (without --header) */
static const char header_note[] =
	"# To display the perf.data header info, please use --header/--header-only options.\n";

/* perf's layout of key k's column: padded to its width when it is the
 * last one (the "%-*.*s" of perf's comm, dso and pid columns; a symbol,
 * source line or trace is not), and at least unres_width(r, k) wide when a row has
 * no symbol (hists__set_unres_dso_col_len: 16 for the DSO, not with
 * --dsos nor -t) */
static bool key_pads_last(enum sort_key k)
{
	return k != K_SYM && k != K_SRCLINE && k != K_TRACE;
}

static size_t unres_width(const struct report *r, enum sort_key k)
{
	return k == K_DSO && !r->sf.dsos.arg && !r->field_sep ? 16 : 0;
}

static const char *key_header(enum sort_key k)
{
	static const char *const names[] = { "Command", "Shared Object", "Symbol", "    Pid:Command",
					     "    Tid:Command", "Source:Line", "Trace output", "CPU" };

	return names[k];
}

/* The srcline text of a frame of h's model: looked up ahead in a pause
 * (h->frame_line), else now. */
static const char *frame_srcline(const struct report *r, const struct hist *h, const struct pk_frame *fr)
{
	size_t i = h->prof && h->frame_line ? (size_t)(fr - prof_frame(h->prof, 0)) : SIZE_MAX;

	return i < h->frame_line_at ? h->frame_line[i] : session_srcline(r->sess, fr);
}

struct line_arg {
	const struct report *r;
	const struct hist *h;
};

static const void *line_of(void *arg, const struct pk_frame *fr)
{
	const struct line_arg *la = arg;

	return frame_srcline(la->r, la->h, fr);
}

/* A symbol key's value with no symbol, shown by address ("[l] 0x…",
 * sym_text): its text's order is the address's, then the level's ('.'
 * before 'k'), so these sort as integers (pk_kv_sort), not as texts.  A
 * record: k the address, v the value's part id << 1 | kernel. */
static uint64_t unk_addr(const struct row *row)
{
	return !row->kernel && !row->self && row->children ? row->at : row->addr;   /* sym_text's */
}

/* An unknown address's sort key: the address with its top bit flipped, so
 * that addresses sort as signed integers, as perf's entries of unknown
 * symbols do (sort__sym_cmp: (int64_t)(right->ip - left->ip)): garbage
 * addresses of 2^63 and more before the small ones. */
#define UNK_SIGN (1ull << 63)

/* v in (address, level) order: the level first ('.' records, then 'k'),
 * then by address, stably */
static void unk_sort(struct pk_kv *v, size_t n)
{
	struct pk_kv *tmp = xmalloc_huge((n + 1) * sizeof(*tmp));
	size_t nk = 0, at[2];

	for (size_t i = 0; i < n; i++)
		nk += v[i].v & 1;
	at[0] = 0;
	at[1] = n - nk;
	for (size_t i = 0; i < n; i++)
		tmp[at[v[i].v & 1]++] = v[i];
	memcpy(v, tmp, n * sizeof(*v));
	free(tmp);
	pk_kv_sort(v, n);
}

/* Each row's rank of key k's text: rank[k] holds the value's part id
 * (profile.h) on entry, its text's rank on return; the text of each
 * distinct value is made once and sorted (the rows then sort on
 * integers).  perf's order (hist_entry__sort: sort_dso's cmp and
 * sort__sym_sort, whose cmp_null puts a NULL map or symbol last): a DSO
 * "[unknown]", perf's no map, after every named one; a symbol by its name
 * alone, "[k] a" before "[.] b", and the rows with no symbol (shown as an
 * address) after every named one, by address.  The texts of comm, dso and sym (a text per value) are kept
 * by rank for printing (h->rank_text). */
static void rank_key(struct report *r, struct hist *h, size_t np, int k, bool cache)
{
	enum sort_key key = r->keys[k];
	uint32_t *rep = xmalloc_huge((np + 1) * sizeof(*rep));
	uint32_t *rank = xmalloc_huge((np + 1) * sizeof(*rank));
	struct pk_strrec *pt = xmalloc_huge((np + 1) * sizeof(*pt));
	/* a symbol's sort text follows its shown one: "[l] NAME\0NAME\x01l\0"
	 * (no array of the shown texts by part) */
	bool shown = key == K_SYM;
	/* a symbol key's unknown values fill pt's memory from its end
	 * (records of one size; named ones from the front) */
	struct pk_kv *unk = key == K_SYM ? (struct pk_kv *)(void *)pt : NULL;

	_Static_assert(sizeof(struct pk_kv) == sizeof(struct pk_strrec), "pt holds unk records");
	const char **by_rank = NULL;
	uint32_t *len_by_rank = NULL;
	size_t nt = 0, nm = 0, n = 0;

	if (cache && h->rank_of[key]) {   /* the parts' ranks of an earlier call */
		uint32_t *ro = h->rank_of[key];
		size_t i = 0;

		while (i < h->nr && ro[h->rows[i].rank[k]] != UINT32_MAX)
			i++;
		if (i == h->nr) {   /* every value of these rows is ranked */
			for (i = 0; i < h->nr; i++)
				h->rows[i].rank[k] = ro[h->rows[i].rank[k]];
			free(rep);
			free(rank);
			free(pt);
			return;
		}
	}
	memset(rank, 0xff, (np + 1) * sizeof(*rank));
	memset(rep, 0xff, (np + 1) * sizeof(*rep));
	for (size_t i = 0; i < h->nr; i++)
		if (rep[h->rows[i].rank[k]] == UINT32_MAX)
			rep[h->rows[i].rank[k]] = (uint32_t)i;
	/* an address with no symbol is one part whatever its level (perf's
	 * entries compare by address alone) but each row shows its own
	 * level, that of its first frame (perf's entry's): a part whose rows
	 * have both levels gets a second rank, for the rows of the level its
	 * first row has not (alt: the first such row, then that rank); the
	 * browser (cache) keeps a rank a part */
	uint32_t *alt = NULL;
	size_t nalt = 0;

	if (unk && !cache) {
		for (size_t i = 0; i < h->nr; i++) {
			uint32_t p = h->rows[i].rank[k];
			const struct row *r0 = &h->rows[rep[p]];

			if (r0->sym || h->rows[i].kernel == r0->kernel)
				continue;
			if (!alt) {
				alt = xmalloc_huge((np + 1) * sizeof(*alt));
				memset(alt, 0xff, (np + 1) * sizeof(*alt));
			}
			if (alt[p] == UINT32_MAX) {
				alt[p] = (uint32_t)i;
				nalt++;
			}
		}
		if (nalt) {
			pt = xrealloc(pt, (np + nalt + 1) * sizeof(*pt));
			unk = (struct pk_kv *)(void *)pt;
		}
	}
	size_t nb = np + nalt;   /* unk's records fill pt from here down */
	/* named values from the front, no-map ones from the back */
	for (size_t p = 0; p < np; p++) {
		const struct row *row = &h->rows[rep[p]];
		struct pk_strrec x;

		if (rep[p] == UINT32_MAX)   /* a value of no row (a caller's, Self only) */
			continue;
		if (unk && !row->sym) {   /* by address, after every named one */
			unk[nb - ++nm] = (struct pk_kv){ unk_addr(row) ^ UNK_SIGN, (uint64_t)p << 2 | row->kernel };
			if (alt && alt[p] != UINT32_MAX) {
				const struct row *ar = &h->rows[alt[p]];

				unk[nb - ++nm] = (struct pk_kv){ unk_addr(ar) ^ UNK_SIGN, (uint64_t)p << 2 | 2 | ar->kernel };
			}
			continue;
		}
		const char *buf = key_text(h, row, key);

		if (shown) {   /* "[l] NAME" sorts as "NAME\x01l" (escaped: no \x01 inside) */
			size_t len = strlen(buf);
			char *s = pk_arena_alloc(&h->texts, 2 * len);   /* len + 1, len - 4, 3 */

			memcpy(s, buf, len + 1);
			memcpy(s + len + 1, buf + 4, len - 4);
			s[2 * len - 3] = '\x01';
			s[2 * len - 2] = buf[1];
			s[2 * len - 1] = '\0';
			x = (struct pk_strrec){ s + len + 1, (uint32_t)p };
		} else {
			x = (struct pk_strrec){ pk_arena_memdup0(&h->texts, buf, strlen(buf)), (uint32_t)p };
		}
		if ((key == K_DSO && !strcmp(row->dso, "[unknown]")) || (key == K_SYM && !row->sym))
			pt[np - ++nm] = x;
		else
			pt[nt++] = x;
	}
	free(rep);   /* before the sort's buffers */
	if (unk) {
		unk += nb - nm;
		unk_sort(unk, nm);
	} else {
		memmove(pt + nt, pt + np - nm, nm * sizeof(*pt));
		pk_strsort(pt + nt, nm);
	}
	pk_strsort(pt, nt);
	if (key == K_COMM || key == K_DSO || key == K_SYM) {   /* the unknown addresses' apart */
		by_rank = xmalloc_huge((nt + (unk ? 0 : nm) + 1) * sizeof(*by_rank));
		len_by_rank = xmalloc_huge((nt + (unk ? 0 : nm) + 1) * sizeof(*len_by_rank));
	}
	for (size_t p = 0; p < nt + (unk ? 0 : nm); p++) {
		if (p && (p == nt || strcmp(pt[p - 1].s, pt[p].s)))
			n++;
		rank[pt[p].id] = (uint32_t)n;
		if (by_rank) {
			/* the shown text: before the sort text, 2 bytes longer */
			by_rank[n] = shown ? pt[p].s - strlen(pt[p].s) - 3 : pt[p].s;
			len_by_rank[n] = (uint32_t)strlen(by_rank[n]);
		}
	}
	/* the unknown addresses: their texts made as they are printed
	 * (rank_text), 644 k of a compile job's 667 k rows: 22 bytes each
	 * and a pointer not kept */
	free(h->unk_addr[k]);
	free(h->unk_kernel[k]);
	h->unk_addr[k] = NULL;
	h->unk_kernel[k] = NULL;
	h->unk_from[k] = UINT32_MAX;
	if (unk && nm) {
		size_t nu = 0;

		h->unk_from[k] = (uint32_t)(nt ? n + 1 : 0);
		h->unk_addr[k] = xmalloc_huge(nm * sizeof(*h->unk_addr[k]));
		h->unk_kernel[k] = xcalloc(nm / 8 + 1, 1);
		for (size_t u = 0; u < nm; u++) {   /* equal address and level: one rank */
			uint32_t *to = unk[u].v & 2 ? &alt[unk[u].v >> 2] : &rank[unk[u].v >> 2];

			if (u && unk[u].k == unk[u - 1].k && (unk[u].v & 1) == (unk[u - 1].v & 1)) {
				*to = h->unk_from[k] + (uint32_t)(nu - 1);
				continue;
			}
			*to = h->unk_from[k] + (uint32_t)nu;
			h->unk_addr[k][nu] = unk[u].k ^ UNK_SIGN;
			h->unk_kernel[k][nu / 8] |= (uint8_t)((unk[u].v & 1) << (nu % 8));
			nu++;
		}
	}
	for (size_t i = 0; i < h->nr; i++) {
		uint32_t p = h->rows[i].rank[k];

		/* alt[p] is a rank now: its level is the one rank[p]'s is not */
		if (alt && alt[p] != UINT32_MAX && !h->rows[i].sym) {
			uint32_t u = rank[p] - h->unk_from[k];

			if (h->rows[i].kernel != (h->unk_kernel[k][u / 8] >> (u % 8) & 1)) {
				h->rows[i].rank[k] = alt[p];
				continue;
			}
		}
		h->rows[i].rank[k] = rank[p];
	}
	free(alt);
	free(h->rank_text[k]);
	free(h->rank_len[k]);
	h->rank_text[k] = by_rank;
	h->rank_len[k] = len_by_rank;
	free(pt);
	if (cache) {   /* parts are stable while the model does not change */
		free(h->rank_of[key]);
		h->rank_of[key] = rank;
		h->rank_full[key] = true;
		for (size_t p = 0; p < np && h->rank_full[key]; p++)
			h->rank_full[key] = rank[p] != UINT32_MAX;
	} else {
		free(rank);
	}
}

/* Whether rank rk of key k is an unknown address (rank_text() makes it). */
static bool rank_is_addr(const struct hist *h, int k, uint32_t rk)
{
	return h->unk_addr[k] && rk >= h->unk_from[k];
}

/* The length of rank_text(h, k, rk), without making it. */
static size_t rank_text_len(const struct hist *h, int k, uint32_t rk)
{
	return rank_is_addr(h, k, rk) ? addr_text_len(h->unk_addr[k][rk - h->unk_from[k]]) : h->rank_len[k][rk];
}

/* Key k's text of rank rk, *len its length: rank_key's, or made in buf
 * (24 bytes or more) for an unknown address. */
static const char *rank_text(const struct hist *h, int k, uint32_t rk, char *buf, size_t *len)
{
	if (rank_is_addr(h, k, rk)) {
		uint32_t u = rk - h->unk_from[k];

		*len = addr_text(buf, h->unk_kernel[k][u / 8] >> (u % 8) & 1, h->unk_addr[k][u]);
		return buf;
	}
	*len = h->rank_len[k][rk];
	return h->rank_text[k][rk];
}

/* Each node's depth into d (1 for the outermost frame) and, below not
 * NULL, the frames from it down to its deepest leaf (n + 1 zeroed
 * entries each); false when the tree's nodes do not come after their
 * parents. */
static bool node_heights(const struct prof *p, uint32_t *d, uint32_t *below)
{
	size_t n = prof_nr_nodes(p);
	const struct prof_node *nd = prof_nodes(p);

	for (size_t i = 1; i < n; i++) {
		uint32_t up = nd[i].parent;

		if (up >= i)
			return false;
		if (!(nd[i].frame & PROF_THREAD))
			d[i] = (up && !(nd[up].frame & PROF_THREAD) ? d[up] : 0) + 1;
	}
	for (size_t i = n; below && i-- > 1;) {
		uint32_t up = nd[i].parent;

		if (nd[i].frame & PROF_THREAD)
			continue;
		below[i] = below[i] ? below[i] : 1;
		if (up && !(nd[up].frame & PROF_THREAD) && below[up] < below[i] + 1)
			below[up] = below[i] + 1;
	}
	return true;
}

/* Each node's value for tie_depth() (n nodes), or NULL when the tree's
 * nodes do not come after their parents. */
static uint32_t *node_depths(const struct prof *p, bool caller)
{
	size_t n = prof_nr_nodes(p);
	const struct prof_node *nd = prof_nodes(p);
	uint32_t *d = xcalloc_huge(n + 1, sizeof(*d)), *below = caller ? xcalloc(n + 1, sizeof(*below)) : NULL;

	if (!node_heights(p, d, below)) {
		free(d);
		free(below);
		return NULL;
	}
	if (!caller)
		return d;
	for (size_t i = 1; i < n; i++)   /* a leaf row: the whole chain */
		if (nd[i].count && d[i] > below[i])
			below[i] = d[i];
	free(d);
	return below;
}

/* perf's order of rows of equal Children (__hpp__sort_acc, for rows of
 * one thread when call graphs are shown): by the max_depth of the
 * callchain each row holds.  perf appends to a sample's leaf row the whole
 * chain (its length: the leaf's depth) and to each other row of the chain
 * the chain from that frame on, in the graph's order: towards the leaf
 * (caller order: 1 + the frames below it) or towards the outermost caller
 * (callee order: its depth).  Caller order puts the deepest first, callee
 * order the shallowest.  Returns the depth by row (nr rows), or NULL when
 * the tree's nodes do not come after their parents.  The nodes' values
 * (node_depths()) are kept in h when keep is true (the model stays). */
static uint32_t *tie_depth(struct hist *h, const uint32_t *of_node, size_t nr, bool caller, bool keep)
{
	size_t n = prof_nr_nodes(h->prof);
	uint32_t *v = h->node_depth && h->node_caller == caller ? h->node_depth : node_depths(h->prof, caller);
	uint32_t *depth;

	if (!v)
		return NULL;
	depth = xcalloc(nr + 1, sizeof(*depth));
	for (size_t i = 1; i < n; i++) {
		if (i + 16 < n)   /* a row ahead's, read at random */
			__builtin_prefetch(&depth[of_node[i + 16] < nr ? of_node[i + 16] : 0], 1);
		if (of_node[i] != PROF_NONE && of_node[i] < nr && v[i] > depth[of_node[i]])
			depth[of_node[i]] = v[i];
	}
	if (keep && v != h->node_depth) {
		free(h->node_depth);
		h->node_depth = v;
		h->node_caller = caller;
	} else if (!keep) {
		free(v);
	}
	return depth;
}

/* A row of an address with no symbol in a mapped file (its file offset
 * not its address) that is a sample's leaf is two entries in perf with
 * Children: the sample's own (hist_entry.ip the file offset, map_ip) with
 * the Self and as Children only that Self, and its cumulative one (the
 * address as sampled, the callchain's ip: they compare apart) with the
 * Children of every sample through it and no Self.  Such a row keeps the
 * first; its second is added after the model's rows (a part of the sym key
 * of its own: it shows the address), h->split_x naming its first.  Needs
 * the sym key's parts not ranked yet.  Returns how many were added. */
static bool splits(const struct row *row)
{
	return !row->sym && row->self && row->addr != row->at && strcmp(row->dso, "[unknown]");
}

static size_t split_unknown(struct report *r, struct hist *h, struct prof_rows *pr)
{
	size_t n = 0, nr = h->nr;
	int ksym = -1;

	h->split_from = nr;
	free(h->split_x);
	h->split_x = NULL;
	for (int k = 0; k < r->nr_keys; k++)
		if (r->keys[k] == K_SYM)
			ksym = k;
	for (size_t i = 0; i < nr && !r->no_chains; i++)
		n += splits(&h->rows[i]);
	if (!n || ksym < 0)   /* (--max-stack 0: no chain, no second entry) */
		return 0;
	if (nr + n + 1 > h->rows_cap) {   /* grown where they are: no copy of every row */
		size_t need = ((nr + n + 1) * sizeof(*h->rows) + 4095) & ~(size_t)4095;
		void *v = h->rows_mapped ? mremap(h->rows, h->rows_mapped, need, MREMAP_MAYMOVE) : MAP_FAILED;

		if (v != MAP_FAILED) {
			h->rows = v;
			h->rows_mapped = need;
		} else if (h->rows_mapped) {
			struct row *c = xmalloc_huge(need);

			memcpy(c, h->rows, nr * sizeof(*c));
			munmap(h->rows, h->rows_mapped);
			h->rows = c;
			h->rows_mapped = 0;
		} else {
			h->rows = xrealloc(h->rows, need);
		}
		h->rows_cap = nr + n + 1;
	}
	if (h->comm_last)
		h->comm_last = xrealloc(h->comm_last, (nr + n + 1) * sizeof(*h->comm_last));
	if (h->self_sys)
		h->self_sys = xrealloc(h->self_sys, (nr + n + 1) * sizeof(*h->self_sys));
	if (h->trace)
		h->trace = xrealloc(h->trace, (nr + n + 1) * sizeof(*h->trace));
	if (h->cpu)
		h->cpu = xrealloc(h->cpu, (nr + n + 1) * sizeof(*h->cpu));
	h->split_x = xmalloc(n * sizeof(*h->split_x));
	n = 0;
	for (size_t i = 0; i < nr; i++) {
		struct row *row = &h->rows[i], *y = &h->rows[nr + n];

		if (!splits(row))
			continue;
		*y = *row;
		y->self = 0;
		y->nr_self = 0;
		y->rank[ksym] = (uint32_t)(pr->nr_parts[K_SYM] + n);
		row->children = row->self;
		if (h->comm_last)
			h->comm_last[nr + n] = h->comm_last[i];
		if (h->self_sys)   /* the chains' entry: no Self */
			h->self_sys[nr + n] = 0;
		if (h->trace)
			h->trace[nr + n] = h->trace[i];
		if (h->cpu)
			h->cpu[nr + n] = h->cpu[i];
		h->split_x[n++] = (uint32_t)i;
	}
	pr->nr_parts[K_SYM] += n;
	h->nr = nr + n;
	return n;
}

/* split_unknown()'s rows' depths for tie_depth's order (depth: nr rows,
 * grown to h->nr): the sample's own entry that of its whole chains (a
 * leaf's depth), the cumulative one of the chain from it on (caller order:
 * down to the deepest leaf, callee order: up to the outermost caller). */
static uint32_t *split_depths(const struct hist *h, const uint32_t *of_node, size_t nr, bool caller,
			      uint32_t *depth)
{
	size_t n = prof_nr_nodes(h->prof), ns = h->nr - h->split_from;
	const struct prof_node *nd = prof_nodes(h->prof);
	uint32_t *d = xcalloc_huge(n + 1, sizeof(*d)), *below = xcalloc_huge(n + 1, sizeof(*below));
	uint32_t *y_of = xmalloc((nr + 1) * sizeof(*y_of));

	depth = xrealloc(depth, (h->nr + 1) * sizeof(*depth));
	memset(y_of, 0xff, (nr + 1) * sizeof(*y_of));
	for (size_t j = 0; j < ns; j++) {
		y_of[h->split_x[j]] = (uint32_t)(h->split_from + j);
		depth[h->split_x[j]] = 0;
		depth[h->split_from + j] = 0;
	}
	(void)node_heights(h->prof, d, below);   /* tie_depth's nodes: in order */
	for (size_t i = 1; i < n; i++) {
		uint32_t x = of_node[i], y, v;

		if (x == PROF_NONE || x >= nr || (y = y_of[x]) == UINT32_MAX)
			continue;
		if (nd[i].count && d[i] > depth[x])
			depth[x] = d[i];
		v = caller ? below[i] : d[i];
		if (v > depth[y])
			depth[y] = v;
	}
	free(d);
	free(below);
	free(y_of);
	return depth;
}

/* An empty forest for the hist's call graphs, frames compared by its key. */
static struct cg_forest *hist_forest_new(struct hist *h)
{
	struct cg_forest *f = cg_forest_new();

	cg_forest_set_key(f, h->cg_key);
	cg_forest_set_stop(f, &h->cg_stop);
	return f;
}

/* The srcline texts of the model's frames for -g's address and srcline
 * keys (perf's callchain_srcline), made here on the thread that owns the
 * session (the browser's forest is made on another). */
static void hist_cg_srclines(struct report *r, struct hist *h)
{
	size_t n = prof_nr_frames(h->prof);
	const char **v = xmalloc((n + 1) * sizeof(*v));

	for (size_t i = 0; i < n; i++)
		v[i] = session_chain_srcline(r->sess, prof_frame(h->prof, (uint32_t)i), h->cg_key == CG_KEY_ADDRESS);
	prof_cg_set_srclines(h->prof, v, n);
}

/* The rows of the sort keys, from the event's model: one pass over its
 * stack tree (and, with call graphs, its stacks tagged with the rows). */
static void hist_cg_start(struct hist *h);

/* h->rows' block given back, a mapping of its own or the heap's (none
 * after: NULL, no room). */
static void hist_rows_free(struct hist *h)
{
	if (h->rows_mapped)
		munmap(h->rows, h->rows_mapped);
	else
		free(h->rows);
	h->rows = NULL;
	h->rows_mapped = 0;
	h->rows_cap = 0;
}

static void hist_derive(struct report *r, struct hist *h)
{
	enum prof_key keys[K_MAX];
	struct prof_rows pr;
	bool by_tid = false, srcline = false, trace = false, cpu = false;

	if (h->derived)
		return;
	h->derived = true;
	if (!h->prof && !h->flat)
		return;
	for (int k = 0; k < r->nr_keys; k++) {
		keys[k] = (enum prof_key)r->keys[k];
		by_tid |= r->keys[k] == K_PID || r->keys[k] == K_TID;
		srcline |= r->keys[k] == K_SRCLINE;
		trace |= r->keys[k] == K_TRACE;
		cpu |= r->keys[k] == K_CPU;
	}
	if (h->flat) {
		prof_flat_rows(h->flat, &pr);
	} else {
		prof_compact(h->prof);   /* no more samples */
		h->cg_key = r->graph ? r->cg.key : CG_KEY_FUNCTION;
		if (h->cg_key != CG_KEY_FUNCTION)
			hist_cg_srclines(r, h);
		struct line_arg la = { r, h };

		if (r->keep_models)   /* report's rows written over the model's */
			prof_set_row_room(h->prof, sizeof(struct row));
		prof_rows_make(h->prof, keys, r->nr_keys, r->children, line_of, &la, &pr);
		if (r->graph && r->keep_models) {   /* the forest made meanwhile */
			h->of_node = pr.of_node;
			hist_cg_start(h);
		}
	}
	/* keys whose every part was ranked before: mapped as rows are made */
	const uint32_t *ro[K_MAX] = { NULL };

	for (int k = 0; r->keep_models && k < r->nr_keys; k++)
		if (h->rank_full[r->keys[k]])
			ro[k] = h->rank_of[r->keys[k]];
	h->nr = pr.nr;
	free(h->comm_last);
	free(h->srcline);
	free(h->self_sys);
	h->self_sys = r->show_sys ? pr.self_sys : NULL;   /* by row, as the rows */
	if (r->show_sys)
		pr.self_sys = NULL;
	h->comm_last = by_tid ? xmalloc((pr.nr + 1) * sizeof(*h->comm_last)) : NULL;
	/* by the model's thread: its last comm (tcomm_unset: not looked up) */
	static const char tcomm_unset[1];
	size_t nt = by_tid && !h->flat ? prof_nr_threads(h->prof) : 0;
	const char **tcomm = nt ? xmalloc(nt * sizeof(*tcomm)) : NULL;

	for (size_t t = 0; t < nt; t++)
		tcomm[t] = tcomm_unset;
	h->srcline = srcline ? xmalloc((pr.nr + 1) * sizeof(*h->srcline)) : NULL;
	free(h->trace);
	h->trace = trace ? xmalloc((pr.nr + 1) * sizeof(*h->trace)) : NULL;
	free(h->cpu);
	h->cpu = cpu ? xmalloc((pr.nr + 1) * sizeof(*h->cpu)) : NULL;
	/* the flat rows' own mapping grown into the report's rows, each
	 * written over model rows copied already (a row, 96 bytes, from the
	 * last down over rows of 56): on a compile job's 530 k rows 17 MB of
	 * fresh pages, not 51 beside the 30 given back */
	bool in_place = false;

	_Static_assert(sizeof(struct row) >= sizeof(struct prof_row), "rows written from the last down");
	if (h->flat && pr.v_mapped && !h->rows && !r->keep_models) {
		size_t need = ((pr.nr + 1) * sizeof(*h->rows) + 4095) & ~(size_t)4095;
		void *v = need > pr.v_mapped ? mremap(pr.v, pr.v_mapped, need, MREMAP_MAYMOVE) : pr.v;

		if (v != MAP_FAILED) {
			pr.v = v;
			h->rows = v;
			h->rows_mapped = need > pr.v_mapped ? need : pr.v_mapped;
			h->rows_cap = pr.nr + 1;
			pr.v_mapped = 0;   /* h->rows' now */
			in_place = true;
		}
	} else if (h->prof && r->keep_models && !pr.v_mapped) {
		/* the browser's: the model's rows were made with room for
		 * report's (prof_set_row_room), written over them as above;
		 * the last derivation's rows go back to the heap, faulted in,
		 * for what follows (the order, the stacks' tags) */
		hist_rows_free(h);
		h->rows = (struct row *)(void *)pr.v;
		h->rows_cap = pr.nr + 1;
		in_place = true;
	}
	if (pr.nr + 1 > h->rows_cap) {   /* else the last derivation's, reused */
		hist_rows_free(h);
		h->rows_cap = pr.nr + 1;
		h->rows = xmalloc_huge(h->rows_cap * sizeof(*h->rows));
	}
	/* from the last row down, the memory of the rows copied given back
	 * as the copies are made (-g none: the flat rows' 124 MB of big.data
	 * no longer beside report's 108 MB) */
	for (size_t i = pr.nr; i-- > 0;) {
		const struct prof_row pv = pr.v[i], *p = &pv;   /* in_place: row i is written over it */
		const struct prof_thread *t = h->flat ? prof_flat_thread(h->flat, p->thread)
						      : prof_thread(h->prof, p->thread);
		struct pk_frame ff;
		const struct pk_frame *fr = h->flat ? (prof_flat_frame(h->flat, p->frame, &ff), &ff)
						    : prof_frame(h->prof, p->frame);
		struct row *row = &h->rows[i];

		if (i >= 16 && !h->flat)   /* the frame of a row ahead: read at random */
			__builtin_prefetch(prof_frame(h->prof, pr.v[i - 16].frame));
		for (int k = 0; i >= 8 && k < r->nr_keys; k++)   /* and its ranks */
			if (ro[k])
				__builtin_prefetch(&ro[k][pr.v[i - 8].part[r->keys[k]]]);

		*row = (struct row){ .comm = t->comm, .dso = fr->dso, .sym = fr->sym, .addr = fr->sym_off,
				     .at = fr->sym ? fr->ip - fr->sym_off : fr->ip,
				     .pid = t->pid, .tid = t->tid, .self = p->self, .children = p->children,
				     .nr_self = p->nr_self > UINT32_MAX ? UINT32_MAX : (uint32_t)p->nr_self,
				     .kernel = fr->kernel };
		/* perf's pid and tid keys name a thread by its last comm
		 * (looked up once per thread of the model) */
		if (by_tid && tcomm) {
			if (tcomm[p->thread] == tcomm_unset)
				tcomm[p->thread] = session_thread_comm(r->sess, t->tid);
			h->comm_last[i] = tcomm[p->thread];
		} else if (by_tid) {
			h->comm_last[i] = session_thread_comm(r->sess, t->tid);
		}
		if (srcline)
			h->srcline[i] = frame_srcline(r, h, fr);
		if (trace)
			h->trace[i] = t->tag;
		if (cpu)
			h->cpu[i] = t->cpu;
		for (int k = 0; k < r->nr_keys; k++)
			row->rank[k] = ro[k] ? ro[k][p->part[r->keys[k]]] : p->part[r->keys[k]];
		if (i % 16384 == 0 && !r->keep_models) {   /* the browser derives again: kept */
			if (!in_place)
				xrelease(pr.v, i * sizeof(*pr.v), pr.nr * sizeof(*pr.v));
			if (h->flat)   /* the rows' frame ids grow with them */
				prof_flat_release(h->flat, p->frame);
		}
	}
	free(tcomm);
	if (r->split_unk)
		split_unknown(r, h, &pr);
	if (sym_filter_on(r) && h == r->hists) {   /* row_kept's: perf filters the first event's only */
		for (size_t i = 0; i < h->nr; i++) {
			struct row *row = &h->rows[i];
			const char *sym = row->sym;

			if (h->entry_syms) {
				struct entry_key k = entry_key_of(r, row->comm, row->dso, row->tid);
				const struct hm_entry *e = hm_find(h->entry_syms, &k, sizeof(k));

				sym = e ? e->val.ptr : NULL;
			}
			row->sym_out = !sym || !strstr(sym, r->sym_filter);
		}
	}
	if (in_place)
		pr.v = NULL;
	prof_rows_free_v(&pr);   /* copied: its memory before the ranks and the stacks' */
	free(h->depth);
	h->depth = r->children && r->graph && h->prof && pr.of_node
			   ? tie_depth(h, pr.of_node, pr.nr, r->cg.order == CG_CALLER, r->keep_models) : NULL;
	if (h->depth && h->nr > pr.nr)
		h->depth = split_depths(h, pr.of_node, pr.nr, r->cg.order == CG_CALLER, h->depth);
	prof_flat_free(h->flat);   /* the rows were all it had */
	h->flat = NULL;
	if (r->graph && r->keep_models)   /* h->of_node now (hist_cg_start) */
		pr.of_node = NULL;
	for (int k = 0; k < r->nr_keys; k++)
		if (!ro[k])
			rank_key(r, h, pr.nr_parts[r->keys[k]], k, r->keep_models);
	if (r->graph && !r->keep_models) {   /* the model's stacks become the forest's */
		h->cg = hist_forest_new(h);
		prof_cg_take(h->prof, &pr, h->cg);
	}
	prof_rows_free(&pr);
	if (!r->keep_models) {   /* rows and stacks made: the model's part is done */
		prof_free(h->prof);
		h->prof = NULL;
	}
}

/* The browser's forest made by a thread from the model while the rows are
 * copied, ranked and sorted and the first screen is drawn (on a second CPU), so
 * that the first call graph does not wait for it: it reads the model's
 * nodes and frames and h->of_node, which nothing changes until the rows
 * are made again (hist_underive joins it first), and writes only
 * h->cg_made. */
static void *hist_cg_main(void *arg)
{
	struct hist *h = arg;
	struct prof_rows pr = { .of_node = h->of_node };

	(void)pk_thread_background();   /* the keys' thread first */
	h->cg_made = hist_forest_new(h);
	prof_cg_load(h->prof, &pr, h->cg_made);
	return NULL;
}

static void hist_cg_start(struct hist *h)
{
	if (h->cg || h->cg_building || !h->of_node || !h->prof)
		return;
	h->cg_pid = getpid();
	h->cg_building = !pthread_create(&h->cg_thread, NULL, hist_cg_main, h);
}

static void hist_cg_wait(struct hist *h)
{
	if (!h->cg_building)
		return;
	if (h->cg_pid != getpid()) {   /* a fork's child ('P'): the thread is not
					* here and its forest is half made: made
					* again by hist_cg */
		h->cg_building = false;
		h->cg_made = NULL;
		return;
	}
	pthread_join(h->cg_thread, NULL);
	h->cg_building = false;
	h->cg = h->cg_made;
	h->cg_made = NULL;
}

/* The call-graph forest of the browser's rows, made once per derivation
 * (by hist_cg_start's thread, or here when it could not start). */
static struct cg_forest *hist_cg(struct hist *h)
{
	hist_cg_wait(h);
	if (!h->cg && h->of_node && h->prof) {
		struct prof_rows pr = { .of_node = h->of_node };

		h->cg = hist_forest_new(h);
		prof_cg_load(h->prof, &pr, h->cg);
	}
	return h->cg;
}

static void hist_underive(struct hist *h)
{
	hist_cg_wait(h);   /* it reads what is freed here */
	atomic_store(&h->cg_stop, false);   /* the next forest's */
	for (int k = 0; k < K_MAX; k++) {
		free(h->rank_text[k]);
		free(h->rank_len[k]);
		free(h->unk_addr[k]);
		free(h->unk_kernel[k]);
		h->rank_text[k] = NULL;
		h->rank_len[k] = NULL;
		h->unk_addr[k] = NULL;
		h->unk_kernel[k] = NULL;
	}
	pk_arena_release(&h->texts);
	free(h->comm_last);
	free(h->self_sys);
	h->self_sys = NULL;
	free(h->srcline);
	free(h->trace);
	free(h->cpu);
	h->comm_last = NULL;
	h->srcline = NULL;
	h->trace = NULL;
	h->cpu = NULL;
	free(h->of_node);
	h->of_node = NULL;
	free(h->depth);
	h->depth = NULL;
	free(h->ord);
	h->ord = NULL;
	h->nr_sorted = 0;
	h->nr = 0;
	cg_forest_free(h->cg);
	h->cg = NULL;
	h->derived = false;
}

static void hist_free(struct hist *h)
{
	hist_underive(h);
	hist_rows_free(h);
	free(h->node_depth);
	free(h->frame_line);
	prof_free(h->prof);
	prof_flat_free(h->flat);
	for (int k = 0; k < K_MAX; k++)
		free(h->rank_of[k]);
	if (h->entry_syms)
		hm_release(h->entry_syms);
	free(h->entry_syms);
	free(h->split_x);
	*h = (struct hist){ 0 };
}

/* The printed rows' trees, from the unique stacks (tags are row ids);
 * rows whose period is below the threshold print no tree line. */
/* split_unknown()'s rows' trees, as perf's entries hold them: the
 * sample's own entry the whole chains of the samples ending in it, the
 * cumulative one the chain from it on of every sample through it (its
 * outermost place in caller order, chains root first; its innermost in
 * callee order, chains leaf first). */
struct split_ctx {
	const struct report *r;
	const struct hist *h;
	uint32_t *trees;
	uint32_t *y_of;               /* by model row: its split row's index - split_from + 1, or 0 */
	uint32_t *chain, *seen;       /* room for alloc frames */
	size_t nseen, alloc;
};

static void split_add(struct split_ctx *c, uint32_t tree, const uint32_t *frames, size_t n, bool rev,
		      uint64_t period, uint64_t count)
{
	if (!tree || !n)
		return;
	if (rev) {
		for (size_t i = 0; i < n; i++)
			c->chain[i] = frames[n - 1 - i];
		frames = c->chain;
	}
	cg_tree_add(c->h->cg, tree, frames, n, period, count);
}

static void split_stack(void *arg, const uint32_t *frames, const uint32_t *tags, size_t n, uint64_t period,
			uint64_t count)
{
	struct split_ctx *c = arg;
	bool caller = c->r->cg.order == CG_CALLER;
	uint32_t t = tags[n - 1];

	if (n > c->alloc) {
		c->alloc = n * 2;
		c->chain = xrealloc(c->chain, c->alloc * sizeof(*c->chain));
		c->seen = xrealloc(c->seen, c->alloc * sizeof(*c->seen));
	}
	if (t < c->h->split_from && c->y_of[t] && period)   /* a sample's own entry: whole chains */
		split_add(c, c->trees[t], frames, n, !caller, period, count);
	c->nseen = 0;
	for (size_t k = 0; k < n; k++) {   /* each cumulative entry once */
		size_t p = caller ? k : n - 1 - k;
		uint32_t x = tags[p];
		bool dup = false;

		if (x >= c->h->split_from || !c->y_of[x])
			continue;
		for (size_t j = 0; j < c->nseen && !dup; j++)
			dup = c->seen[j] == x;
		if (dup)
			continue;
		c->seen[c->nseen++] = x;
		uint32_t tree = c->trees[c->h->split_from + c->y_of[x] - 1];

		if (caller)
			split_add(c, tree, frames + p, n - p, false, period, count);
		else
			split_add(c, tree, frames, p + 1, true, period, count);
	}
}

static void split_trees(const struct report *r, struct hist *h, uint32_t *trees)
{
	struct split_ctx c = { .r = r, .h = h, .trees = trees };
	size_t ns = h->nr - h->split_from;

	c.y_of = xcalloc(h->split_from + 1, sizeof(*c.y_of));
	for (size_t j = 0; j < ns; j++) {
		uint32_t x = h->split_x[j];

		c.y_of[x] = (uint32_t)j + 1;
		if (trees[x])   /* the model row's tree held both */
			trees[x] = cg_tree_new(h->cg);
	}
	cg_stack_each(h->cg, split_stack, &c);
	free(c.chain);
	free(c.seen);
	free(c.y_of);
}

static uint32_t *build_trees(const struct report *r, struct hist *h, const bool *show, uint64_t total)
{
	uint32_t *trees = xcalloc(h->nr + 1, sizeof(*trees));   /* by row: its tag (the model's row) */
	uint64_t min_hit = cg_min_hit(&r->cg, total);

	for (size_t i = 0; i < h->nr; i++) {
		const struct row *row = &h->rows[i];

		if (i % 65536 == 0 && cg_forest_stopped(h->cg))   /* given up (rt_give_up) */
			return trees;
		if (!show[i] || (r->children ? row->children : row->self) < min_hit)
			continue;
		trees[i] = cg_tree_new(h->cg);
	}
	cg_trees_from_stacks(h->cg, trees, h->nr, r->cg.order, r->children, min_hit);
	if (h->split_x && h->nr > h->split_from)
		split_trees(r, h, trees);
	return trees;
}

/* Row i's Self taken in kernel mode (h->self_sys; 0 without it), and
 * in user mode. */
static uint64_t row_sys(const struct hist *h, size_t i)
{
	return h->self_sys ? h->self_sys[i] : 0;
}

static uint64_t row_usr(const struct hist *h, size_t i)
{
	return h->rows[i].self - row_sys(h, i);
}

/* The samples and the period an event's table is made of: all of them, or
 * with perf's --hide-unresolved only those of rows with a symbol (the
 * percentages are then of the resolved samples, as perf's), or with
 * --percentage relative those the filters keep (perf: the Self of the
 * rows not filtered out).  *cg_total (may be NULL): the period the call
 * graphs' threshold is of, perf's callchain_non_filtered_period: the same
 * but for the symbol filter, which perf applies after the samples are
 * added (as it collapses the entries), when that sum is made. */
static uint64_t hist_shown(struct report *r, struct hist *h, uint64_t *total, uint64_t *cg_total)
{
	uint64_t n = 0, cg = 0;

	if (!r->hide_unresolved && !(r->relative && (r->row_dsos || r->row_syms || r->row_threads || sym_filter_on(r)))) {
		*total = r->relative ? h->kept_total : h->total;
		if (cg_total)
			*cg_total = *total;
		return r->relative ? h->kept_samples : h->nr_samples;
	}
	hist_derive(r, h);
	*total = 0;
	for (size_t i = 0; i < h->nr; i++) {
		if (row_kept(r, &h->rows[i])) {
			*total += h->rows[i].self;
			n += h->rows[i].nr_self;
		}
		if (cg_total && row_kept_by(r, &h->rows[i], false))
			cg += h->rows[i].self;
	}
	if (cg_total)
		*cg_total = r->relative ? cg : *total;
	return n;
}

/* A row's sort key packed in integers: Children (when shown), Self, then
 * each key's text's rank (perf's order: rank_key), equal rows in the model's order (the row's
 * index in h->rows).  key: the ranks and the index packed, ranks <<
 * h->id_bits | index, when they fit in 64 bits; else (h->wide) the index
 * alone, the ranks compared in the rows.  24 bytes: 843 k rows' 20 MB. */
struct sortrec {
	uint64_t v, self, key;
};

/* the rows whose ranks do not fit in 64 bits: compared by their ranks */
static _Thread_local const struct report *wide_r;
static _Thread_local const struct row *wide_rows;
/* equal Children: tie_depth()'s order for rows of one thread (tie_rows:
 * the rows; tie_mask: a record's row index in its key).  A thread's own:
 * the browser sorts the rest of its rows in a thread (rt_rest_main) */
static _Thread_local const uint32_t *tie_depths;
static _Thread_local const struct row *tie_rows;
static _Thread_local uint64_t tie_mask;
static _Thread_local bool tie_caller;
/* set: a sort of this thread ends early once it is true, its records in
 * no order (the browser's rest sort, its table given up) */
static _Thread_local const atomic_bool *sort_stop;

static int cmp_recs(const void *a, const void *b)
{
	const struct sortrec *x = a, *y = b;

	if (x->v != y->v)
		return x->v > y->v ? -1 : 1;
	if (tie_depths) {
		size_t ix = (size_t)(x->key & tie_mask), iy = (size_t)(y->key & tie_mask);
		uint32_t dx = tie_depths[ix], dy = tie_depths[iy];

		if (dx != dy && tie_rows[ix].tid == tie_rows[iy].tid)
			return (dx > dy) == tie_caller ? -1 : 1;
	}
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (wide_rows) {
		for (int i = 0; i < wide_r->nr_keys; i++) {
			uint32_t rx = wide_rows[x->key].rank[i], ry = wide_rows[y->key].rank[i];

			if (rx != ry)
				return rx < ry ? -1 : 1;
		}
	}
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The row a sort record names (its index in h->rows). */
static size_t rec_row(const struct hist *h, const struct sortrec *o)
{
	return h->wide ? (size_t)o->key : (size_t)(o->key & ((1ull << h->id_bits) - 1));
}

static void swap_recs(struct sortrec *x, struct sortrec *y)
{
	struct sortrec t = *x;

	*x = *y;
	*y = t;
}

/* Move the k first of v[0..n) in cmp_recs' order (a total order: ids
 * differ) to v[0..k), in no order (quickselect, median of three). */
static void select_first(struct sortrec *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1 && k > lo && k < hi) {
		size_t mid = lo + (hi - lo) / 2, st = lo;

		if (cmp_recs(&v[mid], &v[lo]) < 0)
			swap_recs(&v[mid], &v[lo]);
		if (cmp_recs(&v[hi - 1], &v[lo]) < 0)
			swap_recs(&v[hi - 1], &v[lo]);
		if (cmp_recs(&v[mid], &v[hi - 1]) < 0)
			swap_recs(&v[mid], &v[hi - 1]);   /* the median at hi - 1 */
		for (size_t i = lo; i < hi - 1; i++)
			if (cmp_recs(&v[i], &v[hi - 1]) < 0)
				swap_recs(&v[i], &v[st++]);
		swap_recs(&v[st], &v[hi - 1]);
		if (st < k)
			lo = st + 1;
		else
			hi = st;
	}
}

/* The k-th largest (k >= 1) of v[0..n), k <= n; v reordered
 * (quickselect on the values alone: no tie is read). */
static uint64_t kth_largest(uint64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n, want = k - 1;

	while (hi - lo > 1) {
		uint64_t x = v[lo], y = v[lo + (hi - lo) / 2], z = v[hi - 1];
		uint64_t p = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
		size_t lt = lo, i = lo, gt = hi;   /* [lo, lt) > p, [lt, i) == p, [gt, hi) < p */

		while (i < gt) {
			uint64_t t = v[i];

			if (t > p) {
				v[i++] = v[lt];
				v[lt++] = t;
			} else if (t < p) {
				v[i] = v[--gt];
				v[gt] = t;
			} else {
				i++;
			}
		}
		if (want < lt)
			hi = lt;
		else if (want >= gt)
			lo = gt;
		else
			return p;
	}
	return v[want];
}

/* v[0..n) in cmp_recs' order: an introsort (quicksort, median of three,
 * heapsort past 2 log2 n levels, insertion sort below 24) whose compares
 * are inlined; glibc's qsort called cmp_recs through a pointer, 7 % of
 * `report -g none` on a compile job's million rows. */
/* cmp_recs with no depths to compare and the ranks in the key (no wide
 * rows): inlined in the sort made of it (-g none's 530 k rows of a
 * compile job: 100 ms of calls through cmp_recs) */
static inline int cmp_recs_plain(const struct sortrec *x, const struct sortrec *y)
{
	if (x->v != y->v)
		return x->v > y->v ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* An introsort of sort records in CMP's order: NAME_depth(v, n, depth),
 * quicksort (median of three) turning to heapsort after depth levels,
 * insertion sort below 25 records. */
#define SORTREC_FUNCS(NAME, CMP)                                                                       \
	static void NAME##_sift(struct sortrec *v, size_t n, size_t i)                                 \
	{                                                                                              \
		for (size_t c; (c = 2 * i + 1) < n; i = c) {                                           \
			if (c + 1 < n && CMP(&v[c], &v[c + 1]) < 0)                                    \
				c++;                                                                   \
			if (CMP(&v[i], &v[c]) >= 0)                                                    \
				break;                                                                 \
			swap_recs(&v[i], &v[c]);                                                       \
		}                                                                                      \
	}                                                                                              \
	static void NAME##_depth(struct sortrec *v, size_t n, unsigned depth)                          \
	{                                                                                              \
		while (n > 24) {                                                                       \
			if (sort_stop && atomic_load_explicit(sort_stop, memory_order_relaxed))        \
				return;                                                                \
			if (!depth--) { /* heapsort */                                                 \
				for (size_t i = n / 2; i-- > 0;)                                       \
					NAME##_sift(v, n, i);                                          \
				for (size_t m = n; m-- > 1;) {                                         \
					swap_recs(&v[0], &v[m]);                                       \
					NAME##_sift(v, m, 0);                                          \
				}                                                                      \
				return;                                                                \
			}                                                                              \
			size_t mid = n / 2, i = 0, j = n - 1;                                          \
                                                                                                       \
			if (CMP(&v[mid], &v[0]) < 0)                                                   \
				swap_recs(&v[mid], &v[0]);                                             \
			if (CMP(&v[n - 1], &v[0]) < 0)                                                 \
				swap_recs(&v[n - 1], &v[0]);                                           \
			if (CMP(&v[n - 1], &v[mid]) < 0)                                               \
				swap_recs(&v[n - 1], &v[mid]);                                         \
			struct sortrec p = v[mid]; /* v[0] <= p <= v[n - 1]: the scans stop */         \
                                                                                                       \
			for (;;) {                                                                     \
				while (CMP(&v[++i], &p) < 0)                                           \
					;                                                              \
				while (CMP(&p, &v[--j]) < 0)                                           \
					;                                                              \
				if (i >= j)                                                            \
					break;                                                         \
				swap_recs(&v[i], &v[j]);                                               \
			}                                                                              \
			/* [0, i) <= p <= [i, n), both parts non-empty: the smaller one                \
			 * recursively, the larger in this loop */                                     \
			if (i < n - i) {                                                               \
				NAME##_depth(v, i, depth);                                             \
				v += i;                                                                \
				n -= i;                                                                \
			} else {                                                                       \
				NAME##_depth(v + i, n - i, depth);                                     \
				n = i;                                                                 \
			}                                                                              \
		}                                                                                      \
		for (size_t i = 1; i < n; i++) {                                                       \
			struct sortrec x = v[i];                                                       \
			size_t j = i;                                                                  \
                                                                                                       \
			for (; j > 0 && CMP(&x, &v[j - 1]) < 0; j--)                                   \
				v[j] = v[j - 1];                                                       \
			v[j] = x;                                                                      \
		}                                                                                      \
	}

SORTREC_FUNCS(sort_recs, cmp_recs)
SORTREC_FUNCS(sort_plain, cmp_recs_plain)

static void sort_recs(struct sortrec *v, size_t n)
{
	unsigned depth = 0;

	for (size_t m = n; m > 1; m >>= 1)
		depth += 2;
	if (!tie_depths && !wide_rows)
		sort_plain_depth(v, n, depth);
	else
		sort_recs_depth(v, n, depth);
}

/* h->ord: the rows in cmp_recs' order, h->nr_sorted of them sorted: with
 * want < h->nr only the first want (quickselect, then a sort of those),
 * the rest (below all of them) by sort_rest().  The rows stay where they
 * are (rec_row() names them). */
/* cmp_recs' equal-Children order for h's records (none without depths) */
static void tie_set(const struct report *r, const struct hist *h)
{
	tie_depths = h->depth;
	tie_rows = h->rows;
	tie_mask = h->wide ? UINT64_MAX : (1ull << h->id_bits) - 1;
	tie_caller = r->cg.order == CG_CALLER;
}

static void sort_rows(struct report *r, struct hist *h, size_t want)
{
	uint32_t maxr[K_MAX] = { 0 };
	unsigned bits[K_MAX], total = 0, id_bits = 1;

	for (size_t i = 0; i < h->nr; i++)
		for (int k = 0; k < r->nr_keys; k++)
			if (h->rows[i].rank[k] > maxr[k])
				maxr[k] = h->rows[i].rank[k];
	for (int k = 0; k < r->nr_keys; k++) {
		bits[k] = 1;
		while (bits[k] < 32 && maxr[k] >> bits[k])
			bits[k]++;
		total += bits[k];
	}
	while (id_bits < 32 && (uint64_t)h->nr >> id_bits)
		id_bits++;
	h->wide = total + id_bits > 64;
	h->id_bits = id_bits;
	wide_r = r;
	wide_rows = h->wide ? h->rows : NULL;
	tie_set(r, h);
	memcpy(h->rank_bits, bits, sizeof(bits));
	free(h->ord);
	h->ord = xmalloc_huge((h->nr + 1) * sizeof(*h->ord));
	for (size_t i = 0; i < h->nr; i++) {
		const struct row *row = &h->rows[i];
		uint64_t ranks = 0;

		for (int k = 0; !h->wide && k < r->nr_keys; k++)
			ranks = ranks << bits[k] | row->rank[k];
		h->ord[i] = (struct sortrec){ r->children ? row->children : 0, row->self,
					      h->wide ? i : ranks << id_bits | i };
	}
	h->nr_sorted = want < h->nr ? want : h->nr;
	if (h->nr_sorted < h->nr) {
		/* the records at or above the want-th largest value first: the
		 * first want are among them (the quickselect's pivots over all
		 * rows were small values shared by most, each tie read at
		 * random: tie_depths, the rows) */
		uint64_t *vs = xmalloc(h->nr * sizeof(*vs)), t;
		size_t m = 0;

		for (size_t i = 0; i < h->nr; i++)
			vs[i] = h->ord[i].v;
		t = kth_largest(vs, h->nr, h->nr_sorted);
		free(vs);
		for (size_t i = 0; i < h->nr; i++)
			if (h->ord[i].v >= t)
				swap_recs(&h->ord[i], &h->ord[m++]);
		select_first(h->ord, m, h->nr_sorted);
	}
	sort_recs(h->ord, h->nr_sorted);
	wide_rows = NULL;
	tie_depths = NULL;
}

/* v[0..n), records of h past its sorted ones, in sort_rows()' order;
 * stop: as sort_stop (NULL: none). */
static void sort_rest_of(const struct report *r, const struct hist *h, struct sortrec *v, size_t n,
			 const atomic_bool *stop)
{
	wide_r = r;
	wide_rows = h->wide ? h->rows : NULL;
	tie_set(r, h);
	sort_stop = stop;
	sort_recs(v, n);
	sort_stop = NULL;
	wide_rows = NULL;
	tie_depths = NULL;
}

/* The rest of sort_rows()' order. */
static void sort_rest(struct report *r, struct hist *h)
{
	sort_rest_of(r, h, h->ord + h->nr_sorted, h->nr - h->nr_sorted, NULL);
	h->nr_sorted = h->nr;
}

struct po_node {
	uint32_t left, right, parent;   /* PO_NIL: none */
	bool red;
};
#define PO_NIL UINT32_MAX

/* What perf's compare reads of a row, by node (node i: h->ord[i]):
 * keys the ranks packed (key 0 highest; a row without a symbol has the
 * sym key's highest value, one past every rank: perf's sort__sym_sort
 * has two of them equal), or with wide keys the row's index. */
struct po_rec {
	uint64_t children, self, keys;
	uint32_t tid, depth;
	uint64_t sys;                 /* --show-cpu-utilization's (row_sys) */
};

struct po_tree {
	const struct report *r;
	const struct hist *h;
	const struct po_rec *rec;
	struct po_node *n;
	uint32_t root;
	bool wide;                    /* keys: row indices, ranks compared in the rows */
	bool caller;
};

/* The collapsed tree's order of a row (perf's insertion order), where
 * hist_entry__collapse(iter, he) < 0 puts he left: per key, comm and DSO
 * names from the first (their ranks: rank_key, a DSO "[unknown]", perf's
 * NULL map, last), a pid from the lowest (sort__thread_cmp: its rank); a
 * symbol by its DSO's name, then named before unnamed
 * (cmp_null), by start address; two unnamed by address alone, as signed
 * numbers (sort__sym_cmp, _sort__addr_cmp). */
struct po_seq {
	uint64_t addr;                /* the start, or the address shown */
	uint32_t node;
	uint32_t rank[KEYS_MAX];      /* comm, dso, pid: the rank; sym: its DSO's order */
	bool nosym;
};

static int po_sym_k = -1;   /* the sym key's index in po_cmp_seq's keys */
static const struct report *po_r;

static int po_cmp_seq(const void *a, const void *b)
{
	const struct po_seq *x = a, *y = b;

	for (int k = 0; k < po_r->nr_keys; k++) {
		if (k == po_sym_k) {
			if (x->nosym && y->nosym) {
				if (x->addr != y->addr)
					return (int64_t)x->addr < (int64_t)y->addr ? -1 : 1;
				continue;
			}
			if (x->rank[k] != y->rank[k])   /* sort__dso_cmp first */
				return x->rank[k] < y->rank[k] ? -1 : 1;
			if (x->nosym != y->nosym)
				return x->nosym ? 1 : -1;
			if (x->addr != y->addr)
				return (int64_t)x->addr < (int64_t)y->addr ? -1 : 1;
			continue;
		}
		if (x->rank[k] != y->rank[k])
			return x->rank[k] < y->rank[k] ? -1 : 1;
	}
	return x->node < y->node ? -1 : x->node > y->node;
}

/* hist_entry__sort(a, b) > 0: a goes left of b (comes first) */
static bool po_left(const struct po_tree *t, uint32_t a, uint32_t b)
{
	const struct po_rec *x = &t->rec[a], *y = &t->rec[b];

	if (x->children != y->children)
		return x->children > y->children;
	if (x->tid == y->tid && x->depth != y->depth)   /* __hpp__sort_acc */
		return (x->depth > y->depth) == t->caller;
	if (x->self != y->self)
		return x->self > y->self;
	if (!t->wide && x->keys != y->keys)
		return x->keys < y->keys;
	if (t->wide) {
		const struct row *rx = &t->h->rows[x->keys], *ry = &t->h->rows[y->keys];

		for (int k = 0; k < t->r->nr_keys; k++) {
			if (t->r->keys[k] == K_SYM && !rx->sym && !ry->sym)
				continue;
			if (rx->rank[k] != ry->rank[k])
				return rx->rank[k] < ry->rank[k];
		}
	}
	/* --show-cpu-utilization: perf's overhead_sys, then overhead_us,
	 * sort keys after the others (with Self equal, usr follows sys) */
	if (x->sys != y->sys)
		return x->sys > y->sys;
	return false;   /* equal: to the right, after it */
}

static void po_rotate(struct po_tree *t, uint32_t x, bool left)
{
	struct po_node *n = t->n;
	uint32_t y = left ? n[x].right : n[x].left, c = left ? n[y].left : n[y].right;

	if (left)
		n[x].right = c;
	else
		n[x].left = c;
	if (c != PO_NIL)
		n[c].parent = x;
	n[y].parent = n[x].parent;
	if (n[x].parent == PO_NIL)
		t->root = y;
	else if (n[n[x].parent].left == x)
		n[n[x].parent].left = y;
	else
		n[n[x].parent].right = y;
	if (left)
		n[y].left = x;
	else
		n[y].right = x;
	n[x].parent = y;
}

/* Insert node z as the kernel's rbtree does (rb_link_node where the
 * compare leads, then __rb_insert's recolouring and rotations: CLRS's). */
static void po_insert(struct po_tree *t, uint32_t z)
{
	struct po_node *n = t->n;
	uint32_t p = PO_NIL, c = t->root;
	bool left = false;

	while (c != PO_NIL) {
		p = c;
		left = po_left(t, z, c);
		c = left ? n[c].left : n[c].right;
	}
	n[z] = (struct po_node){ PO_NIL, PO_NIL, p, true };
	if (p == PO_NIL)
		t->root = z;
	else if (left)
		n[p].left = z;
	else
		n[p].right = z;
	while (n[z].parent != PO_NIL && n[n[z].parent].red) {
		uint32_t zp = n[z].parent, g = n[zp].parent;
		bool pl = n[g].left == zp;
		uint32_t u = pl ? n[g].right : n[g].left;

		if (u != PO_NIL && n[u].red) {
			n[zp].red = n[u].red = false;
			n[g].red = true;
			z = g;
			continue;
		}
		if (z == (pl ? n[zp].right : n[zp].left)) {
			z = zp;
			po_rotate(t, z, pl);
			zp = n[z].parent;
		}
		n[zp].red = false;
		n[g].red = true;
		po_rotate(t, g, !pl);
	}
	n[t->root].red = false;
}

/* Whether h->ord (sorted whole) has a run of three or more equal Children
 * from two threads or more: there perf's tree may differ from a sort. */
static bool po_needed(const struct report *r, const struct hist *h)
{
	if (!r->children || !h->depth || (r->nr_sorts && !r->sys_sorts) || h->nr_sorted < h->nr || h->nr > UINT32_MAX - 1)
		return false;
	for (int k = 0; k < r->nr_keys; k++)
		if (r->keys[k] != K_COMM && r->keys[k] != K_DSO && r->keys[k] != K_SYM && r->keys[k] != K_PID && r->keys[k] != K_TID)
			return false;
	for (size_t i = 0; i < h->nr;) {
		size_t j = i + 1;
		bool threads = false;
		uint32_t tid = h->rows[rec_row(h, &h->ord[i])].tid;

		for (; j < h->nr && h->ord[j].v == h->ord[i].v; j++)
			threads |= h->rows[rec_row(h, &h->ord[j])].tid != tid;
		if (threads && j - i >= 3)
			return true;
		i = j;
	}
	return false;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(dso_short(*(const char *const *)a), dso_short(*(const char *const *)b));
}

/* Each row's DSO's place in perf's order of DSO names (sort__dso_cmp),
 * "[unknown]" last; by row, in *out (h->nr). */
static void po_dso_order(const struct hist *h, uint32_t *out)
{
	struct hashmap order;
	const char **u;
	size_t n, m = 0;
	int created;

	hm_init(&order);   /* each DSO once: the rows' few distinct names */
	for (size_t i = 0; i < h->nr; i++)
		hm_upsert(&order, &h->rows[i].dso, sizeof(h->rows[i].dso), &created);
	n = order.nr;
	u = xmalloc((n + 1) * sizeof(*u));
	for (size_t i = 0; i < n; i++) {
		const char *d;

		memcpy(&d, order.entries[i].key, sizeof(d));
		if (strcmp(d, "[unknown]"))
			u[m++] = d;
	}
	qsort(u, m, sizeof(*u), cmp_str_ptr);
	for (size_t i = 0; i < n; i++)
		order.entries[i].val.u = m;   /* "[unknown]": last */
	for (size_t i = 0, rank = 0; i < m; i++) {
		if (i && strcmp(dso_short(u[i]), dso_short(u[i - 1])))
			rank = i;
		hm_upsert(&order, &u[i], sizeof(u[i]), &created)->val.u = rank;
	}
	for (size_t i = 0; i < h->nr; i++)
		out[i] = (uint32_t)hm_find(&order, &h->rows[i].dso, sizeof(h->rows[i].dso))->val.u;
	hm_release(&order);
	free(u);
}

/* perf's order of rows of equal Children from threads apart.  perf
 * (hists__output_resort) inserts its entries one by one into a red-black
 * tree, going left where hist_entry__sort() says the entry comes first:
 * Children, then for entries of one thread the depth of their call chains
 * (__hpp__sort_acc, tie_depth()), then Self, then the keys.  Between
 * entries of different threads that compare is no order (a of thread 1
 * before b of thread 1 by depth, b before c of thread 2 by Self, c before
 * a by Self), so where such rows lie is the tree's: made here again, the
 * rows inserted in perf's order (its collapsed tree's: po_seq) into a
 * red-black tree with that compare.  Only where it can change anything
 * (po_needed): Children with call graphs, keys among comm, dso, sym and
 * pid (tid alike), a run of three or more equal Children from two threads
 * or more.  On a parallel build's profile (5.5 k samples, 3 compilers),
 * 6 447 of its 8 838 rows were elsewhere than in perf's table, 2 383 now
 * (1 703 in a model of this tree without them): the rest come from rows
 * perf has and perfkit not, or the other way round ("[truncated]",
 * unknown addresses of broken chains), whose nodes shape the tree. */
static void perf_output_order(const struct report *r, struct hist *h)
{
	struct po_tree t = { r, h, NULL, NULL, PO_NIL, false, r->cg.order == CG_CALLER };
	struct po_rec *rec;
	struct po_seq *seq;
	uint32_t *dso_ord = NULL, stack[66];   /* a red-black tree's height: <= 2 log2 n */
	struct sortrec *out;
	unsigned bits = 0;
	size_t m = 0;

	if (!po_needed(r, h))
		return;
	po_sym_k = -1;
	for (int k = 0; k < r->nr_keys; k++) {
		bits += h->rank_bits[k] + (r->keys[k] == K_SYM);
		if (r->keys[k] == K_SYM)
			po_sym_k = k;
	}
	t.wide = h->wide || bits > 64;
	bool dso_first = false;

	for (int k = 0; k < po_sym_k; k++)
		dso_first |= r->keys[k] == K_DSO;
	if (po_sym_k >= 0 && !dso_first) {
		dso_ord = xmalloc((h->nr + 1) * sizeof(*dso_ord));
		po_dso_order(h, dso_ord);
	}
	rec = xmalloc_huge((h->nr + 1) * sizeof(*rec));
	seq = xmalloc_huge((h->nr + 1) * sizeof(*seq));
	for (size_t i = 0; i < h->nr; i++) {
		size_t ri = rec_row(h, &h->ord[i]);
		const struct row *x = &h->rows[ri];
		uint64_t keys = 0;

		for (int k = 0; !t.wide && k < r->nr_keys; k++) {
			unsigned b = h->rank_bits[k] + (r->keys[k] == K_SYM);

			keys = keys << b | (r->keys[k] == K_SYM && !x->sym ? (1ull << h->rank_bits[k]) : x->rank[k]);
		}
		rec[i] = (struct po_rec){ x->children, x->self, t.wide ? ri : keys, x->tid, h->depth[ri], row_sys(h, ri) };
		seq[i] = (struct po_seq){ .node = (uint32_t)i, .nosym = !x->sym };
		for (int k = 0; k < r->nr_keys; k++)
			seq[i].rank[k] = r->keys[k] != K_SYM ? x->rank[k] : dso_ord ? dso_ord[ri] : 0;
		seq[i].addr = x->sym ? x->at : unk_addr(x);   /* sym_text's address */
	}
	t.rec = rec;
	t.n = xmalloc_huge((h->nr + 1) * sizeof(*t.n));
	if (dso_ord) {   /* a symbol compared by its DSO's name first: a compare */
		po_r = r;
		qsort(seq, h->nr, sizeof(*seq), po_cmp_seq);
		for (size_t i = 0; i < h->nr; i++)
			po_insert(&t, seq[i].node);
	} else {
		/* the DSO key before the sym key (the default) or no sym key:
		 * the order is by each key in turn, a symbol's (named first,
		 * then its address as a signed number) alike for named and
		 * unnamed: stable sorts from the last key to the first */
		struct pk_kv *kv = xmalloc_huge((h->nr + 1) * sizeof(*kv));
		uint32_t *order = xmalloc_huge((h->nr + 1) * sizeof(*order));

		for (size_t i = 0; i < h->nr; i++)
			order[i] = (uint32_t)i;
		for (int k = r->nr_keys - 1; k >= 0; k--)
			for (int pass = 0; pass < 1 + (r->keys[k] == K_SYM); pass++) {
				for (size_t i = 0; i < h->nr; i++) {
					const struct po_seq *q = &seq[order[i]];

					kv[i].k = r->keys[k] != K_SYM ? q->rank[k]
						  : pass ? q->nosym
							 : q->addr ^ UNK_SIGN;
					kv[i].v = order[i];
				}
				pk_kv_sort(kv, h->nr);
				for (size_t i = 0; i < h->nr; i++)
					order[i] = (uint32_t)kv[i].v;
			}
		for (size_t i = 0; i < h->nr; i++)
			po_insert(&t, order[i]);
		free(order);
		free(kv);
	}
	/* in order: leftmost first */
	out = xmalloc_huge((h->nr + 1) * sizeof(*out));
	for (uint32_t c = t.root, top = 0; c != PO_NIL || top;) {
		while (c != PO_NIL) {
			stack[top++] = c;
			c = t.n[c].left;
		}
		c = stack[--top];
		out[m++] = h->ord[c];
		c = t.n[c].right;
	}
	free(h->ord);
	h->ord = out;
	free(t.n);
	free(seq);
	free(rec);
	free(dso_ord);
}

/* Sort the rows (the first want: sort_rows), mark those shown (*show,
 * h->nr + 1 flags by row index) and, unless textv is NULL (the browser
 * makes the texts it shows), make the texts of their keys that
 * rank_key() has none of (in *texts; row i's key k at (*textv)[i *
 * nr_keys + k]; *textv NULL when every key's text is read by rank);
 * returns how many are shown. */
/* -F's order: field by field (perf sorts by its output fields when -F
 * is given: numbers largest first, keys by their text's rank), then
 * sort_rows' order (pos: a record's place in it). */
static const struct report *fs_r;
static const struct hist *fs_h;

struct fsrec {
	struct sortrec o;
	size_t pos;
};

static int cmp_fields(const void *a, const void *b)
{
	const struct fsrec *x = a, *y = b;
	const struct row *rx = &fs_h->rows[rec_row(fs_h, &x->o)], *ry = &fs_h->rows[rec_row(fs_h, &y->o)];

	for (int i = 0; i < fs_r->nr_sorts; i++) {
		const struct rfield *f = &fs_r->sorts[i];
		uint64_t vx, vy;

		switch (f->kind) {
		case 'c':   /* perf's __hpp__sort_acc: equal, by depth in a thread */
			if (!fs_r->children)
				continue;
			vx = rx->children;
			vy = ry->children;
			if (vx == vy && fs_h->depth && rx->tid == ry->tid) {
				uint32_t dx = fs_h->depth[rx - fs_h->rows], dy = fs_h->depth[ry - fs_h->rows];

				if (dx != dy)
					return (dx > dy) == (fs_r->cg.order == CG_CALLER) ? -1 : 1;
			}
			break;
		case 'n': vx = rx->nr_self; vy = ry->nr_self; break;
		case 'y':
			vx = row_sys(fs_h, (size_t)(rx - fs_h->rows));
			vy = row_sys(fs_h, (size_t)(ry - fs_h->rows));
			break;
		case 'u':
			vx = row_usr(fs_h, (size_t)(rx - fs_h->rows));
			vy = row_usr(fs_h, (size_t)(ry - fs_h->rows));
			break;
		case 'k':   /* ascending; two unknown symbols equal (perf's sort__sym_sort) */
			if (fs_r->keys[f->key] == K_SYM && !rx->sym && !ry->sym)
				continue;
			vx = ry->rank[f->key];
			vy = rx->rank[f->key];
			break;
		default: vx = rx->self; vy = ry->self; break;
		}
		if (vx != vy)
			return vx > vy ? -1 : 1;
	}
	/* equal by every field: perf's insertion order, the keys' collapsed
	 * order (an unknown symbol's by its address, which the fields' sym
	 * compare took as equal) */
	for (int k = 0; k < fs_r->nr_keys; k++)
		if (rx->rank[k] != ry->rank[k])
			return rx->rank[k] < ry->rank[k] ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void sort_fields(const struct report *r, struct hist *h)
{
	struct fsrec *v = xmalloc_huge((h->nr + 1) * sizeof(*v));

	for (size_t i = 0; i < h->nr; i++)
		v[i] = (struct fsrec){ h->ord[i], i };
	fs_r = r;
	fs_h = h;
	qsort(v, h->nr, sizeof(*v), cmp_fields);
	for (size_t i = 0; i < h->nr; i++)
		h->ord[i] = v[i].o;
	free(v);
}

static size_t hist_order(struct report *r, struct hist *h, double limit, uint64_t total, size_t want, bool **show,
			 struct pk_arena *texts, const char ***textv)
{
	size_t shown = 0;

	hist_derive(r, h);
	sort_rows(r, h, r->nr_sorts ? SIZE_MAX : want);
	if (r->nr_sorts)
		sort_fields(r, h);
	*show = xcalloc(h->nr + 1, sizeof(**show));
	for (size_t i = 0; i < h->nr; i++) {
		const struct row *row = &h->rows[i];
		uint64_t v = r->children ? row->children : row->self;

		if ((total ? 100.0 * (double)v / (double)total : 0) < limit || !v)
			continue;
		if (!row_kept(r, row))   /* --hide-unresolved, --dsos, --symbols */
			continue;
		(*show)[i] = true;
		shown++;
	}
	if (!textv)
		return shown;
	*textv = NULL;
	for (int k = 0; k < r->nr_keys && !*textv; k++)
		if (!h->rank_text[k])   /* else its text is read by rank (rank_key) */
			*textv = xmalloc((h->nr + 1) * (size_t)r->nr_keys * sizeof(**textv));
	if (!*textv)   /* -g none of 843 k rows: 20 MB not made */
		return shown;
	for (size_t i = 0; i < h->nr; i++) {
		const char **text = *textv + i * (size_t)r->nr_keys;

		if (!(*show)[i])
			continue;
		for (int k = 0; k < r->nr_keys; k++) {
			if (h->rank_text[k])   /* read by rank */
				continue;
			const char *t = key_text(h, &h->rows[i], r->keys[k]);

			text[k] = pk_arena_memdup0(texts, t, strlen(t));
		}
	}
	return shown;
}

/* "  %7.2f%%" of 100 * v / total, as printf rounds it (the double's exact
 * value to 2 decimals, ties to even): integers where no tie is near,
 * printf where one is (or for what is not a plain percentage). */
static void put_pct(uint64_t v, uint64_t total)
{
	double x = 100.0 * (double)v / (double)total, y = x * 100.0, f = floor(y);
	char buf[16], *p = buf + sizeof(buf);
	unsigned long long c;

	if (!(y >= 0 && y < 1e12) || fabs(y - f - 0.5) < 1e-6) {
		printf("  %7.2f%%", x);
		return;
	}
	c = (unsigned long long)f + (y - f > 0.5);
	*--p = '%';
	*--p = (char)('0' + c % 10);
	*--p = (char)('0' + c / 10 % 10);
	*--p = '.';
	c /= 100;
	do {
		*--p = (char)('0' + c % 10);
		c /= 10;
	} while (c);
	while (buf + sizeof(buf) - p < 8)   /* width 7, and the '%' */
		*--p = ' ';
	*--p = ' ';
	*--p = ' ';
	fwrite_unlocked(p, 1, (size_t)(buf + sizeof(buf) - p), stdout);
}

/* The filter list of sort key key (comm, dso, sym), or NULL. */
static const struct sfilt_names *key_list(const struct report *r, enum sort_key key)
{
	return key == K_COMM ? &r->sf.comms : key == K_DSO ? &r->sf.dsos : key == K_SYM ? &r->sf.syms : NULL;
}

/* The filter list of key k when it names one value (sort__setup_elide's
 * test), else NULL. */
static const struct sfilt_names *key_elided(const struct report *r, int k)
{
	const struct sfilt_names *l = key_list(r, r->keys[k]);

	return l && l->n == 1 ? l : NULL;
}

/* perf's sort__setup_elide: a sort key whose filter names one value
 * (--comms, --dsos, --symbols) gets a "# KEY: VALUE" line instead of a
 * column; when every column would go, the lines are printed and the
 * columns stay.  Returns whether a line was printed. */
static bool print_elided(struct report *r)
{
	bool any = false, all = true;

	for (int k = 0; k < r->nr_keys; k++) {
		r->elide[k] = key_elided(r, k);
		all &= r->elide[k];
	}
	for (int k = 0; k < r->nr_keys; k++) {
		if (!r->elide[k])
			continue;
		const struct sfilt_names *l = key_list(r, r->keys[k]);

		printf("# %s: %.*s\n", r->keys[k] == K_COMM ? "comm" : r->keys[k] == K_DSO ? "dso" : "symbol",
		       (int)l->first_len, l->first);
		any = true;
	}
	if (all)   /* the lines stay, the columns too */
		memset(r->elide, 0, sizeof(r->elide));
	return any;
}

/* A row with -t SEP, as perf's hist_entry__snprintf with a field_sep:
 * SEP between the columns; a number printed at width 1 (" 12.42%",
 * " 360") then padded to its column's width, a key's text as without SEP
 * but each of SEP's first character in it made '.' (repsep_snprintf),
 * the padding of a key that pads itself (key_pads_last: comm, dso, pid)
 * included; every column padded but the list's last
 * (hist_entry__snprintf_alignment; an elided key stays in the list),
 * with spaces. */
/* One field of a -t row: SEP before it but the first (*first), its text
 * (a key's: each of SEP's first character in it made '.', the padding of
 * a key that pads itself its own, key_pads_last), then padded to w with
 * spaces unless it is the last.  key: the field's sort key, K_MAX for a
 * number. */
static void put_sep_field(const struct report *r, enum sort_key key, const char *text, size_t len, size_t w, bool pad,
			  bool *first)
{
	if (!*first)
		fputs_unlocked(r->field_sep, stdout);
	*first = false;
	if (key == K_MAX) {
		fwrite_unlocked(text, 1, len, stdout);
	} else {
		for (size_t c = 0; c < len; c++)
			putchar_unlocked(text[c] == r->field_sep[0] ? '.' : text[c]);
		for (size_t c = len; key_pads_last(key) && c < w; c++)
			putchar_unlocked(r->field_sep[0] == ' ' ? '.' : ' ');
		if (key_pads_last(key))
			len = w > len ? w : len;
	}
	for (size_t c = len; pad && c < w; c++)
		putchar_unlocked(' ');
}

static void print_sep_row(const struct report *r, const struct hist *h, const struct row *row,
			  const struct sortrec *o, const uint32_t *rk, const char **textv,
			  const struct rfield *fv, int nf, const size_t *width, uint64_t total)
{
	bool first = true;
	char buf[32], num[48];

	for (int fi = 0; fi < nf; fi++) {
		int k = fv[fi].key;
		size_t len, w = fv[fi].kind == 'n' || fv[fi].kind == 'p' ? 12 : fv[fi].kind == 'k' ? width[k] : 8;
		const char *text = num;
		bool pad = fi < nf - 1;

		if (fv[fi].kind == 'k' && r->elide[k])
			continue;
		switch (fv[fi].kind) {
		case 'c':
			if (r->children)
				snprintf(num, sizeof(num), " %.2f%%",
					 100.0 * (double)(r->nr_fields ? row->children : o->v) / (double)total);
			else
				snprintf(num, sizeof(num), " N/A");
			len = strlen(num);
			break;
		case 's':
			snprintf(num, sizeof(num), " %.2f%%", 100.0 * (double)o->self / (double)total);
			len = strlen(num);
			break;
		case 'n': len = (size_t)snprintf(num, sizeof(num), " %" PRIu32, row->nr_self); break;
		case 'p': len = (size_t)snprintf(num, sizeof(num), " %" PRIu64, row->self); break;
		case 'y': case 'u': {   /* perf's: a blank after the '%' */
			size_t i = (size_t)(row - h->rows);

			len = (size_t)snprintf(num, sizeof(num), " %.2f%% ",
					       100.0 * (double)(fv[fi].kind == 'y' ? row_sys(h, i) : row_usr(h, i)) / (double)total);
			break;
		}
		default:
			text = h->rank_text[k] ? rank_text(h, k, rk[k], buf, &len) : textv[k];
			if (!h->rank_text[k])
				len = strlen(text);
			if (len > width[k] && (r->keys[k] == K_COMM || r->keys[k] == K_TRACE))
				len = width[k];
			break;
		}
		put_sep_field(r, fv[fi].kind == 'k' ? r->keys[k] : K_MAX, text, len, w, pad, &first);
	}
	putchar_unlocked('\n');
}

/* perf's sample count in a title ("1K", "2M"): *n divided by 1000 while
 * over 1000, the unit's letter returned (' ' for none). */
static char count_unit(unsigned long *n)
{
	char unit = ' ';

	for (const char *u = "KMG"; *u && *n > 1000; u++) {
		*n /= 1000;
		unit = *u;
	}
	return unit;
}

/* Key k's cell: "  " and its text, cut to the column's width w for comm
 * and trace (perf's %-*.*s, %-.*s), padded to it unless pad is false. */
static void put_key_cell(const struct report *r, int k, const char *text, size_t len, size_t w, bool pad)
{
	if (len > w && (r->keys[k] == K_COMM || r->keys[k] == K_TRACE))
		len = w;
	fputs_unlocked("  ", stdout);
	fwrite_unlocked(text, 1, len, stdout);
	for (size_t c = len; pad && c < w; c++)
		putchar_unlocked(' ');
}

/* The table's columns: -F's (r->fields), or perf's default ones in defs
 * (Children, Self or Overhead, -n's Samples, --show-total-period's
 * Period, the keys); *fv set to them, their number returned; *lastf the
 * last shown (not elided), *pad_last whether it is padded as perf pads
 * it (key_pads_last). */
static int table_columns(const struct report *r, struct rfield *defs, const struct rfield **fv, int *lastf,
			 bool *pad_last)
{
	int nf = 0;

	if (r->nr_fields) {
		*fv = r->fields;
		nf = r->nr_fields;
		goto last;
	}
	if (r->children)
		defs[nf++] = (struct rfield){ 'c', 0 };
	defs[nf++] = (struct rfield){ 's', 0 };
	if (r->show_sys) {   /* perf's overhead_sys, overhead_us */
		defs[nf++] = (struct rfield){ 'y', 0 };
		defs[nf++] = (struct rfield){ 'u', 0 };
	}
	if (r->show_nr)
		defs[nf++] = (struct rfield){ 'n', 0 };
	if (r->show_period)
		defs[nf++] = (struct rfield){ 'p', 0 };
	for (int k = 0; k < r->nr_keys; k++)
		defs[nf++] = (struct rfield){ 'k', k };
	*fv = defs;
last:
	*lastf = nf - 1;
	while (*lastf > 0 && (*fv)[*lastf].kind == 'k' && r->elide[(*fv)[*lastf].key])
		(*lastf)--;
	*pad_last = (*fv)[*lastf].kind != 'k' || key_pads_last(r->keys[(*fv)[*lastf].key]);
	return nf;
}

/* The table's head: the columns' names, then their dots, then "#" (with
 * -t: the names alone, SEP between them); a number's column n events
 * wide (the group view: 8 or 12 each). */
static void print_table_head(const struct report *r, const struct rfield *fv, int nf, const size_t *width, size_t n)
{
	for (int pass = 0; pass < (r->field_sep ? 1 : 2); pass++) {
		bool first = true;

		for (int i = 0; i < nf; i++) {
			const struct rfield *f = &fv[i];
			size_t w = f->kind == 'k' ? width[f->key] : (f->kind == 'n' || f->kind == 'p' ? 12 : 8) * n;
			const char *name = f->kind == 'c' ? "Children" : f->kind == 'n' ? "Samples"
					 : f->kind == 'p' ? "Period" : f->kind == 'k' ? key_header(r->keys[f->key])
					 : f->kind == 'y' ? "sys" : f->kind == 'u' ? "usr"
					 : r->children && !r->nr_fields ? "Self" : "Overhead";

			if (f->kind == 'k' && r->elide[f->key])
				continue;
			fputs(first ? "# " : r->field_sep ? r->field_sep : "  ", stdout);
			first = false;
			for (size_t j = 0; pass && j < w; j++)
				putchar('.');
			if (!pass)
				printf(f->kind == 'k' ? "%-*s" : "%*s", (int)w, name);
		}
		putchar('\n');
	}
	if (!r->field_sep)
		printf("#\n");
}

static void print_hist(struct report *r, const struct pd_evsel *ev, struct hist *h, double limit)
{
	char buf[32];   /* rank_text's unknown address */
	uint32_t *trees = NULL;
	size_t width[K_MAX];
	uint64_t total;
	uint64_t thr_total;
	unsigned long n = (unsigned long)hist_shown(r, h, &total, &thr_total);
	char unit = ' ';

	/* perf 6.1 with --symbol-filter alone: the event count is of the rows
	 * kept (relative) but the sample count stays the whole one */
	if (sym_filter_on(r) && r->relative && !r->row_dsos && !r->row_syms && !r->hide_unresolved)
		n = (unsigned long)h->kept_samples;
	bool *show;
	struct pk_arena texts = PK_ARENA_INIT;
	const char **textv;

	unit = count_unit(&n);
	if (!r->quiet) {
		size_t ei = (size_t)(ev - r->f->evsels);
		bool leads = false;   /* perf: "events" for a group's leader */

		for (size_t j = ei + 1; r->leader_of && j < r->f->nr_evsels; j++)
			leads |= r->leader_of[j] == ei;
		printf("# Samples: %lu%c of event%s '", n, unit, leads ? "s" : "");
		fputs_term(ev->name, stdout);   /* the file's text: escaped */
		putchar('\'');
		if (r->time_arg)   /* perf's mark of a --time report */
			printf(" (time slices: %s)", r->time_arg);
		putchar('\n');
		printf("# Event count (approx.): %" PRIu64 "\n#\n", total);
	}
	hist_order(r, h, limit, total, SIZE_MAX, &show, &texts, &textv);
	perf_output_order(r, h);
	for (int k = 0; k < r->nr_keys; k++)
		width[k] = strlen(key_header(r->keys[k]));
	uint8_t *tsized = trace_sized(r, h);

	/* perf's widths (hists__calc_col_len): of every row the filters
	 * keep, those under --percent-limit too */
	for (size_t i = 0; i < h->nr; i++) {
		const struct row *row = &h->rows[i];

		if (!show[i] && !(row_kept(r, row) && (r->children ? row->children : row->self)))
			continue;
		for (int k = 0; k < r->nr_keys; k++) {
			size_t len;

			if (r->keys[k] == K_COMM) {   /* perf: the thread's last comm */
				len = comm_shown_len(r, row);
			} else if ((r->keys[k] == K_TRACE && !tsized[i]) || r->keys[k] == K_CPU) {
				continue;   /* perf's CPU column: 3 wide, whatever it holds */
			} else if (h->rank_len[k]) {   /* no text made for the width */
				len = rank_text_len(h, k, row->rank[k]);
			} else if (show[i]) {
				len = strlen(textv[i * (size_t)r->nr_keys + k]);
			} else {   /* hist_order made the texts of shown rows only */
				len = strlen(key_text(h, row, r->keys[k]));
			}

			if (!row->sym && len < unres_width(r, r->keys[k]))
				len = unres_width(r, r->keys[k]);
			if (len > width[k])
				width[k] = len;
		}
	}
	free(tsized);
	/* the columns: -F's, or perf's default ones */
	struct rfield defs[MAX_FIELDS];
	const struct rfield *fv;
	int lastf;
	bool pad_last;
	int nf = table_columns(r, defs, &fv, &lastf, &pad_last);

	if (!r->quiet)
		print_table_head(r, fv, nf, width, 1);
	/* the call graphs' percentages stay of the whole, as perf's, also
	 * when the rows' are of what the filters keep (their threshold is of
	 * the rows' total, as perf's, but for the symbol filter: thr_total) */
	uint64_t cg_total = r->relative ? h->total : total;

	/* kept models (the browser could not start): the forest made by
	 * hist_cg_start's thread, or here */
	if (r->graph && (r->keep_models ? hist_cg(h) : h->cg))
		trees = build_trees(r, h, show, thr_total);
	/* the rows in order, read from their sort records where they can be:
	 * a row itself is 136 bytes somewhere in a large array (a cache miss
	 * a row on a compile job's 843 k rows) */
	bool hint = !r->quiet && isatty(STDOUT_FILENO);   /* print_hint()'s */
	bool need_row = hint || r->show_nr || r->show_period || r->show_sys || h->wide;

	for (int k = 0; k < r->nr_keys; k++)
		need_row |= !h->rank_text[k];
	need_row |= r->nr_fields > 0;   /* Children, period: the row's */

	for (size_t j = 0; j < h->nr; j++) {
		const struct sortrec *o = &h->ord[j];
		size_t i = rec_row(h, o);
		const struct row *row = need_row ? &h->rows[i] : NULL;
		uint32_t rk[K_MAX];

		if (!show[i])
			continue;
		if (row && hint && row->sym && row->self > r->hint_self && annotatable(r, row)) {
			r->hint_sym = row->sym;
			r->hint_self = row->self;
		}
		if (h->wide) {
			memcpy(rk, row->rank, sizeof(row->rank));
		} else {   /* sort_rows' packing: the last key in the lowest bits */
			uint64_t x = o->key >> h->id_bits;

			for (int k = r->nr_keys - 1; k >= 0; k--) {
				rk[k] = (uint32_t)(x & ((1ull << h->rank_bits[k]) - 1));
				x >>= h->rank_bits[k];
			}
		}
		if (r->field_sep) {
			print_sep_row(r, h, row, o, rk, textv ? textv + i * (size_t)r->nr_keys : NULL, fv, nf,
				      width, total);
			goto graph;
		}
		for (int fi = 0; fi < nf; fi++) {
			int k = fv[fi].key;

			switch (fv[fi].kind) {
			case 'c':
				if (r->children)
					put_pct(r->nr_fields ? row->children : o->v, total);
				else   /* -F overhead_children without Children: perf's */
					printf("  %8s", "N/A");
				continue;
			case 's': put_pct(o->self, total); continue;
			case 'y': put_pct(row_sys(h, i), total); continue;
			case 'u': put_pct(row_usr(h, i), total); continue;
			case 'n':   /* perf: the samples whose leaf is the row */
				printf("  %12" PRIu32, row->nr_self);
				continue;
			case 'p': printf("  %12" PRIu64, row->self); continue;
			}
			size_t len;
			const char *text = h->rank_text[k] ? rank_text(h, k, rk[k], buf, &len)
							   : textv[i * (size_t)r->nr_keys + k];

			if (!h->rank_text[k])
				len = strlen(text);
			if (!r->elide[k])
				put_key_cell(r, k, text, len, width[k], fi < lastf || pad_last);
		}
		putchar_unlocked('\n');
graph:
		if (trees && trees[i])
			cg_tree_print_hit(stdout, h->cg, trees[i], &r->cg, cg_total, total,
				      r->children ? o->v : o->self);
	}
	free(trees);
	free(show);
	pk_arena_release(&texts);
	free(textv);
	printf("\n\n");
}

/* A group row's numbers: GRP_NV arrays of the n events' values, by
 * kind: Children, Self, samples, period, and --show-cpu-utilization's
 * sys and usr. */
#define GRP_NV 6

static size_t grp_at(char kind, size_t n)
{
	return n * (kind == 'c' ? 0 : kind == 's' ? 1 : kind == 'n' ? 2 : kind == 'p' ? 3 : kind == 'y' ? 4 : kind == 'u' ? 5 : 1);
}

/* perf's group view (perf report --group; its default for a file whose
 * HEADER_GROUP_DESC has groups): an event group's table in one, each row
 * with a column per event of the group for each number (Children, Self or
 * Overhead, -n's Samples, --show-total-period's Period), "%7.2f%%" and
 * "%12" wide each, perf's __hpp__fmt with symbol_conf.event_group.  The
 * rows are the leader's; a row only a member has is added with 0 for the
 * leader (perf's hists__link), when no --percent-limit hides it.  Order:
 * each number's values, leader first, largest first, then the leader's
 * order (the sort keys'), rows of members only after, in their own.  A
 * row's call graph is the leader's.  n: the events, leader first. */
struct grow {
	const struct hist *h;     /* whose row names it */
	size_t row;               /* its index there */
	size_t lrow;              /* the leader's row, SIZE_MAX: none */
	size_t pos;
};

static const struct report *grp_r;
static const struct hist *grp_h0;  /* the leader's */
static const uint64_t *grp_v;     /* by group row: 4 numbers x n events */
static size_t grp_n;

/* perf's order of a group's rows: Children the leader's alone, equal ones
 * by depth in a thread (__hpp__sort_acc); then Self the leader's, then
 * each member's (__hpp__group_sort); then the sort keys (the leader's
 * order, whose ties of Children, depth and Self go by them) */
/* A number of each event of the group, largest first: the leader's then
 * each member's, or with --group-sort-idx N event N's first, then the
 * other members' in order, not the leader's (perf's
 * __hpp__group_sort_idx; an N past the group's events, or negative:
 * the leader's alone) */
static int cmp_grow_number(const uint64_t *x, const uint64_t *y)
{
	size_t idx = grp_r->group_sort_idx < 0 ? SIZE_MAX : (size_t)grp_r->group_sort_idx;   /* < 0: none */

	if (!idx || idx >= grp_n) {   /* the leader's first, or alone */
		for (size_t m = 0; m < (idx ? 1 : grp_n); m++)
			if (x[m] != y[m])
				return x[m] > y[m] ? -1 : 1;
		return 0;
	}
	if (x[idx] != y[idx])
		return x[idx] > y[idx] ? -1 : 1;
	for (size_t m = 1; m < grp_n; m++)   /* then the other members', not the leader's */
		if (m != idx && x[m] != y[m])
			return x[m] > y[m] ? -1 : 1;
	return 0;
}

/* Children by the leader's alone, equal ones by depth in a thread */
static int cmp_grow_children(const struct grow *x, const struct grow *y, const uint64_t *vx, const uint64_t *vy)
{
	if (vx[0] != vy[0])
		return vx[0] > vy[0] ? -1 : 1;
	if (grp_h0->depth && x->lrow != SIZE_MAX && y->lrow != SIZE_MAX &&
	    grp_h0->rows[x->lrow].tid == grp_h0->rows[y->lrow].tid) {
		uint32_t dx = grp_h0->depth[x->lrow], dy = grp_h0->depth[y->lrow];

		if (dx != dy)
			return (dx > dy) == (grp_r->cg.order == CG_CALLER) ? -1 : 1;
	}
	return 0;
}

/* Key k of two rows: by its rank in perf's order, rows of two events by
 * their texts */
static int cmp_grow_key(const struct grow *x, const struct grow *y, int k)
{
	int c;

	if (x->h == y->h) {
		uint32_t ra = x->h->rows[x->row].rank[k], rb = y->h->rows[y->row].rank[k];

		return ra == rb ? 0 : ra < rb ? -1 : 1;
	}
	/* rank_key's order across two events: a symbol by its name alone,
	 * those with none after, by address; the DSO "[unknown]" last */
	const struct row *rx = &x->h->rows[x->row], *ry = &y->h->rows[y->row];
	enum sort_key key = grp_r->keys[k];
	size_t skip = 0;

	if (key == K_SYM) {
		if (!rx->sym != !ry->sym)
			return rx->sym ? -1 : 1;
		if (!rx->sym) {
			uint64_t ax = unk_addr(rx) ^ UNK_SIGN, ay = unk_addr(ry) ^ UNK_SIGN;

			if (ax != ay)
				return ax < ay ? -1 : 1;
			return rx->kernel == ry->kernel ? 0 : rx->kernel ? 1 : -1;
		}
		skip = 4;   /* "[.] " */
	}
	char *t = xstrdup(key_text(x->h, rx, key));
	const char *u = key_text(y->h, ry, key);

	if (key == K_DSO && strcmp(t, u) && (!strcmp(t, "[unknown]") || !strcmp(u, "[unknown]")))
		c = !strcmp(t, "[unknown]") ? 1 : -1;
	else
		c = strcmp(strlen(t) >= skip ? t + skip : t, strlen(u) >= skip ? u + skip : u);
	free(t);
	return c < 0 ? -1 : c > 0;
}

/* Two group rows perf's compare finds equal, numbers and keys alike (a
 * name two symbols share, as the kernel's several static functions of one
 * name): in perf's insertion order, its collapsed tree's, where a symbol
 * comes by its start address (sort__sym_cmp); else the leader's order. */
static int cmp_grow_last(const struct grow *x, const struct grow *y)
{
	const struct row *rx = &x->h->rows[x->row], *ry = &y->h->rows[y->row];

	if (rx->sym && ry->sym && rx->at != ry->at && !strcmp(rx->sym, ry->sym)) {
		int c = 0;

		for (int k = 0; k < grp_r->nr_keys && !c; k++)
			c = cmp_grow_key(x, y, k);
		if (!c)
			return (int64_t)rx->at < (int64_t)ry->at ? -1 : 1;
	}
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* -F's order (cmp_fields) in a group: each field in turn, a number the
 * leader's then each member's (Children the leader's alone), a key by
 * its rank in perf's order (rows of two events: by their texts) */
static int cmp_grow_fields(const struct grow *x, const struct grow *y, const uint64_t *vx, const uint64_t *vy)
{
	for (int i = 0; i < grp_r->nr_sorts; i++) {
		const struct rfield *f = &grp_r->sorts[i];
		size_t at = grp_at(f->kind, grp_n);
		int c;

		switch (f->kind) {
		case 'c':
			if (grp_r->children && (c = cmp_grow_children(x, y, vx, vy)))
				return c;
			continue;
		case 'k':
			if ((c = cmp_grow_key(x, y, f->key)))
				return c;
			continue;
		}
		if ((c = cmp_grow_number(vx + at, vy + at)))
			return c;
	}
	return cmp_grow_last(x, y);
}

static int cmp_grows(const void *a, const void *b)
{
	const struct grow *x = a, *y = b;
	const uint64_t *vx = grp_v + x->pos * GRP_NV * grp_n, *vy = grp_v + y->pos * GRP_NV * grp_n;

	if (grp_r->nr_sorts)
		return cmp_grow_fields(x, y, vx, vy);
	int c = grp_r->children ? cmp_grow_children(x, y, vx, vy) : 0;

	if (c || (c = cmp_grow_number(vx + grp_n, vy + grp_n)))
		return c;
	/* --group-sort-idx: the leader's numbers not compared, its order
	 * not either: the keys */
	for (int k = 0; grp_r->group_sort_idx && k < grp_r->nr_keys; k++)
		if ((c = cmp_grow_key(x, y, k)))
			return c;
	/* two rows of members alone (perf's dummy entries: no depth), of
	 * one member or two, by the keys in perf's order */
	if (x->lrow == SIZE_MAX && y->lrow == SIZE_MAX)
		for (int k = 0; k < grp_r->nr_keys; k++)
			if ((c = cmp_grow_key(x, y, k)))
				return c;
	return cmp_grow_last(x, y);
}

/* Row i of h's identity in the group view: its keys' texts, each ending
 * in '\0', a symbol's DSO beside its text, an address without a symbol
 * by the address alone, in sb (reset). */
static void grow_key(const struct report *r, const struct hist *h, size_t i, struct strbuf *sb)
{
	const struct row *row = &h->rows[i];

	sb_reset(sb);
	for (int k = 0; k < r->nr_keys; k++) {
		if (r->keys[k] == K_SYM && !row->sym) {   /* an address without a symbol: the
							   * address alone, [k] or [.] (perf's
							   * _sort__addr_cmp) */
			uint64_t a = unk_addr(row);

			sb_add(sb, "\1", 1);
			sb_add(sb, &a, sizeof(a));
			continue;
		}
		const char *t = key_text(h, row, r->keys[k]);

		sb_add(sb, t, strlen(t) + 1);
		if (r->keys[k] == K_SYM)   /* a symbol is its DSO's (perf's sort__sym_cmp
					    * compares the start), not its name alone: two
					    * memsets; the DSOs are the session's, one
					    * pointer each */
			sb_add(sb, &row->dso, sizeof(row->dso));
	}
}

/* A group's row with -t SEP (print_sep_row's layout): each number of the
 * group's events " %.2f%%" or " %N" one after the other, padded to the
 * group's width (8 or 12 a column per event), as perf's __hpp__fmt with
 * a field separator. */
static void print_group_sep_row(const struct report *r, const struct grow *g, const uint64_t *gv, size_t n,
				const uint64_t *total, const struct rfield *fv, int nf, const size_t *width)
{
	const struct row *row = &g->h->rows[g->row];
	bool first = true;
	struct strbuf num = STRBUF_INIT;

	for (int fi = 0; fi < nf; fi++) {
		char kind = fv[fi].kind;
		int k = fv[fi].key;
		size_t len, w = kind == 'k' ? width[k] : (kind == 'n' || kind == 'p' ? 12 : 8) * n;
		const char *text;
		bool pad = fi < nf - 1;

		if (kind == 'k' && r->elide[k])
			continue;
		sb_reset(&num);
		if (kind == 'c' && !r->children) {
			sb_addstr(&num, " N/A");
		} else if (kind != 'k') {
			const uint64_t *x = gv + grp_at(kind, n);

			for (size_t m = 0; m < n; m++)
				if (kind == 'n' || kind == 'p')
					sb_addf(&num, " %" PRIu64, x[m]);
				else
					sb_addf(&num, " %.2f%%", total[m] ? 100.0 * (double)x[m] / (double)total[m] : 0.0);
		}
		if (kind != 'k') {
			text = num.buf;
			len = num.len;
		} else {
			text = key_text(g->h, row, r->keys[k]);
			len = strlen(text);
			if (len > width[k] && (r->keys[k] == K_COMM || r->keys[k] == K_TRACE))
				len = width[k];
		}
		put_sep_field(r, kind == 'k' ? r->keys[k] : K_MAX, text, len, w, pad, &first);
	}
	putchar_unlocked('\n');
	sb_release(&num);
}

static void print_group(struct report *r, const size_t *ev, size_t n, double limit)
{
	struct hist *h0 = &r->hists[ev[0]];
	uint64_t *total = xcalloc(n, sizeof(*total)), thr0 = 0, all = 0;
	unsigned long nr = 0;
	char unit = ' ';
	bool *show0 = NULL;
	struct grow *g = NULL;
	uint64_t *v = NULL;
	size_t ng = 0, cap = 0, *next = NULL;   /* next: the next row of the same key */
	bool *has = NULL;                        /* by row and event: its values set */
	struct hashmap at;
	struct strbuf sb = STRBUF_INIT;
	size_t width[K_MAX];

	for (size_t m = 0; m < n; m++) {
		nr += (unsigned long)hist_shown(r, &r->hists[ev[m]], &total[m], m ? NULL : &thr0);
		all += total[m];
	}
	unit = count_unit(&nr);
	if (!r->quiet) {
		printf("# Samples: %lu%c of events '", nr, unit);
		if (!r->group_forced) {
			fputs_term(r->group_name && r->group_name[ev[0]] ? r->group_name[ev[0]] : "anon group", stdout);
			fputs(" { ", stdout);
		}
		for (size_t m = 0; m < n; m++) {
			if (m)
				fputs(", ", stdout);
			fputs_term(r->f->evsels[ev[m]].name, stdout);
		}
		if (!r->group_forced)
			fputs(" }", stdout);
		putchar('\'');
		if (r->time_arg)
			printf(" (time slices: %s)", r->time_arg);
		printf("\n# Event count (approx.): %" PRIu64 "\n#\n", all);
	}
	/* the leader's rows in its order, then the members' */
	hm_init(&at);
	for (size_t m = 0; m < n; m++) {
		struct hist *h = &r->hists[ev[m]];
		bool *show = NULL;
		struct pk_arena texts = PK_ARENA_INIT;

		hist_order(r, h, m ? 0 : limit, total[m], SIZE_MAX, &show, &texts, NULL);
		pk_arena_release(&texts);
		for (size_t j = 0; j < h->nr; j++) {
			size_t i = rec_row(h, &h->ord[j]);
			const struct row *row = &h->rows[i];
			struct hm_entry *e;
			int created;

			/* the leader's rows shown; a member's with a value (the
			 * filters' rows), matched or added unless a limit is set */
			if (m ? !row_kept(r, row) || !(r->children ? row->children : row->self) : !show[i])
				continue;
			grow_key(r, h, i, &sb);
			e = hm_upsert(&at, sb.buf, sb.len, &created);
			/* rows of one key (a name in two DSOs, an address's two
			 * rows with Children): the event's k-th the k-th row of
			 * that key, in order */
			size_t gi = created ? SIZE_MAX : (size_t)e->val.u, last = SIZE_MAX;

			if (!created && e->val.u == UINT64_MAX)   /* a key no row shows */
				continue;
			while (gi != SIZE_MAX && has[gi * n + m]) {
				last = gi;
				gi = next[gi];
			}
			if (gi == SIZE_MAX) {
				if (m && limit > 0) {   /* a member's alone: hidden */
					if (created)
						e->val.u = UINT64_MAX;
					continue;
				}
				if (ng == cap) {
					cap = cap ? cap * 2 : 1024;
					g = xrealloc(g, cap * sizeof(*g));
					v = xrealloc(v, cap * GRP_NV * n * sizeof(*v));
					next = xrealloc(next, cap * sizeof(*next));
					has = xrealloc(has, cap * n * sizeof(*has));
				}
				g[ng] = (struct grow){ h, i, m ? SIZE_MAX : i, ng };
				memset(v + ng * GRP_NV * n, 0, GRP_NV * n * sizeof(*v));
				memset(has + ng * n, 0, n * sizeof(*has));
				next[ng] = SIZE_MAX;
				if (created)
					e->val.u = ng;
				else
					next[last] = ng;
				gi = ng++;
			}
			has[gi * n + m] = true;
			uint64_t *gv = v + gi * GRP_NV * n;

			gv[grp_at('c', n) + m] = row->children;
			gv[grp_at('s', n) + m] = row->self;
			gv[grp_at('n', n) + m] = row->nr_self;
			gv[grp_at('p', n) + m] = row->self;
			gv[grp_at('y', n) + m] = row_sys(h, i);   /* --show-cpu-utilization's */
			gv[grp_at('u', n) + m] = row_usr(h, i);
		}
		if (m)
			free(show);
		else
			show0 = show;
	}
	hm_release(&at);
	grp_r = r;
	grp_h0 = h0;
	grp_v = v;
	grp_n = n;
	if (ng)   /* (qsort of NULL: undefined, even of nothing) */
		qsort(g, ng, sizeof(*g), cmp_grows);
	/* the widths: perf's (hists__calc_col_len) of every row the filters
	 * keep, under --percent-limit too, of each event */
	for (int k = 0; k < r->nr_keys; k++)
		width[k] = strlen(key_header(r->keys[k]));
	for (size_t m = 0; m < n; m++) {
		const struct hist *h = &r->hists[ev[m]];

		for (size_t i = 0; i < h->nr; i++) {
			const struct row *row = &h->rows[i];

			if (!row_kept(r, row) || !(r->children ? row->children : row->self))
				continue;
			for (int k = 0; k < r->nr_keys; k++) {
				size_t len = r->keys[k] == K_COMM ? comm_shown_len(r, row)
					     : r->keys[k] == K_CPU ? 0 : strlen(key_text(h, row, r->keys[k]));

				if (!row->sym && len < unres_width(r, r->keys[k]))
					len = unres_width(r, r->keys[k]);
				if (len > width[k])
					width[k] = len;
			}
		}
	}
	/* the columns: -F's, or perf's default ones; each number n times */
	struct rfield defs[MAX_FIELDS];
	const struct rfield *fv;
	int lastf;
	bool pad_last;
	int nf = table_columns(r, defs, &fv, &lastf, &pad_last);

	if (!r->quiet)
		print_table_head(r, fv, nf, width, n);
	uint32_t *trees = NULL;

	if (r->graph && (r->keep_models ? hist_cg(h0) : h0->cg))
		trees = build_trees(r, h0, show0, thr0);
	for (size_t i = 0; i < ng; i++) {
		const struct row *row = &g[i].h->rows[g[i].row];
		const uint64_t *gv = v + g[i].pos * GRP_NV * n;

		if (r->field_sep) {
			print_group_sep_row(r, &g[i], gv, n, total, fv, nf, width);
			goto graph;
		}
		for (int c = 0; c < nf; c++) {
			char kind = fv[c].kind;
			int k = fv[c].key;

			if (kind == 'c' && !r->children) {   /* -F overhead_children without Children:
							       * one N/A, the column padded (perf's) */
				printf("  %-*s", (int)(8 * n), "     N/A");
				continue;
			}
			if (kind != 'k') {
				const uint64_t *x = gv + grp_at(kind, n);

				for (size_t m = 0; m < n; m++) {
					if (kind == 'n' || kind == 'p')
						printf(m ? "%12" PRIu64 : "  %12" PRIu64, x[m]);
					else if (m)   /* "%7.2f%%" after the first, no space between */
						printf("%7.2f%%", total[m] ? 100.0 * (double)x[m] / (double)total[m] : 0.0);
					else
						put_pct(x[m], total[m] ? total[m] : 1);
				}
				continue;
			}
			if (!r->elide[k]) {
				const char *text = key_text(g[i].h, row, r->keys[k]);

				put_key_cell(r, k, text, strlen(text), width[k], c < lastf || pad_last);
			}
		}
		putchar_unlocked('\n');
graph:
		if (trees && g[i].lrow != SIZE_MAX && trees[g[i].lrow])
			cg_tree_print_hit(stdout, h0->cg, trees[g[i].lrow], &r->cg, r->relative ? h0->total : total[0],
					  total[0], r->children ? gv[0] : gv[n]);
	}
	free(trees);
	free(show0);
	free(g);
	free(v);
	free(next);
	free(has);
	free(total);
	sb_release(&sb);
	printf("\n\n");
}

/* perf report --stats: the data section's records by type, with perf's
 * names (util/event.c perf_event__names), then each event's samples
 * (perf_session__fprintf_nr_events, evlist__fprintf_nr_events, empty ones
 * left out as perf's default --skip-empty). */
static const char *const record_names[128] = {
	[0] = "TOTAL", [1] = "MMAP", [2] = "LOST", [3] = "COMM", [4] = "EXIT", [5] = "THROTTLE",
	[6] = "UNTHROTTLE", [7] = "FORK", [8] = "READ", [9] = "SAMPLE", [10] = "MMAP2", [11] = "AUX",
	[12] = "ITRACE_START", [13] = "LOST_SAMPLES", [14] = "SWITCH", [15] = "SWITCH_CPU_WIDE",
	[16] = "NAMESPACES", [17] = "KSYMBOL", [18] = "BPF_EVENT", [19] = "CGROUP", [20] = "TEXT_POKE",
	[21] = "AUX_OUTPUT_HW_ID", [64] = "ATTR", [65] = "EVENT_TYPE", [66] = "TRACING_DATA",
	[67] = "BUILD_ID", [68] = "FINISHED_ROUND", [69] = "ID_INDEX", [70] = "AUXTRACE_INFO",
	[71] = "AUXTRACE", [72] = "AUXTRACE_ERROR", [73] = "THREAD_MAP", [74] = "CPU_MAP",
	[75] = "STAT_CONFIG", [76] = "STAT", [77] = "STAT_ROUND", [78] = "EVENT_UPDATE",
	[79] = "TIME_CONV", [80] = "FEATURE", [81] = "COMPRESSED", [82] = "FINISHED_INIT",
};

struct stats_ctx {
	const struct pd_file *f;
	uint64_t *samples;   /* by event */
};

static int stats_sample(const struct pk_sample *s, void *arg)
{
	struct stats_ctx *c = arg;

	if (s->raw && s->raw->evsel)
		c->samples[s->raw->evsel - c->f->evsels]++;
	return 0;
}

static int stats_sample_none(const struct pk_sample *s, void *arg)
{
	(void)s;
	(void)arg;
	return 0;
}

/* perf report --tasks: each thread under the one that forked it, "#
 * pid tid ppid comm", as perf 6.1's tasks_print builds it: the threads
 * in its table's order (256 buckets by tid, each by tid), each linked
 * under its parent when first met, itself or as the parent of one met
 * before (a parent's children in that order), up to one with no parent
 * (ppid -1; here also one whose parent the file has not, where perf
 * fails); a level a space before the name. */
static int task_order(const void *a, const void *b)
{
	const struct session_task *x = a, *y = b;
	unsigned bx = x->tid % 256, by = y->tid % 256;

	if (bx != by)
		return bx < by ? -1 : 1;
	return (int32_t)x->tid != (int32_t)y->tid ? ((int32_t)x->tid < (int32_t)y->tid ? -1 : 1) : 0;
}

struct task_tree {
	struct session *s;             /* --mmaps: each task's maps too */
	const struct session_task *v;
	size_t *first, *last, *next;   /* children lists (SIZE_MAX: none) */
	bool *listed;
};

static void print_task(const struct task_tree *tt, size_t i, int level)
{
	const struct session_task *t = &tt->v[i];

	printf("%10" PRId32 " %8" PRId32 " %8" PRId32 " |%*s%s\n", (int32_t)t->pid, (int32_t)t->tid, t->ppid, level, "",
	       t->comm ? t->comm : "");
	if (tt->s) {   /* perf's maps__fprintf_task: under the name, by address */
		struct session_map *m;
		size_t nm = session_thread_maps(tt->s, t->tid, &m);

		for (size_t k = 0; k < nm; k++) {
			const char *d = m[k].dso;
			char jit[64];

			/* anonymous or file-less executable memory: perf's map__new
			 * names it by the JIT map file */
			if ((m[k].prot & PROT_EXEC) && m[k].anon) {
				snprintf(jit, sizeof(jit), "/tmp/perf-%" PRIu32 ".map", t->pid);
				d = jit;
			}
			printf("%*s%" PRIx64 "-%" PRIx64 " %c%c%c%c %08" PRIx64 " %" PRIu64 " %s\n", 32 + level, "",
			       m[k].start, m[k].end, m[k].prot & PROT_READ ? 'r' : '-', m[k].prot & PROT_WRITE ? 'w' : '-',
			       m[k].prot & PROT_EXEC ? 'x' : '-', m[k].flags & MAP_SHARED ? 's' : 'p', m[k].pgoff,
			       m[k].ino, d);
		}
		free(m);
	}
	for (size_t c = tt->first[i]; c != SIZE_MAX; c = tt->next[c])
		print_task(tt, c, level + 1);
}

static int report_tasks(struct session *s, bool maps)
{
	struct session_task *v;
	int err = session_process(s, stats_sample_none, NULL);

	if (err < 0) {
		fprintf(stderr, "perfkit report: %s\n", pk_errmsg());
		return 1;
	}
	size_t n = session_tasks(s, &v), m = 0, nroots = 0;
	bool idle = false;

	for (size_t i = 0; i < n; i++) {   /* a sample's tid -1: no thread of perf's */
		if (v[i].tid == UINT32_MAX)
			continue;
		idle |= v[i].tid == 0;
		v[m++] = v[i];
	}
	n = m;
	if (!idle) {   /* perf's machine has its idle thread always */
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n++] = (struct session_task){ 0, 0, -1, "swapper" };
	}
	qsort(v, n, sizeof(*v), task_order);
	struct task_tree tt = { maps ? s : NULL, v, xmalloc((n + 1) * sizeof(size_t)), xmalloc((n + 1) * sizeof(size_t)),
				xmalloc((n + 1) * sizeof(size_t)), xcalloc(n + 1, sizeof(bool)) };
	size_t *roots = xmalloc((n + 1) * sizeof(*roots));
	struct hashmap by_tid;

	hm_init(&by_tid);
	for (size_t i = 0; i < n; i++) {
		int created;

		tt.first[i] = tt.last[i] = tt.next[i] = SIZE_MAX;
		hm_upsert(&by_tid, &v[i].tid, sizeof(v[i].tid), &created)->val.u = i;
	}
	for (size_t i = 0; i < n; i++) {
		size_t cur = i;

		while (!tt.listed[cur]) {
			const struct hm_entry *pe = v[cur].ppid >= 0 ? hm_find(&by_tid, &v[cur].ppid, sizeof(uint32_t)) : NULL;
			size_t p = pe ? (size_t)pe->val.u : SIZE_MAX;

			tt.listed[cur] = true;
			if (p == SIZE_MAX || p == cur) {   /* the top of its chain */
				roots[nroots++] = cur;
				break;
			}
			if (tt.last[p] == SIZE_MAX)
				tt.first[p] = cur;
			else
				tt.next[tt.last[p]] = cur;
			tt.last[p] = cur;
			cur = p;
		}
	}
	printf("# %8s %8s %8s  %s\n", "pid", "tid", "ppid", "comm");
	for (size_t i = 0; i < nroots; i++)
		print_task(&tt, roots[i], 0);
	hm_release(&by_tid);
	free(roots);
	free(tt.first);
	free(tt.last);
	free(tt.next);
	free(tt.listed);
	free(v);
	return 0;
}

static int report_stats(struct session *s)
{
	struct stats_ctx c = { session_file(s), NULL };
	int err;

	c.samples = xcalloc(c.f->nr_evsels + 1, sizeof(*c.samples));
	err = session_process(s, stats_sample, &c);
	if (err < 0) {
		fprintf(stderr, "perfkit report: %s\n", pk_errmsg());
		free(c.samples);
		return 1;
	}
	const struct session_stats *st = session_stats(s);
	uint64_t total = 0, nr[128];

	for (int t = 1; t < 128; t++)   /* those the reader took in too */
		total += nr[t] = st->nr_by_type[t] + c.f->nr_taken[t];
	printf("\nAggregated stats:\n%16s events: %10" PRIu64 "\n", record_names[0], total);
	for (int t = 1; t < 128; t++)
		if (record_names[t] && nr[t])
			printf("%16s events: %10" PRIu64 "  (%4.1f%%)\n", record_names[t], nr[t],
			       100.0 * (double)nr[t] / (double)total);
	for (size_t i = 0; i < c.f->nr_evsels; i++)
		if (c.samples[i]) {
			fputs_term(c.f->evsels[i].name, stdout);   /* the file's text: escaped */
			printf(" stats:\n%16s events: %10" PRIu64 "\n", "SAMPLE", c.samples[i]);
		}
	free(c.samples);
	return 0;
}

/* A sort-key list as perf splits it (strtok on ", "): "comm, dso" and
 * "comm dso" are "comm,dso".  Into buf (size bytes, cut there). */
static const char *keys_norm(char *buf, size_t size, const char *spec)
{
	size_t n = 0;
	bool sep = false;

	for (const char *c = spec; *c && n + 2 < size; c++) {
		if (*c == ',' || *c == ' ' || *c == '\t') {
			sep = n > 0;
			continue;
		}
		if (sep)
			buf[n++] = ',';
		sep = false;
		buf[n++] = *c;
	}
	buf[n] = 0;
	return buf;
}

/* A sort key's name as perf's sort_dimension__add reads it: any case, and
 * any prefix of a name, the first name in perf's order (pid, comm, dso,
 * sym, cpu, srcline, trace) that it starts: "co" is comm, "s" sym.  A
 * whole name first (perfkit's tid, and "symbol" for sym).  -1: none. */
static int sort_key_of(const char *tok)
{
	static const struct { const char *name; enum sort_key k; } names[] = {
		{ "pid", K_PID }, { "comm", K_COMM }, { "dso", K_DSO }, { "sym", K_SYM }, { "cpu", K_CPU },
		{ "srcline", K_SRCLINE }, { "trace", K_TRACE }, { "tid", K_TID }, { "symbol", K_SYM },
	};
	size_t n = sizeof(names) / sizeof(names[0]), len = strlen(tok);

	if (!len)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(tok, names[i].name))
			return (int)names[i].k;
	for (size_t i = 0; i < n; i++)
		if (len < strlen(names[i].name) && !strncasecmp(tok, names[i].name, len))
			return (int)names[i].k;
	return -1;
}

static int parse_sort(struct report *r, const char *spec)
{
	char *dup = xstrdup(spec), *save = NULL;

	r->nr_keys = 0;
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int kv = sort_key_of(tok);
		enum sort_key k = (enum sort_key)kv;

		if (kv < 0) {
			fprintf(stderr,
				"perfkit report: unknown sort key '%s' (expected comm, dso, sym, pid, tid, srcline, trace, cpu)\n",
				tok);
			free(dup);
			return -1;
		}
		bool taken = false;

		for (int j = 0; j < r->nr_keys; j++)
			taken |= r->keys[j] == k;
		if (taken)   /* perf's sort_dimension__add: a key taken is skipped */
			continue;
		if (r->nr_keys == KEYS_MAX) {
			fprintf(stderr, "perfkit report: too many sort keys in '%s'\n", spec);
			free(dup);
			return -1;
		}
		r->keys[r->nr_keys++] = k;
	}
	free(dup);
	if (!r->nr_keys) {
		fprintf(stderr, "perfkit report: empty --sort\n");
		return -1;
	}
	return 0;
}

/* -F/--fields LIST (perf's --fields): the columns in LIST's order, of
 * overhead (Self, headed "Overhead"), overhead_children (Children),
 * sample, period and the sort keys.  perf then sorts by the -s keys (when
 * given; LIST's keys are added to them, and the -s keys missing from LIST
 * to its end) and then by LIST's fields in order; without -s the keys are
 * LIST's.  r->keys, fields and sorts set; -1 (told) on a bad LIST. */
static int parse_fields(struct report *r, const char *spec, bool sort_given)
{
	char *dup = xstrdup(spec), *save = NULL;
	int nsort = sort_given ? r->nr_keys : 0;

	if (!sort_given)
		r->nr_keys = 0;
	r->nr_fields = r->nr_sorts = 0;
	for (int k = 0; k < nsort; k++)
		r->sorts[r->nr_sorts++] = (struct rfield){ 'k', k };
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct rfield f = { 0, 0 };

		/* as perf's output_field_add: a sort key first, then a column,
		 * each by any prefix in any case, the first in perf's order
		 * ("s" is sym, "sa" sample, "over" overhead) */
		static const struct { const char *name; char kind; } cols[] = {
			{ "overhead", 's' }, { "overhead_sys", 'y' }, { "overhead_us", 'u' },
			{ "overhead_guest_sys", 0 }, { "overhead_guest_us", 0 },
			{ "overhead_children", 'c' }, { "sample", 'n' }, { "period", 'p' },
		};
		bool is_key = sort_key_of(tok) >= 0;

		for (size_t i = 0; !is_key && *tok && i < sizeof(cols) / sizeof(cols[0]); i++)
			if (!strncasecmp(tok, cols[i].name, strlen(tok))) {
				f.kind = cols[i].kind;
				r->show_sys |= f.kind == 'y' || f.kind == 'u';
				if (!f.kind) {
					fprintf(stderr, "perfkit report: field '%s' (perf's %s) is not supported "
						"(overhead, overhead_children, overhead_sys, overhead_us, sample, period "
						"and the sort keys are)\n",
						tok, cols[i].name);
					free(dup);
					return -1;
				}
				break;
			}
		if (!f.kind) {
			struct report one = { .nr_keys = 0 };
			bool dup_key = false;

			if (is_key)
				(void)parse_sort(&one, tok);
			if (!one.nr_keys) {
				fprintf(stderr, "perfkit report: unknown field '%s' (expected overhead, overhead_children, "
					"overhead_sys, overhead_us, sample, period, comm, dso, sym, pid, tid, srcline, "
					"trace, cpu)\n", tok);
				free(dup);
				return -1;
			}
			f.kind = 'k';
			for (int k = 0; k < r->nr_keys && !dup_key; k++)
				if (r->keys[k] == one.keys[0]) {
					f.key = k;
					dup_key = true;
				}
			if (!dup_key) {
				if (r->nr_keys == KEYS_MAX) {
					fprintf(stderr, "perfkit report: too many keys in '%s'\n", spec);
					free(dup);
					return -1;
				}
				f.key = r->nr_keys;
				r->keys[r->nr_keys++] = one.keys[0];
			}
		}
		bool seen = false;

		for (int i = 0; i < r->nr_fields; i++)
			seen |= r->fields[i].kind == f.kind && (f.kind != 'k' || r->fields[i].key == f.key);
		if (seen)
			continue;
		r->fields[r->nr_fields++] = f;
		if (f.kind != 'k' || f.key >= nsort)
			r->sorts[r->nr_sorts++] = f;
	}
	free(dup);
	for (int k = 0; k < nsort; k++) {   /* -s keys not in LIST: shown last */
		bool in = false;

		for (int i = 0; i < r->nr_fields; i++)
			in |= r->fields[i].kind == 'k' && r->fields[i].key == k;
		if (!in)
			r->fields[r->nr_fields++] = (struct rfield){ 'k', k };
	}
	if (!r->nr_keys) {
		fprintf(stderr, "perfkit report: -F '%s' names no sort key (comm, dso, sym, pid, tid, srcline, trace, cpu)\n", spec);
		return -1;
	}
	return 0;
}

/* --header / --header-only: the file's header as perf report prints it
 * (perfdata/header.h); "captured on" is the file's modification time. */
static int print_header(const char *input)
{
	struct pd_file *f;
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	int err;

	pk_error_clear();
	err = pd_open(&f, input);
	if (err) {
		fprintf(stderr, "perfkit report: %s\n", pk_errmsg());
		return 1;
	}
	if (strcmp(input, "-") ? stat(input, &st) : fstat(0, &st))
		st.st_mtime = time(NULL);
	pd_header_text(f, st.st_mtime, &sb);
	fwrite(sb.buf, 1, sb.len, stdout);
	sb_release(&sb);
	pd_close(f);
	return 0;
}

static void usage(FILE *fp)
{
	fprintf(fp, "usage: perfkit report [-i FILE] [-g [TYPE,THRESHOLD,ORDER]] [--no-children] [--sort KEYS]\n"
		    "                      [--percent-limit P] [-n] [-q] [--stdio] [--no-inline]\n"
		    "       perfkit report --html -o FILE.html [-i FILE] | --html --diff -o FILE.html OLD NEW\n"
		    "  -i, --input FILE        perf.data to read (default perf.data)\n"
		    "      --header-only       the file's header only (perf's lines: captured on, hostname,\n"
		    "                          os release, perf version, cmdline, events, ...)\n"
		    "      --header            the header, then the report\n"
		    "      --stats             the records counted by type and each event's samples, as\n"
		    "                          perf report --stats (no table)\n"
		    "  -v, --verbose           also the notes perf shows with -v (a missing /tmp/perf-PID.map)\n"
		    "      --group             the events of a group in one table, a column each (the default\n"
		    "                          for a file of event groups; without groups: all events one group)\n"
		    "      --no-group          each event's own table\n"
		    "      --group-sort-idx N  the group's rows by its N-th event first (0: the leader)\n"
		    "  -g, --call-graph[=ARG]  call graph under each row when the file has callchains (the default):\n"
		    "                          TYPE graph, fractal, flat, folded or none; THRESHOLD percent (0.5);\n"
		    "                          then an optional print limit; ORDER caller or callee (default caller\n"
		    "                          with Children, else callee); KEY function, address (a node per\n"
		    "                          address, shown SYM FILE:LINE) or srcline (a node per source\n"
		    "                          line); VALUE percent, period or count\n"
		    "  -G, --inverted          caller-based call graph (same as ORDER caller)\n"
		    "      --children          show the Children column (default when the file has callchains)\n"
		    "      --no-children       Self only\n"
		    "  -s, --sort KEYS         comm, dso, sym, pid, tid, srcline, trace, cpu (default comm,dso,sym;\n"
		    "                          a file of tracepoints only: trace, their formatted fields)\n"
		    "      --percent-limit P   hide rows below P percent\n"
		    "  -n, --show-nr-samples   a Samples column: the samples whose leaf is the row\n"
		    "      --show-total-period a Period column: the period of those samples (Self's)\n"
		    "      --tasks             the threads instead, each under the one that forked it\n"
		    "      --mmaps             the same, each with its maps\n"
		    "      --show-cpu-utilization  sys and usr columns: Self's samples taken in kernel\n"
		    "                          and in user mode (--stdio; not in the browser)\n"
		    "  -F, --fields LIST       the columns in this order, the rows sorted by them (perf's):\n"
		    "                          overhead, overhead_children, overhead_sys, overhead_us,\n"
		    "                          sample, period, sort keys\n"
		    "  -q, --quiet             the rows only: no '#' header lines, no warnings\n"
		    "  -t, --field-separator SEP\n"
		    "                          SEP between the columns (for scripts, as perf's): numbers\n"
		    "                          left-aligned, SEP's first character in a name becomes '.'\n"
		    "      --stdio             text, also on a terminal (default there: a browser, '?' lists its keys);\n"
		    "                          --tui the browser (the last of the two given wins)\n"
		    "      --no-color          no colours in the browser (also when NO_COLOR is set)\n"
		    "      --no-inline         accepted: report never adds inlined functions as frames\n"
		    "                          (perf does by default; perfkit's report is perf's --no-inline)\n"
		    "      --inline            accepted, but inlined frames are not added (script and\n"
		    "                          collapse --inline add them)\n"
		    "  -f, --force             accepted (perfkit does not check the file's owner)\n"
		    "  -U, --hide-unresolved   no rows for addresses without a symbol\n"
		    "      --symbol-filter STR only the rows whose symbol name contains STR (as perf\n"
		    "                          6.1: when the sort keys include comm)\n"
		    "  -c, --comms LIST        only the samples of these commands (comma-separated)\n"
		    "      --pid LIST          only the samples of these processes\n"
		    "      --tid LIST          only the samples of these threads\n"
		    "  -C, --cpu LIST          only the samples taken on these CPUs (0,2-3)\n"
		    "      --time START,STOP   only the samples in this time range (seconds, as perf\n"
		    "                          script's time column; either end may be left out;\n"
		    "                          ranges separated by blanks)\n"
		    "  -d, --dsos LIST         only rows of these DSOs (file name or path); one DSO:\n"
		    "                          its column becomes a '# dso: NAME' line, as perf's\n"
		    "  -S, --symbols LIST      only rows of these symbols (name, or 0x start address);\n"
		    "                          when dso/sym is not a sort key: the samples whose leaf\n"
		    "                          is in one\n"
		    "      --percentage relative|absolute\n"
		    "                          percentages of what the filters keep, or of the whole\n"
		    "                          (default absolute, as perf)\n"
		    "      --max-stack N       use at most N frames of each call chain (default: as\n"
		    "                          perf, kernel.perf_event_max_stack, 127 unless changed)\n"
		    "      --no-demangle       raw (mangled) C++/Rust symbol names\n"
		    "      --symfs DIR         read the DSOs' files under DIR (DIR/usr/lib/x.so for\n"
		    "                          /usr/lib/x.so), as perf's: a recording of another\n"
		    "                          machine; kernel symbols then only from --kallsyms\n"
		    "      --kallsyms FILE     kernel symbols from FILE (a copy of /proc/kallsyms)\n"
		    "      --export=FORMAT     write the profile as pprof (gzip protobuf) or speedscope (JSON)\n"
		    "  -o, --output FILE       the file --export or --html writes (required with them)\n"
		    "      --html              write one self-contained HTML page (flame graph, icicle,\n"
		    "                          table, callers/callees, annotations) to -o FILE; -i may\n"
		    "                          also name a folded-stacks file\n"
		    "      --diff OLD NEW      with --html: the two profiles compared (perf.data or folded)\n");
}

/* On a terminal: where to go next, for the hottest function (quoted for
 * the shell when it needs it; a name with a quote or control byte is not
 * repeated). */
/* s as one shell word: as it is when plain, else in single quotes; NULL
 * when it cannot be (a quote or control byte in it). */
static const char *shell_word(const char *s, char *buf, size_t len)
{
	bool plain = *s != 0;

	for (const char *p = s; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '\'')
			return NULL;
		if (!(*p == '_' || *p == ':' || *p == '.' || *p == '/' || *p == '-' || *p == '+' ||
		      *p == ',' || *p == '@' || *p == '=' || (*p >= '0' && *p <= '9') ||
		      ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z')))
			plain = false;
	}
	if (plain)
		return s;
	if (strlen(s) + 3 > len)
		return NULL;
	snprintf(buf, len, "'%s'", s);
	return buf;
}

static void print_hint(const char *input, const char *sym)
{
	static char ib[4096], sb[4096];
	const char *in = strcmp(input, "perf.data") ? shell_word(input, ib, sizeof(ib)) : "";
	const char *sy = shell_word(sym, sb, sizeof(sb));

	printf("# hint: `perfkit annotate%s%s %s` shows the instructions and source lines of the "
	       "hottest function\n", *input && strcmp(input, "perf.data") ? " -i " : "",
	       in ? in : "FILE", sy ? sy : "SYMBOL");
}

static void print_warnings(void)
{
	pk_warnings_print(stderr, "perfkit report");
}

static int report_browse(struct report *r, const char *input, double limit, const struct session_opts *so,
			 struct session **sess, bool color, const char *sort);

/* --html [--diff OLD NEW] -o FILE: the page of export/html.h instead of
 * the table. */
static int report_html(bool html, bool diff, const char *input, int nargs, char **args,
		       struct session_opts *so, const struct report *r, const char *sort, double limit,
		       bool no_children)
{
	struct html_opts o;
	int err;

	if (!html || !export_path || export_kind || nargs != (diff ? 2 : 0)) {
		fprintf(stderr, "perfkit report: %s\n",
			!html ? "--diff needs --html (perfkit diff compares two files as text)"
			: !export_path ? "--html needs -o FILE.html"
			: export_kind ? "--html and --export write different files: one at a time"
			: diff ? "--html --diff needs two files: OLD NEW"
			       : "unexpected argument (two files need --diff)");
		return 2;
	}
	/* a page that cannot be written is said before the profile is read
	 * (seconds on a big one, and its warnings after the error) */
	char *dir = xstrdup(export_path), *slash = strrchr(dir, '/');
	const char *d = !slash ? "." : slash == dir ? "/" : (*slash = 0, dir);
	int werr = access(export_path, F_OK) && access(d, W_OK | X_OK) ? errno : 0;

	free(dir);
	if (werr) {
		fprintf(stderr, "perfkit report: cannot write '%s': %s\n", export_path, strerror(werr));
		return 1;
	}
	html_opts_init(&o);
	o.output = export_path;
	o.input = diff ? args[1] : input;
	o.base = diff ? args[0] : NULL;
	o.so = *so;
	if (!o.so.max_stack)   /* perf's default --max-stack */
		o.so.max_stack = (int)ev_max_stack();
	/* the table's rows are functions (dso, sym): --sort orders rows of
	 * equal percentages by those two keys; the others have no column */
	o.sort = sort;
	o.percent_limit = limit;
	o.no_children = no_children;
	for (int k = 0; sort && k < r->nr_keys; k++)
		if (r->keys[k] != K_DSO && r->keys[k] != K_SYM)
			pk_warn("--html: the page's table has a row per function (dso, sym): sort key '%s' left out",
				r->keys[k] == K_COMM ? "comm" : r->keys[k] == K_PID ? "pid" :
				r->keys[k] == K_TID ? "tid" : r->keys[k] == K_TRACE ? "trace" :
				r->keys[k] == K_CPU ? "cpu" : "srcline");
	pk_error_clear();
	err = html_report(&o);
	if (err < 0)
		fprintf(stderr, "perfkit report: %s\n", pk_errmsg());
	print_warnings();
	return err < 0 ? 1 : 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "no-children", no_argument, NULL, 'N' },
		{ "children", no_argument, NULL, 1010 },
		{ "call-graph", optional_argument, NULL, 'g' },
		{ "inverted", no_argument, NULL, 'G' },
		{ "sort", required_argument, NULL, 's' },
		{ "percent-limit", required_argument, NULL, 'P' },
		{ "fields", required_argument, NULL, 'F' },
		{ "stdio", no_argument, NULL, 1008 },
		{ "comms", required_argument, NULL, 'c' },
		{ "dsos", required_argument, NULL, 'd' },
		{ "symbols", required_argument, NULL, 'S' },
		{ "pid", required_argument, NULL, 1004 },
		{ "tid", required_argument, NULL, 1005 },
		{ "percentage", required_argument, NULL, 1006 },
		{ "cpu", required_argument, NULL, 'C' },
		{ "time", required_argument, NULL, 1009 },
		{ "show-nr-samples", no_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "inline", no_argument, NULL, 'I' },
		{ "no-inline", no_argument, NULL, 'X' },
		{ "force", no_argument, NULL, 'f' },
		{ "hide-unresolved", no_argument, NULL, 'U' },
		{ "symbol-filter", required_argument, NULL, 1011 },
		{ "max-stack", required_argument, NULL, 'M' },
		{ "no-demangle", no_argument, NULL, 'D' },
		{ "demangle", no_argument, NULL, 1014 },
		{ "tui", no_argument, NULL, 1015 },
		{ "export", required_argument, NULL, 'E' },
		{ "output", required_argument, NULL, 'o' },
		{ "no-color", no_argument, NULL, 'K' },
		{ "html", no_argument, NULL, 1000 },
		{ "diff", no_argument, NULL, 1001 },
		{ "header", no_argument, NULL, 1002 },
		{ "header-only", no_argument, NULL, 1003 },
		{ "stats", no_argument, NULL, 1012 },
		{ "show-total-period", no_argument, NULL, 1013 },
		{ "field-separator", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "group", no_argument, NULL, 1016 },
		{ "no-group", no_argument, NULL, 1017 },
		{ "group-sort-idx", required_argument, NULL, 1018 },
		{ "symfs", required_argument, NULL, 1019 },
		{ "show-cpu-utilization", no_argument, NULL, 1021 },
		{ "tasks", no_argument, NULL, 1022 },
		{ "mmaps", no_argument, NULL, 1023 },
		{ "showcpuutilization", no_argument, NULL, 1021 },
		{ "kallsyms", required_argument, NULL, 1020 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report r = { .keys = { K_COMM, K_DSO, K_SYM }, .nr_keys = 3,
			    .cg = { .mode = CG_GRAPH, .threshold = 0.5, .order = CG_CALLEE } };
	const char *input = pd_default_path();
	int no_children = 0, c, err, header = 0;
	double limit = 0;
	struct session *s;
	struct session_opts so = { 0 };
	bool has_cc = false, g_given = false, order_set = false, inverted = false, stdio = false, no_color = false, html = false, html_diff = false, tui;
	int user_max_stack = 0;   /* --max-stack as given */
	const char *sort = "comm,dso,sym";
	char sort_buf[256];
	bool sort_given = false, stats_only = false, tasks = false, mmaps = false;
	const char *fields = NULL;   /* -F/--fields */
	char fields_buf[256];

	export_kind = export_path = NULL;   /* a second call (the option fuzz harness) */
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:s:g::Gho:nqfvc:d:S:C:F:t:U", opts, NULL)) != -1) {
		switch (c) {
		case 'i': input = optarg; break;
		case 'N': no_children = 1; break;
		case 1010: no_children = 0; break;
		case 'g': {
			/* perf's -g takes the next word as its value unless that
			 * is an option (or there is none) */
			const char *arg = optarg;

			if (!arg && optind < argc && argv[optind][0] != '-')
				arg = argv[optind++];
			/* a bare -g is perf's CALLCHAIN_DEFAULT_OPT: caller order
			 * stated, with --no-children too */
			if (!arg)
				arg = "graph,0.5,caller,function,percent";
			if (cg_parse(&r.cg, arg, &order_set)) {
				fprintf(stderr, "perfkit report: bad -g '%s': %s\n", arg, pk_errmsg());
				return 2;
			}
			g_given = r.cg.mode != CG_NONE;
			break;
		}
		case 'G': inverted = true; break;
		case 's':
			sort = keys_norm(sort_buf, sizeof(sort_buf), optarg);
			if (parse_sort(&r, sort))
				return 2;
			sort_given = true;
			r.cg.skip_first = !strncmp(sort, "sym", 3);
			break;
		case 'P':
			/* as perf reads it (parse_percent_limit: strtof's number,
			 * never an error): "5%" is 5, "abc" 0, over 100 or inf
			 * hides every row, negative or nan hides none */
			limit = strtof(optarg, NULL);
			r.cg.threshold = limit;   /* perf: the call graph's too */
			break;
		case 1008: stdio = true; break;
		case 1015: stdio = false; break;   /* perf's --tui: the browser (on a terminal) */
		case 1014: so.no_demangle = false; break;
		case 'c': sfilt_names_set(&r.sf.comms, optarg); break;
		case 'd': sfilt_names_set(&r.sf.dsos, optarg); break;
		case 'S': sfilt_names_set(&r.sf.syms, optarg); break;
		case 1004: case 1005: case 'C': case 1009:
			if (c == 'C' ? sfilt_cpus(&r.sf, "--cpu", optarg) :
			    c == 1009 ? (r.time_arg = optarg, sfilt_time(&r.sf, "--time", optarg)) :
			    sfilt_ids(&r.sf, c == 1005, c == 1004 ? "--pid" : "--tid", optarg)) {
				fprintf(stderr, "perfkit report: %s\n", pk_errmsg());
				return 2;
			}
			break;
		case 1006:
			if (strcmp(optarg, "relative") && strcmp(optarg, "absolute")) {
				fprintf(stderr, "perfkit report: bad --percentage '%s' (expected relative or absolute)\n",
					optarg);
				return 2;
			}
			r.relative = !strcmp(optarg, "relative");
			break;
		case 'K': no_color = true; break;
		case 'n': r.show_nr = true; break;
		case 'F': fields = keys_norm(fields_buf, sizeof(fields_buf), optarg); break;
		case 'q': r.quiet = true; break;
		case 'I': case 'X': break;   /* report's frames never include inlined ones */
		case 'f': break;             /* no ownership check to skip */
		case 'U': r.hide_unresolved = true; break;
		case 1011: r.sym_filter = optarg; break;
		case 'M':
			if (pk_parse_int("--max-stack", optarg, 0, 1000000, &so.max_stack)) {
				fprintf(stderr, "perfkit report: %s\n", pk_errmsg());
				return 2;
			}
			user_max_stack = so.max_stack;
			if (!so.max_stack)   /* perf's idiom: no chains (Children = Self) */
				so.no_callchain = true;
			break;
		case 'D': so.no_demangle = true; break;
		case 'E':
			if (strcmp(optarg, "pprof") && strcmp(optarg, "speedscope")) {
				fprintf(stderr, "perfkit report: bad --export '%s' (expected pprof or speedscope)\n",
					optarg);
				return 2;
			}
			export_kind = optarg;
			break;
		case 'o': export_path = optarg; break;
		case 1000: html = true; break;
		case 1001: html_diff = true; break;
		case 1002: header = 1; break;
		case 1003: header = 2; break;
		case 1012: stats_only = true; break;
		case 1013: r.show_period = true; break;
		case 't':
			if (optarg[0] == '.') {   /* perf's refusal: a row's "..." */
				fprintf(stderr, "perfkit report: '.' is the only non valid --field-separator argument\n");
				return 2;
			}
			/* perf: an empty one is none */
			r.field_sep = *optarg ? optarg : NULL;
			r.cg.folded_sep = r.field_sep;   /* -g folded's frames too */
			stdio |= r.field_sep != NULL;   /* text made for scripts */
			break;
		case 'v': pk_set_verbose(1); break;
		case 1016: r.group = 1; break;
		case 1017: r.group = -1; break;
		case 1018:
			if (pk_parse_int("--group-sort-idx", optarg, INT_MIN, INT_MAX, &r.group_sort_idx)) {
				fprintf(stderr, "perfkit report: %s\n", pk_errmsg());
				return 2;
			}
			break;
		case 1019: so.symfs = optarg; break;
		case 1021: r.show_sys = true; break;
		case 1022: tasks = true; break;
		case 1023: tasks = mmaps = true; break;
		case 1020: so.kallsyms = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (session_opts_check(&so)) {   /* --kallsyms, --symfs */
		fprintf(stderr, "perfkit report: %s\n", pk_errmsg());
		return 1;
	}
	if (fields && parse_fields(&r, fields, sort_given))
		return 2;
	if (r.show_sys && !fields) {
		/* perf's columns are its sort too: Children, Self, the keys,
		 * then sys and usr (larger first; perf_hpp__append_sort_keys) */
		r.sorts[r.nr_sorts++] = (struct rfield){ 'c', 0 };
		r.sorts[r.nr_sorts++] = (struct rfield){ 's', 0 };
		for (int k = 0; k < r.nr_keys; k++)
			r.sorts[r.nr_sorts++] = (struct rfield){ 'k', k };
		r.sorts[r.nr_sorts++] = (struct rfield){ 'y', 0 };
		r.sorts[r.nr_sorts++] = (struct rfield){ 'u', 0 };
		r.sys_sorts = true;
	}
	if (fields)   /* perf skips a sym-sorted chain's first line only without -F */
		r.cg.skip_first = false;
	if (pk_options_only && (html || html_diff))   /* the option fuzz harness */
		return 0;
	if ((html || html_diff) && (sfilt_active(&r.sf) || r.relative)) {
		fprintf(stderr, "perfkit report: --html does not take the filters (--comms, --pid, --tid, -C, "
			"--time, --dsos, --symbols, --percentage): the page shows the whole profile\n");
		return 2;
	}
	if (html || html_diff)
		return report_html(html, html_diff, input, argc - optind, argv + optind, &so, &r,
				   sort_given ? sort : NULL, limit, no_children);
	if (optind < argc) {
		fprintf(stderr, "perfkit report: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}

	if (!export_kind != !export_path) {
		fprintf(stderr, "perfkit report: %s\n", export_kind ? "--export needs -o FILE" : "-o FILE needs --export");
		return 2;
	}
	if (pk_options_only)   /* the option fuzz harness: stop before reading */
		return 0;
	if (header == 1 && !strcmp(input, "-")) {
		fprintf(stderr, "perfkit report: --header reads the input twice: give a file (--header-only reads a pipe)\n");
		return 2;
	}
	if (header) {
		if (print_header(input))
			return 1;
		if (header == 2)
			return 0;
		stdio = true;
	}
	if (!so.max_stack)   /* perf's default --max-stack */
		so.max_stack = (int)ev_max_stack();
	pk_error_clear();
	if (tasks)   /* the threads alone: the chains not read (the samples still are: their COMMs) */
		so.no_callchain = true;
	if (stats_only)   /* counts only: no sample resolved, nor unwound */
		so.no_callchain = so.counts_only = true;
	hm_init(&r.trace_names);
	hm_init(&r.comm_tid);
	err = session_open(&s, input, &so);
	if (err) {
		fprintf(stderr, "perfkit report: %s\n", pk_errmsg());
		print_warnings();
		return 1;
	}
	if (tasks) {   /* perf's --tasks: the threads alone */
		err = report_tasks(s, mmaps);
		print_warnings();
		session_close(s);
		return err;
	}
	if (stats_only) {   /* perf's --stats: the counts alone */
		err = report_stats(s);
		print_warnings();
		session_close(s);
		return err;
	}
	r.f = session_file(s);
	if (sfilt_check(&r.sf, r.f, input)) {
		fprintf(stderr, "perfkit report: %s\n", pk_errmsg());
		session_close(s);
		return 1;
	}
	/* a file of tracepoints only: perf's default rows are their trace
	 * output (sort.c's default_tracepoint_sort_order) */
	bool all_tp = r.f->nr_evsels > 0, any_tp = false;

	for (size_t i = 0; i < r.f->nr_evsels; i++) {
		all_tp &= r.f->evsels[i].attr.type == PERF_TYPE_TRACEPOINT;
		any_tp |= r.f->evsels[i].attr.type == PERF_TYPE_TRACEPOINT;
	}
	if (all_tp && !sort_given && !fields) {
		r.keys[0] = K_TRACE;
		r.nr_keys = 1;
	}
	keys_tag_threads(&r);
	if (any_tp && r.f->tracing_data &&
	    tp_tracing_data_parse(r.f->tracing_data, r.f->tracing_data_size, &r.tps))
		pk_error_clear();   /* no format: the trace key shows N/A */
	for (int k = 0; k < r.nr_keys; k++)
		if (r.keys[k] == K_SRCLINE)
			r.by_ip = true;
	if (r.cg.key != CG_KEY_FUNCTION)   /* the call graphs' frames per address */
		r.by_ip = true;
	r.sess = s;
	for (size_t i = 0; i < r.f->nr_evsels; i++)
		if (r.f->evsels[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN)
			has_cc = true;
	/* perf reading pipe-mode data (a pipe, or a file of it) decides
	 * Children before the stream's attrs say whether there are call
	 * chains, and drops it: Self only, the call graphs still in the caller
	 * order it took for Children */
	bool pipe_in = r.f->pipe_mode;

	if (g_given && !has_cc && !pipe_in && r.f->nr_evsels) {   /* perf's report__setup_sample_type */
		fprintf(stderr, "perfkit report: %s: -g given but the samples have no call chains "
			"(recorded without -g or --call-graph)\n", input);
		report_names_free(&r);
		session_close(s);
		return 1;
	}

	r.children = has_cc && !no_children && !pipe_in;
	r.graph = has_cc && r.cg.mode != CG_NONE && !export_kind && !so.no_callchain;
	r.no_chains = so.no_callchain;
	r.cg_order_set = inverted || order_set || (pipe_in && !no_children);   /* pipe: perf's caller kept */
	if (inverted)
		r.cg.order = CG_CALLER;
	else if (!order_set)
		r.cg.order = r.children || (pipe_in && !no_children) ? CG_CALLER : CG_CALLEE;
	if (user_max_stack && r.cg.order == CG_CALLER) {
		/* perf keeps the outermost frames then (on_sample): the
		 * session reads whole chains */
		r.outer_max = user_max_stack;
		session_set_max_stack(s, 0);
	}
	r.hists = xcalloc(r.f->nr_evsels, sizeof(*r.hists));
	/* the events' groups (HEADER_GROUP_DESC); --group or --no-group
	 * without any: all one group, as perf's evlist__force_leader */
	bool grouped = false;

	if (r.f->nr_evsels > 1) {
		r.leader_of = xmalloc(r.f->nr_evsels * sizeof(*r.leader_of));
		r.group_name = xcalloc(r.f->nr_evsels, sizeof(*r.group_name));
		/* (perf forces it for --no-group too: its leader's title then
		 * says "events") */
		size_t ng = pd_event_groups(r.f, r.leader_of, r.group_name);

		if (!ng && r.group) {
			memset(r.leader_of, 0, r.f->nr_evsels * sizeof(*r.leader_of));
			r.group_forced = true;
		}
		grouped = ng || r.group_forced;
	}
	if (r.group_sort_idx && !grouped) {   /* perf's usage error */
		fprintf(stderr, "perfkit report: --group-sort-idx: %s has no event groups (record -e '{a,b}', "
			"or --group to make its events one)\n", input);
		free(r.leader_of);
		free(r.group_name);
		free(r.hists);
		report_names_free(&r);
		session_close(s);
		return 2;
	}
	if (export_kind) {
		report_export = export_new_file(r.f);
		report_feed = export_feed_new();
	}
	/* on a terminal: the browser (src/lib/tui), else text */
	tui = !stdio && !export_kind && strcmp(input, "-") && tui_usable();
	/* rows alone unless something reads the stacks (call graphs, the
	 * browser's '+') or a key is per address (srcline) */
	bool sym_key = false, srcline_key = false;

	for (int k = 0; k < r.nr_keys; k++) {
		sym_key |= r.keys[k] == K_SYM;
		srcline_key |= r.keys[k] == K_SRCLINE;
	}
	place_filters(&r);
	/* the flat rows keep no first thread: the model's rows do */
	r.flat = !r.graph && !tui && !r.by_ip && !r.row_threads;
	if (r.flat)   /* arrays of MBs each phase frees given back at once, not
		       * kept in the heap by glibc's threshold grown to 32 MB */
		mallopt(M_MMAP_THRESHOLD, 1 << 20);
	r.keep_models = tui;
	/* the browser's models keep their frames per address, so that 's'
	 * with srcline makes its rows from them, not from the file read
	 * again: on a compile job's 985 k samples 0.4 s of CPU against 3.3 s,
	 * for 8 % more memory at the first screen (496 -> 539 MB) and no
	 * slower an opening within its noise */
	if (tui)
		r.by_ip = true;
	if (tui) {
		/* the browser's 's' and '+' make and free arrays of MBs per
		 * 100 k rows (146 MB for 1.5 M rows): all of them from the
		 * heap, none mapped (a mapping freed is given back, and the
		 * next one zeroed by the kernel anew), and the heap never
		 * trimmed, so each derivation reuses the pages of the last
		 * (on a compile job's 1.47 M samples: 's sym' 58 -> 45 ms of
		 * CPU, 's sym,tid' the first time 545 -> 424 ms; the memory
		 * after it 1.09 -> 1.25 GB) */
		mallopt(M_MMAP_MAX, 0);
		mallopt(M_TRIM_THRESHOLD, 1 << 30);
	}
	/* perf orders rows of equal Children by their chains' depth only
	 * within one thread (the row's first, hist_entry->thread): the rows
	 * need their threads then (tie_depth) */
	r.by_thread = tui || (r.children && r.graph) || r.row_threads;
	for (int k = 0; k < r.nr_keys; k++)
		r.by_thread |= r.keys[k] == K_PID || r.keys[k] == K_TID;
	r.entry_syms = sym_filter_on(&r) && !tui && !sym_key && !srcline_key;
	/* the levels of the view with Children: the browser opened without
	 * them takes them for its '+' (caller order unless -g or -G named
	 * one); the Self view's rows are leaves, whose level stays */
	r.chain_lv = r.children ? (int)r.cg.order
		   : tui && has_cc ? (int)(r.cg_order_set ? r.cg.order : CG_CALLER) : -1;
	/* perf's two entries of a leaf address with no symbol (a sym key
	 * tells them apart): in the text */
	r.split_unk = r.children && sym_key && !srcline_key && !tui && !export_kind;
	r.sf_when = r.sf.cpus || r.sf.nr_times;
	if (tui)
		r.leaves = ann_leaves_new();
	err = session_process(s, on_sample, &r);
	if (err >= 0)
		rename_comms(&r);
	if (err >= 0 && report_export)
		err = write_export();
	if (err >= 0 && tui) {
		const char *nc = getenv("NO_COLOR");

		err = report_browse(&r, input, limit, &so, &s, !no_color && !(nc && *nc), sort);
		tui = err != 1;
		err = err == 1 ? 0 : err;
	}
	if (err < 0) {
		fprintf(stderr, "perfkit report: %s\n", pk_errmsg());
	} else if (!report_export && !tui) {
		static char outbuf[1 << 18];
		static bool outbuf_set;
		uint64_t nr = 0;

		/* the table's first output: written in 256 KiB pieces, not 4 KiB
		 * (a row per symbol and comm: 84 MB on a compile job's file) */
		if (!outbuf_set && !isatty(STDOUT_FILENO)) {
			setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
			outbuf_set = true;
		}
		/* perf report's first lines; the "# symbol: main" lines of
		 * elided columns (also with -q), then the table's head */
		if (!r.quiet && !header)
			printf("%s#\n", header_note);
		print_elided(&r);
		if (!r.quiet)
			printf("#\n# Total Lost Samples: %" PRIu64 "\n#\n", session_stats(s)->nr_lost);
		for (size_t i = 0; i < r.f->nr_evsels; i++) {
			uint64_t total;

			/* perf's group view: a group's events in one table */
			if (r.leader_of && r.group >= 0) {
				size_t *ev, ne = 0;
				uint64_t gs = 0;

				if (r.leader_of[i] != i)
					continue;   /* printed with its leader */
				ev = xmalloc(r.f->nr_evsels * sizeof(*ev));
				for (size_t j = i; j < r.f->nr_evsels; j++)
					if (r.leader_of[j] == i) {
						ev[ne++] = j;
						gs += r.hists[j].nr_samples;
					}
				if (ne > 1 && gs)
					print_group(&r, ev, ne, limit);
				free(ev);
				if (ne > 1) {
					nr += gs;
					continue;
				}
			}
			/* as perf's (default) --skip-empty: an event with no
			 * sample to show prints nothing */
			if (!r.hists[i].nr_samples || (r.hide_unresolved && !hist_shown(&r, &r.hists[i], &total, NULL)))
				continue;
			print_hist(&r, &r.f->evsels[i], &r.hists[i], limit);
			nr += r.hists[i].nr_samples;
		}
		if (!nr && !r.quiet)
			printf("# no samples in %s\n", input);
		/* perf report warns too ("lost N chunks") */
		if (session_stats(s)->nr_lost_records && !r.quiet)
			fprintf(stderr, "perfkit report: warning: %s: %" PRIu64 " events were lost while recording "
				"(the ring buffer was full: check I/O or CPU load, or record with a bigger -m)\n",
				input, session_stats(s)->nr_lost_records);
	}
	if (err >= 0 && !report_export && !tui && r.hint_sym && !r.quiet && isatty(STDOUT_FILENO))
		print_hint(input, r.hint_sym);
	if (r.quiet)
		pk_warnings_take();   /* perf's -q: no warnings or messages */
	else
		print_warnings();
	for (size_t i = 0; i < r.f->nr_evsels; i++) {
		hist_free(&r.hists[i]);
	}
	free(r.hists);
	for (size_t i = 0; r.group_name && i < r.f->nr_evsels; i++)
		free(r.group_name[i]);
	free(r.group_name);
	free(r.leader_of);
	free(r.kept_frames);
	ann_leaves_free(r.leaves);
	export_free(report_export);
	report_export = NULL;
	export_feed_free(report_feed);
	report_feed = NULL;
	report_names_free(&r);
	session_close(s);
	return err < 0 ? 1 : 0;
}

/* ---- on a terminal: the browser (src/lib/tui) ----
 * The first event with samples, its rows as print_hist() orders and
 * filters them; call graphs from the same stacks (trees built for the
 * Children or the Self view, each once); 's' and '+' derive the rows again
 * from the models (the file is read again only for srcline, whose frames
 * are per address); 'a' annotates from the leaf samples report's own pass
 * counted (annotate/annotate.h ann_leaves), disassembling the one symbol. */
#define RT_ANNS 8   /* annotations kept */

struct report_tui {
	struct report *r;
	size_t ev;                    /* the event shown (Tab): its hists index + 1,
					 0: the first with samples */
	struct tui_row *rows_keep;    /* t.rows' memory, kept between tables */
	size_t rows_cap;
	struct session **sess;
	const char *input;
	struct session_opts so;
	double limit;
	char sort[256];
	struct hist *h;
	uint64_t total;
	size_t *hrow;                 /* table row -> h->rows index */
	uint32_t *trees[2];           /* per h row: [0] Self view, [1] Children view */
	struct cg_params cg[2];
	bool *show;
	struct pk_arena texts;
	const char **textv;
	struct tui_table t;
	char title[512], head[512];
	char *elided[K_MAX];          /* t.elided's texts (the filters' names) */
	struct inline_resolver *inl;
	pthread_t warm;               /* rt_idle's thread, annotating the row
					 the browser rests on (rt_warm_main) */
	bool warming;
	atomic_bool warm_done;
	char *warm_file;              /* its input: the row's ELF file ... */
	struct ann_profile *warm_p;   /* ... and its samples by address */
	const struct row *warm_row;   /* the row of warm_text */
	char *warm_text;              /* what 'a' shows for warm_row, or NULL */
	size_t warm_len;
	struct rt_ann {               /* annotations made (in a pause or by
					 'a'): 'a' on their rows shows them */
		const struct row *row;
		char *text;
		size_t len;
	} ann[RT_ANNS];
	unsigned ann_next;            /* the slot the next one takes */
	pthread_t prep;               /* a thread started when a table is made,
					 forest and one view's trees (rt_prep_main) */
	bool preparing;
	atomic_bool prep_done;        /* it has made its trees */
	pid_t prep_pid;               /* the process that started it */
	int prep_c;                   /* the view it makes: 1 Children, 0 Self */
	struct report prep_r;         /* its copy of the report's settings */
	uint32_t *prep_trees;
	struct pk_reserve *reserve;   /* rt_reserve()'s, ended by the next
					 derivation (rt_regroup) */
	pthread_t rest;               /* sorting the rows past the first
					 screen's (rt_rest_main) */
	bool resting;
	pid_t rest_pid;               /* the process that started it */
	atomic_bool rest_stop, rest_done;
	struct sortrec *rest_v;       /* its copy of h->ord[nr_sorted..nr) */
	size_t rest_n;
	size_t rest_at, rest_end;     /* the table rows it fills: from the
					 first not ready, to here */
	struct rt_graphs {            /* rt_fill_from()'s: whether a row has
					 a call graph (--stdio would print one) */
		bool on;
		uint64_t min_hit;
		bool children;
	} rest_g;
};

static void rt_prep_join(struct report_tui *rt);

static void rt_warm_forget(struct report_tui *rt);

static bool rt_rest_join(struct report_tui *rt, bool keep);

static void rt_release_hist(struct report_tui *rt)
{
	rt_rest_join(rt, false);
	rt_prep_join(rt);
	rt_warm_forget(rt);   /* its row is of this table */
	for (int c = 0; c < 2; c++) {
		free(rt->trees[c]);
		rt->trees[c] = NULL;
	}
	free(rt->hrow);
	free(rt->show);
	if (rt->t.rows)   /* reused by the next table */
		rt->rows_keep = rt->t.rows;
	free(rt->textv);
	pk_arena_release(&rt->texts);
	rt->hrow = NULL;
	rt->show = NULL;
	rt->t.rows = NULL;
	rt->textv = NULL;
}

/* Table row i's text of key k, made when the browser shows it (tui.h):
 * most rows of a large table are never on screen. */
static const char *rt_text(void *ctx, size_t i, int k)
{
	struct report_tui *rt = ctx;
	const char *t = key_text(rt->h, &rt->h->rows[rt->hrow[i]], rt->r->keys[k]);

	return rt->t.rows[i].text[k] = pk_arena_memdup0(&rt->texts, t, strlen(t));
}

/* The Command column's width as print_hist's (comm_shown) */
static size_t rt_text_len(void *ctx, size_t i, int k)
{
	struct report_tui *rt = ctx;

	(void)k;
	return comm_shown_len(rt->r, &rt->h->rows[rt->hrow[i]]);
}

/* How many rows a key sorts before the screen shows them: more than a
 * screen, with room to scroll (PERFKIT_TUI_READY=N: N, for the tests of
 * the rest's order on small profiles) */
#define RT_READY 2048

/* The most rows the browser sorts whole as it makes a table, for perf's
 * order of rows of equal Children from threads apart (perf_output_order):
 * on a parallel build's profile, 8.8 k rows, a few milliseconds
 * (PERFKIT_TUI_WHOLE=N: N, for the tests of a table past it). */
#define RT_PERF_ORDER_MAX 100000

static size_t rt_whole_max(void)
{
	const char *e = getenv("PERFKIT_TUI_WHOLE");
	long n = e ? strtol(e, NULL, 10) : -1;

	return n >= 0 ? (size_t)n : RT_PERF_ORDER_MAX;
}

static size_t rt_ready(void)
{
	const char *e = getenv("PERFKIT_TUI_READY");
	long n = e ? strtol(e, NULL, 10) : 0;

	return n > 0 ? (size_t)n : RT_READY;
}

static void rt_fill(struct report_tui *rt, size_t from);
static void rt_warm_join(struct report_tui *rt);
static void rt_order_rest(void *ctx);
static bool rt_rest_ready(void *ctx);
static void rt_rest_start(struct report_tui *rt);
static void rt_prep_start(struct report_tui *rt);

/* The table of the event shown (rt->ev, else the first with samples;
 * print_hist's rows). */
static void rt_prepare(struct report_tui *rt)
{
	struct report *r = rt->r;
	struct hist *h = NULL;
	const struct pd_evsel *ev = NULL;
	uint64_t total = 0;
	unsigned long n = 0;
	char unit = ' ';

	if (rt->ev && rt->ev <= r->f->nr_evsels &&
	    (n = (unsigned long)hist_shown(r, &r->hists[rt->ev - 1], &total, NULL))) {
		h = &r->hists[rt->ev - 1];
		ev = &r->f->evsels[rt->ev - 1];
	}
	for (size_t i = 0; i < r->f->nr_evsels && !h; i++)
		if ((n = (unsigned long)hist_shown(r, &r->hists[i], &total, NULL))) {
			h = &r->hists[i];
			ev = &r->f->evsels[i];
		}
	rt->h = h;
	rt->total = total;
	rt->t = (struct tui_table){ .title = rt->title, .stdio_head = rt->head, .sort = rt->sort,
				    .nr_keys = r->nr_keys, .children = r->children,
				    .show_children = r->children, .show_nr = r->show_nr,
				    .show_period = r->show_period, .total = total,
				    .text = rt_text, .text_len = rt_text_len, .text_ctx = rt };
	for (int k = 0; k < r->nr_keys; k++) {   /* print_hist's layout */
		rt->t.headers[k] = key_header(r->keys[k]);
		rt->t.cut[k] = r->keys[k] == K_COMM;
		rt->t.kind[k] = r->keys[k] == K_COMM ? 'c' : r->keys[k] == K_DSO ? 'd'
			      : r->keys[k] == K_PID || r->keys[k] == K_TID ? 't' : r->keys[k] == K_SYM ? 's' : 0;
		rt->t.pad_last[k] = key_pads_last(r->keys[k]);
		rt->t.unres_width[k] = (uint8_t)unres_width(r, r->keys[k]);
	}
	/* print_elided's columns: left out, a line each in 'P''s head */
	for (int k = 0; k < K_MAX; k++) {
		const struct sfilt_names *l = k < r->nr_keys ? key_elided(r, k) : NULL;

		free(rt->elided[k]);
		rt->elided[k] = l ? xstrndup(l->first, l->first_len) : NULL;
		rt->t.elided[k] = rt->elided[k];
	}
	rt->t.stdio_elide_at = strlen(header_note) + 2;   /* after its "#\n" */
	unit = count_unit(&n);
	char evname[256];   /* the file's text, escaped */

	snprintf(evname, sizeof(evname), "%s", ev ? ev->name : "none");
	str_term_escape_buf(evname, sizeof(evname));
	snprintf(rt->title, sizeof(rt->title), "Samples: %lu%c of event '%s', Event count (approx.): %" PRIu64,
		 n, unit, evname, total);
	snprintf(rt->head, sizeof(rt->head),
		 "%s#\n#\n# Total Lost Samples: %" PRIu64 "\n#\n"
		 "# Samples: %lu%c of event '%s'\n# Event count (approx.): %" PRIu64 "\n#\n",
		 header_note, session_stats(*rt->sess)->nr_lost, n, unit, evname, total);
	if (!h)
		return;
	/* the first rows sorted, the rest when the browser needs them
	 * (rt_order_rest): most keys see only the first screen */
	/* every row: the browser leaves out those under --percent-limit in
	 * the view shown (its Self or Children) */
	rt->t.percent_limit = rt->limit;
	/* a table of few rows from two threads or more sorted whole, in
	 * perf's order of equal Children (perf_output_order, as --stdio): a
	 * larger one's first screen is sorted alone, its equal rows by a
	 * plain sort, as a table of one thread's (its order a sort's) */
	hist_derive(r, h);   /* h->nr: hist_shown may not derive */
	bool whole = r->children && r->graph && h->nr <= rt_whole_max() && h->prof && prof_nr_threads(h->prof) > 1;

	rt->t.nr_rows = hist_order(r, h, 0, total, whole ? SIZE_MAX : rt_ready(), &rt->show, &rt->texts, NULL);
	if (whole)
		perf_output_order(r, h);
	rt->hrow = xcalloc(rt->t.nr_rows + 1, sizeof(*rt->hrow));
	if (rt->t.nr_rows + 1 > rt->rows_cap) {
		free(rt->rows_keep);
		rt->rows_cap = rt->t.nr_rows + 1;
		rt->rows_keep = xmalloc(rt->rows_cap * sizeof(*rt->t.rows));
	}
	rt->t.rows = rt->rows_keep;
	rt->t.order_rest = rt_order_rest;
	rt->t.rest_ready = rt_rest_ready;
	rt_fill(rt, 0);
	rt_rest_start(rt);   /* the rest sorted meanwhile */
	rt_prep_start(rt);   /* the first view's trees meanwhile, not after a pause */
}

/* Whether a row has a call graph: when --stdio would print one (its
 * trees are made on the first). */
static struct rt_graphs rt_graphs_of(const struct report_tui *rt)
{
	const struct report *r = rt->r;

	return (struct rt_graphs){ r->graph && (rt->h->of_node || rt->h->cg), cg_min_hit(&r->cg, rt->total),
				   r->children };
}

/* The table's rows from records v[0..n), from table row at on; returns
 * the table row after the last (reads the rows and rt->show only: the
 * rest thread's too, which passes its stop flag; else NULL). */
static size_t rt_fill_from(struct report_tui *rt, const struct sortrec *v, size_t n, size_t at, struct rt_graphs g,
			   const atomic_bool *stop)
{
	const struct hist *h = rt->h;

	for (size_t j = 0; j < n; j++) {
		size_t i = rec_row(h, &v[j]);
		const struct row *row = &h->rows[i];

		if (j % 65536 == 0 && stop && atomic_load(stop))   /* given up */
			break;

		if (!rt->show[i])
			continue;
		/* the Self view's tie: the keys' ranks then the row, as
		 * cmp_recs orders equal Self without Children (perf's
		 * --no-children); wide keys: the row alone */
		rt->t.rows[at] = (struct tui_row){ .children = row->children, .self = row->self, .nr = row->nr_self,
						   .comm = row->comm, .dso = row->dso, .sym = row->sym, .tid = row->tid,
						   .has_graph = g.on && (g.children ? row->children : row->self) >= g.min_hit,
						   .tie = h->wide ? (uint64_t)i : v[j].key };
		rt->hrow[at++] = i;
	}
	return at;
}

/* The table's rows from the sorted ones of h->ord[from..h->nr_sorted). */
static void rt_fill(struct report_tui *rt, size_t from)
{
	struct hist *h = rt->h;

	rt->t.nr_ready = rt_fill_from(rt, h->ord + from, h->nr_sorted - from, rt->t.nr_ready, rt_graphs_of(rt), NULL);
}

/* The rows past the first screen's sorted by a thread while the browser
 * waits for keys (rt_prepare starts it), on a copy of their records: a
 * pause, a scroll or 'P' takes the sorted copy (rt_order_rest), a new
 * table stops it.  On a compile job's 1.24 M rows of 's sym,tid', 330 ms
 * of the browser's thread in the pause after the key, when a key that
 * came then waited for it. */
static void *rt_rest_main(void *arg)
{
	struct report_tui *rt = arg;
	const struct hist *h = rt->h;

	(void)pk_thread_background();
	memcpy(rt->rest_v, h->ord + h->nr_sorted, rt->rest_n * sizeof(*rt->rest_v));
	sort_rest_of(rt->r, h, rt->rest_v, rt->rest_n, &rt->rest_stop);
	/* and their table rows, past the ready ones (which the browser reads
	 * meanwhile) */
	if (!atomic_load(&rt->rest_stop))
		rt->rest_end = rt_fill_from(rt, rt->rest_v, rt->rest_n, rt->rest_at, rt->rest_g, &rt->rest_stop);
	atomic_store(&rt->rest_done, true);
	return NULL;
}

static void rt_rest_start(struct report_tui *rt)
{
	struct hist *h = rt->h;

	if (rt->resting || !h || h->nr_sorted >= h->nr)
		return;
	rt->rest_n = h->nr - h->nr_sorted;
	rt->rest_v = xmalloc(rt->rest_n * sizeof(*rt->rest_v));
	rt->rest_g = rt_graphs_of(rt);   /* h->cg is set meanwhile (hist_cg_wait) */
	rt->rest_at = rt->t.nr_ready;
	atomic_store(&rt->rest_stop, false);
	atomic_store(&rt->rest_done, false);
	rt->rest_pid = getpid();
	rt->resting = !pthread_create(&rt->rest, NULL, rt_rest_main, rt);
	if (!rt->resting) {   /* sorted here when needed (rt_order_rest) */
		free(rt->rest_v);
		rt->rest_v = NULL;
	}
}

/* The thread ended (keep: let finish, its order put in h->ord; else
 * stopped).  True when h->ord's rest is sorted by it.  In a fork's child
 * ('P') the thread is not there: nothing (the child sorts itself). */
static bool rt_rest_join(struct report_tui *rt, bool keep)
{
	bool placed = false;

	if (!rt->resting)
		return false;
	rt->resting = false;
	if (rt->rest_pid != getpid())
		return false;
	if (!keep)
		atomic_store(&rt->rest_stop, true);
	pthread_join(rt->rest, NULL);
	if (keep && atomic_load(&rt->rest_done)) {
		struct hist *h = rt->h;

		memcpy(h->ord + h->nr_sorted, rt->rest_v, rt->rest_n * sizeof(*rt->rest_v));
		h->nr_sorted = h->nr;
		rt->t.nr_ready = rt->rest_end;
		placed = true;
	}
	free(rt->rest_v);
	rt->rest_v = NULL;
	return placed;
}

static bool rt_rest_ready(void *ctx)
{
	struct report_tui *rt = ctx;

	return !rt->resting || atomic_load(&rt->rest_done);
}

static void rt_order_rest(void *ctx)
{
	struct report_tui *rt = ctx;
	size_t from = rt->h->nr_sorted;

	if (rt_rest_join(rt, true))   /* sorted and filled by the thread */
		return;
	sort_rest(rt->r, rt->h);   /* no thread, or a fork's child */
	rt_fill(rt, from);
}

static int rt_graph(void *ctx, size_t i, bool children, FILE *fp)
{
	struct report_tui *rt = ctx;
	struct report *r = rt->r;
	const struct row *row;
	int c = children && r->children;

	rt_prep_join(rt);
	if (!rt->h || !hist_cg(rt->h) || i >= rt->t.nr_rows)
		return 0;
	if (!rt->trees[c]) {   /* each view's trees once, on its first call graph */
		bool was = r->children;
		struct cg_params cg = r->cg;

		r->children = c;
		r->cg = rt->cg[c];
		rt->trees[c] = build_trees(r, rt->h, rt->show, rt->total);
		r->children = was;
		r->cg = cg;
	}
	row = &rt->h->rows[rt->hrow[i]];
	if (rt->trees[c][rt->hrow[i]])
		cg_tree_print(fp, rt->h->cg, rt->trees[c][rt->hrow[i]], &rt->cg[c], rt->total,
			      c ? row->children : row->self);
	return 0;
}

/* The browser leaves its table (new keys, its end): the threads still
 * working for it stop instead of being waited for: the forest and the
 * first view's trees (hist cg_stop, at their next 64 k nodes or tree)
 * and the rest's sort.  On the compile job's file, an 's' half a
 * second after the first screen waited 154-387 ms for the trees. */
static void rt_give_up(struct report_tui *rt)
{
	for (size_t i = 0; i < rt->r->f->nr_evsels; i++)
		atomic_store(&rt->r->hists[i].cg_stop, true);
	rt_rest_join(rt, false);
}

/* After rt_give_up, the table kept after all: the forests and trees,
 * maybe stopped half made, are dropped, to be made again (hist_cg). */
static void rt_graphs_again(struct report_tui *rt)
{
	struct report *r = rt->r;

	rt_prep_join(rt);
	for (size_t i = 0; i < r->f->nr_evsels; i++) {
		struct hist *h = &r->hists[i];

		hist_cg_wait(h);
		if (atomic_load(&h->cg_stop)) {
			cg_forest_free(h->cg);
			h->cg = NULL;
			atomic_store(&h->cg_stop, false);
		}
	}
	for (int c = 0; c < 2; c++) {
		free(rt->trees[c]);
		rt->trees[c] = NULL;
	}
}

/* tui.h before_fork: no thread of the browser's left running.  The
 * forest and trees being made are stopped and dropped (made again on the
 * next need, by a thread: graph_ready), the rest's sort too (sorted here
 * when needed: rt_order_rest), and the selected row's annotation waited
 * for.  Work already done is kept. */
static void rt_before_fork(void *ctx)
{
	struct report_tui *rt = ctx;
	bool busy = rt->preparing && !atomic_load(&rt->prep_done);

	for (size_t i = 0; i < rt->r->f->nr_evsels; i++)
		busy |= rt->r->hists[i].cg_building;
	if (busy) {
		rt_give_up(rt);
		rt_graphs_again(rt);
	} else {
		rt_prep_join(rt);
		rt_rest_join(rt, false);
	}
	rt_warm_join(rt);
}

/* Tab / Shift-Tab (tui.h next_event): the next or previous event with
 * samples, its table made as the first one was (its rows derived on the
 * first need, kept for the way back). */
static int rt_next_event(void *ctx, int dir)
{
	struct report_tui *rt = ctx;
	struct report *r = rt->r;
	size_t n = r->f->nr_evsels, cur = rt->h ? (size_t)(rt->h - r->hists) : 0;

	for (size_t step = 1; step < n; step++) {
		size_t j = (cur + n + (dir > 0 ? step : n - step)) % n;
		uint64_t total;

		if (!r->hists[j].nr_samples || !hist_shown(r, &r->hists[j], &total, NULL))
			continue;
		rt_give_up(rt);   /* this table's helper threads stop */
		rt_warm_join(rt);
		rt_graphs_again(rt);   /* forests they left half made: made again on need */
		rt_release_hist(rt);
		rt->ev = j + 1;
		rt_prepare(rt);
		return 1;
	}
	return 0;
}

/* on_sample for the browser's second reading of the file ('s' with keys
 * the model cannot give): its progress on the status line, by samples. */
struct rt_reread {
	struct report *r;
	uint64_t done, total;
	const char *what;
};

static int rt_reread_sample(const struct pk_sample *s, void *arg)
{
	struct rt_reread *rr = arg;

	if (++rr->done % 8192 == 0)
		tui_progress(rr->what, rr->done, rr->total);
	return on_sample(s, rr->r);
}

static int rt_regroup(void *ctx, const char *spec, bool children)
{
	struct report_tui *rt = ctx;
	char keys_buf[256];
	const char *keys = keys_norm(keys_buf, sizeof(keys_buf), spec);
	struct report *r = rt->r;
	char *dup = xstrdup(keys), *save = NULL;
	struct session *ns = NULL;
	bool has_cc = false, need_ip = false, need_tags = false;
	int n = 0, err;

	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save), n++) {
		if (sort_key_of(tok) < 0 || n == KEYS_MAX) {
			err = n == KEYS_MAX ? pk_error(-EINVAL, "too many sort keys") :
			      pk_error(-EINVAL, "unknown sort key '%s' (comm, dso, sym, pid, tid, srcline, trace, cpu)", tok);
			free(dup);
			return err;
		}
	}
	free(dup);
	if (!n)
		return pk_error(-EINVAL, "no sort key");
	/* the pages faulted in a pause, free for the rows to come */
	pk_reserve_end(rt->reserve);
	rt->reserve = NULL;
	rt_give_up(rt);   /* the threads still making this table's graphs stop */
	rt_warm_join(rt);   /* nothing of the old table or session in use */
	rt_prep_join(rt);
	/* the filters' places the samples were read with (place_filters) */
	bool was_threads = r->row_threads, was_dsos = r->row_dsos, was_syms = r->row_syms;
	bool was_filter = r->sample_filter;

	parse_sort(r, keys);
	snprintf(rt->sort, sizeof(rt->sort), "%s", keys);
	for (int k = 0; k < r->nr_keys; k++) {
		need_ip |= r->keys[k] == K_SRCLINE;
		need_tags |= (r->keys[k] == K_TRACE && !r->trace_tags) || (r->keys[k] == K_CPU && !r->by_cpu);
	}
	/* the filters move between samples and rows with the keys (--comms
	 * without a comm key: by the rows' first threads, perf's) and with
	 * Children (--dsos, --symbols without their key): the samples read
	 * again then, as for lines */
	bool was_children = r->children;

	for (size_t i = 0; i < r->f->nr_evsels; i++)
		has_cc |= (r->f->evsels[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
	r->children = has_cc && children;
	bool refilter = place_filters(r);
	struct rt_reread rr = { .r = r, .total = session_stats(*rt->sess)->nr_samples,
				.what = need_ip && !r->by_ip ? "aggregating again: srcline reads the samples again" :
					need_tags ? "aggregating again: the key reads the samples again" :
						    "aggregating again: the filters read the samples again" };

	if ((need_ip && !r->by_ip) || need_tags || refilter) {
		/* lines differ within a function: the file once more, frames
		 * per address (before anything is freed); the warnings it
		 * repeats are queued once (pk_warn) */
		err = session_open(&ns, rt->input, &rt->so);
		if (err) {
			r->row_threads = was_threads;   /* the samples read as they were */
			r->row_dsos = was_dsos;
			r->row_syms = was_syms;
			r->sample_filter = was_filter;
			r->children = was_children;
			rt_graphs_again(rt);   /* the table stays: its graphs made anew */
			return err < 0 ? err : -EIO;
		}
	}
	r->cg.skip_first = r->nr_keys && r->keys[0] == K_SYM;
	rt->cg[0].skip_first = rt->cg[1].skip_first = r->cg.skip_first;
	rt_release_hist(rt);
	for (size_t i = 0; i < r->f->nr_evsels; i++)
		hist_underive(&r->hists[i]);
	r->cg = rt->cg[r->children];   /* r->children: set above, with the filters' places */
	if (ns) {
		for (size_t i = 0; i < r->f->nr_evsels; i++)
			hist_free(&r->hists[i]);
		session_close(*rt->sess);
		*rt->sess = ns;
		r->sess = ns;
		r->f = session_file(r->sess);
		r->by_ip |= need_ip;
		keys_tag_threads(r);   /* what the samples are read with now */
		ann_leaves_free(r->leaves);   /* counted again by this pass */
		r->leaves = ann_leaves_new();
		tui_progress(rr.what, 0, rr.total);
		err = session_process(r->sess, rt_reread_sample, &rr);
		tui_progress(rr.what, rr.total, rr.total);   /* the pass done: 100% */
		if (err < 0)
			return err;
		rename_comms(r);
	}
	/* else the rows from the models already there: no sample read again */
	rt_prepare(rt);
	return 0;
}

/* A kernel function whose code cannot be read (kcore unreadable: not
 * root, or kernel.kptr_restrict): as perf does without a vmlinux, its
 * address range, the sampled addresses with their shares and why there
 * are no instructions. */
static void kernel_addrs(FILE *fp, const struct ann_profile *p, const struct ann_func *f, const char *kcore)
{
	uint64_t end = f->start + f->size;

	for (size_t i = 0; !f->size && i < f->nr_addrs; i++)
		if (f->addrs[i].addr + 1 > end)
			end = f->addrs[i].addr + 1;
	fprintf(fp, " Percent |  Sampled addresses of [kernel.kallsyms] for %s (%" PRIu64 " samples, %.2f%% of all)\n",
		p->event ? p->event : "samples", f->self.hits,
		p->total_period ? 100.0 * (double)f->self.period / (double)p->total_period : 0);
	fprintf(fp, "---------------------------------------------------------------\n");
	fprintf(fp, "         :   %016" PRIx64 " <%s>: %016" PRIx64 "-%016" PRIx64 "%s\n", f->start,
		f->sym ? f->sym : "??", f->start, end, f->size ? "" : " (the size unknown: to the last sample)");
	for (size_t i = 0; i < f->nr_addrs; i++)
		if (f->addrs[i].self.hits)
			fprintf(fp, "%8.2f : %16" PRIx64 "\n",
				f->self.period ? 100.0 * (double)f->addrs[i].self.period / (double)f->self.period : 0,
				f->addrs[i].addr);
	/* why: a kernel without the file (CONFIG_PROC_KCORE), or a user who may
	 * not read it; in lines a 80-column screen shows whole */
	int why = access(kcore, F_OK) ? errno : access(kcore, R_OK) ? errno : 0;

	if (why == ENOENT)
		fprintf(fp, "No instructions: %s does not exist (this kernel has no\n"
			    "/proc/kcore to read its code from; perf needs it or a vmlinux)\n", kcore);
	else
		fprintf(fp, "No instructions: %s is not readable (%s; the kernel's code:\n"
			    "perf needs it or a vmlinux: run as root, kernel.kptr_restrict=0)\n", kcore,
			why ? strerror(why) : "its addresses hidden");
}

/* The annotation of function sym of dso (kernel or not), from the samples
 * report's own pass counted (r->leaves). */
static int rt_annotate_func(struct report_tui *rt, const char *dso, const char *sym, bool kernel, FILE *fp)
{
	struct report *r = rt->r;
	struct ann_profile *p;
	const char *file;
	int err;

	file = kernel ? kcore_path() : session_dso_file(r->sess, dso);
	err = ann_leaves_profile(r->leaves, r->f->evsels[rt->h - r->hists].name, dso, sym, kernel,
				 kernel ? NULL : file, &p);
	if (err)
		return err;
	if (kernel && access(file, R_OK))
		kernel_addrs(fp, p, p->funcs[0], file);
	else if (!file)
		err = pk_error(ENOENT, "%s: no file to read (deleted, or not ELF)", dso_short(dso));
	else
		err = tui_annotate_text(fp, p, p->funcs[0], file, rt->inl ? rt->inl : (rt->inl = inline_resolver_new()));
	ann_profile_free(p);
	return err;
}

static int rt_annotate_row(struct report_tui *rt, const struct row *row, FILE *fp)
{
	return rt_annotate_func(rt, row->dso, row->sym, row->kernel, fp);
}

/* 'a' on a call-graph line whose function no row has (keys without sym):
 * the function of that name with the most samples, in any DSO. */
static int rt_annotate_name(void *ctx, size_t i, const char *name, FILE *fp)
{
	struct report_tui *rt = ctx;
	const char *dso;
	bool kernel;
	int err;

	if (!rt->h || i >= rt->t.nr_rows || !rt->r->leaves)
		return -EINVAL;
	rt_warm_join(rt);   /* rt->inl is the thread's until then */
	err = ann_leaves_find(rt->r->leaves, rt->r->f->evsels[rt->h - rt->r->hists].name, name, &dso, &kernel);
	return err ? err : rt_annotate_func(rt, dso, name, kernel, fp);
}

/* The annotation kept for row, or NULL. */
static const struct rt_ann *rt_ann_find(const struct report_tui *rt, const struct row *row)
{
	for (size_t k = 0; k < RT_ANNS; k++)
		if (rt->ann[k].text && rt->ann[k].row == row)
			return &rt->ann[k];
	return NULL;
}

/* Keep text (malloc'd, len bytes: taken) as row's annotation, in the
 * oldest slot. */
static const struct rt_ann *rt_ann_keep(struct report_tui *rt, const struct row *row, char *text, size_t len)
{
	struct rt_ann *a = &rt->ann[rt->ann_next++ % (RT_ANNS)];

	free(a->text);
	*a = (struct rt_ann){ row, text, len };
	return a;
}

/* End text written to mem (open_memstream(buf, ...), NULL if that
 * failed) after a write that returned err: err, or -ENOMEM when the text
 * could not be made; *buf is freed and NULL unless 0 is returned. */
static int mem_text_end(FILE *mem, int err, char **buf)
{
	if (!mem)
		err = -ENOMEM;
	else if (fclose(mem) && !err)
		err = -ENOMEM;
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	return err;
}

/* The annotation of the row the browser rests on, written by a thread
 * while it waits for a key (the first 'a' on a function spent 90-130 ms
 * of CPU on libdw's lines and capstone, on libc's DWARF more).  The thread
 * owns rt->inl, warm_p and warm_file until joined; 'a' on that row then
 * shows warm_text.  It reads the ELF file only: nothing of the session. */
static void *rt_warm_main(void *arg)
{
	struct report_tui *rt = arg;
	char *buf = NULL;
	size_t len = 0;

	(void)pk_thread_background();   /* the keys' thread first */
	FILE *fp = open_memstream(&buf, &len);
	int err = fp ? tui_annotate_text(fp, rt->warm_p, rt->warm_p->funcs[0], rt->warm_file, rt->inl) : 0;

	if (mem_text_end(fp, err, &buf))   /* 'a' does it again and reports the error */
		pk_error_clear();
	rt->warm_text = buf;
	rt->warm_len = len;
	atomic_store(&rt->warm_done, true);
	return NULL;
}

static void rt_warm_join(struct report_tui *rt)
{
	if (!rt->warming)
		return;
	pthread_join(rt->warm, NULL);
	rt->warming = false;
	free(rt->warm_file);
	rt->warm_file = NULL;
	ann_profile_free(rt->warm_p);
	rt->warm_p = NULL;
	if (rt->warm_text)
		rt_ann_keep(rt, rt->warm_row, rt->warm_text, rt->warm_len);
	rt->warm_text = NULL;
	rt->warm_row = NULL;
}

/* Join the thread and drop the annotations kept (the rows they name are
 * going). */
static void rt_warm_forget(struct report_tui *rt)
{
	rt_warm_join(rt);
	for (size_t k = 0; k < RT_ANNS; k++) {
		free(rt->ann[k].text);
		rt->ann[k] = (struct rt_ann){ 0 };
	}
}

static int rt_annotate(void *ctx, size_t i, FILE *fp)
{
	struct report_tui *rt = ctx;
	const struct row *row;

	if (!rt->h || i >= rt->t.nr_rows || !rt->r->leaves)
		return -EINVAL;
	rt_warm_join(rt);
	row = &rt->h->rows[rt->hrow[i]];
	const struct rt_ann *a = rt_ann_find(rt, row);

	if (!a) {   /* made now, and kept */
		char *buf = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);
		int err = mem_text_end(mem, mem ? rt_annotate_row(rt, row, mem) : 0, &buf);

		if (err)
			return err;
		a = rt_ann_keep(rt, row, buf, len);
	}
	return fwrite(a->text, 1, a->len, fp) == a->len ? 0 : -EIO;
}

/* The first call graph's work, done by a thread while the browser waits
 * for a key: the forest of the model's stacks (hist_cg) and the trees of
 * the view shown (build_trees), so that the first Enter only prints.  It
 * reads the model and the rows, which nothing changes while it runs
 * (every path that does, 's', '+', '-', leaving, joins it first), and
 * writes only the forest and its own result. */
static void *rt_prep_main(void *arg)
{
	struct report_tui *rt = arg;
	const char *hold = getenv("PERFKIT_TUI_HOLD_GRAPHS");

	(void)pk_thread_background();   /* the keys' thread first */
	/* the tests' pause: until that file exists (ten minutes at most: a
	 * sanitized build on a loaded machine took over a minute), so that
	 * keys meet a call graph being made (tui.h graph_ready) */
	for (int i = 0; hold && *hold && i < 60000 && access(hold, F_OK) && !atomic_load(&rt->h->cg_stop); i++)
		usleep(10000);
	if (hist_cg(rt->h))
		rt->prep_trees = build_trees(&rt->prep_r, rt->h, rt->show, rt->total);
	atomic_store(&rt->prep_done, true);
	return NULL;
}

static void rt_prep_join(struct report_tui *rt)
{
	if (!rt->preparing)
		return;
	if (rt->prep_pid != getpid()) {   /* 'P''s child: no such thread here, its
					   * trees half made and the forest maybe
					   * in the middle of a change: both made
					   * again (hist_cg) */
		rt->preparing = false;
		rt->prep_trees = NULL;
		if (rt->h && !rt->h->cg_building)
			rt->h->cg = NULL;
		return;
	}
	pthread_join(rt->prep, NULL);
	rt->preparing = false;
	if (rt->prep_trees && !rt->trees[rt->prep_c])
		rt->trees[rt->prep_c] = rt->prep_trees;
	else
		free(rt->prep_trees);
	rt->prep_trees = NULL;
}

/* The thread for view c (1 Children, 0 Self), unless one runs. */
static void rt_prep_start_view(struct report_tui *rt, int c)
{
	struct report *r = rt->r;

	if (rt->preparing || !rt->h || !r->graph || rt->trees[c] || !rt->show)
		return;
	rt->prep_c = c;
	rt->prep_r = *r;
	rt->prep_r.children = c;
	rt->prep_r.cg = rt->cg[c];
	rt->prep_trees = NULL;
	rt->prep_pid = getpid();
	atomic_store(&rt->prep_done, false);
	rt->preparing = !pthread_create(&rt->prep, NULL, rt_prep_main, rt);
}

static void rt_prep_start(struct report_tui *rt)
{
	rt_prep_start_view(rt, rt->r->children);
}

/* tui.h graph_ready: the view's trees made (or no thread to wait for):
 * else their thread started, the first Enter of a view answering at once
 * rather than waiting for the forest and the trees (on a compile job's
 * 985 k samples, 0.9 s right after the first screen). */
static bool rt_graph_ready(void *ctx, size_t i, bool children)
{
	struct report_tui *rt = ctx;
	int c = children && rt->r->children;

	(void)i;
	if (!rt->h || !rt->r->graph || rt->trees[c])
		return true;
	if (rt->preparing) {
		if (rt->prep_pid != getpid())
			return true;   /* 'P''s child: rt_graph makes them */
		if (!atomic_load(&rt->prep_done))
			return false;
		rt_prep_join(rt);
		if (rt->trees[c])
			return true;
	}
	rt_prep_start_view(rt, c);
	return !rt->preparing;   /* no thread: rt_graph makes them */
}

/* The heap a derivation to come ('s', '-', '+') takes, faulted in during
 * a pause by a thread at nice 10 (base pk_reserve), once the first view's
 * trees are made (rt_idle), so that the derivation writes its rows on
 * pages already there.  The rows of one model are at most its (thread,
 * frame) pairs (prof_max_rows); at the derivation's peak each takes report's row (96 bytes), the model's
 * (56), its maps by pair and node, and room lost between blocks: 240
 * reserved.  On a compile job's 1.47 M samples, 's sym,tid' the first time
 * makes 1.24 M rows of 1.29 M possible: of its 436 ms of CPU, 250 were the
 * kernel (and the hypervisor under it) faulting 240 MB in; with the
 * reserve 184 ms.  RSS after it: 1.25 -> 1.29 GB.  A profile whose rows
 * all fit in RT_RESERVE_MIN ($PERFKIT_RESERVE_MIN) reserves nothing, nor
 * one whose free heap and rows already hold what the derivation takes. */
#define RT_RESERVE_ROW 240
#define RT_RESERVE_MIN ((size_t)64 << 20)

static void rt_reserve(struct report_tui *rt)
{
	struct report *r = rt->r;
	size_t want = 0, have;

	if (rt->reserve)
		return;
	/* what is there: the heap's free memory and the blocks of report's
	 * rows, which the derivation frees before it makes new ones (after
	 * an 's' of a million rows, the next needs no reserve) */
	have = mallinfo2().fordblks;
	for (size_t i = 0; i < r->f->nr_evsels; i++)
		if (r->hists[i].prof) {
			want += prof_max_rows(r->hists[i].prof) * RT_RESERVE_ROW;
			have += r->hists[i].rows_cap * sizeof(struct row);
		}
	/* $PERFKIT_RESERVE_MIN: the least reserve worth making, in bytes
	 * (0: one in every pause, whatever the heap holds: the tests') */
	const char *env = getenv("PERFKIT_RESERVE_MIN");
	size_t min = RT_RESERVE_MIN;

	if (env && *env)
		min = strtoull(env, NULL, 10);
	if (want && want >= min && (have < want || !min))
		rt->reserve = pk_reserve_start(want);
}

/* The srcline texts of the shown model's frames, looked up a slice of
 * RT_LINES_MS at a time in pauses: 's' with srcline then finds them (on a
 * compile job's 646 k frames by address, its first time 501 ms of CPU, the
 * lookups in libdw most of it).  True while some are left. */
#define RT_LINES_MS 20

static bool rt_lines_ahead(struct report_tui *rt)
{
	struct hist *h = rt->h;
	size_t n = h && h->prof ? prof_nr_frames(h->prof) : 0;
	struct timespec t0, t;

	if (!rt->r->by_ip || !n || h->frame_line_at >= n)
		return false;
	if (!h->frame_line)
		h->frame_line = xmalloc(n * sizeof(*h->frame_line));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (h->frame_line_at < n) {
		size_t i = h->frame_line_at;

		h->frame_line[i] = session_srcline(rt->r->sess, prof_frame(h->prof, (uint32_t)i));
		h->frame_line_at = i + 1;
		if (i % 128 == 127) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >= RT_LINES_MS)
				break;
		}
	}
	return h->frame_line_at < n;
}

/* Once the srclines are all looked up (rt_lines_ahead), in one pause:
 * the ranks of their texts by the model's PROF_SRCLINE part
 * (prof_line_parts), as rank_key() ranks them (the key's escaped text,
 * equal texts one rank), so that 's' with srcline maps its rows' parts to
 * ranks instead of sorting the texts (on a compile job's 646 k frames by
 * address, 173 k lines: a third of its CPU).  Ranks of values no row has
 * are kept too: only their order is read. */
static void rt_lines_rank(struct report_tui *rt)
{
	struct hist *h = rt->h;
	size_t n = h && h->prof ? prof_nr_frames(h->prof) : 0;

	if (!n || !h->frame_line || h->frame_line_at < n || h->rank_full[K_SRCLINE])
		return;
	struct line_arg la = { rt->r, h };
	uint32_t *ids = xmalloc_huge((n + 1) * sizeof(*ids));
	size_t np = prof_line_parts(h->prof, line_of, &la, ids), nt = 0;
	uint32_t *rank = xmalloc_huge((np + 1) * sizeof(*rank));
	struct pk_strrec *pt = xmalloc_huge((np + 1) * sizeof(*pt));
	struct pk_arena texts = { 0 };
	static char buf[256u << 10];   /* key_text()'s size */

	for (size_t i = 0; i < n; i++) {
		if (ids[i] != nt)   /* a value seen before */
			continue;
		snprintf(buf, sizeof(buf), "%s", h->frame_line[i]);
		str_term_escape_buf(buf, sizeof(buf));
		pt[nt] = (struct pk_strrec){ pk_arena_memdup0(&texts, buf, strlen(buf)), (uint32_t)nt };
		nt++;
	}
	pk_strsort(pt, nt);
	for (size_t p = 0, rk = 0; p < nt; p++) {
		if (p && strcmp(pt[p - 1].s, pt[p].s))
			rk++;
		rank[pt[p].id] = (uint32_t)rk;
	}
	pk_arena_release(&texts);
	free(pt);
	prof_set_line_parts(h->prof, ids, np);   /* 's' takes them too */
	free(h->rank_of[K_SRCLINE]);   /* rank_key's, of some parts */
	h->rank_of[K_SRCLINE] = rank;
	h->rank_full[K_SRCLINE] = true;
}

/* A pause: the first call graph prepared (rt_prep_start), the heap of a
 * derivation to come faulted in (rt_reserve), and the selected row, when
 * it is a function of a user DSO with samples of its own, annotated by a
 * thread (rt_warm_main) for 'a'. */
static int rt_idle(void *ctx, size_t i)
{
	int again = 0;
	struct report_tui *rt = ctx;
	struct report *r = rt->r;
	const struct row *row;
	struct ann_profile *p;
	const char *file;

	rt_prep_start(rt);
	/* the reserve once the first call graph is made: beside the forest
	 * and trees, it made the first Enter wait (46-74 -> 444-600 ms of
	 * wall, 0.5 s after the first screen) */
	if (rt->preparing && !atomic_load(&rt->prep_done)) {
		again = TUI_IDLE_AGAIN;
	} else {
		rt_reserve(rt);
		/* then the srclines a slice at a time, then their ranks */
		if (rt_lines_ahead(rt))
			again = TUI_IDLE_AGAIN;
		else
			rt_lines_rank(rt);
	}
	if (rt->warming && !atomic_load(&rt->warm_done))
		return again;   /* one at a time */
	rt_warm_join(rt);
	if (!rt->h || i >= rt->t.nr_rows || !r->leaves)
		return again;
	row = &rt->h->rows[rt->hrow[i]];
	if (rt_ann_find(rt, row) || !row->sym || row->kernel || !annotatable(r, row))
		return again;
	file = session_dso_file(r->sess, row->dso);
	if (!file || ann_leaves_profile(r->leaves, r->f->evsels[rt->h - r->hists].name, row->dso, row->sym, false,
					file, &p)) {
		pk_error_clear();
		return again;
	}
	rt->warm_row = row;
	rt->warm_p = p;
	if (!rt->inl)
		rt->inl = inline_resolver_new();
	rt->warm_file = xstrdup(file);
	atomic_store(&rt->warm_done, false);
	if (pthread_create(&rt->warm, NULL, rt_warm_main, rt)) {
		free(rt->warm_file);
		rt->warm_file = NULL;
		ann_profile_free(p);
		rt->warm_p = NULL;
		rt->warm_row = NULL;
		return again;
	}
	rt->warming = true;
	return again ? again : 1;
}

/* 1: no browser here (print the text); else 0 or -errno. */
static int report_browse(struct report *r, const char *input, double limit, const struct session_opts *so,
			 struct session **sess, bool color, const char *sort)
{
	static const struct tui_ops ops = { .graph = rt_graph, .graph_ready = rt_graph_ready, .before_fork = rt_before_fork, .annotate = rt_annotate, .annotate_name = rt_annotate_name, .regroup = rt_regroup, .next_event = rt_next_event,
					    .idle = rt_idle };
	struct report_tui rt = { .r = r, .sess = sess, .input = input, .so = *so, .limit = limit };
	struct tui_opts o = { .color = color, .end_on_signal = true };
	int err;

	snprintf(rt.sort, sizeof(rt.sort), "%s", sort);
	rt.cg[0] = rt.cg[1] = r->cg;
	if (!r->cg_order_set) {   /* perf's default of each view ('-', '+') */
		rt.cg[0].order = CG_CALLEE;
		rt.cg[1].order = CG_CALLER;
	}
	rt_prepare(&rt);
	/* a file of event groups: the group view is --stdio's (said, as
	 * the browser shows each event's own table) */
	bool groups = false;

	for (size_t i = 0; r->leader_of && r->group >= 0 && i < r->f->nr_evsels; i++)
		groups |= r->leader_of[i] != i;
	if (groups)
		pk_warn("%s: event groups are shown one event a table here (Tab: the next); "
			"--stdio shows each group in one table", input);
	/* the file's warnings (truncated, broken stacks) on the first
	 * screen too, not only once the browser is left */
	o.notice = pk_warnings_peek();
	err = tui_browse(&rt.t, &ops, &rt, &o);
	pk_reserve_end(rt.reserve);
	if (err != -ENOTTY && err != -EOPNOTSUPP)   /* else the text is printed from the same rows */
		rt_give_up(&rt);
	rt_prep_join(&rt);
	rt_release_hist(&rt);   /* the annotating thread joined there */
	free(rt.rows_keep);
	for (int k = 0; k < K_MAX; k++)
		free(rt.elided[k]);
	if (rt.inl)
		inline_resolver_free(rt.inl);
	if (err == -ENOTTY || err == -EOPNOTSUPP)
		return 1;
	if (err < 0)
		return pk_error(err, "%s", pk_errmsg()[0] ? pk_errmsg() : strerror(-err));
	return 0;
}
