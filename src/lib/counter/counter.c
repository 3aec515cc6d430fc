/* SPDX-License-Identifier: GPL-2.0-or-later */
/* counter.c — perf_event_open counting; see counter.h. */
#include "counter/counter.h"
#include "capture/capture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/error.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "event/event.h"

#define RF_SINGLE (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID)
#define RF_GROUP  (RF_SINGLE | PERF_FORMAT_GROUP)

int cnt_set_add(struct cnt_set *s, const char *spec, bool group)
{
	struct perf_event_attr attr;
	/* perf's tool event: no kernel counter (a dummy software attr) */
	bool duration = !strncasecmp(spec, "duration_time", 13) && (!spec[13] || spec[13] == ':');
	int err = 0;

	if (duration)
		attr = (struct perf_event_attr){ .type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
						 .config = PERF_COUNT_SW_DUMMY };
	else
		err = ev_parse(spec, &attr);

	if (err)
		return err;
	if (s->nr == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 16;
		s->ev = xrealloc(s->ev, s->alloc * sizeof(*s->ev));
	}
	struct cnt_event *e = &s->ev[s->nr];
	memset(e, 0, sizeof(*e));
	const char *pname;
	size_t plen = ev_pmu_name(spec, &pname);

	e->name = plen ? xstrndup(pname, plen) : xstrdup(spec);   /* "cpu/…,name=busy/": "busy" */
	e->attr = attr;
	e->fd = -1;
	e->duration = duration;
	e->leader = (group && s->nr) ? s->ev[s->nr - 1].leader : (int)s->nr;
	s->nr++;
	return 0;
}

int cnt_set_add_list(struct cnt_set *s, const char *list)
{
	struct ev_list_item *it = NULL;
	size_t n = 0, group_at = 0;
	int err = ev_list_parse(list, &it, &n);

	for (size_t k = 0; k < n && !err; k++) {
		if (it[k].leader)
			group_at = s->nr;
		err = cnt_set_add(s, it[k].name, it[k].group && !it[k].leader);
		/* "{a,b}:u": the modifiers of every member, once its last is in */
		if (!err && it[k].group_mods && (k + 1 == n || it[k + 1].group != it[k].group))
			for (size_t i = group_at; i < s->nr && !err; i++) {
				err = ev_apply_modifiers(s->ev[i].name, it[k].group_mods, &s->ev[i].attr);
				if (i > group_at)   /* pinned, exclusive: the leader's (perf) */
					s->ev[i].attr.pinned = s->ev[i].attr.exclusive = 0;
			}
	}
	ev_list_free(it, n);
	return err;
}

int cnt_set_add_defaults(struct cnt_set *s, bool system_wide)
{
	static const struct { const char *name; bool group; } def[] = {
		{ "task-clock", false }, { "context-switches", false },
		{ "cpu-migrations", false }, { "page-faults", false },
		{ "cycles", false }, { "instructions", true },
		{ "branches", false }, { "branch-misses", true },
		{ "cache-references", false }, { "cache-misses", true },
	};
	for (size_t i = 0; i < sizeof(def) / sizeof(def[0]); i++) {
		int err = cnt_set_add(s, i == 0 && system_wide ? "cpu-clock" : def[i].name, def[i].group);
		if (err)
			return err;
	}
	return 0;
}

bool cnt_errno_unsupported(int err, const struct perf_event_attr *attr)
{
	switch (err) {
	case ENOENT: case EOPNOTSUPP: case ENODEV: case ENOSYS:
		return true;
	case EINVAL:   /* a hardware event, or one of a PMU of its own ("msr/tsc/u") */
		return ev_needs_pmu(attr) || attr->type >= PERF_TYPE_MAX;
	default:
		return false;
	}
}

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			       int group_fd, unsigned long flags)
{
	int fd = cap_perf_event_open(attr, pid, cpu, group_fd, flags);

	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	return fd;
}

static int paranoid_level(void)
{
	int level = 99;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 99;
		fclose(f);
	}
	return level;
}

