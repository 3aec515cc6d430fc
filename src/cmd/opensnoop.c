/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit opensnoop — trace open(), openat() and openat2() system-wide, as
 * bcc's opensnoop does (tracepoints syscalls/sys_{enter,exit}_open*; the
 * kernel half is src/bpf/opensnoop.bpf.c).
 *
 * Output:  [TIME(s)] [UID] PID COMM FD ERR [FLAGS] PATH
 * FD is -1 and ERR the errno when the open failed.  With -F a relative PATH
 * is made absolute: for a successful open the kernel half captures the
 * opened file's path at the syscall's exit (as the kernel resolved it:
 * "./", ".." and symlinks resolved); for a failed one, the directory it is
 * relative to (the cwd for AT_FDCWD, the directory behind the dirfd
 * otherwise), joined with "." and ".." folded lexically (relpath.h).
 * Either way it does not matter whether the process, its cwd or the fd are
 * still there when the event is read.  Where the kernel half could not capture it (a
 * directory deeper than 64 levels or 4 KiB), it is looked up in /proc
 * (/proc/PID/task/TID/cwd, /proc/PID/cwd, /proc/PID/fd/DFD) and, when the
 * process is already gone, the path is printed as it was given.
 */
#include "cmd/cmds.h"

#ifndef PERFKIT_NO_BPF   /* else perfkit.c says why the tool is missing */

#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "bpf/opensnoop.h"
#include "bpfutil/relpath.h"
#include "bpfutil/opts.h"
#include "bpfutil/setup.h"
#include "tracefs/tracefs.h"
#include "opensnoop.skel.h"

struct opensnoop_opts {
	long pid, tid;
	unsigned long long flag_mask;   /* -f: any of these open flags */
	long uid;
	bool timestamp, failed, extended, full_path, print_uid;
	const char *name;
	double duration;
	int verbose;
	unsigned long long start_ns;
	struct strbuf line, dir;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit opensnoop [-p PID] [-t TID] [-T] [-x] [-n NAME] [-e] [-f FLAG]... [-F] [-U] [-u UID]\n"
		"                         [-d SECS] [-v]\n"
		"  -p, --pid PID        only this process (filtered in the kernel)\n"
		"  -t, --tid TID        only this thread (filtered in the kernel)\n"
		"  -f, --flag_filter FLAG  only opens with this flag (O_WRONLY, O_CREAT, ...; each\n"
		"                       -f adds one: opens with any of them)\n"
		"  -T, --timestamp      print seconds since tracing started\n"
		"  -x, --failed         only failed opens\n"
		"  -n, --name NAME      only commands whose name contains NAME\n"
		"  -e, --extended       print the open flags (octal)\n"
		"  -F, --full-path      print relative paths resolved to absolute ones\n"
		"  -U, --print-uid      print the UID column\n"
		"  -u, --uid UID        only this UID (filtered in the kernel)\n"
		"  -d, --duration SECS  trace for SECS seconds (default: until Ctrl-C)\n"
		"  -v, --verbose        show libbpf's messages\n");
}

/* Read a /proc link to a directory into dir; false unless absolute. */
static bool proc_dir(char *dir, size_t size, const char *link)
{
	ssize_t n = readlink(link, dir, size - 1);

	if (n <= 0 || dir[0] != '/')
		return false;
	dir[n] = '\0';
	return true;
}

/* Append fname made absolute against the directory it was relative to:
 * the one the kernel half captured (OPEN_DIR_DONE), else the thread's or
 * process's cwd or the dirfd's target through /proc while they are still
 * there.  False (nothing appended) when neither is known. */
