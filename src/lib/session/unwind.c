/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind.c — DWARF unwinding of --call-graph dwarf samples with libdwfl
 * (see unwind.h).  Register layout: perf's x86-64 order AX BX CX DX SI DI
 * BP SP IP FLAGS CS SS DS ES FS GS R8..R15 (PERF_REG_X86_*), of which the
 * sample carries those set in attr.sample_regs_user, in that order.
 */
#include "session/unwind.h"

#include "base/hashmap.h"
#include "base/strbuf.h"
#include "symbol/symbol.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ASPACES 4096   /* Dwfl kept at most; beyond, the cache restarts */

#define L1_RULES 512          /* direct-mapped cache in front of rules */

struct aspace {
	Dwfl *dwfl;
	uint64_t gen;
	bool attached;
	struct hashmap rules;      /* pc (8 bytes) → struct rule (val.u) */
	struct {
		uint64_t pc;       /* 0: empty */
		uint64_t rule;     /* struct rule, packed as in rules */
	} l1[L1_RULES];
};

/* The x86-64 CFI row at a pc, when it is the simple kind compilers emit:
 * CFA = rsp or rbp + cfa_off; return address at CFA + ra_off; rbp saved at
 * CFA + bp_off, or unchanged.  Packed into a hashmap value. */
enum { R_NONE, R_SIMPLE, R_END, R_COMPLEX, R_NOCFI };   /* R_NONE: in no module; R_NOCFI: in one,
							     no CFI for the pc (libdwfl goes on by
							     frame pointer there) */
enum { BP_SAME, BP_AT, BP_UNDEF };
struct rule {
	uint8_t kind;              /* R_*: R_END = outermost frame (RA undefined) */
	uint8_t cfa_reg;           /* 6 rbp, 7 rsp */
	uint8_t bp;                /* BP_* */
	int16_t cfa_off;
	int8_t ra_off, bp_off;
};
_Static_assert(sizeof(struct rule) <= sizeof(uint64_t), "a rule fits a hashmap value");

struct unwinder {
	struct symcache *syms;
	struct hashmap spaces;     /* as_key pointer → struct aspace * */
	/* the sample being unwound */
	const struct pd_sample *raw;
	uint64_t sp;
	bool oob;                  /* a read fell outside the stack copy */
	uint64_t *pcs;
	size_t nr, max;
	bool slow_only;            /* PERFKIT_UNWIND=dwfl: no rule cache */
	uint64_t nr_fast, nr_dwfl; /* samples unwound by each path */
};

static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* Value of perf register idx in the sample, or false when not recorded. */
static bool perf_reg(const struct pd_sample *raw, unsigned idx, uint64_t *v)
{
	uint64_t mask = raw->evsel->attr.sample_regs_user;

	if (idx >= 64 || !(mask & (1ULL << idx)))
		return false;
	*v = raw->user_regs[__builtin_popcountll(mask & ((1ULL << idx) - 1))];
	return true;
}

/* ---- libdwfl thread callbacks: one "thread", the sample's ---- */

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return 1;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwinder *u = arg;
	const struct pd_sample *raw = u->raw;

	(void)dwfl;
	if (addr >= u->sp && addr - u->sp <= raw->user_stack_size &&
	    raw->user_stack_size - (addr - u->sp) >= sizeof(*result)) {
		memcpy(result, raw->user_stack + (addr - u->sp), sizeof(*result));
		return true;
	}
	if (addr >= u->sp)   /* above the copy: the stack was deeper */
		u->oob = true;
	return false;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
#if defined(__x86_64__)
	struct unwinder *u = arg;
	/* DWARF x86-64 numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
	static const unsigned perf_of_dwarf[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19,
						    20, 21, 22, 23, 8 };
	Dwarf_Word regs[17];

	for (unsigned i = 0; i < 17; i++) {
		uint64_t v = 0;

		perf_reg(u->raw, perf_of_dwarf[i], &v);
		regs[i] = v;
	}
	return dwfl_thread_state_registers(thread, 0, 17, regs);
#else
	(void)thread;
	(void)arg;
	return false;
#endif
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Addr pc;
	bool act;

	if (!dwfl_frame_pc(state, &pc, &act))
		return DWARF_CB_ABORT;
	if (u->nr >= u->max) {
		u->oob = true;
		return DWARF_CB_ABORT;
	}
	if (u->nr && !act && pc)
		pc--;          /* a return address: point into the call */
	if (!pc)
		return DWARF_CB_ABORT;
	u->pcs[u->nr++] = pc;
	return DWARF_CB_OK;
}

/* ---- address spaces ---- */

static void aspace_free(struct aspace *a)
{
	if (a) {
		if (a->dwfl)
			dwfl_end(a->dwfl);
		hm_release(&a->rules);
		free(a);
	}
}

/* ---- fast path: cached CFI rows, x86-64 ---- */

