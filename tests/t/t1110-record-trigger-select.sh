#!/bin/sh
# --trigger's selections, as magic-trace takes them: FILE:LINE and
# FILE:LINE:COLUMN (the column of one of three calls on one line: the
# snapshot holds exactly the calls before it), the prefixes symbol:,
# line: and addr: that force one kind (addr: with or without 0x), and a
# clear message and exit status for each malformed or missing selection;
# with a command, a function of a library it calls, armed once the program
# has run to its entry point (its libraries mapped), before main.
. "$MT_TOP/tests/lib.sh"
need_uprobes
mkdir tmp
export TMPDIR="$PWD/tmp"

cat >sel.c <<'C'
static volatile int s;
__attribute__((noinline)) void first(void) { s += 1; }
__attribute__((noinline)) void second(void) { s += 2; }
__attribute__((noinline)) void third(void) { s += 3; }
int main(void)
{
	first(); second(); third();
	return 0;
}
C
gcc -g -O1 -fno-inline -o sel sel.c
# columns as the compiler counts them: bytes from 1, a tab is one
col() { awk -v f="$1(" 'NR == 7 { print index($0, f) }' sel.c; }

# calls SEL: the functions whose calls the snapshot holds, in order
calls() {
	mt-record --backend uprobe --text --functions '^(first|second|third)$' --trigger "$1" \
		-- ./sel >rec.txt 2>err || { cat err >&2; fail "--trigger $1 failed"; }
	contains err "trigger armed: "
	contains err "hit by"
	sed -n 's/.* probe_sel:\([a-z]*\): .*/\1/p' rec.txt | tr '\n' ' '
}

[ "$(calls "sel.c:7:$(col second)")" = "first " ] || fail "sel.c:7:COL of second: $(calls "sel.c:7:$(col second)")"
contains err "(sel.c:7:$(col second)) @ 0x"
[ "$(calls "line:sel.c:7:$(col third)")" = "first second " ] || fail "line:sel.c:7:COL of third"
[ "$(calls sel.c:7)" = "" ] || fail "sel.c:7 is not the line's first instruction"
[ "$(calls line:sel.c:7)" = "" ] || fail "line:sel.c:7"
# the snapshot ends at third's first instruction: first and second before it
case $(calls symbol:third) in "first second "*) ;; *) fail "symbol:third: $(calls symbol:third)" ;; esac
addr=$(nm sel | awk '$3 == "third" { print $1 }' | sed 's/^0*//')
case $(calls "addr:$addr") in "first second "*) ;; *) fail "addr:$addr" ;; esac
contains err "trigger armed: third @ 0x$addr in "
case $(calls "addr:0x$addr") in "first second "*) ;; *) fail "addr:0x$addr" ;; esac
case $(calls "0x$addr") in "first second "*) ;; *) fail "0x$addr" ;; esac

# ? and symbol:? pick with fzf through mt-symbols --pick (its --filter
# mode standing in for the user)
if command -v fzf >/dev/null 2>&1; then
	FZF_DEFAULT_OPTS="--exact --filter=second"
	export FZF_DEFAULT_OPTS
	case $(calls '?') in "first "*) ;; *) fail "?: $(calls '?')" ;; esac
	contains err "trigger armed: second @ 0x"
	case $(calls 'symbol:?') in "first "*) ;; *) fail "symbol:?" ;; esac
	FZF_DEFAULT_OPTS="--exact --filter=zz-nothing-zz"
	expect_exit 2 mt-record --backend uprobe --text --trigger '?' -- ./sel >out 2>err
	contains err "mt-record: --trigger ?: no function picked"
	unset FZF_DEFAULT_OPTS
fi

# a command's library function: lib_stop, called at iteration 60, is in
# libt.so; the snapshot holds the 61 calls of outer before it, whether the
# trigger is a uprobe or (auto) whatever fires here
cat >libt.c <<'C'
int lib_stop(int x) { return x + 1; }
int lib_inner(int x) { return x * 2; }
C
cat >usel.c <<'C'
#include <stdio.h>
int lib_stop(int);
static volatile int s;
__attribute__((noinline)) void outer(int i) { s += i; }
int main(void)
{
	for (int i = 0; i < 100; i++) {
		outer(i);
		if (i == 60)
			s += lib_stop(i);
	}
	puts("usel done");
	return 0;
}
C
gcc -shared -fPIC -o libt.so libt.c
gcc -O1 -fno-inline -o usel usel.c -L. -lt -Wl,-rpath,"$PWD"
for via in uprobe auto; do
	mt-record --backend uprobe --text --functions '^outer$' --trigger symbol:lib_stop \
		--trigger-via $via -- ./usel >lib.txt 2>err ||
		{ cat err >&2; fail "--trigger lib_stop -- ./usel ($via)"; }
	contains err "trigger armed: lib_stop @ 0x"
	contains err "libt.so"
	contains err "usel done"
	n=$(grep -c 'probe_usel:outer:' lib.txt)
	[ "$n" -eq 61 ] || fail "library trigger of a command ($via): $n calls of outer"
done
# a library function the program does not call, or a typo: refused
# before the program runs
expect_exit 1 mt-record --backend uprobe --text --trigger lib_inner -- ./usel >out 2>err
contains err "mt-record: --trigger lib_inner: no such function in"
grep -q "usel done" err && fail "the program ran before the trigger was refused"

# malformed or missing: one line, the selection named, before recording
bad() {
	code=$1 sel=$2 msg=$3
	expect_exit "$code" mt-record --backend uprobe --text --trigger "$sel" -- ./sel >out 2>err
	contains err "mt-record: --trigger $sel: $msg"
	[ "$(wc -l <err)" -eq 1 ] || fail "--trigger $sel: $(cat err)"
	[ ! -s out ] || fail "--trigger $sel wrote a trace"
}
bad 2 'line:?' "only functions are picked with fzf"
bad 2 'addr:?' "only functions are picked with fzf"
bad 2 addr:zz "expected a hexadecimal address"
bad 2 addr:0x "expected a hexadecimal address"
bad 2 symbol: "nothing after the prefix"
bad 2 line:sel.c "expected FILE:LINE or FILE:LINE:COLUMN"
bad 1 sel.c:7:99 "no code at that line and column in"
bad 1 line:nosuch.c:7 "no code at that line in"
bad 1 symbol:sel.c:7 "no such function in"
bad 1 symbol:0x1129 "no such function in"
bad 1 nosuch "no such function in"
