/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit mem — which data objects the loads and stores go to, and which
 * cache level served them, simulated (perf mem without PEBS/IBS/SPE):
 *
 *   perfkit mem record [-o FILE] [--D1=S,A,L] [--L2=…] [--LL=…] [--tlb=…]
 *                      [--stlb=…] [--prefetch=…] [--l1-prefetch=…] [--] CMD ARGS...
 *   perfkit mem report [-i FILE] [--stdio] [--sort KEYS] [--folded[=l1|l2|ll]]
 *
 * record runs CMD under perfkit's Valgrind tool in mem mode (src/vgtool/
 * pk_mem.c) with the modern cache model (src/lib/cachesim/cachesim.h; the
 * geometry, unless pinned, the one perfkit cache --model=modern takes:
 * hostcache_read_host(), i.e. sysfs or PERFKIT_SYSFS_CPU) and writes FILE (default
 * perfkit.mem).  Every access is counted (no sampling): the level that
 * served it (L1, L2, LL or memory) and whether the L1 dTLB missed, per
 * instruction and data object (a global symbol, a heap block's allocation
 * stack, a thread's stack).
 *
 * report prints perf mem report's columns — Overhead (share of the
 * accesses), Samples (accesses), Memory access (the level), Symbol, Shared
 * Object, Data Symbol, Data Object — for the keys of --sort (mem, sym, dso,
 * symbol_daddr, dso_daddr; default all five, in that order), rows by
 * accesses, then a summary per data object: "block allocated at list.c:88
 * (make_list): 61.0 % of LL misses".  --folded prints instead one line per
 * (data object, allocation stack, accessing function) weighted by the
 * misses at that level (default ll: accesses served by memory), for
 * `perfkit flamegraph`: root frame the object's class ([heap] + allocation
 * stack, [global] + object file + symbol, [stack], [unknown] + the object
 * file holding the address or [anon]: no symbol, block or stack covers it),
 * last frame the accessing function; a frame without a symbol (Valgrind's
 * "???") is "[OBJECT-FILE]" or "[unknown]", as perfkit collapse names it.
 * Identical stacks are summed, lines sorted.
 *
 * The threads of a program share one simulated hierarchy, run one at a time
 * (no coherence: that is perfkit c2c's question).  Exec'd programs are not
 * followed; a forked child writes FILE.pidN.
 *
 * Exit status: record: CMD's (128+N for signal N), 127 when CMD is not
 * found, 1 when the run or the file failed; report: 0, 1 on a bad file;
 * 2 on a usage error.
 */
#include "cmd/cmds.h"

#include "base/child.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "cachesim/cachesim.h"
#include "cachesim/hostcache.h"
#include "memprof/memprof.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "perfkit mem: %s\n", msg);
	fprintf(stderr,
		"usage: perfkit mem record [-o FILE] [--D1=S,A,L] [--L2=S,A,L] [--LL=S,A,L] [--tlb=E,A,P]\n"
		"                          [--stlb=E,A|none] [--prefetch=…] [--l1-prefetch=yes|no] [--] CMD [ARGS...]\n"
		"       perfkit mem report [-i FILE] [--stdio] [--sort KEYS] [--folded[=l1|l2|ll]]\n");
	return 2;
}

static void help(void)
{
	printf("usage: perfkit mem record [OPTIONS] [--] CMD [ARGS...]\n"
	       "       perfkit mem report [-i FILE] [--stdio] [--sort KEYS] [--folded[=l1|l2|ll]]\n"
	       "Attribute every load and store to its data object (global symbol, heap block by\n"
	       "allocation stack, stack) with the cache level that served it, simulated under\n"
	       "Valgrind with the modern model of perfkit cache: no PEBS, IBS or SPE needed.\n"
	       "\n"
	       "record:\n"
	       "  -o, --output=FILE     the data file (default perfkit.mem)\n"
	       "  --D1= --L2= --LL=S,A,L  pin a cache level: size, associativity, line (default:\n"
	       "                        this host's); --tlb=ENTRIES,ASSOC,PAGE, --stlb=E,A|none,\n"
	       "                        --prefetch=none|next-line|stride|stream, --l1-prefetch=yes|no\n"
	       "                        as for perfkit cache\n"
	       "report:\n"
	       "  -i, --input=FILE      the data file (default perfkit.mem)\n"
	       "  --sort=KEYS           comma-separated: mem (the level), sym (the code), dso (its\n"
	       "                        file), symbol_daddr (the data object), dso_daddr (its\n"
	       "                        mapping); default mem,sym,dso,symbol_daddr,dso_daddr\n"
	       "  --folded[=l1|l2|ll]   folded stacks of data objects (allocation stack, then the\n"
	       "                        accessing function) weighted by misses at that level\n"
	       "                        (default ll), for perfkit flamegraph\n"
	       "  --stdio               text output (the only one; accepted for perf's habit)\n"
	       "\n"
	       "Example: perfkit mem record --LL=1048576,16,64 -- ./list && perfkit mem report --sort=symbol_daddr\n");
}

