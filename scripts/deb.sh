#!/bin/sh
# scripts/deb.sh BUILD: make the Debian binary package of the tools built in
# BUILD (`make deb`). Stages them with `make install PREFIX=/usr
# DOCDIR=/usr/share/doc/PACKAGE` in BUILD/deb/debian/PACKAGE, strips the
# binaries there (`make install` keeps their symbols), compresses the man
# pages, adds the copyright, changelog.Debian.gz and lintian overrides
# (scripts/deb/), writes DEBIAN/control and DEBIAN/md5sums, and builds
# BUILD/PACKAGE_VERSION_ARCH.deb with root as the owner of every file.
# Prints the .deb's path.
#   DEB_PACKAGE     the package's name (mt-trace)
#   DEB_REVISION    the Debian revision after the tools' version (1)
#   DEB_MAINTAINER  "Name <address>" for Maintainer and the changelog
#   SOURCE_DATE_EPOCH  the changelog's date (default: the last commit's)
#   MAKE            the make that runs the install (make)
# Needs dpkg-dev (dpkg-shlibdeps) and binutils (strip).
set -eu
build=${1:?usage: scripts/deb.sh BUILD}
top=$(cd "$(dirname "$0")/.." && pwd)
case $build in /*) ;; *) build=$PWD/$build ;; esac
pkg=${DEB_PACKAGE:-mt-trace}
maint=${DEB_MAINTAINER:?DEB_MAINTAINER is not set}
# dpkg-shlibdeps wants a debian/control, which says nothing else it needs,
# and the binaries in a tree with a DEBIAN
stage=$build/deb
root=$stage/debian/$pkg
doc=$root/usr/share/doc/$pkg
rm -rf "$stage"
mkdir -p "$root/DEBIAN"
printf 'Source: mt\n\nPackage: %s\nArchitecture: any\n' "$pkg" >"$stage/debian/control"
${MAKE:-make} -C "$top" --no-print-directory -s install BUILD="$build" \
	DESTDIR="$root" PREFIX=/usr DOCDIR="/usr/share/doc/$pkg" >/dev/null

# the tools' own version, as mt-fxt --version prints it: "mt-fxt (mt) 0.1"
upstream=$("$root/usr/bin/mt-fxt" --version | awk '{ print $3 }')
version=$upstream-${DEB_REVISION:-1}
arch=$(dpkg --print-architecture)

# what dh_strip does to an executable
for f in "$root"/usr/bin/*; do
	${STRIP:-strip} --remove-section=.comment --remove-section=.note "$f"
done
# and to a shared object (the perf dlfilter)
for f in "$root"/usr/lib/mt/*.so; do
	${STRIP:-strip} --remove-section=.comment --remove-section=.note --strip-unneeded "$f"
done
gzip -9nf "$root"/usr/share/man/man1/*.1

install -m 644 "$top/scripts/deb/copyright" "$doc/copyright"
install -d "$root/usr/share/lintian/overrides"
sed "s/^mt-trace:/$pkg:/; s|/doc/mt-trace/|/doc/$pkg/|" "$top/scripts/deb/lintian-overrides" \
	>"$root/usr/share/lintian/overrides/$pkg"
chmod 644 "$root/usr/share/lintian/overrides/$pkg"
date=${SOURCE_DATE_EPOCH:-$(git -C "$top" log -1 --format=%ct 2>/dev/null || date +%s)}
{
	echo "$pkg ($version) unstable; urgency=medium"
	echo
	echo "  * Built from the mt sources by make deb."
	echo
	echo " -- $maint  $(LC_ALL=C date -u -R -d "@$date")"
} | gzip -9n >"$doc/changelog.Debian.gz"
chmod 644 "$doc/changelog.Debian.gz"

# the shared libraries' packages
bins=
for f in "$root"/usr/bin/*; do bins="$bins -edebian/$pkg/usr/bin/${f##*/}"; done
# the patch backend's runtime (libZydis)
for f in "$root"/usr/lib/mt/*.so; do bins="$bins -edebian/$pkg/usr/lib/mt/${f##*/}"; done
# shellcheck disable=SC2086 # one -e per binary
shlibs=$(cd "$stage" && dpkg-shlibdeps -O $bins | sed -n 's/^shlibs:Depends=//p')
[ -n "$shlibs" ] || { echo "deb: dpkg-shlibdeps found no libraries" >&2; exit 3; }

# Installed-Size as dpkg-gencontrol counts it: KiB per file, rounded up,
# and 1 for each directory and link
size=$(cd "$root" && find usr \( -type f -printf '%s\n' \) -o -printf '0\n' |
	awk '{ n += $1 ? int(($1 + 1023) / 1024) : 1 } END { print n }')

cat >"$root/DEBIAN/control" <<EOF
Package: $pkg
Version: $version
Architecture: $arch
Maintainer: $maint
Installed-Size: $size
Depends: $shlibs, linux-perf
Recommends: fzf
Section: devel
Priority: optional
Description: function-call timelines of programs, as Unix filters
 mt shows what a program did in its last few milliseconds, one function
 call at a time: a timeline of every call, captured with Intel Processor
 Trace through perf (or, on machines without it, with uprobes or
 sampling), viewed in Perfetto as a Fuchsia trace. It is a rebuild of
 Jane Street's magic-trace as small tools that compose in a shell:
 mt-record, mt-script-parse, mt-stacks, mt-fxt, mt-slice, mt-dump,
 mt-symbols, and mt, which runs them together.
EOF
(cd "$root" && find usr -type f | LC_ALL=C sort | xargs md5sum) >"$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

deb=$build/${pkg}_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
