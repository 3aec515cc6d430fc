#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input to perfkit report and script: a missing file and a file that is
# not perf.data give one clear line and exit 1; a perf.data cut in half and
# one whose header says data size 0 give the complete records plus one
# warning line; nothing crashes (this test also runs under ASan/UBSan).
. "$(dirname "$0")/lib.sh"

if ! have perf; then skip "perf (to write a perf.data) is not installed"; done_testing; exit; fi
if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi

W=$PK_BUILD/tests/workloads/burn2to1
if [ ! -x "$W" ]; then
	W=$T/burn2to1
	cc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$W" "$TOP/tests/workloads/burn2to1.c"
fi
perf record -g -o "$T/good.data" -- "$W" 300 >/dev/null 2>&1
nsamples() { "$PERFKIT" script -i "$1" 2>/dev/null | grep -c 'cpu-clock'; }
full=$(nsamples "$T/good.data")
expect "good file has samples ($full)" test "$full" -gt 100

lines() { wc -l <"$1" | tr -d ' '; }

for cmd in report script; do
	# missing file
	"$PERFKIT" $cmd -i "$T/nope.data" >"$T/out" 2>"$T/err"; rc=$?
	expect "$cmd missing file: exit 1" test $rc = 1
	expect "$cmd missing file: one line naming the file" \
		test "$(lines "$T/err")" = 1 -a "$(grep -c "nope.data" "$T/err")" = 1
	expect "$cmd missing file: nothing on stdout" test ! -s "$T/out"
	diag "$(cat "$T/err")"

	# not perf.data
	"$PERFKIT" $cmd -i /etc/passwd >"$T/out" 2>"$T/err"; rc=$?
	expect "$cmd /etc/passwd: exit 1" test $rc = 1
	expect "$cmd /etc/passwd: one line 'not a perf.data file'" \
		test "$(lines "$T/err")" = 1 -a "$(grep -c "/etc/passwd: not a perf.data file" "$T/err")" = 1
	expect "$cmd /etc/passwd: nothing on stdout" test ! -s "$T/out"

	# empty file
	: >"$T/empty.data"
	"$PERFKIT" $cmd -i "$T/empty.data" >"$T/out" 2>"$T/err"; rc=$?
	expect "$cmd empty file: exit 1, one line" test $rc = 1 -a "$(lines "$T/err")" = 1
done

