/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit record — run a command (or watch -p PID / -a) and write its
 * samples to a perf.data file that Linux perf reads.
 *
 * Life: parse options → open one perf event per (event, thread, CPU) with
 * one ring buffer per CPU (the others redirected with
 * PERF_EVENT_IOC_SET_OUTPUT) → synthesize side-band records (kernel MMAP,
 * /proc maps and comms for -p/-a) → release the command (enable_on_exec)
 * → ppoll() the ring buffers, copying records straight into the buffered
 * writer, one FINISHED_ROUND after each pass → at the end add the build-ids
 * of the DSOs seen in MMAP2 records and finish (rename into place).
 *
 * Sources: perf_event_open(2); tools/perf/builtin-record.c and
 * tools/perf/util/{evsel,header,synthetic-events}.c for what perf expects.
 */
#include "event/ring.h"
#include "cmd/cmds.h"

#include "base/child.h"
#include "base/error.h"
#include "base/outfile.h"
#include "base/parse.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "event/event.h"
#include "event/tracepoint.h"
#include "perfdata/perfdata.h"
#include "symbol/symbol.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RB_PAGES 128          /* default data pages per CPU ring buffer (512 KiB) */
#define DEFAULT_FREQ 999
#define MAX_EVENTS 16
/* --call-graph dwarf: perf's PERF_REGS_MASK (arch/x86/include/uapi/asm/perf_regs.h
 * order, DS/ES/FS/GS left out; arm64: x0..x30, sp, pc) */
#if defined(__x86_64__)
#define DWARF_REGS_MASK 0xff0fffULL
#elif defined(__aarch64__)
#define DWARF_REGS_MASK ((1ULL << 33) - 1)
#else
#define DWARF_REGS_MASK 0ULL
#endif

struct ring {
	int fd;
	uint8_t *base;        /* control page, then data pages */
	size_t map_len;
	uint64_t mask;        /* data size - 1 */
};

struct rec {
	/* options */
	const char *output;
	int force;                   /* -f: replace an output that is a symlink */
	const char *ev_specs[MAX_EVENTS];
	size_t nr_ev;
	uint64_t freq, period;
	int strict_freq;        /* --strict-freq: refuse -F above the kernel's maximum */
	int callgraph, system_wide;  /* callgraph: 0 none, 1 fp, 2 dwarf */
	uint32_t stack_size;         /* --call-graph dwarf: user stack bytes per sample */
	pid_t target_pid;
	char **cmd;
	uint64_t mmap_pages;      /* -m: data pages per ring buffer, a power of 2 */

	struct perf_event_attr attrs[MAX_EVENTS];
	int *cpus;
	size_t nr_cpus;
	pid_t *tids;              /* threads watched (-p), or {child}, or {-1} */
	size_t nr_tids;
	int *fds;                 /* [ev][tid][cpu] */
	size_t nr_fds;
	struct ring *rings;       /* one per CPU */
	uint64_t *ids;            /* [ev][tid][cpu], from PERF_EVENT_IOC_ID */
	struct pd_writer *w;
	uint64_t first_id;
	uint64_t ktext, kend;     /* kernel text range from /proc/kallsyms */

	uint64_t samples, lost;
	uint64_t lost_ring;       /* of lost: counted by PERF_RECORD_LOST records */
	struct hashmap dsos;      /* executable DSO paths seen in MMAP2 */
	size_t page_size;
	uint8_t *scratch;         /* a wrapped record, made contiguous */
	size_t scratch_len;

	pid_t child;
	struct pk_child held;     /* the command, forked and held before its exec */
};

static volatile sig_atomic_t got_signal, got_sigchld;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void on_sigchld(int sig)
{
	(void)sig;
	got_sigchld = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit record [-F HZ | -c PERIOD] [-e EVENT] [-g] [-o FILE [-f]] [-m PAGES] [-p PID | -a] [-- CMD ARGS...]\n"
		"  -F, --freq HZ        sample at HZ samples per second (default %d)\n"
		"  -c, --count PERIOD   sample every PERIOD events\n"
		"  -e, --event EVENT    event to sample (perf's names; default cpu-clock), repeatable\n"
		"  -g                   record frame-pointer call chains (user and kernel)\n"
		"      --call-graph fp|dwarf[,SIZE]  frame pointers, or registers + SIZE bytes of\n"
		"                       user stack (default 8192) unwound with DWARF at report time\n"
		"  -o, --output FILE    output file (default perf.data; an old one becomes FILE.old;\n"
		"                       a device or FIFO such as /dev/null is written to directly),\n"
		"                       created mode 0600; a symbolic link there is not replaced\n"
		"  -f, --force          replace it (the link itself: its target is never written)\n"
		"  -p, --pid PID        record an existing process (all its threads)\n"
		"  -a, --all-cpus       record the whole system\n"
		"  -m, --mmap-pages N   ring buffer data pages per CPU, a power of 2 (default %d)\n"
		"      --strict-freq    refuse an -F above the kernel's maximum sample rate\n"
		"                       (perf_event_max_sample_rate) instead of lowering it\n",
		DEFAULT_FREQ, RB_PAGES);
}

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

/* "0-3,5" → CPU numbers. */
static int online_cpus(struct rec *r)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	char buf[4096];
	size_t alloc = 16;
	r->cpus = xmalloc(alloc * sizeof(int));
	r->nr_cpus = 0;
	if (f && fgets(buf, sizeof(buf), f)) {
		char *p = buf;
		while (*p && *p != '\n') {
			char *e;
			long a = strtol(p, &e, 10), b = a;
			if (e == p)
				break;
			if (*e == '-')
				b = strtol(e + 1, &e, 10);
			for (long c = a; c <= b && c < 65536; c++) {
				if (r->nr_cpus == alloc)
					r->cpus = xrealloc(r->cpus, (alloc *= 2) * sizeof(int));
				r->cpus[r->nr_cpus++] = (int)c;
			}
			p = *e == ',' ? e + 1 : e;
		}
	}
	if (f)
		fclose(f);
	if (!r->nr_cpus) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		for (long c = 0; c < (n > 0 ? n : 1); c++) {
			if (r->nr_cpus == alloc)
				r->cpus = xrealloc(r->cpus, (alloc *= 2) * sizeof(int));
			r->cpus[r->nr_cpus++] = (int)c;
		}
	}
	return 0;
}

