#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report --html: one self-contained page (export/html.h).  Without a browser:
# the page loads nothing from anywhere (no http(s) src/href, no <link>, no
# @import), holds its two script blocks only whatever the names, escapes
# U+2028 and markup in names, and refuses bad usage and empty inputs without
# leaving a file.  In Debian's chromium, headless, driven by playwright-core
# (tests/browser/report-html.test.js): clicks and keys on every view (zoom,
# search, icicle, sorting, filter, callers/callees, --diff's toggle and
# changes) checked against the folded inputs, the table and annotation of a
# recorded perf.data against `perfkit report --stdio` and `perfkit annotate
# --stdio`, and hostile names that must run nothing.
. "$(dirname "$0")/lib.sh"

B=$TOP/tests/browser
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}

# static PAGE WHAT: the page is whole and loads nothing
static() {
	local f=$1 w=$2
	expect "$w: written" test -s "$f"
	if grep -Eiq "(src|href|action|data)[[:space:]]*=[[:space:]]*[\"']?[[:space:]]*(https?:)?//" "$f" ||
	   grep -Eiq '<link|@import|url\([[:space:]]*["'\'']?(https?:)?//' "$f"; then
		not_ok "$w: nothing loaded from the network"
		grep -Eio ".{0,40}(src|href|@import|url\().{0,40}" "$f" | head -3 | sed 's/^/# /'
	else
		ok "$w: nothing loaded from the network"
	fi
	expect "$w: two script blocks, the data's and the page's" test "$(grep -o '<script' "$f" | wc -l)" = 2
	expect "$w: ends as an HTML document" bash -c 'tail -c 20 "$1" | grep -q "</html>"' - "$f"
}

"$PERFKIT" report --html -o "$T/f.html" -i "$B/report.folded" 2>"$T/err"
expect "folded input: exit 0, nothing on stderr" test ! -s "$T/err"
static "$T/f.html" "folded page"
"$PERFKIT" report --html --diff -o "$T/d.html" "$B/report.folded" "$B/report-new.folded"
static "$T/d.html" "diff page"
# -i -: folded text or a perf.data stream from stdin (the first bytes tell
# which); the page is the file's but for the input's label
"$PERFKIT" report --html -o "$T/fs.html" -i - <"$B/report.folded" 2>"$T/err"
expect "folded on stdin: exit 0, nothing on stderr" test ! -s "$T/err"
expect "folded on stdin: the file's page, labelled -" cmp <(sed 's/"input":"[^"]*"/"input":X/' "$T/f.html") \
	<(sed 's/"input":"[^"]*"/"input":X/' "$T/fs.html")
if can_perf_event; then
	"$PERFKIT" record -g -F 999 -o "$T/s.data" -- "$PK_BUILD/tests/workloads/calltree" 200 >/dev/null 2>&1
	"$PERFKIT" report --html -o "$T/s.html" -i "$T/s.data" 2>/dev/null
	cat "$T/s.data" | "$PERFKIT" report --html -o "$T/ss.html" -i - 2>/dev/null
	expect "perf.data on stdin: the file's page, labelled -" cmp <(sed 's/"input":"[^"]*"/"input":X/' "$T/s.html") \
		<(sed 's/"input":"[^"]*"/"input":X/' "$T/ss.html")
else
	skip "perf events not allowed here"
fi

# hostile names, made here (printf): markup, a script end, U+2028, bad UTF-8
{
	printf 'main;</script><script>window.pkPwned=1</script> 5\n'
	printf 'main;<!--<img src=x onerror=alert(1)> 3\n'
	printf 'main;a\xe2\x80\xa8b\xe2\x80\xa9c 2\n'
	printf 'main;bad\xff\xfe 2\n'
} >"$T/h.folded"
"$PERFKIT" report --html -o "$T/h.html" -i "$T/h.folded"
static "$T/h.html" "hostile names"
expect_fail "hostile: no raw </script><script> from a name" grep -q 'pkPwned=1</script>' "$T/h.html"
expect_fail "hostile: no raw <img from a name" grep -q '<img' "$T/h.html"
expect_fail "hostile: no raw U+2028 / U+2029" grep -q $'\xe2\x80\xa8\|\xe2\x80\xa9' "$T/h.html"
expect "hostile: U+2028 written as \\u2028" grep -qF 'a\u2028b\u2029c' "$T/h.html"

