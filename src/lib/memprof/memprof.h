/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * memprof.h — read the file `perfkit c2c record` and `perfkit mem record`
 * write (the pkcache tool in --pk-mode=c2c|mem; the format and the
 * transfer model are documented at the top of src/vgtool/pk_mem.c), and
 * classify its shared cache lines.
 *
 * memprof_read(mp, path): reads the whole file into *mp.  Returns 0, or
 * -errno with one pk_error() message naming the place and what was
 * expected: "PATH:LINE: expected …" for a malformed record, "PATH: cut
 * short: …" when the closing `end` record is missing or its counts do not
 * match (a run that died while writing), "PATH: … refers to code N, never
 * defined" for a dangling reference; -ENOENT/-EACCES… when it cannot be
 * opened.  Ids (code, object, stack) are indices into the arrays below;
 * every reference is checked, so a caller may index without checks.  Ids
 * above 2^24 are refused, and so is a definition (code, object, stack)
 * whose id is not below its line number (the writer numbers them densely
 * from 0), so memory follows the file's size, not its claims.  Names come
 * back unescaped, except control bytes (tab, newline, ESC, …), which stay
 * written \xHH — or are written so when the file holds them raw — so that
 * a hostile symbol or file name printed as it is cannot drive a terminal.  memprof_release() frees (safe on a zeroed one).
 *
 * Classification of a line from its threads' byte masks (bytes touched
 * in the epochs shared with another thread, pk_mem.c) and its sites
 * (memprof_classify):
 *   MP_TRUE_SHARING   bytes one thread writes are read or written by
 *                     another, in more than 1 % of that other thread's
 *                     accesses to the line (a result read once at the end
 *                     does not make two counters true sharing);
 *   MP_FALSE_SHARING  some thread writes, and otherwise the threads touch
 *                     disjoint bytes (they share the line, not the data);
 *   MP_READ_SHARED    no thread writes while another uses the line
 *                     (read-mostly);
 *   whichever class, a line matters only as much as its estimated
 *   transfers (mp_line.transfers), which the reports threshold.
 */
#ifndef PERFKIT_MEMPROF_H
#define PERFKIT_MEMPROF_H

#include <stddef.h>
#include <stdint.h>

enum mp_kind { MP_HEAP, MP_GLOBAL, MP_STACK, MP_UNKNOWN };
enum mp_class { MP_READ_SHARED, MP_FALSE_SHARING, MP_TRUE_SHARING };

struct mp_code {
	uint64_t ip;
	unsigned line;		/* 0: unknown */
	char *fn, *file, *dso;	/* file "" when unknown */
	int defined;
};

struct mp_object {
	enum mp_kind kind;
	int stack;		/* heap: the allocation stack's id; else -1 */
	char *name, *dso;
	int defined;
};

struct mp_stack {
	size_t n;
	int *codes;		/* innermost (the caller of malloc) first */
	int defined;
};

struct mp_lthr {
	unsigned serial;
	uint64_t loads, stores, transfers, rmask, wmask;
};

struct mp_lsite {
	int code;
	unsigned serial, off, size;
	uint64_t loads, stores;
};

struct mp_line {
	uint64_t addr, transfers;
	int obj;
	struct mp_lthr *thr;
	size_t nthr;
	struct mp_lsite *site;
	size_t nsite;
};

struct mp_acc {
	int code, obj, store;
	uint64_t n, lvl[4], tlb[4];	/* levels: L1, L2, LL, memory */
};

struct mp_thread {
	unsigned serial;
	int tid;
};

struct memprof {
	char *mode, *cmd, *model;
	unsigned line_size;
	char **desc;
	size_t ndesc;
	struct mp_thread *thr;
	size_t nthr;
	struct mp_line *lines;
	size_t nlines;
	struct mp_acc *acc;
	size_t nacc;
	struct mp_code *code;
	size_t ncode;
	struct mp_object *obj;
	size_t nobj;
	struct mp_stack *stack;
	size_t nstack;
};

/* Read a memprof file (the accesses whose code lies in the preloaded
 * pkmemwrap*.so, perfkit's own allocation hooks, are left out of acc). */
int memprof_read(struct memprof *mp, const char *path);
void memprof_release(struct memprof *mp);

enum mp_class memprof_classify(const struct mp_line *l);
const char *memprof_class_name(enum mp_class c);	/* "false sharing", … */

/* The kernel tid of thread serial s (its serial when unknown). */
int memprof_tid(const struct memprof *mp, unsigned s);

/* "file.c:12" (the file's last component) or "fn+0x…" / "0x…"; buf has n
 * bytes. */
const char *memprof_srcline(const struct memprof *mp, int code, char *buf, size_t n);

/* The first frame of an allocation stack outside the C library's
 * allocators (calloc, strdup, …): the code id, or -1. */
int memprof_alloc_site(const struct memprof *mp, int stack);

/* A data object in words: "`counters`" (global), "block allocated at
 * list.c:88 (make_list)" (heap), "[stack]", "[unknown] in libc.so.6". */
const char *memprof_object_desc(const struct memprof *mp, int obj, char *buf, size_t n);

/*
 * memprof_record(mode, opts, out, argv, &status): runs argv (argv[0] looked
 * up in PATH) under pkcache --pk-mode=MODE ("c2c" or "mem") plus OPTS (a
 * NULL-terminated list of tool options such as "--D1=32768,8,64"; may be
 * NULL), with pkmemwrap-<platform>.so (beside the tool) added in front of
 * the program's LD_PRELOAD so heap blocks are known (without it the run
 * goes on and heap lines show as [unknown]).  The tool writes into a
 * private temporary folder; the file is read back whole (memprof_read, so
 * a cut file is never passed on) and copied to OUT through base/outfile
 * (temporary + rename, 0600, no planted link followed); a forked child's
 * own file (the tool writes it as OUT.pidN) is not kept.  *status is
 * waitpid()'s status of the program.  Returns 0; or -errno with one
 * pk_error() message: the tool not found (vgrun_find's), OUT not writable,
 * "valgrind could not run 'PROG': …" (Valgrind's last message line) when
 * no file came back, or memprof_read's message.
 */
/*
 * memprof_record_args(argc, argv, pass, opts, &nopts, &out): the options of
 * `c2c record` and `mem record`, argv[1..] up to the program (the
 * program's own options follow it, so the first word that is not an option
 * ends them, as "--" does).  "-o FILE" and "--output=FILE" set *out; an
 * option that starts with one of the prefixes in pass (NULL-terminated, or
 * NULL for none), such as "--D1=", is appended to opts[(*nopts)++] for
 * pkcache (opts has room for argc entries).  Returns the index in argv of
 * the program (>= 1); 0 for -h or --help; or -EINVAL with a message, after
 * which the command prints its usage: "-o needs a file name", "unknown
 * option 'OPT'" (escaped), "no program to run".
 */
int memprof_record_args(int argc, char **argv, const char *const pass[], const char **opts, int *nopts,
			const char **out);

/* 0 when PATH starts like a program Valgrind can run (ELF, or #!), else
 * -ENOEXEC with a message naming it; -errno when it cannot be read. */
int memprof_check_program(const char *path);

/* The program argument of c2c record and mem record: found as execvp
 * would (pk_find_program: -ENOENT "'NAME': command not found" or "…: no
 * such executable file", the command exits 127), then checked
 * (memprof_check_program: the command exits 126).  0 when it can run. */
int memprof_program(const char *name);

int memprof_record(const char *mode, const char *const opts[], const char *out,
		   char *const argv[], int *status);

#endif
