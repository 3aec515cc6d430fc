#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The main job end to end: record `matmul naive` with call chains, report it
# (naive ≥ 90 % self), fold it (main;naive stacks) and draw a well-formed SVG.
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
MM=$PK_BUILD/examples/matmul
[ -n "${PK_SAN:-}" ] && reps=4 || reps=8

expect "record -g matmul naive" "$PERFKIT" record -g -o "$T/mm.data" -- "$MM" naive $reps
"$PERFKIT" report -i "$T/mm.data" --no-children >"$T/rep" 2>"$T/rep.err"
naive=$(awk '!/^#/ && $NF == "naive" { v = $1; sub(/%/, "", v); print v; exit }' "$T/rep")
diag "naive self: ${naive}%"
expect "naive has >= 90 % self" awk -v v="$naive" 'BEGIN { exit !(v != "" && v >= 90) }'
expect "report row names command and DSO" grep -Eq '^ +[0-9.]+% +matmul +matmul +\[\.\] naive$' "$T/rep"

expect "collapse perf.data" sh -c '"$0" collapse "$1" >"$2"' "$PERFKIT" "$T/mm.data" "$T/mm.folded"
expect "folded output holds main;naive stacks" grep -Eq '^matmul;.*main;naive [0-9]+$' "$T/mm.folded"
n_folded=$(awk '{ s += $NF } END { printf "%.0f\n", s }' "$T/mm.folded")
expect "folded counts are the samples' periods" test "$n_folded" -gt 0

expect "flamegraph from folded" sh -c '"$0" flamegraph "$1" >"$2"' "$PERFKIT" "$T/mm.folded" "$T/mm.svg"
FG=$SHARED/tools/fgframes
expect "flamegraph reads perf.data directly" sh -c '"$0" flamegraph "$1" -o "$2"' "$PERFKIT" "$T/mm.data" "$T/direct.svg"
expect "flamegraph -o OUT -- CMD records and draws" "$PERFKIT" flamegraph -o "$T/oneshot.svg" -- "$MM" naive 2
if have_shared "$FG"; then
	expect "SVG parses as XML (fgframes)" sh -c '"$0" "$1" >"$2"' "$FG" "$T/mm.svg" "$T/frames"
	expect "the graph has a naive frame" grep -q 'naive (' "$T/frames"
	expect "... and the perf.data one's SVG parses" sh -c '"$0" "$1" >/dev/null' "$FG" "$T/direct.svg"
	expect "... and the one-shot SVG has naive" sh -c '"$0" "$1" | grep -q "naive ("' "$FG" "$T/oneshot.svg"
fi
done_testing
