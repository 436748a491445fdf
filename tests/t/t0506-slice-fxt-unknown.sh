#!/bin/sh
# FXT records of a type mt-slice does not know are copied by their size,
# never misread: the records after them come through intact.
. "$MT_TOP/tests/lib.sh"

gen-perf-script --lines 3000 --seed 2 | mt-script-parse | mt-stacks | mt-fxt >t.fxt
# the magic and the provider record (24 bytes), then a record of type 12 and
# size 3 words holding 16 bytes of text, then the rest of the file
head -c 24 t.fxt >u.fxt
printf '\074\000\000\000\000\000\000\000UNKNOWNRECORD!!!' >>u.fxt
tail -c +25 t.fxt >>u.fxt
mt-slice --from 0ns --min-duration 0ns u.fxt >out.fxt
grep -a -c 'UNKNOWNRECORD!!!' out.fxt >n
[ "$(cat n)" -eq 1 ] || fail "the unknown record was not copied"
fxt-check --slices t.fxt 2>/dev/null | sort >want
fxt-check --slices out.fxt 2>/dev/null | sort >got
same_file want got
