/* SPDX-License-Identifier: GPL-2.0-or-later */
/* event.c — perf's event-name table; see event.h. */
#include "event/event.h"

#include "base/error.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "tracefs/tracefs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct ev_info table[] = {
	{ "cpu-cycles",              "cycles",                  PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions",            NULL,                      PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references",        NULL,                      PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses",            NULL,                      PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions",     "branches",                PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses",           NULL,                      PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles",              NULL,                      PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", "idle-cycles-frontend",    PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend",  "idle-cycles-backend",     PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles",              NULL,                      PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock",               NULL,                      PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",              NULL,                      PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults",             "faults",                  PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches",        "cs",                      PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations",          "migrations",              PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults",            NULL,                      PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults",            NULL,                      PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults",        NULL,                      PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults",        NULL,                      PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy",                   NULL,                      PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
};

#define NR_EVENTS (sizeof(table) / sizeof(table[0]))

const struct ev_info *ev_table(size_t *nr)
{
	*nr = NR_EVENTS;
	return table;
}

static const struct ev_info *lookup_n(const char *name, size_t len)
{
	for (size_t i = 0; i < NR_EVENTS; i++) {
		const struct ev_info *e = &table[i];
		if (strlen(e->name) == len && !strncasecmp(e->name, name, len))
			return e;
		if (e->alias && strlen(e->alias) == len && !strncasecmp(e->alias, name, len))
			return e;
	}
	return NULL;
}

const struct ev_info *ev_lookup(const char *name)
{
	return lookup_n(name, strlen(name));
}

const char *ev_name(uint32_t type, uint64_t config)
{
	if (type == PERF_TYPE_HW_CACHE)
		return ev_cache_name(config);
	for (size_t i = 0; i < NR_EVENTS; i++)
		if (table[i].type == type && table[i].config == config)
			return table[i].name;
	return NULL;
}

/*
 * Generic hardware cache events (PERF_TYPE_HW_CACHE).  perf's names and
 * aliases (tools/perf/util/evsel.c, evsel__hw_cache*), first the
 * canonical one; which ops each cache has (evsel__hw_cache_stat).  The
 * config is id | op << 8 | result << 16 (perf_event_open(2)).
 */
#define MAX_ALIASES 6
static const char *const cache_type[PERF_COUNT_HW_CACHE_MAX][MAX_ALIASES] = {
	[PERF_COUNT_HW_CACHE_L1D]  = { "L1-dcache", "l1-d", "l1d", "L1-data" },
	[PERF_COUNT_HW_CACHE_L1I]  = { "L1-icache", "l1-i", "l1i", "L1-instruction" },
	[PERF_COUNT_HW_CACHE_LL]   = { "LLC", "L2" },
	[PERF_COUNT_HW_CACHE_DTLB] = { "dTLB", "d-tlb", "Data-TLB" },
	[PERF_COUNT_HW_CACHE_ITLB] = { "iTLB", "i-tlb", "Instruction-TLB" },
	[PERF_COUNT_HW_CACHE_BPU]  = { "branch", "branches", "bpu", "btb", "bpc" },
	[PERF_COUNT_HW_CACHE_NODE] = { "node" },
};
static const char *const cache_op[PERF_COUNT_HW_CACHE_OP_MAX][MAX_ALIASES] = {
	[PERF_COUNT_HW_CACHE_OP_READ]     = { "load", "loads", "read" },
	[PERF_COUNT_HW_CACHE_OP_WRITE]    = { "store", "stores", "write" },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetch", "prefetches", "speculative-read",
					      "speculative-load" },
};
static const char *const cache_result[PERF_COUNT_HW_CACHE_RESULT_MAX][MAX_ALIASES] = {
	[PERF_COUNT_HW_CACHE_RESULT_ACCESS] = { "refs", "Reference", "ops", "access" },
	[PERF_COUNT_HW_CACHE_RESULT_MISS]   = { "misses", "miss" },
};
#define OPS_RW  (1u << PERF_COUNT_HW_CACHE_OP_READ | 1u << PERF_COUNT_HW_CACHE_OP_WRITE)
#define OPS_ALL (OPS_RW | 1u << PERF_COUNT_HW_CACHE_OP_PREFETCH)
static const unsigned cache_ops_valid[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D]  = OPS_ALL,
	[PERF_COUNT_HW_CACHE_L1I]  = 1u << PERF_COUNT_HW_CACHE_OP_READ | 1u << PERF_COUNT_HW_CACHE_OP_PREFETCH,
	[PERF_COUNT_HW_CACHE_LL]   = OPS_ALL,
	[PERF_COUNT_HW_CACHE_DTLB] = OPS_ALL,
	[PERF_COUNT_HW_CACHE_ITLB] = 1u << PERF_COUNT_HW_CACHE_OP_READ,
	[PERF_COUNT_HW_CACHE_BPU]  = 1u << PERF_COUNT_HW_CACHE_OP_READ,
	[PERF_COUNT_HW_CACHE_NODE] = OPS_ALL,
};

