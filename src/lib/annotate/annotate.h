/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * annotate.h — the data behind `perfkit annotate` of a sampled profile:
 * samples aggregated per function and per instruction address, each
 * function's instructions decoded (disasm/disasm.h) and mapped to source
 * lines and inlined-call chains (symbol/inline.h), and a Cachegrind-format
 * file's simulated misses per source line to show beside them.
 *
 * Aggregation (ann_profiles_build: one profile per event of the file, in
 * the file's event order; ann_profile_build: the first event's only):
 * every sample of an event whose comm and leaf DSO pass the filter adds its period (and one
 * hit) to its leaf frame's function at the leaf's address — the ELF
 * virtual address of the DSO for user code, the kernel address for kernel
 * code, the DSO file offset when the symbol or address is unknown.  A
 * function is (DSO, symbol start) as report keys its rows.  With call
 * chains, each caller frame (frames[1..]) adds the sample to its function's
 * call site (the return address; once per sample and site, so recursion
 * counts once): the inclusive cost of what that call instruction called.
 * Totals: total_period/total_hits over every sample of the event (filters
 * apart), the denominator of perf's global-period/global-hits percentages.
 * Functions come hottest first (self period, then name).
 *
 * Instructions (ann_view_build): the bytes of [start, end) are read from
 * the ELF file given (the DSO, or its copy by build-id; /proc/kcore for
 * the kernel) and decoded one by one; end is the symbol's size, or for an
 * unsized symbol (kernel) the first return at or after the last sampled
 * address.  Each instruction gets the samples at its address, the
 * inclusive samples of call sites inside it, whether a jump lands on it,
 * and its inlined-call chain (outermost, the function itself, first).
 * A call site address counts for the instruction holding addr - 1 (a
 * return address follows its call).
 *
 * Errors: -ENOENT (no such symbol/file), -EINVAL (not ELF, address outside
 * every section, bytes that do not decode), -EOPNOTSUPP (no capstone, an
 * architecture it does not decode), -EACCES (/proc/kcore unreadable); each
 * with a pk_error() message.  Nothing prints.
 */
#ifndef PERFKIT_ANNOTATE_H
#define PERFKIT_ANNOTATE_H

#include "disasm/disasm.h"
#include "symbol/inline.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct session;
struct cgfile;

struct ann_count {
	uint64_t period, hits;
};

struct ann_addr {
	uint64_t addr;
	struct ann_count self;     /* samples whose leaf is here */
	struct ann_count callee;   /* samples with a call chain through here */
};

struct ann_func {
	const char *dso;           /* the session's interned DSO name */
	const char *sym;           /* demangled name; NULL: unknown symbol */
	const char *raw_sym;       /* ELF name, for lookups */
	uint64_t start;            /* ELF address of the symbol (kernel: address) */
	bool kernel;
	bool unknown_addr;         /* addrs are DSO file offsets, not ELF addresses */
	uint64_t size;             /* st_size of raw_sym at start when its producer looked
				      it up (ann_leaves); 0: ann_view_build looks it up */
	struct ann_count self, callee;
	struct ann_addr *addrs;    /* sorted by addr */
	size_t nr_addrs;
};

struct ann_filter {
	const char *dso;           /* NULL, or a DSO path or basename */
	const char *comm;          /* NULL, or a command name */
};

struct ann_profile {
	const char *event;          /* the event annotated */
	uint64_t total_period, total_hits;
	bool has_callchain;
	struct ann_func **funcs;    /* hottest first */
	size_t nr_funcs;
	/* private */
	void *priv;
};

/* Aggregate the session's samples (session_process; the session is opened
 * with demangling off so raw_sym is the ELF name). */
int ann_profile_build(struct session *s, const struct ann_filter *f, struct ann_profile **out);
void ann_profile_free(struct ann_profile *p);
/* One profile per event that has samples, in the file's event order:
 * *out (malloc'd array of *nr profiles, each freed with ann_profile_free). */
int ann_profiles_build(struct session *s, const struct ann_filter *f, struct ann_profile ***out,
		       size_t *nr);
/* The same, fed by a caller's own pass over the samples (report --html):
 * a builder, each sample of a session opened with demangling off, then the
 * profiles in pf's event order (the builder is freed).  The builder keeps a
 * copy of *f (f may be NULL or go out of scope); the strings it points to
 * must live until ann_builder_finish. */
struct ann_builder;
struct pd_file;
struct pk_sample;
struct ann_builder *ann_builder_new(const struct ann_filter *f);
void ann_builder_add(struct ann_builder *b, const struct pk_sample *s);
int ann_builder_finish(struct ann_builder *b, const struct pd_file *pf, struct ann_profile ***out,
		       size_t *nr);

/* A leaf index for a browser's 'a' (report's terminal browser): fed every
 * sample of the caller's own pass (a session with demangled names is
 * fine), it keeps per event and per function (DSO, symbol start, keyed as
 * the builder keys them) the period and hits at each leaf address and at
 * each call site, so that one function's annotation needs no second
 * reading of the file.  ann_leaves_profile() gives a profile of that one
 * function: its self and callee counts and its addrs' are
 * ann_profile_build()'s exactly (a call site counted once per sample, as
 * add_sample does).  Cost per sample: one lookup for the leaf; for a
 * caller frame, a lookup only where it differs from the one at the same
 * depth (from the outermost caller) in the thread's previous sample, else
 * an add to the entry it had.  Memory: about 56 bytes per distinct
 * (function, address) and 100 per function. */
