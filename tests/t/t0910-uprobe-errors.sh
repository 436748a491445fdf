#!/bin/sh
# uprobe engine errors, through uprobe-rec: a snapshot ring too small for
# one event, a regex that matches no function, a trigger that is no
# function, a process that does not exist, a command that is not an ELF
# file or not there; each fails with a message naming what failed, and
# leaves no probe and no child behind.
. "$MT_TOP/tests/lib.sh"
[ -r /sys/bus/event_source/devices/uprobe/type ] ||
	{ echo "skip: no uprobe PMU in this kernel" >&2; exit 0; }
[ "$(id -u)" -eq 0 ] || { echo "skip: uprobes need root (CAP_SYS_ADMIN)" >&2; exit 0; }
outer=$MT_TESTBIN/progs/outer

expect_exit 2 uprobe-rec >out 2>err
contains err "usage: uprobe-rec"
expect_exit 2 uprobe-rec -p 1 -- "$outer" >out 2>err
expect_exit 2 uprobe-rec --functions '(' -- "$outer" >out 2>err
contains err "--functions (:"
expect_exit 1 uprobe-rec --ring 10 -- "$outer" >out 2>err
contains err "options: ring_bytes 10"
expect_exit 1 uprobe-rec --functions '^no_such_function$' -- "$outer" >out 2>err
contains err "no function matches '^no_such_function\$'"
expect_exit 1 uprobe-rec --trigger no_such_function -- "$outer" >out 2>err
contains err "no function 'no_such_function'"
printf '#!/bin/sh\nexit 0\n' >script
chmod +x script
expect_exit 1 uprobe-rec -- ./script >out 2>err
contains err "script"
expect_exit 3 uprobe-rec -- ./not-here >out 2>err
contains err "not-here"
expect_exit 3 uprobe-rec -- no-such-command-here >out 2>err
contains err "no-such-command-here: command not found"
# a pid that is not running (pid_max is at most 2^22)
expect_exit 3 uprobe-rec -p 4194304 >out 2>err
contains err "4194304"
[ ! -s out ] || fail "output on failure"