/* Threads of pid from /proc/PID/task. */
static int list_threads(struct rec *r, pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return pk_error(errno, "no process with pid %d: %s", (int)pid, strerror(errno));
	size_t alloc = 8;
	r->tids = xmalloc(alloc * sizeof(pid_t));
	r->nr_tids = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (r->nr_tids == alloc)
			r->tids = xrealloc(r->tids, (alloc *= 2) * sizeof(pid_t));
		r->tids[r->nr_tids++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	if (!r->nr_tids)
		return pk_error(ESRCH, "no process with pid %d", (int)pid);
	return 0;
}

/* perf_event_paranoid > 1 refused kernel samples: one line, as perf -v */
static void note_user_only(void)
{
	int level = -1;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = -1;
		fclose(f);
	}
	fprintf(stderr, "perfkit record: kernel.perf_event_paranoid=%d: sampling user space only; "
		"run as root or lower it to sample the kernel too\n", level);
}

static int open_error(struct rec *r, size_t ev, int err)
{
	const char *name = r->ev_specs[ev];
	int pmu = ev_pmu_error(&r->attrs[ev], name, err);
	if (pmu)
		return pmu;
	if (err == EACCES || err == EPERM) {
		int lvl = -1;
		FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
		if (f) {
			if (fscanf(f, "%d", &lvl) != 1)
				lvl = -1;
			fclose(f);
		}
		return pk_error(err, "no permission to open event '%s' (perf_event_paranoid is %d): %s",
				name, lvl, strerror(err));
	}
	if (err == EINVAL && r->attrs[ev].freq) {
		long max = -1;
		FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
		if (f) {
			if (fscanf(f, "%ld", &max) != 1)
				max = -1;
			fclose(f);
		}
		if (max > 0 && r->attrs[ev].sample_freq > (uint64_t)max)
			return pk_error(err, "-F %llu is above the kernel's maximum sample rate %ld "
					"(/proc/sys/kernel/perf_event_max_sample_rate)",
					(unsigned long long)r->attrs[ev].sample_freq, max);
	}
	if (err == EINVAL && r->attrs[ev].precise_ip)
		return pk_error(err, "event '%s': precise sampling (:p) is not supported here", name);
	if (err == ESRCH)
		return pk_error(err, "the process to record has gone away");
	if (err == EMFILE)
		return pk_error(err, "too many open files (one per event, thread and CPU): raise 'ulimit -n'");
	return pk_error(err, "cannot open event '%s': %s", name, strerror(err));
}

/* Tracepoints: the tracing data (their format files from tracefs) in the
 * file's HEADER_TRACING_DATA, so perf script and perfkit script can read
 * their raw records. */
static int set_tracing_data(struct rec *r, const char *const *names)
{
	const char *tps[MAX_EVENTS];
	size_t n = 0;

	for (size_t e = 0; e < r->nr_ev; e++)
		if (r->attrs[e].type == PERF_TYPE_TRACEPOINT)
			tps[n++] = names[e];
	if (!n)
		return 0;
	struct strbuf sb = STRBUF_INIT;
	int err = tp_tracing_data_build(&sb, tps, n);
	if (!err)
		pd_writer_set_tracing_data(r->w, sb.buf, sb.len);
	sb_release(&sb);
	return err;
}

/* Open every (event, thread, cpu) and map one ring buffer per CPU. */
static int open_events(struct rec *r)
{
	r->nr_fds = r->nr_ev * r->nr_tids * r->nr_cpus;
	/* one fd per (event, thread, CPU): many threads need more than 1024 */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max &&
	    rl.rlim_cur < r->nr_fds + 64) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	r->fds = xmalloc(r->nr_fds * sizeof(int));
	r->ids = xcalloc(r->nr_fds, sizeof(uint64_t));
	for (size_t i = 0; i < r->nr_fds; i++)
		r->fds[i] = -1;
	r->rings = xcalloc(r->nr_cpus, sizeof(*r->rings));
	for (size_t c = 0; c < r->nr_cpus; c++)
		r->rings[c].fd = -1;

	for (size_t e = 0; e < r->nr_ev; e++) {
		for (size_t t = 0; t < r->nr_tids; t++) {
			for (size_t c = 0; c < r->nr_cpus; c++) {
				size_t i = (e * r->nr_tids + t) * r->nr_cpus + c;
				struct perf_event_attr *a = &r->attrs[e];
				long fd = sys_perf_event_open(a, r->tids[t], r->cpus[c], -1, PERF_FLAG_FD_CLOEXEC);
				if (fd < 0 && (errno == EACCES || errno == EPERM) && !a->exclude_kernel &&
				    e == 0 && t == 0 && c == 0) {
					/* like perf: fall back to user space only */
					a->exclude_kernel = 1;
					a->exclude_hv = 1;
					fd = sys_perf_event_open(a, r->tids[t], r->cpus[c], -1, PERF_FLAG_FD_CLOEXEC);
					if (fd >= 0)
						note_user_only();
				}
				if (fd < 0) {
					if (errno == ESRCH && r->target_pid && t > 0)
						continue; /* a thread exited meanwhile */
					return open_error(r, e, errno);
				}
				r->fds[i] = (int)fd;
				uint64_t id = 0;
				if (ioctl((int)fd, PERF_EVENT_IOC_ID, &id) < 0)
					return pk_error(errno, "PERF_EVENT_IOC_ID: %s", strerror(errno));
				if (!r->first_id)
					r->first_id = id;
				r->ids[i] = id;
				struct ring *rg = &r->rings[c];
				if (rg->fd < 0) {
					size_t len = (r->mmap_pages + 1) * r->page_size;
					void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
					if (m == MAP_FAILED && r->mmap_pages > 16) {
						/* smaller buffer when perf_event_mlock_kb is tight */
						len = (16 + 1) * r->page_size;
						m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
					}
					if (m == MAP_FAILED)
						return pk_error(errno, "cannot map the ring buffer of CPU %d: %s",
								r->cpus[c], strerror(errno));
					rg->fd = (int)fd;
					rg->base = m;
					rg->map_len = len;
					rg->mask = len - r->page_size - 1;
				} else if (ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, rg->fd) < 0) {
					return pk_error(errno, "PERF_EVENT_IOC_SET_OUTPUT: %s", strerror(errno));
				}
			}
		}
	}
	return 0;
}

/* ---- synthesized side-band records ---- */

