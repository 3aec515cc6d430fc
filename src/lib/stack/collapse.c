/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "stack/collapse.h"
#include "stack/perfscript.h"
#include "session/session.h"
#include "base/error.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int on_sample(const struct pk_sample *s, void *arg)
{
	struct ps_collapser *c = arg;

	if (!psc_sample_begin(c, s->comm, (long)s->pid, (long)s->tid, s->event, s->period))
		return 0;
	for (size_t i = 0; i < s->nr_frames; i++) {
		const struct pk_frame *f = &s->frames[i];
		/* the ELF address when known: what --inline looks up (PIE too) */
		psc_sample_frame(c, f->addr ? f->addr : f->ip, f->sym, f->sym_off, f->dso, f->kernel);
	}
	psc_sample_end(c);
	return 0;
}

static int collapse_perfdata(const char *path, struct ps_collapser *c, const struct collapse_opts *o)
{
	struct session *s;
	struct session_opts so = { .max_stack = o->max_stack, .no_demangle = o->no_demangle };
	int ret = session_open(&s, path, &so);

	if (ret)
		return ret;
	psc_set_stable_names(c, true);   /* the session's names live as long as it */
	ret = session_process(s, on_sample, c);
	psc_set_stable_names(c, false);
	session_close(s);
	return ret;
}

#define PAR_MIN_BYTES (16u << 20)   /* below this, one thread */
#define PAR_MAX_THREADS 16

struct piece {
	pthread_t th;
	struct ps_collapser *c;
	struct folded f;
	const char *buf;
	size_t len;
	const char *name;
	int ret;
};

static void *piece_run(void *arg)
{
	struct piece *p = arg;

	p->ret = psc_parse_mem(p->c, p->buf, p->len, p->name);
	return NULL;
}

/*
 * Text in memory, cut into pieces at blank lines (a blank line ends every
 * sample, so no state crosses a cut; the default event filter, the first
 * event of the whole text, is found first and given to every piece).  The
 * first piece is parsed on this thread into out, the others on their own
 * threads into their own folded, merged afterwards.  --srcline (which reads
 * ahead) and --inline (libdw state) stay on one thread.
 */
static int parse_parallel(struct ps_collapser *c, const struct collapse_opts *o,
			  const char *buf, size_t len, const char *name, struct folded *out)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = ncpu > 1 ? (size_t)ncpu : 1;
	struct piece pieces[PAR_MAX_THREADS];
	const char *ev;
	size_t evl, np = 0, start = 0;
	int ret = 0;

	if (n > PAR_MAX_THREADS)
		n = PAR_MAX_THREADS;
	if (n > len / (PAR_MIN_BYTES / 2))
		n = len / (PAR_MIN_BYTES / 2);
	if (n < 2 || len < PAR_MIN_BYTES || o->srcline || o->inline_)
		return psc_parse_mem(c, buf, len, name);
	bool have_ev = !(o->event_filter && *o->event_filter) && psc_first_event(buf, len, &ev, &evl);
	for (size_t i = 0; i < n && start < len; i++) {
		size_t end = len;
		if (i + 1 < n) {
			size_t want = len / n * (i + 1);
			/* a blank line: "\n\n", or "\n\r\n" in CRLF text */
			const char *cut = want > start ? memmem(buf + want, len - want, "\n\n", 2) : NULL;
			const char *crlf = want > start ? memmem(buf + want, len - want, "\n\r\n", 3) : NULL;
			size_t step = 2;
			if (crlf && (!cut || crlf < cut)) {
				cut = crlf;
				step = 3;
			}
			end = cut ? (size_t)(cut - buf) + step : len;
		}
		struct piece *p = &pieces[np++];
		p->c = i ? psc_new(o, &p->f) : c;
		if (i)
			folded_init(&p->f);
		if (have_ev)
			psc_set_first_event(p->c, ev, evl);
		p->buf = buf + start;
		p->len = end - start;
		p->name = name;
		p->ret = 0;
		start = end;
	}
	for (size_t i = 1; i < np; i++)
		if (pthread_create(&pieces[i].th, NULL, piece_run, &pieces[i]))
			piece_run(&pieces[i]), pieces[i].th = 0;
	piece_run(&pieces[0]);
	ret = pieces[0].ret;
	for (size_t i = 1; i < np; i++) {
		if (pieces[i].th)
			pthread_join(pieces[i].th, NULL);
		if (!ret)
			ret = pieces[i].ret;
		folded_merge(out, &pieces[i].f);
		psc_merge(c, pieces[i].c);
		psc_free(pieces[i].c);
		folded_release(&pieces[i].f);
	}
	return ret;
}

