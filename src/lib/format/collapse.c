/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "format/collapse.h"
#include "format/perfscript.h"
#include "session/session.h"
#include "profile/profile.h"
#include "profile/names.h"
#include "base/error.h"
#include "base/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * perf.data: the samples go into the aggregation model (profile.h), keyed
 * by typed frames; the event filter drops samples before they get there.
 * The model's nodes are then named (profile/names.h): each thread and
 * each (frame, Java or not) named by the stackcollapse-perf.pl rules once
 * (psc_thread_names, psc_frame_names), and stacks whose names come out
 * equal merged into one node of the tree of names, as the text path sums
 * them.  That tree is handed over (collapse_file_tree), or its stacks are
 * added to out.  --inline names a frame by its address: frames per
 * address then.
 */
struct pd_model {
	struct prof *p;
	struct ps_collapser *c;
	struct folded *out;
	bool count;
	bool by_addr;              /* --addrs, --inline: names need the address */
	bool pid, tid;             /* names need the pid, the tid */
	struct pk_frame *frames;   /* a sample's, unknown symbols' addresses cleared */
	size_t aframes;
	/* names: per thread and per (frame, Java) an (offset + 1, n) into
	 * pool; offset 0: not named yet */
	struct nref { uint32_t off, n; } *tnames, *fnames[2];
	bool *tjava;
	size_t ntnames, nfnames;
	uint32_t *pool;
	size_t npool, apool;
};

static int on_sample(const struct pk_sample *s, void *arg)
{
	struct pd_model *m = arg;
	const struct pk_frame *fr = s->frames;
	size_t n = s->nr_frames;

	/* a tracepoint's line in perf script's text goes on past the event
	 * name (its fields): stackcollapse-perf.pl reads no event there, so
	 * it neither filters such a sample nor takes it as the first event */
	bool tp = s->raw && s->raw->evsel && s->raw->evsel->attr.type == PERF_TYPE_TRACEPOINT;

	if (!psc_event_keep(m->c, tp ? NULL : s->event) || !n)   /* the session gives >= 1 */
		return 0;
	/* a tracepoint sample of tid -1 (sched_switch out of an exiting
	 * task): perf script prints ":-1    -1 [001] …: sched:…: FIELDS",
	 * where stackcollapse-perf.pl's header pattern finds no pid (no
	 * number stands alone after the "-1"), so it drops the sample; as it
	 * does, and as the text path (test 0312).  Another event's line ends
	 * in its period, which the pattern takes for the pid: kept, named
	 * ":-1" here (the Perl script makes the whole head its name) */
	if (tp && s->tid == UINT32_MAX)
		return 0;
	if (!m->by_addr) {
		/* an unknown symbol is named by its DSO alone ("[libc.so.6]"):
		 * one frame per DSO, not one per address */
		size_t i = 0;

		while (i < n && fr[i].sym)
			i++;
		if (i < n) {
			if (n > m->aframes) {
				m->aframes = n * 2;
				m->frames = xrealloc(m->frames, m->aframes * sizeof(*m->frames));
			}
			memcpy(m->frames, fr, n * sizeof(*fr));
			for (; i < n; i++)
				if (!m->frames[i].sym)
					m->frames[i].ip = m->frames[i].sym_off = m->frames[i].addr =
						m->frames[i].map_ip = 0;
			fr = m->frames;
		}
	}
	/* a thread is named by its comm, with --pid its pid, with --tid both */
	prof_add(m->p, s->comm, m->pid ? s->pid : 0, m->tid ? s->tid : 0, fr, n, m->count ? 1 : s->period);
	return 0;
}

static struct nref pool_add(struct pd_model *m, const uint32_t *ids, size_t n)
{
	struct nref r = { (uint32_t)m->npool + 1, (uint32_t)n };

