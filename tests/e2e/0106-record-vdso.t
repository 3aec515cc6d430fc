#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# [vdso] frames are named: perfkit record saves the vdso in perf's build-id
# cache (~/.debug/[vdso]/<build-id>/vdso) and lists it in the file's
# build-ids, as perf record does, so perfkit report and perf report both
# name __vdso_clock_gettime on a fresh HOME; a perf pipe-mode recording
# (no build-ids) is named from this machine's vdso, as perf does.  Two
# processes map the vdso at two addresses: their samples of one vdso
# function are one row (perf's), not one per process.
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
W=$PK_BUILD/tests/workloads/vdsoloop
mkdir -p "$T/home"
HOME=$T/home "$PERFKIT" record -o "$T/v.data" -- "$W" >/dev/null 2>&1
expect "record exits 0" test $? = 0
# the rows of the vdso: the loop's hottest address may lie outside every
# symbol of the image (6.18's vdso: rdtsc in an unexported function at
# 0x7a0), shown as an address by perf too; __vdso_clock_gettime is a row
HOME=$T/home "$PERFKIT" report -i "$T/v.data" -g none --stdio 2>/dev/null | grep '\[vdso\]' >"$T/pk.vdso"
diag "perfkit: $(head -1 "$T/pk.vdso")"
expect "perfkit report names the vdso function" grep -q '\[vdso\] .*__vdso_clock_gettime' "$T/pk.vdso"
expect "the vdso image is in the build-id cache" sh -c "ls '$T'/home/.debug/'[vdso]'/*/vdso >/dev/null"
if have perf; then
	HOME=$T/home perf report -i "$T/v.data" -g none --stdio 2>/dev/null | grep '\[vdso\]' >"$T/perf.vdso"
	diag "perf: $(head -1 "$T/perf.vdso")"
	expect "perf report on the perfkit file names it too" grep -q '__vdso_clock_gettime' "$T/perf.vdso"
	expect "... and the vdso's rows are perf's" cmp -s "$T/perf.vdso" "$T/pk.vdso"
	diff "$T/perf.vdso" "$T/pk.vdso" | head -4 | sed 's/^/# /'
fi
HOME=$T/home "$PERFKIT" script -i "$T/v.data" 2>/dev/null | grep '(\[vdso\])' >"$T/s"
expect "perfkit script names it" grep -q '__vdso_clock_gettime+0x[0-9a-f]* (\[vdso\])' "$T/s"
# annotate: the vdso's instructions from its image (perf's build-id
# cache copy, or this machine's), as perf annotate shows them, not
# addresses only; in the browser too ('a' on its row)
HOME=$T/home "$PERFKIT" annotate --stdio -i "$T/v.data" __vdso_clock_gettime >"$T/ann" 2>"$T/ann.err"
expect "annotate [vdso]: no 'addresses only' warning" sh -c "! grep -q 'addresses only' '$T/ann.err'"
expect "annotate [vdso]: its disassembly" grep -q '<__vdso_clock_gettime>:' "$T/ann"
# (percent, address) of each sampled instruction
grep -E '^ +[0-9.]+ :' "$T/ann" | grep -v ' 0\.00 :' | awk '{print $1, $3}' >"$T/ann.hot"
diag "perfkit: $(head -2 "$T/ann.hot" | tr '\n' ' ')"
expect "annotate [vdso]: sampled instructions" test -s "$T/ann.hot"
if have perf; then
	HOME=$T/home perf annotate --stdio -i "$T/v.data" __vdso_clock_gettime 2>/dev/null |
		grep -E '^ +[0-9.]+ :' | grep -v ' 0\.00 :' | awk '{print $1, $3}' >"$T/perf.hot"
	diag "perf: $(head -2 "$T/perf.hot" | tr '\n' ' ')"
	expect "annotate [vdso]: perf annotate's shares at the same addresses" cmp -s "$T/perf.hot" "$T/ann.hot"
fi
if have tmux; then
	. "$(dirname "$0")/tui-lib.sh"
	tui_require
	tui_start 100 30 "HOME='$T/home' LC_ALL=C.UTF-8 '$PERFKIT' report -i v.data --no-children --sort dso,sym"
	expect "browser: the vdso's row" tui_wait_re '\[vdso\] +\[\.\] __vdso_clock_gettime'
	tui_select '\[vdso\] +\[\.\] __vdso_clock_gettime'
	tui_keys a
	expect "browser, 'a' on the vdso's row: its instructions" tui_wait '<__vdso_clock_gettime>:'
	tui_keys q q q
	tui_wait_exit >/dev/null
else
	skip "tmux is not installed (scripts/install-deps installs it)"
fi
# two processes at once: one [vdso] row for __vdso_clock_gettime
HOME=$T/home "$PERFKIT" record -o "$T/two.data" -- sh -c "'$W' 2000000 & '$W' 2000000; wait" >/dev/null 2>&1
HOME=$T/home "$PERFKIT" report -i "$T/two.data" --stdio -g none --sort dso,sym 2>/dev/null |
	grep -c '\[vdso\] .*__vdso_clock_gettime' >"$T/nrows"
expect "two processes' vdso samples: one dso,sym row ($(cat "$T/nrows"))" test "$(cat "$T/nrows")" = 1
if have perf; then
	for k in dso,sym comm,dso,sym; do
		HOME=$T/home perf report -i "$T/two.data" --stdio -g none --sort $k 2>/dev/null | grep -v '^#' | grep . >"$T/perf.rows"
		HOME=$T/home "$PERFKIT" report -i "$T/two.data" --stdio -g none --sort $k 2>/dev/null | grep -v '^#' | grep . >"$T/pk.rows"
		expect "two processes, --sort $k: perf report's rows" cmp -s "$T/perf.rows" "$T/pk.rows"
		diff "$T/perf.rows" "$T/pk.rows" | head -4 | sed 's/^/# /'
	done
fi
# perf's pipe mode carries no build-ids: perf names [vdso] frames from its
# own vdso (the same kernel's), and so does perfkit, through an anonymous
# memory file: it creates no file (perfkit top reads the same way)
if have perf; then
	HOME=$T/home perf record -q -o - -- "$W" >"$T/pipe.data" 2>/dev/null
	HOME=$T/home "$PERFKIT" script -i "$T/pipe.data" >"$T/pk.txt" 2>/dev/null
	HOME=$T/home perf script -i "$T/pipe.data" >"$T/perf.txt" 2>/dev/null
	expect "perf's pipe mode: [vdso] frames named, as perf script's" \
		sh -c "grep -q '__vdso_clock_gettime.*(\[vdso\])' '$T/pk.txt' && cmp -s '$T/pk.txt' '$T/perf.txt'"
	if have strace; then
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" HOME=$T/home \
			strace -f -qq -o "$T/trace" -e trace=open,openat,creat,unlink,unlinkat \
			"$PERFKIT" script -i "$T/pipe.data" >/dev/null 2>&1
		grep -E '(open|openat)\(.*O_CREAT|(creat|unlink|unlinkat)\(' "$T/trace" >"$T/writes" || true
		diag "$(head -3 "$T/writes")"
		expect "... and no file created or removed for its copy of the vdso" \
			sh -c "grep -q '/proc/self/fd/' '$T/trace' && test ! -s '$T/writes'"
	else
		skip "strace not installed"
	fi
fi
done_testing
