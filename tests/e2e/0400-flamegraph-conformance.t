#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit flamegraph against the shared conformance cases: one TAP line per
# case in $SHARED/conformance/flamegraph/cases.tsv (frame geometry, tooltip
# text and colours as flamegraph.pl draws them, compared with fgframes).
. "$(dirname "$0")/lib.sh"

C=$SHARED/conformance/flamegraph
FG=$SHARED/tools/fgframes
have_shared "$C/cases.tsv" "$FG" || { done_testing; exit; }
if ! have python3; then
	skip "no python3 (fgframes needs it)"
	done_testing; exit
fi

# tabs become \037 first: read would merge adjacent tabs (an empty column)
while IFS=$'\037' read -r name inputs options compare; do
	[ "$name" = case ] && continue
	work=$T/$name
	mkdir -p "$work"
	cp -R "$C/inputs/$name/." "$work/"
	eval "opts=($options)"
	# shellcheck disable=SC2086  # inputs is a space-separated list of names
	if ! (cd "$work" && "$PERFKIT" flamegraph "${opts[@]}" $inputs >out.svg 2>err.txt); then
		not_ok "$name: perfkit flamegraph failed"
		sed 's/^/# /' "$work/err.txt"
		continue
	fi
	flag=
	[ "$compare" = nofill ] && flag=--no-fill
	if ! python3 "$FG" $flag "$work/out.svg" >"$work/got.tsv" 2>"$work/fg.err"; then
		not_ok "$name: SVG does not parse"
		sed 's/^/# /' "$work/fg.err"
		continue
	fi
	expected=$C/expected/$name.frames.tsv
	same_file "$name" "$expected" "$work/got.tsv"
done < <(tr '\t' '\037' <"$C/cases.tsv")

done_testing
