#!/bin/sh
# An option the chosen backend does not use is not silently ignored: one
# line each on stderr naming the option, the backend and why, and the
# recording goes on (--dry-run shows it without recording); an option the
# backend uses gets no such line.
. "$MT_TOP/tests/lib.sh"

# unused BACKEND OPTIONS...: the lines for mt-record --backend BACKEND OPTIONS
unused() {
	be=$1
	shift
	mt-record --backend "$be" "$@" --dry-run -- true >out 2>err ||
		{ cat err >&2; fail "--backend $be $*: exit $?"; }
	[ -s out ] || fail "--backend $be $*: no dry run on stdout"
	grep 'does not apply' err || true
}

unused uprobe --functions '^main$' --timing high --frequency 100 --call-graph dwarf --kernel >got
cat >want <<'W'
mt-record: --timing does not apply to the uprobe backend (it sets Intel PT's timing packets): ignored
mt-record: --frequency does not apply to the uprobe backend (it sets the sample backend's rate): ignored
mt-record: --call-graph does not apply to the uprobe backend (it sets how the sample backend unwinds): ignored
mt-record: --kernel does not apply to the uprobe backend (uprobes see user space only): ignored
W
same_file want got

unused sample --snapshot-size 1M --timing low >got
cat >want <<'W'
mt-record: --timing does not apply to the sample backend (it sets Intel PT's timing packets): ignored
W
same_file want got
# --snapshot-size sizes the sample backend's ring (perf -m, in pages)
grep -q ' -m256 ' out || fail "sample --snapshot-size 1M: no -m256 in $(cat out)"
# dwarf stacks without a size: one line on what the default ring holds
mt-record --backend sample --call-graph dwarf --dry-run -- true >out 2>err
contains err "mt-record: --call-graph dwarf copies 8 KiB of stack a sample: perf's default ring keeps some 60 of them; --snapshot-size 64M keeps some 8000"
mt-record --backend sample --call-graph dwarf --snapshot-size 64M --dry-run -- true >out 2>err
grep -q 'dwarf' err && fail "dwarf with a size: $(cat err)"

unused pt --frequency 10 --call-graph fp >got
cat >want <<'W'
mt-record: --frequency does not apply to the pt backend (it sets the sample backend's rate): ignored
mt-record: --call-graph does not apply to the pt backend (it sets how the sample backend unwinds): ignored
W
same_file want got

# what each backend uses: nothing said
unused sample --frequency 500 --call-graph dwarf --kernel >got
[ ! -s got ] || fail "sample: $(cat got)"
unused pt --timing high --snapshot-size 1M --kernel >got
[ ! -s got ] || fail "pt: $(cat got)"
