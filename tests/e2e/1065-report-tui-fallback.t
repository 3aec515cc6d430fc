#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 1065 — report on a terminal whose browser cannot start (TERM names no
# terminfo entry: ncurses refuses it) prints the text instead, from the
# browser's models, call graphs included, for every event: on a recording
# of two events, the call-graph lines --stdio prints.  The fallback
# printed none (the browser's forest was made only on a first Enter), and
# then only the first event's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
tui_require
perf_event_require
"$PERFKIT" record -g -e cpu-clock,task-clock -o "$T/two.data" -- "$PK_BUILD/tests/workloads/calltree" 300 >/dev/null 2>&1
expect "recorded two events" test "$(grep -c "^# Samples" < <("$PERFKIT" report -i "$T/two.data" --stdio 2>/dev/null))" = 2
want=$("$PERFKIT" report -i "$T/two.data" --stdio 2>/dev/null | grep -c -- '---')
expect "--stdio prints call graphs ($want lines of ---)" test "$want" -gt 2
tui_start 200 40 "TERM=xterm-no-such-terminal '$PERFKIT' report -i two.data 2>err; echo END"
expect "the text printed" tui_wait_re '^END$'
got=$(tui_screen -S -20000 | grep -c -- '---')
expect "the fallback prints as many call-graph lines ($got of $want)" test "$got" = "$want"
done_testing
