#!/bin/sh
# The other pickers on a real terminal (a pty made by script(1), keys
# typed into it): mt-symbols --pick alone prints the line of the function
# typed and picked; mt attach without -p attaches to the process picked;
# fzf has the terminal's foreground meanwhile, nothing is stopped, and
# the terminal is the caller's again after; Esc or Ctrl+C cancels: exit
# 130, mt-symbols without a word, mt in one line, nothing left running;
# run as a background job, fzf leaves the terminal alone until fg.
. "$MT_TOP/tests/lib.sh"
command -v fzf >/dev/null 2>&1 || fail "fzf is needed (scripts/deps.sh installs it)"
unset FZF_DEFAULT_OPTS FZF_DEFAULT_COMMAND

cat >prog.c <<'C'
static volatile int s;
__attribute__((noinline)) void zz_work(int i) { s += i; }
__attribute__((noinline)) void zz_pick_me(int i) { s += i; }
int main(void) { zz_work(1); zz_pick_me(2); return 0; }
C
gcc -g -O1 -o prog prog.c

# mt-symbols --pick: the listing's line of the function picked
pty_start a a.out mt-symbols --pick prog
pty_fzf_up "function> "
pty_pick "'zz_pick_me"
pty_end
pty_rc "status=0 fg=1"
mt-symbols prog | awk -F '\t' '$4 == "zz_pick_me"' >a.want
[ -s a.want ] || fail "mt-symbols lists no zz_pick_me"
same_file a.want a.out
pty_said

# cancelled: Esc, Ctrl+C
for key in '\033' '\003'; do
	pty_start b b.out mt-symbols --pick prog
	pty_fzf_up "function> "
	pty_type "$key"
	pty_end
	pty_rc "status=130 fg=1"
	[ ! -s b.out ] || fail "$key: printed $(cat b.out)"
	pty_said
done

# a background job (its own process group, not the terminal's
# foreground): fzf is not given the terminal; it stops with its runner's
# group on touching it, as a job does, and goes on after a shell's fg
# (the terminal given to the job's group, SIGCONT), where the pick works
cat >bgjob <<'P'
#!/usr/bin/perl
# bgjob CMD...: run CMD as a background job; once a process of its group
# is stopped, say "stopped fg=N" (N: 1 when the terminal is still ours),
# then do what a shell's fg does; when it ends, take the terminal back
use strict;
use warnings;
use POSIX qw(:sys_wait_h);
my $pid = fork // die "bgjob: fork: $!\n";
if (!$pid) {
	setpgrp(0, 0);
	exec { $ARGV[0] } @ARGV or die "bgjob: $ARGV[0]: $!\n";
}
setpgrp($pid, $pid);
my $stopped = 0;
for (my $i = 0; $i < 1200 && !$stopped; $i++) {
	select(undef, undef, undef, 0.05);
	for my $st (glob "/proc/[0-9]*/stat") {
		open my $f, "<", $st or next;
		my $l = <$f> // next;
		$l =~ s/.*\) //;
		my @v = split ' ', $l;
		$stopped = 1 if $v[2] == $pid && $v[0] eq "T";
	}
}
die "bgjob: nothing of the job stopped\n" unless $stopped;
my $mine = POSIX::tcgetpgrp(0) == getpgrp() ? 1 : 0;
print STDERR "bgjob: stopped fg=$mine\n";
$SIG{TTOU} = "IGNORE";
POSIX::tcsetpgrp(0, $pid) or die "bgjob: tcsetpgrp: $!\n";
kill "CONT", -$pid;
waitpid($pid, 0);
my $st = $?;
POSIX::tcsetpgrp(0, getpgrp()) or die "bgjob: tcsetpgrp back: $!\n";
exit($st & 127 ? 128 + ($st & 127) : $st >> 8);
P
chmod +x bgjob
pty_start j j.out ./bgjob mt-symbols --pick prog
pty_wait pty_shows "bgjob: stopped fg=" || pty_fail "the job never stopped"
pty_shows "bgjob: stopped fg=1" || pty_fail "fzf took the terminal from the foreground"
# after the fg: fzf in the job's group (mt-symbols'), which has the
# terminal, nothing stopped
pty_wait pty_shows "function> " || pty_fail "fzf never showed its prompt after fg"
pty_ps >ps
awk '$4 ~ /^T/ { bad = 1 } END { exit !bad }' ps && pty_fail "stopped after fg"
awk '$5 ~ /fzf$/ { f = $2 } $5 ~ /mt-symbols$/ { m = $2; fg = $3 }
	END { exit !(f != "" && f == m && m == fg) }' ps ||
	pty_fail "fzf not in mt-symbols' group, the foreground one"
pty_pick "'zz_pick_me"
pty_end
pty_rc "status=0 fg=1"
same_file a.want j.out

# mt attach: the process picked, given to mt-record as -p PID (a stand-in
# that says how it was run)
MT_RECORD=$PWD/rec
export MT_RECORD
printf '#!/bin/sh\nprintf "[%%s]\\n" "$@" >"%s/rec.argv"\n' "$PWD" >rec
chmod +x rec
cp "$(command -v sleep)" ./t1125-victim-$$
./t1125-victim-$$ 300 &
victim=$!
trap 'kill $victim 2>/dev/null || :' EXIT
wait_for grep -q t1125-victim "/proc/$victim/cmdline" || fail "the process to pick did not start"
pty_start c - mt attach -o c.fxt
pty_fzf_up "process> "
pty_pick "'t1125-victim-$$"
pty_end
# the stand-in records nothing: no snapshot, exit 1
pty_rc "status=1 fg=1"
printf '[-p]\n[%s]\n' "$victim" >want
same_file want rec.argv
pty_shows "mt: attaching to $victim ./t1125-victim-$$ 300" || pty_fail "no 'attaching to'"

# cancelled: one line, exit 130, mt-record never run
rm rec.argv
for key in '\033' '\003'; do
	pty_start d - mt attach -o d.fxt
	pty_fzf_up "process> "
	pty_type "$key"
	pty_end
	pty_rc "status=130 fg=1"
	pty_said "mt: attach: no process picked"
	[ ! -e rec.argv ] || fail "$key: mt-record ran: $(cat rec.argv)"
done
kill $victim