/* The sample_id_all trailer for a synthesized record (time 0, like perf). */
static size_t put_trailer(const struct rec *r, uint8_t *p, uint32_t pid, uint32_t tid)
{
	uint64_t st = r->attrs[0].sample_type;
	size_t n = 0;
	if (st & PERF_SAMPLE_TID) {
		memcpy(p + n, &pid, 4);
		memcpy(p + n + 4, &tid, 4);
		n += 8;
	}
	uint64_t zero = 0;
	if (st & PERF_SAMPLE_TIME) {
		memcpy(p + n, &zero, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		memcpy(p + n, &r->first_id, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		memcpy(p + n, &r->first_id, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		memcpy(p + n, &zero, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		memcpy(p + n, &r->first_id, 8);
		n += 8;
	}
	return n;
}

/* perf record ends with PERF_RECORD_LOST_SAMPLES, which perf report sums
 * as "Total Lost Samples"; the kernel's PERF_RECORD_LOST records stay in
 * the data too (perf keeps both). */
static int write_lost_samples(struct rec *r)
{
	uint8_t buf[sizeof(struct perf_event_header) + 8 + 64];
	struct perf_event_header h = { .type = PERF_RECORD_LOST_SAMPLES };
	size_t n = sizeof(h);

	if (!r->lost_ring)
		return 0;
	memcpy(buf + n, &r->lost_ring, 8);
	n += 8;
	n += put_trailer(r, buf + n, 0, 0);
	h.size = (uint16_t)n;
	memcpy(buf, &h, sizeof(h));
	return pd_writer_write(r->w, buf, n);
}

static size_t name_field(uint8_t *p, const char *name)
{
	size_t l = strlen(name);
	if (l > PATH_MAX)
		l = PATH_MAX;
	size_t padded = (l + 1 + 7) & ~(size_t)7;
	memcpy(p, name, l);
	memset(p + l, 0, padded - l);
	return padded;
}

static int emit(struct rec *r, uint8_t *rec, size_t len)
{
	struct perf_event_header *h = (struct perf_event_header *)rec;
	h->size = (uint16_t)len;
	return pd_writer_write(r->w, rec, len);
}

static int synth_comm(struct rec *r, uint32_t pid, uint32_t tid, const char *comm)
{
	uint8_t buf[256];
	struct perf_event_header *h = (struct perf_event_header *)buf;
	h->type = PERF_RECORD_COMM;
	h->misc = 0;
	memcpy(buf + 8, &pid, 4);
	memcpy(buf + 12, &tid, 4);
	char c[17];
	snprintf(c, sizeof(c), "%s", comm);
	size_t n = 16 + name_field(buf + 16, c);
	n += put_trailer(r, buf + n, pid, tid);
	return emit(r, buf, n);
}

#define DSO_HOLD_MAX 256   /* files held open (fds) for add_build_ids */

static void note_dso(struct rec *r, const char *path)
{
	if (path[0] != '/')
		return;
	int created;
	struct hm_entry *e = hm_upsert(&r->dsos, path, strlen(path), &created);
	/* hold the file mapped now (val.u = fd + 1): deleted or replaced
	 * before the end, it still goes to the build-id cache */
	if (created && r->dsos.nr <= DSO_HOLD_MAX) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		e->val.u = fd >= 0 ? (uint64_t)fd + 1 : 0;
	}
}

static int synth_mmap2(struct rec *r, uint32_t pid, uint32_t tid, uint64_t start, uint64_t len,
		       uint64_t pgoff, uint32_t maj, uint32_t min, uint64_t ino,
		       uint32_t prot, uint32_t flags, const char *name)
{
	static uint8_t buf[PATH_MAX + 256];
	struct perf_event_header *h = (struct perf_event_header *)buf;
	h->type = PERF_RECORD_MMAP2;
	h->misc = PERF_RECORD_MISC_USER;
	uint64_t gen = 0;
	memcpy(buf + 8, &pid, 4);
	memcpy(buf + 12, &tid, 4);
	memcpy(buf + 16, &start, 8);
	memcpy(buf + 24, &len, 8);
	memcpy(buf + 32, &pgoff, 8);
	memcpy(buf + 40, &maj, 4);
	memcpy(buf + 44, &min, 4);
	memcpy(buf + 48, &ino, 8);
	memcpy(buf + 56, &gen, 8);
	memcpy(buf + 64, &prot, 4);
	memcpy(buf + 68, &flags, 4);
	size_t n = 72 + name_field(buf + 72, name);
	n += put_trailer(r, buf + n, pid, tid);
	note_dso(r, name);
	return emit(r, buf, n);
}

/* /proc/PID/task/ * /comm and the executable mappings of /proc/PID/maps. */
static int synth_process(struct rec *r, pid_t pid)
{
	char path[96], line[PATH_MAX + 256];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return 0; /* gone */
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		char cpath[128], comm[64] = "";
		snprintf(cpath, sizeof(cpath), "/proc/%d/task/%.20s/comm", (int)pid, de->d_name);
		FILE *f = fopen(cpath, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
		int rc = synth_comm(r, (uint32_t)pid, (uint32_t)atoi(de->d_name), comm);
		if (rc) {
			closedir(d);
			return rc;
		}
	}
	closedir(d);

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int rc = 0;
	while (!rc && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		unsigned maj, min;
		char perms[8];
		int consumed = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off,
			   &maj, &min, &ino, &consumed) < 7)
			continue;
		if (strlen(perms) < 4 || perms[2] != 'x')
			continue;
		char *name = line + consumed;
		name[strcspn(name, "\n")] = 0;
		if (!*name)
			name = "//anon";
		uint32_t prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
		uint32_t flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		rc = synth_mmap2(r, (uint32_t)pid, (uint32_t)pid, start, end - start, off, maj, min, ino,
				 prot, flags, name);
		/* a binary deleted while it runs: save it by build-id while
		 * the process holds it, so its symbols can be read later */
		size_t nl = strlen(name);
		if (!rc && nl > 10 && !strcmp(name + nl - 10, " (deleted)")) {
			char mf[96];
			uint8_t id[20];
			snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx", (int)pid, start, end);
			int n = sym_build_id_cache_save(mf, name, id, sizeof(id));
			if (n > 0)
				pd_writer_add_build_id(r->w, PERF_RECORD_MISC_USER, UINT32_MAX, id, (size_t)n, name);
		}
	}
	fclose(f);
	return rc;
}

static int synth_all_processes(struct rec *r)
{
	DIR *d = opendir("/proc");
	if (!d)
		return pk_error(errno, "/proc: %s", strerror(errno));
	struct dirent *de;
	int rc = 0;
	while (!rc && (de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			rc = synth_process(r, (pid_t)atoi(de->d_name));
	closedir(d);
	return rc;
}

/* Where the kernel is: from _text (perf's relocation reference symbol,
 * found near the top of /proc/kallsyms, so the rest of that 30 ms file is
 * not read) up to the lowest module address in /proc/modules, or to the
 * end of the address space without modules — what perf does when the
 * kernel has no _etext.  Read before the events are opened, so with -a it is
 * not itself recorded. */
static void kallsyms_range(struct rec *r)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	if (!f)
		return;
	char line[512];
	uint64_t text = 0;
	while (!text && fgets(line, sizeof(line), f)) {
		char *e;
		uint64_t a = strtoull(line, &e, 16);
		if (e == line || e[0] != ' ' || !e[1] || e[2] != ' ')
			continue;
		const char *name = e + 3;
		if (!strncmp(name, "_text\n", 6) || !strncmp(name, "_stext\n", 7))
			text = a;
	}
	fclose(f);
	if (!text)
		return; /* addresses hidden (kptr_restrict): perf copes without */
	uint64_t end = UINT64_MAX;
	f = fopen("/proc/modules", "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *p = strstr(line, " 0x");
			uint64_t a = p ? strtoull(p + 1, NULL, 16) : 0;
			if (a > text && a < end)
				end = a;
		}
		fclose(f);
	}
	r->ktext = text;
	r->kend = end;
}

/* The kernel map perf expects: MMAP "[kernel.kallsyms]_text" at _text with
 * pgoff = _text. */
static int synth_kernel_mmap(struct rec *r)
{
	if (!r->ktext)
		return 0;
	uint8_t buf[256];
	struct perf_event_header *h = (struct perf_event_header *)buf;
	h->type = PERF_RECORD_MMAP;
	h->misc = PERF_RECORD_MISC_KERNEL;
	uint32_t pid = UINT32_MAX, tid = 0;
	uint64_t len = r->kend - r->ktext;
	memcpy(buf + 8, &pid, 4);
	memcpy(buf + 12, &tid, 4);
	memcpy(buf + 16, &r->ktext, 8);
	memcpy(buf + 24, &len, 8);
	memcpy(buf + 32, &r->ktext, 8);
	size_t n = 40 + name_field(buf + 40, "[kernel.kallsyms]_text");
	n += put_trailer(r, buf + n, pid, tid);
	return emit(r, buf, n);
}

/* NT_GNU_BUILD_ID of the running kernel from /sys/kernel/notes. */
static int kernel_build_id(uint8_t *id, size_t idsize)
{
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	uint8_t buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	size_t off = 0;
	while (n > 0 && off + 12 <= (size_t)n) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		size_t name_off = off + 12;
		size_t desc_off = name_off + ((namesz + 3) & ~3u);
		size_t next = desc_off + ((descsz + 3) & ~3u);
		if (next > (size_t)n || next <= off)
			break;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 && !memcmp(buf + name_off, "GNU", 4)) {
			size_t l = descsz < idsize ? descsz : idsize;
			memcpy(id, buf + desc_off, l);
			return (int)l;
		}
		off = next;
	}
	return -ENODATA;
}

