/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "symbol/inline.h"
#include "base/hashmap.h"
#include "base/path.h"
#include "symbol/demangle.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct inline_resolver {
	struct hashmap dsos;     /* path → Dwfl * (NULL: unusable) */
	struct strbuf key, dso;
	bool no_mark;          /* inline_resolver_set_mark(r, false) */
	struct hashmap paths;    /* absolute source paths made by inline_resolve_frames */
	struct hashmap chains;   /* (dso, addr) → struct chain * (NULL: no DWARF there) */
};

/* A cached chain, outermost first. */
struct chain {
	size_t n;
	struct inline_frame v[];
};

static const Dwfl_Callbacks offline_cb = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static int first_module(Dwfl_Module *m, void **ud, const char *n, Dwarf_Addr a, void *arg);

struct inline_resolver *inline_resolver_new(void)
{
	struct inline_resolver *r = xcalloc(1, sizeof(*r));

	hm_init(&r->dsos);
	hm_init(&r->paths);
	hm_init(&r->chains);
	sb_init(&r->key, 0);
	sb_init(&r->dso, 0);
	return r;
}

void inline_resolver_free(struct inline_resolver *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->dsos.nr; i++)
		if (r->dsos.entries[i].val.ptr)
			dwfl_end(r->dsos.entries[i].val.ptr);
	hm_release(&r->dsos);
	for (size_t i = 0; i < r->chains.nr; i++)
		free(r->chains.entries[i].val.ptr);
	hm_release(&r->paths);
	hm_release(&r->chains);
	sb_release(&r->key);
	sb_release(&r->dso);
	free(r);
}

static Dwfl_Module *dso_open(struct inline_resolver *r, const char *dso, size_t dsol)
{
	int created;
	struct hm_entry *e = hm_upsert(&r->dsos, dso, dsol, &created);
	Dwfl_Module *m = NULL;

	if (!created) {
		Dwfl *d = e->val.ptr;
		if (d)
			dwfl_getmodules(d, first_module, &m, 0);
		return m;
	}
	const char *path = e->key;
	/* opened here, a regular file only (a FIFO would block libdwfl's
	 * open); the module owns the fd */
	int fd = pk_open_regular(path);
	Dwfl *d = fd >= 0 ? dwfl_begin(&offline_cb) : NULL;
	if (!d && fd >= 0)
		close(fd);
	if (d) {
		dwfl_report_begin(d);
		m = dwfl_report_offline(d, "", path, fd);
		dwfl_report_end(d, NULL, NULL);
		if (!m) {
			dwfl_end(d);
			d = NULL;
		}
	}
	/* e may have moved if the map grew: look it up again */
	hm_find(&r->dsos, dso, dsol)->val.ptr = d;
	return m;
}

/* ELF address (link-time, as addr2line takes it) of symbol name + off. */
static bool sym_addr(Dwfl_Module *m, const char *name, size_t namel, uint64_t *addr)
{
	int n = dwfl_module_getsymtab(m);
	Dwarf_Addr bias = 0;

	dwfl_module_getelf(m, &bias);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		const char *s = dwfl_module_getsym_info(m, i, &sym, &a, NULL, NULL, NULL);
		if (s && strlen(s) == namel && !memcmp(s, name, namel) && sym.st_value) {
			*addr = a - bias;
			return true;
		}
	}
	return false;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p;
}

static int first_module(Dwfl_Module *m, void **ud, const char *n, Dwarf_Addr a, void *arg)
{
	*(Dwfl_Module **)arg = m;
	return DWARF_CB_ABORT;
}

/* The first function (real or inlined) among scopes[from..n): into *out. */
static bool first_function(const Dwarf_Die *scopes, int n, int from, Dwarf_Die *out)
{
	for (int i = from; i < n; i++) {
		int tag = dwarf_tag((Dwarf_Die *)&scopes[i]);

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			*out = scopes[i];
			return true;
		}
	}
	return false;
}

