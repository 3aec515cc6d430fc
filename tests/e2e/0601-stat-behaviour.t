#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit stat: <not supported> on a machine without a PMU (with the reading
# explaining why), derived metrics where there is one; exit status; -o; errors.
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi

"$PERFKIT" stat -- sh -c 'exit 0' 2>"$T/def"
expect "default set lists task-clock" grep -q 'msec task-clock' "$T/def"
for e in context-switches cpu-migrations page-faults cycles instructions branches branch-misses cache-references cache-misses; do
	expect "default set lists $e" grep -Eq " $e( |$)" "$T/def"
done
if perf stat -x, -e cycles true 2>&1 | grep -q '<not supported>'; then
	expect "cycles shows <not supported>, never 0" grep -Eq '^ +<not supported> +cycles' "$T/def"
	expect_fail "no hardware counter printed as 0" grep -Eq '^ +0 +(cycles|instructions) ' "$T/def"
	expect "the reading says counters are unavailable here" grep -q 'not supported on this machine' "$T/def"
	expect "the reading names the VM/PMU cause" grep -q 'PMU' "$T/def"
	expect "the reading says where to look next (perfkit cache when CPU-bound, else what it waits for; a longer run when under 10 ms)" \
		grep -q 'perfkit cache\|what it waits for\|count task-clock\|measure a longer run' "$T/def"
else
	expect "a PMU: insn per cycle shown" grep -q 'insn per cycle' "$T/def"
	expect "a PMU: GHz shown" grep -q 'GHz' "$T/def"
	expect "a PMU: the reading states an IPC threshold" grep -Eq 'IPC [0-9.]+ is' "$T/def"
fi

# the command's stdout stays clean, its exit status is perfkit's
out=$("$PERFKIT" stat -e task-clock -- sh -c 'echo hello; exit 3' 2>"$T/err"); rc=$?
expect "command's stdout untouched" test "$out" = hello
expect "exit status is the command's (3)" test $rc -eq 3
expect "counts go to stderr" grep -q 'task-clock' "$T/err"

# -o FILE
"$PERFKIT" stat -o "$T/o.txt" -e task-clock,page-faults -- true 2>"$T/err2"
expect "-o writes the counts to the file" grep -q 'page-faults' "$T/o.txt"
expect "-o leaves stderr empty" test ! -s "$T/err2"
expect "-o leaves no temp file" test "$(ls "$T" | grep -c tmp)" -eq 0

echo precious >"$T/real"; ln -s real "$T/link"
(umask 022 && "$PERFKIT" stat -o "$T/mode.txt" -e task-clock -- true 2>/dev/null)
mode=$(stat -c %a "$T/mode.txt" 2>/dev/null)
expect "-o: a new file gets 0666 less the umask, as perf stat's ($mode)" test "$mode" = 644
"$PERFKIT" stat -o "$T/link" -e task-clock -- true 2>"$T/err3"; rc=$?
expect "-o a symlink to a file: refused, exit 1 ($rc)" test $rc -eq 1
expect "... with one line naming the link" grep -q "link' is a symbolic link" "$T/err3"
expect "... link and file untouched" test -L "$T/link" -a "$(cat "$T/real")" = precious
out=$("$PERFKIT" stat -o /dev/stdout -e task-clock -- true 2>/dev/null)
expect "-o /dev/stdout writes to stdout" grep -q task-clock <<<"$out"
expect "-o /dev/stdout leaves the device link alone" test -L /dev/stdout -o -c /dev/stdout
"$PERFKIT" stat -o /dev/stdout -e task-clock -- true >"$T/so.txt" 2>/dev/null
expect "-o /dev/stdout with stdout on a file: written there" grep -q task-clock "$T/so.txt"

# errors: one clear line, usage exit 2 / runtime exit 1 or 127
"$PERFKIT" stat -e nosuchevent true 2>"$T/e1"; rc=$?
expect "unknown event → exit 2" test $rc -eq 2
expect "unknown event named" grep -q "unknown event 'nosuchevent'" "$T/e1"
"$PERFKIT" stat -- /nonexistent/cmd 2>"$T/e2"; rc=$?
expect "missing command → non-zero exit" test $rc -ne 0
expect "missing command named" grep -q "cannot run '/nonexistent/cmd'" "$T/e2"
# no command and no target: system-wide until Ctrl-C, as perf stat
# (the signal once its counters are open, so after its handler is set:
# a fixed delay missed it twice under ASan in CI's loaded lanes)
"$PERFKIT" stat -e task-clock >"$T/sw" 2>&1 &
sw_pid=$!
wait_until 60 sh -c "ls -l /proc/$sw_pid/fd 2>/dev/null | grep -q perf_event" ||
	diag "stat: no counter open after 60 s"
sleep 0.3
kill -INT "$sw_pid"
wait "$sw_pid"; rc=$?
expect "no command → system-wide, as perf" grep -q "Performance counter stats for 'system wide'" "$T/sw"
# then dies of the signal once the counts are out, as perf's sig_atexit:
# the shell sees 128 + 2 (a script's Ctrl-C stops the script)
expect "no command, Ctrl-C: the counts, then exit 130 ($rc)" \
	sh -c "[ $rc -eq 130 ] && grep -q 'seconds time elapsed' '$T/sw'"
timeout --preserve-status -s TERM 1 "$PERFKIT" stat -a -e task-clock >"$T/swt" 2>&1; rc=$?
expect "-a, SIGTERM: the counts, then exit 143 ($rc)" \
	sh -c "[ $rc -eq 143 ] && grep -q 'seconds time elapsed' '$T/swt'"
"$PERFKIT" stat -e task-clock -- sleep 0.5 2>"$T/swc" & p=$!
sleep 0.2
kill -INT $p
wait $p; rc=$?
expect "a command, SIGINT to perfkit alone: the command ends, its exit status ($rc)" \
	sh -c "[ $rc -eq 0 ] && grep -q 'seconds time elapsed' '$T/swc'"
"$PERFKIT" stat -q 2>"$T/bad"; rc=$?
expect "a bad option → exit 2, two lines, not the whole help ($(wc -l <"$T/bad"))" \
	test $rc -eq 2 -a "$(wc -l <"$T/bad")" = 2
"$PERFKIT" stat -e task-clock, -- true 2>"$T/comma"; rc=$?
expect "-e with a trailing comma → exit 2, as perf's syntax error" \
	sh -c "[ $rc -eq 2 ] && grep -q 'empty event name' '$T/comma'"
"$PERFKIT" stat -r -1 true 2>/dev/null; rc=$?
expect "-r -1 → exit 2" test $rc -eq 2

