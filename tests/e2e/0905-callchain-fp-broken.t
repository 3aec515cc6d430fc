#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Frame-pointer call graphs through a libc built without frame pointers
# (Debian's): most samples in qsort/memmove/memset lose their callers.
# report, collapse and flamegraph of the perf.data warn once, with the share
# of broken chains (those whose outermost user frame is no program or thread
# entry), the library, and --call-graph dwarf.  A DWARF recording of the same
# program, and a -g recording whose time is in the program's own frame-pointer
# code, get no warning.  A sample in qsort's comparison loses its callers
# in libc, one in rand, memset or memmove in the program (main, whose
# caller libc's frame does not link): memset and memmove work on 64 KiB,
# in the cache, so that qsort's share does not move with the machine's
# memory speed (on 16 MiB a loaded CI machine once named the program).
. "$(dirname "$0")/lib.sh"

if ! have cc || ! can_perf_event; then skip "needs cc and perf_event_open"; done_testing; exit; fi
cat >"$T/libcy.c" <<'C'
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) { int x = *(const int *)a, y = *(const int *)b; return (x > y) - (x < y); }
__attribute__((noinline)) void work(int *v, int n, char *buf, size_t len, int rounds)
{
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < n; i++) v[i] = rand();
		qsort(v, n, sizeof(int), cmp);
		memset(buf, r, len);
		memmove(buf + 1, buf, len - 1);
	}
}
int main(int argc, char **argv)
{
	int n = 200000, rounds = argc > 1 ? atoi(argv[1]) : 20;
	size_t len = 1 << 16;
	int *v = malloc(n * sizeof(int));
	char *b = malloc(len);
	work(v, n, b, len, rounds);
	return 0;
}
C
cc -O2 -g -fno-omit-frame-pointer -o "$T/libcy" "$T/libcy.c" || { skip "cc failed"; done_testing; exit; }
cd "$T"
"$PERFKIT" record -g -F 2000 -o fp.data ./libcy 20 >/dev/null 2>&1
expect "record -g: exit 0" test $? -eq 0

"$PERFKIT" report -i fp.data >/dev/null 2>rep.err
diag "$(cat rep.err)"
expect "report: one warning about broken chains" test "$(grep -c 'frame-pointer call chains' rep.err)" -eq 1
expect "… with the share of chains" grep -Eq '[0-9]+% of the frame-pointer call chains \([0-9]+ of [0-9]+ samples\)' rep.err
share=$(grep -Eo '[0-9]+% of the frame-pointer' rep.err | grep -Eo '^[0-9]+')
expect "… most of this program's chains are broken ($share %)" test "${share:-0}" -ge 30
expect "… naming libc" grep -q 'most in libc.so' rep.err
expect "… and --call-graph dwarf" grep -q -- '--call-graph dwarf' rep.err
"$PERFKIT" collapse fp.data >/dev/null 2>col.err
expect "collapse: the same warning, once" test "$(grep -c 'frame-pointer call chains' col.err)" -eq 1
"$PERFKIT" flamegraph -o f.svg fp.data >/dev/null 2>fg.err
expect "flamegraph of a perf.data: the same warning, once" test "$(grep -c 'frame-pointer call chains' fg.err)" -eq 1
"$PERFKIT" report -q -i fp.data >/dev/null 2>q.err
expect "report -q: no warning" test ! -s q.err

"$PERFKIT" record --call-graph dwarf -F 500 -o dw.data ./libcy 5 >/dev/null 2>&1
"$PERFKIT" report -i dw.data >/dev/null 2>dw.err
expect "--call-graph dwarf: no warning" sh -c "! grep -q 'frame-pointer call chains' dw.err"

cat >"$T/own.c" <<'C'
static volatile unsigned long sink;
__attribute__((noinline)) void leaf(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void mid(unsigned long n) { leaf(n); }
int main(void) { mid(300000000); return 0; }
C
cc -O1 -fno-omit-frame-pointer -o "$T/own" "$T/own.c"
"$PERFKIT" record -g -F 2000 -o own.data ./own >/dev/null 2>&1
"$PERFKIT" report -i own.data >/dev/null 2>own.err
expect "-g of a program's own frame-pointer code: no warning" sh -c "! grep -q 'frame-pointer call chains' own.err"

done_testing
