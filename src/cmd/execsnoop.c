/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit execsnoop — trace every execve() system-wide with its argv, as
 * bcc's execsnoop does (tracepoints syscalls/sys_{enter,exit}_execve; the
 * kernel half is src/bpf/execsnoop.bpf.c).
 *
 * Output, one line per exec:  [TIME] [TIME(s)] [UID] PCOMM PID PPID RET ARGS
 * ARGS is argv joined by spaces; an argument that is empty or holds a
 * space or other shell-special byte is shown single-quoted (so '' is an
 * empty argument), and " ..." ends the line only when arguments were
 * really cut (more than --max-args of them, or one longer than 127 bytes).
 * RET is 0 or -errno; failed execs are shown with -x only.
 * bcc's filters: -c CGROUP (a cgroup v2 directory: tasks in it or below,
 * checked in the kernel with bpf_current_task_under_cgroup), -l LINE (an
 * extended regular expression searched in the arguments joined by spaces,
 * before quoting), -n NAME; -q quotes every argument with double quotes
 * (a " inside as \"), as bcc's -q does.
 * When argv could not be read at the exec's entry (strings in pages not
 * yet faulted in), a successful exec shows the argv of the new process
 * (its mm->arg_start..arg_end block, see src/bpf/execsnoop.bpf.c).
 */
#include "cmd/cmds.h"

#ifndef PERFKIT_NO_BPF   /* else perfkit.c says why the tool is missing */

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <regex.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <getopt.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "bpf/execsnoop.h"
#include "bpfutil/opts.h"
#include "bpfutil/setup.h"
#include "execsnoop.skel.h"

struct execsnoop_opts {
	bool time, timestamp, fails, print_uid, quote;
	const char *cgroup;
	const char *line_re;
	regex_t re;
	struct strbuf raw;
	long uid;
	int max_args;
	const char *name;
	int verbose;
	unsigned long long start_ns;
	struct strbuf line;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit execsnoop [-T] [-t] [-x] [-U] [-u UID] [-c CGROUP] [-q] [-l LINE] [--max-args N]\n"
		"                         [-n NAME] [-v]\n"
		"  -T, --time          print the time of day (HH:MM:SS)\n"
		"  -t, --timestamp     print seconds since tracing started\n"
		"  -x, --fails         include failed execs\n"
		"  -U, --print-uid     print the UID column\n"
		"  -u, --uid UID       only execs by this UID (filtered in the kernel)\n"
		"      --max-args N    arguments to capture, 1..%d (default 20)\n"
		"  -n, --name NAME     only commands whose name contains NAME\n"
		"  -c, --cgroup DIR    only tasks in this cgroup (v2 directory) or below\n"
		"  -l, --line LINE     only execs whose arguments match LINE (extended regex)\n"
		"  -q, --quote         put every argument in double quotes\n"
		"  -v, --verbose       show libbpf's messages\n"
		"Runs until Ctrl-C (SIGINT) or SIGTERM.\n", EXEC_MAX_ARGS);
}

static bool shell_safe(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("_@%+=:,./-", c);
}

/* Append arg, single-quoted when empty or not made of safe bytes; inside
 * quotes ' is written '\'' and non-printable bytes as \ooo. */
static void add_arg(struct strbuf *sb, const char *a, size_t n)
{
	bool safe = n > 0;

	for (size_t i = 0; i < n && safe; i++)
		safe = shell_safe((unsigned char)a[i]);
	if (safe) {
		sb_add(sb, a, n);
		return;
	}
	sb_addch(sb, '\'');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)a[i];
		if (c == '\'')
			sb_addstr(sb, "'\\''");
		else if (c < 0x20 || c == 0x7f)
			sb_addf(sb, "\\%03o", c);
		else
			sb_addch(sb, (char)c);
	}
	sb_addch(sb, '\'');
}

/* -q: bcc's double quotes, a " inside as \"; control bytes as \ooo so
 * one event stays one line. */
