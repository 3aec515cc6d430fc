#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A workload that forks, starts a thread, and execs /bin/sh in the child:
# samples of the parent, the thread, the child before exec and the child
# after exec carry the right comm, thread id and symbols, and nothing of the
# shell is attributed to the parent's binary.
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
W=$PK_BUILD/tests/workloads/forkexec
[ -n "${PK_SAN:-}" ] && ms=150 || ms=250

expect "record forkexec" "$PERFKIT" record -o "$T/fe.data" -- "$W" $ms 2>"$T/rec.err"
"$PERFKIT" report -i "$T/fe.data" --no-children --sort comm,dso,sym >"$T/rep" 2>"$T/rep.err"
grep -v '^#' "$T/rep" | awk 'NF >= 4 { print $2, $3, $NF }' >"$T/rows"
diag "$(head -8 "$T/rows")"

for f in parent_spin child_spin thread_spin; do
	expect "$f: comm forkexec, dso forkexec" grep -qx "forkexec forkexec $f" "$T/rows"
done
expect "the shell's samples carry comm sh" grep -q '^sh ' "$T/rows"
expect_fail "nothing of comm sh in the parent's binary" grep -q '^sh forkexec ' "$T/rows"
expect_fail "no forkexec samples in the shell binary" grep -Eq '^forkexec (dash|bash|sh) ' "$T/rows"
expect_fail "no spin function under comm sh" grep -Eq '^sh .* (parent|child|thread)_spin$' "$T/rows"

# thread ids from script: header line "COMM TID [CPU] TIME: PERIOD EVENT: IP SYM (DSO)"
"$PERFKIT" script -i "$T/fe.data" >"$T/script" 2>/dev/null
tid_of() { awk -v s="$1" '$0 ~ " "s"[+ ]" { print $2; exit }' "$T/script"; }
tp=$(tid_of parent_spin) tc=$(tid_of child_spin) tt=$(tid_of thread_spin)
tsh=$(awk '$1 == "sh" { print $2; exit }' "$T/script")
diag "tids: parent=$tp child=$tc thread=$tt sh=$tsh"
expect "child before exec is another process than the parent" test -n "$tc" -a -n "$tp" -a "$tc" != "$tp"
expect "thread has its own tid" test -n "$tt" -a "$tt" != "$tp" -a "$tt" != "$tc"
expect "shell runs in the child (same tid as child_spin)" test -n "$tsh" -a "$tsh" = "$tc"
done_testing
