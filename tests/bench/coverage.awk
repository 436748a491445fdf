# tests/bench/coverage.awk: one program's table for tests/bench/85-coverage.sh,
# read from what `mt-record --backend patch --functions . -v` wrote on its
# standard error. Variables (awk -v): prog (a short name), label (the
# command), walkers (the names of shm.h's MTP_WALKERS, space-separated), tw
# and uw (the best traced and untraced wall seconds), ow (the best traced
# with malloc alone patched), nw (the best traced without the cache), verbose (1: the first 10 names of each reason
# too), left (a file each function left alone is appended to: prog,
# reason, name, file), summary (a file the line "prog considered patched
# entered coverage tw uw us fixed rest" is appended to).
# A line whose reason it does not know, or a list that disagrees with
# mt-record's own counts, is said on the standard error ("bench: ...").

# a reason of mt-record -v (patch-rec.c's status_text), as a short name
function reason(why) {
	if (why == "patched") return "patched"
	if (why ~ /^wrapped/) return "wrapped"
	if (why ~ /^too short/) return "too short (< 5 bytes)"
	if (why ~ /^its size is unknown/) return "no size"
	if (why ~ /^an instruction capstone cannot/) return "undecodable"
	if (why ~ /^a branch into the bytes/) return "branch in"
	if (why ~ /^an instruction that cannot be moved/) return "unrelocatable"
	if (why ~ /^no room/) return "no room (2 GiB)"
	if (why ~ /^an alias/) return "alias"
	if (why ~ /^writing its entry/) return "write failed"
	if (why ~ /^too many copies/) return "too many copies"
	if (why ~ /^not entered by a call/) return "not called"
	if (why ~ /^libgcc's unwinder/) return "unwinder"
	if (why ~ /^it returns twice/) return "returns twice"
	if (why ~ /^the patch runtime/) return "runtime"
	if (why ~ /^a thread stopped/) return "busy"
	if (why ~ /^a part of another/) return "part (.cold)"
	if (why ~ /^the runtime's answer/) return "bad answer"
	if (why ~ /^another tracer/) return "breakpoint"
	if (why ~ /^its file is not mapped/) return "not loaded"
	if (why ~ /^not patched/) return "pending"
	printf "bench: %s: a reason this table does not know: %s\n", prog, why >"/dev/stderr"
	return why
}
BEGIN {
	n = split(walkers, w, " ")
	for (i = 1; i <= n; i++) walker[w[i]] = 1
	n = split("alias,not called,unwinder,returns twice,part (.cold),runtime", w, ",")
	for (i = 1; i <= n; i++) { aside[w[i]] = 1; aside_order[i] = w[i] }
	naside = n
	n = split("too short (< 5 bytes),no size,undecodable,branch in,unrelocatable," \
		"no room (2 GiB),write failed,busy,breakpoint,bad answer,not loaded," \
		"too many copies,pending", w, ",")
	for (i = 1; i <= n; i++) against_order[i] = w[i]
	nagainst = n
}
# mt-record: patched N functions; M left alone (-v lists them and why)
/^mt-record: patched [0-9]+ function/ {
	said_patched = $3
	said_left = $0 ~ /left alone/ ? $5 : 0
	next
}
# mt-record: NAME (FILE): WHY, FILE an absolute path
/^mt-record: / && match($0, / \(\/[^()]*\): /) {
	name = substr($0, 12, RSTART - 12)
	file = substr($0, RSTART + 2, RLENGTH - 5)
	r = reason(substr($0, RSTART + RLENGTH))
	files[file] = 1
	if (name in walker) {
		nwalk++
		if (r == "wrapped") nwrapped++
		else if (r != "alias") {
			# a walker left alone: its wrapper never runs
			print prog "\twalker: " r "\t" name "\t" file >>left
		}
		next
	}
	considered++
	count[r]++
	if (r == "patched") next
	print prog "\t" r "\t" name "\t" file >>left
	if (count[r] <= 10) names[r, count[r]] = name
}
# a reason's count, and with -v its first 10 names, wrapped
function row(r,    i, line, n) {
	printf "  %-34s %7d\n", r, count[r]
	if (verbose != 1 || !count[r]) return
	n = count[r] < 10 ? count[r] : 10
	line = "     "
	for (i = 1; i <= n; i++) {
		if (length(line) > 5 && length(line) + length(names[r, i]) > 92) {
			print line ","
			line = "     "
		}
		line = line (length(line) > 5 ? ", " : " ") names[r, i]
	}
	print line (count[r] > n ? ", ... (" count[r] - n " more)" : "")
}
END {
	nfiles = 0
	for (f in files) nfiles++
	printf "-- %s: %d files\n", label, nfiles
	printf "%-36s %7d   (and %d walker rows, %d wrapped)\n", "functions considered",
		considered, nwalk, nwrapped
	printf "%-36s %7d\n", "patched", count["patched"]
	done["patched"] = 1
	# the reasons up to unrelocatable, and those of the second list
	# but the runtime, always; the others when they occur
	print "left alone, counted against coverage:"
	for (i = 1; i <= nagainst; i++) {
		r = against_order[i]; done[r] = 1
		if (count[r] || i <= 5) { row(r); against += count[r] }
	}
	for (r in count) if (!(r in done) && !(r in aside)) {
		row(r); against += count[r]
	}
	print "left alone, not entered by a call (set aside):"
	for (i = 1; i <= naside; i++) {
		r = aside_order[i]
		if (count[r] || r != "runtime") { row(r); set_aside += count[r] }
	}
	entered = considered - set_aside
	# what the list says against the counts mt-record prints (its
	# left alone: not patched, not an alias, not a walker)
	if (said_patched != count["patched"] ||
	    said_left != considered - count["patched"] - count["alias"])
		printf "bench: %s: mt-record said %d patched, %d left alone; its -v list reads %d, %d\n",
			prog, said_patched, said_left, count["patched"],
			considered - count["patched"] - count["alias"] >"/dev/stderr"
	cov = entered ? 100 * count["patched"] / entered : 0
	us = considered ? (tw - uw) / considered * 1e6 : 0
	printf "%-36s %7d   (%d patched, %d left alone)\n", "entered by a call", entered,
		count["patched"], against
	printf "%-36s %7.2f%%\n", "coverage", cov
	fixed = ow - uw
	rest = considered > 1 ? (tw - ow) / (considered - 1) * 1e6 : 0
	printf "%-36s %7.1f   (traced %.3f s, untraced %.3f s)\n", "preparing, us/function",
		us, tw, uw
	printf "%-36s %7.3f   (traced with malloc alone %.3f s)\n", "  fixed, s", fixed, ow
	printf "%-36s %7.1f\n", "  the rest, us/function", rest
	first = considered ? (nw - uw) / considered * 1e6 : 0
	printf "%-36s %7.1f   (traced %.3f s, MT_CACHE=off)\n", "without the cache, us/function",
		first, nw
	printf "%s %d %d %d %.2f %.3f %.3f %.1f %.3f %.1f %.1f\n", prog, considered, count["patched"],
		entered, cov, tw, uw, us, fixed, rest, first >>summary
}
