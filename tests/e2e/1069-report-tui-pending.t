#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 1069 — report's browser answers Enter before the call graphs are made:
# the first view's forest and trees are made by a thread after the first
# screen (on a compile job's 1 M samples, about a second), and an Enter in
# that time shows the row expanded with a line saying the graph is being
# made, answers other keys meanwhile and draws the graph when it is there
# (tui.h graph_ready).  PERFKIT_TUI_HOLD_GRAPHS=FILE holds that thread
# until FILE exists, so that the test meets the graph being made on a
# profile small enough to make it in milliseconds.  'P' meanwhile writes
# the whole graphs (it waits for them): report --stdio's bytes.  And 's
# srcline' needs no second reading of the file.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
tui_require
perf_event_require
"$PERFKIT" record -g -F 999 -o "$T/p.data" -- "$PK_BUILD/tests/workloads/calltree" 600 >/dev/null 2>&1
"$PERFKIT" report -i "$T/p.data" --stdio >"$T/stdio" 2>/dev/null
expect "the profile has calltree's c" grep -q '\[\.\] c$' "$T/stdio"
"$PERFKIT" report -i "$T/p.data" --stdio --no-children >"$T/stdio-nc" 2>/dev/null

PENDING='[call graph: being made]'
tui_start 100 40 "PERFKIT_TUI_HOLD_GRAPHS='$T/go' PERFKIT_RESERVE_MIN=0 LC_ALL=C.UTF-8 '$PERFKIT' report -i p.data"
expect "open: the table" tui_wait "Press '?' for help"
tui_keys Enter
expect "Enter while the graphs are held: the row opens" tui_wait_re '^▾ +[0-9.]+%'
expect "... with the line saying its graph is being made" tui_wait "$PENDING"
expect "... and no graph yet" tui_wait_gone "%--"
tui_keys '?'
expect "a key meanwhile: the help" tui_wait "Keys"
tui_keys q
expect "back: the row still waits for its graph" tui_wait "$PENDING"
tui_keys Down Enter
expect "a second row opened meanwhile: two rows wait" \
	wait_until 30 sh -c "[ \$(tmux -S '$TUI_SOCK' -f /dev/null capture-pane -p -t tui | grep -cF '$PENDING') -eq 2 ]"
tui_keys / m a i n Enter
expect "a search meanwhile" tui_wait "Symbol: main"
tui_keys Escape
expect "Esc: the search undone" tui_wait_gone "Symbol: main"
# every graph open, then 'P': the file has them whole, not the line
tui_keys E
# End: the last row's line, not its graph's pending line ('a' there
# annotated the text "[call graph: being made]")
tui_keys End a
expect "End, a while held: an annotation or its message" tui_wait_re 'Annotation of|annotate: |no symbol to annotate'
expect "... of a function, not of the pending line" sh -c "! tmux -S '$TUI_SOCK' -f /dev/null capture-pane -p -t tui | grep -qF 'of [call graph'"
tui_screen | grep -q 'Annotation of' && tui_keys q
# (the first rows, whose graphs wait: the last row may have none)
tui_keys Home
expect "back to the table" tui_wait "$PENDING"
tui_keys P
expect "P while held: the file named" tui_wait "written to perf.hist.0"
same_file "P while held: report --stdio's text, every graph whole" "$T/stdio" "$T/perf.hist.0"
expect "the screen still waits" tui_wait "$PENDING"
touch "$T/go"
expect "released: the graphs drawn without a key" tui_wait_gone "$PENDING"
expect "... the call graph's lines" tui_wait_re '--[0-9.]+%--'
tui_keys P
expect "P after: the file named" tui_wait "written to perf.hist.1"
same_file "P after: report --stdio's text" "$T/stdio" "$T/perf.hist.1"
tui_keys q
expect "q quits with status 0" test "$(tui_wait_exit)" = 0

# the Self view's trees are made by a thread of their own on its first
# Enter (held too): '-' then Enter waits for them the same way
rm -f "$T/go"
tui_start 100 40 "PERFKIT_TUI_HOLD_GRAPHS='$T/go' PERFKIT_RESERVE_MIN=0 LC_ALL=C.UTF-8 '$PERFKIT' report -i p.data"
expect "open again" tui_wait "Press '?' for help"
tui_keys -
expect "-: the Self view" tui_wait "  Overhead  Command"
tui_keys E
expect "-, E: the rows wait for their graphs" tui_wait "$PENDING"
touch "$T/go"
expect "released: the Self view's graphs" tui_wait_gone "$PENDING"
tui_keys P
expect "-, E, P: the file named" tui_wait "written to perf.hist.2"
same_file "-, E, P: report --stdio --no-children's text" "$T/stdio-nc" "$T/perf.hist.2"
tui_keys q
expect "q quits with status 0" test "$(tui_wait_exit)" = 0