int cnt_set_open(struct cnt_set *s, pid_t pid, int cpu, unsigned flags)
{
	for (size_t i = 0; i < s->nr; i++) {
		struct cnt_event *e = &s->ev[i];
		struct cnt_event *l = &s->ev[e->leader];
		bool is_leader = e->leader == (int)i;

		e->open_errno = 0;
		e->state = CNT_OK;
		if (e->duration)   /* nothing to open: cnt_set_duration */
			continue;
		if (!is_leader && l->fd < 0) {
			/* the leader could not be opened: the group cannot run */
			e->open_errno = l->open_errno ? l->open_errno : EOPNOTSUPP;
			e->state = CNT_NOT_SUPPORTED;
			continue;
		}
		e->attr.read_format = (is_leader && !s->no_group_read) ? RF_GROUP : RF_SINGLE;
		e->attr.disabled = is_leader;
		e->attr.enable_on_exec = is_leader && (flags & CNT_ENABLE_ON_EXEC);
		e->attr.inherit = !!(flags & CNT_INHERIT);
		int fd = sys_perf_event_open(&e->attr, pid, cpu, is_leader ? -1 : l->fd,
					     PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && errno == EINVAL && is_leader && !s->no_group_read) {
			/* older kernels refuse GROUP with inherit: read fds one by one */
			e->attr.read_format = RF_SINGLE;
			fd = sys_perf_event_open(&e->attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
			if (fd >= 0) {
				s->no_group_read = true;
				for (size_t j = 0; j < i; j++)
					if (s->ev[j].fd >= 0 && s->ev[j].leader == (int)j)
						s->ev[j].attr.read_format = RF_SINGLE;
			}
		}
		if (fd < 0) {
			int err = errno;
			if (cnt_errno_unsupported(err, &e->attr)) {
				e->open_errno = err;
				e->state = CNT_NOT_SUPPORTED;
				continue;
			}
			int level = err == EACCES || err == EPERM ? paranoid_level() : 0;
			if (level > 1 && !e->attr.exclude_kernel && !e->attr.exclude_user) {
				/* like perf (evsel__fallback): count user space
				 * only, and say so in the event's name */
				e->attr.exclude_kernel = 1;
				e->attr.exclude_hv = 1;
				size_t nl = strlen(e->name) + 3;
				char *n = xmalloc(nl);
				snprintf(n, nl, "%s%su", e->name, strchr(e->name, ':') || strchr(e->name, '/') ? "" : ":");
				free(e->name);
				e->name = n;
				e->user_only = true;
				s->paranoid_fallback = level;
				i--;   /* open it again */
				continue;
			}
			cnt_set_close(s);
			if (err == EACCES || err == EPERM) {
				return pk_error(err, "no permission to count '%s' (kernel.perf_event_paranoid = %d; run as root or lower it)",
						e->name, level);
			}
			if (err == ESRCH)
				return pk_error(err, "cannot count '%s': no process %d", e->name, (int)pid);
			return pk_error(err, "cannot open event '%s': %s", e->name, strerror(err));
		}
		e->fd = fd;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &e->id) < 0)
			e->id = 0;
	}
	return 0;
}

static int leaders_ioctl(struct cnt_set *s, unsigned long req)
{
	for (size_t i = 0; i < s->nr; i++) {
		struct cnt_event *e = &s->ev[i];
		if (e->fd >= 0 && e->leader == (int)i &&
		    ioctl(e->fd, req, PERF_IOC_FLAG_GROUP) < 0)
			return pk_error(errno, "ioctl on event '%s': %s", e->name, strerror(errno));
	}
	return 0;
}

int cnt_set_enable(struct cnt_set *s)  { return leaders_ioctl(s, PERF_EVENT_IOC_ENABLE); }
int cnt_set_disable(struct cnt_set *s) { return leaders_ioctl(s, PERF_EVENT_IOC_DISABLE); }
int cnt_set_reset(struct cnt_set *s)   { return leaders_ioctl(s, PERF_EVENT_IOC_RESET); }

uint64_t cnt_scale(uint64_t raw, uint64_t enabled, uint64_t running, enum cnt_state *state)
{
	if (running == 0) {
		if (state)
			*state = CNT_NOT_COUNTED;
		return 0;
	}
	if (state)
		*state = CNT_OK;
	if (running >= enabled)
		return raw;
	unsigned __int128 v = (unsigned __int128)raw * enabled / running;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

int cnt_parse_group_read(const void *buf, size_t len, uint64_t rf,
			 uint64_t *enabled, uint64_t *running,
			 struct cnt_value *vals, size_t max, size_t *nr)
{
	const uint64_t *u = buf;
	size_t words = len / sizeof(uint64_t), pos = 0;
	size_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	size_t hdr = 1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);

	*nr = 0;
	if (words < hdr)
		return pk_error(EIO, "group read: %zu bytes, header needs %zu", len, hdr * 8);
	uint64_t n = u[pos++];
	*enabled = (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) ? u[pos++] : 0;
	*running = (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) ? u[pos++] : 0;
	if (n > max)
		return pk_error(EIO, "group read: %llu values, at most %zu expected",
				(unsigned long long)n, max);
	if (words - hdr < n * per)
		return pk_error(EIO, "group read: %zu bytes, %llu values need %zu",
				len, (unsigned long long)n, (size_t)((hdr + n * per) * 8));
	for (size_t i = 0; i < n; i++) {
		vals[i].value = u[pos++];
		vals[i].id = (rf & PERF_FORMAT_ID) ? u[pos++] : 0;
		vals[i].lost = (rf & PERF_FORMAT_LOST) ? u[pos++] : 0;
	}
	*nr = (size_t)n;
	return 0;
}

static void finish(struct cnt_event *e)
{
	enum cnt_state st;

	e->value = cnt_scale(e->raw, e->enabled, e->running, &st);
	e->state = st;
}

