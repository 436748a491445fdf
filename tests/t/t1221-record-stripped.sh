#!/bin/sh
# Stripped programs and libraries traced (issue 29): a stripped copy of a
# program, whose functions only its FDEs show (FILE+0xADDR, mt-symbols(1)),
# prints what the program prints and gives the same calls per function as
# the program, under those names: with the patch backend's default
# selection (the program's own functions; before, mt-record refused: "names
# none of its own functions"), with --functions over the FDE names, and
# with the uprobe backend (as root); its .cold part (fde-part) is never
# patched, nor a .cold part whose FDE looks like a function's but that only
# conditional jumps enter; a stripped library's hidden function, chosen by its FDE name,
# the same calls as by its symbol; Debian's gzip (stripped) compresses as
# untraced, its own functions traced; in a C++ program traced whole,
# libgcc_s's functions without symbols are left out (the unwinder reads its
# own return addresses) and exceptions are caught as untraced.
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs
[ "$(uname -m)" = x86_64 ] || { echo "skip: the patch backend patches x86-64" >&2; exit 0; }

# counts STREAM: "NAME CALLS" for each function of its spans, sorted
counts() {
	mt-stacks "$1" | mt-report --json - |
		sed -n 's/^{"name":"\([^"]*\)","calls":\([0-9]*\),.*/\1 \2/p' | sort
}
# renamed ADDRS COUNTS FILE: COUNTS with each function named FILE+ADDR,
# its address in ADDRS ("ADDR NAME" lines, as mt-symbols lists them)
renamed() {
	awk -v f="$3" 'NR == FNR { a[$2] = $1; next }
		!($1 in a) { print "no address for " $1; exit 1 }
		{ print f "+" a[$1], $2 }' "$1" "$2" | sort
}
# rec NAME BACKEND ARG...: mt-record's stream NAME.mt, the command's
# output NAME.out, mt-record's messages NAME.err
rec() {
	n=$1 b=$2
	shift 2
	mt-record -v --backend "$b" -o $n.mt "$@" >$n.out 2>$n.err ||
		{ cat $n.err >&2; fail "$n: mt-record --backend $b $*"; }
}
# same_calls NAME-PLAIN NAME-STRIPPED ADDRS FILE: the same calls per
# function, the stripped one's named FILE+ADDR; at least MIN functions
same_calls() {
	counts $1.mt >$1.calls
	counts $2.mt >$2.calls
	renamed "$3" $1.calls "$4" >$1.want || fail "$1: $(cat $1.want)"
	same_file $1.want $2.calls
	[ "$(wc -l <$2.calls)" -ge "$5" ] || fail "$2: $(wc -l <$2.calls) functions: $(cat $2.calls)"
}

mkdir s
strip -o s/outer "$P/outer"
strip -o s/cold "$P/cold"
mt-symbols "$P/outer" | awk -F '\t' '$3 != "plt" { print $1, $4 }' >outer.addrs
mt-symbols "$P/cold" | awk -F '\t' '$3 != "plt" { print $1, $4 }' >cold.addrs
work=$(awk '$2 == "work" { print $1 }' outer.addrs)
outer=$(awk '$2 == "outer" { print $1 }' outer.addrs)

# the patch backend, its default selection, in two threads
rec pu patch -- "$P/outer" -t 2
rec ps patch -- s/outer -t 2
same_file pu.out ps.out
same_calls pu ps outer.addrs outer 4
grep -qx "outer+$work 1200" ps.calls || fail "work: $(cat ps.calls)"
grep -qx "outer+$outer 600" ps.calls || fail "outer: $(cat ps.calls)"
contains ps.err "outer+$work ($PWD/s/outer): patched"

# --functions over the FDE names
rec fu patch --functions '^(work|outer)$' -- "$P/outer"
rec fs patch --functions "^outer\\+($work|$outer)\$" -- s/outer
same_file fu.out fs.out
same_calls fu fs outer.addrs outer 2
grep -qx "outer+$work 600" fs.calls || fail "--functions: $(cat fs.calls)"

# the .cold part: never patched, the sums unchanged
rec cu patch -- "$P/cold" 3000 5
rec cs patch -- s/cold 3000 5
same_file cu.out cs.out
same_calls cu cs cold.addrs cold 3
hc=$(awk '$2 == "hot.cold" { print $1 }' cold.addrs)
grep -q "^mt-record: cold+$hc ($PWD/s/cold): a part of another function" cs.err ||
	fail "hot.cold: $(grep "cold+$hc" cs.err)"

