# SPDX-License-Identifier: GPL-2.0-or-later
# Inline frames and C++ names (issue P6, acceptance item 2): a function with
# two always-inlined helpers folds as main;outer;helper1_[i];helper2_[i];
# `perfkit script --inline` shows the inlined functions ("(inlined)"), and
# plain `perfkit script` those perf 6.1's perf script shows;
# a C++ operator-> stays one frame; report --sort srcline names the line.
. "$(dirname "$0")/lib.sh"

if ! have perf || ! have c++ || ! can_perf_event; then
	skip "needs perf, c++ and perf_event_open"
	done_testing; exit
fi
cat >"$T/inl.cc" <<'C'
#include <cstdlib>
static volatile unsigned long sink;
struct Box { unsigned long v[4]; };
struct Ptr {
	Box *p;
	__attribute__((noinline)) Box *operator->() const { for (int i = 0; i < 200; i++) sink += i; return p; }
};
static inline __attribute__((always_inline)) void helper2(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i * i; }
static inline __attribute__((always_inline)) void helper1(unsigned long n) { helper2(n); sink++; }
__attribute__((noinline)) void outer(unsigned long n) { helper1(n); sink++; }
__attribute__((noinline)) unsigned long deref(const Ptr &q, unsigned long n) { unsigned long s = 0; for (unsigned long i = 0; i < n; i++) s += q->v[i & 3]; return s; }
int main(int argc, char **argv) {
	unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 1;
	Box b = {{1, 2, 3, 4}}; Ptr q = {&b};
	for (int k = 0; k < 4; k++) { outer(n); sink += deref(q, n / 1500); }
	return 0;
}
C
c++ -O2 -g -fomit-frame-pointer -o "$T/inl" "$T/inl.cc" || { skip "c++ failed"; done_testing; exit; }
cd "$T"
# (the sanitizer build drains 8 kB stack copies slower: a lower rate, so
# that no phase of the program loses its samples to a full ring buffer)
hz=2000; [ -n "${PK_SAN:-}" ] && hz=700
"$PERFKIT" record -F $hz --call-graph dwarf -o inl.data ./inl 50000000 >/dev/null 2>rec.err
expect 'record: exit 0' test $? -eq 0

"$PERFKIT" collapse --inline inl.data >inline.folded
expect 'collapse --inline: main;outer;helper1_[i];helper2_[i]' \
	grep -q ';main;outer;helper1_\[i\];helper2_\[i\] ' inline.folded
"$PERFKIT" script --inline -i inl.data >script.txt
"$PERFKIT" collapse script.txt >text.folded
expect 'perfkit script --inline | collapse: the "(inlined)" lines fold as frames (as stackcollapse-perf.pl does)' \
	grep -q ';main;outer;helper1;helper2 ' text.folded
expect 'script --inline: inlined functions on lines of their own, "(inlined)"' \
	sh -c "grep -q ' helper2 (inlined)\$' script.txt && grep -q ' helper1 (inlined)\$' script.txt"
# by default, as perf 6.1's perf script on a --call-graph dwarf recording:
# the chains binutils' addr2line gives (its C++ quirk included: the
# innermost item without a linkage name named by the ELF symbol)
"$PERFKIT" script -i inl.data >def.txt
perf script -i inl.data >perf-def.txt 2>/dev/null
if have python3; then
	cmpout=$(python3 "$TOP/tests/e2e/inline-cmp.py" perf-def.txt def.txt) && r=0 || r=1
	diag "$cmpout"
	expect 'script: inlined frames by default, as perf script prints them (sample by sample)' \
		sh -c "test $r = 0 && grep -q 'helper1+0x[0-9a-f]* (inlined)' def.txt"
else
	skip "no python3"
fi
"$PERFKIT" script --no-inline -i inl.data >noinl.txt
expect 'script --no-inline: none' sh -c "! grep -q '(inlined)' noinl.txt"

"$PERFKIT" collapse inl.data >plain.folded
expect 'operator-> stays one frame (demangled, as perf names it)' \
	grep -q ';main;deref;Ptr::operator-> ' plain.folded
