#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 1060 — perfkit report on a terminal is a browser (src/lib/tui), driven
# through tmux: open, expand a call graph and fold it, search, zoom into a
# DSO, command and thread and back, annotate, help, sort keys, Children off
# and on, P (the view as --stdio text: with every graph expanded, the same
# bytes as report --stdio), a resize, 40 columns, colours (none with
# NO_COLOR or --no-color), ASCII outside a UTF-8 locale, quit (Esc at the
# top asks first, as perf's).  --stdio and
# TERM=dumb print the text.  The profile: tests/workloads/calltree
# (main → a → b → c, main → d), whose rows order a > b > c > d by Children.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
tui_require
perf_event_require
"$PERFKIT" record -g -F 999 -o "$T/p.data" -- "$PK_BUILD/tests/workloads/calltree" 600 >/dev/null 2>&1
"$PERFKIT" report -i "$T/p.data" --stdio >"$T/stdio" 2>/dev/null
expect "the profile has calltree's c" grep -q '\[\.\] c$' "$T/stdio"
R="LC_ALL=C.UTF-8 '$PERFKIT' report -i p.data"

# PERFKIT_RESERVE_MIN=0: a heap reserve made in every pause and ended by
# each 's' (report.c rt_reserve), which a profile this small never needs
tui_start 80 24 "PERFKIT_RESERVE_MIN=0 $R"
expect "open: the table" tui_wait "Children      Self  Command"
expect "open: a row of calltree's functions" tui_wait_re '%  calltree +calltree +\[\.\] c$'
expect "open: the title names the event" tui_wait "of event 'cpu-clock'"
expect "open: the help hint" tui_wait "Press '?' for help"
expect "open: folded rows are marked" tui_wait_re '^▸ +[0-9.]+%'
expect "open: 24 lines, no more" test "$(tui_screen | wc -l)" -eq 24

# search: only rows whose symbol has "main" (main, __libc_start_call_main: either
# first, both graphs show a and d)
tui_keys / m a i n Enter
expect "search: the filter in the title" tui_wait "Symbol: main"
expect "search: c is filtered out" tui_wait_gone "[.] c"
# '/' again: the prompt holds the filter in force, to edit (perf's)
tui_keys /
expect "/ again: the prompt starts with main" tui_wait "Symbol filter: main"
tui_keys Escape
expect "... Esc: the filter kept" tui_wait "Symbol: main"
# expand the first row: its graph shows main's callees a and d
tui_keys Enter
expect "expand: the call graph of main (a under it)" tui_wait_re '--[0-9.]+%--a$'
# d is below the screen when a chain under c (a timer interrupt's, over the
# graph's threshold in some runs) takes its lines: a page down shows it
paged=
tui_screen | grep -qE -- '--[0-9.]+%--d$' || { tui_keys NPage; paged=1; }
expect "expand: ... and d" tui_wait_re '--[0-9.]+%--d$'
[ -z "$paged" ] || tui_keys Home
expect "expand: the row is marked open" tui_wait_re '^▾ +[0-9.]+%'
tui_keys Left
expect "collapse (Left): the graph is gone" tui_wait_gone "%--a"
tui_keys Right
expect "expand (Right)" tui_wait_re '--[0-9.]+%--a$'
# 'a' on a call-graph line: the function the line names (a, which the
# search hides), not the row's (main)
tui_select '--[0-9.]+%--a$'
tui_keys a
expect "annotate a call-graph line: the view of a" tui_wait "Annotation of a"
# its callees' share, and on its call of b the samples under that call,
# as annotate --stdio prints them (the browser's own pass counted them)
"$PERFKIT" annotate --stdio -i "$T/p.data" a >"$T/ann-a" 2>/dev/null
want_with=$(grep -o '[0-9.]*% with its callees' "$T/ann-a")
want_call=$(grep -o '<b>  # callees: [0-9.]*% of all samples' "$T/ann-a")
expect "annotate --stdio: a's callees share and call of b ($want_with; $want_call)" \
	test -n "$want_with" -a -n "$want_call"
expect "annotate a: the header has its callees' share, as --stdio's ($want_with)" tui_wait "   $want_with"
expect "annotate a: the call of b has its callees' share, as --stdio's" tui_wait "$want_call"
tui_keys q
expect "back from it: the graph as it was" tui_wait_re '--[0-9.]+%--a$'
tui_keys Left
expect "collapse again" tui_wait_gone "%--a"
tui_keys Escape
expect "Esc: the search is undone" tui_wait "[.] c"
expect "Esc: ... and out of the title" tui_wait_gone "Symbol: main"

