#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# annotate on a Cachegrind file with no cost lines: the empty tables print,
# exit 0, and no undefined behaviour (UBSan reported qsort(NULL, 0) here;
# the sanitizer pass of make check runs this under -fno-sanitize-recover).
. "$(dirname "$0")/lib.sh"

printf 'cmd: x\nevents: Ir\n' >"$T/empty.cg"
"$PERFKIT" annotate "$T/empty.cg" >"$T/out" 2>"$T/err"
expect "no cost lines: exit 0" test $? = 0
expect "... the totals line" grep -q 'PROGRAM TOTALS' "$T/out"
expect_fail "... no sanitizer report" grep -q 'runtime error\|Sanitizer' "$T/err"
done_testing
