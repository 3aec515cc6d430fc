#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile names through the perf.data paths of script, collapse and
# flamegraph (the model's tree, flame_render_tree): a JIT symbol named by
# /tmp/perf-PID.map with ; < > & " ' ESC, bad UTF-8 and a tab, a 100 kB
# one, and a comm with a newline.  The SVG must stay well-formed with the
# markup escaped, a newline must not split script's record or collapse's
# line, and a perf.data file without samples gets a clear line.
. "$(dirname "$0")/lib.sh"
if ! can_perf_event; then skip "perf events not allowed here"; done_testing; exit; fi
if [ "$(uname -m)" != x86_64 ]; then skip "the JIT workload is x86-64 code"; done_testing; exit; fi
wl=$PK_BUILD/tests/workloads/jitnames
cd "$T" || exit 1
wellformed() {
	if have xmllint; then xmllint --noout "$1" 2>/dev/null
	else python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$1" 2>/dev/null; fi
}
name=$(printf 'a;b <x>&"q'"'"' \033[31m \377 tab\t')
comm=$(printf 'c\nm<&\033')
"$PERFKIT" record -o j.data -- "$wl" "$name" 10 "$comm" 2>/dev/null
"$PERFKIT" record -o big.data -- "$wl" big 100000 2>/dev/null
pids=$("$PERFKIT" script -F pid -i j.data 2>/dev/null; "$PERFKIT" script -F pid -i big.data 2>/dev/null)

"$PERFKIT" script -i j.data >s.txt 2>s.err; rc=$?
expect "script of the hostile names: exit 0 ($rc)" test $rc = 0
n=$(grep -c 'cpu-clock:' s.txt)
expect "... one line per sample: the comm's newline does not split it ($n lines, $(wc -l <s.txt) in all)" \
	test "$n" -gt 0 -a "$(wc -l <s.txt)" = "$n"
expect "... the newline shown as \\x0a" grep -q '^ *c\\x0am<&' s.txt
expect "... the JIT symbol named from the map" grep -q 'a;b <x>&"q' s.txt
"$PERFKIT" collapse j.data >c.folded 2>c.err; rc=$?
expect "collapse: exit 0 ($rc)" test $rc = 0
expect "... ';' in a name becomes ':' (it would add a frame)" grep -q '^c\\x0am<&.;a:b <x>&"q' c.folded
expect "... one line per stack" test "$(grep -c ' [0-9]*$' c.folded)" = "$(wc -l <c.folded)"

"$PERFKIT" flamegraph -o j.svg j.data 2>f.err; rc=$?
expect "flamegraph perf.data: exit 0 ($rc)" test $rc = 0
expect "... the SVG is well-formed" wellformed j.svg
expect "... the markup escaped" grep -q 'a:b &lt;x&gt;&amp;&quot;q&apos; \\x1b\[31m' j.svg
expect "... bad UTF-8 replaced (U+FFFD)" grep -q "$(printf '\357\277\275') tab" j.svg
expect_fail "... no raw ESC in it" grep -q "$(printf '\033')" j.svg
"$PERFKIT" flamegraph -o big.svg big.data 2>/dev/null; rc=$?
expect "flamegraph with a 100 kB name: exit 0, well-formed ($rc)" wellformed big.svg
expect "... the name's end is in its title" grep -q 'XYZABCD (' big.svg

# report prints the whole name on its row, as perf (a 512-byte buffer cut
# long C++ names, and different ones then read alike)
"$PERFKIT" report -i big.data --stdio -g none --sort sym >big.rep 2>/dev/null; rc=$?
expect "report with a 100 kB name: exit 0, the whole name on its row ($rc; $(awk '/XYZABCD/ { print length($0) }' big.rep) columns)" \
	sh -c "[ $rc = 0 ] && awk '/XYZABCD\$/ && length(\$0) > 100000 { f = 1 } END { exit !f }' big.rep"

# a 10 s period: no sample in a run of true, however loaded the machine
"$PERFKIT" record -c 10000000000 -o none.data -- true 2>/dev/null
"$PERFKIT" flamegraph -o none.svg none.data 2>none.err; rc=$?
expect "flamegraph of perf.data without samples: exit 2 as flamegraph.pl ($rc)" test $rc = 2
expect "... says so (not 'the input is empty')" grep -q '^perfkit flamegraph: no samples in the perf.data input: nothing to draw$' none.err

for p in $(echo "$pids" | tr -d ' ' | sort -u); do
	case $p in *[!0-9]*|'') ;; *) rm -f "/tmp/perf-$p.map" ;; esac
done
done_testing
