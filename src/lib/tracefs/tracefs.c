/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracefs.c — find or mount tracefs (see tracefs.h). */
#include "tracefs/tracefs.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
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

const char *tracefs_dir(void)
{
	return tracefs_root();
}

static bool bad_component(const char *s)
{
	return !*s || *s == '.' || strchr(s, '/') != NULL;
}

int tracefs_event_id(const char *category, const char *name, uint64_t *id)
{
	char path[512], buf[32];

	if (bad_component(category) || bad_component(name))
		return pk_error(EINVAL, "bad tracepoint name '%s:%s' (expected SUBSYSTEM:NAME)",
				category, name);
	int err = tracefs_ensure();
	if (err)
		return err;
	const char *root = tracefs_root();
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, category, name);
	FILE *f = fopen(path, "r");
	if (!f) {
		err = errno;
		if (err == ENOENT || err == ENOTDIR)
			return pk_error(ENOENT, "unknown tracepoint '%s:%s' (no %s; see %s/available_events)",
					category, name, path, root);
		return pk_error(err == EPERM ? EACCES : err, "cannot read %s: %s", path, strerror(err));
	}
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(buf, &end, 10);
	if (end == buf || errno || (*end && *end != '\n'))
		return pk_error(EIO, "%s: expected a tracepoint id (a number), got '%.*s'",
				path, (int)strcspn(buf, "\n"), buf);
	*id = (uint64_t)v;
	return 0;
}
