#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit script -G / --hide-call-graph: perf script's option to print a
# recording with call chains one line per sample (comm right-aligned, the
# sample's own ip, symbol and DSO on the header line, no frame lines), so
# that -F lists and greps read the same as on a file without chains.  Of a
# --call-graph dwarf sample in an inlined function the symbol is the
# function it was inlined into, as perf prints it; a tracepoint recorded
# with -g gets no frames.  Checked without perf (one line per sample, the
# leaf equal to the first frame of the full output) and, where perf is
# installed, byte for byte against perf script -G (6.1).
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
if ! have cc; then skip "no cc"; done_testing; exit; fi
cat >"$T/inl.c" <<'C'
volatile unsigned long sink;
static inline __attribute__((always_inline)) void inner_inl(long n) { for (long i = 0; i < n; i++) sink += i * i; }
__attribute__((noinline)) void work(long n) { inner_inl(n); sink++; }
int main(void) { for (int k = 0; k < 200; k++) work(200000); return 0; }
C
cc -O2 -g -fno-omit-frame-pointer -o "$T/inl" "$T/inl.c" || { skip "cc failed"; done_testing; exit; }
cd "$T"
"$PERFKIT" record -e cpu-clock:u -g -o fp.data -- ./inl >/dev/null 2>&1
"$PERFKIT" record -e cpu-clock:u --call-graph dwarf -o dw.data -- ./inl >/dev/null 2>&1

for d in fp dw; do
	if ! [ -s $d.data ]; then skip "$d.data: not recorded"; continue; fi
	"$PERFKIT" script -i $d.data >full.out 2>/dev/null
	"$PERFKIT" script -i $d.data -G >g.out 2>g.err
	expect "$d: -G accepted" test $? = 0
	head -2 g.err | while IFS= read -r l; do diag "$l"; done
	n=$(grep -c 'cpu-clock:u:' full.out)
	expect "$d: one line per sample ($n)" test "$(wc -l <g.out)" = "$n" -a "$n" -gt 0
	expect "$d: no frame lines" test "$(grep -c "$(printf '^\t')" g.out)" = 0
	expect "$d: the leaf is work, never the inlined inner_inl" \
		sh -c '! grep -q inner_inl g.out && grep -q " work+0x[0-9a-f]* (.*inl)$" g.out'
	"$PERFKIT" script -i $d.data --hide-call-graph -F comm,ip,sym >long.out 2>/dev/null
	expect "$d: --hide-call-graph with -F: comm, ip and sym on one line" \
		sh -c "test \$(wc -l <long.out) = $n && ! grep -qv '^ *inl  *[0-9a-f]*  *[^ ]*\$' long.out"
done

if have perf; then
	perf record -q -e cpu-clock:u -g -o pfp.data -- ./inl >/dev/null 2>&1
	perf record -q -e cpu-clock:u --call-graph dwarf -o pdw.data -- ./inl >/dev/null 2>&1
	for d in fp dw pfp pdw; do
		[ -s $d.data ] || { skip "$d.data: not recorded"; continue; }
		fails=0
		for F in '' '-F comm,ip,sym' '-F +pid' '-F ip,sym,symoff,dso' '-F comm,tid,period,event,ip,sym,dso'; do
			# shellcheck disable=SC2086
			perf script -i $d.data -G $F >perf.out 2>/dev/null
			# shellcheck disable=SC2086
			"$PERFKIT" script -i $d.data -G $F >pk.out 2>/dev/null
			if ! cmp -s perf.out pk.out; then
				fails=$((fails + 1)); diag "$d -G $F:"
				diff perf.out pk.out | head -4 | while IFS= read -r l; do diag "$l"; done
			fi
		done
		expect "$d.data: -G prints perf script -G's bytes (5 field lists)" test "$fails" = 0
	done
else
	skip "perf (the oracle) is not installed"
fi
done_testing