# generic hardware cache events (PERF_TYPE_HW_CACHE), compared with perf
cev=L1-dcache-load-misses,LLC-stores,dTLB-loads,l1d-read-miss
"$PERFKIT" stat -e "$cev" -- true 2>"$T/hc"; rc=$?
expect "cache events are accepted (exit $rc)" test $rc -eq 0
"$PERFKIT" stat -x, -e "$cev" -- true 2>"$T/hc.csv"
have_perf=false
have perf && perf stat -e task-clock true 2>/dev/null && have_perf=true
if $have_perf; then
	perf stat -x, -e "$cev" -- true 2>"$T/hc.perf"
	cut -d, -f1,3 "$T/hc.perf" | sed 's/^[0-9][0-9]*,/N,/' >"$T/hc.perf.13"
	cut -d, -f1,3 "$T/hc.csv" | sed 's/^[0-9][0-9]*,/N,/' >"$T/hc.pk.13"
	diag "perf: $(tr '\n' ' ' <"$T/hc.perf.13")"
	same_file "cache events: value/state and name columns as perf -x, prints them" "$T/hc.perf.13" "$T/hc.pk.13"
else
	skip "no working perf to compare cache events with"
fi
if grep -q '^<not supported>,,L1-dcache-load-misses' "$T/hc.csv"; then
	expect "no PMU: L1-dcache-load-misses is <not supported>" \
		grep -Eq '^ +<not supported> +L1-dcache-load-misses +$' "$T/hc"
else
	expect "a PMU: L1-dcache-load-misses is counted" grep -Eq '^ +[0-9]+ +L1-dcache-load-misses' "$T/hc"
fi
"$PERFKIT" stat -e iTLB-stores true 2>"$T/e3"; rc=$?
expect "a cache op perf refuses (iTLB stores) → exit 2 ($rc)" test $rc -eq 2
expect "... saying the cache has no such op" grep -q "iTLB cache has no stores" "$T/e3"

# tracepoints: counted on a command, the same count as perf's
"$PERFKIT" stat -e sched:sched_process_fork -- true 2>/dev/null
if [ -d /sys/kernel/tracing/events/sched ] || [ -d /sys/kernel/debug/tracing/events/sched ]; then
	fork_cmd=(sh -c 'true & true & wait')
	"$PERFKIT" stat -x, -e sched:sched_process_fork -- "${fork_cmd[@]}" 2>"$T/tp.csv"
	"$PERFKIT" stat -e sched:sched_process_fork -- "${fork_cmd[@]}" 2>"$T/tp"
	got=$(awk -F, '$3 == "sched:sched_process_fork" { print $1 }' "$T/tp.csv")
	if $have_perf; then
		perf stat -x, -e sched:sched_process_fork -- "${fork_cmd[@]}" 2>"$T/tp.perf"
		want=$(awk -F, '$3 == "sched:sched_process_fork" { print $1 }' "$T/tp.perf")
		diag "sched_process_fork on sh -c 'true & true & wait': perf $want, perfkit $got"
		expect "perf counts 2 forks (two background jobs) ($want)" test "$want" = 2
		expect "perfkit counts the forks as perf does ($got = $want)" test -n "$got" -a "$got" = "$want"
	else
		expect "perfkit counts 2 forks (two background jobs) ($got)" test "$got" = 2
	fi
	expect "... printed under perf's name" grep -Eq '^ +2 +sched:sched_process_fork( |$)' "$T/tp"
	"$PERFKIT" stat -e task-clock,sched:sched_switch -a -- sleep 0.2 2>"$T/tpa"
	n=$(awk '$2 == "sched:sched_switch" { print $1 }' "$T/tpa" | tr -d ,)
	expect "-a counts sched:sched_switch system-wide ($n > 0)" test "${n:-0}" -gt 0
	expect "... with a rate metric as perf" grep -Eq 'sched:sched_switch +# +[0-9.]+ [KMG]?/sec' "$T/tpa"
	"$PERFKIT" stat -e sched:no_such_tracepoint true 2>"$T/e4"; rc=$?
	expect "unknown tracepoint → exit 2 ($rc)" test $rc -eq 2
	expect "... named, with where it was looked for" grep -q "unknown tracepoint 'sched:no_such_tracepoint' (no /sys/kernel/.*tracing/events/sched/no_such_tracepoint/id" "$T/e4"
	# (record's side of the same parser: an unknown tracepoint, one line, no file;
	# recording tracepoints is tested in 0107-record-tracepoint.t)
	"$PERFKIT" record -e sched:no_such_tracepoint -o "$T/tp.data" -- true 2>"$T/e6"; rc=$?
	expect "record: unknown tracepoint → exit 2 ($rc)" test $rc -eq 2
	expect "... named" grep -q "unknown tracepoint 'sched:no_such_tracepoint'" "$T/e6"
	expect "... and writes no file" test ! -e "$T/tp.data"
else
	skip "tracefs not available (not mounted and cannot be mounted)"
fi
"$PERFKIT" stat -e nosuch:u true 2>"$T/e5"; rc=$?
expect "unknown event with modifiers → exit 2, named ($rc)" test $rc -eq 2
expect "... as unknown event 'nosuch'" grep -q "unknown event 'nosuch'" "$T/e5"

# -d, -dd, -ddd: perf's detailed events after the defaults, in perf's order
"$PERFKIT" stat -ddd -x, -- true 2>&1 | cut -d, -f3 | grep -v '^cache-' | tr '\n' ' ' >"$T/ddd"
want="task-clock context-switches cpu-migrations page-faults cycles instructions branches branch-misses "
want+="L1-dcache-loads L1-dcache-load-misses LLC-loads LLC-load-misses L1-icache-loads L1-icache-load-misses "
want+="dTLB-loads dTLB-load-misses iTLB-loads iTLB-load-misses L1-dcache-prefetches L1-dcache-prefetch-misses "
expect "-ddd: perf stat's detailed events ($(cat "$T/ddd"))" test "$(cat "$T/ddd")" = "$want"
n=$("$PERFKIT" stat -d -x, -- true 2>&1 | grep -c 'L1-dcache-loads\|LLC-load-misses\|dTLB')
expect "-d: L1-dcache and LLC only ($n of the 3 names)" test "$n" = 2

