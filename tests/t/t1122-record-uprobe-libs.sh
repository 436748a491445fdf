#!/bin/sh
# mt-record --backend uprobe --text --functions reaches a command's shared
# libraries: the command is held at its entry point, where the dynamic
# loader has mapped them, and the selection is made over the executable and
# its libraries there. A program built here, linking a library built here,
# counts its calls of the library's lib_work and of libc's getppid and
# prints the counts: -- CMD records exactly those calls (entries, returns
# and mt-stacks spans), -p PID the same. A regex that matches nothing
# anywhere says where it looked (the executable and every library) and the
# command never runs; so does one whose entry point another recording
# probes (the stop there would be lost).
. "$MT_TOP/tests/lib.sh"
need_uprobes
[ "$(uname -m)" = x86_64 ] || { echo "skip: a command's libraries are reached on x86-64" >&2; exit 0; }
mkdir tmp
export TMPDIR="$PWD/tmp"

cat >libt.c <<'C'
int lib_work(int x) { return x * 3 + 1; }
C
cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int lib_work(int);
static volatile long s;
int main(int argc, char **argv)
{
	int n = atoi(argv[1]), work = 0, ppid = 0;

	/* with a second argument: until the test says the recorder is ready */
	while (argc > 2 && access("go", F_OK))
		usleep(10000);
	for (int i = 0; i < n; i++) {
		s += lib_work(i);
		work++;
		if (i % 3 == 0) {
			s += getppid();
			ppid++;
		}
	}
	printf("calls lib_work %d getppid %d\n", work, ppid);
	return 0;
}
C
gcc -shared -fPIC -o libt.so libt.c
gcc -O1 -o prog prog.c -L. -lt -Wl,-rpath,"$PWD"

# check TRACE ERR WHAT: the calls in TRACE are those the program counted
check() {
	set -- "$1" "$2" "$3" "$(sed -n 's/.*calls lib_work \([0-9]*\) getppid \([0-9]*\).*/\1 \2/p' "$2")"
	[ -n "$4" ] || { cat "$2" >&2; fail "$3: the program printed no counts"; }
	want_work=${4% *} want_ppid=${4#* }
	[ "$want_work" -gt 0 ] && [ "$want_ppid" -gt 0 ] || fail "$3: counts $4"
	for ev in probe_libt:lib_work: probe_libt:lib_work__return: probe_libc:getppid: \
		probe_libc:getppid__return:; do
		case $ev in *lib_work*) want=$want_work ;; *) want=$want_ppid ;; esac
		got=$(grep -c " $ev " "$1")
		[ "$got" -eq "$want" ] || fail "$3: $got $ev events, the program made $want calls"
	done
	mt-script-parse "$1" | mt-stacks | mt-dump >"$1.dump"
	[ "$(span_count "$1.dump" lib_work)" -eq "$want_work" ] ||
		fail "$3: $(span_count "$1.dump" lib_work) lib_work spans, $want_work calls"
	[ "$(span_count "$1.dump" getppid)" -eq "$want_ppid" ] ||
		fail "$3: $(span_count "$1.dump" getppid) getppid spans, $want_ppid calls"
	contains "$2" "probing 1 function of the shared library $PWD/libt.so"
}

sel='^(lib_work|getppid)$'
mt-record --backend uprobe --text --functions "$sel" -- ./prog 250 >cmd.txt 2>cmd.err ||
	{ cat cmd.err >&2; fail "--functions '$sel' -- ./prog failed"; }
check cmd.txt cmd.err "-- CMD"
contains cmd.err "calls lib_work 250 getppid 84"

# -p: the same selection on the running program, which waits for go
rm -f go
./prog 250 wait >p.out 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
wait_mapped $pid "$PWD/libt.so"
mt-record --backend uprobe --text --functions "$sel" -p $pid >p.txt 2>p.err &
rec=$!
wait_for grep -q "recording $pid" p.err || { cat p.err >&2; fail "-p: not recording"; }
: >go
wait $rec || { cat p.err >&2; fail "--functions '$sel' -p failed"; }
wait $pid
cat p.out >>p.err
check p.txt p.err "-p PID"
grep ' probe_lib' cmd.txt | sed 's/.*\(probe_[a-z_:]*\): .* \([a-z_]*+0x[0-9a-f]*\) (.*/\1 \2/' | sort | uniq -c >cmd.calls
grep ' probe_lib' p.txt | sed 's/.*\(probe_[a-z_:]*\): .* \([a-z_]*+0x[0-9a-f]*\) (.*/\1 \2/' | sort | uniq -c >p.calls
same_file cmd.calls p.calls

# nothing matches: the executable and each library named, the command
# never ran, nothing written
expect_exit 1 mt-record --backend uprobe --text --functions '^zz_no_such$' -- ./prog 5 >none.txt 2>none.err
contains none.err "mt-record: --functions '^zz_no_such\$': no function matches in $PWD/prog nor in the 3 shared libraries it maps: "
contains none.err "$PWD/libt.so"
contains none.err "libc.so"
contains none.err "ld-linux"
[ "$(wc -l <none.err)" -eq 1 ] || fail "no match: more than one line: $(cat none.err)"
grep -q "calls lib_work" none.err && fail "the command ran though nothing matched"
[ ! -s none.txt ] || fail "a trace was written though nothing matched"
rm -f go
./prog 5 wait >/dev/null 2>&1 &
pid=$!
wait_mapped $pid "$PWD/libt.so"
expect_exit 1 mt-record --backend uprobe --text --functions '^zz_no_such$' -p $pid >none.txt 2>none.err
contains none.err "no function matches in $PWD/prog nor in the 3 shared libraries it maps: "
: >go
wait $pid

# another recording's uprobe on the entry point would take the stop
# there (and the program would run on unseen): refused, the command killed
rm -f go
mt-record --backend uprobe --text --functions '^_start$' -- ./prog 5 wait >start.txt 2>start.err &
rec=$!
wait_for grep -q "recording" start.err || { cat start.err >&2; fail "_start: not recording"; }
expect_exit 3 mt-record --backend uprobe --text --functions '^lib_work$' -- ./prog 5 >busy.txt 2>busy.err
contains busy.err "mt-record: ./prog: its entry point already holds a breakpoint"
grep -q "calls lib_work" busy.err && fail "the command ran on though it could not be stopped"
: >go
wait $rec || { cat start.err >&2; fail "the recording of _start failed"; }
[ "$(grep -c ' probe_prog:_start: ' start.txt)" -eq 1 ] || fail "_start not probed once"
[ -z "$(ls tmp)" ] || fail "left in TMPDIR: $(ls tmp)"
