#!/bin/sh
# mt-record -p and the files of a process that may be hostile (issue 27):
# root mt-record reads what the process maps, and their separate debug
# files, as the process sees them and with no more than its rights.
#  - debug links that name a FIFO and a symbolic link to /dev/zero, beside
#    libraries (stripped: no .symtab, so their debug files are searched)
#    that the process dlopened: the uprobe and patch backends attach,
#    record and end (they blocked on the FIFO's open, read /dev/zero for
#    ever), both libraries' functions in the trace;
#  - a process in a mount namespace of its own where the library path
#    B.so holds another file (A.so, bind-mounted): its functions
#    (target_inner) are traced, not those of the file mt-record sees at
#    that path (host_inner); one whose library is at a path that names
#    nothing in mt-record's namespace (a tmpfs of its own): traced, and
#    triggered on;
#  - a process run as nobody whose library's debug link is a symbolic
#    link to a root-only (0600) ELF file: that file's symbols
#    (secret_fn) are not read, so never chosen.
# (tests/progs/libloop dlopens the libraries and calls them until its
# standard input ends.)
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs
[ "$(id -u)" -eq 0 ] || { echo "skip: the cases need root (mt-record as root against other users)" >&2; exit 0; }
# the patch backend first: a uprobe mt-record's probes are closed in the
# background after it ends (their int3s stay a moment), and the patch
# backend leaves alone an entry that holds another tracer's breakpoint
backends=
[ "$(uname -m)" = x86_64 ] && backends=patch
[ -r /sys/bus/event_source/devices/uprobe/type ] && backends="$backends uprobe"
[ -n "$backends" ] || { echo "skip: neither the uprobe nor the patch backend here" >&2; exit 0; }

loop=
rec=
d=
cleanup() {
	[ -z "$rec" ] || kill -9 "$rec" 2>/dev/null || :
	[ -z "$loop" ] || kill -9 "$loop" 2>/dev/null || :
	exec 7>&- || :
	[ -z "$d" ] || rm -rf "$d"
}
trap cleanup EXIT

# mklib NAME DIR [CC-FLAG...]: DIR/libNAME.so, whose lib_entry calls NAME_inner
mklib() {
	_n=$1 _dir=$2
	shift 2
	cat >"$_dir/lib$_n.c" <<C
__attribute__((noinline)) unsigned long ${_n}_inner(unsigned long k)
{
	__asm__ volatile("" ::: "memory");
	return k * 3 + 1;
}
unsigned long lib_entry(unsigned long k) { return ${_n}_inner(k) + 1; }
C
	gcc -O1 -fno-inline -shared -fPIC "$@" -o "$_dir/lib$_n.so" "$_dir/lib$_n.c"
}

# debuglink LIB NAME: strip LIB and give it a debug link to NAME (beside
# it), made from a file that is there meanwhile (objcopy takes its CRC)
debuglink() {
	strip --strip-all "$1"
	[ -e "$(dirname "$1")/$2" ] || echo placeholder >"$(dirname "$1")/$2"
	(cd "$(dirname "$1")" && objcopy --add-gnu-debuglink="$2" "$(basename "$1")")
}

# start_loop LIB... (as: a command before libloop): libloop LIB...
# in the background, until ready; sets loop, its standard input on fd 7
start_loop() {
	rm -f loop.in loop.out
	mkfifo loop.in
	"$@" <loop.in >loop.out 2>loop.err &
	loop=$!
	exec 7>loop.in
	wait_secs 30 grep -q ready loop.out || { cat loop.err >&2; fail "libloop did not start: $*"; }
}

stop_loop() {
	exec 7>&-
	wait "$loop" || { cat loop.err >&2; fail "libloop exited $?"; }
	loop=
}

# recording_or_ended NAME PID BACKEND: mt-record said it records, or ended
recording_or_ended() {
	grep -q "^mt-record: recording $2 with $3" "$1.err" 2>/dev/null || ! kill -0 $rec 2>/dev/null
}

# record NAME BACKEND PID [OPTION...]: mt-record -p PID under timeout 60
# into NAME.mt, until it records, then Ctrl+C; fails unless it records
# and exits 0 (timeout's 124: it blocked)
record() {
	_name=$1 _be=$2 _pid=$3
	shift 3
	rm -f "$_name.err" "$_name.mt"
	timeout 60 mt-record --backend "$_be" -p "$_pid" "$@" -o "$_name.mt" 2>"$_name.err" &
	rec=$!
	wait_secs 60 recording_or_ended "$_name" "$_pid" "$_be" || :
	if ! grep -q "^mt-record: recording $_pid with $_be" "$_name.err"; then
		cat "$_name.err" >&2
		kill -0 $rec 2>/dev/null && fail "$_name: mt-record -p $_pid --backend $_be is not recording after 60 s (blocked?)"
		_rc=0
		wait $rec || _rc=$?
		rec=
		fail "$_name: mt-record -p $_pid --backend $_be exited $_rc before it recorded"
	fi
	sleep 0.3
	kill -INT $rec
	_rc=0
	wait $rec || _rc=$?
	rec=
	[ $_rc -eq 0 ] || { cat "$_name.err" >&2; fail "$_name: mt-record exited $_rc"; }
	# the uprobe backend writes perf script's text, the patch backend a stream
	if [ "$_be" = uprobe ]; then
		mt-script-parse "$_name.mt" | mt-stacks | mt-dump - >"$_name.dump"
	else
		mt-stacks "$_name.mt" | mt-dump - >"$_name.dump"
	fi
}

