#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit diff-folded: usage, errors, counts, and the pipe into flamegraph.
. "$(dirname "$0")/lib.sh"

printf 'main;a 4\nmain;b 6\nmain;0x1f00 1.5\n' >"$T/before.txt"
printf 'main;a 10\nmain;c 10\nmain;0xABC 2.25\n' >"$T/after.txt"

"$PERFKIT" diff-folded "$T/before.txt" "$T/after.txt" >"$T/out.txt"
expect 'exit 0' test $? -eq 0
printf 'main;a 4 10\nmain;b 6 0\nmain;0x1f00 1.5 0\nmain;c 0 10\nmain;0xABC 0 2.25\n' >"$T/want.txt"
same_file 'every stack of both files, in first-seen order, fractions kept' "$T/want.txt" "$T/out.txt"

"$PERFKIT" diff-folded -s "$T/before.txt" "$T/after.txt" | LC_ALL=C sort >"$T/s.txt"
printf 'main;0x... 1.5 2.25\nmain;a 4 10\nmain;b 6 0\nmain;c 0 10\n' >"$T/want.txt"
same_file '-s merges stacks that differ only in hex addresses' "$T/want.txt" "$T/s.txt"

# -n: before counts scaled by 22.25 / 11.5 and truncated
"$PERFKIT" diff-folded -n "$T/before.txt" "$T/after.txt" | grep '^main;a ' >"$T/n.txt"
echo 'main;a 7 10' >"$T/want.txt"
same_file '-n scales and truncates the BEFORE counts' "$T/want.txt" "$T/n.txt"

"$PERFKIT" diff-folded "$T/before.txt" "$T/after.txt" | "$PERFKIT" flamegraph >"$T/d.svg"
expect 'pipes into a differential flame graph' grep -q '<title>c (10 samples, 44.94%; +44.94%)</title>' "$T/d.svg"

"$PERFKIT" diff-folded "$T/before.txt" >/dev/null 2>"$T/err"
expect 'one file: usage error (exit 2)' test $? -eq 2
"$PERFKIT" diff-folded -x "$T/before.txt" "$T/after.txt" >/dev/null 2>&1
expect 'unknown option: exit 2' test $? -eq 2
"$PERFKIT" diff-folded "$T/before.txt" "$T/nosuch.txt" >/dev/null 2>"$T/err"
expect 'missing file: exit 1' test $? -eq 1
expect 'missing file: message names it' grep -q "perfkit diff-folded: cannot open '$T/nosuch.txt'" "$T/err"
"$PERFKIT" diff-folded -h >"$T/help.txt"
expect '-h prints usage' grep -q 'usage: perfkit diff-folded' "$T/help.txt"

# a line that is not STACK COUNT: difffolded.pl's output (" 0 0"), and a
# warning naming the file and the line
printf 'a;b 3\ngarbage line\n' >"$T/bad1"; printf 'a;b 4\n' >"$T/bad2"
"$PERFKIT" diff-folded "$T/bad1" "$T/bad2" >"$T/bad.out" 2>"$T/bad.err"
expect 'malformed line: exit 0, the output difffolded.pl gives' grep -qx ' 0 0' "$T/bad.out"
expect '... and one warning naming the file and line' \
	sh -c "test \$(wc -l <'$T/bad.err') = 1 && grep -q \"bad1: 1 line is not 'STACK COUNT' (first: 'garbage line')\" '$T/bad.err'"

# "-- BEFORE AFTER": the end of the options, as difffolded.pl's getopts
printf 'a;b 3\n' >"$T/dd1"; printf 'a;b 5\n' >"$T/dd2"
expect "diff-folded -- A B: the two files" test "$("$PERFKIT" diff-folded -- "$T/dd1" "$T/dd2")" = "a;b 3 5"
expect "diff-folded -n -- A B: options before it still read" \
	test "$("$PERFKIT" diff-folded -n -- "$T/dd1" "$T/dd2")" = "a;b 5 5"

done_testing
