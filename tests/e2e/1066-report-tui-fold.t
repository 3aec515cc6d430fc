#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 1066 — report's browser folds a call graph's nodes (tmux), as perf's
# Enter on a callchain line (hist_browser__toggle_fold): Enter on a node's
# line hides the lines under it (its callees in the Children view) and
# marks it "+-", Enter again shows them; Enter on a line of a node's chain
# folds that node; a node with nothing under it says so; E unfolds every
# node; on a narrow screen a deep line's graph is drawn shifted left to
# show its name, and the help wraps its lines.  mktree.py's profile: 0x9000 calls 0x9100 (which calls 0x9110 and
# 0x9120) and 0x9200 (which calls 0x9210).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
tui_require
if ! have python3; then skip "python3 not installed"; done_testing; exit; fi
python3 "$TOP/tests/e2e/mktree.py" "$T/tree.data"

# the selected line's text (the one line in reverse video between the
# title and the status bar)
sel_text() {
	local n
	n=$(tui_screen -e | sed '1d;$d' | grep -nE $'\e\\[([0-9]+;)*7m' | head -1 | cut -d: -f1)
	[ -n "$n" ] && tui_screen | sed -n "$((n + 1))p"
}
sel_has() { sel_text | grep -qF -- "$1"; }
shown() { tui_screen | grep -qF -- "$1"; }

# TERM=xterm-256color: its terminfo names ESC [ 1 ~ and ESC [ 4 ~ Find and Select
tui_start 80 24 "TERM=xterm-256color LC_ALL=C.UTF-8 '$PERFKIT' report -i tree.data --no-color --sort sym"
expect "open: the table" tui_wait "[.] 0x0000000000009000"
tui_keys Enter
expect "Enter on the first row: its graph" tui_wait "--60.00%--0x9110"
tui_keys Down
expect "Down: the 0x9100 node's line" wait_until 10 sel_has "--90.00%--0x9100"
tui_keys Enter
expect "Enter on it: its callees hidden" tui_wait_gone "--60.00%--0x9110"
expect "... 0x9120 too" wait_until 5 bash -c "! tmux -S '$TUI_SOCK' capture-pane -p -t tui | grep -qF -- '--30.00%--0x9120'"
expect "... the line marked folded (|+-90.00%)" wait_until 5 sel_has "|+-90.00%--0x9100"
expect "... its sibling 0x9200 still shown" shown "--10.00%--0x9200"
# the connector that joins the folded node to its next sibling stays
# (the subtree's own connectors go): the line after it is "|", then 0x9200
after_fold() { tui_screen | grep -A2 -F -- "+-90.00%--0x9100" | sed 1d | tr '\n' '#'; }
expect "... the connector to 0x9200 kept, the subtree's gone ($(after_fold))" \
	bash -c "[[ '$(after_fold)' =~ ^\ +\|\ *#\ +--10.00%--0x9200 ]]"
# P writes the view as shown: the folded node without its subtree
tui_keys P
expect "P with a node folded: the file named" tui_wait "written to perf.hist.0"
expect "... and the other rows" shown "[.] 0x0000000000009110"
tui_keys Enter
expect "Enter again: the callees back" tui_wait "--60.00%--0x9110"
expect "... the mark gone" wait_until 5 sel_has "|--90.00%--0x9100"
# ... and P again, unfolded: perf.hist.0 is perf.hist.1 with 0x9100's
# subtree left out (its connector to 0x9200 kept) and its line marked "+-"
tui_keys P
expect "P unfolded: perf.hist.1" tui_wait "written to perf.hist.1"
awk '/--90\.00%--0x9100/ { sub(/--90\.00%/, "+-90.00%"); print; skip = 1; next }
     skip && /--10\.00%--0x9200/ { skip = 0 }
     skip && /^ *\| *$/ { conn = $0; next }
     skip { conn = ""; next }
     { if (conn != "") print conn; conn = ""; print }' "$T/perf.hist.1" >"$T/folded.want"
expect "... (the awk made the fold)" grep -qF -- "+-90.00%--0x9100" "$T/folded.want"
expect "P with 0x9100 folded wrote the view as shown: no subtree, the node marked +-" \
	cmp "$T/folded.want" "$T/perf.hist.0"
