// SPDX-License-Identifier: GPL-2.0-or-later
/* stackmap.c — stack ids read back from the two stack maps (stackmap.h). */
#include "bpfutil/stackmap.h"

#include <errno.h>

#ifndef PERFKIT_NO_BPF
#include <bpf/bpf.h>
#include "bpf/stackid.h"

int bpfk_stack_read(int fd, int spill_fd, int id, uint64_t *ips, int max)
{
	int n = 0;

	if (id < 0)
		return 0;
	if (id & STACKID_SPILL) {
		fd = spill_fd;
		id &= ~STACKID_SPILL;
	}
	if (fd < 0 || bpf_map_lookup_elem(fd, &id, ips))
		return 0;
	while (n < max && ips[n])
		n++;
	return n;
}
#else
/* built without libbpf: no tool has maps to read */
int bpfk_stack_read(int fd, int spill_fd, int id, uint64_t *ips, int max)
{
	(void)fd, (void)spill_fd, (void)id, (void)ips, (void)max;
	return 0;
}
#endif

const char *bpfk_stack_errname(int id)
{
	switch (-id) {
	case EFAULT: return "EFAULT";
	case EEXIST: return "EEXIST";
	case ENOMEM: return "ENOMEM";
	case EINVAL: return "EINVAL";
	default: return "error";
	}
}

int bpfk_stack_part(int fd, int spill_fd, int id, int none, uint64_t *ips, int max, const char **why)
{
	int n = bpfk_stack_read(fd, spill_fd, id, ips, max);

	*why = id == none || n ? NULL : id < 0 ? bpfk_stack_errname(id) : "evicted";
	return n;
}

uint32_t bpfk_stack_buckets(uint32_t n)
{
	uint32_t b = 1;

	while (b < n && b < (1u << 31))
		b <<= 1;
	return b;
}

uint32_t bpfk_stack_spill_size(uint32_t entries)
{
	return entries / 4 ? entries / 4 : 1;
}
