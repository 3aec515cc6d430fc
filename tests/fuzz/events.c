/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * events.c — fuzz perf's event names as -e takes them (event/event.h:
 * ev_parse): software and hardware names, the cache × op × result grammar,
 * SUBSYS:NAME tracepoints (looked up in tracefs, never created) and
 * modifiers.  An accepted event must have a name ev_name() can give back
 * for hardware, software and cache events.
 */
#include "fuzz.h"

#include "base/error.h"
#include "event/event.h"

#include <linux/perf_event.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *spec = fuzz_strdup(data, size > 4096 ? 4096 : size);
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	if (ev_parse(spec, &a) == 0) {
		FUZZ_ASSERT(a.size == 0 || a.size >= PERF_ATTR_SIZE_VER0, "attr size %u for %s", a.size, spec);
		FUZZ_ASSERT(a.type <= PERF_TYPE_BREAKPOINT || a.type >= 6, "type %u for %s", a.type, spec);
	}
	free(spec);
	pk_error_clear();
	return 0;
}
