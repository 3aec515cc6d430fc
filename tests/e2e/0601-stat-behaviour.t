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
	expect "the reading suggests software events and perfkit cache" \
		grep -q 'software events.*\|perfkit cache' "$T/def"
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
"$PERFKIT" stat -o "$T/link" -e task-clock -- true 2>"$T/err3"; rc=$?
expect "-o a symlink to a file: refused, exit 1 ($rc)" test $rc -eq 1
expect "... with one line naming the link" grep -q "link' is a symbolic link" "$T/err3"
expect "... link and file untouched" test -L "$T/link" -a "$(cat "$T/real")" = precious
expect "-o FILE is created 0600" test "$(stat -c %a "$T/o.txt")" = 600
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
"$PERFKIT" stat 2>/dev/null; rc=$?
expect "no command → exit 2" test $rc -eq 2
"$PERFKIT" stat -r 0 true 2>/dev/null; rc=$?
expect "-r 0 → exit 2" test $rc -eq 2

# groups and -p / -I
"$PERFKIT" stat -e '{task-clock,page-faults}' -- true 2>"$T/g"
expect "a {group} of software events counts both" grep -Eq '^ +[0-9]+ +page-faults' "$T/g"
sleep 0.3 & pid=$!
"$PERFKIT" stat -p $pid -e task-clock,context-switches 2>"$T/p"
expect "-p counts until the process exits" grep -q "process id '$pid'" "$T/p"
"$PERFKIT" stat -I 100 -e task-clock -- sleep 0.55 2>"$T/i"
n=$(grep -c 'task-clock' "$T/i")
diag "-I 100 over 0.55 s: $n lines"
# 5 on an idle machine; a loaded one (the sanitizer pass beside other
# work) may run late, so between 3 and 7
expect "-I 100 prints an interval line about every 100 ms ($n over 0.55 s)" test "$n" -ge 3 -a "$n" -le 7
done_testing
