/* SPDX-License-Identifier: GPL-2.0-or-later */
/* execsnoop.h — types shared by execsnoop.bpf.c and src/cmd/execsnoop.c. */
#ifndef PERFKIT_BPF_EXECSNOOP_H
#define PERFKIT_BPF_EXECSNOOP_H

#define EXEC_TASK_COMM_LEN   16
#define EXEC_ARGSIZE         128          /* bytes kept of one argument, NUL included */
#define EXEC_MAX_ARGS        60           /* --max-args upper limit */
#define EXEC_ARGS_BUF        (EXEC_MAX_ARGS * EXEC_ARGSIZE)
#define EXEC_LAST_ARG        (EXEC_ARGS_BUF - EXEC_ARGSIZE)

/* flags */
#define EXEC_F_MORE_ARGS     1u           /* argv had more than max_args entries */
#define EXEC_F_ARG_CUT       2u           /* some argument was longer than EXEC_ARGSIZE - 1 */
#define EXEC_F_ENTER_FAULT   4u           /* (kernel only) an argv read failed at sys_enter */
#define EXEC_F_FROM_MM       8u           /* args[] holds the new process's raw argv block
					   * [mm->arg_start, mm->arg_end): args_size bytes,
					   * args_count 0, user space splits it at the NULs */
#define EXEC_F_MM_CUT       16u           /* ... cut at EXEC_ARGS_BUF bytes */

struct exec_event {
	__u64 ts_ns;                      /* CLOCK_MONOTONIC at exit of execve */
	__u32 pid, ppid, uid;
	__s32 retval;                     /* 0 or -errno */
	__u32 args_count;                 /* arguments in args[] */
	__u32 args_size;                  /* bytes used in args[] */
	__u32 flags;
	char comm[EXEC_TASK_COMM_LEN];
	char args[EXEC_ARGS_BUF];         /* NUL-separated argv strings */
};

#define EXEC_EVENT_BASE ((unsigned long)__builtin_offsetof(struct exec_event, args))

#endif
