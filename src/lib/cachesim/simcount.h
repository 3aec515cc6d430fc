/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * simcount.h — run a command under perfkit's Valgrind tool (vgrun.h) and
 * hand back its simulated totals, for the commands that want counts rather
 * than a Cachegrind file on disk (stat --simulate, calibrate).
 *
 * simcount_run(vr, o, argv, &cg, &status):
 *   - the model is o->model ("modern" or "cachegrind");
 *   - the geometry of each of I1, D1, L2, LL is o->geom[k] when
 *     o->have[k], else, with o->host_geometry, the host's
 *     (hostcache_read_host: $PERFKIT_SYSFS_CPU or /sys/devices/system/cpu;
 *     levels the host lacks or the model cannot simulate are left to the
 *     tool's defaults); L2 only with the modern model;
 *   - branch prediction is simulated under both models (--branch-sim=yes);
 *   - children are followed (--trace-children=yes, one output per process)
 *     and *cg's totals are the sum over every process, as the native
 *     task-clock of an inherited count is (its records and desc: the first
 *     process's file read);
 *   - o->quiet_stdout puts the program's stdout on /dev/null (the caller's
 *     fd 1 is restored before returning); its stderr is the caller's;
 *   - the tool writes into a private temporary folder (under $TMPDIR or
 *     /tmp), removed before returning.
 * Returns 0 with *cg (free with cgfile_free) and *status (waitpid()'s
 * status of the program: exit code, or the signal that killed it — the
 * tool still writes the counts up to then).  Errors, with a pk_error()
 * message: vgrun's -errno (the launcher could not be run);
 * -ECHILD "killed by signal N (…) before any result" or -EIO
 * "valgrind failed (exit N): LAST LINE OF ITS LOG" when the tool wrote
 * nothing (Valgrind could not start the program: not executable, not an
 * ELF it can load, …); cgfile's -EINVAL for an unreadable output;
 * -errno of mkdtemp; hostcache's -EINVAL when PERFKIT_SYSFS_CPU describes no
 * cache.
 */
#ifndef PERFKIT_SIMCOUNT_H
#define PERFKIT_SIMCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "cachesim/hostcache.h"
#include "cachesim/vgrun.h"
#include "cgfile/cgfile.h"

enum { SIM_I1, SIM_D1, SIM_L2, SIM_LL, SIM_NLEVEL };

struct simcount_opts {
	const char *model;                 /* "modern" (default when NULL) or "cachegrind" */
	struct cache_geom geom[SIM_NLEVEL];
	bool have[SIM_NLEVEL];
	bool host_geometry;
	bool quiet_stdout;
};

int simcount_run(const struct vgrun *vr, const struct simcount_opts *o, char *const argv[],
		 struct cgfile **cg, int *status);

/* The total of the event called name, or 0 when the file has none. */
uint64_t simcount_ev(const struct cgfile *cg, const char *name);

#endif
