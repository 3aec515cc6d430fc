#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Rows of equal Children from two processes, in perf's order (on a
# perf.data made here, mkthreadties.py): perf orders equal rows by the
# depth of the chains they hold only when both are of one thread
# (hist_entry->thread, __hpp__sort_acc), else by Self.  perfkit's --stdio
# kept its stacks per command, every row of thread 0, and compared the
# depth of rows of two processes: tb's 0x600 (Self 25 %) came after ta's
# 0x400 and 0x300 (Self 0, deeper chains).  Its stacks are now per thread
# when Children and call graphs are shown, as the browser's are.  A
# compile job's 1.1 M-sample profile: 31 k lines of perf's named rows
# out of place, 9 k after.
. "$(dirname "$0")/lib.sh"

if ! have python3; then skip "python3 not installed"; done_testing; exit; fi
python3 "$TOP/tests/e2e/mkthreadties.py" "$T/tt.data"
rows() { grep -E '^ +[0-9]+\.[0-9]+% +[0-9]+\.[0-9]+%' | sed -E 's/ +/ /g; s/ $//'; }
printf '%s\n' ' 50.00% 50.00% ta [unknown] [.] 0x0000000000000100' \
	' 50.00% 25.00% tb [unknown] [.] 0x0000000000000600' \
	' 50.00% 0.00% ta [unknown] [.] 0x0000000000000400' \
	' 50.00% 0.00% ta [unknown] [.] 0x0000000000000300' \
	' 50.00% 0.00% ta [unknown] [.] 0x0000000000000200' \
	' 25.00% 25.00% tb [unknown] [.] 0x0000000000000700' >"$T/want"
"$PERFKIT" report -i "$T/tt.data" --stdio 2>/dev/null | rows >"$T/got"
same_file "equal Children: by depth within ta, by Self across ta and tb" "$T/want" "$T/got"
"$PERFKIT" report -i "$T/tt.data" --stdio -G 2>/dev/null | rows >"$T/got"
same_file "... the same with -G" "$T/want" "$T/got"
if have perf; then
	perf report -i "$T/tt.data" --stdio 2>/dev/null | rows >"$T/perf"
	same_file "perf report's rows in perf's order" "$T/perf" "$T/want"
else
	skip "perf (the oracle) is not installed"
fi
done_testing
