#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit bench options: exports, parameter scans, names, prepare/cleanup,
# warmup, one run (no σ, no NaN), default run count, --counters, errors.
. "$(dirname "$0")/lib.sh"

"$PERFKIT" bench -N -r 1 --export-json "$T/one.json" --export-csv "$T/one.csv" --export-markdown "$T/one.md" 'sleep 0.01' >"$T/one" 2>&1
expect "one run: abs ≡ line, no σ" grep -q 'Time (abs ≡)' "$T/one"
expect_fail "one run: no NaN or inf anywhere" grep -Eqi 'nan|inf' "$T/one" "$T/one.json" "$T/one.csv" "$T/one.md"
expect "one run: JSON stddev is null" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["stddev"] is None and r["mean"] > 0.009, r' "$T/one.json"
expect "CSV header as hyperfine's, then ours" grep -q '^command,mean,stddev,median,user,system,min,max,runs,failed_runs,metric,cpu,cpu_stddev,instructions,instructions_stddev,max_rss,max_rss_stddev,order,reference,ratio,ratio_stddev,ratio_ci_lo,ratio_ci_hi,welch_p,mann_whitney_p,verdict,cpu_ratio,.*,max_rss_verdict$' "$T/one.csv"
expect "CSV row: the metric, the CPU time, no instructions" grep -Eq '^sleep 0.01,([0-9.e-]+,){7}1,0,wall,[0-9.e-]+,[0-9.e-]+,,,[0-9]+,0,sequential,sleep 0.01,,,,,,,reference,' "$T/one.csv"
expect "markdown table: hyperfine's five columns first, in its places, ours after" \
	grep -q '^| `sleep 0.01` | [0-9.]* | [0-9.]* | [0-9.]* | 1.00 | [0-9.]* | [0-9.]* |$' "$T/one.md"
expect "markdown: hyperfine's column names (Mean [ms], Min [ms], Max [ms], Relative), then ours" \
	grep -q '^| Command | Mean \[ms\] | Min \[ms\] | Max \[ms\] | Relative | User+Sys \[ms\] | Max RSS \[MiB\] |$' "$T/one.md"
"$PERFKIT" bench -N -r 1 --metric cpu --export-markdown "$T/cpu.md" 'sleep 0.01' >/dev/null 2>&1
expect "markdown, --metric cpu: the Relative column names it" grep -q '| Max \[ms\] | Relative (CPU) | User+Sys' "$T/cpu.md"

out=$("$PERFKIT" bench -N -r 1 --export-markdown /dev/stdout 'sleep 0.01' 2>/dev/null)
expect "--export-markdown /dev/stdout prints the table" grep -q '^| Command | Mean' <<<"$out"
expect "--export-markdown /dev/stdout leaves the device link alone" test -L /dev/stdout -o -c /dev/stdout

"$PERFKIT" bench -N -r 2 -P n 1 3 -n 'sleep {n}0ms' --export-json "$T/p.json" 'sleep 0.0{n}' >"$T/p" 2>&1
expect "-P scans 1..3" test "$(grep -c '^Benchmark [123]: sleep [123]0ms' "$T/p")" -eq 3
expect "-P: parameters in the JSON" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert [x["parameters"]["n"] for x in r] == ["1", "2", "3"], r
assert [x["command"] for x in r] == ["sleep 10ms", "sleep 20ms", "sleep 30ms"]' "$T/p.json"
"$PERFKIT" bench -N -r 2 -L t 0.01,0.02 'sleep {t}' >"$T/l" 2>&1
expect "-L lists values" grep -q '^Benchmark 2: sleep 0.02' "$T/l"

"$PERFKIT" bench -r 3 -w 2 -p "echo p >>$T/prep" -c "echo c >>$T/clean" true >/dev/null 2>&1
expect "--prepare before each warmup and timed run (5)" test "$(wc -l <"$T/prep")" -eq 5
expect "--cleanup once per command" test "$(wc -l <"$T/clean")" -eq 1

