#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit funclatency on a function left by longjmp: entries carry the
# stack pointer, so the 100 calls that never return are dropped (and
# counted) instead of filling the thread's stack; the 5 normal 10 ms calls
# after them are measured (it printed count: 0 and "73 calls nested deeper
# than 32 not measured").  A C++ target gets a warning about exceptions
# (the kernel's return probe cannot be unwound through).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require

W=$PK_BUILD/tests/workloads/longjumper
if tracer_start "$T/out" "$T/err" "$PERFKIT" funclatency -m "$W:hop"; then
	"$W" 100 5
	tracer_stop
	sed 's/^/# /' "$T/out" "$T/err"
	expect 'the 5 normal calls measured (count: 5)' grep -Eq 'count: 5$' "$T/out"
	# a 10 ms sleep never ends early; on a loaded machine it may overrun
	expect '... each at least 8 ms (rows from 8->15 ms up: 5 in all)' \
		awk '$2 == "->" && $1 >= 8 { n += $5 } END { exit n != 5 }' "$T/out"
	expect 'the 100 longjmp-ed calls said, not measured' \
		grep -q '100 calls left without a return seen (longjmp, an exception' "$T/err"
	expect_fail 'nothing "nested deeper"' grep -q 'nested deeper' "$T/err"
	expect_fail 'no C++ warning for a C program' grep -q 'is C++' "$T/err"
else
	not_ok 'funclatency starts'
fi

if have g++; then
	printf '#include <stdexcept>\nint f(int x) { if (x < 0) throw std::runtime_error("x"); return x; }\nint main() { return f(0); }\n' >"$T/t.cc"
	if g++ -O0 -o "$T/thrower" "$T/t.cc" 2>/dev/null; then
		if tracer_start "$T/out2" "$T/err2" "$PERFKIT" funclatency "$T/thrower:f"; then
			"$T/thrower"
			tracer_stop
			expect 'a C++ target: the warning about exceptions' grep -q 'is C++: an exception' "$T/err2"
		else
			not_ok 'funclatency starts on a C++ target'
		fi
	else
		skip 'g++ cannot build the C++ target'
	fi
else
	skip 'no g++ (the C++ warning)'
fi
done_testing
