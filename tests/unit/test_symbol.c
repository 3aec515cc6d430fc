/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/lib/symbol/symbol.c: ELF symbol tables of a PIE and a
 * non-PIE binary compiled at test time, .dynsym fallback, alias choice,
 * libc, kallsyms, missing/special/symbol-less/truncated files.
 *
 * Expected addresses come from nm(1) (an independent reader), and file
 * offsets from the PT_LOAD headers read here with libelf.
 *
 * PERFKIT_BENCH=1 also times 1e6 random lookups over libc and the test
 * binary and prints ns/lookup.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symbol/symbol.h"

static char tmpdir[PATH_MAX];
static char pie[PATH_MAX + 32], nopie[PATH_MAX + 32], dynonly[PATH_MAX + 32],
	nosyms[PATH_MAX + 32];
static int have_cc;

static const char snippet[] =
	"#include <stdio.h>\n"
	"__attribute__((noinline)) int pk_alpha(int x) { volatile int v = x; return v * 3 + 1; }\n"
	"extern int pk_alpha_weak_alias(int) __attribute__((weak, alias(\"pk_alpha\")));\n"
	"__attribute__((noinline)) int pk_beta(int x) { return pk_alpha(x) ^ 0x55; }\n"
	"static __attribute__((noinline, used)) int pk_local(int x) { volatile int v = x; return v + 7; }\n"
	"extern int pk_local_w(int) __attribute__((weak, alias(\"pk_local\")));\n"
	"__attribute__((weak, noinline)) int pk_weak(int x) { volatile int v = x; return v - 1; }\n"
	"__attribute__((noinline)) int pk_gx1(int x) { volatile int v = x; return v * 5; }\n"
	"extern int pk_gy1(int) __attribute__((alias(\"pk_gx1\")));\n"
	"__attribute__((noinline)) int sys_pkq(int x) { volatile int v = x; return v * 9; }\n"
	"extern int SyS_pkq(int) __attribute__((alias(\"sys_pkq\")));\n"
	"int main(int argc, char **argv)\n"
	"{ (void)argv; printf(\"%d\\n\", pk_beta(argc) + pk_local(argc) + pk_weak(argc)"
	" + pk_gy1(argc) + SyS_pkq(argc));"
	" return 0; }\n";

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static int setup_all(void **state)
{
	char src[PATH_MAX + 16];
	FILE *f;

	snprintf(tmpdir, sizeof(tmpdir), "%s/pk-symtest-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(src, sizeof(src), "%s/t.c", tmpdir);
	snprintf(pie, sizeof(pie), "%s/pie", tmpdir);
	snprintf(nopie, sizeof(nopie), "%s/nopie", tmpdir);
	snprintf(dynonly, sizeof(dynonly), "%s/dynonly", tmpdir);
	snprintf(nosyms, sizeof(nosyms), "%s/nosyms", tmpdir);
	f = fopen(src, "w");
	if (!f)
		return -1;
	fputs(snippet, f);
	fclose(f);
	/* Plain cc flags: this must not inherit the sanitizer build's. */
	have_cc = run("cc -O1 -g -fPIE -pie -o %s %s 2>/dev/null", pie, src) == 0 &&
		  run("cc -O1 -fno-pie -no-pie -o %s %s 2>/dev/null", nopie, src) == 0 &&
		  run("cc -O1 -fPIE -pie -rdynamic -o %s %s && strip -s %s 2>/dev/null",
		      dynonly, src, dynonly) == 0 &&
		  run("cp %s %s && strip -s %s", nopie, nosyms, nosyms) == 0;
	return 0;
}

static int teardown_all(void **state)
{
	if (tmpdir[0])
		run("rm -rf '%s'", tmpdir);
	return 0;
}

/* Value and size of a defined symbol, from nm -P (dynamic table if dyn). */
static int nm_lookup(const char *path, const char *name, int dyn, uint64_t *val, uint64_t *size)
{
	char cmd[2 * PATH_MAX], line[1024];
	FILE *p;
	int found = 0;

	snprintf(cmd, sizeof(cmd), "nm -P %s --defined-only '%s' 2>/dev/null", dyn ? "-D" : "", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char n[512], t[8];
		unsigned long long v = 0, s = 0;
		int k = sscanf(line, "%511s %7s %llx %llx", n, t, &v, &s);
		char *at = strchr(n, '@');

		if (at)
			*at = '\0';
		if (k >= 3 && !strcmp(n, name) && !found) {
			*val = v;
			*size = k == 4 ? s : 0;
			found = 1;
		}
	}
	pclose(p);
	return found ? 0 : -1;
}

/* File offset of an ELF vaddr through the PT_LOAD headers. */
static int vaddr_to_off(const char *path, uint64_t va, uint64_t *off)
{
	int fd = open(path, O_RDONLY), ret = -1;
	Elf *e;
	size_t n;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_getphdrnum(e, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    va >= ph.p_vaddr && va < ph.p_vaddr + ph.p_filesz) {
				*off = va - ph.p_vaddr + ph.p_offset;
				ret = 0;
				break;
			}
		}
	}
	elf_end(e);
	close(fd);
	return ret;
}

