#!/bin/sh
# ptsynth on a program that calls a stripped shared library whose own code
# (without symbols: [unknown]) calls strlen through a lazily bound PLT. The
# stub's first jump goes to the PLT header, [unknown] code of the caller's
# own file: a tail call, not an unwind to that caller (docs/mt-stacks.1,
# Rules). perf's branches must equal the truth's, and perf script |
# mt-script-parse | mt-stacks --no-spread must rebuild the truth's spans.
# tests/run: two at a time
. "$MT_TOP/tests/lib.sh"
. "$MT_TOP/tests/ptsynth/lib.sh"
ptsynth_need
for c in gcc strip; do
	command -v "$c" >/dev/null 2>&1 || { echo "skipped: no $c"; exit 0; }
done

cat >lib.c <<'EOF'
#include <string.h>

__attribute__((noinline)) static size_t inner(const char *s)
{
	return strlen(s) + (size_t)s[0];
}

size_t lib_entry(const char *s)
{
	return inner(s) + inner(s + 1);
}
EOF
cat >main.c <<'EOF'
#include <stddef.h>

size_t lib_entry(const char *s);

int main(void)
{
	return lib_entry("hello") == 0;
}
EOF
# lazy binding in both, whatever the compiler's default
gcc -O1 -fPIC -shared -Wl,-z,lazy -o libunsym.so lib.c
strip libunsym.so
gcc -O1 -Wl,-z,lazy -o plt-unsym main.c -L. -lunsym -Wl,-rpath,"$(pwd)"
# pts_run traces $CORPUS/NAME
# shellcheck disable=SC2034
CORPUS=$(pwd)

bad=
pts_run plt-unsym fine
pts_verdict plt-unsym ""
[ -z "$bad" ] || fail "spans differ from the truth for:$bad"
# the case the test is about happened: a jump from the PLT stub into
# unsymbolised code of the library
grep -q 'jmp .* strlen@plt+0x[0-9a-f]* ([^)]*libunsym.so) => .* \[unknown\] ([^)]*libunsym.so)' \
	plt-unsym-fine.perf || fail "no jump from strlen@plt to the library's PLT header"
