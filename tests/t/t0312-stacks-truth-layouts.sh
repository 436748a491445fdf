#!/bin/sh
# The column layouts people get from perf (gen-perf-script --layout):
# magic-trace's fields (perf 6.1), magic-trace's older fields without
# period, event and DSO (perf before 5.18), comm and cpu columns with comm
# names holding spaces and slashes, and perf 6.15's flags (`tr strt jmp`,
# `tr end  jmp`). For each, mt-script-parse skips nothing and
# mt-stacks --no-spread rebuilds exactly the truth's spans; the truth is
# the same whatever the layout, and so are mt-stacks' spans but for DSOs.
. "$MT_TOP/tests/lib.sh"

layouts="magic-trace legacy comm-cpu perf615"
bad=


# spans FILE: mt-stacks' spans in FILE without offsets and DSOs
spans() {
	mt-dump "$1" | sed -n 's/^0x[0-9a-f]* \(SPAN .*\) dso=.*/\1/p'
}

for args in "--seed 1 --threads 4" "--seed 2 --threads 8 --start-depth 5" \
	"--seed 3 --threads 1 --start-depth 3 --coarse 1000"; do
	what="--lines 30000 $args --no-errors"
	for l in $layouts; do
		gen-perf-script --layout $l $what --truth truth-$l.txt >in-$l.txt
		mt-script-parse in-$l.txt >in-$l.mt 2>err-$l.txt ||
			note "mt-script-parse failed on --layout $l $what" err-$l.txt
		[ ! -s err-$l.txt ] ||
			note "mt-script-parse skipped lines of --layout $l $what" err-$l.txt
		mt-stacks --no-spread in-$l.mt >out-$l.mt
		stacks-check truth-$l.txt out-$l.mt >report 2>&1 ||
			note "mt-stacks' spans differ from the truth (--layout $l $what)" report
		cmp -s truth-magic-trace.txt truth-$l.txt ||
			fail "--layout $l changes the truth ($what)"
		spans out-$l.mt >spans-$l.txt
		cmp -s spans-magic-trace.txt spans-$l.txt || {
			diff spans-magic-trace.txt spans-$l.txt | head -5 >report
			note "mt-stacks' spans for --layout $l differ from magic-trace's ($what)" report
		}
	done
done

[ -z "$bad" ] || fail "layouts that do not give the truth:${bad#;}"

# each layout prints what its perf prints (lines from tests/fixtures/perf-script)
contains in-legacy.txt '   tr strt                             0 [unknown] =>     '
contains in-legacy.txt '   tr end  syscall          '
grep -q ' (/' in-legacy.txt && fail "--layout legacy printed a DSO"
grep -q 'branches' in-legacy.txt && fail "--layout legacy printed an event column"
contains in-perf615.txt '          1                                 branches:u:   tr strt jmp                           0 [unknown] ([unknown]) =>     '
contains in-perf615.txt ' branches:u:   tr end  jmp      '
contains in-comm-cpu.txt '   order-gateway '
grep -q '^ *[a-z0-9 /#-]\{1,15\} [0-9]*/[0-9]* *\[0[0-9][0-9]\] [0-9]*\.[0-9]*: *branches:uH:   call  ' \
	in-comm-cpu.txt || fail "--layout comm-cpu: no comm and cpu columns"
# with eight threads, comms with spaces and a slash
gen-perf-script --layout comm-cpu --lines 3000 --seed 2 --threads 8 >in.txt
contains in.txt '       CPU 0/KVM '
contains in.txt '       md feed 1 '
contains in.txt ' tokio-runtime-w '
expect_exit 2 gen-perf-script --layout perf6.1 2>/dev/null
