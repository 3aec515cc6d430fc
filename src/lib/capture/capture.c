/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capture.c — perf_event_open, ring buffers and /proc side-band (capture.h).
 */
#include "capture/capture.h"

#include "base/error.h"
#include "base/strbuf.h"
#include "event/ring.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

int cap_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);

	if (fd < 0 && errno == EINVAL && (attr->exclude_guest || attr->exclude_host)) {
		/* a PMU that knows no guests (msr, uncore ones) refuses the
		 * bits: opened without them, as perf switches them off */
		struct perf_event_attr was = *attr;

		attr->exclude_guest = attr->exclude_host = 0;
		fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
		if (fd < 0) {
			int e = errno;

			*attr = was;
			errno = e;
		}
	}
	return fd < 0 ? -errno : (int)fd;
}

int cap_paranoid(void)
{
	int level = -1;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = -1;
		fclose(f);
	}
	return level;
}

static void add_cpu(int **cpus, size_t *nr, size_t *alloc, int c)
{
	if (*nr == *alloc)
		*cpus = xrealloc(*cpus, (*alloc *= 2) * sizeof(int));
	(*cpus)[(*nr)++] = c;
}

int cap_online_cpus(int **cpus, size_t *nr)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	char buf[4096];
	size_t alloc = 16;

	*cpus = xmalloc(alloc * sizeof(int));
	*nr = 0;
	if (f && fgets(buf, sizeof(buf), f)) {
		char *p = buf;

		while (*p && *p != '\n') {
			char *e;
			long a = strtol(p, &e, 10), b = a;

			if (e == p)
				break;
			if (*e == '-')
				b = strtol(e + 1, &e, 10);
			for (long c = a; c <= b && c < 65536; c++)
				add_cpu(cpus, nr, &alloc, (int)c);
			p = *e == ',' ? e + 1 : e;
		}
	}
	if (f)
		fclose(f);
	if (!*nr) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		for (long c = 0; c < (n > 0 ? n : 1); c++)
			add_cpu(cpus, nr, &alloc, (int)c);
	}
	return 0;
}

int cap_list_threads(pid_t pid, pid_t **tids, size_t *nr)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	size_t alloc = 8;

	*tids = NULL;
	*nr = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return pk_error(ESRCH, "no process with pid %d: %s", (int)pid,
				errno == ENOENT ? strerror(ESRCH) : strerror(errno));
	*tids = xmalloc(alloc * sizeof(pid_t));
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (*nr == alloc)
			*tids = xrealloc(*tids, (alloc *= 2) * sizeof(pid_t));
		(*tids)[(*nr)++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	if (!*nr)
		return pk_error(ESRCH, "no process with pid %d", (int)pid);
	return 0;
}

bool cap_any_alive(const pid_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (kill(ids[i], 0) == 0 || errno != ESRCH)
			return true;
	return false;
}

/* ---- events and rings ---- */

static int map_ring(struct cap_events *ce, struct cap_ring *rg, int fd, int cpu)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = (ce->pages + 1) * page;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (m == MAP_FAILED && ce->pages > 16) {
		/* smaller buffer when perf_event_mlock_kb is tight */
		len = (16 + 1) * page;
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	}
	if (m == MAP_FAILED) {
		if (cpu < 0)
			return pk_error(errno, "cannot map a ring buffer: %s", strerror(errno));
		return pk_error(errno, "cannot map the ring buffer of CPU %d: %s", cpu, strerror(errno));
	}
	rg->fd = fd;
	rg->base = m;
	rg->map_len = len;
	rg->mask = len - page - 1;
	return 0;
}