# zoom into main's DSO (calltree): no kernel or libc rows
tui_select '\[\.\] main$'
tui_keys d
expect "zoom DSO: in the title" tui_wait "DSO: calltree |"
expect "zoom DSO: no kernel rows" tui_wait_gone "[k]"
expect "zoom DSO: no libc rows" tui_wait_gone "libc"
expect "zoom DSO: its column hidden, as perf's" tui_wait_re "Self  Command +Symbol *$"
# rows main, a, b, c (by Children): the fourth is c; annotate it
tui_keys Down Down Down a
expect "annotate: the view of c" tui_wait "Annotation of c"
expect "annotate: the source line of the loop" tui_wait "calltree.c:"
expect "annotate: an instruction with samples" tui_wait_re '^ +[0-9]+\.[0-9]+ : +[0-9a-f]+: '
tui_screen >"$T/ann1"
# c's call of step named, as perf's annotate ("callq 0x1149" had no name)
tui_keys End
expect "annotate: the call named (<step>)" tui_wait_re 'call[q]? +0x[0-9a-f]+ <step>$'
# the jump back to the top of c's loop marked, as annotate --stdio marks it
expect "annotate: c's loop's jump back marked" tui_wait_re ' <c\+0x[0-9a-f]+>  # loop back$'
tui_keys q
expect "annotate: q goes back to the table" tui_wait "Children      Self  Command"
# 'a' again on that row: the text kept, the same screen
sleep 1
tui_keys a
expect "annotate again: the view of c" tui_wait "Annotation of c"
expect "annotate again: the source line" tui_wait "calltree.c:"
tui_screen >"$T/ann2"
expect "annotate again: the same screen" cmp -s "$T/ann1" "$T/ann2"
tui_keys q
expect "annotate: q goes back again" tui_wait "Children      Self  Command"
# a pause on b (the row above): a thread annotates it then (rt_idle), and
# 'a' shows that text: b's
tui_keys Up
sleep 1
tui_keys a
expect "annotate after a pause: the view of b" tui_wait "Annotation of b"
expect "annotate after a pause: b's source line" tui_wait "calltree.c:"
expect "annotate after a pause: an instruction with samples" tui_wait_re '^ +[0-9]+\.[0-9]+ : +[0-9a-f]+: '
tui_keys q
expect "annotate after a pause: q goes back" tui_wait "Children      Self  Command"
tui_keys Down
tui_keys d
expect "zoom DSO again: zoomed out" tui_wait "[k]"
expect "zoom DSO again: the column back" tui_wait_re "Self  Command +Shared Object +Symbol *$"
tui_keys Home c
expect "zoom command: in the title" tui_wait "Command: calltree"
expect "zoom command: its column hidden" tui_wait_re "Self  Shared Object +Symbol *$"
tui_keys c
expect "zoom command again: out" tui_wait_gone "Command: calltree"
tui_keys Home t
expect "zoom thread: in the title" tui_wait_re "Thread: [0-9]+"
tui_keys Escape
expect "Esc: the thread zoom undone" tui_wait_gone "Thread:"

# help; first a key of perf's browser this one has not: said, not ignored
tui_keys H
expect "H: no such key, said" tui_wait "'H': no such key here ('?' lists the keys)"
tui_keys '?'
expect "help: the keys" tui_wait "zoom into the selected row's DSO"
expect "help: c and t (rows of commands)" tui_wait "zoom into the selected row's thread"
expect "help: + and - (a Children view)" tui_wait "Children column on / off"
tui_keys Escape
expect "help: Esc goes back" tui_wait "Children      Self  Command"

# Children off and on
tui_keys -
expect "-: Overhead only" tui_wait "  Overhead  Command"
expect "-: no Children column" tui_wait_gone "Children"
tui_keys +
expect "+: Children again" tui_wait "Children      Self"

# P with every graph expanded: report --stdio's bytes
tui_keys E
expect "E: every graph open" tui_wait_re '%--'   # (which lines show: the runs' samples)
tui_keys P
expect "P: the file named" tui_wait "written to perf.hist.0"
same_file "P: the view is report --stdio's text" "$T/stdio" "$T/perf.hist.0"
tui_keys C
expect "C: every graph folded" tui_wait_gone "%--"

