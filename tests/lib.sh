# Sourced by every tests/t/tNNNN-*.sh. The script runs in a scratch
# directory; $MT_BIN holds the tools, $MT_TESTBIN the test helpers,
# $MT_FIXTURES the shared fixtures, $MT_TOP the source tree.
# A test fails by calling fail (or by exiting non-zero: scripts use set -e).
set -eu
PATH="$MT_BIN:$MT_TESTBIN:$PATH"
# The shell tools of the tests read numbers and order text by the locale:
# where the decimal mark is a comma, mawk reads perf's "380.583" as 380 and
# sort -n as 380; collation orders and even merges lines (sort -u, join).
# The tests' text processing is done in the C locale, whatever the user's;
# the tools tested never read the locale (no setlocale).
LC_ALL=C
export LC_ALL
CASES="$MT_TOP/tests/cases"

# fd 9: the test's own standard error, where fail writes even inside a
# function whose stderr the caller redirected (expect_exit 2 cmd 2>err)
exec 9>&2
fail() {
	echo "FAIL: $*" >&9
	exit 1
}

# expect_exit CODE CMD...: run CMD, fail unless it exits with CODE.
expect_exit() {
	want=$1; shift
	set +e; "$@"; got=$?; set -e
	[ "$got" -eq "$want" ] || fail "'$*' exited $got, expected $want"
}

# same_file EXPECTED ACTUAL: fail with a diff if they differ.
same_file() {
	diff -u "$1" "$2" >&2 || fail "$2 differs from $1"
}

# contains FILE TEXT: fail unless FILE contains the fixed string TEXT.
contains() {
	grep -qF -- "$2" "$1" || { sed 's/^/    | /' "$1" >&2; fail "$1 does not contain '$2'"; }
}

# synopsis MANPAGE: the SYNOPSIS of an mdoc page as one line of text, the
# way --help prints it after "usage: ".
synopsis() {
	sed -n '/^\.Sh SYNOPSIS/,/^\.Sh /p' "$1" | sed '1d;$d' | sed \
		-e 's/\\-/-/g' \
		-e 's/^\.Nm //' \
		-e 's/^\.Op Fl \([^ ]*\) Ar \(.*\)/[-\1 \2]/' \
		-e 's/^\.Op Fl \(.*\)/[-\1]/' \
		-e 's/^\.Op Ar \(.*\)/[\1]/' \
		-e 's/^\.Fl /-/' \
		-e 's/^\.Ar //' | tr '\n' ' ' | sed 's/ $//'
	echo
}

# span_count DUMP NAME: how many function SPANs named NAME mt-dump printed.
span_count() {
	awk -v n="name=\"$2\"" '/ SPAN / && /kind=function/ { for (i = 1; i <= NF; i++) if ($i == n) c++ } END { print c + 0 }' "$1"
}

# repeat_check MARKS TRUTH MODE K C: tests/progs/marks (-k K -c C) under
# --repeat 0, its snapshots as lines "snapshot N", "trigger T" and "step T"
# (T in ns, in the order written), against what the program printed
# ("mark I STEPS T"): K snapshots numbered from 0, each trigger between
# the times printed around its call, each snapshot holding (MODE stream)
# the step calls since the mark before or (dir) the (I+1)*C so far, none
# after its trigger nor (stream) of the snapshot before. Prints what is
# wrong, and fails then.
repeat_check() {
	awk -v K="$4" -v C="$5" -v mode="$3" '
	FNR == NR { at[$2] = $4; steps[$2] = $3; next }
	$1 == "snapshot" { n++; if ($2 != n - 1) { print "snapshot numbered " $2 " at " n; bad = 1 } next }
	$1 == "trigger" { hit[n] = $2; next }
	$1 == "step" { ev[n, ++c[n]] = $2 }
	END {
		if (n != K) { print n " snapshots, not " K; exit 1 }
		for (i = 1; i <= K; i++) {
			if (!(at[i - 1] < hit[i] && (i == K || hit[i] < at[i]))) {
				print "trigger " i - 1 " at " hit[i] ", the program called it at " at[i - 1]; bad = 1 }
			want = mode == "stream" ? steps[i - 1] : i * C
			if (c[i] != want) { print "snapshot " i - 1 ": " c[i] " step calls, not " want; bad = 1 }
			for (j = 1; j <= c[i]; j++) {
				if (ev[i, j] > hit[i]) { print "snapshot " i - 1 ": a call after its trigger"; bad = 1; break }
				if (mode == "stream" && i > 1 && ev[i, j] <= hit[i - 1]) {
					print "snapshot " i - 1 ": a call of the snapshot before"; bad = 1; break }
			}
		}
		exit bad
	}' "$2" "$1"
}

