// Rust: generic and trait-object calls, a closure, a Vec, recursion.
trait Shape {
    fn area(&self) -> u64;
}

struct Square(u64);
struct Rect(u64, u64);

impl Shape for Square {
    #[inline(never)]
    fn area(&self) -> u64 {
        self.0 * self.0
    }
}

impl Shape for Rect {
    #[inline(never)]
    fn area(&self) -> u64 {
        self.0 * self.1
    }
}

#[inline(never)]
fn total(shapes: &[Box<dyn Shape>]) -> u64 {
    shapes.iter().map(|s| s.area()).sum()
}

#[inline(never)]
fn largest<T: PartialOrd + Copy>(v: &[T]) -> T {
    let mut m = v[0];
    for &x in v {
        if x > m {
            m = x;
        }
    }
    m
}

#[inline(never)]
fn depth(n: u32) -> u32 {
    if n == 0 { 0 } else { 1 + depth(n - 1) }
}

fn main() {
    let shapes: Vec<Box<dyn Shape>> = vec![Box::new(Square(3)), Box::new(Rect(2, 5))];
    let t = total(&shapes) + largest(&[3u64, 9, 4]) + depth(4) as u64;
    std::process::exit(if t == 9 + 10 + 9 + 4 { 0 } else { 1 });
}
