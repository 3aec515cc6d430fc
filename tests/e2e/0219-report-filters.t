#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit report's filters, perf report's options: -c/--comms, --pid,
# --tid (the rows those threads made first: perf's entries keep the filter
# mark of the sample that made them), -d/--dsos and -S/--symbols (the
# rows of those DSOs or symbols), --percentage relative|absolute, and
# perf's "# comm: NAME" line in place of a column whose filter names one
# value.  Checked without perf (the rows kept are the unfiltered rows of
# those names, with the same percentages; relative percentages add up to
# 100) and, where perf is installed, row for row against perf report
# --stdio (rows as a set, blanks squeezed: perf orders rows of equal
# percentages by fields it may leave out).
# check: fresh-recording (perf compared on recordings made here: scripts/e2e-run)
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
B=$PK_BUILD/tests/workloads
if [ ! -x "$B/calltree" ] || [ ! -x "$B/burn2to1" ]; then
	skip "workloads not built (make tests)"; done_testing; exit
fi
cd "$T"
# two programs at once, and the shell that starts them
rec() { "$1" record -g -o "$2" -- sh -c "'$B/calltree' 300 & '$B/burn2to1' 300; wait" >/dev/null 2>&1; }
rec "$PERFKIT" pk.data
[ -s pk.data ] || { not_ok "perfkit record made no file"; done_testing; exit; }

# the row lines, blanks squeezed, sorted; rows of unknown DSOs or symbols
# left out (perf names some of them [k], and with Children gives an
# unnamed sampled address two rows: differences of their own)
rows() { grep -v '^#' "$1" | grep -E '^ +[0-9.]+%' | grep -v ' \[unknown\] ' |
	 grep -Ev '\] (0x)?[0-9a-f]{16} *$' | tr -s ' ' | grep -Ev "${ROWS_DROP:-^\$}" | LC_ALL=C sort; }
export -f rows

# without perf: the filtered rows are the unfiltered rows of those names
"$PERFKIT" report --stdio -i pk.data -g none --no-children >all.out 2>/dev/null
rows all.out >all.rows
"$PERFKIT" report --stdio -i pk.data -g none --no-children --comms calltree,burn2to1 >c.out 2>c.err
expect "--comms: exit 0, quiet" test $? = 0 -a ! -s c.err
rows c.out >c.rows
grep -E '^ [0-9.]+% (calltree|burn2to1) ' all.rows >c.want
expect "--comms calltree,burn2to1: the unfiltered rows of those commands, same percentages ($(wc -l <c.rows) rows)" \
	sh -c 'test -s c.rows && cmp -s c.rows c.want'
expect "--comms: Samples and Event count of the whole file (absolute)" \
	sh -c "test \"\$(grep '^# \\(Samples\\|Event count\\)' c.out)\" = \"\$(grep '^# \\(Samples\\|Event count\\)' all.out)\""

"$PERFKIT" report --stdio -i pk.data -g none --no-children --comms calltree >c1.out 2>/dev/null
expect "one comm: a '# comm: calltree' line" grep -qx '# comm: calltree' c1.out
expect "one comm: no Command column" sh -c "grep -q '^# Overhead  Shared Object  *Symbol' c1.out && ! grep -q Command c1.out"
expect "one comm: its rows, without the comm" \
	bash -c "test \"\$(rows c1.out)\" = \"\$(grep -E '^ [0-9.]+% calltree ' all.rows | sed 's/^\\( [0-9.]*%\\) calltree /\\1 /')\""

"$PERFKIT" report --stdio -i pk.data -g none --no-children --dsos burn2to1 -S burn_one,burn_two >d.out 2>/dev/null
expect "--dsos burn2to1 -S burn_one,burn_two: '# dso: burn2to1', two rows" \
	bash -c "grep -qx '# dso: burn2to1' d.out && test \"\$(rows d.out | wc -l)\" = 2 &&
	       rows d.out | grep -q ' burn2to1 \\[\\.\\] burn_two\$' && rows d.out | grep -q ' burn2to1 \\[\\.\\] burn_one\$'"
