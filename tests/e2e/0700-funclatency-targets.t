#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit funclatency targets, as bcc's funclatency takes them: options
# after BINARY:FUNCTION, a C++ name with "::" (split at the first ':' that
# ends the binary, even one whose path holds a ':'), library names without
# a path (c, libc, libc.so.6), and one clear line for a missing process,
# a non-ELF file, a missing library and an ambiguous overload.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require

mkdir -p "$T/a:b"
cp "$PK_BUILD/tests/workloads/cxxname" "$T/a:b/cxx"
CX="$T/a:b/cxx"

# options after the target (-u), a C++ name, a ':' in the binary's path
if tracer_start "$T/out" "$T/err" "$PERFKIT" funclatency "$CX:ns::Acc<double>::add" -u; then
	"$CX" 7
	tracer_stop
	expect 'Ctrl-C ends it with status 0' test $? = 0
	sed 's/^/# /' "$T/out" "$T/err"
	expect 'the binary is the one with a ":" in its path, the function the C++ name' \
		grep -qF "Tracing 1 function for \"$CX:ns::Acc<double>::add\"" "$T/err"
	expect '-u after the target is used (usecs histogram)' \
		grep -Eq '^ +usecs +: count +distribution$' "$T/out"
	expect 'its 7 calls counted' grep -Eq 'count: 7$' "$T/out"
else
	not_ok 'funclatency with options after the target starts'
fi

# a plain C++ function (no namespace, one overload): "mid" finds _Z3midi
if tracer_start "$T/out2" "$T/err2" "$PERFKIT" funclatency "$CX:mid"; then
	"$CX" 1
	tracer_stop
	expect "a plain C++ name (mid for _Z3midi): its 3 calls" grep -Eq 'count: 3$' "$T/out2"
else
	not_ok 'funclatency CX:mid starts'; sed 's/^/# /' "$T/err2"
fi

# a library without a path: c:nanosleep, system-wide, -d after the target;
# the workload sleeps 7 times (others may call nanosleep too)
"$PERFKIT" funclatency c:nanosleep -d 5 >"$T/lout" 2>"$T/lerr" &	# 5 s: time to start $CX on a loaded machine
lpid=$!
for _ in $(seq 100); do grep -q 'Hit Ctrl-C' "$T/lerr" && break; sleep 0.1; done
"$CX" 7
wait "$lpid"
expect 'c:nanosleep -d 5: ends by itself with status 0' test $? = 0
sed 's/^/# /' "$T/lerr"
expect 'c: resolved to libc.so.6 (ld.so cache)' grep -Eq 'Tracing 1 function for "/.*/libc\.so\.6:nanosleep"' "$T/lerr"
n=$(sed -n 's/.*count: \([0-9]*\)$/\1/p' "$T/lout")
expect "c:nanosleep: at least the workload's 7 calls ($n)" test "${n:-0}" -ge 7

for lib in c libc libc.so.6; do
	"$PERFKIT" funclatency "$lib:no_such_function_xyz" >/dev/null 2>"$T/e-$lib"
	expect "$lib:FUNC: exit 1" test $? = 1
	expect "$lib: names libc.so.6 (the error is about the function)" \
		grep -Eq "/libc\.so\.6': no function 'no_such_function_xyz'" "$T/e-$lib"
done
"$PERFKIT" funclatency nosuchlibxyz:malloc >/dev/null 2>"$T/e-nolib"
expect 'a missing library: exit 1' test $? = 1
expect '... one line saying it is neither in $PATH nor a library' \
	test "$(cat "$T/e-nolib")" = "perfkit funclatency: 'nosuchlibxyz': not found in \$PATH, and no library libnosuchlibxyz.so in the ld.so cache (/etc/ld.so.cache) nor the standard library directories"

# a process that does not exist: said so, not CONFIG_UPROBES, no doubled prefix
"$PERFKIT" funclatency -p 999999 "$CX:ns::Acc<double>::add" >/dev/null 2>"$T/e-pid"
expect '-p 999999: exit 1' test $? = 1
diag "$(cat "$T/e-pid")"
expect '-p 999999: "no process with PID 999999", in one line' \
	test "$(cat "$T/e-pid")" = "perfkit funclatency: no process with PID 999999"

"$PERFKIT" funclatency /etc/passwd:foo >/dev/null 2>"$T/e-elf"
expect 'a non-ELF file: exit 1' test $? = 1
expect '... "not an ELF file"' \
	test "$(cat "$T/e-elf")" = "perfkit funclatency: '/etc/passwd': not an ELF file"

"$PERFKIT" funclatency "$CX:ns::over" >/dev/null 2>"$T/e-over"
expect 'an overloaded name: exit 1' test $? = 1
expect '... asks for the parameter list' grep -q "'ns::over' names several functions" "$T/e-over"
"$PERFKIT" funclatency "$T/a:b/nope:ns::f" >/dev/null 2>"$T/e-nofile"
expect 'a missing binary: exit 1, named' grep -qF "'$T/a:b/nope': no such file" "$T/e-nofile"
"$PERFKIT" funclatency "$CX:ns::Acc<double>::add" "$CX:main" >/dev/null 2>&1
expect 'two targets: usage error (exit 2)' test $? = 2
done_testing
