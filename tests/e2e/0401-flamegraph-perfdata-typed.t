#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit flamegraph perf.data draws the model's tree of named stacks (no text
# printed and parsed again): the graph is byte for byte the one drawn from
# `perfkit collapse` text, also for frame names whose bytes sort around
# the ';' and ' ' of folded lines ("f", "f x", "f.x", "f-x", "f!", "f;x",
# "f0", "F", "f_x", "g.y" calling "f.x"), with options, through a pipe,
# and with fgframes (../shared/tools) reading the same frames.
. "$(dirname "$0")/lib.sh"

if ! have cc || ! can_perf_event; then skip "needs cc and perf events"; done_testing; exit; fi
cat >"$T/names.c" <<'C'
static volatile unsigned long sink;
#define F(cname, sym) __attribute__((noinline)) void cname(long n) __asm__("\"" sym "\""); \
	__attribute__((noinline)) void cname(long n) { for (long i = 0; i < n; i++) sink += i; }
F(f0, "f") F(f1, "f.x") F(f2, "f x") F(f3, "f-x") F(f4, "f!") F(f5, "f;x") F(f6, "f0") F(f7, "F") F(f8, "f_x")
#define G(cname, sym, callee) __attribute__((noinline)) void cname(long n) __asm__("\"" sym "\""); \
	__attribute__((noinline)) void cname(long n) { callee(n); sink++; }
G(g0, "g", f0) G(g1, "g.y", f1)
int main(void) {
	for (int k = 0; k < 400; k++) { f0(100000); f1(100000); f2(100000); f3(100000); f4(100000);
		f5(100000); f6(100000); f7(100000); f8(100000); g0(50000); g1(50000); }
	return 0;
}
C
if ! cc -O1 -g -fno-omit-frame-pointer -o "$T/names" "$T/names.c" 2>"$T/cc.err"; then
	skip "cc could not build symbol names with spaces ($(head -1 "$T/cc.err"))"; done_testing; exit
fi
"$PERFKIT" record -F 4000 -g -o "$T/n.data" -- "$T/names" >/dev/null 2>"$T/rec.err"
if [ ! -s "$T/n.data" ]; then skip "record failed: $(head -1 "$T/rec.err")"; done_testing; exit; fi
"$PERFKIT" collapse "$T/n.data" >"$T/n.folded" 2>/dev/null
expect "the names are there (f x, f.x, f:x)" sh -c "grep -q ';f x ' '$T/n.folded' && grep -q ';f\\.x ' '$T/n.folded' && grep -q ';f:x ' '$T/n.folded'"
for opts in "" "--minwidth 0" "--inverted --title T" "--colors java --hash"; do
	"$PERFKIT" flamegraph $opts "$T/n.data" >"$T/typed.svg" 2>/dev/null
	"$PERFKIT" flamegraph --countname ns $opts "$T/n.folded" >"$T/text.svg" 2>/dev/null
	same_file "perf.data and its folded text draw the same graph (${opts:-defaults})" "$T/text.svg" "$T/typed.svg"
done
cat "$T/n.data" | "$PERFKIT" flamegraph >"$T/pipe.svg" 2>/dev/null
"$PERFKIT" flamegraph --countname ns "$T/n.folded" >"$T/text.svg" 2>/dev/null
same_file "... from a pipe too" "$T/text.svg" "$T/pipe.svg"
# a named FIFO is opened once: its writer's data is the input, and one
# that opened it and wrote nothing is an empty input (opened twice, the
# second open waited for a writer that had gone)
rm -f "$T/fifo" && mkfifo "$T/fifo"
cat "$T/n.folded" >"$T/fifo" &
timeout 20 "$PERFKIT" flamegraph --countname ns "$T/fifo" >"$T/fifo.svg" 2>/dev/null
wait
same_file "a FIFO of folded stacks: the same graph" "$T/text.svg" "$T/fifo.svg"
rm -f "$T/fifo" && mkfifo "$T/fifo"
timeout 20 "$PERFKIT" flamegraph "$T/fifo" >/dev/null 2>"$T/fifo.err" &
fg=$!
# the reader waiting in its open, then a writer that writes nothing
wait_until 10 grep -q "wait_for_partner\|fifo" "/proc/$fg/wchan" 2>/dev/null
: >"$T/fifo"
wait $fg
rc=$?
expect "a FIFO whose writer wrote nothing: exit 2, 'empty' (got $rc, not a hang: 124)" \
	sh -c "[ $rc = 2 ] && grep -q empty '$T/fifo.err'"
# a FIFO carrying a perf.data: read as a stream, not opened again after its
# magic (the second open waited for a writer that had gone, or read the
# stream's rest as the start of a file)
# via_fifo CMD REF: perfkit CMD of n.data through a FIFO (a writer alive
# as it reads) exits 0 and prints what CMD of the file printed (REF)
via_fifo() {
	local rc
	rm -f "$T/fifo" && mkfifo "$T/fifo"
	cat "$T/n.data" >"$T/fifo" &
	timeout 20 "$PERFKIT" "$1" "$T/fifo" >"$T/fifo.out" 2>"$T/fifo.err"
	rc=$?
	wait
	expect "$1 of a FIFO carrying a perf.data: exit 0 (got $rc; 124: a hang)" test $rc = 0
	same_file "... the output of the file" "$2" "$T/fifo.out"
}
"$PERFKIT" flamegraph "$T/n.data" >"$T/file.svg" 2>/dev/null
via_fifo flamegraph "$T/file.svg"
"$PERFKIT" collapse "$T/n.data" >"$T/file.folded" 2>/dev/null
via_fifo collapse "$T/file.folded"
FG=$SHARED/tools/fgframes
if [ -x "$FG" ] && have python3; then
	"$FG" "$T/text.svg" >"$T/text.frames" && "$FG" "$T/pipe.svg" >"$T/typed.frames"
	same_file "fgframes: the same frames" "$T/text.frames" "$T/typed.frames"
else
	skip "no ../shared/tools/fgframes"
fi
done_testing
