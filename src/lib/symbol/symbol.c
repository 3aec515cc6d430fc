/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symbol.c — address → symbol resolution: ELF symbol tables through libelf,
 * kernel addresses through /proc/kallsyms.
 *
 * Model (the rules every lookup follows):
 *   - A DSO's table is its .symtab when that holds at least one function
 *     symbol, else the .symtab of its separate debug file found by
 *     build-id under /usr/lib/debug/.build-id/, else its .dynsym.  On
 *     x86-64, .rela.plt adds one 16-byte "name@plt" symbol per PLT entry.  Function symbols are STT_FUNC and
 *     STT_GNU_IFUNC with a name and a defining section.  STT_NOTYPE symbols
 *     in executable sections (hand-written assembly) are taken only where no
 *     sized function covers their address.
 *   - Several symbols at one address: the one kept for address lookups is
 *     the one perf keeps (symbols__fixup_duplicate() and
 *     choose_best_symbol() in tools/perf/util/symbol.c), in order of
 *     preference: a function over a NOTYPE label, a sized one over a size-0
 *     one, a non-weak one over a weak one, a global one over a local one,
 *     the one with fewer leading underscores, the longer name, not a "SyS"
 *     or "compat_SyS" syscall alias, then the first in the table.  Symbol
 *     versions play no part ("pthread_sigmask@GLIBC_2.2.5" and
 *     "pthread_sigmask@@GLIBC_2.32": the first listed).  All of them stay
 *     reachable by name.
 *   - kallsyms has no sizes: perf gives each symbol the extent up to the next
 *     one before choosing, so of the symbols listed at one address all but
 *     the last have length 0, and the last listed is kept ("__x64_sys_vfork"
 *     after "__ia32_sys_vfork", "__pi_memcpy" after "memcpy").
 *   - A sized symbol covers [start, start + size); an address past its end
 *     belongs to no symbol (padding).  A size-0 symbol extends to the next
 *     symbol's start, and never past the end of its section.
 *   - Kernel symbols (kallsyms types t T w W, modules included) have no
 *     sizes: each extends to the next one, at most 1 MiB.
 *   - File offset → ELF vaddr: the PT_LOAD whose [p_offset, p_offset +
 *     p_filesz) holds the offset, else the one whose page-rounded start does
 *     (the page a mapping starts on); vaddr = off - p_offset + p_vaddr.  An
 *     ELF without program headers maps offsets to themselves.
 *
 * Costs: each DSO is opened, read and sorted once (qsort), then every lookup
 * is a binary search; results are kept in a per-table open-addressing hash
 * keyed by the address, so repeated addresses cost one probe.  That hash is
 * bounded (RC_MAX_SLOTS) and simply cleared when full.
 */
#include "symbol/symbol.h"
#include "base/path.h"
#include "symbol/demangle.h"
#include "base/hashmap.h"
#include "base/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/auxv.h>
#include <unistd.h>

#define KSYM_MAX_EXTENT (1ULL << 20)
#define RC_EMPTY UINT64_MAX
#define RC_NONE UINT32_MAX
#define RC_MIN_SLOTS 64
#define RC_MAX_SLOTS (1u << 12) /* 64 KiB per table at most: a larger one misses the
				 * CPU's caches, and a probe costs more than the search */

struct sym {
	uint64_t start, end;
	const char *name;  /* interned (the kernel's: in symcache.kbuf, interned when shown) */
	const char *shown; /* the name as shown (shown()), NULL until asked */
};

/* One cached lookup: key (file offset or kernel ip) → symbol index and
 * PT_LOAD index (RC_NONE when none). */
struct rc_ent {
	uint64_t key;
	uint32_t sym, seg;
};

struct rcache {
	struct rc_ent *ent;
	size_t nslots, nr; /* nslots: 0 or a power of two */
};

struct symtab {
	struct sym *syms;
	uint64_t *starts; /* syms[i].start, dense for the binary search */
	size_t n;
	/* Buckets of the addresses from starts[0] on, 1 << shift bytes each:
	 * bucket[b] is the first symbol starting at or after bucket b's
	 * start, bucket[nb] n; the search reads one bucket's symbols (a few
	 * cache lines) instead of log2(n) levels of starts (a miss each).
	 * NULL for small tables. */
	uint32_t *bucket;
	size_t nb;
	unsigned shift;
	struct rcache rc;
};

struct seg {
	uint64_t off, filesz, vaddr;
};

/* Every function symbol of a DSO, aliases included, for name lookups. */
struct named {
	const char *name;
	uint64_t start, size;
	uint8_t rank;
};

enum dso_state { DSO_NEW, DSO_LOADED, DSO_MISSING };

struct dso {
	const char *path; /* the key in symcache.dsos */
	enum dso_state state;
	struct symtab st;
	struct seg *segs;
	size_t nsegs;
	struct named *named;
	size_t nnamed;
	struct hashmap byname; /* name → index + 1 in named, built on demand */
	int byname_built;
};

