#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# record refuses outputs and call-graph values it cannot honour before the
# command runs: -o - (pipe mode), -o DIR, -o "", --call-graph VALUE typos.
. "$(dirname "$0")/lib.sh"

marker=$T/ran
run_rec() { "$PERFKIT" record "$@" -- sh -c "touch '$marker'" >"$T/out" 2>"$T/err"; }

run_rec -o -
expect "-o -: usage error (2)" test $? = 2
expect "-o -: says pipe mode is not supported" grep -q 'standard output.*not supported' "$T/err"
expect "-o -: no file named '-'" test ! -e ./- -a ! -e "$T/-"
run_rec -o "$T"
expect "-o DIR: usage error (2)" test $? = 2
expect "-o DIR: says it is a directory" grep -q "is a directory" "$T/err"
run_rec -o ""
expect "-o '': usage error (2)" test $? = 2
run_rec --call-graph foo -o "$T/x.data"
expect "--call-graph foo: usage error (2)" test $? = 2
expect "--call-graph foo: names the value" grep -q "'foo' is not supported" "$T/err"
expect "none of these ran the command" test ! -e "$marker"
done_testing