static void add_quoted(struct strbuf *sb, const char *a, size_t n)
{
	sb_addch(sb, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)a[i];
		if (c == '"')
			sb_addstr(sb, "\\\"");
		else if (c < 0x20 || c == 0x7f)
			sb_addf(sb, "\\%03o", c);
		else
			sb_addch(sb, (char)c);
	}
	sb_addch(sb, '"');
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct execsnoop_opts *o = ctx;
	const struct exec_event *e = data;
	struct strbuf *sb = &o->line;

	if (size < EXEC_EVENT_BASE)
		return 0;
	size_t avail = size - EXEC_EVENT_BASE;
	size_t args_size = e->args_size < avail ? e->args_size : avail;
	char comm[EXEC_TASK_COMM_LEN + 1];

	memcpy(comm, e->comm, EXEC_TASK_COMM_LEN);
	comm[EXEC_TASK_COMM_LEN] = '\0';
	if (o->name && !strstr(comm, o->name))
		return 0;
	sb_reset(&o->raw);   /* the arguments joined by spaces, for -l */

	sb_reset(sb);
	if (o->time) {
		char buf[16];

		sb_addf(sb, "%-8s ", bpfk_clock(buf, sizeof(buf)));
	}
	if (o->timestamp)
		sb_addf(sb, "%-8.3f ", (double)(e->ts_ns - o->start_ns) / 1e9);
	if (o->print_uid)
		sb_addf(sb, "%-6u ", e->uid);
	size_t at = sb->len;
	sb_add_term(sb, comm, strlen(comm));   /* escaped: one event, one line */
	if (sb->len - at < 16)
		sb_addf(sb, "%*s", (int)(16 - (sb->len - at)), "");
	sb_addf(sb, " %-7u %-7u %3d ", e->pid, e->ppid, e->retval);

	/* from the new process (EXEC_F_FROM_MM): the raw argv block, whose
	 * arguments are counted and cut here as the kernel half does at entry */
	bool from_mm = e->flags & EXEC_F_FROM_MM;
	bool cut = e->flags & (EXEC_F_MORE_ARGS | EXEC_F_ARG_CUT);
	unsigned max = from_mm ? (unsigned)o->max_args : e->args_count;
	const char *p = e->args, *end = e->args + args_size;
	for (unsigned i = 0; p < end; i++) {
		if (i >= max) {
			cut |= from_mm;   /* more arguments than --max-args */
			break;
		}
		const char *z = memchr(p, '\0', (size_t)(end - p));
		size_t n = z ? (size_t)(z - p) : (size_t)(end - p);
		if (from_mm && (!z || n > EXEC_ARGSIZE - 1)) {
			cut = true;   /* longer than a slot, or the block was cut */
			if (n > EXEC_ARGSIZE - 1)
				n = EXEC_ARGSIZE - 1;
		}
		if (i) {
			sb_addch(sb, ' ');
			sb_addch(&o->raw, ' ');
		}
		if (o->quote)
			add_quoted(sb, p, n);
		else
			add_arg(sb, p, n);
		sb_add(&o->raw, p, n);
		p = z ? z + 1 : end;
	}
	if (o->line_re && regexec(&o->re, o->raw.buf, 0, NULL, 0) != 0)
		return 0;
	if (cut)
		sb_addstr(sb, " ...");
	sb_addch(sb, '\n');
	fwrite(sb->buf, 1, sb->len, stdout);
	return 0;
}

static int parse_opts(struct execsnoop_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "time", no_argument, NULL, 'T' },
		{ "timestamp", no_argument, NULL, 't' },
		{ "fails", no_argument, NULL, 'x' },
		{ "print-uid", no_argument, NULL, 'U' },
		{ "uid", required_argument, NULL, 'u' },
		{ "max-args", required_argument, NULL, 'M' },
		{ "name", required_argument, NULL, 'n' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "line", required_argument, NULL, 'l' },
		{ "quote", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+TtxUu:n:c:l:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'T': o->time = true; break;
		case 't': o->timestamp = true; break;
		case 'x': o->fails = true; break;
		case 'U': o->print_uid = true; break;
		case 'v': o->verbose = 1; break;
		case 'n': o->name = optarg; break;
		case 'c': o->cgroup = optarg; break;
		case 'q': o->quote = true; break;
		case 'l':
			{
				int rc = o->line_re ? 0 : regcomp(&o->re, optarg, REG_EXTENDED | REG_NOSUB);
				if (o->line_re || rc) {
					char msg[128] = "given twice";
					if (rc)
						regerror(rc, &o->re, msg, sizeof(msg));
					struct strbuf q = STRBUF_INIT;
					sb_add_term(&q, optarg, strlen(optarg));
					fprintf(stderr, "perfkit execsnoop: -l: bad regular expression '%s': %s\n",
						q.buf, msg);
					sb_release(&q);
					return 2;
				}
				o->line_re = optarg;
			}
			break;
		case 'u':
			{
				uint32_t v;
				if (bpfk_opt_uid("-u", optarg, &v)) {
					fprintf(stderr, "perfkit execsnoop: %s\n", pk_errmsg());
					return 2;
				}
				o->uid = (long)v;
			}
			break;
		case 'M':
			if (pk_parse_int("--max-args", optarg, 1, EXEC_MAX_ARGS, &o->max_args)) {
				fprintf(stderr, "perfkit execsnoop: %s\n", pk_errmsg());
				return 2;
			}
			break;
		case 'h': usage(stdout); return -1;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "perfkit execsnoop: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	return 0;
}