# without a sym key and with Children, --symbols keeps the samples whose
# leaf is one of them: the Self of their command's row (without Children
# perf keeps or drops a whole row by its first sample: 'same' below)
"$PERFKIT" report --stdio -i pk.data -g none --sort comm -S burn_one,burn_two >sc.out 2>/dev/null
want=$(rows d.out | awk '{ sub(/%/, "", $1); s += $1 } END { printf "%.2f", s }')
got=$(rows sc.out | awk '$3 == "burn2to1" { sub(/%/, "", $2); printf "%.2f", $2 }')
expect "--sort comm -S burn_one,burn_two: burn2to1 has their share ($got % = $want %), no other row" \
	bash -c "test -n '$got' && awk 'BEGIN { d = $got - $want; exit !(d < 0.03 && d > -0.03) }' && test \$(rows sc.out | wc -l) = 1"
"$PERFKIT" report --stdio -i pk.data -g none --no-children --dsos burn2to1 >d1.out 2>/dev/null
"$PERFKIT" report --stdio -i pk.data -g none --no-children --dsos "$(readlink -f "$B/burn2to1")" >dp.out 2>/dev/null
expect "--dsos by path: the same rows as by file name" bash -c 'test -n "$(rows d1.out)" && test "$(rows dp.out)" = "$(rows d1.out)"' 

"$PERFKIT" report --stdio -i pk.data -g none --no-children --comms calltree --percentage relative >r.out 2>/dev/null
sum=$(rows r.out | awk '{ sub(/%/, "", $1); s += $1 } END { printf "%.0f", s }')
expect "--percentage relative: the rows add up to 100 % ($sum)" test "$sum" = 100

pid=$("$PERFKIT" script -i pk.data -F comm,pid 2>/dev/null | awk '$1 == "burn2to1" { print $2; exit }')
"$PERFKIT" report --stdio -i pk.data -g none --no-children --pid "$pid" >p.out 2>/dev/null
# (the process was sh until its exec: a sample or two of it may be sh's)
expect "--pid $pid: burn2to1's rows, nothing of another process" \
	bash -c "test -s p.out && test \"\$(rows p.out | grep -E '^ [0-9.]+% burn2to1 ')\" = \"\$(grep -E '^ [0-9.]+% burn2to1 ' all.rows)\" &&
		 ! rows p.out | grep -Evq '^ [0-9.]+% (burn2to1|sh) '"
"$PERFKIT" report --stdio -i pk.data -g none --no-children --tid "$pid" >t.out 2>/dev/null
expect "--tid $pid: the same" cmp -s p.out t.out

# the browser's rows follow the filters too: --comms with call graphs
"$PERFKIT" report --stdio -i pk.data --comms burn2to1 >g.out 2>/dev/null
expect "--comms with call graphs: no other command's frames" sh -c "grep -q burn_two g.out && ! grep -qE '\\[\\.\\] (a|b|c|d)\$' g.out"

# --html draws the whole profile: a filter with it is a usage error, not
# silently ignored
"$PERFKIT" report -i pk.data --html -o page.html --comms calltree >h.out 2>h.err
rc=$?
expect "--html --comms: usage error (2), one line, no page ($rc)" \
	test $rc = 2 -a "$(wc -l <h.err)" = 1 -a ! -e page.html