/* ---- record ---- */

/* The simulated D1/L2/LL the modern model of perfkit cache takes (the same
 * hostcache_read_host(): PERFKIT_SYSFS_CPU or sysfs) for each level the
 * user did not pin: "--D1=S,A,L" etc. appended to opts (buf holds them).
 * 0, or -EINVAL (message set) when PERFKIT_SYSFS_CPU describes nothing. */
static const char *const mem_lv[3] = { "D1", "L2", "LL" };

static int host_geometry(const char **opts, int *n, const int *pinned, char buf[3][96],
			 struct host_caches *hc, int *have_host)
{
	int hr = hostcache_read_host(hc);

	*have_host = hr == 0;
	if (hr == -EINVAL)
		return hr;
	if (hr < 0)
		return 0;
	const struct cache_geom *h[3] = { &hc->D1, &hc->L2, &hc->LL };
	for (int k = 0; k < 3; k++)
		if (!pinned[k] && h[k]->size && !pk_cache_check(h[k]->size, h[k]->assoc, h[k]->line)) {
			snprintf(buf[k], sizeof(buf[k]), "--%s=%llu,%llu,%llu", mem_lv[k],
				 (unsigned long long)h[k]->size, (unsigned long long)h[k]->assoc,
				 (unsigned long long)h[k]->line);
			opts[(*n)++] = buf[k];
		}
	return 0;
}

/* perfkit cache's warning: an unpinned level simulated other than the host
 * describes it (the file's "desc LL cache: S B, L B, A-way associative"). */
static void warn_geometry(const char *file, const int *pinned, const struct host_caches *hc)
{
	const struct cache_geom *h[3] = { &hc->D1, &hc->L2, &hc->LL };
	struct memprof mp;

	if (memprof_read(&mp, file) < 0)
		return;
	for (size_t i = 0; i < mp.ndesc; i++)
		for (int k = 0; k < 3; k++) {
			unsigned long long s, l, a;
			const char *d = mp.desc[i];

			if (pinned[k] || !h[k]->size || strncmp(d, mem_lv[k], 2) || strncmp(d + 2, " cache: ", 8) ||
			    sscanf(d + 10, "%llu B, %llu B, %llu-way", &s, &l, &a) != 3)
				continue;
			if (s == h[k]->size && a == h[k]->assoc && l == h[k]->line)
				continue;
			fprintf(stderr, "perfkit mem: warning: simulated %s cache: %s, not the host's %llu B, %llu B, %llu-way (%s); pin it with --%s=%llu,%llu,%llu\n",
				mem_lv[k], d + 10, (unsigned long long)h[k]->size, (unsigned long long)h[k]->line,
				(unsigned long long)h[k]->assoc, hostcache_sysfs_cpu(), mem_lv[k],
				(unsigned long long)h[k]->size, (unsigned long long)h[k]->assoc,
				(unsigned long long)h[k]->line);
		}
	memprof_release(&mp);
}

