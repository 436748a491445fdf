#!/bin/sh
# scripts/demo.sh BUILD: what `make demo` shows until capture lands. It makes
# realistic perf script text (as perf prints Intel PT branches), turns it into
# an mt stream with mt-script-parse, and prints the first records.
set -eu
BUILD=${1:-build}
out=$BUILD/demo
mkdir -p "$out"
"$BUILD/tests/gen-perf-script" --lines 20000 --seed 1 >"$out/demo.perf.txt"
"$BUILD/bin/mt-script-parse" -v "$out/demo.perf.txt" >"$out/demo.mt"
echo
echo "perf script text ($out/demo.perf.txt), first lines:"
head -3 "$out/demo.perf.txt" | cut -c1-160
echo
echo "as an mt stream ($out/demo.mt), first records:"
"$BUILD/bin/mt-dump" "$out/demo.mt" | grep -v ' STRING ' | sed -n '2,8p' | cut -c1-160
echo
echo "Tracing a running program into demo.fxt for ui.perfetto.dev arrives with"
echo "mt-record, mt-stacks and mt-fxt (issues 3, 4, 8, 9)."
