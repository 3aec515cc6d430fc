/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * buildid.c — sym_read_build_id(): the NT_GNU_BUILD_ID note of an ELF file.
 * Reads only the note sections/segments (libelf, ELF_C_READ_MMAP), so it is
 * cheap enough to run for every DSO a recording mapped.
 */
#include "symbol/symbol.h"
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
	int fd = open(path, O_RDONLY | O_CLOEXEC);
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
