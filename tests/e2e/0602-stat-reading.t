#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# stat's reading uses what the machine can count: without a PMU it still reads
# CPU use, context switches and page faults (a sleep: "mostly waits", no
# pointer to cache simulation; a CPU spin: the pointer to `perfkit cache`);
# -e L1-dcache-loads,… alone gets a reading (from user + system time).
# cache --help and annotate --help describe every option.
. "$(dirname "$0")/lib.sh"

for c in cache annotate; do
	"$PERFKIT" $c --help >"$T/h.$c" 2>"$T/h.$c.err"; rc=$?
	expect "$c --help: exit 0, help on stdout" test $rc -eq 0 -a -s "$T/h.$c"
	expect "$c --help: more than the usage line ($(wc -l <"$T/h.$c") lines)" test "$(wc -l <"$T/h.$c")" -ge 10
done
for o in --model= --I1= --D1= --L2= --LL= --prefetch= --tlb= --branch-sim= --output= --quiet; do
	expect "cache --help describes $o" grep -Eq "^ +(-., )?$o" "$T/h.cache"
done
for o in --show= --sort= --threshold= --auto= --context= '--folded EVENT'; do
	expect "annotate --help describes $o" grep -Eq "^ +$o" "$T/h.annotate"
done

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
"$PERFKIT" stat -- sleep 0.3 2>"$T/sleep"
diag "$(sed -n '/Reading/,$p' "$T/sleep")"
expect "a sleep: the reading says it mostly waits" grep -q 'CPUs utilized (below 0.5): the command mostly waits' "$T/sleep"
expect "a sleep: the reading reads its context switches" grep -Eq 'context switch(es)? \([0-9]+ per second of CPU time\)' "$T/sleep"
expect_fail "a sleep: no pointer to cache simulation" grep -q 'perfkit cache' "$T/sleep"
# a 1-ms command: the table's rate follows its count (perf: count / task-clock,
# 0 when 0), no spread after a 0 count, and no waiting/I/O verdict
"$PERFKIT" stat -r 3 -- false 2>"$T/false"
diag "$(cat "$T/false")"
expect "false: a 0 count has a 0 rate" \
	awk '$2 ~ /^(context-switches|cpu-migrations)$/ && $1 == 0 && !($4 == "0.000" && $5 == "/sec") { bad = 1 } END { exit bad }' "$T/false"
expect_fail "false: no ( +- ) spread after a 0 count" grep -Eq '^ +0 +[a-z-]+ .*\( \+-' "$T/false"
# the reading's threshold is the mean elapsed time, 10 ms (CNT_SHORT_NS):
# a loaded machine (the other e2e lane) can keep `false` off the CPU past
# it, and then the reading rightly judges the waiting it saw
el=$(awk '/seconds time elapsed/ { print $1; exit }' "$T/false")
if [ -n "$el" ] && awk -v e="$el" 'BEGIN { exit !(e < 0.010) }'; then
	expect "false: too short to tell, said" grep -q 'too short to tell' "$T/false"
	expect_fail "false: no 'mostly waits' verdict" grep -q 'mostly waits' "$T/false"
	expect_fail "false: no biolatency advice" grep -q 'biolatency' "$T/false"
else
	expect_fail "false ran ${el:-?} s here (over 10 ms: a loaded machine): no 'too short' line" \
		grep -q 'too short to tell' "$T/false"
	skip "false: the verdicts of a run under 10 ms (this one took ${el:-?} s)"
	skip "false: no biolatency advice (idem)"
fi
"$PERFKIT" stat -e L1-dcache-loads,L1-dcache-load-misses -- sleep 0.2 2>"$T/l1"
expect "-e L1-dcache-loads,L1-dcache-load-misses: a reading" grep -q 'Reading:' "$T/l1"
expect "… CPU use from user + system time" grep -q 'CPUs utilized (user + system time)' "$T/l1"
"$PERFKIT" stat -e task-clock -- sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i + 1)); done' 2>"$T/spin"
diag "$(sed -n '/Reading/,$p' "$T/spin")"
expect "a CPU spin: CPU-bound (busy, or kept off the CPU by other load)" \
	grep -q 'busy on the CPU\|other load kept it off' "$T/spin"
if perf stat -x, -e cycles true 2>&1 | grep -q '<not supported>'; then
	expect "no PMU: the sleep's reading says the counters are missing" grep -q 'not supported on this machine' "$T/sleep"
	expect "no PMU: the sleep is pointed to what it waits for" grep -q 'what it waits for' "$T/sleep"
	"$PERFKIT" stat -e task-clock,cycles -- sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i + 1)); done' 2>"$T/spin2"
	expect "no PMU: a CPU spin is pointed to perfkit cache" grep -q 'perfkit cache' "$T/spin2"
fi

done_testing
