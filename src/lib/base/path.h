/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * path.h — finding a program in $PATH.
 *
 * pk_path_search(name, exec_only): the first DIR/NAME, for DIR in $PATH
 * from left to right (an empty entry is the current directory; an unset or
 * empty PATH is glibc's default "/bin:/usr/bin"), that is a regular file
 * and, with exec_only, executable by this process (access(2) X_OK) — the
 * file execvp(3) would run.  NAME must not contain '/' (the caller uses
 * such a name as it is).  Returns a malloc'd path, or NULL with errno
 * ENOENT when there is none (nothing is printed, no pk_error()).
 *
 * pk_find_program(name, &path): the program a command that runs NAME
 * (cache, c2c record, mem record) execs: NAME as it is when it contains a
 * '/' and is executable (access(2) X_OK), else pk_path_search(name, true).
 * 0 with *path malloc'd; or -ENOENT with a pk_error() message naming it,
 * escaped: "'NAME': no such executable file" (a path) or "'NAME': command
 * not found" (looked up in $PATH) — the commands exit 127, as a shell does;
 * or -EACCES for a path that is there but cannot be run ("'NAME':
 * Permission denied", "'NAME': Is a directory") — exit 126, as a shell's
 * and valgrind's.
 *
 * pk_open_regular(path): path opened read-only (close-on-exec) when it is a
 * regular file, checked on the open file: a FIFO, a device or a directory
 * that a recording names (a DSO path, a JIT map) would block a reader
 * forever or make no sense, so it is refused without waiting on it
 * (O_NONBLOCK while opening, cleared after).  The fd, or -1 with errno set
 * (open(2)'s, or EINVAL for a file that is not regular).
 *
 * pk_read_line(path, buf, len): the first line of a small file (a sysfs
 * attribute: a PMU's type, a cache's size), its newline cut, into buf (len
 * bytes, a longer line cut there).  0, or -errno of fopen(3), -EIO for a
 * read error, -ENODATA for an empty file; nothing printed, no pk_error().
 *
 * pk_sysfs_cpu(): the folder that describes the CPUs, laid out as
 * /sys/devices/system/cpu (cpuN/cache/, cpuN/topology/): $PERFKIT_SYSFS_CPU
 * when set and not empty (a copy, for tests), else that path.
 */
#ifndef PERFKIT_BASE_PATH_H
#define PERFKIT_BASE_PATH_H

#include <stdbool.h>
#include <stddef.h>

char *pk_path_search(const char *name, bool exec_only);
int pk_find_program(const char *name, char **path);
int pk_open_regular(const char *path);
int pk_read_line(const char *path, char *buf, size_t len);
const char *pk_sysfs_cpu(void);

#endif
