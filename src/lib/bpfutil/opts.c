/* SPDX-License-Identifier: GPL-2.0-or-later */
/* opts.c — option values shared by the eBPF tools (see opts.h). */
#include "bpfutil/opts.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/parse.h"
#include "base/strbuf.h"

int bpfk_opt_pid(const char *opt, const char *s, long *pid)
{
	int64_t v;
	int err = pk_parse_i64(opt, s, 1, INT_MAX, &v);

	if (!err)
		*pid = (long)v;
	return err;
}

int bpfk_opt_uid(const char *opt, const char *s, uint32_t *uid)
{
	uint64_t v;
	int err = pk_parse_u64(opt, s, 0, UINT32_MAX - 1, &v);

	if (!err)
		*uid = (uint32_t)v;
	return err;
}

int bpfk_opt_secs(const char *opt, const char *s, double *secs)
{
	return pk_parse_double(opt, s, 0.001, 1e7, secs);
}

int bpfk_opt_count(const char *opt, const char *s, long *n)
{
	int64_t v;
	int err = pk_parse_i64(opt, s, 1, INT_MAX, &v);

	if (!err)
		*n = (long)v;
	return err;
}

int bpfk_opt_us(const char *opt, const char *s, uint64_t *us)
{
	uint64_t v;
	int err = pk_parse_u64(opt, s, 0, INT64_MAX, &v);

	if (!err)
		*us = v;
	return err;
}

int bpfk_opt_ports(const char *opt, const char *s, uint16_t *ports, int *n, int max)
{
	const char *p = s;
	int have = *n;

	if (!*s)
		goto bad;
	for (;;) {
		char *end;
		long v;

		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || v < 1 || v > 65535)
			goto bad;
		if (have >= max)
			return pk_error(E2BIG, "%s takes at most %d ports", opt, max);
		ports[have++] = (uint16_t)v;
		if (!*end)
			break;
		if (*end != ',')
			goto bad;
		p = end + 1;
	}
	*n = have;
	return 0;
bad:;
	struct strbuf q = STRBUF_INIT;
	sb_add_term(&q, s, strlen(s));
	int err = pk_error(EINVAL, "%s expects ports 1..65535 separated by commas, got '%s'", opt, q.buf);
	sb_release(&q);
	return err;
}

int bpfk_opt_args(int argc, char **argv, int first, const char *secs_name, double *secs, long *count)
{
	int i = first, err = 0;

	if (secs_name && i < argc && !(err = bpfk_opt_secs(secs_name, argv[i], secs)))
		i++;
	if (!err && secs_name && count && i < argc && !(err = bpfk_opt_count("the count", argv[i], count)))
		i++;
	if (err || i >= argc)
		return err;
	struct strbuf q = STRBUF_INIT;
	sb_add_term(&q, argv[i], strlen(argv[i]));
	err = pk_error(E2BIG, "unexpected argument '%s'", q.buf);
	sb_release(&q);
	return err;
}

const char *bpfk_clock(char *buf, size_t size)
{
	time_t t = time(NULL);
	struct tm tm;

	if (!size || !strftime(buf, size, "%H:%M:%S", localtime_r(&t, &tm)))
		buf[0] = '\0';
	return buf;
}
