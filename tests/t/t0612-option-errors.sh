#!/bin/sh
# A bad option gets one line naming it (mt_getopt), then the usage, exit 2,
# nothing on standard output: an unknown option with the nearest one's
# name when it is close, an ambiguous abbreviation with its candidates, a
# value missing or not wanted. The program is named as mt_set_progname
# names it, not by the path it was run as (getopt's own message).
. "$MT_TOP/tests/lib.sh"

# bad TOOL WANT ARGS...: TOOL ARGS fails so
bad() {
	tool=$1 msg=$2
	shift 2
	expect_exit 2 "$MT_BIN/$tool" "$@" >out 2>err
	[ ! -s out ] || fail "$tool $*: wrote to standard output"
	[ "$(head -n 1 err)" = "$tool: $msg" ] || fail "$tool $*: $(head -n 1 err), not: $tool: $msg"
	sed -n 2p err | grep -q "^usage: $tool " || fail "$tool $*: no usage after the line: $(cat err)"
}
bad mt-fxt "unknown option '--jsn'; did you mean '--json'?" --jsn
bad mt-fxt "unknown option '--outptu'; did you mean '--output'?" --outptu x
bad mt-fxt "unknown option '--bakend'" --bakend
bad mt-fxt "option '--ver' is ambiguous: --verbose, --version" --ver
bad mt-fxt "option '--json' takes no value" --json=1
bad mt-fxt "option '--output' needs a value" --output
bad mt-fxt "option '-o' needs a value" -o
bad mt-fxt "unknown option '-x'" -x
bad mt-stacks "unknown option '--no-sprad'; did you mean '--no-spread'?" --no-sprad
bad mt-script-parse "unknown option '--verbsoe'; did you mean '--verbose'?" --verbsoe
bad mt-dump "unknown option '-v'" -v
bad mt-dump "option '--help' takes no value" --help=yes
bad mt-record "unknown option '--bakend'; did you mean '--backend'?" --bakend uprobe
bad mt-record "option '--trig' is ambiguous: --trigger, --trigger-via" --trig x
bad mt-record "option '--full' takes no value" --full=1 -- true
bad mt-record "option '--functions' needs a value" --functions
bad mt-record "option '-p' needs a value" -p
bad mt-record "unknown option '-x'" -x -- true
# an abbreviation of one option is that option
mt-mkstream >s.mt
mt-dump --id s.mt >a
mt-dump --ids s.mt >b
same_file a b
# mt-slice too
bad mt-slice "unknown option '--form'; did you mean '--from'?" --form 1ms
bad mt-slice "option '--m' is ambiguous: --min-duration, --max-depth, --match" --m x
bad mt-slice "option '--abs' takes no value" --abs=1
