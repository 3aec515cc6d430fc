#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit script prints the text perf script (6.1) prints for the same
# perf.data, line for line once runs of blanks are squeezed: the headers,
# every frame, each frame's address as perf shows it (relative to its file
# mapping for a user DSO: a file offset, which differs from the address in
# a non-PIE binary; absolute in the kernel), no inlined frames (perf
# script's default), no marker on a chain the kernel cut at its maximum
# depth.  On a perf recording and a perfkit recording, of a PIE and a
# non-PIE program with call chains, and on one without call chains.
. "$(dirname "$0")/lib.sh"

if ! have perf; then skip "perf (the oracle) is not installed"; done_testing; exit; fi
if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
if ! have cc; then skip "no C compiler for the workloads"; done_testing; exit; fi

cc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$T/pie" "$TOP/tests/workloads/burn2to1.c"
cc -O1 -g -fno-omit-frame-pointer -fno-inline -no-pie -o "$T/nopie" "$TOP/tests/workloads/burn2to1.c"

# runs of blanks squeezed; a sample in a PLT stub of either program (the
# non-PIE's .plt.sec, the PIE's .plt), which perf 6.1 names by the symbol
# before it (_init+0xN) and perfkit as the stub (NAME@plt+0xN: README,
# script), made one text
squeeze() { tr -s ' \t' '  ' <"$1" | sed -E 's/ (_init|[^ ]+@plt)\+0x[0-9a-f]+ \(([^)]*pie)\)$/ PLT-STUB (\2)/'; }

compare() {   # compare NAME DATA
	perf script -i "$2" >"$T/perf.txt" 2>/dev/null
	"$PERFKIT" script -i "$2" >"$T/pk.txt" 2>/dev/null
	squeeze "$T/perf.txt" >"$T/perf.sq"
	squeeze "$T/pk.txt" >"$T/pk.sq"
	n=$(grep -c '' "$T/perf.sq")
	expect "$1: perf script printed something ($n lines)" test "$n" -gt 100
	if cmp -s "$T/perf.sq" "$T/pk.sq"; then
		ok "$1: the same text as perf script ($n lines)"
	else
		not_ok "$1: the same text as perf script"
		diff "$T/perf.sq" "$T/pk.sq" | head -8 | while IFS= read -r l; do diag "$l"; done
	fi
}

for prog in pie nopie; do
	perf record -g -o "$T/perf-$prog.data" -- "$T/$prog" 300 >/dev/null 2>&1
	compare "perf record -g, $prog" "$T/perf-$prog.data"
	"$PERFKIT" record -g -o "$T/pk-$prog.data" -- "$T/$prog" 300 >/dev/null 2>&1
	compare "perfkit record -g, $prog" "$T/pk-$prog.data"
done
# the non-PIE frames really are shown as file offsets, not addresses
expect 'non-PIE: burn_one shown at its file offset (not 0x40....)' \
	grep -Eq $'^\t +[0-9a-f]{1,5} burn_one\\+' "$T/pk.txt"
# without call chains perf prints the sampled address itself
perf record -o "$T/flat.data" -- "$T/nopie" 300 >/dev/null 2>&1
compare "perf record (no call chains), nopie" "$T/flat.data"
# DWARF chains from a small stack copy: one that runs past the copy ends
# with perf's "ffffffffffffffff [unknown]" frame (its libdw unwinder's pc
# 0, less 1); code without CFI (crtstuff's __do_global_dtors_aux) is
# unwound on by frame pointer, as libdwfl does.  ld.so's syscall stubs
# (mprotect, munmap), which perf names by binutils' alias as inlined
# frames (README, script), left out on both sides
perf record --call-graph dwarf,2048 -c 20000 -o "$T/dw.data" -- "$PK_BUILD/tests/workloads/calltree" 20 >/dev/null 2>&1
if [ -s "$T/dw.data" ]; then
	perf script -i "$T/dw.data" 2>/dev/null | grep -Ev '(mprotect|munmap)\+' >"$T/dw-perf.txt"
	"$PERFKIT" script -i "$T/dw.data" 2>/dev/null | grep -Ev '(mprotect|munmap)\+' >"$T/dw-pk.txt"
	n=$(grep -c 'ffffffffffffffff \[unknown\]' "$T/dw-perf.txt")
	expect "dwarf,2048: perf ends chains cut by the copy with ffffffffffffffff ($n)" test "$n" -gt 0
	squeeze "$T/dw-perf.txt" >"$T/perf.sq"
	squeeze "$T/dw-pk.txt" >"$T/pk.sq"
	if cmp -s "$T/perf.sq" "$T/pk.sq"; then
		ok "dwarf,2048: the same text as perf script ($(grep -c '' "$T/perf.sq") lines)"
	else
		not_ok "dwarf,2048: the same text as perf script"
		diff "$T/perf.sq" "$T/pk.sq" | head -8 | while IFS= read -r l; do diag "$l"; done
	fi
else
	skip "perf record --call-graph dwarf failed"
fi
done_testing