# nested DUMP OUTER INNER PER: every INNER span lies in an OUTER span of
# its thread, one level deeper, and every OUTER span holds PER of them.
nested() {
	awk -v on="\"$2\"" -v wn="\"$3\"" -v per="$4" '
	function field(k,   i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
	/ SPAN / && /kind=function/ {
		name = field("name"); s = field("start") + 0; e = field("end") + 0
		d = field("depth") + 0; t = field("tid")
		if (name == on) { no++; os[no] = s; oe[no] = e; od[no] = d; ot[no] = t }
		if (name == wn) { nw++; ws[nw] = s; we[nw] = e; wd[nw] = d; wt[nw] = t }
	}
	END {
		for (i = 1; i <= nw; i++) {
			ok = 0
			for (j = 1; j <= no && !ok; j++)
				if (ot[j] == wt[i] && os[j] <= ws[i] && we[i] <= oe[j] && od[j] == wd[i] - 1) { ok = 1; inside[j]++ }
			if (!ok) { print wn " span " i " is in no " on " span" > "/dev/stderr"; exit 1 }
		}
		for (j = 1; j <= no; j++)
			if (inside[j] != per) { print on " span " j " holds " inside[j] + 0 " " wn " spans" > "/dev/stderr"; exit 1 }
	}' "$1"
}

# need_uprobes: skip (exit 0 with a note) where uprobes cannot be made.
need_uprobes() {
	[ -r /sys/bus/event_source/devices/uprobe/type ] ||
		{ echo "skip: no uprobe PMU in this kernel" >&2; exit 0; }
	[ "$(id -u)" -eq 0 ] || { echo "skip: uprobes need root (CAP_SYS_ADMIN)" >&2; exit 0; }
}

# wait_for COND-CMD...: retry for up to 5 s until the command succeeds.
wait_for() {
	_i=0
	until "$@"; do
		_i=$((_i + 1))
		[ $_i -lt 100 ] || return 1
		sleep 0.05
	done
}

# wait_secs N CMD...: until CMD succeeds, N seconds at most
wait_secs() {
	_n=$(($1 * 10))
	shift
	_j=0
	until "$@"; do
		_j=$((_j + 1))
		[ $_j -lt $_n ] || return 1
		sleep 0.1
	done
}

# attach NAME PID [OPTION...]: mt-record --backend patch -p PID OPTION...
# -o NAME.mt in the background (its standard error NAME.err), until it
# records (30 s at most: an attach beside busy threads on 2 cores takes
# seconds); sets rec to its pid. Every call recorded (--max-overhead none,
# unless OPTION says otherwise): the tests count them.
attach() {
	_name=$1 _pid=$2
	shift 2
	rm -f "$_name.err" "$_name.mt"
	mt-record --backend patch -p "$_pid" --max-overhead none "$@" -o "$_name.mt" 2>"$_name.err" &
	rec=$!
	wait_secs 30 grep -q "^mt-record: recording $_pid with patch" "$_name.err" 2>/dev/null ||
		{ cat "$_name.err" >&2; kill $rec; fail "$_name: mt-record -p $_pid is not recording"; }
}

# The pty helpers: one command at a time on a terminal of its own, keys
# typed into it as a user types them (script(1), tests/pty-run).
#
# pty_start NAME OUT CMD...: start CMD (no shell) on a new 24x80 pty, as
# its foreground job: its standard output in OUT ("-": the pty), its
# standard error the pty, everything the pty shows in NAME.log; when it
# ends, NAME.rc says how (tests/pty-run). Under timeout 300: a run that
# never ends is killed, and pty_end fails. Sets pty_sid, CMD's session.
pty_start() {
	command -v script >/dev/null ||
		fail "script(1) is needed (util-linux, scripts/deps.sh)"
	pty_name=$1
	pty_sid=0
	rm -f "$1.in" "$1.log" "$1.sid" "$1.rc"
	mkfifo "$1.in"
	_c=
	for _a in "$MT_TOP/tests/pty-run" "$@"; do
		_c="$_c '$(printf %s "$_a" | sed "s/'/'\\\\''/g")'"
	done
	SHELL=/bin/sh timeout 300 script -qec "$_c" /dev/null <"$1.in" >"$1.log" 2>&1 &
	pty_pid=$!
	exec 8>"$1.in"
	pty_wait test -s "$1.sid" || pty_fail "the command never started"
	pty_sid=$(cat "$1.sid")
}

# pty_type KEYS: type KEYS (a printf format: '\r' Enter, '\033' Esc,
# '\003' Ctrl+C) into the pty.
pty_type() {
	# shellcheck disable=SC2059 # the keys are the format
	printf "$1" >&8
}

# pty_wait COND-CMD...: retry for up to 60 s until the command succeeds
# (starting fzf, or a recording's uprobes, can take tens of seconds under
# the sanitizers on a loaded machine).
pty_wait() {
	_i=0
	until "$@"; do
		_i=$((_i + 1))
		[ $_i -lt 1200 ] || return 1
		sleep 0.05
	done
}

# pty_text: what the pty showed, its escape sequences and CRs taken out.
pty_text() {
	sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1b[()][A-Z0-9]//g; s/\x1b[=>]//g; s/\r//g' \
		"$pty_name.log"
}

# pty_shows TEXT: whether the pty showed TEXT (a fixed string).
pty_shows() {
	pty_text | grep -qF -e "$1"
}

# pty_ps: the processes of the pty's session, "pid pgid tpgid stat args".
pty_ps() {
	ps -e -o sid=,pid=,pgid=,tpgid=,stat=,args= |
		awk -v s="$pty_sid" '$1 == s { $1 = ""; sub(/^ /, ""); print }'
}

# pty_fail WHY: fail saying WHY, what the pty showed and its processes,
# after killing them.
pty_fail() {
	_ps=$(pty_ps)
	kill "$pty_pid" 2>/dev/null || :
	for _p in $(pty_ps | awk '{ print $1 }'); do
		kill -9 "$_p" 2>/dev/null || :
	done
	exec 8>&-
	fail "$pty_name: $1; the pty showed: $(pty_text | tail -n 5); its processes: $_ps"
}

# pty_end: wait for the command to end (NAME.rc), stop typing, wait for
# script(1); fail when it never ends or a process of its session is left
# (after 5 s).
pty_end() {
	pty_wait test -s "$pty_name.rc" || pty_fail "the command did not end"
	exec 8>&-
	wait "$pty_pid" || :
	wait_for pty_none || fail "$pty_name: left running: $(pty_ps)"
}

# pty_fzf_up PROMPT: wait until fzf shows PROMPT on the pty; then it
# must have the terminal (its own process group, the foreground one) and
# no process of the session may be stopped (state T: SIGTTIN, SIGTTOU).
pty_fzf_up() {
	pty_wait pty_shows "$1" || pty_fail "fzf never showed its prompt"
	pty_ps >pty.ps
	awk '$4 ~ /^T/ { bad = 1 } END { exit !bad }' pty.ps && pty_fail "stopped"
	awk '$5 ~ /fzf$/ && $2 == $3 && $2 == $1 { ok = 1 } END { exit !ok }' pty.ps ||
		pty_fail "fzf does not have the terminal"
	:
}

# pty_pick QUERY: type QUERY into fzf, wait until it shows one match
# ("1/N"), press Enter.
pty_pick() {
	pty_type "$1"
	pty_wait pty_one_match || pty_fail "fzf never showed one match for $1"
	pty_type '\r'
}

# pty_one_match: whether fzf's count of matches showed 1 (1/N).
pty_one_match() {
	pty_text | grep -Eq '(^|[^0-9])1/[0-9]+'
}

# pty_rc WANT: fail unless the command ended as WANT ("status=N fg=1").
pty_rc() {
	[ "$(cat "$pty_name.rc")" = "$1" ] || pty_fail "ended $(cat "$pty_name.rc"), not $1"
}

# pty_said [LINE]: fail unless the tools' messages on the pty (mt: ...,
# mt-TOOL: ...) are LINE alone, or none without LINE.
pty_said() {
	pty_text | grep -oE 'mt(-[a-z]+)?: .*' >pty.said || :
	if [ $# -gt 0 ]; then printf '%s\n' "$1"; fi >pty.want
	cmp -s pty.want pty.said ||
		fail "$pty_name: said $(cat pty.said), not ${1:-nothing}"
}

# pty_none: whether no process is left in the pty's session.
pty_none() {
	[ -z "$(pty_ps)" ]
}

# wait_mapped PID FILE: wait (up to 5 s) until process PID has FILE mapped:
# a program started with & has exec'd it (before, /proc/PID is the forked
# shell's), a library once the loader has mapped it. A recorder attached
# with -p before that finds the wrong program or no such library.
wait_mapped() {
	_f=$(readlink -f "$2")
	wait_for awk -v f="$_f" '$6 == f { m = 1 } END { exit !m }' "/proc/$1/maps" ||
		fail "process $1 never mapped $_f"
}

# first_cpu: the first CPU this process may run on (taskset -c 0 fails
# where CPU 0 is not ours: another taskset, a container's cpuset)
first_cpu() {
	sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status
}

# dump_spans MT: the spans (not the gaps) of an mt stream, one a line,
# sorted: "pid tid start end name", times in ns as integers (mt-dump's
# "380.583" without its point). The form of gen-perf-script's truth that
# clip_truth prints, for the slice tests to compare.
dump_spans() {
	mt-dump "$1" | awk '/ SPAN / && !/kind=gap/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		name = $0; sub(/.* name="/, "", name); sub(/" dso=.*/, "", name)
		s = f["start"]; e = f["end"]; sub(/\./, "", s); sub(/\./, "", e)
		printf "%s %s %.0f %.0f %s\n", f["pid"], f["tid"], s, e, name }' | sort
}

# clip_truth TRUTH BASE FROM TO [MIN]: the spans of gen-perf-script's
# --truth file TRUTH that a window FROM..TO (ns after BASE) keeps, cut to
# it, those shorter than MIN ns left out, sorted as dump_spans prints them.
clip_truth() {
	awk -F'\t' -v lo=$(($2 + $3)) -v hi=$(($2 + $4)) -v min="${5:-0}" '{
		$4 += 0; $5 += 0
		s = $4; e = $5
		if (e - s < min) next
		if (s >= hi || (s < lo && e <= lo)) next
		if (s < lo) s = lo
		if (e > hi) e = hi
		printf "%s %s %.0f %.0f %s\n", $1, $2, s, e, $7 }' "$1" | sort
}