struct symcache {
	struct hashmap names; /* interned symbol names */
	char *kbuf;           /* the kernel text symbols' names from /proc/kallsyms,
			       * packed (interned when first shown) */
	struct hashmap dsos;  /* path → struct dso * */
	struct dso *last;     /* the DSO of the previous lookup */
	struct symtab kernel;
	enum dso_state kstate;
	bool no_demangle;     /* symcache_set_demangle(c, false) */
	bool kallsyms_set;    /* symcache_set_kallsyms() called */
	const char *kallsyms; /* its file (NULL: none), when kallsyms_set */
	struct hashmap demangled; /* raw name pointer → demangled name (interned) */
};

/* A candidate symbol while a table is built. */
struct cand {
	uint64_t start, size, limit; /* limit: end of its section */
	const char *name;            /* interned */
	uint32_t namelen;
	uint8_t notype;              /* 1: STT_NOTYPE label */
	uint8_t rank;                /* 0 global, 1 local (or other), 2 weak;
				      * +4: a non-default symbol version */
	uint8_t zero_len;            /* length 0 as perf sees it (see the model) */
	uint32_t order;              /* place in its table (cands_push order) */
};

struct cands {
	struct cand *v;
	size_t n, alloc;
};

/* ---- result cache ---------------------------------------------------- */

static size_t rc_hash(uint64_t key)
{
	key *= 0x9e3779b97f4a7c15ULL;
	return (size_t)(key ^ (key >> 29));
}

static struct rc_ent *rc_find(const struct rcache *rc, uint64_t key)
{
	if (!rc->nslots || key == RC_EMPTY)
		return NULL;
	size_t mask = rc->nslots - 1, s = rc_hash(key) & mask;
	while (rc->ent[s].key != RC_EMPTY) {
		if (rc->ent[s].key == key)
			return &rc->ent[s];
		s = (s + 1) & mask;
	}
	return NULL;
}

static void rc_fill(struct rc_ent *ent, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ent[i].key = RC_EMPTY;
}

static void rc_insert(struct rcache *rc, uint64_t key, uint32_t sym, uint32_t seg)
{
	if (key == RC_EMPTY)
		return;
	if ((rc->nr + 1) * 2 > rc->nslots) {
		if (rc->nslots >= RC_MAX_SLOTS) {
			rc_fill(rc->ent, rc->nslots); /* full: start over */
			rc->nr = 0;
		} else {
			size_t ns = rc->nslots ? rc->nslots * 2 : RC_MIN_SLOTS;
			struct rc_ent *old = rc->ent;
			size_t on = rc->nslots;

			rc->ent = xmalloc(ns * sizeof(*rc->ent));
			rc_fill(rc->ent, ns);
			rc->nslots = ns;
			for (size_t i = 0; i < on; i++) {
				if (old[i].key == RC_EMPTY)
					continue;
				size_t s = rc_hash(old[i].key) & (ns - 1);
				while (rc->ent[s].key != RC_EMPTY)
					s = (s + 1) & (ns - 1);
				rc->ent[s] = old[i];
			}
			free(old);
		}
	}
	size_t mask = rc->nslots - 1, s = rc_hash(key) & mask;
	while (rc->ent[s].key != RC_EMPTY)
		s = (s + 1) & mask;
	rc->ent[s].key = key;
	rc->ent[s].sym = sym;
	rc->ent[s].seg = seg;
	rc->nr++;
}

/* ---- sorted tables ------------------------------------------------------ */

static void cands_push(struct cands *cs, const struct cand *c)
{
	if (cs->n == cs->alloc) {
		cs->alloc = cs->alloc ? cs->alloc * 2 : 256;
		cs->v = xrealloc(cs->v, cs->alloc * sizeof(*cs->v));
	}
	cs->v[cs->n] = *c;
	cs->v[cs->n].order = (uint32_t)cs->n;
	cs->n++;
}

/* perf's arch__choose_best_symbol(): a "SyS" or "compat_SyS" syscall alias
 * is never the name kept */
static bool sys_alias(const char *s)
{
	return !strncmp(s, "SyS", 3) || !strncmp(s, "compat_SyS", 10);
}

static int underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* By address, then best first (see the model at the top). */
static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->notype != b->notype)
		return a->notype - b->notype;
	if (a->zero_len != b->zero_len)
		return a->zero_len - b->zero_len;
	if ((a->rank & 3) != (b->rank & 3))   /* weak last, then local */
		return (a->rank & 3) - (b->rank & 3);
	int ua = underscores(a->name), ub = underscores(b->name);
	if (ua != ub)
		return ua - ub;
	if (a->namelen != b->namelen)
		return a->namelen > b->namelen ? -1 : 1;
	if (sys_alias(a->name) != sys_alias(b->name))
		return sys_alias(a->name) ? 1 : -1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Sort the candidates, keep the best per address and fix up the ends.
 * by_start: v is sorted by start already (kallsyms): only the runs of
 * one address are sorted, which cand_cmp orders the same. */
