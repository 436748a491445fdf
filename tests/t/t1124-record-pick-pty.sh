#!/bin/sh
# --trigger '?' on a real terminal (a pty made by script(1), keys typed
# into it): fzf, which mt-symbols --pick runs under mt-record, has the
# terminal's foreground (a process group of its own) and nothing is
# stopped; the function typed and picked becomes the trigger and fires
# (mt-record: its "# mt: trigger" line; mt run: the trace's trigger
# instant); Esc or Ctrl+C cancels: one line, exit 130, nothing left
# running; after a pick the terminal is mt's again: a Ctrl+C during the
# recording ends it (no snapshot).
. "$MT_TOP/tests/lib.sh"
need_uprobes
command -v fzf >/dev/null 2>&1 || fail "fzf is needed (scripts/deps.sh installs it)"
mkdir tmp
export TMPDIR="$PWD/tmp"
unset FZF_DEFAULT_OPTS FZF_DEFAULT_COMMAND

cat >prog.c <<'C'
#include <stdlib.h>
#include <unistd.h>
static volatile int s;
__attribute__((noinline)) void zz_work(int i) { s += i; }
__attribute__((noinline)) void zz_stop_here(int i) { s += i; }
__attribute__((noinline)) void zz_never(int i) { s += i; }
/* zz_work 10 times, zz_stop_here after the 5th; with an argument, for
 * ever (never calling zz_never) */
int main(int argc, char **argv)
{
	int i;

	for (i = 0; i < 10 || argc > 1; i++) {
		zz_work(i);
		if (i == 4)
			zz_stop_here(i);
		if (argc > 1)
			usleep(10000);
	}
	if (argc > 5)
		zz_never(i);
	return 0;
}
C
gcc -g -O1 -o t1124-prog prog.c
rec="--backend uprobe --text --trigger-via uprobe --functions ^zz_work$"

# fzf_up: fzf is up with the terminal, and mt-record does not hold it
fzf_up() {
	pty_fzf_up "function> "
	awk '$5 ~ /mt-record$/ && $2 == $3 { bad = 1 } END { exit !bad }' pty.ps &&
		pty_fail "mt-record kept the terminal"
	:
}

# mt-record alone: the function picked is the trigger and fires
# shellcheck disable=SC2086 # $rec is words
pty_start a rec.txt mt-record $rec --trigger '?' -- ./t1124-prog
fzf_up
pty_pick "'zz_stop_here"
pty_end
pty_rc "status=0 fg=1"
grep -q '^# mt: trigger [0-9.]* [0-9]*/[0-9]* 0x[0-9a-f]* zz_stop_here$' rec.txt ||
	fail "no trigger mark: $(grep '^#' rec.txt)"
grep -q 'probe_t1124:zz_work' rec.txt || fail "no call of zz_work recorded"
pty_shows "mt-record: trigger zz_stop_here hit by" || pty_fail "no hit said"

# mt run: the same, in the trace
# shellcheck disable=SC2086
pty_start b - mt run $rec --trigger '?' -o b.fxt -- ./t1124-prog
fzf_up
pty_pick "'zz_stop_here"
pty_end
pty_rc "status=0 fg=1"
pty_shows "mt: wrote b.fxt" || pty_fail "no trace written"
fxt-check b.fxt >check || fail "b.fxt: $(cat check)"
# the name is in the trace only as the trigger's function
# (--functions probes zz_work alone)
grep -aq zz_stop_here b.fxt || fail "b.fxt has no trigger on zz_stop_here"

# cancelled with Esc (mt run) and Ctrl+C (mt-record): one line, exit
# 130, the command never started, nothing left
# shellcheck disable=SC2086
pty_start c - mt run $rec --trigger '?' -o c.fxt -- ./t1124-prog
fzf_up
pty_type '\033'
pty_end
pty_rc "status=130 fg=1"
pty_said "mt-record: --trigger ?: no function picked"
[ ! -e c.fxt ] || fail "c.fxt written"
for f in .c.fxt.*; do [ ! -e "$f" ] || fail "$f left"; done
# shellcheck disable=SC2086
pty_start d d.txt mt-record $rec --trigger '?' -- ./t1124-prog
fzf_up
pty_type '\003'
pty_end
pty_rc "status=130 fg=1"
pty_said "mt-record: --trigger ?: no function picked"
[ ! -s d.txt ] || fail "mt-record wrote: $(cat d.txt)"
[ -z "$(ls tmp)" ] || fail "left in TMPDIR: $(ls tmp)"

# a pick, then Ctrl+C during the recording: it reaches mt-record (the
# terminal is mt's group's again), which ends it without a snapshot
# shellcheck disable=SC2086
pty_start e - mt run $rec --trigger '?' -o e.fxt -- ./t1124-prog forever
fzf_up
pty_pick "'zz_never"
pty_wait pty_shows "Ctrl+C ends without a snapshot" || pty_fail "no recording"
pty_type '\003'
pty_end
pty_rc "status=1 fg=1"
pty_shows "mt: no snapshot was taken (the trigger never fired); no trace written" ||
	pty_fail "not ended by the Ctrl+C"
[ ! -e e.fxt ] || fail "e.fxt written"
