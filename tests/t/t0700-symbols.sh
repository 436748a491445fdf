#!/bin/sh
# mt-symbols: the function symbols of programs built here with gcc and g++
# agree with nm (addresses, bindings); C++ names are demangled; --match,
# --exact (a name full of regex characters), --addr, --json; a text file,
# a truncated ELF file and a missing file fail naming the file; --help
# agrees with the man page.
. "$MT_TOP/tests/lib.sh"

synopsis "$MT_TOP/docs/mt-symbols.1" >syn
grep -q '^mt-symbols ' syn || fail "no SYNOPSIS in the man page"
help_usage mt-symbols | sed 's/^usage: //' >usage
same_file syn usage
expect_exit 2 mt-symbols --bogus >out 2>err
contains err "usage: $(cat syn)"
expect_exit 2 mt-symbols >out 2>err
expect_exit 2 mt-symbols --match '(' /bin/sh >out 2>err
contains err "--match (:"
expect_exit 2 mt-symbols --addr xyz /bin/sh >out 2>err
mt-symbols --version | grep -q '^mt-symbols (mt) ' || fail "--version"

cat >a.c <<'C'
#include <stdio.h>
static int helper(int x) { return x * 3 + 1; }
__attribute__((weak)) int maybe(int x) { return x + 2; }
int dollar(int x) __asm__("foo_bar_$5_baz$3_qux_12345");
int dollar(int x) { return x - 7; }
int foo_bar_5_baz3_qux_12345(int x) { return x; }
int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += helper(i) + maybe(i) + dollar(i) + foo_bar_5_baz3_qux_12345(i);
	return s;
}
int main(int argc, char **argv) { (void)argv; printf("%d\n", work(argc)); return 0; }
C
cat >b.cc <<'C'
namespace ns {
template <typename T> T twice(T x) { return x + x; }
}
int main(int argc, char **) { return ns::twice<int>(argc) + (int)ns::twice<long>(argc); }
C
gcc -O0 -o a a.c || fail "gcc"
g++ -O0 -o b b.cc || fail "g++"

# name, binding and address as nm prints them (t local, T global, W weak)
mt-symbols a >list
for want in "helper local t" "maybe weak W" "work global T" "main global T" \
	'foo_bar_$5_baz$3_qux_12345 global T'; do
	set -- $want
	line=$(awk -F '\t' -v n="$1" '$4 == n' list)
	[ -n "$line" ] || fail "$1 not listed"
	[ "$(printf '%s\n' "$line" | wc -l)" -eq 1 ] || fail "$1 listed twice"
	bind=$(printf '%s\n' "$line" | cut -f3)
	[ "$bind" = "$2" ] || fail "$1: binding $bind, expected $2"
	addr=$(printf '%s\n' "$line" | cut -f1)
	nm a | awk -v n="$1" -v t="$3" '$3 == n && $2 == t { print $1 }' >nm.out
	[ -s nm.out ] || fail "$1: nm does not list it as $3"
	[ $((addr)) -eq $((0x$(cat nm.out))) ] || fail "$1: $addr, nm says $(cat nm.out)"
	size=$(printf '%s\n' "$line" | cut -f2)
	[ "$size" -gt 0 ] || fail "$1: size $size"
	[ "$(printf '%s\n' "$line" | cut -f5)" = "$1" ] || fail "$1: C name changed"
done
# every line has five fields, addresses ascend
awk -F '\t' 'NF != 5 { exit 1 }' list || fail "not five fields"
cut -f1 list | while read -r x; do printf '%d\n' "$x"; done >addrs
sort -n -c addrs || fail "not sorted by address"

# C++: demangled names, the mangled ones kept
mt-symbols b >listb
contains listb "$(printf '\tweak\t_ZN2ns5twiceIiEET_S1_\tint ns::twice<int>(int)')"
contains listb "$(printf '\t_ZN2ns5twiceIlEET_S1_\tlong ns::twice<long>(long)')"
a1=$(awk -F '\t' '$4 == "_ZN2ns5twiceIiEET_S1_" { print $1 }' listb)
n1=$(nm b | awk '$3 == "_ZN2ns5twiceIiEET_S1_" { print $1 }')
[ $((a1)) -eq $((0x$n1)) ] || fail "twice<int>: $a1, nm says $n1"

