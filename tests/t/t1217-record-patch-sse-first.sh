#!/bin/sh
# The patch backend moves an entry that starts with a 66-prefixed SSE load
# of a rip-relative constant (movdqa, ucomisd: libm's __acos, __asin,
# __fmod), whose displacement capstone 4 says is 2 bytes long (it is 4):
# python3 calling them 1000 times each prints what it prints untraced,
# and every call is a span.
. "$MT_TOP/tests/lib.sh"
py=/usr/bin/python3
[ -x $py ] || { echo "skip: no $py" >&2; exit 0; }
libm=$(ldconfig -p | sed -n 's/^[[:space:]]*libm\.so\.6 (libc6,x86-64) => //p' | head -n 1)
[ -n "$libm" ] && mt-symbols --match '^__(acos|asin|fmod)$' "$libm" | cut -f4 | sort -u >syms &&
	[ "$(wc -l <syms)" -eq 3 ] || { echo "skip: no __acos, __asin, __fmod in libm" >&2; exit 0; }
cat >m.py <<'PY'
import math
t = 0.0
for i in range(1000):
    t += math.acos((i % 100) / 100.0) + math.asin((i % 50) / 50.0) + math.fmod(i * 1.5, 7.25)
print(t)
PY
$py m.py >plain.out
mt-record -v --backend patch --functions '^__(acos|asin|fmod)$' -o m.mt -- $py m.py >traced.out 2>err ||
	{ cat err >&2; fail "mt-record failed"; }
same_file plain.out traced.out
for f in __acos __asin __fmod; do
	grep -q "^mt-record: $f (.*): patched$" err || fail "$f not patched: $(grep " $f " err)"
done
mt-stacks m.mt | mt-dump - >dump
for f in __acos __asin __fmod; do
	n=$(grep -c " SPAN .* name=\"$f\"" dump)
	[ "$n" -eq 1000 ] || fail "$f: $n spans, not 1000"
done