# groups and -p / -I
"$PERFKIT" stat -e '{task-clock,page-faults}' -- true 2>"$T/g"
expect "a {group} of software events counts both" grep -Eq '^ +[0-9]+ +page-faults' "$T/g"
sleep 1.5 & pid=$!	# long enough for stat to attach on a loaded machine
"$PERFKIT" stat -p $pid -e task-clock,context-switches 2>"$T/p"
expect "-p counts until the process exits" grep -q "process id '$pid'" "$T/p"
# -p counts the children the process forks after stat attached, as perf
# stat -p (inherit): 100 runs of true fault in thousands of pages, the
# shell's loop itself in none
sh -c 'sleep 0.5; i=0; while [ $i -lt 100 ]; do true; /bin/true; i=$((i + 1)); done' & pid=$!
"$PERFKIT" stat -p $pid -e page-faults 2>"$T/pc"
pf=$(awk '$2 == "page-faults" { gsub(/,/, "", $1); print $1 }' "$T/pc")
expect "-p: the children forked after attaching count ($pf page faults)" test "${pf:-0}" -gt 1000
"$PERFKIT" stat -I 100 -e task-clock -- sleep 0.55 2>"$T/i"
n=$(grep -c 'task-clock' "$T/i")
diag "-I 100 over 0.55 s: $n lines"
# 5 or 6 on an idle machine; a loaded one (the sanitizer pass beside other
# work, CPU hogs) may wake late or start sleep late: between 2 and 12 still
# tells an interval of about 100 ms from none (1 line) or a wrong unit (55)
expect "-I 100 prints an interval line about every 100 ms ($n over 0.55 s)" test "$n" -ge 2 -a "$n" -le 12
"$PERFKIT" stat -I 5000 -e task-clock -- sleep 0.2 2>"$T/i2"
expect "-I longer than the run: the last, partial interval is printed (as perf)" \
	test "$(grep -c 'task-clock' "$T/i2")" = 1
# perf stat's run options
"$PERFKIT" stat -n -- true 2>"$T/n"
expect "-n: no counter lines" sh -c "! grep -Eq 'task-clock|page-faults' '$T/n'"
expect "-n: the elapsed time right after the header, as perf" \
	sh -c "grep -A2 'Performance counter stats' '$T/n' | sed -n 3p | grep -q 'seconds time elapsed'"
"$PERFKIT" stat -n -e task-clock -- true 2>"$T/ne"; rc=$?
expect "-n with -e: the events asked are counted, as perf ($rc)" sh -c "[ $rc -eq 0 ] && grep -q 'msec task-clock' '$T/ne'"
"$PERFKIT" stat -n -d -- true 2>"$T/nd"; rc=$?
expect "-n with -d: times only, as perf ($rc)" sh -c "[ $rc -eq 0 ] && ! grep -q 'L1-dcache' '$T/nd'"
"$PERFKIT" stat -p 1,,2 -- true 2>/dev/null; rc=$?
expect "-p with an empty id: usage error ($rc)" test $rc -eq 2
"$PERFKIT" stat -o '' -- true 2>/dev/null; rc=$?
expect "-o '': usage error before running ($rc)" test $rc -eq 2
"$PERFKIT" stat --quiet -I 100 --interval-count 1 -e task-clock -- sleep 0.3 2>"$T/qi"
expect "--quiet with -I: nothing printed, the header neither" test ! -s "$T/qi"
"$PERFKIT" stat --pre "echo pre >>'$T/hooks'" --post "echo post >>'$T/hooks'" -r 2 -e task-clock \
	-- sh -c "echo run >>'$T/hooks'" 2>/dev/null
expect "--pre and --post run around each run ($(tr '\n' ' ' <"$T/hooks"))" \
	test "$(tr '\n' ' ' <"$T/hooks")" = "pre run post pre run post "
"$PERFKIT" stat --pre false -e task-clock -- true 2>"$T/pre"; rc=$?
expect "--pre failing: stat stops, exit 1 ($rc)" test $rc -eq 1
expect "... named" grep -q "pre command 'false' failed" "$T/pre"
start=$(date +%s%N)
"$PERFKIT" stat --timeout 200 -e task-clock -- sleep 5 2>"$T/to"; rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
expect "--timeout 200 stops the command, counts printed, exit 0 ($rc, $ms ms)" \
	sh -c "[ $rc -eq 0 ] && [ $ms -lt 4000 ] && grep -q task-clock '$T/to'"
expect "... and says so, as perf ('sleep: Terminated')" grep -q '^sleep: Terminated$' "$T/to"
"$PERFKIT" stat -I 100 --interval-count 2 -e task-clock -- sleep 5 2>"$T/ic"; rc=$?
expect "--interval-count 2: two intervals, then the command stopped ($rc)" \
	sh -c "[ $rc -eq 0 ] && [ \$(grep -c task-clock '$T/ic') -eq 2 ]"
"$PERFKIT" stat --interval-count 2 -- true 2>/dev/null; rc=$?
expect "--interval-count without -I: usage error ($rc)" test $rc -eq 2
rm -f "$T/ap"
"$PERFKIT" stat -e task-clock -o "$T/ap" -- true
"$PERFKIT" stat -e task-clock -o "$T/ap" --append -x, -- true
expect "-o starts with perf's '# started on' line" sh -c "head -1 '$T/ap' | grep -q '^# started on '"
expect "--append keeps the first run and adds the second" \
	sh -c "[ \$(grep -c '^# started on' '$T/ap') -eq 2 ] && grep -q 'seconds time elapsed' '$T/ap' && grep -q '^[0-9.]*,msec,task-clock,' '$T/ap'"
"$PERFKIT" stat --quiet -e task-clock -- sh -c 'exit 3' 2>"$T/q"; rc=$?
expect "--quiet prints nothing and keeps the exit status ($rc)" sh -c "[ $rc -eq 3 ] && [ ! -s '$T/q' ]"
loop='i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done'
inh=$("$PERFKIT" stat -x, -e task-clock -- sh -c "sh -c '$loop'" 2>&1 | cut -d, -f1)
noinh=$("$PERFKIT" stat -i -x, -e task-clock -- sh -c "sh -c '$loop'" 2>&1 | cut -d, -f1)
expect "-i: the child's loop not counted ($noinh ms against $inh)" awk -v a="$noinh" -v b="$inh" 'BEGIN { exit !(a * 3 < b) }'
sleep 1 & p1=$!; sleep 1 & p2=$!
"$PERFKIT" stat -p "$p1,$p2" -e task-clock 2>"$T/pl"
expect "-p with a list: both, named as perf names them" grep -q "process id '$p1,$p2'" "$T/pl"
sleep 1 & p1=$!
"$PERFKIT" stat -p "$p1" -a -e task-clock --timeout 100 2>"$T/pa"; rc=$?
expect "-p with -a: the process wins, with perf's warning ($rc)" \
	sh -c "[ $rc -eq 0 ] && grep -q 'PID/TID switch overriding SYSTEM' '$T/pa' && grep -q \"process id '$p1'\" '$T/pa'"
"$PERFKIT" stat -p "$p1" -C 0 -e task-clock --timeout 100 2>"$T/pc"; rc=$?
expect "-p with -C: the process wins, overriding CPU ($rc)" \
	sh -c "[ $rc -eq 0 ] && grep -q 'PID/TID switch overriding CPU' '$T/pc' && grep -q \"process id '$p1'\" '$T/pc'"