static void symtab_build(struct symtab *st, struct cand *v, size_t n, bool by_start)
{
	if (!n)
		return;
	if (!by_start)
		qsort(v, n, sizeof(*v), cand_cmp);
	for (size_t i = 0, j; by_start && i < n; i = j) {
		for (j = i + 1; j < n && v[j].start == v[i].start; j++)
			;
		if (j - i > 1)
			qsort(v + i, j - i, sizeof(*v), cand_cmp);
	}
	st->syms = xmalloc(n * sizeof(*st->syms));
	size_t m = 0;
	uint64_t *limit = xmalloc(n * sizeof(*limit));
	uint64_t *size = xmalloc(n * sizeof(*size));

	for (size_t i = 0; i < n; i++) {
		if (m && st->syms[m - 1].start == v[i].start)
			continue;
		st->syms[m].start = v[i].start;
		st->syms[m].name = v[i].name;
		st->syms[m].shown = NULL;
		limit[m] = v[i].limit;
		size[m] = v[i].size;
		m++;
	}
	for (size_t i = 0; i < m; i++) {
		struct sym *s = &st->syms[i];

		if (size[i]) {
			s->end = s->start + size[i];
			if (s->end < s->start)
				s->end = UINT64_MAX;
		} else {
			s->end = limit[i];
			if (i + 1 < m && st->syms[i + 1].start < s->end)
				s->end = st->syms[i + 1].start;
		}
	}
	free(limit);
	free(size);
	st->n = m;
	st->starts = xmalloc(m * sizeof(*st->starts));
	for (size_t i = 0; i < m; i++)
		st->starts[i] = st->syms[i].start;
	st->bucket = NULL;
	if (m >= 256 && m < UINT32_MAX) {   /* about 4 symbols a bucket */
		uint64_t base = st->starts[0], span = st->starts[m - 1] - base;
		size_t nb = 1, i = 0;

		while (nb < m / 4)
			nb <<= 1;
		st->shift = 0;
		while (st->shift < 63 && span >> st->shift >= nb)
			st->shift++;
		st->nb = nb;
		st->bucket = xmalloc((nb + 1) * sizeof(*st->bucket));
		for (size_t b = 0; b < nb; b++) {
			uint64_t from = (uint64_t)b << st->shift;

			if (from >> st->shift != b)   /* past 2^64: no symbol there */
				from = UINT64_MAX;
			while (i < m && st->starts[i] - base < from)
				i++;
			st->bucket[b] = (uint32_t)i;
		}
		st->bucket[nb] = (uint32_t)m;
	}
}

