#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit annotate on bad input: a symbol not in the file, a DSO that is
# gone, a stripped binary, a perf.data with no samples, Cachegrind files
# cut short (as input and as --cache) — one clear line each, exit 1, no
# crash (run it with PERFKIT=build/asan/perfkit for ASan).
. "$(dirname "$0")/lib.sh"

W=$PK_BUILD/tests/workloads
one() { # 'description' file regex — exactly one line, matching
	if [ "$(wc -l <"$2")" = 1 ] && grep -q -- "$3" "$2"; then ok "$1"
	else not_ok "$1"; sed 's/^/# /' "$2" | head -5; fi
}
run() { # out err args...   (HOME=$T: no copy by build-id in ~/.debug)
	local o=$1 e=$2; shift 2
	HOME=$T "$PERFKIT" annotate "$@" >"$o" 2>"$e"
}

# Cachegrind files cut short (no Valgrind or perf events needed)
printf 'desc: I1 cache: 1\ncmd: x\nevents: Ir D1mr\nfl=/a.c\nfn=f\n1 5 1\n2 3 0\nsummary: 8 1\n' >"$T/ok.cg"
head -c 62 "$T/ok.cg" >"$T/cut1.cg"            # mid-line
head -n 7 "$T/ok.cg" >"$T/cut2.cg"             # before the summary
run "$T/o" "$T/e" "$T/cut1.cg"; rc=$?
expect "Cachegrind cut mid-line: exit 1" [ $rc -eq 1 ]
one "Cachegrind cut mid-line: one line" "$T/e" "cut1.cg: cut short: its last line has no newline"
run "$T/o" "$T/e" "$T/cut2.cg"; rc=$?
expect "Cachegrind cut before its summary: exit 1" [ $rc -eq 1 ]
one "Cachegrind cut before its summary: one line" "$T/e" "cut2.cg: cut short: no 'summary:' line"
expect "... nothing on stdout" [ ! -s "$T/o" ]
run "$T/o" "$T/e" "$T/ok.cg" --auto=no
expect "the whole Cachegrind file still annotates" [ $? -eq 0 ]

if ! can_perf_event; then
	skip "perf events not permitted here"
	done_testing
	exit
fi
"$PERFKIT" record -o "$T/ct.data" -- "$W/calltree" 300 >/dev/null 2>&1 || not_ok "record calltree"

# a symbol not in the file
run "$T/o" "$T/e" -i "$T/ct.data" no_such_function; rc=$?
expect "symbol not in the file: exit 1" [ $rc -eq 1 ]
one "symbol not in the file: one line" "$T/e" "symbol 'no_such_function' has no samples in .*ct.data"
expect "... nothing on stdout" [ ! -s "$T/o" ]

# a DSO deleted since the recording
cp "$W/calltree" "$T/ct-gone"
"$PERFKIT" record -o "$T/gone.data" -- "$T/ct-gone" 300 >/dev/null 2>&1
rm -f "$T/ct-gone"
run "$T/o" "$T/e" -i "$T/gone.data" --dso ct-gone; rc=$?
expect "DSO not found: exit 1" [ $rc -eq 1 ]
one "DSO not found: one line saying why" "$T/e" "ct-gone: not found (deleted since the recording.*addresses only"
expect "DSO not found: addresses still listed" grep -q '^ *[0-9.]* :	 *[0-9a-f]*$' "$T/o"

# a DSO replaced by another build
printf 'int main(void) { return 0; }\n' >"$T/r.c"
cp "$W/calltree" "$T/ct-re"
"$PERFKIT" record -o "$T/re.data" -- "$T/ct-re" 300 >/dev/null 2>&1
cc -o "$T/ct-re" "$T/r.c"
run "$T/o" "$T/e" -i "$T/re.data" --dso ct-re; rc=$?
expect "DSO replaced: exit 1" [ $rc -eq 1 ]
one "DSO replaced: one line saying why" "$T/e" "ct-re: not the file recorded (its build-id differs"

# a stripped binary
cp "$W/calltree" "$T/ct-stripped"
strip "$T/ct-stripped"
"$PERFKIT" record -o "$T/strip.data" -- "$T/ct-stripped" 300 >/dev/null 2>&1
run "$T/o" "$T/e" -i "$T/strip.data" --dso ct-stripped; rc=$?
expect "stripped binary: exit 1" [ $rc -eq 1 ]
one "stripped binary: one line saying why" "$T/e" "ct-stripped: no symbol covers the sampled addresses (stripped"
expect "stripped binary: addresses (file offsets) listed" grep -q 'Addresses (DSO file offsets)' "$T/o"

# a perf.data with no samples (a period longer than the run)
"$PERFKIT" record -c 1000000000 -o "$T/empty.data" -- true >/dev/null 2>&1
run "$T/o" "$T/e" -i "$T/empty.data"; rc=$?
expect "no samples: exit 1" [ $rc -eq 1 ]
one "no samples: one line" "$T/e" "empty.data: no samples"

# --cache: a cut file, a missing file
run "$T/o" "$T/e" -i "$T/ct.data" --cache "$T/cut2.cg"; rc=$?
expect "--cache cut short: exit 1" [ $rc -eq 1 ]
one "--cache cut short: one line" "$T/e" "cut2.cg: cut short"
run "$T/o" "$T/e" -i "$T/ct.data" --cache "$T/nope.cg"; rc=$?
expect "--cache missing: exit 1" [ $rc -eq 1 ]
one "--cache missing: one line" "$T/e" "nope.cg"
# usage errors: exit 2
run "$T/o" "$T/e" -i "$T/ct.data" --min-percent abc; rc=$?
expect "bad --min-percent: exit 2" [ $rc -eq 2 ]
run "$T/o" "$T/e" -i "$T/ct.data" --bogus; rc=$?
expect "unknown option: exit 2" [ $rc -eq 2 ]
# nothing named and neither default here: one line naming both defaults
mkdir -p "$T/empty"
(cd "$T/empty" && HOME=$T "$PERFKIT" annotate >"$T/o" 2>"$T/e"); rc=$?
expect "no input and no default file: exit 1" [ $rc -eq 1 ]
one "... one line naming both ./perf.data and ./perfkit.cache.out" "$T/e" "no ./perf.data and no ./perfkit.cache.out here"
# a FIFO as the input is opened once: a writer that opened it and wrote
# nothing leaves an empty input, not a second open waiting for a writer
# (five tries: the writer must close between perfkit's two opens)
hung=0
for try in 1 2 3 4 5; do
	rm -f "$T/fifo" && mkfifo "$T/fifo"
	( : >"$T/fifo" ) &   # the writer first, waiting in its open
	wr=$!
	sleep 0.2
	timeout 5 "$PERFKIT" annotate --stdio -i "$T/fifo" >/dev/null 2>"$T/e"
	rc=$?
	kill $wr 2>/dev/null; wait $wr 2>/dev/null
	[ $rc -eq 1 ] || { hung=1; break; }
done
expect "a FIFO with nothing written: exit 1, not a hang (got $rc; 124: timed out)" [ $hung -eq 0 ]
one "... one line: too short for the magic" "$T/e" "too short for the magic"
done_testing
