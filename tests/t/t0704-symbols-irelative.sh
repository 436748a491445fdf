#!/bin/sh
# mt-symbols: PLT entries whose GOT slot an R_X86_64_IRELATIVE relocation
# fills (calls of an IFUNC inside a library, a static-pie or a static
# executable) are listed at the addresses objdump labels them, named after
# the STT_GNU_IFUNC symbol at the relocation's addend as perf 6.3+ names
# them ("thefunc@plt"; of several, one with a size, not weak, global, with
# fewer leading '_', the longer name), and, when no IFUNC symbol is there,
# as objdump labels them ("*ABS*+0x1120@plt"). Checked on libc.so.6, on
# libraries built here calling their own IFUNC (hidden, protected,
# stripped, with the resolver exported), and on static executables, whose
# entries objdump does not label: there against the relocations.
. "$MT_TOP/tests/lib.sh"

[ "$(uname -m)" = x86_64 ] || { echo "skip: x86-64 only" >&2; exit 0; }
for tool in objdump readelf gcc strip; do
	command -v "$tool" >/dev/null 2>&1 || { echo "skip: no $tool" >&2; exit 0; }
done

# ifuncs FILE: "ADDR NAME" (ADDR hex without 0x and leading zeros) for each
# address that STT_GNU_IFUNC symbols of FILE have, NAME the one perf keeps;
# .symtab first, then .dynsym; versions (@GLIBC_2.2.5) dropped
ifuncs() {
	readelf -sW "$1" >syms.txt
	for tab in .symtab .dynsym; do
		awk -v tab="'$tab'" '/^Symbol table / { on = ($3 == tab); next }
			on && $4 == "IFUNC" && $7 != "UND" { print }' syms.txt
	done | awk '
	function us(s,   n) { n = 0; while (substr(s, n + 1, 1) == "_") n++; return n }
	function better(s, b, n, S, B, N) {
		if ((s > 0) != (S > 0)) return s > 0
		if ((b == "WEAK") != (B == "WEAK")) return B == "WEAK"
		if ((b == "GLOBAL") != (B == "GLOBAL")) return b == "GLOBAL"
		if (us(n) != us(N)) return us(n) < us(N)
		return length(n) > length(N)
	}
	{
		a = $2; sub(/^0+/, "", a); if (a == "") a = "0"
		n = $8; sub(/@.*/, "", n)
		if (n == "") next
		if (!(a in name) || better($3 + 0, $5, n, size[a], bind[a], name[a])) {
			name[a] = n; size[a] = $3 + 0; bind[a] = $5
		}
	}
	END { for (a in name) print a, name[a] }' >ifuncs.txt
}

# mtplt FILE: the PLT entries mt-symbols lists, as objdump labels them
mtplt() {
	mt-symbols "$1" | awk -F '\t' '$3 == "plt" { printf "%016x <%s>:\n", $1, $4 }'
}

# against_objdump FILE: every PLT entry objdump labels, an *ABS* one
# renamed after the IFUNC at its addend; nabs: how many *ABS* there were
against_objdump() {
	ifuncs "$1"
	objdump -d "$1" | grep '@plt>:$' >plt.objdump || true
	awk 'FILENAME == ARGV[1] { ifn[$1] = $2; next }
	match($0, /<\*ABS\*\+0x[0-9a-f]+@plt>:$/) {
		a = substr($0, RSTART + 9, RLENGTH - 15)
		if (a in ifn) sub(/<.*>/, "<" ifn[a] "@plt>")
	} { print }' ifuncs.txt plt.objdump >plt.want
	mtplt "$1" >plt.got
	same_file plt.want plt.got
	nabs=$(grep -c '<\*ABS\*+0x' plt.objdump || true)
}

# libc: every *ABS* entry named (Debian's are all exported IFUNCs)
libc=
for f in /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libc.so.6 /lib64/libc.so.6; do
	[ -f "$f" ] && { libc=$f; break; }
done
if [ -n "$libc" ]; then
	against_objdump "$libc"
	[ "$nabs" -gt 0 ] || fail "$libc: objdump shows no *ABS* PLT entry"
	[ -s ifuncs.txt ] || fail "$libc: no IFUNC symbol"
	grep -q '^[0-9a-f]* <strlen@plt>:$' plt.got || fail "$libc: no strlen@plt"
	echo "$libc: $nabs IRELATIVE entries of $(wc -l <plt.got), as objdump," \
		"$(grep -c 'ABS' plt.got || true) left *ABS*" >&2
fi

# a library calling its own IFUNC: thefunc points at resolve_thefunc
cat >l.c <<'C'
static int impl_a(int x) { return x + 1; }
#ifdef EXPORT_RESOLVER
void *resolve_thefunc(void);
void *resolve_thefunc(void) { return (void *)impl_a; }
#else
static void *resolve_thefunc(void) { return (void *)impl_a; }
#endif
int thefunc(int x) __attribute__((ifunc("resolve_thefunc"), visibility(VIS)));
int use(int x) { return thefunc(x) * 2; }
C
gcc -O2 -fPIC -shared -DVIS='"hidden"' -o hidden.so l.c || fail "gcc hidden.so"
gcc -O2 -fPIC -shared -DVIS='"protected"' -o protected.so l.c ||
	fail "gcc protected.so"
