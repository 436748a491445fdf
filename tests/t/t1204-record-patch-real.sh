#!/bin/sh
# mt-record --backend patch --functions . over real programs from Debian
# (sqlite3, python3, gzip): every function of the executable and of each
# library it maps is patched but those that cannot be (setjmp; ld.so's
# lazy binding entry; the runtime's own), and each program prints what it
# prints untraced; the trace goes through mt-stacks and mt-fxt and holds
# the programs' own functions. glibc's memmove, which mempcpy jumps into
# past its first instruction, is patched with a hop through the padding
# before it.
. "$MT_TOP/tests/lib.sh"
for c in sqlite3 python3 gzip; do
	command -v $c >/dev/null 2>&1 || fail "no $c (scripts/deps.sh installs it)"
done
# Debian's (a python3 on PATH may be a shell script: pyenv's shims)
PY=/usr/bin/python3
[ -x $PY ] || fail "no /usr/bin/python3 (scripts/deps.sh installs it)"

# run NAME CMD...: traced as untraced, the trace read through
run() {
	n=$1
	shift
	"$@" <in >$n.want 2>$n.want2 || fail "$n untraced: exit $?"
	mt-record --backend patch --functions . -v -o $n.mt -- "$@" <in >$n.out 2>$n.err ||
		{ tail -3 $n.err >&2; fail "mt-record -- $n"; }
	same_file $n.want $n.out
	grep -q "^mt-record: patched [0-9]* functions" $n.err || fail "$n: no count"
	mt-stacks $n.mt | mt-fxt >$n.fxt || fail "$n: mt-fxt"
	fxt-check $n.fxt >$n.check || { cat $n.check >&2; fail "$n: fxt-check"; }
	mt-stacks --no-spread $n.mt | mt-dump - |
		sed -n 's/^.* SPAN .* name="\([^"]*\)".*$/\1/p' | sort -u >$n.names
}

head -c 300000 /dev/urandom | od -An -tx1 >in
run sqlite3 sqlite3 :memory: "create table t(a, b); with recursive c(x) as
	(select 1 union all select x + 1 from c where x < 5000)
	insert into t select x, x * x from c;
	select count(*), sum(b) from t where a % 7 = 3;
	select b from t order by b desc limit 3;"
grep -qx sqlite3_step sqlite3.names || fail "no sqlite3_step span"
grep -qx malloc sqlite3.names || fail "no malloc span"
# mempcpy jumps past memmove's first instruction: a hop
for f in __memmove_avx_unaligned_erms __memmove_sse2_unaligned_erms; do
	grep -q "^mt-record: $f (.*): patched\$" sqlite3.err ||
		fail "$f: $(grep " $f " sqlite3.err || echo 'not in the table')"
done
# (memcpy is the machine's memmove variant: its calls are spans)
grep -q '^__memmove_' sqlite3.names || fail "no memmove span: $(grep -c . sqlite3.names) names"

grep -q '_dl_runtime_resolve.*: not entered by a call' sqlite3.err ||
	fail "lazy binding entry not refused"
grep -q '_setjmp .*: it returns twice' sqlite3.err || fail "_setjmp not refused"
grep -q 'libmt-patch.so.*patched' sqlite3.err && fail "the runtime patched itself"

run python3 "$PY" -c 'import json, re, collections, sys
d = collections.Counter(re.findall(r"\w+", sys.stdin.read()))
print(json.dumps(d.most_common(5)))
try:
    {}["x"]
except KeyError as e:
    print("caught", e)'
grep -qx Py_RunMain python3.names || grep -qx Py_BytesMain python3.names ||
	fail "no Py_RunMain span"

gzip -c in >in.gz
mv in in.txt
mv in.gz in
run gzip gzip -d -c
same_file in.txt gzip.out
grep -q '^__\{0,2\}\(libc_\)\{0,1\}read$' gzip.names || grep -q 'read' gzip.names ||
	fail "no read span in gzip's trace"
