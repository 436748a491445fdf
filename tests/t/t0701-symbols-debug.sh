#!/bin/sh
# mt-symbols and separate debug files: a stripped PIE with a .gnu_debuglink
# lists the functions of its debug file, found next to it, in .debug/, in
# --debug-dir, and by build-id; a debug file of another build is refused;
# --lines gives the line addr2line gives, for DWARF 4 and 5, PIE and not;
# PLT entries are those objdump labels.
. "$MT_TOP/tests/lib.sh"

cat >a.c <<'C'
#include <stdio.h>
static int helper(int x)
{
	return x * 3 + 1;
}
int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += helper(i);
	return s;
}
int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", work(argc));
	return 0;
}
C
gcc -O0 -g -gdwarf-5 -o pie5 a.c
gcc -O0 -g -gdwarf-4 -o pie4 a.c
gcc -O0 -g -gdwarf-5 -no-pie -o nopie5 a.c
gcc -O0 -g -gdwarf-4 -no-pie -o nopie4 a.c

# --lines: for each function, the line addr2line gives for its address
for f in pie5 pie4 nopie5 nopie4; do
	mt-symbols --lines "$f" >l
	awk -F '\t' 'NF != 6 { exit 1 }' l || fail "$f: --lines: not six fields"
	for fn in helper work main; do
		line=$(awk -F '\t' -v n="$fn" '$4 == n' l)
		[ -n "$line" ] || fail "$f: $fn not listed"
		addr=$(printf '%s\n' "$line" | cut -f1)
		want=$(addr2line -e "$f" "$addr")
		got=$(printf '%s\n' "$line" | cut -f6)
		[ "$got" = "$want" ] || fail "$f: $fn: $got, addr2line says $want"
		case $got in */a.c:[0-9]*) ;; *) fail "$f: $fn: $got" ;; esac
	done
	# and an address inside work: its own row, not the function's
	w=$(awk -F '\t' '$4 == "work"' l | cut -f1)
	a=$(printf '0x%x' $((w + 20)))
	mt-symbols --lines --addr "$a" "$f" >r
	printf 'work+0x14\t%s\n' "$(addr2line -e "$f" "$a")" >r.want
	same_file r.want r
done
# no DWARF: "-"
gcc -O0 -o nodw a.c
mt-symbols --lines nodw | awk -F '\t' '$4 == "work" && $6 == "-" { ok = 1 } END { exit !ok }' ||
	fail "no DWARF: not -"

# a stripped file with a debuglink
mt-symbols pie5 | awk -F '\t' '$3 != "plt"' >full
objcopy --only-keep-debug pie5 pie5.debug
strip -o s.tmp pie5
objcopy --add-gnu-debuglink=pie5.debug s.tmp stripped
mkdir -p bin dbg
mv stripped bin/
mt-symbols bin/stripped | awk -F '\t' '$3 != "plt"' >none
grep -q '	work	' none && fail "stripped file lists work without its debug file"
# in --debug-dir
mv pie5.debug dbg/
mt-symbols --debug-dir dbg bin/stripped | awk -F '\t' '$3 != "plt"' >got
same_file full got
# next to it, in .debug/
cp dbg/pie5.debug bin/
mt-symbols bin/stripped | awk -F '\t' '$3 != "plt"' >got
same_file full got
rm bin/pie5.debug
mkdir bin/.debug
cp dbg/pie5.debug bin/.debug/
mt-symbols --lines bin/stripped >got
contains got "$(printf '\twork\twork\t')"
awk -F '\t' '$4 == "work" { print $6 }' got | grep -q '/a.c:[0-9]' ||
	fail "--lines through the debug file"
rm -r bin/.debug
# by build-id
id=$(readelf -n bin/stripped | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || fail "gcc made no build-id"
mkdir -p "ids/.build-id/$(echo "$id" | cut -c1-2)"
cp dbg/pie5.debug "ids/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
mt-symbols --debug-dir ids bin/stripped | awk -F '\t' '$3 != "plt"' >got
same_file full got
# a debug file with the right name but of another build: CRC and build-id
gcc -O1 -g -o other a.c
objcopy --only-keep-debug other bad/pie5.debug 2>/dev/null || {
	mkdir bad && objcopy --only-keep-debug other bad/pie5.debug; }
mt-symbols --debug-dir bad bin/stripped | awk -F '\t' '$3 != "plt"' >got
grep -q '	work	' got && fail "a debug file of another build was used"
mkdir -p "bad/.build-id/$(echo "$id" | cut -c1-2)"
cp bad/pie5.debug "bad/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
mt-symbols --debug-dir bad bin/stripped | awk -F '\t' '$3 != "plt"' >got
grep -q '	work	' got && fail "a build-id file of another build was used"

# PLT entries: the names and addresses objdump labels
for f in pie5 nopie5 /bin/sh; do
	mt-symbols "$f" | awk -F '\t' '$3 == "plt" { printf "%016x <%s>:\n", $1, $4 }' >plt
	objdump -d "$f" | grep '@plt>:$' | grep -v '\*ABS\*' >plt.want || true
	[ -s plt.want ] || fail "$f: objdump shows no PLT entry"
	same_file plt.want plt
done
gcc -O0 -fcf-protection=full -Wl,-z,ibtplt -o ibt a.c
mt-symbols ibt | awk -F '\t' '$3 == "plt" { printf "%016x <%s>:\n", $1, $4 }' >plt
objdump -d ibt | grep '@plt>:$' >plt.want
same_file plt.want plt
