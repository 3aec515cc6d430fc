#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit cache and perfkit annotate on bad input: a missing program, a
# program that crashes, malformed geometry options, a malformed or missing
# data file — one clear line each; the program's exit status passes through.
. "$(dirname "$0")/lib.sh"

one_line() { # description file pattern
	if [ "$(wc -l <"$2")" -eq 1 ] && grep -q -- "$3" "$2"; then ok "$1"
	else not_ok "$1"; sed 's/^/# /' "$2" | head -5; fi
}

# usage errors need no Valgrind
"$PERFKIT" cache --D1=8192,3,64 -- true 2>"$T/e"; rc=$?
expect "bad geometry: exit 2" [ $rc -eq 2 ]
one_line "bad geometry: one line naming the option and why" "$T/e" "^perfkit cache: --D1=8192,3,64: .*power of two"
"$PERFKIT" cache --LL=32K,8,64 -- true 2>"$T/e"; rc=$?
expect "non-numeric geometry: exit 2" [ $rc -eq 2 ]
one_line "non-numeric geometry: one line" "$T/e" "^perfkit cache: --LL=32K,8,64: expected SIZE,ASSOC,LINE"
"$PERFKIT" cache --tlb=64,4 -- true 2>"$T/e"; rc=$?
expect "bad --tlb: exit 2" [ $rc -eq 2 ]
one_line "bad --tlb: one line" "$T/e" "^perfkit cache: --tlb=64,4: expected ENTRIES,ASSOC,PAGE"
"$PERFKIT" cache --model=cachegrind --L2=262144,8,64 -- true 2>"$T/e"; rc=$?
expect "--L2 with the cachegrind model: exit 2" [ $rc -eq 2 ]
# cachegrind refuses a line shorter than the largest register it simulates
# (32 B with AVX, else 16 B): its counts for one do not exist
if grep -qw avx /proc/cpuinfo; then
	"$PERFKIT" cache --model=cachegrind --LL=32768,8,16 -- true 2>"$T/e"; rc=$?
	expect "cachegrind model, a 16 B line on an AVX machine: exit 2" [ $rc -eq 2 ]
	one_line "... one line saying why (the 32 B register)" "$T/e" "^perfkit cache: --LL: a line of 16 B is shorter than the largest register valgrind simulates here (32 B)"
else
	skip "no AVX here: cachegrind takes a 16 B line"
fi
"$PERFKIT" cache --model=fast -- true 2>"$T/e"; rc=$?
expect "unknown model: exit 2" [ $rc -eq 2 ]
grep -q "expected cachegrind or modern" "$T/e" && ok "unknown model: says what is expected" || not_ok "unknown model: says what is expected"
"$PERFKIT" cache -q -o "$T/none.out" -- /nonexistent/prog 2>"$T/e"; rc=$?
expect "missing program: exit 127" [ $rc -eq 127 ]
one_line "missing program: one line" "$T/e" "'/nonexistent/prog': no such executable file"
"$PERFKIT" cache -q -o "$T/none.out" -- no-such-command-pk 2>"$T/e"; rc=$?
one_line "unknown command: one line" "$T/e" "'no-such-command-pk': command not found"
expect "no output file after a failed start" [ ! -e "$T/none.out" ]
# annotate's source view as cg_annotate's: the first block not at line 1
# is marked with its line; counts past the end of the file are noted from
# the first such line (it named the last)
printf 'x\n' >"$T/one.c"
printf 'cmd: x\nevents: Ir\nfl=%s\nfn=f\n2 5\n7 3\n9 1\nsummary: 9\n' "$T/one.c" >"$T/one.out"
"$PERFKIT" annotate "$T/one.out" >"$T/o" 2>/dev/null
expect "annotate: counts past the end noted from the first such line (2)" \
	grep -q 'counts for line 2 and later lie past the end of the file' "$T/o"
seq 1 20 | sed 's/^/line /' >"$T/twenty.c"
printf 'cmd: x\nevents: Ir\nfl=%s\nfn=f\n12 5\nsummary: 5\n' "$T/twenty.c" >"$T/twenty.out"
"$PERFKIT" annotate "$T/twenty.out" --context=2 >"$T/o" 2>/dev/null
expect "annotate --context=2: the first block marked '-- line 10', as cg_annotate's" \
	sh -c "grep -A1 -- '^-- Source file: $T/twenty.c' '$T/o' | grep -q -- '^-- line 10 ---'"
# cg_annotate's --sort list: by the first event, ties by the next; the
# first's ":P" its threshold
printf 'cmd: x\nevents: Ir D1mr\nfl=%s\nfn=f\n1 10 1\nfn=g\n2 10 5\nfn=h\n3 1 0\nsummary: 21 6\n' "$T/twenty.c" >"$T/ties.out"
"$PERFKIT" annotate "$T/ties.out" --sort=Ir,D1mr --auto=no >"$T/o" 2>&1
expect "--sort=Ir,D1mr: the order named" grep -q '^Event sort order: Ir D1mr$' "$T/o"
expect "... equal Ir: g (D1mr 5) before f (D1mr 1)" \
	test "$(grep -E ':(f|g)$' "$T/o" | head -2 | sed 's/.*://' | tr '\n' ' ')" = "g f "
"$PERFKIT" annotate "$T/ties.out" --sort=Ir:10 --auto=no >"$T/o" 2>&1
expect "--sort=Ir:10: threshold 10 %" grep -q '^Threshold: *10%$' "$T/o"
expect "... h (1 of 21 Ir) left out" sh -c "! grep -q ':h\$' '$T/o'"
"$PERFKIT" annotate "$T/ties.out" --sort=Ir,Nope >/dev/null 2>"$T/e"; rc=$?
expect "--sort=Ir,Nope: usage error (2) naming the event" [ $rc -eq 2 ] && grep -q "no event 'Nope'" "$T/e"
# --help states the defaults the tool uses (stream was missing, stride named)
"$PERFKIT" cache --help >"$T/h" 2>&1
for o in '--prefetch=none|next-line|stride|stream' 'default stream' '--l1-prefetch=yes|no' '--stlb=ENTRIES,ASSOC|none' \
	'no with cachegrind' '126 when it cannot be run'; do
	expect "--help: $o" grep -qF -- "$o" "$T/h"
done
# options with their values as separate arguments (getopt's and valgrind's
# "--output FILE"), and cachegrind's own names for the output file and the
# cache simulation
"$PERFKIT" cache -q --model cachegrind --output "$T/sp.out" --D1 32768,8,64 -- true 2>"$T/e"; rc=$?
expect "--model cachegrind --output FILE --D1 S,A,L: exit 0, the file written" [ $rc -eq 0 -a -s "$T/sp.out" ]
expect "... the D1 given" grep -q '^desc: D1 cache: *32768 B, 64 B, 8-way' "$T/sp.out"
expect "... the cachegrind model's events" grep -q '^events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw $' "$T/sp.out"
"$PERFKIT" cache -q --cachegrind-out-file="$T/cgo.out" --cache-sim=yes -- true 2>"$T/e"; rc=$?
expect "--cachegrind-out-file=FILE --cache-sim=yes: exit 0, the file written" [ $rc -eq 0 -a -s "$T/cgo.out" ]
"$PERFKIT" cache -q --cache-sim=no -- true 2>"$T/e"; rc=$?
expect "--cache-sim=no: usage error (2), saying why" [ $rc -eq 2 ] && grep -q 'always simulates the caches' "$T/e"
"$PERFKIT" cache -q --model 2>"$T/e"; rc=$?
expect "--model without a value: usage error (2)" [ $rc -eq 2 ]
# a program that execs another: valgrind follows no exec and writes nothing
# (cachegrind neither); one line saying so, not "valgrind failed (exit 0)"
"$PERFKIT" cache -q -o "$T/none.out" -- sh -c 'exec true' 2>"$T/e"; rc=$?
expect "a program that execs: exit 1, no file" [ $rc -eq 1 -a ! -e "$T/none.out" ]
one_line "... one line naming the exec" "$T/e" "sh exited (status 0) with no counts written: .*exec()"
# there but not runnable: valgrind's and the shell's 126, "Permission denied"
printf 'x\n' >"$T/notexec.txt"
chmod 644 "$T/notexec.txt"
"$PERFKIT" cache -q -o "$T/none.out" -- "$T/notexec.txt" 2>"$T/e"; rc=$?
expect "a file that cannot be run: exit 126" [ $rc -eq 126 ]
one_line "... one line: Permission denied" "$T/e" "'$T/notexec.txt': Permission denied"
"$PERFKIT" cache -q -o "$T/none.out" -- "$T" 2>"$T/e"; rc=$?
expect "a directory: exit 126" [ $rc -eq 126 ]
one_line "... one line: Is a directory" "$T/e" "'$T': Is a directory"
"$PERFKIT" stat -- "$T/notexec.txt" >/dev/null 2>"$T/e"; rc=$?
expect "stat of a file that cannot be run: exit 126" [ $rc -eq 126 ]

