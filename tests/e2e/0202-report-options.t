#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit report options against perf report: --sort pid / dso / sym,
# --percent-limit, --stdio, and children of a recursive function counted
# once per sample (never above 100 %).
. "$(dirname "$0")/lib.sh"

if ! have perf; then skip "perf (the oracle) is not installed"; done_testing; exit; fi
if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
if ! have cc; then skip "no C compiler for the test program"; done_testing; exit; fi

cat >"$T/rec.c" <<'C'
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) void leaf(void)
{
	for (int i = 0; i < 20000; i++)
		sink = sink * 6364136223846793005UL + 1;
}
__attribute__((noinline)) int recurse(int n)
{
	if (n == 0) {
		leaf();
		return 0;
	}
	return recurse(n - 1) + (int)(sink & 1);
}
int main(void)
{
	clock_t end = clock() + CLOCKS_PER_SEC / 3;
	while (clock() < end)
		recurse(6);
	return 0;
}
C
cc -O1 -g -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls -o "$T/rec" "$T/rec.c"
perf record -g -o "$T/p.data" -- "$T/rec" >/dev/null 2>&1

rows() { # SYMBOL SELF CHILDREN of a report with a Children column
	awk '/^#/ || !/%/ { next } { c = $1; s = $2; sub(/%/, "", c); sub(/%/, "", s); print $NF, s, c }' "$1"
}
near() { awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { x = a - b; exit !(a != "" && b != "" && x <= d && x >= -d) }'; }

"$PERFKIT" report --stdio -g none -i "$T/p.data" >"$T/pk" 2>"$T/err"
expect "--stdio accepted" test $? = 0
perf report --stdio --children -g none -i "$T/p.data" >"$T/perf" 2>/dev/null
rc=$(rows "$T/pk" | awk '$1 == "recurse" { print $3; exit }')
pc=$(rows "$T/perf" | awk '$1 == "recurse" { print $3; exit }')
diag "recurse children: perfkit $rc%, perf $pc%"
expect "recursive function: children <= 100 %" awk -v c="$rc" 'BEGIN { exit !(c != "" && c <= 100.0) }'
expect "recursive function: children within 1 point of perf ($pc)" near "$rc" "$pc" 1
lc=$(rows "$T/pk" | awk '$1 == "leaf" { print $2; exit }')
pl=$(rows "$T/perf" | awk '$1 == "leaf" { print $2; exit }')
expect "leaf self $lc% within 1 point of perf ($pl%)" near "$lc" "$pl" 1

# --sort pid: one row per process, like perf's "Pid:Command"
# sort keys as perf reads them: any case, any prefix (the first key in
# perf's order it starts: "co" comm, "ds" dso, "s" sym)
"$PERFKIT" report -i "$T/p.data" --stdio -g none --sort comm,dso,sym >"$T/k.full" 2>/dev/null
"$PERFKIT" report -i "$T/p.data" --stdio -g none --sort Comm,DSO,Sym >"$T/k.case" 2>/dev/null
"$PERFKIT" report -i "$T/p.data" --stdio -g none --sort co,ds,s >"$T/k.pre" 2>"$T/k.err"
expect "--sort Comm,DSO,Sym: the same table as comm,dso,sym" sh -c "test -s '$T/k.full' && cmp -s '$T/k.full' '$T/k.case'"
expect "--sort co,ds,s: the same table too" cmp -s "$T/k.full" "$T/k.pre"
# (perfkit's "[truncated]" row of a chain the kernel cut is its own, and
# perf's _init row for a sample in clock@plt: README)
perf report -i "$T/p.data" --stdio -g none --sort co,ds,s 2>/dev/null | grep -v '^# (Tip:' | grep '%' | no_plt_rows >"$T/perf.pre"
grep '%' "$T/k.pre" | grep -v '\[truncated\]' | no_plt_rows >"$T/pk.pre"
same_file "--sort co,ds,s: perf's rows" "$T/perf.pre" "$T/pk.pre"
# -F fields as perf reads them too: a sort key or a column by any prefix
# ("sa" sample, "pe" period, "d" dso, "over" overhead)
"$PERFKIT" report -i "$T/p.data" --stdio -g none -F sa,pe,d,over >"$T/f.pre" 2>/dev/null
perf report -i "$T/p.data" --stdio -g none -F sa,pe,d,over 2>/dev/null | grep -v '^# (Tip:' | trim_tail | grep -v '^#' >"$T/perf.fpre"
trim_tail <"$T/f.pre" | grep -v '^#' >"$T/pk.fpre"
same_file "-F sa,pe,d,over: perf's table" "$T/perf.fpre" "$T/pk.fpre"
"$PERFKIT" report -i "$T/p.data" --stdio -F overhead_guest >/dev/null 2>"$T/f.err"
expect "-F overhead_guest (perf's overhead_guest_sys): refused, named" grep -q "perf's overhead_guest_sys" "$T/f.err"
# "overhead_" is perf's first match, overhead_sys: the sys column
"$PERFKIT" report -i "$T/p.data" --stdio -g none -F overhead_,sym >"$T/f.sys" 2>/dev/null
expect "-F overhead_,sym: a sys column" grep -q '^# *sys  Symbol' "$T/f.sys"
# -U, perf's short --hide-unresolved; --demangle and --tui accepted
"$PERFKIT" report -i "$T/p.data" --stdio -g none --hide-unresolved >"$T/u.long" 2>/dev/null
"$PERFKIT" report -i "$T/p.data" --stdio -g none -U --demangle >"$T/u.short" 2>/dev/null
expect "-U --demangle: the table of --hide-unresolved" sh -c "test -s '$T/u.short' && cmp -s '$T/u.long' '$T/u.short'"
"$PERFKIT" report -i "$T/p.data" --tui -g none </dev/null >"$T/u.tui" 2>/dev/null
expect "--tui off a terminal: the text table" grep -q '%' "$T/u.tui"
"$PERFKIT" report -i "$T/p.data" --stdio --sort x >/dev/null 2>&1
expect "--sort x: still a usage error" test $? = 2
"$PERFKIT" report -i "$T/p.data" --no-children -g none --sort pid >"$T/pk.pid" 2>/dev/null
perf report --stdio --no-children -g none --sort pid -i "$T/p.data" >"$T/perf.pid" 2>/dev/null
kp=$(grep -v '^#' "$T/pk.pid" | awk 'NF { print $2, $1 }' | sort)
pp=$(grep -v '^#' "$T/perf.pid" | awk 'NF { print $2, $1 }' | sort)
diag "perfkit: $kp / perf: $pp"
expect "--sort pid: same rows as perf" test -n "$kp" -a "$kp" = "$pp"
expect "--sort pid header" grep -Eq '^# Overhead +Pid:Command' "$T/pk.pid"

# --sort dso: percentages per DSO like perf
"$PERFKIT" report -i "$T/p.data" --no-children --sort dso >"$T/pk.dso" 2>/dev/null
perf report --stdio --no-children -g none --sort dso -i "$T/p.data" >"$T/perf.dso" 2>/dev/null
kd=$(awk '!/^#/ && NF { print $2, $1; exit }' "$T/pk.dso")
pd=$(awk '!/^#/ && NF { print $2, $1; exit }' "$T/perf.dso")
diag "top dso: perfkit $kd, perf $pd"
expect "--sort dso: top DSO is the program's" test "${kd%% *}" = rec
expect "--sort dso: top DSO within 1 point of perf" near "$(echo "${kd#* }" | tr -d %)" "$(echo "${pd#* }" | tr -d %)" 1
expect "--sort dso: two columns only" grep -Eq '^# Overhead  Shared Object *$' "$T/pk.dso"

# --sort sym,comm: the order of columns follows the keys
"$PERFKIT" report -i "$T/p.data" --no-children --sort sym,comm >"$T/pk.sc" 2>/dev/null
expect "--sort sym,comm header" grep -Eq '^# Overhead  Symbol +Command *$' "$T/pk.sc"
# keys split as perf splits them (on ", "): "sym, comm" and "sym comm" are sym,comm
"$PERFKIT" report -i "$T/p.data" --no-children --sort 'sym, comm' >"$T/pk.sc2" 2>/dev/null
same_file "--sort 'sym, comm' is --sort sym,comm" "$T/pk.sc" "$T/pk.sc2"
# a key given again is skipped, as perf's sort_dimension__add skips a taken one
"$PERFKIT" report -i "$T/p.data" --no-children --sort sym,comm,sym,symbol,comm >"$T/pk.sc3" 2>/dev/null
same_file "--sort sym,comm,sym,symbol,comm is --sort sym,comm" "$T/pk.sc" "$T/pk.sc3"
"$PERFKIT" report -i "$T/p.data" --no-children --sort 'sym comm' >"$T/pk.sc3" 2>/dev/null
same_file "--sort 'sym comm' is --sort sym,comm" "$T/pk.sc" "$T/pk.sc3"

# --percent-limit hides the small rows
all=$(grep -vc '^#' "$T/pk")
"$PERFKIT" report -i "$T/p.data" -g none --percent-limit 5 >"$T/pk.lim" 2>/dev/null
lim=$(grep -v '^#' "$T/pk.lim" | grep -c '%')
small=$(grep -v '^#' "$T/pk.lim" | awk '/%/ { c = $1; sub(/%/, "", c); if (c + 0 < 5) print }' | head -1)
expect "--percent-limit 5: fewer rows ($lim of $all), none below 5 %" test "$lim" -lt "$all" -a -z "$small"

# rows are symbols, not names: two C++ overloads (both shown as "f", as
# perf shows them) stay two rows with perf's shares; --sort pid is perf's
# thread key (tid:comm), one row per thread
if have c++ && have perf; then
	cat >"$T/ov.cc" <<'CC'
volatile double sink;
__attribute__((noinline)) void f(int n) { for (int i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void f(double n) { for (double i = 0; i < n; i++) sink += i; }
int main() { for (int k = 0; k < 15; k++) { f(6000000); f(3000000.0); } return 0; }
CC
	c++ -O1 -g -o "$T/ov" "$T/ov.cc"
	perf record -q -o "$T/ov.data" "$T/ov" >/dev/null 2>&1
	pf=$(perf report -i "$T/ov.data" --stdio 2>/dev/null | grep -E '\[\.\] f$' | sed 's/ *$//' | sort)
	pk=$("$PERFKIT" report -i "$T/ov.data" -g none 2>/dev/null | grep -E '\[\.\] f$' | sed 's/ *$//' | sort)
	diag "perf: $pf" "perfkit: $pk"
	expect "C++ overloads: two rows of 'f', as perf" test "$(grep -c . <<<"$pk")" = 2
	expect "... with perf's percentages" test "$(awk '{print $1}' <<<"$pf")" = "$(awk '{print $1}' <<<"$pk")"
	cat >"$T/t2.c" <<'CC'
#include <pthread.h>
static volatile long s;
static void *w(void *a) { for (long i = 0; i < 60000000; i++) s += i; return a; }
int main(void) { pthread_t t; pthread_create(&t, 0, w, 0); w(0); pthread_join(t, 0); return 0; }
CC
	cc -O1 -pthread -o "$T/t2" "$T/t2.c"
	perf record -q -o "$T/t2.data" "$T/t2" >/dev/null 2>&1
	pf=$(perf report -i "$T/t2.data" --stdio --sort pid 2>/dev/null | grep -v '^#' | grep . | sed 's/ *$//')
	pk=$("$PERFKIT" report -i "$T/t2.data" --sort pid -g none 2>/dev/null | grep -v '^#' | grep . | sed 's/ *$//')
	expect "--sort pid: a row per thread, as perf ($(grep -c . <<<"$pk") rows)" test "$pf" = "$pk"
else
	skip "needs c++ and perf"
fi
done_testing
