/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ustack.c — stack naming with per-process snapshots (see ustack.h). */
#include "bpfutil/ustack.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "bpfutil/procmaps.h"
#include "symbol/perfmap.h"
#include "symbol/symbol.h"

struct snapshot {
	int pid;
	bool loaded;
	struct procmaps maps;
	char **files;                /* per mapping: the path it is read through, or NULL */
};

/* A file by identity: a rebuilt binary at the same path is another file. */
struct file_id {
	uint64_t dev, ino;
	int64_t mtime_s, mtime_ns;
};

struct ustack_cache {
	struct symcache *syms;
	struct perfmap_cache *jit;
	struct hashmap index;        /* pid (4 bytes) -> snapshot index + 1 */
	struct hashmap files;        /* struct file_id -> the path its symbols are read through */
	struct hashmap paths;        /* those paths (interned) */
	char **pending;              /* queued for loading (ustack_load_pending) */
	size_t nr_pending, alloc_pending;
	struct snapshot *snaps;
	size_t nr, alloc, taken;
	dev_t root_dev;
	ino_t root_ino;
};

struct ustack_cache *ustack_cache_new(void)
{
	struct ustack_cache *c = xcalloc(1, sizeof(*c));
	struct stat st;

	c->syms = symcache_new();
	hm_init(&c->index);
	hm_init(&c->files);
	hm_init(&c->paths);
	if (stat("/", &st) == 0) {
		c->root_dev = st.st_dev;
		c->root_ino = st.st_ino;
	}
	return c;
}

static void snapshot_release(struct snapshot *s)
{
	if (!s->loaded)
		return;
	for (size_t i = 0; i < s->maps.nr; i++)
		free(s->files[i]);
	free(s->files);
	procmaps_release(&s->maps);
	s->loaded = false;
}

void ustack_cache_free(struct ustack_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr; i++)
		snapshot_release(&c->snaps[i]);
	free(c->snaps);
	hm_release(&c->index);
	hm_release(&c->files);
	hm_release(&c->paths);
	for (size_t i = 0; i < c->nr_pending; i++)
		free(c->pending[i]);
	free(c->pending);
	symcache_free(c->syms);
	perfmap_cache_free(c->jit);
	free(c);
}

void ustack_forget_processes(struct ustack_cache *c, bool symbols_too)
{
	for (size_t i = 0; i < c->nr; i++)
		snapshot_release(&c->snaps[i]);
	c->nr = 0;
	hm_release(&c->index);
	hm_init(&c->index);
	for (size_t i = 0; i < c->nr_pending; i++)
		symcache_resolve(c->syms, c->pending[i], 0, NULL, NULL);
	while (c->nr_pending)
		free(c->pending[--c->nr_pending]);
	if (symbols_too || c->files.nr > USTACK_MAX_FILES) {
		symcache_free(c->syms);
		c->syms = symcache_new();
		hm_release(&c->files);
		hm_init(&c->files);
		hm_release(&c->paths);
		hm_init(&c->paths);
		perfmap_cache_free(c->jit);
		c->jit = NULL;
	}
}

bool ustack_load_pending(struct ustack_cache *c)
{
	if (!c->nr_pending)
		return false;
	char *path = c->pending[--c->nr_pending];   /* newest first: likeliest to exit soon */
	symcache_resolve(c->syms, path, 0, NULL, NULL);
	free(path);
	return true;
}

size_t ustack_snapshots(const struct ustack_cache *c)
{
	return c->taken;
}

static struct snapshot *find(struct ustack_cache *c, int pid, bool create)
{
	int created = 0;
	struct hm_entry *e = create ? hm_upsert(&c->index, &pid, sizeof(pid), &created)
				    : hm_find(&c->index, &pid, sizeof(pid));

