#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit annotate of a perf.data with two events (cpu-clock, page-faults):
# each event annotated apart, as perf annotate does ("… for cpu-clock",
# then "… for page-faults"); a SYMBOL is found when any event has samples
# in it.  Calls through the PLT are named (<memset@plt>).
# check: fresh-recording (perf compared on recordings made here: scripts/e2e-run)
. "$(dirname "$0")/lib.sh"

MATMUL=$PK_BUILD/examples/matmul
if ! can_perf_event; then
	skip "perf events not permitted here"
	done_testing
	exit
fi
"$PERFKIT" record -e cpu-clock -e page-faults -o "$T/me.data" -- "$MATMUL" ikj 3 >/dev/null 2>"$T/rec.err" ||
	not_ok "perfkit record -e cpu-clock -e page-faults matmul ikj: $(head -1 "$T/rec.err")"
"$PERFKIT" annotate -i "$T/me.data" ikj --no-source >"$T/sym" 2>"$T/sym.err"
expect "two events, SYMBOL ikj (cpu-clock samples only): exit 0" [ $? -eq 0 ]
expect "… annotated for cpu-clock" grep -q '^ Percent |.* of matmul for cpu-clock (' "$T/sym"
expect_fail "… no 'has no samples'" grep -q 'no samples' "$T/sym.err"
"$PERFKIT" annotate -i "$T/me.data" --no-source >"$T/all" 2>/dev/null
evs=$(sed -n 's/^ Percent |.* for \([a-z-]*\) (.*/\1/p' "$T/all" | uniq | tr '\n' ' ')
expect "no SYMBOL: each event, in the file's order (got: $evs)" [ "$evs" = "cpu-clock page-faults " ]
first=$(sed -n 's/^ *:[[:space:]]*\([^ ]*\)  [0-9.]*% of all samples.*/\1/p' "$T/all" | head -1)
expect "no SYMBOL: cpu-clock's hottest function first ($first)" [ "$first" = ikj ]
# a call through the PLT is named as objdump and perf name it (<memset@plt>)
expect "ikj's call to memset named <memset@plt>" grep -q 'call[q]* *0x[0-9a-f]* <memset@plt>$' "$T/sym"
if have objdump; then
	"$PERFKIT" annotate -i "$T/me.data" --dso matmul --no-source >"$T/mm" 2>/dev/null
	bad=$(sed -n 's/^ *[0-9.]* :[[:space:]]*\([0-9a-f]*\): *call[q]* *0x[0-9a-f]* <\([^>]*@plt\)>$/\1 \2/p' "$T/mm" |
		sort -u | while read -r a n; do
			objdump -d "$MATMUL" | grep -q "^ *$a:.*call.*<$n>" || echo "$a $n"
		done)
	expect "every <X@plt> as objdump -d names it ${bad:+(not: $bad)}" [ -z "$bad" ]
fi
if have perf; then
	perf record -q -e cpu-clock,page-faults -o "$T/perf.data" -- "$MATMUL" ikj 3 >/dev/null 2>&1
	"$PERFKIT" annotate -i "$T/perf.data" ikj --no-source >"$T/p" 2>/dev/null
	expect "perf record -e cpu-clock,page-faults: ikj annotated for cpu-clock" \
		grep -q '^ Percent |.* of matmul for cpu-clock (' "$T/p"
else
	skip "no perf"
fi
done_testing
