#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 0227 — report --stats: the data section's records counted by type, with
# perf's names and layout ("Aggregated stats:", TOTAL, each type's count
# and share, then each event's samples), as perf report --stats prints
# them: on perfkit's and perf's recordings, two events, pipe mode (whose
# header records count) and perf record -z (whose COMPRESSED records do).
# check: fresh-recording (perf compared on recordings made here: scripts/e2e-run)
. "$(dirname "$0")/lib.sh"
perf_event_require
W=$PK_BUILD/tests/workloads/calltree
"$PERFKIT" record -g -o "$T/pk.data" -- "$W" 100 >/dev/null 2>&1
"$PERFKIT" report -i "$T/pk.data" --stats >"$T/st" 2>/dev/null
expect "--stats: exit 0" test $? = 0
expect "--stats: perf's heading" sh -c "sed -n 2p '$T/st' | grep -qx 'Aggregated stats:'"
total=$(awk '$1 == "TOTAL" { print $3 }' "$T/st")
# the types' lines have a share; the events' SAMPLE lines have none
sum=$(awk '$2 == "events:" && NF >= 4 { s += $3 } END { print s }' "$T/st")
expect "--stats: TOTAL is the sum of the types ($total = $sum)" test -n "$total" -a "$total" = "$sum"
n=$("$PERFKIT" script -i "$T/pk.data" -F comm -G 2>/dev/null | grep -c .)
expect "--stats: the event's SAMPLE count is the samples script prints ($n)" \
	grep -qE "^ +SAMPLE events: +$n\$" "$T/st"
expect "--stats: the event's own line" grep -qx 'cpu-clock stats:' "$T/st"
expect "--stats: a type's share" grep -qE '^ +COMM events: +[0-9]+  \( ?[0-9]+\.[0-9]%\)$' "$T/st"
if have perf; then
	cmp_perf() {   # cmp_perf NAME FILE
		perf report -i "$2" --stats 2>/dev/null >"$T/perf.st"
		"$PERFKIT" report -i "$2" --stats 2>/dev/null >"$T/pk.st"
		same_file "--stats, $1: perf report --stats' text" "$T/perf.st" "$T/pk.st"
	}
	cmp_perf "perfkit's recording" "$T/pk.data"
	perf record -q -g -e cpu-clock,task-clock -o "$T/two.data" -- "$W" 100 >/dev/null 2>&1
	cmp_perf "perf's, two events" "$T/two.data"
	perf record -q -g -o - -- "$W" 100 >"$T/pipe.data" 2>/dev/null
	cmp_perf "perf's pipe mode" "$T/pipe.data"
	if perf record -q -z -o "$T/z.data" -- "$W" 100 >/dev/null 2>&1; then
		cmp_perf "perf record -z" "$T/z.data"
	else
		skip "perf record -z failed (perf built without zstd)"
	fi
else
	skip "perf is not installed"
fi
done_testing
