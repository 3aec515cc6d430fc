# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit collapse: frame names that were dropped or misnamed (issue 17,
# items 1-4 and 7) — C++ anonymous namespaces and lambdas, deleted DSOs,
# half-demangled Rust names, event modifiers, jitdump and versioned vmlinux
# DSOs, CRLF text, frames without a DSO, --demangle, quotes, period 0.
# Inputs are written here in perf script's layout.
. "$(dirname "$0")/lib.sh"

fold() { "$PERFKIT" collapse "$@" 2>"$T/err"; }

# 1. a name starting with "(anonymous namespace)" is a frame of its own
printf '%s\n' 'prog 10 1.000001: 1000 cpu-clock:' \
	'	    1144 (anonymous namespace)::helper(long)+0x1a (/opt/prog)' \
	'	    1180 f+0x14 (/opt/prog)' '' \
	'prog 10 1.000002: 1000 cpu-clock:' \
	'	    1144 (prog) (/opt/prog)' \
	'	    1180 f+0x14 (/opt/prog)' '' >"$T/anon.txt"
fold "$T/anon.txt" >"$T/anon.out"
printf '%s\n' 'prog;f 1000' 'prog;f;(anonymous namespace)::helper 1000' >"$T/anon.want"
same_file '(anonymous namespace)::helper kept; a bare "(process)" frame still skipped' "$T/anon.want" "$T/anon.out"

# 2. a DSO deleted while mapped
printf '%s\n' 'server 20 2.000001: 1 cpu-clock:' \
	'	    401136 compute (/opt/app/bin/server (deleted))' \
	'	    401200 [unknown] (/opt/app/bin/server (deleted))' \
	'	    7f0000 __libc_start_main+0xf3 (/lib/x86_64-linux-gnu/libc.so.6)' '' >"$T/del.txt"
fold "$T/del.txt" >"$T/del.out"
echo 'server;__libc_start_main;[server];compute 1' >"$T/del.want"
same_file '" (deleted)" DSO: well-formed frames, DSO named by its path' "$T/del.want" "$T/del.out"

# 3a. Rust legacy names demangled halfway (inferno's form: hash dropped)
printf '%s\n' 'boa_cli 12937 10360.271071:   10101010 cpu-clock:uhH: ' \
	'            5620391bcf1e gc::gc::GcBox$LT$T$GT$::new::_$u7b$$u7b$closure$u7d$$u7d$::ha2ed0674a1c3dc9f+0x10e (/w/boa_cli)' \
	'            56203912789e _$LT$alloc..boxed..Box$LT$T$GT$$u20$as$u20$gc..trace..Trace$GT$::trace::h5d84059cf335c8e6+0xe (/w/boa_cli)' \
	'            56203912789f core::str::Split$LT$$u27$a$C$$u20$P$GT$::next::h0123456789abcdef+0xe (/w/boa_cli)' \
	'            56203912789f main+0x1 (/w/boa_cli)' '' >"$T/rust.txt"
fold "$T/rust.txt" >"$T/rust.out"
echo "boa_cli;main;core::str::Split<'a, P>::next;<alloc::boxed::Box<T> as gc::trace::Trace>::trace;gc::gc::GcBox<T>::new::_{{closure}} 10101010" >"$T/rust.want"
same_file 'Rust legacy escapes decoded, hash dropped' "$T/rust.want" "$T/rust.out"

# 3b. "cycles:u" and "cycles" are one event for the default filter
printf '%s\n' '           false 39654 19115.489713:          1 cycles:u:  ffffffff9b201293 [unknown] ([unknown])' \
	'           false 39654 19115.489719:          1 cycles:      7fa68b1f2d84 _dl_start+0x4 (/usr/lib/ld-2.31.so)' >"$T/ev.txt"
fold "$T/ev.txt" >"$T/ev.out"
printf '%s\n' 'false;[unknown] 1' 'false;_dl_start 1' >"$T/ev.want"
same_file 'event modifiers: cycles:u and cycles both kept' "$T/ev.want" "$T/ev.out"
printf '%s\n' 'a 1 1.000001: 5 sched:sched_switch:' '	    1 f (/x)' '' \
	'a 1 1.000002: 7 sched:sched_wakeup:' '	    1 g (/x)' '' >"$T/tp.txt"
fold "$T/tp.txt" >"$T/tp.out"
echo 'a;f 5' >"$T/tp.want"
same_file 'tracepoints stay distinct events' "$T/tp.want" "$T/tp.out"
fold --event-filter=cycles:u "$T/ev.txt" >"$T/evu.out"
echo 'false;[unknown] 1' >"$T/evu.want"
same_file '--event-filter with modifiers matches exactly' "$T/evu.want" "$T/evu.out"

# 3c. --jit tags frames of jitdump DSOs (perf inject --jit)
printf '%s\n' 'spshell 31714 451945.594655:   22145531 cycles: ' \
	'	        f719f4a4 fib.smx::fib+0x3c (/tmp/jitted-31714-4145673320.so)' \
	'	        f719f54c fib.smx::main+0xe4 (/root/.debug/jit/x/jitted-31714-17.so)' \
	'	        8049000 main+0x10 (/usr/bin/spshell)' '' >"$T/jit.txt"
fold --jit "$T/jit.txt" >"$T/jit.out"
echo 'spshell;main;fib.smx::main_[j];fib.smx::fib_[j] 22145531' >"$T/jit.want"
same_file '--jit: _[j] on jitted-PID-N.so frames' "$T/jit.want" "$T/jit.out"

