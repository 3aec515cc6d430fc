#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perf users' everyday report flags: --no-inline, --inline, --stdio, -f are
# accepted; -n/--show-nr-samples adds perf's Samples column (same numbers as
# perf report -n); -q prints the rows only.  report and script cap a DWARF
# chain's unwound user part at perf's default --max-stack
# (kernel.perf_event_max_stack, 127): a recursion 300 deep gives the same
# frames as perf script.
. "$(dirname "$0")/lib.sh"

if ! have perf || ! have cc || ! can_perf_event; then
	skip "needs perf, cc and perf_event_open"
	done_testing; exit
fi
cat >"$T/deep.c" <<'C'
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) unsigned long rec(int d, unsigned long n)
{
	if (d == 0) { for (unsigned long i = 0; i < n; i++) sink += i; return sink; }
	return rec(d - 1, n) + 1;
}
__attribute__((noinline)) unsigned long flat(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i; return sink; }
int main(int argc, char **argv) { unsigned long n = strtoul(argv[2], 0, 10); flat(n); sink += rec(atoi(argv[1]), n); return 0; }
C
cc -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -o "$T/deep" "$T/deep.c" || { skip "cc failed"; done_testing; exit; }
cd "$T"
"$PERFKIT" record -e cpu-clock,task-clock -F 500 -o two.data ./deep 3 100000000 >/dev/null 2>&1
expect "record of two events: exit 0" test $? -eq 0

for f in --no-inline --inline --stdio -f; do
	"$PERFKIT" report -i two.data $f >"r$f" 2>/dev/null
	expect "report $f: accepted (exit 0)" test $? -eq 0
done
expect "--no-inline: same table as without it (perfkit's report is perf's --no-inline)" cmp -s r--no-inline r--stdio
diff r--no-inline r--stdio | head -6 | sed 's/^/# /'

"$PERFKIT" report -i two.data -n --no-children -q >pk-n.txt 2>/dev/null
perf report -i two.data --stdio -n --no-children -q 2>/dev/null >pf-n.txt
expect "-n -q: perf report's rows, Samples column included (order aside)" \
	cmp -s <(sort pk-n.txt) <(sort pf-n.txt)
diff <(sort pk-n.txt) <(sort pf-n.txt) | head -6 | sed 's/^/# /'
"$PERFKIT" report -i two.data --show-nr-samples >pk-n2.txt 2>/dev/null
expect "--show-nr-samples: the Samples header, as perf's" grep -q '^# Overhead       Samples  Command' pk-n2.txt
total=$(awk '!/^#/ && NF { s += $2 } END { print s }' pk-n.txt)
expect "-n: the two events' sample counts add up to their samples ($total)" \
	test "$total" = "$(grep -o '^# Samples: [0-9]*' pk-n2.txt | awk '{ s += $3 } END { print s }')"
expect "-q: no '#' line" test "$(grep -c '^#' pk-n.txt)" -eq 0
expect "-q: rows are there" test "$(grep -c 'flat' pk-n.txt)" -ge 1

# --hide-unresolved: a stripped binary's samples have no symbol; the rest
# are shown as shares of the resolved samples, as perf does
cp deep deep.stripped && strip -s deep.stripped
"$PERFKIT" record -F 1000 -o st.data ./deep.stripped 3 100000000 >/dev/null 2>&1
perf report -i st.data --stdio --no-children --hide-unresolved -n 2>/dev/null | grep -v '^# To display\|Tip:' | sed '/^#$/N;/^#\n$/d' >pf-h.txt
"$PERFKIT" report -i st.data --no-children --hide-unresolved -n >pk-h.txt 2>/dev/null
"$PERFKIT" report -i st.data --no-children >pk-all.txt 2>/dev/null
expect "without it: rows without a symbol (the stripped binary's)" grep -q '\[\.\] 0x' pk-all.txt
expect "--hide-unresolved: no row without a symbol" sh -c "! grep -q '\[\.\] 0x' pk-h.txt"
expect "--hide-unresolved: perf's rows, shares and header (order aside)" \
	cmp -s <(grep -v '^#' pk-h.txt | sort) <(grep -v '^#' pf-h.txt | sort)
expect "--hide-unresolved: perf's sample count" cmp -s <(grep '^# Samples\|^# Event count' pk-h.txt) <(grep '^# Samples\|^# Event count' pf-h.txt)