sleep 1.5 & p1=$!
"$PERFKIT" stat -t "$p1" -e task-clock --timeout 300 2>"$T/tl"; rc=$?
expect "-t TID: thread id in the header ($rc)" sh -c "[ $rc -eq 0 ] && grep -q \"thread id '$p1'\" '$T/tl'"

# perf's event syntax: a group's modifiers, PMU/terms/
"$PERFKIT" stat -x, -e '{task-clock,page-faults}:u' -- true 2>"$T/gm"; rc=$?
expect "{a,b}:u: both counted ($rc)" sh -c "[ $rc -eq 0 ] && grep -q ',task-clock,' '$T/gm' && grep -q ',page-faults,' '$T/gm'"
if [ -r /sys/bus/event_source/devices/msr/events/tsc ]; then
	"$PERFKIT" stat -x, -e msr/tsc/,task-clock -- true 2>"$T/pmu"; rc=$?
	expect "-e msr/tsc/: the msr PMU's tsc counted ($rc)" sh -c "[ $rc -eq 0 ] && grep -Eq '^[0-9]+,,msr/tsc/,' '$T/pmu'"
else
	skip "no msr PMU here for -e PMU/terms/"
fi
"$PERFKIT" stat -e nopmu/event=0x3c,umask=0x1/ -- true 2>"$T/nopmu"; rc=$?
expect "-e with a PMU this machine lacks: exit 2, named ($rc)" sh -c "[ $rc -eq 2 ] && grep -q \"no PMU 'nopmu'\" '$T/nopmu'"

# a command killed by a signal: named first, as perf's psignal line
"$PERFKIT" stat -e task-clock -- sh -c 'kill -SEGV $$' 2>"$T/sig"; rc=$?
expect "killed by SIGSEGV: exit 139, 'sh: Segmentation fault' said ($rc)" \
	sh -c "[ $rc -eq 139 ] && grep -q '^sh: Segmentation fault$' '$T/sig'"

# -C LIST and -A: system-wide on some CPUs, each CPU apart (perf's layout)
"$PERFKIT" stat -C 0 -e task-clock -- sleep 0.05 2>"$T/c0"; rc=$?
expect "-C 0: counted, headed 'CPU(s) 0' ($rc)" sh -c "[ $rc -eq 0 ] && grep -q \"stats for 'CPU(s) 0'\" '$T/c0' && grep -q 'msec task-clock' '$T/c0'"
"$PERFKIT" stat -C 0 -A -e task-clock,page-faults -- sleep 0.05 2>"$T/ca"
expect "-C 0 -A: each event's line starts with CPU0, in 11 columns" \
	sh -c "[ \$(grep -c '^CPU0        *[0-9.]* .*\(task-clock\|page-faults\)' '$T/ca') -eq 2 ]"
"$PERFKIT" stat -a -A -x, -e task-clock -- sleep 0.05 2>"$T/cax"
n=$(grep -c '^CPU[0-9]*,[0-9.]*,msec,task-clock,' "$T/cax")
expect "-a -A -x,: a CSV line per online CPU ($n of $(getconf _NPROCESSORS_ONLN))" test "$n" -eq "$(getconf _NPROCESSORS_ONLN)"
"$PERFKIT" stat -a -A -j -e task-clock -- sleep 0.05 2>"$T/caj"
expect "-a -A -j: perf's \"cpu\" member first" grep -q '^{"cpu" : "0", "counter-value" : ' "$T/caj"
# -I with -A: each interval's lines per CPU, event by event, perf's heads;
# the intervals are the whole output
ncpu_on=$(getconf _NPROCESSORS_ONLN)
"$PERFKIT" stat -a -A -I 100 -x, -e cpu-clock,context-switches -- sleep 0.25 2>"$T/cai"; rc=$?
first=$(head -1 "$T/cai" | cut -d, -f1)
expect "-a -A -I 100 -x,: the first interval, a line per CPU and event, CPU by CPU within each event ($rc)" \
	sh -c "[ $rc -eq 0 ] && [ \"\$(grep '^ *$first,' '$T/cai' | cut -d, -f2,5 | paste -sd' ')\" = \"\$(for e in cpu-clock context-switches; do for c in \$(seq 0 $((ncpu_on - 1))); do printf 'CPU%s,%s ' \$c \$e; done; done | sed 's/ \$//')\" ]"
expect "-a -A -I: no table after the intervals" sh -c "! grep -q '^CPU' '$T/cai'"
"$PERFKIT" stat -a -A -I 100 -e cpu-clock -- sleep 0.15 2>"$T/cait"
expect "-a -A -I text: perf's header and 'TIME CPU0' heads" \
	sh -c "head -1 '$T/cait' | grep -q '^#           time CPU                    counts unit events' && grep -Eq '^ +[0-9]+\.[0-9]{9} CPU0 +[0-9.]+ msec cpu-clock' '$T/cait'"
"$PERFKIT" stat -a -A -I 100 -j -e cpu-clock -- sleep 0.15 2>"$T/caij"
expect "-a -A -I -j: \"interval\" then \"cpu\" first" grep -q '^{"interval" : [0-9.]*, "cpu" : "0", "counter-value" : ' "$T/caij"
"$PERFKIT" stat -A -- true 2>/dev/null; rc=$?
expect "-A without -a or -C: usage error ($rc)" test $rc -eq 2
"$PERFKIT" stat -C 100000 -- true 2>"$T/cbad"; rc=$?
expect "-C with a CPU this machine lacks: usage error, named ($rc)" sh -c "[ $rc -eq 2 ] && grep -q 'CPU 100000 does not exist' '$T/cbad'"

# -B, perf's default: the locale's thousands separator in the table (a
# locale made here: POSIX's, with en_US's "1,234" numbers)
printf '%s\n' 'LC_CTYPE' 'copy "POSIX"' 'END LC_CTYPE' 'LC_NUMERIC' 'decimal_point "<U002E>"' \
	'thousands_sep "<U002C>"' 'grouping 3' 'END LC_NUMERIC' 'LC_COLLATE' 'copy "POSIX"' 'END LC_COLLATE' \
	'LC_MONETARY' 'copy "POSIX"' 'END LC_MONETARY' 'LC_TIME' 'copy "POSIX"' 'END LC_TIME' \
	'LC_MESSAGES' 'copy "POSIX"' 'END LC_MESSAGES' >"$T/grp.def"
