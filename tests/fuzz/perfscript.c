/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfscript.c — fuzz the `perf script` text parser (format/perfscript.h)
 * that collapse and flamegraph use: parse, then sort and write the folded
 * stacks.  The first byte picks collapse options.
 */
#include "fuzz.h"

#include "base/error.h"
#include "format/perfscript.h"

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct collapse_opts o = { 0 };
	struct folded f;
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	if (size) {
		o.pid = data[0] & 1;
		o.tid = data[0] & 2;
		o.kernel = data[0] & 4;
		o.jit = data[0] & 8;
		o.addrs = data[0] & 16;
		o.count = data[0] & 32;
		o.srcline = data[0] & 64;
	}
	folded_init(&f);
	struct ps_collapser *c = psc_new(&o, &f);
	psc_parse_mem(c, (const char *)data, size, "fuzz");
	psc_finish(c);
	psc_free(c);
	folded_write(&f, devnull);
	folded_release(&f);
	pk_warnings_take();
	pk_error_clear();
	return 0;
}
