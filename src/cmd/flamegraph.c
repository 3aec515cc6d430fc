/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PLACEHOLDER: replaced by the real command. */
#include "cmd/cmds.h"
#include <stdio.h>

int cmd_flamegraph(int argc, char **argv)
{
	(void)argc;
	fprintf(stderr, "perfkit %s: not built yet\n", argv[0]);
	return 1;
}
