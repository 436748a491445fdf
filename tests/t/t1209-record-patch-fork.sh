#!/bin/sh
# The patch backend and a process that starts children every way glibc
# has (tests/progs/forky: fork, fork then exec, vfork then exec or _exit,
# posix_spawn, system, popen): the children are not traced (a fork's
# child stops recording before its first instruction, MADV_WIPEONFORK; a
# vfork's or posix_spawn's child, which shares the parent's memory and
# TLS, runs unhooked), so every call of the parent is counted once under
# its own pid: work and step as the program counts them, main once, _Fork
# twice (the parent's two forks), nothing of a child (__spawni_child,
# execve), with the default selection and with every function of the
# program and its libraries (--functions .).
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs

"$P/forky" >plain.out
for sel in default .; do
	if [ $sel = default ]; then set --; else set -- --functions "$sel"; fi
	mt-record -v --backend patch "$@" --command-stdout 3 -- "$P/forky" 3>cmd.out \
		>rec.mt 2>err || { cat err >&2; fail "mt-record ($sel) -- forky"; }
	same_file plain.out cmd.out
	mt-dump rec.mt | sed -n 's/^.* THREAD pid=\([0-9]*\) tid=\([0-9]*\) .*$/\1 \2/p' |
		sort -u >threads
	[ "$(wc -l <threads)" -eq 1 ] || fail "$sel: threads of more than one process: $(cat threads)"
	pid=$(cut -d' ' -f1 threads)
	mt-stacks --no-spread rec.mt 2>stacks.err | mt-dump - |
		sed -n 's/^.* SPAN .* pid=\([0-9]*\) .* name="\([^"]*\)".*$/\1 \2/p' >spans
	[ ! -s stacks.err ] || fail "$sel: mt-stacks said: $(cat stacks.err)"
	[ "$(cut -d' ' -f1 spans | sort -u)" = "$pid" ] || fail "$sel: spans of another pid"
	for f in work step; do
		want=$(sed -n "s/^$f //p" plain.out)
		got=$(grep -c " $f\$" spans)
		[ "$got" -eq "$want" ] || fail "$sel: $got $f spans, the program counted $want"
	done
	[ "$(grep -c ' main$' spans)" -eq 1 ] || fail "$sel: main $(grep -c ' main$' spans) times"
	if [ $sel = . ]; then
		[ "$(grep -c ' _Fork$' spans)" -eq 2 ] ||
			fail "_Fork $(grep -c ' _Fork$' spans) times, the parent forked twice"
		! grep -q '__spawni_child\|execve' spans || fail "a child's calls in the parent's trace"
		grep -q 'vfork (.*): wrapped (its child' err || fail "vfork not said wrapped"
		grep -q '^mt-record: posix_spawn (.*): wrapped (its child' err ||
			fail "posix_spawn not said wrapped"
	fi
done
