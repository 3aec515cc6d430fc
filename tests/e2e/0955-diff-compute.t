#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit diff's perf diff options: -c delta|delta-abs|ratio|wdiff:W1,W2,
# -p (Base period, Period), -F (Formula), -b (rows of both files only),
# -q, -s KEYS (dso, sym, comm, pid): perf diff's columns, values and order
# on the same two files.  With
# -b perf's bytes; otherwise the rows of both files are perf's, and those
# of one file carry perfkit's "new"/"gone" where perf leaves a blank.
# check: fresh-recording (perf compared on recordings made here: scripts/e2e-run)
. "$(dirname "$0")/lib.sh"

if ! have perf; then skip "perf not installed"; done_testing; exit; fi
if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
W=$PK_BUILD/tests/workloads/burn2to1
perf record -q -e cpu-clock -F 999 -o "$T/old.data" -- "$W" 300 >/dev/null 2>&1
perf record -q -e cpu-clock -F 999 -o "$T/new.data" -- "$W" 150 >/dev/null 2>&1

# the rows both files have: a row perfkit marks (new, gone, N/A) is left
# out of both outputs, found by its Shared Object and Symbol
both_rows() {   # PERFKIT_OUT PERF_OUT [PERFKIT_OUT_WITH_HEADER]
	local at ref=${3:-$1}
	# (the first key column: -s orders them)
	at=$(grep -m1 '^# Baseline' "$ref" | awk '{ m = 0; n = split("Command|Shared Object|Symbol|    Pid", k, "|")
		for (i = 1; i <= n; i++) { p = index($0, k[i]); if (p && (!m || p < m)) m = p } print m }')
	awk -v at="$at" '!/^#/ && NF && (/^ +new / || / gone / || / N\/A /) { s = substr($0, at); sub(/ +$/, "", s); print s }' "$ref" >"$T/marked"
	# rows whose numbers are all equal (one sample each, on a short run)
	# come in an order of their own: sorted among themselves, every
	# other row where it is
	for f in "$1" "$2"; do
		sed 's/ *$//' "$f" | awk -v at="$at" 'NR == FNR { m[$0] = 1; next } /^#/ || !NF { print; next } !(substr($0, at) in m)' "$T/marked" - |
			awk -v at="$at" '/^#/ || !NF { printf "%09d\t\t%s\n", NR, $0; next }
				{ k = substr($0, 1, at - 1); if (!(k in g)) g[k] = NR; printf "%09d\t%s\t%s\n", g[k], $0, $0 }' |
			sort -t "$(printf '\t')" -k1,1 -k2,2 | cut -f3- >"$f.both"
	done
}
for o in "-c delta" "-c delta-abs" "-c ratio" "-c wdiff:2,3" "-p" "-F" "-p -F" "-p -c ratio" "-F -c wdiff:1,2" "-p -F -c delta" \
	"-s dso" "-s sym" "-s comm" "-s comm,dso,sym" "-s sym,dso" "-s pid" "--sort=pid,dso" "-s symbol,comm -c ratio"; do
	# shellcheck disable=SC2086
	perf diff $o "$T/old.data" "$T/new.data" >"$T/perf" 2>/dev/null
	# shellcheck disable=SC2086
	"$PERFKIT" diff $o "$T/old.data" "$T/new.data" >"$T/pk" 2>/dev/null
	expect "diff $o: exit 0" test $? = 0
	both_rows "$T/pk" "$T/perf"
	same_file "diff $o: perf diff's rows of both files, in its order" "$T/perf.both" "$T/pk.both"
done

"$PERFKIT" diff -c ratio "$T/old.data" "$T/new.data" >"$T/pk" 2>/dev/null
expect "-c ratio: burn_two's ratio with 6 decimals" grep -Eq '^ +[0-9.]+% +[0-9]+\.[0-9]{6}  .*burn_two$' "$T/pk"
for o in "-b" "-b -p" "-b -c ratio -F" "-b -c wdiff:3,1 -p" "-b -F" "-b -p -F -c delta"; do
	# shellcheck disable=SC2086
	perf diff $o "$T/old.data" "$T/new.data" >"$T/perf" 2>/dev/null
	# shellcheck disable=SC2086
	"$PERFKIT" diff $o "$T/old.data" "$T/new.data" >"$T/pk" 2>/dev/null
	same_file "diff $o: perf diff's output" "$T/perf" "$T/pk"
done
# -q: the rows alone, perf's (no header, no blank line between events)
perf diff -q "$T/old.data" "$T/new.data" >"$T/perf" 2>/dev/null
"$PERFKIT" diff -q "$T/old.data" "$T/new.data" >"$T/pk" 2>/dev/null
"$PERFKIT" diff "$T/old.data" "$T/new.data" >"$T/pk.full" 2>/dev/null
both_rows "$T/pk" "$T/perf" "$T/pk.full"
expect "-q: no header line" sh -c "! grep -q '^#' '$T/pk'"
same_file "-q: perf diff -q's rows of both files" "$T/perf.both" "$T/pk.both"
# a row of OLD only: its Period and Formula blank, as perf's
"$PERFKIT" diff -p -F "$T/old.data" "$T/new.data" >"$T/pk" 2>/dev/null
if grep -q ' gone ' "$T/pk"; then
	expect "-p -F: a row of OLD only has no Period or Formula (perf's blanks)" \
		grep -Eq '^ +[0-9.]+% +[0-9]+ +gone {90,}[^ ]' "$T/pk"