expect 'no frame split at "->"' sh -c "! grep -q 'Ptr::operator;' plain.folded"
"$PERFKIT" script --no-demangle -i inl.data >raw.txt
expect 'script --no-demangle: the mangled name' grep -q ' _ZNK3PtrptEv+0x' raw.txt
"$PERFKIT" report -i inl.data --no-children >rep.txt
expect 'report: Ptr::operator-> demangled' grep -q '\[\.\] Ptr::operator->$' rep.txt
"$PERFKIT" report -i inl.data --no-demangle --no-children >rep-raw.txt
expect 'report --no-demangle: mangled' grep -q '\[\.\] _ZNK3PtrptEv$' rep-raw.txt

# srcline: helper2's loop is line 8; perf agrees on the top line.  deref
# gets n/1500 calls of operator->'s 200 steps: about 11 % of the samples
# against helper2's 88 % (n/400 gave 60:40, and a loaded machine put
# operator->'s line 6 on top once, in perf's report as in perfkit's)
"$PERFKIT" report -i inl.data --sort srcline --no-children >sl.txt 2>sl.err
perf report -i inl.data --sort srcline --no-children --stdio 2>/dev/null >perf-sl.txt
top=$(awk '/%/ && !/^#/ { print $2; exit }' sl.txt)
ptop=$(awk '/%/ && !/^#/ { print $2; exit }' perf-sl.txt)
if [ -n "${PK_SAN:-}" ]; then
	# the sanitizer recorder, beside the other lane's tests, has lost
	# phases of the run without a lost record (inl.cc:6 on top once): the
	# top line is checked in the gcc pass, the paths above run here
	skip "srcline's top line: checked in the gcc pass (perfkit $top, perf $ptop)"
	skip "perf agrees: checked in the gcc pass"
elif grep -q 'samples lost' rec.err; then   # whole phases of the run missing: no top to check
	skip "srcline's top line: the recording lost samples ($(grep -o '[0-9]* samples lost' rec.err))"
	skip "perf agrees: the recording lost samples"
else
	expect "report --sort srcline: the inner loop's line on top ($top)" test "$top" = "inl.cc:8"
	expect "perf agrees ($ptop)" test "$top" = "$ptop"
	diag "top srcline: perfkit $top, perf $ptop"
fi

# collapse --inline names C++ functions by their linkage names, as binutils'
# addr2line -C (stackcollapse-perf.pl --inline): two classes' operator()
# stay apart (DWARF's own name, "operator()", would make them one frame)
cat >"$T/two.cc" <<'C'
#include <cstdlib>
static volatile double sink;
struct A { __attribute__((noinline)) double operator()(double x) const { for (int i = 0; i < 2000; i++) x = x * 1.0000001 + 1; return x; } };
struct B { __attribute__((noinline)) double operator()(double x) const { for (int i = 0; i < 2000; i++) x = x * 0.9999999 + 1; return x; } };
int main(int argc, char **argv) { long n = argc > 1 ? atol(argv[1]) : 1; A a; B b; for (long k = 0; k < n; k++) sink = a(sink) + b(sink); return 0; }
C
if c++ -O2 -g -fno-omit-frame-pointer -o "$T/two" "$T/two.cc" &&
   "$PERFKIT" record -F 2000 -g -o two.data ./two 150000 >/dev/null 2>&1; then
	"$PERFKIT" collapse --inline two.data >two.folded 2>/dev/null
	expect 'collapse --inline perf.data: A::operator() and B::operator() apart' 		sh -c "grep -q ';A::operator() ' two.folded && grep -q ';B::operator() ' two.folded"
	perf script -i two.data 2>/dev/null | "$PERFKIT" collapse --inline >two-text.folded 2>/dev/null
	expect 'perf script | collapse --inline: addr2line -C names, "A::operator()(double) const" and B'"'"'s' 		sh -c "grep -q ';A::operator()(double) const ' two-text.folded && grep -q ';B::operator()(double) const ' two-text.folded"
else
	skip "the two-class program did not build or record"
	skip "the two-class program did not build or record"
fi
done_testing
