#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# record -e SUBSYS:NAME: every hit of the tracepoint, with its raw record,
# and the tracing data (the format files) in HEADER_TRACING_DATA, so perf
# script reads perfkit's file; perfkit script prints the fields
# (comm tid [cpu] time: event: name=value …), the same as perf's for an
# event whose print format lists its fields (sched_process_exec).
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
if ! "$PERFKIT" stat -e sched:sched_process_exec true 2>/dev/null; then
	skip "tracefs not available (not mounted and cannot be mounted)"; done_testing; exit
fi
cd "$T"
"$PERFKIT" record -e sched:sched_process_exec,sched:sched_process_fork -o tp.data -- \
	sh -c '/bin/true; /bin/true; ls / >/dev/null' >rec.out 2>rec.err; rc=$?
expect "record -e sched:sched_process_exec,sched:sched_process_fork: exit 0 ($rc)" test $rc -eq 0
diag "$(cat rec.err)"
"$PERFKIT" script -i tp.data >pk.txt 2>pk.err
diag "$(head -3 pk.txt)"
expect "perfkit script: four execs (sh, true, true, ls)" test "$(grep -c "sched:sched_process_exec: filename=" pk.txt)" -eq 4
expect "… each with its fields: filename=/usr/bin/ls pid=N old_pid=N" \
	grep -Eq '^ +ls +[0-9]+ \[[0-9]{3}\] +[0-9]+\.[0-9]{6}: sched:sched_process_exec: filename=(/usr)?/bin/ls pid=[0-9]+ old_pid=[0-9]+$' pk.txt
expect "… and the forks, by their print format: comm=sh pid=N child_comm=sh child_pid=N" \
	grep -q 'sched:sched_process_fork: comm=sh pid=[0-9]* child_comm=sh child_pid=[0-9]*' pk.txt
expect "perfkit script: no warning" test ! -s pk.err
if have perf; then
	perf script -i tp.data >pf.txt 2>pf.err; rc=$?
	diag "$(head -3 pf.txt; head -3 pf.err)"
	expect "perf script reads perfkit's tracepoint file (exit 0)" test $rc -eq 0
	expect "perf script: the four execs" test "$(grep -c "sched:sched_process_exec: filename=" pf.txt)" -eq 4
	expect "perf script and perfkit script print the execs and forks alike" \
		cmp -s pf.txt pk.txt
	diff pf.txt pk.txt | head -4 | sed 's/^/# /'
	"$PERFKIT" record -e raw_syscalls:sys_enter,syscalls:sys_exit_openat,sched:sched_switch -o sys.data -- sh -c 'ls / >/dev/null; sleep 0.01' >/dev/null 2>&1
	perf script -i sys.data 2>/dev/null >pf-sys.txt
	"$PERFKIT" script -i sys.data 2>/dev/null >pk-sys.txt
	expect "raw_syscalls:sys_enter (array elements), sys_exit_openat and sched_switch (__print_flags, ?:) as perf prints them ($(wc -l <pk-sys.txt) lines)" \
		cmp -s pf-sys.txt pk-sys.txt
	diff pf-sys.txt pk-sys.txt | head -4 | sed 's/^/# /'
	expect "… sched_switch among them" grep -q 'sched:sched_switch: prev_comm=.* prev_state=[A-Z]' pk-sys.txt
	# perf's own files: pipe mode (the tracing data is a record's payload)
	# and -z (the data section is replaced by its decompressed copy)
	perf record -q -o - -e sched:sched_process_exec,sched:sched_switch -- sh -c 'ls >/dev/null; sleep 0.01' 2>/dev/null >pipe.data
	perf script -i - <pipe.data 2>/dev/null >pf-pipe.txt
	"$PERFKIT" script -i - <pipe.data >pk-pipe.txt 2>/dev/null
	expect "perf's pipe-mode tracepoint data: the same text ($(wc -l <pk-pipe.txt) lines)" \
		sh -c "test -s pk-pipe.txt && cmp -s pf-pipe.txt pk-pipe.txt"
	if perf record -q -z -o z.data -e sched:sched_process_exec,sched:sched_switch -- sh -c 'ls >/dev/null; sleep 0.01' 2>/dev/null; then
		perf script -i z.data 2>/dev/null >pf-z.txt
		"$PERFKIT" script -i z.data >pk-z.txt 2>/dev/null
		expect "perf record -z with tracepoints: the same text ($(wc -l <pk-z.txt) lines)" \
			sh -c "test -s pk-z.txt && cmp -s pf-z.txt pk-z.txt"
	fi
	perf report -i tp.data --header-only 2>/dev/null | grep -q 'sample_type = IP|TID|TIME|CPU|PERIOD|RAW' &&
		ok "the events sample RAW and CPU, as perf's" || not_ok "the events sample RAW and CPU, as perf's"
fi
"$PERFKIT" report -i tp.data >rep.txt 2>rep.err
expect "report reads the file too (exit 0)" test $? -eq 0

done_testing
