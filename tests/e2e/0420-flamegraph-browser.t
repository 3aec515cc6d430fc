#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The flame graph page in a real browser: Debian's chromium, headless, driven
# by playwright-core (tests/browser, installed by scripts/install-deps).  The
# node script clicks a frame and checks the zoom (full width, ancestors dimmed,
# the rest hidden), resets, searches through the button, Ctrl-F and the case
# toggle and checks the matched share and the highlighted frames against the
# stack tree of tests/browser/flame.folded, and restores zoom and search from
# the URL, over http and file://, for the default and the --inverted graph.
# PK_KEEP_SHOTS=DIR keeps the screenshots.
. "$(dirname "$0")/lib.sh"

B=$TOP/tests/browser
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if ! have node; then
	skip "node is not installed (scripts/install-deps)"
	done_testing; exit
fi
if [ ! -x "$CHROMIUM" ]; then
	skip "chromium is not installed at $CHROMIUM (scripts/install-deps)"
	done_testing; exit
fi
if [ ! -f "$B/node_modules/playwright-core/package.json" ]; then
	not_ok "playwright-core is missing from tests/browser/node_modules: run scripts/install-deps"
	done_testing; exit
fi

# browse GRAPH-OPTION SCREENSHOT-PREFIX: draw the input and run the checks
browse() {
	local opt=$1 shot=$2 what=${1:-default}
	if ! "$PERFKIT" flamegraph $opt "$B/flame.folded" >"$T/g.svg" 2>"$T/err"; then
		not_ok "$what: perfkit flamegraph draws the page"; sed 's/^/# /' "$T/err"
		return
	fi
	ok "$what: perfkit flamegraph draws the page"
	# the browser's profile and scratch files go under $T, removed at exit
	mkdir -p "$T/tmp"
	TMPDIR=$T/tmp CHROMIUM=$CHROMIUM timeout 90 \
		node "$B/flamegraph.test.js" "$T/g.svg" "$B/flame.folded" ${shot:+"$shot"} >"$T/out" 2>&1
	local rc=$? nchecks=0 line
	while IFS= read -r line; do
		case $line in
		"ok - "*)     ok "$what: ${line#ok - }"; nchecks=$((nchecks + 1)) ;;
		"not ok - "*) not_ok "$what: ${line#not ok - }"; nchecks=$((nchecks + 1)) ;;
		"#"*)         echo "$line" ;;
		*)            diag "$line" ;;
		esac
	done <"$T/out"
	if [ "$rc" -eq 0 ] && [ "$nchecks" -ge 100 ]; then
		ok "$what: the browser test ran all its checks ($nchecks)"
	else
		not_ok "$what: the browser test ran all its checks ($nchecks, exit status $rc)"
	fi
}
browse "" "$T/shot"
browse --inverted ""

# the screenshots are real PNG images of the drawn page
for s in search zoom; do
	if [ "$(head -c 8 "$T/shot-$s.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
	   [ "$(stat -c %s "$T/shot-$s.png")" -gt 5000 ]; then
		ok "screenshot of the $s state"
	else
		not_ok "screenshot of the $s state"
	fi
done
[ -n "${PK_KEEP_SHOTS:-}" ] && cp "$T"/shot-*.png "$PK_KEEP_SHOTS"/ 2>/dev/null

done_testing
