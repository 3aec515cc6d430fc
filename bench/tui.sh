#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/tui.sh [BUILD] — report's terminal browser on a large perf.data:
# the time until its first screen (run in tmux, 200x50, polled every few ms
# with capture-pane) against `perfkit report --stdio >/dev/null` in the
# same run, then how long each key takes to change the screen (send-keys to
# the screen showing the change; the tmux round trip included, so these
# are upper bounds), and `perf report`'s own TUI opening time the same way.
# Wall times (the browser is interactive: the wait is what a user sees)
# and the CPU time the program spent (from /proc/PID/schedstat, so a loaded
# machine changes it little): on a loaded machine read the CPU columns and
# the ratios, measured in the same run.
#   TUI_DATA=FILE   the perf.data (default /work/big/big.data when there,
#                   else a recording of tests/workloads/calltree made here)
#   RUNS=N          openings of each (default 3; the median is printed)
#   PERF_TUI=0      skip perf report's TUI (it needs minutes and GBs on big files)
#   PERF_TIMEOUT=S  limit for perf's opening (default 900)
#   TUI_SYM=NAME    the symbol 'a' annotates (found with '/'; default: the
#                   hottest Self row of a user DSO with a symbol)
# The 1 M-sample file of the acceptance: /work/big/tui-1m.data, made with
#   perf record -g -F 11000 -o tui-1m.data -- make -j2
# in a fresh copy of the perfkit tree (985 K samples, 89 MB on 2026-12-05;
# the tree grows: an earlier copy gave 936 K at -F 17000).
# 'P' answers when the status line says "writing perf.hist.0" (a child
# writes the file); the time until "written to" is printed after the keys.
#   PAUSE=S         seconds before each key (default 0.5, a person's pause:
#                   after 100 ms without a key the browser sorts the rest
#                   of a table sorted in part and annotates the selected
#                   row, for 'a'; PAUSE=0 times keys sent back to back,
#                   the first Enter meeting its call graph being made)
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
TOP=$PWD
PK=$TOP/$BUILD/perfkit
RUNS=${RUNS:-3}
PERF_TUI=${PERF_TUI:-1}
PAUSE=${PAUSE:-0.5}
PERF_TIMEOUT=${PERF_TIMEOUT:-900}
. bench/lib/tmux-keys.sh
keys_init tui

DATA=${TUI_DATA:-}
if [ -z "$DATA" ] && [ -r /work/big/big.data ]; then
	DATA=/work/big/big.data
fi
if [ -z "$DATA" ]; then
	DATA=$W/tui.data
	"$PK" record -g -F 20000 -o "$DATA" -- "$TOP/$BUILD/tests/workloads/calltree" 30000 >/dev/null 2>&1
fi
since() { echo "$(now) - $1" | bc -l; }
start() {   # start CMD — in a fresh 200x50 terminal; its shell's pid in $spid
	tm kill-server 2>/dev/null || true
	tm new-session -d -s b -x 200 -y 50 "cd '$W' && LC_ALL=C.UTF-8 exec $*"
	spid=$(tm display -p -t b '#{pane_pid}')
}

echo "input: $DATA, $(du -h "$DATA" | cut -f1)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
cat "$DATA" >/dev/null

: >"$W/stdio"
: >"$W/open"
: >"$W/stdio_cpu"
: >"$W/open_cpu"
: >"$W/open_hwm"
for _ in $(seq "$RUNS"); do
	t0=$(now)
	/usr/bin/time -f '%U %S' -o "$W/t" "$PK" report --stdio -i "$DATA" >/dev/null 2>&1
	since "$t0" >>"$W/stdio"
	awk '{ print $1 + $2 }' "$W/t" >>"$W/stdio_cpu"
	start "'$PK' report -i '$DATA'"
	t0=$(now)
	wait_for "Press '\\?' for help"
	since "$t0" >>"$W/open"
	cpu >>"$W/open_cpu"
	awk '/^VmHWM/ { print $2 / 1024 }' "/proc/$spid/status" >>"$W/open_hwm"
	tm kill-server
done
stdio=$(median <"$W/stdio")
open=$(median <"$W/open")
stdio_cpu=$(median <"$W/stdio_cpu")
open_cpu=$(median <"$W/open_cpu")
open_hwm=$(median <"$W/open_hwm")

