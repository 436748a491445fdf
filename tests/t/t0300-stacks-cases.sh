#!/bin/sh
# Each tests/cases/stacks/*.t holds perf script lines (laid out as perf
# prints them) for a small program whose call spans are known, and the spans
# mt-stacks must write, in order, as mt-dump prints them without the offset,
# pid and dso columns. Sections:
#   --- input    perf script text (or --- stream: mt-asm text)
#   --- args     (optional) options for mt-stacks
#   --- expect   the SPAN lines
#   --- stderr   (optional) lines stderr must contain
# Every output also has to pass spans-check (Perfetto's nesting rules).
. "$MT_TOP/tests/lib.sh"

n=0
for t in "$CASES"/stacks/*.t; do
	n=$((n + 1))
	name=$(basename "$t" .t)
	rm -f input stream expect args stderr
	awk '/^--- [a-z]+$/ { f = $2; next } f { print > f }' "$t"
	touch args stderr
	if [ -f stream ]; then
		mt-asm stream >in.mt || fail "$name: mt-asm"
	else
		mt-script-parse input >in.mt || fail "$name: mt-script-parse"
	fi
	# shellcheck disable=SC2046
	mt-stacks $(cat args) in.mt >out.mt 2>err || { cat err >&2; fail "$name: mt-stacks exit $?"; }
	while IFS= read -r l; do
		[ -n "$l" ] && { grep -qF -- "$l" err || { cat err >&2; fail "$name: stderr lacks '$l'"; }; }
	done <stderr
	[ -s stderr ] || [ ! -s err ] || { cat err >&2; fail "$name: unexpected stderr"; }
	spans-check out.mt >check 2>&1 || { cat check >&2; fail "$name: spans-check"; }
	mt-dump out.mt | grep ' SPAN ' | cut -d' ' -f2- |
		sed -e 's/ pid=[^ ]*//' -e 's/ dso=.*$//' >got
	diff -u expect got >&2 || fail "$name: spans differ"
done
[ "$n" -gt 0 ] || fail "no cases found"
echo "$n cases"