gcc -O2 -fPIC -shared -DVIS='"hidden"' -DEXPORT_RESOLVER -o resolver.so l.c ||
	fail "gcc resolver.so"
for f in hidden protected resolver; do
	strip -o "$f-stripped.so" "$f.so"
done

# abs FILE: at, the address of the one *ABS* entry objdump labels
abs() {
	objdump -d "$1" | grep '<\*ABS\*+0x[0-9a-f]*@plt>:$' >abs.txt || true
	[ "$(wc -l <abs.txt)" -eq 1 ] || fail "$1: objdump labels $(wc -l <abs.txt) *ABS* entries"
	at=$(cut -d ' ' -f 1 abs.txt)
}
# the resolver's address, which the IRELATIVE addend holds
res=$(readelf -sW hidden.so | awk '$8 == "resolve_thefunc" { print $2 }' | sed 's/^0*//')
[ -n "$res" ] || fail "hidden.so: no resolve_thefunc"
for f in hidden protected resolver protected-stripped; do
	against_objdump "$f.so"
	abs "$f.so"
	grep -qx "$at <thefunc@plt>:" plt.got || fail "$f.so: no thefunc@plt at $at"
done
# no IFUNC symbol left (a resolver alone is not what the entry calls):
# objdump's label
for f in hidden-stripped resolver-stripped; do
	against_objdump "$f.so"
	abs "$f.so"
	grep -qx "$at <\*ABS\*+0x$res@plt>:" plt.got ||
		fail "$f.so: no *ABS*+0x$res@plt at $at"
done
grep -q 'thefunc' plt.got && fail "resolver-stripped.so: named after the resolver"
mt-symbols --json resolver-stripped.so >j
contains j "\"binding\":\"plt\",\"name\":\"*ABS*+0x$res@plt\""

# static executables: objdump labels no entry; each entry jumps through
# a slot of an IRELATIVE relocation of .rela.plt, and is named after the
# IFUNC at its addend (thefunc, and libc's strlen, ...)
cat >s.c <<'C'
#include <stdio.h>
#include <string.h>
static int impl_a(int x) { return x + 1; }
static void *resolve_thefunc(void) { return (void *)impl_a; }
int thefunc(int x) __attribute__((ifunc("resolve_thefunc")));
int main(int argc, char **argv) { printf("%zu %d\n", strlen(argv[0]), thefunc(argc)); return 0; }
C
checked=0
for how in static static-pie; do
	if ! gcc -O2 "-$how" -o "$how" s.c 2>/dev/null; then
		echo "skip: gcc -$how does not link here" >&2
		continue
	fi
	ifuncs "$how"
	readelf -rW "$how" | awk '/^Relocation section / { on = ($3 == "'"'"'.rela.plt'"'"'"); next }
		on && $3 == "R_X86_64_IRELATIVE" { o = $1; sub(/^0+/, "", o); a = $4; sub(/^0+/, "", a); print o, a }' >irel.txt
	[ -s irel.txt ] || fail "$how: no IRELATIVE relocation in .rela.plt"
	mt-symbols "$how" | awk -F '\t' '$3 == "plt" { print $1, $2, $4 }' >mt.txt
	# each jmp *slot(%rip) of .plt: the entry holding it, the slot's name
	objdump -d --section=.plt "$how" |
		awk '/jmp +\*0x[0-9a-f]+\(%rip\) +# [0-9a-f]+ / {
			at = $1; sub(/:$/, "", at)
			for (i = 1; i < NF; i++) if ($i == "#") slot = $(i + 1)
			print at, slot }' >jmps.txt
	awk 'function hex(s,   i, v) {
		sub(/^0x/, "", s); v = 0
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	FILENAME == ARGV[1] { ifn[$1] = $2; next }
	FILENAME == ARGV[2] { add[$1] = $2; next }
	FILENAME == ARGV[3] { start[++n] = hex($1); size[n] = $2; name[n] = $3; next }
	!($2 in add) { next }
	{
		at = hex($1); a = add[$2]
		want = (a in ifn) ? ifn[a] "@plt" : "*ABS*+0x" a "@plt"
		for (i = 1; i <= n; i++)
			if (start[i] <= at && at < start[i] + size[i]) break
		if (i > n) { printf "no entry holds the jmp at %x\n", at; bad = 1; next }
		if (name[i] != want) { printf "%x: %s, expected %s\n", start[i], name[i], want; bad = 1 }
		found++
	}
	END { print found + 0 > "found.txt"; exit bad }' \
		ifuncs.txt irel.txt mt.txt jmps.txt >&2 || fail "$how: misnamed entries"
	[ "$(cat found.txt)" -eq "$(wc -l <irel.txt)" ] ||
		fail "$how: $(cat found.txt) entries for $(wc -l <irel.txt) IRELATIVE relocations"
	[ "$(wc -l <mt.txt)" -eq "$(wc -l <irel.txt)" ] ||
		fail "$how: $(wc -l <mt.txt) PLT entries for $(wc -l <irel.txt) relocations"
	grep -q ' thefunc@plt$' mt.txt || fail "$how: no thefunc@plt"
	grep -q ' strlen@plt$' mt.txt || fail "$how: no strlen@plt"
	checked=$((checked + 1))
done
echo "static executables checked: $checked" >&2
