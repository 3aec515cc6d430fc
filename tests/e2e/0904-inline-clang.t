#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A clang-built binary has no .debug_aranges: inlined frames and source
# lines are still found (the unit holding the address is looked up by its
# ranges), for collapse --inline, report --sort srcline and the pprof export.
. "$(dirname "$0")/lib.sh"

if ! have clang || ! can_perf_event; then skip "needs clang and perf_event_open"; done_testing; exit; fi
cat >"$T/inl.c" <<'C'
static volatile long sink;
static inline __attribute__((always_inline)) void helper(long n) { for (long i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void outer(long n) { helper(n); }
int main(void) { for (int k = 0; k < 6; k++) outer(20000000); return 0; }
C
clang -O2 -g -fno-omit-frame-pointer -o "$T/inl" "$T/inl.c"
expect "the binary has no .debug_aranges (what this test is about)" \
	sh -c "! readelf -S '$T/inl' | grep -q debug_aranges"
"$PERFKIT" record -g -o "$T/inl.data" -- "$T/inl" >/dev/null 2>&1
"$PERFKIT" collapse --inline "$T/inl.data" >"$T/f" 2>/dev/null
expect "collapse --inline: outer;helper_[i]" grep -q ';outer;helper_\[i\] ' "$T/f"
line=$(grep -n 'sink += i' "$T/inl.c" | cut -d: -f1)
"$PERFKIT" report -i "$T/inl.data" --sort srcline -g none --no-children >"$T/r" 2>/dev/null
expect "report --sort srcline: the helper's loop line (inl.c:$line) leads" \
	sh -c "grep -v '^#' '$T/r' | grep . | head -1 | grep -q 'inl.c:$line\$'"
done_testing
