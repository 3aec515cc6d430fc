#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit diff-folded against the shared conformance cases: one TAP line per
# case in $SHARED/conformance/diff-folded/cases.tsv (line order is free, so
# both sides are compared after LC_ALL=C sort).
. "$(dirname "$0")/lib.sh"

C=$SHARED/conformance/diff-folded
have_shared "$C/cases.tsv" || { done_testing; exit; }

# tabs become \037 first: read would merge adjacent tabs (an empty column)
while IFS=$'\037' read -r name before after options; do
	[ "$name" = case ] && continue
	work=$T/$name
	mkdir -p "$work"
	cp -R "$C/inputs/$name/." "$work/"
	eval "opts=($options)"
	if ! (cd "$work" && "$PERFKIT" diff-folded "${opts[@]}" "$before" "$after" >out.txt 2>err.txt); then
		not_ok "$name: perfkit diff-folded failed"
		sed 's/^/# /' "$work/err.txt"
		continue
	fi
	LC_ALL=C sort "$work/out.txt" >"$work/sorted.txt"
	same_file "$name" "$C/expected/$name.sorted.txt" "$work/sorted.txt"
done < <(tr '\t' '\037' <"$C/cases.tsv")

done_testing
