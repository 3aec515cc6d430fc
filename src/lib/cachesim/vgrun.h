/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vgrun.h — find perfkit's Valgrind tool (pkcache) and run a command under
 * it, the way `valgrind --tool=cachegrind CMD` runs CMD.  Used by `perfkit
 * cache` and by every command that simulates (stat --simulate, bench's
 * instruction count).
 *
 * The simulated program's environment is the caller's, changed only as
 * Valgrind changes it for any of its own tools (the installed `valgrind`
 * command — on Debian a script that adds LD_LIBRARY_PATH=/usr/lib/debug and
 * GLIBCXX_FORCE_NEW=1 — and the core's LD_PRELOAD of vgpreload_core): perfkit
 * sets no variable of its own (in particular no VALGRIND_LIB, which the core
 * would leave in the program's environment and which would move
 * vgpreload_core: about 700 more instructions in ld.so than under
 * cachegrind).  One exception: `_`, which bash/zsh/ksh export as the path
 * of the command they ran, is rewritten to the launcher's path when it
 * names this perfkit binary (as the shell would have set it for `valgrind
 * …`; any other value, e.g. env(1)'s, is kept).  So the counts equal
 * cachegrind's for the same program, run from a shell or through env.
 *
 * How: the `valgrind` found in PATH is run with
 * --tool=../../(32 times)/ABSOLUTE-TOOL-PATH-WITHOUT-PLATFORM; the launcher
 * runs "<its libdir>/<tool>-<platform>", which that relative name leads to
 * whatever the compiled-in libdir (or a user's own VALGRIND_LIB) is, and sets
 * VALGRIND_LAUNCHER as for any tool (the core removes it from the program's
 * environment).  The core looks for vgpreload_<tool>-<platform>.so under its
 * libdir, finds none (pkcache has no preload, as cachegrind has none) and
 * preloads vgpreload_core from its own libdir, as for cachegrind.
 *
 * struct vgrun holds two malloc'd absolute paths; VGRUN_INIT is its empty
 * value, vgrun_release() frees them (safe on an empty one).
 *
 * vgrun_find(vr): finds the valgrind launcher (`valgrind` in PATH, as execvp
 * searches) and the tool pkcache-<platform> (platform amd64-linux on x86-64,
 * arm64-linux on AArch64), in the first of:
 *   $PERFKIT_VALGRIND_LIB/            when that variable is set and non-empty
 *                                     (only there);
 *   <directory of /proc/self/exe>/vgtool/   (the build tree: build/vgtool/);
 *   <that directory>/vgtool/lib/            (the older private VALGRIND_LIB);
 *   <that directory>/../libexec/perfkit/vgtool/   (an installed layout).
 * Returns 0, or -ENOENT with a message saying which is missing: "valgrind
 * not found in PATH (…)" or the tool's name and every place looked at.
 *
 * vgrun_spawn(vr, opts, out, log, argv, &pid): forks and runs
 *   valgrind --tool=… -q [--log-file=LOG] [--pk-out=OUT] OPTS… ARGV…
 * OPTS is a NULL-terminated list of tool/core options ("--model=cachegrind",
 * "--D1=32768,8,64", …; NULL for none); OUT the tool's output file (NULL: the
 * tool's default); LOG Valgrind's own messages (NULL: inherited stderr).
 * ARGV (NULL-terminated) is the program and its arguments; Valgrind looks
 * ARGV[0] up in PATH.  The child inherits stdin/stdout/stderr, signal
 * dispositions and mask, and the environment (but `_`, above).  Returns 0 with
 * *pid set once Valgrind has started (its exec succeeded); -EINVAL when
 * ARGV is empty or ARGV[0] starts with '-' (Valgrind would read it as an
 * option); -errno when pipe/fork/exec failed (exec's errno, the child
 * reaped).  The caller waits for *pid.
 *
 * vgrun_run(vr, opts, out, log, argv, &status): vgrun_spawn, then waits for
 * it with SIGINT and SIGQUIT ignored in the caller meanwhile (as system(3);
 * the program still gets them).  *status is waitpid()'s status: the
 * program's exit status, or the signal that killed it (Valgrind dies of the
 * program's signal).  Returns 0, or vgrun_spawn's -errno, or -errno of
 * waitpid.
 */
#ifndef PERFKIT_VGRUN_H
#define PERFKIT_VGRUN_H

#include <sys/types.h>

struct vgrun {
	char *launcher;	/* the `valgrind` command found in PATH */
	char *tool;	/* absolute, symlinks resolved: …/pkcache-<platform> */
};

#define VGRUN_INIT { NULL, NULL }

int vgrun_find(struct vgrun *vr);
void vgrun_release(struct vgrun *vr);
int vgrun_spawn(const struct vgrun *vr, const char *const opts[], const char *out,
		const char *log, char *const argv[], pid_t *pid);
int vgrun_run(const struct vgrun *vr, const char *const opts[], const char *out,
	      const char *log, char *const argv[], int *status);

/*
 * Valgrind's log (the LOG file above): the core writes its lines as
 * "==PID== TEXT"; the launcher's own complaints and a program's failure to
 * start have no such prefix.
 *
 * vgrun_log_text(line): TEXT, past the "==PID== " prefix; line itself
 * when it has none.
 *
 * vgrun_log_last(log, buf, len): the last line of the file LOG that is not
 * a "==" line and not empty (what Valgrind said when it could not run the
 * program), newline removed, cut to len; "" when none or unreadable.
 */
const char *vgrun_log_text(const char *line);
void vgrun_log_last(const char *log, char *buf, size_t len);

#endif
