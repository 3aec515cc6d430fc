#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 0111 — record -z (perf's --compression-level): the rings' records written
# as zstd PERF_RECORD_COMPRESSED records, the side-band before them as it is,
# HEADER_COMPRESSED in the header; perf and perfkit read the file back to the
# same samples, in a file, a pipe, a full disk and a killed recorder's file.
. "$(dirname "$0")/lib.sh"
if ! can_perf_event; then skip "perf events not allowed here"; done_testing; exit; fi
burn=$PK_BUILD/tests/workloads/burn2to1

# records_of FILE TYPE — how many records of TYPE --stats counts
records_of() { "$PERFKIT" report --stats -i "$1" 2>/dev/null | sed -n "s/^ *$2 events: *\([0-9]*\).*/\1/p" | head -1; }

"$PERFKIT" record -z -F 2000 -g -o "$T/z.data" -- "$burn" 300 >/dev/null 2>"$T/z.err"
expect "record -z: exit 0" test $? -eq 0
expect "... the summary line says compressed, with the original size and the ratio" \
	grep -q '^\[ perfkit record: [0-9]* samples, .* written to .*z.data, compressed (original [0-9.]* MB, ratio is [0-9.]*) \]$' "$T/z.err"
"$PERFKIT" report --header-only -i "$T/z.data" >"$T/z.hdr" 2>&1
expect "... the header: zstd, level 1, a ratio over 1" \
	grep -q '^# compressed : Zstd, level = 1, ratio = \([2-9]\|[1-9][0-9]\)' "$T/z.hdr"
nz=$(records_of "$T/z.data" COMPRESSED)
nm=$(records_of "$T/z.data" MMAP2)
ns=$(records_of "$T/z.data" SAMPLE)
diag "COMPRESSED $nz, MMAP2 $nm, SAMPLE $ns"
expect "... COMPRESSED records, holding the samples (${nz:-0}, ${ns:-0})" test "${nz:-0}" -gt 0 -a "${ns:-0}" -gt 100
want=$(sed -n 's/^\[ perfkit record: \([0-9]*\) samples.*/\1/p' "$T/z.err")
expect "... every sample recorded read back (${ns:-0} of ${want:-?})" test "${ns:-x}" = "${want:-y}"
"$PERFKIT" report --stdio -i "$T/z.data" --no-children -g none >"$T/z.rep" 2>/dev/null
expect "report reads it: the workload's functions" grep -q 'burn_two' "$T/z.rep"

# the same samples as an uncompressed copy of the file: perfkit script of
# the file perf's reader decompressed and wrote again (perf inject), else
# perf script's text beside perfkit's
if have perf; then
	perf script -i "$T/z.data" -F comm,tid,time,ip,sym,dso >"$T/pf.txt" 2>/dev/null
	"$PERFKIT" script -i "$T/z.data" -F comm,tid,time,ip,sym,dso >"$T/pk.txt" 2>/dev/null
	expect "perf script reads it ($(wc -l <"$T/pf.txt") lines)" test "$(wc -l <"$T/pf.txt")" -gt 100
	same_file "... and perfkit script prints what perf script prints" "$T/pf.txt" "$T/pk.txt"
	perf report --header-only -i "$T/z.data" 2>/dev/null | grep -q '^# compressed : Zstd, level = 1'
	expect "perf reads its HEADER_COMPRESSED" test $? -eq 0
else
	skip "perf not installed: perf reading perfkit's -z file"
fi

# levels: -zN and --compression-level=N (perf's spellings), above 22 is 22,
# 0 is none; a level that is no number: usage error
"$PERFKIT" record -z7 -F 500 -o "$T/z7.data" -- "$burn" 50 >/dev/null 2>&1
expect "-z7: level 7 in the header" sh -c "'$PERFKIT' report --header-only -i '$T/z7.data' | grep -q 'level = 7,'"
"$PERFKIT" record --compression-level=99 -F 500 -o "$T/z99.data" -- "$burn" 50 >/dev/null 2>&1
expect "--compression-level=99: zstd's maximum, 22" \
	sh -c "'$PERFKIT' report --header-only -i '$T/z99.data' | grep -q 'level = 22,'"
