#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 1068 — the browser on a file of several events: Tab shows the next
# event's table, Shift-Tab the previous one (perf's TAB / UNTAB), each from
# its top, its call graphs expandable; one event only: a message, the
# table kept.  Before, the browser showed the first event alone.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
tui_require
perf_event_require
"$PERFKIT" record -g -e cpu-clock,task-clock -o "$T/two.data" -- "$PK_BUILD/tests/workloads/calltree" 300 >/dev/null 2>&1
expect "recorded two events" test "$(grep -c "^# Samples" < <("$PERFKIT" report -i "$T/two.data" --stdio 2>/dev/null))" = 2
tui_start 120 24 "'$PERFKIT' report -i two.data"
expect "opens on the first event" tui_wait "of event 'cpu-clock'"
tui_keys Tab
expect "Tab: the second event's table" tui_wait "of event 'task-clock'"
tui_keys Enter
expect "… its call graphs expand" tui_wait_re '^ +---'
tui_keys Tab
expect "Tab again: back to the first (round)" tui_wait "of event 'cpu-clock'"
tui_keys BTab
expect "Shift-Tab: the previous, the second" tui_wait "of event 'task-clock'"
tui_keys '?'
expect "? names Tab" tui_wait "Tab / Shift-Tab"
tui_keys q q
"$PERFKIT" record -e cpu-clock -o "$T/one.data" -- "$PK_BUILD/tests/workloads/calltree" 100 >/dev/null 2>&1
tui_start 120 24 "'$PERFKIT' report -i one.data"
expect "one event: opens" tui_wait "of event 'cpu-clock'"
tui_keys Tab
expect "Tab with one event: says so, the table kept" tui_wait "no other event with samples"
done_testing
