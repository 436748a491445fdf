#!/bin/sh
# mt-record --backend sample -- CMD whose sample ring wraps (issue 15): the
# COMM and MMAP records of the exec must survive the overwritten ring, so the
# program's own frames keep their symbols and the comm its name (not
# "[unknown]" and ":PID"). Dwarf call graphs copy 8 KiB of stack a sample,
# so perf's default ring holds some 60 samples and a run of ~1000 wraps it.
. "$MT_TOP/tests/lib.sh"
command -v perf >/dev/null 2>&1 || fail "perf not installed (make deps installs linux-perf)"
prog=$MT_TESTBIN/progs/stopper

# The ring must have wrapped: the kept samples start long after the exec
# (the gap exceeds the span of the samples themselves, which a whole run
# would not). A loaded machine gives the program less CPU, so fewer
# samples: then the run is made longer, up to 64 times (once under ASan on
# a busy CI run, three lengths were not enough).
wrapped=0
for iters in 20000000 80000000 320000000 1280000000; do
	rm -rf kept
	mt-record --backend sample --frequency 5000 --call-graph dwarf --keep kept \
		-- "$prog" -n $iters >s.txt 2>err || { cat err >&2; fail "mt-record failed"; }
	perf script -i kept/perf.data --show-task-events -F comm,tid,time,event \
		>task.txt 2>/dev/null || fail "perf script --show-task-events failed"
	if awk '/PERF_RECORD_COMM exec: / { sub(":$", "", $3); e = $3 }
	     / cpu-clock/ { sub(":$", "", $3); if (f == "") f = $3; l = $3 }
	     END { if (e == "" || f == "") exit 2; exit !(f - e > l - f) }' task.txt; then
		wrapped=1
		break
	fi
done
[ "$wrapped" = 1 ] ||
	fail "the sample ring did not wrap (or no exec / samples): $(grep -v cpu-clock task.txt | head -3)"

n=$(grep -c ' cpu-clock' s.txt)
[ "$n" -gt 10 ] || fail "only $n samples"
[ "$(grep ' cpu-clock' s.txt | grep -vc '^ *stopper ')" -eq 0 ] ||
	fail "a sample with another comm: $(grep ' cpu-clock' s.txt | grep -v '^ *stopper ' | head -1)"
# the frames in stopper have symbols; a sample whose frames all lack a dso
# (what an unknown exec gives every sample) is at most a stray one in ten
# (a dwarf unwind may end in one such frame past the stack's last: not that)
grep 'progs/stopper)' s.txt | grep -q '\[unknown\]' &&
	fail "unsymbolized frames of stopper: $(grep 'progs/stopper)' s.txt | grep '\[unknown\]' | head -1)"
grep -q ' work+0x[0-9a-f]* (.*progs/stopper)' s.txt || fail "no work frame"
u=$(awk '/ cpu-clock/ { if (in_s && all) u++; in_s = 1; all = 1; next }
	in_s && NF { if ($0 !~ / \[unknown\] \(\[unknown\]\)$/) all = 0 }
	END { if (in_s && all) u++; print u + 0 }' s.txt)
[ "$u" -le $((n / 10)) ] || fail "$u of $n samples have no frame with a dso"

mt-script-parse s.txt | mt-stacks | mt-dump >s.dump
[ "$(span_count s.dump work)" -gt 0 ] || fail "no work span"
[ "$(span_count s.dump outer)" -gt 0 ] || fail "no outer span"

# --snapshot-size sizes that ring: 4 MiB keeps several times the samples
mt-record --backend sample --frequency 5000 --call-graph dwarf --snapshot-size 4M \
	-- "$prog" -n 20000000 >big.txt 2>err || { cat err >&2; fail "mt-record --snapshot-size 4M failed"; }
nb=$(grep -c ' cpu-clock' big.txt)
[ "$nb" -gt $((n * 3)) ] || fail "--snapshot-size 4M kept $nb samples, the default ring $n"
