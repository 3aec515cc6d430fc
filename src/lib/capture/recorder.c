/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * recorder.c — perf record's engine (recorder.h).
 *
 * Sources: perf_event_open(2); tools/perf/builtin-record.c and
 * tools/perf/util/{evsel,header,synthetic-events}.c for what perf expects.
 */
#include "capture/recorder.h"

#include "base/error.h"
#include "base/outfile.h"
#include "base/strbuf.h"
#include "event/event.h"
#include "event/tracepoint.h"
#include "symbol/buildid.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* --call-graph dwarf: perf's PERF_REGS_MASK (arch/x86/include/uapi/asm/perf_regs.h
 * order, DS/ES/FS/GS left out; arm64: x0..x30, sp, pc) */
#if defined(__x86_64__)
#define DWARF_REGS_MASK 0xff0fffULL
#elif defined(__aarch64__)
#define DWARF_REGS_MASK ((1ULL << 33) - 1)
#else
#define DWARF_REGS_MASK 0ULL
#endif

static int open_error(struct recorder *r, size_t ev, int err)
{
	const char *name = r->o.events[ev];
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
static int set_tracing_data(struct recorder *r, const char *const *names)
{
	const char *tps[RECORDER_MAX_EVENTS];
	size_t n = 0;

	for (size_t e = 0; e < r->o.nr_events; e++)
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

/* perf record ends with PERF_RECORD_LOST_SAMPLES, which perf report sums
 * as "Total Lost Samples"; the kernel's PERF_RECORD_LOST records stay in
 * the data too (perf keeps both). */
static int write_lost_samples(struct recorder *r)
{
	uint8_t buf[sizeof(struct perf_event_header) + 8 + 64];
	struct perf_event_header h = { .type = PERF_RECORD_LOST_SAMPLES };
	size_t n = sizeof(h);

	if (!r->lost_ring)
		return 0;
	memcpy(buf + n, &r->lost_ring, 8);
	n += 8;
	struct cap_synth sy = { r->attrs[0].sample_type, r->first_id, NULL, NULL };

	n += cap_trailer(&sy, buf + n, 0, 0);
	h.size = (uint16_t)n;
	memcpy(buf, &h, sizeof(h));
	return pd_writer_write(r->w, buf, n);
}

#define DSO_HOLD_MAX 256   /* files held open (fds) for add_build_ids */

static void note_dso(struct recorder *r, const char *path)
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

static void add_build_ids(struct recorder *r)
{
	uint8_t id[20];
	if (r->o.no_buildid)   /* -B */
		return;
	int n = bid_kernel(id, sizeof(id));
	if (n > 0)
		pd_writer_add_build_id(r->w, PERF_RECORD_MISC_KERNEL, UINT32_MAX, id, (size_t)n,
				       "[kernel.kallsyms]");
	/* -N: the vdso's id comes with its copy in the cache: none */
	n = r->o.no_buildid_cache ? 0 : bid_save_vdso(id, sizeof(id));
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
				n = r->o.no_buildid_cache ? 0 : sym_build_id_cache_save(fdp, path, id, sizeof(id));
		}
		if (n > 0)
			pd_writer_add_build_id(r->w, PERF_RECORD_MISC_USER, UINT32_MAX, id, (size_t)n, path);
	}
}

/* Look at one record: count samples and losses, note DSOs. */
static void inspect(struct recorder *r, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)h;
	uint64_t v;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		r->samples++;
		break;
	case PERF_RECORD_LOST:
		if (h->size >= 24) {
			memcpy(&v, p + 16, 8);
			r->lost += v;
			r->lost_ring += v;
		}
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (h->size >= 16) {
			memcpy(&v, p + 8, 8);
			r->lost += v;
		}
		break;
	case PERF_RECORD_MMAP2:
		if (h->size > 72 && !(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
			const char *name = (const char *)p + 72;

			if (memchr(name, 0, h->size - 72u))
				note_dso(r, name);
		}
		break;
	default:
		break;
	}
}

