/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * options.c — fuzz the option parsing of `perfkit bench`, `stat`, `record`,
 * `report`, `annotate` and `flamegraph` (src/cmd/<command>.c and
 * base/parse): the input's first byte picks the command (its value modulo
 * 6: 0 bench, 1 stat, 2 record, 3 report, 4 annotate, 5 flamegraph, so the
 * older inputs that start with 0 or 1 keep their command), the rest is
 * split at NUL or newline bytes into at most 24 arguments.  With
 * pk_options_only set the commands return once their options are read and
 * checked, before running or writing anything.  The exit status must be 0
 * (accepted) or 2 (usage error) — or 1 for record, which refuses
 * --strict-freq above the kernel's maximum rate as perf does, and for
 * annotate, which picks its reader (perf.data or Cachegrind) by looking at
 * the input file before reading the options, and says so when it is
 * missing (runtime errors); a crash, a sanitizer report or a leak on any
 * error path is a finding.
 */
#include "fuzz.h"

#include <fcntl.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/parse.h"
#include "cmd/cmds.h"

#define MAX_ARGS 24

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int devnull = -1;
	char *argv[MAX_ARGS + 2];
	int argc = 0;

	pk_options_only = 1;
	if (devnull < 0)
		devnull = open("/dev/null", O_WRONLY);
	if (size < 1)
		return 0;
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} cmds[] = {
		{ "bench", cmd_bench }, { "stat", cmd_stat }, { "record", cmd_record },
		{ "report", cmd_report }, { "annotate", cmd_annotate }, { "flamegraph", cmd_flamegraph },
	};
	int which = data[0] % 6;
	char *buf = fuzz_strdup(data + 1, size - 1 > 4096 ? 4096 : size - 1);
	size_t len = size - 1 > 4096 ? 4096 : size - 1;

	argv[argc++] = (char *)cmds[which].name;
	for (size_t i = 0, start = 0; i <= len && argc <= MAX_ARGS; i++) {
		if (i == len || buf[i] == '\n' || buf[i] == '\0') {
			if (i < len)
				buf[i] = '\0';
			if (i > start || i < len)
				argv[argc++] = buf + start;
			start = i + 1;
		}
	}
	argv[argc] = NULL;
	/* glibc's getopt keeps a pointer into the previous argv: reset it */
	char *dummy[] = { "x", NULL };
	optind = 0;
	getopt(1, dummy, "");
	/* --help prints the usage on stdout: send it to /dev/null meanwhile */
	fflush(stdout);
	int saved = dup(1);
	dup2(devnull, 1);
	int rc = cmds[which].fn(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	FUZZ_ASSERT(rc == 0 || rc == 2 || (rc == 1 && (which == 2 || which == 4)), "%s exited %d",
		    argv[0], rc);
	free(buf);
	pk_error_clear();
	return 0;
}
