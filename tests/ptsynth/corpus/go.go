// Go: goroutines that hand results over a channel, a recursion deep
// enough to grow the goroutine's stack through runtime.morestack, a ping
// pong over unbuffered channels (goroutines park and are resumed, often on
// another thread), and a panic recovered in a deferred function
// (runtime.recovery's gogo).
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

//go:noinline
func bounce(in <-chan int, out chan<- int) {
	for v := range in {
		out <- v + 1
	}
	close(out)
}

//go:noinline
func fail(n int) int {
	if n > 0 {
		panic("fail")
	}
	return n
}

//go:noinline
func recovered(n int) (r int) {
	defer func() {
		if recover() != nil {
			r = -1
		}
	}()
	return fail(n)
}

func main() {
	out := make(chan int)
	for i := 0; i < 2; i++ {
		go work(i, out)
	}
	sum := <-out + <-out
	ping, pong := make(chan int), make(chan int)
	go bounce(ping, pong)
	for i := 0; i < 3; i++ {
		ping <- i
		sum += <-pong
	}
	close(ping)
	sum += recovered(1)
	if sum < 0 {
		os.Exit(1)
	}
}
