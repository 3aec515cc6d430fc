# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit collapse on perf.data (through the session library) gives what
# `perf script | perfkit collapse` gives; --inline expands inlined frames
# (DWARF via libdw) in both paths.
. "$(dirname "$0")/lib.sh"

if ! have perf || ! have cc || ! can_perf_event; then
	skip "needs perf, cc and perf_event_open (perf_event_paranoid <= 2 or root)"
	done_testing; exit
fi
cat >"$T/inl.c" <<'C'
static volatile unsigned long sink;
static inline __attribute__((always_inline)) void inner_inl(long n) { for (long i = 0; i < n; i++) sink += i * i; }
static inline __attribute__((always_inline)) void outer_inl(long n) { inner_inl(n); sink++; }
__attribute__((noinline)) void work(long n) { outer_inl(n); }
int main(void) { for (int k = 0; k < 12; k++) work(3000000); return 0; }
C
cc -O2 -g -fno-omit-frame-pointer -no-pie -o "$T/inl" "$T/inl.c" || { skip "cc failed"; done_testing; exit; }
cd "$T"
perf record -q -e cpu-clock -F 2000 -g -o inl.data ./inl >/dev/null 2>rec.err
if [ ! -s inl.data ]; then
	skip "perf record failed: $(head -1 rec.err)"
	done_testing; exit
fi
perf script -i inl.data >inl.txt 2>/dev/null

for o in "" --kernel --all --count; do
	"$PERFKIT" collapse $o inl.data >data.out 2>data.err
	expect "perf.data ${o:-default}: exit 0" test $? -eq 0
	"$PERFKIT" collapse $o inl.txt >text.out
	# Identical, but for at most 1 % of the weight: once in a few dozen
	# recordings perf script and the session disagree on one sample (seen
	# in CI, not reproduced since); the difference is shown when it happens.
	if cmp -s text.out data.out; then
		ok "perf.data ${o:-default}: same as perf script text"
	else
		diag "$(diff text.out data.out | head -10)"
		expect "perf.data ${o:-default}: same as perf script text but for <= 1 % of the weight" \
			awk 'NR == FNR { a[$0]++; ta += $NF; next } { if (a[$0]) a[$0]--; else d += $NF; tb += $NF }
			     END { for (k in a) if (a[k]) { n = split(k, f, " "); d += f[n] * a[k] }
			           exit !(ta > 0 && d <= 0.01 * (ta > tb ? ta : tb)) }' text.out data.out
	fi
done
expect 'perf.data: the workload stack is there' grep -q '^inl;.*main;work ' data.out
"$PERFKIT" collapse - <inl.data >stdin.out
"$PERFKIT" collapse inl.data >file.out
same_file 'perf.data on standard input (a regular file)' file.out stdin.out
cat inl.data | "$PERFKIT" collapse >pipe.out 2>pipe.err
same_file 'perf.data through a pipe (cat FILE | collapse)' file.out pipe.out
perf record -q -e cpu-clock -F 2000 -g -o - ./inl 2>/dev/null | "$PERFKIT" collapse - >pm.out 2>pm.err
expect "perf's pipe mode on standard input folds the workload" grep -q '^inl;.*main;work ' pm.out

"$PERFKIT" collapse --inline inl.txt >inline.out
expect '--inline: work expands to work;outer_inl_[i];inner_inl_[i]' grep -q ';work;outer_inl_\[i\];inner_inl_\[i\] ' inline.out
"$PERFKIT" collapse --inline --context inl.txt >ctx.out
expect '--inline --context: file:line on each inlined frame' \
	grep -q ';work:inl.c:4;outer_inl:inl.c:3_\[i\];inner_inl:inl.c:2_\[i\] ' ctx.out
"$PERFKIT" collapse --inline inl.data >inline-data.out
same_file '--inline: perf.data gives the same as text' inline.out inline-data.out
done_testing
