/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter.c — perf's sample filters (--comms, --pid, --tid, -C, --time);
 * see filter.h.
 */
#include "session/filter.h"
#include "base/error.h"
#include "symbol/perfmap.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The next comma-separated item of *p: its length; *p moves past it. */
static size_t next_item(const char **p, const char **item)
{
	size_t len = strcspn(*p, ",");

	*item = *p;
	*p += len + ((*p)[len] == ',');
	return len;
}

void sfilt_names_set(struct sfilt_names *l, const char *arg)
{
	*l = (struct sfilt_names){ .arg = arg };
	for (const char *p = arg, *it; *p;) {
		size_t len = next_item(&p, &it);

		if (len && !l->n++) {
			l->first = it;
			l->first_len = len;
		}
	}
}

bool sfilt_names_has(const struct sfilt_names *l, const char *name)
{
	size_t nl = strlen(name);

	for (const char *p = l->arg ? l->arg : "", *it; *p;) {   /* an empty list: nothing */
		size_t len = next_item(&p, &it);

		if (len == nl && !memcmp(it, name, nl))
			return true;
	}
	return false;
}

bool sfilt_dso_listed(const struct sample_filter *f, const char *dso)
{
	const char *slash = dso && dso[0] == '/' ? strrchr(dso, '/') : NULL;
	char jit[32];

	if (dso && (sfilt_names_has(&f->dsos, dso) || (slash && sfilt_names_has(&f->dsos, slash + 1))))
		return true;
	/* a JIT map also by the name perf shows it by */
	return perfmap_jit_name(dso, jit, sizeof(jit)) && sfilt_names_has(&f->dsos, jit);
}

bool sfilt_sym_listed(const struct sample_filter *f, const char *sym, uint64_t start)
{
	char hex[24];

	if (!sym)
		return false;
	if (sfilt_names_has(&f->syms, sym))
		return true;
	snprintf(hex, sizeof(hex), "0x%" PRIx64, start);
	return sfilt_names_has(&f->syms, hex);
}

bool sfilt_keep_leaf(const struct sample_filter *f, const struct pk_sample *s, bool dsos, bool syms)
{
	const struct pk_frame *leaf = s->nr_frames ? &s->frames[0] : NULL;

	if (dsos && f->dsos.arg && !(leaf && sfilt_dso_listed(f, leaf->dso)))
		return false;
	if (syms && f->syms.arg && !(leaf && leaf->sym && sfilt_sym_listed(f, leaf->sym, leaf->ip - leaf->sym_off)))
		return false;
	return true;
}

/* A decimal number of at most 10 digits from s[0..len) into *v. */
static bool parse_u(const char *s, size_t len, uint64_t max, uint64_t *v)
{
	if (!len || len > 10)
		return false;
	*v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*v = *v * 10 + (uint64_t)(s[i] - '0');
	}
	return *v <= max;
}

int sfilt_ids(struct sample_filter *f, bool tid, const char *opt, const char *arg)
{
	uint32_t *ids = tid ? f->tid : f->pid;
	size_t *nr = tid ? &f->nr_tids : &f->nr_pids;

	*nr = 0;
	for (const char *p = arg, *it; *p;) {
		size_t len = next_item(&p, &it);
		uint64_t v;

		if (!len)
			continue;
		if (!parse_u(it, len, INT32_MAX, &v))
			return pk_error(-EINVAL, "%s '%s': expected a comma-separated list of ids", opt, arg);
		if (*nr == SFILT_MAX)
			return pk_error(-EINVAL, "%s: at most %d ids", opt, SFILT_MAX);
		ids[(*nr)++] = (uint32_t)v;
	}
	if (!*nr)   /* perf: "problems parsing pid list" */
		return pk_error(-EINVAL, "%s '%s': expected a comma-separated list of ids", opt, arg);
	return 0;
}

