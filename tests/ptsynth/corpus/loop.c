/*
 * A loop calling three small functions N times (argv[1], default 1000):
 * the program whose trace the decoding benchmark times
 * (tests/bench/70-dlfilter.sh). Its trace grows with N at a steady rate of
 * calls, returns and conditional branches.
 */
#include <stdlib.h>

__attribute__((noinline)) static int a(int x) { return x * 3 + 1; }
__attribute__((noinline)) static int b(int x) { return x ^ 0x55; }
__attribute__((noinline)) static int c(int x) { return x > 100 ? x - 7 : x + 9; }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, r = 0;

	for (int i = 0; i < n; i++)
		r += c(b(a(i)));
	return r == 12345;
}