int cnt_set_read(struct cnt_set *s)
{
	uint64_t buf[4];

	for (size_t i = 0; i < s->nr; i++) {
		struct cnt_event *e = &s->ev[i];
		if (e->fd < 0 || e->leader != (int)i)
			continue;
		if (!s->no_group_read) {
			/* the group's read: 3 words, then (value, id) per member */
			size_t g = 0;
			for (size_t j = i; j < s->nr; j++)
				g += s->ev[j].leader == (int)i;
			uint64_t *gbuf = xmalloc((3 + 2 * g) * sizeof(*gbuf));
			struct cnt_value *v = xmalloc(g * sizeof(*v));
			ssize_t n = read(e->fd, gbuf, (3 + 2 * g) * sizeof(*gbuf));
			size_t nv;
			uint64_t en, run;
			int err = n < 0 ? pk_error(errno, "read of event '%s': %s", e->name, strerror(errno))
					: cnt_parse_group_read(gbuf, (size_t)n, RF_GROUP, &en, &run, v, g, &nv);
			free(gbuf);
			if (err) {
				free(v);
				return err;
			}
			for (size_t j = i; j < s->nr; j++) {
				struct cnt_event *m = &s->ev[j];
				if (m->leader != (int)i || m->fd < 0)
					continue;
				for (size_t k = 0; k < nv; k++) {
					if (v[k].id == m->id) {
						m->raw = v[k].value;
						m->enabled = en;
						m->running = run;
						finish(m);
						break;
					}
				}
			}
			free(v);
			continue;
		}
		for (size_t j = i; j < s->nr; j++) {
			struct cnt_event *m = &s->ev[j];
			if (m->leader != (int)i || m->fd < 0)
				continue;
			ssize_t n = read(m->fd, buf, 4 * sizeof(uint64_t));
			if (n < 0)
				return pk_error(errno, "read of event '%s': %s", m->name, strerror(errno));
			if (n < (ssize_t)(3 * sizeof(uint64_t)))
				return pk_error(EIO, "read of event '%s': %zd bytes, expected 32", m->name, n);
			m->raw = buf[0];
			m->enabled = buf[1];
			m->running = buf[2];
			finish(m);
		}
	}
	return 0;
}

void cnt_set_accumulate(struct cnt_set *into, const struct cnt_set *from)
{
	for (size_t i = 0; i < into->nr && i < from->nr; i++) {
		struct cnt_event *e = &into->ev[i];
		const struct cnt_event *f = &from->ev[i];
		if (f->state == CNT_NOT_SUPPORTED) {
			e->state = CNT_NOT_SUPPORTED;
			continue;
		}
		if (e->duration)   /* a wall time, not a count to sum */
			continue;
		e->raw += f->raw;
		e->enabled += f->enabled;
		e->running += f->running;
		finish(e);
	}
}

void cnt_set_duration(struct cnt_set *s, uint64_t ns)
{
	for (size_t i = 0; i < s->nr; i++) {
		struct cnt_event *e = &s->ev[i];

		if (!e->duration)
			continue;
		e->raw = e->enabled = e->running = ns;
		finish(e);
	}
}

void cnt_set_close(struct cnt_set *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		if (s->ev[i].fd >= 0)
			close(s->ev[i].fd);
		s->ev[i].fd = -1;
	}
}

void cnt_set_release(struct cnt_set *s)
{
	cnt_set_close(s);
	for (size_t i = 0; i < s->nr; i++)
		free(s->ev[i].name);
	free(s->ev);
	memset(s, 0, sizeof(*s));
}

/* ---- topology (sysfs) ---- */

static int topo_int(const char *dir, int cpu, const char *file, int *v)
{
	char path[4096], line[64], *end;
	long x;

	snprintf(path, sizeof(path), "%s/cpu%d/topology/%s", dir, cpu, file);
	if (pk_read_line(path, line, sizeof(line)) != 0)
		return -ENOENT;
	x = strtol(line, &end, 10);
	if (end == line || x < -1 || x > 1 << 30)
		return -ENOENT;
	*v = (int)x;
	return 0;
}

int cnt_cpu_topo(int cpu, struct cnt_cpu_topo *t)
{
	const char *dir = pk_sysfs_cpu();
	char path[4096];
	DIR *d;
	struct dirent *de;

	*t = (struct cnt_cpu_topo){ .node = -1 };
	if (topo_int(dir, cpu, "physical_package_id", &t->socket) || topo_int(dir, cpu, "core_id", &t->core))
		return pk_error(ENOENT, "%s/cpu%d/topology: no physical_package_id or core_id", dir, cpu);
	if (topo_int(dir, cpu, "die_id", &t->die))
		t->die = 0;
	snprintf(path, sizeof(path), "%s/cpu%d", dir, cpu);
	if ((d = opendir(path))) {
		while ((de = readdir(d))) {
			char *end;
			long n;

			if (strncmp(de->d_name, "node", 4) || !de->d_name[4])
				continue;
			n = strtol(de->d_name + 4, &end, 10);
			if (!*end && n >= 0 && n <= 1 << 20) {
				t->node = (int)n;
				break;
			}
		}
		closedir(d);
	}
	return 0;
}
