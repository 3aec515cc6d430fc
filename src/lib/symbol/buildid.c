/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * buildid.c — sym_read_build_id(): the NT_GNU_BUILD_ID note of an ELF file.
 * Reads only the note sections/segments (libelf, ELF_C_READ_MMAP), so it is
 * cheap enough to run for every DSO a recording mapped.
 */
#include "symbol/symbol.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
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