# sign.cold, an FDE of its own whose frame is popped, entered only by a
# conditional jump: stripped, a part too; zero, entered by a call and by a
# conditional tail call, a function (2000 signs, 1000 + 1 zeros)
strip -o s/coldjcc "$P/coldjcc"
mt-symbols "$P/coldjcc" | awk -F '\t' '$3 != "plt" { print $1, $4 }' >cj.addrs
rec ju patch -- "$P/coldjcc" 1000
rec js patch -- s/coldjcc 1000
same_file ju.out js.out
same_calls ju js cj.addrs coldjcc 3
sc=$(awk '$2 == "sign.cold" { print $1 }' cj.addrs)
grep -q "^mt-record: coldjcc+$sc ($PWD/s/coldjcc): a part of another function" js.err ||
	fail "sign.cold: $(grep "coldjcc+$sc" js.err)"
grep -qx "coldjcc+$(awk '$2 == "zero" { print $1 }' cj.addrs) 1001" js.calls ||
	fail "zero: $(cat js.calls)"
grep -qx "coldjcc+$(awk '$2 == "sign" { print $1 }' cj.addrs) 2000" js.calls ||
	fail "sign: $(cat js.calls)"

# the uprobe backend: the same functions
if [ -r /sys/bus/event_source/devices/uprobe/type ] && [ "$(id -u)" -eq 0 ]; then
	rec uu uprobe -- "$P/outer" -t 2
	rec us uprobe -- s/outer -t 2
	same_file uu.out us.out
	same_calls uu us outer.addrs outer 4
	cmp -s pu.calls uu.calls || fail "uprobe and patch differ: $(diff pu.calls uu.calls)"
	rec uc uprobe -- "$P/cold" 3000 5
	rec ucs uprobe -- s/cold 3000 5
	same_calls uc ucs cold.addrs cold 3
else
	echo "skipped: the uprobe backend (needs root and uprobes)" >&2
fi

# a stripped library's hidden function, chosen by its FDE name
cat >lib.c <<'C'
__attribute__((noinline, visibility("hidden"))) int lib_hidden(int x) { return x * 7 + 1; }
int lib_work(int x) { return lib_hidden(x) + 2; }
C
cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
int lib_work(int);
int main(int argc, char **argv)
{
	long s = 0;
	for (int i = 0; i < atoi(argv[1]); i++)
		s += lib_work(i);
	printf("%ld\n", s);
	return 0;
}
C
gcc -O1 -fPIC -shared -o libt.so lib.c
strip -o s/libt.so libt.so
gcc -O1 -o prog prog.c -L. -lt -Wl,-rpath,"$PWD"
gcc -O1 -o s/prog prog.c -L. -lt -Wl,-rpath,"$PWD/s"
strip s/prog
mt-symbols libt.so | awk -F '\t' '$3 != "plt" { print $1, $4 }' >lib.addrs
rec lu patch --functions '^lib_hidden$' -- ./prog 250
rec ls patch --functions '^libt\.so\+0x' -- s/prog 250
same_file lu.out ls.out
same_calls lu ls lib.addrs libt.so 1
grep -qx "libt.so+$(awk '$2 == "lib_hidden" { print $1 }' lib.addrs) 250" ls.calls ||
	fail "lib_hidden: $(cat ls.calls)"

# Debian's gzip, stripped: its own functions
gz=/usr/bin/gzip
if [ -x $gz ] && ! readelf -S $gz | grep -q '\.symtab'; then
	head -c 200000 "$MT_BIN/mt-record" >in
	$gz -c in >plain.gz
	mt-record --backend patch --full -o gz.mt -- $gz -c in >traced.gz 2>gz.err ||
		{ cat gz.err >&2; fail "gzip: mt-record"; }
	cmp plain.gz traced.gz || fail "gzip's output changed"
	counts gz.mt >gz.calls
	[ "$(grep -c '^gzip+0x' gz.calls)" -ge 10 ] || fail "gzip: $(cat gz.calls)"
else
	echo "skipped: no stripped $gz" >&2
fi

# libgcc_s's functions without symbols, in a C++ program traced whole
"$P/throwy-O2" >tu.out 2>&1
rec tw patch --functions . -- "$P/throwy-O2"
same_file tu.out tw.out
if ldd "$P/throwy-O2" | grep -q libgcc_s; then
	grep -q "^mt-record: .*libgcc_s\.so\.1: left out [0-9]* functions that only .eh_frame shows" tw.err ||
		fail "libgcc_s: $(grep libgcc_s tw.err | head -3)"
fi