out=$("$PERFKIT" bench -r 1 --show-output 'echo shown-output' 2>/dev/null)
expect "--show-output keeps the command's output" grep -q shown-output <<<"$out"
out=$("$PERFKIT" bench -r 1 -n quiet 'echo hidden-output' 2>/dev/null)
expect_fail "output discarded by default" grep -q hidden-output <<<"$out"
"$PERFKIT" bench -N -r 2 --time-unit second 'sleep 0.01' >"$T/s" 2>&1
# (0.010 s or a little more when idle; a loaded machine starts sleep late,
# but never makes it shorter than 10 ms)
expect "--time-unit second: three decimals, as hyperfine (0.010 s or more)" \
	awk '/Time \(mean ± σ\):/ { f = $5 ~ /^[0-9]+\.[0-9][0-9][0-9]$/ && $5 + 0 >= 0.010 && $6 == "s" } END { exit !f }' "$T/s"

# several -L: every combination, the first parameter varying fastest (as
# hyperfine), each value substituted, a parameter_NAME CSV column each
"$PERFKIT" bench -N -r 1 -L x 1,2 -L y a,b --export-csv "$T/l.csv" --export-json "$T/l.json" 'echo {x}{y}' >"$T/l" 2>&1
expect "-L twice: 4 benchmarks in hyperfine's order" \
	test "$(sed -n 's/^Benchmark [0-9]*: //p' "$T/l" | tr '\n' ' ')" = "echo 1a echo 2a echo 1b echo 2b "
expect "... CSV columns parameter_x, parameter_y" grep -q '^command,mean,stddev,median,user,system,min,max,parameter_x,parameter_y,' "$T/l.csv"
expect "... CSV row of echo 2b" grep -q '^echo 2b,.*,2,b,1,0,wall,[0-9.e-]*,0,,,[0-9]*,0,interleaved,' "$T/l.csv"
expect "... JSON parameters" grep -q '"parameters": {"x": "2", "y": "b"}' "$T/l.json"
"$PERFKIT" bench -N -r 1 -L x 1 -L x 2 'echo {x}' >/dev/null 2>"$T/le"
expect "-L with the same name twice: usage error" test $? = 2

# a command under 5 ms through the shell: a warning that names -N; none with -N
# (true's time less the shell's start-up is ~0 ms; on a loaded machine the
# start-ups jitter by more than 5 ms and runs clamped at 0 lift the mean:
# up to 3 tries, and a miss with a σ over 2 ms is a skip, with the figures)
for try in 1 2 3; do
	"$PERFKIT" bench -r 10 true >"$T/short" 2>&1
	grep -q 'less than 5 ms' "$T/short" && break
done
sigma=$(awk '/Time \(mean ± σ\):/ { for (i = 1; i <= NF; i++) if ($i == "±") { print $(i + 1), $(i + 2); exit } }' "$T/short")
if grep -q 'less than 5 ms' "$T/short"; then
	ok "under 5 ms with a shell: a warning"
	expect "... naming -N" grep -q -- '-N (--shell=none)' "$T/short"
elif awk -v s="$sigma" 'BEGIN { split(s, a, " "); exit !(a[2] == "ms" && a[1] > 2 || a[2] == "s") }'; then
	skip "under 5 ms with a shell: no warning, but the machine is too noisy (σ $sigma): $(grep 'Time (mean' "$T/short" | tr -s ' ')"
else
	not_ok "under 5 ms with a shell: a warning (σ $sigma)"; sed 's/^/# /' "$T/short" | head -8
fi
"$PERFKIT" bench -N -M 12 true >"$T/d" 2>&1
expect_fail "... and none with -N" grep -q 'less than 5 ms' "$T/d"
runs=$(sed -n 's/.* \([0-9]*\) runs$/\1/p' "$T/d")
expect "no --runs: at least 10, at most --max-runs ($runs)" test "$runs" -ge 10 -a "$runs" -le 12

if can_perf_event; then
	"$PERFKIT" bench -N -r 3 --counters --export-json "$T/c.json" 'sleep 0.01' 'sleep 0.02' >"$T/c" 2>&1
	expect "--counters shows counter means" grep -Eq 'Counters \(mean\): +task-clock [0-9]+;.* page-faults [0-9]+;' "$T/c"
	expect "--counters compares counters between commands" grep -Eq '^ +page-faults +[0-9.]+× \(' "$T/c"
	expect "--counters in the JSON export" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert r[0]["counters"]["page-faults"] > 0, r' "$T/c.json"
else
	skip "--counters: perf events not permitted here"
fi

