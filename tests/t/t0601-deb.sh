#!/bin/sh
# make deb builds BUILD/mt-trace_VERSION-1_ARCH.deb, VERSION the tools' own
# (--version): every tool stripped in /usr/bin, every man page gzipped, the
# copyright and changelog in /usr/share/doc/mt-trace, root the owner of all,
# Depends from dpkg-shlibdeps plus linux-perf, and no lintian error or
# warning (when lintian is here). Installed with dpkg into a scratch root,
# whose own database it goes into (the machine's is left as it was), its
# tools run the README's pipeline to a trace fxt-check accepts and its man
# pages render, naming the directory the documents are really in.
. "$MT_TOP/tests/lib.sh"
for c in dpkg dpkg-deb dpkg-shlibdeps readelf; do
	command -v $c >/dev/null 2>&1 || { echo "skip: no $c"; exit 0; }
done
# every tool the Makefile builds
tools=$(make -s --no-print-directory -C "$MT_TOP" print-tools)
[ -n "$tools" ] || fail "no TOOLS in the Makefile"

# the tests' plain build, also in the ASan pass (a package of sanitized
# binaries is no package): make check's first pass has built it
build=$(dirname "$MT_BIN")
build=${build%/asan}
make -s -j2 -C "$MT_TOP" BUILD="$build" SAN= deb >make.out 2>make.log ||
	{ cat make.log make.out >&2; fail "make deb"; }
v=$("$build/bin/mt-fxt" --version | awk '{ print $3 }')
arch=$(dpkg --print-architecture)
deb=$build/mt-trace_$v-1_$arch.deb
[ "$(tail -n 1 make.out)" = "$deb" ] || { cat make.out >&2; fail "make deb did not print $deb"; }
[ -f "$deb" ] || fail "no $deb"