	if (m->npool + n > m->apool) {
		m->apool = (m->npool + n) * 2 + 256;
		m->pool = xrealloc(m->pool, m->apool * sizeof(*m->pool));
	}
	memcpy(m->pool + m->npool, ids, n * sizeof(*ids));
	m->npool += n;
	return r;
}

/* The names of a thread (frame PROF_NONE) or of a frame in its stacks,
 * each named once (per Java or not) and kept in the pool. */
static const uint32_t *name_of(void *arg, uint32_t thread, uint32_t frame, size_t *n)
{
	struct pd_model *m = arg;
	struct nref *r;

	if (frame == PROF_NONE) {
		r = &m->tnames[thread];
		if (!r->off) {
			const struct prof_thread *th = prof_thread(m->p, thread);
			size_t k;
			const uint32_t *ids = psc_thread_names(m->c, th->comm, (long)th->pid, (long)th->tid, &k,
							       &m->tjava[thread]);

			*r = pool_add(m, ids, k);
		}
	} else {
		bool java = m->tjava[thread];

		r = &m->fnames[java][frame];
		if (!r->off) {
			const struct pk_frame *f = prof_frame(m->p, frame);
			size_t k;
			/* the ELF address when known: what --inline looks up (PIE too) */
			const uint32_t *ids = psc_frame_names(m->c, f->addr ? f->addr : f->ip, f->sym,
							      f->sym_off, f->dso, f->kernel, java, &k);

			*r = pool_add(m, ids, k);
		}
	}
	*n = r->n;
	return m->pool + r->off - 1;
}

static int on_named(void *arg, const uint32_t *names, size_t n, const struct prof_nnode *end)
{
	folded_add_ids(arg, names, n, end->period);
	return 0;
}

/* Every sample of the open session s into the model, then its stacks
 * named: into *tree when tree is given, else into out; the session
 * closed. */
static int collapse_session(struct session *s, struct ps_collapser *c, const struct collapse_opts *o,
			    struct folded *out, struct prof_names *tree)
{
	struct pd_model m = { .c = c, .out = out, .count = o->count, .by_addr = o->addrs || o->inline_,
			     .pid = o->pid || o->tid, .tid = o->tid };
	int ret;

	m.p = prof_new(o->inline_ ? PROF_BY_IP : 0);
	ret = session_process(s, on_sample, &m);
	if (!ret) {
		struct prof_names t;

		prof_compact(m.p);
		m.ntnames = prof_nr_threads(m.p);
		m.nfnames = prof_nr_frames(m.p);
		m.tnames = xcalloc(m.ntnames + 1, sizeof(*m.tnames));
		m.tjava = xcalloc(m.ntnames + 1, sizeof(*m.tjava));
		for (int j = 0; j < 2; j++)
			m.fnames[j] = xcalloc(m.nfnames + 1, sizeof(*m.fnames[j]));
		prof_names_make(m.p, name_of, &m, tree ? tree : &t);
		session_close(s);   /* the frames' names were the session's */
		s = NULL;
		if (!tree) {
			prof_free(m.p);
			m.p = NULL;
			ret = prof_names_walk(&t, on_named, out);
			prof_names_free(&t);
		}
	}
	free(m.tnames);
	free(m.tjava);
	free(m.fnames[0]);
	free(m.fnames[1]);
	free(m.pool);
	free(m.frames);
	prof_free(m.p);
	if (s)
		session_close(s);
	return ret;
}

static int collapse_perfdata(const char *path, struct ps_collapser *c, const struct collapse_opts *o,
			     struct folded *out, struct prof_names *tree)
{
	struct session *s;
	struct session_opts so = { .max_stack = o->max_stack, .no_demangle = o->no_demangle };
	int ret = session_open(&s, path, &so);

	return ret ? ret : collapse_session(s, c, o, out, tree);
}

