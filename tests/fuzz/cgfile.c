/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgfile.c — fuzz the Cachegrind output reader (cgfile/cgfile.h) and check
 * that what it returns is consistent (totals are the sum of the records).
 */
#include "fuzz.h"

#include "base/error.h"
#include "cgfile/cgfile.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgfile *cg;
	if (cgfile_parse((const char *)data, size, "fuzz", &cg) == 0) {
		FUZZ_ASSERT(cg->nev <= CGFILE_MAX_EVENTS, "%zu events", cg->nev);
		uint64_t sum[CGFILE_MAX_EVENTS] = { 0 };
		for (size_t r = 0; r < cg->nrecs; r++) {
			const uint64_t *c = cgfile_counts(cg, r);
			FUZZ_ASSERT(cg->recs[r].file && cg->recs[r].fn, "record %zu unnamed", r);
			for (size_t e = 0; e < cg->nev; e++)
				sum[e] += c[e];
		}
		for (size_t e = 0; e < cg->nev; e++) {
			FUZZ_ASSERT(cg->ev[e] && sum[e] == cg->totals[e], "event %zu total", e);
			FUZZ_ASSERT(cgfile_event(cg, cg->ev[e]) >= 0, "event %s not found", cg->ev[e]);
		}
		cgfile_free(cg);
	}
	pk_warnings_take();
	pk_error_clear();
	return 0;
}