/* The [vdso] is the kernel's, the same in every process: like perf
 * record, save this process's copy in perf's build-id cache
 * (~/.debug/[vdso]/<build-id>/vdso and ~/.debug/.build-id/xx/<rest>), where
 * perf report and perfkit report look for it, and return its build-id
 * (its size, or 0 when there is none or no cache could be written). */
static int save_vdso(uint8_t *id, size_t idsize)
{
	const char *home = getenv("HOME");
	FILE *maps = fopen("/proc/self/maps", "r");
	unsigned long lo = 0, hi = 0;
	char line[512];
	struct strbuf dir = STRBUF_INIT, tmp = STRBUF_INIT, hex = STRBUF_INIT, path = STRBUF_INIT;
	int n = 0, fd;

	if (!maps)
		return 0;
	while (fgets(line, sizeof(line), maps))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			break;
	fclose(maps);
	if (!home || !*home || !lo || hi <= lo || hi - lo > (1u << 20))
		return 0;
	sb_addf(&dir, "%s/.debug/[vdso]", home);
	sb_addf(&tmp, "%s/.vdso.XXXXXX", dir.buf);
	char *parent = xstrdup(dir.buf);
	*strrchr(parent, '/') = '\0';
	mkdir(parent, 0755);
	free(parent);
	mkdir(dir.buf, 0755);
	fd = mkstemp(tmp.buf);
	if (fd < 0)
		goto out;
	bool ok = write(fd, (const void *)lo, hi - lo) == (ssize_t)(hi - lo);
	close(fd);
	n = ok ? sym_read_build_id(tmp.buf, id, idsize) : 0;
	if (n <= 0) {
		n = 0;
		unlink(tmp.buf);
		goto out;
	}
	for (int i = 0; i < n; i++)
		sb_addf(&hex, "%02x", id[i]);
	sb_addf(&path, "%s/%s", dir.buf, hex.buf);
	mkdir(path.buf, 0755);
	sb_addstr(&path, "/vdso");
	if (access(path.buf, R_OK) == 0 || rename(tmp.buf, path.buf) != 0)
		unlink(tmp.buf);
	/* perf finds cached files through ~/.debug/.build-id/xx/<rest> */
	sb_reset(&path);
	sb_addf(&path, "%s/.debug/.build-id", home);
	mkdir(path.buf, 0755);
	sb_addf(&path, "/%.2s", hex.buf);
	mkdir(path.buf, 0755);
	sb_addf(&path, "/%s", hex.buf + 2);
	sb_reset(&tmp);
	sb_addf(&tmp, "../../[vdso]/%s/vdso", hex.buf);
	if (symlink(tmp.buf, path.buf) != 0) {
		/* already there */
	}
out:
	sb_release(&dir);
	sb_release(&tmp);
	sb_release(&hex);
	sb_release(&path);
	return n;
}

