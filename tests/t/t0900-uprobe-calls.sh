#!/bin/sh
# uprobe engine (mt-record/uprobe/uprobe.h) through its driver uprobe-rec: a
# program calling outer() 300 times, each calling work() twice, recorded
# from its start (-- CMD): 1800 lines in perf script's format, which
# mt-script-parse | mt-stacks turn into exactly 300 outer and 600 work
# spans, each work span inside an outer span, one level deeper, and that
# nest the way Perfetto reads them (spans-check); the same with the probes
# removed in the background.
. "$MT_TOP/tests/lib.sh"
[ -r /sys/bus/event_source/devices/uprobe/type ] ||
	{ echo "skip: no uprobe PMU in this kernel" >&2; exit 0; }
[ "$(id -u)" -eq 0 ] || { echo "skip: uprobes need root (CAP_SYS_ADMIN)" >&2; exit 0; }
outer=$MT_TESTBIN/progs/outer

uprobe-rec --functions '^(work|outer)$' -- "$outer" >lines 2>err ||
	{ cat err >&2; fail "uprobe-rec failed"; }
# the same, the probes removed by a process of their own
uprobe-rec --background-close --functions '^(work|outer)$' -- "$outer" >bg 2>bgerr ||
	{ cat bgerr >&2; fail "uprobe-rec --background-close failed"; }
[ "$(wc -l <bg)" -eq 1800 ] || fail "--background-close: $(wc -l <bg) lines"
contains err "recording 2 functions"
[ "$(wc -l <lines)" -eq 1800 ] || fail "$(wc -l <lines) lines, expected 1800"
for e in 'probe_outer:outer:' 'probe_outer:outer__return:' \
	'probe_outer:work:' 'probe_outer:work__return:'; do
	n=$(grep -c " $e " lines)
	case $e in *:outer*) want=300 ;; *) want=600 ;; esac
	[ "$n" -eq "$want" ] || fail "$n '$e' lines, expected $want"
done
# perf script -F comm,pid,tid,cpu,time,event,trace,ip,sym,symoff,dso --ns
bad=$(grep -Evc '^ +outer +[0-9]+/[0-9]+ +\[[0-9]{3,}\] +[0-9]+\.[0-9]{9}: +probe_outer:(work|outer)(__return)?: \([0-9a-f]+( <- [0-9a-f]+)?\) +[0-9a-f]+ [a-z_]+\+0x[0-9a-f]+ \(/.*/outer\)$' lines) || :
[ "$bad" -eq 0 ] || { head -3 lines >&2; fail "$bad lines not in perf script's format"; }
grep -q ' probe_outer:work__return: .* outer+0x' lines ||
	fail "work's returns do not land in outer"

mt-script-parse lines | mt-stacks >spans.mt 2>stacks.err ||
	{ cat stacks.err >&2; fail "mt-script-parse | mt-stacks failed"; }
spans-check spans.mt >check || { cat check >&2; fail "spans do not nest"; }
mt-dump spans.mt >dump
awk '/ SPAN / && /name="outer"/ { n++ } END { exit n != 300 }' dump ||
	fail "not 300 outer spans"
awk '/ SPAN / && /name="work"/ { n++ } END { exit n != 600 }' dump ||
	fail "not 600 work spans"
# each work span in an outer span of its thread, one level deeper
nested dump outer work 2 || fail "work spans do not nest in outer spans"
