/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uprobe.c — BINARY:FUNCTION to a uprobe file offset (see uprobe.h). */
#include "bpfutil/uprobe.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "symbol/demangle.h"
#include "symbol/symbol.h"

#if defined(__x86_64__)
#define OWN_MACHINE   EM_X86_64
#define OWN_CACHE_ABI 0x0300          /* ld.so cache FLAG_X8664_LIB64 */
#define MULTIARCH     "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define OWN_MACHINE   EM_AARCH64
#define OWN_CACHE_ABI 0x0a00          /* FLAG_AARCH64_LIB64 */
#define MULTIARCH     "aarch64-linux-gnu"
#endif

static int is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* An ELF file of this machine's class (and, where known, machine)? */
static bool is_own_elf(const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok = false;

	if (fd < 0)
		return false;
	if (read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) && !memcmp(h, ELFMAG, SELFMAG) &&
	    h[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)) {
		ok = true;
#ifdef OWN_MACHINE
		uint16_t m;
		memcpy(&m, h + 18, sizeof(m));   /* e_machine, in our byte order */
		ok = m == OWN_MACHINE;
#endif
	}
	close(fd);
	return ok;
}

/* key is pat, or pat followed by a version ('.') */
static bool lib_match(const char *key, const char *pat, size_t n)
{
	return !strncmp(key, pat, n) && (key[n] == '\0' || key[n] == '.');
}

/* The ld.so cache's new-format table (glibc elf/cache.c): header of 48
 * bytes, then nlibs entries of { int32 flags; uint32 key, value;
 * uint32 osversion; uint64 hwcap } with string offsets from the header. */
#define CACHE_NEW_MAGIC "glibc-ld.so.cache1.1"
#define CACHE_OLD_MAGIC "ld.so-1.7.0"

static char *cache_lookup(const char *buf, size_t size, const char *pat)
{
	size_t base = 0, n = strlen(pat);

	if (size >= 16 && !memcmp(buf, CACHE_OLD_MAGIC, sizeof(CACHE_OLD_MAGIC) - 1)) {
		uint32_t old_n;
		memcpy(&old_n, buf + 12, 4);
		base = (16 + (size_t)old_n * 12 + 7) & ~(size_t)7;
	}
	if (base > size || size - base < 48 ||
	    memcmp(buf + base, CACHE_NEW_MAGIC, sizeof(CACHE_NEW_MAGIC) - 1))
		return NULL;
	uint32_t nlibs;
	memcpy(&nlibs, buf + base + 20, 4);
	const char *tab = buf + base;
	size_t avail = size - base;
	if (nlibs > (avail - 48) / 24)
		return NULL;
	for (uint32_t i = 0; i < nlibs; i++) {
		int32_t flags;
		uint32_t key, value;
		const char *e = tab + 48 + (size_t)i * 24;
		memcpy(&flags, e, 4);
		memcpy(&key, e + 4, 4);
		memcpy(&value, e + 8, 4);
		if ((flags & 0xff) != 3 || key >= avail || value >= avail)   /* FLAG_ELF_LIBC6 */
			continue;
#ifdef OWN_CACHE_ABI
		if ((flags & 0xff00) != OWN_CACHE_ABI)
			continue;
#endif
		const char *k = tab + key, *v = tab + value;
		if (!memchr(k, '\0', avail - key) || !memchr(v, '\0', avail - value))
			continue;
		if (lib_match(k, pat, n) && is_own_elf(v))
			return xstrdup(v);
	}
	return NULL;
}

static char *dir_lookup(const char *dir, const char *pat)
{
	size_t n = strlen(pat);
	struct strbuf sb = STRBUF_INIT;
	char *best = NULL;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (!lib_match(de->d_name, pat, n))
			continue;
		sb_reset(&sb);
		sb_addf(&sb, "%s/%s", dir, de->d_name);
		if (!is_file(sb.buf) || !is_own_elf(sb.buf))
			continue;
		/* an exact name wins, else the highest version */
		const char *bname = best ? strrchr(best, '/') + 1 : NULL;
		if (!best || (strcmp(bname, pat) && (!de->d_name[n] ||
						     strverscmp(de->d_name, bname) > 0))) {
			free(best);
			best = xstrdup(sb.buf);
		}
	}
	closedir(d);
	sb_release(&sb);
	return best;
}

static char *read_small_file(const char *path, size_t *size)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	while ((n = read(fd, buf, sizeof(buf))) > 0 && sb.len < (64u << 20))
		sb_add(&sb, buf, (size_t)n);
	close(fd);
	return sb_detach(&sb, size);
}

char *uprobe_find_library_in(const char *name, const char *cache, const char *const *dirs)
{
	struct strbuf pats[2] = { STRBUF_INIT, STRBUF_INIT };
	int npat = 0;
	char *found = NULL, *buf = NULL;
	size_t size = 0;

	if (strstr(name, ".so")) {
		sb_addstr(&pats[npat++], name);
	} else {
		sb_addf(&pats[npat++], "lib%s.so", name);
		if (!strncmp(name, "lib", 3) && name[3])
			sb_addf(&pats[npat++], "%s.so", name);
	}
	if (cache)
		buf = read_small_file(cache, &size);
	for (int i = 0; i < npat && !found; i++) {
		if (buf)
			found = cache_lookup(buf, size, pats[i].buf);
		for (size_t j = 0; dirs && dirs[j] && !found; j++)
			found = dir_lookup(dirs[j], pats[i].buf);
	}
	if (!found) {
		errno = ENOENT;
		pk_error(ENOENT, "'%s': no library %s%s%s in the ld.so cache (%s) nor the standard "
			 "library directories", name, pats[0].buf, npat > 1 ? " or " : "",
			 npat > 1 ? pats[1].buf : "", cache ? cache : "none");
	}
	free(buf);
	sb_release(&pats[0]);
	sb_release(&pats[1]);
	return found;
}

