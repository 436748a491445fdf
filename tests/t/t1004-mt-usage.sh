#!/bin/sh
# mt's command line: --help prints the man page's SYNOPSIS (four forms, one
# line each), for mt and after each command; usage errors exit 2 with the
# usage on stderr and never start mt-record.
. "$MT_TOP/tests/lib.sh"
# the scratch directory is shared by every test: work in one of our own
rm -rf t1004.d && mkdir t1004.d && cd t1004.d
# mt attach without -p runs fzf: never interactively here, even when make
# check runs in a terminal; exact, not fuzzy: a long command line of some
# other process on the machine can hold the letters of any pattern in order
FZF_DEFAULT_OPTS="--exact --filter=zz-no-such-process-$$-zz"
export FZF_DEFAULT_OPTS

# synopsis knows .Nm, .Op, .Fl and .Ar: the commands (.Cm) read as .Ar
sed 's/^\.Cm /.Ar /' "$MT_TOP/docs/mt.1" >mt.1
synopsis mt.1 >syn
grep -q '^mt run ' syn || fail "no SYNOPSIS in the man page"
for args in "" run attach decode view; do
	# shellcheck disable=SC2086 # the command is one word or none
	help_usage mt $args >usage
	[ "$(wc -l <usage)" -eq 4 ] || fail "mt $args --help: not 4 lines"
	sed 's/^usage: //; s/^ *//' usage | tr '\n' ' ' | sed 's/ $//' >joined
	echo >>joined
	same_file syn joined
done
grep -q '^       mt view ' usage || fail "the forms are not aligned under usage:"
mt --version | grep -q '^mt (mt) ' || fail "mt --version"

MT_RECORD=$PWD/rec
export MT_RECORD
printf '#!/bin/sh\n: >"%s/ran"\n' "$PWD" >rec
chmod +x rec

# usage ARGS...: mt ARGS exits 2, mt-record not run
usage() {
	expect_exit 2 mt "$@" >out 2>err
	[ ! -e ran ] || fail "mt $*: mt-record ran"
	[ ! -s out ] || fail "mt $*: stdout: $(cat out)"
}
usage
contains err "usage: mt run [-v] [-o output] [record-option ...] -- command [argument ...]"
usage bogus
contains err "mt: bogus: not a command: run, attach, decode or view"
usage --bogus
usage run
contains err "mt: run: give the command after --"
usage run ./prog
usage run -v
usage run -- 
contains err "mt: run: no command after --"
usage run -o
contains err "mt: option '-o' needs a value"
contains err "usage: mt run"
usage run --output
usage run -o '' -- ./prog
contains err "mt: -o: an empty file name"
usage attach
contains err "mt: attach: give the process with -p pid"
usage attach --kernel
usage attach -- -p 1
usage decode
contains err "mt: decode: give the perf.data file last"
usage decode --timing
usage decode -o x.fxt
usage decode -- a b
contains err "mt: decode: give one file after --"
usage decode --
usage view
usage view --no-open

# mt(1) names every option mt passes on to mt-record (all of mt-record's
# but -o, -v and -i, which mt run and mt decode handle themselves)
mt-record --help | tr ' []' '\n\n\n' | grep '^-' | sort -u |
	grep -v -x -e -o -e -v -e -i -e -- -e --help -e --version >record-opts
[ -s record-opts ] || fail "no options in mt-record --help"
sed -n '/^\.It Ar record-option/,/^\.El/p' "$MT_TOP/docs/mt.1" |
	sed -n 's/^\.Fl \(\\-\)\{0,1\}\([a-z-]*\).*/\1\2/p' | sed 's/^\\-/--/; s/^\([a-z]\)$/-\1/' |
	sort -u >mt1-opts
missing=$(comm -23 record-opts mt1-opts | tr '\n' ' ')
[ -z "$missing" ] || fail "mt(1) does not name these mt-record options: $missing"
