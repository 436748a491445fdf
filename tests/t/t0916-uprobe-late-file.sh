#!/bin/sh
# mt_uprobe_late_file(), through uprobe-rec: attached to a running process
# (-p), the engine names the first file the process maps executable after
# the attach (here a library it dlopen()s once the test says go), whose
# functions no probe could reach; a process that maps nothing new, and a
# command attached before its execve (every mapping comes after), name
# none.
. "$MT_TOP/tests/lib.sh"
need_uprobes
cat >libt.c <<'C'
int lib_work(int x) { return x * 3 + 1; }
C
cat >dl.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
static volatile int s;
__attribute__((noinline)) void tick(int i) { s += i; }
int main(int argc, char **argv)
{
	void *h = NULL;

	while (argc > 2 && access("go", F_OK))
		usleep(10000);
	for (int i = 0; i < 5; i++)
		tick(i);
	if (argc > 1 && argv[1][0] == 'd')
		h = dlopen("./libt.so", RTLD_NOW);
	printf("dl %s\n", h ? "loaded" : "none");
	return 0;
}
C
gcc -shared -fPIC -o libt.so libt.c
gcc -O1 -fno-inline -o dl dl.c -ldl
pid=
trap '[ -z "$pid" ] || kill $pid 2>/dev/null || :' EXIT

# -p ARG: uprobe-rec on ./dl ARG wait, which starts at go
on_pid() {
	rm -f go
	./dl "$1" wait >dl.out 2>&1 &
	pid=$!
	wait_mapped $pid "$PWD/dl"
	uprobe-rec --functions '^tick$' -p $pid >rec.txt 2>err &
	rec=$!
	wait_for grep -q "uprobe-rec: recording" err || { cat err >&2; fail "$1: not recording"; }
	: >go
	wait $rec || { cat err >&2; fail "uprobe-rec -p ($1) failed"; }
	wait $pid
	pid=
	[ "$(grep -c ' probe_dl:tick: ' rec.txt)" -eq 5 ] || fail "$1: $(grep -c ' probe_dl:tick: ' rec.txt) calls of tick"
}
on_pid dlopen
contains dl.out "dl loaded"
contains err "uprobe-rec: mapped after attach: $PWD/libt.so"
[ "$(grep -c 'mapped after attach' err)" -eq 1 ] || fail "mapped after attach said twice"
on_pid none
contains dl.out "dl none"
grep -q 'mapped after attach' err && fail "a late mapping named for a process that maps nothing new: $(cat err)"
# a command: attached before its execve, every mapping is later
uprobe-rec --functions '^tick$' -- ./dl dlopen >rec.txt 2>err ||
	{ cat err >&2; fail "uprobe-rec -- ./dl failed"; }
contains err "dl loaded"
grep -q 'mapped after attach' err && fail "a late mapping named for a command: $(cat err)"
:
