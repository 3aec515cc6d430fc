#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# opensnoop -F (issue 17, item 6): "./" and ".." inside a relative path are
# folded ("/tmp/osn/./a.txt", "/tmp/osn/sub/../a.txt" read "/tmp/osn/a.txt");
# a successful open shows the file the kernel opened (a ".." after a
# symlink leads where the kernel went), a failed one the lexical fold.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require

D=$(cd -P "$T" && pwd)/osn
mkdir -p "$D/sub" "$D/other/deep"
echo a >"$D/a.txt"
echo c >"$D/other/c.txt"
ln -s other/deep "$D/link"
cp "$(command -v cat)" "$T/osncat"
if tracer_start "$T/out" "$T/err" "$PERFKIT" opensnoop -F -n osncat; then
	(cd "$D" && "$T/osncat" ./a.txt sub/../a.txt sub/./../sub/../a.txt link/../c.txt nosuch/./../nope.txt >/dev/null 2>&1)
	sleep 0.5
	tracer_stop
	sed 's/^/# /' "$T/out" | grep osncat | head -8
	n=$(grep -Ec "^[0-9]+ +osncat +[0-9]+ +0 $D/a.txt\$" "$T/out")
	expect "./a.txt, sub/../a.txt, sub/./../sub/../a.txt all read $D/a.txt ($n of 3)" test "$n" -ge 3
	expect 'no "./" or "/../" left in a path' sh -c "! grep -E 'osncat .*(/\./|/\.\./)' '$T/out'"
	expect 'link/../c.txt: the file the kernel opened (through the symlink)' \
		grep -Eq "^[0-9]+ +osncat +[0-9]+ +0 $D/other/c.txt\$" "$T/out"
	expect 'a failed open: folded lexically' grep -Eq "^[0-9]+ +osncat +-1 +2 $D/nope.txt\$" "$T/out"
else
	not_ok 'opensnoop -F starts'
fi
done_testing