char *uprobe_find_library(const char *name)
{
	static const char *const dirs[] = {
		"/lib64", "/usr/lib64",
#ifdef MULTIARCH
		"/lib/" MULTIARCH, "/usr/lib/" MULTIARCH,
#endif
		"/lib", "/usr/lib", "/usr/local/lib", NULL,
	};

	return uprobe_find_library_in(name, "/etc/ld.so.cache", dirs);
}

char *uprobe_find_binary(const char *name)
{
	if (strchr(name, '/')) {
		if (is_file(name)) {
			char *r = realpath(name, NULL);
			return r ? r : xstrdup(name);
		}
		struct stat st;
		bool there = stat(name, &st) == 0;

		errno = ENOENT;
		pk_error(ENOENT, "'%s': %s", name, !there ? "no such file"
				 : S_ISDIR(st.st_mode) ? "a directory, not a program"
				 : "not a regular file (a program to trace is an ELF file)");
		return NULL;
	}
	if (!*name) {
		errno = ENOENT;
		pk_error(ENOENT, "empty binary name");
		return NULL;
	}
	char *found = pk_path_search(name, false);

	if (found)
		return found;
	char *lib = uprobe_find_library(name);
	if (lib)
		return lib;
	/* "'NAME': no library ..." from uprobe_find_library, without its subject */
	char msg[1024];
	const char *why = strstr(pk_errmsg(), "': ");
	snprintf(msg, sizeof(msg), "%s", why ? why + 3 : pk_errmsg());
	errno = ENOENT;
	pk_error(ENOENT, "'%s': not found in $PATH, and %s", name, msg);
	return NULL;
}

int uprobe_parse_target(const char *spec, char **path, char **func)
{
	char first_err[1024] = "";
	bool likely_seen = false;

	*path = *func = NULL;
	for (const char *c = strchr(spec, ':'); c; c = strchr(c + 1, ':')) {
		if (c == spec || !c[1] || c[1] == ':')
			continue;
		char *bin = xstrndup(spec, (size_t)(c - spec));
		char *p = uprobe_find_binary(bin);
		free(bin);
		if (p) {
			pk_error_clear();
			*path = p;
			*func = xstrdup(c + 1);
			return 0;
		}
		/* the error to report: the first candidate that looks like the
		 * intended split (no '/' in the function, binary not ending in
		 * ':'), else the very first */
		bool likely = !strchr(c + 1, '/') && c[-1] != ':';
		if (!first_err[0] || (likely && !likely_seen))
			snprintf(first_err, sizeof(first_err), "%s", pk_errmsg());
		likely_seen |= likely;
	}
	if (first_err[0])
		return pk_error(ENOENT, "%s", first_err);
	return pk_error(EINVAL, "'%s': expected BINARY:FUNCTION", spec);
}

/* func as a demangled C++ name (with or without its parameters) among the
 * function symbols of elf: 0 with *vaddr and *size, -ENOENT, or -EINVAL when
 * it names several functions. */
static int demangled_lookup(Elf *elf, const char *path, const char *func, uint64_t *vaddr,
			    uint64_t *size)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh;
	int found = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
	}
	scn = symtab ? symtab : dynsym;
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return -ENOENT;
	size_t n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
		    (GELF_ST_TYPE(sym.st_info) != STT_FUNC && GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
			continue;
		const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || !sym_is_mangled(name))
			continue;
		bool hit = false;
		for (unsigned fl = 0; fl <= PK_DEMANGLE_PARAMS && !hit; fl += PK_DEMANGLE_PARAMS) {
			char *d = sym_demangle(name, strlen(name), fl);
			hit = d && !strcmp(d, func);
			free(d);
		}
		if (!hit || (found && sym.st_value == *vaddr))
			continue;
		if (found)
			return pk_error(EINVAL, "'%s': '%s' names several functions (overloads?); "
					"give its parameter list too, as in '%s(int)'", path, func, func);
		found = 1;
		*vaddr = sym.st_value;
		*size = sym.st_size;
	}
	return found ? 0 : -ENOENT;
}

int uprobe_func_offset(const char *path, const char *func, uint64_t *off, uint64_t *size)
{
	uint64_t vaddr = 0, sz = 0;
	size_t phnum = 0;
	int err;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return pk_error(errno, "'%s': %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &phnum)) {
		err = pk_error(EINVAL, "'%s': not an ELF file", path);
		goto out;
	}

	struct symcache *c = symcache_new();
	err = sym_lookup_name(c, path, func, &vaddr, &sz);
	symcache_free(c);
	if (err) {   /* "mid" for _Z3midi, "ns::Acc<double>::add", "f(int)" */
		err = demangled_lookup(elf, path, func, &vaddr, &sz);
		if (err == -EINVAL)
			goto out;
	}
	if (err) {
		err = pk_error(ENOENT, "'%s': no function '%s' in its symbol tables", path, func);
		goto out;
	}

	err = pk_error(EINVAL, "'%s': '%s' at 0x%llx lies in no loadable segment", path, func,
		       (unsigned long long)vaddr);
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			if (size)
				*size = sz;
			pk_error_clear();
			err = 0;
			break;
		}
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}