static bool resolve_path(struct strbuf *out, const struct open_event *e, size_t dir_size,
			 const char *fname, struct strbuf *tmp)
{
	char link[64], dir[PATH_MAX];

	sb_reset(tmp);
	if (e->dir_state == OPEN_DIR_FILE &&
	    !relpath_dir_from_components(out, e->dir, dir_size, e->dir_depth))
		return true;
	if (e->dir_state == OPEN_DIR_DONE &&
	    !relpath_dir_from_components(tmp, e->dir, dir_size, e->dir_depth)) {
		relpath_join(out, tmp->buf, fname);
		return true;
	}
	if (e->dfd == AT_FDCWD) {
		snprintf(link, sizeof(link), "/proc/%u/task/%u/cwd", e->pid, e->tid);
		if (!proc_dir(dir, sizeof(dir), link)) {   /* the thread is gone */
			snprintf(link, sizeof(link), "/proc/%u/cwd", e->pid);
			if (!proc_dir(dir, sizeof(dir), link))
				return false;
		}
	} else {
		snprintf(link, sizeof(link), "/proc/%u/fd/%d", e->pid, e->dfd);
		if (!proc_dir(dir, sizeof(dir), link))
			return false;
	}
	relpath_join(out, dir, fname);
	return true;
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct opensnoop_opts *o = ctx;
	const struct open_event *e = data;
	struct strbuf *sb = &o->line;
	char comm[OPEN_TASK_COMM_LEN + 1], fname[OPEN_NAME_MAX + 1];

	if (size < OPEN_EVENT_BASE)
		return 0;
	size_t dir_size = size - OPEN_EVENT_BASE < e->dir_size ? size - OPEN_EVENT_BASE : e->dir_size;
	memcpy(comm, e->comm, OPEN_TASK_COMM_LEN);
	comm[OPEN_TASK_COMM_LEN] = '\0';
	memcpy(fname, e->fname, OPEN_NAME_MAX);
	fname[OPEN_NAME_MAX] = '\0';
	if (o->name && !strstr(comm, o->name))
		return 0;

	sb_reset(sb);
	if (o->timestamp)
		sb_addf(sb, "%-8.3f ", (double)(e->ts_ns - o->start_ns) / 1e9);
	if (o->print_uid)
		sb_addf(sb, "%-6u ", e->uid);
	/* names escaped: a newline in a file name must not forge a line,
	 * nor an escape sequence reach the terminal */
	sb_addf(sb, "%-7u ", e->pid);
	size_t at = sb->len;
	sb_add_term(sb, comm, strlen(comm));
	if (sb->len - at < 16)
		sb_addf(sb, "%*s", (int)(16 - (sb->len - at)), "");
	sb_addf(sb, " %3d %3d ", e->ret >= 0 ? e->ret : -1, e->ret >= 0 ? 0 : -e->ret);
	if (o->extended)
		sb_addf(sb, "%08llo ", (unsigned long long)e->flags);
	at = sb->len;
	if (!(o->full_path && fname[0] && fname[0] != '/' && resolve_path(sb, e, dir_size, fname, &o->dir)))
		sb_addstr(sb, fname);
	sb_term_escape_from(sb, at);
	sb_addch(sb, '\n');
	fwrite(sb->buf, 1, sb->len, stdout);
	return 0;
}

static int parse_num(const char *what, const char *s, long max, long *out)
{
	int64_t v;

	if (pk_parse_i64(what, s, 0, max, &v)) {
		fprintf(stderr, "perfkit opensnoop: %s\n", pk_errmsg());
		return 2;
	}
	*out = (long)v;
	return 0;
}

/* bcc's -f: an O_ flag's name (case as given, bcc upper-cases it) into
 * *mask; -1 for a name that is none */
static int add_flag(const char *name, unsigned long long *mask)
{
	static const struct { const char *name; unsigned long long v; } fl[] = {
		{ "O_RDONLY", O_RDONLY }, { "O_WRONLY", O_WRONLY }, { "O_RDWR", O_RDWR },
		{ "O_CREAT", O_CREAT }, { "O_EXCL", O_EXCL }, { "O_NOCTTY", O_NOCTTY },
		{ "O_TRUNC", O_TRUNC }, { "O_APPEND", O_APPEND }, { "O_NONBLOCK", O_NONBLOCK },
		{ "O_NDELAY", O_NDELAY }, { "O_DSYNC", O_DSYNC }, { "O_SYNC", O_SYNC },
		{ "O_RSYNC", O_RSYNC }, { "O_DIRECTORY", O_DIRECTORY }, { "O_NOFOLLOW", O_NOFOLLOW },
		{ "O_CLOEXEC", O_CLOEXEC }, { "O_ASYNC", O_ASYNC }, { "O_DIRECT", O_DIRECT },
		{ "O_LARGEFILE", O_LARGEFILE }, { "O_NOATIME", O_NOATIME }, { "O_PATH", O_PATH },
		{ "O_TMPFILE", O_TMPFILE },
	};

	for (size_t i = 0; i < sizeof(fl) / sizeof(fl[0]); i++)
		if (!strcasecmp(name, fl[i].name)) {
			*mask |= fl[i].v;
			return 0;
		}
	return -1;
}

