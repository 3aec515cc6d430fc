/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit funclatency — latency of a user-space function as a log2
 * histogram, like bcc's funclatency, through a uprobe at the function's
 * entry and a uretprobe at its return (kernel half:
 * src/bpf/funclatency.bpf.c).  Nested and recursive calls are measured
 * each from its own entry (a per-thread stack of entry times).
 *
 *   funclatency [-p PID] [-u|-m] [-L STEP] [-i SECS] [-d SECS] BINARY:FUNCTION
 * Options may come before or after the target, as in bcc.  BINARY is a
 * path, a name in $PATH or a library name ("c", "libc", "libc.so.6"); the
 * target is split at the first ':' that ends such a binary, so C++ names
 * with "::" work (uprobe.h).
 * -L STEP counts into linear buckets of STEP units instead (bpftrace's
 * lhist()): FUNC_LIN_SLOTS (1000) of them, then one for ">= 1000*STEP".
 * After the histogram: "avg = A UNIT, total: T UNIT, count: N" (whole
 * units, none without a call: bcc's).
 */
#include "cmd/cmds.h"

#ifndef PERFKIT_NO_BPF   /* else perfkit.c says why the tool is missing */

#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/types.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "bpf/funclatency.h"
#include "bpfutil/hist.h"
#include "bpfutil/opts.h"
#include "bpfutil/setup.h"
#include "bpfutil/uprobe.h"
#include "funclatency.skel.h"

struct funclatency_opts {
	long pid;
	int units;
	uint64_t lin_step;   /* 0: log2 histogram */
	double interval, duration;
	bool timestamp;
	int verbose;
	const char *target;
};

static const char *const unit_name[] = { "nsecs", "usecs", "msecs" };
static const double unit_div[] = { 1, 1e3, 1e6 };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit funclatency [-p PID] [-u|-m] [-L STEP] [-i SECS] [-d SECS] [-T] [-v]\n"
		"                           BINARY:FUNCTION\n"
		"  -p, --pid PID          only this process (filtered in the kernel)\n"
		"  -u, --microseconds     histogram in microseconds (default nanoseconds)\n"
		"  -m, --milliseconds     histogram in milliseconds\n"
		"  -L, --linear STEP      linear histogram: buckets of STEP units (nsecs, or as\n"
		"                         -u/-m say), 1000 of them, then one for >= 1000*STEP\n"
		"  -i, --interval SECS    print (and reset) the histogram every SECS seconds\n"
		"  -d, --duration SECS    trace for SECS seconds (default: until Ctrl-C)\n"
		"  -T, --timestamp        print the time of day with each histogram\n"
		"  -v, --verbose          show libbpf's messages\n"
		"Options may also follow BINARY:FUNCTION.  BINARY is a path, a name looked up\n"
		"in $PATH, or a library (\"c\", \"libc\", \"libc.so.6\": ld.so cache, then the\n"
		"standard library directories); FUNCTION is its symbol name, or a demangled\n"
		"C++ name (\"ns::Acc<double>::add\", with \"(double)\" to pick an overload).\n");
}

static int parse_secs(const char *what, const char *s, double *out)
{
	if (bpfk_opt_secs(what, s, out)) {
		fprintf(stderr, "perfkit funclatency: %s\n", pk_errmsg());
		return 2;
	}
	return 0;
}

static int parse_step(const char *s, uint64_t *out)
{
	if (pk_parse_u64("the linear step", s, 1, FUNC_LIN_STEP_MAX, out)) {
		fprintf(stderr, "perfkit funclatency: %s\n", pk_errmsg());
		return 2;
	}
	return 0;
}

