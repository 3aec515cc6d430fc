#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Frame names are untrusted: whatever bytes they hold, the SVG stays
# well-formed XML, no name reaches the script or an attribute, the tooltip
# keeps the whole name and a shortened label never splits a character.
. "$(dirname "$0")/lib.sh"

if ! have python3; then
	skip "python3 is needed to parse the SVG"
	done_testing; exit
fi
FG=$SHARED/tools/fgframes
have_shared "$FG" || { done_testing; exit; }

# check DESC NAME_BYTES(printf format) EXPECTED_TITLE_NAME [WIDTH [EXPECTED_LABEL]]
# — in the background, two at a time (nothing is timed), in its own folder
# $T/cN; its TAP lines are written to $T/cN.tap and relayed by relay_checks
ncheck=0
check() {
	ncheck=$((ncheck + 1))
	while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
	( T=$T/c$ncheck; mkdir -p "$T"
	  ok() { echo "OK $*"; }; not_ok() { echo "NOTOK $*"; }
	  check_one "$@" >"$T.tap" 2>&1 ) &
}
relay_checks() {
	local i l
	wait
	for ((i = 1; i <= ncheck; i++)); do
		[ -s "$T/c$i.tap" ] || { not_ok "check $i: no result"; continue; }
		while IFS= read -r l; do
			case $l in OK\ *) ok "${l#OK }" ;; NOTOK\ *) not_ok "${l#NOTOK }" ;; *) echo "$l" ;; esac
		done <"$T/c$i.tap"
	done
}
check_one() {
	local desc=$1 fmt=$2 want=$3 width=${4:-1200} label=${5-}
	printf "main;$fmt 7\n" >"$T/in.txt"
	if ! "$PERFKIT" flamegraph --hash --width "$width" "$T/in.txt" >"$T/out.svg" 2>"$T/err"; then
		not_ok "$desc: perfkit flamegraph failed"; sed 's/^/# /' "$T/err"; return
	fi
	if ! python3 "$FG" "$T/out.svg" >"$T/frames.tsv" 2>"$T/err"; then
		not_ok "$desc: not well-formed XML"; sed 's/^/# /' "$T/err"; return
	fi
	python3 - "$T/out.svg" "$want" "$label" <<'PY' >"$T/py.out" 2>&1
import sys, xml.etree.ElementTree as ET
path, want, label = sys.argv[1], sys.argv[2], sys.argv[3]
want = want.encode("utf-8", "surrogateescape").decode("utf-8")
root = ET.parse(path).getroot()
ns = "{http://www.w3.org/2000/svg}"
frames = [e for e in root.iter() if e.get("id") == "frames"][0]
ok = False
for g in frames:
    title = g.find(ns + "title").text or ""
    if title == want + " (7 samples, 100.00%)" and title.count("(7 samples") == 1:
        text = "".join(g.find(ns + "text").itertext())
        if label and text != label.encode("utf-8", "surrogateescape").decode("utf-8"):
            print("label %r, expected %r" % (text, label)); sys.exit(1)
        ok = True
if not ok:
    print("no frame titled %r" % (want + " (7 samples, 100.00%)",)); sys.exit(1)
# the script section holds no frame text, and no element other than the
# page's own script exists
script = "".join(e.text or "" for e in root.iter(ns + "script"))
if want and want in script:
    print("name found in the script"); sys.exit(1)
if len(list(root.iter(ns + "script"))) != 1:
    print("extra script element"); sys.exit(1)
for e in root.iter():
    for k, v in e.attrib.items():
        if k.startswith("on") or (want and want in v and len(want) > 2):
            print("name or handler in attribute %s=%r" % (k, v)); sys.exit(1)
PY
	if [ $? -eq 0 ]; then ok "$desc"; else not_ok "$desc"; sed 's/^/# /' "$T/py.out"; fi
}

check 'script tag'        '<script>alert(1)</script>'  '<script>alert(1)</script>'
check 'CDATA end in name' ']]><script>alert(2)</script>' ']]><script>alert(2)</script>'
check 'ampersand'         'a&b'                         'a&b'
check 'double quotes'     '"quoted"'                    '"quoted"'
check 'single quote, gt'  "it's>here"                   "it's>here"
check 'onload attribute'  '" onload="alert(3)'          '" onload="alert(3)'
check 'invalid UTF-8'     'bad\xff\xfebytes'          "bad$(printf '\xef\xbf\xbd\xef\xbf\xbd')bytes"
# control bytes are shown as visible \xNN escapes (P2 acceptance item 2)
check 'control characters' 'ctl\x01\x1b[31m\x7f'      'ctl\x01\x1b[31m\x7f'
# a label holds int((WIDTH - 20) / 7.08) characters: 8 at width 80, 9 at 88;
# the 3-byte character U+65E5 sits at the cut
check '3-byte char cut away at the label end'  'abcdefg\xe6\x97\xa5xyz' "abcdefg$(printf '\xe6\x97\xa5')xyz" 80 'abcdef..'
check '3-byte char kept whole at the label end' 'abcdef\xe6\x97\xa5xyzw' "abcdef$(printf '\xe6\x97\xa5')xyzw" 88 "abcdef$(printf '\xe6\x97\xa5').."
check '3-byte char inside the label'            'abcde\xe6\x97\xa5xyzw' "abcde$(printf '\xe6\x97\xa5')xyzw" 88 "abcde$(printf '\xe6\x97\xa5')x.."
check 'entity at the label end'                 'abcdef&&&&&&&&' 'abcdef&&&&&&&&' 80 'abcdef..'
check 'entity inside the label'                 'abcde&&&&&&&&&' 'abcde&&&&&&&&&' 88 'abcde&&..'
relay_checks

# title, subtitle, countname and nametype are escaped too
printf 'a;b 3\n' >"$T/t.txt"
"$PERFKIT" flamegraph --title '<b>&"T"' --subtitle "x]]>y" --countname '<c>' \
	--nametype '</text><script>alert(4)</script>' "$T/t.txt" >"$T/t.svg" 2>/dev/null
if python3 "$FG" "$T/t.svg" >"$T/t.tsv" 2>&1 && grep -qF "$(printf '#title\t<b>&"T"')" "$T/t.tsv" &&
   grep -qF "$(printf '#subtitle\tx]]>y')" "$T/t.tsv" && grep -qF 'b (3 <c>, 100.00%)' "$T/t.tsv" &&
   ! grep -q '<script>alert' "$T/t.svg"; then
	ok "title, subtitle, countname, nametype escaped"
else
	not_ok "title, subtitle, countname, nametype escaped"; sed 's/^/# /' "$T/t.tsv"
fi

done_testing
