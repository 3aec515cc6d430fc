/* SPDX-License-Identifier: GPL-2.0-or-later */
/* opensnoop.h — types shared by opensnoop.bpf.c and src/cmd/opensnoop.c. */
#ifndef PERFKIT_BPF_OPENSNOOP_H
#define PERFKIT_BPF_OPENSNOOP_H

#define OPEN_TASK_COMM_LEN 16
#define OPEN_NAME_MAX      256     /* bytes kept of the path, NUL included */

/* -F: for a successful open, the opened file's path as the kernel resolved
 * it (walked up from the new fd's dentry: ".", ".." and symlinks are
 * resolved); else the directory a relative path is relative to (the cwd,
 * or the file behind the dirfd).  Captured in the kernel at the syscall's
 * exit as components leaf first ("c\0b\0a\0" for /a/b/c), so it does not
 * depend on the process, its cwd or the fd still being there when the
 * event is read.  dir[] is sent only up to dir_size. */
#define OPEN_DIR_BUF       4096    /* components kept, NULs included */
#define OPEN_DIR_SLOT      256     /* one component, NUL included (NAME_MAX + 1) */
#define OPEN_DIR_STEPS     64      /* dentries and mount crossings walked */

enum open_call { OPEN_OPEN = 0, OPEN_OPENAT = 1, OPEN_OPENAT2 = 2 };
enum open_dir_state {
	OPEN_DIR_NONE = 0,             /* not captured (no -F, or an absolute path) */
	OPEN_DIR_DONE = 1,             /* dir[] holds the whole directory; 0 components: "/" */
	OPEN_DIR_PARTIAL = 2,          /* too deep, too long, or not reachable from "/" */
	OPEN_DIR_FILE = 3,             /* dir[] holds the opened file's own path, as the
					  kernel resolved it (a successful open) */
};

struct open_event {
	__u64 ts_ns;                   /* bpf_ktime_get_ns() at the syscall's exit */
	__u32 pid, tid, uid;
	__s32 ret;                     /* fd or -errno */
	__s32 dfd;                     /* the directory fd (AT_FDCWD = -100 for open()) */
	__u32 call;                    /* enum open_call */
	__u64 flags;                   /* open flags */
	char comm[OPEN_TASK_COMM_LEN];
	char fname[OPEN_NAME_MAX];
	__u32 dir_state;               /* enum open_dir_state */
	__u32 dir_depth;               /* components in dir[] */
	__u32 dir_size;                /* bytes used in dir[] */
	__u32 pad;
	char dir[OPEN_DIR_BUF + OPEN_DIR_SLOT];
};

#define OPEN_EVENT_BASE ((unsigned long)__builtin_offsetof(struct open_event, dir))

#endif