# keys: each from the state the one before left
start "'$PK' report -i '$DATA'"
wait_for "Press '\\?' for help"
: >"$W/keys"
KEYS_PRINT=1
# Enter answers at once (the row opens); its graph shows when the thread
# making the view's trees is done: the time until then printed after the keys
sleep "$PAUSE"
t0=$(now)
PAUSE=0 key "Enter (expand the first row)"   '^▾ '          Enter
wait_for '^ +(\||---|--[0-9])'
printf -v gdone '%.0f' "$(echo "($(now) - $t0) * 1000" | bc -l)"
key "Left (collapse it)"             '^▸ .*'        Left
key "Down x5"                        '^▸ '          Down Down Down Down Down
key "PgDn"                           '^▸ '          NPage
key "E (expand all)"                 '^▾ '          Home E
key "C (collapse all)"               '^▸ '          C
key "/ search (main, Enter)"         'Symbol: main' / m a i n Enter
key "Esc (search off)"               '^[0-9]+ rows'  Escape
key "d (zoom into the DSO)"          'DSO: '        d
key "d (zoom out)"                   '^Samples: '   d
key "t (zoom into the thread)"       'Thread: '     t
key "Esc (zoom out)"                 '^Samples: '   Escape
key "- (Children off)"               '  Overhead  ' -
key "+ (Children on)"                'Children      Self' +
key "? (help)"                       '^Keys'        '?'
key "q (back)"                       'Children      Self' q
t0=$(now)
key "P (write perf.hist.0: answer)"  'writing perf.hist.0|written to perf.hist.0' P
wait_for 'written to perf.hist.0'
printf -v pdone '%.0f' "$(echo "($(now) - $t0) * 1000" | bc -l)"
sym=${TUI_SYM:-$("$PK" report --stdio --no-children -g none -q -i "$DATA" 2>/dev/null |
	awk '$4 == "[.]" && $5 !~ /^0x/ && $3 != "[unknown]" && $3 !~ /^\[/ { print $5; exit }')}
key "/ search (the symbol to annotate)" "Symbol: $sym" / "$sym" Enter
key "a (annotate $sym, first)"       'Annotation of|annotate: ' a
key "q (back)"                       'Children      Self' q
key "a (annotate again)"             'Annotation of|annotate: ' a
key "q (back)"                       'Children      Self' q
key "Esc (search off)"               '^Samples: '   Escape
key "s dso (aggregate again)"        'Self  Shared Object *$' s BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace d s o Enter
key "s sym (typed over the keys)"    'Self  Symbol *$' s s y m Enter
key "s comm,dso,sym (back)"          'Self  Command +Shared Object +Symbol *$' s c o m m , d s o , s y m Enter
tm kill-server

pf=""
pf_cpu=""
if [ "$PERF_TUI" = 1 ] && command -v perf >/dev/null; then
	start "perf report -i '$DATA'"
	t0=$(now)
	if wait_for "Event count \\(approx\\.\\)" "$PERF_TIMEOUT"; then
		pf=$(since "$t0")
		pf_cpu=$(cpu)
	fi
	tm kill-server
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "P: perf.hist.0 complete after $pdone ms wall (written by a child while the keys answer)"
echo "Enter: its call graph drawn after $gdone ms wall (made by a thread while the keys answer)"
printf '%-46s %9s %9s\n' "" "wall s" "CPU s"
printf '%-46s %9.2f %9.2f\n' "perfkit report --stdio >/dev/null (median)" "$stdio" "$stdio_cpu"
printf '%-46s %9.2f %9.2f  (%.2fx --stdio wall, %.2fx CPU; aim < 2x)\n' \
	"perfkit report browser, first screen (median)" "$open" "$open_cpu" \
	"$(echo "$open / $stdio" | bc -l)" "$(echo "$open_cpu / $stdio_cpu" | bc -l)"
printf '%-46s %9.0f MB\n' "perfkit report browser, peak memory at it" "$open_hwm"
[ -n "$pf" ] && printf '%-46s %9.2f %9.2f  (%.2fx perfkit browser wall, %.2fx CPU)\n' \
	"perf report TUI, first screen" "$pf" "$pf_cpu" "$(echo "$pf / $open" | bc -l)" \
	"$(echo "$pf_cpu / $open_cpu" | bc -l)"
slow=$(awk -F'\t' '$2 > 100 { n++ } END { print n + 0 }' "$W/keys")
slowc=$(awk -F'\t' '$3 > 100 { n++ } END { print n + 0 }' "$W/keys")
echo "keys over 100 ms: $slowc of $(wc -l <"$W/keys") by CPU time, $slow by wall time (the tmux round trip included)"
# the round trip itself: the median wall time of the keys that used under
# 5 ms of CPU (send-keys, the redraw, capture-pane polled every 5 ms)
rt=$(awk -F'\t' '$3 < 5 { print $2 }' "$W/keys" | median)
if [ -n "$rt" ]; then
	slowr=$(awk -F'\t' -v rt="$rt" '$2 - rt > 100 { n++ } END { print n + 0 }' "$W/keys")
	echo "tmux round trip (median wall of the keys under 5 ms CPU): $rt ms; keys over 100 ms of wall beyond it: $slowr"
fi
