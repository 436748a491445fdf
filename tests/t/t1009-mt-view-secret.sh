#!/bin/sh
# mt view serves the file at /TOKEN/NAME only, TOKEN 32 hex digits of
# random bytes, new for every run, printed in the address on stdout and
# nowhere else: another local user, who can connect to 127.0.0.1 but was
# not shown the address, gets 404 for the bare /NAME, a wrong token of the
# same length, a truncated or longer one, with or without the UI's Origin,
# and none of those fetches the file or ends the serving; the printed
# address then serves it byte for byte, and the serving ends.
. "$MT_TOP/tests/lib.sh"
# the scratch directory is shared by every test: work in one of our own
rm -rf t1009.d && mkdir t1009.d && cd t1009.d

command -v curl >/dev/null || fail "curl is needed (scripts/deps.sh)"
mt-script-parse "$MT_FIXTURES/perf-script/magic-trace-tests.txt" |
	mt-stacks 2>/dev/null | mt-fxt >secret.fxt
ORIGIN='Origin: https://ui.perfetto.dev'
# a failure leaves no server behind
pids=
trap 'kill $pids 2>/dev/null || :' EXIT

# serve N: start mt view --no-open -p 0 secret.fxt in the background, its
# output in N.out and N.err; sets $pid, $port and $base
serve() {
	mt view --no-open -p 0 secret.fxt >"$1.out" 2>"$1.err" &
	pid=$!
	pids="$pids $pid"
	wait_for test -s "$1.out" || { kill "$pid"; cat "$1.err" >&2; fail "mt view printed no address"; }
	port=$(sed -n 's|.*url=http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$1.out")
	[ -n "$port" ] || fail "no port in $(cat "$1.out")"
	base=http://127.0.0.1:$port
}

# token N: the token in N.out's address, checked: 32 lowercase hex digits
token() {
	t=$(sed -n 's|.*url=http://127\.0\.0\.1:[0-9]*/\([^/]*\)/secret\.fxt$|\1|p' "$1.out")
	echo "$t" | grep -qx '[0-9a-f]\{32\}' || fail "no token of 32 hex digits in $(cat "$1.out")"
	echo "$t"
}

# refused WHAT URL CURL-ARGS...: URL answers 404 with no byte of the file,
# and mt view goes on serving
refused() {
	what=$1 url=$2; shift 2
	curl -sS --max-time 10 -D h.raw -o body "$@" "$url" || fail "$what: curl exit $?"
	tr -d '\r' <h.raw >h
	head -1 h | grep -q '^HTTP/1.1 404 ' || fail "$what: $(head -1 h)"
	contains h "Content-Length: 10" # "not found", not the file
	[ "${1-}" = -I ] || [ "$(cat body)" = "not found" ] || fail "$what: a body other than 'not found'"
	kill -0 "$pid" 2>/dev/null || fail "$what ended the serving"
}

stopped() {
	wait_for sh -c "! kill -0 $pid 2>/dev/null" || { kill "$pid"; fail "mt view still serving"; }
	wait "$pid" || fail "mt view exited $?"
}

# who was not shown the address: the bare name, as the UI, as curl, HEAD
serve one
pid1=$pid
refused "GET /secret.fxt as the UI" "$base/secret.fxt" -H "$ORIGIN"
refused "GET /secret.fxt" "$base/secret.fxt"
refused "HEAD /secret.fxt" "$base/secret.fxt" -I -H "$ORIGIN"
refused "GET /secret.fxt?x" "$base/secret.fxt?x" -H "$ORIGIN"

# guesses of the token
tok=$(token one)
wrong=$(echo "$tok" | tr '0-9a-f' '1-9a-f0')
short=$(echo "$tok" | cut -c1-31)
last=$short$(echo "$tok" | cut -c32 | tr '0-9a-f' '1-9a-f0')
half=$(echo "$tok" | cut -c1-16)
upper=$(echo "$tok" | tr 'a-f' 'A-F')
for guess in "$wrong" "$last" "$short" "$half" "${tok}0" "0$tok" "$upper"; do
	[ "$guess" != "$tok" ] || continue # no hex letter in it to make upper case
	refused "GET /$guess/secret.fxt" "$base/$guess/secret.fxt" -H "$ORIGIN"
done
refused "GET /TOKEN" "$base/$tok" -H "$ORIGIN"
refused "GET /TOKEN/" "$base/$tok/" -H "$ORIGIN"
refused "GET /TOKENsecret.fxt" "$base/${tok}secret.fxt" -H "$ORIGIN"
refused "GET /secret.fxt/TOKEN" "$base/secret.fxt/$tok" -H "$ORIGIN"

# every run has a token of its own
serve two
pid2=$pid
tok2=$(token two)
[ "$tok2" != "$tok" ] || fail "two runs printed the same token $tok"

# the printed address: the file byte for byte, then the serving ends; the
# token is in the address on stdout alone, never in the log
for n in one two; do
	if [ $n = one ]; then pid=$pid1; else pid=$pid2; fi
	url=$(sed 's|.*url=||' $n.out)
	curl -sS --max-time 10 -H "$ORIGIN" -o $n.body "$url" || fail "the printed address: curl exit $?"
	cmp secret.fxt $n.body || fail "the body at the printed address is not the file"
	stopped
	contains $n.err "mt: secret.fxt was fetched ($(wc -c <secret.fxt) bytes); stopped serving"
	contains $n.err "mt: GET /<token>/secret.fxt: 200"
done
grep -iF -e "$tok" -e "$tok2" one.err two.err && fail "the token in the log"
[ "$(grep -c "^mt: GET /<token>/secret.fxt: 200" one.err)" -eq 1 ] || fail "not one fetch"
:
