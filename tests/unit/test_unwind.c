/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the DWARF unwinder (src/lib/session/unwind.c): its fast
 * path (cached CFI rows) against libdwfl (PERFKIT_UNWIND=dwfl), on a real
 * stack — this process's own, captured with its registers the way the
 * kernel copies a sample's (PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER).
 * The chain is test -> frame_vla (a variable-length array: CFA = rbp + N)
 * -> frame_mid -> capture (CFA = rsp + N). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "session/unwind.h"
#include "symbol/symbol.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)

#define COPY_MAX 16384

/* a real frame each: no inlining, no constant-propagated clone */
#if defined(__clang__)
#define FRAME __attribute__((noinline))
#else
#define FRAME __attribute__((noinline, noclone))
#endif

static struct {
	uint64_t sp, bp, ip;      /* at the capture point */
	uint8_t stack[COPY_MAX];
	size_t len;
} snap;

static uint64_t stack_top;         /* end of the [stack] mapping */
static volatile int sink;
static volatile int vla_n = 24;   /* not a constant: the VLA stays variable */

/* A plain byte copy of the live stack: not memcpy, which AddressSanitizer
 * intercepts and would stop at the other frames' redzones. */
__attribute__((noinline, no_sanitize_address)) static void copy_stack(uint8_t *dst,
								     const volatile uint8_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = src[i];
}

/* The registers and the stack above rsp, at one instruction of this
 * function (the asm stores rsp and rbp before anything can change them). */
FRAME static void capture(void)
{
	uint64_t *r = &snap.sp;

	__asm__ volatile("mov %%rsp, 0(%0)\n\t"
			 "mov %%rbp, 8(%0)\n\t"
			 "lea 0(%%rip), %%rax\n\t"
			 "mov %%rax, 16(%0)"
			 : : "r"(r) : "rax", "memory");
	snap.len = stack_top - snap.sp < COPY_MAX ? (size_t)(stack_top - snap.sp) : COPY_MAX;
	copy_stack(snap.stack, (const volatile uint8_t *)(uintptr_t)snap.sp, snap.len);
	sink++;
}

FRAME static void frame_mid(int n)
{
	capture();
	sink += n;               /* no tail call */
}

FRAME static void frame_vla(int n)
{
	volatile char vla[n];    /* forces a frame pointer: CFA = rbp + 16 */

	vla[0] = 1;
	frame_mid(vla[0] + n);
	sink += vla[n - 1];
}

struct space {
	struct unwind_map maps[512];
	size_t nr;
};

static void read_maps(struct space *s)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];

	assert_non_null(f);
	s->nr = 0;
	while (fgets(line, sizeof(line), f) && s->nr < 512) {
		unsigned long long lo, hi, off;
		char perms[8];
		int n = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &off, &n) < 4 || !n)
			continue;
		char *path = line + n;
		path[strcspn(path, "\n")] = 0;
		if (!strcmp(path, "[stack]"))
			stack_top = hi;
		if (path[0] != '/')
			continue;
		s->maps[s->nr++] = (struct unwind_map){ lo, hi, off, strdup(path) };
	}
	fclose(f);
}

static void free_maps(struct space *s)
{
	for (size_t i = 0; i < s->nr; i++)
		free((char *)s->maps[i].dso);
}

/* The function holding pc, by this process's maps and symbol tables. */
static const char *sym_of(struct symcache *sc, const struct space *s, uint64_t pc)
{
	for (size_t i = 0; i < s->nr; i++)
		if (pc >= s->maps[i].start && pc < s->maps[i].end)
			return symcache_resolve(sc, s->maps[i].dso, pc - s->maps[i].start + s->maps[i].pgoff,
						NULL, NULL);
	return NULL;
}

struct result {
	uint64_t pcs[64];
	int n;
	bool truncated;
	uint64_t fast, dwfl;
};

/* Unwind the snapshot (stack copy cut to len bytes, at most max pcs) with
 * a fresh unwinder, the fast path on or off. */
static void unwind(struct symcache *sc, const struct space *s, bool dwfl_only, size_t len, size_t max,
		   struct result *out)
{
	struct pd_evsel ev;
	struct pd_sample raw;
	uint64_t regs[3] = { snap.bp, snap.sp, snap.ip };   /* perf order: BP SP IP */