static int mem_record(int argc, char **argv)
{
	static const char *const pass[] = { "--I1=", "--D1=", "--L2=", "--LL=", "--tlb=", "--stlb=",
					    "--prefetch=", "--l1-prefetch=", NULL };
	const char *out = "perfkit.mem";
	const char **opts = xcalloc((size_t)argc + 4, sizeof(char *));
	int i, n = 0, status = 0, rc, pinned[3] = { 0, 0, 0 }, have_host = 0;
	char gbuf[3][96];
	struct host_caches hc;

	i = memprof_record_args(argc, argv, pass, opts, &n, &out);
	if (i <= 0) {
		free(opts);
		if (i == 0) {
			help();
			return 0;
		}
		fprintf(stderr, "perfkit mem record: %s\n", pk_errmsg());
		return usage(NULL);
	}
	for (int k = 0; k < n; k++)	/* --D1=, --L2=, --LL= */
		for (int l = 0; l < 3; l++)
			if (!strncmp(opts[k], pass[l + 1], strlen(pass[l + 1])))
				pinned[l] = 1;

	rc = memprof_program(argv[i]);
	if (rc < 0) {
		fprintf(stderr, "perfkit mem: %s\n", pk_errmsg());
		free(opts);
		return rc == -ENOENT ? 127 : 126;
	}
	/* the default geometry: perfkit cache --model=modern's (hostcache.h) */
	if (host_geometry(opts, &n, pinned, gbuf, &hc, &have_host) < 0) {
		fprintf(stderr, "perfkit mem: %s\n", pk_errmsg());
		free(opts);
		return 1;
	}
	rc = memprof_record("mem", opts, out, argv + i, &status);
	free(opts);
	if (rc < 0) {
		fprintf(stderr, "perfkit mem: %s\n", pk_errmsg());
		return 1;
	}
	struct stat st;
	if (have_host && stat(out, &st) == 0 && S_ISREG(st.st_mode))	/* not a FIFO, /dev/stdout */
		warn_geometry(out, pinned, &hc);
	fprintf(stderr, "perfkit mem: wrote %s (perfkit mem report -i %s)\n", out, out);
	return pk_exit_status(status);
}

/* ---- report ---- */

enum key { K_MEM, K_SYM, K_DSO, K_SYMD, K_DSOD, NKEY };
static const char *const key_name[NKEY] = { "mem", "sym", "dso", "symbol_daddr", "dso_daddr" };
static const char *const key_title[NKEY] = { "Memory access", "Symbol", "Shared Object",
					     "Data Symbol", "Data Object" };
static const char *const lvl_name[4] = { "L1 hit", "L2 hit", "LL hit", "RAM hit" };

struct mrow {
	char *f[NKEY];
	uint64_t n, tlb;
};

static const char *base(const char *p)
{
	const char *b = strrchr(p, '/');

	return b ? b + 1 : p;
}

static char *data_symbol(const struct memprof *mp, int obj)
{
	const struct mp_object *o = &mp->obj[obj];
	char src[256];
	int site;

	switch (o->kind) {
	case MP_GLOBAL:
		return xstrfmt("[.] %s", o->name);
	case MP_HEAP:
		site = memprof_alloc_site(mp, o->stack);
		if (site < 0)
			return xstrdup("[heap]");
		return xstrfmt("[heap] %s@%s", mp->code[site].fn,
			       memprof_srcline(mp, site, src, sizeof(src)));
	case MP_STACK:
		return xstrdup("[stack]");
	default:
		return xstrdup("[unknown]");
	}
}

static char *data_object(const struct memprof *mp, int obj)
{
	const struct mp_object *o = &mp->obj[obj];

	if (o->kind == MP_HEAP)
		return xstrdup("[heap]");
	if (o->kind == MP_STACK)
		return xstrdup("[stack]");
	return xstrdup(base(o->dso));
}

static int cmp_mrow_key(const void *a, const void *b)
{
	const struct mrow *x = a, *y = b;

	for (int k = 0; k < NKEY; k++) {
		int c = strcmp(x->f[k] ? x->f[k] : "", y->f[k] ? y->f[k] : "");

		if (c)
			return c;
	}
	return 0;
}

static int cmp_mrow_n(const void *a, const void *b)
{
	const struct mrow *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return cmp_mrow_key(a, b);
}

struct objsum {
	int obj;
	uint64_t n, miss[4];	/* miss[i]: accesses served below level i (i=1: L1 misses) */
};

static int cmp_objsum(const void *a, const void *b)
{
	const struct objsum *x = a, *y = b;

	if (x->miss[3] != y->miss[3])
		return x->miss[3] < y->miss[3] ? 1 : -1;
	if (x->miss[1] != y->miss[1])
		return x->miss[1] < y->miss[1] ? 1 : -1;
	return x->obj - y->obj;
}