/* The process a thread id belongs to (/proc/TID/status's Tgid), or -1
 * when it is gone. */
static pid_t tgid_of(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Tgid:", 5)) {
			tgid = (pid_t)atoi(line + 5);
			break;
		}
	fclose(f);
	return tgid;
}

/* r->tids: the threads of each -p process, or the -t threads themselves
 * (each checked to be there); -ESRCH with a message for one that is not. */
static int target_threads(struct recorder *r)
{
	size_t alloc = 0;

	for (size_t i = 0; i < r->o.nr_targets; i++) {
		pid_t *t = NULL;
		size_t n = 0;
		int err;

		if (r->o.target_tids) {
			if (tgid_of(r->o.targets[i]) < 0)
				return pk_error(ESRCH, "no thread with id %d", (int)r->o.targets[i]);
			t = xmalloc(sizeof(pid_t));
			t[n++] = r->o.targets[i];
		} else if ((err = cap_list_threads(r->o.targets[i], &t, &n))) {
			return err;
		}
		for (size_t k = 0; k < n; k++) {
			bool dup = false;

			for (size_t j = 0; j < r->nr_tids && !dup; j++)
				dup = r->tids[j] == t[k];
			if (dup)
				continue;
			if (r->nr_tids == alloc)
				r->tids = xrealloc(r->tids, (alloc = alloc ? 2 * alloc : 16) * sizeof(pid_t));
			r->tids[r->nr_tids++] = t[k];
		}
		free(t);
	}
	return 0;
}

