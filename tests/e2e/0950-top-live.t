#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit top on a spinning workload (burn2to1: burn_two does twice
# burn_one's work): --stdio -d 1 per process and system-wide show burn_two
# as hot (first, per process); the ncurses view under tmux shows the same
# and quits on q; usage errors; no temporary files left.
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
W=$PK_BUILD/tests/workloads/burn2to1
"$W" 30000 >/dev/null 2>&1 &
wp=$!
trap 'kill $wp 2>/dev/null; wait $wp 2>/dev/null; rm -rf "$T"' EXIT
wait_until 30 execd $wp "$W"
# top's temporary folder goes in TMPDIR: a folder of this test's own, so
# another suite running beside it cannot change the count
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
before=$(ls -d "$TMPDIR"/perfkit-top.* 2>/dev/null | wc -l)

timeout 20 "$PERFKIT" top --stdio -d 1 -n 2 -p $wp >"$T/p.out" 2>"$T/p.err"
expect "top --stdio -p: exit 0" test $? = 0
diag "$(sed -n '1,5p' "$T/p.out")"
expect "two refreshes" test "$(grep -c '^# perfkit top:' "$T/p.out")" = 2
first=$(awk '!/^#/ && NF { print $NF; exit }' "$T/p.out")
expect "per process: burn_two is the hottest function ($first)" test "$first" = burn_two
pct=$(awk '!/^#/ && $NF == "burn_two" { sub(/%/, "", $1); print $1; exit }' "$T/p.out")
expect "per process: burn_two near 67 % ($pct)" awk -v p="$pct" 'BEGIN { exit !(p > 50 && p < 80) }'

# the watched process ends: top ends too, saying so, with status 0
sleep 3 & sp=$!	# long enough for top to attach on a loaded machine
timeout 20 "$PERFKIT" top --stdio -d 0.5 -p $sp >"$T/e.out" 2>"$T/e.err"
rc=$?
wait $sp 2>/dev/null
expect "top -p: the process exits, top ends with status 0 ($rc)" test $rc = 0
expect "... and says so" grep -q "^perfkit top: process $sp exited$" "$T/e.err"

# (up to 3 one-second windows: on a loaded machine other programs' symbols
# can fill the 25 rows of one)
for try in 1 2 3; do
	timeout 20 "$PERFKIT" top --stdio -d 1 -n 1 >"$T/a.out" 2>"$T/a.err"
	rc=$?
	grep -q '\[\.\] burn_two$' "$T/a.out" && break
done
expect "top --stdio system-wide: exit 0" test $rc = 0
expect "system-wide: burn_two among the hot functions" grep -q '\[\.\] burn_two$' "$T/a.out"

if have tmux; then
	sock=$T/tmux.sock
	tmux -S "$sock" new-session -d -x 120 -y 30 \
		"'$PERFKIT' top -d 1 -p $wp; echo top-exit=\$?; sleep 5"
	# the screen once a refresh has drawn a row under the header (3 s when
	# idle, up to 30 on a loaded machine), then q, and top's exit
	screen_has_row() {
		tmux -S "$sock" capture-pane -p >"$T/screen1"
		awk '/Overhead/ { getline; f = NF > 0; exit } END { exit !f }' "$T/screen1" && sleep 2 &&
			tmux -S "$sock" capture-pane -p >"$T/screen1"
	}
	wait_until 30 screen_has_row
	tmux -S "$sock" send-keys q
	wait_until 15 sh -c "tmux -S '$sock' capture-pane -p >'$T/screen2' && grep -q top-exit '$T/screen2'"
	tmux -S "$sock" kill-server 2>/dev/null
	diag "$(grep -m3 . "$T/screen1")"
	expect "ncurses view: title line" grep -q '^perfkit top: .* samples of cpu-clock' "$T/screen1"
	first=$(awk '/Overhead/ { getline; print $NF; exit }' "$T/screen1")
	expect "ncurses view: burn_two first, as --stdio ($first)" test "$first" = burn_two
	expect "ncurses view: q quits with status 0" grep -q 'top-exit=0' "$T/screen2"
else
	skip "tmux not installed (scripts/install-deps)"
fi

