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

# run_case NAME INPUTS OPTIONS COMPARE — perfkit flamegraph and fgframes in
# $T/NAME; $T/NAME/step names the step that failed, else "finished"
run_case() {
	local name=$1 inputs=$2 options=$3 compare=$4 work=$T/$1 flag='' opts
	mkdir -p "$work"
	cp -R "$C/inputs/$name/." "$work/"
	eval "opts=($options)"
	# shellcheck disable=SC2086  # inputs is a space-separated list of names
	if ! (cd "$work" && "$PERFKIT" flamegraph "${opts[@]}" $inputs >out.svg 2>err.txt); then
		echo flamegraph >"$work/step"; return
	fi
	[ "$compare" = nofill ] && flag=--no-fill
	if ! python3 "$FG" $flag "$work/out.svg" >"$work/got.tsv" 2>"$work/fg.err"; then
		echo fgframes >"$work/step"; return
	fi
	echo finished >"$work/step"
}
# the cases two at a time in the background (nothing is timed), their TAP
# lines afterwards in the cases' order; tabs become \037 first: read would
# merge adjacent tabs (an empty column)
names=()
while IFS=$'\037' read -r name inputs options compare; do
	[ "$name" = case ] && continue
	while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
	run_case "$name" "$inputs" "$options" "$compare" &
	names+=("$name")
done < <(tr '\t' '\037' <"$C/cases.tsv")
wait
for name in "${names[@]}"; do
	work=$T/$name
	case $(cat "$work/step" 2>/dev/null) in
	finished) same_file "$name" "$C/expected/$name.frames.tsv" "$work/got.tsv" ;;
	flamegraph) not_ok "$name: perfkit flamegraph failed"; sed 's/^/# /' "$work/err.txt" ;;
	fgframes) not_ok "$name: SVG does not parse"; sed 's/^/# /' "$work/fg.err" ;;
	*) not_ok "$name: the case did not finish" ;;
	esac
done

done_testing