static const struct sym *symtab_find(const struct symtab *st, uint64_t a)
{
	size_t lo = 0, hi = st->n;

	if (st->bucket && st->n) {   /* the bucket of a */
		uint64_t b;

		if (a < st->starts[0])
			return NULL;
		b = (a - st->starts[0]) >> st->shift;
		if (b >= st->nb) {
			lo = hi = st->n;
		} else {
			lo = st->bucket[b];
			hi = st->bucket[b + 1];
		}
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (st->starts[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct sym *s = &st->syms[lo - 1];
	return a < s->end ? s : NULL;
}

static void symtab_forget_shown(struct symtab *st)
{
	for (size_t i = 0; i < st->n; i++)
		st->syms[i].shown = NULL;
}

static void symtab_release(struct symtab *st)
{
	free(st->syms);
	free(st->starts);
	free(st->bucket);
	free(st->rc.ent);
	memset(st, 0, sizeof(*st));
}

/* ---- ELF loading --------------------------------------------------------- */

struct secinfo {
	uint64_t flags, addr, size;
};

static uint8_t bind_rank(unsigned bind)
{
	switch (bind) {
	case STB_GLOBAL: return 0;
	case STB_WEAK: return 2;
	default: return 1;   /* local, GNU unique: not weak, not global */
	}
}

/* Collect the function symbols (and executable NOTYPE labels) of one symbol
 * table section into funcs and labels.  Returns the number of functions. */
static size_t collect(struct symcache *c, Elf *e, Elf_Scn *scn, Elf_Scn *xscn,
		      Elf_Scn *verscn, const struct secinfo *sec, size_t nsec,
		      struct cands *funcs, struct cands *labels)
{
	GElf_Shdr sh;
	Elf_Data *data, *xdata = NULL, *verdata = NULL;
	size_t entsz = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT), nf = 0;

	if (!gelf_getshdr(scn, &sh) || !entsz)
		return 0;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return 0;
	if (xscn)
		xdata = elf_getdata(xscn, NULL);
	if (verscn)
		verdata = elf_getdata(verscn, NULL);
	size_t nsyms = data->d_size / entsz;
	hm_reserve(&c->names, nsyms / 2);   /* about half are functions */
	for (size_t i = 1; i < nsyms; i++) {
		GElf_Sym s;
		Elf32_Word xndx = 0;

		if (!gelf_getsymshndx(data, xdata, (int)i, &s, &xndx))
			continue;
		unsigned type = GELF_ST_TYPE(s.st_info);
		size_t shndx = s.st_shndx == SHN_XINDEX ? xndx : s.st_shndx;
		int is_func = type == STT_FUNC || type == STT_GNU_IFUNC;

		if (shndx == SHN_UNDEF || !s.st_name)
			continue;
		if (!is_func && !(type == STT_NOTYPE && shndx < nsec &&
				  (sec[shndx].flags & SHF_EXECINSTR)))
			continue;
		const char *name = elf_strptr(e, sh.sh_link, s.st_name);
		if (!name || !*name || name[0] == '$' || !strncmp(name, ".L", 2))
			continue;
		size_t len = strlen(name);
		struct cand cd = {
			.start = s.st_value,
			.size = s.st_size,
			.name = hm_intern(&c->names, name, len),
			.namelen = (uint32_t)len,
			.notype = !is_func,
			.rank = bind_rank(GELF_ST_BIND(s.st_info)),
			.zero_len = !s.st_size,
		};
		if (shndx < nsec && sec[shndx].size &&
		    cd.start >= sec[shndx].addr &&
		    cd.start < sec[shndx].addr + sec[shndx].size)
			cd.limit = sec[shndx].addr + sec[shndx].size;
		else
			cd.limit = cd.start + cd.size;
		if (cd.size && cd.limit < cd.start + cd.size)
			cd.limit = cd.start + cd.size;
		if (cd.limit < cd.start)
			cd.limit = UINT64_MAX;
		/* A non-default symbol version (name@VER, not name@@VER)
		 * ranks after the default one in name lookups. */
		GElf_Versym vs;
		if (verdata && gelf_getversym(verdata, (int)i, &vs) && (vs & 0x8000))
			cd.rank += 4;
		cands_push(is_func ? funcs : labels, &cd);
		nf += is_func;
	}
	return nf;
}

static int start_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

static int start_order_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Is addr the start of a function or inside a sized one?  funcs is sorted
 * by start; sized functions rarely nest, so looking back over the few
 * nearest predecessors is enough. */
static int covered(const struct cands *funcs, uint64_t addr)
{
	size_t lo = 0, hi = funcs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (funcs->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, k = 0; i > 0 && k < 8; i--, k++) {
		const struct cand *f = &funcs->v[i - 1];
		if (f->start == addr || addr - f->start < f->size)
			return 1;
	}
	return 0;
}

/* The function symbols and labels of e: .symtab, else .dynsym.  Returns 1
 * when they came from a .symtab with functions. */
static int read_symbols(struct symcache *c, Elf *e, struct cands *funcs, struct cands *labels)
{
	size_t nsec = 0;
	struct secinfo *sec = NULL;
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL, *symx = NULL, *dynx = NULL;
	Elf_Scn *versym = NULL;
	size_t symtab_ndx = 0, dynsym_ndx = 0;

	if (elf_getshdrnum(e, &nsec) != 0)
		nsec = 0;
	if (nsec)
		sec = xcalloc(nsec, sizeof(*sec));
	/* First pass: section flags/ranges and the symbol tables. */
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		size_t ndx = elf_ndxscn(scn);

		if (!gelf_getshdr(scn, &sh) || ndx >= nsec)
			continue;
		sec[ndx] = (struct secinfo){ sh.sh_flags, sh.sh_addr, sh.sh_size };
		if (sh.sh_type == SHT_SYMTAB && !symtab) {
			symtab = scn;
			symtab_ndx = ndx;
		} else if (sh.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dynsym_ndx = ndx;
		}
	}
	/* Second pass: extended section index tables linked to them. */
	scn = NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_GNU_versym && dynsym && sh.sh_link == dynsym_ndx)
			versym = scn;
		if (sh.sh_type != SHT_SYMTAB_SHNDX)
			continue;
		if (symtab && sh.sh_link == symtab_ndx)
			symx = scn;
		else if (dynsym && sh.sh_link == dynsym_ndx)
			dynx = scn;
	}

	/* .symtab, else .dynsym; a .symtab without functions gives way to a
	 * .dynsym with some (but keeps its labels otherwise). */
	size_t nf = symtab ? collect(c, e, symtab, symx, NULL, sec, nsec, funcs, labels) : 0;
	if (!nf && dynsym) {
		struct cands df = { 0 }, dl = { 0 };
		if (collect(c, e, dynsym, dynx, versym, sec, nsec, &df, &dl) || !labels->n) {
			free(funcs->v);
			free(labels->v);
			*funcs = df;
			*labels = dl;
		} else {
			free(df.v);
			free(dl.v);
		}
	}
	free(sec);
	return nf > 0;
}

/* The debug file a .gnu_debuglink section names, searched where gdb looks:
 * /usr/lib/debug/DIR/NAME, DIR/.debug/NAME, DIR/NAME (DIR: the DSO's
 * directory).  Returns an open fd or -1. */