mkdir -p "$T/loc"
localedef -c -i "$T/grp.def" -f ANSI_X3.4-1968 "$T/loc/grp" >/dev/null 2>&1
if [ -d "$T/loc/grp" ] && LOCPATH="$T/loc" LC_ALL=grp locale -k thousands_sep 2>/dev/null | grep -q ','; then
	big='i=0; while [ $i -lt 100 ]; do /bin/true; i=$((i + 1)); done'
	LOCPATH="$T/loc" LC_ALL=grp "$PERFKIT" stat -e page-faults -- sh -c "$big" 2>"$T/bn"
	expect "a locale grouping by 3 with ',': page faults printed 1,234-style ($(grep page-faults "$T/bn" | awk '{print $1}'))" \
		grep -Eq '^ +[0-9]{1,3}(,[0-9]{3})+ +page-faults' "$T/bn"
	LOCPATH="$T/loc" LC_ALL=grp "$PERFKIT" stat --no-big-num -e page-faults -- sh -c "$big" 2>"$T/nbn"
	expect "--no-big-num: plain digits" grep -Eq '^ +[0-9]{4,} +page-faults' "$T/nbn"
	LOCPATH="$T/loc" LC_ALL=grp "$PERFKIT" stat -x, -e page-faults -- sh -c "$big" 2>"$T/xbn"
	expect "-x,: plain digits (CSV)" grep -Eq '^[0-9]{4,},,page-faults,' "$T/xbn"
else
	skip "localedef cannot make a locale here (the locales package's sources)"
fi

"$PERFKIT" stat -x, -B -e page-faults -- true 2>"$T/xb"; rc=$?
expect "-x, -B: refused as perf refuses it ($rc)" \
	sh -c "[ $rc -eq 2 ] && grep -q -- '-B option not supported with -x' '$T/xb'"
"$PERFKIT" stat -x, -B --no-big-num -e page-faults -- true 2>/dev/null; rc=$?
expect "-x, -B --no-big-num: the last wins, accepted ($rc)" test $rc -eq 0

# -r 0: perf's "forever": one run after another, each its own table
# (no user/sys lines, no spread), until Ctrl-C; the run it cuts not shown
"$PERFKIT" stat -r 0 -x, -e task-clock -- sleep 0.05 2>"$T/r0x" & p=$!
"$PERFKIT" stat -r 0 -e task-clock -- sleep 0.05 2>"$T/r0" & p2=$!
sleep 0.6
kill -INT $p $p2
wait $p; rc=$?
wait $p2; rc2=$?
n=$(grep -c 'Performance counter stats for' "$T/r0")
expect "-r 0: a table per run until SIGINT, then its death (130, as perf's; $n tables, rc $rc2)" \
	sh -c "[ $rc2 -eq 130 ] && [ $n -ge 2 ]"
expect "-r 0: each table its own run's, no spread, no user/sys lines" \
	sh -c "[ \$(grep -c 'seconds time elapsed' '$T/r0') -eq $n ] && ! grep -q -e '+-' -e 'seconds user' -e 'runs)' '$T/r0'"
expect "-r 0 -x,: a CSV line per run ($(grep -c ',task-clock,' "$T/r0x"), rc $rc)" \
	sh -c "[ $rc -eq 130 ] && [ \$(grep -c ',task-clock,' '$T/r0x') -ge 2 ]"
# Ctrl-C as a terminal sends it: to the whole process group, the command
# dies of it; perf says nothing of the command's signal in -r 0's end
if have setsid; then
	setsid sh -c 'echo $$ >"$1.pg"; exec "$2" stat -r 0 -e task-clock -- sleep 0.1 2>"$1"' - "$T/r0g" "$PERFKIT" & sp=$!
	sleep 0.5
	kill -INT -- -"$(cat "$T/r0g.pg")" 2>/dev/null
	wait $sp
	expect "-r 0, Ctrl-C to the process group: tables, no 'sleep: Interrupt' line" \
		sh -c "grep -q 'Performance counter stats' '$T/r0g' && ! grep -q 'Interrupt' '$T/r0g'"
fi
"$PERFKIT" stat -r 0 -a 2>/dev/null
expect "-r 0 with -a and no command: refused as -r N is (2)" test $? -eq 2
# -r N with -a and a command: the runs averaged, as perf
"$PERFKIT" stat -a -r 3 -e cpu-clock -- sleep 0.02 2>"$T/ar"; rc=$?
expect "-a -r 3: perf's header and spreads ($rc)" \
	sh -c "[ $rc -eq 0 ] && grep -q \"for 'system wide' (3 runs):\" '$T/ar' && grep -q 'seconds time elapsed  ( +-' '$T/ar'"
"$PERFKIT" stat -a -r 3 -x, -e cpu-clock -- sleep 0.02 2>"$T/arx"
expect "-a -r 3 -x,: the variance column" grep -Eq '^[0-9.]+,msec,cpu-clock,[0-9.]+%,' "$T/arx"
"$PERFKIT" stat -a -A -r 2 -e cpu-clock -- true 2>/dev/null
expect "-a -A -r 2: refused (2)" test $? -eq 2

# --per-socket, --per-die, --per-core, --per-node: the CPUs' counts summed
# by their sysfs topology, perf's labels and the number of CPUs summed.
# A made-up topology for CPU 0 (every machine has one): socket 1, die 2,
# core 7, node 3
tp=$T/topo/cpu0
mkdir -p "$tp/topology" "$tp/node3"
echo 1 >"$tp/topology/physical_package_id"; echo 2 >"$tp/topology/die_id"; echo 7 >"$tp/topology/core_id"
for m in socket:S1 die:S1-D2 core:S1-D2-C7 node:N3; do
	PERFKIT_SYSFS_CPU=$T/topo "$PERFKIT" stat -C 0 --per-${m%%:*} -x, -e task-clock,context-switches -- true \
		2>"$T/per.csv"; rc=$?
	expect "--per-${m%%:*} -C 0 on a made-up topology: '${m#*:},1,' heads each line ($rc)" \
		sh -c "[ $rc -eq 0 ] && [ \$(grep -c '^${m#*:},1,[0-9.]*,.*,\(task-clock\|context-switches\),' '$T/per.csv') -eq 2 ]"
done
PERFKIT_SYSFS_CPU=$T/topo "$PERFKIT" stat -C 0 --per-core -e task-clock -- true 2>"$T/per.txt"
expect "--per-core text: perf's columns ('S1-D2-C7' padded, the count of CPUs on 4)" \
	grep -Eq '^S1-D2-C7 {11}1 [ 0-9.]{18} msec task-clock' "$T/per.txt"
PERFKIT_SYSFS_CPU=$T/topo "$PERFKIT" stat -C 0 --per-socket -j -e task-clock -- true 2>"$T/per.json"
expect "--per-socket JSON: \"socket\" and \"aggregate-number\" first" \
	grep -q '^{"socket" : "S1", "aggregate-number" : 1, "counter-value" : ' "$T/per.json"
