#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit stat -I MS prints each interval as perf stat 6.1 does: the time,
# then the table's line with its metric (task-clock's "CPUs utilized" over
# the nominal interval, context switches per second of the interval's
# task-clock); with -x SEP perf's CSV columns (time, count, unit, event,
# runtime, percent running, metric, metric unit); with -j one JSON object
# per event with "interval" first.  Checked on its own, and line shape for
# line shape (numbers masked) against perf stat -I where perf is installed.
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
# a CPU-bound shell loop of about 0.5 s: several 150 ms intervals
EV=task-clock,context-switches,page-faults

"$PERFKIT" stat -I 150 -e $EV -- sh -c 'i=0; end=$(( $(date +%s%N) + 500000000 )); while [ $(date +%s%N) -lt $end ]; do i=$((i+1)); done' 2>"$T/txt"
n=$(grep -c ' msec task-clock' "$T/txt")
expect "text: interval lines ($n)" test "$n" -ge 1
expect "text: every task-clock line has its CPUs utilized" \
	test "$(grep -cE '^ +[0-9]+\.[0-9]{9} +[0-9]+\.[0-9]{2} msec task-clock +# +[0-9]+\.[0-9]{3} CPUs utilized' "$T/txt")" = "$n"
expect "text: every context-switches line has its rate" \
	test "$(grep -cE '^ +[0-9]+\.[0-9]{9} +[0-9]+ +context-switches +# +[0-9.]+ (K|M)?/sec' "$T/txt")" = "$n"
grep -v '^#' "$T/txt" | head -3 | while IFS= read -r l; do diag "$l"; done

"$PERFKIT" stat -x, -I 150 -e $EV -- sh -c 'i=0; end=$(( $(date +%s%N) + 500000000 )); while [ $(date +%s%N) -lt $end ]; do i=$((i+1)); done' 2>"$T/csv"
bad=$(awk -F, '$4 == "task-clock" && (NF != 8 || $8 != "CPUs utilized" || ($7 - $2 / 150) > 0.0015 || ($2 / 150 - $7) > 0.0015) { b++ } END { print b + 0 }' "$T/csv")
expect "csv: task-clock lines have 8 columns, CPUs utilized = msec / 150 ms" test "$bad" = 0 -a -s "$T/csv"
expect "csv: context-switches lines carry runtime, percent and /sec" \
	test "$(grep -cE '^ +[0-9]+\.[0-9]{9},[0-9]+,,context-switches,[0-9]+,[0-9]+\.[0-9]{2},[0-9.]+,(K|M)?/sec$' "$T/csv")" = \
	"$(grep -c context-switches "$T/csv")"
head -2 "$T/csv" | while IFS= read -r l; do diag "$l"; done

"$PERFKIT" stat -j -I 150 -e $EV -- sh -c 'i=0; end=$(( $(date +%s%N) + 500000000 )); while [ $(date +%s%N) -lt $end ]; do i=$((i+1)); done' 2>"$T/json"
if have python3; then
	expect "json: one object per line, each with interval, counter-value and metric" python3 -c '
import json, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
assert lines
for l in lines:
    d = json.loads(l)
    assert list(d)[0] == "interval" and "counter-value" in d and "metric-unit" in d, l
    if d["event"] == "task-clock":
        assert d["metric-unit"] == "CPUs utilized", l
' "$T/json"
else
	expect "json: objects with an interval" grep -q '^{"interval" : [0-9.]*, "counter-value"' "$T/json"
fi

# a sleeping task: its events do not run in most intervals, which print
# "<not counted>" (with the unit column), as perf's, not zeros with a metric
"$PERFKIT" stat -I 200 -e task-clock,context-switches -- sleep 1 2>"$T/nc.txt"
expect "sleep: intervals of a task that never ran say <not counted> msec task-clock" \
	grep -qE '^ +[0-9]+\.[0-9]{9} +<not counted> msec task-clock +$' "$T/nc.txt"
expect "sleep: ... and no 0.00 msec task-clock line with a metric" sh -c "! grep -q ' 0\.00 msec task-clock' '$T/nc.txt'"
"$PERFKIT" stat -x, -I 200 -e task-clock,context-switches -- sleep 1 2>"$T/nc.csv"
expect "sleep, -x,: <not counted>,msec,task-clock,0,100.00,, (perf's columns)" \
	grep -qE '^ +[0-9]+\.[0-9]{9},<not counted>,msec,task-clock,0,100\.00,,$' "$T/nc.csv"
"$PERFKIT" stat -j -I 200 -e task-clock,context-switches -- sleep 1 2>"$T/nc.json"
expect "sleep, -j: counter-value <not counted>, unit msec" \
	grep -q '"counter-value" : "<not counted>", "unit" : "msec", "event" : "task-clock"' "$T/nc.json"

if have perf; then
	# numbers masked, and a rate's prefix (K/sec or /sec: how many context
	# switches an interval saw depends on the machine's load)
	shape() { grep -v '^$' "$1" | sed -E 's/[0-9]+(\.[0-9]+)?/N/g; s/[KMG]?\/sec/\/sec/g; s/ +/ /g; s/^ //' | sort -u; }
	for m in "" "-x," "-j"; do
		# shellcheck disable=SC2086
		perf stat $m -I 150 -e $EV -- sh -c 'i=0; end=$(( $(date +%s%N) + 500000000 )); while [ $(date +%s%N) -lt $end ]; do i=$((i+1)); done' 2>"$T/perf.out"
		# shellcheck disable=SC2086
		"$PERFKIT" stat $m -I 150 -e $EV -- sh -c 'i=0; end=$(( $(date +%s%N) + 500000000 )); while [ $(date +%s%N) -lt $end ]; do i=$((i+1)); done' 2>"$T/pk.out"
		shape "$T/perf.out" >"$T/perf.shape"; shape "$T/pk.out" >"$T/pk.shape"
		if cmp -s "$T/perf.shape" "$T/pk.shape"; then ok "-I 150 ${m:-text}: the lines perf stat -I prints, numbers aside"
		else not_ok "-I 150 ${m:-text}: the lines perf stat -I prints, numbers aside"
			diff "$T/perf.shape" "$T/pk.shape" | head -6 | while IFS= read -r l; do diag "$l"; done; fi
		# shellcheck disable=SC2086
		perf stat $m -I 200 -e task-clock,context-switches -- sleep 1 2>"$T/perf.out"
		# shellcheck disable=SC2086
		"$PERFKIT" stat $m -I 200 -e task-clock,context-switches -- sleep 1 2>"$T/pk.out"
		shape "$T/perf.out" >"$T/perf.shape"; shape "$T/pk.out" >"$T/pk.shape"
		if cmp -s "$T/perf.shape" "$T/pk.shape"; then ok "-I 200 ${m:-text} of sleep 1: perf stat -I's lines, <not counted> ones too"
		else not_ok "-I 200 ${m:-text} of sleep 1: perf stat -I's lines, <not counted> ones too"
			diff "$T/perf.shape" "$T/pk.shape" | head -6 | while IFS= read -r l; do diag "$l"; done; fi
	done
else
	skip "perf (the oracle) is not installed"
fi
done_testing
