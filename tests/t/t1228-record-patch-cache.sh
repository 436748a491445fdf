#!/bin/sh
# The patch backend's cache of branch targets (mt-record/patch/patch-cache.h):
# what mt-record reads from a file after a recording and gives the runtime
# on the next run must decide every function as the runtime's own reading
# of the process decides it:
# - shorty's functions whose fate depends on branches (hops past a branch
#   target, one a branch aims at) and every function of python3 and its
#   libraries: `mt-record -v`'s list the same without the cache, on the run
#   that fills it and on one that takes it, and shorty's calls all there;
# - an entry changed (a byte of it, cut short), a file changed (its times)
#   or another build of mt-record: not taken, read again and kept again;
# - a process whose code is not its file's (tests/progs/selfmod wrote a
#   jump into aimed()'s first instruction): the runtime refuses the file's
#   targets (the code hashes otherwise), reads its own, and leaves aimed
#   alone (had it taken them, aimed would have been patched over the jump's
#   target), the program's answers unchanged;
# - a directory that is not ours alone is not used, said with -v, the
#   recording the same; MT_CACHE=off; root's default, /var/cache/mt, 0700;
#   entries 0600, no temporary left behind.
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs
mkdir -m 700 cache
export MT_CACHE=$PWD/cache
said() { grep -q "$2" "$1" || { cat "$1" >&2; fail "$1: no \"$2\""; }; }
# the function lines of -v (no pids, no cache lines)
fates() { grep -v -e 'branch targets' -e 'recording' -e 'the code of' -e 'symbols of' -e 'symbol tables' "$1"; }

fns='^(one|three|four|fallthru|packed|tiny|next|aimed|jumper|loopy|into3|entry3)$'
"$P/shorty" >plain.out
for run in off fill take; do
	if [ $run = off ]; then c=off; else c=$PWD/cache; fi
	MT_CACHE=$c mt-record -v --backend patch --functions "$fns" -o $run.mt -- "$P/shorty" \
		>$run.out 2>$run.err || { cat $run.err >&2; fail "shorty, cache $run"; }
	same_file plain.out $run.out