# dump_calls STREAM: the spans of an mt stream as between_truth reads
# them, tab-separated "pid tid start end called name": called is 0 for a
# span flagged INFERRED or CLIPSTART (no call of it was seen), else 1.
dump_calls() {
	mt-dump "$1" | awk -v OFS='\t' '/ SPAN / && !/kind=gap/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		name = $0; sub(/.* name="/, "", name); sub(/" dso=.*/, "", name)
		s = f["start"]; e = f["end"]; sub(/\./, "", s); sub(/\./, "", e)
		c = f["flags"] ~ /INFERRED|CLIPSTART/ ? 0 : 1
		printf "%s\t%s\t%.0f\t%.0f\t%d\t%s\n", f["pid"], f["tid"], s, e, c, name }'
}

# between_truth START STOP SPANS [LO HI]: what mt-slice --between START
# STOP keeps of the spans in SPANS (tab-separated "pid tid start end called
# name", as dump_calls prints them), worked out here on its own: the calls
# (called 1) of a name matching START (awk regex; a name matching both is a
# START) or STOP are sorted by time, a STOP before a START at equal times;
# a STOP after a START ends a region [START, STOP), of two STARTs the later
# one counts; the regions are cut to [LO, HI) (absolute ns) and merged
# where they touch (between_regions: into the file regions, "from to" a
# line); each span is cut to each region it meets (half-open; a zero-length
# span inside a region) (between_cut REGIONS SPANS). Prints the pieces as
# dump_spans does.
between_truth() {
	between_regions "$@"
	between_cut regions "$3"
}