void cap_raise_nofile(size_t nr_fds)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max && rl.rlim_cur < nr_fds + 64) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int cap_events_open(struct cap_events *ce)
{
	ce->nr_fds = ce->nr_ev * ce->nr_tids * ce->nr_cpus;
	ce->user_only = false;
	ce->cpu_clock_fallback = 0;
	ce->failed_open = false;
	/* one fd per (event, thread, CPU): many threads need more than 1024 */
	cap_raise_nofile(ce->nr_fds);
	ce->fds = xmalloc((ce->nr_fds ? ce->nr_fds : 1) * sizeof(int));
	ce->ids = xcalloc(ce->nr_fds ? ce->nr_fds : 1, sizeof(uint64_t));
	for (size_t i = 0; i < ce->nr_fds; i++)
		ce->fds[i] = -1;
	ce->rings = xcalloc(ce->nr_cpus ? ce->nr_cpus : 1, sizeof(*ce->rings));
	for (size_t c = 0; c < ce->nr_cpus; c++)
		ce->rings[c].fd = -1;

	for (size_t e = 0; e < ce->nr_ev; e++) {
		size_t lead = e;   /* its group's leader (itself when alone) */

		while (ce->group_member && lead > 0 && ce->group_member[lead])
			lead--;
		for (size_t t = 0; t < ce->nr_tids; t++) {
			for (size_t c = 0; c < ce->nr_cpus; c++) {
				size_t i = (e * ce->nr_tids + t) * ce->nr_cpus + c;
				struct perf_event_attr *a = &ce->attrs[e];
				int gfd = lead == e ? -1 : ce->fds[(lead * ce->nr_tids + t) * ce->nr_cpus + c];

				if (lead != e && gfd < 0)
					continue;   /* its leader's thread was gone */
				int fd = cap_perf_event_open(a, ce->tids[t], ce->cpus[c], gfd, PERF_FLAG_FD_CLOEXEC);

				if ((fd == -EACCES || fd == -EPERM) && !a->exclude_kernel && i == 0) {
					/* like perf: fall back to user space only */
					for (size_t k = 0; k < ce->nr_ev; k++) {
						ce->attrs[k].exclude_kernel = 1;
						ce->attrs[k].exclude_hv = 1;
					}
					fd = cap_perf_event_open(a, ce->tids[t], ce->cpus[c], gfd, PERF_FLAG_FD_CLOEXEC);
					ce->user_only = fd >= 0;
				}
				if ((fd == -ENOENT || fd == -ENXIO || fd == -ENODEV || fd == -EOPNOTSUPP) &&
				    a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_CPU_CYCLES &&
				    t == 0 && c == 0 && e < 32) {
					/* perf's evsel__fallback: cycles without a PMU is
					 * the hrtimer's cpu-clock */
					a->type = PERF_TYPE_SOFTWARE;
					a->config = PERF_COUNT_SW_CPU_CLOCK;
					a->precise_ip = 0;
					ce->cpu_clock_fallback |= 1u << e;
					fd = cap_perf_event_open(a, ce->tids[t], ce->cpus[c], gfd, PERF_FLAG_FD_CLOEXEC);
				}
				if (fd < 0) {
					if (fd == -ESRCH && ce->skip_gone && t > 0)
						continue; /* a thread exited meanwhile */
					ce->failed_open = true;
					ce->fail_ev = e;
					ce->fail_tid = t;
					ce->fail_cpu = c;
					return fd;
				}
				ce->fds[i] = fd;
				uint64_t id = 0;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
					return pk_error(errno, "PERF_EVENT_IOC_ID: %s", strerror(errno));
				ce->ids[i] = id;
				struct cap_ring *rg = &ce->rings[c];
				if (rg->fd < 0) {
					int err = map_ring(ce, rg, fd, ce->cpus[c]);

					if (err)
						return err;
				} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, rg->fd) < 0) {
					return pk_error(errno, "PERF_EVENT_IOC_SET_OUTPUT: %s", strerror(errno));
				}
			}
		}
	}
	return 0;
}

