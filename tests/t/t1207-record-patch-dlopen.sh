#!/bin/sh
# mt-record --backend patch and libraries loaded later (dlopen): the
# runtime's dlopen wrapper offers each library it mapped, mt-record adds
# the functions --functions chooses of it, the runtime prepares them and
# mt-record writes their entries with the process's threads stopped
# before dlopen returns, so every call is traced: a command
# (tests/progs/dlopener: 100 plug_run, 200 plug_leaf, exact; plug_target,
# which another function of the library jumps into, left alone), a process
# attached to (-p: attachme's "load"), Python's extension modules
# (import ctypes: PyInit__ctypes of lib-dynload/_ctypes); a program not
# dumpable traced by its user: the library untraced, said.
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs

# counts STREAM: "name kind count" of its BRANCH records
counts() {
	mt-dump "$1" | sed -n 's/^.* BRANCH .* kind=\([a-z]*\) .*"\([A-Za-z_]*\)"+0x0 .*$/\2 \1/p' |
		sort | uniq -c | awk '{ print $2, $3, $1 }'
}

"$P/dlopener" "$P/libmtplug.so" >want
mt-record -v --backend patch --functions '^(plug_|before$)' -o dl.mt -- \
	"$P/dlopener" "$P/libmtplug.so" >out 2>err || { cat err >&2; fail "mt-record -- dlopener"; }
same_file want out
counts dl.mt >dl.counts
printf '%s\n' "before call 10" "before return 10" "plug_jumper call 100" \
	"plug_jumper return 100" "plug_leaf call 200" "plug_leaf return 200" \
	"plug_run call 100" "plug_run return 100" >expect
same_file expect dl.counts
# plug_jumper jumps into plug_target's first bytes: the library's every
# function was read for branches when it was mapped
grep -q "^mt-record: plug_target (.*libmtplug.so): a branch into the bytes" err ||
	fail "plug_target: $(grep plug_target err)"

# -p: a library the process loads while attached
mkfifo a.in
"$P/attachme" -L "$P/libmtplug.so" <a.in >a.out 2>a.counts &
apid=$!
exec 7>a.in
wait_for grep -q ready a.out || fail "attachme did not start"
mt-record --backend patch -p $apid --max-overhead none --functions '^(step|plug_.*)$' -o a.mt 2>a.err &
r=$!
wait_for grep -q "^mt-record: recording $apid with patch" a.err ||
	{ cat a.err >&2; kill $r; fail "not recording"; }
echo load >&7
wait_for grep -q loaded a.out || fail "attachme did not load"
kill -INT $r
wait $r || { cat a.err >&2; fail "mt-record -p exited $?"; }
echo stop >&7
exec 7>&-
wait $apid || fail "attachme exited $?"
grep -qx 'loaded 50600' a.out || fail "the library's calls returned wrong: $(cat a.out)"
counts a.mt | grep plug_ >a.counts2
printf '%s\n' "plug_jumper call 100" "plug_jumper return 100" "plug_leaf call 200" \
	"plug_leaf return 200" "plug_run call 100" "plug_run return 100" >expect
same_file expect a.counts2

# Python's extension modules, loaded as imported
PY=/usr/bin/python3
[ -x $PY ] || fail "no /usr/bin/python3 (scripts/deps.sh installs it)"
S='import ctypes; print(ctypes.sizeof(ctypes.c_long))'
$PY -c "$S" >py.want
mt-record --backend patch --full --snapshot-size 64M --functions . -o py.mt -- $PY -c "$S" \
	>py.out 2>py.err || { cat py.err >&2; fail "mt-record -- python3"; }
same_file py.want py.out
grep -q overwritten py.err && fail "python3: records lost: $(cat py.err)"
counts py.mt | grep '^PyInit__ctypes ' >py.counts
printf '%s\n' "PyInit__ctypes call 1" "PyInit__ctypes return 1" >expect
same_file expect py.counts

# a program that makes itself not dumpable before its dlopen, traced by a
# user without privilege: its stubs are still written (no /proc/self/mem
# needed), but its user may not ptrace it: the library runs untraced,
# said once, and the program is not held up
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	mkdir nb
	chmod 777 nb
	setpriv --reuid=65534 --regid=65534 --clear-groups mt-record --backend patch \
		--functions '^(plug_|before$)' -o nb/nd.mt -- "$P/dlopener" "$P/libmtplug.so" 100 nodump \
		>nd.out 2>nd.err || { cat nd.err >&2; fail "nodump: mt-record exited $?"; }
	same_file want nd.out
	contains nd.err "libraries it loads now stay untraced (ptrace: Permission denied)"
	grep -q 'patch runtime failed' nd.err && fail "nodump: $(cat nd.err)"
	counts nb/nd.mt >nd.counts
	printf '%s\n' "before call 10" "before return 10" >expect
	same_file expect nd.counts
	# root may: traced whole
	mt-record --backend patch --functions '^(plug_|before$)' -o nd2.mt -- "$P/dlopener" \
		"$P/libmtplug.so" 100 nodump >nd2.out 2>nd2.err || fail "nodump as root"
	counts nd2.mt | grep -c '^plug_' | grep -qx 6 || fail "nodump as root: plug_ not traced: $(counts nd2.mt)"
fi