int cmd_execsnoop(int argc, char **argv)
{
	struct execsnoop_opts o = { .uid = -1, .max_args = 20, .line = STRBUF_INIT, .raw = STRBUF_INIT };
	struct execsnoop_bpf *skel = NULL;
	struct ring_buffer *rb = NULL;
	int err, ret = 1, cgfd = -1;

	err = parse_opts(&o, argc, argv);
	if (err) {
		if (o.line_re)
			regfree(&o.re);
		return err < 0 ? 0 : err;
	}
	if (o.cgroup) {
		struct statfs sfs;
		cgfd = open(o.cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cgfd < 0 || fstatfs(cgfd, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
			struct strbuf q = STRBUF_INIT;
			sb_add_term(&q, o.cgroup, strlen(o.cgroup));
			pk_error(cgfd < 0 ? errno : ENOTDIR, "-c: '%s' is not a cgroup v2 directory%s%s", q.buf,
				 cgfd < 0 ? ": " : "", cgfd < 0 ? strerror(errno) : "");
			sb_release(&q);
			goto fail;
		}
	}
	if (bpfk_start(o.verbose, "syscalls", "sys_enter_execve", ": the kernel needs CONFIG_FTRACE_SYSCALLS=y"))
		goto fail;

	skel = execsnoop_bpf__open();
	if (!skel) {
		bpfk_error(errno, "opening BPF skeleton");
		goto fail;
	}
	skel->rodata->max_args = o.max_args;
	skel->rodata->targ_uid = o.uid < 0 ? (__u32)-1 : (__u32)o.uid;
	skel->rodata->ignore_failed = !o.fails;
	skel->rodata->filter_cg = cgfd >= 0;
	if (bpfk_load_attach(skel->skeleton, NULL))
		goto fail;
	if (cgfd >= 0) {
		__u32 zero = 0;
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.cgroup_map), &zero, &cgfd, BPF_ANY)) {
			bpfk_error(errno, "setting the cgroup of -c");
			goto fail;
		}
	}
	if (bpfk_attach(skel->skeleton, "tracepoints syscalls/sys_{enter,exit}_execve") ||
	    !(rb = bpfk_ring_new(skel->maps.events, handle_event, &o)))
		goto fail;

	bpfk_stop_on_signals();
	o.start_ns = bpfk_now_ns();
	if (o.time)
		printf("%-8s ", "TIME");
	if (o.timestamp)
		printf("%-8s ", "TIME(s)");
	if (o.print_uid)
		printf("%-6s ", "UID");
	printf("%-16s %-7s %-7s %3s %s\n", "PCOMM", "PID", "PPID", "RET", "ARGS");
	fflush(stdout);
	fprintf(stderr, "Tracing exec()s... Hit Ctrl-C to end.\n");

	if (bpfk_poll_ring(rb, 0))
		goto fail;
	if (skel->bss->lost_events)
		fprintf(stderr, "perfkit execsnoop: %llu events lost (ring buffer or map full)\n",
			(unsigned long long)skel->bss->lost_events);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "perfkit execsnoop: %s\n", pk_errmsg());
out:
	ring_buffer__free(rb);
	execsnoop_bpf__destroy(skel);
	sb_release(&o.line);
	sb_release(&o.raw);
	if (o.line_re)
		regfree(&o.re);
	if (cgfd >= 0)
		close(cgfd);
	return ret;
}
#endif /* PERFKIT_NO_BPF */