static void add_build_ids(struct rec *r)
{
	uint8_t id[20];
	int n = kernel_build_id(id, sizeof(id));
	if (n > 0)
		pd_writer_add_build_id(r->w, PERF_RECORD_MISC_KERNEL, UINT32_MAX, id, (size_t)n,
				       "[kernel.kallsyms]");
	n = save_vdso(id, sizeof(id));
	if (n > 0)
		pd_writer_add_build_id(r->w, PERF_RECORD_MISC_USER, UINT32_MAX, id, (size_t)n, "[vdso]");
	for (size_t i = 0; i < r->dsos.nr; i++) {
		const char *path = r->dsos.entries[i].key;
		uint64_t held = r->dsos.entries[i].val.u;
		n = sym_read_build_id(path, id, sizeof(id));
		if (held) {
			/* the file that was mapped, if the path now names another
			 * one or none: its copy in the build-id cache */
			char fdp[32];
			uint8_t hid[20];
			snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", (int)(held - 1));
			int hn = sym_read_build_id(fdp, hid, sizeof(hid));
			if (hn > 0 && (n != hn || memcmp(id, hid, (size_t)hn)))
				n = sym_build_id_cache_save(fdp, path, id, sizeof(id));
		}
		if (n > 0)
			pd_writer_add_build_id(r->w, PERF_RECORD_MISC_USER, UINT32_MAX, id, (size_t)n, path);
	}
}

/* ---- ring buffers ---- */

static void ring_copy(const struct ring *rg, uint64_t pos, void *dst, size_t len)
{
	perf_ring_copy(rg->base, rg->map_len, rg->mask, pos, dst, len);
}

/* Look at one record's type: count samples and losses, note DSOs. */
static void inspect(struct rec *r, const struct ring *rg, uint64_t pos, const struct perf_event_header *h)
{
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		r->samples++;
		break;
	case PERF_RECORD_LOST: {
		uint64_t v[2];
		if (h->size >= 24) {
			ring_copy(rg, pos + 8, v, 16);
			r->lost += v[1];
			r->lost_ring += v[1];
		}
		break;
	}
	case PERF_RECORD_LOST_SAMPLES: {
		uint64_t v;
		if (h->size >= 16) {
			ring_copy(rg, pos + 8, &v, 8);
			r->lost += v;
		}
		break;
	}
	case PERF_RECORD_MMAP2:
		if (h->size > 72 && !(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
			if (r->scratch_len < h->size) {
				r->scratch_len = h->size;
				r->scratch = xrealloc(r->scratch, r->scratch_len);
			}
			ring_copy(rg, pos, r->scratch, h->size);
			char *name = (char *)r->scratch + 72;
			if (memchr(name, 0, h->size - 72))
				note_dso(r, name);
		}
		break;
	default:
		break;
	}
}

/* Copy everything between tail and head into the file. */
static int ring_drain(struct rec *r, struct ring *rg, int *wrote)
{
	struct perf_event_mmap_page *pg = (struct perf_event_mmap_page *)rg->base;
	uint64_t head = perf_ring_head(rg->base);
	uint64_t tail = pg->data_tail;
	if (head == tail)
		return 0;
	uint64_t size = rg->mask + 1;
	uint64_t pos = tail;
	while (pos < head) {
		struct perf_event_header h;
		if (head - pos < sizeof(h))
			break;
		ring_copy(rg, pos, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - pos)
			break;
		inspect(r, rg, pos, &h);
		pos += h.size;
	}
	/* whole records only: [tail, pos) */
	const uint8_t *data = rg->base + (rg->map_len - size);
	uint64_t off = tail & rg->mask, len = pos - tail;
	int rc = 0;
	if (len) {
		if (off + len <= size) {
			rc = pd_writer_write(r->w, data + off, len);
		} else {
			rc = pd_writer_write(r->w, data + off, size - off);
			if (!rc)
				rc = pd_writer_write(r->w, data, len - (size - off));
		}
		*wrote = 1;
	}
	perf_ring_release(rg->base, pos);
	return rc;
}

static int drain_all(struct rec *r)
{
	int wrote = 0;
	for (size_t c = 0; c < r->nr_cpus; c++) {
		if (r->rings[c].fd < 0)
			continue;
		int rc = ring_drain(r, &r->rings[c], &wrote);
		if (rc)
			return rc;
	}
	if (wrote) {
		struct perf_event_header fr = { .type = PD_RECORD_FINISHED_ROUND, .misc = 0, .size = 8 };
		return pd_writer_write(r->w, &fr, sizeof(fr));
	}
	return 0;
}

/* ---- the command ---- */

/* Does the data written to path land in our stdout? */
static bool output_is_stdout(const char *path)
{
	struct stat o, so;
	int fd = strcmp(path, "-") ? of_std_fd(path) : 1;

	if (fd == 1)
		return true;
	if (fstat(1, &so) < 0 || (fd >= 0 ? fstat(fd, &o) : stat(path, &o)) < 0)
		return false;
	return o.st_dev == so.st_dev && o.st_ino == so.st_ino;
}

/* Fork the command, held before its exec until start_command(). */
static int fork_command(struct rec *r, const sigset_t *oldmask)
{
	/* like perf: when the data goes to our stdout (a pipe, -o -,
	 * -o /dev/stdout or the same file), the command's output goes to
	 * stderr, or it would land in the middle of the data */
	int err = pk_child_fork(&r->held, r->cmd, oldmask,
				output_is_stdout(r->output) ? PK_CHILD_STDOUT_TO_STDERR : 0);

	if (!err)
		r->child = r->held.pid;
	return err;
}

/* Release the command; returns 0 or the exec errno. */
static int start_command(struct rec *r)
{
	return pk_child_release(&r->held);
}

/* An option value base/parse refused: its one line (option and range), exit 2. */
static int value_error(void)
{
	fprintf(stderr, "perfkit record: %s\n", pk_errmsg());
	return 2;
}