	memset(&ev, 0, sizeof(ev));
	ev.attr.sample_regs_user = (1ULL << 6) | (1ULL << 7) | (1ULL << 8);
	memset(&raw, 0, sizeof(raw));
	raw.evsel = &ev;
	raw.user_regs_abi = PERF_SAMPLE_REGS_ABI_64;
	raw.user_regs = regs;
	raw.user_stack = snap.stack;
	raw.user_stack_size = len;
	if (dwfl_only)
		setenv("PERFKIT_UNWIND", "dwfl", 1);
	else
		unsetenv("PERFKIT_UNWIND");
	struct unwinder *u = unwinder_new(sc);
	unsetenv("PERFKIT_UNWIND");
	assert_non_null(u);
	out->n = unwind_sample(u, s, 1, s->maps, s->nr, (uint32_t)getpid(), &raw, out->pcs, max,
			       &out->truncated);
	unwinder_counts(u, &out->fast, &out->dwfl);
	unwinder_free(u);
}

static void same(const struct result *a, const struct result *b)
{
	assert_int_equal(a->n, b->n);
	for (int i = 0; i < a->n; i++) {
		if (a->pcs[i] != b->pcs[i])
			fail_msg("frame %d: fast path %#" PRIx64 ", libdwfl %#" PRIx64, i, a->pcs[i],
				 b->pcs[i]);
	}
	assert_int_equal(a->truncated, b->truncated);
}

static struct space space;
static struct symcache *sc;

static int setup(void **state)
{
	(void)state;
	read_maps(&space);
	if (!stack_top)
		return -1;
	sc = symcache_new();
	frame_vla(vla_n);        /* takes the snapshot */
	return snap.len > 256 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free_maps(&space);
	symcache_free(sc);
	return 0;
}

/* The four frames of this file: the fast path alone, and libdwfl, give the
 * same pcs, and they are the functions of the chain. */
static void test_fast_path_matches_dwfl(void **state)
{
	struct result fast, slow;

	(void)state;
	unwind(sc, &space, false, snap.len, 4, &fast);
	unwind(sc, &space, true, snap.len, 4, &slow);
	assert_int_equal(fast.n, 4);
	/* the rows were all simple: no libdwfl fallback */
	assert_true(fast.fast == 1 && fast.dwfl == 0);
	assert_true(slow.fast == 0 && slow.dwfl == 1);
	same(&fast, &slow);
	assert_true(fast.truncated);  /* stopped at max */
	assert_true(fast.pcs[0] == snap.ip);
	const char *want[] = { "capture", "frame_mid", "frame_vla", "setup" };
	for (int i = 0; i < 4; i++) {
		const char *name = sym_of(sc, &space, fast.pcs[i]);
		assert_non_null(name);
		if (strncmp(name, want[i], strlen(want[i])))   /* gcc may add ".constprop.0" */
			fail_msg("frame %d is %s, expected %s", i, name, want[i]);
	}
}

/* The whole stack, through cmocka and libc to the outermost frame: both
 * paths give the same frames whatever mix of rows they meet. */
static void test_whole_stack_matches(void **state)
{
	struct result fast, slow;

	(void)state;
	unwind(sc, &space, false, snap.len, 64, &fast);
	unwind(sc, &space, true, snap.len, 64, &slow);
	assert_true(fast.n >= 4);
	same(&fast, &slow);
}

/* A stack copy cut short (the kernel's copy smaller than the stack): both
 * stop at the same frame and say the chain is truncated. */
static void test_short_copy_truncated(void **state)
{
	struct result fast, slow, full;

	(void)state;
	unwind(sc, &space, false, snap.len, 64, &full);
	for (size_t len = 16; len <= 512; len += 48) {
		unwind(sc, &space, false, len, 64, &fast);
		unwind(sc, &space, true, len, 64, &slow);
		same(&fast, &slow);
		assert_true(fast.truncated);
		assert_true(fast.n >= 1 && fast.n < full.n);
		for (int i = 0; i < fast.n; i++)
			assert_true(fast.pcs[i] == full.pcs[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_path_matches_dwfl),
		cmocka_unit_test(test_whole_stack_matches),
		cmocka_unit_test(test_short_copy_truncated),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

#else
int main(void)
{
	printf("# skip: the DWARF unwinder is x86-64 only\n");
	return 0;
}
#endif
