#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 1070 — report's browser ended by a signal (Ctrl-C's SIGINT, SIGTERM,
# SIGHUP) gives the terminal back as 'q' does: off the alternate screen,
# the cursor shown, the keypad's mode off (a fresh user's Ctrl-C left the
# shell's prompt on the browser's screen with no cursor); the exit status
# is the signal's (128 + its number), as for any program Ctrl-C stops.
# The signal is sent to perfkit itself: tmux's Ctrl-C would reach the
# test's shell around it too.  mkchainlvl.py's file: no recording needed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
tui_require
if ! have python3; then skip "python3 not installed"; done_testing; exit; fi
python3 "$TOP/tests/e2e/mkchainlvl.py" "$T/sig.data"
flags() { _tm display -p -t tui '#{alternate_on} #{cursor_flag} #{keypad_flag}'; }
for sig in INT TERM HUP; do
	tui_start 100 30 "LC_ALL=C.UTF-8 '$PERFKIT' report -i sig.data"
	expect "$sig: the browser is open" tui_wait "Children      Self"
	expect "$sig: on the alternate screen, cursor hidden" test "$(flags | cut -d' ' -f1,2)" = "1 0"
	pid=$(pgrep -P "$(_tm display -p -t tui '#{pane_pid}')" -x perfkit | head -1)
	kill -"$sig" "$pid"
	rc=$(tui_wait_exit)
	expect "$sig: exit status $rc (128 + the signal's number)" test "$rc" = $((128 + $(kill -l "$sig")))
	expect "$sig: off the alternate screen, the cursor shown, keypad mode off" test "$(flags)" = "0 1 0"
done
# 'q' leaves it the same way
tui_start 100 30 "LC_ALL=C.UTF-8 '$PERFKIT' report -i sig.data"
expect "q: the browser is open" tui_wait "Children      Self"
tui_keys q
expect "q: exit status 0" test "$(tui_wait_exit)" = 0
expect "q: the terminal as after a signal" test "$(flags)" = "0 1 0"
done_testing