# -I with --per-*: each interval's counts by group, the time then the
# group's label heading each line, perf's header naming the aggregation
PERFKIT_SYSFS_CPU=$T/topo "$PERFKIT" stat -C 0 -I 100 --per-core -e task-clock,context-switches -- sleep 0.25 \
	2>"$T/peri.txt"; rc=$?
expect "-I 100 --per-core: perf's header ($(head -1 "$T/peri.txt"))" \
	sh -c "[ $rc -eq 0 ] && head -1 '$T/peri.txt' | grep -qx '#           time core            cpus             counts unit events'"
expect "-I 100 --per-core: 'TIME S1-D2-C7 1' heads the first interval's lines, the group's events together" \
	sh -c "sed -n 2,3p '$T/peri.txt' | awk '{ print \$2, \$3, \$NF ~ /./ }' | sort -u | grep -qx 'S1-D2-C7 1 1' &&
	       sed -n 2p '$T/peri.txt' | grep -Eq '^ +0\.1[0-9]{8} S1-D2-C7 {11}1 [ 0-9.]{18} msec task-clock' &&
	       sed -n 3p '$T/peri.txt' | grep -q ' context-switches '"
# each interval's own counts: one CPU's task-clock over the intervals sums
# to about the time of the last (sums since the start would add up to
# twice that and more, whatever the machine's load)
expect "-I --per-core: the intervals' own counts, not sums since the start ($(grep task-clock "$T/peri.txt" | awk '{ printf "%s@%s ", $4, $1 }'))" \
	sh -c "[ \$(grep -c task-clock '$T/peri.txt') -ge 2 ] &&
	       grep task-clock '$T/peri.txt' | awk '{ s += \$4; t = \$1 } END { exit !(s < 1400 * t) }'"
for f in "-x,:^ *0\.1[0-9]*,S1,1,[0-9.]*,msec,task-clock," "-j:^{\"interval\" : 0\.1[0-9]*, \"socket\" : \"S1\", \"aggregate-number\" : 1, \"counter-value\""; do
	PERFKIT_SYSFS_CPU=$T/topo "$PERFKIT" stat -C 0 -I 100 --per-socket ${f%%:*} -e task-clock -- sleep 0.15 2>"$T/peri.out"
	expect "-I --per-socket ${f%%:*}: the time, then the group's fields" grep -q "${f#*:}" "$T/peri.out"
done
mkdir -p "$T/notopo"
PERFKIT_SYSFS_CPU=$T/notopo "$PERFKIT" stat -C 0 --per-core -e task-clock -- true 2>"$T/per.err"; rc=$?
expect "--per-core without a topology: exit 1, naming the folder ($rc)" \
	sh -c "[ $rc -eq 1 ] && grep -q 'notopo/cpu0/topology' '$T/per.err'"
"$PERFKIT" stat --per-socket -e task-clock -- true 2>"$T/per.err"; rc=$?
expect "--per-socket without -a or -C: usage error ($rc)" test $rc -eq 2
# -a's default events: cpu-clock first, as perf 6.1's system-wide default
"$PERFKIT" stat -a -x, -- true 2>"$T/adef"
expect "-a, default events: cpu-clock first ($(head -1 "$T/adef" | cut -d, -f3))" \
	sh -c "head -1 '$T/adef' | grep -q '^[0-9.]*,msec,cpu-clock,'"
if have perf && can_perf_event; then
	perf stat -a -x, -- true 2>"$T/adef.perf"
	# perfkit's defaults add the cache references and misses (the miss
	# rate the reading uses) to perf 6.1's
	if awk -F, '$3 ~ /\// { f = 1 } END { exit !f }' "$T/adef.perf"; then
		skip "perf's defaults name PMUs here (a hybrid CPU: cpu_core/cycles/)"
	else
		expect "-a, default events: perf's list, and the cache pair" \
			cmp -s <(grep -v '^$' "$T/adef.perf" | cut -d, -f3) <(cut -d, -f3 "$T/adef" | grep -v '^cache-')
	fi
fi
# this machine's topology: the groups hold every CPU once; with perf, the
# same groups (its labels and CPU counts)
ncpu=$("$PERFKIT" stat -a -A -x, -e task-clock -- true 2>&1 | grep -c '^CPU[0-9]*,')
for m in socket die core node; do
	"$PERFKIT" stat -a --per-$m -x, -e task-clock -- true 2>"$T/pk.$m"
	sum=$(awk -F, '$5 == "task-clock" { s += $2 } END { print s + 0 }' "$T/pk.$m")
	expect "--per-$m -a: the groups hold the $ncpu CPUs ($sum)" test "$sum" = "$ncpu"
	if have perf && can_perf_event; then
		perf stat -a --per-$m -x, -e task-clock -- true 2>"$T/perf.$m"
		expect "--per-$m -a: perf's groups" \
			cmp -s <(grep task-clock "$T/perf.$m" | cut -d, -f1,2) <(grep task-clock "$T/pk.$m" | cut -d, -f1,2)
		# the default events: each line's group, CPU count and event as
		# perf's (an event a CPU did not count: the count stops there,
		# perf's aggr_cb; perfkit's cache pair left out)
		perf stat -a --per-$m -x, -- true 2>"$T/perfd.$m"
		"$PERFKIT" stat -a --per-$m -x, -- true 2>"$T/pkd.$m"
		awk -F, '$5 ~ /\// { f = 1 } END { exit !f }' "$T/perfd.$m" &&
			skip "--per-$m: perf's defaults name PMUs here (hybrid)" ||
		expect "--per-$m -a, default events: perf's group, CPU count and event on each line" \
			cmp -s <(grep , "$T/perfd.$m" | awk -F, '{ print $1, $2, ($3 ~ /^</ ? $3 : "N"), $5 }') \
			       <(grep , "$T/pkd.$m" | grep -v ',cache-' | awk -F, '{ print $1, $2, ($3 ~ /^</ ? $3 : "N"), $5 }')
		# with -I: the first interval's lines as perf's, the time apart
		perf stat -a -I 100 --per-$m -x, -e task-clock,context-switches -- sleep 0.15 2>"$T/perfi.$m"
		"$PERFKIT" stat -a -I 100 --per-$m -x, -e task-clock,context-switches -- sleep 0.15 2>"$T/pki.$m"
		first() { awk -F, 'NR == 1 { t = $1 } $1 == t { print $2, $3, $6 }' "$1"; }
		expect "-I 100 --per-$m -a: the first interval's groups, CPU counts and events as perf's ($(first "$T/pki.$m" | tr '\n' ';'))" \
			cmp -s <(first "$T/perfi.$m") <(first "$T/pki.$m")
	fi