static int debuglink_open(const char *path)
{
	int fd = pk_open_regular(path), dfd = -1;
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	char name[256] = "";

	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && elf_getshdrstrndx(e, &shstrndx) == 0) {
		while ((scn = elf_nextscn(e, scn)) != NULL) {
			GElf_Shdr sh;
			const char *sn;

			if (!gelf_getshdr(scn, &sh) || !(sn = elf_strptr(e, shstrndx, sh.sh_name)) ||
			    strcmp(sn, ".gnu_debuglink"))
				continue;
			Elf_Data *d = elf_getdata(scn, NULL);
			if (d && d->d_buf && d->d_size > 4)
				snprintf(name, sizeof(name), "%.*s", (int)strnlen(d->d_buf, d->d_size - 4),
					 (const char *)d->d_buf);
			break;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	if (!name[0] || strchr(name, '/'))
		return -1;
	const char *slash = strrchr(path, '/');
	int dl = slash ? (int)(slash - path) : 0;
	char cand[4096];
	const char *fmt[] = { "/usr/lib/debug%.*s/%s", "%.*s/.debug/%s", "%.*s/%s" };

	for (int i = 0; i < 3 && dfd < 0; i++) {
		snprintf(cand, sizeof(cand), fmt[i], dl, path, name);
		if (strcmp(cand, path))
			dfd = pk_open_regular(cand);
	}
	return dfd;
}

/* The separate debug file of a stripped DSO, by build-id, else by
 * .gnu_debuglink, or NULL. */
static Elf *debug_elf(const char *path, int *fdp)
{
	uint8_t id[64];
	struct strbuf dpath = STRBUF_INIT;
	int n = sym_read_build_id(path, id, sizeof(id));

	*fdp = -1;
	if (n >= 2 && bid_debug_path(id, (size_t)n, &dpath) == 0)
		*fdp = pk_open_regular(dpath.buf);
	if (*fdp < 0)
		*fdp = debuglink_open(path);
	/* perf's build-id cache (~/.debug/.build-id/XX/REST/elf): the copy
	 * perf record saved, the file not stripped when the build was kept
	 * (perf reads its symbols from there too, DSO_BINARY_TYPE__BUILD_ID_CACHE) */
	if (*fdp < 0 && n >= 2 && bid_find(id, (size_t)n, &dpath) == 0 && strcmp(dpath.buf, path))
		*fdp = pk_open_regular(dpath.buf);
	sb_release(&dpath);
	if (*fdp < 0)
		return NULL;
	Elf *e = elf_begin(*fdp, ELF_C_READ_MMAP, NULL);
	if (e && elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		e = NULL;
	}
	return e;
}

/* x86-64 PLT entries as "name@plt" symbols, like perf: the i-th .rela.plt
 * relocation belongs to the i-th 16-byte entry of .plt.sec when there is
 * one (IBT), else of .plt after its header entry.  Relocations without a
 * symbol (IRELATIVE) give perf's bare "@plt". */
static void add_plt(struct symcache *c, Elf *e, struct cands *funcs)
{
	GElf_Ehdr eh;
	GElf_Shdr plt = { 0 }, pltsec = { 0 }, rsh = { 0 }, dsh;
	Elf_Scn *scn = NULL, *rela = NULL, *dsym;
	Elf_Data *rd, *dd = NULL;
	size_t shstrndx, rent = gelf_fsize(e, ELF_T_RELA, 1, EV_CURRENT);
	char buf[512];

	if (!gelf_getehdr(e, &eh) || eh.e_machine != EM_X86_64 || !rent ||
	    elf_getshdrstrndx(e, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(n, ".plt") && sh.sh_type == SHT_PROGBITS)
			plt = sh;
		else if (!strcmp(n, ".plt.sec") && sh.sh_type == SHT_PROGBITS)
			pltsec = sh;
		else if (!strcmp(n, ".rela.plt") && sh.sh_type == SHT_RELA) {
			rela = scn;
			rsh = sh;
		}
	}
	if (!rela || (!plt.sh_size && !pltsec.sh_size) || !(rd = elf_getdata(rela, NULL)))
		return;
	dsym = elf_getscn(e, rsh.sh_link);
	if (dsym && gelf_getshdr(dsym, &dsh))
		dd = elf_getdata(dsym, NULL);

	uint64_t base = pltsec.sh_size ? pltsec.sh_addr : plt.sh_addr + 16;
	uint64_t end = pltsec.sh_size ? pltsec.sh_addr + pltsec.sh_size : plt.sh_addr + plt.sh_size;
	size_t n = rd->d_size / rent;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name = NULL;
		uint64_t a = base + 16 * (uint64_t)i;

		if (a < base || a + 16 > end || a + 16 < a)
			break;
		if (!gelf_getrela(rd, (int)i, &r))
			continue;
		if (GELF_R_SYM(r.r_info) && dd && gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym))
			name = elf_strptr(e, dsh.sh_link, sym.st_name);
		int len = snprintf(buf, sizeof(buf), "%s@plt", name ? name : "");
		if (len < 0 || (size_t)len >= sizeof(buf))
			continue;
		struct cand cd = {
			.start = a,
			.size = 16,
			.limit = a + 16,
			.name = hm_intern(&c->names, buf, (size_t)len),
			.namelen = (uint32_t)len,
			.rank = 2,
		};
		cands_push(funcs, &cd);
	}
}

/* Load d from e: PT_LOAD segments, then the symbols (from the debug file's
 * .symtab when e has none and path is set). */
