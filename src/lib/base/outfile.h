/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outfile.h — write an output file whole or not at all, without ever
 * replacing something that is not a regular file.
 *
 * of_open(path):
 *   - path names a regular file, or nothing yet: the data goes to a
 *     temporary file in the same directory, and of_commit() renames it over
 *     the target; of_abort() removes it, so a failed run leaves no
 *     half-written output and the old file intact.  A new file is created
 *     0600, like perf's perf.data; a replaced file keeps its mode;
 *   - path exists and is not a regular file (/dev/stdout, /dev/null, a FIFO,
 *     a terminal, or a symlink to one): it is opened for writing directly.
 *     Renaming over it would replace the device node or link with a plain
 *     file;
 *   - path is under /dev/ or /proc/ (/dev/stdout, /dev/fd/3,
 *     /proc/self/fd/1: links the kernel makes, whatever they lead to): it
 *     is opened for writing directly, like a device;
 *   - path is another symbolic link to a regular file, or a dangling one:
 *     refused (-EEXIST), never written through (the link may have been
 *     planted in a shared directory to make us overwrite another file).
 * Errors: -errno with a pk_error() message naming the path; nothing printed.
 */
#ifndef PERFKIT_BASE_OUTFILE_H
#define PERFKIT_BASE_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

struct outfile {
	FILE *f;          /* write here */
	char *path;       /* the target as given */
	char *target;     /* the resolved file to rename onto (NULL: direct) */
	char *tmp;        /* the temporary file (NULL: direct) */
};

int of_open(struct outfile *of, const char *path);
/* The same for a file made to be shared or served (an SVG, an HTML page,
 * an export): a new file gets 0666 less the umask, as `cmd > FILE` or
 * flamegraph.pl's output would, instead of 0600. */
int of_open_shared(struct outfile *of, const char *path);

/* True for paths under /dev/ and /proc/: written in place, never renamed
 * over (also used by the perf.data writer and record's -o checks). */
bool of_kernel_path(const char *path);

/* The open descriptor that /dev/stdout (1), /dev/stderr (2), /dev/fd/N or
 * /proc/self/fd/N names, or -1 (another path, or N not open).  Writers use
 * it rather than reopening the path, which would truncate a file the shell
 * opened with >> and lose its offset. */
int of_std_fd(const char *path);
/* For main(): SIGINT, SIGTERM and SIGHUP, where they still have their
 * default action, first remove the temporary files being written, then
 * end the process as the signal would (a Ctrl-C leaves no FILE.tmpXXXXXX
 * beside FILE).  A command that sets its own handler later replaces it. */
void of_unlink_on_signals(void);
int of_commit(struct outfile *of);   /* flush, close, rename; frees */
void of_abort(struct outfile *of);   /* close, remove the temp file; frees */

#endif
