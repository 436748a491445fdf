#!/bin/sh
# mt-record's cache of symbol tables (mt-record/symcache.h): what it reads
# of a file once is taken on the next runs only while it is still what a
# read would make:
# - python3 and its libraries (glibc's debug symbols merged when
#   libc6-dbg is installed, python3.11's functions only FDEs show): the
#   `mt-record -v` list of every function the same without the cache, on
#   the run that fills it and on one that takes every table from it;
# - a stripped program with a .gnu_debuglink: its debug file put beside it
#   after the table was kept (named functions appear: the entry is not
#   taken), kept again and taken with it, then removed (the names go: not
#   taken); each run's list as a run without the cache makes it;
# - an entry changed (a byte of it, cut short) or the file touched: read
#   again, the list the same, the entry kept again; MT_CACHE=off; entries
#   0600, no temporary left behind.
. "$MT_TOP/tests/lib.sh"
mkdir -m 700 cache
export MT_CACHE=$PWD/cache
said() { grep -q "$2" "$1" || { cat "$1" >&2; fail "$1: no \"$2\""; }; }
# the function lines of -v (no cache lines, no pids)
fates() {
	grep -v -e 'branch targets' -e 'recording' -e 'the code of' -e 'symbols of' \
		-e 'symbol tables' "$1" >"$2"
}
# rec NAME ARGS...: mt-record -v --backend patch ARGS, its -v in NAME.err
rec() {
	n=$1
	shift
	mt-record -v --backend patch -o /dev/null "$@" >$n.out 2>$n.err ||
		{ tail -5 $n.err >&2; fail "$n: mt-record exited $?"; }
}

py=/usr/bin/python3
if [ -x $py ]; then
	MT_CACHE=off rec py-off --functions . -- $py -c pass
	said py-off.err 'no cache of symbol tables: MT_CACHE=off'
	rec py-fill --functions . -- $py -c pass
	rec py-take --functions . -- $py -c pass
	n=$(sed -n "s|^mt-record: the symbols of 0 of \([0-9]*\) files from $PWD/cache\$|\1|p" \
		py-fill.err)
	[ -n "$n" ] && [ "$n" -ge 3 ] || fail "filling: $(grep 'symbols of' py-fill.err)"
	said py-fill.err "the symbols of $n files kept in $PWD/cache for the next run"
	said py-take.err "the symbols of $n of $n files from $PWD/cache"
	! grep -q 'symbols of .* kept' py-take.err || fail "taken, yet kept: $(cat py-take.err)"
	fates py-off.err py-off.f
	fates py-fill.err py-fill.f
	fates py-take.err py-take.f
	[ "$(wc -l <py-off.f)" -gt 5000 ] || fail "python3: $(wc -l <py-off.f) lines"
	same_file py-off.f py-fill.f
	same_file py-off.f py-take.f
fi

# a stripped program and its debug file
cat >p.c <<'EOF'
#include <stdio.h>
__attribute__((noinline)) int work_one(int x) { return x * 3 + 1; }
__attribute__((noinline)) int work_two(int x) { return work_one(x) ^ 5; }
int main(void)
{
	int i, s = 0;

	for (i = 0; i < 100; i++)
		s += work_two(i);
	printf("%d\n", s);
	return 0;
}
EOF
gcc -g -O1 -o p p.c
objcopy --only-keep-debug p p.debug
strip --strip-all p
objcopy --add-gnu-debuglink=p.debug p
mkdir away
mv p.debug away/
fns='work_|p\+0x'
# lists: a run without the cache, then two with it, for each state
for state in stripped debug stripped2; do
	case $state in
	debug) mv away/p.debug . ;;
	stripped2) mv p.debug away/ ;;
	esac
	MT_CACHE=off rec $state-off --functions "$fns" -- ./p
	rec $state-1 --functions "$fns" -- ./p
	rec $state-2 --functions "$fns" -- ./p
	fates $state-off.err $state-off.f
	for r in 1 2; do
		fates $state-$r.err $state-$r.f
		same_file $state-off.f $state-$r.f
	done
	grep -q '^mt-record: the symbols of \([0-9]*\) of \1 files from' $state-2.err ||
		{ cat $state-2.err >&2; fail "$state: not every table taken on the second run"; }
	case $state in
	debug) grep -q '^mt-record: work_two (' debug-1.f || fail "no work_two: $(cat debug-1.f)" ;;
	*) ! grep -q '^mt-record: work_' $state-1.f || fail "$state: named: $(cat $state-1.f)" ;;
	esac
done
# the first run of each state took nothing for p (its debug file is another)
said debug-1.err 'the symbols of 1 file kept in'
said stripped2-1.err 'the symbols of 1 file kept in'

# an entry changed: a byte of it, then cut short
nf=$(sed -n 's/^mt-record: the symbols of \([0-9]*\) of \1 files from.*/\1/p' stripped2-2.err)
e=$(ls cache/p-*.sym)
size=$(stat -c %s "$e")
printf '\377' | dd of="$e" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
rec bad --functions "$fns" -- ./p
said bad.err "the symbols of $((nf - 1)) of $nf files from"
said bad.err 'the symbols of 1 file kept in'
fates bad.err bad.f
same_file stripped2-off.f bad.f
head -c 100 "$e" >short && cat short >"$e"
rec short --functions "$fns" -- ./p
said short.err "the symbols of $((nf - 1)) of $nf files from"
fates short.err short.f
same_file stripped2-off.f short.f

# the file touched: read again, kept again (its change a run ago)
touch -d '2002-02-02' p
MT_CACHE=off rec touched-off --functions "$fns" -- ./p
rec touched --functions "$fns" -- ./p
said touched.err "the symbols of $((nf - 1)) of $nf files from"
said touched.err 'the symbols of 1 file kept in'
fates touched.err touched.f
same_file stripped2-off.f touched.f

for e in cache/*.sym; do
	[ "$(stat -c %a "$e")" = 600 ] || fail "$e is $(stat -c %a "$e")"
done
! ls -A cache | grep -q '^\.' || fail "a temporary left: $(ls -A cache)"
