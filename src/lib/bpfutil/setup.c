/* SPDX-License-Identifier: GPL-2.0-or-later */
/* setup.c — libbpf glue shared by the eBPF tools (see setup.h). */
#include "bpfutil/setup.h"

#ifndef PERFKIT_NO_BPF
#include <bpf/libbpf.h>
#endif
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "tracefs/tracefs.h"

static char last_msg[512];
static int verbose_mode;
static volatile sig_atomic_t stop_flag;

#ifndef PERFKIT_NO_BPF
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (verbose_mode)
		return vfprintf(stderr, fmt, ap);
	if (level != LIBBPF_WARN)
		return 0;
	char line[sizeof(last_msg)];
	vsnprintf(line, sizeof(line), fmt, ap);
	size_t n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
		line[--n] = '\0';
	/* libbpf starts its own messages with "libbpf: "; bpfk_error adds that */
	char *msg = line;
	if (!strncmp(msg, "libbpf: ", 8)) {
		msg += 8;
		n -= 8;
	}
	if (n)
		memcpy(last_msg, msg, n + 1);
	return 0;
}

void bpfk_init(int verbose)
{
	verbose_mode = verbose;
	last_msg[0] = '\0';
	libbpf_set_print(libbpf_print);
}
#else
void bpfk_init(int verbose)
{
	verbose_mode = verbose;
	last_msg[0] = '\0';
}
#endif

int bpfk_error(int err, const char *what)
{
	if (err < 0)
		err = -err;
	if (err == 0)
		err = EINVAL;
	if (err == EPERM || err == EACCES) {
		if (geteuid() != 0)
			return pk_error(EPERM, "%s: requires root (CAP_BPF and CAP_PERFMON)", what);
		return pk_error(err, "%s: permission denied%s%s", what,
				last_msg[0] ? ": " : "", last_msg);
	}
	if (last_msg[0])
		return pk_error(err, "%s: %s (libbpf: %s)", what, strerror(err), last_msg);
	return pk_error(err, "%s: %s", what, strerror(err));
}

int bpfk_check_root(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (geteuid() == 0)
		return 0;
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) == 0) {
		unsigned long long eff = data[0].effective | (unsigned long long)data[1].effective << 32;
		if ((eff >> 39 & 1) && (eff >> 38 & 1))   /* CAP_BPF = 39, CAP_PERFMON = 38 */
			return 0;
	}
	return pk_error(EPERM, "requires root (CAP_BPF and CAP_PERFMON)");
}

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

void bpfk_stop_on_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;   /* no SA_RESTART: a blocked poll returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

bool bpfk_stopped(void)
{
	return stop_flag != 0;
}

void bpfk_wait_interval(double interval_s, unsigned long long end_ns)
{
	unsigned long long until = interval_s > 0 ? bpfk_now_ns() + (unsigned long long)(interval_s * 1e9) : 0;

	if (end_ns && (!until || until > end_ns))
		until = end_ns;
	while (!bpfk_stopped() && (!until || bpfk_now_ns() < until))
		poll(NULL, 0, 20);
}

bool bpfk_interval_last(double interval_s, long count, long *n)
{
	return bpfk_stopped() || !(interval_s > 0) || (count && ++*n >= count);
}

unsigned long long bpfk_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

#ifndef PERFKIT_NO_BPF
int bpfk_poll_ring(struct ring_buffer *rb, double duration_s)
{
	return bpfk_poll_ring_work(rb, duration_s, NULL, NULL);
}

int bpfk_poll_ring_work(struct ring_buffer *rb, double duration_s, bool (*work)(void *ctx), void *ctx)
{
	unsigned long long end = duration_s > 0 ? bpfk_now_ns() + (unsigned long long)(duration_s * 1e9) : 0;
	int err = 0;

	while (!bpfk_stopped() && (!end || bpfk_now_ns() < end)) {
		err = ring_buffer__poll(rb, 100);
		if (err == -EINTR) {
			err = 0;
			break;
		}
		if (err >= 0)   /* events submitted without a wakeup (wakeup.h) */
			err = ring_buffer__consume(rb);
		if (err < 0)
			return bpfk_error(err, "polling ring buffer");
		err = 0;
		fflush(stdout);
		while (work && !bpfk_stopped() && work(ctx))
			ring_buffer__consume(rb);
	}
	ring_buffer__consume(rb);
	fflush(stdout);
	return err;
}

int bpfk_start(int verbose, const char *category, const char *name, const char *why)
{
	int err = bpfk_check_root();

	if (!err && category) {
		err = tracefs_ensure();
		if (!err && !tracefs_has_event(category, name))
			err = pk_error(ENOENT, "tracepoint %s/%s not found%s", category, name, why);
	}
	if (!err)
		bpfk_init(verbose);
	return err;
}

int bpfk_load_attach(struct bpf_object_skeleton *skeleton, const char *attach_what)
{
	int err = bpf_object__load_skeleton(skeleton);

	if (err)
		return bpfk_error(err, "loading BPF programs");
	return attach_what ? bpfk_attach(skeleton, attach_what) : 0;
}

int bpfk_attach(struct bpf_object_skeleton *skeleton, const char *attach_what)
{
	int err = bpf_object__attach_skeleton(skeleton);

	if (err) {
		struct strbuf what = STRBUF_INIT;

		sb_addf(&what, "attaching %s", attach_what);
		err = bpfk_error(err, what.buf);
		sb_release(&what);
	}
	return err;
}

struct ring_buffer *bpfk_ring_new(struct bpf_map *map, int (*fn)(void *ctx, void *data, size_t size),
				  void *ctx)
{
	struct ring_buffer *rb = ring_buffer__new(bpf_map__fd(map), fn, ctx, NULL);

	if (!rb)
		bpfk_error(errno, "creating ring buffer");
	return rb;
}
#endif

int bpfk_check_tid(long tid)
{
	if (tid && (tid < 0 || tid > INT_MAX || (kill((pid_t)tid, 0) && errno == ESRCH)))
		return pk_error(ESRCH, "no thread with TID %ld", tid);
	return 0;
}

int bpfk_check_pid(long pid)
{
	char path[64], line[256];
	long tgid = -1;

	if (pid == 0)
		return 0;
	if (pid < 0 || pid > INT_MAX || (kill((pid_t)pid, 0) && errno == ESRCH))
		return pk_error(ESRCH, "no process with PID %ld", pid);
	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? pk_error(ESRCH, "no process with PID %ld", pid) : 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			break;
	fclose(f);
	if (tgid > 0 && tgid != pid)
		return pk_error(EINVAL, "PID %ld is a thread of process %ld; give -p %ld", pid, tgid, tgid);
	return 0;
}
