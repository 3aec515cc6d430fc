/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * buildid.c — build-ids and the files found by them (buildid.h).
 * sym_read_build_id() reads only the note sections/segments (libelf,
 * ELF_C_READ_MMAP), so it is cheap enough to run for every DSO a recording
 * mapped.
 */
#include "symbol/buildid.h"
#include "base/path.h"
#include "base/strbuf.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

/* Search one note buffer; returns the id length or 0. */
static int find_gnu_build_id(Elf_Data *d, uint8_t *id, size_t idsize)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;
	while (off < d->d_size && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((const char *)d->d_buf + name_off, "GNU", 4) && nh.n_descsz > 0) {
			size_t n = nh.n_descsz < idsize ? nh.n_descsz : idsize;
			memcpy(id, (const char *)d->d_buf + desc_off, n);
			return (int)n;
		}
	}
	return 0;
}

int sym_read_build_id(const char *path, uint8_t *id, size_t idsize)
{
	int fd = pk_open_regular(path);   /* never a FIFO a recording names */
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int rc = -EINVAL;
	if (!e || elf_kind(e) != ELF_K_ELF)
		goto out;
	rc = -ENODATA;
	/* Section headers first (what perf does), then PT_NOTE segments. */
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		int n = d ? find_gnu_build_id(d, id, idsize) : 0;
		if (n > 0) {
			rc = n;
			goto out;
		}
	}
	size_t nph = 0;
	if (elf_getphdrnum(e, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE)
				continue;
			Elf_Data *d = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
			int n = d ? find_gnu_build_id(d, id, idsize) : 0;
			if (n > 0) {
				rc = n;
				goto out;
			}
		}
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

/* mkdir -p of dir (a writable string; restored on return). */
static int mkdirs(char *dir)
{
	for (char *p = dir + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = '\0';
		int rc = mkdir(dir, 0755);
		*p = c;
		if (rc && errno != EEXIST)
			return -errno;
		if (!c)
			return 0;
	}
}

static int copy_fd(int in, int out)
{
	char buf[65536];

	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return w < 0 ? -errno : -EIO;
			off += w;
		}
	}
}

int sym_build_id_cache_save(const char *src, const char *name, uint8_t *id, size_t idsize)
{
	static const char deleted[] = " (deleted)";
	const char *home = getenv("HOME");
	struct strbuf dir = STRBUF_INIT, tmp = STRBUF_INIT, link = STRBUF_INIT, hex = STRBUF_INIT;
	size_t nl = strlen(name);
	int n = sym_read_build_id(src, id, idsize), rc, in = -1, out = -1;

	if (n <= 0)
		return n ? n : -ENODATA;
	if (!home || !*home)
		return -ENOENT;
	if (nl > sizeof(deleted) - 1 && !strcmp(name + nl - (sizeof(deleted) - 1), deleted))
		nl -= sizeof(deleted) - 1;
	for (int i = 0; i < n; i++)
		sb_addf(&hex, "%02x", id[i]);
	sb_addf(&dir, "%s/.debug%s%.*s/%s", home, name[0] == '/' ? "" : "/", (int)nl, name, hex.buf);
	rc = mkdirs(dir.buf);
	if (rc)
		goto out;
	sb_addf(&tmp, "%s/elf", dir.buf);
	if (access(tmp.buf, R_OK) != 0) {
		sb_reset(&tmp);
		sb_addf(&tmp, "%s/.elf.XXXXXX", dir.buf);
		in = open(src, O_RDONLY | O_CLOEXEC);
		out = in < 0 ? -1 : mkstemp(tmp.buf);
		rc = in < 0 || out < 0 ? -errno : copy_fd(in, out);
		if (out >= 0 && (close(out) || rc)) {
			rc = rc ? rc : -EIO;
			unlink(tmp.buf);
		}
		if (rc)
			goto out;
		fchmodat(AT_FDCWD, tmp.buf, 0755, 0);
		sb_reset(&link);
		sb_addf(&link, "%s/elf", dir.buf);
		if (rename(tmp.buf, link.buf)) {
			rc = -errno;
			unlink(tmp.buf);
			goto out;
		}
	}
	/* ~/.debug/.build-id/HE/X… → ../../NAME/HEX */
	sb_reset(&link);
	sb_addf(&link, "%s/.debug/.build-id/%.2s", home, hex.buf);
	rc = mkdirs(link.buf);
	if (rc)
		goto out;
	sb_addf(&link, "/%s", hex.buf + 2);
	sb_reset(&tmp);
	sb_addf(&tmp, "../..%s%.*s/%s", name[0] == '/' ? "" : "/", (int)nl, name, hex.buf);
	if (symlink(tmp.buf, link.buf) && errno != EEXIST)
		rc = -errno;
out:
	if (in >= 0)
		close(in);
	sb_release(&dir);
	sb_release(&tmp);
	sb_release(&link);
	sb_release(&hex);
	return rc ? rc : n;
}

bool bid_matches(const char *path, const uint8_t *id, size_t n)
{
	uint8_t got[64];
	int k = sym_read_build_id(path, got, sizeof(got));

	/* perf pads SHA-1 ids to 20 bytes; compare what was recorded */
	return k > 0 && (size_t)k >= n && !memcmp(got, id, n);
}

void bid_hex(struct strbuf *sb, const uint8_t *id, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		sb_addch(sb, digits[id[i] >> 4]);
		sb_addch(sb, digits[id[i] & 15]);
	}
}

