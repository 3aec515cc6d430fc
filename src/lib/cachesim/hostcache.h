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
 * hostcache_sysfs_cpu(): the folder read for the host's description, laid
 * out like /sys/devices/system/cpu: $PERFKIT_SYSFS_CPU when that variable is
 * set and non-empty, else "/sys/devices/system/cpu".  PERFKIT_SYSFS_CPU lets
 * tests (and users) describe another CPU: DIR/cpu0/cache/indexN/ holding the
 * files level ("1"), type ("Data", "Instruction", "Unified"), size ("48K",
 * "2048K", "105M"), ways_of_associativity ("12"; 0 = fully associative) and
 * coherency_line_size ("64"), as the kernel writes them
 * (Documentation/ABI/testing/sysfs-devices-system-cpu, "cache/index*").
 * tests/data/sysfs-cpu/ holds such trees for real CPUs.
 *
 * hostcache_read_host(hc): hostcache_read(hostcache_sysfs_cpu() + "/cpu0/cache").
 * Returns 0; -ENOENT (no message) when the host's sysfs has no description;
 * -EINVAL with a pk_error() message naming the folder when
 * PERFKIT_SYSFS_CPU is set but describes no cache (a typo must not silently
 * fall back to the real host or to defaults).
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
const char *hostcache_sysfs_cpu(void);
int hostcache_read_host(struct host_caches *hc);
int cache_geom_parse(const char *opt, const char *val, struct cache_geom *g);

#endif
