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
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M -o "$T/rss" "$PERFKIT" report -i "$T/bomb.data" --stdio >/dev/null 2>&1
		expect "... peak RSS under 64 MB ($(cat "$T/rss") KB)" test "$(cat "$T/rss")" -lt 65536
	fi
else
	skip "zstd or python3 missing (the zstd bomb)"
fi
done_testing
