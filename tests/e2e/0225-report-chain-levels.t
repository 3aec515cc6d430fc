#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The level ("[k]" or "[.]") of a caller of no mapping, with Children, on a
# perf.data made here (mkchainlvl.py: chains through kernel and user
# contexts, unmapped addresses and a mapped file without symbols): perf
# fills each caller's entry from one addr_location whose level a frame of
# no map leaves as it was, so such a frame shows the level of the frame
# before it in the chain's order, not its own context's.  On real profiles
# without frame pointers these are the chains' junk roots (0x0 and the
# like), tens of percent of Children under a "[k]".
. "$(dirname "$0")/lib.sh"

if ! have python3; then skip "python3 not installed"; done_testing; exit; fi
python3 "$TOP/tests/e2e/mkchainlvl.py" "$T/lvl.data"
lvl() { "$PERFKIT" report -i "$T/lvl.data" --stdio --comms lvl "$@" 2>/dev/null | awk 'NF > 1 && $(NF - 1) ~ /^\[[k.]\]$/ { print $NF "=" $(NF - 1) }' | sort | tr '\n' ' '; }
want="0x000000000000000b=[k] 0x000000000000000c=[.] 0x000000000000000d=[k] 0x000000000000000e=[k] "
want+="0x0000000000000100=[k] 0x0000000000000200=[k] 0x0000000000000300=[k] 0x0000000000000400=[.] "
want+="0x00007f0000000100=[.] 0x00007f0000000200=[.] "
got=$(lvl -g none)
expect "Children, caller order: a kernel sample's unmapped roots [k], 0x400 [.] below the mapped root ($got)" \
	test "$got" = "$want"
got=$(lvl -g callee)
want=${want/0x0000000000000300=\[k\]/0x0000000000000300=[.]}
want=${want/0x0000000000000400=\[.\]/0x0000000000000400=[k]}
expect "Children, callee order: toward the leaf, 0x300 [.] below the mapped frame, 0x400 [k] ($got)" \
	test "$got" = "$want"
got=$("$PERFKIT" report -i "$T/lvl.data" --stdio --no-children -g none 2>/dev/null | grep -c '\[.\] 0x00000000000001')
expect "--no-children: the callers have no rows ($got)" test "$got" = 0
# another process's row of 0x100, made by a user sample before any of lvl's
got=$("$PERFKIT" report -i "$T/lvl.data" --stdio -g none 2>/dev/null | awk '$NF == "0x0000000000000100" { print $3 $(NF - 1) }' | sort | tr '\n' ' ')
expect "0x100: lvl2's row [.], lvl's [k], each its own first frame's level ($got)" test "$got" = "lvl2[.] lvl[k] "
got=$("$PERFKIT" report -i "$T/lvl.data" --stdio 2>/dev/null | awk '$NF == "0x0000000000000100" { print $3 $(NF - 1) }' | sort | tr '\n' ' ')
expect "0x100 with call graphs: the same ($got)" test "$got" = "lvl2[.] lvl[k] "
# a chain cut at the kernel's limit: perfkit's "[truncated]" marker (its
# outermost frame, perf has none) sets no level: the callers stay [k]
python3 "$TOP/tests/e2e/mkchainlvl.py" "$T/deep.data" deep
got=$("$PERFKIT" report -i "$T/deep.data" --stdio -g none 2>/dev/null | grep -c '\[\.\] 0x')
expect "a cut chain: no caller [.] ($got)" test "$got" = 0
if have perf; then
	# -g callee: rows of equal Children in two processes, whose order is
	# perf's red-black tree's (report.c perf_output_order)
	for o in "" "-g none" "-G" "-g callee" "-s sym" "--no-children" "-s pid,sym" "-s dso,sym -g none" \
		"-s pid,sym -g callee" "-s sym,pid -g callee"; do
		same_as_perf "$T/lvl.data" $o
	done
else
	skip "perf (the oracle) is not installed"
fi
done_testing
