#!/bin/sh
# mt-symbols on files without symbols (issue 29): the functions an FDE of
# .eh_frame shows. A stripped copy of a program (C, -O1 and GCC's -O2 with
# a .cold part; C++ -O2) lists, for every function of the unstripped one
# that has an FDE, FILE+0xADDR at its address with its size, bound fde, or
# fde-part where a call does not enter it (_start, the .cold parts); a
# stripped library lists its exported functions by name and its hidden
# one as FILE+0xADDR; with the debug file found, its names again and no
# FDE name; --match, --json and -p speak of them as of other symbols. Must
# fail cleanly: a .eh_frame whose first length runs past its end (a
# warning with the byte offset, nothing named from it), CIEs whose pointer
# encoding is not read (textrel: nothing named, no word), a program built
# without unwind tables (only _start, fde-part).
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs

# funcs FILE: "ADDR SIZE BIND NAME" of its functions, PLT entries left out
funcs() { mt-symbols "$1" | awk -F '\t' '$3 != "plt" { print $1, $2, $3, $4 }'; }

# the stripped copy of each program against the program
mkdir s
for p in outer cold throwy-O2; do
	strip -o s/$p "$P/$p"
	funcs "$P/$p" >$p.full
	funcs s/$p >$p.fde
	awk '$3 !~ /^fde/ { bad = 1 } END { exit bad }' $p.fde || fail "$p: not fde: $(cat $p.fde)"
	[ "$(wc -l <$p.fde)" -ge 4 ] || fail "$p: $(wc -l <$p.fde) functions"
	# each FDE function: a symbol of the program at its address, of its
	# size; named after the file and its address; fde-part for _start and
	# the .cold parts, fde for the others
	awk -v p=$p 'NR == FNR { sym[$1] = $2 " " $4; next }
		{ if (!($1 in sym)) { print "no symbol at " $0; bad = 1; next }
		  split(sym[$1], s, " ")
		  if (s[1] != $2) { print "size " $0 " vs " sym[$1]; bad = 1 }
		  if ($4 != p "+" $1) { print "name " $0; bad = 1 }
		  part = s[2] == "_start" || s[2] ~ /\.cold/ || s[2] ~ /\[clone \.cold\]/
		  if (($3 == "fde-part") != part) { print "bind " $0 " of " s[2]; bad = 1 } }
		END { exit bad }' $p.full $p.fde >bad || { cat bad >&2; fail "$p: FDE functions"; }
done
# the functions of each program are all there (a size, an FDE of their own)
for f in main outer work deep loop stop_here; do
	a=$(awk -v f=$f '$4 == f { print $1 }' outer.full)
	grep -q "^$a [0-9]* fde outer+$a\$" outer.fde || fail "outer: $f ($a) not listed"
done
for f in main hot fill.constprop.0 slow; do
	a=$(awk -v f=$f '$4 == f { print $1 }' cold.full)
	grep -q "^$a [0-9]* fde cold+$a\$" cold.fde || fail "cold: $f ($a) not listed"
done
a=$(awk '$4 == "hot.cold" { print $1 }' cold.full)
grep -q "^$a [0-9]* fde-part cold+$a\$" cold.fde || fail "cold: hot.cold ($a) not fde-part"
# with symbols: no FDE names (every FDE is a symbol's)
cat outer.full cold.full throwy-O2.full | grep ' fde' && fail "FDE names beside symbols"

# a library: exported functions by name, the hidden one by FDE
cat >lib.c <<'C'
__attribute__((noinline, visibility("hidden"))) int lib_hidden(int x) { return x * 7 + 1; }
int lib_work(int x) { return lib_hidden(x) + 2; }
C
gcc -O1 -fPIC -shared -o libt.so lib.c
strip -o s/libt.so libt.so
funcs libt.so >lib.full
funcs s/libt.so >lib.fde
h=$(awk '$4 == "lib_hidden" { print $1, $2 }' lib.full)
w=$(awk '$4 == "lib_work" { print $1, $2 }' lib.full)
grep -qx "$h fde libt.so+${h% *}" lib.fde || fail "lib_hidden: $(cat lib.fde)"
grep -qx "$w global lib_work" lib.fde || fail "lib_work: $(cat lib.fde)"
grep -q lib_hidden lib.fde && fail "lib_hidden named in the stripped library"

# the debug file found: its names, no FDE name
mkdir dbg
objcopy --only-keep-debug "$P/cold" dbg/cold.debug
objcopy --add-gnu-debuglink=dbg/cold.debug s/cold s/cold.linked
mv s/cold.linked s/cold
mt-symbols --debug-dir dbg s/cold | awk -F '\t' '$3 != "plt" { print $1, $2, $3, $4 }' >got
grep -q ' fde' got && fail "FDE names beside the debug file's: $(grep ' fde' got)"
grep -q ' hot$' got || fail "the debug file's hot not listed"

# --match over the names, --json's binding, -p
mt-symbols --match '^outer\+0x' s/outer | cut -f4 | sort >m
awk '{ print $4 }' outer.fde | sort >m.want
same_file m.want m
mt-symbols --json --exact "outer+$(awk '$4 == "work" { print $1 }' outer.full)" s/outer >j
contains j '"binding":"fde"'
s/outer -l >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || :' EXIT
wait_mapped $pid "$PWD/s/outer"
mt-symbols -p $pid >proc || fail "mt-symbols -p failed"
a=$(awk '$4 == "work" { print $1 }' outer.full)
grep -q "	fde	outer+$a	" proc || fail "-p: no outer+$a: $(grep outer proc | head -3)"
kill $pid

# forged: the first record's length past the end of .eh_frame
off=$(readelf -SW s/outer | awk '$2 == ".eh_frame" { print $5 }')
cp s/outer bad
printf '\377\377\377\177' | dd of=bad bs=1 seek=$((0x$off)) conv=notrunc 2>/dev/null
mt-symbols bad >out 2>err || fail "mt-symbols on a bad .eh_frame: exit $?"
contains err "mt-symbols: bad: .eh_frame: corrupt record at byte 0: the functions without symbols are not listed"
grep -q '	fde' out && fail "named from a corrupt .eh_frame"
grep -q '	plt	' out || fail "the PLT entries are gone too"
# every CIE's FDE pointers relative to the text (DW_EH_PE_textrel):
# passed over, said nowhere
cp s/outer textrel
readelf --debug-dump=frames textrel | awk '$4 == "CIE" { print $1 }' >cies
[ -s cies ] || fail "no CIE in outer"
while read -r c; do
	at=$((0x$off + 0x$c + 16)) # length, id, version, "zR", 3 LEBs, length: 'R'
	[ "$(od -An -tx1 -j $at -N1 textrel | tr -d ' ')" = 1b ] || fail "CIE $c: not zR, pcrel sdata4"
	printf '\053' | dd of=textrel bs=1 seek=$at conv=notrunc 2>/dev/null
done <cies
mt-symbols textrel >out 2>err || fail "mt-symbols on textrel FDEs: exit $?"
[ ! -s err ] || fail "textrel: $(cat err)"
grep -q '	fde' out && fail "named from textrel FDEs"

# without unwind tables: only the start-up code's FDE
cat >nu.c <<'C'
int f(int x) { return x + 1; }
int main(int argc, char **argv) { (void)argv; return f(argc); }
C
gcc -O1 -fno-asynchronous-unwind-tables -fno-unwind-tables -o nu nu.c
strip nu
funcs nu >nu.fde
awk '$3 != "fde-part" { bad = 1 } END { exit bad || NR > 1 }' nu.fde || fail "no unwind tables: $(cat nu.fde)"
