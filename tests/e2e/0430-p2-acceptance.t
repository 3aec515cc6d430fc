#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue P2, acceptance items 2 to 5, case by case as the issue words them:
# untrusted frame names in the SVG, perf script edge cases in collapse,
# empty or invalid flamegraph input, and diff-folded's union.
. "$(dirname "$0")/lib.sh"

if ! have python3; then
	skip "python3 is needed to read the SVG"
	done_testing; exit
fi
FG=$SHARED/tools/fgframes

# xml FILE — well-formed XML (xmllint from libxml2-utils; python if absent)
xml() {
	if have xmllint; then
		xmllint --noout "$1" 2>"$T/xmllint.err"
	else
		python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$1"
	fi
}
# frames SVG — "tooltip<TAB>label" for each frame, tooltips as fgframes shows them
frames() {
	python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
fr = [e for e in root.iter() if e.get("id") == "frames"][0]
for g in fr:
    t = g.find(ns + "title")
    x = g.find(".//" + ns + "text")
    print("%s\t%s" % (t.text if t is not None else "", "".join(x.itertext()) if x is not None else ""))
PY
}
# has FILE STRING — FILE holds the fixed string
has() { grep -qaF -- "$2" "$1"; }
# fold_has OUT LINE — collapse output holds exactly this line
fold_has() { grep -qxF -- "$2" "$1"; }

# ---- item 2: names are untrusted input ---------------------------------
echo '# item 2: names in the SVG'
printf '%s\n' 'main;Pair<A&B>::get;std::vector<int, std::allocator<int> >::push_back 1' \
	'main;Matrix::operator<< 1' >"$T/cpp.txt"
"$PERFKIT" flamegraph "$T/cpp.txt" >"$T/cpp.svg" 2>"$T/err"
expect 'C++ names: exit 0' test $? -eq 0
expect 'C++ names: xmllint --noout passes' xml "$T/cpp.svg"
if have_shared "$FG"; then
	python3 "$FG" "$T/cpp.svg" >"$T/cpp.tsv" 2>&1
	expect 'C++ names: tooltip keeps Pair<A&B>::get' has "$T/cpp.tsv" $'\tPair<A&B>::get (1 samples, 50.00%)'
	expect 'C++ names: tooltip keeps std::vector<int, std::allocator<int> >::push_back' \
		has "$T/cpp.tsv" $'\tstd::vector<int, std::allocator<int> >::push_back (1 samples, 50.00%)'
	expect 'C++ names: tooltip keeps Matrix::operator<<' has "$T/cpp.tsv" $'\tMatrix::operator<< (1 samples, 50.00%)'
fi
expect 'C++ names: escaped in the SVG (Pair&lt;A&amp;B&gt;)' has "$T/cpp.svg" 'Pair&lt;A&amp;B&gt;::get'
expect 'C++ names: escaped in the SVG (operator&lt;&lt;)' has "$T/cpp.svg" 'Matrix::operator&lt;&lt;'
expect_fail 'C++ names: no raw "<A&B>" in the SVG' has "$T/cpp.svg" '<A&B>'
# ... and kept as they are in folded text written by collapse
cat >"$T/cpp.perf" <<'EOF'
app 100 [000] 1.000000:          1 cpu-clock: 
	    4005d0 std::vector<int, std::allocator<int> >::push_back (/usr/bin/app)
	    4005e0 Pair<A&B>::get (/usr/bin/app)
	    4005f0 main (/usr/bin/app)

app 100 [000] 1.000100:          1 cpu-clock: 
	    4006d0 Matrix::operator<< (/usr/bin/app)
	    4005f0 main (/usr/bin/app)

EOF
"$PERFKIT" collapse "$T/cpp.perf" >"$T/cpp.folded" 2>"$T/err"
expect 'C++ names: collapse keeps <, > and & in folded text' \
	fold_has "$T/cpp.folded" 'app;main;Pair<A&B>::get;std::vector<int, std::allocator<int> >::push_back 1'
