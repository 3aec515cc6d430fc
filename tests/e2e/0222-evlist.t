#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit evlist: the events of a perf.data as `perf evlist` prints them
# (names; -F the frequency or period; -v the attributes), on perf's
# recordings (one event, a group, a tracepoint beside it, an event with
# modifiers) and on perfkit's, --trace-fields too; a missing file is one
# line and exit 1.
. "$(dirname "$0")/lib.sh"

"$PERFKIT" evlist -i "$T/nothing.data" >/dev/null 2>"$T/err"
expect "a missing file: exit 1 ($?)" test $? = 1
expect "... one line naming it" sh -c "test \$(wc -l <'$T/err') = 1 && grep -q 'nothing.data' '$T/err'"
"$PERFKIT" evlist -x >/dev/null 2>&1
expect "an unknown option: exit 2" test $? = 2
if have python3 && have nm; then
	B=$PK_BUILD/tests/workloads/vdsoloop
	python3 "$TOP/tests/e2e/mkties.py" "$T/ties.data" "$B" "$(nm "$B" | awk '$3 == "main" { print $1 }'):1" -- /x/y 10:1
	expect "a file without event names: perf 6.1's name (cpu-clock:uh)" \
		test "$("$PERFKIT" evlist -i "$T/ties.data")" = "cpu-clock:uh"
	expect "-F: the period" test "$("$PERFKIT" evlist -F -i "$T/ties.data")" = "cpu-clock:uh: sample_period=1000000"
	expect "-v: the attributes, perf's order" test "$("$PERFKIT" evlist -v -i "$T/ties.data")" = \
		"cpu-clock:uh: type: 1, size: 128, { sample_period, sample_freq }: 1000000, sample_type: IP|TID|TIME|PERIOD, exclude_kernel: 1, sample_id_all: 1"
fi

if ! have perf; then skip "perf (the oracle) is not installed"; done_testing; exit; fi
if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
W=$PK_BUILD/tests/workloads/burn2to1
perf record -q -e cpu-clock:u -g -o "$T/plain.data" -- "$W" 30 >/dev/null 2>&1
perf record -q -e '{cpu-clock,task-clock}:u' -o "$T/grp.data" -- "$W" 30 >/dev/null 2>&1
perf record -q -c 100000 -e task-clock -e sched:sched_process_exit -o "$T/tp.data" -- "$W" 30 >/dev/null 2>&1
"$PERFKIT" record -q -g -e cpu-clock,page-faults -o "$T/pk.data" -- "$W" 30 >/dev/null 2>&1
for d in plain grp tp pk; do
	if ! [ -s "$T/$d.data" ]; then skip "$d.data: not recorded here"; continue; fi
	for o in "" -F -v --trace-fields; do
		perf evlist $o -i "$T/$d.data" >"$T/p.txt" 2>/dev/null
		"$PERFKIT" evlist $o -i "$T/$d.data" >"$T/k.txt" 2>/dev/null
		same_file "$d.data, evlist $o: perf evlist's lines ($(wc -l <"$T/p.txt"))" "$T/p.txt" "$T/k.txt"
	done
done
done_testing