# sort keys: dso alone
tui_keys s
expect "s: asks for the keys" tui_wait "Sort keys"
for _ in $(seq 12); do tui_keys BSpace; done
tui_keys d s o Enter
expect "s dso: one key column" tui_wait_re "Self  Shared Object *$"
expect "s dso: a row per DSO" tui_wait_re '%  \[kernel\.kallsyms\] *$'
tui_keys s
tui_keys C-u   # the pre-filled keys cleared at once, as readline's Ctrl-U
tui_keys b o g u s Enter
expect "s bogus: refused on the status line" tui_wait "unknown sort key 'bogus'"
# the keys shown (dso) are replaced by what is typed, or added to after ','
tui_keys s c o m m Enter
expect "s, comm typed over dso: comm alone" tui_wait_re "Self  Command *$"
tui_keys s , d s o Enter
expect "s, ',dso' after comm: comm,dso" tui_wait_re "Self  Command +Shared Object *$"
# Ctrl-W takes a word and the ',' before it: comm,dso,pid -> comm,dso, -> comm,
tui_keys s , p i d C-w C-w s y m Enter
expect "s, ',pid', Ctrl-W twice, 'sym': comm,sym" tui_wait_re "Self  Command +Symbol *$"

# resize
_tm resize-window -t tui -x 100 -y 30
expect "resize: 30 lines drawn" tui_wait_re '^ *[0-9]+ rows  Press'
# the status line seen may be the old screen's 24th, drawn before the
# resize reached the browser: wait for the 30th
status30() {
	local end=$((SECONDS + TUI_TIMEOUT))
	until [ "$(tui_screen | sed -n 30p | grep -c 'Press')" -eq 1 ]; do
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.1
	done
}
expect "resize: the status line is the 30th" status30

tui_keys q
expect "q quits with status 0" test "$(tui_wait_exit)" = 0

# 'a' on a call-graph line of periods (-g ...,period: "--1234--a")
# opened with --no-children: '+' shows the Children view with perf's
# default order for it (caller), '-' the Self view in callee order again,
# each 'P' (every graph unfolded) the bytes of --stdio in that mode
"$PERFKIT" report -i "$T/p.data" --stdio --no-children >"$T/stdio-nc" 2>/dev/null
tui_start 80 24 "$R --no-children"
expect "--no-children: the Self view" tui_wait "  Overhead  Command"
tui_keys +
expect "--no-children, +: Children" tui_wait "Children      Self"
tui_keys E
expect "--no-children, +, E: every graph open" tui_wait_re '%--'
tui_keys P
expect "--no-children, +, P: the file named" tui_wait "written to perf.hist.1"
same_file "--no-children, +, P: report --stdio's text (Children, caller order)" "$T/stdio" "$T/perf.hist.1"
tui_keys -
expect "--no-children, +, -: Self again" tui_wait "  Overhead  Command"
tui_keys E
tui_keys P
expect "--no-children, +, -, P: the file named" tui_wait "written to perf.hist.2"
same_file "--no-children, +, -, P: report --stdio --no-children's text (callee order)" "$T/stdio-nc" "$T/perf.hist.2"
tui_keys q
tui_wait_exit >/dev/null

tui_start 100 30 "$R -g graph,0.5,caller,function,period"
expect "period graph: the table" tui_wait "Press '?'"
tui_keys / m a i n Enter Enter
expect "period graph: main's graph, by period" tui_wait_re '[0-9]--a$'
tui_select '[0-9]--a$'
tui_keys a
expect "period graph: 'a' on a's line annotates a" tui_wait "Annotation of a"
tui_keys q q q q
tui_wait_exit >/dev/null

# 'a' on a call-graph line when no row has a symbol (--sort comm, as
# --sort dso or pid): the function the line names, found by its name
# (perf annotates the callchain entry's symbol)
tui_start 100 30 "$R --sort comm"
expect "--sort comm: the table" tui_wait "Press '?'"
# on the row (a command's: many functions), refused as perf refuses it
# (it annotated the row's first frame's function, one of no samples)
tui_keys a
expect "--sort comm, 'a' on the row: refused, said" tui_wait "annotation is for rows of functions: add sym"
expect "... no annotation" tui_wait_gone "Annotation of"
tui_keys Enter
expect "--sort comm: the row's graph" tui_wait_re '--[0-9.]+%--a$'
tui_select '--[0-9.]+%--a$'
tui_keys a
expect "--sort comm, 'a' on a's line: a's annotation" tui_wait "Annotation of a"
expect "--sort comm, 'a': its callees' share, as annotate --stdio's ($want_with)" tui_wait "   $want_with"
tui_keys q
expect "--sort comm, back: the graph as it was" tui_wait_re '--[0-9.]+%--a$'
tui_keys q q q
tui_wait_exit >/dev/null

