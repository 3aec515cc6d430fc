#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 1061 — hostile names in report's browser: a process (comm "ev\e[7mil<>")
# spinning in JIT code named by its /tmp/perf-PID.map: <>&"', an SGR and
# an OSC (window title) escape sequence, invalid UTF-8, valid UTF-8 (é),
# and a 100 kB name.  The screen shows each escaped ("\x1b"), nothing
# reaches the terminal raw (the pane's title stays), the 100 kB name stays
# on its row and the screen keeps its 24 lines; outside a UTF-8 locale é
# is "\xc3\xa9" too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
tui_require
perf_event_require
if [ "$(uname -m)" != x86_64 ] || ! have cc; then
	skip "needs x86-64 and cc (the JIT code is x86-64 machine code)"
	done_testing; exit
fi
cat >"$T/jit.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
int main(int argc, char **argv)
{
	/* mov %rdi,%rcx; 1: dec %rcx; jnz 1b; ret */
	static const unsigned char code[] = { 0x48, 0x89, 0xf9, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3 };
	enum { N = 5 };
	char *names[N] = { "<>&\"'html", "esc\033[31mRED\033]0;PWNED\007", "bad\xff\xfe\xc3(utf8", "caf\xc3\xa9",
			   NULL };
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[64];
	FILE *f;

	names[4] = malloc(100001);
	memset(names[4], 'N', 100000);
	memcpy(names[4], "long", 4);
	names[4][100000] = 0;
	if (p == MAP_FAILED)
		return 1;
	prctl(PR_SET_NAME, "ev\033[7mil<>");
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return 1;
	for (int k = 0; k < N; k++) {
		memcpy(p + 256 * (k + 1), code, sizeof(code));
		fprintf(f, "%lx 40 %s\n", (unsigned long)(p + 256 * (k + 1)), names[k]);
	}
	fclose(f);
	f = fopen(argv[1], "w");
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	for (int r = argc > 2 ? atoi(argv[2]) : 1; r > 0; r--)   /* rounds (top: several) */
		for (int k = 0; k < N; k++) {
			double end = cpu() + 0.2 / (argc > 2 ? 5 : 1);

			while (cpu() < end)
				((void (*)(unsigned long))(p + 256 * (k + 1)))(200000UL);
		}
	return 0;
}
C
cc -O1 -o "$T/jit" "$T/jit.c" || { skip "cc failed"; done_testing; exit; }
"$PERFKIT" record -g -F 999 -o "$T/p.data" -- "$T/jit" "$T/pid" >/dev/null 2>&1
pid=$(cat "$T/pid" 2>/dev/null)
trap '_tm kill-server 2>/dev/null; rm -f "/tmp/perf-$pid.map"; rm -rf "$T"' EXIT
expect "the recording names the JIT code" bash -c "'$PERFKIT' report -i '$T/p.data' --stdio 2>/dev/null | grep -qF 'html'"

tui_start 80 24 "LC_ALL=C.UTF-8 '$PERFKIT' report -i p.data --sort comm,sym"
expect "open" tui_wait "Press '?' for help"
expect "<>&\"' shown as they are" tui_wait "[.] <>&\"'html"
expect "ESC sequences shown escaped" tui_wait 'esc\x1b[31mRED\x1b]0;PWNED\x07'
expect "the OSC did not set the title" test "$(_tm display -p -t tui '#{pane_title}')" != PWNED
expect "invalid UTF-8 shown escaped" tui_wait 'bad\xff\xfe\xc3(utf8'
expect "valid UTF-8 shown as it is" tui_wait '[.] café'
expect "the comm shown escaped" tui_wait 'ev\x1b[7mil<>'
expect "the 100 kB name on its row" tui_wait_re '\[\.\] longNNNNNNNN'
expect "the screen keeps 24 lines" test "$(tui_screen | wc -l)" -eq 24
expect "the status line is the last" test "$(tui_screen | sed -n 24p | grep -c 'Press')" -eq 1
# the escape row's call graph: its name escaped there too
tui_keys / R E D Enter
expect "search finds the escape name" tui_wait "Symbol: RED"
tui_keys Enter
expect "its call graph, escaped" tui_wait_re '^ +[| ]*(--[0-9.]+%--)?esc\\x1b\[31mRED\\x1b\]0;PWNED\\x07$'
tui_keys Escape
expect "Esc: the search undone" tui_wait_gone "Symbol: RED"
tui_keys / l o n g Enter a
expect "annotating JIT code: a reason on the status line" tui_wait "annotate: "
expect "... that no file holds its code" tui_wait "no file holds its instructions"
tui_screen | tail -1 | sed 's/^/# /'
tui_keys q
expect "q: the search undone" tui_wait_gone "Symbol: long"
tui_keys q
expect "quits" test "$(tui_wait_exit)" = 0

tui_start 80 24 "LC_ALL=C '$PERFKIT' report -i p.data --sort comm,sym"
expect "C locale: é escaped" tui_wait '[.] caf\xc3\xa9'
tui_keys q
tui_wait_exit >/dev/null

# top: a name shown escaped keeps its one row across refreshes (the
# decayed history was keyed by the escaped name, the new window by the
# raw one: each refresh added a row)
"$T/jit" "$T/pid2" 100 >/dev/null 2>&1 &
jp=$!
wait_until 10 test -s "$T/pid2"
pid2=$(cat "$T/pid2" 2>/dev/null)
trap '_tm kill-server 2>/dev/null; kill $jp 2>/dev/null; rm -f "/tmp/perf-$pid.map" "/tmp/perf-$pid2.map"; rm -rf "$T"' EXIT
timeout 20 "$PERFKIT" top --stdio -d 0.4 -n 4 -p "$pid2" >"$T/top.out" 2>/dev/null
kill $jp 2>/dev/null
wait $jp 2>/dev/null
rows=$(awk '/^# perfkit top:/ { n++ } /RED/ { c[n]++ } END { m = 0; for (i in c) if (c[i] > m) m = c[i]; print m + 0 }' "$T/top.out")
expect "top: the escaped name on one row in each of 4 refreshes (at most $rows)" test "$rows" = 1
expect "... shown escaped" grep -qF 'esc\x1b[31mRED' "$T/top.out"
done_testing
