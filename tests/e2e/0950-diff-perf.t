#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit diff OLD NEW: perf diff's table (Baseline %, Delta Abs %) by shared
# object and symbol: the same rows and values as perf diff on the same two
# files, the biggest change first; usage and input errors.
# check: fresh-recording (perf compared on recordings made here: scripts/e2e-run)
. "$(dirname "$0")/lib.sh"

if ! have perf; then skip "perf not installed"; done_testing; exit; fi
if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
W=$PK_BUILD/tests/workloads/burn2to1
[ -n "${PK_SAN:-}" ] && ms=300 || ms=500

perf record -q -e cpu-clock -F 999 -o "$T/old.data" -- "$W" $ms >/dev/null 2>&1
perf record -q -e cpu-clock -F 999 -o "$T/new.data" -- "$W" $((ms / 2)) >/dev/null 2>&1
"$PERFKIT" diff "$T/old.data" "$T/new.data" >"$T/pk" 2>"$T/pk.err"
expect "perfkit diff runs" test $? = 0
perf diff "$T/old.data" "$T/new.data" 2>/dev/null >"$T/perf"
# perf leaves a missing side blank; perfkit writes "new" (no baseline) and
# "gone" (no delta): read perf's blanks the same way
rows() {
	grep -v '^#' "$1" | sed 's/ *$//' | grep . |
		awk '{ b = substr($0, 1, 10); d = substr($0, 13, 9); r = substr($0, 22)
		       if (b ~ /^ *$/) b = sprintf("%10s", "new")
		       if (d ~ /^ *$/) d = sprintf("%9s", "gone")
		       print b "  " d r }' | sort
}
rows "$T/pk" >"$T/pk.rows"
rows "$T/perf" >"$T/perf.rows"
same_file "same rows and values as perf diff" "$T/perf.rows" "$T/pk.rows"
# a file against itself: every row is in both with the same share, and
# perf prints its zero delta ("+0.00%") rather than leaving it blank
"$PERFKIT" diff "$T/old.data" "$T/old.data" >"$T/pk.same" 2>/dev/null
perf diff "$T/old.data" "$T/old.data" 2>/dev/null >"$T/perf.same"
rows "$T/pk.same" >"$T/pk.same.rows"
rows "$T/perf.same" >"$T/perf.same.rows"
same_file "a file against itself: same rows as perf diff" "$T/perf.same.rows" "$T/pk.same.rows"
expect "a file against itself: burn_two's delta is +0.00%" \
	grep -Eq '^ +[0-9.]+% +\+0\.00% .*burn_two$' "$T/pk.same"
expect "header as perf's" grep -q '^# Baseline  Delta Abs  Shared Object' "$T/pk"
# (rows gone from NEW sort by their lost share in perfkit, last in perf)
first=$(grep -v '^#' "$T/pk" | grep . | grep -v '^ *[0-9.]*% *gone ' | head -1)
pfirst=$(grep -v '^#' "$T/perf" | grep . | sed 's/ *$//' | head -1)
# (rows of equal change, one sample each on a short run, come in either
# order: the first row's change is compared, and the row when it is alone
# with that change)
delta() { echo "$1" | awk '{ print substr($0, 13, 9) }' | tr -d ' '; }
ties=$(grep -v '^#' "$T/perf" | grep . | awk -v d="$(delta "$pfirst")" '{ x = substr($0, 13, 9); gsub(/ /, "", x) } x == d' | wc -l)
if [ "$ties" -gt 1 ]; then
	expect "biggest change first, as perf (${ties} rows of $(delta "$pfirst"))" test "$(delta "$first")" = "$(delta "$pfirst")"
else
	expect "biggest change first, as perf ($pfirst)" test "$first" = "$(echo "$pfirst" | awk '{ b = substr($0, 1, 10); if (b ~ /^ *$/) b = sprintf("%10s", "new"); print b substr($0, 11) }')"
fi
expect "burn_two is in the table" grep -q 'burn_two' "$T/pk"

# a perf file ("cpu-clock:ppp") against a perfkit file ("cpu-clock"): the
# events are matched by name without modifiers, so the deltas are there
"$PERFKIT" record -F 999 -o "$T/pk.data" -- "$W" $((ms / 2)) >/dev/null 2>&1
"$PERFKIT" diff "$T/old.data" "$T/pk.data" >"$T/mixed" 2>"$T/mixed.err"
expect "perf file vs perfkit file: burn_two has a delta" \
	grep -Eq '^ +[0-9.]+% +[-+][0-9.]+% .*burn_two$' "$T/mixed"
expect "... and no warning" test ! -s "$T/mixed.err"

(cd "$T" && "$PERFKIT" diff old.data 2>/dev/null >/dev/null)
expect "one file: NEW, against ./perf.data.old, missing here: exit 1" test $? = 1
"$PERFKIT" diff a b c 2>/dev/null
expect "three files: usage error (2)" test $? = 2
# a missing NEW file is the one line said, before OLD is read (OLD cut
# short here, whose warning came first)
head -c 20000 "$T/old.data" >"$T/cut.data"
"$PERFKIT" diff "$T/cut.data" "$T/nosuch.data" >/dev/null 2>"$T/err"
expect "missing NEW: exit 1" test $? = 1
expect "... one line, naming it" sh -c "test \$(wc -l <'$T/err') = 1 && grep -q 'nosuch.data: cannot open' '$T/err'"
printf 'not perf data' >"$T/bad.data"
"$PERFKIT" diff "$T/old.data" "$T/bad.data" >/dev/null 2>"$T/err"
expect "bad NEW file: exit 1" test $? = 1
expect "bad NEW file: message names it" grep -q "bad.data" "$T/err"
done_testing
