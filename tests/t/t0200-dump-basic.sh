#!/bin/sh
# mt-dump prints every record type, with the escapes, NONE values, unknown
# kinds and flag bits, unknown skippable records and string redefinitions of
# mt-mkstream's stream, as tests/cases/dump/basic.expect says; --ids too.
. "$MT_TOP/tests/lib.sh"

mt-mkstream >s.mt

mt-dump s.mt >out 2>err
same_file "$CASES/dump/basic.expect" out
[ ! -s err ] || fail "stderr not empty: $(cat err)"

# standard input, by default and as -
mt-dump <s.mt >out
same_file "$CASES/dump/basic.expect" out
mt-dump - <s.mt >out
same_file "$CASES/dump/basic.expect" out
cat s.mt | mt-dump >out
same_file "$CASES/dump/basic.expect" out

mt-dump --ids s.mt >out 2>err
same_file "$CASES/dump/basic-ids.expect" out
[ ! -s err ] || fail "stderr not empty: $(cat err)"

# the two forms differ only in the string fields
strip='s/"([^"\\]|\\.)*"//g; s/#[0-9]+//g'
sed -E "$strip" "$CASES/dump/basic.expect" >a
sed -E "$strip" "$CASES/dump/basic-ids.expect" >b
grep -v STRING a >a2 || true
grep -v STRING b >b2 || true
same_file a2 b2

# a stream of many records (more than one read and write buffer) dumps
# completely: one line per record plus the header
mt-mkstream --repeat 30000 >big.mt
mt-dump big.mt >out
n=$(wc -l <out)
[ "$n" -eq $((49 + 30000 + 1)) ] || fail "big dump has $n lines"
tail -n 1 out | grep -q ' END records=30048 bytes=' || fail "bad END line: $(tail -n 1 out)"
head -n 48 out >head48
head -n 48 "$CASES/dump/basic.expect" >want48
same_file want48 head48

# a later minor version is read, and shown in the header line
mt-mkstream --flip 10 >minor.mt
mt-dump minor.mt >out
echo "0x00000000 HEADER version=1.253" >want # 2 (the minor) flipped
sed 1d "$CASES/dump/basic.expect" >>want
same_file want out