# a mean of zero: a "shell" whose start-up (sh -c '') is slower than the
# commands, so every run is 0 after the start-up is subtracted (100 ms: more
# than a loaded machine's delay in starting a command)
printf '#!/bin/sh\n[ -z "$2" ] && sleep 0.1\nexit 0\n' >"$T/fakesh"; chmod +x "$T/fakesh"
"$PERFKIT" bench -S "$T/fakesh" -r 3 --export-json "$T/z.json" --export-csv "$T/z.csv" \
	--export-markdown "$T/z.md" 'a' 'b' >"$T/z" 2>&1; rc=$?
expect "zero means: exit 0 and the exports written" test $rc -eq 0 -a -s "$T/z.json" -a -s "$T/z.csv" -a -s "$T/z.md"
expect "zero means: relative comparison unavailable" grep -q 'relative comparison .* unavailable' "$T/z"
expect_fail "zero means: no NaN or inf" grep -Eqi 'nan|inf' "$T/z" "$T/z.json" "$T/z.csv" "$T/z.md"
expect "zero means: JSON parses, markdown says n/a" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert r[0]["mean"] == 0 and r[1]["mean"] == 0, r
assert "n/a" in open(sys.argv[2]).read()' "$T/z.json" "$T/z.md"

if have script; then
	script -qc "'$PERFKIT' bench -N -r 3 'sleep 0.02' >/dev/null" /dev/null >"$T/tty" 2>&1
	expect "a progress bar with ETA on a terminal" grep -q 'Performing runs.*ETA' "$T/tty"
else
	skip "no script(1) to fake a terminal"
fi

"$PERFKIT" bench -r 0 true 2>/dev/null; rc=$?
expect "-r 0 is a usage error (2)" test $rc -eq 2
"$PERFKIT" bench 2>/dev/null; rc=$?
expect "no command is a usage error (2)" test $rc -eq 2
"$PERFKIT" bench -r 1 --export-json /nonexistent/dir/x.json true >/dev/null 2>"$T/e"; rc=$?
expect "unwritable export: exit 1, path named" test $rc -eq 1 -a -n "$(grep /nonexistent/dir/x.json "$T/e")"
# contradictory run limits and an unwritable export are refused before any run
"$PERFKIT" bench -N -m 5 -M 2 "touch $T/ran-m" >/dev/null 2>"$T/mm.err"
expect "-m 5 -M 2: usage error (2)" test $? = 2
expect "-m 5 -M 2: nothing ran" test ! -e "$T/ran-m"
"$PERFKIT" bench -N -r 2 --export-json "$T/nodir/x.json" "touch $T/ran-x" >/dev/null 2>"$T/x.err"
expect "unwritable --export-json: exit 1" test $? = 1
expect "unwritable --export-json: nothing ran" test ! -e "$T/ran-x"
expect "unwritable --export-json: the message names it" grep -q "nodir/x.json" "$T/x.err"
# hyperfine's refusals: an empty command, more names than commands,
# --runs with --min-runs or --max-runs; an unknown option in two lines
"$PERFKIT" bench '' >/dev/null 2>"$T/empty.err"; rc=$?
expect "an empty command: usage error (2), named ($rc)" sh -c "[ $rc = 2 ] && grep -q 'command 1 is empty' '$T/empty.err'"
"$PERFKIT" bench -r 1 -n A -n B -n C "touch $T/ran-n" true >/dev/null 2>"$T/n.err"; rc=$?
expect "three names for two commands: usage error (2), nothing ran ($rc)" \
	sh -c "[ $rc = 2 ] && grep -q 'too many --command-name' '$T/n.err' && [ ! -e '$T/ran-n' ]"
"$PERFKIT" bench --runs 2 --min-runs 30 true >/dev/null 2>"$T/rm.err"; rc=$?
expect "--runs with --min-runs: usage error (2) ($rc)" sh -c "[ $rc = 2 ] && grep -q 'cannot be used with --min-runs' '$T/rm.err'"
"$PERFKIT" bench -r 2 -M 3 true >/dev/null 2>&1
expect "--runs with --max-runs: usage error (2)" test $? = 2
"$PERFKIT" bench --bogus true >/dev/null 2>"$T/bogus.err"; rc=$?
expect "an unknown option: exit 2, two lines (the option, where the usage is)" \
	sh -c "[ $rc = 2 ] && [ \$(wc -l <'$T/bogus.err') = 2 ] && grep -q -- '--bogus' '$T/bogus.err'"
