#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 1062 — perfkit top on a terminal is report's browser, live (tmux): a
# process spinning in burn2to1 (burn_two twice burn_one's work) shows
# burn_two first; z (last window only) and f (freeze) show on the status
# line and in the title; d zooms into the DSO and back; a annotates
# burn_two with the last window's samples; s sym leaves one key column; ?
# lists top's keys; a resize and 40 columns; q quits with status 0; the
# watched process ending ends top with status 0.  cpu-clock (no PMU needed).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
tui_require
perf_event_require
W=$PK_BUILD/tests/workloads/burn2to1
"$W" 60000 >/dev/null 2>&1 &
wp=$!
trap 'kill $wp 2>/dev/null; wait $wp 2>/dev/null; _tm kill-server 2>/dev/null; rm -rf "$T"' EXIT
wait_until 30 execd $wp "$W"
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"

tui_start 80 24 "LC_ALL=C.UTF-8 '$PERFKIT' top -e cpu-clock -d 0.5 -p $wp"
expect "open: the title" tui_wait "perfkit top: "
expect "open: burn_two is the first row" tui_wait_re '^ +[0-9.]+%  burn2to1 +\[\.\] burn_two$' 
first=$(tui_screen | sed -n 3p)
diag "first row: $first"
expect "first row: burn_two" bash -c "[[ '$first' == *burn_two ]]"
expect "the status line: history decaying" tui_wait "[history decaying: z]"

tui_keys z
expect "z: the status says last window only" tui_wait "[last window only: z]"
expect "z: the title drops (decaying)" tui_wait_gone "(decaying)"
tui_keys z
expect "z again: decaying" tui_wait "(decaying)"

# f: the title (its sample count) holds still while frozen
tui_keys f
expect "f: frozen on the status line" tui_wait "[frozen: f]"
t1=$(tui_screen | sed -n 1p)
changed() { [ "$(tui_screen | sed -n 1p)" != "$t1" ]; }
expect_fail "f: the title does not change for 3 s (six refreshes)" wait_until 3 changed
tui_keys f
expect "f again: unfrozen" tui_wait_gone "[frozen: f]"
expect "... and refreshing again" wait_until 30 changed

tui_keys Home d
expect "d: the DSO filter in the title" tui_wait "DSO: burn2to1 |"
expect "d: no kernel rows" tui_wait_gone "[k]"
tui_keys d
expect "d again: all DSOs" tui_wait_gone "DSO: burn2to1"

tui_keys Home a
expect "a: the annotation of burn_two" tui_wait "Annotation of burn_two"
expect "a: an instruction with samples" tui_wait_re '^ +[1-9][0-9]*\.[0-9]+ : +[0-9a-f]+: '
expect "a: its source line" tui_wait "burn2to1.c:"
tui_keys q
expect "q: back to the table" tui_wait "Overhead  Shared Object"

tui_keys s
for _ in $(seq 10); do tui_keys BSpace; done
tui_keys s y m Enter
expect "s sym: one key column" tui_wait_re "Overhead  Symbol *$"
tui_keys s
for _ in $(seq 10); do tui_keys BSpace; done
tui_keys c o m m Enter
expect "s comm: refused, top's keys named" tui_wait "top's sort keys"

tui_keys s
expect "s: the prompt names top's keys" tui_wait "Sort keys (dso,sym, sym or dso)"
tui_keys Escape
tui_keys '?'
expect "?: top's keys listed" tui_wait "zero the history"
expect "?: s names top's keys, not report's" tui_wait "sort keys (dso,sym, sym or dso): regroup"
expect "?: no command or thread zoom listed (top's rows have none)" test "$(tui_screen | grep -c "row's command\|row's thread")" = 0
expect "?: no Children line (top has no Children view)" test "$(tui_screen | grep -c 'Children column')" = 0
tui_keys q
expect "?: q goes back" tui_wait "Overhead  Symbol"
# keys of report's browser that top's rows cannot serve say so
tui_keys c
expect "c: no command in top's rows, said" tui_wait "no command to zoom into"
tui_keys t
expect "t: no thread in top's rows, said" tui_wait "no thread to zoom into"
expect "t: no thread zoom made" tui_wait_gone "Thread:"
tui_keys +
expect "+: no Children in top, said" tui_wait "top has no Children view"

_tm resize-window -t tui -x 100 -y 30
status30() { tui_screen | sed -n 30p | grep -q Press; }
expect "resize: the status line is the 30th" wait_until 30 status30

tui_keys q
expect "q quits with status 0" test "$(tui_wait_exit)" = 0

tui_start 40 24 "LC_ALL=C.UTF-8 '$PERFKIT' top -d 0.5 -p $wp"
expect "40 columns: burn_two on a row" tui_wait_re '^ +[0-9.]+%  burn2to1 +\[\.\] burn_two$'
expect "40 columns: no line longer than the screen" test "$(tui_screen | awk '{ if (length($0) > 40) n++ } END { print n + 0 }')" -eq 0
tui_keys q
expect "40 columns: quits" test "$(tui_wait_exit)" = 0