static void check_func(struct symcache *c, const char *path, const char *name,
		       const char *expect, int dyn)
{
	uint64_t va, size, off, so = 99, v2 = 0, a2, s2;
	const char *r;

	assert_int_equal(nm_lookup(path, name, dyn, &va, &size), 0);
	assert_true(size > 4);
	assert_int_equal(vaddr_to_off(path, va, &off), 0);

	r = symcache_resolve(c, path, off, &so, &v2);
	assert_non_null(r);
	assert_string_equal(r, expect);
	assert_int_equal(so, 0);
	assert_int_equal(v2, va);

	r = symcache_resolve(c, path, off + size - 1, &so, &v2);
	assert_non_null(r);
	assert_string_equal(r, expect);
	assert_int_equal(so, size - 1);
	assert_int_equal(v2, va + size - 1);
	/* Cached the second time: same answer. */
	assert_ptr_equal(symcache_resolve(c, path, off + size - 1, NULL, NULL), r);

	/* Past the end of a sized symbol: not that symbol. */
	r = symcache_resolve(c, path, off + size, &so, NULL);
	assert_true(r == NULL || strcmp(r, expect) != 0);

	/* By name: same address and size as nm. */
	assert_int_equal(sym_lookup_name(c, path, name, &a2, &s2), 0);
	assert_int_equal(a2, va);
	assert_int_equal(s2, size);
}

static void test_pie(void **state)
{
	if (!have_cc)
		skip();
	struct symcache *c = symcache_new();

	check_func(c, pie, "pk_alpha", "pk_alpha", 0);  /* global beats weak alias */
	check_func(c, pie, "pk_beta", "pk_beta", 0);
	check_func(c, pie, "pk_local", "pk_local", 0);   /* local beats weak, as in perf */
	check_func(c, pie, "pk_weak", "pk_weak", 0);
	check_func(c, pie, "main", "main", 0);
	/* Two global names of one length at one address: the first in the
	 * table, as perf keeps it (readelf tells which that is); a "SyS"
	 * syscall alias never wins. */
	{
		char cmd[PATH_MAX + 128], first[64] = "";
		FILE *p;

		snprintf(cmd, sizeof(cmd), "readelf -sW '%s' | awk '$8 == \"pk_gx1\" || $8 == \"pk_gy1\" "
			 "{ print $8; exit }'", pie);
		p = popen(cmd, "r");
		assert_non_null(p);
		if (!fgets(first, sizeof(first), p))
			first[0] = '\0';
		pclose(p);
		first[strcspn(first, "\n")] = '\0';
		assert_true(first[0] != '\0');
		check_func(c, pie, "pk_gx1", first, 0);
		check_func(c, pie, "sys_pkq", "sys_pkq", 0);
	}
	/* The aliases are found by name. */
	uint64_t a1, a2;
	assert_int_equal(sym_lookup_name(c, pie, "pk_alpha_weak_alias", &a1, NULL), 0);
	assert_int_equal(sym_lookup_name(c, pie, "pk_alpha", &a2, NULL), 0);
	assert_int_equal(a1, a2);
	assert_int_equal(sym_lookup_name(c, pie, "no_such_function", NULL, NULL), -ENOENT);
	/* PLT entries as perf names them; objdump is the oracle. */
	char cmd[2 * PATH_MAX + 128], line[256];
	snprintf(cmd, sizeof(cmd), "objdump -d '%s' 2>/dev/null | grep '<printf@plt>:'", pie);
	FILE *p = popen(cmd, "r");
	unsigned long long pva = 0;
	if (p && fgets(line, sizeof(line), p))
		sscanf(line, "%llx", &pva);
	if (p)
		pclose(p);
	if (pva) {
		uint64_t off, so;
		assert_int_equal(vaddr_to_off(pie, pva, &off), 0);
		const char *r = symcache_resolve(c, pie, off + 4, &so, NULL);
		assert_non_null(r);
		assert_string_equal(r, "printf@plt");
		assert_int_equal(so, 4);
	}
	/* Offset 0 (the ELF header) is no function. */
	assert_null(symcache_resolve(c, pie, 0, NULL, NULL));
	symcache_free(c);
}

