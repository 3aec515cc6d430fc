#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit script prints the inlined functions of a --call-graph dwarf
# recording as perf 6.1's perf script does by default ("name+0xOFF
# (inlined)" lines, innermost first, before the function they are part of;
# a frame whose DWARF name differs from its symbol printed as an inlined
# one): on a -O2 -g C program's recordings by perf and by perfkit, every
# sample equal to perf's (inline-cmp.py: samples whose other frames differ,
# an unwinding difference, left out, at most 1 in 10); none for a
# frame-pointer recording (perf 6.1 adds none there); --no-inline none.
# check: fresh-recording (perf compared on recordings made here: scripts/e2e-run)
. "$(dirname "$0")/lib.sh"

if ! have perf || ! have cc || ! can_perf_event; then
	skip "needs perf, cc and perf_event_open"; done_testing; exit
fi
cat >"$T/inl.c" <<'C'
volatile unsigned long sink;
static inline __attribute__((always_inline)) void inner_inl(long n) { for (long i = 0; i < n; i++) sink += i * i; }
static inline __attribute__((always_inline)) void outer_inl(long n) { inner_inl(n); sink++; }
__attribute__((noinline)) void work(long n) { outer_inl(n); }
__attribute__((noinline)) void work2(long n) { for (long i = 0; i < n; i++) sink += i; }
int main(void) { for (int k = 0; k < 300; k++) { work(200000); work2(100000); } return 0; }
C
cc -O2 -g -o "$T/inl" "$T/inl.c" || { skip "cc failed"; done_testing; exit; }
cd "$T"
have python3 || { skip "no python3"; done_testing; exit; }
CMP=$TOP/tests/e2e/inline-cmp.py
for rec in perf perfkit; do
	if [ $rec = perf ]; then
		perf record -q --call-graph dwarf -F 1000 -o $rec.data ./inl >/dev/null 2>&1
	else
		"$PERFKIT" record --call-graph dwarf -F 1000 -o $rec.data ./inl >/dev/null 2>&1
	fi
	if [ ! -s $rec.data ]; then
		skip "$rec record --call-graph dwarf failed"; continue
	fi
	"$PERFKIT" script -i $rec.data >k-$rec.txt
	perf script -i $rec.data >p-$rec.txt 2>/dev/null
	expect "$rec's recording: inner_inl and outer_inl inlined in work, as perf shows them" \
		grep -q 'inner_inl+0x[0-9a-f]* (inlined)' k-$rec.txt
	cmpout=$(python3 "$CMP" p-$rec.txt k-$rec.txt) && r=0 || r=1
	diag "$cmpout"
	expect "$rec's recording: each sample as perf script prints it, inlined frames included" test $r = 0
	# -F +srcline: each frame of the program with the line perf gives it:
	# an inline chain's items each their own (the call site of the one
	# inside), " (inlined)" after the line; crt1's _start, in no unit, ??:0
	if [ $rec = perf ]; then
		pairs() { awk '/^\t/ { f = $0; next } /^  / && f != "" { print f " | " $0; f = "" } { f = "" }' "$1" |
			grep -E ' (inner_inl|outer_inl|work|main|_start)\+0x[0-9a-f]+( \(.*/inl\))? \|' | sort -u; }
		perf script -F +srcline -i $rec.data 2>/dev/null >ps-$rec.txt
		"$PERFKIT" script -F +srcline -i $rec.data >ks-$rec.txt 2>/dev/null
		pairs ps-$rec.txt >ps-$rec.pairs
		pairs ks-$rec.txt >ks-$rec.pairs
		expect "$rec's recording, -F +srcline: perf's lines for the program's frames ($(wc -l <ps-$rec.pairs) frames)" \
			sh -c "test -s ps-$rec.pairs && cmp -s ps-$rec.pairs ks-$rec.pairs"
		diff ps-$rec.pairs ks-$rec.pairs | head -6 | sed 's/^/# /'
	fi
done
if [ -s perfkit.data ]; then
	"$PERFKIT" script --no-inline -i perfkit.data >noinl.txt
	expect 'script --no-inline: no inlined frame' sh -c "! grep -q '(inlined)' noinl.txt"
	"$PERFKIT" script --inline -i perfkit.data >inl.txt
	expect 'script --inline: inlined frames, no offset (perfkit'"'"'s own form)' grep -q ' inner_inl (inlined)$' inl.txt
fi
# a program without DWARF: perf prints no line for its functions (an
# address in no unit, ??:0), not DSO[ADDR]
cc -O2 -o inl-ng "$T/inl.c"
perf record -q -F 1000 -o ng.data ./inl-ng >/dev/null 2>&1
# (the lines of the system's libraries left out: where their DWARF names
# a DWARF 5 file, libdw and binutils can name it otherwise, README)
no_lib_lines() { awk '/^  / && lib { lib = 0; next } { lib = /\(\/usr\/lib\// } { print }'; }
perf script -F +srcline -i ng.data 2>/dev/null | no_lib_lines >ps-ng.txt
"$PERFKIT" script -F +srcline -i ng.data 2>/dev/null | no_lib_lines >ks-ng.txt
same_file "a program without DWARF, -F +srcline: perf script's text" ps-ng.txt ks-ng.txt
"$PERFKIT" record -g -F 1000 -o fp.data ./inl >/dev/null 2>&1
"$PERFKIT" script -i fp.data >fp.txt
expect 'a frame-pointer recording: no inlined frame (as perf 6.1)' sh -c "test -s fp.txt && ! grep -q '(inlined)' fp.txt"
done_testing