# has_spans DUMP NAME: some NAME spans in DUMP
has_spans() {
	[ "$(span_count "$1" "$2")" -gt 0 ] || { grep -o 'name="[^"]*"' "$1" | sort | uniq -c >&2; fail "$1: no $2 spans"; }
}

# ---- a FIFO and /dev/zero as debug files ----
mklib fifo "$PWD"
debuglink "$PWD/libfifo.so" libfifo.debug
rm libfifo.debug
mkfifo libfifo.debug
mklib zero "$PWD"
debuglink "$PWD/libzero.so" libzero.debug
rm libzero.debug
ln -s /dev/zero libzero.debug
start_loop "$P/libloop" "$PWD/libfifo.so" "$PWD/libzero.so"
for be in $backends; do
	record fz-$be $be $loop --functions '^(fifo|zero)_inner$'
	has_spans fz-$be.dump fifo_inner
	has_spans fz-$be.dump zero_inner
done
stop_loop

# ---- a mount namespace of its own: B.so is A.so there ----
if unshare -m --propagation private true 2>/dev/null; then
	mklib target "$PWD"
	mklib host "$PWD"
	cp libhost.so B.so
	start_loop unshare -m --propagation private sh -c \
		"mount --bind '$PWD/libtarget.so' '$PWD/B.so' && exec '$P/libloop' '$PWD/B.so'"
	for be in $backends; do
		record ns-$be $be $loop --functions '^(target|host)_inner$'
		has_spans ns-$be.dump target_inner
		[ "$(span_count ns-$be.dump host_inner)" -eq 0 ] ||
			fail "ns-$be: host_inner traced: the file mt-record sees at $PWD/B.so, not the process's"
	done
	stop_loop

	# a library at a path that names nothing in mt-record's namespace
	# (a tmpfs of the process's own), a trigger in it
	mkdir only
	start_loop unshare -m --propagation private sh -c "mount -t tmpfs none '$PWD/only' &&
		cp '$PWD/libtarget.so' '$PWD/only/C.so' && exec '$P/libloop' '$PWD/only/C.so'"
	[ ! -e only/C.so ] || fail "only/C.so is seen outside the process's namespace"
	for be in $backends; do
		record only-$be $be $loop --functions '^target_inner$'
		has_spans only-$be.dump target_inner
		set +e
		timeout 60 mt-record --backend $be -p $loop --functions '^lib_entry$' \
			--trigger target_inner -o trig-$be.mt 2>trig-$be.err
		rc=$?
		set -e
		[ $rc -eq 0 ] || { cat trig-$be.err >&2; fail "trig-$be: exit $rc"; }
		contains trig-$be.err "trigger target_inner hit by $loop/"
	done
	stop_loop
else
	echo "skip: a mount namespace (unshare -m) cannot be made here" >&2
fi

# ---- nobody's library, its debug link a symbolic link to a root-only file ----
d=$(mktemp -d /tmp/t1216.XXXXXX)
chmod 755 "$d"
mkdir "$d/secret"
mklib nosy "$d" -Wl,--build-id=none
sed 's/nosy_inner/secret_fn/g' "$d/libnosy.c" >"$d/secret/libsecret.c"
gcc -O1 -fno-inline -shared -fPIC -Wl,--build-id=none -o "$d/secret/libsecret.so" "$d/secret/libsecret.c"
rm "$d/secret/libsecret.c"
chmod 600 "$d/secret/libsecret.so"
cp "$d/secret/libsecret.so" "$d/libnosy.debug"
debuglink "$d/libnosy.so" libnosy.debug
rm "$d/libnosy.debug"
ln -s "$d/secret/libsecret.so" "$d/libnosy.debug"
chmod 755 "$d/libnosy.so"
setpriv --reuid=65534 --regid=65534 --clear-groups cat "$d/libnosy.debug" >/dev/null 2>&1 &&
	fail "nobody can read $d/secret/libsecret.so"
start_loop setpriv --reuid=65534 --regid=65534 --clear-groups "$P/libloop" "$d/libnosy.so"
for be in $backends; do
	record nosy-$be $be $loop --functions '^nosy_inner$'
	has_spans nosy-$be.dump nosy_inner
	# secret_fn is no function of the library as nobody may read it
	set +e
	timeout 30 mt-record --backend $be -p $loop --functions '^secret_fn$' -o secret-$be.mt \
		2>secret-$be.err
	rc=$?
	set -e
	[ $rc -eq 1 ] || { cat secret-$be.err >&2; fail "secret-$be: exit $rc (1: no function matches)"; }
	contains secret-$be.err "no function matches"
done
stop_loop
