#!/bin/sh
# mt-stacks on entry probes only: uprobe-rec records only the calls of a
# Go program (build/tests/progs/outer-go: 300 outer, 600 work); with the
# '# mt: entry-only' lines mt-record writes for such functions (added here
# if missing), every call is an instant at the same depth instead of a
# frame that never ends: 900 zero-length spans, nothing nested.
. "$MT_TOP/tests/lib.sh"
[ -r /sys/bus/event_source/devices/uprobe/type ] ||
	{ echo "skip: no uprobe PMU in this kernel" >&2; exit 0; }
[ "$(id -u)" -eq 0 ] || { echo "skip: uprobes need root (CAP_SYS_ADMIN)" >&2; exit 0; }

uprobe-rec --functions '^(work|outer)$' -- "$MT_TESTBIN/progs/outer-go" >lines 2>err ||
	{ cat err >&2; fail "uprobe-rec failed"; }
! grep -q __return lines || fail "return probes in a Go program"
{
	grep -q '^# mt: entry-only outer$' lines || echo '# mt: entry-only outer'
	grep -q '^# mt: entry-only work$' lines || echo '# mt: entry-only work'
	cat lines
} >all
mt-script-parse all | mt-stacks >spans.mt 2>stacks.err ||
	{ cat stacks.err >&2; fail "mt-script-parse | mt-stacks failed"; }
spans-check spans.mt >check || { cat check >&2; fail "spans do not nest"; }
mt-dump spans.mt >dump
! grep -q 'MARK.*entry-only' dump || fail "entry-only marks passed on"
grep ' SPAN ' dump >spans
[ "$(grep -c 'name="outer"' spans)" -eq 300 ] || fail "not 300 outer spans"
[ "$(grep -c 'name="work"' spans)" -eq 600 ] || fail "not 600 work spans"
[ "$(wc -l <spans)" -eq 900 ] || fail "$(wc -l <spans) spans, expected 900"
awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	if (v["start"] != v["end"] || v["flags"] != "-") exit 1
	d[v["depth"]] = 1 }
	END { n = 0; for (k in d) n++; exit n != 1 }' spans ||
	{ head -3 spans >&2; fail "not instants all at one depth"; }
mt-script-parse all | mt-stacks -v 2>verbose >/dev/null
contains verbose "2 functions probed at entry only"