static int elf_load(struct symcache *c, struct dso *d, Elf *e, const char *path)
{
	size_t nph = 0, nf;
	struct cands funcs = { 0 }, labels = { 0 };

	if (elf_kind(e) != ELF_K_ELF)
		return -EINVAL;
	if (elf_getphdrnum(e, &nph) == 0) {
		d->segs = xcalloc(nph ? nph : 1, sizeof(*d->segs));
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			d->segs[d->nsegs++] = (struct seg){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
		}
	}
	if (!read_symbols(c, e, &funcs, &labels) && path) {
		int dfd;
		Elf *de = debug_elf(path, &dfd);
		struct cands df = { 0 }, dl = { 0 };

		if (de && read_symbols(c, de, &df, &dl)) {
			free(funcs.v);
			free(labels.v);
			funcs = df;
			labels = dl;
		} else {
			free(df.v);
			free(dl.v);
		}
		elf_end(de);
		if (dfd >= 0)
			close(dfd);
	}

	add_plt(c, e, &funcs);

	/* Every symbol is reachable by name, labels included. */
	d->nnamed = funcs.n + labels.n;
	if (d->nnamed) {
		d->named = xmalloc(d->nnamed * sizeof(*d->named));
		for (size_t i = 0; i < d->nnamed; i++) {
			const struct cand *cd = i < funcs.n ? &funcs.v[i] : &labels.v[i - funcs.n];
			d->named[i] = (struct named){ cd->name, cd->start, cd->size, cd->rank };
		}
	}

	/* Labels only where no function is. */
	if (labels.n) {
		qsort(funcs.v, funcs.n, sizeof(*funcs.v), start_cmp);
		nf = funcs.n;
		for (size_t i = 0; i < labels.n; i++) {
			struct cands fonly = { funcs.v, nf, nf };
			if (!covered(&fonly, labels.v[i].start))
				cands_push(&funcs, &labels.v[i]);
		}
	}
	symtab_build(&d->st, funcs.v, funcs.n, false);
	free(funcs.v);
	free(labels.v);
	return 0;
}

/* The vdso of this process (the same image every process of this kernel
 * and ABI maps), copied out of memory. */
static int vdso_load(struct symcache *c, struct dso *d)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	const unsigned char *p = (const unsigned char *)base;

	if (!base || memcmp(p, ELFMAG, SELFMAG) || p[EI_CLASS] != ELFCLASS64)
		return -ENOENT;
	Elf64_Ehdr eh;
	memcpy(&eh, p, sizeof(eh));
	uint64_t size = eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, p + eh.e_phoff + (uint64_t)i * eh.e_phentsize, sizeof(ph));
		if (ph.p_type == PT_LOAD && ph.p_offset + ph.p_filesz > size)
			size = ph.p_offset + ph.p_filesz;
	}
	if (size < sizeof(eh) || size > (1u << 20))
		return -EINVAL;
	char *img = xmalloc(size);
	memcpy(img, p, size);
	Elf *e = elf_memory(img, size);
	int ret = e ? elf_load(c, d, e, NULL) : -EINVAL;
	elf_end(e);
	free(img);
	return ret;
}

static void dso_load(struct symcache *c, struct dso *d)
{
	int ret = -ENOENT;

	d->state = DSO_MISSING;
	if (!strcmp(d->path, "[vdso]")) {
		ret = vdso_load(c, d);
	} else {
		int fd = pk_open_regular(d->path);   /* never a FIFO: it would block */
		if (fd >= 0) {
			Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
			if (e)
				ret = elf_load(c, d, e, d->path);
			elf_end(e);
			close(fd);
		}
	}
	if (ret == 0)
		d->state = DSO_LOADED;
}

static void dso_free(struct dso *d)
{
	symtab_release(&d->st);
	free(d->segs);
	free(d->named);
	hm_release(&d->byname);
	free(d);
}

static struct dso *dso_get(struct symcache *c, const char *path)
{
	int created;
	struct hm_entry *he = hm_upsert(&c->dsos, path, strlen(path), &created);

	if (created) {
		struct dso *d = xcalloc(1, sizeof(*d));
		d->path = he->key;
		hm_init(&d->byname);
		he->val.ptr = d;
	}
	struct dso *d = he->val.ptr;
	if (d->state == DSO_NEW)
		dso_load(c, d);
	return d;
}

static uint32_t dso_seg(const struct dso *d, uint64_t off)
{
	for (size_t i = 0; i < d->nsegs; i++)
		if (off >= d->segs[i].off && off - d->segs[i].off < d->segs[i].filesz)
			return (uint32_t)i;
	for (size_t i = 0; i < d->nsegs; i++)
		if (off >= (d->segs[i].off & ~4095ULL) && off < d->segs[i].off)
			return (uint32_t)i;
	return RC_NONE;
}

/* ---- kernel ----------------------------------------------------------- */

