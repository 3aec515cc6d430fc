# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit diff (issue 17, item 10): a symbol only in OLD reads "gone" with
# its share and sorts by the share it lost; one only in NEW reads "new".
. "$(dirname "$0")/lib.sh"

if ! have cc || ! can_perf_event; then
	skip "needs cc and perf_event_open"; done_testing; exit
fi
cat >"$T/ab.c" <<'C'
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) void fa(long n) { for (long i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void fb(long n) { for (long i = 0; i < n; i++) sink += i * 3; }
__attribute__((noinline)) void fc(long n) { for (long i = 0; i < n; i++) sink += i * 5; }
int main(int argc, char **argv) { int m = atoi(argv[1]); fa(100000000); if (m & 1) fb(60000000); if (m & 2) fc(40000000); return 0; }
C
cc -O1 -o "$T/ab" "$T/ab.c" || { skip "cc failed"; done_testing; exit; }
"$PERFKIT" record -o "$T/old.data" -- "$T/ab" 1 >/dev/null 2>&1
"$PERFKIT" record -o "$T/new.data" -- "$T/ab" 2 >/dev/null 2>&1
"$PERFKIT" diff "$T/old.data" "$T/new.data" >"$T/out" 2>"$T/err"
expect 'diff runs' test $? = 0
grep -v '^#' "$T/out" | grep . >"$T/rows"
fb=$(grep ' fb$' "$T/rows")
expect "fb (only in OLD) reads gone with its share: '$fb'" \
	sh -c "echo '$fb' | grep -Eq '^ +[0-9]+\.[0-9]+% +gone +ab +\[\.\] fb$'"
fc=$(grep ' fc$' "$T/rows")
expect "fc (only in NEW) reads new with its delta: '$fc'" \
	sh -c "echo '$fc' | grep -Eq '^ +new +\+[0-9]+\.[0-9]+% +ab +\[\.\] fc$'"
# fb lost about a third of the samples: it sorts among the big changes,
# above every row whose change is smaller than its share
share=$(echo "$fb" | awk '{ sub(/%/, "", $1); print $1 }')
above=$(awk -v s="$share" '/ fb$/ { exit } { d = ($2 == "gone") ? $1 : $2; gsub(/[%+-]/, "", d); if (d + 0 < s + 0) bad = 1 } END { print bad + 0 }' "$T/rows")
expect 'gone row in its sort place (every row above changed more)' test "$above" = 0
below=$(awk -v s="$share" 'f { d = ($2 == "gone") ? $1 : $2; gsub(/[%+-]/, "", d); if (d + 0 > s + 0) bad = 1 } / fb$/ { f = 1 } END { print bad + 0 }' "$T/rows")
expect 'gone row in its sort place (no row below changed more)' test "$below" = 0
expect 'no blank delta or baseline' sh -c "! grep -Eq '^ {10}  |^ +[0-9.]+% {11}' '$T/rows'"
done_testing