# annotate on bad files (no Valgrind needed)
printf 'cmd: x\nevents: Ir Dr\nfl=a.c\nfn=f\n12 3 4\n13 x 1\n' >"$T/bad.out"
"$PERFKIT" annotate "$T/bad.out" >"$T/o" 2>"$T/e"; rc=$?
expect "annotate bad count line: exit 1" [ $rc -eq 1 ]
one_line "annotate bad count line: FILE:LINE" "$T/e" "bad.out:6: expected a line number and up to 2 counts"
expect "annotate bad file: nothing on stdout" [ ! -s "$T/o" ]
printf 'hello\n' >"$T/text"
"$PERFKIT" annotate "$T/text" 2>"$T/e" >/dev/null
one_line "annotate non-Cachegrind file: one line" "$T/e" "text is neither a perf.data file nor Cachegrind output"
"$PERFKIT" annotate "$T/missing.out" 2>"$T/e" >/dev/null; rc=$?
expect "annotate missing file: exit 1" [ $rc -eq 1 ]
one_line "annotate missing file: one line" "$T/e" "missing.out does not exist"
printf 'cmd: x\nevents: Ir\nfl=a.c\nfn=f\n1 5\n' >"$T/ok.out"
"$PERFKIT" annotate "$T/ok.out" --sort=D1mr 2>"$T/e" >/dev/null; rc=$?
expect "annotate unknown sort event: exit 2" [ $rc -eq 2 ]
one_line "annotate unknown sort event: one line" "$T/e" "has no event 'D1mr'"

if ! have valgrind || ! ls "$PK_BUILD"/vgtool/lib/pkcache-* >/dev/null 2>&1; then
	skip "valgrind or the pkcache tool is not built (mk/cache.mk)"
	done_testing
	exit
