# SPDX-License-Identifier: GPL-2.0-or-later
# A recursion 300 deep recorded with -g (frame pointers) is cut by the
# kernel at kernel.perf_event_max_stack (127 by default): such stacks are
# shown under a [truncated] root, never posing as top-level code.  With the
# sysctl raised for the recording, --max-stack 400 gives the full stacks,
# down from main (issue P6, acceptance item 5).  The sysctl is restored.
. "$(dirname "$0")/lib.sh"

SYSCTL=/proc/sys/kernel/perf_event_max_stack
if ! have cc || ! can_perf_event || [ ! -w "$SYSCTL" ]; then
	skip "needs cc, perf_event_open and a writable $SYSCTL (root)"
	done_testing; exit
fi
old=$(cat "$SYSCTL")
# the kernel refuses the change (EBUSY) while callchain events are open
# anywhere: retry for a while
set_max_stack() {
	for _ in $(seq 50); do
		echo "$1" 2>/dev/null >"$SYSCTL" && return 0
		sleep 0.1
	done
	return 1
}
trap 'set_max_stack "$old"; rm -rf "$T"' EXIT
cat >"$T/rec.c" <<'C'
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) void spin(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void recurse(int depth, unsigned long n)
{
	if (depth > 1)
		recurse(depth - 1, n);
	else
		spin(n);
	sink++;   /* no tail call */
}
int main(int argc, char **argv) { recurse(300, argc > 1 ? strtoul(argv[1], 0, 10) : 1); return 0; }
C
cc -O0 -fno-omit-frame-pointer -o "$T/rec" "$T/rec.c" || { skip "cc failed"; done_testing; exit; }
cd "$T"

# spin's samples (folded with --count): how many, how many under
# [truncated], how many from main
count() {
	awk '{ n = $NF; $NF = ""; k = split($0, f, ";"); sub(/ $/, "", f[k]);
	       if (f[k] != "spin") next; all += n;
	       if (f[2] == "[truncated]") tr += n;
	       for (i = 1; i <= k; i++) if (f[i] == "main") { m += n; break } }
	     END { printf "%d %d %d\n", all, tr, m }' "$1"
}

if ! set_max_stack 127; then
	skip "cannot set $SYSCTL (perf events in use?)"
	done_testing; exit
fi
"$PERFKIT" record -F 999 -g -o t127.data ./rec 300000000 >/dev/null 2>rec.err
expect 'record -g at perf_event_max_stack=127: exit 0' test $? -eq 0
# (perf script, and so perfkit script, prints no marker: the folded stacks
# of the perf.data carry it)
"$PERFKIT" collapse --count t127.data 2>/dev/null >t127.folded
"$PERFKIT" script -i t127.data 2>/dev/null >t127.txt
expect 'script: no [truncated] line (as perf script)' sh -c '! grep -q "\[truncated\]" t127.txt' 
read -r all tr m <<<"$(count t127.folded)"
diag "max_stack 127: $all stacks, $tr under [truncated], $m from main"
expect "samples there ($all)" test "$all" -gt 10
expect "every stack is marked truncated ($tr of $all)" test "$tr" -eq "$all"
expect "none poses as reaching main ($m)" test "$m" -eq 0
"$PERFKIT" report -i t127.data >t127.rep 2>/dev/null
expect 'report: a [truncated] entry' grep -q '\[truncated\]' t127.rep

if ! set_max_stack 1024; then
	skip "cannot raise $SYSCTL (perf events in use?)"
	done_testing; exit
fi
"$PERFKIT" record -F 999 -g -o t1024.data ./rec 300000000 >/dev/null 2>rec.err
expect 'record -g at perf_event_max_stack=1024: exit 0' test $? -eq 0
set_max_stack "$old"
"$PERFKIT" script --max-stack 400 -i t1024.data 2>/dev/null | "$PERFKIT" collapse --count >t1024.folded
read -r all tr m <<<"$(count t1024.folded)"
diag "max_stack 1024, --max-stack 400: $all stacks, $tr under [truncated], $m from main"
expect "samples there ($all)" test "$all" -gt 10
expect "--max-stack 400: full stacks, none truncated ($tr)" test "$tr" -eq 0
expect "--max-stack 400: all reach main ($m of $all)" test "$m" -eq "$all"
depth=$(awk '{ $NF = ""; n = gsub(/recurse/, "&"); if (n > d) d = n } END { print d + 0 }' t1024.folded)
expect "300 recurse frames ($depth)" test "$depth" -eq 300
"$PERFKIT" collapse --count --max-stack 400 t1024.data >direct.folded
read -r all2 tr2 m2 <<<"$(count direct.folded)"
expect "collapse --max-stack 400 on perf.data: the same ($all2 stacks, $tr2 truncated, $m2 from main)" \
	test "$all2" -eq "$all" -a "$tr2" -eq 0 -a "$m2" -eq "$all"
"$PERFKIT" collapse --count --max-stack 50 t1024.data >ms50.folded
depth50=$(awk '{ $NF = ""; print gsub(/;/, "&") }' ms50.folded | sort -n | tail -1)
expect "collapse --max-stack 50: at most 50 frames ($depth50 separators)" test "$depth50" -le 50
"$PERFKIT" report -i t1024.data --max-stack 400 >t1024.rep 2>/dev/null
expect 'report --max-stack 400: no [truncated] entry' sh -c "! grep -q '\\[truncated\\]' t1024.rep"
# a tiny DWARF stack copy truncates every chain: the [truncated] frame is a
# frame of its own kind, never flagged inlined with a stale value (UBSan
# caught a bool of 190 in the sanitizer pass; plain builds printed
# "[truncated] (inlined)" rows)
"$PERFKIT" record --call-graph=dwarf,64 -o "$T/tiny.data" -- "$PK_BUILD/examples/matmul" naive 1 >/dev/null 2>&1
"$PERFKIT" report -i "$T/tiny.data" >"$T/tiny.out" 2>"$T/tiny.err"
expect "dwarf,64: report exits 0" test $? = 0
expect "... a [truncated] row" grep -q '\[truncated\]' "$T/tiny.out"
expect "... never '[truncated] (inlined)'" sh -c "! grep -q 'truncated\] (inlined)' '$T/tiny.out'"
done_testing
