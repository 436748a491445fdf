#!/bin/sh
# mt-record where there is no Intel PT (every machine here): --backend pt
# fails at once (well within 3 s) with one message that says why and names
# the other backends, exit 3, and leaves no perf process and no temporary
# directory; auto picks the patch backend for a program with functions of
# its own (symbols, or FDEs in a stripped one: sleep), the sample backend
# for a stripped one built without unwind tables, and says which and why;
# a missing process,
# a missing command, a command that is not executable or a directory, and
# a file that is not perf.data fail clearly.
. "$MT_TOP/tests/lib.sh"
[ ! -e /sys/bus/event_source/devices/intel_pt ] ||
	{ echo "skip: this machine has Intel PT" >&2; exit 0; }

mkdir tmp
export TMPDIR="$PWD/tmp"
sleep 30 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
t0=$(date +%s%N)
expect_exit 3 mt-record --backend pt -p "$pid" >out 2>err
t1=$(date +%s%N)
[ $(((t1 - t0) / 1000000)) -lt 3000 ] || fail "took $(((t1 - t0) / 1000000)) ms"
contains err "mt-record: no Intel PT here: /sys/bus/event_source/devices/intel_pt does not exist"
contains err "--backend uprobe"
contains err "--backend sample"
[ "$(wc -l <err)" -eq 1 ] || fail "more than one line: $(cat err)"
[ ! -s out ] || fail "output written"
# a perf of ours records into our TMPDIR (others come and go beside us)
! pgrep -f "record -o $PWD/tmp/" >/dev/null || fail "a perf process is left"
[ -z "$(ls tmp)" ] || fail "left in TMPDIR: $(ls tmp)"
kill -0 "$pid" || fail "the target died"

# auto: the patch backend for a program with functions of its own
# (tests/progs/stopper; sleep, stripped, by its FDEs), sample for a
# stripped one without unwind tables, or with an option only sampling
# takes; said once, with why
"$MT_TESTBIN/progs/stopper" -l >/dev/null 2>&1 &
spid=$!
wait_mapped $spid "$MT_TESTBIN/progs/stopper" # (the shell's until its exec)
mt-record --dry-run -p "$spid" >dry 2>err
contains dry "# patch backend:"
mt-record --dry-run --frequency 99 -p "$spid" >dry 2>err
contains dry "-e cpu-clock/"
kill $spid
mt-record --dry-run -p "$pid" >dry 2>err
contains dry "# patch backend:"
cat >nu.c <<'C'
#include <unistd.h>
int main(void) { return sleep(30); }
C
gcc -O1 -fno-asynchronous-unwind-tables -fno-unwind-tables -o nu nu.c
strip nu
./nu &
nupid=$!
trap 'kill $pid $nupid 2>/dev/null || true' EXIT
wait_mapped $nupid "$PWD/nu"
mt-record --dry-run -p "$nupid" >dry 2>err
contains dry "-e cpu-clock/"
mt-record -p "$nupid" -o auto.mt >auto.out 2>auto.err &
rec=$!
wait_for grep -q "recording" auto.err || { kill $rec; fail "auto: not recording: $(cat auto.err)"; }
kill -INT $rec
wait $rec || :
contains auto.err "no Intel PT here, and $PWD/nu names none of its own functions (stripped, and no .eh_frame shows any)"
[ "$(grep -c 'no Intel PT here' auto.err)" -eq 1 ] || fail "said more than once: $(cat auto.err)"
kill $nupid
expect_exit 2 mt-record --backend sample -p 99999999999 >out 2>err
# no pid is pid_max's largest value, 2^22
expect_exit 1 mt-record --backend sample -p 4194304 >out 2>err
contains err "no such process: 4194304"
expect_exit 1 mt-record --backend sample -- ./no-such-command >out 2>err
contains err "no-such-command: command not found"
# a file that is not executable, a directory, also found in PATH: said so
printf 'not a program\n' >plain
expect_exit 1 mt-record --backend sample -- /etc/passwd >out 2>err
contains err "mt-record: /etc/passwd: not executable"
expect_exit 1 mt-record --backend sample -- ./plain >out 2>err
contains err "mt-record: ./plain: not executable"
expect_exit 1 env PATH="$PWD:$PATH" mt-record --backend sample -- plain >out 2>err
contains err "mt-record: plain: not executable"
expect_exit 1 mt-record --backend sample -- "$TMPDIR" >out 2>err
contains err "mt-record: $TMPDIR: is a directory"
[ ! -s out ] || fail "output written"
echo "not perf data, not at all, but long enough to hold a header ............................................................" >x.data
expect_exit 1 mt-record -i x.data >out 2>err
contains err "x.data: not a perf.data file"
[ -z "$(ls tmp)" ] || fail "left in TMPDIR: $(ls tmp)"
