/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit — the command table.  Each command lives in src/cmd/<name>.c and
 * follows one life: parse options → set up → run → tear down; it returns the
 * process exit status (0 ok, 1 runtime error, 2 usage error, or the profiled
 * command's own status for record/stat).
 */
#include "base/outfile.h"
#include "cmd/cmds.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef PERFKIT_NO_BPF   /* set by mk/bpf.mk when BTF, bpftool, libbpf or clang is missing */
/* The eBPF tools of a build without eBPF: each says why it is missing. */
static int cmd_no_bpf(int argc, char **argv)
{
	(void)argc;
	fprintf(stderr, "%s: built without eBPF support: %s\n", argv[0], PERFKIT_NO_BPF);
	return 1;
}
#define BPF_CMD(fn) cmd_no_bpf
#else
#define BPF_CMD(fn) fn
#endif

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
	enum { THP_NO, THP_ALWAYS, THP_INPUT } heap_thp;   /* heap_thp(): reads
					 * profiles and runs no program (INPUT:
					 * when perfdata_input() says so, on the
					 * first start only) */
} commands[] = {
	{ "record",      cmd_record,      "run a command and record its samples into perf.data", THP_NO },
	{ "report",      cmd_report,      "read perf.data and show where the time went", THP_ALWAYS },
	{ "script",      cmd_script,      "print perf.data samples as perf script text", THP_ALWAYS },
	{ "collapse",    cmd_collapse,    "perf.data or perf script text to folded stacks", THP_INPUT },
	{ "flamegraph",  cmd_flamegraph,  "folded stacks (or perf.data) to an SVG flame graph", THP_NO },
	{ "diff-folded", cmd_diff_folded, "two folded profiles to a two-column differential profile", THP_NO },
	{ "diff",        cmd_diff,        "compare two perf.data files by symbol (baseline %, delta %)", THP_ALWAYS },
	{ "top",         cmd_top,         "live sampling: the hottest functions, refreshed", THP_NO },
	{ "list",        cmd_list,        "the events -e takes: software, hardware, cache, tracepoints", THP_NO },
	{ "evlist",      cmd_evlist,      "the events a perf.data holds (-F frequency, -v attributes)", THP_NO },
	{ "stat",        cmd_stat,        "run a command and count events (cycles, IPC, misses) with a reading", THP_NO },
	{ "bench",       cmd_bench,       "benchmark commands against each other, with statistics and a verdict", THP_NO },
	{ "cache",       cmd_cache,       "simulate caches, TLB and branches under Valgrind (cachegrind format)", THP_NO },
	{ "c2c",         cmd_c2c,         "which cache lines threads pass between cores (false/true sharing), simulated", THP_NO },
	{ "mem",         cmd_mem,         "loads and stores by data object and the cache level that served them, simulated", THP_NO },
	{ "calibrate",   cmd_calibrate,   "measure the CPI model's penalties here; rank correlation of the simulators", THP_NO },
	{ "annotate",    cmd_annotate,    "per-instruction and per-line costs of a profile or a cache simulation", THP_ALWAYS },
	{ "execsnoop",   BPF_CMD(cmd_execsnoop),   "eBPF: trace every exec with its arguments", THP_NO },
	{ "opensnoop",   BPF_CMD(cmd_opensnoop),   "eBPF: trace open/openat/openat2 with their results", THP_NO },
	{ "biolatency",  BPF_CMD(cmd_biolatency),  "eBPF: block I/O latency histogram", THP_NO },
	{ "funclatency", BPF_CMD(cmd_funclatency), "eBPF: latency histogram of a user function (uprobes)", THP_NO },
	{ "profile",     BPF_CMD(cmd_profile),     "eBPF: stack sampling, folded output for flame graphs", THP_NO },
	{ "tcplife",     BPF_CMD(cmd_tcplife),     "eBPF: TCP sessions with bytes and duration", THP_NO },
	{ "runqlat",     BPF_CMD(cmd_runqlat),     "eBPF: run queue (scheduler) latency histogram", THP_NO },
	{ "biosnoop",    BPF_CMD(cmd_biosnoop),    "eBPF: one line per block I/O with its latency", THP_NO },
	{ "offcputime",  BPF_CMD(cmd_offcputime),  "eBPF: off-CPU (blocked) time by stack, folded for flame graphs", THP_NO },
	{ "tcpconnect",  BPF_CMD(cmd_tcpconnect),  "eBPF: active TCP opens (connect) with both ports", THP_NO },
	{ "tcpaccept",   BPF_CMD(cmd_tcpaccept),   "eBPF: passive TCP opens (accept) with both ports", THP_NO },
};

/* Levenshtein distance, for "did you mean" (names are short; capped). */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64];

	if (la >= 63 || lb >= 63)
		return 64;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

