#!/bin/sh
# mt-record -p of a process whose executable and a shared library were
# deleted, or replaced by a rename as a package upgrade does, while it
# runs: the maps then name them "PATH (deleted)", a name that opens
# nothing (or the new file). The uprobe backend and triggers reach the
# mapped files through /proc/PID/exe and /proc/PID/map_files: exact calls
# of the program's and the library's functions, named after the files;
# triggers in both (a breakpoint or a uprobe, and a uprobe forced); the
# pt backend's --dry-run.
. "$MT_TOP/tests/lib.sh"
need_uprobes
mkdir tmp
export TMPDIR="$PWD/tmp"

cat >libt.c <<'C'
__attribute__((noinline)) int lib_fn(int x) { return x * 3 + 1; }
C
cat >libnew.c <<'C'
int other_fn(int x) { return x - 1; }
C
cat >app.c <<'C'
#include <unistd.h>
int lib_fn(int);
static volatile int s;
__attribute__((noinline)) void work(int i) { s += i; }
__attribute__((noinline)) void outer(int i) { work(i); work(i + 1); }
__attribute__((noinline)) void magic_trace_stop_indicator(void)
{
	__asm__ volatile("" ::: "memory");
}
int main(void)
{
	/* until the test says the recorder is ready */
	while (access("go", F_OK))
		usleep(10000);
	for (int i = 1; i <= 100; i++) {
		outer(i);
		s += lib_fn(i);
		if (i == 60)
			magic_trace_stop_indicator();
		usleep(1000);
	}
	return 0;
}
C
gcc -shared -fPIC -o libt.so.orig libt.c
gcc -shared -fPIC -o libt.so.new libnew.c
cp libt.so.orig libt.so
gcc -O1 -fno-inline -o app.orig app.c -L. -lt -Wl,-rpath,"$PWD"

# start: a new app whose executable is then deleted and whose library is
# replaced by another file; $app is its pid
start() {
	rm -f go
	cp app.orig app
	cp libt.so.orig libt.so
	./app &
	app=$!
	wait_for grep -q libt.so "/proc/$app/maps" || fail "app did not start"
	rm app
	cp libt.so.new libt.so.tmp
	mv libt.so.tmp libt.so
	grep -q "$PWD/app (deleted)" "/proc/$app/maps" || fail "not deleted: app"
	grep -q "$PWD/libt.so (deleted)" "/proc/$app/maps" || fail "not deleted: libt.so"
}
# go WHAT: the recorder is ready: let the app run
go() {
	wait_for grep -q "recording $app" err || { cat err >&2; fail "$1: not recording"; }
	: >go
}
trap 'kill ${app:-} 2>/dev/null || true' EXIT
pipeline() { mt-script-parse "$1" | mt-stacks | mt-dump >"$2"; }

# the pt backend prints its command lines; the uprobe backend its plan
start
mt-record --dry-run --backend pt -p "$app" >dry 2>err || fail "pt --dry-run exited $?"
contains dry "perf record -o DIR/perf.data --timestamp -e intel_pt/"
[ ! -s err ] || fail "pt --dry-run said: $(cat err)"

# the uprobe backend: every call of the deleted program and library
mt-record --backend uprobe --text --functions '^(outer|work|lib_fn)$' -p "$app" >u.txt 2>err &
rec=$!
go "uprobe backend"
wait $rec || { cat err >&2; fail "uprobe backend failed"; }
wait $app
contains u.txt "probe_app:outer: ("
contains u.txt "probe_libt:lib_fn: ("
contains u.txt " outer+0x0 ($PWD/app (deleted))"
contains u.txt " lib_fn+0x0 ($PWD/libt.so (deleted))"
pipeline u.txt u.dump
[ "$(span_count u.dump outer)" -eq 100 ] || fail "$(span_count u.dump outer) outer spans"
[ "$(span_count u.dump work)" -eq 200 ] || fail "$(span_count u.dump work) work spans"
[ "$(span_count u.dump lib_fn)" -eq 100 ] || fail "$(span_count u.dump lib_fn) lib_fn spans"
nested u.dump outer work 2 || fail "work spans do not nest in outer spans"

# a trigger in the deleted program, as this machine arms it, with the
# sample backend
start
mt-record --backend sample --trigger . -p "$app" >s.txt 2>err &
rec=$!
go "sample backend, trigger"
wait $rec || { cat err >&2; fail "sample backend with a trigger failed"; }
wait $app
contains err "trigger armed: magic_trace_stop_indicator @ 0x"
contains err " in $PWD/app (deleted) ("
contains err "trigger magic_trace_stop_indicator hit by $app/$app"
contains s.txt "# mt: trigger "

# a uprobe trigger in the deleted program: the 60 calls before it
start
mt-record --backend uprobe --text --functions '^outer$' --trigger . --trigger-via uprobe \
	-p "$app" >t.txt 2>err &
rec=$!
go "uprobe trigger"
wait $rec || { cat err >&2; fail "uprobe trigger failed"; }
wait $app
contains err "in $PWD/app (deleted) (uprobe"
pipeline t.txt t.dump
[ "$(span_count t.dump outer)" -eq 60 ] || fail "trigger: $(span_count t.dump outer) outer spans"

# a trigger in the replaced library: its first call, after outer(1)
start
mt-record --backend uprobe --text --functions '^outer$' --trigger lib_fn -p "$app" >l.txt 2>err &
rec=$!
go "library trigger"
wait $rec || { cat err >&2; fail "library trigger failed"; }
wait $app
contains err "trigger armed: lib_fn @ 0x"
contains err " in $PWD/libt.so (deleted) ("
pipeline l.txt l.dump
[ "$(span_count l.dump outer)" -eq 1 ] || fail "library trigger: $(span_count l.dump outer) outer spans"
[ -z "$(ls tmp)" ] || fail "left in TMPDIR: $(ls tmp)"