# a perf.data cut in the middle of its data section (the header's
# data.offset and data.size, at bytes 40 and 48: perf.data-file-format.txt).
# Not half the file: perf writes the BTF of every BPF program loaded on the
# machine after the data (70 kB with two of perfkit's tools running beside
# it, against 90 kB of samples), and half the file once held no burn_two
u64at() { od -An -tu8 -j "$2" -N8 "$1" | tr -d ' '; }
doff=$(u64at "$T/good.data" 40); dsize=$(u64at "$T/good.data" 48)
head -c $((doff + dsize / 2)) "$T/good.data" >"$T/cut.data"
"$PERFKIT" report -i "$T/cut.data" >"$T/out" 2>"$T/err"; rc=$?
diag "$(cat "$T/err")"
expect "cut file: report exits 0" test $rc = 0
# (the truncation said once; the chains' warning may come too: burn2to1's
# chains stop in libc, and one that reaches _start makes it count them)
expect "cut file: one truncation warning" test "$(grep -c 'warning: .*cut.data: file truncated' "$T/err")" = 1
expect "cut file: warnings only" test "$(grep -vc '^perfkit report: warning: ' "$T/err")" = 0
expect "cut file: warning names the file" grep -q 'cut.data' "$T/err"
# the hottest leaf among the records the cut kept, as script reads them
hot=$("$PERFKIT" script -i "$T/cut.data" 2>/dev/null |
	awk '/cpu-clock/ { getline; sub(/\+0x[0-9a-f]+$/, "", $2); n[$2]++ }
	     END { for (s in n) if (n[s] > m) { m = n[s]; h = s }; print h }')
diag "cut file: hottest leaf in script: ${hot:-none}"
expect "cut file: report shows the cut's hottest leaf (${hot:-none})" \
	sh -c "test -n '$hot' && grep -qF -- '$hot' '$T/out'"
cut=$(nsamples "$T/cut.data")
expect "cut file: some but not all samples ($cut of $full)" test "$cut" -gt 0 -a "$cut" -lt "$full"

# a file cut after its data, in the feature sections (event names):
# perf reads on silently ("cpu-clock:HG"), perfkit says why, once
head -c $(($(stat -c %s "$T/good.data") - 2)) "$T/good.data" >"$T/feat.data"
for cmd in "report --stats" "report --stdio" "script"; do
	"$PERFKIT" $cmd -i "$T/feat.data" >"$T/out" 2>"$T/err"; rc=$?
	expect "$cmd, file cut in its feature sections: exit 0, one warning naming the file and what was not read" \
		sh -c "[ $rc = 0 ] && [ \$(grep -c 'warning: .*feat.data: the header.s feature sections end past the file.s end .*not read' '$T/err') = 1 ]"
done
"$PERFKIT" report --stats -i "$T/good.data" >/dev/null 2>"$T/err"
expect "… no such warning on the whole file" sh -c "! grep -q 'feature sections' '$T/err'"

# header data size (offset 48) patched to 0: read to the end of the file
cp "$T/good.data" "$T/zero.data"
printf '\0\0\0\0\0\0\0\0' | dd of="$T/zero.data" bs=1 seek=48 conv=notrunc 2>/dev/null
"$PERFKIT" report -i "$T/zero.data" >"$T/out" 2>"$T/err"; rc=$?
diag "$(cat "$T/err")"
expect "data size 0: report exits 0" test $rc = 0
expect "data size 0: a warning about data size 0" grep -q 'warning: .*data size 0' "$T/err"
expect "data size 0: report shows burn_two" grep -q 'burn_two' "$T/out"
zero=$(nsamples "$T/zero.data")
expect "data size 0: all samples read ($zero of $full)" test "$zero" = "$full"

# random garbage after a valid header, many cut points: never a crash
for n in 100 200 1000 4000 20000; do
	head -c $n "$T/good.data" >"$T/c.data"
	"$PERFKIT" report -i "$T/c.data" >/dev/null 2>"$T/err"; rc=$?
	expect "cut at $n bytes: exit 0 or 1, no crash" test $rc -le 1
done
cp "$T/good.data" "$T/noise.data"
head -c 4096 /dev/urandom | dd of="$T/noise.data" bs=1 seek=2048 conv=notrunc 2>/dev/null
"$PERFKIT" report -i "$T/noise.data" >/dev/null 2>"$T/err"; rc=$?
expect "random bytes in the data section: exit 0 or 1, no crash" test $rc -le 1
"$PERFKIT" script -i "$T/noise.data" >/dev/null 2>"$T/err"; rc=$?
expect "script on random bytes: exit 0 or 1, no crash" test $rc -le 1

# usage errors
"$PERFKIT" report --sort nosuchkey -i "$T/good.data" >/dev/null 2>"$T/err"; rc=$?
expect "report --sort nosuchkey: exit 2" test $rc = 2
# --percent-limit is read as perf reads it (strtof: "abc" is 0), never refused
"$PERFKIT" report --stdio --percent-limit abc -i "$T/good.data" >"$T/abc.out" 2>"$T/err"; rc=$?
"$PERFKIT" report --stdio --percent-limit 0 -i "$T/good.data" >"$T/zero.out" 2>/dev/null
expect "report --percent-limit abc: exit 0, as --percent-limit 0 (perf: the same)" sh -c "[ $rc = 0 ] && cmp -s '$T/abc.out' '$T/zero.out'"
done_testing
