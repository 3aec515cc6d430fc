#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 0990 — every input the fuzzers ever crashed on (tests/fuzz-regressions/
# <harness>/) is replayed through that harness, built without libFuzzer
# ($PK_BUILD/tests/fuzz/replay-<harness>, mk/fuzz.mk), under the same
# sanitizers as the rest of this run.  Each harness also checks its own
# invariants (well-formed SVG, consistent totals) and aborts when one fails.
. "$(dirname "$0")/lib.sh"
R=$TOP/tests/fuzz-regressions
for src in "$TOP"/tests/fuzz/*.c; do
	h=$(basename "$src" .c)
	[ "$h" = replay ] && continue
	bin=$PK_BUILD/tests/fuzz/replay-$h
	if [ ! -x "$bin" ]; then
		not_ok "$h: replay driver $bin was built"
		continue
	fi
	files=()
	for f in "$R/$h"/*; do [ -f "$f" ] && files+=("$f"); done
	# the empty input is always replayed, so every harness runs at least once
	: >"$T/empty"
	files+=("$T/empty")
	if timeout 20 "$bin" "${files[@]}" >"$T/$h.out" 2>"$T/$h.err"; then
		ok "$h: ${#files[@]} regression input(s) replayed cleanly"
	else
		not_ok "$h: replaying ${#files[@]} input(s) (exit $?)"
		tail -15 "$T/$h.err" | sed 's/^/# /'
	fi
done
# the replay count matches the files given (the driver did not stop early)
n=$(cat "$T"/*.out 2>/dev/null | grep -c '^replayed ')
want=0
for src in "$TOP"/tests/fuzz/*.c; do
	h=$(basename "$src" .c); [ "$h" = replay ] && continue
	want=$((want + 1 + $(find "$R/$h" -maxdepth 1 -type f 2>/dev/null | wc -l)))
done
if [ "$n" -eq "$want" ]; then ok "all $want inputs reached the harnesses"; else not_ok "replayed $n of $want inputs"; fi
done_testing
