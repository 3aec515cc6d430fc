#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Rows of equal period in perf's order, and perf's column layout, on a
# perf.data made here (mkties.py: one sample a row, so every row ties):
# perf report sorts equal rows by the sort keys (hist_entry__sort), a
# symbol by its name alone and the rows shown as an address (no symbol)
# after every named one, by address.  perfkit once put the addresses
# first ("[.] 0x..." sorted as text): a CI run failed on two
# cpu-clock rows of one sample each in dash.  The layout: the DSO
# column at least 16 wide when a row has no symbol, the last column
# padded when it is a comm, DSO or pid (perf's "%-*s"), not when a
# symbol; perf's "# To display the perf.data header info" first line;
# a file without event names named as perf 6.1 names it (cpu-clock:uh).
. "$(dirname "$0")/lib.sh"

if ! have python3 || ! have nm; then skip "python3 or nm not installed"; done_testing; exit; fi
B=$PK_BUILD/tests/workloads/vdsoloop
nm "$B" >"$T/nm.out" 2>/dev/null
addr() { awk -v s="$1" '$3 == s { print $1 }' "$T/nm.out"; }
# an address in the text after a sized function and before the next
# symbol (crt1's _start is followed by alignment padding): no symbol
gap= e=
while read -r a s t n; do
	if [ -n "$e" ]; then
		if [ $((e)) -lt $((0x$a)) ]; then gap=$(printf %x $e); break; fi
		e=
	fi
	case "$n:$t" in ?*:[tT]) e=$((0x$a + 0x$s)) ;; esac
done < <(nm -nS --defined-only "$B")
diag "a text address without a symbol: ${gap:-none}"
gap_pt=${gap:+$gap:1}
python3 "$TOP/tests/e2e/mkties.py" "$T/ties.data" "$B" "$(addr main):3" "$(addr _start):1" \
	"$(addr register_tm_clones):1" "$(addr deregister_tm_clones):1" $gap_pt -- \
	/nonexistent/libtie.so 300:1 100:1 200:1
expect "mkties.py wrote the file" test -s "$T/ties.data"

rows() { "$PERFKIT" report -i "$T/ties.data" --stdio -g none --sort "$1" 2>"$T/err" | grep -v '^#' | grep .; }
gaprow() { [ -z "$gap" ] || printf '    10.00%%  %s[.] 0x%016x\n' "$1" "0x$gap"; }
rows sym >"$T/sym.pk"
{
	printf '    30.00%%  [.] main\n'
	printf '    10.00%%  [.] %s\n' _start deregister_tm_clones register_tm_clones
	printf '    10.00%%  [.] 0x%016x\n' 0x100 0x200 0x300
	gaprow ""
} >"$T/sym.want"
expect "--sort sym: equal rows by name, then the addresses by address" cmp -s "$T/sym.want" "$T/sym.pk"
diff "$T/sym.want" "$T/sym.pk" | head -6 | sed 's/^/# /'

rows dso,sym >"$T/dsosym.pk"
{
	printf '    30.00%%  vdsoloop          [.] main\n'
	printf '    10.00%%  libtie.so         [.] 0x%016x\n' 0x100 0x200 0x300
	printf '    10.00%%  vdsoloop          [.] %s\n' _start deregister_tm_clones register_tm_clones
	gaprow "vdsoloop          "
} >"$T/dsosym.want"
expect "--sort dso,sym: by DSO, then names, then addresses; the DSO column 16 wide" \
	cmp -s "$T/dsosym.want" "$T/dsosym.pk"
diff "$T/dsosym.want" "$T/dsosym.pk" | head -6 | sed 's/^/# /'