done
said off.err 'no cache of branch targets: MT_CACHE=off'
# the files read for branches: shorty, its libraries
nf=$(sed -n "s|^mt-record: the branch targets of 0 of \([0-9]*\) files from $PWD/cache\$|\1|p" fill.err)
[ -n "$nf" ] && [ "$nf" -ge 2 ] || fail "filling: $(grep 'branch targets' fill.err)"
said fill.err "the branch targets of $nf files kept in $PWD/cache for the next run"
said take.err "the branch targets of $nf of $nf files from $PWD/cache"
! grep -q 'kept in' take.err || fail "taken, yet kept again: $(cat take.err)"
fates off.err >off.f
fates take.err >take.f
same_file off.f take.f
fates fill.err >fill.f
same_file off.f fill.f
grep -q '^mt-record: aimed (.*): a branch into the bytes' take.f || fail "aimed: $(grep ' aimed ' take.f)"
grep -q '^mt-record: entry3 (.*): patched$' take.f || fail "entry3: $(grep ' entry3 ' take.f)"
patch_records take.mt >rec
for fc in one:1000 three:1000 four:1000 loopy:2000 into3:1000 entry3:1000; do
	f=${fc%:*} want=${fc#*:}
	c=$(awk -v f=$f '$2 == "call" && $3 == f' rec | wc -l)
	[ "$c" -eq "$want" ] || fail "$f: $c calls with the cache, not $want"
done
ls -la cache >ls.out
[ "$(stat -c %a cache)" = 700 ] || fail "cache is $(stat -c %a cache)"
for e in cache/*; do
	[ "$(stat -c %a "$e")" = 600 ] || fail "$e is $(stat -c %a "$e")"
done
! ls -A cache | grep -q '^\.' || fail "a temporary left: $(ls -A cache)"

# every function of python3 and its libraries
py=/usr/bin/python3
if [ -x $py ]; then
	MT_CACHE=off mt-record -v --backend patch --functions . -o /dev/null -- $py -c pass \
		2>py-off.err || { tail -3 py-off.err >&2; fail "python3, no cache"; }
	mt-record -v --backend patch --functions . -o /dev/null -- $py -c pass 2>py-fill.err ||
		{ tail -3 py-fill.err >&2; fail "python3, filling"; }
	mt-record -v --backend patch --functions . -o /dev/null -- $py -c pass 2>py-take.err ||
		{ tail -3 py-take.err >&2; fail "python3, taking"; }
	pn=$(sed -n 's/^mt-record: the branch targets of \([0-9]*\) of \1 files from.*/\1/p' py-take.err)
	[ -n "$pn" ] && [ "$pn" -ge 3 ] || fail "python3: $(grep 'branch targets' py-take.err)"
	fates py-off.err >py-off.f
	fates py-take.err >py-take.f
	[ "$(wc -l <py-off.f)" -gt 5000 ] || fail "python3: $(wc -l <py-off.f) lines"
	same_file py-off.f py-take.f
fi

# an entry changed: a byte of it, then cut short
e=$(ls cache/shorty-*.br)
size=$(stat -c %s "$e")
printf '\377' | dd of="$e" bs=1 seek=$((size - 3)) conv=notrunc 2>/dev/null
mt-record -v --backend patch --functions "$fns" -o c.mt -- "$P/shorty" >c.out 2>c.err ||
	{ cat c.err >&2; fail "shorty, an entry changed"; }
said c.err "the branch targets of $((nf - 1)) of $nf files from"
said c.err 'the branch targets of 1 file kept in'
fates c.err >c.f
same_file off.f c.f
e=$(ls cache/shorty-*.br)
head -c 100 "$e" >short && cat short >"$e"
mt-record -v --backend patch --functions "$fns" -o c.mt -- "$P/shorty" >c.out 2>c.err ||
	{ cat c.err >&2; fail "shorty, an entry cut short"; }
said c.err "the branch targets of $((nf - 1)) of $nf files from"
fates c.err >c.f
same_file off.f c.f

# the file changed (a copy of shorty, its times changed): read again
cp "$P/shorty" ./shorty2
mt-record --backend patch --functions "$fns" -o /dev/null -- ./shorty2 >/dev/null 2>&1 ||
	fail "shorty2"
touch -d '2001-01-01' ./shorty2
mt-record -v --backend patch --functions "$fns" -o /dev/null -- ./shorty2 >/dev/null 2>s2.err ||
	{ cat s2.err >&2; fail "shorty2, touched"; }
said s2.err "the branch targets of $((nf - 1)) of $nf files from"

# a process whose code is not its file's
rm -f s.in
mkfifo s.in
"$P/selfmod" <s.in >s.out &
sp=$!
exec 7>s.in
wait_for grep -q ready s.out || fail "selfmod did not start"
for i in 1 2; do
	attach a$i $sp -v --functions '^aimed$'
	sleep 0.3
	kill -INT $rec
	wait $rec || { cat a$i.err >&2; fail "selfmod, attach $i: mt-record exited $?"; }
	grep -q '^mt-record: aimed (.*): a branch into the bytes' a$i.err ||
		{ cat a$i.err >&2; fail "selfmod, attach $i: aimed not left alone"; }
done
m=$(sed -n 's/^mt-record: the branch targets of [0-9]* of \([0-9]*\) files from.*/\1/p' a1.err)
said a1.err 'the branch targets of 1 file kept in'
[ -n "$m" ] || fail "attach 1: $(grep 'branch targets' a1.err)"
said a2.err "the branch targets of $m of $m files from"
said a2.err 'the code of 1 of those files in the process is not the file'"'"'s'
! grep -q 'not the file' a1.err || fail "attach 1: $(grep 'not the file' a1.err)"
exec 7>&-
wait $sp
grep -q '^[0-9]* calls: ok$' s.out || fail "selfmod: $(cat s.out)"

# a directory not ours alone; off
mkdir -m 777 open
MT_CACHE=$PWD/open mt-record -v --backend patch --functions "$fns" -o o.mt -- "$P/shorty" \
	>o.out 2>o.err || { cat o.err >&2; fail "shorty, an open directory"; }
said o.err 'no cache of branch targets: its directory is not one of ours'
[ -z "$(ls -A open)" ] || fail "written to an open directory: $(ls -A open)"
same_file plain.out o.out
fates o.err >o.f
same_file off.f o.f
ln -s cache link
MT_CACHE=$PWD/link mt-record -v --backend patch --functions "$fns" -o o.mt -- "$P/shorty" \
	>o.out 2>o.err || { cat o.err >&2; fail "shorty, a link"; }
said o.err 'no cache of branch targets: its directory is not one of ours'

# root's own, by default
if [ "$(id -u)" = 0 ]; then
	env -u MT_CACHE mt-record -v --backend patch --functions '^one$' -o /dev/null -- \
		"$P/shorty" >/dev/null 2>d.err || { cat d.err >&2; fail "default cache"; }
	said d.err 'from /var/cache/mt$'
	[ "$(stat -c '%a %u' /var/cache/mt)" = "700 0" ] ||
		fail "/var/cache/mt: $(stat -c '%a %u' /var/cache/mt)"
fi
exit 0
