#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile input for the readers and options added with c2c/mem and
# diff-folded's several-profile mode: one clear line and exit 1/2, the
# range of an option named, no control byte of a file reaching the terminal.
. "$(dirname "$0")/lib.sh"

# one_line 'description' WANT-RC WANT-REGEX cmd... — stdout+stderr together
one_line() {
	local d=$1 rc=$2 re=$3; shift 3
	"$@" >"$T/o" 2>&1
	local got=$?
	if [ "$got" = "$rc" ] && [ "$(wc -l <"$T/o")" = 1 ] && grep -Eq "$re" "$T/o"; then ok "$d: $(cat "$T/o")"
	else not_ok "$d (exit $got, want $rc)"; sed 's/^/# /' "$T/o" | head -5; fi
}

# a c2c file holding raw escape sequences in its names (not \xHH-escaped)
printf 'perfkit-memprof 1\nmode c2c\nline-size 64\nthread 0 100\nthread 1 101\n' >"$T/esc.c2c"
printf 'code 0 0x10 5 f\033]0;PWN\007oo\tfile.c\tdso\n' >>"$T/esc.c2c"
printf 'object 0 global -1 na\033[31mme\tdso\nline 0x1000 0 500\n' >>"$T/esc.c2c"
printf 'lt 0 10 10 5 0xff 0xff\nlt 1 10 10 5 0xff00 0xff00\nls 0 0 0 8 10 10\nls 0 1 8 8 10 10\nend 1 0\n' >>"$T/esc.c2c"
"$PERFKIT" c2c report -i "$T/esc.c2c" >"$T/out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q 'na\\x1b\[31mme' "$T/out" && ! grep -q $'\033' "$T/out" && ! grep -q $'\007' "$T/out"
then ok "c2c report: raw ESC/BEL in a file's names printed as \\xHH"
else not_ok "c2c report: raw control bytes reach the terminal (exit $rc)"; cat -v "$T/out" | sed 's/^/# /' | head -5; fi

# a 150-byte file claiming ids near 2^24: refused at once, not sized by the claim
printf 'perfkit-memprof 1\nmode c2c\nline-size 64\ncode 16777215 0x10 5 f\tf\td\nstack 16777214 0\nend 0 0\n' >"$T/big.c2c"
# (a 400 MB address-space cap, except under the sanitizers, which reserve more)
( [ -n "${PK_SAN:-}" ] || ulimit -v 400000; exec "$PERFKIT" c2c report -i "$T/big.c2c" ) >"$T/o" 2>&1
rc=$?
if [ $rc = 1 ] && [ "$(wc -l <"$T/o")" = 1 ] && grep -q 'big.c2c:4: expected a code with an id below 4' "$T/o"
then ok "c2c report: a definition id beyond the file refused: $(cat "$T/o")"
else not_ok "c2c report: huge definition id (exit $rc)"; sed 's/^/# /' "$T/o" | head -3; fi

# option values: range named, never clamped
one_line "c2c --min-transfers overflow" 2 "^perfkit c2c report: --min-transfers expects an integer ≥ 0, got '99999999999999999999'$" \
	"$PERFKIT" c2c report --min-transfers=99999999999999999999 -i "$T/esc.c2c"
one_line "c2c --min-transfers negative" 2 "^perfkit c2c report: --min-transfers expects an integer ≥ 0, got '-1'$" \
	"$PERFKIT" c2c report --min-transfers -1 -i "$T/esc.c2c"

# diff-folded's help is fputs'd: no printf '%%' left in it
"$PERFKIT" diff-folded -h >"$T/h" 2>&1
if grep -q '%%' "$T/h"; then not_ok "diff-folded -h prints a doubled %%"; grep '%%' "$T/h" | sed 's/^/# /'
else ok "diff-folded -h: no doubled %"; fi

# diff-folded with several profiles a side: an empty or all-zero profile
# is refused, not read as "every function 0 %" or "everything gone"
printf 'a;b 10\nc;d 5\n' >"$T/a.folded"; printf 'a;b 12\n' >"$T/b.folded"
printf 'a;b 0\n' >"$T/z.folded"; : >"$T/e.folded"
one_line "diff-folded: an all-zero OLD profile" 1 "^perfkit diff-folded: $T/z.folded: no samples" \
	"$PERFKIT" diff-folded "$T/z.folded" "$T/z.folded" -- "$T/b.folded" "$T/b.folded"
one_line "diff-folded: an empty NEW profile" 1 "^perfkit diff-folded: $T/e.folded: no samples" \
	"$PERFKIT" diff-folded "$T/a.folded" "$T/b.folded" -- "$T/b.folded" "$T/e.folded"