rows dso >"$T/dso.pk"
printf '    70.00%%  vdsoloop        \n    30.00%%  libtie.so       \n' >"$T/dso.want"
[ -n "$gap" ] || printf '    66.67%%  vdsoloop        \n    33.33%%  libtie.so       \n' >"$T/dso.want"
expect "--sort dso: the last column padded to its width, as perf's" cmp -s "$T/dso.want" "$T/dso.pk"
rows sym,dso | head -1 >"$T/symdso.pk"
printf '    30.00%%  [.] main                  vdsoloop        \n' >"$T/symdso.want"
expect "--sort sym,dso: the symbol column padded, the DSO too" cmp -s "$T/symdso.want" "$T/symdso.pk"
rows pid >"$T/pid.pk"
expect "--sort pid: '   4242:ties' padded to the header's 15" \
	test "$(cat "$T/pid.pk")" = "   100.00%     4242:ties   "
"$PERFKIT" report -i "$T/ties.data" --stdio -g none --sort pid 2>/dev/null | grep Pid >"$T/pid.head"
expect "--sort pid: perf's header '    Pid:Command'" grep -qx '# Overhead      Pid:Command' "$T/pid.head"
"$PERFKIT" report -i "$T/ties.data" --stdio -g none >"$T/full.pk" 2>/dev/null
expect "perf's first line" test "$(head -1 "$T/full.pk")" = \
	"# To display the perf.data header info, please use --header/--header-only options."
expect "an attr without a name, exclude_kernel: perf's 'cpu-clock:uh'" grep -q "of event 'cpu-clock:uh'" "$T/full.pk"
"$PERFKIT" report -i "$T/ties.data" --stdio -g none --header 2>/dev/null | grep -B3 'Total Lost' >"$T/hdr.pk"
expect "--header: two '#' lines between the header and the table, as perf's" \
	test "$(tr '\n' '|' <"$T/hdr.pk")" = "# ========|#|#|# Total Lost Samples: 0|"

# --symbol-filter: the rows whose symbol holds the string (perf's
# hists__filter_by_symbol), percentages of the whole (perf 6.1 applies it
# only when a key needs its collapse pass, comm: the default keys)
"$PERFKIT" report -i "$T/ties.data" --stdio -g none --symbol-filter=reg 2>/dev/null | grep -v '^#' | grep . >"$T/sf.pk"
printf '    10.00%%  ties     vdsoloop       [.] %s\n' deregister_tm_clones register_tm_clones >"$T/sf.want"
same_file "--symbol-filter=reg: the two *register_tm_clones rows" "$T/sf.want" "$T/sf.pk"
# rows of equal Children with call graphs: perf's __hpp__sort_acc puts
# them by the depth of the chains each holds (a sample's leaf row: the
# whole chain; caller order: the deepest first, callee order: the
# shallowest), then Self, then the keys; -g none by Self and keys alone.
# One 5-frame chain: every row 100%.
python3 "$TOP/tests/e2e/mkties.py" "$T/chain.data" "$B" \
	"$(addr register_tm_clones),$(addr frame_dummy),$(addr deregister_tm_clones),$(addr main),$(addr _start):2" \
	-- /nonexistent/libtie.so 10:1
fnrows() { "$PERFKIT" report -i "$T/chain.data" --stdio "$@" 2>/dev/null | grep -E '^ +[0-9.]+%' | grep vdsoloop | awk '{ print $NF }' | tr '\n' ' '; }
expect "Children ties, caller order: the whole chain's leaf, then the deepest ($(fnrows))" \
	test "$(fnrows)" = "register_tm_clones _start main deregister_tm_clones frame_dummy "
expect "Children ties, -g callee: the shallowest first ($(fnrows -g callee))" \
	test "$(fnrows -g callee)" = "_start main deregister_tm_clones frame_dummy register_tm_clones "
expect "-g none: Self, then names ($(fnrows -g none))" \
	test "$(fnrows -g none)" = "register_tm_clones _start deregister_tm_clones frame_dummy main "
# --symbol-filter with keys that hold no symbol: perf 6.1 filters only
# when a key needs its entries collapsed (comm), and then by the symbol of
# the frame that made the entry: the first sample's leaf, register_tm_clones
# here (not the chain's first frame, _start); with -s dso it filters nothing
"$PERFKIT" report -i "$T/chain.data" --stdio -g none --sort comm,dso --symbol-filter=reg 2>/dev/null |
	grep -v '^#' | grep . | awk '{ print $NF }' | tr '\n' ' ' >"$T/sfe.pk"
