#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report -t / --field-separator SEP, perf's output for scripts: SEP
# between the columns, numbers printed at width 1 then padded to their
# column ("␠67.33%␠"), each of SEP's first character in a name made '.',
# no dotted header line; '.' refused.  Checked against perf report where
# perf is installed, on perfkit's and perf's recordings.
# check: fresh-recording (perf compared on recordings made here: scripts/e2e-run)
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
"$PERFKIT" report -i task.data -t 0 --no-children -g none -n >zero.txt 2>/dev/null
expect "-t 0: the numbers left as they are (SEP's character replaced in names only)" \
	grep -Eq '^ [0-9]+\.[0-9]{2}% *0 [0-9]+ *0burn2to1' zero.txt
"$PERFKIT" report -i task.data -t ' ' --no-children -g none >sp.txt 2>/dev/null
expect "-t ' ': a self-padded name's padding made '.' too (perf's repsep_snprintf)" \
	grep -Eq '^ [0-9.]+% +burn2to1 burn2to1[.]* \[\.\]\.burn_two$' sp.txt
"$PERFKIT" report -i task.data -t '' --no-children -g none >empty.txt 2>/dev/null
"$PERFKIT" report -i task.data --stdio --no-children -g none >plain.txt 2>/dev/null
same_file "-t '': no separator (perf's), the plain table" plain.txt empty.txt
"$PERFKIT" report -i task.data -t , --no-children -g folded >fold.txt 2>/dev/null
expect "-g folded with -t ,: the chain's frames joined by SEP" grep -q '% burn_two,' fold.txt
"$PERFKIT" report -i task.data -t . >/dev/null 2>dot.err; rc=$?
expect "-t .: refused as perf refuses it ($rc)" \
	sh -c "[ $rc -eq 2 ] && grep -q \"'.' is the only non valid --field-separator argument\" dot.err"
"$PERFKIT" report -i task.data -t , -q --no-children -g none --sort dso,comm --comms burn2to1 >el.txt 2>/dev/null
expect "an elided key's column left out, no SEP for it" grep -Eq '^ [0-9.]+% *,burn2to1 *$' el.txt
# a program without symbols: every row unresolved; perf widens the
# Shared Object column to 16 for such rows, but not with a separator
printf 'int main(void) { volatile unsigned long x = 0; for (unsigned long i = 0; i < 300000000UL; i++) x += i; return 0; }\n' >st.c
if cc -O1 -static -s -o stburn st.c 2>/dev/null; then
	"$PERFKIT" record -e cpu-clock:u -F 999 -o st.data -- ./stburn >/dev/null 2>&1
	"$PERFKIT" report -i st.data -t , --no-children >st.txt 2>/dev/null
	expect "-t on unresolved rows: the Shared Object column not widened to 16 (perf's)" \
		sh -c "grep -q '^# Overhead,Command,Shared Object,Symbol' st.txt && grep -Eq '^ [0-9.]+% *,stburn ,stburn       ,\[\.\] 0x' st.txt"
	"$PERFKIT" report -i st.data --stdio --no-children >st0.txt 2>/dev/null
	expect "… and widened without -t" grep -q '^# Overhead  Command  Shared Object     Symbol' st0.txt
else
	skip "no static C build here: the unresolved rows' widths"
fi
if have perf; then
	perf record -g -F 999 -o perf-task.data -- "$PK_BUILD/tests/workloads/burn2to1" 200 >/dev/null 2>&1
	[ -r st.data ] && same_as_perf "$T/st.data" -t , --no-children
	for f in task.data perf-task.data; do
		same_as_perf_nt "$T/$f" -t , --no-children -g none
		same_as_perf_nt "$T/$f" -t _ -n --show-total-period --no-children -g none
		same_as_perf_nt "$T/$f" -t '|;' --sort sym,dso
		same_as_perf_nt "$T/$f" -t , -F overhead,sym,comm -g none
		same_as_perf_nt "$T/$f" -t , --sort pid,cpu -g none
		same_as_perf_nt "$T/$f" -t , -g none --sort dso,comm --comms burn2to1
		same_as_perf_nt "$T/$f" -t , -q --no-children
		same_as_perf_nt "$T/$f" -t 0 -n --show-total-period --no-children -g none
		same_as_perf_nt "$T/$f" -t ' ' --sort pid,dso,sym -g none
		same_as_perf_nt "$T/$f" -t '' --no-children -g none
		same_as_perf_nt "$T/$f" -t , --no-children -g folded
		same_as_perf_nt "$T/$f" -t '::' -g folded,0.5,caller
	done
else
	skip "perf not installed: the comparison with perf report"
fi
done_testing
