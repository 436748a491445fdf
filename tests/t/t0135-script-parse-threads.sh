#!/bin/sh
# mt-script-parse -j: the stream, the messages and the exit status are the
# same byte for byte whatever the number of parsing threads (1, 2, 3, 8),
# on real perf output, the parse cases, generated traces in every column
# layout (many 1 MiB reads and 512-line batches), and input that stops or
# skips lines mid-stream: a line longer than 1 MiB, a bare CR, a NUL in a
# name, garbage (each with and without --keep-going), '# mt:' lines, an
# mt stream passed through. The default uses more than one thread on a
# machine with more than one CPU online, and a bad -j is a usage error.
. "$MT_TOP/tests/lib.sh"
F=$MT_FIXTURES/perf-script

# input CASE: the input section of a script-parse case
input() { awk '/^--- [a-z]+$/ { f = $2; next } f == "input" { print }' "$1"; }
# same_runs NAME ARGS...: mt-script-parse ARGS with -j 1, 2, 3 and 8 give
# the same stdout, stderr and exit status; leaves NAME.mt, NAME.err and
# NAME.st of -j 1
same_runs() {
	name=$1; shift
	for j in 1 2 3 8; do
		st=0
		mt-script-parse -j $j "$@" >"$name.$j.mt" 2>"$name.$j.err" || st=$?
		echo $st >"$name.$j.st"
	done
	for j in 2 3 8; do
		cmp "$name.1.mt" "$name.$j.mt" ||
			fail "$name: -j $j gave another stream than -j 1"
		cmp "$name.1.err" "$name.$j.err" ||
			fail "$name: -j $j gave other messages than -j 1: $(diff "$name.1.err" "$name.$j.err")"
		cmp "$name.1.st" "$name.$j.st" ||
			fail "$name: -j $j exit $(cat "$name.$j.st"), -j 1 exit $(cat "$name.1.st")"
	done
	cp "$name.1.mt" "$name.mt"; cp "$name.1.err" "$name.err"; cp "$name.1.st" "$name.st"
}