# --match: on demangled and mangled names
mt-symbols --match 'ns::twice<long>' b >m
[ "$(wc -l <m)" -eq 1 ] || fail "--match demangled: $(cat m)"
contains m _ZN2ns5twiceIlEET_S1_
mt-symbols --match '^_ZN2ns5twice' b >m
[ "$(wc -l <m)" -eq 2 ] || fail "--match mangled: $(cat m)"
mt-symbols --match 'no_such_thing' b >m
[ ! -s m ] || fail "--match nothing"

# --exact: $ is no anchor, the name with the dollars removed is another one
mt-symbols --exact 'foo_bar_$5_baz$3_qux_12345' a >e
[ "$(wc -l <e)" -eq 1 ] || fail "--exact: $(cat e)"
[ "$(cut -f4 e)" = 'foo_bar_$5_baz$3_qux_12345' ] || fail "--exact: $(cat e)"
mt-symbols --exact 'long ns::twice<long>(long)' b >e
contains e _ZN2ns5twiceIlEET_S1_

# --addr: inside work, and at main's entry
w=$(awk -F '\t' '$4 == "work" { print $1 }' list)
m=$(awk -F '\t' '$4 == "main" { print $1 }' list)
mt-symbols --addr "$(printf '0x%x' $((w + 5)))" --addr "${m#0x}" a >r
printf 'work+0x5\nmain+0x0\n' >r.want
same_file r.want r
t=$(awk -F '\t' '$4 == "_ZN2ns5twiceIiEET_S1_" { print $1 }' listb)
mt-symbols --addr "$(printf '%x' $((t + 3)))" b >r
echo 'int ns::twice<int>(int)+0x3' >r.want
same_file r.want r
expect_exit 1 mt-symbols --addr 0x1 a >r 2>err
contains err "mt-symbols: a: 0x1: in no function symbol"

# --json: an array, one object per symbol
mt-symbols --json a >j
[ "$(head -c 1 j)" = "[" ] || fail "--json does not start with ["
[ "$(tail -n 1 j)" = "]" ] || fail "--json does not end with ]"
[ "$(grep -c '^{"file":"a","addr":"0x' j)" -eq "$(wc -l <list)" ] ||
	fail "--json: not one object per symbol"
contains j '"binding":"weak","name":"maybe","demangled":"maybe"}'
mt-symbols --json --match twice b >j
contains j '"name":"_ZN2ns5twiceIiEET_S1_","demangled":"int ns::twice<int>(int)"'
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' j ||
		fail "--json: not JSON"
fi
mt-symbols --json --match no_such_thing b >j
[ "$(cat j)" = "[]" ] || fail "--json, empty: $(cat j)"

# several files: the name first
mt-symbols a b >both
[ "$(wc -l <both)" -eq $(($(wc -l <list) + $(wc -l <listb))) ] || fail "a b"
contains both "$(printf 'b\t%s\t' "$a1")"

# bad input
echo 'just text' >text.txt
expect_exit 1 mt-symbols text.txt >out 2>err
contains err "mt-symbols: text.txt: not an ELF file"
[ "$(wc -l <err)" -eq 1 ] || fail "more than one line: $(cat err)"
head -c 2000 a >cut
expect_exit 1 mt-symbols cut >out 2>err
contains err "mt-symbols: cut: malformed ELF file"
expect_exit 3 mt-symbols no-such-file >out 2>err
contains err "mt-symbols: no-such-file: No such file or directory"
echo 'int data_only = 1;' >d.c
gcc -c -o d.o d.c
expect_exit 1 mt-symbols d.o >out 2>err
contains err "mt-symbols: d.o: no function symbols"
# the good file is still listed
expect_exit 1 mt-symbols text.txt a >out 2>err
contains out "$(printf 'a\t%s\t' "$w")"
