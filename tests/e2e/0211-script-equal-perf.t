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
# check: fresh-recording (perf compared on recordings made here: scripts/e2e-run)
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
# unwound on by frame pointer, as libdwfl does.  Sample by sample: in ld.so's
# startup perf's unwinder sometimes stops a frame before perfkit's, or one
# after (a few samples a run, README), so at most 2 % of the samples may
# differ; ld.so's syscall stubs (mprotect, munmap), which perf names by
# binutils' alias as inlined frames (README, script), left out on both sides
perf record --call-graph dwarf,2048 -c 20000 -o "$T/dw.data" -- "$PK_BUILD/tests/workloads/calltree" 20 >/dev/null 2>&1
if [ -s "$T/dw.data" ]; then
	perf script -i "$T/dw.data" 2>/dev/null | grep -Ev '(mprotect|munmap)\+' | tr -s ' \t' '  ' >"$T/dw-perf.txt"
	"$PERFKIT" script -i "$T/dw.data" 2>/dev/null | grep -Ev '(mprotect|munmap)\+' | tr -s ' \t' '  ' >"$T/dw-pk.txt"
	np=$(grep -c 'ffffffffffffffff \[unknown\]' "$T/dw-perf.txt")
	nk=$(grep -c 'ffffffffffffffff \[unknown\]' "$T/dw-pk.txt")
	expect "dwarf,2048: chains cut by the copy end with ffffffffffffffff, as perf's ($nk; perf $np)" \
		test "$np" -gt 0 -a "$nk" -ge $((np - 2 - np / 10)) -a "$nk" -le $((np + 2 + np / 10))
	# the samples (blank-line separated) compared one by one
	cmpres=$(awk 'BEGIN { RS = "" } FNR == NR { a[FNR] = $0; n = FNR; next }
		{ m = FNR; if (a[FNR] != $0) d++ } END { printf "%d %d %d", n, m, d }' "$T/dw-perf.txt" "$T/dw-pk.txt")
	read -r ns nks nd <<<"$cmpres"
	diag "dwarf,2048: $ns samples, $nd differ"
	expect "dwarf,2048: perf script's samples, at most 2 % differing ($nd of $ns)" \
		test "$ns" -gt 100 -a "$ns" = "$nks" -a $((nd * 50)) -le "$ns"
else
	skip "perf record --call-graph dwarf failed"
fi
done_testing
