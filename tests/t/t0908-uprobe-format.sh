#!/bin/sh
# uprobe engine: its lines are what perf script prints. The expected text
# below is perf 6.1's output for the same program (perf probe -x outer -a
# work -a 'work%return' -a outer -a 'outer%return', perf record -k mono,
# perf script --ns -F comm,pid,tid,cpu,time,event,trace,ip,sym,symoff,dso;
# then main and main%return on outer -n 1), recorded on this project's
# machine; both sides have pids, cpus, times, addresses, offsets and the
# program's path replaced, and the symbol in libc (found in libc's debug
# file when there is one).
. "$MT_TOP/tests/lib.sh"
[ -r /sys/bus/event_source/devices/uprobe/type ] ||
	{ echo "skip: no uprobe PMU in this kernel" >&2; exit 0; }
[ "$(id -u)" -eq 0 ] || { echo "skip: uprobes need root (CAP_SYS_ADMIN)" >&2; exit 0; }
outer=$MT_TESTBIN/progs/outer

norm() {
	sed -E -e 's# +-?[0-9]+/-?[0-9]+ +# PID/TID #' -e 's#\[[0-9]{3,}\]#[CPU]#' \
		-e 's# +[0-9]+\.[0-9]{9}:# TIME:#' -e 's#[0-9a-f]{6,16}#ADDR#g' \
		-e 's#\+0x[0-9a-f]+#+OFF#g' -e 's#\(/[^)]*/outer\)#(OUTER)#' \
		-e 's#ADDR [^ ]+ (\(/[^)]*libc[.]so[^)]*\))$#ADDR SYM \1#'
}
cat >perf.txt <<'PERF'
           outer 29265/29265 [000] 10568.710891095:         probe_outer:outer: (55fc75633212)     55fc75633212 outer+0x0 (/tmp/upx/outer)
           outer 29265/29265 [000] 10568.710902277:          probe_outer:work: (55fc756331d9)     55fc756331d9 work+0x0 (/tmp/upx/outer)
           outer 29265/29265 [000] 10568.710918137:  probe_outer:work__return: (55fc756331d9 <- 55fc7563321a)     55fc7563321a outer+0x8 (/tmp/upx/outer)
           outer 29265/29265 [000] 10568.710919283:          probe_outer:work: (55fc756331d9)     55fc756331d9 work+0x0 (/tmp/upx/outer)
           outer 29265/29265 [000] 10568.710925789:  probe_outer:work__return: (55fc756331d9 <- 55fc7563322a)     55fc7563322a outer+0x18 (/tmp/upx/outer)
           outer 29265/29265 [000] 10568.710926617: probe_outer:outer__return: (55fc75633212 <- 55fc7563329b)     55fc7563329b loop+0x66 (/tmp/upx/outer)
           outer 29265/29265 [000] 10568.710927577:         probe_outer:outer: (55fc75633212)     55fc75633212 outer+0x0 (/tmp/upx/outer)
           outer 29265/29265 [000] 10568.710928587:          probe_outer:work: (55fc756331d9)     55fc756331d9 work+0x0 (/tmp/upx/outer)
           outer 29265/29265 [000] 10568.710934219:  probe_outer:work__return: (55fc756331d9 <- 55fc7563321a)     55fc7563321a outer+0x8 (/tmp/upx/outer)
           outer 29265/29265 [000] 10568.710935008:          probe_outer:work: (55fc756331d9)     55fc756331d9 work+0x0 (/tmp/upx/outer)
           outer 29265/29265 [000] 10568.710940629:  probe_outer:work__return: (55fc756331d9 <- 55fc7563322a)     55fc7563322a outer+0x18 (/tmp/upx/outer)
           outer 29265/29265 [000] 10568.710941115: probe_outer:outer__return: (55fc75633212 <- 55fc7563329b)     55fc7563329b loop+0x66 (/tmp/upx/outer)
           outer 29265/29265 [000] 10568.710941932:         probe_outer:outer: (55fc75633212)     55fc75633212 outer+0x0 (/tmp/upx/outer)
           outer 29265/29265 [000] 10568.710942890:          probe_outer:work: (55fc756331d9)     55fc756331d9 work+0x0 (/tmp/upx/outer)
           outer 29265/29265 [000] 10568.710948470:  probe_outer:work__return: (55fc756331d9 <- 55fc7563321a)     55fc7563321a outer+0x8 (/tmp/upx/outer)
           outer 29265/29265 [000] 10568.710949299:          probe_outer:work: (55fc756331d9)     55fc756331d9 work+0x0 (/tmp/upx/outer)
           outer 29265/29265 [000] 10568.710954763:  probe_outer:work__return: (55fc756331d9 <- 55fc7563322a)     55fc7563322a outer+0x18 (/tmp/upx/outer)
           outer 29265/29265 [000] 10568.710955245: probe_outer:outer__return: (55fc75633212 <- 55fc7563329b)     55fc7563329b loop+0x66 (/tmp/upx/outer)
           outer 29539/29539 [000] 10602.917526657:         probe_outer:main: (55736d8bd2da)     55736d8bd2da main+0x0 (/tmp/upx/outer)
           outer 29539/29539 [000] 10602.917564769: probe_outer:main__return: (55736d8bd2da <- 7f175362c24a)     7f175362c24a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)
PERF
norm <perf.txt >want
# perf pads the seconds to five columns: the same text on a machine up for
# minutes ("[000]   380.710891095:") or for weeks normalises the same
for up in '  380' '    0' 1234567; do
	sed "s/ 10568\./ $up./; s/ 10602\./ $up./" perf.txt | norm >other
	same_file want other
done

uprobe-rec --functions '^(work|outer)$' -- "$outer" -n 3 >lines 2>err ||
	{ cat err >&2; fail "uprobe-rec failed"; }
uprobe-rec --functions '^main$' -- "$outer" -n 1 >>lines 2>err ||
	{ cat err >&2; fail "uprobe-rec failed"; }
norm <lines >got
same_file want got
