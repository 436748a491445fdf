#!/bin/sh
# mt-record --trigger names a function as mt-symbols lists it, demangled
# with its parameters (names with "::", parentheses, blanks, <...>, {...}
# and operator()), as perf prints it when that is one function only (an
# overloaded name is refused with the candidates), or as in the file; it
# arms and fires at the address mt-symbols gives, and the trigger's mark
# names it demangled. A selection is FILE:LINE only when FILE exists or is
# a source file's name: a C++ name with ':' in it that is no function is
# said to be none. On tests/progs/names.cc (g++) and names.rs (rustc,
# legacy and v0 manglings).
. "$MT_TOP/tests/lib.sh"
need_uprobes
PATH=$PATH:/root/.cargo/bin
command -v g++ >/dev/null 2>&1 || fail "g++ not installed (make deps installs it)"
command -v rustc >/dev/null 2>&1 || fail "rustc not installed (make deps installs it)"
mkdir tmp
export TMPDIR="$PWD/tmp"
src=$MT_TOP/tests/progs/names.cc
g++ -O1 -fno-inline -fno-omit-frame-pointer -g -o names "$src" || fail "g++ failed"
rustc -C opt-level=1 -o rl "$MT_TOP/tests/progs/names.rs" || fail "rustc failed"
RUSTC_BOOTSTRAP=1 rustc -C opt-level=1 -C symbol-mangling-version=v0 -o rv \
	"$MT_TOP/tests/progs/names.rs" || fail "rustc (v0) failed"

# fires BINARY SEL FULL [REGEX]: --trigger SEL arms and fires at the
# function mt-symbols names FULL; its mark names it FULL. Prints the
# events of the functions REGEX probes, in order, up to the trigger.
fires() {
	mt-record --backend uprobe --text --functions "${4:-^app::Server::handle$}" --trigger "$2" \
		-- "./$1" 2 >rec.txt 2>err || { cat err >&2; fail "--trigger '$2' failed"; }
	want=$(mt-symbols --exact "$3" "$1" | cut -f1)
	[ -n "$want" ] || fail "mt-symbols does not list '$3'"
	contains err "trigger armed: $3 @ $want in "
	contains err "trigger $3 hit by"
	mark=$(grep '^# mt: trigger ' rec.txt) || fail "--trigger '$2': no mark"
	[ "$(echo "$mark" | cut -d" " -f7-)" = "$3" ] || fail "--trigger '$2': mark $mark"
	[ $(($(echo "$mark" | cut -d" " -f6))) -eq $((want)) ] || fail "--trigger '$2': $mark, not at $want"
	awk -v ev="^probe_$1:" '$5 ~ ev { e = $5; sub(/^[^:]*:/, "", e); sub(/:$/, "", e); print e }' \
		rec.txt | tr '\n' ' '
}

lk='app::Server::lookup(unsigned long)'
[ "$(fires names "$lk" "$lk")" = "_ZN3app6Server6handleEi " ] ||
	fail "$lk: not the first call of handle: $(fires names "$lk" "$lk")"
[ "$(fires names "symbol:$lk" "$lk" '^app::Box<long>::get$')" = "_ZNK3app3BoxIlE3getEv _ZNK3app3BoxIlE3getEv__return " ] ||
	fail "symbol:$lk: not after Box<long>::get"
fires names _ZN3app6Server6lookupEPKc 'app::Server::lookup(char const*)' >/dev/null
fires names 'app::Hasher::operator()(unsigned long) const' \
	'app::Hasher::operator()(unsigned long) const' >/dev/null
fires names 'main::{lambda(int)#1}::operator()(int) const' \
	'main::{lambda(int)#1}::operator()(int) const' >/dev/null
# perf's name, when one function has it
fires names 'app::Box<long>::get' 'app::Box<long>::get() const' >/dev/null

# an overloaded name: which one?
expect_exit 2 mt-record --backend uprobe --text --trigger app::Server::lookup -- ./names 2 >out 2>err
contains err "--trigger app::Server::lookup: 2 functions have that name: app::Server::lookup(unsigned long); app::Server::lookup(char const*)"
[ "$(wc -l <err)" -eq 1 ] || fail "more than one line: $(cat err)"
# a C++ name that is no function is not taken for FILE:LINE
expect_exit 1 mt-record --backend uprobe --text --trigger 'app::Server::lookup(int)' -- ./names 2 >out 2>err
contains err "--trigger app::Server::lookup(int): no such function in "
expect_exit 1 mt-record --backend uprobe --text --trigger 'app::Server:12' -- ./names 2 >out 2>err
contains err "no such function in "

# FILE:LINE still: a source file's name (no such file here), an existing file
line=$(grep -n 'return name\[0\] + base;' "$src" | cut -d: -f1)
[ -n "$line" ] || fail "no line of lookup(char const*) in $src"
mt-record --backend uprobe --text --functions '^app::Server::handle$' --trigger "names.cc:$line" \
	-- ./names 2 >rec.txt 2>err || { cat err >&2; fail "--trigger names.cc:$line failed"; }
contains err "trigger armed: app::Server::lookup(char const*)"
mt-record --backend uprobe --text --functions '^app::Server::handle$' --trigger "$src:$line" \
	-- ./names 2 >rec.txt 2>err || { cat err >&2; fail "--trigger $src:$line failed"; }
contains err "trigger armed: app::Server::lookup(char const*)"
expect_exit 1 mt-record --backend uprobe --text --trigger nofile.cc:12 -- ./names 2 >out 2>err
contains err "--trigger nofile.cc:12: no code at that line in "

# Rust: the demangled name (no hash), both manglings
fires rl names::app::Server::lookup names::app::Server::lookup 'Server::handle$' >/dev/null
fires rv '<names::app::Server>::lookup' '<names::app::Server>::lookup' 'Server>::handle$' >/dev/null
