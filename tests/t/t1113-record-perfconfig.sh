#!/bin/sh
# perf runs without the user's perfconfig: a ~/.perfconfig (or a
# PERF_CONFIG) whose [call-graph] order = caller would print every sampled
# stack upside down, and whose [buildid] dir would receive perf's build-id
# cache, changes neither mt-record's text (nor -i's) nor that directory,
# and nothing is written into HOME: the cache goes into the private
# directory (--keep keeps it). MT_PERF_CONFIG names a perfconfig that perf
# does read; a missing one is refused. --dry-run shows the environment.
. "$MT_TOP/tests/lib.sh"
command -v perf >/dev/null 2>&1 || fail "perf not installed (make deps installs linux-perf)"
prog=$MT_TESTBIN/progs/stopper
mkdir tmp home
export TMPDIR="$PWD/tmp"
cat >home/.perfconfig <<EOF2
[call-graph]
	order = caller
[buildid]
	dir = $PWD/cache
[record]
	build-id = cache
[report]
	children = true
[annotate]
	hide_src_code = true
EOF2
cp home/.perfconfig hostile.cfg

# stacks the right way up: main is never deeper than work (with order =
# caller perf prints main first, where mt-script-parse reads the leaf)
upright() {
	mt-script-parse "$1" | mt-stacks | mt-dump >"$1.dump"
	[ "$(span_count "$1.dump" work)" -gt 0 ] || fail "$1: no work span"
	awk '/ SPAN / && /kind=function/ {
		d = ""; n = ""
		for (i = 1; i <= NF; i++) { if ($i ~ /^depth=/) d = substr($i, 7) + 0; if ($i ~ /^name=/) n = $i }
		if (n == "name=\"main\"" && (md == "" || d > md)) md = d
		if (n == "name=\"work\"" && (wd == "" || d < wd)) wd = d
	} END { exit !(md != "" && wd != "" && md < wd) }' "$1.dump"
}

HOME=$PWD/home PERF_CONFIG=$PWD/hostile.cfg mt-record --backend sample --frequency 5000 \
	--keep kept -- "$prog" -n 2000000 >s.txt 2>err || { cat err >&2; fail "mt-record failed"; }
upright s.txt || fail "the stacks are upside down: perf read the user's perfconfig"
[ ! -e cache ] || fail "perf wrote its build-id cache into [buildid] dir: $(ls cache)"
[ "$(ls -A home)" = ".perfconfig" ] || fail "written into HOME: $(ls -A home)"
[ -d kept/.debug ] || fail "no build-id cache in the private directory"
[ -z "$(ls tmp)" ] || fail "left in TMPDIR: $(ls tmp)"
HOME=$PWD/home PERF_CONFIG=$PWD/hostile.cfg mt-record -i kept/perf.data >d.txt 2>err ||
	{ cat err >&2; fail "mt-record -i failed"; }
grep -v '^# mt: ' s.txt | vdso_norm /dev/stdin >s.perf
vdso_norm d.txt >d.norm
same_file s.perf d.norm
[ ! -e cache ] || fail "-i: perf wrote its build-id cache into [buildid] dir"

# MT_PERF_CONFIG is read: the same file turns the stacks over and fills
# the cache there
MT_PERF_CONFIG=$PWD/hostile.cfg mt-record --backend sample --frequency 5000 -- \
	"$prog" -n 2000000 >m.txt 2>err || { cat err >&2; fail "mt-record with MT_PERF_CONFIG failed"; }
upright m.txt && fail "MT_PERF_CONFIG was not read"
[ -d cache ] || fail "MT_PERF_CONFIG: no build-id cache in its [buildid] dir"
expect_exit 3 env MT_PERF_CONFIG=$PWD/no-such.cfg mt-record --backend sample -- "$prog" >out 2>err
contains err "MT_PERF_CONFIG $PWD/no-such.cfg: No such file or directory"

mt-record --dry-run --backend sample -p $$ >dry
contains dry "PERF_CONFIG=/dev/null HOME=DIR perf record -o DIR/perf.data "
contains dry "PERF_CONFIG=/dev/null HOME=DIR perf script -i DIR/perf.data "

# the private directory holds perf's build-id cache, symbolic links to
# directories among it: its removal unlinks them, never follows them
mkdir victim
: >victim/file
: >err
"$prog" -l -u 1000 >/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
mt-record --backend sample -p "$pid" >l.txt 2>err &
rec=$!
wait_for grep -qs recording err || fail "did not start: $(cat err)"
set -- tmp/mt-record.*
[ -d "$1" ] || fail "no private directory in tmp: $(ls tmp)"
ln -s ../../victim "$1/link"
kill -INT $rec
wait $rec || { cat err >&2; fail "mt-record -p exited $?"; }
[ -e victim/file ] || fail "removing the private directory followed a link out of it"
[ -z "$(ls tmp)" ] || fail "left in TMPDIR: $(ls -R tmp)"