static int setup_attrs(struct recorder *r)
{
	for (size_t e = 0; e < r->o.nr_events; e++) {
		struct perf_event_attr *a = &r->attrs[e];
		int rc = ev_parse(r->o.events[e], a);
		if (!rc && r->o.group_mods[e])
			rc = ev_apply_modifiers(r->o.events[e], r->o.group_mods[e], a);
		if (rc)
			return rc;
		if (r->o.all_user || r->o.all_kernel) {   /* perf's evsel__config: over any modifier */
			a->exclude_kernel = r->o.all_user;
			a->exclude_user = r->o.all_kernel;
		}
		if (r->o.period) {
			a->sample_period = r->o.period;
		} else if (a->type == PERF_TYPE_TRACEPOINT && !r->o.freq) {
			a->sample_period = 1;   /* as perf: every hit of a tracepoint */
		} else {
			a->freq = 1;
			a->sample_freq = r->o.freq ? r->o.freq : RECORDER_DEFAULT_FREQ;
		}
		a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				 PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
		if (r->o.system_wide || r->o.sample_cpu)
			a->sample_type |= PERF_SAMPLE_CPU;
		if (a->type == PERF_TYPE_TRACEPOINT)   /* its record, and the CPU (as perf) */
			a->sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_CPU;
		if (r->o.callgraph)
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		if (r->o.sample_addr) {   /* perf record -d: the data maps too */
			a->sample_type |= PERF_SAMPLE_ADDR;
			a->mmap_data = e == 0;
		}
		if (r->o.callgraph == 2) {
			/* as perf: kernel callchain + user registers and stack,
			 * unwound at report time (x86-64: all but the segment regs) */
			a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a->exclude_callchain_user = 1;
			a->sample_regs_user = DWARF_REGS_MASK;
			a->sample_stack_user = r->o.stack_size;
			/* the unwinder (perf's too) reads .eh_frame_hdr through
			 * the maps: record the non-executable ones as well */
			a->mmap_data = e == 0;
		}
		if (r->o.callgraph) {
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
		/* -t follows those threads only, as perf record -t (no_inherit) */
		a->inherit = !r->o.system_wide && !r->o.no_inherit && !r->o.target_tids;
		a->inherit_stat = a->inherit && r->o.inherit_stat;
		a->sample_id_all = 1;
		/* side-band records from the first event only, as perf does */
		a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = e == 0;
		/* a group's leader starts and stops its members (perf) */
		if (r->o.cmd && !r->o.nr_targets && !r->o.system_wide && !r->o.group_member[e] &&
		    !r->o.delay_ms) {
			a->disabled = 1;
			a->enable_on_exec = 1;
		} else if (!r->o.group_member[e]) {
			/* -a, -p, -t: off until the processes found running are
			 * written (recorder_start), as perf's: a sample of a
			 * process that ends while /proc is read would have no
			 * COMM or MMAP to name it */
			a->disabled = 1;
		}
	}
	/* -a (or -C): the side-band from a "dummy:HG" event of its own, on from
	 * the start, as perf's (record__config_tracking_events): a process
	 * started while /proc is read, before the events start, has its
	 * FORK, COMM and MMAP records all the same.  No room for it (16
	 * events): the first event's, as above. */
	if (r->o.system_wide && !r->o.nr_targets && r->o.nr_events < RECORDER_MAX_EVENTS) {
		struct perf_event_attr *d = &r->attrs[r->o.nr_events], *a0 = &r->attrs[0];

		*d = (struct perf_event_attr){ .type = PERF_TYPE_SOFTWARE, .size = sizeof(*d),
					       .config = PERF_COUNT_SW_DUMMY, .sample_period = 1,
					       .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
							      PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
					       .read_format = PERF_FORMAT_ID, .sample_id_all = 1 };
		d->mmap = d->mmap2 = d->comm = d->comm_exec = d->task = 1;
		d->mmap_data = a0->mmap_data;
		a0->mmap = a0->mmap2 = a0->comm = a0->comm_exec = a0->task = a0->mmap_data = 0;
		r->o.group_member[r->o.nr_events] = false;
		r->o.group_mods[r->o.nr_events] = NULL;
		r->o.events[r->o.nr_events++] = "dummy:HG";
		r->tracking_dummy = true;
	}
	return 0;
}

static int build_cmdline(struct recorder *r, int argc, char **argv)
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


/* ---- side-band ---- */

static int emit_synth(void *arg, const struct perf_event_header *h)
{
	struct recorder *r = arg;
	const uint8_t *p = (const uint8_t *)h;
	int rc = pd_writer_write(r->w, h, h->size);

	if (rc || h->type != PERF_RECORD_MMAP2 || h->size <= 72)
		return rc;
	const char *name = (const char *)p + 72;
	size_t nl = strnlen(name, h->size - 72u);
	if (nl == h->size - 72u)
		return 0;
	note_dso(r, name);
	/* a binary deleted while it runs: save it by build-id while the
	 * process holds it, so its symbols can be read later */
	if (nl > 10 && !strcmp(name + nl - 10, " (deleted)") && !r->o.no_buildid_cache) {
		uint32_t pid;
		uint64_t start, len;
		char mf[96];
		uint8_t id[20];

		memcpy(&pid, p + 8, 4);
		memcpy(&start, p + 16, 8);
		memcpy(&len, p + 24, 8);
		snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx", (int)pid, (unsigned long long)start,
			 (unsigned long long)(start + len));
		int n = sym_build_id_cache_save(mf, name, id, sizeof(id));
		if (n > 0)
			pd_writer_add_build_id(r->w, PERF_RECORD_MISC_USER, UINT32_MAX, id, (size_t)n, name);
	}
	return 0;
}

/* ---- rings ---- */

static int on_ring_record(void *arg, const struct perf_event_header *h)
{
	struct recorder *r = arg;

	inspect(r, h);
	return pd_writer_write(r->w, h, h->size);
}

static int drain_all(struct recorder *r)
{
	bool wrote = false;
	int rc = cap_drain(&r->ce, on_ring_record, r, &wrote);

	if (!rc && wrote) {
		struct perf_event_header fr = { .type = PD_RECORD_FINISHED_ROUND, .misc = 0, .size = 8 };
		return pd_writer_write(r->w, &fr, sizeof(fr));
	}
	return rc;
}

