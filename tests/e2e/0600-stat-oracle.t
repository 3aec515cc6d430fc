#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit stat against perf stat (the oracle) on a fixed-work command:
# task-clock and page-faults within 5 % of perf's; -r prints a spread;
# -x , has perf's CSV fields; -j is valid JSON, one object per counter.
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
if ! have perf || ! perf stat -e task-clock true 2>/dev/null; then
	skip "no working perf to compare with"; done_testing; exit
fi
W=$PK_BUILD/examples/matmul

# task-clock on a command that burns a fixed amount of its own CPU time
# (burn2to1 stops after 150 ms of CPU time, however loaded the machine), and
# page-faults on fixed work (matmul); five alternating runs each, compared
# by their minimum: load from other processes only ever adds, so the least
# disturbed run of each tool is the fair comparison
B=$PK_BUILD/tests/workloads/burn2to1
for i in 1 2 3 4 5; do
	perf stat -x, -e task-clock -- "$B" 150 2>>"$T/perf.csv" >/dev/null
	"$PERFKIT" stat -x, -e task-clock -- "$B" 150 2>>"$T/pk.csv" >/dev/null
	perf stat -x, -e page-faults -- "$W" ikj 6 2>>"$T/perf.csv" >/dev/null
	"$PERFKIT" stat -x, -e page-faults -- "$W" ikj 6 2>>"$T/pk.csv" >/dev/null
done
med() { awk -F, -v e="$2" '$3 == e { print $1 }' "$1" | sort -g | head -1; }
near5() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > 0 && b > 0 && (a - b) / b <= 0.05 && (b - a) / b <= 0.05) }'; }
for ev in task-clock page-faults; do
	a=$(med "$T/pk.csv" $ev) b=$(med "$T/perf.csv" $ev)
	diag "$ev: perfkit $a, perf $b"
	expect "$ev within 5 % of perf stat's" near5 "$a" "$b"
done

# -r 5: a spread on every counted line and on elapsed time
"$PERFKIT" stat -r 5 -e task-clock,page-faults -- "$W" ikj 1 2>"$T/r5" >/dev/null
expect "-r 5 header names the runs" grep -q "Performance counter stats for '.*matmul ikj 1' (5 runs):" "$T/r5"
expect "-r 5 task-clock has ( +- X% )" grep -Eq 'msec task-clock .*\( \+- *[0-9]+\.[0-9]{2}% \)' "$T/r5"
expect "-r 5 elapsed has mean +- SE" grep -Eq '[0-9.]+ \+- [0-9.]+ seconds time elapsed  \( \+- *[0-9.]+% \)' "$T/r5"
"$PERFKIT" stat -e task-clock -- "$W" ikj 1 2>"$T/r1" >/dev/null
expect_fail "one run prints no +-" grep -q '+-' "$T/r1"
expect "one run prints user and sys" grep -Eq '^ +[0-9.]+ seconds (user|sys)$' "$T/r1"

# -x , : perf's field order, checked against perf's own CSV of the same events
ev=task-clock,context-switches,page-faults,cycles
perf stat -x, -e $ev true 2>"$T/p.csv"
"$PERFKIT" stat -x, -e $ev true 2>"$T/k.csv"
# field count, value kind, unit, event, and whether a metric is given (its
# unit may legitimately differ: 0 vs 1 context switch is /sec vs K/sec)
shape() { awk -F, '{ v = ($1 ~ /^</) ? $1 : "N"; print NF, v, $2, $3, ($NF == "" ? "-" : "metric") }' "$1"; }
shape "$T/p.csv" >"$T/p.shape"; shape "$T/k.csv" >"$T/k.shape"
same_file "-x , fields match perf's CSV (count, value kind, unit, event, metric unit)" "$T/p.shape" "$T/k.shape"
perf stat -r 3 -x, -e $ev true 2>"$T/p3.csv"
"$PERFKIT" stat -r 3 -x, -e $ev true 2>"$T/k3.csv"
shape "$T/p3.csv" >"$T/p.shape"; shape "$T/k3.csv" >"$T/k.shape"
same_file "-x , -r 3 has perf's variance column" "$T/p.shape" "$T/k.shape"

# -j: every line one JSON object with perf's keys
"$PERFKIT" stat -j -e $ev true 2>"$T/j"
expect "-j is valid JSON, one object per counter" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(rows) == 4, rows
for r in rows:
    for k in ("counter-value", "unit", "event", "event-runtime", "pcnt-running", "metric-value", "metric-unit"):
        assert k in r, (k, r)
assert [r["event"] for r in rows] == ["task-clock", "context-switches", "page-faults", "cycles"]
assert float(rows[0]["counter-value"]) > 0
' "$T/j"
done_testing
