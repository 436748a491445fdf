#!/bin/sh
# PLT entries in the uprobe selection (mt-record/functions.c), through
# uprobe-rec: on a stripped program a regex naming @plt probes the PLT
# entries that mt-symbols synthesizes (NAME@plt, as perf names them), and
# each call through one is one entry and one return (the program counts
# its calls and prints the count); a regex without @plt leaves them out,
# so that a call through the PLT does not count twice.
. "$MT_TOP/tests/lib.sh"
need_uprobes
cat >libt.c <<'C'
int lib_work(int x) { return x * 3 + 1; }
C
cat >progs.c <<'C'
#include <stdio.h>
#include <stdlib.h>
int lib_work(int);
static volatile long s;
int main(int argc, char **argv)
{
	int n = atoi(argv[1]), calls = 0;

	for (int i = 0; i < n; i++) {
		s += lib_work(i);
		calls++;
	}
	printf("calls %d\n", calls);
	return 0;
}
C
gcc -shared -fPIC -o libt.so libt.c
gcc -O1 -o progs progs.c -L. -lt -Wl,-rpath,"$PWD"
strip progs

# the choice: every PLT entry mt-symbols lists, one per address
mt-symbols progs | awk '$3 == "plt" && $1 != last { print $4; last = $1 }' | sort >want.txt
grep -qx 'lib_work@plt' want.txt || fail "mt-symbols lists no lib_work@plt: $(cat want.txt)"
uprobe-rec --list --functions '@plt$' -- ./progs >list.txt 2>err ||
	{ cat err >&2; fail "uprobe-rec --list --functions '@plt\$' failed"; }
sort list.txt >got.txt
same_file want.txt got.txt
# without @plt: no PLT entry, and a stripped program has nothing else
expect_exit 1 uprobe-rec --list --functions 'lib_work' -- ./progs >list.txt 2>err
contains err "no function matches 'lib_work'"

# the calls: as many as the program made, named lib_work@plt
uprobe-rec --functions '^lib_work@plt$' -- ./progs 123 >rec.txt 2>err ||
	{ cat err >&2; fail "uprobe-rec --functions '^lib_work@plt\$' failed"; }
contains err "calls 123"
n=$(grep -c " probe_progs:lib_work: .* lib_work@plt+0x0 ($PWD/progs)\$" rec.txt)
[ "$n" -eq 123 ] || fail "$n calls of lib_work@plt, the program made 123"
n=$(grep -c " probe_progs:lib_work__return: " rec.txt)
[ "$n" -eq 123 ] || fail "$n returns of lib_work@plt, the program made 123 calls"
