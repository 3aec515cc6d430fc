#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit annotate's command line: --help describes both modes' options
# (stdout, exit 0); --asm with --source is a usage error naming both; a
# positional is the input FILE only when it is a perf.data or Cachegrind
# output (by content), else a SYMBOL; -i of plain text is one line; a
# SYMBOL whose binary is gone says the binary is missing.
. "$(dirname "$0")/lib.sh"

W=$PK_BUILD/tests/workloads
"$PERFKIT" annotate --help >"$T/h" 2>"$T/h.err"
expect "--help: exit 0, on stdout" [ $? -eq 0 -a -s "$T/h" -a ! -s "$T/h.err" ]
for o in '-i, --input FILE' 'SYMBOL' --stdio --asm --source --no-source --percent-type --dso --comm \
	--min-percent --cache --show= --sort= --threshold= --auto= --context= '--folded EVENT'; do
	expect "--help describes $o" grep -Eq -- "^ +(-., )?$o" "$T/h"
done
"$PERFKIT" annotate --asm --source >/dev/null 2>"$T/e"
expect "--asm --source: exit 2" [ $? -eq 2 ]
expect "… naming both" grep -q -- '--asm and --source' "$T/e"

printf 'desc: I1 cache: 1\ncmd: x\nevents: Ir D1mr\nfl=/a.c\nfn=f\n1 5 1\n2 3 0\nsummary: 8 1\n' >"$T/ok.cg"
echo 'just text' >"$T/in.txt"
"$PERFKIT" annotate -i "$T/in.txt" >"$T/o" 2>"$T/e"
expect "-i plain text: exit 1" [ $? -eq 1 ]
expect "… one line: neither a perf.data file nor Cachegrind output" \
	[ "$(wc -l <"$T/e")" = 1 -a "$(grep -c 'in.txt: neither a perf.data file nor Cachegrind output$' "$T/e")" = 1 ]
cp "$T/ok.cg" "$T/ok.cg.renamed"
"$PERFKIT" annotate "$T/ok.cg.renamed" --auto=no >"$T/o" 2>/dev/null
expect "a Cachegrind file named anyhow is read by content" grep -q 'PROGRAM TOTALS' "$T/o"

if ! can_perf_event; then
	skip "perf events not permitted here"
	done_testing
	exit
fi
"$PERFKIT" record -o "$T/perf.data" -- "$W/calltree" 200 >/dev/null 2>&1 || not_ok "record calltree"
# a file in the cwd named like the symbol: the SYMBOL (perf annotate's rule)
(cd "$T" && printf 'x\0y' >c && "$PERFKIT" annotate c --no-source >"$T/o" 2>"$T/e")
expect "'annotate c' with a file 'c' here: function c annotated" grep -q '^ *:	[0-9a-f]* <c>:' "$T/o"
expect "… no complaint about the file" [ ! -s "$T/e" ]
# a symbol named twice: annotated once, no "no samples" for the second
"$PERFKIT" annotate -i "$T/perf.data" --stdio --no-source c c >"$T/o" 2>"$T/e"; rc=$?
expect "SYMBOL twice: exit 0, no error" [ $rc -eq 0 -a ! -s "$T/e" ]
expect "… annotated once" [ "$(grep -c '^ *:	[0-9a-f]* <c>:' "$T/o")" = 1 ]
(cd "$T" && "$PERFKIT" annotate nope.cg >/dev/null 2>"$T/e"); rc=$?
expect "a missing nope.cg with ./perf.data: exit 1" [ $rc -eq 1 ]
expect "… one line saying there is no such file" \
	[ "$(wc -l <"$T/e")" = 1 -a "$(grep -c 'as a file, nope.cg does not exist' "$T/e")" = 1 ]
mkdir "$T/empty"
(cd "$T/empty" && "$PERFKIT" annotate nope.cg >/dev/null 2>"$T/e"); rc=$?
expect "a missing nope.cg, no ./perf.data: exit 1, one line" [ $rc -eq 1 -a "$(wc -l <"$T/e")" = 1 ]
expect "… no such file" grep -q 'nope.cg does not exist, and there is no ./perf.data' "$T/e"
# a symbol whose binary is gone since the recording (HOME=$T: no ~/.debug copy)
cp "$W/calltree" "$T/ct-gone"
HOME=$T "$PERFKIT" record -o "$T/gone.data" -- "$T/ct-gone" 200 >/dev/null 2>&1
rm -f "$T/ct-gone"
HOME=$T "$PERFKIT" annotate -i "$T/gone.data" c >/dev/null 2>"$T/e"; rc=$?
expect "SYMBOL in a deleted binary: exit 1" [ $rc -eq 1 ]
expect "… one line saying the binary is missing, not 'no samples'" \
	[ "$(wc -l <"$T/e")" = 1 -a "$(grep -c 'ct-gone, which has samples, is missing' "$T/e")" = 1 ]
# report's hint (on a terminal): the hottest row that annotate can read, the
# -i path shell-quoted.  A loop on clock_gettime spends its time in [vdso]
# (no file to disassemble): the hint names another function.
if have script && have cc; then
	mkdir "$T/sp ace"
	printf '#include <time.h>\nint main(void) { struct timespec t, s; clock_gettime(CLOCK_MONOTONIC, &s);\n do clock_gettime(CLOCK_MONOTONIC, &t); while ((t.tv_sec - s.tv_sec) * 1000000000L + (t.tv_nsec - s.tv_nsec) < 200000000L); return 0; }\n' >"$T/vd.c"
	cc -O1 -o "$T/vd" "$T/vd.c"
	"$PERFKIT" record -o "$T/sp ace/vd.data" -- "$T/vd" >/dev/null 2>&1 || not_ok "record vd"
	script -qec "'$PERFKIT' report --stdio -i '$T/sp ace/vd.data'" /dev/null >"$T/rep" 2>/dev/null
	diag "$(grep -m3 '%' "$T/rep")"
	expect "hint: the path quoted" grep -q "^# hint: \`perfkit annotate -i '$T/sp ace/vd.data' [^ ]*\`" "$T/rep"
	# the function it names disassembles ([vdso]'s too, from its image)
	fn=$(sed -n "s/^# hint: \`perfkit annotate -i '.*' \([^ ]*\)\`.*/\1/p" "$T/rep" | head -1)
	"$PERFKIT" annotate --stdio -i "$T/sp ace/vd.data" "$fn" >"$T/ann" 2>"$T/ann.err"
	expect "… naming a function annotate can read ($fn): its instructions, no 'addresses only'" \
		sh -c "test -n '$fn' && grep -q '<$fn>:' '$T/ann' && ! grep -q 'addresses only' '$T/ann.err'"
else
	skip "no script(1) or cc"
fi
done_testing
