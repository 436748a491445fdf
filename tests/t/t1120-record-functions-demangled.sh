#!/bin/sh
# mt-record --backend uprobe --text --functions REGEX matches a function's
# demangled name, its name as perf prints it, or its name as in the file
# (any of the three), as mt-symbols --match does: on tests/progs/names.cc
# (g++) and names.rs (rustc), the functions probed (every one is called,
# so each shows in the trace as its probe's event, named after the
# mangled symbol) are exactly those mt-symbols --match lists, and those
# written here from the source. Without --functions, the program's own
# C++ functions are probed (their mangled names start with '_').
. "$MT_TOP/tests/lib.sh"
need_uprobes
PATH=$PATH:/root/.cargo/bin
command -v g++ >/dev/null 2>&1 || fail "g++ not installed (make deps installs it)"
command -v rustc >/dev/null 2>&1 || fail "rustc not installed (make deps installs it)"
g++ -O1 -fno-inline -fno-omit-frame-pointer -g -o names "$MT_TOP/tests/progs/names.cc" ||
	fail "g++ failed"
rustc -C opt-level=1 -o rl "$MT_TOP/tests/progs/names.rs" || fail "rustc failed"

# probed BINARY [OPTIONS]: the mangled names of the functions probed
probed() {
	b=$1
	shift
	mt-record --backend uprobe --text "$@" -- "./$b" 2 >rec.txt 2>err ||
		{ cat err >&2; fail "mt-record $* ./$b failed"; }
	awk -v ev="^probe_$b:" '$5 ~ ev && $5 !~ /__return:$/ {
		e = $5; sub(/^[^:]*:/, "", e); sub(/:$/, "", e); print e }' rec.txt | sort -u
}

# same_selection BINARY REGEX WANT: mt-record probes what mt-symbols
# --match lists, and WANT (mangled names, one a line)
same_selection() {
	mt-symbols --match "$2" "$1" | cut -f4 | sort -u >listed.txt
	printf '%s\n' "$3" | sort >want.txt
	same_file want.txt listed.txt
	probed "$1" --functions "$2" >got.txt
	same_file want.txt got.txt
}

same_selection names 'app::' '_ZN3app6Server6handleEi
_ZN3app6Server6lookupEPKc
_ZN3app6Server6lookupEm
_ZNK3app3BoxIlE3getEv
_ZNK3app6HasherclEm'
# perf's name: both overloads
same_selection names '^app::Server::lookup$' '_ZN3app6Server6lookupEPKc
_ZN3app6Server6lookupEm'
# the demangled name with its parameters
same_selection names '^app::Server::lookup\(unsigned long\)$' _ZN3app6Server6lookupEm
same_selection names 'app::.*operator\(\)' '_ZNK3app6HasherclEm'
# the name as in the file
same_selection names '^_ZN3app6Server6lookupEPKc$' _ZN3app6Server6lookupEPKc
# Rust: the hash is in the file's name only
h=$(mt-symbols --exact names::app::Server::lookup rl | cut -f4)
case $h in _ZN5names3app6Server6lookup17h*E) ;; *) fail "Rust lookup: '$h'" ;; esac
same_selection rl '^names::app::Server::lookup$' "$h"
mt-symbols --match '::h[0-9a-f]{16}$' rl >listed.txt || :
[ ! -s listed.txt ] || fail "mt-symbols matched a Rust hash: $(head -3 listed.txt)"
expect_exit 1 mt-record --backend uprobe --text --functions '::h[0-9a-f]{16}$' -- ./rl 2 >rec.txt 2>err
contains err "no function matches"

# the default: the program's own functions, C++ ones too
probed names >got.txt
for f in _ZN3app6Server6lookupEm _ZNK3app3BoxIlE3getEv main; do
	grep -qx "$f" got.txt || fail "by default, $f is not probed: $(cat got.txt)"
done