# bench --profile-event: a bad event is refused before any run (it failed
# every profiled run, reported as "command 'true' failed ... exit code 2")
one_line "bench --profile-event unknown" 2 "^perfkit bench: --profile-event: unknown event 'bogus'$" \
	"$PERFKIT" bench -N -w 0 -r 2 --profile="$T/prof" --profile-event bogus true true
expect "bench --profile-event unknown: no profile directory made" test ! -e "$T/prof"
one_line "bench --profile-event empty" 2 "^perfkit bench: --profile-event expects an event name, got ''$" \
	"$PERFKIT" bench -N -w 0 -r 2 --profile="$T/prof" --profile-event '' true true
# record -e '' named no event and recorded the default one
one_line "record -e ''" 2 "^perfkit record: -e expects an event name, got ''$" \
	"$PERFKIT" record -e '' -o "$T/x.data" -- true
expect "record -e '': no file written" test ! -e "$T/x.data"

# a full disk on stdout: exit 1 and one line (not the command's line and
# then the dispatcher's "error writing output" too)
printf 'a;b 1000\nc;d 500\n' >"$T/big.folded"
full_one_line() {
	local d=$1; shift
	"$@" >/dev/full 2>"$T/err"
	local rc=$?
	if [ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q 'No space left' "$T/err"; then ok "$d > /dev/full: $(cat "$T/err")"
	else not_ok "$d > /dev/full (exit $rc)"; sed 's/^/# /' "$T/err" | head -3; fi
}
full_one_line "diff-folded OLD -- NEW" "$PERFKIT" diff-folded "$T/a.folded" "$T/b.folded" -- "$T/b.folded" "$T/a.folded"
full_one_line "flamegraph" "$PERFKIT" flamegraph "$T/big.folded"
full_one_line "c2c report" "$PERFKIT" c2c report -i "$T/esc.c2c"

# perfkit diff OLD… -- NEW… where the sides recorded different events: the
# event only OLD has was shown with every symbol "gone"
if can_perf_event; then
	spin='i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'
	"$PERFKIT" record -e cpu-clock -F 999 -o "$T/c.data" -- sh -c "$spin" >/dev/null 2>&1
	"$PERFKIT" record -e task-clock -F 999 -o "$T/t.data" -- sh -c "$spin" >/dev/null 2>&1
	"$PERFKIT" diff "$T/c.data" "$T/c.data" -- "$T/t.data" "$T/t.data" >"$T/o" 2>"$T/e"
	if grep -q "event 'cpu-clock' has no samples in the NEW files" "$T/e" && ! grep -q gone "$T/o" &&
	   grep -q "event 'task-clock' has no samples in the OLD files" "$T/e"
	then ok "diff: an event one side lacks is named, not listed as all gone"
	else not_ok "diff: events on one side only"; sed 's/^/# /' "$T/e" "$T/o" | head -8; fi
else
	skip "no perf events here"
fi

# mem report --sort with every key and one repeated: the repeat counts once
# (it was refused as "unknown key 'mem'")
printf 'perfkit-memprof 1\nmode mem\nline-size 64\ncode 0 0x10 5 f\tf.c\td\nobject 0 global -1 g\td\n' >"$T/m.mem"
printf 'acc 0 0 load 10 1 2 3 4 1 2 3 4\nend 0 1\n' >>"$T/m.mem"
"$PERFKIT" mem report -i "$T/m.mem" --sort mem,sym,dso,symbol_daddr,dso_daddr,mem >"$T/o" 2>&1
expect "mem report --sort with a key repeated after all five" test $? = 0

# an option after the profiles ("A -- B -o x.svg") was read as a file: it
# is an option there too, as GNU tools take them
"$PERFKIT" diff-folded "$T/a.folded" "$T/b.folded" -- "$T/b.folded" "$T/a.folded" -o "$T/d.svg" >"$T/o" 2>&1
expect "diff-folded: -o after '--' is an option" test $? = 0 -a -s "$T/d.svg"
# (perfkit diff's form: tests/e2e/0953)

# a cut perf.data given to collapse on stdin (a regular file): the message
# names <stdin>, as report and script do, not /proc/self/fd/0
printf 'PERFILE2\x68\0\0\0\0\0\0\0' >"$T/cut.data"
head -c 100 /dev/zero >>"$T/cut.data"
"$PERFKIT" collapse <"$T/cut.data" >/dev/null 2>"$T/e"
rc=$?
if [ $rc = 1 ] && [ "$(wc -l <"$T/e")" = 1 ] && grep -q '^perfkit collapse: <stdin>: ' "$T/e"; then ok "collapse < cut perf.data: $(cat "$T/e")"
else not_ok "collapse < cut perf.data (exit $rc)"; sed 's/^/# /' "$T/e" | head -3; fi

done_testing