	if (!e)
		return NULL;
	if (created) {
		if (c->nr == c->alloc) {
			c->alloc = c->alloc ? 2 * c->alloc : 64;
			c->snaps = xrealloc(c->snaps, c->alloc * sizeof(*c->snaps));
		}
		memset(&c->snaps[c->nr], 0, sizeof(c->snaps[0]));
		c->snaps[c->nr].pid = pid;
		e->val.u = ++c->nr;
	}
	return &c->snaps[e->val.u - 1];
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

int ustack_snapshot(struct ustack_cache *c, int pid)
{
	struct procmaps pm;
	char root[64];
	struct stat st;
	bool own_root = false;
	int err = procmaps_load(&pm, pid);

	if (err)
		return err;
	if (!pm.nr) {
		/* a zombie's maps read empty (its mm is gone): keep the
		 * snapshot taken while it ran */
		procmaps_release(&pm);
		return pk_error(ESRCH, "process %d has exited (no mappings)", pid);
	}
	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	if (stat(root, &st) == 0 && (st.st_dev != c->root_dev || st.st_ino != c->root_ino))
		own_root = true;

	char **files = xcalloc(pm.nr ? pm.nr : 1, sizeof(*files));
	for (size_t i = 0; i < pm.nr; i++) {
		const struct procmap *m = &pm.maps[i];
		struct strbuf mapped = STRBUF_INIT, p = STRBUF_INIT;
		struct file_id id;
		struct stat fst;

		if (m->path[0] != '/')
			continue;
		/* the file mapped there, whatever its name says now */
		sb_addf(&mapped, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, m->start, m->end);
		if (own_root)
			sb_addf(&p, "%s%s", root, m->path);
		else
			sb_addstr(&p, m->path);
		if (ends_with(p.buf, " (deleted)"))
			sb_setlen(&p, p.len - 10);
		if (stat(mapped.buf, &st) != 0) {   /* no map_files (no CAP_SYS_ADMIN): by name */
			files[i] = sb_detach(&p, NULL);
			sb_release(&mapped);
			continue;
		}
		memset(&id, 0, sizeof(id));
		id.dev = st.st_dev;
		id.ino = st.st_ino;
		id.mtime_s = st.st_mtim.tv_sec;
		id.mtime_ns = st.st_mtim.tv_nsec;
		int created;
		struct hm_entry *e = hm_upsert(&c->files, &id, sizeof(id), &created);
		if (created) {
			/* read through its name when that is still this file
			 * and no other file was read by that name, else
			 * (deleted, replaced by a rebuild) through map_files,
			 * while the process lives */
			bool same = !hm_find(&c->paths, p.buf, p.len) &&
				    stat(p.buf, &fst) == 0 && fst.st_dev == st.st_dev &&
				    fst.st_ino == st.st_ino && fst.st_mtim.tv_sec == st.st_mtim.tv_sec &&
				    fst.st_mtim.tv_nsec == st.st_mtim.tv_nsec;
			const char *key = same ? p.buf : mapped.buf;
			e->val.ptr = (void *)hm_intern(&c->paths, key, strlen(key));
			/* its symbols loaded soon, while the path opens (queued,
			 * so that reading the maps of the next processes is not
			 * held up by a large file) */
			if (c->nr_pending == c->alloc_pending) {
				c->alloc_pending = c->alloc_pending ? 2 * c->alloc_pending : 64;
				c->pending = xrealloc(c->pending, c->alloc_pending * sizeof(*c->pending));
			}
			c->pending[c->nr_pending++] = xstrdup(key);
		}
		files[i] = xstrdup(e->val.ptr);
		sb_release(&mapped);
		sb_release(&p);
	}
	struct snapshot *s = find(c, pid, true);
	snapshot_release(s);
	s->maps = pm;
	s->files = files;
	s->loaded = true;
	c->taken++;
	return 0;
}

const struct procmap *ustack_mapping(struct ustack_cache *c, int pid, uint64_t ip, const char **file)
{
	struct snapshot *s = find(c, pid, false);

	if (file)
		*file = NULL;
	if (!s || !s->loaded) {
		if (ustack_snapshot(c, pid))
			return NULL;
		s = find(c, pid, false);
	}
	const struct procmap *m = procmaps_find(&s->maps, ip);
	if (m && file)
		*file = s->files[m - s->maps.maps];
	return m;
}

const char *ustack_user_sym(struct ustack_cache *c, int pid, uint64_t ip, bool leaf,
			    uint64_t *sym_off, const char **dso, const char **file)
{
	const char *f = NULL, *name = NULL;
	uint64_t a = leaf ? ip : ip - 1, off = 0;
	const struct procmap *m = ustack_mapping(c, pid, a, &f);

	if (dso)
		*dso = m && m->path[0] ? m->path : NULL;
	if (file)
		*file = f;
	if (!m || !m->path[0] || !strncmp(m->path, "//anon", 6) || !strncmp(m->path, "[anon", 5)) {
		/* JIT code: anonymous memory, or no mapping (gone, or never
		 * seen), named by the process's perf map */
		if (!c->jit)
			c->jit = perfmap_cache_new(NULL);
		name = perfmap_lookup(c->jit, (uint32_t)pid, a, false, NULL, NULL, &off);
	} else if (f) {
		name = symcache_resolve(c->syms, f, a - m->start + m->pgoff, &off, NULL);
	} else if (!strcmp(m->path, "[vdso]")) {
		name = symcache_resolve(c->syms, "[vdso]", a - m->start + m->pgoff, &off, NULL);
	}
	if (sym_off)
		*sym_off = off;
	return name;
}

void ustack_add_user(struct ustack_cache *c, struct strbuf *sb, int pid, uint64_t ip, bool leaf)
{
	const char *name = ustack_user_sym(c, pid, ip, leaf, NULL, NULL, NULL);

	if (name && strchr(name, ';')) {   /* JVM names: "Lcom/Foo;::bar" */
		size_t at = sb->len;
		sb_addstr(sb, name);
		for (size_t i = at; i < sb->len; i++)
			if (sb->buf[i] == ';')
				sb->buf[i] = ':';
		return;
	}
	sb_addstr(sb, name ? name : "[unknown]");
}

const char *ustack_kernel_sym(struct ustack_cache *c, uint64_t ip, uint64_t *sym_off)
{
	return symcache_resolve_kernel(c->syms, ip, sym_off);
}

void ustack_add_kernel(struct ustack_cache *c, struct strbuf *sb, uint64_t ip)
{
	const char *name = symcache_resolve_kernel(c->syms, ip, NULL);

	if (name)
		sb_addstr(sb, name);
	else
		sb_addf(sb, "0x%llx", (unsigned long long)ip);
}

char *ustack_render(struct ustack_cache *c, const struct ustack_trace *t, unsigned how)
{
	struct strbuf sb = STRBUF_INIT;
	char comm[17];

	snprintf(comm, sizeof(comm), "%.*s", 16, t->comm);
	if (how & USTACK_FOLDED) {
		for (char *p = comm; *p; p++)
			if (*p == ';' || *p == ' ')
				*p = '_';
		sb_addstr(&sb, comm);
		if (t->umissing)
			sb_addf(&sb, ";[Missed User Stack: %s]", t->umissing);
		for (int i = t->nu - 1; i >= 0; i--) {
			sb_addch(&sb, ';');
			ustack_add_user(c, &sb, t->pid, t->uips[i], i == 0);
		}
		if ((how & USTACK_DELIMITED) && t->nu && t->nk)
			sb_addstr(&sb, ";-");
		if (t->kmissing)
			sb_addf(&sb, ";[Missed Kernel Stack: %s]", t->kmissing);
		for (int i = t->nk - 1; i >= 0; i--) {
			sb_addch(&sb, ';');
			ustack_add_kernel(c, &sb, t->kips[i]);
			if (how & USTACK_ANNOTATE)
				sb_addstr(&sb, "_[k]");
		}
		sb_term_escape_from(&sb, 0);   /* one stack, one line */
		return sb_detach(&sb, NULL);
	}
	for (int i = 0; i < t->nk; i++) {
		sb_addstr(&sb, "    ");
		size_t at = sb.len;
		ustack_add_kernel(c, &sb, t->kips[i]);
		sb_term_escape_from(&sb, at);
		if (how & USTACK_ANNOTATE)
			sb_addstr(&sb, "_[k]");
		sb_addch(&sb, '\n');
	}
	if (t->kmissing)
		sb_addf(&sb, "    [Missed Kernel Stack: %s]\n", t->kmissing);
	if ((how & USTACK_DELIMITED) && (t->nk || t->kmissing) && (t->nu || t->umissing))
		sb_addstr(&sb, "    --\n");   /* -d: libbpf-tools' and bcc's delimiter */
	for (int i = 0; i < t->nu; i++) {
		sb_addstr(&sb, "    ");
		size_t at = sb.len;
		ustack_add_user(c, &sb, t->pid, t->uips[i], i == 0);
		sb_term_escape_from(&sb, at);
		sb_addch(&sb, '\n');
	}
	if (t->umissing)
		sb_addf(&sb, "    [Missed User Stack: %s]\n", t->umissing);
	sb_addstr(&sb, "    -                ");
	sb_add_term(&sb, comm, strlen(comm));
	sb_addf(&sb, " (%d)\n", t->pid);
	return sb_detach(&sb, NULL);
}

void ustack_lines_add(struct ustack_lines *l, char *text, unsigned long long count)
{
	if (l->nr == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 256;
		l->v = xrealloc(l->v, l->alloc * sizeof(*l->v));
	}
	l->v[l->nr].text = text;
	l->v[l->nr++].count = count;
}

static int cmp_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_count(const void *a, const void *b)
{
	const struct { char *text; unsigned long long count; } *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	return strcmp(x->text, y->text);
}

void ustack_lines_print(struct ustack_lines *l, bool folded)
{
	size_t w = 0;

	if (l->nr)
		qsort(l->v, l->nr, sizeof(*l->v), cmp_text);
	for (size_t i = 0; i < l->nr; i++) {
		if (w && !strcmp(l->v[w - 1].text, l->v[i].text)) {
			l->v[w - 1].count += l->v[i].count;
			free(l->v[i].text);
		} else {
			l->v[w++] = l->v[i];
		}
	}
	l->nr = w;
	if (!folded && l->nr)
		qsort(l->v, l->nr, sizeof(*l->v), cmp_count);
	for (size_t i = 0; i < l->nr; i++) {
		if (folded)
			printf("%s %llu\n", l->v[i].text, l->v[i].count);
		else
			printf("%s        %llu\n\n", l->v[i].text, l->v[i].count);
		free(l->v[i].text);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}
