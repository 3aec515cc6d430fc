# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh — TAP helpers for perfkit's end-to-end tests (source it from a .t).
#   PERFKIT   the binary under test (set by `make e2e`; defaults to build/perfkit)
#   PK_BUILD  the build folder (examples/ and tests/workloads/ binaries)
#   SHARED    ../shared (conformance cases, tools)
#   T         a fresh temporary folder, removed at exit
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
PERFKIT=${PERFKIT:-$TOP/build/perfkit}
PK_BUILD=${PK_BUILD:-$TOP/build}
SHARED=${SHARED:-$(cd "$TOP/.." && pwd)/shared}
T=$(mktemp -d "${TMPDIR:-/tmp}/perfkit-e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT
# standard input from nowhere: report and script read a piped stdin when no
# -i is given (perf's rule), and the runner's stdin may be a pipe
exec </dev/null
_n=0
_fail=0

ok()     { _n=$((_n + 1)); echo "ok $_n - $*"; }
not_ok() { _n=$((_n + 1)); _fail=$((_fail + 1)); echo "not ok $_n - $*"; }
skip()   { _n=$((_n + 1)); echo "ok $_n # skip $*"; }
diag()   { echo "# $*" | sed '2,$s/^/# /'; }

# expect 'description' command...   — passes when the command exits 0
expect() {
	local d=$1; shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}

# expect_fail 'description' command...   — passes when the command exits non-zero
expect_fail() {
	local d=$1; shift
	if "$@"; then not_ok "$d"; else ok "$d"; fi
}

# same_file 'description' expected actual   — byte equality, shows a diff on failure
same_file() {
	if cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1"; diff -u "$2" "$3" | head -20 | sed 's/^/# /'; fi
}

# have CMD — is a command available
have() { command -v "$1" >/dev/null 2>&1; }

# The lines of standard input up to the last one that is neither empty nor
# '#' (perf report ends with a random tip between '#' lines).
trim_tail() { awk '{ l[NR] = $0 } END { n = NR; while (n > 0 && (l[n] == "" || l[n] == "#")) n--; for (i = 1; i <= n; i++) print l[i] }'; }

# same_as_perf DATA OPTS...: perfkit report --stdio's output is perf
# report's (the oracle; the caller checks `have perf`), tip and tail apart.
same_as_perf() {
	local d=$1; shift
	perf report -i "$d" --stdio "$@" 2>/dev/null | grep -v '^# (Tip:' | trim_tail >"$T/perf.oracle"
	"$PERFKIT" report -i "$d" --stdio "$@" 2>/dev/null | trim_tail >"$T/perfkit.oracle"
	same_file "report $* (${d##*/}): perf report's output" "$T/perf.oracle" "$T/perfkit.oracle"
}

# same_as_perf_nt FILE OPTIONS... — same_as_perf without the README's one
# known difference: a chain the kernel cut short (an exec's first samples,
# on a loaded machine) is a "[truncated]" row in perfkit, none in perf
# A chain cut in caller order is one root in perfkit's graphs ("[truncated]")
# where perf merges it with the roots its outermost frame starts (a chain of
# garbage frame pointers: "0", seen once in CI under the sanitizers): where
# the file has such a chain and the graphs differ, the comparison is
# made again without graphs (-g none), and says so.
same_as_perf_nt() {
	local d=$1; shift
	perf report -i "$d" --stdio "$@" 2>/dev/null | grep -v '^# (Tip:' | grep -v '\[truncated\]' | trim_tail >"$T/perf.oracle"
	"$PERFKIT" report -i "$d" --stdio "$@" 2>/dev/null | grep -v '\[truncated\]' | trim_tail >"$T/perfkit.oracle"
	if ! cmp -s "$T/perf.oracle" "$T/perfkit.oracle" &&
	   "$PERFKIT" report -i "$d" --stdio -g caller,0 2>/dev/null | grep -q '\[truncated\]'; then
		perf report -i "$d" --stdio "$@" -g none 2>/dev/null | grep -v '^# (Tip:' | grep -v '\[truncated\]' | trim_tail >"$T/perf.oracle"
		"$PERFKIT" report -i "$d" --stdio "$@" -g none 2>/dev/null | grep -v '\[truncated\]' | trim_tail >"$T/perfkit.oracle"
		same_file "report $* (${d##*/}; a chain at the kernel's limit: its tables alone, -g none): perf report's output" "$T/perf.oracle" "$T/perfkit.oracle"
		return
	fi
	same_file "report $* (${d##*/}): perf report's output" "$T/perf.oracle" "$T/perfkit.oracle"
}

# no_plt_rows — standard input without the rows of a PLT stub's samples
# (`[.] name@plt`, and perf 6.1's `[.] _init` for them: perf stretches a
# zero-size _init over the PLT after it, the README's other known difference)
no_plt_rows() { grep -Ev '\[\.\] ([^ ]*@plt|_init)$'; }

# no_zero_addr_rows — standard input without the rows of an address with
# no symbol whose every share is 0.00 % (only chains pass through it):
# with -F, perf leaves their order among themselves to its trees (the
# README's known difference)
no_zero_addr_rows() {
	# (with -t ' ', perf writes "[.].0x…": the blank in a name is the separator's)
	awk '/\[[.k]\][ .](0x[0-9a-f]+|0000000000000000)/ && !/[1-9][0-9]*\.[0-9][0-9]%|0\.[0-9]*[1-9][0-9]*%/ { next } { print }'
}

# can_perf_event — may this user open a cpu-clock perf event on a child?
can_perf_event() {
	[ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)" -le 2 ]
}
# perf_event_require — the whole test skipped (done_testing; exit) where
# perf events are not allowed
perf_event_require() {
	if ! can_perf_event; then
		skip "perf events not allowed here"
		done_testing
		exit
	fi
}

done_testing() { echo "1..$_n"; [ "$_fail" -eq 0 ]; }

# have_shared PATH... — true when every PATH (under $SHARED, i.e. ../shared
# beside the checkout: conformance cases and test tools) exists; otherwise
# prints one TAP skip naming the first missing one and returns 1.  Guard
# every use of $SHARED with it, e.g.
#   have_shared "$C/inputs" || { done_testing; exit; }
#   if have_shared "$FG"; then ...; fi
have_shared() {
	local p
	for p in "$@"; do
		if [ ! -e "$p" ]; then
			skip "no ../shared/${p#"$SHARED"/} (SHARED=$SHARED is absent or incomplete)"
			return 1
		fi
	done
}

# Waiting for a state instead of sleeping a fixed time (a loaded machine
# starts processes late):
# wait_until SECONDS COMMAND... — run COMMAND every 0.1 s until it succeeds
# (returns 0) or SECONDS have passed (returns 1)
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.1
	done
}
# execd PID PROG — PID has exec'd PROG
execd() { [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$(readlink -f "$2")" ]; }
# catches PID SIGNUM — PID has installed a handler for signal SIGNUM
catches() {
	local m
	m=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
	[ -n "$m" ] && (( (16#$m >> ($2 - 1)) & 1 ))
}
