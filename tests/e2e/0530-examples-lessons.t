#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The practice workloads teach what they claim (docs/LESSONS.md):
#  - matmul: naive's D1 miss rate is at least 3x ikj's and 3x blocked's,
#    with pinned geometry (32 KiB 8-way and 48 KiB 12-way D1, cachegrind
#    model; 48 KiB 12-way with the modern model), and natively naive is the
#    slowest (generous margin: 1.5x, best of 3);
#  - branches: random's mispredict rate is at least 5x sorted's (modern
#    model, pinned geometry), the sums agree, and the loop holds a real
#    conditional jump (no cmov);
#  - falseshare: both versions run, count right and print.
. "$(dirname "$0")/lib.sh"

MM=$PK_BUILD/examples/matmul
BR=$PK_BUILD/examples/branches
FS=$PK_BUILD/examples/falseshare
LL=--LL=33554432,16,64

# natively, first: these need no Valgrind
best() { # prog args... — the smallest of 3 times printed as "NAME: X ms|ns ..."
	for _ in 1 2 3; do "$@" | awk '{ print $2 }'; done | sort -g | head -1
}
tn=$(best "$MM" naive 1) ti=$(best "$MM" ikj 1) tb=$(best "$MM" blocked 1)
diag "matmul ms per multiply (best of 3): naive $tn  ikj $ti  blocked $tb"
expect "matmul natively: naive slower than ikj (1.5x margin)" awk -v a="$tn" -v b="$ti" 'BEGIN { exit !(a > 1.5 * b) }'
expect "matmul natively: naive slower than blocked (1.5x margin)" awk -v a="$tn" -v b="$tb" 'BEGIN { exit !(a > 1.5 * b) }'
s1=$("$MM" naive 1 | sed 's/.*checksum //') s2=$("$MM" ikj 1 | sed 's/.*checksum //') s3=$("$MM" blocked 1 | sed 's/.*checksum //')
expect "matmul: the three checksums agree ($s1)" test "$s1" = "$s2" -a "$s1" = "$s3"
expect_fail "matmul: an unknown version is refused" sh -c '"$0" bogus 2>/dev/null' "$MM"

rn=$(best "$BR" random 65536 50) rs=$(best "$BR" sorted 65536 50)
diag "branches ns per element (best of 3): random $rn  sorted $rs"
expect "branches natively: random slower than sorted (1.5x margin)" awk -v a="$rn" -v b="$rs" 'BEGIN { exit !(a > 1.5 * b) }'
sr=$("$BR" random 1000 3 | sed 's/.*sum //') ss=$("$BR" sorted 1000 3 | sed 's/.*sum //')
expect "branches: the same sum over random and sorted data ($sr)" test -n "$sr" -a "$sr" = "$ss"
# every example answers --help and -h: its usage on stdout, exit 0
for ex in branches falseshare listchase lockcount matmul readfile readmostly; do
	for h in --help -h; do
		"$PK_BUILD/examples/$ex" $h >"$T/help" 2>"$T/help.err"
		expect "$ex $h: exit 0, 'usage: $ex' on stdout, nothing on stderr" \
			sh -c "test $? = 0 && grep -q '^usage: $ex' '$T/help' && ! test -s '$T/help.err'"
	done
done
"$BR" bogus >/dev/null 2>"$T/br.err"
expect "branches: bad usage exits 2" test $? = 2
expect "... with a usage line" grep -q '^usage: branches random|sorted' "$T/br.err"
if have objdump; then
	objdump -d --no-show-raw-insn "$BR" | awk '/<count_big>:/,/ret/' >"$T/br.dis"
	expect "branches: count_big has a conditional jump" grep -Eq '	j(n?s|be|a|le|g|ae|b|l|ge) ' "$T/br.dis"
	expect_fail "branches: ... and no cmov" grep -q cmov "$T/br.dis"
	objdump -d --no-show-raw-insn "$MM" | awk '/<naive>:/,/ret/' >"$T/mm.dis"
	expect_fail "matmul: naive is not vectorised (no mulps/addps)" grep -Eq '(mul|add)ps' "$T/mm.dis"
	for f in naive init; do
		objdump -d --no-show-raw-insn "$MM" | awk "/<$f>:/,/ret/" | sed -n '2,3{s/^[^	]*	//;p}' | tr -s ' ' >"$T/mm.$f.head"
		expect "matmul: $f keeps its frame pointer (push %rbp; mov %rsp,%rbp)" \
			test "$(tr '\n' ';' <"$T/mm.$f.head")" = "push %rbp;mov %rsp,%rbp;"
	done
	# so that a profile's stacks reach main
	sed -n '2,3{s/^[^	]*	//;p}' "$T/br.dis" | tr -s ' ' >"$T/br.head"
	expect "branches: count_big keeps its frame pointer (push %rbp; mov %rsp,%rbp)" \
		test "$(tr '\n' ';' <"$T/br.head")" = "push %rbp;mov %rsp,%rbp;"