else
	skip "-p -F: no row of OLD only in this recording"
fi
# an event of OLD without samples: its table's header alone, as perf's
# (its columns' widths: perf's come from other tables at times, not
# compared)
perf record -q -e alignment-faults -o "$T/nos.data" -- true >/dev/null 2>&1
perf diff "$T/nos.data" "$T/new.data" 2>/dev/null | sed 's/ *$//; s/\.\.*/./g; s/   */  /g' >"$T/perf"
"$PERFKIT" diff "$T/nos.data" "$T/new.data" 2>/dev/null | sed 's/ *$//; s/\.\.*/./g; s/   */  /g' >"$T/pk"
expect "an event of OLD without samples: a table (perf's has one: $(head -1 "$T/perf"))" grep -q "^# Event 'alignment-faults'" "$T/pk"
same_file "... its header alone, as perf's (widths apart)" "$T/perf" "$T/pk"
# a DSO's samples without a symbol (a stripped binary) are one row, at the
# lowest address OLD has (perf's entry is OLD's), not NEW's lower one
if have cc; then
	cat >"$T/lh.c" <<'C'
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) void f_low(long n) { for (long i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void f_high(long n) { for (long i = 0; i < n; i++) sink += i * 7; }
int main(int argc, char **argv) { if (atoi(argv[1])) f_low(200000000); f_high(200000000); return 0; }
C
	cc -O1 -s -o "$T/lh" "$T/lh.c"
	perf record -q -e cpu-clock -o "$T/lh0.data" -- "$T/lh" 0 >/dev/null 2>&1
	perf record -q -e cpu-clock -o "$T/lh1.data" -- "$T/lh" 1 >/dev/null 2>&1
	perf diff "$T/lh0.data" "$T/lh1.data" 2>/dev/null | grep ' lh ' >"$T/perf"
	"$PERFKIT" diff "$T/lh0.data" "$T/lh1.data" 2>/dev/null | grep ' lh ' >"$T/pk"
	same_file "a stripped binary's row: at OLD's lowest address, as perf's" "$T/perf" "$T/pk"
else
	skip "cc not installed: the stripped binary's row"
fi
# ratio and wdiff: the rows of both files first, then NEW's N/A ones, then
# those of OLD only, the biggest loss first (perf's order)
for c in ratio wdiff:2,3; do
	"$PERFKIT" diff -c $c "$T/old.data" "$T/new.data" 2>/dev/null | grep -v '^#' | grep . >"$T/pk.order"
	bad=$(awk '{ g = / gone / ? 2 : / N\/A / ? 1 : 0; if (g < last) bad++; last = g
		     if (g == 2) { b = $1; sub(/%/, "", b); if (seen && b + 0 > prev + 0) bad++; prev = b; seen = 1 } }
		   END { print bad + 0 }' "$T/pk.order")
	expect "-c $c: rows of both, then N/A, then OLD's own by share lost ($(grep -c ' gone ' "$T/pk.order") gone)" test "$bad" = 0
done
"$PERFKIT" diff -s dso,foo "$T/old.data" "$T/new.data" >/dev/null 2>"$T/err"
expect "-s dso,foo: a usage error (2)" test $? = 2
expect "... naming the keys" grep -q "expected sort keys among dso, sym, comm, pid" "$T/err"
"$PERFKIT" diff -c foo "$T/old.data" "$T/new.data" >/dev/null 2>"$T/err"
expect "-c foo: a usage error (2)" test $? = 2
expect "... naming the computations" grep -q "not a computation (delta, delta-abs, ratio, wdiff:W1,W2)" "$T/err"
"$PERFKIT" diff -c wdiff:1 "$T/old.data" "$T/new.data" >/dev/null 2>"$T/err"
expect "-c wdiff:1: a usage error (2)" test $? = 2
expect "... asking for two weights" grep -q "expected wdiff:W1,W2" "$T/err"
"$PERFKIT" diff -c ratio:1 "$T/old.data" "$T/new.data" >/dev/null 2>&1
expect "-c ratio:1: a usage error (2)" test $? = 2
"$PERFKIT" diff -c ratio "$T/old.data" "$T/old.data" -- "$T/new.data" "$T/new.data" >/dev/null 2>"$T/err"
expect "-c with several files per side: a usage error (2)" test $? = 2
expect "... saying they are for two files" grep -q "for two files" "$T/err"
head -c $(($(wc -c <"$T/old.data") / 2)) "$T/old.data" >"$T/cut.data"
"$PERFKIT" diff -q "$T/cut.data" "$T/new.data" >/dev/null 2>"$T/err"
expect "-q: no warning about a cut file" test ! -s "$T/err"
"$PERFKIT" diff "$T/cut.data" "$T/new.data" >/dev/null 2>"$T/err"
expect "... which is said without -q" test -s "$T/err"
done_testing
