#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 0993 — a recorder killed with SIGKILL leaves a file perfkit and perf both
# read up to its last flushed record: the header, ids and attrs are written
# first (perf's order), records reach the file within about a second, and
# the header's data size follows them.  (It left 370 KB of records under a
# zeroed header with the attrs nowhere: nothing recoverable.)  The file is
# the temporary one, OUT.tmp-XXXXXX: OUT itself is only ever complete.
. "$(dirname "$0")/lib.sh"
if ! can_perf_event; then skip "perf events not allowed here"; done_testing; exit; fi
burn=$PK_BUILD/tests/workloads/burn2to1
mkdir "$T/k"
"$PERFKIT" record -F 999 -g -o "$T/k/out.data" -- sh -c "echo \$\$ >'$T/child'; exec '$burn' 100000" \
	>/dev/null 2>&1 &
rec=$!
sleep 3.5
kill -KILL $rec
wait $rec 2>/dev/null
[ -s "$T/child" ] && kill "$(cat "$T/child")" 2>/dev/null   # the orphaned workload
f=$(ls "$T"/k/out.data.tmp-* 2>/dev/null | head -1)
expect "the killed recorder left its file" test -n "$f"
expect_fail "... and no half-written out.data" test -e "$T/k/out.data"
if [ -n "$f" ]; then
	expect "... which starts with the magic" test "$(head -c 8 "$f")" = PERFILE2
	"$PERFKIT" report -i "$f" --stdio >"$T/rep" 2>"$T/rep.err"
	expect "perfkit report reads it" test $? = 0
	# "# Samples: 952" or "# Samples: 1K" (report abbreviates thousands)
	n=$(sed -n 's/^# Samples: \([0-9]*\)\(K*\) .*/\1 \2/p' "$T/rep" | head -1 |
		awk '{ print $2 == "K" ? $1 * 1000 : $1 }')
	diag "perfkit: ${n:-0} samples; $(head -2 "$T/rep.err")"
	expect "... samples of the first seconds are there (${n:-0})" test "${n:-0}" -gt 20
	expect "... in the workload's functions" grep -q 'burn_' "$T/rep"
	if have perf; then
		perf script -i "$f" -F ip,sym >"$T/ps" 2>"$T/ps.err"
		expect "perf script reads it" test $? = 0
		expect "... samples in burn_two" grep -q burn_two "$T/ps"
	else
		skip "perf not installed"
	fi
fi
done_testing
