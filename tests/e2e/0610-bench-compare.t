#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit bench: sleep 0.05 against sleep 0.1 is "slower", significant, with a
# ratio within 10 % of 2.0; a command against itself: no significant difference.
. "$(dirname "$0")/lib.sh"

"$PERFKIT" bench -N -w 1 -r 6 --export-json "$T/a.json" 'sleep 0.05' 'sleep 0.1' >"$T/a" 2>"$T/a.err"
expect "bench exits 0" test $? -eq 0
diag "$(grep -A4 '^Summary' "$T/a")"
expect "both benchmarks reported" test "$(grep -c '^Benchmark [12]: sleep 0\.' "$T/a")" -eq 2
expect "mean ± σ line" grep -Eq 'Time \(mean ± σ\): +[0-9.]+ ms ± +[0-9.]+ ms +\[User: [0-9.]+ ms, System: [0-9.]+ ms\]' "$T/a"
expect "median and range lines" grep -q 'Median (± MAD)' "$T/a"
expect "runs counted" grep -Eq 'Range \(min … max\):.* 6 runs' "$T/a"
expect "the fastest is sleep 0.05" grep -q "^  'sleep 0.05' ran" "$T/a"
expect "verdict: sleep 0.1 slower, significant" \
	grep -q "verdict: 'sleep 0.1' is slower than 'sleep 0.05' (significant at 95 %)" "$T/a"
expect "CI and both tests shown" grep -Eq "95% CI \[[0-9.]+, [0-9.]+\], Welch's t-test p = .*Mann-Whitney U p = " "$T/a"
# The ratio of means is checked against 2.0 ± 10 %.  Sleep wake-up latency
# on a saturated machine adds milliseconds at random; when the runs are that
# noisy (σ/mean > 5 %) the bench is repeated with more runs, and only a
# still-noisy machine turns a miss into a skip, with the figures.
ratio_check() { python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
q = r[1]["mean"] / r[0]["mean"]
cv = max(x["stddev"] / x["mean"] for x in r)
n = len(r[0]["times"])
assert r[0]["exit_codes"] == [0] * n and len(r[1]["times"]) == n
print("%.3f %.3f" % (q, cv))
' "$1"; }
read -r q cv < <(ratio_check "$T/a.json")
if ! awk -v q="$q" 'BEGIN { exit !(q >= 1.8 && q <= 2.2) }' && awk -v c="$cv" 'BEGIN { exit !(c > 0.05) }'; then
	diag "ratio $q with σ/mean $cv: noisy, rerunning with 12 runs"
	"$PERFKIT" bench -N -w 1 -r 12 --export-json "$T/a.json" 'sleep 0.05' 'sleep 0.1' >/dev/null 2>&1
	read -r q cv < <(ratio_check "$T/a.json")
fi
diag "ratio of means $q, largest σ/mean $cv"
if awk -v q="$q" 'BEGIN { exit !(q >= 1.8 && q <= 2.2) }'; then
	ok "ratio of means within 10 % of 2.0 (JSON export)"
elif awk -v c="$cv" 'BEGIN { exit !(c > 0.05) }'; then
	skip "ratio $q off, but the machine is too noisy to time sleeps (σ/mean $cv > 5 %)"
else
	not_ok "ratio of means within 10 % of 2.0 (JSON export): $q"
fi
expect "no progress bar when stderr is not a terminal" test ! -s "$T/a.err"

# A 95 % test calls a difference in about 1 run in 20 of identical commands
# by design, more often when other load comes and goes between the two
# commands' runs (the 1 % minimum effect then no longer hides it): two
# retries.  A bias (say, the second command always timed slower) fails all.
for try in 1 2 3; do
	"$PERFKIT" bench -N -r 6 'sleep 0.05' 'sleep 0.05' >"$T/b" 2>&1
	diag "try $try: $(grep -A4 '^Summary' "$T/b")"
	grep -q 'verdict: no significant difference at 95 %' "$T/b" && break
done
expect "self-comparison: no significant difference at 95 %" grep -q 'verdict: no significant difference at 95 %' "$T/b"
expect_fail "self-comparison: never called slower" grep -q 'is slower' "$T/b"
done_testing
