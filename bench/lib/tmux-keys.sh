# SPDX-License-Identifier: GPL-2.0-or-later
# bench/lib/tmux-keys.sh — sourced by the benchmarks that time a terminal
# browser's keys in tmux (bench/tui.sh, bench/report-sort-keys.sh).
# The caller sets PK (the perfkit binary) and BUILD, calls keys_init, starts
# the browser in session "b" and puts the pane's pid in spid
# (tm display -p -t b '#{pane_pid}').
#   keys_init NAME  a work folder in W and a tmux socket of its own, both
#                   removed on exit; exits 1 when PK or tmux is missing
#   tm ARGS...      tmux on that socket, no config file
#   now             wall-clock seconds (date +%s.%N)
#   median          the median of the numbers on stdin, one a line
#   screen          the pane's text
#   wait_for RE [SECS]  poll the screen every 5 ms until RE matches (default
#                   600 s; then the screen goes to stderr and it returns 1)
#   cpu             CPU seconds the pane's program has used so far (from
#                   /proc/PID/schedstat, so a loaded machine changes it little)
#   key NAME RE KEYS...  send KEYS, time until RE is on the screen: appends
#                   "NAME<TAB>wall ms<TAB>CPU ms" to $W/keys, and prints it as
#                   a table row too when KEYS_PRINT=1.  Wall time includes
#                   the tmux round trip (an upper bound).
keys_init() {
	W=$(mktemp -d "${TMPDIR:-/tmp}/perfkit-bench.XXXXXX")
	SOCK="pk-bench-$1-$$"
	trap 'tm kill-server 2>/dev/null; rm -rf "$W"' EXIT
	[ -x "$PK" ] || { echo "build $PK first (make BUILD=$BUILD)" >&2; exit 1; }
	command -v tmux >/dev/null || { echo "tmux not installed (scripts/install-deps)" >&2; exit 1; }
}
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
now() { date +%s.%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
screen() { tm capture-pane -p -t b; }
wait_for() {
	local end=$((SECONDS + ${2:-600}))
	until screen | grep -qE -- "$1"; do
		[ "$SECONDS" -ge "$end" ] && { echo "timeout waiting for /$1/; screen:" >&2; screen >&2; return 1; }
		sleep 0.005
	done
}
cpu() { awk '{ printf "%.4f\n", $1 / 1e9 }' "/proc/$spid/schedstat" 2>/dev/null || echo 0; }
key() {
	local name=$1 re=$2 t0 c0 wall cput
	shift 2
	sleep "${PAUSE:-0}"   # a person's pause: the browser's idle work runs in it
	t0=$(now)
	c0=$(cpu)
	tm send-keys -t b "$@"
	wait_for "$re"
	wall=$(echo "($(now) - $t0) * 1000" | bc -l)
	cput=$(echo "($(cpu) - $c0) * 1000" | bc -l)
	printf '%s\t%.0f\t%.0f\n' "$name" "$wall" "$cput" >>"$W/keys"
	if [ "${KEYS_PRINT:-0}" = 1 ]; then
		printf '%-34s %8.0f ms wall %8.0f ms CPU\n' "$name" "$wall" "$cput"
	fi
}