/* perf's canonical names (evsel__hw_cache_type_op_res_name): TYPE-OPs for
 * accesses, TYPE-OP-misses for misses. */
#define CACHE_NAMES(t) { \
	{ t "-loads", t "-load-misses" }, \
	{ t "-stores", t "-store-misses" }, \
	{ t "-prefetches", t "-prefetch-misses" } }
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX][PERF_COUNT_HW_CACHE_OP_MAX]
				    [PERF_COUNT_HW_CACHE_RESULT_MAX] = {
	CACHE_NAMES("L1-dcache"), CACHE_NAMES("L1-icache"), CACHE_NAMES("LLC"),
	CACHE_NAMES("dTLB"), CACHE_NAMES("iTLB"), CACHE_NAMES("branch"), CACHE_NAMES("node"),
};

/* The longest alias in names[nr][] that s[0..len) starts with and that is
 * followed by '-' or the end; its index, *used = its length; -1 if none. */
static int match_alias(const char *s, size_t len, const char *const (*names)[MAX_ALIASES],
		       int nr, size_t *used)
{
	int best = -1;
	size_t best_len = 0;

	for (int i = 0; i < nr; i++) {
		for (int j = 0; j < MAX_ALIASES && names[i][j]; j++) {
			size_t n = strlen(names[i][j]);
			if (n > len || n <= best_len || strncasecmp(s, names[i][j], n))
				continue;
			if (n < len && s[n] != '-')
				continue;
			best = i;
			best_len = n;
		}
	}
	*used = best_len;
	return best;
}

/* "L1-dcache-load-misses" → its config; 0 when the name is not of the
 * cache grammar TYPE[-OP|-RESULT][-OP|-RESULT], 1 when parsed, -EINVAL
 * (with a message) for an op the cache does not have. */
static int parse_cache(const char *name, size_t len, uint64_t *config)
{
	size_t used;
	int type = match_alias(name, len, cache_type, PERF_COUNT_HW_CACHE_MAX, &used);
	int op = -1, result = -1;

	if (type < 0)
		return 0;
	const char *p = name + used;
	size_t left = len - used;
	while (left) {
		p++;          /* the '-' */
		left--;
		int v;
		if (op < 0 && (v = match_alias(p, left, cache_op, PERF_COUNT_HW_CACHE_OP_MAX, &used)) >= 0)
			op = v;
		else if (result < 0 &&
			 (v = match_alias(p, left, cache_result, PERF_COUNT_HW_CACHE_RESULT_MAX, &used)) >= 0)
			result = v;
		else
			return 0;
		p += used;
		left -= used;
	}
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (result < 0)
		result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (!(cache_ops_valid[type] & (1u << op)))
		return pk_error(EINVAL, "event '%.*s': the %s cache has no %s events",
				(int)len, name, cache_type[type][0], cache_op[op][1]);
	*config = (uint64_t)type | (uint64_t)op << 8 | (uint64_t)result << 16;
	return 1;
}

const char *ev_cache_name(uint64_t config)
{
	uint64_t type = config & 0xff, op = config >> 8 & 0xff, result = config >> 16 & 0xff;

	if ((config >> 24) || type >= PERF_COUNT_HW_CACHE_MAX || op >= PERF_COUNT_HW_CACHE_OP_MAX ||
	    result >= PERF_COUNT_HW_CACHE_RESULT_MAX)
		return NULL;
	return cache_names[type][op][result];
}

