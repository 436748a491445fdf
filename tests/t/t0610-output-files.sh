#!/bin/sh
# -o FILE never destroys a user's file: every tool writes a private
# temporary beside FILE and renames it over FILE only on success; bad input,
# an empty trace, a full disk or a signal leave FILE as it was and no
# temporary behind; output == input is refused; the mode of the replaced
# file is kept and a link is followed; .gz (or --gzip) compresses FXT the
# same way in mt-fxt and mt-slice; write errors name the file once.
. "$MT_TOP/tests/lib.sh"

mt-script-parse "$MT_FIXTURES/perf-script/magic-trace-tests.txt" >in.mt
mt-stacks in.mt >spans.mt 2>/dev/null
mt-fxt spans.mt >good.fxt
printf 'not a stream at all\n' >bad.in

# only the files named are in the directory: no temporary left behind
only() {
	ls -A | LC_ALL=C sort >../ls.now
	printf '%s\n' "$@" | LC_ALL=C sort >../ls.want
	diff ../ls.want ../ls.now >&2 || fail "files left behind (see diff)"
}

mkdir d && cd d
cp ../good.fxt keep.fxt && cp keep.fxt orig
# 1. bad input keeps the file: every tool with -o
for tool in mt-fxt mt-slice mt-stacks mt-script-parse; do
	expect_exit 1 $tool -o keep.fxt ../bad.in 2>err
	cmp -s keep.fxt orig || fail "$tool -o keep.fxt bad-input changed keep.fxt"
	only keep.fxt orig err
done
# an input that ends early: mt-fxt has written most of it by then
head -c 3000 ../spans.mt >cut.mt
expect_exit 1 mt-fxt -o keep.fxt cut.mt 2>err
cmp -s keep.fxt orig || fail "a truncated input changed keep.fxt"
rm cut.mt

# 2. an empty trace replaces nothing
mt-stacks /dev/null >empty.mt 2>/dev/null || mt-script-parse /dev/null >empty.mt
expect_exit 1 mt-fxt -o keep.fxt empty.mt 2>err
contains err "keep.fxt left as it was"
cmp -s keep.fxt orig || fail "an empty trace replaced keep.fxt"
expect_exit 1 mt-fxt -o new.fxt empty.mt 2>err
[ ! -e new.fxt ] || fail "an empty trace made new.fxt"
# --allow-empty (what mt passes): exit 0 and no message; -o still
# replaces nothing, the standard output gets the header alone, which the
# FXT reader takes as a trace of nothing
mt-fxt --allow-empty -o keep.fxt empty.mt 2>err || fail "--allow-empty: exit $?"
[ ! -s err ] || fail "--allow-empty said: $(cat err)"
cmp -s keep.fxt orig || fail "--allow-empty: an empty trace replaced keep.fxt"
mt-fxt --allow-empty -o new.fxt empty.mt 2>err || fail "--allow-empty -o new.fxt: exit $?"
[ ! -e new.fxt ] || fail "--allow-empty: an empty trace made new.fxt"
mt-fxt --allow-empty empty.mt >stdout.fxt 2>err || fail "--allow-empty to stdout: exit $?"
[ ! -s err ] || fail "--allow-empty to stdout said: $(cat err)"
[ "$(wc -c <stdout.fxt)" -gt 0 ] || fail "--allow-empty wrote nothing to stdout"
fxt-check stdout.fxt >chk 2>&1 || fail "--allow-empty: not FXT: $(cat chk)"
rm empty.mt stdout.fxt chk err

# 3. the output may not be the input, whichever name or descriptor
expect_exit 2 mt-slice --from 0 -o keep.fxt keep.fxt 2>err
contains err "the output is the input"
cmp -s keep.fxt orig || fail "mt-slice -o same same changed it"
expect_exit 2 mt-slice --from 0 -o keep.fxt <keep.fxt 2>err
ln -s keep.fxt link.fxt
expect_exit 2 mt-fxt -o link.fxt keep.fxt 2>err
cp ../spans.mt s.mt
expect_exit 2 mt-stacks -o s.mt s.mt 2>err
cmp -s s.mt ../spans.mt || fail "mt-stacks -o same same changed it"
rm s.mt err
# an empty name is a bad command line, and leaves no temporary behind
for tool in mt-fxt mt-slice mt-stacks mt-script-parse; do
	expect_exit 2 $tool -o '' ../spans.mt 2>err
	contains err "$tool: -o: the output file name is empty"
done
rm err
only keep.fxt orig link.fxt

