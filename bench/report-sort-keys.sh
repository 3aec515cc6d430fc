#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/report-sort-keys.sh [BUILD] — how long report's browser takes to
# show the table again after 's' (new sort keys) and '-'/'+' (Children off
# and on) on a large perf.data: the rows come from the aggregation model
# (src/lib/profile) without reading the samples again; the aim is 100 ms on
# about 1 M samples (issue 14).  Run in tmux (200x50), the screen polled
# every few ms with capture-pane, so wall times include the tmux round
# trip; CPU time is the browser's own (/proc/PID/schedstat), which a loaded
# machine changes little.  Median of RUNS.
#   SORT_DATA=FILE  the perf.data (default /work/big/tui-1m.data when there,
#                   else a recording of tests/workloads/calltree made here)
#   PK=BINARY       the perfkit to time (default BUILD/perfkit)
#   RUNS=N          repetitions of each key (default 3)
#   PAUSE=S         seconds between keys (default 0.5, a person's pause:
#                   after 's' the browser sorts the first rows only, the
#                   rest when idle for 100 ms; PAUSE=0 times keys that
#                   come before that, such as '-' right after 's')
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
TOP=$PWD
PK=${PK:-$TOP/$BUILD/perfkit}
RUNS=${RUNS:-3}
PAUSE=${PAUSE:-0.5}
. bench/lib/tmux-keys.sh
keys_init sort

DATA=${SORT_DATA:-}
[ -z "$DATA" ] && [ -r /work/big/tui-1m.data ] && DATA=/work/big/tui-1m.data
if [ -z "$DATA" ]; then
	DATA=$W/sort.data
	"$PK" record -g -F 20000 -o "$DATA" -- "$TOP/$BUILD/tests/workloads/calltree" 30000 >/dev/null 2>&1
fi

echo "input: $DATA, $(du -h "$DATA" | cut -f1), $("$PK" report --stdio -i "$DATA" -g none --no-children 2>/dev/null | sed -n 's/^# Samples: //p' | head -1)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
tm kill-server 2>/dev/null || true
tm new-session -d -s b -x 200 -y 50 "cd '$W' && LC_ALL=C.UTF-8 exec '$PK' report -i '$DATA'"
spid=$(tm display -p -t b '#{pane_pid}')
wait_for "Press '\\?' for help"
: >"$W/keys"
# keys never asked before in this browser (no part of their rows made yet)
key "s sym,tid (first time)" 'Self  Symbol +Tid:Command *$' s C-u s y m , t i d Enter
for _ in $(seq "$RUNS"); do
	key "s dso"              'Self  Shared Object *$'   s C-u d s o Enter
	key "s sym"              'Self  Symbol *$'          s C-u s y m Enter
	key "s comm,dso,sym"     'Self  Command .*Symbol'   s C-u c o m m , d s o , s y m Enter
	key "s pid"              'Self +Pid:Command *$'     s C-u p i d Enter
	key "s comm,dso,sym"     'Self  Command .*Symbol'   s C-u c o m m , d s o , s y m Enter
	key "- (Children off)"   '  Overhead  '             -
	key "+ (Children on)"    'Children      Self'       +
done
# lines differ within a function: the rows from the model's frames by address
key "s srcline (by address)" 'Self  Source:Line *$'      s C-u s r c l i n e Enter
tm kill-server
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %14s %14s\n' "key" "wall ms (med)" "CPU ms (med)"
for k in "s sym,tid (first time)" "s dso" "s sym" "s comm,dso,sym" "s pid" "- (Children off)" "+ (Children on)" \
	"s srcline (by address)"; do
	printf '%-22s %14s %14s\n' "$k" "$(awk -F'\t' -v k="$k" '$1 == k { print $2 }' "$W/keys" | median)" \
		"$(awk -F'\t' -v k="$k" '$1 == k { print $3 }' "$W/keys" | median)"
done
