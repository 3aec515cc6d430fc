#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report's cpu key: rows by the samples' CPU, perf's "CPU" column (three
# digits, "%0*.*d"; -001 for a recording whose samples carry no CPU, as
# perf record of a command without -a makes), alone or with other keys,
# with Children and call graphs, in -F, and the browser's 's cpu'; and
# --show-total-period's Period column.
# Checked against perfkit script's CPU column (no assumption on how many
# CPUs the machine has) and against perf report where perf is installed.
# check: fresh-recording (perf compared on recordings made here: scripts/e2e-run)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"   # the browser's steps (tmux)
perf_event_require
cd "$T"
"$PERFKIT" record -a -g -F 999 -o sys.data -- "$PK_BUILD/tests/workloads/burn2to1" 300 >/dev/null 2>rec.err; rc=$?
expect "record -a: exit 0 ($rc)" test $rc -eq 0
"$PERFKIT" report --stdio --sort cpu -g none -i sys.data >cpu.txt 2>/dev/null
diag "$(grep '%' cpu.txt | head -4)"
expect "--sort cpu: perf's CPU column" grep -q '^# Children      Self  CPU$' cpu.txt
# each row a CPU that script shows, with its share of the samples
"$PERFKIT" script -F cpu -i sys.data 2>/dev/null | tr -d '[] ' | sort | uniq -c >sc.txt
"$PERFKIT" report --stdio -n --no-children --sort cpu -g none -i sys.data 2>/dev/null |
	awk '/%/ { print $2, $3 }' | sort -k2 >rows.txt
awk '{ print $1, $2 }' sc.txt | sort -k2 >want.txt
expect "a row per CPU, its samples those perfkit script shows on it ($(tr '\n' ' ' <rows.txt))" cmp -s want.txt rows.txt
"$PERFKIT" report --stdio --sort cpu,comm -g none --no-children -i sys.data >cc.txt 2>/dev/null
expect "--sort cpu,comm: burn2to1's rows, a CPU each" grep -Eq '^ +[0-9.]+%  [0-9]{3}  burn2to1' cc.txt
# no CPU in the samples: -001, the column 3 wide all the same
"$PERFKIT" record -g -F 999 -o task.data -- "$PK_BUILD/tests/workloads/burn2to1" 200 >/dev/null 2>&1
"$PERFKIT" report --stdio --sort cpu,dso -g none -i task.data >task.txt 2>/dev/null
expect "samples without their CPU: -001, the column as perf's (3 wide)" \
	sh -c "grep -q '^# Children      Self  CPU  Shared Object' task.txt && grep -Eq '^ +[0-9.]+% +[0-9.]+%  -001  burn2to1' task.txt"
"$PERFKIT" report --stdio --sort cpux -i task.data >/dev/null 2>bad.err; rc=$?
expect "an unknown key names cpu among the known ones ($rc)" sh -c "[ $rc -eq 2 ] && grep -q 'srcline, trace, cpu' bad.err"
# --show-total-period: perf's Period column (Self's period), after Samples
"$PERFKIT" report --stdio -n --show-total-period --no-children --sort cpu -g none -i sys.data >per.txt 2>/dev/null
ev=$(awk '/^# Event count/ { print $5 }' per.txt)
sum=$(awk '/%/ { s += $3 } END { printf "%.0f\n", s }' per.txt)   # mawk prints 2^31 and more as %.6g
expect "--show-total-period: a Period column after Samples, summing to the event count ($sum, $ev)" \
	sh -c "grep -q '^# Overhead       Samples        Period  CPU' per.txt && [ '$sum' = '$ev' ]"
"$PERFKIT" report --stdio --show-total-period -i sys.data >/dev/null 2>&1
expect "--show-total-period with Children and call graphs: exit 0" test $? -eq 0
if have tmux; then
	tui_start 120 20 "'$PERFKIT' report -i sys.data"
	expect "browser: opens on comm,dso,sym" tui_wait "Shared Object"
	tui_keys s C-u cpu,comm Enter
	expect "browser: 's cpu,comm' reads the CPUs in (the rows had none)" tui_wait "Self  CPU  Command"
	expect "… a CPU a row" tui_wait_re '%  [0-9]{3}  '
	tui_keys q q
	tui_start 120 20 "'$PERFKIT' report -n --show-total-period --no-children --sort cpu -i sys.data"
	expect "browser --show-total-period: the Period column after Samples" \
		tui_wait "Overhead       Samples        Period  CPU"
	expect "… its values" tui_wait_re '%  +[0-9]+  +[0-9]+  [0-9]{3}'
	tui_keys P
	expect "P: written" tui_wait "written to"
	tui_keys q q
	"$PERFKIT" report --stdio -n --show-total-period --no-children --sort cpu -i sys.data 2>/dev/null |
		grep -E '^ +[0-9.]+%' >pst.txt
	grep -E '^ +[0-9.]+%' perf.hist.0 >pp.txt 2>/dev/null
	expect "… and 'P' prints it as --stdio does" cmp -s pst.txt pp.txt
	_tm kill-server 2>/dev/null
else
	skip "tmux not installed: the browser"
fi
if have perf; then
	perf record -g -F 999 -o perf-task.data -- "$PK_BUILD/tests/workloads/burn2to1" 200 >/dev/null 2>&1
	perf record -a -g -F 999 -o perf-sys.data -- "$PK_BUILD/tests/workloads/burn2to1" 200 >/dev/null 2>&1
	# system-wide: other processes' chains, DSOs and unknown addresses,
	# where the README's differences are (the [truncated] marker, the
	# order of unknown addresses): the keys that do not show them
	# (and other tests' processes, recorded beside it in CI, whose thread
	# names can differ: a thread perfkit names ":TID" where perf names
	# it; the cpu key alone)
	for f in sys.data perf-sys.data; do
		same_as_perf "$T/$f" --sort cpu -g none
		same_as_perf "$T/$f" -n --show-total-period --sort cpu -g none --no-children
	done
	# (a chain the kernel cut short is perfkit's "[truncated]" row alone:
	# same_as_perf_nt)
	for f in task.data perf-task.data; do
		same_as_perf_nt "$T/$f" --sort cpu
		same_as_perf_nt "$T/$f" --sort cpu,comm -g none --no-children
		# (rows of addresses only chains pass through, 0.00 %, left out:
		# their order under -F is perf's trees', no_zero_addr_rows)
		perf report -i "$T/$f" --stdio -F overhead,cpu,sym -g none 2>/dev/null | grep -v '^# (Tip:' | grep -v '\[truncated\]' | no_zero_addr_rows | trim_tail >"$T/perf.oracle"
		"$PERFKIT" report -i "$T/$f" --stdio -F overhead,cpu,sym -g none 2>/dev/null | grep -v '\[truncated\]' | no_zero_addr_rows | trim_tail >"$T/perfkit.oracle"
		same_file "report -F overhead,cpu,sym -g none ($f): perf report's output" "$T/perf.oracle" "$T/perfkit.oracle"
		same_as_perf_nt "$T/$f" -n --show-total-period --sort cpu,sym
	done
else
	skip "perf not installed: the comparison with perf report"
fi
done_testing
