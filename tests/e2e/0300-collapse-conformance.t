# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit collapse against the stackcollapse-perf.pl conformance cases:
# every row of conformance/collapse-perf/cases.tsv, byte for byte.
. "$(dirname "$0")/lib.sh"

C=$SHARED/conformance/collapse-perf
have_shared "$C/cases.tsv" || { done_testing; exit; }
n=0
while IFS=$'\t' read -r name input opts; do
	[ "$name" = case ] && continue
	n=$((n + 1))
	eval "set -- $opts"
	if "$PERFKIT" collapse "$@" "$C/inputs/$input" >"$T/out" 2>"$T/err"; then
		same_file "$name ($input ${opts:-no options})" "$C/expected/$name.txt" "$T/out"
	else
		not_ok "$name: exit status $?"
		sed 's/^/# /' "$T/err" | head -5
	fi
done <"$C/cases.tsv"
expect 'cases.tsv has cases' test "$n" -gt 60
done_testing