static int hexval(unsigned char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch |= 0x20;
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

static void kernel_load(struct symcache *c)
{
	size_t len = 0, alloc = 8u << 20;
	char *buf;
	const char *path = c->kallsyms_set ? c->kallsyms : "/proc/kallsyms";
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	struct stat st;

	c->kstate = DSO_MISSING;
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {   /* a FIFO, /dev/zero: never read */
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		return;
	buf = xmalloc(alloc);
	for (;;) {
		if (alloc - len < (1u << 16)) {
			alloc *= 2;
			buf = xrealloc(buf, alloc);
		}
		ssize_t r = read(fd, buf + len, alloc - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';

	/* about 40 bytes a line, most of them text symbols */
	struct cands cs = { .alloc = len / 32 + 16 };
	int nonzero = 0;
	bool sorted = true;   /* by address, as the kernel lists most */
	char *p = buf, *end = buf + len;

	cs.v = xmalloc(cs.alloc * sizeof(*cs.v));
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *le = nl ? nl : end;
		uint64_t a = 0;
		int h, digits = 0;

		while (p < le && (h = hexval((unsigned char)*p)) >= 0) {
			a = a << 4 | (unsigned)h;
			p++;
			digits++;
		}
		/* "<hex> <type> <name>[\t[module]]" */
		if (digits && le - p >= 4 && p[0] == ' ' && p[2] == ' ') {
			char type = p[1];
			char *name = p + 3, *ne = name;

			while (ne < le && *ne != '\t' && *ne != ' ')
				ne++;
			if (a)
				nonzero = 1;
			if (ne > name && (type == 't' || type == 'T' || type == 'w' || type == 'W')) {
				struct cand cd = {
					.start = a,
					.name = name,   /* cut below: *ne is not read again */
					.namelen = (uint32_t)(ne - name),
					/* perf's kallsyms2elf_binding() */
					.rank = type == 'T' ? 0 : type == 't' ? 1 : 2,
				};
				*ne = '\0';
				cd.limit = a + KSYM_MAX_EXTENT < a ? UINT64_MAX : a + KSYM_MAX_EXTENT;
				sorted &= !cs.n || cs.v[cs.n - 1].start <= a;
				cands_push(&cs, &cd);
			}
		}
		p = le + 1;
	}
	/* the lengths perf sees: all but the last listed at an address have
	 * 0 (cands are in file order, sorted by address with few exceptions) */
	if (cs.n) {
		if (!sorted)
			qsort(cs.v, cs.n, sizeof(*cs.v), start_order_cmp);
		for (size_t i = 0; i < cs.n; i++)
			cs.v[i].zero_len = i + 1 < cs.n && cs.v[i + 1].start == cs.v[i].start;
	}
	if (nonzero && cs.n) {
		/* the text symbols' names alone kept, packed (half of the
		 * text: 2.6 of 5.4 MB here), the rest of the text freed */
		size_t total = 0;

		for (size_t i = 0; i < cs.n; i++)
			total += cs.v[i].namelen + 1;
		char *names = xmalloc(total), *q = names;

		for (size_t i = 0; i < cs.n; i++) {
			memcpy(q, cs.v[i].name, cs.v[i].namelen + 1);
			cs.v[i].name = q;
			q += cs.v[i].namelen + 1;
		}
		free(buf);
		symtab_build(&c->kernel, cs.v, cs.n, true);
		c->kstate = DSO_LOADED;
		c->kbuf = names;
	} else {
		free(buf);
	}
	free(cs.v);
}

/* ---- public API ------------------------------------------------------- */

struct symcache *symcache_new(void)
{
	struct symcache *c = xcalloc(1, sizeof(*c));

	elf_version(EV_CURRENT);
	hm_init(&c->names);
	hm_init(&c->dsos);
	hm_init(&c->demangled);
	return c;
}

void symcache_set_kallsyms(struct symcache *c, const char *path)
{
	if (!c || c->kstate != DSO_NEW)
		return;
	c->kallsyms_set = true;
	c->kallsyms = path;
}

void symcache_set_demangle(struct symcache *c, bool on)
{
	if (!c || c->no_demangle == !on)
		return;
	c->no_demangle = !on;
	symtab_forget_shown(&c->kernel);   /* the names shown so far follow the old setting */
	for (size_t i = 0; i < c->dsos.nr; i++)
		symtab_forget_shown(&((struct dso *)c->dsos.entries[i].val.ptr)->st);
}

/* The name as shown: demangled once per distinct raw name (see demangle.h). */
static const char *shown(struct symcache *c, const char *raw)
{
	int created;
	struct hm_entry *e;
	char *dm;

	if (!raw || c->no_demangle || !sym_is_mangled(raw))
		return raw;
	e = hm_upsert(&c->demangled, &raw, sizeof(raw), &created);
	if (!created)
		return e->val.ptr;
	dm = sym_demangle(raw, strlen(raw), 0);  /* perf's default: no parameters */
	e->val.ptr = dm ? (void *)hm_intern(&c->names, dm, strlen(dm)) : (void *)raw;
	free(dm);
	return e->val.ptr;
}

/* shown() of a table's symbol, kept with it: no test or hash per lookup.
 * The name is interned here (the kernel's are not before: one pointer per
 * name, whichever table it came from). */
static const char *sym_shown(struct symcache *c, struct sym *s)
{
	if (!s->shown)
		s->shown = shown(c, hm_intern(&c->names, s->name, strlen(s->name)));
	return s->shown;
}

size_t symcache_nr_dsos(const struct symcache *c)
{
	return c ? c->dsos.nr : 0;
}

void symcache_free(struct symcache *c)
{
	if (!c)
		return;
	hm_release(&c->demangled);
	for (size_t i = 0; i < c->dsos.nr; i++)
		dso_free(c->dsos.entries[i].val.ptr);
	hm_release(&c->dsos);
	symtab_release(&c->kernel);
	free(c->kbuf);
	hm_release(&c->names);
	free(c);
}

const char *symcache_resolve_kernel(struct symcache *c, uint64_t ip, uint64_t *sym_off)
{
	if (!c)
		return NULL;
	if (c->kstate == DSO_NEW)
		kernel_load(c);
	if (c->kstate != DSO_LOADED)
		return NULL;

	struct symtab *st = &c->kernel;
	struct rc_ent *re = rc_find(&st->rc, ip);
	uint32_t idx;

	if (re) {
		idx = re->sym;
	} else {
		const struct sym *s = symtab_find(st, ip);
		idx = s ? (uint32_t)(s - st->syms) : RC_NONE;
		rc_insert(&st->rc, ip, idx, RC_NONE);
	}
	if (idx == RC_NONE)
		return NULL;
	if (sym_off)
		*sym_off = ip - st->syms[idx].start;
	return sym_shown(c, &st->syms[idx]);
}

/* Paths that never name a readable ELF file: "//anon", "[heap]", ... */
static int special_path(const char *path)
{
	if (!path[0] || (path[0] == '/' && path[1] == '/'))
		return 1;
	return path[0] == '[' && strcmp(path, "[vdso]") != 0;
}

const char *symcache_resolve(struct symcache *c, const char *path, uint64_t file_off,
			     uint64_t *sym_off, uint64_t *vaddr)
{
	struct dso *d;

	if (vaddr)
		*vaddr = 0;
	if (!c || !path)
		return NULL;
	d = c->last;
	if (!d || strcmp(d->path, path) != 0) {
		if (!strncmp(path, "[kernel.kallsyms]", 17)) {
			/* perf's kernel map: pgoff is the map start, so the
			 * "file offset" is the kernel address itself. */
			if (vaddr)
				*vaddr = file_off;
			return symcache_resolve_kernel(c, file_off, sym_off);
		}
		if (special_path(path))
			return NULL;
		d = dso_get(c, path);
		c->last = d;
	}
	if (d->state != DSO_LOADED)
		return NULL;

	struct rc_ent *re = rc_find(&d->st.rc, file_off);
	uint32_t idx, seg;
	uint64_t va;

	if (re) {
		idx = re->sym;
		seg = re->seg;
	} else {
		seg = d->nsegs ? dso_seg(d, file_off) : RC_NONE;
		idx = RC_NONE;
		if (seg != RC_NONE || !d->nsegs) {
			va = seg == RC_NONE ? file_off
				: file_off - d->segs[seg].off + d->segs[seg].vaddr;
			const struct sym *s = symtab_find(&d->st, va);
			if (s)
				idx = (uint32_t)(s - d->st.syms);
		}
		rc_insert(&d->st.rc, file_off, idx, seg);
	}
	if (seg == RC_NONE && d->nsegs)
		return NULL;
	va = seg == RC_NONE ? file_off : file_off - d->segs[seg].off + d->segs[seg].vaddr;
	if (vaddr)
		*vaddr = va;
	if (idx == RC_NONE)
		return NULL;
	if (sym_off)
		*sym_off = va - d->st.syms[idx].start;
	return sym_shown(c, &d->st.syms[idx]);
}

/* Index named[i] under key.  When a key is taken twice (static functions of
 * several files), the better rank, then the sized, then the first wins.
 * val.u = (rank << 48) | (index + 1). */
static void byname_add(struct dso *d, const char *key, size_t len, size_t i, unsigned rank)
{
	int created;
	struct hm_entry *he = hm_upsert(&d->byname, key, len, &created);

	if (!created) {
		unsigned orank = (unsigned)(he->val.u >> 48);
		const struct named *old = &d->named[(he->val.u & 0xffffffffffffULL) - 1];
		if (orank < rank || (orank == rank && (old->size || !d->named[i].size)))
			return;
	}
	he->val.u = (uint64_t)rank << 48 | (i + 1);
}

int sym_lookup_name(struct symcache *c, const char *path, const char *name,
		    uint64_t *addr, uint64_t *size)
{
	if (!c || !path || !name || special_path(path))
		return -ENOENT;

	struct dso *d = dso_get(c, path);
	if (d->state != DSO_LOADED)
		return -ENOENT;
	if (!d->byname_built) {
		for (size_t i = 0; i < d->nnamed; i++) {
			const char *n = d->named[i].name, *at = strchr(n, '@');

			byname_add(d, n, strlen(n), i, d->named[i].rank);
			/* "name@@VER" (default version) and "name@VER" of a
			 * .symtab are found as "name" too, the default first. */
			if (at && at > n)
				byname_add(d, n, (size_t)(at - n), i,
					   d->named[i].rank + (at[1] == '@' ? 0 : 4));
		}
		d->byname_built = 1;
	}

	struct hm_entry *he = hm_find(&d->byname, name, strlen(name));
	if (!he)
		return -ENOENT;
	const struct named *nm = &d->named[(he->val.u & 0xffffffffffffULL) - 1];
	if (addr)
		*addr = nm->start;
	if (size)
		*size = nm->size;
	return 0;
}