expect 'C++ names: collapse keeps operator<<' fold_has "$T/cpp.folded" 'app;main;Matrix::operator<< 1'

printf 'main;anon\0class::parse 1\nmain;esc\033[0mname 1\nmain;bad\255byte 1\nmain;ok 1\n' >"$T/ctl.txt"
"$PERFKIT" flamegraph "$T/ctl.txt" >"$T/ctl.svg" 2>"$T/err"
expect 'control bytes: exit 0' test $? -eq 0
expect 'control bytes: valid XML' xml "$T/ctl.svg"
frames "$T/ctl.svg" >"$T/ctl.tsv" 2>&1
expect 'control bytes: 4 towers' test "$(grep -c '(1 samples, 25.00%)' "$T/ctl.tsv")" -eq 4
expect 'control bytes: 4 samples' has "$T/ctl.tsv" 'all (4 samples, 100%)'
expect 'control bytes: no line dropped (none ignored)' sh -c "! grep -q ignored '$T/err'"
expect 'control bytes: NUL shown as \x00 in the tooltip' has "$T/ctl.tsv" 'anon\x00class::parse (1 samples, 25.00%)'
expect 'control bytes: NUL shown as \x00 in the label' has "$T/ctl.tsv" $'\tanon\\x00class::parse'
expect 'control bytes: ESC shown as \x1b in the tooltip' has "$T/ctl.tsv" 'esc\x1b[0mname (1 samples, 25.00%)'
expect 'control bytes: ESC shown as \x1b in the label' has "$T/ctl.tsv" $'\tesc\\x1b[0mname'
expect_fail 'control bytes: no raw NUL or ESC byte in the SVG' grep -qaP '[\x00\x1b]' "$T/ctl.svg"
if grep -qaF "$(printf 'bad\357\277\275byte (1 samples')" "$T/ctl.tsv" || has "$T/ctl.tsv" 'bad\xadbyte (1 samples'; then
	ok 'invalid byte 0xAD shown as U+FFFD or \xad'
else
	not_ok 'invalid byte 0xAD shown as U+FFFD or \xad'; sed 's/^/# /' "$T/ctl.tsv"
fi
expect 'control bytes: the plain frame is there' has "$T/ctl.tsv" 'ok (1 samples, 25.00%)'

long='main;Ωmega::計算::δ_function_with_a_very_long_unicode_name_éèê 5'
sym='<&>"'"'"'<<&&>>'"'"'"&<>&<>&<>&<>&<>_a_long_name_full_of_xml_specials_&<>&<>'
printf '%s\n%s\n' "$long" "main;$sym 5" >"$T/wide.txt"
"$PERFKIT" flamegraph --width 300 "$T/wide.txt" >"$T/wide.svg" 2>"$T/err"
expect '--width 300: exit 0' test $? -eq 0
expect '--width 300: valid UTF-8' python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$T/wide.svg"
expect '--width 300: valid XML' xml "$T/wide.svg"
frames "$T/wide.svg" >"$T/wide.tsv" 2>&1
python3 - "$T/wide.tsv" "$sym" >"$T/wide.chk" 2>&1 <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1], encoding="utf-8")]
want = {"uni": "Ωmega::計算::δ_function_with_a_very_long_unicode_name_éèê", "xml": sys.argv[2]}
for key, name in want.items():
    for title, label in rows:
        if title.startswith(name + " ("):
            ok = label.endswith("..") and name.startswith(label[:-2]) and len(label) > 2
            print("%s %s %r" % (key, "ok" if ok else "bad", label))
PY
expect '--width 300: unicode label ends in ..' grep -q '^uni ok' "$T/wide.chk"
expect '--width 300: <>& label ends in .. (no entity split)' grep -q '^xml ok' "$T/wide.chk"
expect '--width 300: full unicode name in the tooltip' has "$T/wide.tsv" 'δ_function_with_a_very_long_unicode_name_éèê (5 samples'
expect '--width 300: full <>& name in the tooltip' has "$T/wide.tsv" "$sym (5 samples"
grep -q 'ok' "$T/wide.chk" || sed 's/^/# /' "$T/wide.chk"