void cap_events_disable(struct cap_events *ce)
{
	for (size_t i = 0; i < ce->nr_fds; i++)
		if (ce->fds[i] >= 0)
			ioctl(ce->fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

void cap_events_close(struct cap_events *ce)
{
	if (ce->rings)
		for (size_t c = 0; c < ce->nr_cpus; c++)
			if (ce->rings[c].base)
				munmap(ce->rings[c].base, ce->rings[c].map_len);
	if (ce->fds)
		for (size_t i = 0; i < ce->nr_fds; i++)
			if (ce->fds[i] >= 0)
				close(ce->fds[i]);
	free(ce->rings);
	free(ce->fds);
	free(ce->ids);
	free(ce->scratch);
	ce->rings = NULL;
	ce->fds = NULL;
	ce->ids = NULL;
	ce->scratch = NULL;
	ce->scratch_len = 0;
	ce->nr_fds = 0;
}

int cap_drain_ring(struct cap_events *ce, struct cap_ring *rg, cap_record_fn fn, void *arg,
		   bool *got)
{
	struct perf_event_mmap_page *pg = (struct perf_event_mmap_page *)rg->base;
	uint64_t head = perf_ring_head(rg->base), pos = pg->data_tail, size = rg->mask + 1;
	const uint8_t *data = rg->base + (rg->map_len - size);
	int rc = 0;

	while (!rc && head - pos >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		const struct perf_event_header *rec;
		uint64_t off = pos & rg->mask;

		perf_ring_copy(rg->base, rg->map_len, rg->mask, pos, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - pos)
			break;
		if (off + h.size <= size) {
			rec = (const struct perf_event_header *)(data + off);
		} else {
			if (ce->scratch_len < h.size) {
				ce->scratch_len = h.size < 4096 ? 4096 : h.size;
				free(ce->scratch);
				ce->scratch = xmalloc(ce->scratch_len);
			}
			perf_ring_copy(rg->base, rg->map_len, rg->mask, pos, ce->scratch, h.size);
			rec = (const struct perf_event_header *)ce->scratch;
		}
		if (got)
			*got = true;
		rc = fn(arg, rec);
		pos += h.size;
	}
	perf_ring_release(rg->base, pos);
	return rc;
}

int cap_drain(struct cap_events *ce, cap_record_fn fn, void *arg, bool *got)
{
	for (size_t c = 0; c < ce->nr_cpus; c++) {
		int rc;

		if (ce->rings[c].fd < 0)
			continue;
		rc = cap_drain_ring(ce, &ce->rings[c], fn, arg, got);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- side-band ---- */

size_t cap_trailer(const struct cap_synth *sy, uint8_t *p, uint32_t pid, uint32_t tid)
{
	uint64_t st = sy->sample_type, zero = 0;
	size_t n = 0;

	if (st & PERF_SAMPLE_TID) {
		memcpy(p + n, &pid, 4);
		memcpy(p + n + 4, &tid, 4);
		n += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		memcpy(p + n, &zero, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		memcpy(p + n, &sy->id, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		memcpy(p + n, &sy->id, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		memcpy(p + n, &zero, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		memcpy(p + n, &sy->id, 8);
		n += 8;
	}
	return n;
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

static int emit(const struct cap_synth *sy, uint8_t *rec, size_t len)
{
	struct perf_event_header *h = (struct perf_event_header *)rec;

	h->size = (uint16_t)len;
	return sy->emit(sy->arg, h);
}

int cap_synth_comm(const struct cap_synth *sy, uint32_t pid, uint32_t tid, const char *comm)
{
	uint64_t buf[32];
	uint8_t *b = (uint8_t *)buf;
	struct perf_event_header *h = (struct perf_event_header *)b;
	char c[16];   /* TASK_COMM_LEN: 15 bytes and the NUL, as perf's
			 synthesized COMM (a kworker's /proc comm is longer) */

	h->type = PERF_RECORD_COMM;
	h->misc = 0;
	memcpy(b + 8, &pid, 4);
	memcpy(b + 12, &tid, 4);
	snprintf(c, sizeof(c), "%s", comm);
	size_t n = 16 + name_field(b + 16, c);
	n += cap_trailer(sy, b + n, pid, tid);
	return emit(sy, b, n);
}

static int synth_mmap2(const struct cap_synth *sy, uint64_t *buf, uint32_t pid, uint32_t tid,
		       uint64_t start, uint64_t len, uint64_t pgoff, uint32_t maj, uint32_t min,
		       uint64_t ino, uint32_t prot, uint32_t flags, const char *name)
{
	uint8_t *b = (uint8_t *)buf;
	struct perf_event_header *h = (struct perf_event_header *)b;
	uint64_t gen = 0;

	h->type = PERF_RECORD_MMAP2;
	h->misc = PERF_RECORD_MISC_USER;
	memcpy(b + 8, &pid, 4);
	memcpy(b + 12, &tid, 4);
	memcpy(b + 16, &start, 8);
	memcpy(b + 24, &len, 8);
	memcpy(b + 32, &pgoff, 8);
	memcpy(b + 40, &maj, 4);
	memcpy(b + 44, &min, 4);
	memcpy(b + 48, &ino, 8);
	memcpy(b + 56, &gen, 8);
	memcpy(b + 64, &prot, 4);
	memcpy(b + 68, &flags, 4);
	size_t n = 72 + name_field(b + 72, name);
	n += cap_trailer(sy, b + n, pid, tid);
	return emit(sy, b, n);
}

int cap_synth_process(const struct cap_synth *sy, pid_t pid)
{
	char path[96], line[PATH_MAX + 256];
	/* a record: header, fields, a name up to PATH_MAX, the trailer */
	uint64_t buf[(PATH_MAX + 256) / 8];
	DIR *d;
	struct dirent *de;
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0; /* gone */
	while (!rc && (de = readdir(d))) {
		char cpath[128], comm[64] = "";

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(cpath, sizeof(cpath), "/proc/%d/task/%.20s/comm", (int)pid, de->d_name);
		f = fopen(cpath, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
		rc = cap_synth_comm(sy, (uint32_t)pid, (uint32_t)atoi(de->d_name), comm);
	}
	closedir(d);
	if (rc)
		return rc;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!rc && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		unsigned maj, min;
		char perms[8];
		int consumed = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj, &min,
			   &ino, &consumed) < 7)
			continue;
		if (strlen(perms) < 4 || perms[2] != 'x')
			continue;
		char *name = line + consumed;
		name[strcspn(name, "\n")] = 0;
		if (!*name)
			name = "//anon";
		uint32_t prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
		uint32_t flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		rc = synth_mmap2(sy, buf, (uint32_t)pid, (uint32_t)pid, start, end - start, off, maj, min, ino,
				 prot, flags, name);
	}
	fclose(f);
	return rc;
}

int cap_synth_all(const struct cap_synth *sy)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int rc = 0;

	if (!d)
		return pk_error(errno, "/proc: %s", strerror(errno));
	while (!rc && (de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			rc = cap_synth_process(sy, (pid_t)atoi(de->d_name));
	closedir(d);
	return rc;
}

/* From _text (perf's relocation reference symbol, near the top of
 * /proc/kallsyms, so the rest of that 30 ms file is not read) up to the
 * lowest module address, or to the end of the address space without
 * modules — what perf does when the kernel has no _etext. */
int cap_kernel_range(uint64_t *text_out, uint64_t *end_out)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512];
	uint64_t text = 0, end = UINT64_MAX;

	if (!f)
		return -errno;
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
		return -ENOENT; /* addresses hidden (kptr_restrict) */
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
	*text_out = text;
	*end_out = end;
	return 0;
}

int cap_synth_kernel_mmap(const struct cap_synth *sy, uint64_t text, uint64_t end)
{
	uint64_t buf[32];
	uint8_t *b = (uint8_t *)buf;
	struct perf_event_header *h = (struct perf_event_header *)b;
	uint32_t pid = UINT32_MAX, tid = 0;
	uint64_t len = end - text;

	h->type = PERF_RECORD_MMAP;
	h->misc = PERF_RECORD_MISC_KERNEL;
	memcpy(b + 8, &pid, 4);
	memcpy(b + 12, &tid, 4);
	memcpy(b + 16, &text, 8);
	memcpy(b + 24, &len, 8);
	memcpy(b + 32, &text, 8);
	size_t n = 40 + name_field(b + 40, "[kernel.kallsyms]_text");
	n += cap_trailer(sy, b + n, pid, tid);
	return emit(sy, b, n);
}