/* ---- life ---- */

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

/* Kill and reap a command that never ran. */
static void reap_unstarted(struct recorder *r)
{
	if (r->child > 0) {
		kill(r->child, SIGKILL);
		waitpid(r->child, NULL, 0);
		r->child = 0;
	}
}

static volatile sig_atomic_t rec_signal, rec_sigchld;

static void on_rec_signal(int sig)
{
	rec_signal = sig;
}

static void on_rec_sigchld(int sig)
{
	(void)sig;
	rec_sigchld = 1;
}

void recorder_signals_block(struct recorder_signals *sig, struct recorder_opts *o)
{
	struct sigaction sa;
	sigset_t mask;

	rec_signal = rec_sigchld = 0;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &sig->oldmask);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_rec_signal;
	sigaction(SIGINT, &sa, &sig->old_int);
	sigaction(SIGTERM, &sa, &sig->old_term);
	sa.sa_handler = on_rec_sigchld;
	sigaction(SIGCHLD, &sa, &sig->old_chld);
	/* a reader that goes away (-o - | head -c 100): EPIPE from write, so
	 * that the command is stopped and reaped rather than left running */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &sig->old_pipe);
	o->got_signal = &rec_signal;
	o->got_sigchld = &rec_sigchld;
	o->oldmask = &sig->oldmask;
}

void recorder_signals_restore(const struct recorder_signals *sig)
{
	sigaction(SIGINT, &sig->old_int, NULL);
	sigaction(SIGTERM, &sig->old_term, NULL);
	sigaction(SIGCHLD, &sig->old_chld, NULL);
	sigaction(SIGPIPE, &sig->old_pipe, NULL);
	sigprocmask(SIG_SETMASK, &sig->oldmask, NULL);
}

/* The side-band of the processes found running: the targets' (-p, and
 * -t's processes, each once), or every process (-a without targets). */
static int synth_running(struct recorder *r, const struct cap_synth *sy)
{
	pid_t *procs = xmalloc((r->o.nr_targets ? r->o.nr_targets : 1) * sizeof(pid_t));
	size_t nprocs = 0;
	int err = 0;

	for (size_t i = 0; i < r->o.nr_targets && !err; i++) {
		pid_t p = r->o.target_tids ? tgid_of(r->o.targets[i]) : r->o.targets[i];
		bool seen = false;   /* a process once, however many of its ids */

		for (size_t k = 0; k < nprocs && !seen; k++)
			seen = procs[k] == p;
		if (p > 0 && !seen) {
			procs[nprocs++] = p;
			err = cap_synth_process(sy, p);
		}
	}
	free(procs);
	if (!err && r->o.system_wide && !r->o.nr_targets)
		err = cap_synth_all(sy);
	return err;
}

