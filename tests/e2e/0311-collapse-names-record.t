# SPDX-License-Identifier: GPL-2.0-or-later
# Frame names from real recordings (issue 17, items 1, 2 and 7): a C++
# anonymous-namespace function and a lambda through collapse (perf.data and
# perf script text) and `flamegraph -- CMD`; the count unit of a
# period-weighted graph; a binary deleted while it runs, recorded with -p.
. "$(dirname "$0")/lib.sh"

if ! have c++ || ! can_perf_event; then
	skip "needs c++ and perf_event_open (perf_event_paranoid <= 2 or root)"
	done_testing; exit
fi
cat >"$T/lam.cc" <<'C'
namespace { __attribute__((noinline)) long helper(long x) { volatile long s = 0; for (long i = 0; i < x; i++) s += i; return s; } }
__attribute__((noinline)) long f(long a) { auto l = [](long b) __attribute__((noinline)) { return helper(b) + 1; }; return l(a); }
int main(int argc, char **argv) { return f(argc > 1 ? 4000000000L : 60000000L) > 100; }
C
c++ -O1 -g -fno-omit-frame-pointer -o "$T/lam" "$T/lam.cc" || { skip "c++ failed"; done_testing; exit; }
cd "$T"
"$PERFKIT" record -g -o lam.data ./lam >/dev/null 2>rec.err
if [ ! -s lam.data ]; then
	skip "perfkit record failed: $(head -1 rec.err)"
	done_testing; exit
fi
"$PERFKIT" collapse lam.data >data.out 2>/dev/null
expect 'perf.data: (anonymous namespace)::helper is a frame under the lambda' \
	grep -q ';f;f(long)::{lambda(long)#1}::operator;(anonymous namespace)::helper [0-9]' data.out
expect_fail 'perf.data: no fake f;f recursion' grep -q ';f;f [0-9]' data.out
if have perf; then
	perf script -i lam.data 2>/dev/null | "$PERFKIT" collapse >text.out 2>/dev/null
	expect 'perf script text: the same frames' \
		grep -q ';f;f(long)::{lambda(long)#1}::operator;(anonymous namespace)::helper [0-9]' text.out
else
	skip "no perf for the text path"
fi

"$PERFKIT" flamegraph -o lam.svg -- ./lam >/dev/null 2>fg.err
expect 'flamegraph -- CMD: the helper frame is drawn' grep -q '<title>(anonymous namespace)::helper (' lam.svg
# cpu-clock periods are nanoseconds: the count is named "ns", not "samples"
expect 'flamegraph -- CMD: counts of cpu-clock periods are named ns' \
	grep -q '<title>(anonymous namespace)::helper ([0-9,]* ns, ' lam.svg
expect_fail 'flamegraph -- CMD: no "samples" for periods' grep -q ' samples, ' lam.svg
"$PERFKIT" flamegraph --countname=us lam.data >lam2.svg 2>/dev/null
expect 'flamegraph perf.data: --countname still wins' grep -q ' us, ' lam2.svg

# 2. a binary deleted while it runs, recorded by pid: its frames are named
if [ "$(id -u)" != 0 ]; then
	skip "deleted binary: needs root (/proc/PID/map_files)"
	done_testing; exit
fi
export HOME=$T/home
mkdir -p "$HOME"
cp lam mybusy
./mybusy long &
pid=$!
sleep 0.2
rm mybusy
"$PERFKIT" record -g -p "$pid" -o del.data -- sleep 0.5 >/dev/null 2>delrec.err
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
"$PERFKIT" collapse del.data >del.out 2>del.err
expect 'deleted binary: no unbalanced "[mybusy " frame' sh -c "! grep -q '\[mybusy [^]]' del.out"
expect 'deleted binary: symbols read from the copy saved by build-id' grep -q '(anonymous namespace)::helper [0-9]' del.out
expect 'deleted binary: the copy is in the build-id cache' \
	test -n "$(find "$HOME/.debug" -path '*/mybusy/*/elf' 2>/dev/null)"
done_testing
