# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit record: exit status of the command, commands that cannot run,
# events the machine lacks, usage errors — and no file left behind on error.
. "$(dirname "$0")/lib.sh"

if ! have perf || ! can_perf_event; then
	skip "needs perf and perf_event_open (perf_event_paranoid <= 2 or root)"
	done_testing; exit
fi
cd "$T"

"$PERFKIT" record -o exit3.data -- sh -c 'exit 3' 2>/dev/null
expect 'the command exit status is returned (3)' test $? -eq 3
expect 'and the file is still written' test -s exit3.data
perf script -i exit3.data >/dev/null 2>exit3.err
same_file 'perf reads it without complaint' /dev/null exit3.err

"$PERFKIT" record -o sig.data -- sh -c 'kill -TERM $$' 2>/dev/null
expect 'a command killed by SIGTERM gives 128+15' test $? -eq 143

"$PERFKIT" record -o none.data -- nosuchcmd-perfkit arg 2>none.err
expect 'a command that cannot run exits 127' test $? -eq 127
expect 'with a clear error line' grep -qx "perfkit record: cannot run 'nosuchcmd-perfkit': No such file or directory" none.err
expect 'and no output file' test ! -e none.data
expect 'and no temporary file' test -z "$(ls | grep -F 'none.data')"

echo 'echo hi' >noexec.sh
"$PERFKIT" record -o noexec.data -- ./noexec.sh 2>noexec.err
expect 'a non-executable file exits 126 (the shell'"'"'s: there, not runnable)' test $? -eq 126
expect '... naming the reason' grep -q "cannot run './noexec.sh': Permission denied" noexec.err
expect '... and leaves no file' test -z "$(ls | grep -F 'noexec.data')"

if ! have perf || ! perf stat -e cycles true 2>&1 | grep -q 'not supported'; then
	skip "this machine has a hardware PMU (or no perf to tell): 'cycles' works"
	skip "this machine has a hardware PMU (or no perf to tell): 'cycles' works"
	skip "this machine has a hardware PMU (or no perf to tell): 'cycles' works"
	skip "this machine has a hardware PMU (or no perf to tell): 'cycles' works"
else
	# perf's evsel__fallback: cycles without a PMU is cpu-clock
	"$PERFKIT" record -e cycles -o cyc.data -- true 2>cyc.err
	expect "-e cycles without a PMU: recorded as cpu-clock, as perf (exit 0)" test $? -eq 0
	expect '... the file names the event cpu-clock' \
		sh -c "perf report -i cyc.data --stdio 2>/dev/null | grep -q \"of event 'cpu-clock'\""
	"$PERFKIT" record -e instructions -o ins.data -- true 2>ins.err
	expect "-e instructions without a PMU fails with status 1" test $? -eq 1
	expect '... naming the software alternative' \
		grep -qx "perfkit record: event 'instructions' is not supported on this machine (no hardware PMU); use -e cpu-clock" ins.err
fi
expect '... and leaves no file' test -z "$(ls | grep -F 'ins.data')"

"$PERFKIT" record -e no-such-event -o bad.data -- true 2>bad.err
expect 'an unknown event is a usage error (2)' test $? -eq 2
expect '... naming the event' grep -q "unknown event 'no-such-event'" bad.err
"$PERFKIT" record -e cpu-clock:z -- true 2>bad.err
expect 'an unknown modifier is a usage error' test $? -eq 2
# no command, -p or -a: the whole system until Ctrl-C, as perf record
# (it was a usage error)
[ -n "${PK_SAN:-}" ] && nc_t=6 || nc_t=2   # its handler set first, whatever the build
timeout --preserve-status -s INT -k 30 "$nc_t" "$PERFKIT" record -o nocmd.data 2>/dev/null
expect 'no command, -p or -a: system-wide until Ctrl-C (130), as perf record' test $? -eq 130
expect '... the file written' test -s nocmd.data
"$PERFKIT" record -F 0 -- true 2>/dev/null
expect '-F 0 is a usage error' test $? -eq 2
"$PERFKIT" record -F 99 -c 5 -- true 2>/dev/null
expect '-F with -c is a usage error' test $? -eq 2
# -m in perf's forms: PAGES, a size with a unit, ",AUX" pages after
for m in 512K 16,4 0 1M; do
	"$PERFKIT" record -q -m "$m" -o m.data -- true >/dev/null 2>m.err
	expect "-m $m: accepted, as perf's" test $? -eq 0 -a -s m.data