expect "--sort comm,dso --symbol-filter=reg: the row made by register_tm_clones ($(cat "$T/sfe.pk"))" \
	test "$(cat "$T/sfe.pk")" = "vdsoloop "
"$PERFKIT" report -i "$T/chain.data" --stdio -g none --sort dso --symbol-filter=xyzzy 2>/dev/null |
	grep -v '^#' | grep . | awk '{ print $NF }' | tr '\n' ' ' >"$T/sfd.pk"
expect "--sort dso --symbol-filter=xyzzy: every row, as perf 6.1 ($(cat "$T/sfd.pk"))" \
	test "$(cat "$T/sfd.pk")" = "vdsoloop libtie.so "
# a chain from a leaf in libtie.so through register_tm_clones and main to
# _start: with Children perf makes vdsoloop's entry from the chain in the
# call graph's order, _start first in caller order (the default),
# register_tm_clones first in callee order
python3 "$TOP/tests/e2e/mkties.py" "$T/leafin.data" "$B" -- /nonexistent/libtie.so \
	"10,$(addr register_tm_clones),$(addr main),$(addr _start):2" 20:1
sfrows() { "$PERFKIT" report -i "$T/leafin.data" --stdio --sort comm,dso "$@" 2>/dev/null | grep -v '^#' | grep -c vdsoloop; }
expect "caller order: the entry made by _start ($(sfrows --symbol-filter=start) $(sfrows --symbol-filter=reg))" \
	test "$(sfrows --symbol-filter=start) $(sfrows --symbol-filter=reg)" = "1 0"
expect "callee order: the entry made by register_tm_clones ($(sfrows -g callee --symbol-filter=start) $(sfrows -g callee --symbol-filter=reg))" \
	test "$(sfrows -g callee --symbol-filter=start) $(sfrows -g callee --symbol-filter=reg)" = "0 1"
# -F/--fields: perf's columns in the list's order, the rows ordered by
# them (numbers largest first, keys by text), "Overhead" for Self
"$PERFKIT" report -i "$T/chain.data" --stdio -g none -F sym,overhead >"$T/F.pk" 2>/dev/null
expect "-F sym,overhead: perf's header, Symbol first" grep -q '^# Symbol  *Overhead$' "$T/F.pk"
expect "-F sym,overhead: rows by symbol name ($(grep -v '^#' "$T/F.pk" | grep . | head -2 | awk '{ print $2 }' | tr '\n' ' '))" \
	test "$(grep -v '^#' "$T/F.pk" | grep . | head -2 | awk '{ print $2 }' | tr '\n' ' ')" = "_start deregister_tm_clones "
"$PERFKIT" report -i "$T/chain.data" --stdio -g none -F overhead,period,dso >"$T/F2.pk" 2>/dev/null
expect "-F overhead,period,dso: Self, its period, the DSO ($(grep vdsoloop "$T/F2.pk"))" \
	grep -Eq '^ +66\.67% +2000000  vdsoloop' "$T/F2.pk"
"$PERFKIT" report -i "$T/chain.data" --stdio -F overhead,cost >/dev/null 2>"$T/F.err"
expect "-F with an unknown field: exit 2, the field named" \
	sh -c "\"$PERFKIT\" report -i '$T/chain.data' --stdio -F overhead,cost >/dev/null 2>&1; test \$? = 2 && grep -q \"'cost'\" '$T/F.err'"
