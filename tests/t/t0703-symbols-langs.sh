#!/bin/sh
# mt-symbols on Rust (legacy and v0 mangling) and Go programs built here:
# names demangled as rustc's own demangler (std's symbol printing via
# RUST_BACKTRACE is not stable, so the expected names are written from the
# source: module paths and generic arguments); Go names as they are, at the
# addresses go tool nm gives. --pick through fzf, and without fzf.
. "$MT_TOP/tests/lib.sh"

PATH=$PATH:/root/.cargo/bin:/usr/lib/go/bin
command -v rustc >/dev/null 2>&1 || fail "rustc not installed (make deps installs it)"
command -v go >/dev/null 2>&1 || fail "go not installed (make deps installs golang-go)"

cat >r.rs <<'R'
pub mod shapes {
    pub struct Sq(pub u64);
    impl Sq {
        #[inline(never)]
        pub fn area(&self) -> u64 { self.0 * self.0 }
    }
}
#[inline(never)]
fn generic<T: std::fmt::Debug>(x: T) -> String { format!("{:?}", x) }
fn main() {
    let s = shapes::Sq(std::env::args().count() as u64);
    println!("{} {}", s.area(), generic(3u8));
}
R
rustc -C opt-level=1 -o rl r.rs
RUSTC_BOOTSTRAP=1 rustc -C opt-level=1 -C symbol-mangling-version=v0 -o rv r.rs
mt-symbols rl >l
awk -F '\t' '$5 == "r::shapes::Sq::area" && $4 ~ /^_ZN1r6shapes2Sq4area17h[0-9a-f]+E$/' l | grep -q . ||
	fail "legacy Rust: area: $(grep area l)"
awk -F '\t' '$5 == "r::generic" && $4 ~ /^_ZN1r7generic/' l | grep -q . ||
	fail "legacy Rust: generic: $(grep generic l)"
mt-symbols rv >v
awk -F '\t' '$5 == "<r::shapes::Sq>::area" && $4 ~ /^_R/' v | grep -q . ||
	fail "v0 Rust: area: $(grep area v)"
awk -F '\t' '$5 == "r::generic::<u8>" && $4 ~ /^_R/' v | grep -q . ||
	fail "v0 Rust: generic: $(grep generic v)"
# addresses as nm gives them
for f in rl rv; do
	mt-symbols "$f" | awk -F '\t' '$3 != "plt" { printf "%x %s\n", $1, $4 }' | sort >m
	nm --defined-only "$f" | awk '$2 ~ /^[tTwWi]$/ { sub(/^0+/, "", $1); print $1, $3 }' | sort -u >n
	[ "$(comm -23 n m | wc -l)" -eq 0 ] || fail "$f: nm lists functions mt-symbols does not: $(comm -23 n m | head -3)"
done
# --match on the demangled name, --exact on the v0 one
mt-symbols --match '^<r::shapes::Sq>::area$' rv >m
[ "$(wc -l <m)" -eq 1 ] || fail "--match v0: $(cat m)"
mt-symbols --exact 'r::generic::<u8>' rv >m
[ "$(wc -l <m)" -eq 1 ] || fail "--exact v0: $(cat m)"

# Go: names as they are, addresses of go tool nm
cat >g.go <<'G'
package main

import "fmt"

type T struct{ n int }

//go:noinline
func (t *T) Method() int { return t.n }

//go:noinline
func deep(n int) int {
	if n == 0 {
		return 0
	}
	return deep(n-1) + 1
}

func main() { fmt.Println(deep(10), (&T{3}).Method()) }
G
HOME=$PWD GOCACHE=$PWD/gocache GOPATH=$PWD/gopath GOFLAGS=-mod=mod go build -o g g.go
mt-symbols g >gl
for fn in main.deep 'main.(*T).Method' main.main runtime.morestack.abi0; do
	a=$(awk -F '\t' -v n="$fn" '$4 == n && $5 == n { print $1 }' gl)
	[ -n "$a" ] || fail "Go: $fn not listed as it is"
	want=$(go tool nm g | awk -v n="$fn" '$3 == n && $2 == "T" { print $1 }')
	[ $((a)) -eq $((0x$want)) ] || fail "Go: $fn at $a, go tool nm says $want"
done

# --pick: fzf shows demangled names; its choice comes back as the listing
# line (fzf's --filter mode stands in for the user typing)
if command -v fzf >/dev/null 2>&1; then
	FZF_DEFAULT_OPTS="--filter='<r::shapes::Sq>::area'" mt-symbols --pick rv >p
	grep '	<r::shapes::Sq>::area$' v >p.want
	same_file p.want p
	expect_exit 1 env FZF_DEFAULT_OPTS='--exact --filter=no_such_function_zz' \
		mt-symbols --pick rv >p 2>err
	contains err "nothing picked"
else
	echo "fzf not installed: --pick with fzf not tested" >&2
fi
mkdir nofzf
for t in awk sed cat; do ln -s "$(command -v $t)" nofzf/; done
expect_exit 3 env PATH="$PWD/nofzf" "$MT_BIN/mt-symbols" --pick rv >p 2>err
contains err "--pick needs fzf, which is not installed"
contains err "--exact NAME"
[ "$(wc -l <err)" -eq 1 ] || fail "more than one line: $(cat err)"
expect_exit 2 mt-symbols --pick --json rv >p 2>err

# -p on a Rust program, whose text segment starts in the page where the
# one before it ends (lld's layout): the bias of the segment mapped there
cat >rs.rs <<'R'
#[inline(never)]
fn marker(x: u64) -> u64 { x * 3 }
fn main() {
    let f: fn(u64) -> u64 = marker;
    println!("marker {:#x}", f as usize);
    std::io::Write::flush(&mut std::io::stdout()).unwrap();
    std::thread::sleep(std::time::Duration::from_secs(20));
    println!("{}", marker(2));
}
R
rustc -C opt-level=1 -o rs rs.rs
./rs >rs.out &
rpid=$!
trap 'kill $rpid 2>/dev/null || true' EXIT
wait_for test -s rs.out || :
want=$(sed -n 's/^marker //p' rs.out)
[ -n "$want" ] || fail "the Rust program did not start"
got=$(mt-symbols -p $rpid --exact 'rs::marker' | cut -f2)
[ $((got)) -eq $((want)) ] || fail "Rust -p: marker at $got, the process says $want"
kill $rpid
