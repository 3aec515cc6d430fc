/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/session-walk.c — what report, script and collapse pay before their
 * own work: session_process() over a perf.data file (ordering, sample
 * decoding, thread, map and symbol lookups for every frame) with a callback
 * that only folds each frame's fields into a checksum.  Two builds print the
 * same line for the same file when they resolve every frame alike.
 * Built and run by bench/session-walk.sh.
 */
#include "session/session.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint64_t nr_frames, sum;

static int on_sample(const struct pk_sample *s, void *arg)
{
	(void)arg;
	for (size_t i = 0; i < s->nr_frames; i++) {
		const struct pk_frame *f = &s->frames[i];

		sum = sum * 31 + f->sym_off + f->addr * 7 + f->map_ip * 13 + f->kernel +
		      (f->sym ? strlen(f->sym) + (uint8_t)f->sym[0] : 1) + strlen(f->dso) * 3;
	}
	nr_frames += s->nr_frames;
	return 0;
}

int main(int argc, char **argv)
{
	struct session *s;
	struct session_opts so = { 0 };
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: session-walk FILE\n");
		return 2;
	}
	if (session_open(&s, argv[1], &so)) {
		fprintf(stderr, "session-walk: cannot open %s\n", argv[1]);
		return 1;
	}
	err = session_process(s, on_sample, NULL);
	printf("%llu samples, %llu frames, checksum %016llx\n",
	       (unsigned long long)session_stats(s)->nr_samples, (unsigned long long)nr_frames,
	       (unsigned long long)sum);
	session_close(s);
	return err < 0;
}
