#!/bin/sh
# mt-record --backend uprobe: a stripped program's calls through its PLT.
# --functions 'NAME@plt' probes the PLT entries that mt-symbols lists
# (named as perf names them): a stripped program built here calls its
# library's lib_work and libc's getppid, counts the calls and prints the
# counts, and the trace holds exactly those calls, as lib_work@plt and
# getppid@plt spans; a regex without @plt leaves PLT entries out (a call
# would count twice), so '^lib_work' probes the library's function only.
# A library the command dlopen()s after its entry point is not looked at:
# a warning names it once.
. "$MT_TOP/tests/lib.sh"
need_uprobes
[ "$(uname -m)" = x86_64 ] || { echo "skip: a command's libraries are reached on x86-64" >&2; exit 0; }
mkdir tmp
export TMPDIR="$PWD/tmp"

cat >libt.c <<'C'
int lib_work(int x) { return x * 3 + 1; }
C
cat >progs.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int lib_work(int);
static volatile long s;
int main(int argc, char **argv)
{
	int n = atoi(argv[1]), work = 0, ppid = 0;

	for (int i = 0; i < n; i++) {
		s += lib_work(i);
		work++;
		if (i % 4 == 1) {
			s += getppid();
			ppid++;
		}
	}
	printf("calls lib_work %d getppid %d\n", work, ppid);
	return 0;
}
C
gcc -shared -fPIC -o libt.so libt.c
gcc -O1 -o progs progs.c -L. -lt -Wl,-rpath,"$PWD"
strip progs
nm progs 2>&1 | grep -q "no symbols" || fail "strip left symbols: $(nm progs | head -3)"
mt-symbols progs | awk '$3 == "plt" { print $4 }' >plt.txt
grep -qx 'lib_work@plt' plt.txt && grep -qx 'getppid@plt' plt.txt ||
	fail "mt-symbols lists no lib_work@plt and getppid@plt: $(cat plt.txt)"

mt-record --backend uprobe --text --functions '^(lib_work|getppid)@plt$' -- ./progs 300 \
	>plt.rec 2>err || { cat err >&2; fail "--functions '^(lib_work|getppid)@plt\$' failed"; }
contains err "calls lib_work 300 getppid 75"
grep -q "shared library" err && fail "a PLT selection probed a library: $(cat err)"
for ev in lib_work getppid; do
	case $ev in lib_work) want=300 ;; *) want=75 ;; esac
	n=$(grep -c " probe_progs:$ev: .* $ev@plt+0x0 ($PWD/progs)\$" plt.rec)
	[ "$n" -eq $want ] || fail "$n calls of $ev@plt, the program made $want"
	n=$(grep -c " probe_progs:${ev}__return: " plt.rec)
	[ "$n" -eq $want ] || fail "$n returns of $ev@plt, the program made $want calls"
done
mt-script-parse plt.rec | mt-stacks | mt-dump >plt.dump
[ "$(span_count plt.dump lib_work@plt)" -eq 300 ] || fail "$(span_count plt.dump lib_work@plt) lib_work@plt spans"
[ "$(span_count plt.dump getppid@plt)" -eq 75 ] || fail "$(span_count plt.dump getppid@plt) getppid@plt spans"

# without @plt in the regex: the library's function, not the PLT entry
# that the regex matches too
mt-record --backend uprobe --text --functions '^lib_work' -- ./progs 40 >lib.rec 2>err ||
	{ cat err >&2; fail "--functions '^lib_work' failed"; }
[ "$(grep -c ' probe_libt:lib_work: ' lib.rec)" -eq 40 ] || fail "$(grep -c ' probe_libt:lib_work: ' lib.rec) calls of libt's lib_work"
grep -q 'probe_progs:' lib.rec && fail "'^lib_work' probed a PLT entry"
grep -q 'was mapped after' err && fail "a late mapping said of a program that dlopens nothing"

# dlopen: after the choice, warned once, not probed
cat >dl.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(void)
{
	void *h = dlopen("./libt.so", RTLD_NOW);
	int (*f)(int) = h ? (int (*)(int))dlsym(h, "lib_work") : 0;
	int s = 0;

	for (int i = 0; f && i < 10; i++)
		s += f(i);
	printf("dl %d\n", h ? s : -1);
	return 0;
}
C
gcc -O1 -o dl dl.c -ldl
mt-record --backend uprobe --text --functions '^(lib_work|main)$' -- ./dl >dl.rec 2>err ||
	{ cat err >&2; fail "--functions on a program that dlopens failed"; }
contains err "dl 145"
contains err "mt-record: $PWD/libt.so was mapped after --functions chose the functions"
[ "$(grep -c 'was mapped after' err)" -eq 1 ] || fail "the late mapping said $(grep -c 'was mapped after' err) times"
grep -q 'lib_work' dl.rec && fail "a dlopened library was probed"
[ "$(grep -c ' probe_dl:main: ' dl.rec)" -eq 1 ] || fail "main not probed once"
[ -z "$(ls tmp)" ] || fail "left in TMPDIR: $(ls tmp)"
