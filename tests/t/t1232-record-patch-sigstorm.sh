#!/bin/sh
# The patch backend under a storm of signals: tests/progs/sigstorm calls
# leaf() and mid() two million times while a timer sends SIGALRM every
# 20 us; its handler calls deep(), whose 3 KiB frame (a pattern written,
# a call, read back) goes below the interrupted code's stack pointer,
# where the kernel puts the signal's frame too. Signals land anywhere:
# in a stub, a hook, the return trampoline between its last pop and its
# jump (the return address it jumps through is kept just above the stack
# pointer, which a signal's frame never reaches: it goes below the
# 128-byte red zone). Traced (leaf, mid and deep patched), the program
# computes what it computes untraced, its handlers' patterns hold, and
# every call is a span: deep's as many as the signals, leaf's and mid's
# as many as the program made.
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs
N=300000
"$P/sigstorm" $N >plain.out || fail "sigstorm untraced exited $?: $(cat plain.out)"
for round in 1 2 3; do
	mt-record --backend patch --functions '^(leaf|mid|deep)$' --snapshot-size 32M \
		-o s$round.mt -- "$P/sigstorm" $N >traced.out 2>err$round ||
		{ cat err$round traced.out >&2; fail "round $round: mt-record or sigstorm failed"; }
	[ "$(sed -n 's/^sum //p' traced.out)" = "$(sed -n 's/^sum //p' plain.out)" ] ||
		fail "round $round: traced, sigstorm computed $(cat traced.out), untraced $(cat plain.out)"
	signals=$(sed -n 's/^signals //p' traced.out)
	[ "$signals" -gt 0 ] || fail "round $round: no signal came"
	mt-stacks s$round.mt | mt-report --json >report
	count() { sed -n "s/^{\"name\":\"$1\",\"calls\":\([0-9]*\),.*/\1/p" report; }
	# every call a span: the ring holds every record (32 MiB: 2
	# million; 1.2 million of leaf and mid, four a signal); a signal
	# that came during the timer's last turn, after the loop, may be
	# in deep (its call then not ended)
	deep=$(count deep)
	[ "${deep:-0}" -ge $((signals - 1)) ] && [ "$deep" -le "$signals" ] ||
		fail "round $round: ${deep:-no} spans of deep, $signals signals"
	[ "$(count mid)" = $((N / 2)) ] || fail "round $round: $(count mid) spans of mid, not $((N / 2))"
	[ "$(count leaf)" = $((N / 2 * 3 + deep)) ] ||
		fail "round $round: $(count leaf) spans of leaf, not $((N / 2 * 3 + deep))"
done
