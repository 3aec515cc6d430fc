#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A workload that burns CPU in two functions in a 2:1 ratio is reported at
# 67 % and 33 % (± 5 points), with and without call chains.
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
W=$PK_BUILD/tests/workloads/burn2to1
# 1500 ms of CPU time (burn2to1 counts CPU time, so a loaded machine gives
# as many samples, only later): ~1500 samples, the 2:1 split's standard
# error ~1.2 points, so ± 5 points is a 4-sigma margin
ms=1500

self_pct() { # self_pct REPORT SYMBOL → percentage of the Self column
	awk -v s="$2" '!/^#/ && $NF == s { v = ($2 ~ /%$/) ? $2 : $1; sub(/%/, "", v); print v; exit }' "$1"
}
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(a != "" && d <= 5 && d >= -5) }'; }

for g in "" "-g"; do
	expect "record ${g:-without -g}" "$PERFKIT" record $g -F 999 -o "$T/r.data" -- "$W" $ms 2>/dev/null
	"$PERFKIT" report -i "$T/r.data" --no-children >"$T/rep" 2>/dev/null
	two=$(self_pct "$T/rep" burn_two) one=$(self_pct "$T/rep" burn_one)
	diag "burn_two=$two% burn_one=$one% of all samples"
	# The two functions are nearly all of the profile; their split is
	# judged on their own total, so samples the kernel charges to the
	# process on a loaded machine (timer, scheduler) do not skew it.
	both=$(awk -v a="$two" -v b="$one" 'BEGIN { print a + b }')
	rel2=$(awk -v a="$two" -v b="$one" 'BEGIN { if (a + b > 0) printf "%.2f", 100 * a / (a + b) }')
	rel1=$(awk -v a="$two" -v b="$one" 'BEGIN { if (a + b > 0) printf "%.2f", 100 * b / (a + b) }')
	expect "the two functions are >= 90 % of the samples ${g} ($both %)" \
		awk -v v="$both" 'BEGIN { exit !(v >= 90) }'
	expect "burn_two at 67 % ± 5 ${g} ($rel2 %)" near "$rel2" 66.67
	expect "burn_one at 33 % ± 5 ${g} ($rel1 %)" near "$rel1" 33.33
done
done_testing
