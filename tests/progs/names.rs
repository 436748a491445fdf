// A Rust program whose functions have module paths and a generic, for the
// tests of one naming: t0914, t1120, t1121. Built by the tests with
// rustc -C opt-level=1 -C force-frame-pointers=yes (legacy mangling) and
// with -C symbol-mangling-version=v0. names N calls each function N times
// (default 200); app::Server::lookup spins, so that a sampling profiler
// sees it.
pub mod app {
    pub struct Server(pub u64);
    impl Server {
        #[inline(never)]
        pub fn lookup(&self, k: u64) -> u64 {
            let mut x = 0u64;
            for i in 0..20000u64 {
                x = x.wrapping_add(std::hint::black_box(k.wrapping_mul(i)));
            }
            x + self.0
        }
        #[inline(never)]
        pub fn handle(&self, n: u64) -> u64 {
            self.lookup(apply(n, |v| v + 1))
        }
    }
    #[inline(never)]
    pub fn apply<F: Fn(u64) -> u64>(n: u64, f: F) -> u64 {
        f(std::hint::black_box(n))
    }
}

fn main() {
    let n: u64 = std::env::args().nth(1).map_or(200, |a| a.parse().unwrap());
    let s = app::Server(1);
    let mut t = 0u64;
    for i in 0..n {
        t = t.wrapping_add(s.handle(i));
    }
    println!("{}", t);
}
