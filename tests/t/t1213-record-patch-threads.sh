#!/bin/sh
# The patch backend keeps any number of threads over time: a slot whose
# thread ended is taken again by a new one (tests/progs/threads: 1000
# threads, 4 alive at a time, each calling work() 6 times). With --full
# every call of every thread is kept (a slot is taken again only once
# read out); in snapshot mode more than the 256 slots' worth of threads
# are there, the newest, each whole and under its own tid. Attached to 4
# threads calling work() in a tight loop (tests/progs/busy), all 4 are in
# the snapshot (a thread stopped inside work's first bytes is let run out
# of them, not left to make work stay unpatched).
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs

# spans NAME: "tid name" of NAME.mt's spans
spans() {
	mt-stacks --no-spread $1.mt | mt-dump - |
		sed -n 's/^.* SPAN .* tid=\([0-9]*\) .* name="\([^"]*\)".*$/\1 \2/p'
}

"$P/threads" 1000 4 6 200 >plain.out
for mode in full snapshot; do
	if [ $mode = full ]; then set -- --full; else set --; fi
	mt-record --backend patch "$@" --functions '^(work|request)$' --command-stdout 3 -- \
		"$P/threads" 1000 4 6 200 3>$mode.out >$mode.mt 2>$mode.err ||
		{ cat $mode.err >&2; fail "$mode: mt-record"; }
	same_file plain.out $mode.out
	spans $mode >$mode.spans
	tids=$(cut -d' ' -f1 $mode.spans | sort -u | wc -l)
	# every thread there has its 6 calls, no more, no fewer
	grep ' work$' $mode.spans | cut -d' ' -f1 | sort | uniq -c | awk '$1 != 6' >odd
	[ ! -s odd ] || fail "$mode: threads without 6 work calls: $(head -3 odd)"
	[ "$(grep -c ' request$' $mode.spans)" -eq "$tids" ] ||
		fail "$mode: $tids threads, $(grep -c ' request$' $mode.spans) requests"
	if [ $mode = full ]; then
		[ "$tids" -eq 1000 ] || fail "--full: $tids threads of 1000 ($(cat $mode.err))"
		! grep -q 'ran untraced' $mode.err || fail "--full: $(cat $mode.err)"
	else
		[ "$tids" -gt 256 ] || fail "snapshot: only $tids threads"
		# the newest: the last thread started is there
		last=$(mt-dump snapshot.mt | sed -n 's/^.* THREAD pid=[0-9]* tid=\([0-9]*\) .*$/\1/p' |
			sort -n | tail -1)
		grep -q "^$last " $mode.spans || fail "snapshot: the newest thread is missing"
	fi
done

# 4 hot threads, attached: all in the snapshot
mkfifo b.in
"$P/busy" -t 4 <b.in >b.out &
bp=$!
exec 7>b.in
wait_for grep -q ready b.out || fail "busy did not start"
for i in 1 2; do
	attach h $bp --functions '^work$'
	sleep 0.3
	kill -INT $rec
	wait $rec || { cat h.err >&2; fail "busy: mt-record exited $?"; }
	spans h >h.spans
	n=$(grep ' work$' h.spans | cut -d' ' -f1 | sort -u | wc -l)
	[ "$n" -eq 4 ] || fail "attach $i: work in $n of busy's 4 threads ($(cat h.err))"
done
echo q >&7
exec 7>&-
wait $bp || fail "busy exited $?"
