/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ustack_prof.h — the eBPF tools' stacks in the aggregation model
 * (profile/profile.h), and back as the text ustack_render() makes.
 *
 * A stack the tools collect is a kernel part and a user part, each either
 * frames or missing (why: "EFAULT", "evicted", ...).  In the model it is
 * typed frames leaf first: kernel leaf..outer (kernel set), a marker frame
 * for a missing kernel part, user leaf..outer, a marker for a missing user
 * part; a stack with neither part is one USTACK_NO_FRAMES marker (the model
 * takes n >= 1).  A marker is a frame whose dso is one of this module's
 * static strings (the pointer tells it) and whose sym is the reason, a
 * string that outlives the model (the model's identity is the pointer).
 * Real frames: sym the symbol's name (NULL: unknown), dso its path or
 * "[kernel.kallsyms]", ip the address; names interned by the caller.
 *
 * ustack_prof_render(): a stack as prof_walk_stacks() gives it (frame ids
 * root first) laid out exactly as ustack_render() lays out the trace it
 * came from, folded or bcc's multi-line form (ustack.h): user symbols'
 * ';' made ':', unknown user frames "[unknown]", unknown kernel ones
 * "0x<ip>", kernel frames "_[k]" with USTACK_ANNOTATE (with USTACK_DELIMITED a "-"
 * frame between the parts when both were collected), markers "[Missed
 * User Stack: WHY]" / "[Missed Kernel Stack: WHY]", comm (the thread's)
 * and pid from the thread, control characters escaped.
 *
 * Errors: none (allocation failure aborts); nothing printed.
 */
#ifndef PERFKIT_BPFUTIL_USTACK_PROF_H
#define PERFKIT_BPFUTIL_USTACK_PROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

enum ustack_marker_kind { USTACK_MISSING_USER, USTACK_MISSING_KERNEL, USTACK_NO_FRAMES };

/* Fill *f as a marker of that kind; why outlives the model (NULL: ""). */
void ustack_marker(struct pk_frame *f, enum ustack_marker_kind kind, const char *why);
bool ustack_is_marker(const struct pk_frame *f, enum ustack_marker_kind kind);

/* The malloc'd text (no count; folded without newline, multi-line ending
 * with the "-  comm (pid)" line). */
char *ustack_prof_render(const struct prof *p, uint32_t thread, const uint32_t *ids, size_t n, unsigned how);

/* One frame of a stack the tools collect, typed (as above): ip, kernel or
 * a user frame of process pid (leaf: the sampled one, not a return
 * address), named through c, the names interned in names (the model's
 * identities are pointers: names outlives the model); *file (when file is
 * given) the path a user frame's mapping is read through, NULL: none. */
struct hashmap;
struct ustack_cache;
struct ustack_trace;
void ustack_prof_frame(struct ustack_cache *c, struct hashmap *names, int pid, uint64_t ip, bool leaf,
		       bool kernel, struct pk_frame *f, const char **file);

/* A whole trace (ustack.h: kernel and user parts, each frames or missing)
 * into the model as the frames above, leaf first, with the markers; the
 * thread is (t->comm, pid, tid) — pid the number the "-  comm (pid)" line
 * shows — weighing period. */
void ustack_prof_add(struct prof *p, struct hashmap *names, struct ustack_cache *c, const struct ustack_trace *t,
		     uint32_t pid, uint32_t tid, uint64_t period);

#endif
