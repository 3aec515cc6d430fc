#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 1064 — how report's browser places its view (tmux), as perf's:
#  - PgDn and PgUp move the view a page with the selection, which keeps
#    its place on the screen (perfkit moved the selection a page and the
#    view one row);
#  - 's' shows the new table from its first row (perfkit kept the row
#    selected before, found again deep in the new table);
#  - with four sort keys on 160 columns, the Symbol column holds a
#    64-character name whole: the narrow columns (comm, dso, tid) keep
#    their width and the widest gives way only when all do not fit
#    (perfkit cut every column but the last to a fifth of the screen);
#  - C (collapse all) leaves the selected row on its screen line;
#  - Up and Down pass over a call graph's connector lines ("  |").
# mkrows.py's table: row i is command r<i> at [.] 0x1000+i, 40 rows in
# address order.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
tui_require
if ! have python3; then skip "python3 not installed"; done_testing; exit; fi
python3 "$TOP/tests/e2e/mkrows.py" "$T/rows.data" 40

# the first row on the screen, as its address; the screen line (1: the
# title) of the selection, the one line in reverse video between the
# title and the status bar
first_row() { tui_screen | grep -oE '0x0{12}[0-9a-f]{4}' | head -1; }
sel_line() { tui_screen -e | sed '1d;$d' | grep -nE $'\e\\[([0-9]+;)*7m' | head -1 | cut -d: -f1 | awk '{ print $1 + 1 }'; }
first_is() { [ "$(first_row)" = "$(printf '0x%016x' $((0x1000 + $1)))" ]; }
sel_is() { [ "$(sel_line)" = "$1" ]; }

tui_start 80 12 "LC_ALL=C.UTF-8 '$PERFKIT' report -i rows.data --no-color --sort comm,sym"
expect "open: the table" tui_wait "[.] 0x0000000000001000"
shown=$(tui_screen | grep -cE '0x0{12}[0-9a-f]{4}')
diag "rows on a 12-line screen: $shown"
expect "open: the selection on the first row (line 3)" sel_is 3
tui_keys Down Down
expect "Down twice: the selection on line 5" wait_until 10 sel_is 5
tui_keys NPage
expect "PgDn: the view moves a page (row $shown first)" wait_until 10 first_is "$shown"
expect "PgDn: the selection keeps its line (5)" sel_is 5
tui_keys PPage
expect "PgUp: back to the first page" wait_until 10 first_is 0
expect "PgUp: the selection on line 5 again" sel_is 5

# 's' deep in the table: the new table from its top
tui_keys End
expect "End: the last row shown" wait_until 10 tui_wait "[.] 0x0000000000001027"
tui_keys s C-u
tui_keys -l "sym,comm"
tui_keys Enter
expect "s sym,comm: the new table" tui_wait "Symbol  "
expect "s: the table's first row first" wait_until 10 first_is 0
expect "s: the selection on it (line 3)" sel_is 3
tui_keys q
expect "q quits with status 0" test "$(tui_wait_exit)" = 0

# a warning of the file (here: truncated) is on the first screen's status
# line (it was said only once the browser was left), and said once when 's
# srcline' reads the file again (it was said twice)
sz=$(stat -c %s "$T/rows.data")
head -c $((sz - 20)) "$T/rows.data" >"$T/cut.data"
tui_start 80 12 "LC_ALL=C.UTF-8 '$PERFKIT' report -i cut.data --no-color 2>cut.err"
expect "truncated file: the table" tui_wait "Press '?'"
# ... and the warning on the first screen's status line, until a key
expect "truncated file: the warning shown at once" tui_wait "for help  warning (? shows it whole): cut.data"
tui_keys Down
expect "... until a key" tui_wait_gone "warning (? shows"
# the status line cuts it at the screen's width: '?' shows it whole
tui_keys '?'
expect "?: the help" tui_wait "Keys"
tui_keys End
expect "?: its end: the warning whole (wrapped to 80 columns)" tui_wait "file truncated"
tui_keys q
expect "?: q back to the table" tui_wait "Press '?'"
tui_keys s C-u
tui_keys -l "srcline"
tui_keys Enter
expect "s srcline: the table again" tui_wait "Source:Line"
tui_keys q
expect "quits" test "$(tui_wait_exit)" = 0
expect "the warning said once" test "$(grep -c 'file truncated' "$T/cut.err")" = 1