/* The chain at elf_pc, innermost first, into fr[0..max): each function
 * (real or inlined) with the file:line executing in it.  Returns the count
 * or -ENOENT. */
/* The unit holding pc (a module address) and pc's line-table entry (file
 * NULL, line 0 when it has none); NULL when no unit holds pc.  *bias: the
 * module's DWARF bias; cu_scan: storage for a unit found by scanning. */
static Dwarf_Die *line_at(Dwfl_Module *mod, uint64_t pc, Dwarf_Addr *biasp, Dwarf_Die *cu_scan,
			  const char **filep, int *linep)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias);
	const char *file = NULL;
	int line = 0;

	/* libdw (0.188) answers with a program's one unit for an address
	 * outside its ranges too (crt1's _start): no unit holds it, as
	 * binutils' addr2line says ("??:?") */
	if (cu && dwarf_haspc(cu, pc - bias) <= 0)
		cu = NULL;
	if (cu) {
		Dwfl_Line *dl = dwfl_module_getsrc(mod, pc);
		if (dl)
			file = dwfl_lineinfo(dl, NULL, &line, NULL, NULL, NULL);
	} else {
		/* no .debug_aranges (clang does not emit them, and elfutils
		 * 0.188 does not fall back): find the unit whose ranges hold
		 * the address, and its line table entry */
		Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
		Dwarf_Off off = 0, next;
		size_t hsize;
		while (dw && !cu && dwarf_next_unit(dw, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL,
						    NULL) == 0) {
			if (dwarf_offdie(dw, off + hsize, cu_scan) && dwarf_haspc(cu_scan, pc - bias) > 0)
				cu = cu_scan;
			off = next;
		}
		if (!cu)
			return NULL;
		Dwarf_Line *dl = dwarf_getsrc_die(cu, pc - bias);
		if (dl) {
			file = dwarf_linesrc(dl, NULL, NULL);
			dwarf_lineno(dl, &line);
		}
	}
	*biasp = bias;
	*filep = file;
	*linep = line;
	return cu;
}

static int collect(Dwfl_Module *mod, uint64_t elf_pc, struct inline_frame *fr, int max,
		   const char **comp_dir)
{
	Dwarf_Addr bias = 0;
	int nfr = 0;

	dwfl_module_getelf(mod, &bias);
	uint64_t pc = elf_pc + bias;
	Dwarf_Die cu_scan;
	const char *file = NULL;
	int line = 0;
	Dwarf_Die *cu = line_at(mod, pc, &bias, &cu_scan, &file, &line);

	if (!cu)
		return -ENOENT;
	if (comp_dir) {
		Dwarf_Attribute ca;

		*comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &ca));
	}
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, pc - bias, &scopes);
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	dwarf_getsrcfiles(cu, &files, &nfiles);
	Dwarf_Die die;
	bool have = first_function(scopes, n, 0, &die);
	free(scopes);
	/* innermost function, then each inlined call's caller (as eu-addr2line -i) */
	int lang = dwarf_srclang(cu);
	bool c_unit = lang == DW_LANG_C89 || lang == DW_LANG_C || lang == DW_LANG_C99 || lang == DW_LANG_C11 ||
		      lang == 0x2c /* DW_LANG_C17 */;

	for (int depth = 0; have && depth < 256 && nfr < max; depth++) {
		Dwarf_Attribute la;

		fr[nfr].name = dwarf_diename(&die);
		fr[nfr].linkage = dwarf_formstring(dwarf_attr_integrate(&die, DW_AT_linkage_name, &la));
		if (!fr[nfr].linkage)
			fr[nfr].linkage = dwarf_formstring(dwarf_attr_integrate(&die, DW_AT_MIPS_linkage_name, &la));
		if (!fr[nfr].linkage && c_unit)
			fr[nfr].linkage = fr[nfr].name;
		/* binutils names the innermost item without a linkage name
		 * by the ELF symbol at the address: here only a real
		 * function (an inlined one is not the symbol's function) */
		fr[nfr].elf_sym = !nfr && !fr[nfr].linkage && dwarf_tag(&die) == DW_TAG_subprogram
					  ? dwfl_module_addrname(mod, pc)
					  : NULL;
		fr[nfr].file = file;
		fr[nfr].line = line;
		fr[nfr].inlined = dwarf_tag(&die) == DW_TAG_inlined_subroutine;
		nfr++;
		if (dwarf_tag(&die) != DW_TAG_inlined_subroutine)
			break;
		Dwarf_Attribute a;
		Dwarf_Word w;
		file = NULL;
		line = 0;
		if (dwarf_formudata(dwarf_attr(&die, DW_AT_call_file, &a), &w) == 0 && files)
			file = dwarf_filesrc(files, w, NULL, NULL);
		if (dwarf_formudata(dwarf_attr(&die, DW_AT_call_line, &a), &w) == 0)
			line = (int)w;
		Dwarf_Die *up = NULL;
		int m = dwarf_getscopes_die(&die, &up);
		have = first_function(up, m, 1, &die);   /* up[0] is die itself */
		free(up);
	}
	return nfr ? nfr : -ENOENT;
}