int recorder_prepare(struct recorder *r, const struct recorder_opts *o)
{
	const char *names[RECORDER_MAX_EVENTS];
	int err;

	memset(r, 0, sizeof(*r));
	r->o = *o;
	r->held = (struct pk_child)PK_CHILD_INIT;
	hm_init(&r->dsos);
	if (!r->o.nr_events)
		r->o.events[r->o.nr_events++] = "cpu-clock";
	if (!r->o.mmap_pages)
		r->o.mmap_pages = RECORDER_RING_PAGES;
	err = setup_attrs(r);
	if (err) {
		r->usage_error = true;   /* a bad -e */
		return err;
	}
	if (r->o.nr_cpu_list && !r->o.nr_targets) {   /* -C: those CPUs */
		r->cpus = xmalloc(r->o.nr_cpu_list * sizeof(int));
		memcpy(r->cpus, r->o.cpu_list, r->o.nr_cpu_list * sizeof(int));
		r->nr_cpus = r->o.nr_cpu_list;
	} else {
		cap_online_cpus(&r->cpus, &r->nr_cpus);
	}
	cap_kernel_range(&r->ktext, &r->kend);
	if (r->o.system_wide && !r->o.nr_targets) {
		r->tids = xmalloc(sizeof(pid_t));
		r->tids[0] = -1;
		r->nr_tids = 1;
	} else if (r->o.nr_targets) {
		err = target_threads(r);
		if (err)
			return err;
	}
	if (r->o.cmd) {
		/* like perf: when the data goes to our stdout (a pipe, -o -,
		 * -o /dev/stdout or the same file), the command's output goes to
		 * stderr, or it would land in the middle of the data */
		err = pk_child_fork(&r->held, r->o.cmd, r->o.oldmask,
				    output_is_stdout(r->o.output) ? PK_CHILD_STDOUT_TO_STDERR : 0);
		if (err)
			return err;
		r->child = r->held.pid;
		if (!r->o.nr_targets && !r->o.system_wide) {
			r->tids = xmalloc(sizeof(pid_t));
			r->tids[0] = r->child;
			r->nr_tids = 1;
		}
	}
	for (size_t e = 0; e < r->o.nr_events; e++)
		names[e] = r->o.events[e];
	r->ce.attrs = r->attrs;
	r->ce.group_member = r->o.group_member;
	r->ce.nr_ev = r->o.nr_events;
	r->ce.tids = r->tids;
	r->ce.nr_tids = r->nr_tids;
	r->ce.cpus = r->cpus;
	r->ce.nr_cpus = r->nr_cpus;
	r->ce.pages = r->o.mmap_pages;
	r->ce.skip_gone = r->o.nr_targets != 0;
	err = cap_events_open(&r->ce);
	if (err && r->ce.failed_open)
		err = open_error(r, r->ce.fail_ev, -err);
	if (err)
		goto err_child;
	r->user_only = r->ce.user_only;
	for (size_t e = 0; e < r->o.nr_events && e < 32; e++)
		if (r->ce.cpu_clock_fallback >> e & 1) {
			/* perf names it anew from its attr: cpu-clock, the
			 * modifiers kept */
			const char *mods = strchr(r->o.events[e], ':');
			size_t n = sizeof("cpu-clock") + (mods ? strlen(mods) : 0);

			r->fallback_names[e] = xmalloc(n);
			snprintf(r->fallback_names[e], n, "cpu-clock%s", mods ? mods : "");
			r->o.events[e] = names[e] = r->fallback_names[e];
		}
	for (size_t i = 0; i < r->ce.nr_fds && !r->first_id; i++)
		r->first_id = r->ce.ids[i];
	err = pd_writer_open(&r->w, r->o.output, r->attrs, names, r->o.nr_events);
	if (err)
		goto err_child;
	err = set_tracing_data(r, names);
	if (!err && r->o.comp_level)
		err = pd_writer_set_compression(r->w, r->o.comp_level,
						(uint32_t)((r->o.mmap_pages + 1) * (uint64_t)sysconf(_SC_PAGESIZE)));
	if (err)
		goto err_abort;
	for (size_t i = 0; i < r->ce.nr_fds; i++)
		if (r->ce.fds[i] >= 0)
			pd_writer_add_id(r->w, i / (r->nr_tids * r->nr_cpus), r->ce.ids[i]);
	build_cmdline(r, r->o.argc, r->o.argv);
	pd_writer_set_groups(r->w, r->o.group_member, r->o.nr_events);

	/* side-band records perf needs before the first sample */
	struct cap_synth sy = { r->attrs[0].sample_type, r->first_id, emit_synth, r };
	if (r->ktext && (err = cap_synth_kernel_mmap(&sy, r->ktext, r->kend)))
		goto err_abort;
	if ((err = synth_running(r, &sy)))
		goto err_abort;
	/* -z: the rings' records compressed, the side-band above as it is
	 * (perf's record__pushfn compresses what it reads from the rings) */
	if ((err = pd_writer_compress(r->w)))
		goto err_abort;
	return 0;
err_abort:
	pd_writer_abort(r->w);
	r->w = NULL;
err_child:
	reap_unstarted(r);
	return err;
}

