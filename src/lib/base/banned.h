/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * banned.h — libc calls perfkit does not use, made a compile error.
 *
 * The Makefile passes `-include base/banned.h` to every perfkit, unit-test
 * and fuzz-harness compilation (not to the freestanding Valgrind tool or the
 * BPF programs, which have no libc).  A call to a banned function fails with
 *   error: 'sorry_strcpy_is_a_banned_function' undeclared
 * (the idea is git's banned.h).  The system headers that declare these
 * functions are included first, so their own declarations and inline
 * wrappers are read before the macros exist; only calls written after this
 * point, i.e. in perfkit's sources, are refused.
 *
 * What to use instead, and why each is banned:
 *   strcpy, strcat, strncpy, strncat  no bound or a bound that does not
 *       terminate: snprintf(), memcpy() with a known length, or strbuf.
 *   sprintf, vsprintf  no bound: snprintf(), vsnprintf(), sb_addf().
 *   strtok             hidden static state: strtok_r().
 *   gmtime, localtime, ctime, asctime, ctime_r, asctime_r  static buffers
 *       or unbounded output: gmtime_r(), localtime_r() + strftime().
 *   gets               unbounded: fgets(), getline().
 *   tmpnam, tempnam, mktemp  racy names: mkstemp(), base/outfile.h.
 * Option values are never read with atoi/strtol/strtod in src/cmd: they go
 * through base/parse.h (range-checked); atoi stays allowed for values that
 * are already known to be digits (a /proc directory name).
 */
#ifndef PERFKIT_BASE_BANNED_H
#define PERFKIT_BASE_BANNED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)

#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)

#undef strtok
#define strtok(x, y) BANNED(strtok)

#undef gmtime
#define gmtime(t) BANNED(gmtime)
#undef localtime
#define localtime(t) BANNED(localtime)
#undef ctime
#define ctime(t) BANNED(ctime)
#undef ctime_r
#define ctime_r(t, buf) BANNED(ctime_r)
#undef asctime
#define asctime(t) BANNED(asctime)
#undef asctime_r
#define asctime_r(t, buf) BANNED(asctime_r)

#undef gets
#define gets(s) BANNED(gets)

#undef tmpnam
#define tmpnam(s) BANNED(tmpnam)
#undef tempnam
#define tempnam(d, p) BANNED(tempnam)
#undef mktemp
#define mktemp(t) BANNED(mktemp)

#endif