between_regions() {
	awk -F'\t' -v a="$1" -v b="$2" '$5 == 1 {
		if ($6 ~ a) printf "%.0f 0\n", $3
		else if ($6 ~ b) printf "%.0f 1\n", $3 }' "$3" |
	sort -k1,1n -k2,2nr |
	awk -v lo="${4:-0}" -v hi="${5:-1e300}" '
	$2 == 0 { st = $1; open = 1; next }
	open {
		open = 0; f = st; t = $1
		if (f < lo + 0) f = lo
		if (t > hi + 0) t = hi
		if (f >= t) next
		if (n && to[n] == f) to[n] = t
		else { n++; from[n] = f; to[n] = t }
	}
	END { for (i = 1; i <= n; i++) printf "%.0f %.0f\n", from[i], to[i] }' >regions
}

between_cut() {
	awk -F'\t' 'NR == FNR { split($0, r, " "); n++; f[n] = r[1] + 0
		t[n] = r[2] + 0; next }
	{
		s = $3 + 0; e = $4 + 0
		for (i = 1; i <= n; i++) {
			if (t[i] <= s || !(f[i] < e || f[i] <= s)) continue
			ps = s < f[i] ? f[i] : s
			pe = e > t[i] ? t[i] : e
			printf "%s %s %.0f %.0f %s\n", $1, $2, ps, pe, $6
		}
	}' "$1" "$2" | sort
}