/* Start every event opened disabled; 0 or -errno (message set). */
static int enable_all(struct recorder *r)
{
	for (size_t i = 0; i < r->ce.nr_fds; i++)
		if (r->ce.fds[i] >= 0 && ioctl(r->ce.fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0)
			return pk_error(errno, "cannot start the events: %s", strerror(errno));
	return 0;
}

int recorder_start(struct recorder *r)
{
	int e;

	if (r->o.delay_ms) {   /* -D: recorder_run starts them */
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		r->enable_at = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec +
			       (uint64_t)r->o.delay_ms * 1000000u;
	} else if (!r->o.cmd || r->o.nr_targets || r->o.system_wide) {
		/* the leaders opened disabled (setup_attrs) start now */
		if ((e = enable_all(r)) < 0) {
			reap_unstarted(r);
			pd_writer_abort(r->w);
			r->w = NULL;
			return e;
		}
	}
	if (!r->o.cmd)
		return 0;
	e = pk_child_release(&r->held);
	if (e) {
		waitpid(r->child, NULL, 0);
		r->child = 0;
		pd_writer_abort(r->w);
		r->w = NULL;
	}
	return e;
}

int recorder_run(struct recorder *r)
{
	volatile sig_atomic_t *got_signal = r->o.got_signal, *got_sigchld = r->o.got_sigchld;
	/* every event's descriptor, as perf polls them: one redirected to a
	 * CPU's ring reads that ring's POLLIN, and its own POLLHUP (its task
	 * gone) says nothing of the ring's other tasks (-p A,B: A's end is
	 * not B's) */
	struct pollfd *pfds = xcalloc(r->ce.nr_fds ? r->ce.nr_fds : 1, sizeof(*pfds));
	size_t npfd = 0;
	sigset_t waitmask = *r->o.oldmask;
	int forwarded = 0, rc = 0;

	for (size_t i = 0; i < r->ce.nr_fds; i++)
		if (r->ce.fds[i] >= 0) {
			pfds[npfd].fd = r->ce.fds[i];
			pfds[npfd++].events = POLLIN;
		}
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGCHLD);
	for (;;) {
		rc = drain_all(r);
		if (rc)
			break;
		if (*got_signal) {
			if (r->child > 0 && forwarded < 2) {
				/* the command gets the signal too; a second one kills it */
				kill(r->child, forwarded ? SIGKILL : *got_signal);
				forwarded++;
				*got_signal = 0;
			} else if (r->child <= 0) {
				break;
			}
		}
		if (*got_sigchld && r->child > 0) {
			*got_sigchld = 0;
			if (waitpid(r->child, &r->status, WNOHANG) == r->child) {
				r->have_status = true;
				r->child = 0;
				break;
			}
		}
		if (r->o.nr_targets && !r->o.cmd && !cap_any_alive(r->o.targets, r->o.nr_targets))
			break;
		if (forwarded && !r->child)
			break;
		/* records buffered while the rings are quiet reach the file
		 * within a second (a recorder killed with SIGKILL keeps them) */
		rc = pd_writer_tick(r->w);
		if (rc)
			break;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = 250 * 1000 * 1000 }, sec = { 1, 0 }, now;
		struct timespec *wait = r->o.nr_targets ? &ts : &sec;

		if (r->enable_at) {   /* -D: the events start at enable_at */
			clock_gettime(CLOCK_MONOTONIC, &now);
			uint64_t t = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;

			if (t >= r->enable_at) {
				/* the side-band of the delay (the command's exec,
				 * its maps) went to disabled events: the processes
				 * as they are now, as at the start of -p */
				struct cap_synth sy = { r->attrs[0].sample_type, r->first_id, emit_synth, r };

				r->enable_at = 0;
				if (r->tracking_dummy)   /* -a: its dummy saw them all along */
					rc = 0;
				else if (r->o.system_wide || r->o.nr_targets)   /* the command among them */
					rc = synth_running(r, &sy);
				else if (r->child > 0)
					rc = cap_synth_process(&sy, r->child);
				if (rc || (rc = enable_all(r)))
					break;
				if (r->o.on_enable)
					r->o.on_enable();
				continue;
			}
			if (r->enable_at - t < (uint64_t)wait->tv_sec * 1000000000u + (uint64_t)wait->tv_nsec) {
				ts.tv_sec = (time_t)((r->enable_at - t) / 1000000000u);
				ts.tv_nsec = (long)((r->enable_at - t) % 1000000000u);
				wait = &ts;
			}
		}
		int n = ppoll(pfds, npfd, wait, &waitmask);
		if (n > 0) {
			int live = 0;
			for (size_t i = 0; i < npfd; i++) {
				if (pfds[i].revents & (POLLHUP | POLLERR))
					pfds[i].fd = -1; /* no more data will come: stop polling it */
				if (pfds[i].fd >= 0)
					live++;
			}
			if (!live && !r->child && !r->o.system_wide)
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
		cap_events_disable(&r->ce);
		rc = drain_all(r);
	}
	if (r->child > 0) {
		/* -p/-a with a command, or an error: the command must still end */
		if (rc)
			kill(r->child, SIGTERM);
		if (waitpid(r->child, &r->status, 0) == r->child)
			r->have_status = true;
		r->child = 0;
	}
	return rc;
}

