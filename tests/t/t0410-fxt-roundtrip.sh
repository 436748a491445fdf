#!/bin/sh
# What mt-fxt writes, read back by fxt-check under Perfetto's import rules:
# nothing dropped or misplaced, and every span comes back with its name,
# thread, start and end. At scale: 35,000 distinct names (more than the
# 32,767-entry string table, so indexes are registered again) on 300 threads
# (more than the 255-entry thread table); names longer than FXT allows are
# cut with a visible mark. Also real fixtures and simulated traces through
# the whole pipeline.
. "$MT_TOP/tests/lib.sh"

# spans of a stream as fxt-check --slices prints them, without depth
slices_of_stream() {
	mt-dump "$1" | awk '/ SPAN / {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		name = $0; sub(/.* name=/, "", name); sub(/ dso=.*/, "", name)
		gsub(/^"|"$/, "", name)
		s = f["start"]; e = f["end"]; sub(/\./, "", s); sub(/\./, "", e)
		print f["pid"], f["tid"], s + 0, e + 0, name }' | sort
}

# 300 threads x 120 spans (a parent and a child each time), names cycling
# through 35,000 and coming back after being evicted
awk 'BEGIN {
	for (i = 0; i < 300; i++) {
		pid = 1000 + int(i / 10); tid = 5000 + i
		printf "THREAD pid=%d tid=%d comm=\"t%d\" time=-\n", pid, tid, i
	}
	k = 0
	for (j = 0; j < 60; j++) for (i = 0; i < 300; i++) {
		pid = 1000 + int(i / 10); tid = 5000 + i
		s = 1000000 + j * 1000
		printf "SPAN start=0.00%07d end=0.00%07d pid=%d tid=%d depth=1 kind=function flags=- address=0x%x name=\"fn_%05d\" dso=-\n", s + 100, s + 200, pid, tid, 4096 + k, (2 * k) % 35000
		printf "SPAN start=0.00%07d end=0.00%07d pid=%d tid=%d depth=0 kind=function flags=- address=0x%x name=\"fn_%05d\" dso=-\n", s, s + 500, pid, tid, 8192 + k, (2 * k + 1) % 35000
		k++
	}
}' >scale.txt
mt-asm scale.txt >scale.mt
mt-fxt -v scale.mt >scale.fxt 2>err
contains err "36000 spans"
# -v counts every byte written, the last buffer's too
contains err " $(wc -c <scale.fxt | tr -d ' ') bytes"
grep -q 're-registered' err || fail "no re-registration reported"
fxt-check scale.fxt >check || { cat check >&2; fail "scale: fxt-check found problems"; }
fxt-check --slices scale.fxt | awk '{ print $1, $2, $3, $4, $6 }' | sort >got
slices_of_stream scale.mt >want
[ "$(wc -l <want)" -eq 36000 ] || fail "expected 36000 spans, got $(wc -l <want)"
same_file want got
distinct=$(awk '{ print $5 }' got | sort -u | wc -l)
[ "$distinct" -eq 35000 ] || fail "$distinct distinct names came back, not 35000"
threads=$(awk '{ print $2 }' got | sort -u | wc -l)
[ "$threads" -eq 300 ] || fail "$threads threads came back, not 300"
fxt-check --names scale.fxt | grep -c '^thread ' >nthreads
[ "$(cat nthreads)" -eq 300 ] || fail "$(cat nthreads) thread names, not 300"
fxt-check --names scale.fxt | grep -q '^thread 1029 5299 t299$' || fail "thread 5299 lost its name or pid"

# a name of 40,000 bytes: cut with a mark, the file still valid
long=$(awk 'BEGIN { for (i = 0; i < 4000; i++) printf "abcdefghij" }')
printf 'SPAN start=1.000000000 end=1.000000100 pid=7 tid=7 depth=0 kind=function flags=- address=0x401000 name="%s" dso=-\n' "$long" >long.txt
mt-asm long.txt | mt-fxt >long.fxt
fxt-check long.fxt >check || { cat check >&2; fail "long name: fxt-check"; }
name=$(fxt-check --slices long.fxt | awk '{ print $6 }')
case $name in *'...[cut]') ;; *) fail "long name not cut with a mark" ;; esac
[ "${#name}" -le 32000 ] || fail "cut name is ${#name} bytes"
mt-asm long.txt | mt-fxt -v 2>err | wc -c | tr -d ' ' >nbytes
contains err " $(cat nbytes) bytes"

# whole pipelines: real fixtures and simulated traces with errors
for f in "$MT_FIXTURES"/perf-script/magic-trace-*.txt; do
	mt-script-parse "$f" | mt-stacks 2>/dev/null >spans.mt
	mt-fxt spans.mt >t.fxt
	fxt-check t.fxt >check || { cat check >&2; fail "$(basename "$f"): fxt-check"; }
	fxt-check --slices t.fxt | awk '{ print $1, $2, $3, $4, $6 }' | sort >got
	slices_of_stream spans.mt >want
	# instants (decode errors, marks) are slices too: compare the spans
	join -v 1 want got >missing || true
	[ ! -s missing ] || { head missing >&2; fail "$(basename "$f"): spans lost"; }
done
for args in "--seed 18 --threads 8 --start-depth 4" "--seed 2 --threads 3 --coarse 1000"; do
	# shellcheck disable=SC2086
	gen-perf-script --lines 50000 $args | mt-script-parse | mt-stacks >spans.mt
	mt-fxt spans.mt >t.fxt
	fxt-check t.fxt >check || { cat check >&2; fail "$args: fxt-check"; }
done
