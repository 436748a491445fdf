#!/bin/sh
# mt run writes the trace to a private temporary: a file it creates itself
# with O_EXCL under a hidden random name in the output's directory, handed
# to mt-fxt as its standard output, renamed into place. A symlink planted
# at the old name (OUTPUT.tmp) or anywhere else is never followed; no
# temporary is left by a failing stage or a signal; the new file has the
# mode a plain create gives (0666 less the umask), or the mode of the file
# it replaces.
. "$MT_TOP/tests/lib.sh"
# the scratch directory is shared by every test: work in one of our own
rm -rf t1005.d && mkdir t1005.d && cd t1005.d

fixture=$MT_FIXTURES/perf-script/magic-trace-tests.txt
MT_RECORD=$PWD/rec
export MT_RECORD
mt-script-parse "$fixture" | mt-stacks 2>/dev/null | mt-fxt >want.fxt

# the stand-in notes, while the pipeline runs, what is in the directory
# DIR (default: here) beside the files of the test, then prints the fixture
cat >rec <<EOF
#!/bin/sh
cd "\${DIR:-.}" && ls -A | grep -v -e '^rec\$' -e '^want' -e '^seen' -e '^victim' \
	-e '^err\$' -e '^out\$' -e '^sub\$' -e '^st\$' >"$PWD/seen" || :
[ -z "\${ARM:-}" ] || { : >"$PWD/ready"; while kill -0 \$PPID 2>/dev/null; do sleep 0.05; done; exit 9; }
[ -z "\${FAIL:-}" ] || exit "\$FAIL"
cat "$fixture"
EOF
chmod +x rec

# temps [DIR]: the hidden temporaries of trace files left in DIR
temps() {
	ls -A "${1:-.}" | grep '^\..*\.fxt\.' || :
}

# symlinks planted at the names mt used to write, and at the output's own
# name for the .gz case: none is followed
echo victim >victim
ln -s victim trace.fxt.tmp
ln -s victim t.fxt.tmp.gz
ln -s victim-made trace.fxt.tmp.gz
mt run -v -- ./prog >out 2>err || { cat err >&2; fail "mt run"; }
cmp want.fxt trace.fxt || fail "trace.fxt is not the pipeline's"
echo victim >want
same_file want victim
[ ! -e victim-made ] || fail "a dangling symlink was followed"
[ -L trace.fxt.tmp ] && [ "$(readlink trace.fxt.tmp)" = victim ] || fail "trace.fxt.tmp changed"
# what the pipeline saw: one new file, hidden, with a random name
grep -v -e '^trace\.fxt\.tmp' -e '^t\.fxt\.tmp\.gz$' seen >new || :
[ "$(wc -l <new)" -eq 1 ] || fail "not one temporary: $(cat seen)"
name=$(cat new)
echo "$name" | grep -qx '\.trace\.fxt\.[A-Za-z0-9]\{6\}' || fail "temporary name: $name"
contains err "mt-fxt -v --allow-empty >$name"
grep -qE -- '(^| )(-o|--output)' err && fail "mt-fxt given a file name: $(cat err)"
[ -z "$(temps)" ] || fail "left: $(temps)"
# another run, another name
mt run -o again.fxt -- ./prog 2>/dev/null
name2=$(grep '^\.again' seen)
[ "${name2#.again.fxt.}" != "${name#.trace.fxt.}" ] || fail "the same random part twice: $name2"

# the temporary is made with O_EXCL and no stage opens a file by name
if command -v strace >/dev/null 2>&1 && strace -f -o /dev/null true 2>/dev/null; then
	rm -f trace.fxt.old
	# (LeakSanitizer does not work under ptrace)
	ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=open,openat,creat -o st mt run -- ./prog 2>err >out ||
		{ cat err >&2; fail "mt run under strace"; }
	grep -E 'O_CREAT' st | grep -v -e '/dev/null' -e '/seen"' >creat || :
	[ "$(wc -l <creat)" -eq 1 ] || { cat creat >&2; fail "not one file created"; }
	grep -q 'O_EXCL' creat || fail "created without O_EXCL: $(cat creat)"
	grep -q '"\.trace\.fxt\.' creat || fail "created: $(cat creat)"
fi