"$PERFKIT" record -z0 -F 500 -o "$T/z0.data" -- "$burn" 50 >/dev/null 2>"$T/z0.err"
expect "-z0: not compressed (no COMPRESSED record, no header line, a plain summary)" \
	sh -c "[ -z \"\$(sh -c '$PERFKIT report --stats -i $T/z0.data' | grep COMPRESSED)\" ] &&
		! '$PERFKIT' report --header-only -i '$T/z0.data' | grep -q compressed &&
		! grep -q compressed '$T/z0.err'"
"$PERFKIT" record -zfast -o "$T/zx.data" -- true >/dev/null 2>"$T/zx.err"
rc=$?
expect "-zfast: exit 2 with a message naming -z ($rc: $(head -1 "$T/zx.err"))" \
	sh -c "[ $rc -eq 2 ] && grep -q -- '-z' '$T/zx.err' && [ ! -e '$T/zx.data' ]"

# a pipe: perf's pipe mode, compressed records after the header records
"$PERFKIT" record -z -F 1000 -o - -- "$burn" 100 2>/dev/null >"$T/pipe.data"
"$PERFKIT" script -i - <"$T/pipe.data" -F ip,sym >"$T/pipe.txt" 2>"$T/pipe.err"
expect "-z -o -: perfkit script reads the stream ($(wc -l <"$T/pipe.txt") samples)" \
	sh -c "grep -q burn_ '$T/pipe.txt' && [ ! -s '$T/pipe.err' ]"
if have perf; then
	expect "... and perf script" sh -c "perf script -i - -F ip,sym <'$T/pipe.data' 2>/dev/null | grep -q burn_"
fi

# a recorder killed with SIGKILL: its temporary file holds the records
# compressed up to the last flush, whole
mkdir "$T/k"
"$PERFKIT" record -z -F 999 -g -o "$T/k/out.data" -- sh -c "echo \$\$ >'$T/child'; exec '$burn' 100000" \
	>/dev/null 2>&1 &
rec=$!
sleep 3
kill -KILL $rec
wait $rec 2>/dev/null
[ -s "$T/child" ] && kill "$(cat "$T/child")" 2>/dev/null
f=$(ls "$T"/k/out.data.tmp-* 2>/dev/null | head -1)
if [ -n "$f" ]; then
	"$PERFKIT" report --stdio -i "$f" --no-children -g none >"$T/k.rep" 2>"$T/k.err"
	expect "killed recorder (-z): report reads its file, without a warning" \
		sh -c "grep -q burn_ '$T/k.rep' && ! grep -q -i 'warning' '$T/k.err'"
	diag "$(head -2 "$T/k.err")"
else
	not_ok "killed recorder (-z): no temporary file left"
fi

# a full disk: the records compressed up to the last whole flush are kept,
# and report reads as many samples as the summary says were kept
mkdir -p "$T/full"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=48k perfkit-e2e-zfull "$T/full" 2>/dev/null; then
	f=$T/full/perf.data
	timeout 30 "$PERFKIT" record -z -e page-faults -c 1 -g -o "$f" -- \
		dd if=/dev/zero of=/dev/null bs=64M count=16 >/dev/null 2>"$T/full.err"
	rc=$?
	kept=$(sed -n 's/^\[ perfkit record: \([0-9]*\) samples kept, \([0-9]*\) dropped (disk full), .* written to .*\]$/\1/p' "$T/full.err")
	n=$("$PERFKIT" report -i "$f" --stdio 2>/dev/null | sed -n 's/^# Event count (approx.): \([0-9]*\)$/\1/p' | head -1)
	diag "rc $rc, kept ${kept:-?}, report ${n:-?}: $(head -1 "$T/full.err" | cut -c1-120)"
	expect "full disk (-z): exit 1, the samples kept said ($rc, ${kept:-none})" test "$rc" -eq 1 -a -n "$kept"
	expect "... report reads them all (${n:-0} = ${kept:-?})" test "${n:-x}" = "${kept:-y}"
	if have perf; then
		expect "... perf reads it" sh -c 'perf script -i "$1" -F ip >/dev/null 2>&1' - "$f"
	fi
	umount "$T/full"
else
	skip "full disk (-z): cannot mount a tmpfs (needs root)"
fi
done_testing
