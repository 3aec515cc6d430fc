#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit c2c report: a line's Pareto rows add up to the line's estimated
# transfers.  A thread's transfers are spread over its sites by their
# references, so rows hold fractions (here falseshare's main thread: 20000
# transfers over 40004 references, bump_b's two sites 9999.0001 each and
# four one-reference sites 0.49995 each); each row rounded alone summed to
# 39998 of 40000.  Rows are now apportioned by largest remainder.  The
# record file is written here (the memprof text format, memprof.h), so no
# Valgrind is needed; with it, the falseshare and lockcount recordings are
# checked too.
. "$(dirname "$0")/lib.sh"

# pareto_ok FILE — every Pareto block's rows sum to its line's count
pareto_ok() {
	sed -n '/Distribution Pareto/,/Reading/p' "$1" | awk '
		/^ +-+$/ { next }
		/^ +[0-9]+ +[0-9]+ +0x[0-9a-f]+ / { if (seen && sum != want) bad = 1; want = $2; sum = 0; seen = 1; next }
		/^ +[0-9]+ +[0-9.]+% / { sum += $1 }
		END { if (seen && sum != want) bad = 1; exit bad || !seen }'
}

tab=$'\t'
{
	printf '%s\n' 'perfkit-memprof 1' 'mode c2c' 'cmd /opt/falseshare shared 20000' 'line-size 64' \
		"model per line, over the accesses after the first thread creation: sum over threads of min(accesses, other threads' writes)" \
		'thread 0 1494' 'thread 1 1559'
	echo "object 0 global -1 shared${tab}/opt/falseshare"
	n=0
	for c in '0x109328 118 main' '0x10923c 118 main' '0x10920e 116 main' '0x1091fc 116 main' \
		'0x10944b 55 bump_a' '0x109440 55 bump_a' '0x109477 62 bump_b' '0x109470 62 bump_b'; do
		echo "code $n $c${tab}/opt/falseshare.c${tab}/opt/falseshare"
		n=$((n + 1))
	done
	printf '%s\n' 'line 0x10c180 0 40000' 'lt 0 20004 20000 20000 0xffff 0xff00' 'lt 1 20000 20000 20000 0xff 0xff' \
		'ls 0 0 8 8 1 0' 'ls 1 0 0 8 1 0' 'ls 2 0 0 8 1 0' 'ls 3 0 8 8 1 0' \
		'ls 4 1 0 8 0 20000' 'ls 5 1 0 8 20000 0' 'ls 6 0 8 8 0 20000' 'ls 7 0 8 8 20000 0' 'end 1 0'
} >"$T/fs.c2c"
"$PERFKIT" c2c report -i "$T/fs.c2c" >"$T/fs.txt" 2>"$T/fs.err"
expect 'the hand-made record file is read' test $? = 0
expect 'the line: 40000 estimated transfers' grep -Eq '^ +0 +40000 +0x10c180 ' "$T/fs.txt"
expect 'its Pareto rows sum to 40000' pareto_ok "$T/fs.txt"
expect "bump_b's rows: 9999 each (not rounded up)" test "$(grep -Ec '^ +9999 .*bump_b' "$T/fs.txt")" = 2
expect "bump_a's rows: 10000 each" test "$(grep -Ec '^ +10000 .*bump_a' "$T/fs.txt")" = 2
[ -s "$T/fs.err" ] && sed 's/^/# /' "$T/fs.err"

if have valgrind && ls "$PK_BUILD"/vgtool/pkcache-* >/dev/null 2>&1; then
	EX=$PK_BUILD/examples
	"$PERFKIT" c2c record -o "$T/lc.c2c" -- "$EX/lockcount" 5000 3 >/dev/null 2>&1
	"$PERFKIT" c2c report --all -i "$T/lc.c2c" >"$T/lc.txt" 2>/dev/null
	expect 'lockcount (recorded): every line'\''s Pareto rows sum to its count' pareto_ok "$T/lc.txt"
else
	skip "valgrind or the pkcache tool is not built (mk/cache.mk)"
fi
done_testing
