# Sourced by every tests/t/tNNNN-*.sh. The script runs in a scratch
# directory; $MT_BIN holds the tools, $MT_TESTBIN the test helpers,
# $MT_FIXTURES the shared fixtures, $MT_TOP the source tree.
# A test fails by calling fail (or by exiting non-zero: scripts use set -e).
set -eu
PATH="$MT_BIN:$MT_TESTBIN:$PATH"
CASES="$MT_TOP/tests/cases"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# expect_exit CODE CMD...: run CMD, fail unless it exits with CODE.
expect_exit() {
	want=$1; shift
	set +e; "$@"; got=$?; set -e
	[ "$got" -eq "$want" ] || fail "'$*' exited $got, expected $want"
}

# same_file EXPECTED ACTUAL: fail with a diff if they differ.
same_file() {
	diff -u "$1" "$2" >&2 || fail "$2 differs from $1"
}

# contains FILE TEXT: fail unless FILE contains the fixed string TEXT.
contains() {
	grep -qF -- "$2" "$1" || { sed 's/^/    | /' "$1" >&2; fail "$1 does not contain '$2'"; }
}

# synopsis MANPAGE: the SYNOPSIS of an mdoc page as one line of text, the
# way --help prints it after "usage: ".
synopsis() {
	sed -n '/^\.Sh SYNOPSIS/,/^\.Sh /p' "$1" | sed '1d;$d' | sed \
		-e 's/\\-/-/g' \
		-e 's/^\.Nm //' \
		-e 's/^\.Op Fl \([^ ]*\) Ar \(.*\)/[-\1 \2]/' \
		-e 's/^\.Op Fl \(.*\)/[-\1]/' \
		-e 's/^\.Op Ar \(.*\)/[\1]/' \
		-e 's/^\.Fl /-/' \
		-e 's/^\.Ar //' | tr '\n' ' ' | sed 's/ $//'
	echo
}