/* ";NAME" as one folded frame: a ';' inside a name would split it */
static void add_frame(struct strbuf *sb, const char *name)
{
	sb_addstr(sb, ";");
	for (const char *p = name; *p; p++)
		sb_add(sb, *p == ';' ? ":" : p, 1);
}

/* A function frame as perfkit collapse names it (stackcollapse-perf): the
 * symbol; Valgrind's "???" (no symbol) as "[DSO]" (the object's last path
 * component), or "[unknown]" when the object is not known either. */
static void add_fn_frame(struct strbuf *sb, const struct mp_code *c)
{
	if (strcmp(c->fn, "???") && c->fn[0]) {
		add_frame(sb, c->fn);
	} else if (c->dso && c->dso[0] && strcmp(c->dso, "???")) {
		char *f = xstrfmt("[%s]", base(c->dso));

		add_frame(sb, f);
		free(f);
	} else {
		add_frame(sb, "[unknown]");
	}
}

struct fline {
	char *stack;
	uint64_t w;
};

static int cmp_fline(const void *a, const void *b)
{
	return strcmp(((const struct fline *)a)->stack, ((const struct fline *)b)->stack);
}

/* One line per distinct stack (the accesses of several instructions of one
 * function, or of several threads' stacks, summed), sorted by stack. */