done

# duration_time, perf's tool event, is counted once, on the first CPU: -A
# prints it for that CPU alone, --per-* in the group holding it (1 CPU),
# the others "<not counted>" with 0 (test: the lines as perf's, numbers
# masked)
if have perf && can_perf_event; then
	maskn() { sed -E 's/[0-9]+\.[0-9]+/N/g; s/[0-9]{4,}/N/g; s/ +/ /g; s/[KMG]?\/sec/\/sec/'; }
	bad=
	for a in "-A" "--per-core" "--per-socket" "--per-socket -x," "-A -I 100" "--per-core -I 100"; do
		# shellcheck disable=SC2086
		perf stat -a $a -e cpu-clock,duration_time -- sleep 0.15 2>&1 | maskn >"$T/dur.perf"
		# shellcheck disable=SC2086
		"$PERFKIT" stat -a $a -e cpu-clock,duration_time -- sleep 0.15 2>&1 | maskn >"$T/dur.pk"
		cmp -s "$T/dur.perf" "$T/dur.pk" || bad="$bad [$a]"
	done
	expect "duration_time with -A and --per-*: on the first CPU only, as perf${bad:+ (differ:$bad)}" test -z "$bad"
fi

# -p of a multi-threaded process: every thread counted (a counter on the
# process id alone counts its first thread only, here the one that
# waits); --per-thread: each thread's lines, comm-TID, largest first
if have cc; then
	cat >"$T/spin2.c" <<'C'
#include <pthread.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static void *spin(void *a) { double e = now() + 8; volatile long n = 0; while (now() < e) n++; return a; }
int main(void) { pthread_t t[2]; for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, spin, 0);
	for (int i = 0; i < 2; i++) pthread_join(t[i], 0); return 0; }
C
	cc -O1 -pthread -o "$T/spin2" "$T/spin2.c"
	"$T/spin2" & sp=$!
	sleep 0.2
	"$PERFKIT" stat -p $sp -x, -e task-clock --timeout 300 2>"$T/mt"
	tc=$(awk -F, '$3 == "task-clock" { printf "%d", $1 }' "$T/mt")
	expect "-p of a process whose main thread waits: its two spinning threads counted ($tc ms in 300)" \
		test "${tc:-0}" -ge 50
	"$PERFKIT" stat -p $sp --per-thread -x, -e task-clock,context-switches --timeout 300 2>"$T/pt"; rc=$?
	tids=$(ls /proc/$sp/task | sort -n | paste -sd' ')
	got=$(awk -F, '$4 == "task-clock" { sub(/^spin2-/, "", $1); print $1 }' "$T/pt" | sort -n | paste -sd' ')
	expect "--per-thread -x,: a task-clock line per thread, spin2-TID ($got; threads $tids; rc $rc)" \
		sh -c "[ $rc -eq 0 ] && [ '$got' = '$tids' ] && [ \$(grep -c ',context-switches,' '$T/pt') -eq 3 ]"
	expect "--per-thread: largest first, the waiting main thread last" \
		sh -c "awk -F, '\$4 == \"task-clock\"' '$T/pt' | tail -1 | grep -q '^spin2-$sp,'"
	"$PERFKIT" stat -p $sp --per-thread -e task-clock --timeout 200 2>"$T/ptt"
	expect "--per-thread text: perf's '%16s-%-8d' label" grep -Eq "^ {11}spin2-$sp {1,8} +<not counted>|^ {11}spin2-$sp {1,8} +[0-9.]+ msec task-clock" "$T/ptt"
	# -I --per-thread: each interval's lines per event, its threads by
	# the interval's count, the waiting main thread ("<not counted>")
	# last; the layout perf's in text, CSV and JSON (numbers masked, each
	# interval's lines sorted: two spinning threads' order moves)
	ipt() {   # ARGS: perfkit's or perf's lines, masked
		"$@" -p $sp -I 100 --per-thread -e task-clock,context-switches --interval-count 2 2>&1 >/dev/null |
			sed -E "s/spin2-[0-9]+/spin2-TID/; s/[0-9]+\.[0-9]+|[0-9]+/N/g; s/ +/ /g" | sort
	}
	"$PERFKIT" stat -p $sp -I 100 --per-thread -e task-clock,context-switches --interval-count 2 2>"$T/ipt"; rc=$?
	expect "-I --per-thread: 2 intervals of 3 threads and 2 events (rc $rc)" \
		sh -c "[ $rc -eq 0 ] && [ \$(grep -c 'spin2-' '$T/ipt') -eq 12 ]"
	expect "-I --per-thread: perf's head" grep -qx "#           time             comm-pid                  counts unit events" "$T/ipt"
	"$PERFKIT" stat -p $sp -I 100 --per-thread -x, -e task-clock,context-switches --interval-count 2 2>"$T/iptx"
	expect "-I --per-thread: each event's main thread, not counted, after the two spinning ones" \
		awk -F, -v main="spin2-$sp" '{ k = $1 "/" $5; n[k]++; if ($2 == main && $3 == "<not counted>") at[k] = n[k] }
			END { for (k in n) if (at[k] != 3) exit 1; exit length(n) != 4 }' "$T/iptx"
	if $have_perf; then
		bad=
		for m in "" -x, -j; do
			ipt perf stat $m >"$T/ipt.perf"
			ipt "$PERFKIT" stat $m >"$T/ipt.pk"
			cmp -s "$T/ipt.perf" "$T/ipt.pk" || bad="$bad [${m:-text}]"
		done
		expect "-I --per-thread: perf's lines in text, CSV and JSON, numbers masked${bad:+ (differ:$bad)}" test -z "$bad"
	else
		skip "perf not installed: -I --per-thread's layout against perf's"
	fi
	kill $sp 2>/dev/null; wait $sp 2>/dev/null
	# an fd per event and thread: 200 threads and the default events are
	# more than a soft limit of 256 descriptors, raised as perf does
	cat >"$T/many.c" <<'C'
#include <pthread.h>
#include <unistd.h>
static void *f(void *a) { sleep(5); return a; }
int main(void) { pthread_t t[200]; for (int i = 0; i < 200; i++) pthread_create(&t[i], 0, f, 0);
	for (int i = 0; i < 200; i++) pthread_join(t[i], 0); return 0; }
C
	cc -O1 -pthread -o "$T/many" "$T/many.c"
	"$T/many" & mp=$!
	sleep 0.3
	if [ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 4096 ]; then
		(ulimit -Sn 256; "$PERFKIT" stat -p $mp -x, --timeout 100 2>"$T/many.out"); rc=$?
		expect "-p of 201 threads under a soft limit of 256 fds: counted, not EMFILE ($rc)" \
			sh -c "[ $rc -eq 0 ] && grep -q ',task-clock,' '$T/many.out' && ! grep -q 'Too many' '$T/many.out'"
	else
		skip "the hard limit on open files is below 4096 here"
	fi
	kill $mp 2>/dev/null; wait $mp 2>/dev/null
