/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse.h — option values read whole and range-checked.
 *
 * Every command reads its numeric option values through these: the whole
 * string must be the number (no leading blanks, no trailing characters, no
 * empty string), and a value outside [min, max] is refused, never clamped
 * (strtol's silent LONG_MAX on overflow is refused too).  Integers are
 * decimal; a leading '+' is accepted, a '-' only for signed types (so "-1"
 * is not read as 2^64-1 by pk_parse_u64).  Doubles must be finite
 * (strtod's "inf", "nan" and overflow are refused) and accept strtod's
 * forms ("1e3", "0x10").
 *
 * Errors: -EINVAL (not a number) or -ERANGE (outside [min, max]), with a
 * pk_error() message that names the option (opt, e.g. "--runs" or "-P MIN")
 * and the accepted range, and quotes the value with control characters
 * escaped, e.g.
 *   --runs expects an integer from 1 to 100000000, got '99999999999999999999'
 * A max of the type's largest value is shown as "≥ min".  Nothing is
 * printed; *out is written only on success.
 */
#ifndef PERFKIT_BASE_PARSE_H
#define PERFKIT_BASE_PARSE_H

#include <stdint.h>

int pk_parse_i64(const char *opt, const char *s, int64_t min, int64_t max, int64_t *out);
int pk_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out);
int pk_parse_int(const char *opt, const char *s, int min, int max, int *out);
int pk_parse_double(const char *opt, const char *s, double min, double max, double *out);

/* perf's id list "1,2,3" (-p PID,... and -t TID,... of record and stat)
 * into out[0..*n): each id from 1 to INT_MAX, at most max of them, none
 * empty ("1,,2", a leading or trailing comma).  -EINVAL or -ERANGE (an id),
 * -E2BIG (more than max), with a message naming opt. */
int pk_parse_id_list(const char *opt, const char *arg, int *out, int max, int *n);

/* perf's CPU list "0,2-3" (-C of record and stat) into out[0..*n) in
 * ascending order (perf's CPU map), each CPU once and below the number of
 * CPUs this machine has (sysconf _SC_NPROCESSORS_CONF), at most max.
 * -EINVAL (not a list, a CPU twice, a CPU not there) or -E2BIG, with a
 * message naming opt. */
int pk_parse_cpu_list(const char *opt, const char *arg, int *out, int max, int *n);

/* Set only by the option fuzz harness (tests/fuzz/options.c): a command
 * that reads it returns 0 once its options are read and checked, before it
 * runs or writes anything.  0 otherwise. */
extern int pk_options_only;

#endif