struct ann_leaves;
struct ann_leaves *ann_leaves_new(void);
void ann_leaves_add(struct ann_leaves *l, const struct pk_sample *s);
/* The profile (one function) of the function called sym in dso (kernel
 * or not) of event, the one with the most period (self and callees) when several match
 * (C++ overloads shown without parameters); dso, sym: the feeding
 * session's strings (compared by value).  elf_path: the file to look the
 * ELF name up in (the function's raw_sym; NULL: sym is taken as it).  The
 * profile points into the session (names, event): free it first
 * (ann_profile_free).  -ENOENT (no such event or function) with a
 * message. */
int ann_leaves_profile(struct ann_leaves *l, const char *event, const char *dso, const char *sym, bool kernel,
		       const char *elf_path, struct ann_profile **out);
/* Where the function called sym of event is (a call-graph line names a
 * function by its name alone): the DSO (the feeding session's string) and
 * kernel flag of the one with the most period, self and callees, of any
 * DSO.  0, or -ENOENT (no such event, or no sample in its own code) with a
 * message. */
int ann_leaves_find(struct ann_leaves *l, const char *event, const char *sym, const char **dso, bool *kernel);
void ann_leaves_free(struct ann_leaves *l);

/* One decoded instruction of a view. */
struct ann_insn {
	struct dis_insn in;
	struct ann_count self, callee;
	bool jump_target;          /* a jump of this function lands here */
	bool back_edge;            /* a jump to an address at or before itself (a loop) */
	size_t fr, nr_fr;          /* its chain: view->frames[fr .. fr + nr_fr) */
};

struct ann_view {
	struct ann_insn *insns;
	size_t nr_insns;
	struct inline_frame *frames;
	size_t nr_frames;
	bool have_lines;           /* some instruction has a DWARF line */
};

/* Decode f's instructions from elf_path (a user DSO's file, or
 * "/proc/kcore" for the kernel) and attach f's samples.  inl (may be NULL:
 * no source lines) resolves chains. */
int ann_view_build(struct ann_view *v, const struct ann_func *f, const char *elf_path,
		   struct inline_resolver *inl);
void ann_view_release(struct ann_view *v);

/* One source line's share of a view: samples of the instructions whose
 * innermost line it is (cg_annotate's and perf annotate -l's attribution).
 * fn: the innermost function there (an inlined callee's name, or the
 * function's own). */
struct ann_line {
	const char *file;
	int line;
	const char *fn;
	bool inlined;
	struct ann_count self;
};

/* The view's lines, sorted by file (the function's own file first), then
 * line; *out is malloc'd. */
size_t ann_view_lines(const struct ann_view *v, struct ann_line **out);

/* Source text: files read once, lines without their newline. */
struct ann_srccache;
struct ann_srccache *ann_srccache_new(void);
void ann_srccache_free(struct ann_srccache *c);
/* Line (1-based) of file, or NULL when unreadable / past the end;
 * *len receives its length. */
const char *ann_source_line(struct ann_srccache *c, const char *file, int line, size_t *len);
/* Number of lines of file (0 when unreadable). */
int ann_source_nlines(struct ann_srccache *c, const char *file);

/* Simulated costs per source line from a Cachegrind-format file of
 * `perfkit cache` (desc: build-id: HEX names the binary simulated). */
enum { ANN_SIM_D1, ANN_SIM_LL, ANN_SIM_MISP, ANN_SIM_N };
struct ann_sim;
/* cg: the parsed file (kept by the caller while the result lives).
 * -EINVAL when it has none of D1mr/D1mw, DLmr/DLmw, Bcm/Bim. */
int ann_sim_new(const struct cgfile *cg, struct ann_sim **out);
void ann_sim_free(struct ann_sim *s);
/* The build-id the file names (lower-case hex), or NULL. */
const char *ann_sim_build_id(const struct ann_sim *s);
/* The costs of (file, line): matched by path, else by basename; NULL when
 * the file has none.  Returns counts[ANN_SIM_N]; *present says which of
 * the three the file has (bit i for ANN_SIM_i). */
const uint64_t *ann_sim_line(const struct ann_sim *s, const char *file, int line);
unsigned ann_sim_present(const struct ann_sim *s);

/* The PLT slots of an ELF file (x86-64, aarch64): slot i of .rela.plt
 * (its dynamic symbol's name) at .plt.sec + 16 i when there is a .plt.sec
 * (x86-64 with IBT), else .plt + 16 (x86-64) or 32 (aarch64) + 16 i, as
 * objdump and perf name them ("strcmp@plt"); and x86-64 .plt.got entries
 * (jmp *GOT(%rip), the GOT slot's .rela.dyn symbol).  A file with no .rela.plt
 * or .plt gets an empty table; *out is set even on error (-ENOENT,
 * -EINVAL: not ELF) and freed with ann_plt_free. */
struct ann_plt;
int ann_plt_load(const char *elf_path, struct ann_plt **out);
/* The symbol whose PLT slot starts at addr (without "@plt"), or NULL. */
const char *ann_plt_name(const struct ann_plt *p, uint64_t addr);
void ann_plt_free(struct ann_plt *p);

/* What a branch's target is named after its operands, as perf and objdump
 * print it: ANN_TGT_SELF " <F+0xOFF>" inside f itself (*off), ANN_TGT_PLT
 * " <NAME@plt>" a PLT slot (plt may be NULL), ANN_TGT_CALL " <NAME>" a
 * call into a function DWARF names (inl, file: f's ELF file; none for
 * kernel code), else ANN_TGT_NONE.  *name (unescaped, for the printer to
 * escape) is valid until the next use of plt or inl. */
enum ann_target { ANN_TGT_NONE, ANN_TGT_SELF, ANN_TGT_PLT, ANN_TGT_CALL };
enum ann_target ann_target_of(const struct ann_func *f, const struct ann_view *v, const struct ann_insn *ai,
			      const struct ann_plt *plt, struct inline_resolver *inl, const char *file,
			      const char **name, uint64_t *off);

#endif