else
	skip "no objdump"
fi

for v in shared padded; do
	"$FS" $v 200000 >"$T/fs.$v" 2>&1
	expect "falseshare $v runs" test $? = 0
	expect "falseshare $v prints both counters" grep -q "^$v: counters 200000 and 200000, [0-9.]* ms" "$T/fs.$v"
done
diag "$(cat "$T/fs.shared" "$T/fs.padded")"
expect_fail "falseshare: bad usage refused" sh -c '"$0" neither 2>/dev/null' "$FS"

if ! have valgrind || ! ls "$PK_BUILD"/vgtool/lib/pkcache-* >/dev/null 2>&1; then
	skip "valgrind or the pkcache tool is not built (mk/cache.mk)"
	done_testing
	exit
fi

# D1 miss rate in % = (D1mr + D1mw) / (Dr + Dw); mispredict % = (Bcm + Bim) / (Bc + Bi)
rate() {
	awk '/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i }
	     /^summary:/ { printf "%.4f\n", 100 * ($col["D1mr"] + $col["D1mw"]) / ($col["Dr"] + $col["Dw"]) }' "$1"
}
mispred() {
	awk '/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i }
	     /^summary:/ { printf "%.4f\n", 100 * ($col["Bcm"] + $col["Bim"]) / ($col["Bc"] + $col["Bi"]) }' "$1"
}
# the simulations two at a time, in the background, each with its exit
# status in OUT.rc (their counts do not depend on the load: two cores take
# them in about half the time of one after the other; the native timings
# above ran alone, before them)
jobs_=()
sim() { # out model D1 prog args...
	local out=$1 model=$2 d1=$3; shift 3
	while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
	{ "$PERFKIT" cache -q --model="$model" --D1="$d1" $LL -o "$out" -- "$@" >/dev/null 2>"$out.err"
	  echo $? >"$out.rc"; } &
	jobs_+=($!)
}
ran() { # out model D1 prog args... — the simulation ran, else not ok with its stderr
	local out=$1 model=$2 d1=$3; shift 3
	[ "$(cat "$out.rc" 2>/dev/null)" = 0 ] && return 0
	not_ok "perfkit cache --model=$model --D1=$d1 $*"; sed 's/^/# /' "$out.err"; return 1
}
# (the sanitizer pass looks for memory errors in perfkit: one geometry is
# enough there, the simulations cost as much as in the plain pass)
geos="cachegrind:32768,8,64"
[ -z "${PK_SAN:-}" ] && geos="$geos cachegrind:49152,12,64 modern:49152,12,64"
for g in $geos; do
	for v in naive ikj blocked; do sim "$T/mm-${g/:/-}-$v" "${g%%:*}" "${g#*:}" "$MM" $v 1; done
done
for v in random sorted; do sim "$T/br-$v" modern 49152,12,64 "$BR" $v 16384 50; done
wait "${jobs_[@]}"

lesson3() { # model D1
	local m=$1 d1=$2 v
	for v in naive ikj blocked; do ran "$T/mm-$m-$d1-$v" "$m" "$d1" "$MM" $v 1 || return; done
	local a b c
	a=$(rate "$T/mm-$m-$d1-naive") b=$(rate "$T/mm-$m-$d1-ikj") c=$(rate "$T/mm-$m-$d1-blocked")
	diag "--model=$m --D1=$d1: D1 miss % naive $a  ikj $b  blocked $c"
	expect "$m D1=$d1: naive's D1 miss % >= 3x ikj's" awk -v a="$a" -v b="$b" 'BEGIN { exit !(a >= 3 * b) }'
	expect "$m D1=$d1: naive's D1 miss % >= 3x blocked's" awk -v a="$a" -v b="$c" 'BEGIN { exit !(a >= 3 * b) }'
}
for g in $geos; do lesson3 "${g%%:*}" "${g#*:}"; done

if ran "$T/br-random" modern 49152,12,64 "$BR" random 16384 50 &&
   ran "$T/br-sorted" modern 49152,12,64 "$BR" sorted 16384 50; then
	a=$(mispred "$T/br-random") b=$(mispred "$T/br-sorted")
	diag "--model=modern: mispredict % random $a  sorted $b"
	expect "modern: random's mispredict % >= 5x sorted's" awk -v a="$a" -v b="$b" 'BEGIN { exit !(a >= 5 * b && a > 0) }'
fi
done_testing
