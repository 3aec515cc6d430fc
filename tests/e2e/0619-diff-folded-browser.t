#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The noise-aware differential flame graph (diff-folded OLD… -- NEW… -o) in a
# real browser: Debian's chromium, headless, driven by playwright-core
# (tests/browser/diffgraph.test.js).  Eight profiles a side, drawn from a
# seeded generator: compute;f doubles, strtod is replaced by myparse, the
# rest only varies by sampling noise.  The page must colour exactly the
# significant functions of the JSON table (red grew, blue shrank), grey the
# others, and carry before/after/change ± interval/p in every tooltip;
# the vanished strtod is drawn (at its OLD width), blue.
. "$(dirname "$0")/lib.sh"

B=$TOP/tests/browser
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if ! have node; then skip "node is not installed (scripts/install-deps)"; done_testing; exit; fi
if [ ! -x "$CHROMIUM" ]; then skip "chromium is not installed at $CHROMIUM (scripts/install-deps)"; done_testing; exit; fi
if [ ! -f "$B/node_modules/playwright-core/package.json" ]; then
	not_ok "playwright-core is missing from tests/browser/node_modules: run scripts/install-deps"
	done_testing; exit
fi
python3 - "$T" <<'EOF2'
import random, sys
random.seed(19)
def n(m):
    return max(0, int(round(random.gauss(m, m ** 0.5))))
for side in ("old", "new"):
    for i in range(8):
        with open(f"{sys.argv[1]}/{side}{i}.folded", "w") as f:
            f.write(f"prog;main;compute;f {n(300 if side == 'old' else 600)}\n")
            f.write(f"prog;main;compute;g {n(400)}\n")
            f.write(f"prog;main;io;read {n(150)}\n")
            if side == "old":
                f.write(f"prog;main;parse;strtod {n(120)}\n")
            else:
                f.write(f"prog;main;parse;myparse {n(40)}\n")
EOF2
"$PERFKIT" diff-folded -o "$T/d.svg" --json "$T/d.json" "$T"/old*.folded -- "$T"/new*.folded >"$T/d.txt" 2>"$T/err"
expect "diff-folded draws the page" test $? -eq 0 -a -s "$T/d.svg"
expect "the gone function is drawn" grep -q '<title>strtod: before' "$T/d.svg"
mkdir -p "$T/tmp"
TMPDIR=$T/tmp CHROMIUM=$CHROMIUM timeout 90 node "$B/diffgraph.test.js" "$T/d.svg" "$T/d.json" >"$T/out" 2>&1
rc=$? nchecks=0
while IFS= read -r line; do
	case $line in
	"ok - "*)     ok "${line#ok - }"; nchecks=$((nchecks + 1)) ;;
	"not ok - "*) not_ok "${line#not ok - }"; nchecks=$((nchecks + 1)) ;;
	*)            diag "$line" ;;
	esac
done <"$T/out"
expect "the browser test ran all its checks ($nchecks, exit $rc)" test "$rc" -eq 0 -a "$nchecks" -ge 30
done_testing
