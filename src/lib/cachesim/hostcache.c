/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hostcache.c — host cache geometry from sysfs (contract in hostcache.h). */
#include "cachesim/hostcache.h"
#include "cachesim/cachesim.h"

#include "base/error.h"
#include "base/path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_line(const char *dir, const char *name, char *buf, size_t len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return pk_read_line(path, buf, len) ? -1 : 0;
}

static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (*end == 'K')
		v *= 1024;
	else if (*end == 'M')
		v *= 1024 * 1024;
	else if (*end == 'G')
		v *= 1024ULL * 1024 * 1024;
	return v;
}

int hostcache_read(const char *root, struct host_caches *hc)
{
	int found = 0, top = 0;

	memset(hc, 0, sizeof(*hc));
	for (int i = 0; i < 16; i++) {
		char dir[400], buf[64], type[32];
		struct cache_geom g;
		int level;

		snprintf(dir, sizeof(dir), "%s/index%d", root, i);
		if (read_line(dir, "level", buf, sizeof(buf)))
			continue;
		level = atoi(buf);
		if (read_line(dir, "type", type, sizeof(type)) ||
		    read_line(dir, "size", buf, sizeof(buf)))
			continue;
		g.size = parse_size(buf);
		if (read_line(dir, "ways_of_associativity", buf, sizeof(buf)))
			continue;
		g.assoc = strtoull(buf, NULL, 10);
		if (read_line(dir, "coherency_line_size", buf, sizeof(buf)))
			continue;
		g.line = strtoull(buf, NULL, 10);
		if (g.assoc == 0 && g.line)	/* fully associative */
			g.assoc = g.size / g.line;
		pk_cache_geom_fix(&g.size, &g.assoc, g.line);
		found = 1;
		if (level == 1 && !strcmp(type, "Instruction"))
			hc->I1 = g;
		else if (level == 1 && !strcmp(type, "Data"))
			hc->D1 = g;
		else if (!strcmp(type, "Unified") && level >= 2) {
			if (level == 2)
				hc->L2 = g;
			if (level >= top) {
				top = level;
				hc->LL = g;
			}
		}
	}
	return found ? 0 : -ENOENT;
}

const char *hostcache_sysfs_cpu(void)
{
	return pk_sysfs_cpu();
}

int hostcache_read_host(struct host_caches *hc)
{
	const char *root = hostcache_sysfs_cpu();
	const char *env = getenv("PERFKIT_SYSFS_CPU");
	char dir[400];
	int rc;

	if (snprintf(dir, sizeof(dir), "%s/cpu0/cache", root) >= (int)sizeof(dir))
		rc = -ENOENT;
	else
		rc = hostcache_read(dir, hc);
	if (rc < 0 && env && *env)
		return pk_error(EINVAL, "PERFKIT_SYSFS_CPU='%s': no cache description in '%s/cpu0/cache/index*/' "
				"(level, type, size, ways_of_associativity, coherency_line_size)", env, root);
	return rc;
}

int cache_geom_parse(const char *opt, const char *val, struct cache_geom *g)
{
	unsigned long long v[3];
	const char *p = val;
	const char *why;

	for (int i = 0; i < 3; i++) {
		char *end;

		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		v[i] = strtoull(p, &end, 10);
		if (errno || end == p || (i < 2 && *end != ',') || (i == 2 && *end))
			goto bad;
		p = end + 1;
	}
	why = pk_cache_check(v[0], v[1], v[2]);
	if (v[0] > (1ULL << 34))
		why = "size is larger than 16 GiB";
	if (why)
		return pk_error(EINVAL, "%s=%s: %s", opt, val, why);
	g->size = v[0];
	g->assoc = v[1];
	g->line = v[2];
	return 0;
bad:
	return pk_error(EINVAL, "%s=%s: expected SIZE,ASSOC,LINE (three numbers, e.g. 32768,8,64)",
			opt, val);
}