static int parse_opts(struct opensnoop_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "flag_filter", required_argument, NULL, 'f' },
		{ "flag-filter", required_argument, NULL, 'f' },
		{ "uid", required_argument, NULL, 'u' },
		{ "timestamp", no_argument, NULL, 'T' },
		{ "failed", no_argument, NULL, 'x' },
		{ "name", required_argument, NULL, 'n' },
		{ "extended", no_argument, NULL, 'e' },
		{ "full-path", no_argument, NULL, 'F' },
		{ "print-uid", no_argument, NULL, 'U' },
		{ "duration", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+p:t:u:Txn:ef:FUd:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': if (parse_num("-p", optarg, INT_MAX, &o->pid)) return 2; if (!o->pid) return fprintf(stderr, "perfkit opensnoop: -p expects a process id ≥ 1, got '0'\n"), 2; break;
		case 'u': if (parse_num("-u", optarg, 0xfffffffeL, &o->uid)) return 2; break;
		case 't': if (parse_num("-t", optarg, INT_MAX, &o->tid)) return 2; if (!o->tid) return fprintf(stderr, "perfkit opensnoop: -t expects a thread id ≥ 1, got '0'\n"), 2; break;
		case 'f':
			if (add_flag(optarg, &o->flag_mask)) {
				fprintf(stderr, "perfkit opensnoop: -f '%s': not an open flag (O_WRONLY, O_RDWR, O_CREAT, "
						"O_TRUNC, O_APPEND, O_DIRECTORY, ...)\n", optarg);
				return 2;
			}
			break;
		case 'T': o->timestamp = true; break;
		case 'x': o->failed = true; break;
		case 'n': o->name = optarg; break;
		case 'e': o->extended = true; break;
		case 'F': o->full_path = true; break;
		case 'U': o->print_uid = true; break;
		case 'v': o->verbose = 1; break;
		case 'd':
			if (bpfk_opt_secs("-d", optarg, &o->duration)) {
				fprintf(stderr, "perfkit opensnoop: %s\n", pk_errmsg());
				return 2;
			}
			break;
		case 'h': usage(stdout); return -1;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "perfkit opensnoop: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	return 0;
}

int cmd_opensnoop(int argc, char **argv)
{
	struct opensnoop_opts o = { .uid = -1, .line = STRBUF_INIT, .dir = STRBUF_INIT };
	struct opensnoop_bpf *skel = NULL;
	struct ring_buffer *rb = NULL;
	int err, ret = 1;

	err = parse_opts(&o, argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	if (bpfk_check_pid(o.pid) || bpfk_start(o.verbose, "syscalls", "sys_enter_openat", ": the kernel needs CONFIG_FTRACE_SYSCALLS=y"))
		goto fail;

	skel = opensnoop_bpf__open();
	if (!skel) {
		bpfk_error(errno, "opening BPF skeleton");
		goto fail;
	}
	skel->rodata->targ_tgid = (__u32)o.pid;
	skel->rodata->targ_tid = (__u32)o.tid;
	skel->rodata->flag_mask = o.flag_mask;
	skel->rodata->targ_uid = o.uid < 0 ? (__u32)-1 : (__u32)o.uid;
	skel->rodata->failed_only = o.failed;
	skel->rodata->full_path = o.full_path;
	/* open() does not exist on every architecture */
	if (!tracefs_has_event("syscalls", "sys_enter_open")) {
		bpf_program__set_autoload(skel->progs.tp_enter_open, false);
		bpf_program__set_autoload(skel->progs.tp_exit_open, false);
	}
	if (!tracefs_has_event("syscalls", "sys_enter_openat2")) {
		bpf_program__set_autoload(skel->progs.tp_enter_openat2, false);
		bpf_program__set_autoload(skel->progs.tp_exit_openat2, false);
	}
	if (bpfk_load_attach(skel->skeleton, "tracepoints syscalls/sys_{enter,exit}_open{,at,at2}") ||
	    !(rb = bpfk_ring_new(skel->maps.events, handle_event, &o)))
		goto fail;

	bpfk_stop_on_signals();
	o.start_ns = bpfk_now_ns();
	if (o.timestamp)
		printf("%-8s ", "TIME(s)");
	if (o.print_uid)
		printf("%-6s ", "UID");
	printf("%-7s %-16s %3s %3s ", "PID", "COMM", "FD", "ERR");
	if (o.extended)
		printf("%-8s ", "FLAGS");
	printf("PATH\n");
	fflush(stdout);
	fprintf(stderr, "Tracing open()s... Hit Ctrl-C to end.\n");

	if (bpfk_poll_ring(rb, o.duration))
		goto fail;
	if (skel->bss->lost_events)
		fprintf(stderr, "perfkit opensnoop: %llu events lost (ring buffer full)\n",
			(unsigned long long)skel->bss->lost_events);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "perfkit opensnoop: %s\n", pk_errmsg());
out:
	ring_buffer__free(rb);
	opensnoop_bpf__destroy(skel);
	sb_release(&o.line);
	sb_release(&o.dir);
	return ret;
}
#endif /* PERFKIT_NO_BPF */