# -g: call graphs, unfolded by Enter and kept unfolded across refreshes;
# e unfolds every row (calltree: c is called by b, by a, by main)
"$PK_BUILD/tests/workloads/calltree" 60000 >/dev/null 2>&1 &
cp=$!
trap 'kill $wp $cp 2>/dev/null; wait $wp $cp 2>/dev/null; _tm kill-server 2>/dev/null; rm -rf "$T"' EXIT
tui_start 80 40 "LC_ALL=C.UTF-8 '$PERFKIT' top -g -d 0.5 -p $cp"
expect "-g: c is the first row" tui_wait_re '^▸ +[0-9.]+%  calltree +\[\.\] c$'
tui_keys Home Enter
expect "-g: c's graph, b its caller" tui_wait_re '%--c$'
expect "-g: ... then a" tui_wait_re '^ +a$'
t1=$(tui_screen | sed -n 1p)
changed() { [ "$(tui_screen | sed -n 1p)" != "$t1" ]; }
# refreshes N: wait for N refreshes (the title's sample count changes)
refreshes() {
	for ((k = 0; k < $1; k++)); do
		t1=$(tui_screen | sed -n 1p)
		wait_until 30 changed
	done
}
wait_until 30 changed
expect "-g: still unfolded after a refresh" tui_wait_re '%--c$'
# Enter on c's node line folds it (its chain b, a hidden, marked +-); the
# fold holds across refreshes (each is a new table: kept by the node's
# path of names, not its place)
tui_keys Down
# (the selected line: black on yellow, perf's colours)
sel_node() { tui_screen -e | grep -qE $'\e\\[30m\e\\[43m +--[0-9.]+%--c'; }
expect "-g: Down, c's node line selected" wait_until 10 sel_node
refreshes 1
expect "-g: ... still selected after a refresh (the line kept by its node)" wait_until 3 sel_node
tui_keys Enter
expect "-g: Enter folds c's node: a hidden" wait_until 10 bash -c "! tmux -S '$TUI_SOCK' capture-pane -p -t tui | grep -qE '^ +a$'"
expect "-g: ... marked +-" tui_wait_re '\+-[0-9.]+%--c$'
refreshes 2
expect "-g: two refreshes later, still folded (+-)" tui_wait_re '\+-[0-9.]+%--c$'
expect "-g: ... a still hidden" bash -c "! tmux -S '$TUI_SOCK' capture-pane -p -t tui | grep -qE '^ +a$'"
tui_keys Enter
expect "-g: Enter unfolds it: a back" tui_wait_re '^ +a$'
# a line of c's chain (b, c's caller) selected stays selected across
# refreshes (found again as the node's first chain line)
tui_keys Down
sel_b() { tui_screen -e | grep -qE $'\e\\[30m\e\\[43m +b *$'; }
expect "-g: Down, b (c's chain) selected" wait_until 10 sel_b
refreshes 2
# b stays selected: as a chain line, or as a node line of its own when a
# refresh's samples split c's chain there (a sample taken in c's prologue
# has a as its caller)
sel_b2() { tui_screen -e | grep -qE $'\e\\[30m\e\\[43m.*[ -]b *$'; }
wait_until 3 sel_b2 || diag "$(tui_screen -e | cat -v)"
expect "-g: ... still selected two refreshes later (once lost, it would stay on the row)" wait_until 1 sel_b2
# the graph's shape changes under the selection: d calls c too
# (SIGUSR1), so b turns from c's chain line into a node line of its own
# beside d; the selection follows b by its name
kill -USR1 $cp
split_c() { tui_screen | grep -qE '[0-9.]+%--d *$'; }
expect "-g: c's graph split: d a caller of c" wait_until 30 split_c
refreshes 1
sel_bnode() { tui_screen -e | grep -qE $'\e\\[30m\e\\[43m.*[0-9.]+%--b *$'; }
wait_until 3 sel_bnode || diag "$(tui_screen -e | cat -v)"
expect "-g: ... b, now a node line, still selected" wait_until 1 sel_bnode
tui_keys e
expect "e: d's graph too" tui_wait_re '%--d$'
tui_keys e
expect "e again: folded" tui_wait_gone '%--'
tui_keys q
expect "-g: quits" test "$(tui_wait_exit)" = 0
kill $cp; wait $cp 2>/dev/null

# the watched process ends: top ends with status 0 and says so
"$PK_BUILD/tests/workloads/spin" 400 >/dev/null 2>&1 & sp=$!
wait_until 30 catches $sp 10
tui_start 80 24 "'$PERFKIT' top -d 0.5 -p $sp 2>'$T/top.err'"
expect "-p: open" tui_wait "perfkit top: "
kill $sp; wait $sp 2>/dev/null
expect "-p: the process ended, top with status 0" test "$(tui_wait_exit)" = 0
expect "-p: ... and says so" grep -q "process $sp exited" "$T/top.err"
done_testing