int bid_debug_path(const uint8_t *id, size_t n, struct strbuf *out)
{
	struct strbuf hex = STRBUF_INIT;

	sb_reset(out);
	if (n < 2)
		return -EINVAL;
	bid_hex(&hex, id, n);
	sb_addf(out, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex.buf, hex.buf + 2);
	sb_release(&hex);
	return 0;
}

int bid_find(const uint8_t *id, size_t n, struct strbuf *out)
{
	return bid_find_root(NULL, id, n, out);
}

int bid_find_root(const char *root, const uint8_t *id, size_t n, struct strbuf *out)
{
	const char *home = getenv("HOME");
	struct strbuf hex = STRBUF_INIT;
	int rc = -ENOENT;
	size_t rl = root ? strlen(root) : 0;

	while (rl && root[rl - 1] == '/')   /* "/" itself: no root */
		rl--;
	if (n < 2)
		return -ENOENT;
	bid_hex(&hex, id, n);
	for (int k = 0; k < 3 && rc; k++) {
		sb_reset(out);
		if (k < 2 && (!home || !*home || rl))
			continue;
		if (k < 2)
			sb_addf(out, "%s/.debug/.build-id/%.2s/%s%s", home, hex.buf, hex.buf + 2, k == 0 ? "/elf" : "");
		else
			sb_addf(out, "%.*s/usr/lib/debug/.build-id/%.2s/%s.debug", (int)rl, rl ? root : "", hex.buf,
				hex.buf + 2);
		if (bid_matches(out->buf, id, n))
			rc = 0;
	}
	if (rc)
		sb_reset(out);
	sb_release(&hex);
	return rc;
}

int bid_vdso_path(const uint8_t *id, size_t n, struct strbuf *out)
{
	const char *home = getenv("HOME");

	sb_reset(out);
	if (!home || !*home || !n)
		return -ENOENT;
	sb_addf(out, "%s/.debug/[vdso]/", home);
	bid_hex(out, id, n);
	sb_addstr(out, "/vdso");
	if (access(out->buf, R_OK) == 0)
		return 0;
	sb_reset(out);
	return -ENOENT;
}

/* NT_GNU_BUILD_ID of the running kernel from /sys/kernel/notes. */
int bid_kernel(uint8_t *id, size_t idsize)
{
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	uint8_t buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	size_t off = 0;
	while (n > 0 && off + 12 <= (size_t)n) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		size_t name_off = off + 12;
		size_t desc_off = name_off + ((namesz + 3) & ~3u);
		size_t next = desc_off + ((descsz + 3) & ~3u);
		if (next > (size_t)n || next <= off)
			break;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 && !memcmp(buf + name_off, "GNU", 4)) {
			size_t l = descsz < idsize ? descsz : idsize;
			memcpy(id, buf + desc_off, l);
			return (int)l;
		}
		off = next;
	}
	return -ENODATA;
}

/* The [vdso] is the kernel's, the same in every process: like perf
 * record, save this process's copy in perf's build-id cache
 * (~/.debug/[vdso]/<build-id>/vdso and ~/.debug/.build-id/xx/<rest>), where
 * perf report and perfkit report look for it, and return its build-id
 * (its size, or 0 when there is none or no cache could be written). */
int bid_save_vdso(uint8_t *id, size_t idsize)
{
	const char *home = getenv("HOME");
	FILE *maps = fopen("/proc/self/maps", "r");
	unsigned long lo = 0, hi = 0;
	char line[512];
	struct strbuf dir = STRBUF_INIT, tmp = STRBUF_INIT, hex = STRBUF_INIT, path = STRBUF_INIT;
	int n = 0, fd;

	if (!maps)
		return 0;
	while (fgets(line, sizeof(line), maps))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			break;
	fclose(maps);
	if (!home || !*home || !lo || hi <= lo || hi - lo > (1u << 20))
		return 0;
	sb_addf(&dir, "%s/.debug/[vdso]", home);
	sb_addf(&tmp, "%s/.vdso.XXXXXX", dir.buf);
	char *parent = xstrdup(dir.buf);
	*strrchr(parent, '/') = '\0';
	mkdir(parent, 0755);
	free(parent);
	mkdir(dir.buf, 0755);
	fd = mkstemp(tmp.buf);
	if (fd < 0)
		goto out;
	bool ok = write(fd, (const void *)lo, hi - lo) == (ssize_t)(hi - lo);
	close(fd);
	n = ok ? sym_read_build_id(tmp.buf, id, idsize) : 0;
	if (n <= 0) {
		n = 0;
		unlink(tmp.buf);
		goto out;
	}
	for (int i = 0; i < n; i++)
		sb_addf(&hex, "%02x", id[i]);
	sb_addf(&path, "%s/%s", dir.buf, hex.buf);
	mkdir(path.buf, 0755);
	sb_addstr(&path, "/vdso");
	if (access(path.buf, R_OK) == 0 || rename(tmp.buf, path.buf) != 0)
		unlink(tmp.buf);
	/* perf finds cached files through ~/.debug/.build-id/xx/<rest> */
	sb_reset(&path);
	sb_addf(&path, "%s/.debug/.build-id", home);
	mkdir(path.buf, 0755);
	sb_addf(&path, "/%.2s", hex.buf);
	mkdir(path.buf, 0755);
	sb_addf(&path, "/%s", hex.buf + 2);
	sb_reset(&tmp);
	sb_addf(&tmp, "../../[vdso]/%s/vdso", hex.buf);
	if (symlink(tmp.buf, path.buf) != 0) {
		/* already there */
	}
out:
	sb_release(&dir);
	sb_release(&tmp);
	sb_release(&hex);
	sb_release(&path);
	return n;
}

