#!/bin/sh
# uprobe engine: recursion 101 calls deep, past the kernel's limit of 64
# nested return probes per thread: the kernel reports 64 returns, so the
# recording keeps the 64 outermost calls and their returns, leaves the 37
# deeper calls out with a warning, and the spans nest 64 deep.
. "$MT_TOP/tests/lib.sh"
[ -r /sys/bus/event_source/devices/uprobe/type ] ||
	{ echo "skip: no uprobe PMU in this kernel" >&2; exit 0; }
[ "$(id -u)" -eq 0 ] || { echo "skip: uprobes need root (CAP_SYS_ADMIN)" >&2; exit 0; }
outer=$MT_TESTBIN/progs/outer

uprobe-rec --functions '^deep$' -- "$outer" -d 100 >lines 2>err ||
	{ cat err >&2; fail "uprobe-rec failed"; }
contains err "calls nested deeper than 64 return probes were left out"
contains err "37 too deep"
[ "$(grep -c ' probe_outer:deep: ' lines)" -eq 64 ] || fail "not 64 calls"
[ "$(grep -c ' probe_outer:deep__return: ' lines)" -eq 64 ] || fail "not 64 returns"
mt-script-parse lines | mt-stacks >spans.mt
spans-check spans.mt >check || { cat check >&2; fail "spans do not nest"; }
mt-dump spans.mt >dump
[ "$(grep -c 'name="deep"' dump)" -eq 64 ] || fail "not 64 deep spans"
grep 'name="deep"' dump | grep -q OPEN && fail "open deep spans"
min=$(grep 'name="deep"' dump | sed 's/.* depth=\([-0-9]*\) .*/\1/' | sort -n | head -n 1)
max=$(grep 'name="deep"' dump | sed 's/.* depth=\([-0-9]*\) .*/\1/' | sort -n | tail -n 1)
[ $((max - min)) -eq 63 ] || fail "deep spans from depth $min to $max"
