#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# record -F and top -F above the kernel's maximum sample rate
# (/proc/sys/kernel/perf_event_max_sample_rate): lowered to the maximum with
# perf's warning, as perf record does, instead of exiting; --strict-freq
# refuses with perf's error; the file records the lowered frequency.
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null)
if [ -z "$max" ]; then skip "no /proc/sys/kernel/perf_event_max_sample_rate"; done_testing; exit; fi
want=$((max * 2))

"$PERFKIT" record -F $want -o "$T/p.data" -- sleep 0.05 >"$T/out" 2>"$T/err"; rc=$?
expect "record -F $want (max $max): records (exit 0)" test $rc -eq 0
expect "perf's warning, naming both rates" grep -q "warning: Maximum frequency rate ($max Hz) exceeded, throttling from $want Hz to $max Hz" "$T/err"
expect "… and how to raise the limit" grep -q "perf_event_max_sample_rate" "$T/err"
expect "a file is written" test -s "$T/p.data"
if have perf; then
	perf report -i "$T/p.data" --header-only 2>/dev/null >"$T/h"
	expect "the file's event has the lowered frequency ($max)" grep -q "sample_freq } = $max," "$T/h"
fi

"$PERFKIT" record --strict-freq -F $want -o "$T/s.data" -- true >"$T/out" 2>"$T/err"; rc=$?
expect "--strict-freq: refused (exit 1)" test $rc -eq 1
expect "--strict-freq: perf's error" grep -q "error: Maximum frequency rate ($max Hz) exceeded" "$T/err"
expect "--strict-freq: no file" test ! -e "$T/s.data"

"$PERFKIT" record -F $max -o "$T/m.data" -- true >"$T/out" 2>"$T/err"; rc=$?
expect "-F at the maximum: no warning" test $rc -eq 0 -a "$(grep -c Maximum "$T/err")" -eq 0

sleep 3 & sp=$!
timeout 20 "$PERFKIT" top -F $want --stdio -d 0.3 -n 1 -p $sp >"$T/t" 2>"$T/terr"; rc=$?
kill $sp 2>/dev/null; wait $sp 2>/dev/null
expect "top -F $want: runs (exit 0)" test $rc -eq 0
expect "top: perf's warning" grep -q "warning: Maximum frequency rate ($max Hz) exceeded, throttling from $want Hz to $max Hz" "$T/terr"
expect "top: a table" grep -q "^# perfkit top:" "$T/t"

done_testing