# an empty list keeps nothing, as perf's (a "$VAR" left empty never shows
# the whole profile)
"$PERFKIT" report --stdio -i pk.data -g none --comms '' >e.out 2>e.err
rc=$?
expect "--comms '': exit 0, no row ($rc)" sh -c "test $rc = 0 && ! grep -Eq '^ +[0-9.]+%' e.out"
"$PERFKIT" report --stdio -i pk.data -g none --no-children -S , >e.out 2>e.err
expect "-S ',': no row" sh -c "! grep -Eq '^ +[0-9.]+%' e.out && grep -q '^# Samples' e.out"
# every column a one-value filter's: the '# comm:' line, and the column stays
"$PERFKIT" report --stdio -i pk.data -g none --comms calltree --sort comm >o.out 2>/dev/null
expect "--comms calltree --sort comm: '# comm: calltree' and the Command column" \
	sh -c "grep -qx '# comm: calltree' o.out && grep -q '^# Children  *Self  Command' o.out"

for bad in "--pid x" "--tid 1,,y" "--percentage half" "--pid $(printf '1,%.0s' $(seq 1100))" "--pid ," "--tid ''"; do
	"$PERFKIT" report --stdio -i pk.data $bad >bad.out 2>bad.err
	rc=$?
	expect "report $(echo "$bad" | cut -c1-30): usage error (exit 2, one line) ($rc)" \
		test $rc = 2 -a "$(wc -l <bad.err)" = 1 -a ! -s bad.out
done

# against perf report (in the gcc pass only: the time is perf's, the C
# paths are those above)
if ! have perf; then skip "perf (the oracle) is not installed"; done_testing; exit; fi
if [ -n "${PK_SAN:-}" ]; then skip "the comparisons with perf run in the gcc pass"; done_testing; exit; fi
rec perf p.data
same() {   # same NAME ARGS...: the row lines and the '# key: value' lines
	local d=$1 pp; shift
	perf report --stdio -i p.data "$@" >perf.out 2>/dev/null &   # the two at once
	pp=$!
	"$PERFKIT" report --stdio -i p.data "$@" >pk.out 2>pk.err
	local rc=$?
	wait $pp
	rows perf.out >perf.rows
	rows pk.out >pk.rows
	grep -E '^# (comm|dso|symbol): ' perf.out >perf.el
	grep -E '^# (comm|dso|symbol): ' pk.out >pk.el
	if [ $rc = 0 ] && cmp -s perf.rows pk.rows && cmp -s perf.el pk.el; then
		ok "$d: same rows as perf report $*"
	else
		not_ok "$d: same rows as perf report $* (rc $rc; first differences:" \
			"$(diff perf.rows pk.rows | grep '^[<>]' | head -3 | tr '\n' ' ' | cut -c1-300))"
	fi
}
same "--comms" -g none --no-children --comms calltree,burn2to1
same "one comm" -g none --no-children --comms calltree
same "--dsos" -g none --no-children --dsos calltree,libc.so.6
same "one dso" -g none --no-children --dsos burn2to1
same "--symbols" -g none --no-children -S burn_one,burn_two
same "--symbols, one" -g none --no-children --symbols burn_two
same "--dsos, sort comm,sym (the leaf's)" -g none --no-children --sort comm,sym --dsos burn2to1
same "--comms and --dsos" -g none --no-children --comms burn2to1 --dsos burn2to1
# without their key, perf keeps or drops a row by its first sample's leaf
# (its entry's), with all its samples
same "--dsos, sort comm (a command's row by its first sample)" -g none --no-children --sort comm --dsos burn2to1
same "--dsos libc, sort comm" -g none --no-children --sort comm --dsos libc.so.6,calltree
same "--symbols, sort dso" -g none --no-children --sort dso --symbols burn_one,main
same "--symbols, sort pid" -g none --no-children --sort pid --symbols burn_two
same "--comms relative" -g none --no-children --comms calltree --percentage relative
same "--dsos relative" -g none --no-children --dsos calltree,burn2to1 --percentage relative
same "--comms, Children" -g none --comms calltree
same "--comms calltree --sort comm" -g none --comms calltree --sort comm
# --sort srcline: the workloads' file:line rows, and "sym+OFFSET" (decimal)
# for the kernel's, as perf prints a line it cannot find.  By dso,srcline,
# the rows of the workloads and the kernel only: perf asks binutils'
# addr2line for the others, which names ld.so's lines in another file
# (handle_amd: dl-get-cpu-features.c:333 for dl-cacheinfo.h:333, as
# `addr2line -i` says, libdw not) and prints ":0" for _start's ("??:?"),
# in the workloads too (crt1's _start has no line: perfkit's "_start+2")
perf report --stdio -i p.data -g none --no-children --sort dso,srcline >perf.out 2>/dev/null
"$PERFKIT" report --stdio -i p.data -g none --no-children --sort dso,srcline >pk.out 2>/dev/null
sl() { grep -E '^ +[0-9.]+% +((calltree|burn2to1) +(calltree|burn2to1)\.c:[0-9]+|\[kernel\.kallsyms\] +[A-Za-z_][A-Za-z0-9_.]*\+[0-9]+)$' "$1" | tr -s ' ' | LC_ALL=C sort; }
sl perf.out >perf.sl
sl pk.out >pk.sl
# perf 6.1 asks addr2line with a 1 s timeout: on a loaded machine a line it
# did not get in time becomes "sym+OFFSET", so a difference is asked again
if ! cmp -s perf.sl pk.sl; then
	diff perf.sl pk.sl | head -4 | sed 's/^/# perf, first try: /'
	perf report --stdio -i p.data -g none --no-children --sort dso,srcline 2>/dev/null | sl /dev/stdin >perf.sl
