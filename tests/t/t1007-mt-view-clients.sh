#!/bin/sh
# mt view with clients that misbehave, on real sockets on 127.0.0.1: a
# client that asks for the file and never reads, and 70 connections that
# send nothing, do not hold off the UI's request, answered at once; a GET
# without the UI's Origin (a no-cors <img> of another page, or curl) is
# answered but is not the fetch; a request's path and method reach the log
# quoted, never as terminal escapes; a FIFO is refused at once.
. "$MT_TOP/tests/lib.sh"
# the scratch directory is shared by every test: work in one of our own
rm -rf t1007.d && mkdir t1007.d && cd t1007.d

command -v curl >/dev/null || fail "curl is needed (scripts/deps.sh)"
perl -MIO::Socket::INET -e 1 || fail "perl's IO::Socket::INET is needed"
mt-script-parse "$MT_FIXTURES/perf-script/magic-trace-tests.txt" |
	mt-stacks 2>/dev/null | mt-fxt >one.fxt
# far more than the socket buffers hold: a reader that stops stalls
for i in 1 2 3 4 5 6 7 8; do cat one.fxt one.fxt one.fxt one.fxt one.fxt; done >five.fxt
for i in 1 2 3 4 5 6 7 8; do cat five.fxt; done >big.fxt
ORIGIN='Origin: https://ui.perfetto.dev'

# hold N PORT MODE PATH: N connections held open (idle: nothing sent; stall: a
# GET of /PATH from the UI, never read) until killed, 60 s at most;
# sets $holder; "held" appears when they are all open
cat >hold.pl <<'EOF'
use IO::Socket::INET;
my ($n, $port, $mode, $name) = @ARGV;
my @s;
for (1 .. $n) {
	# a server that keeps too few leaves the rest in its backlog, or
	# unanswered: go on
	my $c = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Proto => 'tcp',
		Timeout => 0.05) or next;
	print $c "GET /$name HTTP/1.1\r\nHost: 127.0.0.1:$port\r\nOrigin: https://ui.perfetto.dev\r\n\r\n"
		if $mode eq 'stall';
	setsockopt($c, SOL_SOCKET, SO_RCVBUF, 4096);
	push @s, $c;
}
open(my $f, '>', 'held') or die; close $f;
sleep 60;
EOF
hold() {
	rm -f held
	perl hold.pl "$@" &
	holder=$!
	wait_for test -e held || { kill "$holder" "$pid" 2>/dev/null; fail "the connections were not made"; }
}
unhold() {
	kill "$holder" 2>/dev/null || :
	wait "$holder" 2>/dev/null || :
}

serve() {
	f=$1; shift
	rm -f url
	mt view --no-open -p 0 "$@" "$f" >url 2>err &
	pid=$!
	wait_for test -s url || { kill "$pid"; cat err >&2; fail "mt view printed no address"; }
	port=$(sed -n 's|.*url=http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' url)
	[ -n "$port" ] || fail "no port in $(cat url)"
	tok=$(sed -n 's|.*url=http://127\.0\.0\.1:[0-9]*/\([0-9a-f]\{32\}\)/.*|\1|p' url)
	[ -n "$tok" ] || { kill "$pid"; fail "no token in $(cat url)"; }
	base=http://127.0.0.1:$port
	at=$base/$tok
}
stopped() {
	wait_for sh -c "! kill -0 $pid 2>/dev/null" || { kill "$pid"; fail "mt view still serving"; }
	wait "$pid" || fail "mt view exited $?"
}
# fetch OUT: the UI's request, answered within 10 seconds or failed
fetch() {
	set +e
	curl -sS --max-time 10 -H "$ORIGIN" -o "$1" "$at/big.fxt"
	st=$?
	set -e
	[ $st -eq 0 ] || { unhold; kill "$pid"; fail "the UI's request was not answered: curl $st"; }
	cmp big.fxt "$1" || fail "the body is not the file"
}

# a client that asks for the file and never reads
serve big.fxt
hold 1 "$port" stall "$tok/big.fxt"
fetch body1
stopped
unhold
contains err "mt: big.fxt was fetched"

# 70 idle connections, more than the server keeps
serve big.fxt
hold 70 "$port" idle "$tok/big.fxt"
fetch body2
stopped
unhold

# a GET without Origin (a no-cors request of another page) is served but
# does not end the serving: the UI's fetch still finds the server
serve one.fxt
curl -sS --max-time 10 -o nocors "$at/one.fxt" || fail "no-cors GET"
cmp one.fxt nocors || fail "the no-cors body"
kill -0 "$pid" 2>/dev/null || fail "a GET without Origin ended the serving"
contains err "mt: GET /<token>/one.fxt: 200 (no Origin: not the UI's fetch)"
curl -sS --max-time 10 -H "$ORIGIN" -o ui "$at/one.fxt" || fail "the UI's GET"
cmp one.fxt ui || fail "the UI's body"
stopped
contains err "mt: GET /<token>/one.fxt: 200"

# outside bytes in the log: paths that decode to an OSC sequence (with and
# without the token), and a method with an escape and bytes above 0x7f in it
serve one.fxt
curl -sS --max-time 10 -o /dev/null "$base/%1b%5d0%3bX%07%9b2J" || fail "the escape request"
curl -sS --max-time 10 -o /dev/null "$at/%1b%5d0%3bX%07%9b2J" || fail "the escape request"
perl -MIO::Socket::INET -e '
	my $c = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$ARGV[0]") or die "$!\n";
	print $c "G\x1b[2J\xffT /$ARGV[1]/one.fxt HTTP/1.1\r\n\r\n";
	local $/; my $r = <$c>;' "$port" "$tok"
curl -sS --max-time 10 -H "$ORIGIN" -o /dev/null "$at/one.fxt"
stopped
contains err 'mt: GET /\x1b]0;X\x07\x9b2J: 404'
contains err 'mt: GET /<token>/\x1b]0;X\x07\x9b2J: 404'
contains err 'mt: G\x1b[2J\xffT /<token>/one.fxt: 405'
bad=$(LC_ALL=C tr -d '\n -~' <err | wc -c)
[ "$bad" -eq 0 ] || fail "$bad bytes outside printable ASCII in the log"

# a FIFO: refused at once (timeout: the bound of a hang, not a measure)
mkfifo fifo
expect_exit 1 timeout 20 mt view --no-open -p 0 fifo >out 2>err
contains err "mt: fifo: not a regular file"
[ ! -s out ] || fail "an address printed for a FIFO"
