#!/bin/sh
# The uprobe engine names Rust functions as perf does (demangled, the
# legacy mangling's hash dropped: common/demangle.h): on
# tests/progs/names.rs built with rustc in both manglings (legacy and v0),
# every probe's entry line names its function as mt-symbols prints it
# demangled and as perf itself does (perf probe -F lists it); the spans
# carry the names written here from the source; and the sample backend
# (perf script's own names) names the hot function the same.
. "$MT_TOP/tests/lib.sh"
need_uprobes
PATH=$PATH:/root/.cargo/bin
command -v rustc >/dev/null 2>&1 || fail "rustc not installed (make deps installs it)"
command -v perf >/dev/null 2>&1 || fail "perf not installed (make deps installs linux-perf)"
src=$MT_TOP/tests/progs/names.rs
rustc -C opt-level=1 -C force-frame-pointers=yes -o rl "$src" || fail "rustc failed"
RUSTC_BOOTSTRAP=1 rustc -C opt-level=1 -C force-frame-pointers=yes \
	-C symbol-mangling-version=v0 -o rv "$src" || fail "rustc (v0) failed"

# check BINARY LOOKUP SPANS: its names; LOOKUP is app::Server::lookup's
# name, SPANS the span names (count and name, sorted) written from the
# source
check() {
	b=$1
	mt-symbols --match 'app::' "$b" | cut -f4,5 | sort -u >"$b.sym"
	[ "$(wc -l <"$b.sym")" -eq 3 ] || fail "$b: mt-symbols --match 'app::': $(cat "$b.sym")"
	uprobe-rec --functions 'app::' -- "./$b" 3 >"$b.lines" 2>"$b.err" ||
		{ cat "$b.err" >&2; fail "$b: uprobe-rec failed"; }
	awk -v ev="^probe_$b:" '$5 ~ ev && $5 !~ /__return:$/ {
		e = $5; sub(/^[^:]*:/, "", e); sub(/:$/, "", e)
		name = $0; sub(/^[^)]*\) +[0-9a-f]+ /, "", name); sub(/\+0x0 \(.*$/, "", name)
		print e "\t" name }' "$b.lines" | sort -u >"$b.entries"
	[ "$(wc -l <"$b.entries")" -eq 3 ] || fail "$b: entries: $(cat "$b.entries")"
	# Rust names have no parameter list: mt-symbols' name is perf's
	same_file "$b.sym" "$b.entries"
	perf probe -x "./$b" -F --filter '*' 2>/dev/null | sort -u >"$b.perf"
	cut -f2 "$b.entries" | while IFS= read -r name; do
		grep -qxF "$name" "$b.perf" || fail "$b: '$name', a name perf does not give"
	done
	mt-script-parse "$b.lines" | mt-stacks >"$b.mt" 2>"$b.stacks" ||
		{ cat "$b.stacks" >&2; fail "$b: mt-script-parse | mt-stacks failed"; }
	dump_spans "$b.mt" | cut -d' ' -f5- | sort | uniq -c | awk '{ $1 = $1; print }' >"$b.names"
	printf '%s\n' "$3" >"$b.want"
	same_file "$b.want" "$b.names"

	mt-record --backend sample --frequency 2000 -- "./$b" 3000 >"$b.s" 2>"$b.serr" ||
		{ cat "$b.serr" >&2; fail "$b: mt-record --backend sample failed"; }
	mt-script-parse "$b.s" | mt-stacks >"$b.smt" 2>/dev/null || fail "$b: the sample text does not parse"
	dump_spans "$b.smt" | cut -d' ' -f5- | grep 'app::' | sort -u >"$b.sampled"
	grep -qxF "$2" "$b.sampled" || fail "$b: perf's samples: $(cat "$b.sampled")"
	cut -d' ' -f2- "$b.names" | sort >"$b.uprobe"
	[ -z "$(comm -23 "$b.sampled" "$b.uprobe")" ] ||
		fail "$b: perf names functions the uprobe engine names otherwise: $(comm -23 "$b.sampled" "$b.uprobe")"
}

check rl names::app::Server::lookup '3 names::app::Server::handle
3 names::app::Server::lookup
3 names::app::apply'
check rv '<names::app::Server>::lookup' '3 <names::app::Server>::handle
3 <names::app::Server>::lookup
3 names::app::apply::<<names::app::Server>::handle::{closure#0}>'
