#!/bin/sh
# mt-record -i's progress: "decoding: N lines" every 65536 lines of perf
# script, overwritten in place, then "decoded N lines", which is shorter
# and so clears the line first ("\r\033[K"), only when stderr is a
# terminal (here a pty made by script(1)); elsewhere no progress at all.
# A stand-in perf (MT_PERF) prints the 70000 lines.
. "$MT_TOP/tests/lib.sh"
command -v script >/dev/null 2>&1 || { echo "skipped: no script(1)"; exit 0; }

cat >fake-perf <<'P'
#!/bin/sh
[ "$1" = version ] && { echo "perf version 6.1.0"; exit 0; }
seq 70000
P
chmod +x fake-perf
MT_PERF=$PWD/fake-perf
export MT_PERF
# a perf.data header, enough for -i (no auxtrace feature)
{ printf 'PERFILE2'; head -c 96 /dev/zero; } >fake.data
seq 70000 >want

mt-record -i fake.data >out 2>err
same_file want out
[ ! -s err ] || fail "progress when stderr is not a terminal: $(cat err)"

script -qec "mt-record -i fake.data >out" typescript >/dev/null </dev/null ||
	fail "mt-record -i on a terminal failed: $(cat typescript)"
same_file want out
contains typescript "$(printf '\rmt-record: decoding: 65536 lines')"
contains typescript "$(printf '\r\033[Kmt-record: decoded 70000 lines')"
exit 0
