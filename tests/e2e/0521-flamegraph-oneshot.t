#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# flamegraph -o OUT -- CMD: the output is checked before CMD runs, CMD's
# exit status is passed through (127: cannot run), and --call-graph dwarf
# draws full stacks of a program without frame pointers.
. "$(dirname "$0")/lib.sh"

if ! can_perf_event || ! have cc; then skip "needs perf events and cc"; done_testing; exit; fi

"$PERFKIT" flamegraph -o "$T/nodir/o.svg" -- sh -c "touch '$T/ran'" 2>"$T/err"
expect "unwritable -o: exit 1" test $? = 1
expect "unwritable -o: the command did not run" test ! -e "$T/ran"
expect "unwritable -o: the message names the output" grep -q "nodir/o.svg" "$T/err"
"$PERFKIT" flamegraph -o "$T/o.svg" -- "$T/no-such-command" 2>/dev/null
expect "a command that cannot run: exit 127, like record" test $? = 127
"$PERFKIT" flamegraph -o "$T/o.svg" -- sh -c 'exit 7' 2>/dev/null
expect "the command's exit status is passed through" test $? = 7

cat >"$T/abc.c" <<'C'
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) void c(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i * i; }
__attribute__((noinline)) void b(unsigned long n) { c(n); sink++; }
__attribute__((noinline)) void a(unsigned long n) { b(n); sink++; }
int main(int argc, char **argv) { a(argc > 1 ? strtoul(argv[1], 0, 10) : 1); return 0; }
C
if ! have_shared "$SHARED/tools/fgframes"; then
	:
elif [ "$(uname -m)" = x86_64 ] && cc -O2 -fomit-frame-pointer -o "$T/abc" "$T/abc.c"; then
	"$PERFKIT" flamegraph --call-graph dwarf -o "$T/dw.svg" -- "$T/abc" 200000000 2>/dev/null
	expect "--call-graph dwarf: exit 0" test $? = 0
	python3 "$SHARED/tools/fgframes" "$T/dw.svg" | awk -F'\t' '{ print $1 + 0, $5 }' | sort -n >"$T/frames"
	# c sits on b, on a, on main: each one frame row (16 px) above the next
	yc=$(awk '$2 == "c" { print $1 }' "$T/frames"); yb=$(awk '$2 == "b" { print $1 }' "$T/frames")
	ya=$(awk '$2 == "a" { print $1 }' "$T/frames"); ym=$(awk '$2 == "main" { print $1 }' "$T/frames")
	diag "rows: c=$yc b=$yb a=$ya main=$ym"
	expect "--call-graph dwarf: main;a;b;c stacked" \
		test -n "$yc" -a -n "$ym" -a "$((ym - ya))" = 16 -a "$((ya - yb))" = 16 -a "$((yb - yc))" = 16
else
	skip "DWARF unwinding is x86-64 only; or cc failed"
fi
done_testing
