#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit mem report --folded names frames as the rest of perfkit's folded
# output: a function without a symbol is "[OBJECT-FILE]" or "[unknown]"
# (perfkit collapse, stackcollapse-perf), never Valgrind's "???"; the root
# is the data object's class; identical stacks come out once, summed.
. "$(dirname "$0")/lib.sh"

if ! have valgrind || ! ls "$PK_BUILD"/vgtool/pkcache-* >/dev/null 2>&1; then
	skip "valgrind or the pkcache tool is not built (mk/cache.mk)"
	done_testing
	exit
fi
EX=$PK_BUILD/examples
GEOM="--D1=32768,8,64 --L2=262144,8,64 --LL=1048576,16,64"
# shellcheck disable=SC2086
"$PERFKIT" mem record -o "$T/l.mem" $GEOM -- "$EX/listchase" list 5000 1 >/dev/null 2>"$T/rec.err"
expect "mem record writes its file" test -s "$T/l.mem"
for lv in l1 l2 ll; do
	"$PERFKIT" mem report -i "$T/l.mem" --folded=$lv >"$T/$lv.folded" 2>"$T/$lv.err"
	expect "--folded=$lv: exits 0, some lines" test $? = 0 -a -s "$T/$lv.folded"
	expect "--folded=$lv: no '???' frame" sh -c '! grep -qF "???" "$0"' "$T/$lv.folded"
	bad=$(grep -Evc '^\[(heap|global|stack|unknown)\](;[^;]+)+ [0-9]+$' "$T/$lv.folded")
	expect "--folded=$lv: root is the object class, then frames, then a count ($bad bad)" test "$bad" = 0
	dup=$(sed 's/ [0-9]*$//' "$T/$lv.folded" | sort | uniq -d | wc -l)
	expect "--folded=$lv: each stack once ($dup repeated)" test "$dup" = 0
done
# the report names the same accesses "???" in its Symbol column (perf mem's
# own spelling there); in folded output those frames are bracketed names
if grep -q '\[\.\] ???  ' <("$PERFKIT" mem report -i "$T/l.mem" --sort=sym 2>/dev/null); then
	expect "a symbol-less function becomes [OBJECT-FILE] or [unknown]" \
		grep -Eq ';\[[^];]+\] [0-9]+$' "$T/l1.folded"
fi
done_testing
