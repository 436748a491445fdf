#!/bin/sh
# mt-report on a hand-made stream: a recursive function's total counts its
# outermost calls only, its self time and calls every level; a [syscall]
# and an [untraced] span are left out (their time is their caller's self
# time, the call inside [untraced] its caller's child) unless --kind asks
# for them; spans starting together nest by depth; threads are apart;
# --tid and --pid keep theirs; the FXT file of the stream agrees; kernel
# frames and decode gaps count only with --kind, in FXT too.
. "$MT_TOP/tests/lib.sh"

cat >in.txt <<'END'
# thread 1/1: main [0,100] > f [10,90] > f [20,80] > f [30,40]
#                              f [20,80] > [syscall] [50,60]
#             main > [untraced] [90,99] > g [92,95]
#             g [0,0] at main's start, one deeper
SPAN start=0.000000040 end=0.000000040 pid=1 tid=1 depth=3 kind=function name="f"
SPAN start=0.000000030 end=0.000000040 pid=1 tid=1 depth=3 kind=function name="f"
SPAN start=0.000000050 end=0.000000060 pid=1 tid=1 depth=3 kind=syscall name="[syscall]"
SPAN start=0.000000020 end=0.000000080 pid=1 tid=1 depth=2 kind=function name="f"
SPAN start=0.000000010 end=0.000000090 pid=1 tid=1 depth=1 kind=function name="f"
SPAN start=0.000000092 end=0.000000095 pid=1 tid=1 depth=2 kind=function name="g"
SPAN start=0.000000090 end=0.000000099 pid=1 tid=1 depth=1 kind=untraced name="[untraced]"
SPAN start=0.000000000 end=0.000000100 pid=1 tid=1 depth=0 kind=function name="main"
SPAN start=0.000000000 end=0.000000000 pid=1 tid=1 depth=1 kind=function name="g"
# thread 2/2: f [0,50] > f [0,30], written parent first (they start together)
SPAN start=0.000000000 end=0.000000050 pid=2 tid=2 depth=0 kind=function name="f"
SPAN start=0.000000000 end=0.000000030 pid=2 tid=2 depth=1 kind=function name="f"
END
mt-asm in.txt >in.mt
# f: calls 4 + 2; total 80 + 50; self: 10+10 (outer) 10+... computed below
#   1/1 f[10,90]: 80 - 60 = 20; f[20,80]: 60 - 10 = 50 (the syscall is
#   its own); f[30,40]: 10 - 0; f[40,40]: 0; 2/2 f[0,50]: 20; f[0,30]: 30
# main: 100 - 80 (f) - 3 (g under [untraced]) - 0 (g) = 17
cat >want <<'END'
f 6 130 130 0 30 80 80
g 2 3 3 0 0 3 3
main 1 100 17 100 100 100 100
END
mt-report --json in.mt >r.json
report_json r.json >got
same_file want got
report_truth in.mt >truth
same_file want truth

mt-fxt in.mt >in.fxt
mt-report --json in.fxt >f.json
report_json f.json >got
same_file want got

# --kind all: the pseudo-spans are calls; main's self loses them
cat >want.all <<'END'
[syscall] 1 10 10 10 10 10 10
[untraced] 1 9 6 9 9 9 9
f 6 130 120 0 30 80 80
g 2 3 3 0 0 3 3
main 1 100 11 100 100 100 100
END
for f in in.mt in.fxt; do
	mt-report --json --kind all $f >a.json
	report_json a.json >got
	same_file want.all got
done
report_truth in.mt 'function|syscall|untraced' >truth
same_file want.all truth

# threads: --tid 2 and --pid 2 keep thread 2's f alone
for opt in --tid=2 '--pid 2' '--pid 1,2 --tid 2,5'; do
	mt-report --json $opt in.mt >t.json
	report_json t.json >got
	echo 'f 2 50 50 30 30 50 50' >want.t
	same_file want.t got
done
expect_exit 1 mt-report --tid 3 in.mt >out 2>err
contains err "in.mt: none of its 11 spans is counted"

# kernel frames (known in FXT by a kernel address) and decode gaps (by
# their names) are left out by default and counted with --kind, from the
# stream and from its FXT file alike
cat >k.txt <<'END'
SPAN start=0.000000010 end=0.000000020 pid=3 tid=3 depth=1 kind=kernel address=0xffffffff81000000 name="do_syscall_64"
SPAN start=0.000000030 end=0.000000035 pid=3 tid=3 depth=1 kind=gap name="[decode error: overflow]"
SPAN start=0.000000000 end=0.000000040 pid=3 tid=3 depth=0 kind=function address=0x401000 name="h"
END
mt-asm k.txt >k.mt
mt-fxt k.mt >k.fxt
for f in k.mt k.fxt; do
	mt-report --json $f >k.json
	report_json k.json >got
	echo 'h 1 40 40 40 40 40 40' >want.k
	same_file want.k got
	mt-report --json --kind kernel,gap,function $f >k.json
	report_json k.json >got
	cat >want.k <<'END'
[decode error: overflow] 1 5 5 5 5 5 5
do_syscall_64 1 10 10 10 10 10 10
h 1 40 25 40 40 40 40
END
	same_file want.k got
	mt-report --json --kind kernel $f >k.json
	report_json k.json >got
	echo 'do_syscall_64 1 10 10 10 10 10 10' >want.k
	same_file want.k got
done

# siblings starting together, a zero-length one written after the other
# (as mt-slice --match may write them): the deeper call nests in the
# longer one whatever the order
cat >z.txt <<'END'
SPAN start=0.000000000 end=0.000000100 pid=4 tid=4 depth=0 kind=function name="top"
SPAN start=0.000000010 end=0.000000050 pid=4 tid=4 depth=1 kind=function name="b"
SPAN start=0.000000020 end=0.000000030 pid=4 tid=4 depth=2 kind=function name="c"
SPAN start=0.000000010 end=0.000000010 pid=4 tid=4 depth=1 kind=function name="a"
END
cat >want.z <<'END'
a 1 0 0 0 0 0 0
b 1 40 30 40 40 40 40
c 1 10 10 10 10 10 10
top 1 100 60 100 100 100 100
END
mt-asm z.txt >z.mt
mt-report --json z.mt >z.json
report_json z.json >got
same_file want.z got
report_truth z.mt >truth
same_file want.z truth
