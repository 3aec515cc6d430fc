# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit record follows threads and forked/exec'd children (inherit), and
# counts what the kernel could not write (PERF_RECORD_LOST) exactly as perf
# reads it back.
. "$(dirname "$0")/lib.sh"

if ! have perf || ! have cc || ! can_perf_event; then
	skip "needs perf, cc and perf_event_open (perf_event_paranoid <= 2 or root)"
	done_testing; exit
fi
cd "$T"
cat >thr.c <<'C'
#include <pthread.h>
#include <unistd.h>
#include <sys/wait.h>
static volatile unsigned long sink;
__attribute__((noinline)) void work_main(void) { for (long i = 0; i < 60000000; i++) sink += i; }
__attribute__((noinline)) void work_thread(void) { for (long i = 0; i < 60000000; i++) sink ^= i; }
static void *thr(void *a) { (void)a; work_thread(); return 0; }
int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, thr, 0);
	pid_t p = fork();
	if (p == 0) {
		execlp("sh", "sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done", (char *)0);
		_exit(1);
	}
	work_main();
	pthread_join(t, 0);
	waitpid(p, 0, 0);
	return 0;
}
C
cc -O1 -g -fno-omit-frame-pointer -pthread -o thr thr.c || { skip "cc failed"; done_testing; exit; }

"$PERFKIT" record -o thr.data -- ./thr 2>thr.err
expect 'record of a threaded program succeeds' test $? -eq 0
perf report --stdio --no-children --sort comm,sym -i thr.data >rep.out 2>rep.err
same_file 'perf report stderr is empty' /dev/null rep.err
expect 'the main thread is sampled (work_main)' grep -q 'thr .*work_main' rep.out
expect 'the second thread is sampled (work_thread)' grep -q 'thr .*work_thread' rep.out
# (the forked child is "thr" too until it execs, so count the threads of
# the two work functions only)
perf script -F comm,tid,ip,sym -i thr.data 2>/dev/null |
	awk '$1 == "thr" && ($NF == "work_main" || $NF == "work_thread") {print $2}' | sort -u >tids
expect 'the work functions run in two threads' test "$(wc -l <tids)" -eq 2
perf script --show-task-events -i thr.data >task.out 2>/dev/null
expect 'the fork of the child is recorded (PERF_RECORD_FORK)' grep -q 'PERF_RECORD_FORK' task.out
expect "the child's exec is recorded (COMM exec: sh)" grep -q 'PERF_RECORD_COMM exec: sh:' task.out

# A tiny ring buffer at a high rate: whatever is lost is counted, and the
# count matches the PERF_RECORD_LOST records perf finds in the file.
"$PERFKIT" record -m 1 -F 20000 -g -o lost.data -- ./thr 2>lost.err
expect 'small buffer: record succeeds' test $? -eq 0
summary_lost=$(sed -n 's/^\[ perfkit record: [0-9]* samples, \([0-9]*\) lost.*/\1/p' lost.err)
summary_samples=$(sed -n 's/^\[ perfkit record: \([0-9]*\) samples.*/\1/p' lost.err)
file_lost=$(perf script -D -i lost.data 2>/dev/null | sed -n 's/.*PERF_RECORD_LOST: .*lost:\([0-9]*\).*/\1/p' | awk '{s += $1} END {print s + 0}')
file_samples=$(perf script -D -i lost.data 2>/dev/null | grep -c 'PERF_RECORD_SAMPLE')
expect "lost count in the summary ($summary_lost) = LOST records in the file ($file_lost)" test "$summary_lost" = "$file_lost"
expect "sample count in the summary ($summary_samples) = samples in the file ($file_samples)" test "$summary_samples" = "$file_samples"
if [ "${summary_lost:-0}" -gt 0 ]; then
	expect 'losses are reported with a hint' grep -q 'samples lost (ring buffer full)' lost.err
else
	skip 'nothing was lost on this run'
fi

done_testing
