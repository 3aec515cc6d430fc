/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vgrun.c — find pkcache and run a command under it (contract in vgrun.h). */
#include "cachesim/vgrun.h"

#include "base/error.h"
#include "base/path.h"
#include "base/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define VG_PLATFORM "amd64-linux"
#elif defined(__aarch64__)
#define VG_PLATFORM "arm64-linux"
#else
#define VG_PLATFORM "unknown"
#endif

#define TOOL_FILE "pkcache-" VG_PLATFORM

/* More "../" than any libdir has components: the launcher's
 * "<libdir>/<tool>" then leads to / and on to the absolute tool path. */
#define UP_LEVELS 32

static int is_exec_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* DIR/pkcache-<platform> resolved to an absolute path, or NULL. */
static char *tool_in(const char *dir)
{
	char p[PATH_MAX + 64], real[PATH_MAX];

	if (snprintf(p, sizeof(p), "%s/" TOOL_FILE, dir) >= (int)sizeof(p))
		return NULL;
	if (!is_exec_file(p) || !realpath(p, real))
		return NULL;
	return xstrdup(real);
}

void vgrun_release(struct vgrun *vr)
{
	free(vr->launcher);
	free(vr->tool);
	vr->launcher = vr->tool = NULL;
}

int vgrun_find(struct vgrun *vr)
{
	const char *env = getenv("PERFKIT_VALGRIND_LIB");

	vr->launcher = vr->tool = NULL;
	if (env && *env) {
		vr->tool = tool_in(env);
		if (!vr->tool)
			return pk_error(ENOENT, "perfkit's Valgrind tool " TOOL_FILE
					" is not in '%s' (PERFKIT_VALGRIND_LIB)", env);
	} else {
		char exe[PATH_MAX], d[3][PATH_MAX + 64];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		char *slash;

		if (n <= 0)
			return pk_error(ENOENT, "cannot find perfkit's own path (/proc/self/exe): %s",
					n < 0 ? strerror(errno) : "empty");
		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash)
			*slash = 0;
		snprintf(d[0], sizeof(d[0]), "%s/vgtool", exe);
		snprintf(d[1], sizeof(d[1]), "%s/vgtool/lib", exe);
		snprintf(d[2], sizeof(d[2]), "%s/../libexec/perfkit/vgtool", exe);
		for (int i = 0; i < 3 && !vr->tool; i++)
			vr->tool = tool_in(d[i]);
		if (!vr->tool)
			return pk_error(ENOENT,
					"perfkit's Valgrind tool " TOOL_FILE " is not in vgtool/ beside "
					"the perfkit binary ('%s', '%s') nor in '%s' (copy build/vgtool/ "
					"along with build/perfkit, or set PERFKIT_VALGRIND_LIB to the "
					"folder that holds it; it is built when Valgrind's dev files are "
					"installed, see mk/cache.mk)", d[0], d[1], d[2]);
	}
	vr->launcher = pk_path_search("valgrind", true);
	if (!vr->launcher) {
		vgrun_release(vr);
		return pk_error(ENOENT, "valgrind not found in PATH (install the Debian package valgrind)");
	}
	return 0;
}

extern char **environ;

/* The environment for valgrind: the caller's, with `_` (which bash, zsh and
 * ksh set to the path of the command they run, exported) turned from this
 * perfkit binary's path into the launcher's, as it would read had the user
 * typed `valgrind …` instead: the variable's length moves the program's
 * stack and so its counts.  Any other value of `_` (env(1)'s, a script's)
 * is left as it is.  Returns environ itself when nothing changes, else a
 * malloc'd array (one malloc'd string in *var). */
static char **client_env(const struct vgrun *vr, char **var)
{
	char self[PATH_MAX], real[PATH_MAX];
	ssize_t n;
	size_t i, k = 0;
	char **env;

	*var = NULL;
	for (i = 0; environ[i] && strncmp(environ[i], "_=", 2); i++)
		;
	if (!environ[i] || !realpath(environ[i] + 2, real))
		return environ;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return environ;
	self[n] = 0;
	if (strcmp(real, self))
		return environ;
	while (environ[k])
		k++;
	env = xcalloc(k + 1, sizeof(*env));
	memcpy(env, environ, k * sizeof(*env));
	*var = xstrfmt("_=%s", vr->launcher);
	env[i] = *var;
	return env;
}

