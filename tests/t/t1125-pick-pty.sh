#!/bin/sh
# The other pickers on a real terminal (a pty made by script(1), keys
# typed into it): mt-symbols --pick alone prints the line of the function
# typed and picked; mt attach without -p attaches to the process picked;
# fzf has the terminal's foreground meanwhile, nothing is stopped, and
# the terminal is the caller's again after; Esc or Ctrl+C cancels: exit
# 130, mt-symbols without a word, mt in one line, nothing left running.
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