static void test_nopie(void **state)
{
	if (!have_cc)
		skip();
	struct symcache *c = symcache_new();
	uint64_t va, size, off;

	check_func(c, nopie, "pk_alpha", "pk_alpha", 0);
	check_func(c, nopie, "pk_beta", "pk_beta", 0);
	check_func(c, nopie, "main", "main", 0);
	/* Non-PIE: offsets and vaddrs differ, so this checks PT_LOAD use. */
	assert_int_equal(nm_lookup(nopie, "pk_beta", 0, &va, &size), 0);
	assert_int_equal(vaddr_to_off(nopie, va, &off), 0);
	assert_true(va != off);
	assert_null(symcache_resolve(c, nopie, va, NULL, NULL));
	symcache_free(c);
}

static void test_dynsym_only(void **state)
{
	if (!have_cc)
		skip();
	struct symcache *c = symcache_new();

	check_func(c, dynonly, "pk_beta", "pk_beta", 1);
	check_func(c, dynonly, "pk_alpha", "pk_alpha", 1);
	/* The local function is not in .dynsym. */
	assert_int_equal(sym_lookup_name(c, dynonly, "pk_local", NULL, NULL), -ENOENT);
	symcache_free(c);
}

static void test_nosyms(void **state)
{
	if (!have_cc)
		skip();
	struct symcache *c = symcache_new();
	uint64_t va, size, off;

	assert_int_equal(nm_lookup(nopie, "pk_beta", 0, &va, &size), 0);
	assert_int_equal(vaddr_to_off(nopie, va, &off), 0);
	assert_null(symcache_resolve(c, nosyms, off, NULL, NULL));
	assert_null(symcache_resolve(c, nosyms, off + 1, NULL, NULL));
	assert_int_equal(sym_lookup_name(c, nosyms, "pk_beta", NULL, NULL), -ENOENT);
	symcache_free(c);
}

static const char *libc_path(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128];
	const char *ret = NULL;

	if (!f)
		return NULL;
	while (!ret && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');
		if (p && strstr(p, "/libc.so.6")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(buf, len, "%s", p);
			ret = buf;
		}
	}
	fclose(f);
	return ret;
}

static void test_libc(void **state)
{
	char path[PATH_MAX];
	struct symcache *c;
	uint64_t va, size, off, so, a2;
	const char *r;

	if (!libc_path(path, sizeof(path)))
		skip();
	c = symcache_new();
	assert_int_equal(nm_lookup(path, "malloc", 1, &va, &size), 0);
	assert_int_equal(vaddr_to_off(path, va, &off), 0);
	r = symcache_resolve(c, path, off + 5, &so, NULL);
	assert_non_null(r);
	/* malloc and __libc_malloc share the address: fewer underscores. */
	assert_string_equal(r, "malloc");
	assert_int_equal(so, 5);
	assert_int_equal(sym_lookup_name(c, path, "malloc", &a2, NULL), 0);
	assert_int_equal(a2, va);

	/* With libc's separate debug file installed (libc6-dbg), its .symtab
	 * is used: static functions such as _int_malloc resolve too. */
	uint8_t id[64];
	char dbg[PATH_MAX];
	int n = sym_read_build_id(path, id, sizeof(id)), k;
	if (n > 1) {
		k = snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%02x/", id[0]);
		for (int i = 1; i < n; i++)
			k += snprintf(dbg + k, sizeof(dbg) - (size_t)k, "%02x", id[i]);
		snprintf(dbg + k, sizeof(dbg) - (size_t)k, ".debug");
		if (access(dbg, R_OK) == 0) {
			assert_int_equal(nm_lookup(dbg, "_int_malloc", 0, &va, &size), 0);
			assert_int_equal(vaddr_to_off(path, va, &off), 0);
			r = symcache_resolve(c, path, off + 2, &so, NULL);
			assert_non_null(r);
			assert_string_equal(r, "_int_malloc");
			assert_int_equal(so, 2);
			assert_int_equal(sym_lookup_name(c, path, "_int_malloc", &a2, NULL), 0);
			assert_int_equal(a2, va);
		} else {
			assert_int_equal(sym_lookup_name(c, path, "_int_malloc", NULL, NULL),
					 -ENOENT);
		}
	}
	symcache_free(c);
}

