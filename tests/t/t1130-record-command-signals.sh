#!/bin/sh
# The command mt-record starts gets the signals as mt-record found them,
# not as mt-record set them for itself (SIGINT, SIGTERM and SIGHUP
# blocked, SIGPIPE ignored): the same blocked and ignored sets as a
# command the shell starts, so that kill and Ctrl+C reach it and a
# closed pipe ends it (yes | head), with every backend.
. "$MT_TOP/tests/lib.sh"
command -v perf >/dev/null 2>&1 || fail "perf not installed (make deps installs linux-perf)"

# what the shell gives a command
grep -E '^Sig(Blk|Ign):' /proc/self/status >want
for be in sample uprobe; do
	fn=
	if [ "$be" = uprobe ]; then
		need_uprobes
		fn="--functions ^malloc$" # in libc: grep and sh are stripped
	fi
	mt-record --backend $be $fn -o $be.txt -- grep -E '^Sig(Blk|Ign):' /proc/self/status \
		>got 2>err || { cat err >&2; fail "$be: mt-record failed"; }
	diff want got >diff || fail "$be: the command's signals differ from the shell's: $(cat diff)"
	mt-record --backend $be $fn -o $be-pipe.txt -- sh -c 'yes | head -n 1' >out 2>err ||
		{ cat err >&2; fail "$be: mt-record -- sh -c 'yes | head -n 1' failed"; }
	[ "$(cat out)" = y ] || fail "$be: yes | head printed $(head -c 100 out)"
	grep -q 'Broken pipe' err && fail "$be: yes saw EPIPE, not SIGPIPE: $(cat err)"
done
# a signal the caller ignored stays ignored (nohup's SIGHUP)
nohup mt-record --backend sample -o nh.txt -- grep '^SigIgn:' /proc/self/status \
	>got 2>err || { cat err >&2; fail "nohup mt-record failed"; }
nohup grep '^SigIgn:' /proc/self/status >want 2>/dev/null
diff want got >diff || fail "under nohup the command's ignored signals differ: $(cat diff)"
exit 0
