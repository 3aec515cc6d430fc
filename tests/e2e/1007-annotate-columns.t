#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit annotate's first column as perf annotate's options make it: -n /
# --show-nr-samples (samples), --show-total-period (period), each address's
# value equal to perf annotate's on perf's own recording; -q no messages;
# --skip-missing no block for code that cannot be read.
# check: fresh-recording (perf compared on recordings made here: scripts/e2e-run)
. "$(dirname "$0")/lib.sh"

if ! have perf || ! can_perf_event; then skip "needs perf and perf_event_open"; done_testing; exit; fi
W=$PK_BUILD/tests/workloads/burn2to1
perf record -q -e cpu-clock -F 999 -o "$T/p.data" -- "$W" 300 >/dev/null 2>&1
# address -> value of each instruction row with a value
vals() { awk -F: 'NF >= 3 && $1 ~ /^ +[0-9.]+ +$/ { a = $2; gsub(/[ \t]/, "", a); v = $1; gsub(/ /, "", v); if (a ~ /^[0-9a-f]+$/) print a, v }' | sort; }
for o in "-n" "--show-nr-samples" "--show-total-period" ""; do
	# shellcheck disable=SC2086
	perf annotate --stdio --no-source $o -i "$T/p.data" burn_two 2>/dev/null | vals >"$T/perf.v"
	# shellcheck disable=SC2086
	"$PERFKIT" annotate --stdio --no-source $o -i "$T/p.data" burn_two 2>/dev/null | vals >"$T/pk.v"
	expect "annotate ${o:-(percent)}: rows to compare ($(wc -l <"$T/pk.v"))" test -s "$T/pk.v"
	same_file "annotate ${o:-(percent)}: each address's value as perf annotate's" "$T/perf.v" "$T/pk.v"
done
"$PERFKIT" annotate --stdio -n -i "$T/p.data" burn_two 2>/dev/null | head -1 >"$T/h"
expect "-n: the column is Samples" grep -q '^ Samples |' "$T/h"
"$PERFKIT" annotate --stdio --show-total-period -i "$T/p.data" burn_two 2>/dev/null | head -1 >"$T/h"
expect "--show-total-period: the column is Period, 12 wide" grep -q '^ Period      |' "$T/h"
# without kcore (not root here, or none), kernel functions cannot be read:
# said on stderr and shown by address; -q says nothing, --skip-missing
# shows no such block
"$PERFKIT" annotate --stdio -i "$T/p.data" >"$T/all" 2>"$T/all.err"
"$PERFKIT" annotate --stdio -q --skip-missing -i "$T/p.data" >"$T/skip" 2>"$T/skip.err"
expect "-q: nothing on stderr" test ! -s "$T/skip.err"
"$PERFKIT" annotate --stdio --skip-missing -i "$T/p.data" >/dev/null 2>"$T/skip2.err"
expect "--skip-missing: no line about code shown by address" sh -c "! grep -q 'by address' '$T/skip2.err'"
if grep -q '^ Percent |	Addresses' "$T/all"; then
	expect "--skip-missing: no block of addresses only" sh -c "! grep -q '^ Percent |	Addresses' '$T/skip'"
	expect "... the others as without it" grep -q 'burn_two' "$T/skip"
else
	skip "every function's code could be read here: --skip-missing"
fi
done_testing