/* Offset of a "CFA + N" location: DW_OP_call_frame_cfa [N op]. */
static bool cfa_offset(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	if (nops < 1 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (nops == 1) {
		*off = 0;
		return true;
	}
	if (nops == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return true;
	}
	if (nops == 3 && (ops[1].atom == DW_OP_constu || ops[1].atom == DW_OP_consts ||
			  (ops[1].atom >= DW_OP_lit0 && ops[1].atom <= DW_OP_lit31))) {
		int64_t v = ops[1].atom == DW_OP_constu || ops[1].atom == DW_OP_consts
			    ? (int64_t)ops[1].number : (int64_t)(ops[1].atom - DW_OP_lit0);
		if (ops[2].atom == DW_OP_minus)
			*off = -v;
		else if (ops[2].atom == DW_OP_plus)
			*off = v;
		else
			return false;
		return true;
	}
	return false;
}

static struct rule rule_compute(Dwfl *dwfl, uint64_t pc)
{
	struct rule r = { .kind = R_COMPLEX };
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi;
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops, mem[3];
	size_t nops;
	int64_t off;

	if (!mod)
		return (struct rule){ .kind = R_NONE };
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr) != 0) {
		free(fr);
		fr = NULL;
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr) != 0) {
			free(fr);
			return (struct rule){ .kind = R_NOCFI };
		}
	}
	/* the return address: undefined marks the outermost frame */
	if (dwarf_frame_register(fr, 16, mem, &ops, &nops) != 0)
		goto out;
	if (nops == 0 && ops == mem) {
		r.kind = R_END;
		goto out;
	}
	if (!cfa_offset(ops, nops, &off) || off < -128 || off > 127)
		goto out;
	r.ra_off = (int8_t)off;
	if (dwarf_frame_cfa(fr, &ops, &nops) != 0 || nops != 1 || ops[0].atom != DW_OP_bregx ||
	    (ops[0].number != 6 && ops[0].number != 7) || (int64_t)ops[0].number2 < -32768 ||
	    (int64_t)ops[0].number2 > 32767)
		goto out;
	r.cfa_reg = (uint8_t)ops[0].number;
	r.cfa_off = (int16_t)(int64_t)ops[0].number2;
	if (dwarf_frame_register(fr, 6, mem, &ops, &nops) != 0)
		goto out;
	if (nops == 0) {
		r.bp = ops ? BP_UNDEF : BP_SAME;
	} else if (cfa_offset(ops, nops, &off) && off >= -128 && off <= 127) {
		r.bp = BP_AT;
		r.bp_off = (int8_t)off;
	} else {
		goto out;
	}
	r.kind = R_SIMPLE;
out:
	free(fr);
	return r;
}

static struct rule rule_get(struct aspace *a, uint64_t pc)
{
	int created;
	size_t slot = (size_t)((pc * 0x9e3779b97f4a7c15ULL) >> 55) % L1_RULES;
	struct hm_entry *e;
	struct rule r;

	if (pc && a->l1[slot].pc == pc) {
		memcpy(&r, &a->l1[slot].rule, sizeof(r));
		return r;
	}
	e = hm_upsert(&a->rules, &pc, sizeof(pc), &created);
	if (!created) {
		memcpy(&r, &e->val.u, sizeof(r));
	} else {
		r = rule_compute(a->dwfl, pc);
		e = hm_find(&a->rules, &pc, sizeof(pc));
		e->val.u = 0;
		memcpy(&e->val.u, &r, sizeof(r));
	}
	a->l1[slot].pc = pc;
	a->l1[slot].rule = e->val.u;
	return r;
}

static bool stack_read(struct unwinder *u, uint64_t addr, uint64_t *v)
{
	return cb_memory_read(NULL, addr, v, u);
}

/* Unwind with cached rows; false when a row is not of the simple kind (the
 * caller then runs libdwfl). */
static bool unwind_fast(struct unwinder *u, struct aspace *a)
{
	uint64_t pc, sp, bp = 0, v;
	bool bp_known = perf_reg(u->raw, 6, &bp);

	if (!perf_reg(u->raw, 8, &pc))
		return false;
	sp = u->sp;
	for (;;) {
		uint64_t look = u->nr ? pc - 1 : pc, cfa;
		struct rule r;

		if (u->nr >= u->max) {
			u->oob = true;
			return true;
		}
		u->pcs[u->nr++] = look;
		r = rule_get(a, look);
		if (r.kind == R_NONE || r.kind == R_END)
			return true;
		if (r.kind != R_SIMPLE)   /* R_COMPLEX, R_NOCFI: libdwfl's */
			return false;
		if (r.cfa_reg == 7)
			cfa = sp + (uint64_t)(int64_t)r.cfa_off;
		else if (bp_known)
			cfa = bp + (uint64_t)(int64_t)r.cfa_off;
		else
			return false;
		if (!stack_read(u, cfa + (uint64_t)(int64_t)r.ra_off, &v))
			return true;   /* oob set when past the copy */
		if (r.bp == BP_AT) {
			bp_known = stack_read(u, cfa + (uint64_t)(int64_t)r.bp_off, &bp);
		} else if (r.bp == BP_UNDEF) {
			bp_known = false;
		}
		if (!v || cfa <= sp)
			return true;   /* end, or not moving up the stack */
		sp = cfa;
		pc = v;
	}
}