# 3d. --kernel tags frames of a versioned vmlinux and of .ko modules
printf '%s\n' 'swapper     0 [012] 2281339.604067:   20834821 cycles:' \
	'        ffffffffc087cbc9 mlx5e_xdp_handle+0xa9 (/lib/modules/5.4.14-cf/kernel/mlx5_core.ko)' \
	'        ffffffffb8f03eaa net_rx_action+0x13a (/usr/lib/debug/boot/vmlinux-5.4.14-cloudflare-2020.1.11)' \
	'        ffffffffb88000d4 [unknown] (/usr/lib/debug/boot/vmlinux-5.4.14-cloudflare-2020.1.11)' '' >"$T/vml.txt"
fold --kernel "$T/vml.txt" >"$T/vml.out"
echo 'swapper;[vmlinux-5.4.14-cloudflare-2020.1.11]_[k];net_rx_action_[k];mlx5e_xdp_handle_[k] 20834821' >"$T/vml.want"
same_file '--kernel: _[k] on versioned vmlinux and .ko frames' "$T/vml.want" "$T/vml.out"

# 4a. a lambda keeps its enclosing function (no fake f;f recursion)
printf '%s\n' 'prog 10 1.000001: 1000 cpu-clock:' \
	'	    1166 f(int)::{lambda(int)#1}::operator()(int) const+0xc (/opt/prog)' \
	'	    1180 f(int)+0x14 (/opt/prog)' '' >"$T/lam.txt"
fold "$T/lam.txt" >"$T/lam.out"
echo 'prog;f;f(int)::{lambda(int)#1}::operator 1000' >"$T/lam.want"
same_file 'lambda named by its enclosing function, not cut to f' "$T/lam.want" "$T/lam.out"

# 4b. CRLF text: blank lines still end samples
printf 'p 1 1.000001: 3 cpu-clock:\r\n\t  1 a (/x)\r\n\r\np 1 1.000002: 4 cpu-clock:\r\n\t  1 b (/x)\r\n\r\n' >"$T/crlf.txt"
fold "$T/crlf.txt" >"$T/crlf.out"
printf '%s\n' 'p;a 3' 'p;b 4' >"$T/crlf.want"
same_file 'CRLF: samples are not glued together' "$T/crlf.want" "$T/crlf.out"

# 4c. perf script -F comm,tid,ip,sym: frames without a DSO
printf 'busy 27252 \n\t            114d compute\n\t           2724a __libc_start_call_main\n\nbusy 27252 \n\t            114e compute\n\t               0 [unknown]\n\n' >"$T/nodso.txt"
fold "$T/nodso.txt" >"$T/nodso.out"
printf '%s\n' 'busy;[unknown];compute 1' 'busy;__libc_start_call_main;compute 1' >"$T/nodso.want"
same_file 'frame lines without a DSO are read' "$T/nodso.want" "$T/nodso.out"
expect 'frame lines without a DSO: no warning' test ! -s "$T/err"

# 4d. --demangle: names perf script printed mangled
printf '%s\n' 'prog 10 1.000001: 1000 cpu-clock:' \
	'	    1144 _ZN12_GLOBAL__N_16helperEl+0x1a (/opt/prog)' \
	'	    1166 _ZZ1flENKUllE_clEl+0xc (/opt/prog)' \
	'	    1180 _Z1fl+0x14 (/opt/prog)' \
	'	    1190 main+0x14 (/opt/prog)' '' >"$T/mangled.txt"
fold --demangle "$T/mangled.txt" >"$T/dem.out"
echo 'prog;main;f;f(long)::{lambda(long)#1}::operator;(anonymous namespace)::helper 1000' >"$T/dem.want"
same_file '--demangle: mangled C++ names demangled' "$T/dem.want" "$T/dem.out"
fold "$T/mangled.txt" >"$T/nodem.out"
expect 'without --demangle the names stay mangled' grep -q '_Z1fl' "$T/nodem.out"

# 4e. quotes are kept (only backslash-escaped ones go, as in the Perl script)
printf '%s\n' 'node 7539 1.000001: 1 cpu-clock:' \
	"            13a80b608e0a RegExp:[&<>\"'] (/tmp/perf-7539.map)" \
	"            13a80b608e0b RegExp:[&<>\\\"\\'] (/tmp/perf-7539.map)" '' >"$T/q.txt"
fold "$T/q.txt" >"$T/q.out"
printf '%s\n' "node;RegExp:[&<>\\\\];RegExp:[&<>\"'] 1" >"$T/q.want"
same_file 'quotes in names kept' "$T/q.want" "$T/q.out"

# 7. a period of 0 weighs 0; a missing period weighs 1
printf '%s\n' 'w 1 1.000001: 1000 cpu-clock:' '	1 heavy (/x)' '' \
	'w 1 1.000002: 2000 cpu-clock:' '	1 heavy (/x)' '' \
	'w 1 1.000003: 0 cpu-clock:' '	1 heavy (/x)' '' \
	'w 1 1.000004: cpu-clock:' '	1 light (/x)' '' >"$T/p0.txt"
fold "$T/p0.txt" >"$T/p0.out"
printf '%s\n' 'w;heavy 3000' 'w;light 1' >"$T/p0.want"
same_file 'period 0 counts 0, no period counts 1' "$T/p0.want" "$T/p0.out"

done_testing
