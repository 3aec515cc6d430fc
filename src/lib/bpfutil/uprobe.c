/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uprobe.c — BINARY:FUNCTION to a uprobe file offset (see uprobe.h). */
#include "bpfutil/uprobe.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "symbol/symbol.h"

static int is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

char *uprobe_find_binary(const char *name)
{
	if (strchr(name, '/')) {
		if (is_file(name)) {
			char *r = realpath(name, NULL);
			return r ? r : xstrdup(name);
		}
		errno = ENOENT;
		pk_error(ENOENT, "'%s': no such file", name);
		return NULL;
	}
	const char *path = getenv("PATH");
	struct strbuf sb = STRBUF_INIT;

	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		sb_reset(&sb);
		sb_add(&sb, n ? p : ".", n ? n : 1);
		sb_addch(&sb, '/');
		sb_addstr(&sb, name);
		if (is_file(sb.buf))
			return sb_detach(&sb, NULL);
		p += n;
		if (*p == ':')
			p++;
	}
	sb_release(&sb);
	errno = ENOENT;
	pk_error(ENOENT, "'%s': not found in $PATH", name);
	return NULL;
}

int uprobe_func_offset(const char *path, const char *func, uint64_t *off, uint64_t *size)
{
	struct symcache *c = symcache_new();
	uint64_t vaddr = 0, sz = 0;
	int err = sym_lookup_name(c, path, func, &vaddr, &sz);

	symcache_free(c);
	if (err)
		return pk_error(ENOENT, "'%s': no function '%s' in its symbol tables", path, func);

	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pk_error(errno, "'%s': %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t phnum = 0;
	err = pk_error(EINVAL, "'%s': '%s' at 0x%llx lies in no loadable segment", path, func,
		       (unsigned long long)vaddr);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &phnum)) {
		err = pk_error(EINVAL, "'%s': not an ELF file", path);
		goto out;
	}
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