# in the output's directory, also for .gz (compressed, under its name)
mkdir sub
DIR=sub mt run -o sub/x.fxt -- ./prog 2>/dev/null
grep -qx '\.x\.fxt\.[A-Za-z0-9]\{6\}' seen || fail "sub: $(cat seen)"
cmp want.fxt sub/x.fxt || fail "sub/x.fxt"
[ -z "$(temps sub)" ] || fail "left in sub: $(temps sub)"
mt run -o t.fxt.gz -- ./prog 2>/dev/null
gunzip -c t.fxt.gz >t.fxt
cmp want.fxt t.fxt || fail "-o t.fxt.gz"
same_file want victim
[ -z "$(temps)" ] || fail "left: $(temps)"

# no temporary after a failing stage, nor after SIGTERM or SIGHUP to mt
FAIL=4 expect_exit 4 mt run -o f.fxt -- ./prog >out 2>err
grep -q '^\.f\.fxt\.' seen || fail "no temporary while running: $(cat seen)"
[ -z "$(temps)" ] || fail "left after a failure: $(temps)"
[ ! -e f.fxt ] || fail "f.fxt written"
FAIL=4 expect_exit 4 mt run -o f.fxt.gz -- ./prog >out 2>err
[ -z "$(temps)" ] || fail "left after a failure (.gz): $(temps)"
for sig in TERM HUP; do
	rm -f ready
	ARM=1 mt run -o s.fxt -- ./prog >out 2>err &
	pid=$!
	wait_for test -e ready || { kill -s KILL $pid; fail "the stand-in never started"; }
	[ -n "$(temps)" ] || fail "no temporary while running"
	kill -s $sig $pid
	set +e
	wait $pid
	status=$?
	set -e
	[ $status -gt 128 ] || fail "mt exited $status after SIG$sig"
	[ -z "$(temps)" ] || fail "left after SIG$sig: $(temps)"
	[ ! -e s.fxt ] || fail "s.fxt written after SIG$sig"
done

# modes: a new file gets 0666 less the umask; a replaced one keeps its mode
mode() {
	stat -c %a "$1"
}
for u in 022 077 002 000; do
	rm -f m.fxt m.fxt.old
	(umask $u && mt run -o m.fxt -- ./prog 2>/dev/null)
	want=$(printf '%o' $((0666 & ~0$u)))
	[ "$(mode m.fxt)" = "$want" ] || fail "umask $u: mode $(mode m.fxt), not $want"
done
echo old >m.fxt
chmod 640 m.fxt
(umask 022 && mt run -o m.fxt -- ./prog 2>/dev/null)
[ "$(mode m.fxt)" = 640 ] || fail "replacing a 640 file: mode $(mode m.fxt)"
[ "$(mode m.fxt.old)" = 640 ] || fail "m.fxt.old: mode $(mode m.fxt.old)"
chmod 604 m.fxt
(umask 077 && mt run -o m.fxt -- ./prog 2>/dev/null)
[ "$(mode m.fxt)" = 604 ] || fail "replacing a 604 file: mode $(mode m.fxt)"

# a device or a FIFO is written as it is: never moved to .old or replaced
# (as root, `mt run -o /dev/null` once moved /dev/null); a link is
# followed, as every tool's -o does: the file it names becomes the trace
# and its old content the .old, the link stays
if mknod nulldev c 1 3 2>/dev/null; then
	mt run -o nulldev -- ./prog 2>err || { cat err >&2; fail "mt run -o nulldev"; }
	[ -c nulldev ] && [ ! -e nulldev.old ] || fail "the device was moved or replaced: $(ls -l nulldev*)"
	[ -z "$(temps)" ] || fail "left: $(temps)"
	rm nulldev
fi
mkfifo fifo
cat fifo >from-fifo &
mt run -o fifo -- ./prog 2>err || { cat err >&2; fail "mt run -o fifo"; }
wait
[ -p fifo ] && [ ! -e fifo.old ] || fail "the FIFO was moved or replaced"
cmp -s from-fifo want.fxt || fail "the trace written into the FIFO differs"
rm fifo from-fifo
echo old >real.fxt
ln -s real.fxt link.fxt
mt run -o link.fxt -- ./prog 2>/dev/null
[ -L link.fxt ] || fail "the link was replaced"
cmp -s real.fxt want.fxt || fail "the file the link names is not the trace"
[ "$(cat real.fxt.old)" = old ] || fail "real.fxt.old does not hold the old trace"