# a leaf address with no symbol in a mapped file is two rows with
# Children, as perf's two entries: the sample's own (the file offset, its
# Self and that as Children) and the cumulative one (the address as
# sampled, no Self, the Children of every sample through it)
"$PERFKIT" report -i "$T/leafin.data" --stdio -g none --sort sym 2>/dev/null | grep -F '[.] 0x' >"$T/xy.pk"
printf '%s\n' '    66.67%    66.67%  [.] 0x0000000000000010' '    66.67%     0.00%  [.] 0x00007f0000000010' \
	'    33.33%    33.33%  [.] 0x0000000000000020' '    33.33%     0.00%  [.] 0x00007f0000000020' >"$T/xy.want"
same_file "a leaf with no symbol: its file offset's row (Self), its address's (Children)" "$T/xy.want" "$T/xy.pk"
"$PERFKIT" report -i "$T/leafin.data" --stdio --no-children -g none --sort sym 2>/dev/null | grep -cF '[.] 0x00007f' >"$T/xy.nc" || true
expect "--no-children: the file offset's rows only" test "$(cat "$T/xy.nc")" = 0
# --hide-unresolved leaves out perfkit's "[truncated]" marker row too (a
# chain of 131 frames, cut at the kernel's limit)
ch=$(addr register_tm_clones) am=$(addr main)
for _ in $(seq 130); do ch="$ch,$am"; done
python3 "$TOP/tests/e2e/mkties.py" "$T/cut.data" "$B" "$ch:3" "$(addr frame_dummy),$(addr main):1" -- /nonexistent/libtie.so
"$PERFKIT" report -i "$T/cut.data" --stdio -g none >"$T/cut.all" 2>/dev/null
"$PERFKIT" report -i "$T/cut.data" --stdio -g none --hide-unresolved >"$T/cut.hu" 2>/dev/null
expect "--hide-unresolved: the [truncated] row left out (there without it)" \
	sh -c "grep -q 'truncated' '$T/cut.all' && ! grep -q 'truncated' '$T/cut.hu'"
# (-F on a file of named frames only)
python3 "$TOP/tests/e2e/mkties.py" "$T/named.data" "$B" \
	"$(addr register_tm_clones),$(addr frame_dummy),$(addr main),$(addr _start):2" \
	"$(addr deregister_tm_clones),$(addr main),$(addr _start):2" "$(addr main),$(addr _start):1" -- /nonexistent/libtie.so
if have perf; then
	for o in "-F overhead,sym" "-F sym,overhead" "-F overhead_children,overhead,sym" "-F overhead,sample,period,comm,dso,sym" \
		"-F overhead,sym -s dso" "-F overhead_children,dso --no-children" "-F dso,overhead_children,overhead -g callee"; do
		same_as_perf "$T/named.data" $o
	done
	# a pipe ("-i -"): perf drops Children, its call graphs in caller order
	if perf inject -i "$T/named.data" -o - >"$T/namedp.data" 2>/dev/null && [ -s "$T/namedp.data" ]; then
		for o in "" "--children" "-g callee" "--no-children" "-g none"; do
			perf report -i - --stdio $o <"$T/namedp.data" 2>/dev/null | grep -v '^# (Tip:' | trim_tail >"$T/pp.out"
			"$PERFKIT" report -i - --stdio $o <"$T/namedp.data" 2>/dev/null | trim_tail >"$T/pk.out"
			same_file "report -i - $o (a pipe): perf report's output" "$T/pp.out" "$T/pk.out"
		done
		same_as_perf "$T/namedp.data" -g callee
	else
		skip "perf inject -o - failed"
	fi
	for o in "" "-g callee" "-g none" "-G" "-s sym" "-s dso,sym -g caller" "-g callee -s sym"; do
		same_as_perf "$T/leafin.data" $o
	done
	for o in "" "-g callee" "-g none" "-G"; do
		for f in start reg main; do
			perf report -i "$T/leafin.data" --stdio $o --sort comm,dso --symbol-filter=$f 2>/dev/null |
				grep -v '^# (Tip:' | trim_tail >"$T/lp.out"
			"$PERFKIT" report -i "$T/leafin.data" --stdio $o --sort comm,dso --symbol-filter=$f 2>/dev/null |
				trim_tail >"$T/lk.out"
			same_file "report $o --sort comm,dso --symbol-filter=$f: perf report's output" "$T/lp.out" "$T/lk.out"
		done
	done
	for o in "" "-g callee" "-g none" "-G"; do
		perf report -i "$T/chain.data" --stdio $o 2>/dev/null | grep vdsoloop >"$T/cp.rows"
		"$PERFKIT" report -i "$T/chain.data" --stdio $o 2>/dev/null | grep vdsoloop >"$T/ck.rows"
		same_file "call chains, report $o: perf's rows of the workload, in its order" "$T/cp.rows" "$T/ck.rows"
	done
	# the symbol filter: by the entry's symbol, the call graphs' threshold
	# of the whole (perf filters after adding the samples)
	for o in "-s comm,dso" "-s comm" "-s comm,dso --no-children" "-s dso" "-s pid" "-s sym" \
		"-s comm,dso --percentage relative" "--percentage relative" "-s comm,pid -g none"; do
		same_as_perf "$T/chain.data" $o --symbol-filter=reg
	done
