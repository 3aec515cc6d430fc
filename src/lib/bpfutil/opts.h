/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opts.h — the option values the eBPF tools share, read one way with one
 * set of messages (the command prints "perfkit TOOL: <pk_errmsg()>" and
 * exits 2).  All return 0, or -EINVAL / -ERANGE with a pk_error() message
 * naming the option and quoting the value escaped (base/parse.h); *out is
 * written only on success.
 *
 * bpfk_opt_pid(opt, s, &pid): a process id, 1..INT_MAX ("-p").
 * bpfk_opt_uid(opt, s, &uid): a user id, 0..2^32-2 ("-u").
 * bpfk_opt_secs(opt, s, &secs): a duration or interval in seconds,
 *   0.001..1e7 ("-d", "--interval", a positional DURATION).
 * bpfk_opt_count(opt, s, &n): a positive count, 1..INT_MAX.
 * bpfk_opt_us(opt, s, &us): microseconds, 0..2^63-1 ("-m", "-M").
 * bpfk_opt_ports(opt, s, ports, &n, max): a comma-separated list of ports
 *   1..65535 appended to ports[*n]; -E2BIG "OPT takes at most MAX ports" past
 *   max, -EINVAL "OPT expects ports 1..65535 separated by commas, got 'S'".
 *
 * bpfk_opt_args(argc, argv, first, secs_name, secs, count): the positional
 *   arguments after the options, argv[first..argc), bcc's [DURATION] or
 *   [INTERVAL [COUNT]]: with secs_name, an optional number of seconds read
 *   as bpfk_opt_secs(secs_name) ("the duration", "the interval"); with count
 *   as well, an optional count after it, bpfk_opt_count("the count").  Each
 *   out-value is written only when its argument is there.  One argument more
 *   (or any, with secs_name NULL): -E2BIG "unexpected argument 'ARG'" (ARG
 *   escaped), after which the tool also prints its usage.
 */
#ifndef PERFKIT_BPFUTIL_OPTS_H
#define PERFKIT_BPFUTIL_OPTS_H

#include <stddef.h>
#include <stdint.h>

int bpfk_opt_pid(const char *opt, const char *s, long *pid);
int bpfk_opt_uid(const char *opt, const char *s, uint32_t *uid);
int bpfk_opt_secs(const char *opt, const char *s, double *secs);
int bpfk_opt_count(const char *opt, const char *s, long *n);
int bpfk_opt_us(const char *opt, const char *s, uint64_t *us);
int bpfk_opt_ports(const char *opt, const char *s, uint16_t *ports, int *n, int max);
int bpfk_opt_args(int argc, char **argv, int first, const char *secs_name, double *secs, long *count);

/* The local time of now as bcc's tools print it in their -T/--time column,
 * "HH:MM:SS", into buf (at least 9 bytes); returns buf. */
const char *bpfk_clock(char *buf, size_t size);

#endif
