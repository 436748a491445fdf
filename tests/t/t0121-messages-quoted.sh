#!/bin/sh
# Messages show the bytes they echo from the input printably (mt_quote):
# lines, '# mt:' lines, event names and file names holding ESC, BEL, a CSI
# (0x9b), NUL and invalid UTF-8 reach stderr as \xHH escapes, so that a
# terminal sees no control sequence. Every error and warning path of
# mt-script-parse that echoes input, and mt-symbols' file names.
. "$MT_TOP/tests/lib.sh"
F=$MT_FIXTURES/perf-script
grep 'branches' "$F/magic-trace-tests.txt" | head -3 >good.txt

# printable: stderr holds only printable ASCII and newlines
printable() {
	_n=$(LC_ALL=C tr -d '\n -~' <"$1" | wc -c)
	[ "$_n" -eq 0 ] || { od -c "$1" | head -20 >&2; fail "$1: $_n unprintable bytes"; }
}

# ESC [31m, BEL, CSI 0x9b, NUL, invalid UTF-8 (0xff 0xfe, a cut 0xc3)
bad=$(printf 'garbage \033[31mred\007 \2332J \377\376 \303')
{ cat good.txt; printf '%s\000tail\n' "$bad"; } >garbage.txt
expect_exit 1 mt-script-parse garbage.txt >out.mt 2>err
printable err
contains err 'garbage.txt:4: not perf script output: '
contains err '"garbage \x1b[31mred\x07 \x9b2J \xff\xfe \xc3\x00tail"'

# a long line of them: cut at a whole escape, still printable
{ printf '\033\233%.0s' $(seq 200); echo; } >long.txt
expect_exit 1 mt-script-parse long.txt >out.mt 2>err
printable err
contains err '"\x1b\x9b\x1b\x9b'
contains err '..."'
[ "$(wc -c <err)" -lt 400 ] || fail "a long bad line gave $(wc -c <err) bytes of message"

# a malformed '# mt:' line
printf '# mt: trigger 1.0 12/12 0xZZ \033]0;title\007\n' >mt.txt
expect_exit 1 mt-script-parse mt.txt >out.mt 2>err
printable err
contains err "mt.txt:1: malformed '# mt:' line: \"# mt: trigger 1.0 12/12 0xZZ \\x1b]0;title\\x07\""

# samples of an unknown event whose name holds controls: the warning and
# the summary
ev=$(printf 'sch\033[2Jed:sw\007\233x')
{
	cat good.txt
	echo "  1234/1234  100.000000100:          1 $ev: prev_comm=a"
	echo "  1234/1234  100.000000200:          1 $ev: prev_comm=b"
} >unknown.txt
mt-script-parse unknown.txt >out.mt 2>err
printable err
contains err "skipping samples of unknown event 'sch\\x1b[2Jed:sw\\x07\\x9bx'"
contains err "2 samples of unknown event 'sch\\x1b[2Jed:sw\\x07\\x9bx'"

# --keep-going: every warning, and the summary, printable
cat garbage.txt mt.txt unknown.txt long.txt >all.txt
printf '%s\000.so)\n' "$(sed -n 1p good.txt | sed 's/(foo.so)$/(\o033/')" >>all.txt
mt-script-parse -k all.txt >out.mt 2>err
printable err
contains err "skipping malformed line"
contains err "a NUL byte in a name"

# mt-symbols: a file name with controls, from the command line or (the
# same variable) a process's maps
n=$(printf 'x\033]0;T\007\233y\377')
printf 'not an ELF file\n' >"$n"
expect_exit 1 mt-symbols "$n" >out 2>err
printable err
contains err 'mt-symbols: x\x1b]0;T\x07\x9by\xff: not an ELF file'
expect_exit 3 mt-symbols "$n.missing" >out 2>err
printable err
contains err 'mt-symbols: x\x1b]0;T\x07\x9by\xff.missing: No such file'

# every tool's warn and die: names that came from outside (a file name, a
# program's path, a process's executable) show as escapes
expect_exit 3 mt-fxt "$n.missing" >out 2>err
printable err
contains err 'mt-fxt: x\x1b]0;T\x07\x9by\xff.missing: No such file'
expect_exit 1 mt-slice "$n" >out 2>err
printable err
expect_exit 3 mt-stacks "$n.missing" >out 2>err
printable err
mt-record --backend sample -o "$n.out" -- "./$n.prog" >out 2>err && fail "recorded a program that is not there"
contains err "x\\x1b]0;T\\x07\\x9by\\xff.prog"
printable err
cp "$(command -v sleep)" "./$n.prog"
mt-record --backend sample --dry-run --trigger nosuch_zz -- "./$n.prog" 5 >out 2>err || :
printable err
rm -f "./$n.prog"
