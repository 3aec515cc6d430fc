#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit cache --model=modern on real programs, geometry pinned: the
# prefetchers stop at 4 KiB pages (a page-by-page walk misses LL as often
# as in the cachegrind model, which has no prefetcher), a unit-stride sweep
# is mostly prefetched, the two TLB levels count a strided walk as
# expected, random branches mispredict where sorted ones do not, returns
# are predicted by the return stack, and written lines are written back.
. "$(dirname "$0")/lib.sh"

if ! have valgrind || ! ls "$PK_BUILD"/vgtool/lib/pkcache-* >/dev/null 2>&1; then
	skip "valgrind or the pkcache tool is not built (mk/cache.mk)"
	done_testing
	exit
fi
cat >"$T/walk.c" <<'EOF'
#include <stdlib.h>
/* walk MIB STEP [PASSES [w]]: read (or write) one byte every STEP bytes
 * of a MIB-MiB buffer, PASSES times */
int main(int argc, char **argv)
{
	size_t n = (size_t)atol(argv[1]) << 20, step = (size_t)atol(argv[2]);
	int passes = argc > 3 ? atoi(argv[3]) : 1, wr = argc > 4;
	volatile char *a = malloc(n);
	long s = 0;

	if (!a)
		return 2;
	for (int p = 0; p < passes; p++)
		for (size_t i = 0; i < n; i += step) {
			if (wr)
				a[i] = 1;
			else
				s += a[i];
		}
	return (int)(s & 1);
}
EOF
cat >"$T/br.c" <<'EOF'
#include <stdlib.h>
/* br N random|sorted: sum the bytes >= 128 of N pseudo-random bytes, 4
 * times, in their order or sorted (counting sort: few branches) */
int main(int argc, char **argv)
{
	int n = atoi(argv[1]), cnt[256] = { 0 };
	unsigned char *a = malloc((size_t)n);
	unsigned x = 12345;
	long s = 0;

	for (int i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		a[i] = (unsigned char)(x >> 16);
	}
	if (argv[2][0] == 's') {
		for (int i = 0; i < n; i++)
			cnt[a[i]]++;
		for (int v = 0, i = 0; v < 256; v++)
			while (cnt[v]--)
				a[i++] = (unsigned char)v;
	}
	for (int r = 0; r < 4; r++)
		for (int i = 0; i < n; i++)
			if (a[i] >= 128)
				s += a[i];
	return (int)(s & 1);
}
EOF
cat >"$T/fib.c" <<'EOF'
#include <stdlib.h>
__attribute__((noinline)) static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(int argc, char **argv) { return (int)(fib(atoi(argv[1])) & 1); }
EOF
# -O0 keeps the data-dependent branch of br.c a branch (no cmov)
cc -O1 -g -o "$T/walk" "$T/walk.c" && cc -O0 -g -o "$T/br" "$T/br.c" && cc -O1 -g -o "$T/fib" "$T/fib.c" ||
	{ not_ok "build the test programs"; done_testing; exit; }

col() { # file event — total from the summary line
	awk -v e="$2" '/^events:/ { for (i = 2; i <= NF; i++) if ($i == e) c = i }
		/^summary:/ { print $c }' "$1"
}
# a current x86-64 core: 48 KiB 12-way L1d, 2 MiB L2, 8 MiB LL slice
G="--I1=32768,8,64 --D1=49152,12,64 --LL=8388608,16,64"
M="--model=modern --L2=2097152,16,64 --tlb=64,4,4096 --stlb=1536,12 --prefetch=stream --l1-prefetch=yes"
run() { # out model-options... -- cmd
	local out=$1; shift
	"$PERFKIT" cache -q -o "$T/$out" $G "$@" 2>>"$T/err" || diag "$(tail -3 "$T/err")"
	[ -s "$T/$out" ] || not_ok "simulation wrote $out"
}

# 1. page-by-page walk of 256 MiB: 65536 lines, each in a new page
run pw.mo $M -- "$T/walk" 256 4096
run pw.cg --model=cachegrind -- "$T/walk" 256 4096
m=$(col "$T/pw.mo" DLmr); c=$(col "$T/pw.cg" DLmr); pf=$(col "$T/pw.mo" PFi); p1=$(col "$T/pw.mo" PF1i)
diag "page walk: LL read misses modern $m, cachegrind $c; L2 prefetches $pf, L1 prefetches $p1"
expect "page walk: the cachegrind model misses LL on every page" [ "${c:-0}" -ge 65536 ]
expect "page walk: modern misses LL as often (prefetch does not cross pages)" \
	awk -v m="$m" -v c="$c" 'BEGIN { exit !(m >= 0.95 * 65536 && m <= c * 1.05) }'
expect "page walk: nearly nothing prefetched" \
	awk -v a="$pf" -v b="$p1" 'BEGIN { exit !(a != "" && b != "" && a + b < 2000) }'

