#!/bin/sh
# mt view serves the file on 127.0.0.1 until one GET from the UI (its
# Origin) has received all of it, then exits 0: it prints the ui.perfetto.dev address that loads it;
# the GET answers 200 with the file byte for byte, Content-Length and the
# CORS header for ui.perfetto.dev (or --origin); a preflight answers 204
# with the CORS and Private Network Access headers; other paths 404, other
# methods 405, other origins and hosts 403, and none of those (nor HEAD)
# end the serving. The file is under a secret token, /TOKEN/NAME (t1009).
# Names are percent-encoded. Usage and system errors.
. "$MT_TOP/tests/lib.sh"
# the scratch directory is shared by every test: work in one of our own
rm -rf t1003.d && mkdir t1003.d && cd t1003.d

command -v curl >/dev/null || fail "curl is needed (scripts/deps.sh)"
mt-script-parse "$MT_FIXTURES/perf-script/magic-trace-tests.txt" |
	mt-stacks 2>/dev/null | mt-fxt >one.fxt
# more than one 64 KiB read
cat one.fxt one.fxt one.fxt one.fxt one.fxt one.fxt >trace.fxt
size=$(wc -c <trace.fxt)

# serve FILE ARGS...: start mt view --no-open -p 0 ARGS FILE in the
# background; sets $pid, $ui (the printed address), $port, $base
# (http://127.0.0.1:PORT) and $at ($base/TOKEN, where the file is)
serve() {
	f=$1; shift
	rm -f url
	mt view --no-open -p 0 "$@" "$f" >url 2>err &
	pid=$!
	n=0
	while [ ! -s url ]; do
		n=$((n + 1))
		[ "$n" -lt 200 ] || { kill "$pid"; cat err >&2; fail "mt view printed no address"; }
		sleep 0.05
	done
	ui=$(cat url)
	port=$(echo "$ui" | sed -n 's|.*url=http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p')
	[ -n "$port" ] || fail "no port in $ui"
	base=http://127.0.0.1:$port
	tok=$(echo "$ui" | sed -n 's|.*url=http://127\.0\.0\.1:[0-9]*/\([0-9a-f]\{32\}\)/.*|\1|p')
	[ -n "$tok" ] || { kill "$pid"; fail "no token in $ui"; }
	at=$base/$tok
}

# stopped: mt view has exited 0 within 5 seconds
stopped() {
	n=0
	while kill -0 "$pid" 2>/dev/null; do
		n=$((n + 1))
		[ "$n" -lt 100 ] || { kill "$pid"; fail "mt view still serving"; }
		sleep 0.05
	done
	wait "$pid" || fail "mt view exited $?"
}

# req OUT ARGS...: curl ARGS, headers in OUT.h (without CRs), body in OUT
req() {
	o=$1; shift
	curl -sS --max-time 10 -D "$o.raw" -o "$o" "$@" || fail "curl $*: exit $?"
	tr -d '\r' <"$o.raw" >"$o.h"
}

serve trace.fxt
[ "$ui" = "https://ui.perfetto.dev/#!/?url=$at/trace.fxt" ] || fail "address: $ui"
contains err "mt: serving trace.fxt at $base/<token>/trace.fxt until it has been fetched once"

# a CORS preflight, as Chrome sends before a public site reads 127.0.0.1
req pre -X OPTIONS -H 'Origin: https://ui.perfetto.dev' \
	-H 'Access-Control-Request-Method: GET' \
	-H 'Access-Control-Request-Private-Network: true' "$at/trace.fxt"
head -1 pre.h | grep -q '^HTTP/1.1 204 ' || fail "preflight: $(head -1 pre.h)"
contains pre.h "Access-Control-Allow-Origin: https://ui.perfetto.dev"
contains pre.h "Access-Control-Allow-Private-Network: true"
contains pre.h "Access-Control-Allow-Methods: GET"
[ ! -s pre ] || fail "preflight has a body"

req nf "$at/other.fxt"
head -1 nf.h | grep -q '^HTTP/1.1 404 ' || fail "other path: $(head -1 nf.h)"
contains nf.h "Access-Control-Allow-Origin: https://ui.perfetto.dev"
req nf2 "$base/"
head -1 nf2.h | grep -q '^HTTP/1.1 404 ' || fail "/: $(head -1 nf2.h)"
req nf3 "$at/trace.fxt/x"
head -1 nf3.h | grep -q '^HTTP/1.1 404 ' || fail "/trace.fxt/x: $(head -1 nf3.h)"
req post -X POST -d x "$at/trace.fxt"
head -1 post.h | grep -q '^HTTP/1.1 405 ' || fail "POST: $(head -1 post.h)"
req evil -H 'Origin: https://evil.example' "$at/trace.fxt"
head -1 evil.h | grep -q '^HTTP/1.1 403 ' || fail "another origin: $(head -1 evil.h)"
req host -H 'Host: rebound.example' "$at/trace.fxt"
head -1 host.h | grep -q '^HTTP/1.1 403 ' || fail "another host: $(head -1 host.h)"
req head -I "$at/trace.fxt"
head -1 head.h | grep -q '^HTTP/1.1 200 ' || fail "HEAD: $(head -1 head.h)"
contains head.h "Content-Length: $size"
kill -0 "$pid" 2>/dev/null || fail "mt view stopped before the GET"