bool ev_cache_valid(uint64_t config)
{
	return ev_cache_name(config) && (cache_ops_valid[config & 0xff] & (1u << (config >> 8 & 0xff)));
}

/* "r1a8" → raw event 0x1a8 (perf's rNNN syntax). */
static int parse_raw(const char *name, size_t len, uint64_t *config)
{
	if (len < 2 || len > 17 || (name[0] != 'r' && name[0] != 'R'))
		return 0;
	uint64_t v = 0;
	for (size_t i = 1; i < len; i++) {
		char c = name[i];
		int d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return 0;
		v = v << 4 | (uint64_t)d;
	}
	*config = v;
	return 1;
}

/* Does s hold only modifier letters (so "x:uk" is an event with modifiers,
 * not the tracepoint x:uk)? */
#define EV_MODIFIERS "ukhpGHIDeWS"

static bool only_modifiers(const char *s)
{
	return *s && strspn(s, EV_MODIFIERS) == strlen(s);
}

/* The sysfs root of the PMUs (PERFKIT_SYSFS_PMU overrides it for tests). */
static const char *pmu_root(void)
{
	const char *r = getenv("PERFKIT_SYSFS_PMU");

	return r && *r ? r : "/sys/bus/event_source/devices";
}

/* Set the bits of a format ("config:0-7,21", "config1:0-31") of attr to
 * val, the value's bits spread over the ranges low ones first. */
static int put_format(const char *fmt, uint64_t val, struct perf_event_attr *attr, const char *spec)
{
	const char *colon = strchr(fmt, ':');
	__u64 *word;

	if (!colon)
		return pk_error(EINVAL, "event '%s': bad PMU format '%s'", spec, fmt);
	if (!strncmp(fmt, "config:", 7))
		word = &attr->config;
	else if (!strncmp(fmt, "config1:", 8))
		word = &attr->config1;
	else if (!strncmp(fmt, "config2:", 8))
		word = &attr->config2;
	else
		return pk_error(EINVAL, "event '%s': PMU format '%s' not supported", spec, fmt);
	for (const char *p = colon + 1; *p;) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;

		if (end == p)
			return pk_error(EINVAL, "event '%s': bad PMU format '%s'", spec, fmt);
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (hi < lo || hi > 63)
			return pk_error(EINVAL, "event '%s': bad PMU format '%s'", spec, fmt);
		for (unsigned long b = lo; b <= hi; b++, val >>= 1)
			*word = (*word & ~(1ull << b)) | (val & 1) << b;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return pk_error(EINVAL, "event '%s': bad PMU format '%s'", spec, fmt);
	}
	return 0;
}

static bool alias_terms(const char *pmu, const char *key, char *buf, size_t len);

/* "PMU/TERM[=VALUE],.../" (perf's PMU syntax, Documentation/ABI/testing/
 * sysfs-bus-event_source-devices-format and -events): the type from
 * PMU/type; each term a format of PMU/format (VALUE, default 1, placed in
 * its bits), config/config1/config2 (set whole), or an event alias of
 * PMU/events whose file holds terms ("event=0x3c"); depth guards an alias
 * naming itself. */
