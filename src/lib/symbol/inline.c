/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "symbol/inline.h"
#include "base/hashmap.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct inline_resolver {
	struct hashmap dsos;     /* path → Dwfl * (NULL: unusable) */
	struct hashmap results;  /* "ctx\0dso\0pc" → strdup'd result or NULL */
	struct strbuf key;
	bool no_mark;          /* inline_resolver_set_mark(r, false) */
	struct hashmap paths;    /* absolute source paths made by inline_resolve_frames */
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
	hm_init(&r->results);
	hm_init(&r->paths);
	sb_init(&r->key, 0);
	return r;
}

void inline_resolver_free(struct inline_resolver *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->dsos.nr; i++)
		if (r->dsos.entries[i].val.ptr)
			dwfl_end(r->dsos.entries[i].val.ptr);
	for (size_t i = 0; i < r->results.nr; i++)
		free(r->results.entries[i].val.ptr);
	hm_release(&r->dsos);
	hm_release(&r->results);
	hm_release(&r->paths);
	sb_release(&r->key);
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
	Dwfl *d = dwfl_begin(&offline_cb);
	if (d) {
		dwfl_report_begin(d);
		m = dwfl_report_offline(d, "", path, -1);
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
static int collect(Dwfl_Module *mod, uint64_t elf_pc, struct inline_frame *fr, int max,
		   const char **comp_dir)
{
	Dwarf_Addr bias = 0;
	int nfr = 0;

	dwfl_module_getelf(mod, &bias);
	uint64_t pc = elf_pc + bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias), cu_scan;
	const char *file = NULL;
	int line = 0;
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
			if (dwarf_offdie(dw, off + hsize, &cu_scan) && dwarf_haspc(&cu_scan, pc - bias) > 0)
				cu = &cu_scan;
			off = next;
		}
		if (!cu)
			return -ENOENT;
		Dwarf_Line *dl = dwarf_getsrc_die(cu, pc - bias);
		if (dl) {
			file = dwarf_linesrc(dl, NULL, NULL);
			dwarf_lineno(dl, &line);
		}
	}
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
	for (int depth = 0; have && depth < 256 && nfr < max; depth++) {
		fr[nfr].name = dwarf_diename(&die);
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

static int resolve(Dwfl_Module *mod, uint64_t elf_pc, bool context, bool mark, struct strbuf *out)
{
	struct inline_frame fr[256];
	int n = collect(mod, elf_pc, fr, 256, NULL);

	/* outermost first, joined by ';' */
	for (int i = n; i-- > 0;) {
		if (i != n - 1)
			sb_addch(out, ';');
		sb_addstr(out, fr[i].name ? fr[i].name : "??");
		if (context)
			sb_addf(out, ":%s:%d", fr[i].file ? base_name(fr[i].file) : "??", fr[i].line);
		if (mark && fr[i].inlined)
			sb_add(out, "_[i]", 4);
	}
	return n > 0 ? 0 : -ENOENT;
}

/* The cached answer for (kind, dso, what): 0 with it appended to out,
 * -ENOENT for a cached failure, or 1 when there is none yet (an empty
 * entry is made, and r->key holds its key for the caller to fill it). */
static int cache_lookup(struct inline_resolver *r, char kind, const char *dso, size_t dsol,
			const void *what, size_t whatl, struct strbuf *out)
{
	int created;

	sb_reset(&r->key);
	sb_addch(&r->key, kind);
	sb_add(&r->key, dso, dsol);
	sb_addch(&r->key, '\0');
	sb_add(&r->key, what, whatl);
	struct hm_entry *e = hm_upsert(&r->results, r->key.buf, r->key.len, &created);
	if (created) {
		e->val.ptr = NULL;
		return 1;
	}
	if (!e->val.ptr)
		return -ENOENT;
	sb_addstr(out, e->val.ptr);
	return 0;
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
	int rc = cache_lookup(r, context ? 'c' : '-', dso, dsol, pc, pcl, out);

	if (rc <= 0)
		return rc;
	uint64_t addr;
	if (!parse_hex(pc, pcl, &addr))
		return -ENOENT;
	Dwfl_Module *m = dso_open(r, dso, dsol);
	if (!m)
		return -ENOENT;
	size_t before = out->len;
	if (resolve(m, addr, context, !r->no_mark, out)) {
		/* as the Perl script does with nm: "func+0xOFF" → address of func + OFF */
		const char *plus = NULL;
		for (size_t i = funcl; i-- > 0;)
			if (func[i] == '+') {
				plus = func + i;
				break;
			}
		if (!plus || plus == func || func + funcl - plus < 4 || memcmp(plus, "+0x", 3))
			return -ENOENT;
		uint64_t off, base;
		if (!parse_hex(plus + 3, (size_t)(func + funcl - plus - 3), &off))
			return -ENOENT;
		if (!sym_addr(m, func, (size_t)(plus - func), &base) ||
		    resolve(m, base + off, context, !r->no_mark, out))
			return -ENOENT;
	}
	hm_find(&r->results, r->key.buf, r->key.len)->val.ptr = xstrdup(out->buf + before);
	return 0;
}

void inline_resolver_set_mark(struct inline_resolver *r, bool mark)
{
	r->no_mark = !mark;
}

int inline_resolve_addr(struct inline_resolver *r, const char *dso, uint64_t addr, bool context,
			struct strbuf *out)
{
	size_t dsol = strlen(dso);
	int rc = cache_lookup(r, context ? 'C' : 'A', dso, dsol, &addr, sizeof(addr), out);

	if (rc <= 0)
		return rc;
	Dwfl_Module *m = dso_open(r, dso, dsol);
	size_t before = out->len;
	if (!m || resolve(m, addr, context, !r->no_mark, out)) {
		sb_setlen(out, before);
		return -ENOENT;
	}
	hm_find(&r->results, r->key.buf, r->key.len)->val.ptr = xstrdup(out->buf + before);
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