int vgrun_spawn(const struct vgrun *vr, const char *const opts[], const char *out,
		const char *log, char *const argv[], pid_t *pid)
{
	size_t nopt = 0, narg = 0, n = 0, tl;
	struct strbuf tool;
	char **va;
	int pfd[2], err = 0, rc = 0;
	ssize_t r;

	if (!argv || !argv[0])
		return pk_error(EINVAL, "no program to run under valgrind");
	if (argv[0][0] == '-')
		return pk_error(EINVAL, "'%s': a program name starting with '-' would be read as a "
				"valgrind option", argv[0]);
	if (!vr->tool || !vr->launcher)
		return pk_error(EINVAL, "valgrind tool not located (vgrun_find first)");
	tl = strlen(vr->tool);
	if (tl <= sizeof("-" VG_PLATFORM) || vr->tool[0] != '/' ||
	    strcmp(vr->tool + tl - (sizeof("-" VG_PLATFORM) - 1), "-" VG_PLATFORM))
		return pk_error(EINVAL, "'%s': not a Valgrind tool for " VG_PLATFORM, vr->tool);
	while (opts && opts[nopt])
		nopt++;
	while (argv[narg])
		narg++;

	sb_init(&tool, 256);
	sb_addstr(&tool, "--tool=");
	for (int i = 0; i < UP_LEVELS; i++)
		sb_addstr(&tool, "../");
	sb_add(&tool, vr->tool + 1, tl - 1 - (sizeof("-" VG_PLATFORM) - 1));

	va = xcalloc(nopt + narg + 6, sizeof(*va));
	va[n++] = vr->launcher;
	va[n++] = tool.buf;
	va[n++] = (char *)"-q";
	if (log)
		va[n++] = xstrfmt("--log-file=%s", log);
	if (out)
		va[n++] = xstrfmt("--pk-out=%s", out);
	size_t first_opt = n;

	for (size_t i = 0; i < nopt; i++)
		va[n++] = (char *)opts[i];
	for (size_t i = 0; i < narg; i++)
		va[n++] = argv[i];
	va[n] = NULL;

	char *uvar;
	char **envp = client_env(vr, &uvar);

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		rc = pk_error(errno, "pipe: %s", strerror(errno));
		goto out;
	}
	fflush(NULL);
	*pid = fork();
	if (*pid < 0) {
		rc = pk_error(errno, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		goto out;
	}
	if (*pid == 0) {
		close(pfd[0]);
		execve(va[0], va, envp);
		err = errno;
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	do
		r = read(pfd[0], &err, sizeof(err));
	while (r < 0 && errno == EINTR);
	close(pfd[0]);
	if (r == (ssize_t)sizeof(err)) {
		while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
			;
		*pid = -1;
		rc = pk_error(err, "cannot run '%s': %s", vr->launcher, strerror(err));
	}
out:
	if (envp != environ)
		free(envp);
	free(uvar);
	for (size_t i = 3; i < first_opt; i++)
		free(va[i]);
	free(va);
	sb_release(&tool);
	return rc;
}

int vgrun_run(const struct vgrun *vr, const char *const opts[], const char *out,
	      const char *log, char *const argv[], int *status)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	pid_t pid;
	int rc = vgrun_spawn(vr, opts, out, log, argv, &pid);

	if (rc < 0)
		return rc;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			rc = pk_error(errno, "waitpid: %s", strerror(errno));
			break;
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return rc;
}

const char *vgrun_log_text(const char *line)
{
	const char *m;

	if (!strncmp(line, "==", 2) && (m = strstr(line + 2, "== ")))
		return m + 3;
	return line;
}

void vgrun_log_last(const char *log, char *buf, size_t len)
{
	FILE *lf = fopen(log, "re");
	char line[512];

	buf[0] = 0;
	while (lf && fgets(line, sizeof(line), lf))
		if (line[0] != '\n' && strncmp(line, "==", 2))
			snprintf(buf, len, "%s", line);
	if (lf)
		fclose(lf);
	buf[strcspn(buf, "\n")] = 0;
}