static int parse_args(struct rec *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "freq", required_argument, NULL, 'F' },
		{ "count", required_argument, NULL, 'c' },
		{ "event", required_argument, NULL, 'e' },
		{ "call-graph", optional_argument, NULL, 'G' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "strict-freq", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	uint64_t v;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+F:c:e:go:fp:am:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			if (pk_parse_u64("-F", optarg, 1, UINT64_MAX, &r->freq))
				return value_error();
			break;
		case 'c':
			/* the kernel refuses a period with bit 63 set */
			if (pk_parse_u64("-c", optarg, 1, INT64_MAX, &r->period))
				return value_error();
			break;
		case 'e': {
			char *s = optarg, *save = NULL;
			for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				if (r->nr_ev == MAX_EVENTS) {
					fprintf(stderr, "perfkit record: at most %d events\n", MAX_EVENTS);
					return 2;
				}
				r->ev_specs[r->nr_ev++] = tok;
			}
			break;
		}
		case 'G':
			/* "--call-graph dwarf" (perf's spelling) as well as "--call-graph=dwarf" */
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++]; /* perf's value is required */
			if (optarg && !strncmp(optarg, "dwarf", 5) && (!optarg[5] || optarg[5] == ',')) {
				/* dwarf[,SIZE]: registers + a copy of the user stack */
				uint64_t sz = 8192;
				if (optarg[5] && pk_parse_u64("--call-graph dwarf,SIZE", optarg + 6, 1, 65528, &sz))
					return value_error();
				r->callgraph = 2;
				r->stack_size = (uint32_t)((sz + 7) & ~7ULL);
				break;
			}
			if (optarg && strcmp(optarg, "fp")) {
				fprintf(stderr, "perfkit record: --call-graph '%s' is not supported (fp or dwarf[,SIZE])\n",
					optarg);
				return 2;
			}
			/* fall through */
		case 'g':
			r->callgraph = 1;
			break;
		case 'o':
			r->output = optarg;
			break;
		case 'f':
			r->force = 1;
			break;
		case 'p':
			if (pk_parse_u64("-p", optarg, 1, INT_MAX, &v))
				return value_error();
			r->target_pid = (pid_t)v;
			break;
		case 'a':
			r->system_wide = 1;
			break;
		case 'S':
			r->strict_freq = 1;
			break;
		case 'm':
			if (pk_parse_u64("-m", optarg, 1, 1u << 20, &r->mmap_pages))
				return value_error();
			if (r->mmap_pages & (r->mmap_pages - 1)) {
				fprintf(stderr, "perfkit record: -m expects a power of 2 from 1 to 1048576 pages, got '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (optopt && strchr("Fceopm", optopt))
				fprintf(stderr, "perfkit record: option -%c needs a value\n", optopt);
			else
				fprintf(stderr, "perfkit record: unknown option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (r->freq && r->period) {
		fprintf(stderr, "perfkit record: -F and -c cannot be used together\n");
		return 2;
	}
	if (!r->period) {
		/* perf's record_opts__config_freq(): above the kernel's maximum,
		 * -F is lowered to it with a warning (refused with --strict-freq);
		 * the default frequency is lowered with a note */
		unsigned max;
		uint64_t want = r->freq ? r->freq : DEFAULT_FREQ;
		if (ev_max_sample_rate(&max) == 0 && want > max) {
			if (r->freq && r->strict_freq) {
				fprintf(stderr, "perfkit record: error: Maximum frequency rate (%u Hz) exceeded.\n"
					"       Please use -F freq option with a lower value or consider\n"
					"       tweaking /proc/sys/kernel/perf_event_max_sample_rate.\n", max);
				return 1;
			}
			if (r->freq)
				fprintf(stderr, "perfkit record: warning: Maximum frequency rate (%u Hz) exceeded, throttling from %" PRIu64 " Hz to %u Hz.\n"
					"         The limit can be raised via /proc/sys/kernel/perf_event_max_sample_rate.\n"
					"         The kernel will lower it when perf's interrupts take too long.\n"
					"         Use --strict-freq to disable this throttling, refusing to record.\n",
					max, r->freq, max);
			else
				fprintf(stderr, "perfkit record: Lowering default frequency rate from %u to %u.\n"
					"Please consider tweaking /proc/sys/kernel/perf_event_max_sample_rate.\n",
					(unsigned)DEFAULT_FREQ, max);
			r->freq = max;
		}
	}
	if (r->target_pid && r->system_wide) {
		fprintf(stderr, "perfkit record: -p and -a cannot be used together\n");
		return 2;
	}
	if (!r->output[0]) {
		fprintf(stderr, "perfkit record: -o needs a file name\n");
		return 2;
	}
	if (!strcmp(r->output, "-")) {
		fprintf(stderr, "perfkit record: writing to standard output (perf's pipe mode) is not supported; "
			"give -o a file name\n");
		return 2;
	}
	struct stat st;
	if (stat(r->output, &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "perfkit record: '%s' is a directory; give -o a file name\n", r->output);
		return 2;
	}
	if (optind < argc)
		r->cmd = argv + optind;
	if (!r->cmd && !r->target_pid && !r->system_wide) {
		fprintf(stderr, "perfkit record: nothing to record: give a command, -p PID or -a\n");
		usage(stderr);
		return 2;
	}
	if (!r->nr_ev)
		r->ev_specs[r->nr_ev++] = "cpu-clock";
	if (!r->mmap_pages)
		r->mmap_pages = RB_PAGES;
	return -1;
}

static int setup_attrs(struct rec *r)
{
	for (size_t e = 0; e < r->nr_ev; e++) {
		struct perf_event_attr *a = &r->attrs[e];
		int rc = ev_parse(r->ev_specs[e], a);
		if (rc)
			return rc;
		if (r->period) {
			a->sample_period = r->period;
		} else if (a->type == PERF_TYPE_TRACEPOINT && !r->freq) {
			a->sample_period = 1;   /* as perf: every hit of a tracepoint */
		} else {
			a->freq = 1;
			a->sample_freq = r->freq ? r->freq : DEFAULT_FREQ;
		}
		a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				 PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
		if (r->system_wide)
			a->sample_type |= PERF_SAMPLE_CPU;
		if (a->type == PERF_TYPE_TRACEPOINT)   /* its record, and the CPU (as perf) */
			a->sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_CPU;
		if (r->callgraph)
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		if (r->callgraph == 2) {
			/* as perf: kernel callchain + user registers and stack,
			 * unwound at report time (x86-64: all but the segment regs) */
			a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a->exclude_callchain_user = 1;
			a->sample_regs_user = DWARF_REGS_MASK;
			a->sample_stack_user = r->stack_size;
			/* the unwinder (perf's too) reads .eh_frame_hdr through
			 * the maps: record the non-executable ones as well */
			a->mmap_data = e == 0;
		}
		if (r->callgraph) {
			/* write the kernel's callchain limit into the file, so
			 * report can tell a truncated chain from a full one */
			FILE *ms = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
			unsigned v;
			if (ms) {
				if (fscanf(ms, "%u", &v) == 1 && v > 0 && v <= 0xffff)
					a->sample_max_stack = (uint16_t)v;
				fclose(ms);
			}
		}
		a->read_format = PERF_FORMAT_ID;
		a->inherit = !r->system_wide;
		a->sample_id_all = 1;
		/* side-band records from the first event only, as perf does */
		a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = e == 0;
		if (r->cmd && !r->target_pid && !r->system_wide) {
			a->disabled = 1;
			a->enable_on_exec = 1;
		}
	}
	return 0;
}

static void cleanup(struct rec *r)
{
	if (r->rings)
		for (size_t c = 0; c < r->nr_cpus; c++)
			if (r->rings[c].base)
				munmap(r->rings[c].base, r->rings[c].map_len);
	if (r->fds)
		for (size_t i = 0; i < r->nr_fds; i++)
			if (r->fds[i] >= 0)
				close(r->fds[i]);
	free(r->rings);
	free(r->fds);
	free(r->ids);
	free(r->cpus);
	free(r->tids);
	free(r->scratch);
	for (size_t i = 0; i < r->dsos.nr; i++)
		if (r->dsos.entries[i].val.u)
			close((int)(r->dsos.entries[i].val.u - 1));
	hm_release(&r->dsos);
	if (r->held.go_fd >= 0)
		close(r->held.go_fd);
	if (r->held.err_fd >= 0)
		close(r->held.err_fd);
}

static int exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* Kill and reap a command that never ran. */
static void reap_unstarted(struct rec *r)
{
	if (r->child > 0) {
		kill(r->child, SIGKILL);
		waitpid(r->child, NULL, 0);
		r->child = 0;
	}
}

static int build_cmdline(struct rec *r, int argc, char **argv)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	char **v = xmalloc((size_t)(argc + 1) * sizeof(char *));
	v[0] = n > 0 ? exe : "perfkit";
	for (int i = 0; i < argc; i++)
		v[i + 1] = argv[i];
	/* argv[0] is "perfkit record": the header reads "EXE record ARGS", as
	 * perf's "/usr/bin/perf record ARGS" */
	if (argc > 0 && !strncmp(argv[0], "perfkit ", 8))
		v[1] = argv[0] + 8;
	pd_writer_set_cmdline(r->w, argc + 1, v);
	free(v);
	return 0;
}

