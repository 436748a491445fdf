#!/bin/sh
# uprobe engine: uprobe-rec -p (which probes /proc/PID/exe) on a program
# whose executable was deleted and whose shared library was replaced by a
# rename, as a package upgrade does: the probes are placed on the mapped
# inodes, named after the files (probe_cbprog:cb), the files shown as the
# kernel names them ("PATH (deleted)"), and the return addresses into the
# replaced library, which is not probed, still symbolized from the mapped
# file.
. "$MT_TOP/tests/lib.sh"
need_uprobes
target=
rec=
cleanup() {
	[ -z "$rec" ] || kill -9 "$rec" 2>/dev/null || :
	[ -z "$target" ] || kill -9 "$target" 2>/dev/null || :
}
trap cleanup EXIT

cat >libcb.c <<'C'
__attribute__((noinline)) int lib_call(int (*f)(int), int i) { return f(i) + 1; }
C
cat >libnew.c <<'C'
int unrelated(int x) { return x; }
C
cat >cbprog.c <<'C'
#include <unistd.h>
int lib_call(int (*)(int), int);
static volatile int s;
__attribute__((noinline)) int cb(int i) { return s += i; }
int main(void)
{
	while (access("go", F_OK))
		usleep(10000);
	for (int i = 0; i < 50; i++)
		lib_call(cb, i);
	return 0;
}
C
gcc -shared -fPIC -o libcb.so libcb.c
gcc -shared -fPIC -o libnew.so libnew.c
gcc -O1 -fno-inline -o cbprog cbprog.c -L. -lcb -Wl,-rpath,"$PWD"
./cbprog &
target=$!
wait_for grep -q libcb.so "/proc/$target/maps" || fail "the target did not start"
rm cbprog
mv libnew.so libcb.so
grep -q "$PWD/cbprog (deleted)" "/proc/$target/maps" || fail "cbprog is not deleted"

: >err
uprobe-rec --functions '^cb$' -p "$target" >lines 2>err &
rec=$!
wait_for grep -q recording err || { cat err >&2; fail "uprobe-rec did not start"; }
: >go
wait "$target" || fail "the target failed"
target=
wait "$rec" || { cat err >&2; fail "uprobe-rec failed"; }
rec=

[ "$(grep -c ' probe_cbprog:cb: ' lines)" -eq 50 ] || { cat lines >&2; fail "not 50 calls of cb"; }
[ "$(grep -c ' probe_cbprog:cb__return: ' lines)" -eq 50 ] || fail "not 50 returns of cb"
grep ' probe_cbprog:cb: ' lines | grep -vqF " cb+0x0 ($PWD/cbprog (deleted))" &&
	fail "a call not symbolized in cbprog (deleted): $(grep -m1 ' probe_cbprog:cb: ' lines)"
grep ' probe_cbprog:cb__return: ' lines | grep -vq " lib_call+0x[0-9a-f]* ($PWD/libcb.so (deleted))\$" &&
	fail "a return not symbolized in libcb.so (deleted): $(grep -m1 '__return' lines)"
exit 0
