/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile.h — types shared by profile.bpf.c and src/cmd/profile.c. */
#ifndef PERFKIT_BPF_PROFILE_H
#define PERFKIT_BPF_PROFILE_H

#define PROF_TASK_COMM_LEN  16
#define PROF_MAX_STACK      127     /* frames kept per stack (PERF_MAX_STACK_DEPTH) */

/* A stack id is >= 0 (an entry of the stack map, or of its spill map with
 * STACKID_SPILL set: stackid.h), PROF_NO_STACK when that part was not asked
 * for or does not exist (a kernel part for a sample taken in user mode, a
 * user part for a kernel thread), or -errno from bpf_get_stackid() when it
 * could not be collected: -EFAULT (no frames could be read), -EEXIST (its
 * buckets in both maps held other stacks), -ENOMEM (map full). */
#define PROF_NO_STACK       (-0x7fff)

struct prof_bpf_key {
	__u32 pid;                      /* tgid */
	__s32 user_stack_id;
	__s32 kern_stack_id;
	char comm[PROF_TASK_COMM_LEN];
};

#endif
