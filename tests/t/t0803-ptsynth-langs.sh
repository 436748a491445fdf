#!/bin/sh
# ptsynth on C++ (exceptions through cleanups, templates) and Rust
# programs: perf's branches equal the truth's; mt-stacks --no-spread
# rebuilds the truth's spans except where the known limits say why not.
# tests/run: two at a time
. "$MT_TOP/tests/lib.sh"
. "$MT_TOP/tests/ptsynth/lib.sh"
ptsynth_need exceptions exceptions-recursive templates

# known limits: program and reason (none today; add "NAME) echo REASON ;;")
limit() {
	case $1 in
	esac
}

progs="exceptions exceptions-recursive templates"
if [ -x "$CORPUS/rust" ]; then
	progs="$progs rust"
else
	echo "rust: skipped (no rustc when the corpus was built)"
fi
bad=
for p in $progs; do
	pts_run "$p" fine
	pts_verdict "$p" "$(limit "$p")"
done
[ -z "$bad" ] || fail "spans differ from the truth for:$bad"