/* Every sized function of libc's .dynsym, looked up at its middle, gives
 * that function or an alias at the same address (checked by name). */
static void test_libc_all(void **state)
{
	char path[PATH_MAX], cmd[PATH_MAX + 64], line[1024];
	struct symcache *c;
	FILE *p;
	int checked = 0;

	if (!libc_path(path, sizeof(path)))
		skip();
	snprintf(cmd, sizeof(cmd), "nm -D -P --defined-only '%s'", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	c = symcache_new();
	while (fgets(line, sizeof(line), p)) {
		char n[512], t[8];
		unsigned long long v, sz;
		uint64_t off, so, va, a2;

		if (sscanf(line, "%511s %7s %llx %llx", n, t, &v, &sz) != 4 || sz < 2 ||
		    !strchr("TWi", t[0]))
			continue;
		assert_int_equal(vaddr_to_off(path, v, &off), 0);
		const char *r = symcache_resolve(c, path, off + sz / 2, &so, &va);
		if (!r)
			fail_msg("%s at %#llx: no symbol", n, v);
		if (va != v + sz / 2 || so != sz / 2)
			fail_msg("%s at %#llx+%#llx: got %s+%#llx", n, v, sz / 2, r,
				 (unsigned long long)so);
		/* and at its first byte (a bucket's edge of the table's
		 * search, symtab_build, falls anywhere) */
		r = symcache_resolve(c, path, off, &so, &va);
		if (!r || va != v || so != 0)
			fail_msg("%s at %#llx: got %s+%#llx", n, v, r ? r : "(none)", (unsigned long long)so);
		/* The default version of a name is the one found by name. */
		if (strstr(n, "@@") && (*strstr(n, "@@") = '\0', 1)) {
			if (sym_lookup_name(c, path, n, &a2, NULL) != 0)
				fail_msg("%s: not found by name", n);
			assert_int_equal(a2, v);
		}
		checked++;
	}
	pclose(p);
	assert_true(checked > 1000);
	symcache_free(c);
}

static void test_kallsyms(void **state)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256] = "", mod[256] = "";
	unsigned long long a = 0, ma = 0;
	uint64_t so = 99;

	if (!f)
		skip();
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;
		char t, n[256];
		if (sscanf(line, "%llx %c %255s", &v, &t, n) != 3)
			continue;
		if (!name[0] && !strcmp(n, "vfs_read") && t == 'T') {
			a = v;
			snprintf(name, sizeof(name), "%s", n);
		}
		if (!mod[0] && strchr(line, '[') && (t == 't' || t == 'T')) {
			ma = v;
			snprintf(mod, sizeof(mod), "%s", n);
		}
	}
	fclose(f);
	if (!name[0] || !a)
		skip(); /* zeroed (kptr_restrict) or unusual kernel */

	struct symcache *c = symcache_new();
	const char *r = symcache_resolve_kernel(c, a, &so);
	assert_non_null(r);
	assert_string_equal(r, "vfs_read");
	assert_int_equal(so, 0);
	r = symcache_resolve_kernel(c, a + 4, &so);
	assert_string_equal(r, "vfs_read");
	assert_int_equal(so, 4);
	/* perf's kernel map name routes to kallsyms; the offset is the ip. */
	r = symcache_resolve(c, "[kernel.kallsyms]_text", a + 4, &so, NULL);
	assert_string_equal(r, "vfs_read");
	if (ma) {
		r = symcache_resolve_kernel(c, ma, &so);
		assert_non_null(r);
		assert_int_equal(so, 0);
	}
	assert_null(symcache_resolve_kernel(c, 1, NULL));
	symcache_free(c);
}

/* symcache_set_kallsyms: names from a file of /proc/kallsyms's format
 * (perf's --kallsyms), and none at all (NULL: a --symfs without it). */
