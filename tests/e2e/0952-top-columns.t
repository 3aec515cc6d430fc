#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit top --stdio sizes its Shared Object column to the widest name it
# shows (at least 20 columns, as before), as perf top does: a program whose
# file name is longer than 20 characters keeps the [.]/[k] and Symbol
# column aligned on every row and under the header.
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
long=$T/a_program_with_a_rather_long_name_to_profile
cp "$PK_BUILD/tests/workloads/burn2to1" "$long"
"$long" 30000 >/dev/null 2>&1 &
wp=$!
trap 'kill $wp 2>/dev/null; wait $wp 2>/dev/null; rm -rf "$T"' EXIT
wait_until 30 execd $wp "$long"
timeout 20 "$PERFKIT" top --stdio -d 1 -n 1 -p $wp >"$T/p.out" 2>"$T/p.err"
expect "top --stdio -p: exit 0" test $? = 0
expect "the long name is shown" grep -q 'a_program_with_a_rather_long_name_to_profile  *\[\.\]' "$T/p.out"
# the column of "[" on every row equals that of "Symbol" in the header
cols=$(awk '/^# Overhead/ { print index($0, "Symbol"); next }
	match($0, /\[[.k]\] /) { print RSTART }' "$T/p.out" | sort -u)
expect "Symbol column aligned on every row and the header ($(echo $cols))" \
	test "$(echo "$cols" | wc -l)" = 1 -a -n "$cols"
done_testing