fi
# widths count the rows under --percent-limit: of keys whose texts are
# made per row (pid, tid, srcline) too (it read texts never made: a crash)
for k in pid,sym tid,sym srcline; do
	"$PERFKIT" report -i "$T/ties.data" --stdio -g none --sort $k --percent-limit 20 >"$T/pl.out" 2>"$T/pl.err"
	expect "--sort $k --percent-limit 20: exit 0, the 30% row" \
		sh -c "test $? = 0 && grep -Eq '^ +30\.00%' '$T/pl.out'"
done
# --hide-unresolved: frames without a symbol leave the call chains too
# (perf's add_callchain_ip), not only the rows; a chain through the text
# address without a symbol
if [ -n "$gap" ]; then
	python3 "$TOP/tests/e2e/mkties.py" "$T/unres.data" "$B" "$(addr register_tm_clones),$gap,$(addr main):2" \
		-- /nonexistent/libtie.so 10:1
	"$PERFKIT" report -i "$T/unres.data" --stdio --no-children --hide-unresolved 2>/dev/null >"$T/unres.pk"
	expect "--hide-unresolved: the chain, register_tm_clones then main, without the address" \
		test "$(sed -n '/---register_tm_clones/,/^$/p' "$T/unres.pk" | tr -d ' ' | grep . | tr '\n' ' ')" = "---register_tm_clones main "
	if have perf; then
		for o in "--no-children --hide-unresolved" "--hide-unresolved"; do
			same_as_perf "$T/unres.data" $o
		done
	fi
fi
if have perf; then
	# widths of every row kept, those under --percent-limit too; the
	# "# symbol: main" line of an elided column before the table's head
	for k in sym dso,sym sym,dso comm,dso,sym dso pid comm "sym,dso --percent-limit 20" \
		"dso,sym -S main" "comm,dso --dsos libtie.so" "sym --comms ties -q" \
		"comm,dso,sym --symbol-filter=reg" "comm,sym --symbol-filter=reg --percentage relative" \
		"dso --symbol-filter=reg" "sym --symbol-filter=reg" "comm,dso --symbol-filter=reg" \
		"pid,sym --percent-limit 20"; do
		perf report -i "$T/ties.data" --stdio -g none --sort $k 2>/dev/null | grep -v '^# (Tip:' >"$T/perf.out"
		"$PERFKIT" report -i "$T/ties.data" --stdio -g none --sort $k >"$T/pk.out" 2>/dev/null
		# perf ends with a random tip between '#' lines
		trim_tail <"$T/perf.out" >"$T/perf.cut"
		trim_tail <"$T/pk.out" >"$T/pk.cut"
		expect "--sort $k: the whole output is perf report's" cmp -s "$T/perf.cut" "$T/pk.cut"
		diff "$T/perf.cut" "$T/pk.cut" | head -6 | cat -A | sed 's/^/# /'
	done
else
	skip "perf (the oracle) is not installed"
fi
done_testing