static void test_kallsyms_file(void **state)
{
	char path[] = "/tmp/perfkit-test-kallsyms.XXXXXX";
	int fd = mkstemp(path);
	static const char text[] = "ffffffff81000000 T _text\n"
				   "ffffffff81001000 T alpha\n"
				   "ffffffff81001100 t beta\n"
				   "ffffffff81002000 T gamma\n"
				   "ffffffff81003000 T _etext\n";
	uint64_t so = 99;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);
	struct symcache *c = symcache_new();

	symcache_set_kallsyms(c, path);
	const char *r = symcache_resolve_kernel(c, 0xffffffff81001010ull, &so);

	assert_non_null(r);
	assert_string_equal(r, "alpha");
	assert_int_equal(so, 0x10);
	r = symcache_resolve_kernel(c, 0xffffffff81001105ull, &so);
	assert_non_null(r);
	assert_string_equal(r, "beta");
	assert_int_equal(so, 5);
	symcache_set_kallsyms(c, NULL);   /* after the first lookup: no change */
	r = symcache_resolve_kernel(c, 0xffffffff81002001ull, &so);
	assert_non_null(r);
	assert_string_equal(r, "gamma");
	symcache_free(c);
	c = symcache_new();
	symcache_set_kallsyms(c, NULL);
	assert_null(symcache_resolve_kernel(c, 0xffffffff81001010ull, &so));
	symcache_free(c);
	c = symcache_new();   /* a file that is not there: none either */
	unlink(path);
	symcache_set_kallsyms(c, path);
	assert_null(symcache_resolve_kernel(c, 0xffffffff81001010ull, &so));
	symcache_free(c);
}

static void test_missing_and_special(void **state)
{
	struct symcache *c = symcache_new();
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/does-not-exist", tmpdir);
	for (int i = 0; i < 3; i++) /* remembered: no retry, no crash */
		assert_null(symcache_resolve(c, path, 0x1000, NULL, NULL));
	assert_int_equal(sym_lookup_name(c, path, "main", NULL, NULL), -ENOENT);
	assert_null(symcache_resolve(c, "//anon", 0x1000, NULL, NULL));
	assert_null(symcache_resolve(c, "[heap]", 0x1000, NULL, NULL));
	assert_null(symcache_resolve(c, "[stack]", 0x1000, NULL, NULL));
	assert_null(symcache_resolve(c, "", 0x1000, NULL, NULL));
	assert_null(symcache_resolve(c, NULL, 0x1000, NULL, NULL));
	assert_null(symcache_resolve(c, "/proc/self/status", 0x10, NULL, NULL));
	assert_null(symcache_resolve(c, tmpdir, 0x10, NULL, NULL)); /* a directory */
	/* The vdso is read from this process: a name or NULL, never a crash;
	 * when its clock_gettime is found by name, its address resolves. */
	uint64_t va;
	if (sym_lookup_name(c, "[vdso]", "__vdso_clock_gettime", &va, NULL) == 0) {
		uint64_t v2;
		const char *r = symcache_resolve(c, "[vdso]", va, NULL, &v2);
		if (v2 == va) /* PT_LOAD at offset 0 = vaddr 0, the usual layout */
			assert_string_equal(r, "__vdso_clock_gettime");
	}
	symcache_free(c);
	symcache_free(NULL);
}

/* Truncated and corrupted copies of a real binary: no crash (run under
 * ASan by `make check`), and never a name past what the file holds. */
