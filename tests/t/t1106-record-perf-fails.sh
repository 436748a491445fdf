#!/bin/sh
# mt-record when perf is the problem, each failing fast with one clear
# message and exit 3, no hang, nothing left behind: perf missing, perf too
# old, perf failing to start (its own messages shown), perf dying while
# recording. A stand-in perf (MT_PERF) plays each part.
. "$MT_TOP/tests/lib.sh"
mkdir tmp
export TMPDIR="$PWD/tmp"
sleep 30 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT

MT_PERF=$PWD/no-such-perf expect_exit 3 mt-record --backend sample -p $pid >out 2>err
contains err "cannot run perf"

cat >old-perf <<'P'
#!/bin/sh
echo "perf version 4.19.0"
P
chmod +x old-perf
MT_PERF=$PWD/old-perf expect_exit 3 mt-record --backend sample -p $pid >out 2>err
contains err "perf 4.19 is too old"

# starts, complains, exits: its stderr is shown, within a second
cat >bad-perf <<'P'
#!/bin/sh
[ "$1" = version ] && { echo "perf version 6.1.0"; exit 0; }
echo "Error: some perf problem the user must see" >&2
exit 129
P
chmod +x bad-perf
t0=$(date +%s%N)
MT_PERF=$PWD/bad-perf expect_exit 3 mt-record --backend sample -p $pid >out 2>err
t1=$(date +%s%N)
[ $(((t1 - t0) / 1000000)) -lt 2000 ] || fail "took $(((t1 - t0) / 1000000)) ms"
contains err "Error: some perf problem the user must see"
contains err "perf record failed to start"

# acknowledges enable, then dies while recording
cat >dying-perf <<'P'
#!/bin/sh
[ "$1" = version ] && { echo "perf version 6.1.0"; exit 0; }
for a; do case $a in --control=fd:*) fds=${a#--control=fd:} ;; esac; done
ctl=${fds%,*} ack=${fds#*,}
read -r cmd <&"$ctl"
printf 'ack\n\0' >&"$ack"
sleep 0.3
echo "perf: lost its way" >&2
exit 1
P
chmod +x dying-perf
MT_PERF=$PWD/dying-perf expect_exit 3 mt-record --backend sample -p $pid >out 2>err
contains err "perf: lost its way"
contains err "perf record failed while recording"
kill -0 $pid || fail "the target died"
[ -z "$(ls tmp)" ] || fail "left in TMPDIR: $(ls tmp)"
