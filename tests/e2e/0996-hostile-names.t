#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 0996 — hostile names: a program whose name (so its comm) holds a newline
# and an escape sequence, opening a file whose name holds a newline and a
# forged opensnoop line.  Every text output escapes control characters
# (base/strbuf sb_add_term: "\x0a", "\x1b"), so one event stays one line
# and nothing reaches the terminal raw: report, flamegraph's folded input,
# opensnoop and execsnoop (root), bench's Markdown.  script and collapse
# keep the bytes as perf script and stackcollapse-perf.pl do (0213) but a
# newline (sb_add_line: "\x0a"), so their lines are never split by a name.
. "$(dirname "$0")/lib.sh"

ESC=$'\e'
bad=$'ev\nil\e[7m'              # the program's name: comm "ev\nil\e[7m"
cp "$PK_BUILD/tests/workloads/burn2to1" "$T/$bad"

# no_raw WHAT FILE — no ESC byte and no line starting with the forged "il"
no_raw() {
	if grep -q "$ESC" "$2"; then not_ok "$1: no raw ESC"; else ok "$1: no raw ESC"; fi
	if grep -q '^il' "$2"; then not_ok "$1: the name did not start a line"; grep -n '^il' "$2" | head -3 | sed 's/^/# /'
	else ok "$1: the name did not start a line"; fi
}

if can_perf_event; then
	"$PERFKIT" record -g -F 999 -o "$T/p.data" -- "$T/$bad" 30 >/dev/null 2>&1
	"$PERFKIT" report -i "$T/p.data" --stdio --sort comm,sym >"$T/rep" 2>&1
	no_raw report "$T/rep"
	expect "report: the comm shown escaped" grep -qF 'ev\x0ail\x1b[7m' "$T/rep"
	"$PERFKIT" script -i "$T/p.data" >"$T/scr" 2>&1
	expect_fail "script: the name did not start a line" grep -q '^il' "$T/scr"
	expect "script: the comm's newline escaped, its ESC kept as perf keeps it" grep -qF "ev\\x0ail${ESC}[7m" "$T/scr"
	"$PERFKIT" collapse "$T/p.data" >"$T/fold" 2>&1
	expect_fail "collapse: the name did not start a line" grep -q '^il' "$T/fold"
	expect "collapse: every line is STACK COUNT" awk '!/^[^ ].* [0-9]+$/ { bad = 1 } END { exit bad || NR == 0 }' "$T/fold"
	"$PERFKIT" flamegraph "$T/p.data" -o "$T/p.svg" 2>"$T/fg.err"
	expect "flamegraph from the perf.data: written" test -s "$T/p.svg"
	expect_fail "... no ignored (split) lines reported" grep -q 'ignored\|unrecognized' "$T/fg.err"
else
	skip "perf events not allowed here (report/script/collapse cases)"
fi

# bench's Markdown: the command name escaped, one row
"$PERFKIT" bench -N -r 1 -n $'a\e[2Jb' --export-markdown "$T/b.md" true >/dev/null 2>&1
expect "bench Markdown: no raw ESC" bash -c '! grep -q "$1" "$2"' - "$ESC" "$T/b.md"

if [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] && \
   ! "$PERFKIT" opensnoop --help 2>&1 | grep -q 'built without eBPF'; then
	. "$(dirname "$0")/bpf-lib.sh"
	forged=$'x\n1234    cron             3   0 /etc/shadow'
	if tracer_start "$T/os" "$T/os.err" "$PERFKIT" opensnoop -n "$(printf 'ev\nil' | cut -c1-2)"; then
		cp "$PK_BUILD/tests/workloads/opener" "$T/$bad-o"
		( cd "$T" && "./$bad-o" "$T/$forged" )
		sleep 0.5
		tracer_stop
		no_raw opensnoop "$T/os"
		expect_fail "opensnoop: no forged /etc/shadow line" grep -q '^1234 .*cron.*/etc/shadow$' "$T/os"
		expect "opensnoop: the file name shown escaped" grep -qF 'x\x0a1234' "$T/os"
	else
		not_ok "opensnoop starts"
	fi
	if tracer_start "$T/es" "$T/es.err" "$PERFKIT" execsnoop; then
		( cd "$T" && "./$bad" 1 >/dev/null 2>&1 )
		sleep 0.5
		tracer_stop
		no_raw execsnoop "$T/es"
		expect "execsnoop: the comm shown escaped" grep -qF 'ev\x0ail' "$T/es"
	else
		not_ok "execsnoop starts"
	fi
else
	skip "opensnoop/execsnoop cases need root, BTF and the eBPF tools"
fi
done_testing