# the largest stack copy (perf's limit), so no chain is cut by the copy itself
"$PERFKIT" record --call-graph dwarf,65528 -F 500 -o d.data ./deep 300 100000000 >/dev/null 2>&1
# the program's frames (libc's entry point has two names, picked apart)
perf script -i d.data 2>/dev/null | awk '{ print $2 }' | grep -E '^(rec|flat|main)\+|^$' >pf.syms
"$PERFKIT" script -i d.data 2>/dev/null | awk '{ print $2 }' | grep -E '^(rec|flat|main)\+|^$' >pk.syms
depth=$("$PERFKIT" script -i d.data 2>/dev/null | awk '/^deep/ { if (n > m) m = n; n = 0; next } NF { n++ } END { if (n > m) m = n; print m }')
max=$(cat /proc/sys/kernel/perf_event_max_stack 2>/dev/null || echo 127)
if [ "$max" -ge 300 ]; then
	# a default at or past the recursion's depth cuts nothing: these need
	# the default 127 (0902 raises it for a while and restores it)
	for c in "chains stop at the default" "the same frames as perf script" "--max-stack 400 further"; do
		skip "kernel.perf_event_max_stack is $max, not below the 300-deep recursion: $c"
	done
else
	expect "script: DWARF chains of a 300-deep recursion stop at perf's default ($max user frames; got $depth with the kernel's)" \
		test "$depth" -ge "$max" -a "$depth" -lt $((max + 40))
	expect "script: the same frames as perf script (default --max-stack; $(grep -c . pk.syms) frames)" cmp -s pf.syms pk.syms
	"$PERFKIT" script --max-stack 400 -i d.data 2>/dev/null | grep -c 'rec+' >deep400
	"$PERFKIT" script -i d.data 2>/dev/null | grep -c 'rec+' >deep127
	expect "--max-stack 400 unwinds further than the default" test "$(cat deep400)" -gt "$(cat deep127)"
fi
"$PERFKIT" report -i d.data --no-children -g caller -q >rep.txt 2>/dev/null
expect "report: no [truncated] root from the default cap (a --max-stack cut is not a truncation)" \
	sh -c "! grep -q 'truncated' rep.txt"

# --max-stack N with Children (caller order, report's default): perf's rows
# take the N outermost frames of each chain, the leaf its own entry; with
# --no-children or -g callee, the N innermost
"$PERFKIT" record -g -F 999 -o ms.data ./deep 6 30000000 >/dev/null 2>&1
for o in "--max-stack 3 -g none" "--max-stack 5 -g none" "--max-stack 3 --no-children -g none" "--max-stack 3 -g callee" \
	"--max-stack 0" "--max-stack 0 --no-children"; do
	# shellcheck disable=SC2086
	same_as_perf "$T/ms.data" $o
done
# a bare -g is perf's "graph,0.5,caller,function,percent": caller order
# stated, so with --no-children too (whose own default is callee).  (Not
# against perf's text: a --no-children graph in caller order may show a
# single root otherwise, README)
"$PERFKIT" report -i ms.data --stdio --no-children -g caller >bg.caller 2>/dev/null
"$PERFKIT" report -i ms.data --stdio --no-children >bg.callee 2>/dev/null
bad=
for o in "-g --no-children" "--no-children -g" "--call-graph --no-children"; do
	# shellcheck disable=SC2086
	"$PERFKIT" report -i ms.data --stdio $o >bg.out 2>/dev/null
	cmp -s bg.out bg.caller || bad="$bad [$o]"
done
expect "a bare -g with --no-children: caller order, as perf's default option string${bad:+ (not:$bad)}" \
	sh -c "[ -z '$bad' ] && ! cmp -s bg.caller bg.callee"

# --max-stack 0 on a stripped program (Debian's dash): its leaf addresses
# (file offsets) get no second, cumulative row of the address as sampled
# (the chain is gone): every row's Children its Self, as perf's
if have dash; then
"$PERFKIT" record -g -F 999 -o st.data -- dash -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' >/dev/null 2>&1
"$PERFKIT" report -i st.data --stdio --max-stack 0 -q >st0.txt 2>/dev/null
expect "--max-stack 0, a stripped program: rows of addresses" grep -q 'dash  *\[\.\] 0x' st0.txt
expect "--max-stack 0: every row's Children its Self" sh -c "! awk '\$1 != \$2 { bad = 1 } END { exit !bad }' st0.txt"
same_as_perf "$T/st.data" --max-stack 0
fi

done_testing