static void aspace_build(struct unwinder *u, struct aspace *a, const struct unwind_map *maps,
			 size_t nr, uint32_t pid)
{
	struct hashmap seen;

	a->dwfl = dwfl_begin(&dwfl_cbs);
	a->attached = false;
	hm_release(&a->rules);
	hm_init(&a->rules);
	memset(a->l1, 0, sizeof(a->l1));
	if (!a->dwfl)
		return;
	hm_init(&seen);
	dwfl_report_begin(a->dwfl);
	for (size_t i = 0; i < nr; i++) {
		const struct unwind_map *m = &maps[i];
		int created;
		uint64_t va = 0;

		hm_upsert(&seen, m->dso, strlen(m->dso), &created);
		if (!created)
			continue;  /* one module per DSO, at the bias of its first map */
		/* the ELF address of the map's first byte gives the load bias */
		symcache_resolve(u->syms, m->dso, m->pgoff, NULL, &va);
		if (!va && m->pgoff)
			continue;
		dwfl_report_elf(a->dwfl, m->dso, m->dso, -1, m->start - (va ? va : 0), true);
	}
	dwfl_report_end(a->dwfl, NULL, NULL);
	hm_release(&seen);
	a->attached = dwfl_attach_state(a->dwfl, NULL, (pid_t)pid, &thread_cbs, u);
}

struct unwinder *unwinder_new(struct symcache *syms)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));

	u->syms = syms;
	hm_init(&u->spaces);
	u->slow_only = getenv("PERFKIT_UNWIND") && !strcmp(getenv("PERFKIT_UNWIND"), "dwfl");
	return u;
}

static void spaces_clear(struct unwinder *u)
{
	for (size_t i = 0; i < u->spaces.nr; i++)
		aspace_free(u->spaces.entries[i].val.ptr);
	hm_release(&u->spaces);
	hm_init(&u->spaces);
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->spaces.nr; i++)
		aspace_free(u->spaces.entries[i].val.ptr);
	hm_release(&u->spaces);
	free(u);
}

int unwind_sample(struct unwinder *u, const void *as_key, uint64_t as_gen,
		  const struct unwind_map *maps, size_t nr_maps, uint32_t pid,
		  const struct pd_sample *raw, uint64_t *pcs, size_t max, bool *truncated)
{
#if defined(__x86_64__)
	struct hm_entry *e;
	struct aspace *a;
	int created;

	*truncated = false;
	if (!raw->user_regs || !raw->user_regs_abi || !max ||
	    !perf_reg(raw, 7 /* SP */, &u->sp))
		return -EOPNOTSUPP;
	if (u->spaces.nr >= MAX_ASPACES)
		spaces_clear(u);
	e = hm_upsert(&u->spaces, &as_key, sizeof(as_key), &created);
	a = e->val.ptr;
	if (!a) {
		a = xcalloc(1, sizeof(*a));
		hm_init(&a->rules);
		e->val.ptr = a;
		created = 1;
	}
	if (created || a->gen != as_gen) {
		if (a->dwfl)
			dwfl_end(a->dwfl);
		a->dwfl = NULL;
		a->gen = as_gen;
		aspace_build(u, a, maps, nr_maps, pid);
	}
	if (!a->attached)
		return -ENOENT;
	u->raw = raw;
	u->oob = false;
	u->pcs = pcs;
	u->nr = 0;
	u->max = max;
	if (u->slow_only || !unwind_fast(u, a)) {
		u->oob = false;
		u->nr = 0;
		dwfl_getthread_frames(a->dwfl, (pid_t)pid, frame_cb, u);
		u->nr_dwfl++;
	} else {
		u->nr_fast++;
	}
	u->raw = NULL;
	if (!u->nr) {
		uint64_t ip;

		if (!perf_reg(raw, 8 /* IP */, &ip))
			return -ENOENT;
		pcs[u->nr++] = ip;
	}
	*truncated = u->oob;
	return (int)u->nr;
#else
	(void)u; (void)as_key; (void)as_gen; (void)maps; (void)nr_maps; (void)pid;
	(void)raw; (void)pcs; (void)max;
	*truncated = false;
	return -EOPNOTSUPP;
#endif
}

void unwinder_counts(const struct unwinder *u, uint64_t *fast, uint64_t *dwfl)
{
	*fast = u->nr_fast;
	*dwfl = u->nr_dwfl;
}
