#!/bin/sh
# mt-record -p attached to one process 50 times (20 in make check; 50
# with MT_LONG=1, as make check-long runs it) (tests/progs/busy-nopie:
# a non-PIE program, its code at 0x400000) works every time and gives back
# what it took: after each detach the process has the descriptors it had,
# no more mappings than after the first attach, but for a thread stack
# glibc may cache (the stubs' memory reused,
# the shared memory unmapped), its resident memory grows by less than
# 2 MiB over the 49 later attaches, and nothing is ever mapped in the
# first MiB (stub memory had ended up at address 0: a NULL read must still
# fault).
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs

mkfifo b.in
"$P/busy-nopie" -t 2 <b.in >b.out &
bp=$!
exec 7>b.in
wait_for grep -q ready b.out || fail "busy-nopie did not start"
fds0=$(ls /proc/$bp/fd | wc -l)

rss() { awk '$1 == "VmRSS:" { print $2 }' /proc/$bp/status; }
maps() { wc -l </proc/$bp/maps; }
# low_maps: mappings in the first MiB (maps gives 8 hex digits at least)
low_maps() {
	awk '{ split($1, a, "-"); if (length(a[1]) == 8 && a[1] < "00100000") print }' \
		/proc/$bp/maps
}

rounds=20
[ "${MT_LONG:-0}" = 0 ] || rounds=50
for i in $(seq $rounds); do
	attach a $bp --functions '^work$'
	sleep 0.05
	kill -INT $rec
	wait $rec || { cat a.err >&2; fail "attach $i: mt-record exited $?"; }
	n=$(mt-stacks --no-spread a.mt | mt-dump - | grep -c ' SPAN .* name="work"')
	[ "$n" -gt 0 ] || fail "attach $i: no work spans"
	! grep -q 'could not' a.err || fail "attach $i: $(cat a.err)"
	fds=$(ls /proc/$bp/fd | wc -l)
	[ "$fds" -eq "$fds0" ] || fail "attach $i: $fds descriptors, $fds0 before"
	[ -z "$(low_maps)" ] || fail "attach $i: mapped below 16 MiB: $(low_maps)"
	if [ $i -eq 1 ]; then
		rss1=$(rss)
		maps1=$(maps)
	fi
done
maps50=$(maps)
rss50=$(rss)
echo "mappings after attach 1: $maps1, after $rounds: $maps50; resident $rss1 kB, then $rss50 kB"
# (a thread stack glibc caches may come or go: 2 of slack)
[ "$maps50" -le $((maps1 + 2)) ] || fail "mappings grew from $maps1 to $maps50"
[ $((rss50 - rss1)) -lt 2048 ] || fail "resident memory grew by $((rss50 - rss1)) kB"
! grep -q 'memfd:mt-patch (deleted)' /proc/$bp/maps ||
	fail "the shared memory is still mapped: $(grep 'memfd:mt-patch ' /proc/$bp/maps)"
echo q >&7
exec 7>&-
wait $bp || fail "busy-nopie exited $?"
grep -q '^bad 0 ' b.out || fail "$(tail -1 b.out)"