/*
 * perf script text from a file or a pipe, streamed: the calling thread
 * reads blocks of BLK_BYTES (more when one sample is longer), cuts each
 * after its last blank line (a blank line ends every sample, so no state
 * crosses a cut; the rest starts the next block) and queues it; one worker
 * per CPU parses blocks with its own collapser into its own folded stacks,
 * merged at the end.  What each block counted (lines, unrecognised lines,
 * dropped samples) is kept per block and added in the blocks' order, so
 * messages are those of one thread reading the whole text.  The default
 * event filter (the first event of the text) is found in the first block
 * and given to every worker; when the first block has none, or with
 * --srcline (which reads ahead) or --inline (libdw state), one worker
 * parses every block in order.  Memory: at most 2 blocks per worker plus
 * one being read, whatever the input's size.
 */
#define BLK_BYTES (1u << 20)
#define MAX_WORKERS 16

struct blk {
	char *buf;
	size_t len, cap;
	size_t seq;
	struct blk *next;
};

struct stream {
	pthread_mutex_t mu;
	pthread_cond_t cv;         /* work queued, a block freed, or done */
	struct blk *head, *tail;   /* queued blocks, in order */
	struct blk *free;          /* blocks to read into */
	size_t nblk, maxblk;       /* allocated, the limit */
	bool done;
	struct psc_part **parts;   /* by block seq */
	size_t nparts, aparts;
	const char *name;
	int ret;
};

struct worker {
	pthread_t th;
	struct stream *st;
	struct ps_collapser *c;
	struct folded f, *out;
	bool started;
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct stream *st = w->st;

	for (;;) {
		pthread_mutex_lock(&st->mu);
		while (!st->head && !st->done)
			pthread_cond_wait(&st->cv, &st->mu);
		struct blk *b = st->head;
		if (!b) {
			pthread_mutex_unlock(&st->mu);
			return NULL;
		}
		st->head = b->next;
		if (!st->head)
			st->tail = NULL;
		pthread_mutex_unlock(&st->mu);

		int ret = psc_parse_mem(w->c, b->buf, b->len, st->name);
		struct psc_part *part = psc_part_take(w->c);

		pthread_mutex_lock(&st->mu);
		if (ret && !st->ret)
			st->ret = ret;
		st->parts[b->seq] = part;
		b->next = st->free;
		st->free = b;
		pthread_cond_broadcast(&st->cv);
		pthread_mutex_unlock(&st->mu);
	}
}

/* A block to read into: a free one, a new one below the limit, or wait. */
static struct blk *get_blk(struct stream *st)
{
	struct blk *b;

	pthread_mutex_lock(&st->mu);
	while (!st->free && st->nblk >= st->maxblk)
		pthread_cond_wait(&st->cv, &st->mu);
	b = st->free;
	if (b) {
		st->free = b->next;
	} else {
		b = xcalloc(1, sizeof(*b));
		b->cap = BLK_BYTES;
		b->buf = xmalloc(b->cap);
		st->nblk++;
	}
	pthread_mutex_unlock(&st->mu);
	b->len = 0;
	b->next = NULL;
	return b;
}

static void put_work(struct stream *st, struct blk *b)
{
	pthread_mutex_lock(&st->mu);
	b->seq = st->nparts;
	if (st->nparts == st->aparts) {
		st->aparts = st->aparts ? st->aparts * 2 : 64;
		st->parts = xrealloc(st->parts, st->aparts * sizeof(*st->parts));
	}
	st->parts[st->nparts++] = NULL;
	if (st->tail)
		st->tail->next = b;
	else
		st->head = b;
	st->tail = b;
	pthread_cond_broadcast(&st->cv);
	pthread_mutex_unlock(&st->mu);
}

/* End of the last blank line in buf[0..len) ("\n\n" or "\n\r\n"), or 0. */
static size_t last_cut(const char *buf, size_t len)
{
	const char *p = buf + len;

	while ((p = memrchr(buf, '\n', (size_t)(p - buf))) != NULL) {
		if (p > buf && p[-1] == '\n')
			return (size_t)(p - buf) + 1;
		if (p > buf + 1 && p[-1] == '\r' && p[-2] == '\n')
			return (size_t)(p - buf) + 1;
	}
	return 0;
}