else
	skip "no C compiler for the threaded workload"
fi
"$PERFKIT" stat --per-thread -e task-clock -- true 2>/dev/null
expect "--per-thread without -p or -t: usage error" test $? -eq 2

# duration_time, perf's tool event: the run's wall time in ns, as the
# elapsed line says it
"$PERFKIT" stat -e duration_time,task-clock -- sleep 0.05 2>"$T/dur"; rc=$?
d=$(awk '$2 == "ns" && $3 == "duration_time" { print $1 }' "$T/dur")
el=$(awk '/seconds time elapsed/ { printf "%.0f", $1 * 1e9 }' "$T/dur")
expect "duration_time: the elapsed time in ns ($d against $el, rc $rc)" \
	sh -c "[ $rc -eq 0 ] && [ -n '$d' ] && [ '$d' = '$el' ] && [ '$d' -ge 50000000 ]"
"$PERFKIT" stat -x, -e duration_time -- true 2>"$T/durx"
expect "duration_time in CSV: unit ns" grep -Eq '^[0-9]+,ns,duration_time,' "$T/durx"
"$PERFKIT" stat -I 100 -e duration_time -- sleep 0.25 2>"$T/duri"
expect "duration_time with -I: each interval's own length (about 100 ms)" \
	awk '$3 == "ns" { n++; if ($2 < 50000000 || $2 > 1000000000) bad = 1 } END { exit !(n >= 2 && !bad) }' "$T/duri"

# found by a fresh helper against perf 6.1
"$PERFKIT" stat -x, -e '{task-clock,page-faults}:D' -- true 2>"$T/gd"; rc=$?
expect "{a,b}:D pins the leader only: both counted ($rc)" sh -c "[ $rc -eq 0 ] && grep -q '^[0-9]*,,page-faults,' '$T/gd'"
big=$(python3 -c "print('{' + ','.join(['page-faults'] * 70) + '}')")
"$PERFKIT" stat -x, -e "$big" -- true 2>"$T/g70"; rc=$?
expect "a group of 70 events is read whole ($rc, $(grep -c page-faults "$T/g70") lines)" \
	sh -c "[ $rc -eq 0 ] && [ \$(grep -c '^[0-9]*,,page-faults,' '$T/g70') -eq 70 ]"
"$PERFKIT" stat -C 0,0 -- true 2>/dev/null; rc=$?
expect "-C with a CPU twice: usage error, as perf ($rc)" test $rc -eq 2
"$PERFKIT" stat -e '' -- true 2>/dev/null; rc=$?
expect "-e '': usage error, not the default events ($rc)" test $rc -eq 2
if [ -r /sys/bus/event_source/devices/msr/events/tsc ]; then
	"$PERFKIT" stat -e msr/tsc/,task-clock -- true 2>"$T/tscr"
	expect "a PMU event gets perf's rate per second of task-clock" grep -Eq 'msr/tsc/ +# +[0-9.]+ [KMG]?/sec' "$T/tscr"
fi

# -a ends as perf's: one blank line after the elapsed time
"$PERFKIT" stat -a -e task-clock -- sleep 0.05 2>"$T/aend"
expect "-a: the output ends 'seconds time elapsed', then one blank line" \
	sh -c "tail -2 '$T/aend' | head -1 | grep -q 'seconds time elapsed' && [ -z \"\$(tail -1 '$T/aend')\" ]"

# -x '\t': a tab, perf's one escape; blanks in an event list, as perf's
"$PERFKIT" stat -x '\t' -e task-clock -- true 2>"$T/tab"
expect "-x '\\t': the columns separated by tabs" grep -q "$(printf '\ttask-clock\t')" "$T/tab"
"$PERFKIT" stat -e ' task-clock, page-faults ' -- true 2>"$T/blank" >/dev/null
rc=$?
expect "-e ' task-clock, page-faults ': both counted ($rc)" \
	sh -c "[ $rc -eq 0 ] && grep -q ' task-clock ' '$T/blank' && grep -q ' page-faults ' '$T/blank'"

# --all-user / --all-kernel (perf's): every event's counting limited to one
# side, the names as given; true's page faults are mostly user space
ul=$("$PERFKIT" stat --all-user -x, -e page-faults -- true 2>&1 | head -1)
u=$(echo "$ul" | cut -d, -f1)
a=$(echo "$ul" | cut -d, -f3)
k=$("$PERFKIT" stat --all-kernel -x, -e page-faults -- true 2>&1 | cut -d, -f1 | head -1)
diag "page-faults of true: --all-user $u, --all-kernel $k"
expect "--all-user counts more of true's page faults than --all-kernel ($u > $k)" test "${u:-0}" -gt "${k:-0}"
expect "... the event keeps its name (page-faults)" test "$a" = page-faults

# -D MSECS (perf's --delay): the command runs uncounted that long, then the
# counters and the clock start, with perf's two lines (burn2to1 burns 600
# ms of CPU; the delay's 400 ms of wall time take some of it, however loaded)
"$PERFKIT" stat -D 400 -x, -e task-clock -- "$PK_BUILD/tests/workloads/burn2to1" 600 2>"$T/dl" >/dev/null
ms=$(grep ',task-clock,' "$T/dl" | cut -d, -f1 | cut -d. -f1)
expect "-D 400: task-clock misses the first part of a 600 ms burn (${ms:-?} ms)" test "${ms:-0}" -gt 50 -a "${ms:-0}" -lt 560
expect "... 'Events disabled', then 'Events enabled', as perf" \
	sh -c "head -2 '$T/dl' | tr '\n' ' ' | grep -q '^Events disabled Events enabled '"

# --no-reading: perf's text alone (no " Reading:" block), line for line
"$PERFKIT" stat --no-reading -e page-faults -- true 2>"$T/nr" >/dev/null
expect "--no-reading: no Reading block" sh -c "! grep -q 'Reading:' '$T/nr' && grep -q 'page-faults' '$T/nr'"
if have perf; then
	perf stat -e page-faults -- true 2>"$T/nr.perf" >/dev/null
	sed 's/[0-9][0-9.,]*/N/g' "$T/nr" >"$T/nr.pk.n"
	sed 's/[0-9][0-9.,]*/N/g' "$T/nr.perf" >"$T/nr.perf.n"
	same_file "--no-reading: perf stat's lines, numbers aside" "$T/nr.perf.n" "$T/nr.pk.n"
fi

done_testing
