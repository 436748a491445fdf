# Sourced by the tests/t/t08NN-ptsynth-*.sh scripts, after tests/lib.sh:
# running ptsynth, perf and the mt pipeline on a corpus program and
# comparing with the truth (tests/ptsynth/README.md).
#
# Needs perf (with Intel PT decoding, as Debian's is) and ptrace; without
# them the scripts skip (exit 0 saying so).

CORPUS="$MT_TESTBIN/ptsynth-corpus"
# perf reads no user configuration (intel-pt.* options change decoding)
# and no build-id cache but the scratch one
export PERF_CONFIG=/dev/null
HOME=$(pwd)/home
export HOME
mkdir -p "$HOME"

# ptsynth_need PROG...: skip the whole script unless these can run
ptsynth_need() {
	command -v perf >/dev/null 2>&1 || { echo "skipped: no perf"; exit 0; }
	for p in "$@"; do
		[ -x "$CORPUS/$p" ] || { echo "skipped: $CORPUS/$p was not built"; exit 0; }
	done
}


# perf_branches DATA OUT: perf's branches as the truth writes them:
# pid tid time_ns from to kind, one per line, tab-separated, stable-sorted
# by tid (each thread's branches stay in perf's order). perf 6.1 prints
# the end of the trace at an asynchronous event as "tr end" (later ones
# "tr end  async").
perf_branches() {
	perf script -i "$1" --ns --itrace=be -F pid,tid,time,flags,ip,addr \
		>"$2.raw" 2>"$2.err" || { cat "$2.err" >&2; fail "perf script failed on $1"; }
	awk -v OFS='\t' '
	/error/ { print "perf error: " $0 > "/dev/stderr"; bad = 1 }
	{
		split($1, pt, "/")
		t = $2; sub(":", "", t); sub("\\.", "", t); sub("^0*", "", t)
		k = ""
		for (i = 3; i <= NF - 3; i++)
			k = k (k == "" ? "" : " ") $i
		if (k == "tr end")
			k = "tr end async"
		print pt[1], pt[2], t, $(NF - 2), $NF, k
	}
	END { exit bad }' "$2.raw" | sort -s -t "$(printf '\t')" -k2,2 >"$2" ||
		fail "perf printed decoder errors for $1"
}

# truth_branches TRUTH OUT, truth_spans TRUTH OUT: the truth's parts
truth_branches() {
	grep '^B' "$1" | cut -f2- | sort -s -t "$(printf '\t')" -k2,2 >"$2"
}
truth_spans() {
	grep '^S' "$1" | cut -f2- >"$2"
}

# pts_run NAME TIMING [PTSYNTH OPTIONS]: ptsynth on the corpus program
# NAME into NAME-TIMING.data and .truth (NAME-TIMING-$PTS_TAG.* when
# PTS_TAG is set), then perf's branches compared
# with the truth's (failing on any difference) and the pipeline's spans
# compared with stacks-check. Prints a line
#   NAME (TIMING): N branches equal; spans matched M of T (X extra)
# and sets $spans_ok to 1 when every span matched, else 0.
pts_run() {
	name=$1 timing=$2
	shift 2
	out=$name-$timing${PTS_TAG:+-$PTS_TAG}
	pts_record "$name" "$timing" "$@"
	perf_branches "$out.data" "$out.pb"
	truth_branches "$out.truth" "$out.tb"
	[ -s "$out.tb" ] || fail "$name: the truth has no branches"
	if ! diff "$out.tb" "$out.pb" >"$out.diff"; then
		head -20 "$out.diff" >&2
		fail "$name ($timing): perf's branches differ from the truth's ($(grep -c '^[<>]' "$out.diff") lines)"
	fi
	# the decode half of mt-record: perf script with its field set, as
	# text (mt-record -i --text: t0805 compares the dlfilter's stream)
	mt-record -i "$out.data" --text >"$out.perf" 2>"$out.perr" ||
		{ cat "$out.perr" >&2; fail "mt-record -i failed on $name"; }
	mt-script-parse "$out.perf" | mt-stacks --no-spread >"$out.mt" ||
		fail "$name: mt-script-parse | mt-stacks failed"
	truth_spans "$out.truth" "$out.spans"
	spans_ok=1
	stacks-check "$out.spans" "$out.mt" >"$out.report" 2>&1 || spans_ok=0
	summary=$(sed -n 's/^all threads: matched \([0-9]*\) of \([0-9]*\) truth spans, \([0-9]*\) extra.*/\1 of \2 (\3 extra)/p' "$out.report")
	[ -n "$summary" ] || { cat "$out.report" >&2; fail "$name: no stacks-check summary"; }
	echo "$name ($timing${PTS_TAG:+, $PTS_TAG}): $(wc -l <"$out.tb") branches equal; spans matched $summary$reused"
}

# pts_record NAME TIMING [PTSYNTH OPTIONS]: ptsynth's recording of NAME
# into $out.data, .truth and .log. Single-stepping is most of the time
# of these tests (70,000 steps a second, ld.so's start alone 100,000), so
# when MT_PTS_CACHE names a directory (make check sets one for its two
# passes), a recording is kept there under the hash of the program's bytes
# and the options (and ptsynth's source), and a later pass over the same program replays it:
# the ASan pass then checks perf's decoding and mt's tools under the
# sanitizers on the recording the plain pass made. The recording's own
# truth travels with it, so a replayed run is checked exactly as the
# first. make check-long leaves MT_PTS_CACHE unset: every pass records.
pts_record() {
	reused=
	key=
	if [ -n "${MT_PTS_CACHE:-}" ] && [ -d "$MT_PTS_CACHE" ]; then
		key=$({ sha256sum <"$CORPUS/$1"; cat "$MT_TOP"/tests/ptsynth/*.[ch]
			printf '%s\n' "$@"; } | sha256sum | cut -c1-32)
		if [ -s "$MT_PTS_CACHE/$key.truth" ]; then
			for x in data truth log; do
				cp "$MT_PTS_CACHE/$key.$x" "$out.$x" || fail "cannot copy $MT_PTS_CACHE/$key.$x"
			done
			reused=" (replayed: recorded by an earlier pass)"
			return 0
		fi
	fi
	_n=$1 _t=$2
	shift 2
	ptsynth --timing "$_t" -o "$out.data" --truth "$out.truth" "$@" \
		-- "$CORPUS/$_n" >"$out.log" 2>&1 || {
		cat "$out.log" >&2; fail "ptsynth failed on $_n"; }
	[ -z "$key" ] && return 0
	# one writer a key (tests/run may run two of these tests at once):
	# the one that makes the lock; the truth last, under its final name
	# last: it marks the set whole
	mkdir "$MT_PTS_CACHE/$key.lock" 2>/dev/null || return 0
	for x in data log truth; do
		cp "$out.$x" "$MT_PTS_CACHE/.$key.$$.$x" &&
			mv "$MT_PTS_CACHE/.$key.$$.$x" "$MT_PTS_CACHE/$key.$x" ||
			fail "cannot keep $out.$x in $MT_PTS_CACHE"
	done
}

# pts_verdict NAME LIMIT: after pts_run, fail on a span mismatch unless
# LIMIT (the reason, from the script's known-limits list) is not empty
pts_verdict() {
	if [ "$spans_ok" = 1 ]; then
		[ -z "$2" ] || echo "    (listed as a known limit, but matched: $2)"
		return 0
	fi
	if [ -n "$2" ]; then
		echo "    known limit: $2"
		return 0
	fi
	sed 's/^/    | /' "$out.report" | head -30 >&2
	bad="$bad $1"
}