fi
expect "--sort srcline: the same file:line and sym+offset rows as perf ($(wc -l <pk.sl), $(grep -c '+' pk.sl) sym+offset)" \
	sh -c 'test -s pk.sl && cmp -s perf.sl pk.sl'
diff perf.sl pk.sl | head -4 | sed 's/^/# /'
# --percentage relative: the rows' percentages of what is kept, the call
# graphs' still of the whole (their threshold of what is kept), as perf's
eval "$(sed -n '/^blocks() {/,/^}/p' "$TOP/tests/e2e/0203-report-callgraph.t")"
for args in "--comms calltree --percentage relative --no-children -g graph,0.5,caller" \
	    "--comms burn2to1 --percentage relative -g folded" "--comms calltree --percentage relative"; do
	# shellcheck disable=SC2086
	perf report --stdio -i p.data $args >perf.out 2>/dev/null
	# shellcheck disable=SC2086
	"$PERFKIT" report --stdio -i p.data $args >pk.out 2>/dev/null
	blocks perf.out | grep -Ev '\[unknown\]|\] (0x)?[0-9a-f]{16}(\\n|$)' >perf.blk
	blocks pk.out | grep -Ev '\[unknown\]|\] (0x)?[0-9a-f]{16}(\\n|$)' >pk.blk
	if [ ! -s perf.blk ]; then   # seen once under load: a recording without them
		skip "$args: perf report shows no row of these ($(grep -c '^#' perf.out) '#' lines)"
		continue
	fi
	expect "$args: rows and call graphs as perf's ($(wc -l <pk.blk) of $(wc -l <perf.blk) rows)" \
		sh -c 'test -s pk.blk && cmp -s perf.blk pk.blk'
done
pid=$(perf script -i p.data -F comm,pid 2>/dev/null | awk '$1 == "calltree" { print $2; exit }')
t=$(perf script -i p.data -F time 2>/dev/null | awk 'NR == 200 { sub(/:/, ""); print $1 }')
same "--time (not counted in the total)" -g none --no-children --time "$t,"
t2=$(perf script -i p.data -F time 2>/dev/null | awk 'NR == 400 { sub(/:/, ""); print $1 }')
same "--time, two ranges, Children" -g none --time ",$t $t2,"
perf report --stdio -i p.data --time "$t," >perf.out 2>/dev/null
"$PERFKIT" report --stdio -i p.data --time "$t," >pk.out 2>/dev/null
expect "--time: perf's '# Samples' line (time slices)" \
	test "$(grep '^# Samples' perf.out)" = "$(grep '^# Samples' pk.out)" -a -n "$(grep "time slices: $t,)" pk.out)"
