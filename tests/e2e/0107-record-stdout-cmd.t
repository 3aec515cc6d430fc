#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# record -o /dev/stdout (a pipe, or a file the shell opened) with a CMD that
# prints: the command's stdout goes to stderr, as perf does, so the data
# stays valid (its output landed before the header: "bad magic").
. "$(dirname "$0")/lib.sh"
if ! can_perf_event; then skip "perf events not allowed here"; done_testing; exit; fi
burn=$PK_BUILD/tests/workloads/burn2to1
# the printed text is computed, so the command line in the header does not hold it
cmd=(sh -c "echo printed-by-cmd-\$((6 * 7)); exec $burn 20")

"$PERFKIT" record -o /dev/stdout -- "${cmd[@]}" >"$T/file.data" 2>"$T/err"
expect "-o /dev/stdout > FILE: exit 0" test $? = 0
expect "... the file starts with the magic" test "$(head -c 8 "$T/file.data")" = PERFILE2
expect "... the command's output on stderr" grep -q '^printed-by-cmd-42$' "$T/err"
expect_fail "... and not in the data" grep -q printed-by-cmd-42 "$T/file.data"
expect "... perfkit reads it" sh -c '"$1" report -i "$2" --stdio >/dev/null' - "$PERFKIT" "$T/file.data"
if have perf; then
	expect "... perf reads it" sh -c 'perf report -i "$1" --stdio -q >/dev/null 2>&1' - "$T/file.data"
fi

"$PERFKIT" record -o /dev/stdout -- "${cmd[@]}" 2>"$T/err2" | "$PERFKIT" report -i - --stdio >"$T/rep" 2>&1
expect "-o /dev/stdout into a pipe: report -i - reads it" grep -q '^# Samples' "$T/rep"
expect "... the command's output on stderr" grep -q '^printed-by-cmd-42$' "$T/err2"

"$PERFKIT" record -o "$T/plain.data" -- "${cmd[@]}" >"$T/out3" 2>/dev/null
expect "-o FILE: the command's stdout stays stdout" grep -q '^printed-by-cmd-42$' "$T/out3"
done_testing
