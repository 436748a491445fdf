#!/bin/sh
# mt-record -i on an Intel PT perf.data: perf script with mt's dlfilter
# (--dlfilter mt-dlfilter.so --dlarg fd=1) when perf is 5.14 or later;
# with an older perf, or with --text, perf's text, and for the older perf
# one line on stderr saying why. A sampled perf.data is always text. A
# stand-in perf (MT_PERF) of a given version prints its arguments.
. "$MT_TOP/tests/lib.sh"

# fake-perf VERSION: a perf that prints "ARGS: ..." for perf script
fake_perf() {
	cat >fake-perf <<P
#!/bin/sh
[ "\$1" = version ] && { echo "perf version $1"; exit 0; }
echo "ARGS: \$*"
P
	chmod +x fake-perf
}
MT_PERF=$PWD/fake-perf
export MT_PERF
# perf.data headers, enough for -i: the auxtrace feature (bit 18 of the
# feature bitmap at byte 72) set or not
{ printf 'PERFILE2'; head -c 66 /dev/zero; printf '\004'; head -c 29 /dev/zero; } >pt.data
{ printf 'PERFILE2'; head -c 96 /dev/zero; } >sample.data
so=$(cd "$MT_BIN/../lib" && pwd -P)/mt-dlfilter.so

fake_perf 6.1.0
mt-record -i pt.data >out 2>err
contains out "script -i pt.data --ns --itrace=bep -F comm,pid,tid,time,flags,ip,addr,sym,symoff,synth,dso,event,period --dlfilter $so --dlarg fd=1"
[ ! -s err ] || fail "messages: $(cat err)"
mt-record -i pt.data --text >out 2>err
contains out "script -i pt.data --ns --itrace=bep -F"
! grep -q -e --dlfilter out || fail "--text used the dlfilter: $(cat out)"
[ ! -s err ] || fail "messages: $(cat err)"
mt-record -i sample.data >out 2>err
! grep -q -e --dlfilter out || fail "a sampled perf.data went through the dlfilter: $(cat out)"

fake_perf 5.13.0
mt-record -i pt.data >out 2>err
! grep -q -e --dlfilter out || fail "perf 5.13 was given --dlfilter: $(cat out)"
contains out "--itrace=bep"
[ "$(wc -l <err)" -eq 1 ] || fail "not one line: $(cat err)"
contains err "mt-record: $MT_PERF: no perf script --dlfilter before perf 5.14: decoding through perf's text"

# no mt-dlfilter.so where mt-record looks (a copy of it elsewhere): text
fake_perf 6.1.0
mkdir -p elsewhere/bin
cp "$MT_BIN/mt-record" elsewhere/bin/
elsewhere/bin/mt-record -i pt.data >out 2>err
! grep -q -e --dlfilter out || fail "no dlfilter, yet --dlfilter: $(cat out)"
[ "$(wc -l <err)" -eq 1 ] || fail "not one line: $(cat err)"
contains err "mt-record: no mt-dlfilter.so next to mt-record (nor in ../lib/mt/): decoding through perf's text"
# beside it, it is found
cp "$so" elsewhere/bin/
elsewhere/bin/mt-record -i pt.data >out 2>err
contains out "--dlfilter $(pwd -P)/elsewhere/bin/mt-dlfilter.so --dlarg fd=1"
