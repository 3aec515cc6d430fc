/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procmaps.c — /proc/PID/maps reader (see procmaps.h). */
#include "bpfutil/procmaps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/strbuf.h"

static int cmp_start(const void *a, const void *b)
{
	const struct procmap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int procmaps_load(struct procmaps *pm, int pid)
{
	char path[64], *line = NULL;
	size_t cap = 0, alloc = 0;
	struct strbuf names = STRBUF_INIT;
	size_t *offs = NULL;
	FILE *f;

	memset(pm, 0, sizeof(*pm));
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f) {
		int err = errno == ENOENT ? ESRCH : errno;
		return pk_error(err, "'%s': %s", path, err == ESRCH ? "no such process" : strerror(err));
	}
	while (getline(&line, &cap, f) > 0) {
		uint64_t start, end, pgoff;
		char perms[8];
		int name_at = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n",
			   &start, &end, perms, &pgoff, &name_at) < 4)
			continue;
		if (!strchr(perms, 'x'))
			continue;
		if (pm->nr == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			pm->maps = xrealloc(pm->maps, alloc * sizeof(*pm->maps));
			offs = xrealloc(offs, alloc * sizeof(*offs));
		}
		char *name = name_at ? line + name_at : line + strlen(line);
		name[strcspn(name, "\n")] = '\0';
		offs[pm->nr] = names.len;
		sb_add(&names, name, strlen(name) + 1);
		pm->maps[pm->nr++] = (struct procmap){ start, end, pgoff, NULL };
	}
	free(line);
	fclose(f);
	pm->names = sb_detach(&names, NULL);
	for (size_t i = 0; i < pm->nr; i++)
		pm->maps[i].path = pm->names + offs[i];
	free(offs);
	if (pm->nr)   /* none (a zombie, a kernel thread): maps is NULL */
		qsort(pm->maps, pm->nr, sizeof(*pm->maps), cmp_start);
	return 0;
}

const struct procmap *procmaps_find(const struct procmaps *pm, uint64_t ip)
{
	size_t lo = 0, hi = pm->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ip < pm->maps[mid].start)
			hi = mid;
		else if (ip >= pm->maps[mid].end)
			lo = mid + 1;
		else
			return &pm->maps[mid];
	}
	return NULL;
}

void procmaps_release(struct procmaps *pm)
{
	free(pm->maps);
	free(pm->names);
	memset(pm, 0, sizeof(*pm));
}