int sfilt_cpus(struct sample_filter *f, const char *opt, const char *arg)
{
	memset(f->cpu_set, 0, sizeof(f->cpu_set));
	f->cpus = false;
	/* perf's cpu lists: any order, no CPU twice ("0,0", "1,0-1" refused) */
	for (const char *p = arg, *it; *p;) {
		size_t len = next_item(&p, &it), dash;
		uint64_t lo, hi;

		if (!len)
			continue;
		dash = strcspn(it, "-");
		if (dash < len) {
			if (!parse_u(it, dash, SFILT_CPUS - 1, &lo) ||
			    !parse_u(it + dash + 1, len - dash - 1, SFILT_CPUS - 1, &hi) || hi < lo)
				goto bad;
		} else if (parse_u(it, len, SFILT_CPUS - 1, &lo)) {
			hi = lo;
		} else {
			goto bad;
		}
		for (uint64_t c = lo; c <= hi; c++) {
			if (f->cpu_set[c / 64] >> (c % 64) & 1)
				goto bad;
			f->cpu_set[c / 64] |= 1ull << (c % 64);
		}
		f->cpus = true;
	}
	if (!f->cpus)
		goto bad;
	return 0;
bad:
	return pk_error(-EINVAL, "%s '%s': expected a list of CPUs below %d, each once (0,2-3)", opt, arg, SFILT_CPUS);
}

/* "SEC[.FRACTION]" (up to 9 decimals) in s[0..len) into *ns. */
static bool parse_sec(const char *s, size_t len, uint64_t *ns)
{
	size_t dot = strcspn(s, ".");
	uint64_t sec, frac = 0;

	if (dot > len)
		dot = len;
	/* whole seconds of any size (saturating): perf takes a u64 */
	if (!dot || dot > 40)
		return false;
	sec = 0;
	for (size_t i = 0; i < dot; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		sec = sec > (UINT64_MAX - 9) / 10 ? UINT64_MAX : sec * 10 + (uint64_t)(s[i] - '0');
	}
	if (dot < len) {
		size_t nd = len - dot - 1;

		if (nd > 9 || (nd && !parse_u(s + dot + 1, nd, 999999999, &frac)))
			return false;
		for (size_t i = nd; i < 9; i++)
			frac *= 10;
	}
	/* past 2^64 ns (584 years): the end of time, as perf's u64 */
	*ns = sec > (UINT64_MAX - frac) / 1000000000ull ? UINT64_MAX : sec * 1000000000ull + frac;
	return true;
}

int sfilt_time(struct sample_filter *f, const char *opt, const char *arg)
{
	f->nr_times = 0;
	for (const char *p = arg; *p;) {
		size_t len, comma;
		uint64_t start = 0, end = 0;

		p += strspn(p, " \t");
		len = strcspn(p, " \t");
		if (!len)
			break;
		if (memchr(p, '%', len))
			return pk_error(-EINVAL, "%s '%s': perf's percent forms are not supported: "
					"give START,STOP in seconds", opt, arg);
		comma = strcspn(p, ",");
		if (comma >= len ||
		    (comma && !parse_sec(p, comma, &start)) ||
		    (comma + 1 < len && !parse_sec(p + comma + 1, len - comma - 1, &end)) ||
		    (end && end < start))
			return pk_error(-EINVAL, "%s '%s': expected START,STOP in seconds (either may be "
					"left out; STOP not before START), ranges separated by blanks", opt, arg);
		if (f->nr_times == SFILT_TIMES)
			return pk_error(-EINVAL, "%s: at most %d ranges", opt, SFILT_TIMES);
		/* perf: ranges in order, apart ("Invalid time string") */
		if (f->nr_times && (!f->time[f->nr_times - 1].end || start <= f->time[f->nr_times - 1].end))
			return pk_error(-EINVAL, "%s '%s': the ranges must come in order, each after the one "
					"before it", opt, arg);
		f->time[f->nr_times].start = start;
		f->time[f->nr_times].end = end;
		f->nr_times++;
		p += len;
	}
	if (!f->nr_times)
		return pk_error(-EINVAL, "%s '%s': expected START,STOP in seconds", opt, arg);
	return 0;
}