static int parse_pmu_terms(const char *pmu, const char *terms, size_t tlen, struct perf_event_attr *attr,
			   const char *spec, int depth)
{
	char path[PATH_MAX], buf[256];
	const char *p = terms, *end = terms + tlen;

	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		size_t n = comma ? (size_t)(comma - p) : (size_t)(end - p);
		const char *eq = memchr(p, '=', n);
		size_t klen = eq ? (size_t)(eq - p) : n;
		char key[64];
		uint64_t val = 1;

		if (!klen || klen >= sizeof(key))
			return pk_error(EINVAL, "event '%s': bad term '%.*s'", spec, (int)n, p);
		memcpy(key, p, klen);
		key[klen] = 0;
		if (eq && !strcmp(key, "name")) {   /* the name shown (ev_pmu_name) */
			p += n + (comma ? 1 : 0);
			continue;
		}
		if (eq) {
			char vb[64], *ve;
			size_t vl = n - klen - 1;

			if (!vl || vl >= sizeof(vb))
				return pk_error(EINVAL, "event '%s': bad value in '%.*s'", spec, (int)n, p);
			memcpy(vb, eq + 1, vl);
			vb[vl] = 0;
			errno = 0;
			val = strtoull(vb, &ve, 0);
			if (*ve || errno)
				return pk_error(EINVAL, "event '%s': bad value in '%.*s'", spec, (int)n, p);
		}
		int rc = 0;
		if (!strcmp(key, "config"))
			attr->config = val;
		else if (!strcmp(key, "config1"))
			attr->config1 = val;
		else if (!strcmp(key, "config2"))
			attr->config2 = val;
		else if (!strcmp(key, "period"))
			attr->sample_period = val;
		else if (snprintf(path, sizeof(path), "%s/%s/format/%s", pmu_root(), pmu, key) < (int)sizeof(path) &&
			 !pk_read_line(path, buf, sizeof(buf)))
			rc = put_format(buf, val, attr, spec);
		else if (!eq && depth < 4 && alias_terms(pmu, key, buf, sizeof(buf)))
			rc = parse_pmu_terms(pmu, buf, strlen(buf), attr, spec, depth + 1);
		else
			rc = pk_error(EINVAL, "event '%s': unknown term '%s' for PMU '%s'", spec, key, pmu);
		if (rc)
			return rc;
		p += n + (comma ? 1 : 0);
	}
	return 0;
}

/* The terms of PMU's event alias key (PMU/events/KEY, matched without
 * regard to case as perf matches it) into buf; false when there is none. */
static bool alias_terms(const char *pmu, const char *key, char *buf, size_t len)
{
	char path[PATH_MAX], low[64];
	size_t i;

	if (snprintf(path, sizeof(path), "%s/%s/events/%s", pmu_root(), pmu, key) < (int)sizeof(path) &&
	    !pk_read_line(path, buf, len))
		return true;
	for (i = 0; key[i] && i + 1 < sizeof(low); i++)
		low[i] = (char)tolower((unsigned char)key[i]);
	low[i] = 0;
	return strcmp(low, key) && snprintf(path, sizeof(path), "%s/%s/events/%s", pmu_root(), pmu, low) < (int)sizeof(path) &&
	       !pk_read_line(path, buf, len);
}

size_t ev_pmu_name(const char *spec, const char **name)
{
	const char *slash = strchr(spec, '/'), *colon = strchr(spec, ':');

	if (!slash || (colon && colon < slash))
		return 0;
	for (const char *p = slash + 1; *p && *p != '/';) {
		size_t n = strcspn(p, ",/");

		if (n > 5 && !strncmp(p, "name=", 5)) {
			*name = p + 5;
			return n - 5;
		}
		p += n + (p[n] == ',');
	}
	return 0;
}

static int parse_pmu(const char *spec, const char *slash, struct perf_event_attr *attr, const char **mods)
{
	char pmu[64], path[PATH_MAX], buf[64];
	size_t plen = (size_t)(slash - spec);
	const char *close = strchr(slash + 1, '/');
	char *end;

	if (!close)
		return pk_error(EINVAL, "event '%s': expected '/' to close the PMU terms", spec);
	if (!plen || plen >= sizeof(pmu))
		return pk_error(EINVAL, "event '%s': expected a PMU name before '/'", spec);
	memcpy(pmu, spec, plen);
	pmu[plen] = 0;
	if (strchr(pmu, '.') || strchr(pmu, ':'))
		return pk_error(EINVAL, "event '%s': bad PMU name '%s'", spec, pmu);
	snprintf(path, sizeof(path), "%s/%s/type", pmu_root(), pmu);
	if (pk_read_line(path, buf, sizeof(buf)))
		return pk_error(ENOENT, "event '%s': no PMU '%s' on this machine (%s/%s)", spec, pmu, pmu_root(), pmu);
	unsigned long type = strtoul(buf, &end, 10);
	if (*end || type > UINT32_MAX)
		return pk_error(EINVAL, "event '%s': %s reads '%s', not a PMU type", spec, path, buf);
	attr->type = (uint32_t)type;
	/* modifiers after the terms, with or without ':' ("msr/tsc/u") */
	*mods = !close[1] ? NULL : close[1] == ':' ? close + 1 : close;
	return parse_pmu_terms(pmu, slash + 1, (size_t)(close - slash - 1), attr, spec, 0);
}

