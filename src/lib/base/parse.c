/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse.c — see parse.h. */
#include "base/parse.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/strbuf.h"

int pk_options_only;

/* the value as the message quotes it: escaped, and cut after 40 bytes */
static int refuse(int err, const char *opt, const char *s, const char *what)
{
	struct strbuf v = STRBUF_INIT;
	size_t n = strlen(s);

	sb_add_term(&v, s, n > 40 ? 40 : n);
	int rc = pk_error(err, "%s expects %s, got '%s%s'", opt, what, v.buf, n > 40 ? "..." : "");
	sb_release(&v);
	return rc;
}

/* digits only after an optional sign: strtoll would also take blanks */
static int plain_number(const char *s, int allow_minus)
{
	if (*s == '+' || (allow_minus && *s == '-'))
		s++;
	return *s >= '0' && *s <= '9';
}

static int parse_signed(const char *opt, const char *s, int64_t min, int64_t max,
			int64_t type_max, int64_t *out)
{
	char what[96];
	char *end;

	if (max == type_max && min == (type_max == INT64_MAX ? INT64_MIN : INT_MIN))
		snprintf(what, sizeof(what), "an integer");
	else if (max == type_max)
		snprintf(what, sizeof(what), "an integer ≥ %lld", (long long)min);
	else
		snprintf(what, sizeof(what), "an integer from %lld to %lld", (long long)min, (long long)max);
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (!plain_number(s, 1) || *end) {
		return refuse(EINVAL, opt, s, what);
	}
	if (errno == ERANGE || v < min || v > max)
		return refuse(ERANGE, opt, s, what);
	*out = v;
	return 0;
}

int pk_parse_i64(const char *opt, const char *s, int64_t min, int64_t max, int64_t *out)
{
	return parse_signed(opt, s, min, max, INT64_MAX, out);
}

int pk_parse_int(const char *opt, const char *s, int min, int max, int *out)
{
	int64_t v;
	int rc = parse_signed(opt, s, min, max, INT_MAX, &v);

	if (!rc)
		*out = (int)v;
	return rc;
}

int pk_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char what[96];
	char *end;

	if (max == UINT64_MAX)
		snprintf(what, sizeof(what), "an integer ≥ %llu", (unsigned long long)min);
	else
		snprintf(what, sizeof(what), "an integer from %llu to %llu",
			 (unsigned long long)min, (unsigned long long)max);
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (!plain_number(s, 0) || *end) {
		return refuse(EINVAL, opt, s, what);
	}
	if (errno == ERANGE || v < min || v > max)
		return refuse(ERANGE, opt, s, what);
	*out = v;
	return 0;
}

int pk_parse_double(const char *opt, const char *s, double min, double max, double *out)
{
	char what[96];
	char *end;

	if (isinf(max) || max >= 1e300)
		snprintf(what, sizeof(what), "a number ≥ %g", min);
	else
		snprintf(what, sizeof(what), "a number from %g to %g", min, max);
	/* strtod reads "inf", "nan" and leading blanks: a number starts with
	 * a digit or a point after an optional sign */
	const char *p = s + (*s == '+' || *s == '-');
	if (!((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9'))) {
		return refuse(EINVAL, opt, s, what);
	}
	errno = 0;
	double v = strtod(s, &end);
	if (*end) {
		return refuse(EINVAL, opt, s, what);
	}
	if (!isfinite(v) || v < min || v > max)
		return refuse(ERANGE, opt, s, what);
	*out = v;
	return 0;
}

int pk_parse_id_list(const char *opt, const char *arg, int *out, int max, int *n)
{
	char *copy = xstrdup(arg), *save = NULL;
	int err = 0, cnt = 0;

	if (!*arg || *arg == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,"))
		err = pk_error(EINVAL, "%s: an empty id in '%s'", opt, arg);
	for (char *tok = err ? NULL : strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		int v;

		if (cnt == max)
			err = pk_error(E2BIG, "%s: more than %d ids", opt, max);
		else if ((err = pk_parse_int(opt, tok, 1, INT_MAX, &v)) == 0)
			out[cnt++] = v;
	}
	free(copy);
	if (!err)
		*n = cnt;
	return err;
}

int pk_parse_cpu_list(const char *opt, const char *arg, int *out, int max, int *n)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	const char *p = arg;
	int cnt = 0;

	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo < 0 || lo > INT_MAX || *p == '+' || *p == '-' || *p == ' ')
			goto bad;
		if (*end == '-') {
			const char *q = end + 1;

			if (*q < '0' || *q > '9')
				goto bad;
			hi = strtol(q, &end, 10);
			if (end == q || hi < lo || hi > INT_MAX)
				goto bad;
		}
		if (*end && *end != ',')
			goto bad;
		if (conf > 0 && hi >= conf)
			return pk_error(EINVAL, "%s: CPU %ld does not exist (CPUs 0-%ld)", opt, hi, conf - 1);
		for (long c = lo; c <= hi; c++) {
			for (int k = 0; k < cnt; k++)
				if (out[k] == c)
					return pk_error(EINVAL, "%s: CPU %ld given twice in '%s'", opt, c, arg);
			if (cnt == max)
				return pk_error(E2BIG, "%s: more than %d CPUs", opt, max);
			out[cnt++] = (int)c;
		}
		p = *end ? end + 1 : end;
	}
	if (!cnt)
		goto bad;
	for (int i = 1; i < cnt; i++)   /* ascending, as perf's CPU map */
		for (int k = i; k > 0 && out[k - 1] > out[k]; k--) {
			int t = out[k];

			out[k] = out[k - 1];
			out[k - 1] = t;
		}
	*n = cnt;
	return 0;
bad:
	return pk_error(EINVAL, "%s: expected a CPU list such as 0,2-3, got '%s'", opt, arg);
}
