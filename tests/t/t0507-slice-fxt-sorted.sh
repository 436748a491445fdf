#!/bin/sh
# mt-slice reads an FXT file as Perfetto does, sorted by (time, file order)
# before begins and ends are paired: on a file laid out as magic-trace lays
# out its own (fxt-mtrace: the begins of the frames open at the start of a
# thread, with inferred_start_time, after all its other events), options
# that keep everything give back the same slices (name, thread, start, end,
# depth); a window holds exactly the input's slices clipped to it, at their
# depth; --min-duration and --max-depth keep exactly the slices they name.
# A slice that ends exactly at --from is left out, even with an instant at
# --from before its end in the file.
. "$MT_TOP/tests/lib.sh"

gen-perf-script --lines 30000 --seed 5 --threads 3 --start-depth 4 --no-errors |
	mt-script-parse | mt-stacks --no-spread | mt-fxt >t.fxt
fxt-check --slices t.fxt 2>/dev/null | sort -n -s -k1,1 -k2,2 -k3,3 | fxt-mtrace >mt.fxt
fxt-check mt.fxt >check || { cat check >&2; fail "fxt-mtrace writes a bad file"; }
grep -a -q inferred_start_time mt.fxt || fail "no inferred frame in the file"

fxt_slices mt.fxt >all
n=$(awk '$5 == 0' all | wc -l)
[ "$n" -lt "$(wc -l <all)" ] || fail "no nesting in the file"

for o in "--from 0 --to 1s" "--min-duration 0" "--max-depth 1000000" "--match ." \
	"--abs --from 0" "--duration 1s" "--from 0"; do
	# shellcheck disable=SC2086
	mt-slice $o mt.fxt >o.fxt
	fxt_slices o.fxt >got
	same_file all got
done

base=$(awk 'NR == 1 || $3 < m { m = $3 } END { print m }' all)
# the input's slices clipped to [base+FROM, base+TO), at their depth
clip() {
	awk -v lo=$(($base + $1)) -v hi=$(($base + $2)) -v min="${3:-0}" '{
		s = $3 + 0; e = $4 + 0
		if (e - s < min) next
		if (s >= hi || (s < lo && e <= lo)) next
		if (s < lo) s = lo
		if (e > hi) e = hi
		$3 = sprintf("%.0f", s); $4 = sprintf("%.0f", e); print }' all | sort
}
for w in "1000 5000" "0 2000" "7000 9000000" "250000 600000"; do
	set -- $w
	mt-slice --from "${1}ns" --to "${2}ns" mt.fxt >w.fxt
	clip "$1" "$2" >want
	[ -s want ] || fail "window $w: empty"
	fxt_slices w.fxt >got
	same_file want got
done
mt-slice --min-duration 200ns mt.fxt >long.fxt 2>err
clip 0 999999999999 200 >want
fxt_slices long.fxt >got
same_file want got
for d in 1 3 6; do
	mt-slice --max-depth $d mt.fxt >d.fxt
	awk -v d=$d '$5 < d' all >want
	fxt_slices d.fxt >got
	same_file want got
done

# a slice [100, 200) and an instant at 200 written before its end: cut
# at --from 200ns, only the enclosing root and the instant are left
printf '7 7 50 300 0 root\n7 7 100 200 1 A\n7 7 200 i 2 mark\n' | fxt-mtrace >i.fxt
fxt_slices i.fxt >got
printf '7 7 100 200 1 A\n7 7 200 200 2 mark\n7 7 50 300 0 root\n' | sort >want
same_file want got
mt-slice --abs --from 200ns i.fxt >o.fxt
fxt_slices o.fxt >got
printf '7 7 200 200 1 mark\n7 7 200 300 0 root\n' >want
same_file want got