# 2. unit-stride sweep of 8 MiB (131072 lines), 4 bytes at a time
run sw.mo $M -- "$T/walk" 8 4
run sw.cg --model=cachegrind -- "$T/walk" 8 4
d1m=$(col "$T/sw.mo" D1mr); d1c=$(col "$T/sw.cg" D1mr); d2=$(col "$T/sw.mo" D2mr)
p1=$(col "$T/sw.mo" PF1i); pf=$(col "$T/sw.mo" PFi); pfh=$(col "$T/sw.mo" PFh)
diag "sweep: D1 read misses modern $d1m, cachegrind $d1c; L2 demand misses $d2; L1 prefetches $p1, L2 prefetches $pf (hit $pfh)"
expect "sweep: cachegrind misses D1 on every line" [ "${d1c:-0}" -ge 131072 ]
expect "sweep: the L1 prefetcher brings 3 lines of 4" \
	awk -v p="$p1" -v m="$d1m" 'BEGIN { exit !(p >= 0.74 * 131072 && m <= 0.27 * 131072) }'
expect "sweep: the L2 stream prefetcher leaves few L2 demand misses" \
	awk -v d="$d2" -v h="$pfh" 'BEGIN { exit !(d <= 0.05 * 131072 && h >= 0.9 * 131072) }'

# 3. TLB levels: 1024 pages x 4 passes fit the 1536-entry STLB (walks on
# the first pass only); 4096 pages x 2 passes do not (a walk every access)
run t1.mo $M -- "$T/walk" 4 4096 4
run t2.mo $M -- "$T/walk" 16 4096 2
dt1=$(col "$T/t1.mo" DTmr); st1=$(col "$T/t1.mo" STmr); dt2=$(col "$T/t2.mo" DTmr); st2=$(col "$T/t2.mo" STmr)
pw2=$(col "$T/t2.mo" PW2m)
diag "TLB: 1024 pages x4: dTLB $dt1 STLB $st1; 4096 pages x2: dTLB $dt2 STLB $st2 (walks missing L2 $pw2)"
expect "TLB: 1024 pages miss the 64-entry dTLB every time" [ "${dt1:-0}" -ge 4096 ]
expect "TLB: 1024 pages miss the STLB once each" \
	awk -v s="$st1" 'BEGIN { exit !(s >= 1024 && s < 1024 + 400) }'
expect "TLB: 4096 pages miss the STLB every time" [ "${st2:-0}" -ge 8192 ]
expect "TLB: 8 page entries share a line, so most walks hit L2" \
	awk -v p="$pw2" -v s="$st2" 'BEGIN { exit !(p > 0 && p <= s / 4) }'

# 4. branches: random against sorted data, and returns
run br.r $M -- "$T/br" 50000 random
run br.s $M -- "$T/br" 50000 sorted
r=$(col "$T/br.r" Bcm); s=$(col "$T/br.s" Bcm)
diag "branches: mispredicts random $r, sorted $s"
expect "random data: about half of 200000 data branches mispredicted" \
	awk -v r="$r" 'BEGIN { exit !(r >= 80000) }'
expect "random mispredicts >= 5x sorted" awk -v r="$r" -v s="$s" 'BEGIN { exit !(r >= 5 * s) }'
run fib.mo $M -- "$T/fib" 18
b=$(col "$T/fib.mo" Br); bm=$(col "$T/fib.mo" Brm)
diag "returns: $b, mispredicted $bm"
expect "returns: fib(18)'s 8361 returns counted" [ "${b:-0}" -ge 8361 ]
expect "returns: the return stack predicts them" awk -v b="$b" -v m="$bm" 'BEGIN { exit !(m * 100 <= b) }'

# 5. write-backs: every written line of an 8 MiB buffer leaves D1 dirty
run wb.w $M -- "$T/walk" 8 64 1 w
run wb.r $M -- "$T/walk" 8 64 1
ww=$(col "$T/wb.w" D1wb); wr=$(col "$T/wb.r" D1wb); lw=$(col "$T/wb.w" L2wb)
diag "write-backs: D1 after writing $ww (L2 $lw), after reading $wr"
expect "writes: D1 writes back nearly every line" [ "${ww:-0}" -ge 130000 ]
expect "writes: L2 writes back what it cannot hold" [ "${lw:-0}" -ge 90000 ]
expect "reads: (almost) no write-backs" [ "${wr:-1000000}" -le 2000 ]

# bad options: one line, usage exit status, nothing run
for bad in "--stlb=1000,12" "--stlb=12" "--l1-prefetch=maybe" "--prefetch=fast" "--model=cachegrind --stlb=none"; do
	# shellcheck disable=SC2086
	"$PERFKIT" cache -q -o "$T/bad.out" $bad -- "$T/fib" 3 >"$T/bad.o" 2>"$T/bad.e"; rc=$?
	if [ $rc = 2 ] && [ ! -e "$T/bad.out" ] && grep -q -- "${bad##* }\|expected\|need" "$T/bad.e"; then
		ok "bad option $bad: exit 2, says why"
	else
		not_ok "bad option $bad: exit 2, says why (rc $rc)"; diag "$(head -3 "$T/bad.e")"
	fi
done
done_testing
