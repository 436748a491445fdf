#!/bin/sh
# mt-record without privileges (run as nobody through setpriv): the uprobe
# backend and --kernel fail at once with one line that says what is needed
# and what to use instead, exit 3.
. "$MT_TOP/tests/lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "skip: needs root to drop to nobody" >&2; exit 0; }
command -v setpriv >/dev/null 2>&1 || { echo "skip: no setpriv" >&2; exit 0; }
prog=$MT_TESTBIN/progs/stopper
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# a TMPDIR nobody can write to (the scratch directory is root's alone)
tmp=$(mktemp -d /tmp/mt-t1108.XXXXXX)
chmod 777 "$tmp"
trap 'rm -rf "$tmp"' EXIT
export TMPDIR="$tmp"
# and the program and the tool where nobody can reach them
mkdir "$tmp/bin"
cp "$prog" "$MT_BIN/mt-record" "$tmp/bin/"
chmod 755 "$tmp/bin" "$tmp/bin/"*
prog=$tmp/bin/stopper
nobody "$tmp/bin/mt-record" --backend uprobe --functions '^outer$' -- "$prog" >out 2>err &&
	fail "the uprobe backend worked as nobody"
contains err "need root or CAP_SYS_ADMIN; without them use --backend sample"
[ "$(wc -l <err)" -eq 1 ] || fail "more than one line: $(cat err)"
expect_exit 3 nobody "$tmp/bin/mt-record" --backend sample --kernel -- "$prog" >out 2>err
contains err "--kernel needs root, or CAP_PERFMON on perf, or kernel.perf_event_paranoid <= 1"
[ "$(ls "$tmp")" = bin ] || fail "left in TMPDIR: $(ls "$tmp")"

# the patch backend as nobody, a set-user-ID root program: refused before
# it runs (the dynamic loader would ignore LD_PRELOAD in it), one line
cp "$MT_TESTBIN/../lib/libmt-patch.so" "$tmp/bin/"
cp /usr/bin/touch "$tmp/bin/suid-touch"
chmod 4755 "$tmp/bin/suid-touch"
expect_exit 1 nobody "$tmp/bin/mt-record" --backend patch --functions . -o "$tmp/p.mt" -- \
	"$tmp/bin/suid-touch" "$tmp/ran" 2>err
contains err "set-user-ID: the dynamic loader ignores LD_PRELOAD"
[ ! -e "$tmp/ran" ] || fail "the set-user-ID program ran before the refusal"
[ ! -e "$tmp/p.mt" ] || fail "a trace was written"
rm -f "$tmp/bin/suid-touch" "$tmp/bin/libmt-patch.so"