/* The modifiers after ':' (perf's parse-events.c letters): u, k, h (the
 * levels counted: those not named are excluded), p (precise_ip, at most
 * 3), G (guest only: exclude_host), H (host only: exclude_guest; GH
 * both), I (exclude_idle), D (pinned), e (exclusive), W (weak group) and
 * S (sample read: accepted; they change nothing here). */
static int apply_modifiers(const char *spec, const char *m, struct perf_event_attr *attr)
{
	int u = 0, k = 0, h = 0, p = 0, G = 0, H = 0;

	if (!*m)
		return pk_error(EINVAL, "event '%s': empty modifier after ':'", spec);
	for (; *m; m++) {
		switch (*m) {
		case 'u': u = 1; break;
		case 'k': k = 1; break;
		case 'h': h = 1; break;
		case 'p': p++; break;
		case 'G': G = 1; break;
		case 'H': H = 1; break;
		case 'I': attr->exclude_idle = 1; break;
		case 'D': attr->pinned = 1; break;
		case 'e': attr->exclusive = 1; break;
		case 'W': case 'S': break;
		default:
			return pk_error(EINVAL, "event '%s': unknown modifier '%c'", spec, *m);
		}
	}
	if (p > 3)
		return pk_error(EINVAL, "event '%s': at most 3 'p' modifiers", spec);
	if (u || k || h) {
		attr->exclude_user = !u;
		attr->exclude_kernel = !k;
		attr->exclude_hv = !h;
	}
	if (G || H) {
		attr->exclude_host = !H;
		attr->exclude_guest = !G;
	}
	if (p)
		attr->precise_ip = (unsigned)p;
	return 0;
}

int ev_apply_modifiers(const char *spec, const char *mods, struct perf_event_attr *attr)
{
	return apply_modifiers(spec, mods, attr);
}

/* "sched:sched_switch" → PERF_TYPE_TRACEPOINT, config = its tracefs id.
 * *mods receives the modifiers after a second ':' (or NULL). */
static int parse_tracepoint(const char *spec, size_t sublen, struct perf_event_attr *attr,
			    const char **mods)
{
	const char *name = spec + sublen + 1;
	size_t nlen = strcspn(name, ":");
	char sub[256], tp[256];

	if (sublen >= sizeof(sub) || nlen >= sizeof(tp) || nlen == 0)
		return pk_error(EINVAL, "bad tracepoint '%s' (expected SUBSYSTEM:NAME)", spec);
	memcpy(sub, spec, sublen);
	sub[sublen] = 0;
	memcpy(tp, name, nlen);
	tp[nlen] = 0;
	if (strpbrk(sub, "*?[") || strpbrk(tp, "*?["))
		return pk_error(EINVAL, "tracepoint '%s:%s': patterns are not supported; name one "
				"tracepoint (see 'perf list tracepoint')", sub, tp);
	uint64_t id;
	int err = tracefs_event_id(sub, tp, &id);
	if (err == -ENOENT) {
		char full[600], msg[1024];
		snprintf(full, sizeof(full), "%s:%s", sub, tp);
		snprintf(msg, sizeof(msg), "%s", pk_errmsg());
		const char *near = ev_suggest(full);
		if (near)
			return pk_error(ENOENT, "%s; did you mean '%s'?", msg, near);
	}
	if (err)
		return err;
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = id;
	*mods = name[nlen] == ':' ? name + nlen : NULL;
	return 0;
}