static int read_some(int fd, const char *name, char *buf, size_t n, size_t *got)
{
	for (;;) {
		ssize_t k = read(fd, buf, n);
		if (k >= 0) {
			*got = (size_t)k;
			return 0;
		}
		if (errno != EINTR)
			return pk_error(errno, "%s: read error: %s", name, strerror(errno));
	}
}

/* Fill b (which holds b->len bytes already) up to its capacity or the end
 * of input; *eof set at the end. */
static int fill_blk(int fd, const char *name, struct blk *b, bool *eof)
{
	while (b->len < b->cap) {
		size_t got = 0;
		int ret = read_some(fd, name, b->buf + b->len, b->cap - b->len, &got);
		if (ret)
			return ret;
		if (!got) {
			*eof = true;
			return 0;
		}
		b->len += got;
	}
	return 0;
}

static int parse_stream(struct ps_collapser *c, const struct collapse_opts *o, int fd,
			const char *name, const void *prefix, size_t prefix_len, struct folded *out)
{
	/* the CPUs this thread may run on (taskset, cpusets), not the machine's */
	cpu_set_t set;
	long ncpu = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set)
								  : sysconf(_SC_NPROCESSORS_ONLN);
	size_t nw = ncpu > 1 ? (size_t)ncpu : 1;
	struct stream st;
	struct worker ws[MAX_WORKERS];
	bool eof = false;
	int ret = 0;

	if (nw > MAX_WORKERS)
		nw = MAX_WORKERS;
	/* a pipe: a larger buffer (up to a block; refused above the
	 * system's pipe-max-size, then as it was) lets the writer run ahead
	 * with fewer wake-ups and reads */
	struct stat sb;
	bool have_sb = fstat(fd, &sb) == 0, regular = have_sb && S_ISREG(sb.st_mode);
	if (have_sb && S_ISFIFO(sb.st_mode))
		(void)fcntl(fd, F_SETPIPE_SZ, (int)BLK_BYTES);
	/* a large input: huge pages asked for under the heap's top (blocks,
	 * the parsers' tables) from the start for a file of 16 MiB or more,
	 * from the 4th MiB read on for a pipe, and again every 16 MiB read
	 * while the tables grow; a small input is not worth a huge page's
	 * zeroing.  (No restart with glibc's heap tunable, as perfkit.c does
	 * for perf.data: its second start cost more than it saved.) */
	const uint64_t mib = (uint64_t)1 << 20;
	uint64_t nread = 0, next_thp = !regular ? 4 * mib : (uint64_t)sb.st_size >= 16 * mib ? 0 : UINT64_MAX;
	if (!next_thp) {
		xheap_thp((size_t)(30 * mib));
		next_thp = 16 * mib;
	}
	memset(&st, 0, sizeof(st));
	pthread_mutex_init(&st.mu, NULL);
	pthread_cond_init(&st.cv, NULL);
	st.name = name;
	st.maxblk = 2 * nw + 1;

	struct blk *b = get_blk(&st);
	memcpy(b->buf, prefix, prefix_len);
	b->len = prefix_len;
	size_t nstarted = 0;
	for (;;) {
		size_t had = b->len;
		ret = fill_blk(fd, name, b, &eof);
		if (ret)
			break;
		nread += b->len - had;
		if (nread >= next_thp) {
			xheap_thp((size_t)(30 * mib));
			next_thp = nread + 16 * mib;
		}
		size_t cut = eof ? b->len : last_cut(b->buf, b->len);
		if (!cut && !eof) {   /* one sample longer than the block: read on */
			b->cap *= 2;
			b->buf = xrealloc(b->buf, b->cap);
			continue;
		}
		if (!nstarted) {
			/* the first block: small input on this thread; else the
			 * event filter and the number of workers */
			if (eof) {
				ret = psc_parse_mem(c, b->buf, b->len, name);
				pthread_mutex_lock(&st.mu);
				b->next = st.free;
				st.free = b;
				pthread_mutex_unlock(&st.mu);
				b = NULL;
				break;
			}
			const char *ev = NULL;
			size_t evl = 0;
			bool ordered = o->srcline || o->inline_;
			if (!(o->event_filter && *o->event_filter)) {
				if (psc_first_event(b->buf, cut, &ev, &evl))
					psc_set_first_event(c, ev, evl);
				else
					ordered = true;
			}
			if (ordered)
				nw = 1;
			for (size_t i = 0; i < nw; i++) {
				struct worker *w = &ws[i];
				w->st = &st;
				w->out = i ? &w->f : out;
				if (i) {
					folded_init(&w->f);
					w->c = psc_new(o, &w->f);
					if (!(o->event_filter && *o->event_filter))
						psc_set_first_event(w->c, ev, evl);
				} else {
					w->c = c;
				}
				w->started = !pthread_create(&w->th, NULL, worker_run, w);
				if (!w->started && i == 0) {
					ret = pk_error(EAGAIN, "%s: cannot start a thread", name);
					break;
				}
			}
			nstarted = nw;
			if (ret)
				break;
		}
		struct blk *next = eof ? NULL : get_blk(&st);
		if (next) {
			size_t rest = b->len - cut;
			if (rest > next->cap) {
				next->cap = rest + BLK_BYTES;
				next->buf = xrealloc(next->buf, next->cap);
			}
			memcpy(next->buf, b->buf + cut, rest);
			next->len = rest;
			b->len = cut;
		}
		put_work(&st, b);
		b = next;
		if (!b)
			break;
	}
	if (b) {   /* stopped on an error: give the block back */
		b->next = st.free;
		st.free = b;
	}
	pthread_mutex_lock(&st.mu);
	st.done = true;
	pthread_cond_broadcast(&st.cv);
	pthread_mutex_unlock(&st.mu);
	for (size_t i = 0; i < nstarted; i++)
		if (ws[i].started)
			pthread_join(ws[i].th, NULL);
	if (!ret)
		ret = st.ret;
	for (size_t i = 0; i < st.nparts; i++)
		psc_part_merge(c, st.parts[i]);
	for (size_t i = 1; i < nstarted; i++) {
		folded_merge(out, &ws[i].f);
		psc_merge(c, ws[i].c);   /* nothing left but the filter's state */
		psc_free(ws[i].c);
		folded_release(&ws[i].f);
	}
	while (st.free) {
		struct blk *f = st.free;
		st.free = f->next;
		free(f->buf);
		free(f);
	}
	free(st.parts);
	pthread_mutex_destroy(&st.mu);
	pthread_cond_destroy(&st.cv);
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
static int collapse_perfdata_stream(int fd, const char *name, const unsigned char magic[8],
				    struct ps_collapser *c, const struct collapse_opts *o, struct folded *out,
				    struct prof_names *tree)
{
	struct session *s;
	struct session_opts so = { .max_stack = o->max_stack, .no_demangle = o->no_demangle };
	int ret = session_open_stream(&s, name, fd, magic, 8, &so);

