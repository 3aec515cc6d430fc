#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit list, as perf list: software, hardware (marked "not supported
# here" where the machine has no PMU, as perf leaves them out), generic
# cache events and tracepoints from tracefs, with descriptions; filtered
# by kind or glob.  A misspelled event gets a "did you mean" in stat,
# record and top.
. "$(dirname "$0")/lib.sh"

"$PERFKIT" list >"$T/all" 2>"$T/all.err"; rc=$?
expect "list: exit 0" test $rc -eq 0
expect "software events, perf's line: 'cpu-clock … [Software event]'" grep -Eq '^  cpu-clock +\[Software event\]$' "$T/all"
expect "aliases as perf: 'page-faults OR faults'" grep -Eq '^  page-faults OR faults +\[Software event\]$' "$T/all"
expect "hardware events: 'cpu-cycles OR cycles'" grep -Eq '^  cpu-cycles OR cycles +\[Hardware event' "$T/all"
expect "cache events: L1-dcache-load-misses" grep -Eq '^  L1-dcache-load-misses +\[Hardware cache event' "$T/all"
expect_fail "no cache op a cache lacks (iTLB stores)" grep -q 'iTLB-stores' "$T/all"
expect "descriptions: cpu-clock's" grep -A1 '^  cpu-clock ' "$T/all" | grep -q 'timer'
expect "descriptions: L1-dcache-load-misses'" sh -c "grep -A1 '^  L1-dcache-load-misses ' '$T/all' | grep -q 'L1 data cache loads that missed'"
if perf stat -x, -e cycles true 2>&1 | grep -q '<not supported>'; then
	expect "no PMU: cycles marked not supported here" grep -Eq '^  cpu-cycles OR cycles +\[Hardware event, not supported here\]$' "$T/all"
	expect "no PMU: L1-dcache-loads marked too" grep -Eq '^  L1-dcache-loads +\[Hardware cache event, not supported here\]$' "$T/all"
else
	expect "a PMU: cycles not marked" grep -Eq '^  cpu-cycles OR cycles +\[Hardware event\]$' "$T/all"
fi
expect_fail "software events are never marked" grep -q 'Software event, not supported' "$T/all"

if "$PERFKIT" stat -e sched:sched_switch true 2>/dev/null; then
	expect "tracepoints from tracefs: sched:sched_switch" grep -Eq '^  sched:sched_switch +\[Tracepoint event\]$' "$T/all"
	n=$(grep -c 'Tracepoint event' "$T/all")
	expect "every tracepoint of tracefs ($n listed)" test "$n" -gt 100
	"$PERFKIT" list tracepoint >"$T/tp"
	expect "list tracepoint: tracepoints only" test "$(grep -c 'Software event\|Hardware' "$T/tp")" -eq 0 -a "$(grep -c 'Tracepoint event' "$T/tp")" -eq "$n"
	"$PERFKIT" list 'sched:sched_sw*' >"$T/glob"
	expect "a glob: sched:sched_sw* → sched_switch (and sched_swap_numa if present)" \
		sh -c "grep -q 'sched:sched_switch' '$T/glob' && ! grep -q 'sched_wakeup' '$T/glob'"
	"$PERFKIT" stat -e sched:sched_swtich true 2>"$T/tpe"; rc=$?
	expect "stat -e sched:sched_swtich: exit 2 ($rc)" test $rc -eq 2
	expect "… did you mean 'sched:sched_switch'?" grep -q "did you mean 'sched:sched_switch'?" "$T/tpe"
else
	skip "tracefs not available"
fi
"$PERFKIT" list sw >"$T/sw"
expect "list sw: software only" test "$(grep -c '\[Software event\]' "$T/sw")" -ge 10 -a "$(grep -c 'Hardware' "$T/sw")" -eq 0
"$PERFKIT" list '*fault*' >"$T/f"
expect "list '*fault*': page-faults, minor-faults, major-faults, …" test "$(grep -c 'faults' "$T/f")" -ge 4
"$PERFKIT" list no-such-event-xyz >/dev/null 2>"$T/none"; rc=$?
expect "a glob that matches nothing: exit 1, said" test $rc -eq 1 -a -s "$T/none"
"$PERFKIT" list --help >"$T/h"
expect "list --help" grep -q '^usage: perfkit list' "$T/h"

"$PERFKIT" stat -e cylces true 2>"$T/e1"; rc=$?
expect "stat -e cylces: exit 2 ($rc)" test $rc -eq 2
expect "… did you mean 'cycles'?" grep -q "unknown event 'cylces'; did you mean 'cycles'?" "$T/e1"
"$PERFKIT" stat -e task-clok,page-faults true 2>"$T/e2"
expect "stat -e task-clok: did you mean 'task-clock'?" grep -q "did you mean 'task-clock'?" "$T/e2"
"$PERFKIT" record -e L1-dcache-lods -o "$T/x.data" -- true 2>"$T/e3"
expect "record -e L1-dcache-lods: did you mean 'L1-dcache-loads'?" grep -q "did you mean 'L1-dcache-loads'?" "$T/e3"
"$PERFKIT" top -e cpu-clok --stdio -n 1 2>"$T/e4"; rc=$?
expect "top -e cpu-clok: exit 2, did you mean 'cpu-clock'?" test $rc -eq 2 -a "$(grep -c "did you mean 'cpu-clock'?" "$T/e4")" -eq 1
"$PERFKIT" stat -e xyzzy true 2>"$T/e5"
expect "nothing near: no suggestion" sh -c "grep -q \"unknown event 'xyzzy'\" '$T/e5' && ! grep -q 'did you mean' '$T/e5'"

"$PERFKIT" list tool >"$T/tool" 2>&1
expect "list tool: perf's duration_time, a Tool event" grep -q 'duration_time .*\[Tool event\]' "$T/tool"

done_testing