diag "$(diff "$T/folded.want" "$T/perf.hist.0" | head -20)"
# a line of a node's chain (0x9210 under 0x9200) folds that node
tui_keys Down Down Down Down
expect "Down to 0x9210, a line of 0x9200's chain" wait_until 10 sel_has "0x9210"
tui_keys Enter
expect "Enter on it: the chain's node folded, 0x9210 hidden" wait_until 10 bash -c "! tmux -S '$TUI_SOCK' capture-pane -p -t tui | sed -n '3,12p' | grep -qF 0x9210"
expect "... the selection on the node's line, marked" wait_until 5 sel_has "+-10.00%--0x9200"
# a node with nothing under it
tui_keys Up
expect "Up: the 0x9120 node (a leaf)" wait_until 10 sel_has "--30.00%--0x9120"
tui_keys Enter
expect "Enter on a leaf: 'nothing below this line to fold'" tui_wait "nothing below this line to fold"
expect "... the graph still shown" shown "--60.00%--0x9110"
# Home and End as tmux and the VT220 send them (ESC [ 1 ~, ESC [ 4 ~)
tui_keys -l $'\e[4~'
expect "ESC [ 4 ~ (End): the last row selected" wait_until 10 sel_has "[.] 0x0000000000009200"
tui_keys -l $'\e[1~'
expect "ESC [ 1 ~ (Home): the first row selected" wait_until 10 sel_has "[.] 0x0000000000009000"
# E: every graph expanded, no node folded
tui_keys E
expect "E: 0x9210 shown again under 0x9200" wait_until 10 bash -c "tmux -S '$TUI_SOCK' capture-pane -p -t tui | sed -n '3,14p' | grep -qF 0x9210"
expect "... no line marked folded" wait_until 5 bash -c "! tmux -S '$TUI_SOCK' capture-pane -p -t tui | grep -qF '+-'"
# P twice at once: the second waits for the first, then writes its own
# file (perf writes one a key; it was refused, its message hidden)
tui_keys P P
expect "P P: perf.hist.2 and perf.hist.3 both written" wait_until 15 test -s "$T/perf.hist.2" -a -s "$T/perf.hist.3"
expect "... the same view" cmp "$T/perf.hist.2" "$T/perf.hist.3"
# Enter on the row's own line still collapses its graph
tui_keys Home Enter
expect "Enter on the row: its graph collapsed" tui_wait_gone "--90.00%--0x9100"
tui_keys q
expect "q quits with status 0" test "$(tui_wait_exit)" = 0

# a narrow screen (36 columns): a selected graph line wider than it
# (0x9110's, 40 columns) is drawn shifted left, with its graph's other
# lines, a '<' at their left edge, as far as its end needs (not to its
# marker: its parent's '|' kept); the row lines stay
tui_start 36 20 "LC_ALL=C.UTF-8 '$PERFKIT' report -i tree.data --no-color --sort sym"
expect "36 columns: the table" tui_wait "[.] 0x00000000"
tui_keys Enter Down
expect "0x9100's line selected (29 columns: not shifted)" wait_until 10 sel_has "--90.00%--0x9100"
expect "... no line shifted" bash -c "! tmux -S '$TUI_SOCK' capture-pane -p -t tui | grep -q '^<'"
tui_keys Down
expect "Down: 0x9110 whole on the selected line" wait_until 10 sel_has "%--0x9110"
expect "... the line shifted ('<' first), its end whole" wait_until 5 bash -c "tmux -S '$TUI_SOCK' capture-pane -p -t tui | grep -qE '^<.+\|--60\.00%--0x9110 *\$'"
expect "... by as much as its end needs: its parent's '|' kept" bash -c "tmux -S '$TUI_SOCK' capture-pane -p -t tui | grep -qE '^< +\| +\|--60\.00%--0x9110'"
expect "... the row's line not shifted" shown "100.00%"
# '?' on 36 columns: the help's lines wrapped, none cut off (the s key's
# "srcline" was past the edge)
tui_keys '?'
expect "? on 36 columns: the help" tui_wait "Up/Down, PgUp/PgDn"
expect "... its long lines wrapped (Enter's last word, 'collapse)', shown)" shown "collapse)"
tui_keys NPage
expect "... PgDn: s's 'srcline' shown" tui_wait "srcline"

tui_keys q
expect "q: back to the table" tui_wait "Press '?'"
tui_keys Home
expect "Home: the row selected, nothing shifted" wait_until 10 bash -c "! tmux -S '$TUI_SOCK' capture-pane -p -t tui | grep -q '^<'"
tui_keys q
expect "quits" test "$(tui_wait_exit)" = 0

# PgDn and PgUp pass connector lines ("   |") as Down and Up do: on 6
# lines (a page of 3) with every graph expanded, each PgDn and PgUp lands
# on a line with a name (a connector selected, Enter folded its row)
tui_start 80 6 "LC_ALL=C.UTF-8 '$PERFKIT' report -i tree.data --no-color --sort sym"
expect "6 lines: the table" tui_wait "[.] 0x00000000"
tui_keys E
expect "E: the graphs" tui_wait "%--0x9100"
conn=0
for k in NPage NPage NPage NPage PPage PPage; do
	tui_keys $k
	sleep 0.2
	sel_text | grep -qE '^[ |]*$' && conn=$((conn + 1))
done
expect "PgDn x4, PgUp x2: no connector line selected ($conn)" test "$conn" = 0
tui_keys q
expect "quits" test "$(tui_wait_exit)" = 0
done_testing