perf record -q --sample-cpu -o pc.data -- "$B/calltree" 200 >/dev/null 2>&1
if [ -s pc.data ]; then
	mv p.data p.data.g && mv pc.data p.data
	same "-C 0" -g none --no-children -C 0
	same "--cpu 0, Children" -g none --cpu 0
	mv p.data.g p.data
else
	skip "perf record --sample-cpu failed"
fi
# --pid, --tid: before its exec the pid's process is a forked sh, whose
# rows (comm,dso,sym) it shares with its parent's: perf shows such a row or
# not by which of the two made it first (an entry keeps the filter flag of
# the sample that created it), with the samples of both
same "--pid" -g none --no-children --pid "$pid"
same "--tid" -g none --no-children --tid "$pid"
same "--pid, Children" -g none --pid "$pid"
# the same on a file made here (mkfirstthread.py): two processes of one
# command; rows 0x300 and 0x400 first sampled by 8202, then twice by 8201
python3 "$TOP/tests/e2e/mkfirstthread.py" ft.data
ftrows() { "$PERFKIT" report -i ft.data --stdio -g none "$@" 2>/dev/null | grep -E '^ +[0-9.]+%' | awk '{ print $1 $NF }' | tr '\n' ' '; }
expect "--pid 8202: the rows it made first, with 8201's samples too ($(ftrows --pid 8202))" \
	test "$(ftrows --pid 8202)" = "75.00%0x0000000000000300 75.00%0x0000000000000400 "
expect "--pid 8201: only the row it made first ($(ftrows --pid 8201))" \
	test "$(ftrows --pid 8201)" = "25.00%0x0000000000000100 "
expect "--tid 8202 --percentage relative: of its rows' Self ($(ftrows --tid 8202 --percentage relative))" \
	test "$(ftrows --tid 8202 --percentage relative)" = "100.00%0x0000000000000300 100.00%0x0000000000000400 "
# --symbol-filter: perf gives it to the first event's rows only
perf record -q -g -e cpu-clock,task-clock -o two.data -- "$B/calltree" 100 >/dev/null 2>&1
if [ -s two.data ]; then
	"$PERFKIT" report -i two.data --stdio -g none --no-children --symbol-filter=c >two.out 2>/dev/null
	n=$(awk '/^# Samples/ { e++ } e == 2 && /^ +[0-9.]+%/ { n++ } END { print n + 0 }' two.out)
	expect "--symbol-filter, two events: the second event's rows all there ($n rows)" test "$n" -gt 1
	awk '/^# Samples/ { e++ } e == 1 && /^ +[0-9.]+%/ && $NF !~ /c/ { bad++ } END { exit bad > 0 }' two.out
	expect "--symbol-filter, two events: the first event's rows hold 'c'" test $? = 0
	for o in "-g none --no-children" "" "--percentage relative -g none"; do
		perf report -i two.data --stdio $o --symbol-filter=c 2>/dev/null | grep -v '^# (Tip:' | trim_tail >two.p
		# perfkit's "[truncated]" row (a chain as long as the kernel's
		# limit, a stack walked through garbage under load): perf has no
		# such marker (README)
		"$PERFKIT" report -i two.data --stdio $o --symbol-filter=c 2>/dev/null | trim_tail |
			grep -v '^ .*%  *[^ ]*  *\[unknown\]  *\[\.\] \[truncated\]$' >two.k
		if grep -q '\[truncated\]' two.k; then
			skip "two events, $o: a chain cut at the kernel's limit in this recording's call graphs"
			continue
		fi
		same_file "two events, $o --symbol-filter=c: perf report's output" two.p two.k
	done
else
	skip "perf record -e cpu-clock,task-clock failed"
fi
done_testing
