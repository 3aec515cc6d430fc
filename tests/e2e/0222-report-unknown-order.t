#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Rows shown as an address (no symbol) in their order, on a perf.data made
# here (mkunknown.py: kernel and user samples at shared addresses, every
# row one sample, so every row ties): by address, then "[.]" before "[k]"
# at one address, as the texts "[l] 0x…" compare once their level is put
# last (rank_key).  report sorts these rows as integers, not as texts: a
# sort that forgot the level, or took the address's bytes in the wrong
# order, puts a "[k]" row first or 0x2b00000b before 0x1000000a.  The
# browser's rows (P) are made by the same ranks.
. "$(dirname "$0")/lib.sh"

if ! have python3; then skip "python3 not installed"; done_testing; exit; fi
python3 "$TOP/tests/e2e/mkunknown.py" "$T/unk.data"
printf '%s\n' '    12.50%  [k] 0x000000000000000a' '    12.50%  [.] 0x000000000000000b' \
	'    12.50%  [k] 0x000000000000000b' '    12.50%  [.] 0x000000000000000c' \
	'    12.50%  [k] 0x000000000000000c' '    12.50%  [.] 0x000000001000000a' \
	'    12.50%  [.] 0x000000002b00000b' '    12.50%  [k] 0x000000002b00000b' >"$T/want"
for g in none graph; do
	"$PERFKIT" report -i "$T/unk.data" --stdio -g $g --no-children -s sym 2>"$T/err" |
		grep -v '^#' | grep . >"$T/got"
	same_file "-g $g -s sym: by address, then [.] before [k]" "$T/want" "$T/got"
done
# with the DSO first, the kernel's rows ([kernel.kallsyms]) come before
# the unmapped ones ([unknown], perf's NULL map, last): each part in order
"$PERFKIT" report -i "$T/unk.data" --stdio -g none --no-children -s dso,sym 2>/dev/null |
	grep -v '^#' | grep . | awk '{ print $2, $3, $4 }' >"$T/got"
printf '%s\n' '[kernel.kallsyms] [k] 0x000000000000000a' '[kernel.kallsyms] [k] 0x000000000000000b' \
	'[kernel.kallsyms] [k] 0x000000000000000c' '[kernel.kallsyms] [k] 0x000000002b00000b' \
	'[unknown] [.] 0x000000000000000b' '[unknown] [.] 0x000000000000000c' \
	'[unknown] [.] 0x000000001000000a' '[unknown] [.] 0x000000002b00000b' >"$T/want"
same_file "-s dso,sym: the kernel's rows, then the unmapped ones, each by address" "$T/want" "$T/got"
done_testing
