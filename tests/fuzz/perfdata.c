/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata.c — fuzz the perf.data reader (perfdata/perfdata.h): pd_open,
 * every record through pd_next, pd_parse_sample / pd_parse_sample_id, and
 * every field a sample points to (callchain, user regs, user stack) is read
 * so that ASan checks the bounds the reader promised; then the header's
 * text (perfdata/header.h, report --header-only) from the feature bodies.
 */
#include "fuzz.h"
#include "memfile.h"

#include "base/error.h"
#include "base/strbuf.h"
#include "perfdata/header.h"
#include "perfdata/perfdata.h"

#include <string.h>

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pd_file *f;
	if (pd_open(&f, fuzz_memfile(data, size)) == 0) {
		uint64_t pos = 0, n = 0;
		const struct perf_event_header *rec;
		while (pd_next(f, &pos, &rec) == 1) {
			/* perf's own records (type >= 64) may sit at unaligned offsets
			 * (after a COMPRESSED record): read the header with memcpy */
			struct perf_event_header h;
			memcpy(&h, rec, sizeof(h));
			FUZZ_ASSERT(h.size >= sizeof(h), "record of %u bytes", h.size);
			FUZZ_ASSERT(++n <= f->size / 8, "more records than the file holds");
			sink += pd_offset(f, rec);
			if (h.type == PERF_RECORD_SAMPLE) {
				struct pd_sample s;
				if (pd_parse_sample(f, rec, &s) == 0) {
					uint64_t acc = s.ip + s.period;
					for (uint64_t i = 0; i < s.nr_callchain; i++)
						acc += s.callchain[i];
					if (s.user_regs && s.evsel)
						for (uint64_t m = s.evsel->attr.sample_regs_user, i = 0; m;
						     m &= m - 1, i++)
							acc += s.user_regs[i];
					for (uint64_t i = 0; i < s.user_stack_size; i++)
						acc += s.user_stack[i];
					sink += acc;
				}
			} else if (h.type < PD_RECORD_HEADER_ATTR) {
				struct pd_sample_id id;
				if (pd_parse_sample_id(f, rec, &id) == 0)
					sink += id.time;
			}
		}
		for (size_t i = 0; i < f->nr_evsels; i++)
			sink += f->evsels[i].nr_ids + (f->evsels[i].name ? 1 : 0);
		struct strbuf hdr = STRBUF_INIT;
		pd_header_text(f, 0, &hdr);
		FUZZ_ASSERT(hdr.len && hdr.buf[hdr.len - 1] == '\n', "header text not ended by a newline");
		sink += hdr.len;
		sb_release(&hdr);
		pd_close(f);
	}
	pk_warnings_take();
	pk_error_clear();
	return 0;
}
