/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfmap.c — fuzz the JIT perf map reader (symbol/perfmap.h): the input
 * is /tmp/perf-PID.map (written into a private directory), looked up at
 * the start, inside, and just past every address the input names, plus a
 * few fixed ones; a name found must be a C string and its offset must be
 * below the address.
 */
#include "fuzz.h"

#include "base/error.h"
#include "symbol/perfmap.h"

#include <stdbool.h>
#include <string.h>
#include <unistd.h>

static char dir[64], path[96];
static volatile size_t sink;

static void look(struct perfmap_cache *c, uint64_t addr)
{
	const char *mp = NULL;
	uint64_t off = 0;
	const char *name = perfmap_lookup(c, 4242, addr, false, NULL, &mp, &off);
	if (name) {
		sink += strlen(name);
		FUZZ_ASSERT(off <= addr, "offset %llu past address %llu", (unsigned long long)off,
			    (unsigned long long)addr);
	}
}

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/perfkit-fuzz-perfmap.XXXXXX");
		if (!mkdtemp(dir))
			abort();
		snprintf(path, sizeof(path), "%s/perf-4242.map", dir);
		atexit(cleanup);
	}
	FILE *f = fopen(path, "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	struct perfmap_cache *c = perfmap_cache_new(dir);
	look(c, 0);
	look(c, 0x1000);
	look(c, UINT64_MAX);
	/* every line's first hex number, and around it */
	const char *p = (const char *)data, *end = p + size;
	int n = 0;
	while (p < end && n < 64) {
		char num[20];
		size_t k = 0;
		if (p + 2 <= end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
			p += 2;
		while (p < end && k < sizeof(num) - 1 && strchr("0123456789abcdefABCDEF", *p) && *p)
			num[k++] = *p++;
		num[k] = 0;
		if (k) {
			uint64_t a = strtoull(num, NULL, 16);
			look(c, a);
			look(c, a + 1);
			look(c, a - 1);
			n++;
		}
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	perfmap_cache_free(c);
	pk_warnings_take();
	pk_error_clear();
	return 0;
}
