/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * procmaps.h — a process's executable mappings from /proc/PID/maps, to turn
 * the user-space addresses BPF collects into (file, file offset) pairs for
 * symcache_resolve() (symbol.h): file_off = ip - start + pgoff.
 *
 * procmaps_load() reads the mappings once; later lookups are binary
 * searches.  Mappings without a backing file ("[heap]", "//anon", "")
 * are kept with their name so a lookup still says where an address lies.
 * Errors: -errno with a pk_error() message (-ESRCH when the process is
 * gone, -EACCES without permission).
 */
#ifndef PERFKIT_BPFUTIL_PROCMAPS_H
#define PERFKIT_BPFUTIL_PROCMAPS_H

#include <stddef.h>
#include <stdint.h>

struct procmap {
	uint64_t start, end, pgoff;
	const char *path;            /* points into procmaps.names */
};

struct procmaps {
	struct procmap *maps;        /* sorted by start, non-overlapping */
	size_t nr;
	char *names;                 /* all paths, NUL-separated */
};

int procmaps_load(struct procmaps *pm, int pid);
/* The mapping containing ip, or NULL. */
const struct procmap *procmaps_find(const struct procmaps *pm, uint64_t ip);
void procmaps_release(struct procmaps *pm);

#endif