int ev_parse(const char *spec, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	/* perf's default without G or H (parse-events' exclude_GH default: a
	 * host's tools leave its guests out); a reader of the attr alone
	 * (perf's pipe mode) names the event "cpu-clock", not "cpu-clock:HG" */
	attr->exclude_guest = 1;
	if (!spec || !*spec)
		return pk_error(EINVAL, "empty event name");
	const char *colon = strchr(spec, ':');
	const char *slash = strchr(spec, '/');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	const struct ev_info *e = lookup_n(spec, len);
	uint64_t raw = 0;
	int rc;
	if (slash && (!colon || slash < colon)) {   /* PMU/terms/ */
		if ((rc = parse_pmu(spec, slash, attr, &colon)) != 0)
			return rc;
	} else if (e) {
		attr->type = e->type;
		attr->config = e->config;
	} else if ((rc = parse_cache(spec, len, &raw)) != 0) {
		if (rc < 0)
			return rc;
		attr->type = PERF_TYPE_HW_CACHE;
		attr->config = raw;
	} else if (parse_raw(spec, len, &raw)) {
		attr->type = PERF_TYPE_RAW;
		attr->config = raw;
	} else if (colon && colon[1] && !only_modifiers(colon + 1)) {
		if ((rc = parse_tracepoint(spec, len, attr, &colon)) != 0)
			return rc;
	} else {
		const char *near = ev_suggest(spec);
		if (near)
			return pk_error(EINVAL, "unknown event '%.*s'; did you mean '%s'?", (int)len, spec, near);
		return pk_error(EINVAL, "unknown event '%.*s'", (int)len, spec);
	}
	if (!colon)
		return 0;
	return apply_modifiers(spec, colon + 1, attr);
}

bool ev_needs_pmu(const struct perf_event_attr *attr)
{
	return attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_HW_CACHE ||
	       attr->type == PERF_TYPE_RAW;
}

int ev_pmu_error(const struct perf_event_attr *attr, const char *name, int err)
{
	if (err < 0)
		err = -err;
	if (!ev_needs_pmu(attr) || (err != ENOENT && err != EOPNOTSUPP && err != ENODEV))
		return 0;
	return pk_error(err, "event '%s' is not supported on this machine (no hardware PMU); use -e %s",
			name, EV_SOFTWARE_FALLBACK);
}

int ev_max_sample_rate(unsigned *hz)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	unsigned long v = 0;
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%lu", &v) == 1 && v > 0 && v <= UINT_MAX;
	fclose(f);
	if (!ok)
		return -EINVAL;
	*hz = (unsigned)v;
	return 0;
}

unsigned ev_max_stack(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
	unsigned long v = 0;

	if (!f)
		return 127;
	if (fscanf(f, "%lu", &v) != 1 || v == 0 || v > 1000000)
		v = 127;
	fclose(f);
	return (unsigned)v;
}

size_t ev_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *prev2 = xcalloc(lb + 1, sizeof(size_t)), *prev = xcalloc(lb + 1, sizeof(size_t));
	size_t *cur = xcalloc(lb + 1, sizeof(size_t));

	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			size_t d = prev[j - 1] + (ca != cb);
			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	size_t r = prev[lb];
	free(prev2);
	free(prev);
	free(cur);
	return r;
}

struct suggest {
	const char *want;     /* the name, without modifiers */
	size_t best_d;
	char best[512];
};

static void consider(struct suggest *sg, const char *cand)
{
	size_t d = ev_edit_distance(sg->want, cand);

	if (d < sg->best_d) {
		sg->best_d = d;
		snprintf(sg->best, sizeof(sg->best), "%s", cand);
	}
}

static int consider_tp(const char *system, const char *name, void *arg)
{
	char full[512];

	snprintf(full, sizeof(full), "%s:%s", system, name);
	consider(arg, full);
	return 0;
}

int ev_tracepoints_each(int (*fn)(const char *system, const char *name, void *arg), void *arg)
{
	const char *root = tracefs_dir();
	char path[4096];
	DIR *top;
	struct dirent *s;
	int ret = 0;

	if (!root)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events", root);
	if (!(top = opendir(path)))
		return -errno;
	while (!ret && (s = readdir(top))) {
		if (s->d_name[0] == '.' || s->d_type != DT_DIR)
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", root, s->d_name);
		DIR *sub = opendir(path);
		struct dirent *e;
		if (!sub)
			continue;
		while (!ret && (e = readdir(sub)))
			if (e->d_name[0] != '.' && e->d_type == DT_DIR)
				ret = fn(s->d_name, e->d_name, arg);
		closedir(sub);
	}
	closedir(top);
	return ret;
}

