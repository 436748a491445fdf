#!/bin/sh
# mt-record --backend patch against the ground truth: for each ptsynth
# corpus program that is not Go, the spans mt-stacks makes of the patch
# backend's records are those of the truth ptsynth gives of a run of the
# same program (its single-stepped calls and returns, tests/ptsynth),
# restricted to the functions patched (mt-record -v names them): the same
# names, nested the same way, as many, thread by thread. Recursion, tail
# calls (a patched function jumping to another ends as the other begins),
# function pointers, longjmp and siglongjmp (the frames they leave end as
# they jump), threads, signal handlers, C++ exceptions through
# destructors (the frames an exception leaves end where it lands: a
# cleanup's landing pad, then the catch) and templates, Rust. Functions
# with aliases are named as perf names them (the truth's names). The timer of `signal` fires wherever
# its spin loop is: its spin() calls are left out on both sides, and
# alarms that came in a row (missed ones, more on a loaded machine) count
# once.
# tests/run: two at a time
. "$MT_TOP/tests/lib.sh"
. "$MT_TOP/tests/ptsynth/lib.sh"
progs="basic cos recursion tailcall jumps threads signal exceptions exceptions-recursive templates rust loop"
ptsynth_need $progs

# spans_of_truth TRUTH: "tid start end depth name", tab-separated
spans_of_truth() {
	awk -F '\t' -v OFS='\t' '$1 == "S" { print $3, $5, $6, $4, $8 }' "$1"
}
# spans_of_stream STREAM: the same of mt-stacks' spans
spans_of_stream() {
	mt-stacks --no-spread "$1" | mt-dump - | awk -v OFS='\t' '$2 == "SPAN" {
		name = $0; sub(/^.* name="/, "", name); sub(/" dso=.*$/, "", name)
		s = $3; sub(/start=/, "", s); sub(/\./, "", s)
		e = $4; sub(/end=/, "", e); sub(/\./, "", e)
		t = $6; sub(/tid=/, "", t)
		d = $7; sub(/depth=/, "", d)
		sub(/^0+/, "", s); sub(/^0+/, "", e)
		print t, s, e, d, name
	}'
}
# tree NAMES SPANS: the spans whose names NAMES lists (but spin in
# signal), a line each, "THREAD LEVEL NAME", in each thread's order;
# threads numbered by their first span, LEVEL the nesting among these
tree() {
	awk -F '\t' -v prog="$p" 'NR == FNR { keep[$0] = 1; next }
	($5 in keep) && !(prog == "signal" && $5 == "spin") { print }' "$1" "$2" |
	sort -s -t "$(printf '\t')" -k1,1n -k2,2n -k4,4n |
	awk -F '\t' '
	$1 != tid { if (tid != "") out(); tid = $1; n = 0; first = $2 }
	{ st[++n] = $2; en[n] = $3; nm[n] = $5 }
	function out(  i, sp, top) {
		sp = 0
		for (i = 1; i <= n; i++) {
			while (sp > 0 && en[stk[sp]] <= st[i])
				sp--
			line[i] = sp " " nm[i]
			stk[++sp] = i
		}
		for (i = 1; i <= n; i++)
			print first, line[i]
	}
	END { if (tid != "") out() }' |
	awk '{ if (!($1 in no)) no[$1] = ++k; $1 = no[$1]; print }' |
	awk -v prog="$p" '
	# signal: how many alarms came before one came while spinning
	# depends on the load (each run its own): alarms in a row count once
	prog == "signal" && $NF == "on_alarm" && p2 == "on_alarm" && p1 == "note" { drop = 1; next }
	drop && $NF == "note" { drop = 0; next }
	{ drop = 0; print; p2 = p1; p1 = $NF }'
}

# known limits: program and reason (none today; add "NAME) echo REASON ;;")
limit() {
	case $1 in
	esac
}

bad=
for p in $progs; do
	out=$p-fine${PTS_TAG:+-$PTS_TAG}
	pts_record "$p" fine
	st=0; "$CORPUS/$p" >"$p.plain" 2>&1 || st=$?
	tst=0; mt-record -v --backend patch --command-stdout 3 -- "$CORPUS/$p" \
		3>"$p.out" >"$p.mt" 2>"$p.err" || tst=$?
	[ "$tst" -eq 0 ] || fail "$p: mt-record exited $tst: $(tail -3 "$p.err")"
	grep -v '^mt-record: ' "$p.err" >>"$p.out" || :
	cmp -s "$p.plain" "$p.out" || fail "$p: its output differs traced"
	sed -n 's/^mt-record: \(.*\) ([^()]*): patched$/\1/p' "$p.err" | sort -u >"$p.names"
	[ -s "$p.names" ] || fail "$p: mt-record -v named no function patched"
	spans_of_truth "$out.truth" >"$p.tspans"
	spans_of_stream "$p.mt" >"$p.pspans"
	tree "$p.names" "$p.tspans" >"$p.want"
	tree "$p.names" "$p.pspans" >"$p.got"
	[ -s "$p.want" ] || fail "$p: the truth has none of the functions patched"
	if ! diff "$p.want" "$p.got" >"$p.diff"; then
		if [ -n "$(limit "$p")" ]; then
			echo "$p: known limit: $(limit "$p")"
			continue
		fi
		echo "$p: spans differ from the truth's (< truth, > patch):" >&2
		head -20 "$p.diff" >&2
		bad="$bad $p"
	else
		[ -z "$(limit "$p")" ] || echo "    (listed as a known limit, but matched)"
		echo "$p: $(wc -l <"$p.got") spans of $(wc -l <"$p.names") functions equal the truth's"
	fi
done
[ -z "$bad" ] || fail "spans differ from the truth for:$bad"
# the calls were there to compare
[ "$(grep -c ' down$' jumps.got)" -ge 4 ] || fail "jumps: fewer than 4 calls of down"
[ "$(cut -d' ' -f1 threads.got | sort -u | wc -l)" -eq 3 ] || fail "threads: not 3 threads"
grep -q '^1 [1-9][0-9]* note$' signal.got || fail "signal: note not called from a handler"
