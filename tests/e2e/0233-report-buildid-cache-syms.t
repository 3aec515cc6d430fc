#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A stripped program whose unstripped copy sits in perf's build-id cache
# (~/.debug/.build-id/XX/REST/elf, where perf record saves the DSOs it
# sampled): its functions named from the copy's .symtab, as perf does
# (DSO_BINARY_TYPE__BUILD_ID_CACHE); perfkit showed their addresses.
# HOME is the test's directory: only the copy made here.
. "$(dirname "$0")/lib.sh"

if ! have strip || ! have readelf; then skip "strip or readelf not installed"; done_testing; exit; fi
if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
cp "$PK_BUILD/tests/workloads/calltree" "$T/ct"
strip "$T/ct"
bid=$(readelf -n "$T/ct" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
expect "the stripped copy keeps its build-id" test -n "$bid"
HOME=$T "$PERFKIT" record -F 2000 -o "$T/s.data" -- "$T/ct" 150 >/dev/null 2>&1
rows() { grep -v '^#' | grep '%' | sed -E 's/ +/ /g; s/ $//'; }
HOME=$T "$PERFKIT" report -i "$T/s.data" --stdio --sort dso,sym 2>/dev/null | rows | grep ' ct ' >"$T/before"
expect "no cache: the stripped program's rows are addresses" grep -q '\[\.\] 0x' "$T/before"
mkdir -p "$T/.debug/.build-id/${bid:0:2}/${bid:2}"
cp "$PK_BUILD/tests/workloads/calltree" "$T/.debug/.build-id/${bid:0:2}/${bid:2}/elf"
HOME=$T "$PERFKIT" report -i "$T/s.data" --stdio --sort dso,sym 2>/dev/null | rows | grep ' ct ' >"$T/after"
expect "the cache's copy: functions c and d named" grep -q '\[\.\] c$' "$T/after"
expect "... d" grep -q '\[\.\] d$' "$T/after"
expect "... no address rows left for ct's code" test "$(grep -c '\[\.\] 0x' "$T/after")" = 0
if have perf; then
	HOME=$T perf report -i "$T/s.data" --stdio --sort dso,sym 2>/dev/null | rows | grep ' ct ' >"$T/perf"
	same_file "perf report's rows for ct" "$T/perf" "$T/after"
else
	skip "perf (the oracle) is not installed"
fi
done_testing
