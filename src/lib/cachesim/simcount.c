/* SPDX-License-Identifier: GPL-2.0-or-later */
/* simcount.c — simulated totals of a command; see simcount.h. */
#include "cachesim/simcount.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "cachesim/cachesim.h"

static const char *const level_name[SIM_NLEVEL] = { "I1", "D1", "L2", "LL" };

uint64_t simcount_ev(const struct cgfile *cg, const char *name)
{
	int i = cgfile_event(cg, name);

	return i < 0 ? 0 : cg->totals[i];
}

int simcount_run(const struct vgrun *vr, const struct simcount_opts *o, char *const argv[],
		 struct cgfile **cg, int *status)
{
	const char *model = o->model ? o->model : "modern";
	int modern = !strcmp(model, "modern");
	struct cache_geom g[SIM_NLEVEL];
	bool have[SIM_NLEVEL];
	char opt[SIM_NLEVEL + 1][96], dir[4096], out[4200], log[4200];   /* opt: model, levels */
	const char *opts[SIM_NLEVEL + 5];
	int nopt = 0, nbuf = 0, err;
	const char *tmpdir = getenv("TMPDIR");

	*cg = NULL;
	memcpy(g, o->geom, sizeof(g));
	memcpy(have, o->have, sizeof(have));
	if (o->host_geometry) {
		struct host_caches hc;

		int hr = hostcache_read_host(&hc);	/* PERFKIT_SYSFS_CPU or sysfs */

		if (hr == -EINVAL)
			return hr;
		if (hr == 0) {
			const struct cache_geom *h[SIM_NLEVEL] = { &hc.I1, &hc.D1, &hc.L2, &hc.LL };

			for (int k = 0; k < SIM_NLEVEL; k++)
				if (!have[k] && h[k]->size &&
				    !pk_cache_check(h[k]->size, h[k]->assoc, h[k]->line)) {
					g[k] = *h[k];
					have[k] = true;
				}
		}
	}
	snprintf(opt[nbuf], sizeof(opt[nbuf]), "--model=%s", model);
	opts[nopt++] = opt[nbuf++];
	opts[nopt++] = "--branch-sim=yes";
	opts[nopt++] = "--trace-children=yes";
	for (int k = 0; k < SIM_NLEVEL; k++) {
		if (!have[k] || (k == SIM_L2 && !modern))
			continue;
		snprintf(opt[nbuf], sizeof(opt[nbuf]), "--%s=%llu,%llu,%llu", level_name[k],
			 (unsigned long long)g[k].size, (unsigned long long)g[k].assoc,
			 (unsigned long long)g[k].line);
		opts[nopt++] = opt[nbuf++];
	}
	opts[nopt] = NULL;

	snprintf(dir, sizeof(dir), "%s/perfkit-sim.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir)) {
		err = errno;
		return pk_error(err, "cannot create a temporary folder '%s': %s", dir, strerror(err));
	}
	snprintf(out, sizeof(out), "%s/out.%%p", dir);
	snprintf(log, sizeof(log), "%s/valgrind.log", dir);

	int saved = -1;
	if (o->quiet_stdout) {
		fflush(stdout);
		saved = dup(1);
		int nul = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (saved >= 0 && nul >= 0)
			dup2(nul, 1);
		if (nul >= 0)
			close(nul);
	}
	err = vgrun_run(vr, opts, out, log, argv, status);
	if (saved >= 0) {
		dup2(saved, 1);
		close(saved);
	}
	/* one file per process (out.PID): the totals are their sum */
	size_t files = 0;
	if (!err) {
		DIR *d = opendir(dir);
		struct dirent *de;

		while (d && (de = readdir(d))) {
			char f[4500];
			struct stat st;
			struct cgfile *one = NULL;

			if (strncmp(de->d_name, "out.", 4))
				continue;
			snprintf(f, sizeof(f), "%s/%s", dir, de->d_name);
			if (stat(f, &st) != 0 || st.st_size == 0)
				continue;
			if (!err && (err = cgfile_read(f, &one)) == 0) {
				if (!*cg) {
					*cg = one;
					one = NULL;
				} else {
					for (size_t i = 0; i < one->nev; i++) {
						int k = cgfile_event(*cg, one->ev[i]);
						if (k >= 0)
							(*cg)->totals[k] += one->totals[i];
					}
				}
				files++;
			}
			cgfile_free(one);
		}
		if (d)
			closedir(d);
	}
	if (!err && !files) {
		char last[512];

		vgrun_log_last(log, last, sizeof(last));
		if (WIFSIGNALED(*status))
			err = pk_error(ECHILD, "'%s' was killed by signal %d (%s) before any result", argv[0],
				       WTERMSIG(*status), strsignal(WTERMSIG(*status)));
		else
			err = pk_error(EIO, "valgrind failed (exit %d)%s%s", WEXITSTATUS(*status),
				       last[0] ? ": " : "", last);
	}
	if (err) {
		cgfile_free(*cg);
		*cg = NULL;
	}
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char f[4500];
		if (de->d_name[0] == '.')
			continue;
		snprintf(f, sizeof(f), "%s/%s", dir, de->d_name);
		unlink(f);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	return err;
}
