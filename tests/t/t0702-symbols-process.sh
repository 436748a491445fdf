#!/bin/sh
# mt-symbols -p: the symbols of a running PIE process at the addresses the
# process itself prints for its functions (its own code, libc, a dlopened
# library at a random address); --addr on runtime addresses; the [vdso];
# JIT symbols from /tmp/perf-PID.map; a missing process.
. "$MT_TOP/tests/lib.sh"

cat >lib.c <<'C'
int in_lib(int x) { return x + 1; }
C
cat >p.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int work(int n) { return n * 2; }
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h)
		return 2;
	printf("work %p\nin_lib %p\nputs %p\n", (void *)work,
	       dlsym(h, "in_lib"), (void *)puts);
	fflush(stdout);
	pause();
	return work(argc);
}
C
gcc -O0 -g -shared -fPIC -o libt.so lib.c
gcc -O0 -g -fPIE -pie -o p p.c -ldl
: >addrs
./p "$PWD/libt.so" >addrs &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
# the program wrote its three addresses
three_lines() { [ "$(wc -l <addrs)" -ge 3 ]; }
wait_for three_lines || :
[ "$(wc -l <addrs)" -eq 3 ] || fail "the program did not start"

mt-symbols -p "$pid" >list
awk -F '\t' 'NF != 6 { exit 1 }' list || fail "-p: not six fields"
for fn in work in_lib puts; do
	want=$(awk -v n="$fn" '$1 == n { print $2 }' addrs)
	case $fn in
	work) file=$PWD/p ;;
	in_lib) file=$PWD/libt.so ;;
	puts) file=$(awk '$6 ~ /\/libc[.-]/ { print $6; exit }' /proc/$pid/maps) ;;
	esac
	got=$(awk -F '\t' -v n="$fn" -v f="$file" '$5 == n && $1 == f { print $2 }' list | head -n 1)
	[ -n "$got" ] || fail "$fn of $file not listed"
	[ $((got)) -eq $((want)) ] || fail "$fn: $got, the process says $want"
	# --addr inside the function, at its runtime address
	# (puts has an alias, _IO_puts: either name)
	mt-symbols -p "$pid" --addr "$(printf '%x' $((want + 2)))" >r
	name=$(sed -n 's/^[^\t]*\t\(.*\)+0x2$/\1/p' r)
	awk -F '\t' -v a="$got" -v n="$name" -v f="$file" \
		'$1 == f && $2 == a && $5 == n { ok = 1 } END { exit !ok }' list ||
		fail "--addr $fn+2: $(cat r)"
done
# the main program and the library are not at their file addresses
w=$(awk '$1 == "work" { print $2 }' addrs)
wf=$(mt-symbols p | awk -F '\t' '$4 == "work" { print $1 }')
[ $((w)) -ne $((wf)) ] || fail "PIE not relocated?"
# the vDSO, read from memory: its functions inside the [vdso] mapping
range=$(awk '$6 == "[vdso]" { print $1 }' /proc/$pid/maps)
lo=$((0x${range%-*})) hi=$((0x${range#*-}))
awk -F '\t' '$1 == "[vdso]" { print $2 }' list >vdso
[ -s vdso ] || fail "no [vdso] symbols"
grep -q '	__vdso_clock_gettime	' list || fail "no __vdso_clock_gettime"
while read -r a; do
	[ $((a)) -ge $lo ] && [ $((a)) -lt $hi ] || fail "[vdso] symbol at $a outside $range"
done <vdso

# a JIT's perf map
map=/tmp/perf-$pid.map
trap 'kill $pid 2>/dev/null || true; rm -f "$map"' EXIT
printf '7f0000001000 40 jitted_fn\n0x7f0000001040 0x20 Lambda$1 of Foo\n' >"$map"
mt-symbols -p "$pid" >list
contains list "$(printf '%s\t0x7f0000001000\t64\tjit\tjitted_fn\tjitted_fn' "$map")"
contains list "$(printf '%s\t0x7f0000001040\t32\tjit\tLambda$1 of Foo\t' "$map")"
mt-symbols -p "$pid" --addr 7f0000001045 >r
printf '%s\tLambda$1 of Foo+0x5\n' "$map" >r.want
same_file r.want r
printf '7f0000001000 40 ok\nnot a line\n' >"$map"
expect_exit 1 mt-symbols -p "$pid" >out 2>err
contains err "$map:2: not a perf map line"
rm -f "$map"

kill $pid
wait $pid 2>/dev/null || true
expect_exit 1 mt-symbols -p "$pid" >out 2>err
contains err "mt-symbols: no such process: $pid"
expect_exit 2 mt-symbols -p 12x >out 2>err
