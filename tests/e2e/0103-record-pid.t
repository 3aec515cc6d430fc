# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit record -p PID (attach to a running process; its maps and names come
# from /proc), -p PID,PID, -t TID, -C CPUS and -a (system-wide).
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
cat >thr.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>
static volatile unsigned long sink;
static void *spin(void *a) { printf("%ld\n", (long)syscall(SYS_gettid)); fflush(stdout); for (;;) sink++; return a; }
int main(void) { pthread_t t; pthread_create(&t, NULL, spin, NULL); pthread_create(&t, NULL, spin, NULL); pause(); return 0; }
C
cc -O1 -pthread -o thr thr.c || { skip "cc failed"; done_testing; exit; }

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
expect '... saying so (ESRCH, as perf)' grep -q 'no process with pid 999999999: No such process' nope.err
expect '... and leaves no file' test -z "$(ls | grep -F nope.data)"

# -p PID,PID: both processes (perf's comma list), until both end; -t TID:
# that thread only
./spin &
s1=$!
./thr >thr.tids &
s2=$!
./spin &
s3=$!
wait_until 30 execd $s1 ./spin
wait_until 30 execd $s3 ./spin
wait_until 30 sh -c 'test "$(wc -l <thr.tids)" -ge 2'
"$PERFKIT" record -p $s1,$s2 -o two.data 2>two.err &
rec=$!
wait_until 30 sh -c 'ls two.data.tmp-* >/dev/null 2>&1' || diag "record -p A,B: no file after 30 s"
sleep 0.8
kill $s1; wait $s1 2>/dev/null
sleep 0.3
expect '-p A,B: still recording while B runs' kill -0 $rec
kill $s2; wait $s2 2>/dev/null
if ! wait_until 10 sh -c "! kill -0 $rec 2>/dev/null"; then
	not_ok '-p A,B: recording ends when both exit'
	kill -INT $rec
else
	ok '-p A,B: recording ends when both exit'
fi
wait $rec
pids=$(perf script -F pid -i two.data 2>/dev/null | sort -un | xargs)
diag "-p $s1,$s2 (not $s3): sampled pids $pids"
expect "-p A,B: samples of both processes, none of the third" test "$pids" = "$s1 $s2" -o "$pids" = "$s2 $s1"
expect "-p A,B: each named (COMM from /proc)" sh -c "perf script -F comm -i two.data 2>/dev/null | tr -d ' ' | sort -u | tr '\n' ' ' | grep -qx 'spin thr '"

./thr >thr2.tids &
s2=$!
wait_until 30 sh -c 'test "$(wc -l <thr2.tids)" -ge 2'
t1=$(head -1 thr2.tids)
"$PERFKIT" record -t $t1 -o tid.data -- sleep 0.6 2>tid.err
expect "-t TID -- sleep: exit 0" test $? -eq 0
tids=$(perf script -F tid -i tid.data 2>/dev/null | sort -un | tr -d ' \n')
diag "-t $t1 of threads $(tr '\n' ' ' <thr2.tids): sampled tids $tids"
expect "-t TID: that thread's samples only" test "$tids" = "$t1"
kill $s2 $s3; wait $s2 $s3 2>/dev/null
"$PERFKIT" record -t 999999999 -o nope2.data 2>nope.err
expect '-t with no such thread fails' test $? -ne 0
expect '... saying so' grep -q 'no thread with id 999999999' nope.err

# -a with -p: the process only, with perf's warning (target__validate)
./thr >thr3.tids &
s4=$!
wait_until 30 sh -c 'test "$(wc -l <thr3.tids)" -ge 2'
"$PERFKIT" record -a -p $s4 -o ap.data -- sleep 0.4 2>ap.err
expect "-a -p PID: exit 0" test $? -eq 0
expect "... perf's warning" grep -q 'PID/TID switch overriding SYSTEM' ap.err
expect "... that process's samples only" test "$(perf script -F pid -i ap.data 2>/dev/null | sort -u | xargs)" = "$s4"
kill $s4; wait $s4 2>/dev/null
"$PERFKIT" record -C 18446744073709551617 -o nope4.data -- true 2>nope.err
expect "-C past INT_MAX: the list refused as typed" grep -q "got '18446744073709551617'" nope.err

# -C: the whole system on those CPUs only (perf's CPU list), for the command
"$PERFKIT" record -C 0 -o cpu.data -- sh -c './spin & a=$!; ./spin & b=$!; ./spin & c=$!; sleep 0.6; kill $a $b $c' 2>/dev/null
expect '-C 0 -- CMD: exit 0' test $? -eq 0
cpus=$(perf script -F cpu -i cpu.data 2>/dev/null | sort -u | tr -d ' \n')
expect "-C 0: samples of CPU 0 only ($cpus)" test "$cpus" = "[000]"
"$PERFKIT" record -C 0,0 -o nope3.data -- true 2>nope.err
expect "-C 0,0: a usage error (2)" test $? -eq 2
expect '... naming the CPU given twice' grep -q 'CPU 0 given twice' nope.err
"$PERFKIT" record -C 100000 -o nope3.data -- true 2>nope.err
expect "-C a CPU not there: a usage error (2)" test $? -eq 2

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

# -a and -p open their events disabled and start them once the processes
# found running are written (perf's order): no sample can come from a
# process that ended while /proc was read, nameless
"$PERFKIT" report --header-only -i all.data 2>/dev/null | grep '^# event' >all.hdr
expect '-a: the event was opened disabled (started after the side-band)' grep -q 'disabled = 1' all.hdr
expect '... and no sample without its command name' sh -c "! grep -Eq '^ *:[0-9]+ ' all.out"
# ... the side-band from perf's "dummy:HG" event, on from the start: a
# process started before the events are, while /proc is read, is named
expect '-a: the side-band from a dummy:HG event' grep -q 'name = dummy:HG, .*comm = 1' all.hdr
expect '... on from the start' sh -c "! grep 'name = dummy:HG' all.hdr | grep -q 'disabled'"
expect '... and not from the sampled event' sh -c "! grep 'name = cpu-clock' all.hdr | grep -q 'comm = 1'"
perf evlist -i all.data >all.evl 2>/dev/null
expect '-a: perf evlist lists both, as for its own' test "$(cat all.evl)" = "$(printf 'cpu-clock\ndummy:HG')"
done_testing