# fxt_slices FXT: the slices Perfetto would make of FXT (fxt-check
# --slices), sorted: "pid tid start end depth name"; fails if fxt-check
# finds a problem. Leaves the files sl and check behind.
fxt_slices() {
	fxt-check --slices "$1" >sl 2>check || { cat check >&2; fail "$1: fxt-check"; }
	sort sl
}

# note WHAT FILE: record a failure to report at the end: print WHAT and the
# first lines of FILE, add WHAT to $bad (the caller fails if it is set).
note() {
	echo "$1:" >&2
	sed 's/^/    | /' "$2" | head -40 >&2
	bad="$bad; $1"
}

# group_ends PERF: how many trace ends (tr end, tr end syscall) of the perf
# text PERF follow a call in their timestamp group and end it (the thread's
# next line has another time): the pseudo-spans coarse times make.
group_ends() {
	awk '
	{
		for (i = 1; i < NF; i++)
			if ($i ~ /^[0-9]+\/[0-9]+$/) { tid = $i; tm = $(i + 1); break }
		if (pend[tid] && tm != last[tid])
			n++
		pend[tid] = 0
		if (tm != last[tid])
			called[tid] = 0
		last[tid] = tm
		if ($0 ~ /branches[^ ]*: +call /)
			called[tid] = 1
		else if ($0 ~ /branches[^ ]*: +tr end / && called[tid])
			pend[tid] = 1
	}
	END { print n + 0 }' "$1"
}

# report_truth DUMP [KINDS]: what mt-report should print for the mt-dump
# text DUMP, found without a stack: per function (spans of kinds matching
# the regex KINDS, function by default; every span without a name is
# "[unknown]"), "name calls total self min median p99 max", sorted by name.
# A call's parent is the deepest counted span of its thread that contains
# it; its total counts unless a span of its name contains it; quantiles by
# nearest rank. Quadratic per thread: for small traces.
report_truth() {
	mt-dump "$1" | awk -v kinds="^(${2:-function})\$" '/ SPAN / {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		if (f["kind"] !~ kinds) next
		name = "[unknown]"
		if ($0 ~ / name="/) { name = $0; sub(/.* name="/, "", name); sub(/" dso=.*/, "", name) }
		s = f["start"]; e = f["end"]; sub(/\./, "", s); sub(/\./, "", e)
		n++; th[n] = f["pid"] "/" f["tid"]; st[n] = s + 0; en[n] = e + 0
		dp[n] = f["depth"] + 0; nm[n] = name
	}
	function inside(c, p) {
		return th[c] == th[p] && st[p] <= st[c] && en[c] <= en[p] &&
			dp[p] < dp[c] && !(st[c] == en[p] && st[p] < en[p])
	}
	END {
		for (c = 1; c <= n; c++) {
			d = en[c] - st[c]; par = 0; rec = 0
			for (p = 1; p <= n; p++) {
				if (p == c || !inside(c, p)) continue
				if (nm[p] == nm[c]) rec = 1
				if (!par || dp[p] > dp[par]) par = p
			}
			calls[nm[c]]++; self[nm[c]] += d; kid[c] += 0
			if (!rec) total[nm[c]] += d
			if (par) kid[par] += d
			print nm[c] "\t" d > "truth.durs"
		}
		for (c = 1; c <= n; c++) {
			d = en[c] - st[c] - kid[c]
			self[nm[c]] += (d > 0 ? d : 0) - (en[c] - st[c])
		}
		for (x in calls) printf "%s\t%d\t%.0f\t%.0f\n", x, calls[x], total[x], self[x] > "truth.sums"
	}'
	sort -t '	' -k1,1 -k2,2n truth.durs | awk -F'\t' '
	function flush() {
		if (cur == "") return
		printf "%s\t%.0f\t%.0f\t%.0f\t%.0f\n", cur, v[1], v[int((k + 1) / 2)],
			v[int((k * 99 + 99) / 100)], v[k]
	}
	$1 != cur { flush(); cur = $1; k = 0 }
	{ v[++k] = $2 }
	END { flush() }' >truth.q
	sort -t '	' -k1,1 truth.sums >truth.s
	join -t '	' truth.s truth.q | tr '\t' ' '
	rm -f truth.durs truth.sums truth.q truth.s
}

