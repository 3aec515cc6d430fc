#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# annotate on a Cachegrind file with no cost lines: the empty tables print,
# exit 0, and no undefined behaviour (UBSan reported qsort(NULL, 0) here;
# the sanitizer pass of make check runs this under -fno-sanitize-recover).
# Without its summary: line the same file is cut short: one line, exit 1.
. "$(dirname "$0")/lib.sh"

printf 'cmd: x\nevents: Ir\nsummary: 0\n' >"$T/empty.cg"
"$PERFKIT" annotate "$T/empty.cg" >"$T/out" 2>"$T/err"
expect "no cost lines: exit 0" test $? = 0
expect "... the totals line" grep -q 'PROGRAM TOTALS' "$T/out"
expect_fail "... no sanitizer report" grep -q 'runtime error\|Sanitizer' "$T/err"

printf 'cmd: x\nevents: Ir\n' >"$T/cut.cg"
"$PERFKIT" annotate "$T/cut.cg" >"$T/out" 2>"$T/err"
expect "no cost lines and no summary: exit 1" test $? = 1
expect "... one line saying it is cut short" test "$(wc -l <"$T/err")" = 1 -a -n "$(grep "cut.cg: cut short: no 'summary:' line" "$T/err")"
done_testing
