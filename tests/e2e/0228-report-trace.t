#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report's trace key: tracepoint samples grouped by their fields as the
# print format writes them (perf's "Trace output" column, the text perf
# script prints), "N/A" for other events; the default rows of a file of
# tracepoints only, as perf's (sort.c's default_tracepoint_sort_order),
# call graphs included.  The column is as wide as its longest text only
# when a second sample has the same values of the keys before it (perf
# makes an entry's trace output only when its compare reaches the key),
# else cut to the title's 12 characters.  Compared with perf report on
# perfkit's recordings and perf's own where perf is installed.
# check: fresh-recording (perf compared on recordings made here: scripts/e2e-run)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"   # the browser's steps (tmux)

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
if ! "$PERFKIT" stat -e sched:sched_process_exec true 2>/dev/null; then
	skip "tracefs not available (not mounted and cannot be mounted)"; done_testing; exit
fi
cd "$T"
# three execs, three exits: texts that differ, in two events
"$PERFKIT" record -e sched:sched_process_exec,sched:sched_process_exit -o tp.data -- \
	sh -c '/bin/true; /bin/true' >/dev/null 2>rec.err; rc=$?
expect "record two tracepoints: exit 0 ($rc)" test $rc -eq 0
"$PERFKIT" report --stdio -i tp.data >def.txt 2>def.err
diag "$(grep -v '^$' def.txt | head -14)"
expect "a file of tracepoints only: the rows are their trace output" \
	grep -q '^# Overhead  Trace output' def.txt
# each row's text is a line's fields in perfkit script (its own test: 0107)
"$PERFKIT" script -i tp.data 2>/dev/null | sed 's/^.*sched:sched_process_e[a-z]*: //' | sort -u >texts.txt
grep '%' def.txt | sed 's/^ *[0-9.]*%  //' | sort -u >rows.txt
expect "each row's text is a sample's fields as script prints them ($(wc -l <rows.txt) rows)" \
	sh -c "[ \$(wc -l <rows.txt) -ge 4 ] && [ -z \"\$(comm -23 rows.txt texts.txt)\" ]"
expect "the exec rows: filename=… pid=N old_pid=N" grep -Eq '^ +[0-9.]+%  filename=/[^ ]+ pid=[0-9]+ old_pid=[0-9]+$' def.txt
expect "each event's shares add up to 100 %" \
	awk '/^# Samples/ { if (n) { if (s < 99.9 || s > 100.1) bad = 1 } s = 0; n++ } /%  / { s += $1 } END { if (s < 99.9 || s > 100.1) bad = 1; exit bad }' def.txt
w=$(awk '/^# Overhead  Trace output/ { print length($0) - 12; exit }' def.txt)
long=$(grep -m1 -B0 '^# Samples' -A20 def.txt | awk 'NR > 1 && /%  / { l = length($0) - 12; if (l > m) m = l } /^# Samples/ && NR > 1 { exit } END { print m }')
expect "two samples or more: the column as wide as its longest text ($w, $long)" test "$w" = "$long"
"$PERFKIT" report --stdio -n --sort comm,trace -i tp.data >ct.txt 2>/dev/null
expect "--sort comm,trace: Command and Trace output columns" grep -q '^# Overhead       Samples  Command  Trace output' ct.txt
# one sample: perf's width is its title's, the text cut to it
"$PERFKIT" record -e sched:sched_process_exec -o one.data -- /bin/true >/dev/null 2>&1
"$PERFKIT" report --stdio -i one.data >one.txt 2>/dev/null
expect "one sample: the text cut to 'Trace output''s 12 characters" \
	grep -Eq '^   100\.00%  filename=/[a-z]{2}$' one.txt
# a file with other events keeps comm,dso,sym; --sort trace: N/A for those
"$PERFKIT" record -e sched:sched_process_exec,task-clock -o mixed.data -- sh -c '/bin/true; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' >/dev/null 2>&1
"$PERFKIT" report --stdio -i mixed.data >mix.txt 2>/dev/null
expect "a file with other events too: comm,dso,sym by default" grep -q '^# Overhead  Command' mix.txt
"$PERFKIT" report --stdio --sort trace -i mixed.data >mixt.txt 2>/dev/null
expect "--sort trace: another event's samples are one N/A row" grep -Eq '^ +100\.00%  N/A$' mixt.txt
# -C on a file whose task-clock samples carry no CPU (the tracepoint's
# do): refused, as perf's perf_session__cpu_bitmap refuses it
"$PERFKIT" report --stdio -C 0 -i mixed.data >/dev/null 2>c.err; rc=$?
expect "-C with an event of no CPU: refused, the event named ($rc)" \
	sh -c "[ $rc -eq 1 ] && grep -q 'the samples of task-clock have no CPU' c.err"
# -g asked of a file without call chains: perf's "Selected -g ... But no
# callchain" (-g none and -G are taken)
"$PERFKIT" report --stdio -g caller -i mixed.data >/dev/null 2>g.err; rc=$?
expect "-g caller on a file without call chains: refused ($rc)" \
	sh -c "[ $rc -eq 1 ] && grep -q -- '-g given but the samples have no call chains' g.err"
"$PERFKIT" report --stdio -G -i mixed.data >/dev/null 2>&1 && "$PERFKIT" report --stdio -g none -i mixed.data >/dev/null 2>&1
expect "-G or -g none on it: taken" test $? -eq 0
# the browser: the same rows, 's' to the key from comm,dso,sym
if have tmux; then
	tui_start 160 30 "'$PERFKIT' report -i mixed.data"
	expect "browser: opens on comm,dso,sym" tui_wait "Shared Object"
	tui_keys s C-u trace Enter
	expect "browser: 's trace' reads the texts in (the rows had none)" tui_wait "Trace output"
	expect "… a tracepoint's fields as a row" tui_wait "filename="
	tui_keys q q
	_tm kill-server 2>/dev/null
else
	skip "tmux not installed: the browser"
fi
if have perf; then
	# perf's own recording, with call graphs (Children), and perfkit's
	perf record -g -e sched:sched_switch,sched:sched_process_exec -o pg.data -- \
		sh -c '/bin/true; sleep 0.01; cat /etc/hostname >/dev/null' >/dev/null 2>&1
	# pg.data's Children rows of equal share with call graphs come in an
	# order of their own (README): its tables without them.  A chain as
	# long as the kernel's limit (garbage frame pointers in sh, seen once
	# in CI) ends in perfkit's "[truncated]" frame, none of perf's (README)
	for f in tp.data one.data mixed.data pg.data; do
		for o in "" "--no-children" "-n --sort comm,trace" "--sort trace" "-g none" "-F overhead,trace,comm"; do
			[ "$f" = pg.data ] && [ "$o" != "--no-children" ] && o="$o -g none"
			# shellcheck disable=SC2086
			perf report --stdio $o -i "$f" 2>/dev/null | grep -v '^# (Tip\|^$\|^#$' >pf.txt
			# shellcheck disable=SC2086
			"$PERFKIT" report --stdio $o -i "$f" 2>/dev/null | grep -v '^$\|^#$' |
				grep -v '^[ |]*\(---\)\?\[truncated\]$' >pk.txt
			expect "$f ${o:-(default)}: perf report's text" cmp -s pf.txt pk.txt
			diff pf.txt pk.txt | head -4 | sed 's/^/# /'
		done
	done
else
	skip "perf not installed: the comparison with perf report"
fi
done_testing
