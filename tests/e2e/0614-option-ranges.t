#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Option values are range-checked (base/parse): out-of-range values are
# refused with one line naming the option and the range, never clamped, and
# bench's -P arithmetic cannot overflow (it crashed with SIGSEGV: a write
# past its 64-entry value array).  Under the sanitizer build the "at most
# 64" error paths must also leave no leak (LeakSanitizer changes the exit).
. "$(dirname "$0")/lib.sh"

# usage ERR-FILE PATTERN desc CMD... — exit 2, one line on stderr matching PATTERN
usage() {
	local pat=$1 d=$2; shift 2
	"$@" >"$T/out" 2>"$T/err"
	local rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q -- "$pat" "$T/err"; then
		ok "$d"
	else
		not_ok "$d (exit $rc)"; sed 's/^/# /' "$T/err" | head -5
	fi
}

I64MAX=9223372036854775807
usage "-P -1 9223372036854775807 with step 1 gives more than 1024 values" "bench -P x -1 INT64_MAX: refused (was SIGSEGV)" \
	"$PERFKIT" bench -r 1 -N -P x -1 $I64MAX 'echo {x}'
usage "gives more than 1024 values" "bench -P x -INT64_MAX-1 INT64_MAX: refused" \
	"$PERFKIT" bench -r 1 -N -P x -9223372036854775808 $I64MAX 'echo {x}'
usage "-P MAX expects an integer ≥ 0, got '99999999999999999999'" "bench -P MAX past 64 bits: refused, not clamped" \
	"$PERFKIT" bench -r 1 -N -P x 0 99999999999999999999 'echo {x}'
usage "-D expects an integer ≥ 1" "bench -D 0 refused" "$PERFKIT" bench -r 1 -N -P x 0 3 -D 0 'echo {x}'
usage "-D expects an integer ≥ 1, got '-1'" "bench -D -1 refused" "$PERFKIT" bench -r 1 -N -P x 0 3 -D -1 'echo {x}'
"$PERFKIT" bench -r 1 -N -P x $I64MAX $I64MAX --export-json "$T/m.json" 'echo {x}' >"$T/out" 2>&1
expect "bench -P x INT64_MAX INT64_MAX: one run of 'echo $I64MAX'" grep -q "Benchmark 1: echo $I64MAX" "$T/out"
"$PERFKIT" bench -r 1 -N -P x -9223372036854775808 $I64MAX -D $I64MAX 'echo {x}' >"$T/out" 2>&1
expect "bench -P over the whole range with a huge step: 3 values, no overflow" \
	test "$(sed -n 's/^Benchmark [0-9]*: echo //p' "$T/out" | tr '\n' ' ')" = "-9223372036854775808 -1 9223372036854775806 "
usage "--runs expects an integer from 1 to 100000000, got '99999999999999999999'" "bench --runs overflow refused" \
	"$PERFKIT" bench -r 99999999999999999999 true
usage "--warmup expects an integer from 0 to" "bench --warmup -1 refused" "$PERFKIT" bench -w -1 true
usage "--min-effect expects a number ≥ 0, got 'nan'" "bench --min-effect nan refused" \
	"$PERFKIT" bench --min-effect nan true
# the "at most 1024" paths (leak-free under LeakSanitizer: the exit stays 2);
# hyperfine has no limit, and -P x 1 100 is a usual scan
usage "at most 1024 values for 'x'" "bench -L with 1025 values refused" \
	"$PERFKIT" bench -r 1 -N -L x "$(seq -s, 1025)" 'echo {x}'
usage "at most 1024 commands" "bench -L 33 x -L 32 values refused" \
	"$PERFKIT" bench -r 1 -N -L x "$(seq -s, 33)" -L y "$(seq -s, 32)" 'echo {x}{y}'
"$PERFKIT" bench -r 1 -N -P x 1 100 --style none --export-json "$T/p100.json" true >/dev/null 2>&1
expect "bench -P x 1 100: 100 commands" python3 -c 'import json, sys; assert len(json.load(open(sys.argv[1]))["results"]) == 100' "$T/p100.json"
usage "one per command" "bench with 2 --prepare for 3 commands refused" \
	"$PERFKIT" bench -r 1 -N -p true -p true -L x 1,2,3 'echo {x}'

usage "-r expects an integer from 0 to 1000000, got '4294967297'" "stat -r 2^32+1 refused (not 1)" \
	"$PERFKIT" stat -r 4294967297 -- true
usage "-I expects an integer ≥ 1, got '99999999999999999999'" "stat -I overflow refused" \
	"$PERFKIT" stat -I 99999999999999999999 -- true
usage "-p expects an integer ≥ 1" "stat -p -1 refused" "$PERFKIT" stat -p -1
usage "-p expects an integer ≥ 1, got ' 5'" "stat -p ' 5' refused (no blanks)" "$PERFKIT" stat -p ' 5'
usage "--max-stack expects an integer from 0 to 1000000, got '4294967297'" "script --max-stack 2^32+1 refused (was read as 1)" \
	"$PERFKIT" script --max-stack 4294967297 -i /dev/null
usage "--max-stack expects an integer from 0 to 1000000" "report --max-stack -1 refused" \
	"$PERFKIT" report --max-stack -1 -i /dev/null
usage "-n expects an integer ≥ 1, got '99999999999999999999'" "top -n overflow refused" \
	"$PERFKIT" top -n 99999999999999999999 --stdio
usage "-d expects a number from 0.1 to 3600, got 'inf'" "top -d inf refused" "$PERFKIT" top -d inf
usage "--max-stack expects" "collapse --max-stack -3 refused" "$PERFKIT" collapse --max-stack -3 /dev/null
done_testing