static int parse_opts(struct funclatency_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "microseconds", no_argument, NULL, 'u' },
		{ "milliseconds", no_argument, NULL, 'm' },
		{ "linear", required_argument, NULL, 'L' },
		{ "interval", required_argument, NULL, 'i' },
		{ "duration", required_argument, NULL, 'd' },
		{ "timestamp", no_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	/* "-": the target comes back as option 1 wherever it stands, so
	 * options after it work whatever POSIXLY_CORRECT says */
	while ((c = getopt_long(argc, argv, "-p:umL:i:d:Tvh", longopts, NULL)) != -1) {
		switch (c) {
		case 1:
			if (o->target) {
				fprintf(stderr, "perfkit funclatency: expected one BINARY:FUNCTION, "
					"got '%s' and '%s'\n", o->target, optarg);
				return 2;
			}
			o->target = optarg;
			break;
		case 'p':
			{
				if (bpfk_opt_pid("-p", optarg, &o->pid)) {
					fprintf(stderr, "perfkit funclatency: %s\n", pk_errmsg());
					return 2;
				}
			}
			break;
		case 'u':
		case 'm':
			if (o->units != FUNC_NSEC) {
				fprintf(stderr, "perfkit funclatency: -u and -m exclude each other\n");
				return 2;
			}
			o->units = c == 'u' ? FUNC_USEC : FUNC_MSEC;
			break;
		case 'L': if (parse_step(optarg, &o->lin_step)) return 2; break;
		case 'i': if (parse_secs("interval", optarg, &o->interval)) return 2; break;
		case 'd': if (parse_secs("duration", optarg, &o->duration)) return 2; break;
		case 'T': o->timestamp = true; break;
		case 'v': o->verbose = 1; break;
		case 'h': usage(stdout); return -1;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc && !o->target)   /* after "--" */
		o->target = argv[optind++];
	if (!o->target || optind < argc) {
		fprintf(stderr, "perfkit funclatency: expected one BINARY:FUNCTION\n");
		usage(stderr);
		return 2;
	}
	return 0;
}

static void print_hist(struct funclatency_bpf *skel, const struct funclatency_opts *o)
{
	struct strbuf sb = STRBUF_INIT;
	static uint64_t slots[FUNC_LIN_SLOTS + 1];
	__u64 count = skel->bss->count, total = skel->bss->total_ns;

	if (o->lin_step) {
		for (int i = 0; i <= FUNC_LIN_SLOTS; i++)
			slots[i] = skel->bss->lin_hist[i];
	} else {
		for (int i = 0; i < LOG2_SLOTS; i++)
			slots[i] = skel->bss->hist[i];
	}
	if (o->timestamp) {
		char buf[16];

		sb_addf(&sb, "%-8s\n", bpfk_clock(buf, sizeof(buf)));
	}
	if (!o->lin_step)
		hist_render(&sb, slots, LOG2_SLOTS, unit_name[o->units]);
	else if (hist_render_linear(&sb, slots, FUNC_LIN_SLOTS + 1, o->lin_step,
				    unit_name[o->units]))   /* not with a step parse_step took */
		fprintf(stderr, "perfkit funclatency: %s\n", pk_errmsg());
	double div = unit_div[o->units];
	/* bcc's funclatency: whole units ("%ld"), and no line without a call */
	if (count)
		sb_addf(&sb, "\navg = %lld %s, total: %lld %s, count: %llu\n",
			(long long)((double)total / (double)count / div), unit_name[o->units],
			(long long)((double)total / div), unit_name[o->units], (unsigned long long)count);
	fwrite(sb.buf, 1, sb.len, stdout);
	fflush(stdout);
	sb_release(&sb);
}

/* Is the target C++ (a mangled or qualified name, or a binary that uses
 * libstdc++'s exception runtime)?  Then an exception can unwind through the
 * function, and the kernel's return probe cannot be unwound through. */
static bool looks_cxx(const char *binary, const char *func)
{
	static const char *const marks[] = { "libstdc++.so", "__gxx_personality_v0", "__cxa_throw" };
	struct stat st;
	bool cxx = !strncmp(func, "_Z", 2) || strstr(func, "::");
	int fd;

	if (cxx)
		return true;
	fd = open(binary, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]) && !cxx; i++)
				cxx = memmem(m, (size_t)st.st_size, marks[i], strlen(marks[i])) != NULL;
			munmap(m, (size_t)st.st_size);
		}
	}
	close(fd);
	return cxx;
}

static void reset_hist(struct funclatency_bpf *skel)
{
	for (int i = 0; i < LOG2_SLOTS; i++)
		__atomic_store_n(&skel->bss->hist[i], 0, __ATOMIC_RELAXED);
	for (int i = 0; i <= FUNC_LIN_SLOTS; i++)
		__atomic_store_n(&skel->bss->lin_hist[i], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&skel->bss->count, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&skel->bss->total_ns, 0, __ATOMIC_RELAXED);
}