	return ret ? ret : collapse_session(s, c, o, out, tree);
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
				struct folded *out, struct prof_names *tree, struct collapse_info *info);

int collapse_file(const char *path_or_dash, const struct collapse_opts *o, struct folded *out)
{
	return collapse_file_info(path_or_dash, o, out, NULL);
}

int collapse_file_info(const char *path_or_dash, const struct collapse_opts *o,
		       struct folded *out, struct collapse_info *info)
{
	return collapse_file_tree(path_or_dash, o, out, NULL, info);
}

int collapse_file_tree(const char *path_or_dash, const struct collapse_opts *o, struct folded *out,
		       struct prof_names *tree, struct collapse_info *info)
{
	bool is_stdin = !path_or_dash || !strcmp(path_or_dash, "-");
	const char *name = is_stdin ? "<stdin>" : path_or_dash;
	int fd = is_stdin ? 0 : open(path_or_dash, O_RDONLY | O_CLOEXEC);
	unsigned char magic[8];
	size_t got;
	int ret;

	if (tree)
		*tree = (struct prof_names){ 0 };
	struct stat st;

	if (fd >= 0 && !is_stdin && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);   /* Perl's <> reads nothing of it */
		fd = -1;
		errno = EISDIR;
	}
	if (info) {
		info->event[0] = '\0';
		info->opened = fd >= 0;
	}
	if (fd < 0)
		return pk_error(errno, "cannot open '%s': %s", name, strerror(errno));
	ret = read_full(fd, name, magic, sizeof(magic), &got);
	if (!ret)
		ret = collapse_after_magic(fd, is_stdin, path_or_dash, name, magic, got, o, out, tree, info);
	if (!is_stdin)
		close(fd);
	return ret;
}

