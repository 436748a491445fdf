#!/bin/sh
# mt-dump's command line: --help matches the man page's SYNOPSIS, --version,
# and the exit codes of usage errors (2) and unreadable files (3).
. "$MT_TOP/tests/lib.sh"

man=$MT_TOP/docs/mt-dump.1

# the SYNOPSIS of the mdoc source as text: .Nm NAME, .Op Fl X, .Op Ar X
sed -n '/^\.Sh SYNOPSIS/,/^\.Sh /p' "$man" | sed '1d;$d' | sed \
	-e 's/\\-/-/g' \
	-e 's/^\.Nm //' \
	-e 's/^\.Op Fl \(.*\)/[-\1]/' \
	-e 's/^\.Op Ar \(.*\)/[\1]/' \
	-e 's/^\.Fl /-/' \
	-e 's/^\.Ar //' | tr '\n' ' ' | sed 's/ $//' >synopsis
echo >>synopsis
grep -q '^mt-dump ' synopsis || fail "no SYNOPSIS found in $man: $(cat synopsis)"

help_usage mt-dump | sed 's/^usage: //' >usage
same_file synopsis usage

# the same through the formatter, when there is one
if command -v groff >/dev/null 2>&1; then
	groff -mdoc -Tascii "$man" 2>/dev/null | col -b |
		sed -n '/^SYNOPSIS/{n;p;}' | sed 's/^ *//' >rendered
	same_file rendered usage
fi

mt-dump --version >out
echo "mt-dump (mt) 0.1" >want
same_file want out

# usage errors: the usage line on stderr, nothing on stdout, exit 2
mt-mkstream >s.mt
for args in "--bogus" "-x" "s.mt s.mt" "--ids=1 s.mt" "--help=yes"; do
	# shellcheck disable=SC2086
	expect_exit 2 mt-dump $args >out 2>err
	[ ! -s out ] || fail "mt-dump $args: output: $(cat out)"
	contains err "usage: $(cat synopsis)"
done

# a file that cannot be read: exit 3, the message names it
expect_exit 3 mt-dump no-such.mt >out 2>err
echo "mt-dump: no-such.mt: No such file or directory" >want
same_file want err
mkdir -p adir
expect_exit 3 mt-dump adir >out 2>err
contains err "mt-dump: adir: "

# options after the file and -- work as getopt has them
mt-dump s.mt --ids >out
same_file "$CASES/dump/basic-ids.expect" out
mt-dump -- s.mt >out
same_file "$CASES/dump/basic.expect" out
