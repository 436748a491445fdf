#!/bin/sh
# A recursion 100,000 frames deep (rec), then events that send mt-stacks
# looking for a function on the stack that is not there: a million returns
# from helper, whose call was not seen (they only say the code is in rec
# again), and 100,000 jumps into the middle of x and y (tail calls, as for
# foo.cold); then the returns unwind it all. Finding the nearest frame of
# a function used to walk down the stack, so this took time quadratic in
# the depth (213 s on the test machine); with the index of each stack's
# frames by function it takes a third of a second. The timeout is only a
# generous bound, no measure.
. "$MT_TOP/tests/lib.sh"

n=100000
cat >gen.awk <<'EOF'
function loc(a, s) { return sprintf("%16x %s (/bin/app)", a, s) }
function line(fl, fa, fs, ta, ts) {
	ns++
	printf "   10/10 %5d.%09d:          1   branches:uH:   %-19s %s => %s\n",
		1 + int(ns / 1000000000), ns % 1000000000, fl, loc(fa, fs), loc(ta, ts)
}
BEGIN {
	line("call", 4198416, "main+0x10", 4202496, "rec+0x0")
	for (i = 1; i < n; i++)
		line("call", 4202512, "rec+0x10", 4202496, "rec+0x0")
	for (i = 0; i < 10 * n; i++)
		line("return", 4206600, "helper+0x8", 4202517, "rec+0x15")
	for (i = 0; i < n; i++)
		if (i % 2)
			line("jmp", 4214856, "y+0x48", 4210752, "x+0x40")
		else
			line("jmp", 4210760, "x+0x48", 4214848, "y+0x40")
	line("return", 4210768, "x+0x50", 4202517, "rec+0x15")
	for (i = 2; i < n; i++)
		line("return", 4202528, "rec+0x20", 4202517, "rec+0x15")
	line("return", 4202528, "rec+0x20", 4198421, "main+0x15")
}
EOF
# 1.3 million lines: straight into the parser
awk -v n=$n -f gen.awk | mt-script-parse >in.mt
for opt in "" --no-spread; do
	# shellcheck disable=SC2086
	timeout 60 mt-stacks $opt in.mt >out.mt ||
		fail "mt-stacks $opt on $n frames: exit $? (124: over 60 s)"
	spans-check out.mt >check 2>&1 || { cat check >&2; fail "$opt: spans-check"; }
	mt-dump out.mt | grep ' SPAN ' >dump
	# rec once at each depth 1 .. n, closed; x and y n times at depth n
	# (the deepest rec ends at the first jump); main open under it all
	awk -v n=$n '
	function field(k,   i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
	{
		name = field("name"); d = field("depth") + 0; fl = field("flags")
		if (name == "\"rec\"" && fl == "-" && d >= 1 && d <= n && !seen[d]++)
			rec++
		else if ((name == "\"x\"" || name == "\"y\"") && fl == "-" && d == n)
			xy++
		else if (name == "\"main\"" && fl == "INFERRED|OPEN" && d == 0)
			main++
		else
			other++
	}
	END {
		if (rec != n || xy != n || main != 1 || other) {
			printf "rec %d, x and y %d, main %d, other %d\n", rec, xy, main, other
			exit 1
		}
	}' dump >report || fail "$opt: wrong spans: $(cat report)"
done