int collapse_stream_info(int fd, const char *name, const void *prefix, size_t prefix_len,
			 const struct collapse_opts *o, struct folded *out, struct collapse_info *info)
{
	return collapse_stream_tree(fd, name, prefix, prefix_len, o, out, NULL, info);
}

int collapse_stream_tree(int fd, const char *name, const void *prefix, size_t prefix_len,
			 const struct collapse_opts *o, struct folded *out, struct prof_names *tree,
			 struct collapse_info *info)
{
	unsigned char magic[8];
	size_t got = prefix_len < sizeof(magic) ? prefix_len : sizeof(magic);
	int ret = 0;

	if (tree)
		*tree = (struct prof_names){ 0 };
	if (info) {
		info->event[0] = '\0';
		info->opened = true;
	}
	memcpy(magic, prefix, got);
	if (prefix_len > got)
		return pk_error(EINVAL, "%s: at most 8 bytes may be read ahead", name);
	if (got < sizeof(magic)) {
		size_t more;

		ret = read_full(fd, name, magic + got, sizeof(magic) - got, &more);
		got += more;
	}
	if (!ret)
		ret = collapse_after_magic(fd, true, "-", name, magic, got, o, out, tree, info);
	return ret;
}

/* The input's first bytes (got of them, up to 8) are in magic: tell
 * perf.data from (gzip) text and read the rest of fd. */
static int collapse_after_magic(int fd, bool is_stdin, const char *path_or_dash, const char *name,
				const unsigned char *magic, size_t got, const struct collapse_opts *o,
				struct folded *out, struct prof_names *tree, struct collapse_info *info)
{
	int ret;
	struct ps_collapser *c = psc_new(o, out);

	if (got == 8 && !memcmp(magic, "PERFILE2", 8)) {
		struct stat st;
		bool reg = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);

		if (!is_stdin && reg) {
			ret = collapse_perfdata(path_or_dash, c, o, out, tree);
		} else if (reg && lseek(0, 0, SEEK_SET) == 0) {
			ret = collapse_perfdata("-", c, o, out, tree);   /* pd_open names it <stdin> */
		} else {
			/* perf.data on a pipe or a FIFO (a file, or perf's pipe
			 * mode): read from the stream, not opened again (a FIFO's
			 * writer may be gone, or its bytes read already) */
			ret = collapse_perfdata_stream(fd, name, magic, c, o, out, tree);
		}
	} else {
		bool gz = got >= 2 && magic[0] == 0x1f && magic[1] == 0x8b;
		if (gz)
			ret = psc_parse_fd(c, fd, name, magic, got, gz);
		else
			ret = parse_stream(c, o, fd, name, magic, got, out);
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