"$PERFKIT" top -d 0 2>/dev/null
expect "-d 0: usage error (2)" test $? = 2
"$PERFKIT" top -e no-such-event 2>/dev/null
expect "unknown event: usage error (2)" test $? = 2
"$PERFKIT" top --stdio -p 999999999 2>"$T/err" >/dev/null
expect "missing process: exit 1 with a message" test $? = 1 -a -s "$T/err"
# a process of two threads (forkexec: main's parent_spin, its thread's
# thread_spin): both sampled (each thread's event shares its CPU's ring;
# a ring "of any CPU" refused the second thread: PERF_EVENT_IOC_SET_OUTPUT)
"$PK_BUILD/tests/workloads/forkexec" 4000 >/dev/null 2>&1 &
fp=$!
wait_until 30 execd $fp "$PK_BUILD/tests/workloads/forkexec"
sleep 0.3   # its thread started
timeout 20 "$PERFKIT" top --stdio -d 1 -n 1 -p $fp >"$T/mt.out" 2>"$T/mt.err"
expect "top -p of a process of two threads: exit 0" test $? = 0
expect "... no error" test ! -s "$T/mt.err"
expect "... its thread's thread_spin sampled" grep -q ' thread_spin$' "$T/mt.out"
expect "... and main's parent_spin" grep -q ' parent_spin$' "$T/mt.out"
kill $fp 2>/dev/null
wait $fp 2>/dev/null
after=$(ls -d "$TMPDIR"/perfkit-top.* 2>/dev/null | wc -l)
expect "no temporary folder left ($before before, $after after)" test "$after" -le "$before"
# perf top's history: a function sampled a second ago decays (7/8 per
# refresh) but stays listed; with -z only the last window is shown
SP=$PK_BUILD/tests/workloads/spin
last_block() { awk '/^# perfkit top:/ { b = "" } { b = b $0 "\n" } END { printf "%s", b }' "$1"; }
for mode in decay zero; do
	"$SP" 400 >/dev/null & sp=$!
	wait_until 30 catches $sp 10	# SIGUSR1 would kill it before its handler
	if [ $mode = zero ]; then zf=-z; else zf=; fi
	"$PERFKIT" top --stdio $zf -d 0.5 -n 6 -p $sp >"$T/$mode.out" 2>"$T/$mode.err" &
	tp=$!
	# spin once top has drawn its first table: 400 ms in the 2nd to 3rd of
	# six 0.5 s windows, long before the last
	wait_until 30 grep -q '^# perfkit top:' "$T/$mode.out"
	kill -USR1 $sp
	wait $tp
	kill $sp; wait $sp 2>/dev/null
	last_block "$T/$mode.out" >"$T/$mode.last"
done
diag "$(cat "$T/decay.last")"
expect "history decays: the spin, over a second ago, is still in the last table" grep -q '\[\.\] main$' "$T/decay.last"
expect "... and the header says the history decays" grep -q 'decaying by 7/8' "$T/decay.last"
expect "-z: six refreshes" test "$(grep -c '^# perfkit top:' "$T/zero.out")" = 6
expect_fail "-z: the last table shows the last window only (no spin)" grep -q '\[\.\] main$' "$T/zero.last"
# rows are symbols: two C++ overloads (both named f) stay two rows
if have c++; then
	cat >"$T/ov.cc" <<'CC'
volatile double sink;
__attribute__((noinline)) void f(int n) { for (int i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void f(double n) { for (double i = 0; i < n; i++) sink += i; }
int main() { for (int k = 0; k < 40; k++) { f(6000000); f(3000000.0); } return 0; }
CC
	c++ -O1 -o "$T/ov" "$T/ov.cc"
	"$T/ov" & op=$!
	timeout 20 "$PERFKIT" top --stdio -d 1 -n 1 -p $op >"$T/ov.out" 2>/dev/null
	kill $op 2>/dev/null; wait $op 2>/dev/null
	expect "C++ overloads: two rows named f ($(grep -c '\[\.\] f$' "$T/ov.out"))" test "$(grep -c '\[\.\] f$' "$T/ov.out")" = 2
else
	skip "needs c++"
fi
# a hardware event on a machine without a PMU: one line naming the software one
if have perf && perf stat -e cycles true 2>&1 | grep -q 'not supported'; then
	"$PERFKIT" top --stdio -e instructions -n 1 -d 0.2 >/dev/null 2>"$T/hw.err"
	expect "top -e instructions without a PMU: exit 1" test $? = 1
	expect "... one line suggesting cpu-clock" \
		sh -c "test \$(wc -l <'$T/hw.err') = 1 && grep -q 'no hardware PMU); use -e cpu-clock' '$T/hw.err'"
	# cycles falls back to cpu-clock, as perf top's evsel__fallback
	"$PERFKIT" top --stdio -e cycles -n 1 -d 0.2 >"$T/cyc.out" 2>"$T/cyc.err"
	expect "top -e cycles without a PMU: cpu-clock sampled (exit 0)" test $? = 0
	expect "... named cpu-clock" grep -q "cpu-clock" "$T/cyc.out"
else
	skip "this machine has a PMU (cycles can be sampled)"
fi
done_testing