fi
cat >"$T/prog.c" <<'EOF'
#include <stdlib.h>
int main(int argc, char **argv)
{
	if (argc > 1 && argv[1][0] == 'c') {
		volatile int *p = 0;
		return *p;
	}
	return argc > 1 ? atoi(argv[1]) : 0;
}
EOF
cc -O1 -g -o "$T/prog" "$T/prog.c"
"$PERFKIT" cache -q --model=cachegrind --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 -o "$T/x.out" -- "$T/prog" 7 2>"$T/e"; rc=$?
expect "exit status 7 passed through" [ $rc -eq 7 ]
expect "exit 7: output still written" [ -s "$T/x.out" ]
expect "exit 7: nothing on stderr with -q" [ ! -s "$T/e" ]
"$PERFKIT" cache -q -o "$T/c.out" -- "$T/prog" crash 2>"$T/e"; rc=$?
expect "crashing program: exit 128+SIGSEGV" [ $rc -eq 139 ]
one_line "crashing program: one line" "$T/e" "killed by signal 11 (Segmentation fault); counts up to then in"
expect "crashing program: counts written" grep -q '^summary:' "$T/c.out"
ls "$T" | grep -q 'tmp\.\|log\.' && not_ok "no temporary files left" || ok "no temporary files left"
# annotate reads perf.data too (told apart by content): a cut one, one line
printf 'PERFILE2\0\0\0\0\0\0\0\0' >"$T/p.data"
"$PERFKIT" annotate "$T/p.data" >/dev/null 2>"$T/e"; rc=$?
expect "annotate cut perf.data: exit 1" [ $rc -eq 1 ]
one_line "annotate cut perf.data: one line on its header" "$T/e" "p.data: bad header"
# PERFKIT_SYSFS_CPU naming no cache description: an error, not the host's
PERFKIT_SYSFS_CPU=$T/nowhere "$PERFKIT" cache -q -o "$T/sys.out" -- true 2>"$T/e"; rc=$?
expect "PERFKIT_SYSFS_CPU without a description: exit 1" [ $rc -eq 1 ]
one_line "... one line naming the folder" "$T/e" "PERFKIT_SYSFS_CPU='$T/nowhere': no cache description in '$T/nowhere/cpu0/cache/index\*/'"
expect "... and no output file" [ ! -e "$T/sys.out" ]
# a perfkit binary copied without vgtool/: the message says where it looked
cp "$PERFKIT" "$T/pkcopy"
PERFKIT_VALGRIND_LIB= "$T/pkcopy" cache -q -- true 2>"$T/e"; rc=$?
if have valgrind; then
	expect "no vgtool beside a copied binary: exit 1" [ $rc -eq 1 ]
	one_line "... one line naming where it looked" "$T/e" "is not in vgtool/ beside the perfkit binary ('$T/vgtool', '$T/vgtool/lib') nor in '$T/../libexec/perfkit/vgtool'"
fi

# annotate of a Cachegrind file naming its source by a relative path:
# cg_annotate's -I DIR finds it; a source newer than the counts file gets
# cg_annotate's warning (the counts may stand beside the wrong lines)
mkdir -p "$T/inc/rel"
printf 'int a;\nint b;\nint c;\n' >"$T/inc/rel/x.c"
printf 'desc: I1 cache: 32768 B, 64 B, 8-way associative\ncmd: ./x\nevents: Ir\nfl=rel/x.c\nfn=main\n1 10\n3 5\nsummary: 15\n' >"$T/syn.out"
touch -d '2020-01-01' "$T/syn.out"
(cd "$T" && "$PERFKIT" annotate syn.out) >"$T/noinc" 2>&1
expect "annotate, a relative source not found: says -I DIR would look for it" grep -q -- '-I DIR looks for it' "$T/noinc"
(cd "$T" && "$PERFKIT" annotate syn.out -Iinc) >"$T/inc1" 2>&1
(cd "$T" && "$PERFKIT" annotate -I inc syn.out) >"$T/inc2" 2>&1
(cd "$T" && "$PERFKIT" annotate --include=inc syn.out) >"$T/inc3" 2>&1
expect "-Iinc, -I inc, --include=inc: the source found, its counted lines beside it" \
	sh -c "for f in '$T/inc1' '$T/inc2' '$T/inc3'; do grep -q '^10  int a;' \$f && grep -q '^ 5  int c;' \$f || exit 1; done"
expect "... newer than the counts file: cg_annotate's warning, naming both" \
	grep -q "WARNING @@ source file 'inc/rel/x.c' is more recent than the counts file 'syn.out'" "$T/inc1"
touch "$T/syn.out"
(cd "$T" && "$PERFKIT" annotate syn.out -Iinc) >"$T/inc4" 2>&1
expect "... not newer: no warning" sh -c "! grep -q WARNING '$T/inc4' && grep -q '^10  int a;' '$T/inc4'"
done_testing