# usage and bad inputs: exit 2 / 1, one line, no file left
"$PERFKIT" report --html -i "$B/report.folded" >/dev/null 2>"$T/err"
expect "--html without -o: exit 2" test $? = 2
"$PERFKIT" report --html --diff -o "$T/x.html" "$B/report.folded" >/dev/null 2>"$T/err"
expect "--diff with one file: exit 2" test $? = 2
"$PERFKIT" report --diff -o "$T/x.html" a b >/dev/null 2>"$T/err"
expect "--diff without --html: exit 2" test $? = 2
printf 'no count here\n' >"$T/bad.folded"
"$PERFKIT" report --html -o "$T/x.html" -i "$T/bad.folded" >/dev/null 2>"$T/err"
rc=$?
expect "folded file without a stack: exit 1" test $rc = 1
expect "... one line naming the file" bash -c '[ "$(grep -c . "$1")" = 1 ] && grep -q "bad.folded" "$1"' - "$T/err"
expect "... neither kind, the line said" grep -q 'bad.folded: neither a perf.data file .* nor folded stacks (line 1: expected' "$T/err"
expect "... no output file" test ! -e "$T/x.html"
: >"$T/empty.data"
"$PERFKIT" report --html -o "$T/x.html" -i "$T/empty.data" >/dev/null 2>"$T/err"
expect "an empty file: exit 1, said empty" bash -c '[ $1 = 1 ] && grep -q "empty.data: .*(empty)" "$2"' - $? "$T/err"
"$PERFKIT" report --html -o "$T/x.html" -i "$T/nonexistent.data" >/dev/null 2>"$T/err"
expect "a missing input: exit 1, no output file" bash -c '[ $1 = 1 ] && [ ! -e "$2" ]' - $? "$T/x.html"
# a page that cannot be written: said before the input is read, so the
# input's warnings (a line without a count) do not follow it
printf 'a;b 10\nno count here\na;c 5\n' >"$T/warn.folded"
"$PERFKIT" report --html -o "$T/nodir/x.html" -i "$T/warn.folded" >/dev/null 2>"$T/err"
expect "an unwritable page: exit 1" test $? = 1
expect "... one line, naming it" bash -c '[ "$(wc -l <"$1")" = 1 ] && grep -q "cannot write .*nodir/x.html" "$1"' - "$T/err"