# a row of two threads is the thread's of its first sample (perf's
# hist_entry->thread): 't' on 0x400 (first sampled in 8202, though 8201
# sampled first) zooms into 8202.  The browser's stacks are in depth-first
# order, thread by thread: the row took 8201, the first thread.
python3 "$TOP/tests/e2e/mkfirstthread.py" "$T/ft.data"
tui_start 100 20 "LC_ALL=C.UTF-8 '$PERFKIT' report -i ft.data --no-color --sort comm,sym"
expect "first thread: the table" tui_wait "[.] 0x0000000000000400"
tui_select '\] 0x0+400'
tui_keys t
expect "t on 0x400: thread 8202, its first sample's" tui_wait "Thread: 8202 |"
tui_keys q q
expect "quits" test "$(tui_wait_exit)" = 0

# the Symbol column with four keys on 160 columns
if ! can_perf_event; then
	skip "perf events not allowed here (the long-name recording)"
	done_testing; exit
fi
long=a_function_whose_name_is_sixty_four_characters_long_0123456789ab
"$PERFKIT" record -g -F 999 -o "$T/p.data" -- "$PK_BUILD/tests/workloads/longname" 400 >/dev/null 2>&1
expect "recorded" test -s "$T/p.data"
tui_start 160 24 "LC_ALL=C.UTF-8 '$PERFKIT' report -i p.data --no-color --sort comm,dso,sym,tid"
expect "comm,dso,sym,tid on 160 columns: the 64-character name whole" tui_wait_re "\\[\\.\\] $long +[0-9]+:longname"

# '-': the Self view, in an order of its own (made in a pause, by a radix
# sort): the long function, whose Self is the highest, first (its caller
# __libc_start_call_main is first by Children), Self never rising
selfs() { tui_screen | grep -E '%  ' | grep -oE '[0-9]+\.[0-9]+%' | tr -d '%'; }
self_falls() { local v; v=$(selfs); [ -n "$v" ] && [ "$v" = "$(printf '%s\n' "$v" | sort -rn)" ]; }
sleep 0.3   # a pause: the other view's order is made then
tui_keys -
expect "-: the Self view" tui_wait "  Overhead  Command"
expect "-: the long function first" wait_until 10 bash -c "tmux -S '$TUI_SOCK' capture-pane -p -t tui | sed -n 3p | grep -q '$long'"
expect "-: Self never rises down the screen" self_falls
tui_keys +
expect "+: Children again" tui_wait "Children      Self"
tui_keys q
expect "quits" test "$(tui_wait_exit)" = 0

# C (collapse every graph) keeps the selected row on its screen line
# (perfkit put it on the first line): mkrows.py's rows with one caller
# each, every graph expanded (E), the view a few pages down
python3 "$TOP/tests/e2e/mkrows.py" "$T/rows1.data" 40 1
tui_start 80 24 "LC_ALL=C.UTF-8 '$PERFKIT' report -i rows1.data --no-color --sort sym"
expect "graphs: the table" tui_wait "[.] 0x0000000000009000"
tui_keys E
expect "E: every graph expanded" tui_wait_re "%--0x1"
# Down passes over the graphs' connector lines ("  |"): each Down from
# the top lands on a line with a name
sel_text() { tui_screen | sed -n "$(sel_line)p"; }
named_sel() { sel_text | grep -q '[^ |]'; }
tui_keys Down
expect "Down: past the connector line (on '$(sel_text | sed 's/^ *//')')" wait_until 10 named_sel
tui_keys Down
expect "Down again: a line with a name" wait_until 10 named_sel
tui_keys Up
expect "Up: a line with a name" wait_until 10 named_sel
tui_keys Home NPage NPage NPage NPage NPage Down Down
sleep 0.3
at=$(sel_line)
expect "E, 5 PgDn, 2 Down: the selection below the first line (line $at)" test "${at:-0}" -gt 3
tui_keys C
expect "C: the graphs collapsed" tui_wait_gone "%--0x1"
expect "C: the selected row still on line $at" wait_until 10 sel_is "$at"
diag "C: selection on line $(sel_line)"
tui_keys q
tui_wait_exit >/dev/null
done_testing