static void test_truncated(void **state)
{
	if (!have_cc)
		skip();
	static const long cuts[] = { 0, 1, 16, 63, 64, 65, 100, 512, 1000, 4096, 8192,
				     12000, 13000, 14000, 15000, 16000, -1000, -200, -64, -1 };
	struct stat_like { long size; } st = { 0 };
	FILE *f = fopen(pie, "rb");
	uint64_t va, size, off;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	st.size = ftell(f);
	fclose(f);
	assert_int_equal(nm_lookup(pie, "pk_beta", 0, &va, &size), 0);
	assert_int_equal(vaddr_to_off(pie, va, &off), 0);

	struct symcache *c = symcache_new();
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		char path[PATH_MAX + 64];
		long n = cuts[i] >= 0 ? cuts[i] : st.size + cuts[i];

		if (n < 0 || n > st.size)
			continue;
		snprintf(path, sizeof(path), "%s/cut%zu", tmpdir, i);
		assert_int_equal(run("head -c %ld %s > %s", n, pie, path), 0);
		for (uint64_t o = 0; o < 0x4000; o += 7)
			(void)symcache_resolve(c, path, o, NULL, NULL);
		(void)symcache_resolve(c, path, off, NULL, NULL);
		(void)sym_lookup_name(c, path, "pk_beta", NULL, NULL);
	}
	/* Random bytes over the section headers and the symbol table. */
	for (int k = 0; k < 8; k++) {
		char path[PATH_MAX + 64];
		snprintf(path, sizeof(path), "%s/garbled%d", tmpdir, k);
		assert_int_equal(run("cp %s %s && dd if=/dev/urandom of=%s bs=1 seek=%ld count=%d"
				     " conv=notrunc status=none", pie, path, path,
				     k < 4 ? st.size - 64 * (k + 1) : (long)(st.size * k / 8), 256), 0);
		for (uint64_t o = 0; o < 0x4000; o += 13)
			(void)symcache_resolve(c, path, o, NULL, NULL);
		(void)sym_lookup_name(c, path, "pk_beta", NULL, NULL);
	}
	symcache_free(c);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: steady on a busy machine */
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void bench_one(const char *label, const char *path, uint64_t lo, uint64_t hi)
{
	enum { N = 1000000 };
	uint64_t *a = malloc(N * sizeof(*a)), x = 88172645463325252ULL;
	size_t hits = 0;

	assert_non_null(a);
	for (size_t i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		a[i] = lo + x % (hi - lo);
	}
	struct symcache *c = symcache_new();
	double t0 = now_ns();
	(void)symcache_resolve(c, path, lo, NULL, NULL); /* load */
	double t1 = now_ns();
	for (size_t i = 0; i < N; i++)
		hits += symcache_resolve(c, path, a[i], NULL, NULL) != NULL;
	double t2 = now_ns();
	for (size_t i = 0; i < N; i++)
		hits += symcache_resolve(c, path, a[i], NULL, NULL) != NULL;
	double t3 = now_ns();
	/* Hot set: 10k distinct addresses, repeated. */
	for (size_t i = 0; i < N; i++)
		hits += symcache_resolve(c, path, a[i % 10000], NULL, NULL) != NULL;
	double t4 = now_ns();
	printf("bench %-8s load %.1f ms; 1e6 random: first pass %.1f ns/lookup, "
	       "second pass %.1f ns/lookup; 10k-address hot set %.1f ns/lookup (%zu hits)\n",
	       label, (t1 - t0) / 1e6, (t2 - t1) / N, (t3 - t2) / N, (t4 - t3) / N, hits);
	symcache_free(c);
	free(a);
}

/* File offsets of the first executable PT_LOAD. */
static int exec_range(const char *path, uint64_t *lo, uint64_t *hi)
{
	int fd = open(path, O_RDONLY), ret = -1;
	Elf *e;
	size_t n;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_getphdrnum(e, &n) == 0) {
		for (size_t i = 0; i < n && ret; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X) && ph.p_filesz) {
				*lo = ph.p_offset;
				*hi = ph.p_offset + ph.p_filesz;
				ret = 0;
			}
		}
	}
	elf_end(e);
	close(fd);
	return ret;
}

static void test_bench(void **state)
{
	char path[PATH_MAX];
	uint64_t lo, hi;

	if (!getenv("PERFKIT_BENCH"))
		skip();
	if (libc_path(path, sizeof(path)) && exec_range(path, &lo, &hi) == 0)
		bench_one("libc", path, lo, hi);
	if (exec_range("/proc/self/exe", &lo, &hi) == 0)
		bench_one("self", "/proc/self/exe", lo, hi);
	struct symcache *c = symcache_new();
	double t0 = now_ns();
	(void)symcache_resolve_kernel(c, 1, NULL);
	printf("bench kallsyms load %.1f ms\n", (now_ns() - t0) / 1e6);
	symcache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pie),
		cmocka_unit_test(test_nopie),
		cmocka_unit_test(test_dynsym_only),
		cmocka_unit_test(test_nosyms),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_libc_all),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_kallsyms_file),
		cmocka_unit_test(test_missing_and_special),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bench),
	};

	return cmocka_run_group_tests_name("symbol", tests, setup_all, teardown_all);
}
