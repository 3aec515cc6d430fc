#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit report against perf report --stdio on the same perf.data (written
# by the real `perf record`, with and without -g): the top Self rows by symbol
# agree within 1 point, and a 2:1 CPU burner reads 67 % / 33 % (± 5 points) —
# as shares of the two functions' samples, so that kernel noise on a busy
# machine does not move them — also from a file written by `perfkit record`.
. "$(dirname "$0")/lib.sh"

if ! have perf; then skip "perf (the oracle) is not installed"; done_testing; exit; fi
if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi

W=$PK_BUILD/tests/workloads/burn2to1
if [ ! -x "$W" ]; then
	W=$T/burn2to1
	cc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$W" "$TOP/tests/workloads/burn2to1.c"
fi
ms=1200   # about 1200 samples a recording: ±5 points is 3.7 standard errors (800 under ASan failed once)

# rows "SYMBOL SELF [CHILDREN]" of a perf-style report (no callgraph lines)
rows() {
	awk '/^#/ || !/%/ { next }
	     $2 ~ /%$/ { c = $1; s = $2; sub(/%/, "", c); sub(/%/, "", s); print $NF, s, c; next }
	     { s = $1; sub(/%/, "", s); print $NF, s }' "$1"
}
share() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + b > 0) printf "%.2f", 100 * a / (a + b) }'; }
near() { awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { x = a - b; exit !(a != "" && b != "" && x <= d && x >= -d) }'; }

compare_top() { # compare_top LABEL PERF_REPORT PERFKIT_REPORT  (top 5 Self rows >= 1 %)
	local n=0 sym self ours
	rows "$2" | sort -k2,2 -g -r | awk '$2 >= 1' | head -5 >"$T/top"
	while read -r sym self _; do
		ours=$(rows "$3" | awk -v s="$sym" '$1 == s { print $2; exit }')
		n=$((n + 1))
		expect "$1: $sym self $self% vs perfkit ${ours:-missing}%" near "$ours" "$self" 1
	done <"$T/top"
	[ $n -gt 0 ] && ok "$1: perf shows $n rows >= 1 %" || not_ok "$1: perf shows no rows"
}

# the three recordings at once: burn2to1 burns a given CPU time and
# cpu-clock samples count CPU time, so a recording beside it moves no share
perf record -o "$T/p0.data" -- "$W" $ms >/dev/null 2>&1 &
rec1=$!
perf record -g -o "$T/p-g.data" -- "$W" $ms >/dev/null 2>&1 &
rec2=$!
"$PERFKIT" record -o "$T/k.data" -- "$W" $ms >/dev/null 2>"$T/krec.err"
krc=$?
wait $rec1 $rec2
for g in "" "-g"; do
	d=$T/p0.data
	[ -n "$g" ] && d=$T/p-g.data
	perf report --stdio --no-children -g none -i "$d" >"$T/perf.rep" 2>/dev/null
	"$PERFKIT" report -i "$d" --no-children >"$T/pk.rep" 2>"$T/pk.err"
	expect "perfkit report ${g:-(no -g)} exits 0, nothing on stderr" test $? = 0 -a ! -s "$T/pk.err"
	compare_top "perf record ${g:-(no -g)}" "$T/perf.rep" "$T/pk.rep"
	expect "header names the event" grep -q "^# Samples: .* of event 'cpu-clock" "$T/pk.rep"
	expect "no Children column with --no-children" grep -Eq '^# Overhead  Command +Shared Object +Symbol' "$T/pk.rep"
	two=$(rows "$T/pk.rep" | awk '$1 == "burn_two" { print $2 }')
	one=$(rows "$T/pk.rep" | awk '$1 == "burn_one" { print $2 }')
	diag "perf record ${g}: burn_two=$two% burn_one=$one%"
	expect "burn_two at 67 % ± 5 ${g}" near "$(share "$two" "$one")" 66.67 5
	expect "burn_one at 33 % ± 5 ${g}" near "$(share "$one" "$two")" 33.33 5
	# the default view: Children shown when the file has callchains
	"$PERFKIT" report -i "$d" >"$T/pk.def" 2>/dev/null
	if [ -n "$g" ]; then
		expect "-g file: Children column by default" grep -Eq '^# Children      Self  Command +Shared Object +Symbol' "$T/pk.def"
		perf report --stdio --children -g none -i "$d" >"$T/perf.ch" 2>/dev/null
		for s in burn_two burn_one; do
			pc=$(rows "$T/perf.ch" | awk -v s=$s '$1 == s { print $3; exit }')
			kc=$(rows "$T/pk.def" | awk -v s=$s '$1 == s { print $3; exit }')
			expect "$s children $pc% vs perfkit $kc%" near "$kc" "$pc" 1
		done
		top=$(rows "$T/pk.def" | head -1 | awk '{ print $3 }')
		expect "outermost caller has children ~100 % ($top)" near "$top" 100 2
	else
		expect "no-callchain file: Overhead column" grep -q '^# Overhead  Command' "$T/pk.def"
	fi
done

# a file from perfkit record, once that command works
if [ $krc = 0 ] && [ -s "$T/k.data" ]; then
	"$PERFKIT" report -i "$T/k.data" --no-children >"$T/k.rep" 2>/dev/null
	two=$(rows "$T/k.rep" | awk '$1 == "burn_two" { print $2 }')
	one=$(rows "$T/k.rep" | awk '$1 == "burn_one" { print $2 }')
	diag "perfkit record: burn_two=$two% burn_one=$one%"
	expect "perfkit record: burn_two at 67 % ± 5" near "$(share "$two" "$one")" 66.67 5
	expect "perfkit record: burn_one at 33 % ± 5" near "$(share "$one" "$two")" 33.33 5
	if perf report --stdio --no-children -g none -i "$T/k.data" >"$T/kperf.rep" 2>/dev/null; then
		compare_top "perfkit record, read by perf" "$T/kperf.rep" "$T/k.rep"
	fi
else
	skip "perfkit record does not work yet: $(head -1 "$T/krec.err")"
fi
done_testing