# the fetch: the file byte for byte, with its length and the CORS header
req body -H 'Origin: https://ui.perfetto.dev' "$at/trace.fxt"
head -1 body.h | grep -q '^HTTP/1.1 200 ' || fail "GET: $(head -1 body.h)"
contains body.h "Content-Length: $size"
contains body.h "Access-Control-Allow-Origin: https://ui.perfetto.dev"
contains body.h "Content-Type: application/octet-stream"
contains body.h "Cache-Control: no-cache"
cmp trace.fxt body || fail "the body is not the file"
stopped
contains err "mt: trace.fxt was fetched ($size bytes); stopped serving"
for r in "OPTIONS /<token>/trace.fxt: 204" "GET /<token>/other.fxt: 404" \
	"POST /<token>/trace.fxt: 405" "GET /<token>/trace.fxt: 403" \
	"HEAD /<token>/trace.fxt: 200" "GET /<token>/trace.fxt: 200"; do
	contains err "mt: $r"
done
# once only
set +e
curl -sS --max-time 5 -o /dev/null "$at/trace.fxt" 2>/dev/null
[ $? -eq 7 ] || fail "still answering after the fetch"
set -e

# a name to percent-encode, inside a directory; the address escapes the
# escapes once more for the UI's query
mkdir -p sub
cp one.fxt 'sub/my trace%&#.fxt'
serve 'sub/my trace%&#.fxt'
[ "$ui" = "https://ui.perfetto.dev/#!/?url=$at/my%2520trace%2525%2526%2523.fxt" ] ||
	fail "address: $ui"
req enc -H 'Origin: https://ui.perfetto.dev' "$at/my%20trace%25%26%23.fxt"
head -1 enc.h | grep -q '^HTTP/1.1 200 ' || fail "GET encoded: $(head -1 enc.h)"
cmp one.fxt enc || fail "the body of 'my trace%&#.fxt'"
stopped

# --origin: the address starts with it, the server lets it alone read
serve one.fxt --origin http://localhost:10000/
[ "$ui" = "http://localhost:10000/#!/?url=$at/one.fxt" ] || fail "--origin address: $ui"
req o1 -H 'Origin: https://ui.perfetto.dev' "$at/one.fxt"
head -1 o1.h | grep -q '^HTTP/1.1 403 ' || fail "ui.perfetto.dev with --origin: $(head -1 o1.h)"
req o2 -H 'Origin: http://localhost:10000' -H "Host: localhost:$port" "$at/one.fxt"
head -1 o2.h | grep -q '^HTTP/1.1 200 ' || fail "GET with --origin: $(head -1 o2.h)"
contains o2.h "Access-Control-Allow-Origin: http://localhost:10000"
cmp one.fxt o2 || fail "the body with --origin"
stopped

# the port in use
serve one.fxt
expect_exit 3 mt view --no-open -p "$port" one.fxt >out 2>err2
contains err2 "mt: 127.0.0.1:$port is in use"
[ ! -s out ] || fail "an address printed without a server"
req last -H 'Origin: https://ui.perfetto.dev' "$at/one.fxt"
stopped

# usage and system errors
expect_exit 2 mt view >out 2>err
contains err "usage: mt run "
expect_exit 2 mt view --no-open a.fxt b.fxt >out 2>err
expect_exit 2 mt view --no-open -p 65536 one.fxt >out 2>err
contains err "mt: -p 65536: expected a port number, 0 to 65535"
expect_exit 2 mt view --no-open -p 9x one.fxt >out 2>err
expect_exit 2 mt view --no-open --origin ui.perfetto.dev one.fxt >out 2>err
contains err "--origin ui.perfetto.dev: expected http://HOST or https://HOST"
expect_exit 2 mt view --no-open --bogus one.fxt >out 2>err
expect_exit 3 mt view --no-open no-such.fxt >out 2>err
contains err "mt: no-such.fxt: No such file or directory"
expect_exit 1 mt view --no-open sub/. >out 2>err
contains err "mt: sub/.: not a regular file"
expect_exit 2 mt view --no-open sub/ >out 2>err
