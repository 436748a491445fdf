#!/bin/sh
# uprobe engine: Go programs get entry probes only (a uretprobe's hijacked
# return address crashes Go), with a warning: a C program with a .gopclntab
# section (how a Go binary is recognised) gives 900 call lines and no
# return; a real Go program, when the go tool is here, runs to its end
# with its calls recorded.
. "$MT_TOP/tests/lib.sh"
[ -r /sys/bus/event_source/devices/uprobe/type ] ||
	{ echo "skip: no uprobe PMU in this kernel" >&2; exit 0; }
[ "$(id -u)" -eq 0 ] || { echo "skip: uprobes need root (CAP_SYS_ADMIN)" >&2; exit 0; }

uprobe-rec --functions '^(work|outer)$' -- "$MT_TESTBIN/progs/outer-go" >lines 2>err ||
	{ cat err >&2; fail "uprobe-rec failed"; }
contains err "return probes were left out of a Go program"
[ "$(wc -l <lines)" -eq 900 ] || fail "$(wc -l <lines) lines, expected 900"
! grep -q __return lines || fail "return probes in a Go program"
[ "$(grep -c ' probe_outer:outer: ' lines)" -eq 300 ] || fail "not 300 calls of outer"

command -v go >/dev/null || { echo "skip: no go tool for the real Go program" >&2; exit 0; }
cat >main.go <<'GO'
package main

import "fmt"

//go:noinline
func work(i int) int { return i * 7 }

//go:noinline
func outer(i int) int { return work(i) + work(i+1) }

func main() {
	s := 0
	for i := 0; i < 300; i++ {
		s += outer(i)
	}
	fmt.Println(s)
}
GO
HOME=$PWD GOCACHE=$PWD/gocache GOPATH=$PWD/gopath GO111MODULE=off \
	go build -o gotarget main.go 2>goerr ||
	{ cat goerr >&2; echo "skip: go build failed" >&2; exit 0; }
uprobe-rec --functions '^main\.(work|outer)$' -- ./gotarget >lines 2>err ||
	{ cat err >&2; fail "uprobe-rec failed on Go"; }
contains err "return probes were left out of a Go program"
contains err "630000"
# main.outer's prologue checks the stack: when the runtime asks the
# goroutine to yield (sysmon, after 10 ms of running: more often on a busy
# machine) or the stack must grow, it calls morestack and jumps back to
# main.outer+0x0, which the probe sees again; main.work, a leaf without
# the check, never is. So: 600 works, and with each run of outers taken
# as one call, outer work work 300 times.
[ "$(grep -c 'main\.work+0x0' lines)" -eq 600 ] || fail "not 600 calls of main.work"
sed -n 's/.* main\.\(outer\|work\)+0x0 .*/\1/p' lines | uniq -c |
	awk '{ n = $2 == "work" ? $1 : 1; for (i = 0; i < n; i++) print $2 }' | tr '\n' ' ' >calls
awk 'BEGIN { for (i = 0; i < 300; i++) printf "outer work work " }' >want
cmp -s want calls || fail "not outer work work 300 times: $(head -c 200 calls)"
echo "main.outer entered $(grep -c 'main\.outer+0x0' lines) times for its 300 calls" >&2
! grep -q __return lines || fail "return probes in a Go program"