# 40 columns: the percentages and the symbol (the last key) on each row
tui_start 40 24 "$R"
expect "40 columns: rows" tui_wait_re '^▸ +[0-9.]+% +[0-9.]+%  \[\.\] main$'
expect "40 columns: the hidden key columns said in the header" tui_wait "Symbol (+2 hidden)"
expect "40 columns: no line longer than the screen" test "$(tui_screen | sed 's/▸/+/' | awk '{ if (length($0) > 40) n++ } END { print n + 0 }')" -eq 0
tui_keys Enter
expect "40 columns: a graph" tui_wait "%--a"
# the s prompt wider than the screen: its end shown, where the typing is
tui_keys s t i d
last_line() { tui_screen | tail -1 | grep -qE -- "$1"; }
expect "40 columns: s shows the keys typed" wait_until 10 last_line ': tid *$'
tui_keys Escape
expect "40 columns: Esc leaves the prompt" wait_until 10 sh -c "! tmux -S '$TUI_SOCK' -f /dev/null capture-pane -p -t tui | tail -1 | grep -q ': tid'"
# Esc at the top asks first (perf's "Do you really want to exit?"): n
# stays, y quits
tui_keys Escape
expect "Esc at the top: asks" tui_wait "Do you really want to exit?"
tui_keys n
expect "n: the browser stays" tui_wait_gone "Do you really want to exit?"
expect "... still the table" tui_wait "%--a"
tui_keys Escape
tui_wait "Do you really want to exit?" >/dev/null
tui_keys y
expect "40 columns: Esc, y quits with status 0" test "$(tui_wait_exit)" = 0

# colours: red (31) for rows at 5 % and more, none with NO_COLOR or --no-color
has_red() { _tm capture-pane -e -p -t tui | grep -q $'\e\\[31m *[0-9.]*%'; }
drawn() { tui_wait "Press '?'" >/dev/null && tui_wait "[.] d" >/dev/null; }
tui_start 80 24 "$R"
drawn
expect "colours: a red percentage" wait_until 30 has_red
tui_keys q; tui_wait_exit >/dev/null
tui_start 80 24 "NO_COLOR=1 $R"
drawn
expect_fail "NO_COLOR: no red" has_red
tui_keys q; tui_wait_exit >/dev/null
tui_start 80 24 "$R --no-color"
drawn
expect_fail "--no-color: no red" has_red
tui_keys q; tui_wait_exit >/dev/null

# a non-UTF-8 locale: ASCII markers
tui_start 80 24 "LC_ALL=C '$PERFKIT' report -i p.data"
expect "C locale: ASCII fold markers" tui_wait_re '^\+ +[0-9.]+%'
utf8_marker() { tui_screen | grep -q '▸'; }
expect_fail "C locale: no UTF-8 marker" utf8_marker
tui_keys q; tui_wait_exit >/dev/null

# --stdio and TERM=dumb on a terminal: the text
tui_start 200 50 "$R --stdio | head -12"
expect "--stdio on a terminal: text" tui_wait "# Children      Self  Command"
tui_wait_exit >/dev/null
tui_start 200 50 "TERM=dumb $R 2>&1 | head -12"
expect "TERM=dumb: text" tui_wait "# Children      Self  Command"
tui_wait_exit >/dev/null

# arrows typed before the browser is up (while the file is read) arrive in
# the terminal's normal cursor mode (ESC [ B): they are arrows, never an
# Esc that quits
tui_start 100 24 "sleep 0.5; $R"
tui_keys Down Down
expect "arrows typed before it opens: the browser opens and stays" tui_wait "Press '?' for help"
tui_keys Enter
expect "... and they moved the selection: the third row unfolds" tui_wait_re '^▾ '
expect "... the third row" sh -c "tmux -S '$TUI_SOCK' -f /dev/null capture-pane -p -t tui | sed -n 5p | grep -q '^▾ '"
tui_keys q; tui_keys q
done_testing