printf '%s\n' 'main;</script><script>alert(1)</script> 1' 'main;"><g onload="alert(1) 1' >"$T/xss.txt"
"$PERFKIT" flamegraph "$T/xss.txt" >"$T/xss.svg" 2>"$T/err"
expect 'script names: valid XML' xml "$T/xss.svg"
python3 - "$T/xss.svg" >"$T/xss.chk" 2>&1 <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
print("scripts", len(list(root.iter(ns + "script"))))
print("handlers", sum(1 for e in root.iter() for k in e.attrib if k.lower().startswith("on")))
fr = [e for e in root.iter() if e.get("id") == "frames"][0]
print("nested_g", sum(1 for g in fr for _ in g.iter(ns + "g")) - len(list(fr)))
titles = [g.find(ns + "title").text for g in fr]
print("t1", any(t.startswith('</script><script>alert(1)</script> (') for t in titles))
print("t2", any(t.startswith('"><g onload="alert(1) (') for t in titles))
PY
expect 'script names: one script element (the page'"'"'s own)' grep -qx 'scripts 1' "$T/xss.chk"
expect 'script names: no on* attribute anywhere' grep -qx 'handlers 0' "$T/xss.chk"
expect 'script names: no <g> created inside a frame' grep -qx 'nested_g 0' "$T/xss.chk"
expect 'script names: </script><script>alert(1)</script> is text in its tooltip' grep -qx 't1 True' "$T/xss.chk"
expect 'script names: "><g onload="alert(1) is text in its tooltip' grep -qx 't2 True' "$T/xss.chk"

# ---- item 3: perf script edge cases ------------------------------------
echo '# item 3: perf script edge cases'
cat >"$T/comm.perf" <<'EOF'
t 4321 1234.500000:     250000 cpu-clock: 
	    55d0c0a0 spin (/usr/bin/t)
	    55d0c0b0 main (/usr/bin/t)

t    4321 [001] 1234.750000:     250000 cpu-clock: 
	    55d0c0a0 spin (/usr/bin/t)
	    55d0c0b0 main (/usr/bin/t)

9 4400 [000] 1235.000000:     250000 cpu-clock: 
	    55d0c0a0 spin (/usr/bin/9)

EOF
"$PERFKIT" collapse "$T/comm.perf" >"$T/comm.out" 2>"$T/err"
expect 'short comms: t;main;spin, both samples merged' fold_has "$T/comm.out" 't;main;spin 500000'
expect 'short comms: 9;spin' fold_has "$T/comm.out" '9;spin 250000'
expect 'short comms: two stacks only' test "$(wc -l <"$T/comm.out")" -eq 2
expect_fail 'short comms: no pid or time swallowed into the comm' grep -qE '4321|4400|123[45]\.' "$T/comm.out"

cat >"$T/spaces.perf" <<'EOF'
DOM Worker 3100 [002] 500.000100:     250000 cpu-clock: 
	    55d0c0a0 work (/usr/lib/firefox/libxul.so)

ET_NET 0 3101 [002] 500.000200:     250000 cpu-clock: 
	    55d0c0a0 net (/usr/bin/traffic_server)

[pool 0] 3000/3102 [001] 500.000300:     250000 cpu-clock: 
	    55d0c0a0 pool (/usr/bin/app)