# 4. success replaces the file through the link, keeping its mode
chmod 640 keep.fxt
mt-fxt -o link.fxt ../spans.mt
[ -L link.fxt ] || fail "the link was replaced instead of the file it names"
cmp -s keep.fxt ../good.fxt || fail "keep.fxt is not the new trace"
[ "$(stat -c %a keep.fxt)" = 640 ] || fail "mode $(stat -c %a keep.fxt), not 640"
(umask 027 && mt-fxt -o fresh.fxt ../spans.mt)
[ "$(stat -c %a fresh.fxt)" = 640 ] || fail "new file mode $(stat -c %a fresh.fxt) under umask 027"
rm fresh.fxt link.fxt orig
only keep.fxt

# 5. a planted link at a temporary's place is never written through:
# the temporary's name is random and created with O_EXCL; a dangling link
# named as the output is replaced, not followed
echo secret >../victim
ln -s ../victim dangling.fxt
rm ../victim
mt-fxt -o dangling.fxt ../spans.mt
[ ! -L dangling.fxt ] && [ ! -e ../victim ] || fail "wrote through a dangling link"
rm dangling.fxt

# 6. a signal while writing leaves the file and no temporary
cp keep.fxt orig
mkfifo fifo
mt-fxt -o keep.fxt fifo 2>err &
pid=$!
exec 3>fifo
head -c 2000 ../spans.mt >&3
i=0
while [ "$(ls -A | grep -c '^\.keep\.fxt\.')" -eq 0 ]; do
	i=$((i + 1)); [ $i -lt 500 ] || fail "no temporary beside keep.fxt"
	sleep 0.01
done
kill -TERM $pid
wait $pid && fail "mt-fxt survived SIGTERM" || :
exec 3>&-
cmp -s keep.fxt orig || fail "SIGTERM changed keep.fxt"
rm fifo err
only keep.fxt orig

# 7. .gz and --gzip: the same trace compressed, in mt-fxt and mt-slice
mt-fxt -o a.fxt.gz ../spans.mt
mt-fxt --gzip ../spans.mt >b.gz
mt-slice --from 0 -o c.fxt.gz ../good.fxt
mt-slice --from 0 --gzip <../good.fxt >d.gz
mt-slice --from 0 ../good.fxt >e.fxt
for f in a.fxt.gz b.gz; do
	[ "$(head -c 2 $f | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "$f is not gzip"
	gunzip -c <$f | cmp -s - ../good.fxt || fail "$f is not the trace"
done
for f in c.fxt.gz d.gz; do
	[ "$(head -c 2 $f | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "$f is not gzip"
	gunzip -c <$f | cmp -s - e.fxt || fail "$f is not the slice"
done
# mt-slice reads its own compressed output
mt-slice --from 0 c.fxt.gz | cmp -s - e.fxt || fail "mt-slice of its .gz"
# a stream is never compressed
expect_exit 2 mt-slice --from 0 -o s.mt.gz ../spans.mt 2>err
[ ! -e s.mt.gz ] || fail "made s.mt.gz"
rm a.fxt.gz b.gz c.fxt.gz d.gz e.fxt err

# 8. a full disk: the message names the file once, and says it was kept
expect_exit 3 mt-fxt -o /dev/full ../spans.mt 2>err
contains err "mt-fxt: /dev/full: write error: No space left on device"
[ "$(grep -o /dev/full err | wc -l)" -eq 1 ] || fail "the path is repeated: $(cat err)"
expect_exit 3 mt-slice --from 0 --gzip ../good.fxt >/dev/full 2>err
contains err "standard output: write error: No space left on device"
# a small file system that fills up, where one can be mounted
if unshare -m true 2>/dev/null; then
	mkdir small
	cp ../good.fxt small/keep.fxt
	unshare -m sh -c '
		mount -t tmpfs -o size=64k tmpfs small || exit 77
		cp "$1" small/keep.fxt
		# the JSON of the trace is three times the FXT: it cannot fit
		mt-fxt --json -o small/keep.fxt "$2" 2>err; echo $? >code
		cmp -s small/keep.fxt "$1" || echo changed >code
		ls -A small >left
	' sh ../good.fxt ../spans.mt && :
	if [ -s code ]; then
		[ "$(cat code)" = 3 ] || fail "full tmpfs: exit $(cat code)"
		contains err "small/keep.fxt: write error (the file is left as it was): No space left on device"
		[ "$(cat left)" = keep.fxt ] || fail "left in the full file system: $(cat left)"
	fi
	rm -rf small code err left
fi
rm orig
only keep.fxt
