#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report -t / --field-separator SEP, perf's output for scripts: SEP
# between the columns, numbers printed at width 1 then padded to their
# column ("␠67.33%␠"), each of SEP's first character in a name made '.',
# no dotted header line; '.' refused.  Checked against perf report where
# perf is installed, on perfkit's and perf's recordings.
. "$(dirname "$0")/lib.sh"
perf_event_require
cd "$T"
"$PERFKIT" record -g -F 999 -o task.data -- "$PK_BUILD/tests/workloads/burn2to1" 200 >/dev/null 2>&1
"$PERFKIT" report -i task.data -t , --no-children -g none >comma.txt 2>/dev/null
expect "-t ,: exit 0" test $? -eq 0
diag "$(sed -n '9,12p' comma.txt)"
expect "the header's names joined by SEP, no dotted line" \
	sh -c "grep -q '^# Overhead,Command *,Shared Object *,Symbol' comma.txt && ! grep -q '^# \.\.\.' comma.txt"
expect "a row: the share at width 1 padded to 8, the names joined by SEP" \
	grep -Eq '^ [0-9]+\.[0-9]{2}% *,burn2to1,burn2to1 *,\[\.\] burn_two$' comma.txt
"$PERFKIT" report -i task.data --field-separator=_ --no-children -g none -n >us.txt 2>/dev/null
expect "--field-separator _: SEP's character in a name made '.' (burn.two)" \
	grep -Eq '^ [0-9.]+% *_ [0-9]+ *_burn2to1_burn2to1 *_\[\.\] burn\.two$' us.txt
expect "… not in the header's names" grep -q '^# Overhead_     Samples_Command' us.txt
"$PERFKIT" report -i task.data -t . >/dev/null 2>dot.err; rc=$?
expect "-t .: refused as perf refuses it ($rc)" \
	sh -c "[ $rc -eq 2 ] && grep -q \"'.' is the only non valid --field-separator argument\" dot.err"
"$PERFKIT" report -i task.data -t , -q --no-children -g none --sort dso,comm --comms burn2to1 >el.txt 2>/dev/null
expect "an elided key's column left out, no SEP for it" grep -Eq '^ [0-9.]+% *,burn2to1 *$' el.txt
if have perf; then
	perf record -g -F 999 -o perf-task.data -- "$PK_BUILD/tests/workloads/burn2to1" 200 >/dev/null 2>&1
	for f in task.data perf-task.data; do
		same_as_perf "$T/$f" -t , --no-children -g none
		same_as_perf "$T/$f" -t _ -n --show-total-period --no-children -g none
		same_as_perf "$T/$f" -t '|;' --sort sym,dso
		same_as_perf "$T/$f" -t , -F overhead,sym,comm -g none
		same_as_perf "$T/$f" -t , --sort pid,cpu -g none
		same_as_perf "$T/$f" -t , -g none --sort dso,comm --comms burn2to1
		same_as_perf "$T/$f" -t , -q --no-children
	done
else
	skip "perf not installed: the comparison with perf report"
fi
done_testing