done
"$PERFKIT" record -q -m 1Q -o m.data -- true >/dev/null 2>&1
expect '-m 1Q: a usage error (2)' test $? -eq 2
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 100000)
"$PERFKIT" record --strict-freq -F $((max * 10)) -o fast.data -- true 2>fast.err
expect '--strict-freq: -F above the kernel maximum fails (1)' test $? -eq 1
expect '... saying so' grep -q "Maximum frequency rate ($max Hz) exceeded" fast.err
expect '... and leaves no file' test -z "$(ls | grep -F 'fast.data')"
# without --strict-freq it is lowered, as perf does (0993-record-max-freq.t)
"$PERFKIT" record --help >help.out
expect '--help prints the usage to stdout' grep -q '^usage: perfkit record' help.out

# -e with :u on a software event, and a second event on the same buffers
"$PERFKIT" record -e cpu-clock:u,page-faults -o two.data -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' 2>/dev/null
perf script -F event -i two.data 2>two.err | sort -u >two.out
same_file 'two events: perf script stderr is empty' /dev/null two.err
expect 'two events: both appear' test "$(tr -d ' :' <two.out | sort -u | tr '\n' ' ')" = "cpu-clocku page-faults "

# an event group, as perf: '{a,b}:u' opens b in a's group (group_fd), the
# names as given and the modifiers on each, and the file's GROUP_DESC
"$PERFKIT" record -e '{cpu-clock,task-clock}:u' -o grp.data -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' 2>grp.err
expect "-e '{cpu-clock,task-clock}:u': exit 0" test $? -eq 0
expect "... perf evlist -g shows the group" sh -c "perf evlist -g -i grp.data 2>/dev/null | grep -qx '{cpu-clock,task-clock}'"
expect "... both user-only (exclude_kernel), as the group's :u says" \
	sh -c "test \$(perf evlist -v -i grp.data 2>/dev/null | grep -c 'exclude_kernel: 1') = 2"
expect "... perf report --group reads it as one" \
	sh -c "perf report --group --stdio -i grp.data 2>/dev/null | grep -q \"of events 'anon group { cpu-clock, task-clock }'\""
"$PERFKIT" record -e '{cpu-clock,task-clock' -o grp2.data -- true 2>grp2.err
expect "-e '{a,b': a usage error (2)" test $? -eq 2
expect "... naming the brace" grep -q "'{' without '}'" grp2.err

# ':S' (sample read) is not recorded: refused, not ignored; "{a}{b}" wants
# a ',' between, as perf
"$PERFKIT" record -e '{cpu-clock,task-clock}:S' -o grp3.data -- true 2>grp3.err
expect "-e '{a,b}:S': a usage error (2)" test $? -eq 2
expect "... naming ':S'" grep -q "the ':S' modifier" grp3.err
"$PERFKIT" record -e '{cpu-clock}{task-clock}' -o grp3.data -- true 2>grp3.err
expect "-e '{a}{b}': a usage error (2), as perf" test $? -eq 2
expect '... and no file' test ! -e grp3.data
# perf's file of ':S' samples: one line saying what is not shown
perf record -q -e '{cpu-clock,task-clock}:S' -o sread.data -- true 2>/dev/null
"$PERFKIT" report --stdio -i sread.data >/dev/null 2>sread.err
expect "a file of ':S' samples: report says the values read are not shown" \
	grep -q "PERF_SAMPLE_READ, perf record's ':S'): not supported" sread.err

done_testing