int cmd_funclatency(int argc, char **argv)
{
	struct funclatency_opts o = { 0 };
	struct funclatency_bpf *skel = NULL;
	char *binary = NULL, *func = NULL;
	uint64_t off = 0;
	int err, ret = 1;

	err = parse_opts(&o, argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	err = uprobe_parse_target(o.target, &binary, &func);
	if (err == -EINVAL) {
		fprintf(stderr, "perfkit funclatency: %s\n", pk_errmsg());
		usage(stderr);
		return 2;
	}
	if (err || uprobe_func_offset(binary, func, &off, NULL))
		goto fail;
	if (bpfk_check_pid(o.pid) || bpfk_start(o.verbose, NULL, NULL, NULL))
		goto fail;

	skel = funclatency_bpf__open();
	if (!skel) {
		bpfk_error(errno, "opening BPF skeleton");
		goto fail;
	}
	skel->rodata->targ_tgid = (__u32)o.pid;
	skel->rodata->units = o.units;
	skel->rodata->hist_mode = o.lin_step ? FUNC_HIST_LINEAR : FUNC_HIST_LOG2;
	skel->rodata->lin_step = o.lin_step ? o.lin_step : 1;
	if (bpfk_load_attach(skel->skeleton, NULL))   /* attached by hand: uprobes */
		goto fail;

	LIBBPF_OPTS(bpf_uprobe_opts, uopts);
	pid_t upid = o.pid ? (pid_t)o.pid : -1;
	uopts.retprobe = false;
	skel->links.func_entry = bpf_program__attach_uprobe_opts(skel->progs.func_entry, upid,
								 binary, off, &uopts);
	if (skel->links.func_entry) {
		uopts.retprobe = true;
		skel->links.func_exit = bpf_program__attach_uprobe_opts(skel->progs.func_exit, upid,
									binary, off, &uopts);
	}
	if (!skel->links.func_entry || !skel->links.func_exit) {
		err = errno;
		char what[PATH_MAX + 160];
		if (err == ESRCH && o.pid) {   /* it ended since the check above */
			pk_error(ESRCH, "attaching uprobe to %s:%s: no process with PID %ld", binary,
				 func, o.pid);
			goto fail;
		}
		snprintf(what, sizeof(what), "attaching uprobe to %s:%s (offset 0x%llx)%s", binary,
			 func, (unsigned long long)off,
			 err == ENOENT || err == EOPNOTSUPP || err == ENOTSUP ?
			 " (uprobes need CONFIG_UPROBES=y and CONFIG_UPROBE_EVENTS=y)" : "");
		bpfk_error(err, what);
		goto fail;
	}

	bpfk_stop_on_signals();
	if (looks_cxx(binary, func))
		fprintf(stderr, "perfkit funclatency: warning: %s is C++: an exception that unwinds through %s "
			"cannot pass the kernel's return probe (the unwinder cannot follow its trampoline) and "
			"ends the program in std::terminate\n", binary, func);
	fprintf(stderr, "Tracing 1 function for \"%s:%s\"... Hit Ctrl-C to end.\n", binary, func);
	unsigned long long start = bpfk_now_ns();
	unsigned long long end = o.duration > 0 ? start + (unsigned long long)(o.duration * 1e9) : 0;
	for (;;) {
		bpfk_wait_interval(o.interval, end);
		printf("\n");
		print_hist(skel, &o);
		if (bpfk_stopped() || (end && bpfk_now_ns() >= end) || !(o.interval > 0))
			break;
		reset_hist(skel);
	}
	if (skel->bss->abandoned)
		fprintf(stderr, "perfkit funclatency: %llu calls left without a return seen (longjmp, an exception, "
			"a tail call) not measured\n", (unsigned long long)skel->bss->abandoned);
	if (skel->bss->too_deep)
		fprintf(stderr, "perfkit funclatency: %llu calls nested deeper than %d not measured\n",
			(unsigned long long)skel->bss->too_deep, FUNC_MAX_DEPTH);
	fprintf(stderr, "Exiting trace of %s:%s\n", binary, func);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "perfkit funclatency: %s\n", pk_errmsg());
out:
	funclatency_bpf__destroy(skel);
	free(binary);
	free(func);
	return ret;
}
#endif /* PERFKIT_NO_BPF */
