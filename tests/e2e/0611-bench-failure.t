#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit bench with a command that fails from its 4th run on: it stops with
# the command, run and exit code, and no summary; with -i the failed runs are
# measured as the others (hyperfine's), counted, shown and exported (their
# times aligned with exit_codes, as hyperfine's JSON), and a failing fastest
# gets a warning.
. "$(dirname "$0")/lib.sh"

# fails (exit 1) from the 4th run on, counting runs in a file
cmd="n=\$(cat $T/n 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >$T/n; [ \$n -lt 4 ]"

"$PERFKIT" bench -r 6 "$cmd" >"$T/out" 2>"$T/err"; rc=$?
expect "a failing run stops the benchmark with exit 1" test $rc -eq 1
expect "the message names the run and the exit code" grep -q "failed in run 4 with exit code 1" "$T/err"
expect "the message names the command" grep -qF "command 'n=" "$T/err"
expect "the message suggests -i" grep -q -- "-i" "$T/err"
expect_fail "no summary of partial results" grep -q 'Time (mean' "$T/out"
expect "it stopped at run 4" test "$(cat "$T/n")" -eq 4

rm -f "$T/n"
"$PERFKIT" bench -i -r 6 --export-json "$T/j.json" -n flaky "$cmd" 'sleep 0.3' >"$T/out2" 2>"$T/err2"; rc=$?
expect "-i keeps going, exit 0" test $rc -eq 0
expect "-i shows the failed runs" grep -q 'Failed runs: *3 of 6 (exit codes: 1 1 1)' "$T/out2"
expect "-i: statistics over all 6 runs, the failed ones too (hyperfine's)" grep -Eq 'Range .* 6 runs' "$T/out2"
expect "-i: a failing fastest command gets a warning" grep -q "Warning: 'flaky' had 3 failed runs" "$T/out2"
expect "-i: exit codes in the JSON export" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert r[0]["command"] == "flaky"
assert r[0]["exit_codes"] == [0, 0, 0, 1, 1, 1], r[0]["exit_codes"]
# the times of every run, aligned with exit_codes, as in the hyperfine export
assert r[0]["failed_runs"] == 3 and len(r[0]["times"]) == 6, r[0]["times"]
assert len(r[0]["user_times"]) == 6 and len(r[0]["system_times"]) == 6
assert r[1]["exit_codes"] == [0] * 6
' "$T/j.json"

"$PERFKIT" bench -i -r 3 'exit 2' >"$T/out3" 2>&1; rc=$?
expect "-i with every run failing: exit 0, timed (a command that always exits non-zero)" \
	sh -c "[ $rc -eq 0 ] && grep -q 'Time (mean' '$T/out3'"
expect "-i with every run failing: the failures said" grep -q 'Failed runs: *3 of 3 (exit codes: 2 2 2)' "$T/out3"
"$PERFKIT" bench -N -r 2 /nonexistent/x >/dev/null 2>"$T/err4"; rc=$?
expect "a command that cannot run: exit 1 and named" test $rc -eq 1 -a -n "$(grep "cannot run '/nonexistent/x'" "$T/err4")"
done_testing
