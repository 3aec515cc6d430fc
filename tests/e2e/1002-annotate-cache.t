#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit annotate --cache: a recording of examples/matmul naive with the
# simulated misses of a `perfkit cache` run of the same binary beside its
# lines.  The inner loop carries most of the samples and most of the D1
# misses; a cache file of another build (or with no build-id) is refused
# with one line.  Cache geometry pinned (cachegrind model, fixed sizes).
. "$(dirname "$0")/lib.sh"

VGLIB=$PK_BUILD/vgtool/lib
MATMUL=$PK_BUILD/examples/matmul
GEOM=(--model=cachegrind --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64)
if ! have valgrind || ! ls "$VGLIB"/pkcache-* >/dev/null 2>&1; then
	skip "valgrind or the pkcache tool is not built (mk/cache.mk)"
	done_testing
	exit
fi
if ! can_perf_event; then
	skip "perf events not permitted here"
	done_testing
	exit
fi
# the recording and the simulation at once (samples count the process's
# own CPU time; simulated counts do not depend on the load)
"$PERFKIT" record -o "$T/rec.data" -- "$MATMUL" naive 12 >/dev/null 2>&1 &
rec=$!
"$PERFKIT" cache -q "${GEOM[@]}" -o "$T/c.out" -- "$MATMUL" naive 1 >/dev/null 2>&1 ||
	not_ok "perfkit cache matmul naive"
wait $rec || not_ok "record matmul naive"
expect "perfkit cache names the binary's build-id" grep -q '^desc: build-id: *[0-9a-f]\{40\}$' "$T/c.out"
if have cg_annotate; then
	cg_reads() { cg_annotate "$1" >/dev/null 2>&1; }
	expect "cg_annotate still reads the file" cg_reads "$T/c.out"
fi

"$PERFKIT" annotate -i "$T/rec.data" naive --source --cache "$T/c.out" >"$T/src" 2>"$T/err"
expect "annotate --source --cache: exit 0" [ $? -eq 0 ]
expect "--source --cache: the simulated columns, no Mispredicts (no branch events in the file)" \
	grep -q '^ Percent   D1 misses   LL misses   Line  Source$' "$T/src"
# the line with most samples, the line with most D1 misses (own file)
awk '/^-- inlined/ { exit } /^ *[0-9][0-9.]* +[0-9,.]+ +[0-9,.]+ +[0-9]+  / {
	d = $2; gsub(",", "", d); print $4, $1 + 0, d + 0 }' "$T/src" >"$T/lines"
hs=$(sort -k2,2gr "$T/lines" | head -1 | cut -d' ' -f1)
hd=$(sort -k3,3gr "$T/lines" | head -1 | cut -d' ' -f1)
dtot=$(awk '{ s += $3 } END { print s + 0 }' "$T/lines")
diag "most samples on line $hs, most D1 misses on line $hd (of $dtot)"
# the inner loop: the smallest range among the loops with most samples
loop= size=
while read -r pct range rest; do
	[ "$(awk -v v="$pct" 'BEGIN { print (v + 0 > 50) }')" = 1 ] || continue
	n=$((16#${range#*..} - 16#${range%%..*}))
	if [ -z "$size" ] || [ "$n" -lt "$size" ]; then loop="$pct $range $rest"; size=$n; fi
done < <(sed -n '/^ Loops/,/^$/p' "$T/src" | grep '^ *[0-9.]*%  [0-9a-f]*\.\.[0-9a-f]*')
diag "inner loop: $loop"
lo=$(sed -n 's/.*matmul\.c:\([0-9]*\).*/\1/p' <<<"$loop"); hi=$(sed -n 's/.*matmul\.c:[0-9]*-\([0-9]*\).*/\1/p' <<<"$loop")
hi=${hi:-$lo}
pct=$(awk '{ print $1 + 0 }' <<<"$loop")
ld=$(sed -n 's/.*D1 misses \([0-9,]*\),.*/\1/p' <<<"$loop" | tr -d ,)
expect "the inner loop (lines $lo-$hi) carries most of the samples ($pct %)" \
	awk -v v="${pct:-0}" 'BEGIN { exit !(v > 50) }'
inside() { [ -n "$1" ] && [ "$1" -ge "${lo:-1}" ] && [ "$1" -le "${hi:-0}" ]; }
most() { [ -n "$1" ] && [ "$2" -gt 0 ] && [ $(($1 * 2)) -gt "$2" ]; }
expect "the inner loop carries most of the D1 misses (${ld:-0} of $dtot)" most "$ld" "$dtot"
expect "the line with most samples ($hs) is in the inner loop" inside "$hs"
expect "the line with most D1 misses ($hd) is in the inner loop" inside "$hd"
# the instruction view: misses beside the source rows
"$PERFKIT" annotate -i "$T/rec.data" naive --cache "$T/c.out" >"$T/asm" 2>/dev/null
expect "--cache in the instruction view: misses on the source rows" \
	grep -q '^ *:	matmul\.c:[0-9]*  \[D1 misses [0-9,]*, LL misses [0-9,]*\]' "$T/asm"
expect_fail "… no mispredicts of a file without branch events" grep -q 'mispredicts' "$T/asm"

# a cache file of another build: refused with one line
printf 'int main(void) { return 0; }\n' >"$T/other.c"
cc -O1 -g -o "$T/other" "$T/other.c"
"$PERFKIT" cache -q "${GEOM[@]}" -o "$T/other.out" -- "$T/other" >/dev/null 2>&1
"$PERFKIT" annotate -i "$T/rec.data" naive --cache "$T/other.out" >"$T/o" 2>"$T/e"
expect "another build's cache file: exit 1" [ $? -eq 1 ]
expect "another build's cache file: one line" [ "$(wc -l <"$T/e")" = 1 ]
expect "... saying the build-ids differ" grep -q 'simulated build-id [0-9a-f]*, but the recording.s .*matmul has build-id [0-9a-f]*: not the same binary' "$T/e"
expect "... and nothing on stdout" [ ! -s "$T/o" ]
# a Cachegrind file without a build-id (cachegrind's own): refused
grep -v '^desc: build-id' "$T/c.out" >"$T/nobid.out"
"$PERFKIT" annotate -i "$T/rec.data" naive --cache "$T/nobid.out" >/dev/null 2>"$T/e"
expect "no build-id: exit 1" [ $? -eq 1 ]
expect "no build-id: one line" [ "$(wc -l <"$T/e")" = 1 ]
expect "no build-id: says so" grep -q 'names no build-id' "$T/e"
# a binary linked without a build-id: the message says so
printf 'int main(void) { volatile long s = 0; for (long i = 0; i < 30000000; i++) s += i; return 0; }\n' >"$T/nob.c"
if cc -O1 -g -Wl,--build-id=none -o "$T/nob" "$T/nob.c" 2>/dev/null; then
	"$PERFKIT" record -o "$T/nob.data" -- "$T/nob" >/dev/null 2>&1
	"$PERFKIT" cache -q "${GEOM[@]}" -o "$T/nob.out" -- "$T/nob" >/dev/null 2>&1
	"$PERFKIT" annotate -i "$T/nob.data" main --cache "$T/nob.out" >/dev/null 2>"$T/e"
	expect "binary without a build-id: exit 1" [ $? -eq 1 ]
	expect "… one line saying the binary has no build-id" \
		[ "$(wc -l <"$T/e")" = 1 -a "$(grep -c 'the binary .*/nob has no build-id' "$T/e")" = 1 ]
else
	skip "cc -Wl,--build-id=none failed"
fi
done_testing