int recorder_finish(struct recorder *r, int rc, struct recorder_result *res)
{
	memset(res, 0, sizeof(*res));
	if (!rc)
		rc = write_lost_samples(r);
	if (!rc) {
		rc = pd_writer_flush(r->w);   /* -z: the last records compressed, counted */
		res->comp_bytes = pd_writer_compressed(r->w, &res->comp_raw);
	}
	if (rc == -ENOSPC || rc == -EDQUOT) {
		/* disk full: keep the whole records written so far (the writer
		 * reserved room for the header and features) */
		snprintf(res->disk_msg, sizeof(res->disk_msg), "%s", pk_errmsg());
		add_build_ids(r);
		rename_old(r->o.output);
		res->disk_full = true;
		res->kept = pd_writer_kept_samples(r->w);
		res->finish_err = pd_writer_finish(r->w);
		r->w = NULL;
		return rc;
	}
	if (rc) {
		pd_writer_abort(r->w);
		r->w = NULL;
		return rc;
	}
	add_build_ids(r);
	rename_old(r->o.output);
	res->data_bytes = pd_writer_data_size(r->w);
	rc = pd_writer_finish(r->w);
	r->w = NULL;
	return rc;
}

void recorder_release(struct recorder *r)
{
	if (r->w)
		pd_writer_abort(r->w);
	r->w = NULL;
	reap_unstarted(r);
	cap_events_close(&r->ce);
	for (size_t e = 0; e < RECORDER_MAX_EVENTS; e++) {
		free(r->fallback_names[e]);
		r->fallback_names[e] = NULL;
	}
	free(r->cpus);
	free(r->tids);
	r->cpus = NULL;
	r->tids = NULL;
	for (size_t i = 0; i < r->dsos.nr; i++)
		if (r->dsos.entries[i].val.u)
			close((int)(r->dsos.entries[i].val.u - 1));
	hm_release(&r->dsos);
	if (r->held.go_fd >= 0)
		close(r->held.go_fd);
	if (r->held.err_fd >= 0)
		close(r->held.err_fd);
	r->held.go_fd = r->held.err_fd = -1;
}