/* Read up to n bytes (fewer only at end of input). */
static int read_full(int fd, const char *name, unsigned char *buf, size_t n, size_t *got)
{
	*got = 0;
	while (*got < n) {
		ssize_t k = read(fd, buf + *got, n - *got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return pk_error(errno, "%s: read error: %s", name, strerror(errno));
		if (k == 0)
			break;
		*got += (size_t)k;
	}
	return 0;
}

/* perf.data on a pipe: the magic is read already; the session reads the
 * rest from the stream (no temporary file). */
static int collapse_perfdata_stream(const unsigned char magic[8], struct ps_collapser *c,
				    const struct collapse_opts *o)
{
	struct session *s;
	struct session_opts so = { .max_stack = o->max_stack, .no_demangle = o->no_demangle };
	int ret = session_open_stream(&s, "<stdin>", 0, magic, 8, &so);

	if (ret)
		return ret;
	psc_set_stable_names(c, true);   /* the session's names live as long as it */
	ret = session_process(s, on_sample, c);
	psc_set_stable_names(c, false);
	session_close(s);
	return ret;
}

const char *collapse_count_unit(const char *event, char *buf, size_t size)
{
	size_t n = event ? psc_event_base_len(event, strlen(event)) : 0;

	if (!n)
		return "samples";
	if ((n == 9 && !memcmp(event, "cpu-clock", 9)) || (n == 10 && !memcmp(event, "task-clock", 10)))
		return "ns";
	snprintf(buf, size, "%.*s", (int)n, event);
	return buf;
}

static int collapse_after_magic(int fd, bool is_stdin, const char *path_or_dash, const char *name,
				const unsigned char *magic, size_t got, const struct collapse_opts *o,
				struct folded *out, struct collapse_info *info);

int collapse_file(const char *path_or_dash, const struct collapse_opts *o, struct folded *out)
{
	return collapse_file_info(path_or_dash, o, out, NULL);
}

int collapse_file_info(const char *path_or_dash, const struct collapse_opts *o,
		       struct folded *out, struct collapse_info *info)
{
	bool is_stdin = !path_or_dash || !strcmp(path_or_dash, "-");
	const char *name = is_stdin ? "<stdin>" : path_or_dash;
	int fd = is_stdin ? 0 : open(path_or_dash, O_RDONLY | O_CLOEXEC);
	unsigned char magic[8];
	size_t got;
	int ret;

	if (info)
		info->event[0] = '\0';
	if (fd < 0)
		return pk_error(errno, "cannot open '%s': %s", name, strerror(errno));
	ret = read_full(fd, name, magic, sizeof(magic), &got);
	if (!ret)
		ret = collapse_after_magic(fd, is_stdin, path_or_dash, name, magic, got, o, out, info);
	if (!is_stdin)
		close(fd);
	return ret;
}

int collapse_stream_info(int fd, const char *name, const void *prefix, size_t prefix_len,
			 const struct collapse_opts *o, struct folded *out, struct collapse_info *info)
{
	unsigned char magic[8];
	size_t got = prefix_len < sizeof(magic) ? prefix_len : sizeof(magic);
	int ret = 0;

	if (info)
		info->event[0] = '\0';
	memcpy(magic, prefix, got);
	if (prefix_len > got)
		return pk_error(EINVAL, "%s: at most 8 bytes may be read ahead", name);
	if (got < sizeof(magic)) {
		size_t more;

		ret = read_full(fd, name, magic + got, sizeof(magic) - got, &more);
		got += more;
	}
	if (!ret)
		ret = collapse_after_magic(fd, true, "-", name, magic, got, o, out, info);
	return ret;
}

/* The input's first bytes (got of them, up to 8) are in magic: tell
 * perf.data from (gzip) text and read the rest of fd. */
static int collapse_after_magic(int fd, bool is_stdin, const char *path_or_dash, const char *name,
				const unsigned char *magic, size_t got, const struct collapse_opts *o,
				struct folded *out, struct collapse_info *info)
{
	int ret;
	struct ps_collapser *c = psc_new(o, out);
	if (got == 8 && !memcmp(magic, "PERFILE2", 8)) {
		struct stat st;
		if (!is_stdin) {
			ret = collapse_perfdata(path_or_dash, c, o);
		} else if (fstat(0, &st) == 0 && S_ISREG(st.st_mode) && lseek(0, 0, SEEK_SET) == 0) {
			ret = collapse_perfdata("/proc/self/fd/0", c, o);
		} else {
			/* perf.data on a pipe (a file, or perf's pipe mode): read
			 * from the stream */
			ret = collapse_perfdata_stream(magic, c, o);
		}
	} else {
		bool gz = got >= 2 && magic[0] == 0x1f && magic[1] == 0x8b;
		struct stat st;
		void *map = MAP_FAILED;
		/* a regular file is parsed in place (no copy through read());
		 * no MAP_POPULATE: its page-table walk ran on this thread before
		 * the parse threads started (a serial ~15 ms per 200 MB); page
		 * faults now happen in each thread, on its own piece */
		if (!gz && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
		    (uint64_t)st.st_size == (uint64_t)(size_t)st.st_size && lseek(fd, 0, SEEK_CUR) == (off_t)got)
			map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map != MAP_FAILED) {
			madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
			ret = parse_parallel(c, o, map, (size_t)st.st_size, name, out);
			munmap(map, (size_t)st.st_size);
		} else {
			ret = psc_parse_fd(c, fd, name, magic, got, gz);
		}
	}
	if (info)
		snprintf(info->event, sizeof(info->event), "%s", psc_event(c));
	psc_finish(c);
	psc_free(c);
	return ret;
}

int collapse_text(const char *buf, size_t len, const char *name,
		  const struct collapse_opts *o, struct folded *out)
{
	struct ps_collapser *c = psc_new(o, out);
	int ret = psc_parse_mem(c, buf, len, name ? name : "<text>");

	psc_finish(c);
	psc_free(c);
	return ret;
}
