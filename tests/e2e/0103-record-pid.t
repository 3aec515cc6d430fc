# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit record -p PID (attach to a running process; its maps and names come
# from /proc) and -a (system-wide).
. "$(dirname "$0")/lib.sh"

if ! have perf || ! have cc || ! can_perf_event; then
	skip "needs perf, cc and perf_event_open (perf_event_paranoid <= 2 or root)"
	done_testing; exit
fi
cd "$T"
cat >spin.c <<'C'
static volatile unsigned long sink;
__attribute__((noinline)) void spin_here(void) { for (;;) sink++; }
int main(void) { spin_here(); }
C
cc -O1 -g -fno-omit-frame-pointer -o spin spin.c || { skip "cc failed"; done_testing; exit; }

./spin &
spin=$!
wait_until 30 execd $spin ./spin	# maps and name are spin's, not the shell's
"$PERFKIT" record -g -p $spin -o pid.data 2>pid.err &
rec=$!
# record has attached (and blocked SIGINT) once its file exists
wait_until 30 sh -c 'ls pid.data.tmp-* >/dev/null 2>&1' || diag "record -p: no file after 30 s"
sleep 0.8
kill -INT $rec
wait $rec
expect '-p: SIGINT ends the recording, then record dies of it (130), as perf record' test $? -eq 130
expect '-p: the target is still running' kill -0 $spin
perf script -i pid.data >pid.out 2>pid.perr
same_file '-p: perf script stderr is empty' /dev/null pid.perr
expect '-p: samples are named after the process (COMM from /proc)' grep -q '^ *spin ' pid.out
expect '-p: and resolve to spin_here (MMAP2 from /proc/PID/maps)' grep -q 'spin_here' pid.out
perf report --stdio -i pid.data >/dev/null 2>pid.rerr
same_file '-p: perf report stderr is empty' /dev/null pid.rerr

# -p ends by itself when the process exits
"$PERFKIT" record -p $spin -o pid2.data 2>/dev/null &
rec=$!
wait_until 30 sh -c 'ls pid2.data.tmp-* >/dev/null 2>&1' || diag "record -p: no file after 30 s"
kill $spin
wait $spin 2>/dev/null
# record checks every 250 ms; 10 s is for a loaded machine
if ! wait_until 10 sh -c "! kill -0 $rec 2>/dev/null"; then
	not_ok '-p: recording ends when the process exits'
	kill -INT $rec
else
	ok '-p: recording ends when the process exits'
fi
wait $rec
perf script -i pid2.data >pid2.out 2>pid2.err
expect "-p: ... and leaves a readable file" test $? -eq 0

"$PERFKIT" record -p 999999999 -o nope.data 2>nope.err
expect '-p with no such process fails' test $? -ne 0
expect '... and leaves no file' test -z "$(ls | grep -F nope.data)"

# -a: system-wide, bounded by a command
./spin &
spin=$!
wait_until 30 execd $spin ./spin
"$PERFKIT" record -a -o all.data -- sleep 1 2>/dev/null
expect '-a -- sleep: status of sleep (0)' test $? -eq 0
kill $spin; wait $spin 2>/dev/null
perf script -F comm,cpu,ip,sym -i all.data >all.out 2>all.perr
same_file '-a: perf script stderr is empty' /dev/null all.perr
expect '-a: the running spin process is seen' grep -q 'spin.*spin_here' all.out
expect '-a: samples carry a CPU' grep -Eq '\[[0-9]{3}\]' all.out

done_testing
