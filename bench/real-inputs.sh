#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/real-inputs.sh [BUILD] — make (once) the real-profile inputs the
# benchmarks can run on, in $REAL_DIR (default ${TMPDIR:-/tmp}/perfkit-real):
#   real.data    perf record -F $FREQ -g of $BUILDS parallel builds (make -j2,
#                then make clean) of a copy of this tree: many processes and
#                DSOs, frame-pointer call chains (a compile job's profile)
#   real.script  `perf script` of it (the text collapse and script read)
#   real.folded  `perfkit collapse` of real.script (what flamegraph reads)
# Files already there are kept (delete them, or set REAL_DIR, to remake
# them).  Prints "REAL_DIR=…" last, for `eval`.  Each benchmark that reads
# profiles takes REAL=1 to run on these instead of its synthetic input.
#   FREQ=HZ     default 30000       BUILDS=N   default 2
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
TOP=$PWD
PK=$TOP/$BUILD/perfkit
FREQ=${FREQ:-30000}
BUILDS=${BUILDS:-2}
REAL_DIR=${REAL_DIR:-${TMPDIR:-/tmp}/perfkit-real}
[ -x "$PK" ] || { echo "build $PK first (make BUILD=$BUILD)" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf not installed (it records the input)" >&2; exit 1; }
mkdir -p "$REAL_DIR"

if [ ! -s "$REAL_DIR/real.data" ]; then
	W=$(mktemp -d "${TMPDIR:-/tmp}/perfkit-tree.XXXXXX")
	trap 'rm -rf "$W"' EXIT
	git -C "$TOP" ls-files -z | (cd "$TOP" && xargs -0 cp --parents -t "$W")
	cmd="cd '$W'"
	for _ in $(seq "$BUILDS"); do cmd="$cmd; make -j2 >/dev/null 2>&1; make clean >/dev/null 2>&1"; done
	echo "recording $BUILDS parallel build(s) of perfkit at $FREQ Hz (a few minutes)..." >&2
	perf record -F "$FREQ" -g -o "$REAL_DIR/real.data.tmp" -- sh -c "$cmd" >/dev/null 2>"$REAL_DIR/record.err" || {
		cat "$REAL_DIR/record.err" >&2; exit 1; }
	mv "$REAL_DIR/real.data.tmp" "$REAL_DIR/real.data"
fi
if [ ! -s "$REAL_DIR/real.script" ]; then
	echo "perf script of it..." >&2
	perf script -i "$REAL_DIR/real.data" >"$REAL_DIR/real.script.tmp" 2>/dev/null
	mv "$REAL_DIR/real.script.tmp" "$REAL_DIR/real.script"
fi
if [ ! -s "$REAL_DIR/real.folded" ]; then
	"$PK" collapse "$REAL_DIR/real.script" >"$REAL_DIR/real.folded.tmp" 2>/dev/null
	mv "$REAL_DIR/real.folded.tmp" "$REAL_DIR/real.folded"
fi
ls -l "$REAL_DIR"/real.data "$REAL_DIR"/real.script "$REAL_DIR"/real.folded >&2
echo "REAL_DIR=$REAL_DIR"
