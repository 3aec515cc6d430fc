/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hostcache.h — the host's cache geometry from sysfs, for `perfkit cache
 * --model=modern`, and parsing of SIZE,ASSOC,LINE options.
 *
 * hostcache_read(root): reads ROOT/indexN/ (level, type, size,
 * ways_of_associativity, coherency_line_size) (root normally
 * /sys/devices/system/cpu/cpu0/cache).  L1 Instruction → I1, L1 Data → D1,
 * unified level 2 → L2, the highest unified level (>= 2) → LL.  A level
 * whose set count is not a power of two is made simulable the way
 * cachegrind does it: sets rounded down to a power of two, associativity
 * raised in proportion, size recomputed.  Missing levels stay size 0.
 * Returns 0, or -ENOENT (no readable index directory, no message).
 *
 * cache_geom_parse("32768,8,64"): 0, or -EINVAL with a pk_error() message
 * naming the option and why the geometry cannot be simulated.
 */
#ifndef PERFKIT_HOSTCACHE_H
#define PERFKIT_HOSTCACHE_H

#include <stdint.h>

struct cache_geom {
	uint64_t size, assoc, line;	/* bytes, ways, bytes; size 0 = absent */
};

struct host_caches {
	struct cache_geom I1, D1, L2, LL;
};

int hostcache_read(const char *root, struct host_caches *hc);
int cache_geom_parse(const char *opt, const char *val, struct cache_geom *g);
void cache_geom_fix(struct cache_geom *g);

#endif