# perf.data input: recorded here
perf_ok=
if can_perf_event && [ -x "$PK_BUILD/examples/matmul" ]; then
	if "$PERFKIT" record -g -F 999 -o "$T/p.data" -- "$PK_BUILD/examples/matmul" >/dev/null 2>&1; then
		"$PERFKIT" report --stdio --sort dso,sym -g none -i "$T/p.data" >"$T/rep.txt" 2>/dev/null
		"$PERFKIT" annotate --stdio -i "$T/p.data" naive >"$T/ann.txt" 2>/dev/null
		"$PERFKIT" report --html -o "$T/p.html" -i "$T/p.data" 2>"$T/err"
		static "$T/p.html" "perf.data page"
		expect "perf.data page: the hottest function annotated" grep -q '"insns":\[\["' "$T/p.html"
		expect "perf.data page: its loops' jumps back marked, as annotate --stdio" grep -q '# loop back"' "$T/p.html"
		perf_ok=1
		if "$PERFKIT" record -e cpu-clock,task-clock -g -F 499 -o "$T/e.data" -- "$PK_BUILD/examples/matmul" >/dev/null 2>&1; then
			"$PERFKIT" report --stdio --sort dso,sym -g none -i "$T/e.data" >"$T/erep.txt" 2>/dev/null
			"$PERFKIT" report --html -o "$T/e.html" -i "$T/e.data"
			expect "two events: a profile each in the page" test "$(grep -o '"event":"[a-z-]*"' "$T/e.html" | wc -l)" = 2
			perf_ok=2
			"$PERFKIT" report --html --diff -o "$T/pd.html" "$T/p.data" "$T/e.data" 2>/dev/null
			static "$T/pd.html" "diff of two perf.data"
			expect "diff of two perf.data: OLD's and NEW's first events" \
				test "$(grep -o '"input":"[^"]*","event":"cpu-clock"' "$T/pd.html" | tr '\n' ' ')" = \
				"\"input\":\"$T/p.data\",\"event\":\"cpu-clock\" \"input\":\"$T/e.data\",\"event\":\"cpu-clock\" "
		else
			not_ok "perfkit record -e cpu-clock,task-clock of examples/matmul"
		fi
	else
		not_ok "perfkit record of examples/matmul"
	fi
else
	skip "perf events not allowed here, or no examples/matmul (the perf.data page)"
fi

# the browser
if ! have node; then
	skip "node is not installed (scripts/install-deps): the browser checks"
	done_testing; exit
fi
if [ ! -x "$CHROMIUM" ]; then
	skip "chromium is not installed at $CHROMIUM (scripts/install-deps): the browser checks"
	done_testing; exit
fi
if [ ! -f "$B/node_modules/playwright-core/package.json" ]; then
	skip "playwright-core is missing from tests/browser/node_modules (scripts/install-deps): the browser checks"
	done_testing; exit
fi

# browse WHAT MINCHECKS ARGS...: run the node script, number its lines
browse() {
	local what=$1 min=$2 rc nchecks=0 line
	shift 2
	mkdir -p "$T/tmp"
	(cd "$B" && TMPDIR=$T/tmp CHROMIUM=$CHROMIUM timeout 120 node report-html.test.js "$@") >"$T/out" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok - "*)     ok "$what: ${line#ok - }"; nchecks=$((nchecks + 1)) ;;
		"not ok - "*) not_ok "$what: ${line#not ok - }"; nchecks=$((nchecks + 1)) ;;
		"#"*)         echo "$line" ;;
		*)            diag "$line" ;;
		esac
	done <"$T/out"
	if [ "$rc" -eq 0 ] && [ "$nchecks" -ge "$min" ]; then
		ok "$what: the browser test ran all its checks ($nchecks)"
	else
		not_ok "$what: the browser test ran all its checks ($nchecks, exit status $rc)"
	fi
}
browse folded 50 folded "$T/f.html" "$B/report.folded"
awk 'BEGIN { for (i = 1; i <= 600; i++) printf "main;f%d;g%d %d\n", i, i % 7, i }' >"$T/many.folded"
"$PERFKIT" report --html -o "$T/many.html" -i "$T/many.folded"
browse "600 functions" 4 many "$T/many.html" "$T/many.folded"
# report's --no-children, --sort and --percent-limit: the table's first
# order and the functions left out
"$PERFKIT" report --html -o "$T/lim.html" -i "$B/report.folded" --no-children --sort sym --percent-limit 10 2>"$T/err"
expect "--sort sym --percent-limit 10 --no-children: in the page's data" \
	grep -q '"sort":\["name"\],"limit":10,"children":false,' "$T/lim.html"
"$PERFKIT" report --html -o "$T/x.html" -i "$B/report.folded" --sort comm,sym 2>"$T/err"
expect "--sort comm: a warning that the table has no comm" grep -q "sort key 'comm' left out" "$T/err"
browse "--percent-limit" 4 limit "$T/lim.html" "$B/report.folded" 10
browse diff 18 diff "$T/d.html" "$B/report.folded" "$B/report-new.folded"
(cd "$B" && node report-html.test.js mkhostile "$T/hh.folded")
if "$PERFKIT" report --html -o "$T/hh.html" -i "$T/hh.folded"; then
	static "$T/hh.html" "hostile page (100 kB name)"
	browse hostile 20 hostile "$T/hh.html"
else
	not_ok "hostile page (100 kB name): written"
fi
if [ -n "$perf_ok" ]; then
	browse perf.data 8 perf "$T/p.html" "$T/rep.txt" "$T/ann.txt"
	[ "$perf_ok" = 2 ] && browse "two events" 8 events "$T/e.html" "$T/erep.txt"
fi

done_testing
