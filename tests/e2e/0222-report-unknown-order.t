#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Rows shown as an address (no symbol) in their order, on a perf.data made
# here (mkunknown.py: kernel and user samples at shared addresses of no
# mapping): as perf's, one row an address (perf's entries of no symbol
# compare by address alone), the level shown that of its first sample, in
# [unknown] (a low address in the kernel's context is in none of its maps:
# the file has no kernel mmap, perf maps the running kernel's, in the
# upper half), rows of equal period by address.  report sorts these rows
# as integers, not as texts: a sort that took the address's bytes in the
# wrong order puts 0x2b00000b before 0x0c, or 0x1000000a before 0x0a.
. "$(dirname "$0")/lib.sh"

if ! have python3; then skip "python3 not installed"; done_testing; exit; fi
python3 "$TOP/tests/e2e/mkunknown.py" "$T/unk.data"
printf '%s\n' '    25.00%  [k] 0x000000000000000b' '    25.00%  [.] 0x000000000000000c' \
	'    25.00%  [k] 0x000000002b00000b' '    12.50%  [k] 0x000000000000000a' \
	'    12.50%  [.] 0x000000001000000a' >"$T/want"
for g in none graph; do
	"$PERFKIT" report -i "$T/unk.data" --stdio -g $g --no-children -s sym 2>"$T/err" |
		grep -v '^#' | grep . >"$T/got"
	same_file "-g $g -s sym: a row an address, its first sample's level, by address" "$T/want" "$T/got"
done
"$PERFKIT" report -i "$T/unk.data" --stdio -g none --no-children -s dso,sym 2>/dev/null |
	grep -v '^#' | grep . | awk '{ print $2, $3, $4 }' >"$T/got"
sed 's/^.*%  /[unknown] /' "$T/want" >"$T/want.dso"
same_file "-s dso,sym: every row [unknown], none [kernel.kallsyms]" "$T/want.dso" "$T/got"
# addresses of 2^63 and more (garbage of broken chains) before the small
# ones: perf compares its entries' addresses as a signed difference
python3 "$TOP/tests/e2e/mkunknown.py" --high "$T/high.data"
printf '%s\n' '    25.00%  [.] 0xa09bf00000003232' '    25.00%  [.] 0xa432a0ef32ada700' \
	'    25.00%  [.] 0x000000000000000c' '    25.00%  [.] 0x0000000000000010' >"$T/want"
"$PERFKIT" report -i "$T/high.data" --stdio -g none --no-children -s sym 2>/dev/null | grep -v '^#' | grep . >"$T/got"
same_file "-s sym: addresses of 2^63 and more first, as perf's signed order" "$T/want" "$T/got"
if have perf; then
	for o in "" "--no-children -s sym" "-s dso,sym -g none"; do
		same_as_perf "$T/unk.data" $o
	done
	same_as_perf "$T/high.data"
	same_as_perf "$T/high.data" --no-children -s sym
else
	skip "perf (the oracle) is not installed"
fi
done_testing
