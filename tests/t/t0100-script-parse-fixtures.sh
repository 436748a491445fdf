#!/bin/sh
# Every line of the real perf script output kept in ../shared/fixtures
# (magic-trace's tests and issues, old and new perf) parses with no error and
# no skipped line, each line becomes the record it should, and every branch
# record holds the addresses and names that its line printed.
. "$MT_TOP/tests/lib.sh"

for f in "$MT_FIXTURES"/perf-script/magic-trace-*.txt; do
	name=$(basename "$f")
	mt-script-parse "$f" >out.mt 2>err || { cat err >&2; fail "$name: exit $?"; }
	[ ! -s err ] || { cat err >&2; fail "$name: stderr not empty"; }
	mt-dump out.mt >dump || fail "$name: mt-dump"

	# one record per line, of the right type (counted independently)
	arrows=$(grep -c ' => ' "$f" || true)
	errors=$(grep -c '^ *instruction trace error' "$f" || true)
	marks=$(grep -v ' => ' "$f" | grep -c 'cbr: \|psb offs: \|payload: ' || true)
	heads=$(grep -c -v '^	\|^ *$' "$f" || true)
	samples=$((heads - arrows - errors - marks))
	for kind in BRANCH:$arrows ERROR:$errors MARK:$marks SAMPLE:$samples; do
		got=$(grep -c " ${kind%%:*} " dump || true)
		[ "$got" -eq "${kind#*:}" ] ||
			fail "$name: $got ${kind%%:*} records for ${kind#*:} lines"
	done
	frames=$(grep -c '^	' "$f" || true)
	got=$(sed -n 's/.* nframes=\([0-9]*\) .*/\1/p' dump | awk '{ n += $1 } END { print n + 0 }')
	# a sample header that printed its own ip adds one frame
	own=$(grep ' SAMPLE ' dump | grep -c -v 'nframes=0' || true)
	[ "$got" -ge "$frames" ] && [ "$got" -le $((frames + own)) ] ||
		fail "$name: $got frames in samples for $frames frame lines"

	# the k-th BRANCH record against the k-th line with ' => '
	grep ' => ' "$f" >arrows
	grep ' BRANCH ' dump >branches
	awk -v name="$name" '
	function tokhex(line, hex) {
		return line ~ ("(^|[ ])" hex "( |$)")
	}
	function field(rec, key,    i, s, q) {
		i = index(rec, " " key "=0x")
		s = substr(rec, i + length(key) + 4)
		ip[key] = substr(s, 1, index(s, " ") - 1)
		s = substr(s, index(s, " ") + 1)
		if (substr(s, 1, 1) == "\"") {
			q = index(substr(s, 2), "\"")
			sym[key] = substr(s, 2, q - 1)
		} else
			sym[key] = ""
	}
	NR == FNR { line[NR] = $0; n = NR; next }
	{
		k++
		field($0, "from"); field($0, "to")
		l = line[k]
		if (!tokhex(l, ip["from"]) || !tokhex(l, ip["to"])) {
			print name ": line " k ": addresses " ip["from"] " " ip["to"] " not in: " l
			bad++
		}
		if (sym["from"] != "" && !index(l, sym["from"]) ||
		    sym["to"] != "" && !index(l, sym["to"])) {
			print name ": line " k ": symbols not in: " l
			bad++
		}
		if (sym["to"] == "" && l ~ / => +[0-9a-f]+ [^[(]/ ) {
			print name ": line " k ": target symbol lost: " l
			bad++
		}
	}
	END {
		if (k != n) { print name ": " k " records for " n " lines"; bad++ }
		exit bad != 0
	}' arrows branches >&2 || fail "$name: branch records do not match their lines"
done
