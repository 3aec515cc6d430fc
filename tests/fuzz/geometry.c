/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * geometry.c — fuzz the SIZE,ASSOC,LINE cache geometry options
 * (cachesim/hostcache.h: cache_geom_parse; cachesim.h: pk_cache_geom_fix).  An accepted
 * geometry must be simulable: non-zero, line a power of two, sets =
 * size / (assoc * line) a whole power of two.
 */
#include "fuzz.h"

#include "base/error.h"
#include "cachesim/cachesim.h"
#include "cachesim/hostcache.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *val = fuzz_strdup(data, size);
	struct cache_geom g = { 0 };
	if (cache_geom_parse("--D1", val, &g) == 0) {
		FUZZ_ASSERT(g.size && g.assoc && g.line, "zero in %s", val);
		FUZZ_ASSERT((g.line & (g.line - 1)) == 0, "line not a power of two in %s", val);
		FUZZ_ASSERT(g.size / g.assoc / g.line * g.assoc * g.line == g.size,
			    "size not a multiple of assoc*line in %s", val);
		uint64_t sets = g.size / g.assoc / g.line;
		FUZZ_ASSERT(sets && (sets & (sets - 1)) == 0, "sets %llu in %s",
			    (unsigned long long)sets, val);
	}
	/* fix is total for any geometry (hostcache_read gives it sysfs values):
	 * the first 24 bytes as three numbers */
	if (size >= 24) {
		struct cache_geom h;
		memcpy(&h, data, sizeof(h));
		pk_cache_geom_fix(&h.size, &h.assoc, h.line);
	}
	free(val);
	pk_error_clear();
	return 0;
}
