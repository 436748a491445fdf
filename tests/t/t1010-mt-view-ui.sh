#!/bin/sh
# mt view --ui DIR (issue 31): a local build of the Perfetto UI, served on
# the same port as the trace, so that nothing reaches the internet: the
# printed address is the UI's own, at http://127.0.0.1:PORT/, loading the
# trace from /TOKEN/NAME; DIR's files are served with the types a browser
# needs (a module script, WebAssembly), "/" its index.html; nothing outside
# DIR (.., %2e%2e, a link out of it, the trace's own directory), nor the
# trace without the token or to another origin (ui.perfetto.dev's now);
# it serves until Ctrl+C (SIGTERM here), the trace fetched or not. MT_PERFETTO_UI and
# magic-trace's MAGIC_TRACE_PERFETTO_DIR give DIR; a DIR without
# index.html is refused, as --ui with --origin.
. "$MT_TOP/tests/lib.sh"
rm -rf t1010.d && mkdir t1010.d && cd t1010.d
command -v curl >/dev/null || fail "curl is needed (scripts/deps.sh)"

mt-script-parse "$MT_FIXTURES/perf-script/magic-trace-tests.txt" | mt-stacks 2>/dev/null |
	mt-fxt >trace.fxt
mkdir -p ui/v47.0-abc
printf '<!doctype html><title>Perfetto UI</title>\n' >ui/index.html
printf 'export const x = 1;\n' >ui/v47.0-abc/frontend_bundle.js
printf '\000asm\001\000\000\000' >ui/v47.0-abc/trace_processor.wasm
echo "not the UI's" >secret.txt
ln -s ../secret.txt ui/link

# start CMD...: CMD (an mt view --no-open -p 0 ... trace.fxt) in the
# background; sets $pid, $addr (the printed address), $base, $url (the
# trace's)
start() {
	rm -f url
	"$@" >url 2>err &
	pid=$!
	wait_for test -s url || { kill "$pid"; fail "no address: $(cat err)"; }
	addr=$(cat url)
	base=$(echo "$addr" | sed -n 's|^\(http://127\.0\.0\.1:[0-9]*\)/#!/?url=.*|\1|p')
	url=$(echo "$addr" | sed -n 's|.*?url=||p')
	[ -n "$base" ] && [ -n "$url" ] || { kill "$pid"; fail "not the local UI's address: $addr"; }
	case $url in "$base"/[0-9a-f]*/trace.fxt) ;; *) kill "$pid"; fail "the trace's: $url" ;; esac
}
# get PATH [CURL ARGS...]: "CODE TYPE" of base/PATH, the body in body
get() {
	_p=$1; shift
	curl -sS --max-time 10 --path-as-is -o body -w '%{http_code} %{content_type}' "$@" "$base$_p"
}
view() { env MT_PERFETTO_UI= MAGIC_TRACE_PERFETTO_DIR= mt view --no-open -p 0 "$@"; }

start view --ui ui trace.fxt
[ "$(get /)" = "200 text/html; charset=utf-8" ] || fail "/: $(get /)"
cmp -s body ui/index.html || fail "/ is not index.html"
[ "$(get /index.html)" = "200 text/html; charset=utf-8" ] || fail "/index.html"
[ "$(get /v47.0-abc/frontend_bundle.js)" = "200 text/javascript; charset=utf-8" ] ||
	fail "the bundle: $(get /v47.0-abc/frontend_bundle.js)"
cmp -s body ui/v47.0-abc/frontend_bundle.js || fail "the bundle's bytes"
[ "$(get /v47.0-abc/trace_processor.wasm)" = "200 application/wasm" ] || fail "the wasm"
cmp -s body ui/v47.0-abc/trace_processor.wasm || fail "the wasm's bytes"
# the trace, to the UI's fetch (its origin: this server's), then again:
# the serving goes on
for i in 1 2; do
	code=$(curl -sS --max-time 10 -o got.fxt -w '%{http_code}' -H "Origin: $base" "$url")
	[ "$code" = 200 ] && cmp -s got.fxt trace.fxt || fail "fetch $i of the trace: $code"
done
kill -0 "$pid" || fail "mt view stopped after the trace's fetch: the UI may fetch more"
code=$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' -H "Origin: https://ui.perfetto.dev" "$url")
[ "$code" = 403 ] || fail "another origin: $code"
# nothing outside the directory
for p in /../secret.txt /%2e%2e/secret.txt /v47.0-abc/../../secret.txt /link /trace.fxt \
	/nope.js /v47.0-abc/; do
	r=$(get "$p")
	case $r in 404*) ;; *) fail "$p: $r" ;; esac
	! grep -q "not the UI's" body || fail "$p served the file outside"
done
# (a background job of a script ignores SIGINT: Ctrl+C's stand-in is TERM)
kill "$pid"
wait "$pid" 2>/dev/null || :
! kill -0 "$pid" 2>/dev/null || fail "mt view survived SIGTERM"
grep -q "and the Perfetto UI of $PWD/ui at $base/ until Ctrl+C" err || fail "$(cat err)"
! grep -q '[0-9a-f]\{32\}' err || fail "the token in the log"

# the environment gives the directory: mt's own, else magic-trace's
start env MT_PERFETTO_UI=ui mt view --no-open -p 0 trace.fxt
[ "$(get /)" = "200 text/html; charset=utf-8" ] || fail "MT_PERFETTO_UI"
kill "$pid"; wait "$pid" 2>/dev/null || :
start env MT_PERFETTO_UI= MAGIC_TRACE_PERFETTO_DIR=ui mt view --no-open -p 0 trace.fxt
[ "$(get /)" = "200 text/html; charset=utf-8" ] || fail "MAGIC_TRACE_PERFETTO_DIR"
kill "$pid"; wait "$pid" 2>/dev/null || :

# refused
mkdir empty
expect_exit 1 view --ui empty trace.fxt 2>err
contains err "empty: no index.html"
expect_exit 2 view --ui ui --origin http://localhost:8000 trace.fxt 2>err
contains err "--ui and --origin"
