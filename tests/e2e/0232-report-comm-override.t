#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A thread sampled before its first COMM (no FORK named it: ":TID" until
# then) is counted under the name that COMM gives, its earlier samples
# included, as perf report does (thread__set_comm overrides the ":TID"
# comm in place); a second COMM starts a new name.  perfkit counted the
# earlier samples in a ":200" row of their own.  script prints ":200" for
# them, as perf script does.  On a perf.data made here (mkcommlate.py),
# against fixed rows and against perf.
. "$(dirname "$0")/lib.sh"

if ! have python3; then skip "python3 not installed"; done_testing; exit; fi
python3 "$TOP/tests/e2e/mkcommlate.py" "$T/cl.data"
rows() { grep -E '%' | grep -v '^#' | sed -E 's/ +/ /g; s/ $//'; }

"$PERFKIT" report -i "$T/cl.data" --stdio -s comm -g none 2>/dev/null | rows >"$T/got"
printf '%s\n' ' 60.00% 60.00% late' ' 20.00% 20.00% later' ' 20.00% 20.00% main' >"$T/want"
same_file "-s comm: the samples before the first COMM are 'late'" "$T/want" "$T/got"
"$PERFKIT" report -i "$T/cl.data" --stdio -s comm -g none --no-children 2>/dev/null | rows >"$T/got"
printf '%s\n' ' 60.00% late' ' 20.00% later' ' 20.00% main' >"$T/want"
same_file "... Self only (rows counted without a model)" "$T/want" "$T/got"
"$PERFKIT" report -i "$T/cl.data" --stdio -s pid,comm -g none 2>/dev/null | rows >"$T/got"
printf '%s\n' ' 60.00% 60.00% 200:later late' ' 20.00% 20.00% 100:main main' ' 20.00% 20.00% 200:later later' >"$T/want"
same_file "-s pid,comm: one 'late' row of thread 200" "$T/want" "$T/got"
"$PERFKIT" script -i "$T/cl.data" -F comm,tid 2>/dev/null | sed -E 's/ +/ /g; s/^ //; s/ $//' >"$T/got"
printf '%s\n' 'main 100' ':200 200' ':200 200' 'late 200' 'later 200' >"$T/want"
same_file "script: ':200' before the COMM, as printed then" "$T/want" "$T/got"
if have perf; then
	for o in "-s comm" "-s comm -g none" "-s comm,sym -g none" "-s pid,comm" "--no-children -s comm" "-s comm,dso,sym"; do
		# shellcheck disable=SC2086
		perf report -i "$T/cl.data" --stdio $o 2>/dev/null | rows >"$T/perf"
		# shellcheck disable=SC2086
		"$PERFKIT" report -i "$T/cl.data" --stdio $o 2>/dev/null | rows >"$T/got"
		same_file "report $o: perf's rows" "$T/perf" "$T/got"
	done
	perf script -i "$T/cl.data" -F comm,tid 2>/dev/null | sed -E 's/ +/ /g; s/^ //; s/ $//' >"$T/perf"
	"$PERFKIT" script -i "$T/cl.data" -F comm,tid 2>/dev/null | sed -E 's/ +/ /g; s/^ //; s/ $//' >"$T/got"
	same_file "script -F comm,tid: perf script's" "$T/perf" "$T/got"
else
	skip "perf (the oracle) is not installed"
fi
done_testing
