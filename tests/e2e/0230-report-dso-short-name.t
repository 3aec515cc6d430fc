#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report's dso key compares DSOs by their short name, as perf's
# (_sort__dso_cmp): two files of one name (two builds of a program in one
# recording, a container's copy of a library) are one row, the first one's,
# with their samples summed — in the flat rows (-g none, --no-children)
# and in the model's (call graphs, the browser).  Compared with perf
# report where perf is installed.
# check: fresh-recording (perf compared on recordings made here: scripts/e2e-run)
. "$(dirname "$0")/lib.sh"
perf_event_require
cd "$T"
mkdir -p v1 v2
cp "$PK_BUILD/tests/workloads/burn2to1" v1/burn
cp "$PK_BUILD/tests/workloads/burn2to1" v2/burn
"$PERFKIT" record -g -F 4999 -o two.data -- sh -c './v1/burn 300; ./v2/burn 300' >/dev/null 2>rec.err; rc=$?
expect "record the two copies: exit 0 ($rc)" test $rc -eq 0
"$PERFKIT" report --stdio --no-children --sort dso -g none -i two.data >dso.txt 2>/dev/null
diag "$(grep '%' dso.txt)"
expect "--sort dso: one 'burn' row for the two files" test "$(grep -c '%  burn ' dso.txt)" -eq 1
burn=$(awk '/%  burn / { print $1 + 0 }' dso.txt)
expect "… with most of the samples ($burn %)" awk -v b="$burn" 'BEGIN { exit !(b > 60) }'
"$PERFKIT" report --stdio --no-children -g none -i two.data >def.txt 2>/dev/null
expect "comm,dso,sym: one burn_two row, one burn_one row" \
	sh -c "[ \$(grep -c 'burn  *\\[\\.\\] burn_two\$' def.txt) -eq 1 ] && [ \$(grep -c 'burn  *\\[\\.\\] burn_one\$' def.txt) -eq 1 ]"
two=$(awk '/\[\.\] burn_two$/ { print $1 + 0 }' def.txt)
one=$(awk '/\[\.\] burn_one$/ { print $1 + 0 }' def.txt)
expect "… in the workload's 2:1 ratio ($two % : $one %)" awk -v a="$two" -v b="$one" 'BEGIN { exit !(b > 0 && a / b > 1.5 && a / b < 2.6) }'
"$PERFKIT" report --stdio --no-children -i two.data >cg.txt 2>/dev/null
expect "with call graphs (the model's rows): one burn_two row" test "$(grep -c 'burn  *\[\.\] burn_two$' cg.txt)" -eq 1
if have perf; then
	perf record -g -F 999 -o perf-two.data -- sh -c './v1/burn 150; ./v2/burn 150' >/dev/null 2>&1
	# Self rows only: a chain the kernel cut during the exec gets the
	# README's [truncated] caller row with Children, which perf has not
	for f in two.data perf-two.data; do
		same_as_perf "$T/$f" --no-children --sort dso -g none
		same_as_perf "$T/$f" --no-children -g none
		same_as_perf "$T/$f" --no-children
		same_as_perf "$T/$f" --no-children --sort sym -g none
		same_as_perf "$T/$f" --no-children --sort dso,sym -g none
	done
else
	skip "perf not installed: the comparison with perf report"
fi
done_testing