# report_close WANT GOT: report_truth lines agree with mt-report's as its
# sketch allows (docs/mt-report.1): names, calls, total, self, min and max
# exact, median and p99 within 1/128 of the truth.
report_close() {
	awk 'NR == FNR { w[FNR] = $0; n = FNR; next }
	function name(s,  i) { for (i = 0; i < 7; i++) sub(/ [^ ]*$/, "", s); return s }
	function far(g, t) { return (g > t ? g - t : t - g) * 128 > t }
	{
		if (!(FNR in w)) { print "extra: " $0; bad = 1; next }
		k = split(w[FNR], t, " ")
		if (name(w[FNR]) != name($0) || NF != k) { print "want: " w[FNR]; print "got:  " $0; bad = 1; next }
		for (i = NF - 6; i <= NF; i++)
			if (i == NF - 2 || i == NF - 1 ? far($i, t[i]) : $i != t[i]) {
				print "want: " w[FNR]; print "got:  " $0; bad = 1; next
			}
	}
	END { if (FNR != n) { print "lines: want " n ", got " FNR; bad = 1 } exit bad }' "$1" "$2" ||
		fail "$2 differs from $1 beyond the sketch's bound"
}

# report_json JSON: mt-report --json's output as report_truth prints it
# (sorted by name; a name's \u00XX escapes as the bytes), checking that it
# parses.
report_json() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for f in sorted(d["functions"], key=lambda f: f["name"].encode("latin-1")):
    print(f["name"], *(f[k] for k in ("calls", "total_ns", "self_ns",
          "min_ns", "median_ns", "p99_ns", "max_ns")))' "$1" | sort
}

# help_usage TOOL [ARGS...]: the usage lines of TOOL ARGS --help, after
# checking that it ends by naming the manual (a blank line, then "The
# manual: man TOOL (docs/TOOL.1 in the source tree)")
help_usage() {
	_t=$1
	shift
	"$_t" "$@" --help >help.out 2>help.err || fail "$_t $* --help: exit $?"
	[ ! -s help.err ] || fail "$_t --help wrote to stderr: $(cat help.err)"
	[ "$(tail -n 1 help.out)" = "The manual: man $_t (docs/$_t.1 in the source tree)" ] ||
		fail "$_t --help does not name the manual: $(tail -n 1 help.out)"
	[ -z "$(tail -n 2 help.out | head -n 1)" ] || fail "$_t --help: no blank line before the manual"
	sed '/^$/,$d' help.out
}

# vdso_norm FILE: FILE with the symbol of every [vdso] frame replaced by
# "VDSO": perf names vDSO code from the build-id cache or its own process's
# vDSO, and a second decode of the same perf.data (mt-record -i, which
# reads no cache) sometimes prints [unknown] where the first printed
# __vdso_clock_gettime+0x1 (seen under load): not what -i is tested for
vdso_norm() {
	sed 's/^\([[:space:]]*[0-9a-f]*\) .* (\[vdso\])$/\1 VDSO ([vdso])/' "$1"
}

# patch_records STREAM: each BRANCH record of an mt-record --backend patch
# stream as "TID call|return NAME TIME" (a frame cut is a return)
patch_records() {
	mt-dump "$1" | sed -n 's/^.* BRANCH time=\([0-9.]*\) pid=[0-9]* tid=\([0-9]*\) .* kind=\(call\|return\) .*"\([^"]*\)"+0x0 .*$/\2 \3 \4 \1/p'
}
