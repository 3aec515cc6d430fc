/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stackmap.h — reading back the stack ids the BPF programs recorded with
 * stackid_get() (src/bpf/stackid.h): an id >= 0 names a stack in the main
 * stack map, or, with STACKID_SPILL set, in the spill map; an id < 0 is
 * -errno from bpf_get_stackid() (shown as a [Missed ... Stack] frame).
 *
 * bpfk_stack_read(fd, spill_fd, id, ips, max): the stack's instruction
 * pointers, leaf first, into ips[0..max); returns how many (the map's value
 * ends at the first 0), 0 when id is an error or the stack is no longer in
 * its map (bpf_map_lookup_elem failed: -ENOENT).
 *
 * bpfk_stack_errname(id): "EFAULT" (no frames could be read), "EEXIST"
 * (both buckets held other stacks), "ENOMEM", "EINVAL", else "error".
 *
 * bpfk_stack_part(fd, spill_fd, id, none, ips, max, &why): one part (user
 * or kernel) of a recorded stack: bpfk_stack_read()'s frames, and in *why
 * the reason a part that should have frames has none (the text of its
 * [Missed ... Stack] frame): bpfk_stack_errname(id) when it was not
 * collected, "evicted" when its id names no stack any more, NULL when it
 * was read or id is `none` (the tool's NO_STACK: not asked for, or no
 * such part).
 *
 * bpfk_stack_buckets(n): n rounded up to a power of two, the stack map
 * size a --stack-storage-size of n asks for.  The kernel rounds a stack
 * map's buckets up so, but preallocates only n entries: with fewer
 * entries than buckets a new stack can find its bucket free and still fail
 * (-ENOMEM, a second kind of missing stack).  n in 1..2^31.
 *
 * bpfk_stack_spill_size(entries): the spill map's entries for a main map
 * of `entries` (a power of two): a quarter, at least 1.
 */
#ifndef PERFKIT_BPFUTIL_STACKMAP_H
#define PERFKIT_BPFUTIL_STACKMAP_H

#include <stdint.h>

int bpfk_stack_read(int fd, int spill_fd, int id, uint64_t *ips, int max);
const char *bpfk_stack_errname(int id);
int bpfk_stack_part(int fd, int spill_fd, int id, int none, uint64_t *ips, int max, const char **why);
uint32_t bpfk_stack_buckets(uint32_t n);
uint32_t bpfk_stack_spill_size(uint32_t entries);

#endif