void inline_frame_text(const struct inline_frame *f, bool context, bool mark, bool params, struct strbuf *out)
{
	/* as binutils' addr2line -C names it (stackcollapse-perf.pl
	 * --inline): the linkage name demangled, parameters and all with
	 * params ("A::operator()(double) const": two classes' operator()
	 * apart), or the innermost real function's ELF symbol's, else the
	 * DWARF name */
	const char *ln = f->linkage ? f->linkage : f->elf_sym;
	char *d = ln && sym_is_mangled(ln) ? sym_demangle(ln, strlen(ln), params ? PK_DEMANGLE_PARAMS : 0) : NULL;

	sb_addstr(out, d ? d : f->name ? f->name : "??");
	free(d);
	if (context)
		sb_addf(out, ":%s:%d", f->file ? base_name(f->file) : "??", f->line);
	if (mark && f->inlined)
		sb_add(out, "_[i]", 4);
}

/* The chain's items joined by ';', outermost first. */
static void chain_text(const struct inline_frame *v, size_t n, bool context, bool mark, struct strbuf *out)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_addch(out, ';');
		inline_frame_text(&v[i], context, mark, true, out);
	}
}

/* The chain at elf_pc, outermost first, or NULL. */
static struct chain *chain_make(Dwfl_Module *mod, uint64_t elf_pc)
{
	struct inline_frame fr[256];
	int n = collect(mod, elf_pc, fr, 256, NULL);
	struct chain *ch;

	if (n <= 0)
		return NULL;
	ch = xmalloc(sizeof(*ch) + (size_t)n * sizeof(ch->v[0]));
	ch->n = (size_t)n;
	for (int i = 0; i < n; i++)
		ch->v[i] = fr[n - 1 - i];
	return ch;
}

int inline_line(struct inline_resolver *r, const char *dso, uint64_t addr, const char **file, int *line)
{
	Dwfl_Module *m = dso_open(r, dso, strlen(dso));
	Dwarf_Addr bias = 0;
	Dwarf_Die cu_scan;

	if (!m)
		return -ENOENT;
	dwfl_module_getelf(m, &bias);
	if (!line_at(m, addr + bias, &bias, &cu_scan, file, line))
		return dwfl_module_getdwarf(m, &bias) ? -ENODATA : -ENOENT;
	return 0;
}

