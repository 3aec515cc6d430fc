# SPDX-License-Identifier: GPL-2.0-or-later
# tui-lib.sh — drive a full-screen program in tmux (source after lib.sh):
#   tui_require                 skip the whole test (done_testing; exit) without tmux
#   tui_start COLS ROWS CMD…    run CMD (a shell command line) in a COLS×ROWS
#                               terminal; its exit status goes to $T/tui.rc
#   tui_keys KEY…               tmux send-keys (Enter, Down, Escape, BSpace, text)
#   tui_screen [-e]             the screen now (-e: with colour sequences)
#   tui_wait TEXT [SECS]        wait until the screen shows TEXT (fixed string);
#                               on timeout prints the screen as diagnostics, fails
#   tui_wait_re RE [SECS]       the same with an extended regular expression
#   tui_wait_gone TEXT [SECS]   wait until TEXT is no longer on the screen
#   tui_wait_exit [SECS]        wait until CMD exited; prints its status
#   tui_select RE               move the selection to the first line matching RE
#                               (on the first screen; rows start on line 3)
# Everything waits for a state, never a fixed time: the machine is loaded.
TUI_SOCK="$T/tmux.sock"   # removed with $T
TUI_TIMEOUT=${TUI_TIMEOUT:-90}

_tm() { tmux -S "$TUI_SOCK" -f /dev/null "$@"; }

tui_require() {
	if ! have tmux; then
		skip "tmux is not installed (scripts/install-deps installs it)"
		done_testing
		exit
	fi
	trap '_tm kill-server 2>/dev/null; rm -rf "$T"' EXIT
}

tui_start() {
	local cols=$1 rows=$2
	shift 2
	_tm kill-server 2>/dev/null
	rm -f "$T/tui.rc"
	# the pane stays after the program ends, so its last screen can be read
	# (a loaded machine has failed to start a server once: tried again)
	local try
	for try in 1 2 3; do
		_tm new-session -d -s tui -x "$cols" -y "$rows" \
			"cd '$T' && { $*; } ; echo \$? >'$T/tui.rc'; exec sleep 100000" && return 0
		_tm kill-server 2>/dev/null
		sleep 1
	done
	return 1
}

tui_keys() { _tm send-keys -t tui "$@"; }

tui_screen() { _tm capture-pane -p "$@" -t tui; }

_tui_fail() {
	diag "$1; the screen:"
	tui_screen | sed 's/^/  |/' | while IFS= read -r l; do echo "# $l"; done
	return 1
}

tui_wait() {
	local end=$((SECONDS + ${2:-$TUI_TIMEOUT}))
	until tui_screen | grep -qF -- "$1"; do
		[ "$SECONDS" -ge "$end" ] && { _tui_fail "no '$1' on the screen"; return 1; }
		sleep 0.1
	done
}

tui_wait_re() {
	local end=$((SECONDS + ${2:-$TUI_TIMEOUT}))
	until tui_screen | grep -qE -- "$1"; do
		[ "$SECONDS" -ge "$end" ] && { _tui_fail "nothing matches /$1/ on the screen"; return 1; }
		sleep 0.1
	done
}

tui_wait_gone() {
	local end=$((SECONDS + ${2:-$TUI_TIMEOUT}))
	while tui_screen | grep -qF -- "$1"; do
		[ "$SECONDS" -ge "$end" ] && { _tui_fail "'$1' still on the screen"; return 1; }
		sleep 0.1
	done
}

tui_wait_exit() {
	local end=$((SECONDS + ${1:-$TUI_TIMEOUT}))
	until [ -s "$T/tui.rc" ]; do
		[ "$SECONDS" -ge "$end" ] && { _tui_fail "the program did not exit"; return 1; }
		sleep 0.1
	done
	cat "$T/tui.rc"
}

tui_select() {
	local n
	n=$(tui_screen | grep -nE -- "$1" | head -1 | cut -d: -f1)
	[ -n "$n" ] || { _tui_fail "no /$1/ to select"; return 1; }
	# Down passes over a call graph's connector lines ("  |  |")
	[ "$n" -gt 3 ] && n=$((3 + $(tui_screen | sed -n "3,$((n - 1))p" | grep -cvE '^[ |]*$')))
	tui_keys Home
	while [ "$n" -gt 3 ]; do
		tui_keys Down
		n=$((n - 1))
	done
}