static void folded(const struct memprof *mp, int from)
{
	struct fline *fl = xcalloc(mp->nacc + 1, sizeof(*fl));
	size_t nfl = 0;

	for (size_t i = 0; i < mp->nacc; i++) {
		const struct mp_acc *a = &mp->acc[i];
		const struct mp_object *o = &mp->obj[a->obj];
		uint64_t w = 0;
		struct strbuf sb;

		for (int l = from; l < 4; l++)
			w += a->lvl[l];
		if (!w)
			continue;
		sb_init(&sb, 128);
		switch (o->kind) {
		case MP_HEAP: {
			const struct mp_stack *s = &mp->stack[o->stack];
			int site = memprof_alloc_site(mp, o->stack);
			size_t first = 0;
			char src[256];

			size_t last = s->n;

			sb_addstr(&sb, "[heap]");
			while (first < s->n && s->codes[first] != site)
				first++;
			/* nothing above main: the frames from "(below main)" out */
			for (size_t k = first; k < s->n; k++)
				if (!strcmp(mp->code[s->codes[k]].fn, "(below main)")) {
					last = k;
					break;
				}
			for (size_t k = last; k-- > first;) {
				const struct mp_code *c = &mp->code[s->codes[k]];

				if (s->codes[k] == site) {
					char *f = xstrfmt("%s@%s", c->fn,
							  memprof_srcline(mp, site, src, sizeof(src)));

					add_frame(&sb, f);
					free(f);
				} else {
					add_fn_frame(&sb, c);
				}
			}
			break;
		}
		case MP_GLOBAL:
			sb_addstr(&sb, "[global]");
			add_frame(&sb, base(o->dso));
			add_frame(&sb, o->name);
			break;
		case MP_STACK:
			sb_addstr(&sb, "[stack]");
			break;
		default:
			sb_addstr(&sb, "[unknown]");
			add_frame(&sb, base(o->dso));
			break;
		}
		add_fn_frame(&sb, &mp->code[a->code]);
		/* folded frames cannot hold ';' or a newline */
		for (char *p = sb.buf; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
		fl[nfl].stack = xstrdup(sb.buf);
		fl[nfl++].w = w;
		sb_release(&sb);
	}
	qsort(fl, nfl, sizeof(*fl), cmp_fline);
	for (size_t i = 0; i < nfl;) {
		size_t j = i + 1;
		uint64_t w = fl[i].w;

		for (; j < nfl && !strcmp(fl[j].stack, fl[i].stack); j++)
			w += fl[j].w;
		printf("%s %" PRIu64 "\n", fl[i].stack, w);
		for (; i < j; i++)
			free(fl[i].stack);
	}
	free(fl);
}

static int mem_report(int argc, char **argv)
{
	const char *in = "perfkit.mem", *sort = "mem,sym,dso,symbol_daddr,dso_daddr";
	int fold = -1, keys[NKEY], nkeys = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-i")) {
			if (++i >= argc)
				return usage("-i needs a file name");
			in = argv[i];
		} else if (!strncmp(a, "--input=", 8)) {
			in = a + 8;
		} else if (!strcmp(a, "--stdio")) {
			;
		} else if (!strcmp(a, "-s") || !strcmp(a, "--sort")) {
			if (++i >= argc)
				return usage("--sort needs keys");
			sort = argv[i];
		} else if (!strncmp(a, "--sort=", 7)) {
			sort = a + 7;
		} else if (!strcmp(a, "--folded")) {
			fold = 3;
		} else if (!strncmp(a, "--folded=", 9)) {
			const char *v = a + 9;

			fold = !strcmp(v, "l1") ? 1 : !strcmp(v, "l2") ? 2 : !strcmp(v, "ll") ? 3 : -1;
			if (fold < 0)
				return usage("--folded: expected l1, l2 or ll");
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			help();
			return 0;
		} else {
			fprintf(stderr, "perfkit mem report: unknown option '%s'\n", a);
			return usage(NULL);
		}
	}
	for (const char *p = sort; *p;) {
		size_t l = strcspn(p, ",");
		int k;

		for (k = 0; k < NKEY; k++)
			if (strlen(key_name[k]) == l && !strncmp(p, key_name[k], l))
				break;
		if (k == NKEY) {   /* (a key given twice counts once: at most NKEY) */
			fprintf(stderr, "perfkit mem report: --sort: unknown key '%.*s' (expected mem, sym, "
				"dso, symbol_daddr, dso_daddr)\n", (int)l, p);
			return 2;
		}
		for (int j = 0; j < nkeys; j++)
			if (keys[j] == k)
				k = -1;
		if (k >= 0)
			keys[nkeys++] = k;
		p += l;
		if (*p == ',')
			p++;
	}
	if (!nkeys)
		return usage("--sort: expected at least one key");

	struct memprof mp;

	if (memprof_read(&mp, in) < 0) {
		fprintf(stderr, "perfkit mem: %s\n", pk_errmsg());
		return 1;
	}
	if (strcmp(mp.mode, "mem")) {
		fprintf(stderr, "perfkit mem: %s: recorded by perfkit c2c record, which simulates no cache "
			"levels (record with perfkit mem record)\n", in);
		memprof_release(&mp);
		return 1;
	}
	if (fold >= 0) {
		folded(&mp, fold);
		memprof_release(&mp);
		return 0;
	}

	int by_mem = 0;
	size_t cap = mp.nacc * 4 + 1, nr = 0;
	struct mrow *rows = xcalloc(cap, sizeof(*rows));
	uint64_t total = 0;

	for (int j = 0; j < nkeys; j++)
		by_mem |= keys[j] == K_MEM;
	for (size_t i = 0; i < mp.nacc; i++) {
		const struct mp_acc *a = &mp.acc[i];
		const struct mp_code *c = &mp.code[a->code];

		total += a->n;
		for (int l = 0; l < (by_mem ? 4 : 1); l++) {
			uint64_t n = by_mem ? a->lvl[l] : a->n, t = 0;
			struct mrow *r;

			if (!n)
				continue;
			for (int k = by_mem ? l : 0; k < (by_mem ? l + 1 : 4); k++)
				t += a->tlb[k];
			r = &rows[nr++];
			for (int j = 0; j < nkeys; j++)
				switch (keys[j]) {
				case K_MEM:
					r->f[K_MEM] = xstrdup(lvl_name[l]);
					break;
				case K_SYM:
					r->f[K_SYM] = xstrfmt("[.] %s", c->fn);
					break;
				case K_DSO:
					r->f[K_DSO] = xstrdup(base(c->dso));
					break;
				case K_SYMD:
					r->f[K_SYMD] = data_symbol(&mp, a->obj);
					break;
				default:
					r->f[K_DSOD] = data_object(&mp, a->obj);
					break;
				}
			r->n = n;
			r->tlb = t;
		}
	}
	/* merge equal keys */
	qsort(rows, nr, sizeof(*rows), cmp_mrow_key);
	size_t m = 0;

	for (size_t i = 0; i < nr; i++) {
		if (m && !cmp_mrow_key(&rows[m - 1], &rows[i])) {
			rows[m - 1].n += rows[i].n;
			rows[m - 1].tlb += rows[i].tlb;
			for (int k = 0; k < NKEY; k++)
				free(rows[i].f[k]);
			continue;
		}
		rows[m++] = rows[i];
	}
	nr = m;
	qsort(rows, nr, sizeof(*rows), cmp_mrow_n);

	int w[NKEY] = { 0 };

	for (int j = 0; j < nkeys; j++) {
		w[keys[j]] = (int)strlen(key_title[keys[j]]);
		for (size_t i = 0; i < nr; i++) {
			int l = (int)strlen(rows[i].f[keys[j]]);

			if (l > w[keys[j]])
				w[keys[j]] = l < 60 ? l : 60;
		}
	}
	printf("# Samples: %" PRIu64 " loads and stores of %s (every access, simulated)\n", total,
	       mp.cmd ? mp.cmd : "?");
	for (size_t i = 0; i < mp.ndesc; i++)
		printf("# %s\n", mp.desc[i]);
	printf("# Sort order   : %s\n#\n# Overhead       Samples  ", sort);
	for (int j = 0; j < nkeys; j++)
		printf("%-*s  ", w[keys[j]], key_title[keys[j]]);
	printf("dTLB miss\n# ........  ............  ");
	for (int j = 0; j < nkeys; j++) {
		for (int k = 0; k < w[keys[j]]; k++)
			putchar('.');
		printf("  ");
	}
	printf(".........\n#\n");
	for (size_t i = 0; i < nr; i++) {
		printf("  %7.2f%%  %12" PRIu64 "  ", total ? 100.0 * (double)rows[i].n / (double)total : 0.0,
		       rows[i].n);
		for (int j = 0; j < nkeys; j++)
			printf("%-*.*s  ", w[keys[j]], 60, rows[i].f[keys[j]]);
		printf("%9" PRIu64 "\n", rows[i].tlb);
	}

	/* per data object */
	struct objsum *os = xcalloc(mp.nobj ? mp.nobj : 1, sizeof(*os));
	uint64_t miss[4] = { 0 };

	for (size_t i = 0; i < mp.nobj; i++)
		os[i].obj = (int)i;
	for (size_t i = 0; i < mp.nacc; i++) {
		const struct mp_acc *a = &mp.acc[i];

		os[a->obj].n += a->n;
		for (int l = 1; l < 4; l++)
			for (int k = l; k < 4; k++) {
				os[a->obj].miss[l] += a->lvl[k];
				miss[l] += a->lvl[k];
			}
	}
	qsort(os, mp.nobj, sizeof(*os), cmp_objsum);
	printf("\n# Data objects by LL misses (accesses served by memory: %" PRIu64 "; L1 misses: %" PRIu64 ")\n",
	       miss[3], miss[1]);
	for (size_t i = 0; i < mp.nobj && i < 8; i++) {
		char d[512];

		if (!os[i].miss[1])
			break;
		printf("%s: %.1f %% of LL misses (%" PRIu64 "), %.1f %% of L1 misses (%" PRIu64 "), %" PRIu64
		       " accesses\n", memprof_object_desc(&mp, os[i].obj, d, sizeof(d)),
		       miss[3] ? 100.0 * (double)os[i].miss[3] / (double)miss[3] : 0.0, os[i].miss[3],
		       miss[1] ? 100.0 * (double)os[i].miss[1] / (double)miss[1] : 0.0, os[i].miss[1],
		       os[i].n);
	}
	free(os);
	for (size_t i = 0; i < nr; i++)
		for (int k = 0; k < NKEY; k++)
			free(rows[i].f[k]);
	free(rows);
	memprof_release(&mp);
	return 0;
}

int cmd_mem(int argc, char **argv)
{
	if (argc < 2)
		return usage("expected record or report");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		help();
		return 0;
	}
	if (!strcmp(argv[1], "record"))
		return mem_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return mem_report(argc - 1, argv + 1);
	fprintf(stderr, "perfkit mem: unknown subcommand '%s'\n", argv[1]);
	return usage(NULL);
}
