#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Memory bounded by the work, not by the input's claims: a stream that is
# not perf.data is refused after its first bytes (`yes |` and /dev/zero
# were read whole first: 5 GB in 10 s), and a compressed record expanding
# to 64 Mi FINISHED_ROUND records (512 MiB) is decoded through a window,
# the run of rounds kept as one: it fits a 64 MiB limit (it needed the
# whole expansion in memory before).
. "$(dirname "$0")/lib.sh"

start=$(date +%s%N)
yes | timeout 10 "$PERFKIT" report -i - >/dev/null 2>"$T/yes.err"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect "yes | report -i -: refused (exit 1, not killed by the timeout)" test $rc = 1
expect "... at once (${ms} ms < 3000)" test $ms -lt 3000
expect "... naming the magic" grep -q 'bad magic at offset 0' "$T/yes.err"
timeout 10 "$PERFKIT" report -i /dev/zero >/dev/null 2>"$T/zero.err"
expect "report -i /dev/zero: refused at once (exit 1)" test $? = 1

if have zstd && have python3; then
	python3 "$TOP/tests/e2e/mkzbomb.py" "$T/bomb.data" $((64 * 1024 * 1024))
	diag "bomb: $(stat -c %s "$T/bomb.data") bytes, expanding to 512 MiB"
	PERFKIT_MEM_LIMIT_KB=65536 timeout 60 "$PERFKIT" report -i "$T/bomb.data" --stdio >"$T/b.out" 2>"$T/b.err"
	expect "a 512 MiB zstd expansion of rounds fits a 64 MiB limit (exit 0)" test $? = 0
	expect "... and its sample is read" grep -q '0x0000000000401000' "$T/b.out"
	if [ -x /usr/bin/time ] && [ "${PK_SAN:-0}" != 1 ]; then   # (ASan's shadow memory counts)
		/usr/bin/time -f %M -o "$T/rss" "$PERFKIT" report -i "$T/bomb.data" --stdio >/dev/null 2>&1
		expect "... peak RSS under 64 MB ($(cat "$T/rss") KB)" test "$(cat "$T/rss")" -lt 65536
	fi
else
	skip "zstd or python3 missing (the zstd bomb)"
fi
# report and flamegraph on 800 000 samples of a few distinct stacks (64 MB):
# memory follows the stacks, not the samples (report indexed every record
# and kept the file's pages: 122 MB on 1 M samples; flamegraph split the
# perf.data into text lines first: 106 MB)
if [ "${PK_SAN:-0}" = 1 ]; then
	skip "peak RSS under the sanitizers (their shadow memory counts)"
elif can_perf_event && have python3 && [ -x /usr/bin/time ]; then
	"$PERFKIT" record -F 999 -g -o "$T/base.data" -- "$PK_BUILD/tests/workloads/burn2to1" 1500 >/dev/null 2>&1
	python3 "$TOP/bench/mkbig.py" "$T/base.data" "$T/big.data" 800000
	diag "big.data: $(stat -c %s "$T/big.data") bytes"
	/usr/bin/time -f %M -o "$T/r.rss" "$PERFKIT" report -i "$T/big.data" --stdio >"$T/r.out" 2>&1
	expect "report on 800 k samples: exit 0" grep -q '^# Samples: 800K' "$T/r.out"
	expect "... peak RSS under 48 MB ($(cat "$T/r.rss") KB)" test "$(cat "$T/r.rss")" -lt 49152
	/usr/bin/time -f %M -o "$T/f.rss" "$PERFKIT" flamegraph "$T/big.data" -o "$T/big.svg" >/dev/null 2>&1
	expect "flamegraph of it: written" test -s "$T/big.svg"
	expect "... peak RSS under 48 MB ($(cat "$T/f.rss") KB)" test "$(cat "$T/f.rss")" -lt 49152
	# the same samples as a pipe-mode stream (perf record -o - | …): read
	# as they are processed, in pieces, not held whole (135 MB before)
	if have perf && perf inject -i "$T/big.data" -o - >"$T/bigp.data" 2>/dev/null && [ -s "$T/bigp.data" ]; then
		cat "$T/bigp.data" | /usr/bin/time -f %M -o "$T/p.rss" "$PERFKIT" report -i - --stdio \
			>"$T/p.out" 2>/dev/null
		# (as perf, a pipe's report has no Children, its call graphs in
		# caller order: the file's with --no-children -G)
		"$PERFKIT" report -i "$T/big.data" --stdio --no-children -G >"$T/rg.out" 2>&1
		expect "report of it from a pipe: the file's report" cmp -s "$T/rg.out" "$T/p.out"
		expect "... peak RSS under 48 MB ($(cat "$T/p.rss") KB)" test "$(cat "$T/p.rss")" -lt 49152
		cat "$T/bigp.data" | PERFKIT_MEM_LIMIT_KB=16384 "$PERFKIT" collapse >"$T/p.folded" 2>"$T/p.err"
		expect "collapse of the 64 MB stream under a 16 MiB data limit: exit 0" test $? = 0
		expect "... its stacks" test -s "$T/p.folded"
	else
		skip "perf inject missing (the pipe-mode stream)"
	fi
else
	skip "perf events, python3 or /usr/bin/time missing (the large-file cases)"
fi
done_testing
