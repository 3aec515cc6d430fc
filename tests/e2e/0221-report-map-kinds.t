#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The kinds of mapping perf names each its own way (perf's map__new), on a
# perf.data made here (mkmaps.py): a file removed while mapped keeps the
# kernel's " (deleted)" in its DSO name ("(/opt/gone/app (deleted))" in
# script, "app (deleted)" in report; perfkit dropped it); anonymous memory
# is JIT code ([JIT] tid PID, /tmp/perf-PID.map) only when executable
# (anonymous data, as `record -d` records it, stays //anon: perfkit named
# it as JIT code); an address in anonymous memory, [stack], [heap] or
# /SYSV is printed as sampled (perf's identity__map_ip; perfkit printed
# it relative to the mapping: 7fffffffecec for a [stack] frame).  Folded
# stacks name the removed file's frames [app], as stackcollapse-perf.pl
# does on perf script's text.
. "$(dirname "$0")/lib.sh"

if ! have python3; then skip "python3 not installed"; done_testing; exit; fi
python3 "$TOP/tests/e2e/mkmaps.py" "$T/maps.data"
"$PERFKIT" script -i "$T/maps.data" >"$T/s.txt" 2>"$T/s.err"
expect "script exits 0" test $? = 0
printf '%s\n' 'maps  5151     0.000001:    1000000 cpu-clock:u: ' \
	'	            1010 [unknown] (/opt/gone/app (deleted))' \
	'	    7f0000100040 [unknown] (/tmp/perf-5151.map)' \
	'	    7f0000201008 [unknown] (//anon)' \
	'	    7ffd12360f00 [unknown] ([stack])' '' >"$T/s.want"
head -6 "$T/s.txt" >"$T/s.first"
same_file "script: the removed file with ' (deleted)', JIT code, anonymous data, the stack as sampled" \
	"$T/s.want" "$T/s.first"
expect "... a note that the removed file's symbols are unknown" grep -q 'deleted while it ran' "$T/s.err"

"$PERFKIT" report -i "$T/maps.data" --stdio -g none --sort dso 2>/dev/null | grep -v '^#' | grep . >"$T/r.txt"
printf '%s\n' '   100.00%   100.00%  app (deleted)   ' '   100.00%     0.00%  [JIT] tid 5151  ' \
	'   100.00%     0.00%  [stack]         ' '   100.00%     0.00%  anon            ' >"$T/r.want"
same_file "report --sort dso: 'app (deleted)', [JIT] tid 5151, [stack], anon" "$T/r.want" "$T/r.txt"

"$PERFKIT" collapse "$T/maps.data" >"$T/f.txt" 2>/dev/null
expect "collapse: the removed file's frames [app]" \
	test "$(cat "$T/f.txt")" = "maps;[[stack]];[anon];[perf-5151.map];[app] 3000000"

if have perf; then
	perf script -i "$T/maps.data" >"$T/s.perf" 2>/dev/null
	same_file "script: perf script's text" "$T/s.perf" "$T/s.txt"
	for k in dso "dso,sym --no-children" "comm,dso"; do
		perf report -i "$T/maps.data" --stdio -g none --sort $k 2>/dev/null | grep -v '^#' | grep . >"$T/p.rows"
		"$PERFKIT" report -i "$T/maps.data" --stdio -g none --sort $k 2>/dev/null | grep -v '^#' | grep . >"$T/k.rows"
		same_file "report --sort $k: perf report's rows" "$T/p.rows" "$T/k.rows"
	done
	perf script -i "$T/maps.data" 2>/dev/null | "$PERFKIT" collapse >"$T/f.perf" 2>/dev/null
	same_file "collapse of perf.data = collapse of perf script's text" "$T/f.perf" "$T/f.txt"
	# maps laid over maps (cut, split, replaced): each sample's DSO and
	# address as perf resolves them
	for seed in 1 2 3; do
		python3 "$TOP/tests/e2e/mkoverlap.py" "$T/ov.data" 3000 $seed
		perf script -i "$T/ov.data" -F ip,dso >"$T/ov.perf" 2>/dev/null
		"$PERFKIT" script -i "$T/ov.data" -F ip,dso >"$T/ov.pk" 2>/dev/null
		same_file "3000 overlapping maps (seed $seed): perf script's DSOs and addresses" "$T/ov.perf" "$T/ov.pk"
	done
else
	skip "perf (the oracle) is not installed"
fi
done_testing