int sfilt_check(const struct sample_filter *f, const struct pd_file *file, const char *path)
{
	uint64_t any = 0;

	if (!file->nr_evsels)   /* perf's pipe mode: the events come later */
		return 0;
	for (size_t i = 0; i < file->nr_evsels; i++)
		any |= file->evsels[i].attr.sample_type;
	/* perf's perf_session__cpu_bitmap: the first event of each type
	 * must have its CPU (a task-clock beside tracepoints, which always
	 * do, has none unless recorded with -a) */
	for (size_t i = 0; f->cpus && i < file->nr_evsels; i++) {
		const struct perf_event_attr *a = &file->evsels[i].attr;
		bool first = true;

		for (size_t j = 0; j < i && first; j++)
			first = file->evsels[j].attr.type != a->type;
		if (first && !(a->sample_type & PERF_SAMPLE_CPU))
			return pk_error(-EINVAL, "%s: the samples%s%s have no CPU (recorded without "
					"PERF_SAMPLE_CPU, perf record -a or --sample-cpu records it): -C cannot choose",
					path, (any & PERF_SAMPLE_CPU) ? " of " : "",
					(any & PERF_SAMPLE_CPU) ? file->evsels[i].name : "");
	}
	for (uint32_t c = file->nr_cpus_avail; f->cpus && c && c < SFILT_CPUS; c++)
		if (f->cpu_set[c / 64] >> (c % 64) & 1)   /* perf: "Requested CPU N too large" */
			return pk_error(-EINVAL, "%s: -C: CPU %u is not in the recording (%u CPUs: 0-%u)", path, c,
					file->nr_cpus_avail, file->nr_cpus_avail - 1);
	if (f->nr_times && !(any & PERF_SAMPLE_TIME))
		return pk_error(-EINVAL, "%s: the samples have no time (recorded without PERF_SAMPLE_TIME): "
				"--time cannot choose", path);
	return 0;
}

bool sfilt_active(const struct sample_filter *f)
{
	return f->comms.arg || f->nr_pids || f->nr_tids || f->cpus || f->nr_times || f->dsos.arg || f->syms.arg;
}

static bool in_ids(const uint32_t *ids, size_t nr, uint32_t v)
{
	for (size_t i = 0; i < nr; i++)
		if (ids[i] == v)
			return true;
	return false;
}

bool sfilt_keep_cpu(const struct sample_filter *f, uint32_t cpu)
{
	return !f->cpus || (cpu < SFILT_CPUS && (f->cpu_set[cpu / 64] >> (cpu % 64) & 1));
}

bool sfilt_keep_when(const struct sample_filter *f, const struct pk_sample *s)
{
	if (!sfilt_keep_cpu(f, s->cpu))
		return false;
	if (f->nr_times) {
		for (size_t i = 0; i < f->nr_times; i++)
			if (s->time >= f->time[i].start && (!f->time[i].end || s->time <= f->time[i].end))
				return true;
		return false;
	}
	return true;
}

bool sfilt_keep_thread(struct sample_filter *f, const struct pk_sample *s)
{
	if (f->nr_pids && !in_ids(f->pid, f->nr_pids, s->pid))
		return false;
	if (f->nr_tids && !in_ids(f->tid, f->nr_tids, s->tid))
		return false;
	if (f->comms.arg) {
		if (s->comm != f->last_comm || !f->last_comm) {   /* comms are interned */
			f->last_comm = s->comm;
			f->last_comm_kept = s->comm && sfilt_names_has(&f->comms, s->comm);
		}
		if (!f->last_comm_kept)
			return false;
	}
	return true;
}

bool sfilt_thread_listed(const struct sample_filter *f, const char *comm, uint32_t pid, uint32_t tid)
{
	return (!f->nr_pids || in_ids(f->pid, f->nr_pids, pid)) && (!f->nr_tids || in_ids(f->tid, f->nr_tids, tid)) &&
	       (!f->comms.arg || (comm && sfilt_names_has(&f->comms, comm)));
}

bool sfilt_keep(struct sample_filter *f, const struct pk_sample *s)
{
	return sfilt_keep_thread(f, s) && sfilt_keep_when(f, s) && sfilt_keep_leaf(f, s, true, true);
}
