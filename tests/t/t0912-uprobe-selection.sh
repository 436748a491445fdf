#!/bin/sh
# The t09xx tests drive the uprobe engine through uprobe-rec, which chooses
# functions with mt-record's selection (mt-record/functions.c): for every
# --functions regex they use (and one naming every function of the
# executable), uprobe-rec --list names the
# same functions of the executable as mt-record --backend uprobe --text probes
# (its "# mt: entry-only" lines on a Go program list every probed
# function, of its libraries too). Without
# --functions, mt-record probes the program's own functions: those of its
# symbol table (nm), one per address, but for the ones starting with '_',
# frame_dummy and [de]register_tm_clones; uprobe-rec's default regex is
# '.', which probes them all.
. "$MT_TOP/tests/lib.sh"
need_uprobes
prog=$MT_TESTBIN/progs/outer-go

# mt_selection [OPTIONS]: the functions of prog that mt-record probes,
# sorted (with --functions it probes the libraries' too: t1122)
nm --defined-only "$prog" | awk '{ print $3 }' | sort -u >names.txt
mt_selection() {
	mt-record --backend uprobe --text "$@" -- "$prog" -n 1 >rec.txt 2>err ||
		{ cat err >&2; fail "mt-record $* failed"; }
	sed -n 's/^# mt: entry-only //p' rec.txt | grep -Fx -f names.txt | sort
}

# broad: every function name of the executable (a regex such as '.' would
# probe up to 256 of its libraries' functions too, slow to take down)
all_re="^($(nm --defined-only "$prog" | awk '$2 == "T" || $2 == "t" { print $3 }' |
	sed 's/[.]/\\./g' | paste -sd '|'))\$"
for re in '^(work|outer)$' '^work$' '^deep$' '^main$' "$all_re"; do
	mt_selection --functions "$re" >mt.txt
	[ -s mt.txt ] || fail "--functions '$re': mt-record probed nothing"
	uprobe-rec --list --functions "$re" -- "$prog" >rec.txt 2>err ||
		{ cat err >&2; fail "uprobe-rec --list --functions '$re' failed"; }
	sort rec.txt >up.txt
	diff -u mt.txt up.txt >&2 ||
		fail "--functions '$re': uprobe-rec probes other functions than mt-record"
done

# the default: the symbol table's functions, one name per address, less
# the toolchain's
nm --defined-only "$prog" | awk '$2 == "T" || $2 == "t"' | sort -s -k1,1 |
	awk '$1 != last { print $3; last = $1 }' | sort >all.txt
[ -s all.txt ] || fail "nm found no function in $prog"
grep -v -e '^_' -e '^frame_dummy$' -e 'register_tm_clones' all.txt >want.txt
grep -qx work want.txt || fail "nm does not list work"
mt_selection >got.txt
same_file want.txt got.txt
uprobe-rec --list -- "$prog" | sort >up.txt
same_file all.txt up.txt
