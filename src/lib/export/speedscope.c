/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * speedscope.c — export_write_speedscope(): the model as speedscope's file
 * format (https://www.speedscope.app/file-format-schema.json): shared frames
 * {name, file}, one "sampled" profile per event whose samples are stacks of
 * frame indexes ROOT first with a weight each (the stack's summed period, in
 * the event's unit).  Names are escaped with sb_add_json.
 */
#include "export/model.h"

#include "base/error.h"
#include "base/outfile.h"
#include "base/strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

int export_write_speedscope(const struct pk_export *x, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	struct outfile of;
	int err;

	sb_init(&sb, 4096 + x->nr_ids * 8);
	sb_addstr(&sb, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
		       "\"exporter\":\"perfkit " PERFKIT_VERSION "\",\"name\":\"perfkit profile\",\n"
		       "\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[");
	for (size_t i = 0; i < x->nr_frames; i++) {
		const struct ex_frame *f = &x->frames[i];

		sb_addstr(&sb, i ? ",\n{\"name\":\"" : "\n{\"name\":\"");
		sb_add_json(&sb, f->name, strlen(f->name));
		sb_addstr(&sb, "\",\"file\":\"");
		sb_add_json(&sb, f->dso, strlen(f->dso));
		sb_addstr(&sb, "\"}");
	}
	sb_addstr(&sb, "]},\n\"profiles\":[");
	for (uint32_t ev = 0; ev < x->nr_events; ev++) {
		const struct ex_event *e = &x->events[ev];
		bool first = true;

		sb_addstr(&sb, ev ? ",\n{\"type\":\"sampled\",\"name\":\"" : "\n{\"type\":\"sampled\",\"name\":\"");
		sb_add_json(&sb, e->name, strlen(e->name));
		sb_addf(&sb, "\",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\n\"samples\":[",
			strcmp(e->unit, "count") ? e->unit : "none", e->period);
		for (size_t i = 0; i < x->nr_stacks; i++) {
			const struct ex_stack *s = &x->stacks[i];

			if (s->event != ev)
				continue;
			sb_addstr(&sb, first ? "[" : ",[");
			first = false;
			for (uint32_t k = s->nr; k-- > 0;)
				sb_addf(&sb, k == s->nr - 1 ? "%" PRIu32 : ",%" PRIu32, x->ids[s->first + k]);
			sb_addch(&sb, ']');
		}
		sb_addstr(&sb, "],\n\"weights\":[");
		first = true;
		for (size_t i = 0; i < x->nr_stacks; i++) {
			if (x->stacks[i].event != ev)
				continue;
			sb_addf(&sb, first ? "%" PRIu64 : ",%" PRIu64, x->stacks[i].period);
			first = false;
		}
		sb_addstr(&sb, "]}");
	}
	sb_addstr(&sb, "]}\n");
	err = of_open_shared(&of, path);
	if (!err) {
		if (fwrite(sb.buf, 1, sb.len, of.f) != sb.len) {
			of_abort(&of);
			err = pk_error(EIO, "%s: write error", path);
		} else {
			err = of_commit(&of);
		}
	}
	sb_release(&sb);
	return err;
}