int inline_chain(struct inline_resolver *r, const char *dso, uint64_t addr, const char *sym, size_t syml,
		 uint64_t sym_off, const struct inline_frame **out)
{
	struct {
		const char *dso;   /* interned in dsos: one pointer per path */
		uint64_t addr;
	} key;
	size_t dsol = strlen(dso);
	Dwfl_Module *m = dso_open(r, dso, dsol);
	int created;
	struct hm_entry *e;
	struct chain *ch;

	key.dso = hm_find(&r->dsos, dso, dsol)->key;
	key.addr = addr;
	e = hm_upsert(&r->chains, &key, sizeof(key), &created);
	if (created) {
		uint64_t base;

		e->val.ptr = NULL;
		ch = m ? chain_make(m, addr) : NULL;
		/* as the Perl script does with nm: the symbol's address + offset */
		if (!ch && m && sym && syml && sym_addr(m, sym, syml, &base))
			ch = chain_make(m, base + sym_off);
		hm_find(&r->chains, &key, sizeof(key))->val.ptr = ch;
	} else {
		ch = e->val.ptr;
	}
	if (!ch)
		return -ENOENT;
	*out = ch->v;
	return (int)ch->n;
}

/* Hex digits s[0..n) (either case, no "0x") into *v; false on anything else. */
static bool parse_hex(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)s[i] | 0x20;

		if (c >= '0' && c <= '9')
			x = x * 16 + (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			x = x * 16 + (uint64_t)(c - 'a' + 10);
		else
			return false;
	}
	*v = x;
	return true;
}

int inline_resolve(struct inline_resolver *r, const char *pc, size_t pcl, const char *func,
		   size_t funcl, const char *dso, size_t dsol, bool context, struct strbuf *out)
{
	uint64_t addr, off = 0;
	const char *plus = NULL;
	const struct inline_frame *v;
	int n;

	if (!parse_hex(pc, pcl, &addr))
		return -ENOENT;
	/* "func+0xOFF": the symbol and offset tried when pc has no DWARF */
	for (size_t i = funcl; i-- > 0;)
		if (func[i] == '+') {
			plus = func + i;
			break;
		}
	if (!plus || plus == func || func + funcl - plus < 4 || memcmp(plus, "+0x", 3) ||
	    !parse_hex(plus + 3, (size_t)(func + funcl - plus - 3), &off))
		plus = NULL;
	sb_reset(&r->dso);
	sb_add(&r->dso, dso, dsol);
	n = inline_chain(r, r->dso.buf, addr, func, plus ? (size_t)(plus - func) : 0, off, &v);
	if (n <= 0)
		return -ENOENT;
	chain_text(v, (size_t)n, context, !r->no_mark, out);
	return 0;
}

void inline_resolver_set_mark(struct inline_resolver *r, bool mark)
{
	r->no_mark = !mark;
}

int inline_resolve_addr(struct inline_resolver *r, const char *dso, uint64_t addr, bool context,
			struct strbuf *out)
{
	const struct inline_frame *v;
	int n = inline_chain(r, dso, addr, NULL, 0, 0, &v);

	if (n <= 0)
		return -ENOENT;
	chain_text(v, (size_t)n, context, !r->no_mark, out);
	return 0;
}

int inline_resolve_frames(struct inline_resolver *r, const char *dso, uint64_t addr,
			  struct inline_frame *out, size_t max)
{
	Dwfl_Module *m = dso_open(r, dso, strlen(dso));
	int n;

	if (!m || !max)
		return -ENOENT;
	const char *dir = NULL;

	n = collect(m, addr, out, max > 256 ? 256 : (int)max, &dir);
	if (n < 0)
		return n;
	/* a relative file name is relative to the unit's DW_AT_comp_dir */
	for (int i = 0; i < n && dir; i++)
		if (out[i].file && out[i].file[0] != '/') {
			sb_reset(&r->key);
			sb_addf(&r->key, "%s/%s", dir, out[i].file);
			out[i].file = hm_intern(&r->paths, r->key.buf, r->key.len);
		}
	/* outermost first */
	for (int i = 0, j = n - 1; i < j; i++, j--) {
		struct inline_frame t = out[i];

		out[i] = out[j];
		out[j] = t;
	}
	return n;
}
