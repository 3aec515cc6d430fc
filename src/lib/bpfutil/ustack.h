/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ustack.h — naming the stacks the eBPF tools collect (profile, offcputime),
 * with user frames that stay named after their process has exited.
 *
 * A BPF stack holds addresses only; naming a user address needs the
 * process's mappings, which are gone once it exits.  So the cache takes a
 * *snapshot* of a process while it lives: ustack_snapshot() reads
 * /proc/PID/maps and queues the symbol table of every mapped file not seen
 * yet for loading into the symcache, under a path that opens now:
 *   - the file itself when the process sees the same root as we do;
 *   - /proc/PID/root/FILE when it has its own root (a container), so the
 *     container's binaries, not the host's files of the same name, are read;
 *   - /proc/PID/map_files/START-END for a file deleted or replaced while
 *     mapped.
 * ustack_load_pending() loads one queued file (the newest first) and says
 * whether it did: the tools call it between ring-buffer batches, so that
 * reading the maps of many new processes is never held up by a large
 * symbol table; a lookup loads a file itself when it comes first.
 * Later lookups use the snapshot, whether the process still exists or not.
 * The tools take the snapshot when the BPF side first sees a process (and
 * again every second it keeps being seen: src/bpf/pidseen.h), i.e. while it
 * runs; a process never snapshotted is read on its first lookup, if it is
 * still there.  A newer snapshot of the same pid replaces the older one.
 *
 * Frames: ustack_add_user() appends the name of a user address (the
 * return address minus one unless leaf, so a call at a function's end names
 * that function), "[unknown]" when no mapping or symbol holds it; addresses
 * in anonymous memory or in no mapping (JIT code) are looked up in the
 * process's /tmp/perf-PID.map (perf's and bcc's rule).
 * ustack_add_kernel() names a kernel address through /proc/kallsyms
 * ("0x..." when it cannot).
 *
 * ustack_render(): one stack as text, in the layout of bcc's profile and
 * offcputime: with USTACK_FOLDED "comm;user outer..leaf;kernel
 * outer..leaf" (kernel names suffixed "_[k]" with USTACK_ANNOTATE, bcc
 * profile's -a, in either form; comm's ';' and ' ' made '_'; with USTACK_DELIMITED,
 * bcc's -d, a "-" frame between the two parts when both were collected),
 * else the multi-line form (kernel frames leaf first, with USTACK_DELIMITED
 * "--", user frames leaf first, "-  comm (pid)"), control characters escaped (strbuf.h)
 * either way.  A part that could not be collected is shown as a frame
 * "[Missed User Stack: WHY]" / "[Missed Kernel Stack: WHY]" (bcc's names,
 * with the reason: EEXIST, EFAULT, ...).
 *
 * Memory grows with the processes snapshotted and the files loaded; a
 * long-running tool calls ustack_forget_processes() now and then (profile
 * --continuous: after each interval's file), which drops every snapshot and
 * keeps the symbols of the files loaded, unless asked to drop them too or
 * more than USTACK_MAX_FILES distinct files were loaded.
 *
 * Files are told apart by identity (device, inode, mtime of the file
 * mapped, read through /proc/PID/map_files): a binary rebuilt at the same
 * path while the tool runs is another file, read through map_files while
 * its process lives, so old and new code are each named from their own
 * symbols.  Without map_files (no CAP_SYS_ADMIN) files go by name.  Nothing is printed; errors are swallowed into
 * "[unknown]" frames, which is what the tools show.
 */
#ifndef PERFKIT_BPFUTIL_USTACK_H
#define PERFKIT_BPFUTIL_USTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;
struct procmap;
struct ustack_cache;

struct ustack_cache *ustack_cache_new(void);
void ustack_cache_free(struct ustack_cache *c);

#define USTACK_MAX_FILES 512

void ustack_forget_processes(struct ustack_cache *c, bool symbols_too);

/* (Re)read pid's mappings and load their files' symbols.  0, or -errno
 * (-ESRCH: gone, or a zombie whose maps read empty) with a pk_error()
 * message; a failed snapshot keeps the previous one. */
int ustack_snapshot(struct ustack_cache *c, int pid);
bool ustack_load_pending(struct ustack_cache *c);

/* Snapshots taken so far (for tests and the summary line). */
size_t ustack_snapshots(const struct ustack_cache *c);

/* The mapping holding ip in pid's snapshot (taken now if there is none),
 * or NULL; *file (may be NULL) receives the path the file is read through
 * (see above), or NULL for a mapping without a file. */
const struct procmap *ustack_mapping(struct ustack_cache *c, int pid, uint64_t ip, const char **file);

void ustack_add_user(struct ustack_cache *c, struct strbuf *sb, int pid, uint64_t ip, bool leaf);

/* The parts of a user frame, for exporters: the symbol's name (NULL when
 * unknown; JIT names as the perf map gives them), *sym_off its offset from
 * the symbol's start, *dso the mapping's path as the process sees it
 * (NULL: no mapping), *file the path it is read through (NULL: no file),
 * all valid as long as the cache. */
const char *ustack_user_sym(struct ustack_cache *c, int pid, uint64_t ip, bool leaf,
			    uint64_t *sym_off, const char **dso, const char **file);
void ustack_add_kernel(struct ustack_cache *c, struct strbuf *sb, uint64_t ip);
/* A kernel address's symbol (NULL when unknown), *sym_off its offset. */
const char *ustack_kernel_sym(struct ustack_cache *c, uint64_t ip, uint64_t *sym_off);

struct ustack_trace {
	int pid;
	const char *comm;            /* at most 16 bytes, need not be NUL-terminated */
	const uint64_t *uips;        /* user frames, leaf first */
	int nu;
	const char *umissing;        /* NULL, or why the user part is missing */
	const uint64_t *kips;        /* kernel frames, leaf first */
	int nk;
	const char *kmissing;
};

/* The stack as a malloc'd string (no count, no trailing newline for
 * folded; the multi-line form ends with the "-  comm (pid)" line). */
enum { USTACK_FOLDED = 1, USTACK_DELIMITED = 2, USTACK_ANNOTATE = 4 };   /* ustack_render()'s how */
char *ustack_render(struct ustack_cache *c, const struct ustack_trace *t, unsigned how);

/* Stacks rendered as texts with counts: equal texts merged (different stack
 * ids can name alike), then printed either folded ("TEXT COUNT", sorted by
 * text) or bcc's way ("TEXT        COUNT", least first, blank line after). */
struct ustack_lines {
	struct { char *text; unsigned long long count; } *v;
	size_t nr, alloc;
};
void ustack_lines_add(struct ustack_lines *l, char *text, unsigned long long count);
void ustack_lines_print(struct ustack_lines *l, bool folded);   /* and releases */

#endif
