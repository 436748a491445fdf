// Go: goroutines that hand results over a channel, and a recursion deep
// enough to grow the goroutine's stack through runtime.morestack.
package main

import "os"

//go:noinline
func deep(n int) int {
	var pad [64]byte
	pad[n%64] = byte(n)
	if n == 0 {
		return int(pad[0])
	}
	return deep(n-1) + int(pad[n%64]&1)
}

//go:noinline
func work(id int, out chan<- int) {
	out <- deep(40 + id)
}

func main() {
	out := make(chan int)
	for i := 0; i < 2; i++ {
		go work(i, out)
	}
	sum := <-out + <-out
	if sum < 0 {
		os.Exit(1)
	}
}