# Markdown: a label holding backticks in a longer fence (a backslash
# escapes nothing in a code span); | backslashed for the table
"$PERFKIT" bench -N -r 1 -n 'a`b``c|d' -n '`x' --export-markdown "$T/bt.md" true true >/dev/null 2>&1
expect "markdown: backticks inside a longer fence" grep -qF '| ```a`b``c\|d``` |' "$T/bt.md"
expect "markdown: a label starting with a backtick padded inside its fence" grep -qF '| `` `x `` |' "$T/bt.md"
# the JSON's per-run arrays aligned with times and exit_codes, failed runs too
"$PERFKIT" bench -N -i -r 4 --export-json "$T/al.json" "sh -c 'test -e $T/flip && exit 3; touch $T/flip'" >/dev/null 2>&1
expect "JSON with -i: cpu_times and max_rss_values as long as times and exit_codes" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
n = len(r["times"])
assert n == 4 and len(r["exit_codes"]) == n, r
assert len(r["cpu_times"]) == n and len(r["max_rss_values"]) == n, r
assert 3 in r["exit_codes"] and 0 in r["exit_codes"], r["exit_codes"]
' "$T/al.json"
# a command name with a newline stays on one Markdown table row
"$PERFKIT" bench -N -r 1 -n $'two\nlines' --export-markdown "$T/nl.md" true >/dev/null 2>&1
expect "markdown: a name with a newline keeps its row on one line" \
	sh -c "test \$(grep -c . '$T/nl.md') = 3 && ! grep -v '^|' '$T/nl.md' | grep -q ."
# a parameter's value fills in --prepare and --cleanup too, as hyperfine
"$PERFKIT" bench -r 1 -w 0 --no-interleave -L x a,b -p "echo p{x} >>'$T/plog'" -c "echo c{x} >>'$T/plog'" \
	"echo r{x} >>'$T/plog'" >/dev/null 2>&1
got=$(tr '\n' ' ' <"$T/plog")
expect "-L: {x} filled in --prepare and --cleanup ($got)" test "$got" = "pa ra ca pb rb cb "
# hyperfine's -s/--setup (once per command, before its runs), -u, --style
# none (no text, the export written) and --output inherit
"$PERFKIT" bench -r 2 -w 1 --no-interleave -L x a,b -s "echo s{x} >>'$T/slog'" "echo r{x} >>'$T/slog'" >/dev/null 2>&1
got=$(tr '\n' ' ' <"$T/slog")
expect "-s: once per command before its warm-up and runs ($got)" test "$got" = "sa ra ra ra sb rb rb rb "
"$PERFKIT" bench -N -r 2 -u second --style none --export-json "$T/none.json" true >"$T/none.out" 2>&1; rc=$?
expect "--style none: exit 0, nothing printed, the export written" \
	sh -c "test $rc = 0 && ! test -s '$T/none.out' && grep -q '\"mean\"' '$T/none.json'"
"$PERFKIT" bench -r 1 -w 0 --output inherit "echo inherited-out" >"$T/inh.out" 2>&1
expect "--output inherit: the command's output shown" grep -q '^inherited-out$' "$T/inh.out"
# --output FILE: each run's stdout, the file made anew each run (hyperfine)
"$PERFKIT" bench -r 3 -w 0 --output "$T/o.txt" "echo run; echo err >&2" >"$T/o.out" 2>&1
expect "--output FILE: the last run's stdout only, stderr not ($(tr '\n' ' ' <"$T/o.txt"))" \
	test "$(cat "$T/o.txt")" = run
expect "... nothing of it on bench's own output" sh -c "! grep -q '^run$\|^err$' '$T/o.out'"
# the summary lists the others from the closest to the slowest (hyperfine 1.15)
"$PERFKIT" bench -N -r 3 -w 0 'sleep 0.09' 'sleep 0.01' 'sleep 0.04' >"$T/ord.out" 2>/dev/null
got=$(grep -o "times [a-z ]* 'sleep 0\.0[0-9]'" "$T/ord.out" | grep -o "0\.0[0-9]" | tr '\n' ' ')
expect "summary: by ratio, not command order ($got)" test "$got" = "0.04 0.09 "
"$PERFKIT" bench -r 1 --style fancy true >/dev/null 2>&1; rc=$?
expect "--style with an unknown value: exit 2" test $rc = 2