EOF
"$PERFKIT" collapse "$T/spaces.perf" >"$T/sp.out" 2>"$T/err"
expect 'comm with a space: root DOM_Worker' fold_has "$T/sp.out" 'DOM_Worker;work 250000'
expect 'comm ending in a number: root ET_NET_0' fold_has "$T/sp.out" 'ET_NET_0;net 250000'
expect 'comm in brackets: root [pool_0]' fold_has "$T/sp.out" '[pool_0];pool 250000'
"$PERFKIT" collapse --tid "$T/spaces.perf" >"$T/tid.out" 2>"$T/err"
expect '--tid: DOM_Worker with tid 3100' fold_has "$T/tid.out" 'DOM_Worker-?/3100;work 250000'
expect '--tid: ET_NET_0 with tid 3101' fold_has "$T/tid.out" 'ET_NET_0-?/3101;net 250000'
expect '--tid: [pool_0] with 3000/3102' fold_has "$T/tid.out" '[pool_0]-3000/3102;pool 250000'

cat >"$T/unk.perf" <<'EOF'
app 5000 [000] 10.000000:     250000 cpu-clock: 
	    7f00001234 [unknown] (/opt/app/modules/libmod.so)
	    7f00005678 [unknown] ([unknown])
	    55d0c0b0 main (/opt/app/bin/app)

EOF
"$PERFKIT" collapse "$T/unk.perf" >"$T/unk.out" 2>"$T/err"
expect '[unknown] in libmod.so folds as [libmod.so], in [unknown] stays [unknown]' \
	fold_has "$T/unk.out" 'app;main;[unknown];[libmod.so] 250000'

printf 'app 5000 [000] 10.000000:     250000 cpu-clock: \n\t    55d0c0a0 spin (/usr/bin/app)\n\t    55d0c0b0 main (/usr/bin/app)\n' >"$T/noblank.perf"
"$PERFKIT" collapse "$T/noblank.perf" >"$T/nb.out" 2>"$T/err"
expect 'no blank line after the last record: sample kept' fold_has "$T/nb.out" 'app;main;spin 250000'
printf 'app 5000 [000] 10.000000:     250000 cpu-clock: \n\t    55d0c0a0 spin (/usr/bin/app)\n\t    55d0c0b0 main (/usr/bin/app)' >"$T/nonl.perf"
"$PERFKIT" collapse "$T/nonl.perf" >"$T/nn.out" 2>"$T/err"
expect 'no newline at the end: sample kept' fold_has "$T/nn.out" 'app;main;spin 250000'

# without -g, perf script pads the comm and puts the sampled frame on the
# header line
cat >"$T/nog.perf" <<'EOF'
             app  5000 [000]    10.000000:     250000 cpu-clock:      55d0c0a0 spin (/usr/bin/app)
             app  5000 [000]    10.000250:     250000 cpu-clock:      55d0c0b0 main+0x10 (/usr/bin/app)
             app  5000 [000]    10.000500:     250000 cpu-clock:      55d0c0a0 spin (/usr/bin/app)
EOF
"$PERFKIT" collapse "$T/nog.perf" >"$T/nog.out" 2>"$T/err"
expect 'no call chains: one-frame stack app;spin' fold_has "$T/nog.out" 'app;spin 500000'
expect 'no call chains: one-frame stack app;main' fold_has "$T/nog.out" 'app;main 250000'
if have perf && can_perf_event && perf record -q -e cpu-clock -c 100000 -o "$T/nog.data" -- \
	sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' >/dev/null 2>&1 &&
	perf script -i "$T/nog.data" >"$T/nog-real.perf" 2>/dev/null; then
	"$PERFKIT" collapse "$T/nog-real.perf" >"$T/nogr.out" 2>"$T/err"
	expect 'no call chains (real perf script): one-frame stacks of sh' \
		sh -c "test -s '$T/nogr.out' && ! grep -qv '^sh;[^;]* [0-9]*\$' '$T/nogr.out'"
else
	skip 'perf record with cpu-clock not usable here'
fi
printf '# only comments, no sample\n' | "$PERFKIT" collapse >"$T/none.out" 2>"$T/err"
expect 'no samples: never silent (stderr says to record with -g)' grep -q 'perf record -g' "$T/err"