# 's srcline' makes its rows from the browser's model (frames by address
# since the file was read), not from the file read again: the file gone
# meanwhile, the table comes all the same, and with every graph open 'P'
# writes report --stdio --sort srcline's bytes
"$PERFKIT" report -i "$T/p.data" --stdio --sort srcline >"$T/stdio-sl" 2>/dev/null
cp "$T/p.data" "$T/gone.data"
tui_start 100 40 "PERFKIT_RESERVE_MIN=0 LC_ALL=C.UTF-8 '$PERFKIT' report -i gone.data"
expect "srcline: open" tui_wait "Press '?' for help"
rm "$T/gone.data"
tui_keys s C-u
tui_keys -l "srcline"
tui_keys Enter
expect "s srcline with the file gone: the table" tui_wait "Source:Line"
tui_keys E
expect "... E: every graph open" tui_wait_re '%--'
tui_keys P
expect "... P: the file named" tui_wait "written to perf.hist.3"
same_file "... P: report --stdio --sort srcline's text" "$T/stdio-sl" "$T/perf.hist.3"
tui_keys q
expect "q quits with status 0" test "$(tui_wait_exit)" = 0

# the same after pauses: the srclines of the model's frames were looked
# up in them (rt_lines_ahead), 's srcline' takes those
tui_start 100 40 "PERFKIT_RESERVE_MIN=0 LC_ALL=C.UTF-8 '$PERFKIT' report -i p.data"
expect "srcline after pauses: open" tui_wait "Press '?' for help"
sleep 2
tui_keys s C-u
tui_keys -l "srcline"
tui_keys Enter
expect "s srcline after pauses: the table" tui_wait "Source:Line"
tui_keys E
expect "... E: every graph open" tui_wait_re '%--'
tui_keys P
expect "... P: the file named" tui_wait "written to perf.hist.4"
same_file "... P: report --stdio --sort srcline's text" "$T/stdio-sl" "$T/perf.hist.4"
# the lines ranked in a pause too (rt_lines_rank): with another key, and
# the second time from the ranks kept
"$PERFKIT" report -i "$T/p.data" --stdio --sort dso,srcline >"$T/stdio-dsl" 2>/dev/null
tui_keys s C-u
tui_keys -l "dso,srcline"
tui_keys Enter
expect "s dso,srcline after pauses: the table" tui_wait_re "Shared Object +Source:Line"
tui_keys E
expect "... E: every graph open" tui_wait_re '%--'
tui_keys P
expect "... P: the file named" tui_wait "written to perf.hist.5"
same_file "... P: report --stdio --sort dso,srcline's text" "$T/stdio-dsl" "$T/perf.hist.5"
tui_keys s C-u
tui_keys -l "srcline"
tui_keys Enter
expect "s srcline again: the table" tui_wait_re "Self +Source:Line"
tui_keys E
expect "... E: every graph open" tui_wait_re '%--'
tui_keys P
expect "... P: the file named" tui_wait "written to perf.hist.6"
same_file "... P: report --stdio --sort srcline's text" "$T/stdio-sl" "$T/perf.hist.6"
tui_keys q
expect "q quits with status 0" test "$(tui_wait_exit)" = 0

# keys that name the thread on a profile of several threads and processes
# (forkexec): the rows made in their earliest samples' order, report's
# rows written over the model's (prof_set_row_room); 'P' writes report
# --stdio --sort's bytes, each key set after the last.  (The shell's
# process left out: --stdio splits a stripped program's unknown leaf
# addresses in two rows, as perf's entries, where the browser keeps one;
# rows under 0.5 % too: one-sample rows of garbage addresses in the
# kernel's chains tie, in an order the browser and --stdio do not share;
# and no sym key: rows of one chain with equal Children, main, child_spin,
# came once in another order under the sanitizers, not yet understood)
"$PERFKIT" record -g -F 2999 -o "$T/f.data" -- "$PK_BUILD/tests/workloads/forkexec" 120 >/dev/null 2>&1
n=$(ls "$T" | grep -c '^perf\.hist\.')   # P's next file: the first free number
tui_start 100 40 "PERFKIT_RESERVE_MIN=0 LC_ALL=C.UTF-8 '$PERFKIT' report -i f.data --comms forkexec --percent-limit 0.5"
expect "threads: open" tui_wait "Press '?' for help"
for keys in comm,tid,dso tid; do
	"$PERFKIT" report -i "$T/f.data" --comms forkexec --percent-limit 0.5 --stdio --sort "$keys" >"$T/stdio-$keys" 2>/dev/null
	expect "... the profile of $keys has two threads of forkexec or more" \
		test "$(grep -oE '^ +[0-9.]+%.* [0-9]+:forkexec' "$T/stdio-$keys" | grep -oE '[0-9]+:forkexec' | sort -u | wc -l)" -ge 2
	tui_keys s C-u
	tui_keys -l "$keys"
	tui_keys Enter
	expect "s $keys: the table" tui_wait_re "Tid:Command"
	tui_keys E
	expect "... E: every graph open" tui_wait_re '%--'
	tui_keys P
	expect "... P: the file named" tui_wait "written to perf.hist.$n"
	same_file "... P: report --stdio --sort $keys's text" "$T/stdio-$keys" "$T/perf.hist.$n"
	n=$((n + 1))
done
tui_keys q
expect "q quits with status 0" test "$(tui_wait_exit)" = 0
done_testing