static void rename_old(const char *path)
{
	struct stat st;
	/* never rename what the kernel provides (/dev/stdout to a file is a
	 * link under /dev: renaming it would move the link itself) */
	if (of_kernel_path(path) || stat(path, &st) || !S_ISREG(st.st_mode) || st.st_size == 0)
		return;
	size_t l = strlen(path) + 5;
	char *old = xmalloc(l);
	snprintf(old, l, "%s.old", path);
	rename(path, old);
	free(old);
}

int cmd_record(int argc, char **argv)
{
	struct rec r;
	memset(&r, 0, sizeof(r));
	r.output = "perf.data";
	r.held = (struct pk_child)PK_CHILD_INIT;
	hm_init(&r.dsos);
	r.page_size = (size_t)sysconf(_SC_PAGESIZE);

	/* keep a copy of argv for HEADER_CMDLINE: -e parsing edits it */
	char **argv_copy = xmalloc((size_t)(argc + 1) * sizeof(char *));
	for (int i = 0; i < argc; i++)
		argv_copy[i] = xstrdup(argv[i]);
	argv_copy[argc] = NULL;

	int ret = parse_args(&r, argc, argv);
	int status = 0, have_status = 0;
	if (ret >= 0)
		goto out_free;
	if (pk_options_only) {   /* the option fuzz harness: stop before running */
		ret = 0;
		goto out_free;
	}
	ret = 1;
	struct stat ost, tst;
	if (!r.force && !of_kernel_path(r.output) && lstat(r.output, &ost) == 0 && S_ISLNK(ost.st_mode) &&
	    !(stat(r.output, &tst) == 0 && !S_ISREG(tst.st_mode) && !S_ISDIR(tst.st_mode))) {
		/* the link may lead anywhere (an attacker's choice in a shared
		 * directory): never replace it without being told to; a link to
		 * a device or FIFO (/dev/stdout) is written through */
		fprintf(stderr, "perfkit record: %s: is a symbolic link; not replacing it (use -f)\n",
			r.output);
		goto out_free;
	}

	if (setup_attrs(&r)) {
		fprintf(stderr, "perfkit record: %s\n", pk_errmsg());
		ret = 2; /* a bad -e is a usage error */
		goto out;
	}
	online_cpus(&r);
	kallsyms_range(&r);
	if (r.system_wide) {
		r.tids = xmalloc(sizeof(pid_t));
		r.tids[0] = -1;
		r.nr_tids = 1;
	} else if (r.target_pid) {
		if (list_threads(&r, r.target_pid))
			goto err;
	}

	/* Signals: blocked except inside ppoll(), so none is missed. */
	sigset_t mask, oldmask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &oldmask);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_sigchld;
	sigaction(SIGCHLD, &sa, NULL);

	if (r.cmd) {
		if (fork_command(&r, &oldmask))
			goto err;
		if (!r.target_pid && !r.system_wide) {
			r.tids = xmalloc(sizeof(pid_t));
			r.tids[0] = r.child;
			r.nr_tids = 1;
		}
	}

	const char *names[MAX_EVENTS];
	for (size_t e = 0; e < r.nr_ev; e++)
		names[e] = r.ev_specs[e];
	if (open_events(&r))
		goto err_child;
	if (pd_writer_open(&r.w, r.output, r.attrs, names, r.nr_ev))
		goto err_child;
	if (set_tracing_data(&r, names))
		goto err_abort;
	for (size_t i = 0; i < r.nr_fds; i++)
		if (r.fds[i] >= 0)
			pd_writer_add_id(r.w, i / (r.nr_tids * r.nr_cpus), r.ids[i]);
	build_cmdline(&r, argc, argv_copy);

	/* Side-band records perf needs before the first sample. */
	if (synth_kernel_mmap(&r))
		goto err_abort;
	if (r.target_pid && synth_process(&r, r.target_pid))
		goto err_abort;
	if (r.system_wide && synth_all_processes(&r))
		goto err_abort;

	if (r.cmd) {
		int e = start_command(&r);
		if (e) {
			waitpid(r.child, NULL, 0);
			r.child = 0;
			pd_writer_abort(r.w);
			r.w = NULL;
			fprintf(stderr, "perfkit record: cannot run '%s': %s\n", r.cmd[0], strerror(e));
			ret = 127;
			goto out;
		}
	}

	/* Record until the command ends, the process goes away, or a signal. */
	struct pollfd *pfds = xcalloc(r.nr_cpus, sizeof(*pfds));
	size_t npfd = 0;
	for (size_t c = 0; c < r.nr_cpus; c++)
		if (r.rings[c].fd >= 0) {
			pfds[npfd].fd = r.rings[c].fd;
			pfds[npfd++].events = POLLIN;
		}
	sigset_t waitmask = oldmask;
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGCHLD);
	int forwarded = 0, rc = 0;
	for (;;) {
		rc = drain_all(&r);
		if (rc)
			break;
		if (got_signal) {
			if (r.child > 0 && forwarded < 2) {
				/* the command gets the signal too; a second one kills it */
				kill(r.child, forwarded ? SIGKILL : got_signal);
				forwarded++;
				got_signal = 0;
			} else if (r.child <= 0) {
				break;
			}
		}
		if (got_sigchld && r.child > 0) {
			got_sigchld = 0;
			if (waitpid(r.child, &status, WNOHANG) == r.child) {
				have_status = 1;
				r.child = 0;
				break;
			}
		}
		if (r.target_pid && !r.cmd && kill(r.target_pid, 0) < 0 && errno == ESRCH)
			break;
		if (forwarded && !r.child)
			break;
		/* records buffered while the rings are quiet reach the file
		 * within a second (a recorder killed with SIGKILL keeps them) */
		rc = pd_writer_tick(r.w);
		if (rc)
			break;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = 250 * 1000 * 1000 }, sec = { 1, 0 };
		int n = ppoll(pfds, npfd, r.target_pid ? &ts : &sec, &waitmask);
		if (n > 0) {
			int live = 0;
			for (size_t i = 0; i < npfd; i++) {
				if (pfds[i].revents & (POLLHUP | POLLERR))
					pfds[i].fd = -1; /* no more data will come: stop polling it */
				if (pfds[i].fd >= 0)
					live++;
			}
			if (!live && !r.child && !r.system_wide)
				break;
			if (!live) {
				/* only wait for a signal now */
				npfd = 0;
			}
		}
	}
	free(pfds);
	if (!rc) {
		/* disable, then take what is left */
		for (size_t i = 0; i < r.nr_fds; i++)
			if (r.fds[i] >= 0)
				ioctl(r.fds[i], PERF_EVENT_IOC_DISABLE, 0);
		rc = drain_all(&r);
	}
	if (r.child > 0) {
		/* -p/-a with a command, or an error: the command must still end */
		if (rc)
			kill(r.child, SIGTERM);
		if (waitpid(r.child, &status, 0) == r.child)
			have_status = 1;
		r.child = 0;
	}
	if (rc == -ENOSPC || rc == -EDQUOT) {
		/* disk full: keep the whole records written so far (the writer
		 * reserved room for the header and features) */
		char msg[512];
		snprintf(msg, sizeof(msg), "%s", pk_errmsg());
		add_build_ids(&r);
		rename_old(r.output);
		uint64_t kept = pd_writer_kept_samples(r.w);
		int frc = pd_writer_finish(r.w);
		r.w = NULL;
		if (frc && frc != -ENOSPC && frc != -EDQUOT) {
			fprintf(stderr, "perfkit record: %s; nothing could be kept: %s\n", msg, pk_errmsg());
		} else {
			struct stat fst;
			double fmb = stat(r.output, &fst) == 0 ? (double)fst.st_size / (1024.0 * 1024.0) : 0;
			if (frc)   /* features dropped too: say which */
				snprintf(msg, sizeof(msg), "%s", pk_errmsg());
			fprintf(stderr, "perfkit record: %s; recording stopped, the samples written "
				"until then are in %s\n", msg, r.output);
			fprintf(stderr, "[ perfkit record: %" PRIu64 " samples kept, %" PRIu64 " dropped (disk full), %"
				PRIu64 " lost, %.3f MB written to %s ]\n", kept,
				r.samples > kept ? r.samples - kept : 0, r.lost, fmb, r.output);
		}
		ret = 1;
		goto out;
	}
	if (!rc)
		rc = write_lost_samples(&r);
	if (rc) {
		fprintf(stderr, "perfkit record: %s\n", pk_errmsg());
		pd_writer_abort(r.w);
		r.w = NULL;
		ret = 1;
		goto out;
	}
	add_build_ids(&r);
	rename_old(r.output);
	struct stat st;
	if (stat(r.output, &st) == 0 && S_ISFIFO(st.st_mode))
		fprintf(stderr, "perfkit record: writing to the FIFO %s once a reader opens it (Ctrl-C gives up)\n",
			r.output);
	uint64_t data_bytes = pd_writer_data_size(r.w);
	if (pd_writer_finish(r.w)) {
		r.w = NULL;
		fprintf(stderr, "perfkit record: %s\n", pk_errmsg());
		ret = 1;
		goto out;
	}
	r.w = NULL;
	/* a FIFO, device or pipe has no size: the data's size then */
	double mb = (double)(stat(r.output, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : data_bytes) /
		    (1024.0 * 1024.0);
	if (r.lost)
		fprintf(stderr, "perfkit record: warning: %" PRIu64 " samples lost (ring buffer full); try a lower -F or a bigger -m\n",
			r.lost);
	fprintf(stderr, "[ perfkit record: %" PRIu64 " samples, %" PRIu64 " lost, %.3f MB written to %s ]\n",
		r.samples, r.lost, mb, r.output);
	ret = have_status ? exit_status(status) : 0;
	goto out;

err_abort:
	pd_writer_abort(r.w);
	r.w = NULL;
err_child:
	reap_unstarted(&r);
err:
	fprintf(stderr, "perfkit record: %s\n", pk_errmsg());
	ret = 1;
out:
	cleanup(&r);
out_free:
	for (int i = 0; i < argc; i++)
		free(argv_copy[i]);
	free(argv_copy);
	return ret;
}