field() { dpkg-deb --field "$deb" "$1"; }
[ "$(field Package)" = mt-trace ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$v-1" ] || fail "Version: $(field Version), tools $v"
[ "$(field Architecture)" = "$arch" ] || fail "Architecture: $(field Architecture)"
[ "$(field Section)" = devel ] || fail "Section: $(field Section)"
[ "$(field Priority)" = optional ] || fail "Priority: $(field Priority)"
[ "$(field Recommends)" = fzf ] || fail "Recommends: $(field Recommends)"
field Installed-Size | grep -qx '[1-9][0-9]*' || fail "Installed-Size: $(field Installed-Size)"
field Depends | tr ',' '\n' | sed 's/^ *//; s/ .*//' >depends
for p in libc6 libdw1 libelf1 libpcre2-8-0 zlib1g linux-perf; do
	grep -qx "$p" depends || { cat depends >&2; fail "Depends has no $p"; }
done
dpkg-deb --info "$deb" >info
contains info ' md5sums '

dpkg-deb --contents "$deb" >contents
awk '$2 != "root/root"' contents >not-root
[ ! -s not-root ] || { cat not-root >&2; fail "files not owned by root"; }
has() { awk -v m="$1" -v f="$2" '$1 == m && $NF == f { ok = 1 } END { exit !ok }' contents ||
	{ cat contents >&2; fail "no $2 ($1) in the package"; }; }
for t in $tools; do
	has -rwxr-xr-x "./usr/bin/$t"
	has -rw-r--r-- "./usr/share/man/man1/$t.1.gz"
done
for f in copyright changelog.Debian.gz format.md fxt.md perf.md README.md; do
	has -rw-r--r-- "./usr/share/doc/mt-trace/$f"
done
has -rw-r--r-- ./usr/lib/mt/mt-dlfilter.so
has -rw-r--r-- ./usr/lib/mt/libmt-patch.so
has -rw-r--r-- ./usr/include/magic_trace.h
# nothing but those and the lintian overrides
{
	for t in $tools; do echo "./usr/bin/$t"; echo "./usr/share/man/man1/$t.1.gz"; done
	for f in copyright changelog.Debian.gz format.md fxt.md perf.md README.md; do
		echo "./usr/share/doc/mt-trace/$f"
	done
	echo ./usr/share/lintian/overrides/mt-trace
	echo ./usr/lib/mt/mt-dlfilter.so
	echo ./usr/lib/mt/libmt-patch.so
	echo ./usr/include/magic_trace.h
} | sort >want
awk '$1 !~ /^d/ { print $NF }' contents | sort >got
same_file want got

if command -v lintian >/dev/null 2>&1; then
	lintian --fail-on error,warning "$deb" >lintian.out 2>lintian.err ||
		{ cat lintian.out lintian.err >&2; fail "lintian"; }
	! grep '^[EW]: ' lintian.out || fail "lintian: errors or warnings"
else
	echo "skipped: lintian (not installed; scripts/deps.sh installs it)"
fi

# dpkg --root: the package goes into root/ and root/var/lib/dpkg, not the
# machine's /var/lib/dpkg (checked below); it has no maintainer scripts
# to run in a chroot, and its dependencies are the machine's, not root's
before=$(dpkg-query -W -f='${Status} ${Version}' mt-trace 2>/dev/null || :)
root=$PWD/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
: >"$root/var/lib/dpkg/status"
notroot=
[ "$(id -u)" -eq 0 ] || notroot=--force-not-root
dpkg --root="$root" --log="$PWD/dpkg.log" --force-script-chrootless --force-depends \
	$notroot -i "$deb" >dpkg.out 2>&1 || { cat dpkg.out >&2; fail "dpkg -i"; }
[ "$(dpkg-query -W -f='${Status} ${Version}' mt-trace 2>/dev/null || :)" = "$before" ] ||
	fail "the machine's dpkg database changed"
[ "$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Status} ${Version}' mt-trace)" = \
	"install ok installed $v-1" ] || fail "not installed in $root"

# the licence, as machine-readable copyright says it (SPDX "MIT"), and
# its text, the LICENSE file's
copyright=$root/usr/share/doc/mt-trace/copyright
grep -qx 'License: MIT' "$copyright" || fail "copyright: no 'License: MIT': $(cat "$copyright")"
grep -q 'Permission is hereby granted, free of charge' "$copyright" || fail "copyright: not MIT's text"
grep -q 'Permission is hereby granted, free of charge' "$MT_TOP/LICENSE" || fail "no LICENSE"

bin=$root/usr/bin
for t in $tools; do
	[ "$("$bin/$t" --version)" = "$t (mt) $v" ] || fail "$t --version"
	! readelf -S "$bin/$t" | grep -q '\.symtab' || fail "$t is not stripped"
done
readelf -S "$build/bin/mt-fxt" | grep -q '\.symtab' || fail "make deb stripped the build's mt-fxt"
gen-perf-script --lines 20000 --seed 4 --threads 2 |
	"$bin/mt-script-parse" | "$bin/mt-stacks" |
	"$bin/mt-slice" --min-duration 100ns 2>/dev/null | "$bin/mt-fxt" -o trace.fxt
fxt-check trace.fxt >check || { cat check >&2; fail "pipeline output"; }

# (troff's warnings, a line it cannot break, are lintian's to judge)
if command -v man >/dev/null 2>&1; then
	for t in $tools; do
		MANWIDTH=80 man -l "$root/usr/share/man/man1/$t.1.gz" >"$t.txt" 2>"$t.err" ||
			{ cat "$t.err" >&2; fail "man -l $t.1.gz"; }
		grep -q "^NAME" "$t.txt" || { cat "$t.txt" >&2; fail "$t.1.gz has no NAME"; }
		grep -q "^ *$t " "$t.txt" || { cat "$t.txt" >&2; fail "$t.1.gz does not name $t"; }
	done
	contains mt-dump.txt /usr/share/doc/mt-trace
	[ -f "$root/usr/share/doc/mt-trace/format.md" ] || fail "no format.md where mt-dump(1) says"
else
	echo "skipped: man -l (no man)"
fi
