#!/bin/sh
# The uprobe engine names C++ functions as perf does (demangled, without
# the parameters: common/demangle.h): on tests/progs/names.cc built with
# g++, every probe's entry line names its function by the name perf
# itself gives that symbol (perf probe -F lists it), which is what
# mt-symbols prints demangled up to its parameter list; the spans carry
# the names written here from the source; and the sample backend (perf
# script's own names) names the hot function the same.
. "$MT_TOP/tests/lib.sh"
need_uprobes
command -v g++ >/dev/null 2>&1 || fail "g++ not installed (make deps installs it)"
command -v perf >/dev/null 2>&1 || fail "perf not installed (make deps installs linux-perf)"
g++ -O1 -fno-inline -fno-omit-frame-pointer -g -o names "$MT_TOP/tests/progs/names.cc" ||
	fail "g++ failed"

mt-symbols --match 'app::' names | cut -f4,5 | sort -u >sym.txt
[ "$(wc -l <sym.txt)" -eq 5 ] || fail "mt-symbols --match 'app::': $(cat sym.txt)"
uprobe-rec --functions 'app::' -- ./names 3 >lines 2>err ||
	{ cat err >&2; fail "uprobe-rec failed"; }
contains err "recording 5 functions"
# each entry line: its event (the mangled name) and the name printed
awk '$5 ~ /^probe_names:/ && $5 !~ /__return:$/ {
	ev = $5; sub(/^probe_names:/, "", ev); sub(/:$/, "", ev)
	name = $0; sub(/^[^)]*\) +[0-9a-f]+ /, "", name); sub(/\+0x0 \(.*$/, "", name)
	print ev "\t" name }' lines | sort -u >entries.txt
[ "$(wc -l <entries.txt)" -eq 5 ] || fail "entries: $(cat entries.txt)"
perf probe -x ./names -F --filter '*' 2>/dev/null | sort -u >perf.txt
grep -qx 'app::Server::lookup' perf.txt || fail "perf probe -F: $(head -5 perf.txt)"
while IFS='	' read -r ev name; do
	full=$(awk -F '\t' -v m="$ev" '$1 == m { print $2 }' sym.txt)
	[ -n "$full" ] || fail "probe $ev: not a symbol mt-symbols --match lists"
	case $full in
	"$name"\(*) ;;
	*) fail "$ev printed as '$name', which is not mt-symbols' '$full' without its parameters" ;;
	esac
	grep -qxF "$name" perf.txt || fail "$ev printed as '$name', a name perf does not give it"
done <entries.txt

# the spans, named from the source
mt-script-parse lines | mt-stacks >spans.mt 2>stacks.err ||
	{ cat stacks.err >&2; fail "mt-script-parse | mt-stacks failed"; }
dump_spans spans.mt | cut -d' ' -f5- | sort | uniq -c | awk '{ $1 = $1; print }' >names.txt
cat >want.txt <<'N'
3 app::Box<long>::get
3 app::Hasher::operator()
3 app::Server::handle
6 app::Server::lookup
N
same_file want.txt names.txt

# the sample backend: perf script names the function that spins alike
mt-record --backend sample --frequency 2000 -- ./names 3000 >s.txt 2>serr ||
	{ cat serr >&2; fail "mt-record --backend sample failed"; }
mt-script-parse s.txt | mt-stacks >s.mt 2>/dev/null || fail "the sample text does not parse"
dump_spans s.mt | cut -d' ' -f5- | grep 'app::' | sort -u >sampled.txt
grep -qx 'app::Server::lookup' sampled.txt || fail "perf's samples: $(cat sampled.txt)"
cut -d' ' -f2- names.txt >uprobe.txt
[ -z "$(comm -23 sampled.txt uprobe.txt)" ] ||
	fail "perf names functions the uprobe engine names otherwise: $(comm -23 sampled.txt uprobe.txt)"
