/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracefs.c — find or mount tracefs (see tracefs.h). */
#include "bpfutil/tracefs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"

static const char *tracefs_root(void)
{
	static const char *const roots[] = { TRACEFS_DIR, "/sys/kernel/debug/tracing" };
	char path[128];
	struct stat st;

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/events", roots[i]);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return roots[i];
	}
	return NULL;
}

int tracefs_ensure(void)
{
	if (tracefs_root())
		return 0;
	int err = 0;

	if (mount("nodev", TRACEFS_DIR, "tracefs", 0, NULL) == 0) {
		if (tracefs_root())
			return 0;
		err = ENOENT;
	} else {
		err = errno;
	}
	if (err == ENODEV)
		return pk_error(ENODEV, "tracefs is not available: the kernel was built without "
				"CONFIG_FTRACE, so tracepoints cannot be attached");
	return pk_error(err == EACCES ? EPERM : err,
			"tracefs is not mounted at %s and mounting it failed (%s): "
			"run `mount -t tracefs nodev %s` as root", TRACEFS_DIR, strerror(err), TRACEFS_DIR);
}

int tracefs_has_event(const char *category, const char *name)
{
	const char *root = tracefs_root();
	char path[512];

	if (!root)
		return 0;
	snprintf(path, sizeof(path), "%s/events/%s/%s", root, category, name);
	return access(path, F_OK) == 0;
}
