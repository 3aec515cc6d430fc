/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ldcache.c — fuzz the ld.so cache reader behind funclatency's library
 * names (bpfutil/uprobe.h: uprobe_find_library_in with the input as the
 * cache file and no directories).  A library found must be a path.
 */
#include "fuzz.h"
#include "memfile.h"

#include "base/error.h"
#include "bpfutil/uprobe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "c", "libc.so.6", "libz", "m" };
	static const char *const no_dirs[] = { NULL };
	const char *cache = fuzz_memfile(data, size);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = uprobe_find_library_in(names[i], cache, no_dirs);
		FUZZ_ASSERT(!p || p[0] == '/', "'%s' for %s", p, names[i]);
		free(p);
		pk_error_clear();
	}
	return 0;
}
