/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmds.h — entry points of perfkit's commands (one per src/cmd/<name>.c).
 * Each takes argv with argv[0] = the command name and returns the exit
 * status: 0 ok, 1 runtime error, 2 usage error (record: the command's own). */
#ifndef PERFKIT_CMD_CMDS_H
#define PERFKIT_CMD_CMDS_H

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_collapse(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);
int cmd_diff_folded(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_cache(int argc, char **argv);
int cmd_c2c(int argc, char **argv);
int cmd_mem(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_evlist(int argc, char **argv);
int cmd_execsnoop(int argc, char **argv);
int cmd_opensnoop(int argc, char **argv);
int cmd_biolatency(int argc, char **argv);
int cmd_funclatency(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_tcplife(int argc, char **argv);
int cmd_tcpconnect(int argc, char **argv);
int cmd_tcpaccept(int argc, char **argv);
int cmd_offcputime(int argc, char **argv);
int cmd_runqlat(int argc, char **argv);
int cmd_biosnoop(int argc, char **argv);

#endif