# ---- item 4: empty and invalid flamegraph input ------------------------
echo '# item 4: empty or invalid input'
: >"$T/empty.txt"
"$PERFKIT" flamegraph "$T/empty.txt" >"$T/empty.svg" 2>"$T/err"
expect 'empty input: exit status 2' test $? -eq 2
expect 'empty input: the SVG is valid XML' xml "$T/empty.svg"
expect 'empty input: the SVG states the error' grep -q '<text id="title"[^>]*>ERROR: No valid input.*empty' "$T/empty.svg"
expect 'empty input: stderr says so' grep -q 'no stack counts found in the input: it is empty' "$T/err"
printf 'garbage\nnot a count x\n' >"$T/bad.txt"
"$PERFKIT" flamegraph "$T/bad.txt" >"$T/bad.svg" 2>"$T/err"
expect 'no valid line: exit status 2' test $? -eq 2
expect 'no valid line: the SVG is valid XML' xml "$T/bad.svg"
expect 'no valid line: the SVG states the error' grep -q '<text id="title"[^>]*>ERROR: No valid input.*2 of 2 lines ignored' "$T/bad.svg"
expect 'no valid line: stderr names the ignored lines' \
	grep -q "ignored 2 lines .*line 1 'garbage', line 2 'not a count x'" "$T/err"
printf 'a;b 5\na;c 4\n' >"$T/few.txt"
"$PERFKIT" flamegraph "$T/few.txt" >/dev/null 2>"$T/err"
expect 'fewer than 100 samples: a warning' grep -q 'warning: only 9 samples' "$T/err"
printf 'a;b 60\na;c 40\n' >"$T/many.txt"
"$PERFKIT" flamegraph "$T/many.txt" >/dev/null 2>"$T/err"
expect '100 samples: no warning' sh -c "! grep -q warning '$T/err'"

# ---- item 5: diff-folded -----------------------------------------------
echo '# item 5: diff-folded'
printf '%s\n' 'app;main;parse 50' 'app;main;render 50' 'app;main;legacy 20' >"$T/before.txt"
printf '%s\n' 'app;main;parse 50' 'app;main;render 30' 'app;main;compress 40' >"$T/after.txt"
"$PERFKIT" diff-folded "$T/before.txt" "$T/after.txt" >"$T/diff.txt" 2>"$T/err"
expect 'diff-folded: exit 0' test $? -eq 0
expect 'diff-folded: app;main;parse 50 50' fold_has "$T/diff.txt" 'app;main;parse 50 50'
expect 'diff-folded: app;main;render 50 30' fold_has "$T/diff.txt" 'app;main;render 50 30'
expect 'diff-folded: app;main;compress 0 40 (missing before)' fold_has "$T/diff.txt" 'app;main;compress 0 40'
expect 'diff-folded: app;main;legacy 20 0 (missing after)' fold_has "$T/diff.txt" 'app;main;legacy 20 0'
expect 'diff-folded: the union, 4 stacks' test "$(wc -l <"$T/diff.txt")" -eq 4
for neg in '' --negate; do
	"$PERFKIT" flamegraph $neg "$T/diff.txt" >"$T/diff$neg.svg" 2>"$T/err"
	expect "differential graph ${neg:-(plain)}: exit 0" test $? -eq 0
	expect "differential graph ${neg:-(plain)}: valid XML" xml "$T/diff$neg.svg"
	expect_fail "differential graph ${neg:-(plain)}: no NaN or infinity anywhere" \
		grep -qaiE 'nan|inf' "$T/diff$neg.svg"
done
if have_shared "$FG"; then
	python3 "$FG" "$T/diff.svg" >"$T/diff.tsv" 2>&1
	expect 'differential graph: compress drawn red (grew)' \
		grep -qP '\trgb\(255,0,0\)\tcompress \(40 samples, 33.33%; \+33.33%\)' "$T/diff.tsv"
	expect 'differential graph: render drawn blue (shrank)' \
		grep -qP '\trgb\(\d+,\d+,255\)\trender \(30 samples, 25.00%; -16.67%\)' "$T/diff.tsv"
fi

done_testing