# real perf output and the parse cases, one file
{ cat "$F"/*.txt; for c in "$MT_TOP"/tests/cases/script-parse/*.t; do input "$c"; done; } >real.txt
same_runs real -k -v real.txt
[ "$(mt-dump real.mt | grep -c ' BRANCH ')" -gt 1000 ] || fail "few branches from real.txt"

# generated traces, several MiB each, with errors and threads
for layout in magic-trace legacy comm-cpu perf615; do
	gen-perf-script --lines 30000 --seed 11 --threads 3 --layout "$layout" >"gen-$layout.txt" ||
		fail "gen-perf-script --layout $layout"
	same_runs "gen-$layout" -v "gen-$layout.txt"
	[ "$(cat "gen-$layout.st")" -eq 0 ] || fail "gen-$layout: exit $(cat "gen-$layout.st")"
done
[ "$(wc -c <gen-magic-trace.txt)" -gt 4194304 ] || fail "gen-magic-trace.txt is under 4 MiB"

# bad lines in the middle of a long input: each stops the run at its line
# (and the lines before it are all in the stream), or is skipped with -k
g=gen-magic-trace.txt
n=$(wc -l <$g)
half=$((n / 2))
xs() { head -c "$1" /dev/zero | tr '\0' x; }
{ head -$half $g; xs 1100000; echo; tail -n +$((half + 1)) $g; } >long.txt
{ head -$half $g; sed -n "$((half + 1))p" $g | sed 's/ => /\r => /'; tail -n +$((half + 2)) $g; } >cr.txt
# a NUL in the DSOs of two branches in a row, the second starting where
# the first went (its source is read through the hint)
k=$(awk -v h=$half 'NR > h && / => .*\.so\)$/ { print NR; exit }' $g)
{ head -$((k - 1)) $g; sed -n "${k},$((k + 1))p" $g | sed 's/\.so)/.so\x00)/g'; tail -n +$((k + 2)) $g; } >nul.txt
[ "$(tr -cd '\000' <nul.txt | wc -c)" -ge 3 ] || fail "nul.txt: no NULs"
{ head -$half $g; printf '\177ELF\002\001 junk\n'; tail -n +$((half + 1)) $g; } >garbage.txt
for bad in long cr nul garbage; do
	same_runs "$bad" "$bad.txt"
	[ "$(cat "$bad.st")" -eq 1 ] || fail "$bad: exit $(cat "$bad.st"), expected 1"
	grep -q "$bad.txt:[0-9]*: not perf script output" "$bad.err" || fail "$bad: $(cat "$bad.err")"
	same_runs "$bad-k" -k "$bad.txt"
	[ "$(cat "$bad-k.st")" -eq 0 ] || fail "$bad -k: exit $(cat "$bad-k.st")"
	grep -q "skipping malformed line" "$bad-k.err" || fail "$bad -k: $(cat "$bad-k.err")"
done
# the two NUL lines are skipped, the branches around them kept
mt-script-parse -j 1 $g >all.mt
na=$(mt-dump all.mt | grep -c ' BRANCH ')
nn=$(mt-dump nul-k.mt | grep -c ' BRANCH ')
[ "$(grep -c 'skipping malformed line: a NUL byte in a name' nul-k.err)" -eq 2 ] &&
	[ "$nn" -eq $((na - 2)) ] || fail "nul -k: $nn of $na branches: $(cat nul-k.err)"

# the records before the bad line are all there (the stopped stream has
# no END record: it is cut), and -k keeps those after it too
head -$half $g >first.txt
mt-script-parse -j 1 first.txt >first.mt
nf=$(mt-dump first.mt | grep -c ' BRANCH ')
nb=$({ mt-dump cr.mt 2>/dev/null || :; } | grep -c ' BRANCH ')
nk=$(mt-dump cr-k.mt | grep -c ' BRANCH ')
[ "$nf" -gt 1000 ] && [ "$nb" -eq "$nf" ] && [ "$nk" -gt "$nb" ] ||
	fail "cr: $nb branches before the CR of $nf, $nk with -k"

# '# mt:' lines among the branches, and an mt stream passed through
input "$MT_TOP/tests/cases/script-parse/mt-lines.t" >mt-lines.txt
{ head -20000 $g; cat mt-lines.txt; tail -n +20001 $g; } >mix.txt
same_runs mix -v mix.txt
mt-script-parse -j 1 $g >stream.mt
same_runs pass stream.mt
cmp stream.mt pass.mt || fail "an mt stream was not passed through unchanged"

# the default: more than one thread where there is more than one CPU
# (LeakSanitizer, in the sanitizer build, does not run under ptrace)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS
if [ "$(getconf _NPROCESSORS_ONLN)" -gt 1 ]; then
	strace -f -e trace=clone,clone3 -o trace.txt mt-script-parse $g >def.mt 2>/dev/null ||
		fail "mt-script-parse under strace"
	grep -q -e 'clone(' -e 'clone3(' trace.txt || fail "the default started no thread on $(getconf _NPROCESSORS_ONLN) CPUs"
	cmp def.mt gen-magic-trace.mt || fail "the default gave another stream"
fi
strace -f -e trace=clone,clone3 -o trace1.txt mt-script-parse -j 1 $g >/dev/null
! grep -q -e 'clone(' -e 'clone3(' trace1.txt || fail "-j 1 started a thread"

# bad counts
for bad in 0 65 x 2x ''; do
	expect_exit 2 mt-script-parse -j "$bad" $g >out 2>err
	contains err "mt-script-parse: -j $bad: expected a number of threads from 1 to 64"
done
mt-script-parse --threads=2 $g >long-opt.mt
cmp long-opt.mt gen-magic-trace.mt || fail "--threads=2 gave another stream"