/* The heap in transparent huge pages for the commands that read large
 * profiles: glibc's malloc asks for them (madvise) with its tunable
 * glibc.malloc.hugetlb=1, which glibc reads from the environment only as a
 * program starts, so perfkit starts itself once more with it set.  Under
 * a hypervisor a 4 KiB page fault costs about 10 us: `report -g none` of
 * a compile job's profile took 30 k faults, 18 k with it, 7 % less CPU
 * (docs/PERFORMANCE.md).  Both variables are removed again at once, so
 * that no program perfkit runs inherits them; a user's own
 * GLIBC_TUNABLES is left as it is (no restart), as is PERFKIT_NO_HEAP_THP
 * set, a kernel with THP off, perfkit started by the dynamic loader by
 * hand or under valgrind, and a build with the sanitizers (their
 * allocator is not glibc's: the restart was their start-up twice, 90 ms a
 * report).  If the restart fails, perfkit goes on as it was.  The folded
 * stacks' commands (flamegraph, diff-folded) are not restarted: nothing
 * to gain on a compile job's 9.4 MB of folded stacks, and a restart costs
 * a tiny input's run (7 ms of 12); collapse only for a perf.data. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PK_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(PK_ASAN)
static const bool sanitized = true;
#else
static const bool sanitized = false;
#endif

/* Whether the regular file open as fd is a perf.data (its magic,
 * "PERFILE2"). */
static bool perfdata_fd(int fd)
{
	char magic[8];

	return pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) && !memcmp(magic, "PERFILE2", 8);
}

/* collapse's input is worth the restart: one of its arguments (FILE, or
 * OPT=FILE) names a perf.data, or with no FILE, standard input is one.
 * Text is not: its parser asks for huge pages itself when the input is
 * large (format/collapse.c's parse_stream, xheap_thp), which saves the
 * second start (on a compile job's 54 MB of perf script text, 4 % of
 * collapse's CPU). */
static bool perfdata_input(int argc, char **argv)
{
	bool file = false;
	struct stat st;

	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *eq = a[0] == '-' ? strchr(a, '=') : NULL;
		int fd;

		if (eq)
			a = eq + 1;
		else if (a[0] == '-')
			continue;
		else
			file = true;
		/* only a regular file is opened: a FIFO's writer would pair
		 * with this open, not with the command's */
		if (stat(a, &st) || !S_ISREG(st.st_mode))
			continue;
		fd = open(a, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			continue;
		bool big = perfdata_fd(fd);

		close(fd);
		if (big)
			return true;
	}
	return !file && !fstat(0, &st) && S_ISREG(st.st_mode) && perfdata_fd(0);
}

/* argc: collapse's, whose input is read first (perfdata_input), else 0. */
static void heap_thp(int argc, char **argv)
{
	const char *mark = getenv("PERFKIT_HEAP_THP");
	char buf[64] = "";
	FILE *f;

	if (mark) {   /* the second start */
		if (!strcmp(mark, "1"))
			unsetenv("GLIBC_TUNABLES");
		unsetenv("PERFKIT_HEAP_THP");
		return;
	}
	if (sanitized || getenv("GLIBC_TUNABLES") || getenv("PERFKIT_NO_HEAP_THP") ||
	    (argc && !perfdata_input(argc, argv)))
		return;
	f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (!f)
		return;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	if (!strstr(buf, "[always]") && !strstr(buf, "[madvise]"))
		return;
	/* the binary by its own path, not /proc/self/exe: the process keeps
	 * its name (comm: "perfkit", not "exe") */
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0 || (size_t)n >= sizeof(self) - 1)
		return;
	self[n] = '\0';
	/* started by the dynamic loader by hand (ld.so ./perfkit ...): the
	 * loader is the executable and argv its arguments' tail; under
	 * valgrind the restart would run natively, unchecked */
	const char *base = strrchr(self, '/') ? strrchr(self, '/') + 1 : self;
	const char *pre = getenv("LD_PRELOAD");

	if (!strncmp(base, "ld-", 3) || !strncmp(base, "ld.so", 5) || (pre && strstr(pre, "vgpreload")))
		return;
	if (setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1) || setenv("PERFKIT_HEAP_THP", "1", 1))
		return;
	execv(self, argv);
	unsetenv("GLIBC_TUNABLES");   /* not restarted: as before */
	unsetenv("PERFKIT_HEAP_THP");
}

static void usage(FILE *f)
{
	fprintf(f, "usage: perfkit [--version] [--help] <command> [<args>]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nSee 'perfkit <command> --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "help") && argc > 2) {
		/* "perfkit help CMD", as "perf help CMD": CMD's own help */
		static char help_opt[] = "--help";
		char *hv[] = { argv[0], argv[2], help_opt, NULL };

		return main(3, hv);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("perfkit %s\n", PERFKIT_VERSION);
		return 0;
	}
	of_unlink_on_signals();   /* a Ctrl-C leaves no temporary output file */
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		if (commands[i].heap_thp != THP_NO)
			heap_thp(commands[i].heap_thp == THP_INPUT ? argc : 0, argv);
		/* argv[0] of a command is "perfkit <name>", so getopt's own
		 * messages read like ours ("perfkit report: invalid option") */
		char name[64];

		snprintf(name, sizeof(name), "perfkit %s", commands[i].name);
		argv[1] = name;
		int rc = commands[i].fn(argc - 1, argv + 1);
		/* A full disk or a closed pipe must not pass for success.  A
		 * command that failed has said why already (often this very
		 * write error): one line, not two. */
		if (fflush(stdout) || ferror(stdout)) {
			if (errno != EPIPE && !rc)
				fprintf(stderr, "perfkit %s: error writing output: %s\n",
					commands[i].name, strerror(errno));
			return rc ? rc : 1;
		}
		return rc;
	}
	fprintf(stderr, "perfkit: '%s' is not a perfkit command; see 'perfkit --help'\n", argv[1]);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (edit_distance(argv[1], commands[i].name) <= 2)
			fprintf(stderr, "perfkit: did you mean '%s'?\n", commands[i].name);
	return 2;
}
