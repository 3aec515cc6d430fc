/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stackid.h — stack ids with a second chance, shared by the BPF programs
 * that keep stacks in a BPF_MAP_TYPE_STACK_TRACE map (offcputime, profile)
 * and their commands (bpfutil/stackmap.h reads them back).
 *
 * A stack map is a hash table of one stack per bucket (the bucket: a jhash
 * of the frames, modulo the size).  bpf_get_stackid() without
 * BPF_F_REUSE_STACKID fails with -EEXIST when the bucket already holds
 * another stack (kernel/bpf/stackmap.c): that stack is then lost for the
 * whole run, however often it comes again.  On a busy machine (every
 * process's stacks have addresses of their own) a 16384-bucket map was
 * seen refusing 40-80 stacks in 2 s, among them the very stack being looked
 * for.  (BPF_F_REUSE_STACKID would instead overwrite the old stack under
 * ids the counts already hold: wrong frames, worse than none.)
 *
 * stackid_get(ctx, map, spill, flags): bpf_get_stackid(ctx, map, flags);
 * on -EEXIST the same in `spill`, a smaller stack map only these stacks
 * reach, its id marked with STACKID_SPILL.  A stack always lands in the
 * same place (its bucket in `map` never changes owner), so its count stays
 * one key.  Only a stack whose buckets in both maps are taken is lost
 * (-EEXIST, as before).  Other errors (-EFAULT: no frames) are returned as
 * they are.
 */
#ifndef PERFKIT_BPF_STACKID_H
#define PERFKIT_BPF_STACKID_H

#define STACKID_SPILL 0x40000000   /* the id is in the spill map (ids are < 2^24) */

#ifdef __bpf__
/* STACK_MAP(name, depth, entries): a stack map of entries stacks of up to
 * depth frames (user space may resize it: bpf_map__set_max_entries). */
#define STACK_MAP(name, depth, entries)                                  \
	struct {                                                         \
		__uint(type, BPF_MAP_TYPE_STACK_TRACE);                  \
		__uint(key_size, sizeof(__u32));                         \
		__uint(value_size, (depth) * sizeof(__u64));             \
		__uint(max_entries, entries);                            \
	} name SEC(".maps")

#define STACKID_EEXIST 17   /* EEXIST (asm-generic/errno-base.h): vmlinux.h has no errno */

static __always_inline long stackid_get(void *ctx, void *map, void *spill, __u64 flags)
{
	long id = bpf_get_stackid(ctx, map, flags);

	if (id == -STACKID_EEXIST) {
		long sid = bpf_get_stackid(ctx, spill, flags);

		if (sid >= 0)
			return sid | STACKID_SPILL;
	}
	return id;
}
#endif

#endif
