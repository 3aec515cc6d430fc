#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/install-deps --build (make demo's deps-build) installs only Debian
# packages: it never runs npm (the test-only packages of tests/browser and
# tests/pprof need the network) nor asks for node; without --build (make
# check, CI) it still does.  Run on a copy of the script, with stub
# dpkg-query (every package installed) and npm (records its calls) first in
# PATH, so nothing is installed.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/tree/scripts" "$T/tree/tests/browser" "$T/tree/tests/pprof" "$T/bin"
cp "$TOP/scripts/install-deps" "$T/tree/scripts/"
printf '#!/bin/sh\nprintf "install ok installed"\n' >"$T/bin/dpkg-query"
printf '#!/bin/sh\necho "npm $*" >>"%s/npm.calls"\n' "$T" >"$T/bin/npm"
printf '#!/bin/sh\nexit 0\n' >"$T/bin/node"
chmod +x "$T/bin/"*

PATH=$T/bin:$PATH "$T/tree/scripts/install-deps" --build >"$T/b.out" 2>&1
expect "--build: exits 0 when the packages are there" test $? = 0
expect "--build: npm not run" test ! -e "$T/npm.calls"
expect "--build: prints nothing" test ! -s "$T/b.out"

PATH=$T/bin:$PATH "$T/tree/scripts/install-deps" >"$T/a.out" 2>&1
expect "no option: exits 0" test $? = 0
expect "no option: npm ci in tests/browser and tests/pprof" test "$(grep -c '^npm ci' "$T/npm.calls" 2>/dev/null)" = 2

PATH=$T/bin:$PATH "$T/tree/scripts/install-deps" --bogus >/dev/null 2>&1
expect "unknown option: usage error (2)" test $? = 2

expect "make demo depends on deps-build, not deps" \
	sh -c 'make -s -n -C "$0" demo BUILD="$1" 2>/dev/null | grep -q "scripts/install-deps --build"' "$TOP" "$T/nobuild"
expect "make check keeps the full install-deps" \
	sh -c 'make -s -n -C "$0" check BUILD="$1" 2>/dev/null | grep -qx "scripts/install-deps"' "$TOP" "$T/nobuild"
done_testing
