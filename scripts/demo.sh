#!/bin/sh
# scripts/demo.sh BUILD: what `make demo` does. It traces the bundled demo
# program (tests/progs/demo.c: 200 requests, one in 50 slow, cos through a
# dlopened libm) with the best backend this machine has (Intel PT, else
# the patch backend, else uprobes when root, else sampling), runs the
# pipeline
#   mt-record | mt-script-parse | mt-stacks | mt-fxt
# and writes demo.fxt, checked with the test suite's FXT checker.
set -eu
BUILD=${1:-build}
bin=$BUILD/bin
prog=$BUILD/tests/progs/demo
out=$BUILD/demo
mkdir -p "$out"

if [ -e /sys/bus/event_source/devices/intel_pt ]; then
	backend=pt
	set -- --backend pt --trigger .
	why="Intel PT: every call of the last moments before the trigger"
elif [ "$(uname -m)" = x86_64 ]; then
	backend=patch
	# cos is an IFUNC: its implementations (glibc's symbols, libc6-dbg)
	set -- --backend patch --functions '^(main|handle_request|parse_request|lookup|compute|reply|__cos_(sse2|avx|fma|fma4))$'
	why="no Intel PT here: the exact calls of the program's functions and of cos in the libm it dlopens, their entries patched"
elif [ -r /sys/bus/event_source/devices/uprobe/type ] && [ "$(id -u)" -eq 0 ]; then
	backend=uprobe
	set -- --backend uprobe --functions '^(main|handle_request|parse_request|lookup|compute|reply)$'
	why="no Intel PT here: uprobes, the exact calls of the program's functions"
else
	backend=sample
	set -- --backend sample --frequency 5000
	why="no Intel PT and no root: sampled stacks"
fi
echo "demo: tracing $prog with the $backend backend ($why)"
echo "demo: $bin/mt-record $* -- $prog | mt-script-parse | mt-stacks | mt-fxt -o demo.fxt"
"$bin/mt-record" "$@" -- "$prog" >"$out/demo.perf.txt"
"$bin/mt-script-parse" "$out/demo.perf.txt" >"$out/demo.mt"
"$bin/mt-stacks" -v "$out/demo.mt" >"$out/demo.spans"
"$bin/mt-fxt" -v -o demo.fxt "$out/demo.spans"
echo
if [ $backend = patch ]; then
	echo "the mt stream mt-record wrote ($out/demo.perf.txt), its first calls:"
	"$bin/mt-dump" "$out/demo.perf.txt" | grep ' BRANCH ' | head -n 3 | cut -c1-150
else
	echo "perf script text ($out/demo.perf.txt), first lines:"
	grep -v '^#' "$out/demo.perf.txt" | head -n 3 | cut -c1-150
fi
echo
echo "where the time went (mt-report: calls, inclusive and self time per function):"
"$bin/mt-report" -n 5 "$out/demo.spans"
echo
"$BUILD/tests/fxt-check" demo.fxt
echo
echo "Wrote demo.fxt: open https://ui.perfetto.dev, click \"Open trace file\" and"
echo "choose demo.fxt, or run: $bin/mt view demo.fxt"