const char *ev_suggest(const char *name)
{
	static char result[512];
	struct suggest sg = { .best_d = (size_t)-1 };
	char want[512];
	const char *colon = strchr(name, ':');
	bool tracepoint = colon && colon[1] && !only_modifiers(colon + 1);

	/* the name without its modifiers (for a tracepoint: SYS:NAME) */
	size_t len = tracepoint ? (size_t)(colon - name) + 1 + strcspn(colon + 1, ":")
				: strcspn(name, ":");
	if (!len || len >= sizeof(want))
		return NULL;
	memcpy(want, name, len);
	want[len] = 0;
	sg.want = want;
	if (tracepoint) {
		ev_tracepoints_each(consider_tp, &sg);
	} else {
		for (size_t i = 0; i < NR_EVENTS; i++) {
			consider(&sg, table[i].name);
			if (table[i].alias)
				consider(&sg, table[i].alias);
		}
		for (int t = 0; t < PERF_COUNT_HW_CACHE_MAX; t++)
			for (int o = 0; o < PERF_COUNT_HW_CACHE_OP_MAX; o++)
				for (int r = 0; r < PERF_COUNT_HW_CACHE_RESULT_MAX; r++)
					if (cache_ops_valid[t] & (1u << o))
						consider(&sg, cache_names[t][o][r]);
	}
	size_t limit = len / 3 > 1 ? len / 3 : 1;
	if (limit > 3)
		limit = 3;
	if (sg.best_d == 0 || sg.best_d > limit)
		return NULL;
	snprintf(result, sizeof(result), "%s", sg.best);
	return result;
}

int ev_list_parse(const char *list, struct ev_list_item **items, size_t *n)
{
	const char *p = list;
	struct ev_list_item *v = NULL;
	size_t nr = 0, alloc = 0, group_at = 0;
	int groups = 0, err = 0;
	bool in_group = false, first = false;

	while (*p && !err) {
		/* blanks around a name, as perf's lexer takes them
		 * ("task-clock, page-faults") */
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '{') {
			if (in_group) {
				err = pk_error(EINVAL, "event list '%s': nested '{' at offset %zu", list,
					       (size_t)(p - list));
				break;
			}
			in_group = first = true;
			groups++;
			group_at = nr;
			p++;
			continue;
		}
		/* the name ends at ',', '{' or '}' outside a PMU's "/terms/" */
		size_t len = 0;

		for (bool terms = false; p[len] && (terms || !strchr(",{}", p[len])); len++)
			terms ^= p[len] == '/';
		size_t skip = len;

		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (!len) {
			err = pk_error(EINVAL, "event list '%s': empty event name at offset %zu", list,
				       (size_t)(p - list));
			break;
		}
		if (nr == alloc)
			v = xrealloc(v, (alloc = alloc ? 2 * alloc : 4) * sizeof(*v));
		v[nr++] = (struct ev_list_item){ .name = xstrndup(p, len), .group = in_group ? groups : 0,
						 .leader = in_group && first };
		first = false;
		p += skip;
		if (*p == '}') {
			if (!in_group) {
				err = pk_error(EINVAL, "event list '%s': '}' without '{' at offset %zu", list,
					       (size_t)(p - list));
				break;
			}
			in_group = false;
			p++;
			if (*p == ':') {   /* "{a,b}:u": the modifiers of every member */
				size_t ml = strcspn(p + 1, ",{"), mt = ml;

				while (mt && (p[mt] == ' ' || p[mt] == '\t'))
					mt--;
				for (size_t i = group_at; i < nr; i++)
					v[i].group_mods = xstrndup(p + 1, mt);
				p += 1 + ml;
			}
		}
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == ',' && !p[1]) {   /* perf: "event syntax error: 'a,'" */
			err = pk_error(EINVAL, "event list '%s': empty event name at offset %zu", list,
				       (size_t)(p + 1 - list));
			break;
		}
		if (*p == ',')
			p++;
		else if (*p)   /* perf: "a{b}" and "{a}{b}" are errors too */
			err = pk_error(EINVAL, "event list '%s': expected ',' at offset %zu", list,
				       (size_t)(p - list));
	}
	if (!err && in_group)
		err = pk_error(EINVAL, "event list '%s': '{' without '}'", list);
	if (!err && !nr)
		err = pk_error(EINVAL, "event list '%s': no event", list);
	if (err) {
		ev_list_free(v, nr);
		return err;
	}
	*items = v;
	*n = nr;
	return 0;
}

void ev_list_free(struct ev_list_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(items[i].name);
		free(items[i].group_mods);
	}
	free(items);
}
