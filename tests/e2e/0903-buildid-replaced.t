# SPDX-License-Identifier: GPL-2.0-or-later
# Build-ids: a binary rebuilt after the recording is never used to name the
# recorded addresses (its build-id differs from the one in the file's
# BUILD_ID feature): report shows [unknown] and says why, once; a copy of
# the recorded binary in perf's build-id cache (~/.debug/.build-id) is
# used instead.
. "$(dirname "$0")/lib.sh"

if ! have cc || ! can_perf_event; then
	skip "needs cc and perf_event_open"
	done_testing; exit
fi
src() {
	cat <<C
volatile unsigned long sink;
__attribute__((noinline)) void $1(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i * i; }
int main(void) { $1(200000000UL); return 0; }
C
}
src alpha_hot >"$T/v1.c"
src omega_new >"$T/v2.c"
cc -O1 -g -Wl,--build-id -o "$T/prog" "$T/v1.c" || { skip "cc failed"; done_testing; exit; }
cp "$T/prog" "$T/prog.v1"
cd "$T"
mkdir home
HOME=$T/home "$PERFKIT" record -F 999 -o v1.data ./prog >/dev/null 2>rec.err
expect 'record: exit 0' test $? -eq 0
HOME=$T/home "$PERFKIT" report -i v1.data >same.txt 2>same.err
expect 'same binary: alpha_hot named' grep -q '\[\.\] alpha_hot$' same.txt
expect 'same binary: no warning' test ! -s same.err

# rebuild at the same path: same layout, another name, another build-id
cc -O1 -g -Wl,--build-id -o "$T/prog" "$T/v2.c"
HOME=$T/home "$PERFKIT" report -i v1.data >new.txt 2>new.err
expect 'rebuilt binary: its names are not used' sh -c "! grep -q omega_new new.txt"
expect 'rebuilt binary: the samples stay in prog, [unknown] symbol' grep -q ' prog  *\[\.\] 0x' new.txt
expect 'rebuilt binary: one warning naming the build-id mismatch' \
	sh -c "grep -c 'build-id' new.err | grep -qx 1"
HOME=$T/home "$PERFKIT" script -i v1.data 2>/dev/null >new-script.txt
expect 'script: neither' sh -c "! grep -q omega_new new-script.txt"

# the recorded binary in perf's build-id cache is found through the id
bid=$(perf report -i v1.data --header-only 2>/dev/null | awk '/prog$/ && /^# *[0-9a-f]{40}/ { print $2; exit }')
[ -n "$bid" ] || bid=$(readelf -n prog.v1 | awk '/Build ID/ { print $3 }')
mkdir -p "home/.debug/.build-id/${bid:0:2}/${bid:2}"
cp prog.v1 "home/.debug/.build-id/${bid:0:2}/${bid:2}/elf"
HOME=$T/home "$PERFKIT" report -i v1.data >cache.txt 2>cache.err
expect 'build-id cache: alpha_hot named again' grep -q '\[\.\] alpha_hot$' cache.txt
expect 'build-id cache: no warning' test ! -s cache.err
done_testing
