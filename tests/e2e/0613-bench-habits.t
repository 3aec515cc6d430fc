#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit bench as hyperfine users expect it: a decimal -D step scans exact
# decimals (0, 0.1, …, 1.0); a run killed by a signal is named by its signal,
# not by an exit code 139; under a shell, 128 + N is read back as signal N.
# (The outlier warning's share threshold is tested in test_stats.)
. "$(dirname "$0")/lib.sh"

"$PERFKIT" bench -N -r 1 -P x 0 1 -D 0.1 --export-json "$T/d.json" 'true {x}' >"$T/d" 2>&1; rc=$?
expect "-D 0.1 is accepted" test $rc -eq 0
expect "-D 0.1 scans 0, 0.1, …, 0.9, 1.0 exactly, as hyperfine" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
got = [x["parameters"]["x"] for x in r]
assert got == ["0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0"], got' "$T/d.json"
"$PERFKIT" bench -N -r 1 -P x 0.5 1 --parameter-step-size 0.25 'true {x}' >"$T/d2" 2>&1
expect "--parameter-step-size 0.25 from 0.5: 0.5, 0.75, 1.00" test "$(grep -o 'true [0-9.]*$' "$T/d2" | tr '\n' ' ')" = "true 0.5 true 0.75 true 1.00 "
"$PERFKIT" bench -N -r 1 -P x 0.5 1 'true {x}' >"$T/d3" 2>&1; rc=$?
expect "decimal bounds without -D are refused (usage, exit 2), as hyperfine" test $rc -eq 2
"$PERFKIT" bench -N -r 1 -P x 0 1 -D 0 'true {x}' >/dev/null 2>&1; rc=$?
expect "-D 0 is refused" test $rc -eq 2
"$PERFKIT" bench -N -r 1 -P x 1 3 -D 1x 'true {x}' >/dev/null 2>&1; rc=$?
expect "-D 1x is refused" test $rc -eq 2

"$PERFKIT" bench -N -r 2 "sh -c 'kill -SEGV \$\$'" >"$T/s" 2>"$T/se"; rc=$?
expect "a signal death stops the benchmark (exit 1)" test $rc -eq 1
expect "the message names the signal" grep -q "failed in run 1: terminated by signal 11 (SIGSEGV)" "$T/se"
expect_fail "… and no exit code 139" grep -q "exit code 139" "$T/se"
"$PERFKIT" bench -N -i -r 2 --export-json "$T/s.json" "sh -c 'kill -TERM \$\$'" true >"$T/s2" 2>&1
expect "-i: failed runs listed by signal name" grep -q 'Failed runs: *2 of 2 (exit codes: SIGTERM SIGTERM)\|No successful runs' "$T/s2"
expect "-i: JSON exit code 128 + N for a signal death, as hyperfine 1.15" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert r[0]["exit_codes"] == [143, 143], r[0]["exit_codes"]' "$T/s.json"
"$PERFKIT" bench -r 2 "sh -c 'kill -SEGV \$\$'; exit \$?" >/dev/null 2>"$T/sh"
expect "under the shell: exit code 139 read as the shell's signal 11" grep -q "exit code 139 (from the shell: signal 11, SIGSEGV)" "$T/sh"
"$PERFKIT" bench -N -r 2 "sh -c 'exit 3'" >/dev/null 2>"$T/e3"
expect "a plain exit code is still an exit code" grep -q "failed in run 1 with exit code 3 (use -i" "$T/e3"

done_testing
