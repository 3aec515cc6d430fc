#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit annotate of examples/matmul naive, recorded by perfkit and by
# perf record (cpu-clock): the hottest instruction and the hottest source
# line are perf annotate --stdio's on the same file, and every instruction
# at >= 1 % is within 0.5 point of perf's share.  Then the layout: source
# lines between instructions, jump targets, the loop summary, --source.
# check: fresh-recording (perf compared on recordings made here: scripts/e2e-run)
. "$(dirname "$0")/lib.sh"

MATMUL=$PK_BUILD/examples/matmul
SYM=naive
if ! can_perf_event; then
	skip "perf events not permitted here"
	# perfkit report --stdio on a terminal (else a browser) ends with a hint naming annotate and the hot function
"$PERFKIT" report -i "$T/pk.data" >"$T/rep" 2>/dev/null
expect "report to a file: no hint" [ "$(grep -c 'hint:' "$T/rep")" = 0 ]
if have script; then
	script -qec "'$PERFKIT' report --stdio -i '$T/pk.data'" /dev/null >"$T/rep-tty" 2>/dev/null
	expect "report on a terminal: one hint line naming 'perfkit annotate -i FILE $SYM'" \
		[ "$(grep -c "^# hint: \`perfkit annotate -i $T/pk.data $SYM\`" "$T/rep-tty")" = 1 ]
else
	skip "no script(1) to give report a terminal"
fi
done_testing
	exit
fi

# addr pct, for the instruction rows of an annotate --stdio listing (perf's
# "  95.52 :   146c:   cmp" and perfkit's "   95.52 :	  146c: > cmpq")
rows() { sed -n 's/^ *\([0-9][0-9.]*\) :[[:space:]]*\([0-9a-f][0-9a-f]*\):.*/\2 \1/p' "$1"; }
hottest() { sort -k2,2gr -k1,1 "$1" | head -1 | cut -d' ' -f1; }

# the two recordings at once (samples of each process's own CPU time: the
# other one running beside it does not move them)
"$PERFKIT" record -o "$T/pk.data" -- "$MATMUL" $SYM 12 >/dev/null 2>"$T/rec.err" &
pkrec=$!
files=(pk.data)
if have perf; then
	perf record -q -e cpu-clock -F 2000 -o "$T/perf.data" -- "$MATMUL" $SYM 12 >/dev/null 2>&1 &&
		files+=(perf.data)
fi
wait $pkrec || not_ok "perfkit record matmul $SYM"

for f in "${files[@]}"; do
	"$PERFKIT" annotate -i "$T/$f" $SYM --stdio >"$T/$f.pk" 2>"$T/$f.pk.err"
	expect "$f: annotate $SYM exits 0" [ $? -eq 0 ]
	rows "$T/$f.pk" >"$T/$f.pkrows"
	expect "$f: instruction rows" [ -s "$T/$f.pkrows" ]
	if ! have perf || ! have objdump; then
		skip "$f: perf or objdump missing: no comparison with perf annotate"
		continue
	fi
	perf annotate --stdio -i "$T/$f" $SYM >"$T/$f.perf" 2>/dev/null
	rows "$T/$f.perf" >"$T/$f.perfrows"
	if [ ! -s "$T/$f.perfrows" ]; then
		skip "$f: perf annotate printed no rows for $SYM"
		continue
	fi
	a=$(hottest "$T/$f.perfrows"); b=$(hottest "$T/$f.pkrows")
	expect "$f: hottest instruction $b = perf annotate's $a" [ "$a" = "$b" ]
	# every instruction at >= 1 % (in either) within 0.5 point
	bad=$(awk 'NR == FNR { p[$1] = $2; next } { k[$1] = $2 }
		END { for (a in p) if ((p[a] >= 1 || k[a] >= 1) && (p[a] - k[a] > 0.5 || k[a] - p[a] > 0.5))
			printf "%s perf %s perfkit %s; ", a, p[a], k[a] + 0 }' "$T/$f.perfrows" "$T/$f.pkrows")
	if [ -z "$bad" ]; then ok "$f: every instruction >= 1 % within 0.5 point of perf's"
	else not_ok "$f: instructions off perf's share: $bad"; fi
	# hottest source line: perf annotate -l's sorted summary, perfkit --source
	want=$(perf annotate --stdio -l -i "$T/$f" $SYM 2>/dev/null |
		sed -n 's/^ *[0-9][0-9.]* *\([^ ]*:[0-9][0-9]*\)$/\1/p' | head -1)
	"$PERFKIT" annotate -i "$T/$f" $SYM --source >"$T/$f.src"
	file=$(sed -n 's/^-- file: //p' "$T/$f.src" | head -1)
	got=$(awk '/^-- inlined/ { exit } /^ *[0-9][0-9.]* +[0-9]+  / { if ($1 + 0 > best) { best = $1 + 0; l = $2 } }
		END { print l }' "$T/$f.src")
	expect "$f: hottest source line ${file##*/}:$got = perf annotate -l's $want" \
		[ "${file##*/}:$got" = "$want" ]
done

# the layout, on perfkit's file
L=$T/pk.data.pk
expect "header names the symbol, its share and DSO" \
	grep -q "^ *:[[:space:]]*$SYM  [0-9.]*% of all samples  (.*matmul)" "$L"
expect "source lines between instructions (matmul.c:N and its text)" \
	grep -q '^ *:	matmul\.c:[0-9]*   [^ ]' "$L"
expect "a jump target is marked '>'" grep -q '^ *[0-9.]* :	 *[0-9a-f]*: > ' "$L"
expect "a backward jump is marked as a loop" grep -q "<$SYM+0x[0-9a-f]*>  # loop back" "$L"
# the hottest loop (innermost first on ties) holds the hottest instruction
loop=$(sed -n '/^ Loops/{n;p;}' "$L")
from=$(echo "$loop" | awk '{ split($2, r, /\.\./); print r[1] }')
to=$(echo "$loop" | awk '{ split($2, r, /\.\./); print r[2] }')
hot=$(hottest "$T/pk.data.pkrows")
expect "hottest loop $from..$to holds the hottest instruction $hot" \
	[ $((16#$hot)) -ge $((16#${from:-0})) -a $((16#$hot)) -le $((16#${to:-0})) ]
# FIRST..LAST: the range ends at the loop's jump back (inclusive), not past it
expect "the loop $from..$to ends at its jump back" grep -Eq "^ *[0-9.]* :	 *${to:-none}: .*# loop back" "$L"
# the loop summary's order is its header's: a loop nested in another comes first
expect "loop summary header: innermost first where they nest" \
	grep -q '^ Loops (.*), innermost first where they nest, else hottest first:' "$L"
bad=$(sed -n '/^ Loops/,/^$/p' "$L" | sed -n 's/^ *[0-9.]*%  \([0-9a-f]*\)\.\.\([0-9a-f]*\).*/\1 \2/p' |
	while read -r a b; do echo $((16#$a)) $((16#$b)); done |
	awk '{ f[NR] = $1; t[NR] = $2 }
	END { for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++)
		if (f[j] >= f[i] && t[j] <= t[i] && t[j] - f[j] < t[i] - f[i]) printf "%d before its inner %d; ", i, j }')
nloops=$(sed -n '/^ Loops/,/^$/p' "$L" | grep -c '%  ')
expect "no loop listed before a loop nested in it (of $nloops) ${bad:+($bad)}" [ -z "$bad" -a "$nloops" -ge 1 ]
# the percentages of a function add up to 100
sum=$(awk '{ s += $2 } END { printf "%.0f", s }' "$T/pk.data.pkrows")
expect "local period shares add up to 100 (got $sum)" [ "$sum" = 100 ]
# --percent-type global-period: scaled by the function's share of all samples
share=$(sed -n "s/^ *:[[:space:]]*$SYM  \([0-9.]*\)% of all.*/\1/p" "$L" | head -1)
"$PERFKIT" annotate -i "$T/pk.data" $SYM --percent-type global-period >"$T/g"
rows "$T/g" >"$T/grows"
gsum=$(awk '{ s += $2 } END { printf "%.0f", s }' "$T/grows")
expect "global-period shares add up to the function's share ($gsum ~ $share)" \
	awk -v a="$gsum" -v b="$share" 'BEGIN { exit !(b != "" && a - b < 1 && b - a < 1) }'
expect "header says the percent type" grep -q 'percent: global period)' "$T/g"
"$PERFKIT" annotate -i "$T/pk.data" $SYM --percent-type local-hits >"$T/h" &&
	grep -q 'percent: local hits)' "$T/h"; expect "local-hits accepted" [ $? -eq 0 ]
"$PERFKIT" annotate -i "$T/pk.data" $SYM --percent-type bogus >/dev/null 2>"$T/e"
expect "bad --percent-type: exit 2" [ $? -eq 2 ]
# --no-source: instructions only
"$PERFKIT" annotate -i "$T/pk.data" $SYM --no-source >"$T/ns"
expect "--no-source: no source rows" [ "$(grep -c '^ *:	matmul\.c:' "$T/ns")" = 0 ]
expect "--no-source: the same instruction rows" [ "$(rows "$T/ns" | wc -l)" = "$(wc -l <"$T/pk.data.pkrows")" ]
# no SYMBOL: every function with samples, hottest first (naive first)
"$PERFKIT" annotate -i "$T/pk.data" >"$T/all" 2>/dev/null
first=$(sed -n 's/^ *:[[:space:]]*\([^ ]*\)  [0-9.]*% of all samples.*/\1/p' "$T/all" | head -1)
expect "no SYMBOL: the hottest function ($first) first" [ "$first" = "$SYM" ]
# --comm / --dso filters
"$PERFKIT" annotate -i "$T/pk.data" --comm nosuchcomm >/dev/null 2>"$T/e"
expect "--comm with no samples: exit 1" [ $? -eq 1 ]
expect "--comm with no samples: one line" [ "$(wc -l <"$T/e")" = 1 ]
"$PERFKIT" annotate -i "$T/pk.data" --dso matmul --min-percent 5 >"$T/d" 2>/dev/null
expect "--dso matmul --min-percent 5: only matmul's hot function" \
	[ "$(grep -c 'Source code & Disassembly of matmul' "$T/d")" = 1 ]
# capstone is loaded by the first decoder, not at every start (8 ms of
# CPU a process): annotate decodes (above), a command that does not
# never maps it
LD_DEBUG=files "$PERFKIT" --version >/dev/null 2>"$T/ldv"
expect "perfkit --version does not load libcapstone" sh -c "! grep -q capstone '$T/ldv' && grep -q 'file=' '$T/ldv'"
LD_DEBUG=files "$PERFKIT" annotate -i "$T/pk.data" $SYM >/dev/null 2>"$T/lda"
expect "annotate loads it when it decodes" grep -q 'file=libcapstone' "$T/lda"
# -i defaults to ./perf.data
(cd "$T" && cp pk.data perf.data && "$PERFKIT" annotate $SYM >"$T/def" 2>/dev/null)
expect "no -i: ./perf.data" grep -q "<$SYM>:" "$T/def"
# perfkit report --stdio on a terminal (else a browser) ends with a hint naming annotate and the hot function
"$PERFKIT" report -i "$T/pk.data" >"$T/rep" 2>/dev/null
expect "report to a file: no hint" [ "$(grep -c 'hint:' "$T/rep")" = 0 ]
if have script; then
	script -qec "'$PERFKIT' report --stdio -i '$T/pk.data'" /dev/null >"$T/rep-tty" 2>/dev/null
	expect "report on a terminal: one hint line naming 'perfkit annotate -i FILE $SYM'" \
		[ "$(grep -c "^# hint: \`perfkit annotate -i $T/pk.data $SYM\`" "$T/rep-tty")" = 1 ]
else
	skip "no script(1) to give report a terminal"
fi
done_testing