# --export-asciidoc and --export-orgmode: hyperfine 1.15's tables (the
# layout checked with the numbers masked: as hyperfine writes them)
"$PERFKIT" bench -N -r 3 --export-asciidoc "$T/t.adoc" --export-orgmode "$T/t.org" 'true' 'sleep 0.01' >/dev/null 2>&1
printf '%s\n' '[cols="<,>,>,>,>"]' '|===' '| Command ' '| Mean [ms] ' '| Min [ms] ' '| Max [ms] ' '| Relative ' '' \
	'| `true` ' '| N ± N ' '| N ' '| N ' '| N ' '' '| `sleep N` ' '| N ± N ' '| N ' '| N ' '| N ± N ' '|===' >"$T/want.adoc"
sed 's/[0-9][0-9.]*/N/g' "$T/t.adoc" >"$T/got.adoc"
same_file "--export-asciidoc: hyperfine's table" "$T/want.adoc" "$T/got.adoc"
printf '%s\n' '| Command  |  Mean [ms] |  Min [ms] |  Max [ms] |  Relative |' '|--+--+--+--+--|' \
	'| =true=  |  N ± N |  N |  N |  N |' '| =sleep N=  |  N ± N |  N |  N |  N ± N |' >"$T/want.org"
sed 's/[0-9][0-9.]*/N/g' "$T/t.org" >"$T/got.org"
same_file "--export-orgmode: hyperfine's table" "$T/want.org" "$T/got.org"

# -N splits as sh would (shell-words, as hyperfine): quotes and backslashes
"$PERFKIT" bench -N -r 1 --show-output "printf <%s> 'a b' \"c\\\"d\" e\\ f" >"$T/nw" 2>&1
expect "-N: quoted words and escapes ($(head -c 40 "$T/nw"))" grep -q '^<a b><c"d><e f>' "$T/nw"
"$PERFKIT" bench -N -r 1 --show-output 'printf [%s] x\' >"$T/nb" 2>&1
expect "-N: a backslash at the end is itself, as sh ($(head -c 10 "$T/nb"))" grep -q '^\[x\\\]' "$T/nb"
"$PERFKIT" bench -N -r 1 --show-output --style none true >/dev/null 2>&1; rc=$?
expect "--show-output with --style none: usage error, as hyperfine ($rc)" test $rc -eq 2
"$PERFKIT" bench -S '' -r 1 true >/dev/null 2>&1; rc=$?
expect "-S '': usage error ($rc)" test $rc -eq 2
"$PERFKIT" bench -N -r 1 "echo 'open" >/dev/null 2>"$T/nq"; rc=$?
expect "-N with an unmatched quote: one line, exit 1 ($rc)" sh -c "[ $rc -eq 1 ] && grep -q 'unmatched single quote' '$T/nq'"
# -S takes a command line: its words, then -c CMD
"$PERFKIT" bench -S "sh -e" -r 1 'false; true' >/dev/null 2>"$T/se"; rc=$?
expect "-S 'sh -e': the shell's own option applies (the run fails, $rc)" test $rc -ne 0
"$PERFKIT" bench -S "sh -e" -r 1 'true' >/dev/null 2>&1
expect "-S 'sh -e' runs commands" test $? -eq 0

# --style auto (hyperfine's default) is taken; with -N an empty command is
# refused before any run, not after the first
"$PERFKIT" bench --style auto -N -r 2 true >"$T/auto" 2>&1
expect "--style auto: runs, exit 0" sh -c "test $? = 0 && grep -q 'Time (mean' '$T/auto'"
"$PERFKIT" bench -N -r 2 '' 'sleep 0.001' >"$T/empty.out" 2>"$T/empty.err"; rc=$?
expect "-N '': usage error, nothing run ($rc)" \
	sh -c "[ $rc -eq 2 ] && grep -q 'command 1 is empty' '$T/empty.err' && ! grep -q 'Benchmark' '$T/empty.out'"

# --shell=default (hyperfine's word): sh
"$PERFKIT" bench -S default -r 2 --export-json "$T/def.json" 'echo $0 >'"$T/def.sh" >/dev/null 2>&1
expect "-S default: the command runs under sh" sh -c "[ \"\$(cat '$T/def.sh')\" = sh ]"
"$PERFKIT" bench -V >"$T/v" 2>&1
expect "-V: perfkit bench and its version, exit 0" sh -c "[ $? -eq 0 ] && grep -Eq '^perfkit bench [0-9]' '$T/v'"
done_testing
