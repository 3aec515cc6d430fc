#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit annotate, inline-aware: tests/workloads/inlhot spends its time in
# mix(), an always-inline helper from inlhot_helper.h; the samples land on
# the helper's lines, shown inside main under the call site with the helper
# named.  Then call instructions carrying their callees' inclusive share
# (tests/workloads/calltree: main calls a, 75 %, and d, 25 %), with frame
# pointer and DWARF call chains (perfkit's, and perf record's when installed).
. "$(dirname "$0")/lib.sh"

W=$PK_BUILD/tests/workloads
if ! can_perf_event; then
	skip "perf events not permitted here"
	done_testing
	exit
fi
"$PERFKIT" record -o "$T/inl.data" -- "$W/inlhot" 30000000 >/dev/null 2>&1 ||
	not_ok "record inlhot"
"$PERFKIT" annotate -i "$T/inl.data" main >"$T/asm" 2>"$T/err"
expect "annotate main: exit 0" [ $? -eq 0 ]
# the hottest instruction's source rows: the nearest inlined-helper row
# above it, and above that the nearest row of main's own (its call site)
hot=$(awk '/^ *[0-9.]+ :\t/ { if ($1 + 0 > best) { best = $1 + 0; n = NR } } END { print n }' "$T/asm")
above=$(head -n "$hot" "$T/asm" | grep '^ *:	')
inl=$(grep '^ *:	  \[inlined ' <<<"$above" | tail -1)
own=$(grep '^ *:	[^ []' <<<"$above" | grep -v '^ *:	[0-9a-f]\{16\} <' | tail -1)
expect "hottest instruction sits under main's call site (inlhot.c:N  ... mix(...))" \
	grep -q 'inlhot\.c:[0-9]*   acc = mix(acc, rounds);' <<<"$own"
expect "... inside the inlined helper, named, from its own file" \
	grep -q '^ *:	  \[inlined mix\] inlhot_helper\.h:[1-9][0-9]*   ' <<<"$inl"
# --source: the helper's file and lines hold the samples
"$PERFKIT" annotate -i "$T/inl.data" main --source >"$T/src"
expect "--source: a block for the inlined helper's file, named" \
	grep -q '^-- inlined from file: .*inlhot_helper\.h (mix)$' "$T/src"
share=$(awk '/^-- inlined from file: .*inlhot_helper/ { on = 1; next } /^--/ { on = 0 }
	on && /^ *[0-9][0-9.]* +[0-9]+  / { s += $1 } END { printf "%.0f", s }' "$T/src")
expect "--source: the helper's lines carry most of main's samples ($share %)" [ "${share:-0}" -ge 80 ]
own=$(awk '/^-- file: .*inlhot\.c/ { on = 1; next } /^--/ { on = 0 }
	on && /^ *[0-9][0-9.]* +[0-9]+  / { s += $1 } END { printf "%.0f", s }' "$T/src")
expect "--source: main's own lines carry little ($own %)" [ "${own:-100}" -le 20 ]
# the loop summary names the helper's lines
expect "hottest loop: the helper's lines" \
	grep -q '^ *[0-9.]*%  [0-9a-f]*\.\.[0-9a-f]*  inlhot_helper\.h:' <<<"$(sed -n '/^ Loops/{n;p;}' "$T/asm")"

# call sites with the inclusive share of their callees
cgs="fp dwarf"
have perf && cgs="$cgs perf-dwarf"
for cg in $cgs; do
	case $cg in
	fp) "$PERFKIT" record -g -o "$T/ct-$cg.data" -- "$W/calltree" 600 >/dev/null 2>&1 ;;
	dwarf) "$PERFKIT" record --call-graph dwarf -o "$T/ct-$cg.data" -- "$W/calltree" 600 >/dev/null 2>&1 ;;
	*) perf record -q -e cpu-clock --call-graph dwarf -o "$T/ct-$cg.data" -- "$W/calltree" 600 >/dev/null 2>&1 ;;
	esac || not_ok "record calltree ($cg)"
	"$PERFKIT" annotate -i "$T/ct-$cg.data" main >"$T/ct-$cg" 2>/dev/null
	a=$(sed -n 's/.* <a>  # callees: \([0-9.]*\)% of all samples.*/\1/p' "$T/ct-$cg" | head -1)
	d=$(sed -n 's/.* <d>  # callees: \([0-9.]*\)% of all samples.*/\1/p' "$T/ct-$cg" | head -1)
	expect "$cg chains: main's call to a (named <a>) carries ~75 % inclusive (${a:-none})" \
		awk -v v="${a:-0}" 'BEGIN { exit !(v >= 60 && v <= 90) }'
	expect "$cg chains: main's call to d (named <d>) carries ~25 % inclusive (${d:-none})" \
		awk -v v="${d:-0}" 'BEGIN { exit !(v >= 10 && v <= 40) }'
	expect "$cg chains: the header gives main's share with its callees" \
		grep -q '^ *:[[:space:]]*main  [0-9.]*% of all samples, [0-9.]*% with its callees' "$T/ct-$cg"
done
done_testing
